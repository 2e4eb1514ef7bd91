#!/usr/bin/env bash
# Jelly as a library (docs/api.md): installs an existing build into a
# temporary prefix, then builds docs/examples/drop_bunny.c against it twice,
# through pkg-config and through CMake's find_package(jelly), runs both, and
# once more statically (libjelly.a with `pkg-config --static`), and checks
# that the shared library exports the public API only. Last, a tiny project
# pulls Jelly in with add_subdirectory and must get the libraries without
# Jelly's program, renderer or tests. When the build has the Python module,
# it must import from the prefix alone and run a scene and jelly.run. The README's
# C and Python examples are built and run against the prefix too.
# Usage: scripts/test_install.sh [BUILD_DIR]   (default build/, already built)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build}
jobs=$(nproc 2>/dev/null || echo 2)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jelly-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "== install into $tmp/prefix"
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
prefix=$tmp/prefix
lib=$(dirname "$(find "$prefix" -name libjelly.so -print -quit)")
test -f "$prefix/include/jelly/jelly.h" && test -f "$lib/libjelly.a" && test -f "$lib/pkgconfig/jelly.pc"
test -f "$lib/cmake/jelly/jellyConfig.cmake" && test -x "$prefix/bin/jelly"

echo "== the installed program finds the shipped scenes and meshes (share/jelly/models)"
test -f "$prefix/share/jelly/models/scenes/default.json" && test -f "$prefix/share/jelly/models/bunny.obj"
mkdir -p "$tmp/elsewhere"
(cd "$tmp/elsewhere" && "$prefix/bin/jelly" run --frames 2 --out run --quiet --no-preview && test -s run/stats.csv)
if "$prefix/bin/jelly" view --help >/dev/null 2>&1; then
  # no file and no scene in the working directory: an empty world, the bunny key spawns the installed bunny
  printf 'frame 1 key 4\n' >"$tmp/elsewhere/spawn.txt"
  (cd "$tmp/elsewhere" && SDL_VIDEODRIVER=dummy "$prefix/bin/jelly" view --frames 3 --size 64x48 \
    --script spawn.txt --report report.txt && grep -q '^scene (empty world)' report.txt &&
    grep -q '^body 0 bunny' report.txt)
fi

echo "== exported symbols: JELLY_API functions only"
bad=$(nm -D --defined-only "$lib/libjelly.so" | awk '$2 ~ /[TDBRW]/ && $3 !~ /^(jelly_|jl_version$|_edata$|_end$|__bss_start$|_init$|_fini$)/ {print $3}')
if [ -n "$bad" ]; then echo "libjelly.so exports internals:"; echo "$bad" | head; exit 1; fi
missing=$(grep -o 'JELLY_API [^(]*(' "$prefix/include/jelly/jelly.h" | grep -o '\(jelly\|jl\)_[a-z_]*' |
          while read -r f; do nm -D --defined-only "$lib/libjelly.so" | grep -qw "$f" || echo "$f"; done)
if [ -n "$missing" ]; then echo "libjelly.so lacks: $missing"; exit 1; fi

echo "== <jelly/jelly.h> compiles as C99 and C++11, pedantic"
printf '#include <jelly/jelly.h>\nint main(void) { return jelly_version()[0] == 0; }\n' >"$tmp/h.c"
cc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$prefix/include" "$tmp/h.c"
c++ -std=c++11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$prefix/include" -x c++ "$tmp/h.c"

echo "== drop_bunny through pkg-config"
export PKG_CONFIG_PATH=$lib/pkgconfig
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/drop_bunny_pc" docs/examples/drop_bunny.c \
   $(pkg-config --cflags --libs jelly) -Wl,-rpath,"$lib"
"$tmp/drop_bunny_pc" models/bunny.obj | tee "$tmp/pc.txt"
grep -q "^t = 1.0 s" "$tmp/pc.txt"

echo "== the README's C example, through pkg-config"
awk '/^```c$/ {f = 1; next} /^```$/ {f = 0} f' README.md >"$tmp/readme.c"
test -s "$tmp/readme.c"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/readme" "$tmp/readme.c" $(pkg-config --cflags --libs jelly) -Wl,-rpath,"$lib"
"$tmp/readme" | tee "$tmp/readme.txt"
grep -q "^t = 1 s, first node at y = " "$tmp/readme.txt"

echo "== drop_bunny linked statically (libjelly.a, pkg-config --static)"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/drop_bunny_static" docs/examples/drop_bunny.c \
   $(pkg-config --cflags jelly) "$lib/libjelly.a" $(pkg-config --static --libs jelly | sed 's/-ljelly\b//')
if ldd "$tmp/drop_bunny_static" | grep -q libjelly; then echo "drop_bunny_static links libjelly.so"; exit 1; fi
"$tmp/drop_bunny_static" models/bunny.obj | cmp - "$tmp/pc.txt"

echo "== drop_bunny through find_package(jelly)"
cmake -S docs/examples -B "$tmp/examples" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/examples" -j "$jobs" >/dev/null
"$tmp/examples/drop_bunny" models/bunny.obj >"$tmp/cmake.txt"
cmp "$tmp/pc.txt" "$tmp/cmake.txt" # the same library, the same numbers

echo "== add_subdirectory: the libraries only (no program, renderer or tests)"
mkdir -p "$tmp/sub"
cat >"$tmp/sub/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(uses_jelly LANGUAGES C CXX)
add_subdirectory("$root" jelly)
add_executable(drop_bunny "$root/docs/examples/drop_bunny.c")
target_link_libraries(drop_bunny PRIVATE jelly::jelly)
if(TARGET test_api OR TARGET jelly_render OR TARGET jelly_cli)
  message(FATAL_ERROR "Jelly's tests, renderer or program were configured inside another project")
endif()
CMAKE
cmake -S "$tmp/sub" -B "$tmp/sub/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/sub/build" -j "$jobs" --target drop_bunny >/dev/null
"$tmp/sub/build/drop_bunny" models/bunny.obj >"$tmp/sub.txt"
grep -q "^t = 1.0 s" "$tmp/sub.txt"
py_dir=$(find "$prefix" -type d -name jelly -path '*-packages/jelly' -print -quit)
if [ -n "$py_dir" ]; then
  echo "== the Python module from the prefix ($(dirname "$py_dir"))"
  py=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  (cd "$tmp" && PYTHONPATH=$(dirname "$py_dir") "${py:-/usr/bin/python3}" - "$root/models" <<'PY'
import os, sys, tempfile
import jelly
assert jelly.__file__.startswith(os.environ["PYTHONPATH"]), jelly.__file__
w = jelly.World(os.path.join(sys.argv[1], "scenes", "drop.json"))
w.step(10)
assert w.positions.shape == (w.node_count, 3) and w.stats["steps"] == 10
sc = jelly.load_scene(os.path.join(sys.argv[1], "scenes", "drop.json"))
out = jelly.run(sc, os.path.join(tempfile.mkdtemp(), "x"), "--frames", "2", "--no-preview")
assert os.path.exists(os.path.join(out, "stats.csv"))
print("python module: imported from the prefix, stepped, ran", jelly._config.PROGRAM)
PY
  )
  echo "== the README's Python example"
  awk '/^```python$/ {f = 1; next} /^```$/ {f = 0} f' README.md >"$tmp/readme.py"
  test -s "$tmp/readme.py"
  PYTHONPATH=$(dirname "$py_dir") "${py:-/usr/bin/python3}" "$tmp/readme.py"
fi
echo "install test passed"
