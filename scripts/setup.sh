#!/usr/bin/env bash
# Installs Jelly's missing Debian packages (as root, or through sudo) and
# builds the program into build/. Prints exactly what to install when it
# cannot install itself.
# Usage: scripts/setup.sh [--test-deps] [--fuzz-deps] [--no-render] [--no-python] [--no-build] [--build-dir DIR]
#   --fuzz-deps  also clang and its libFuzzer runtime (scripts/fuzz.sh)
#   --no-render  without SDL2 and cglm: the engine and a headless jelly (-DJELLY_RENDER=OFF)
#   --no-python  without the Python module's packages (python3-dev, python3-numpy,
#                python3-pytest, python3-distributed, python3-venv, python3-pip);
#                the module is then skipped
#   --no-build   install only
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
want_test_deps=0
want_fuzz_deps=0
render=1
python=1
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --test-deps) want_test_deps=1 ;;
    --fuzz-deps) want_fuzz_deps=1 ;;
    --no-render) render=0 ;;
    --no-python) python=0 ;;
    --no-build) build=0 ;;
    --build-dir) build_dir="$2"; shift ;;
    *) echo "setup.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

packages=(build-essential cmake pkg-config
          libtet1.5-dev tetgen libccd-dev libassimp-dev libcjson-dev zlib1g-dev)
render_flag=-DJELLY_RENDER=OFF
if [ "$render" = 1 ]; then
  packages+=(libsdl2-dev libcglm-dev)
  render_flag=-DJELLY_RENDER=ON
fi
if [ "$python" = 1 ]; then
  # the Python module (docs/python.md) is built for Debian's /usr/bin/python3
  # with its headers and NumPy; pytest runs its tests, distributed (Dask) its
  # cluster sweeps; venv and pip install it with `pip install .` (pyproject.toml),
  # which tests/python/test_packaging.py does into a fresh venv
  packages+=(python3 python3-dev python3-numpy python3-pytest python3-distributed python3-venv python3-pip)
fi
if [ "$want_test_deps" = 1 ]; then
  # python3 decodes PNGs independently in the render tests; xvfb + xauth give
  # the viewer smoke test (tests/test_viewer.c) an X server; python3-vtk9
  # reads the VTK output back with VTK's own readers (tests/python/test_vtk_files.py);
  # clang-format checks the layout (scripts/check_format.sh)
  packages+=(python3 xvfb xauth python3-vtk9 clang-format)
fi
if [ "$want_fuzz_deps" = 1 ]; then
  # Debian 12's clang is clang 14; libFuzzer and the sanitizer runtimes are
  # in libclang-rt-14-dev
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    sudo_cmd=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo_cmd=(sudo)
  else
    echo "setup: these Debian packages are missing and I am not root:" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$build" = 1 ] || exit 0
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "$render_flag" ${JELLY_CMAKE_FLAGS:-} >/dev/null
cmake --build "$build_dir" -j "$jobs"
