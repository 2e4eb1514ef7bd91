#!/usr/bin/env bash
# Fails when an #include points up a layer (docs/architecture.md, "Layers"):
#   mesh/ <- collision/ <- src/ (engine) <- render/ <- src/cli/ (the program)
# or when includes form a cycle between units (a .c with its .h, and its
# X_internal.h, is one unit: src/scene.c, src/scene.h and src/scene_internal.h
# are src/scene).
# src/python/ (the Python module) counts as a program like src/cli/; it
# includes only <jelly/jelly.h>, which its own check below enforces.
# A file may include headers of its own layer and of the layers before it.
# tests/ and docs/examples/ may include anything.
set -euo pipefail
cd "$(dirname "$0")/.."
layer() {
  case "$1" in
    mesh/*) echo 0 ;;
    collision/*) echo 1 ;;
    src/cli/*|src/python/*) echo 4 ;;
    src/*) echo 2 ;;
    render/*) echo 3 ;;
    *) echo -1 ;;
  esac
}
bad=0
while IFS= read -r file; do
  own=$(layer "$file")
  while IFS= read -r inc; do
    to=$(layer "$inc")
    if [ "$to" -gt "$own" ]; then
      echo "$file includes $inc: a layer above its own (docs/architecture.md)" >&2
      bad=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(git ls-files 'mesh/*' 'collision/*' 'src/*' 'render/*' | grep -E '\.(c|h|cpp)$')
# the Python module binds the public API only (docs/python.md): no quoted includes at all
if git ls-files 'src/python/*' | grep -E '\.(c|h)$' | xargs -r grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' >&2; then
  echo "src/python includes a private header: it may use <jelly/jelly.h> only" >&2
  bad=1
fi
# no cycle between units: tsort over the unit graph (one "from to" pair per include)
unit() { local u=${1%.*}; echo "${u%_internal}"; }
edges=$(while IFS= read -r file; do
  from=$(unit "$file")
  while IFS= read -r inc; do
    to=$(unit "$inc")
    [ "$from" = "$to" ] || echo "$from $to"
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(git ls-files 'mesh/*' 'collision/*' 'src/*' 'render/*' | grep -E '\.(c|h|cpp)$') | sort -u)
if ! loops=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null) || [ -n "$loops" ]; then
  echo "include cycle between units (docs/architecture.md, \"Layers\"):" >&2
  printf '%s\n' "$loops" | awk '/contains a loop/ { if (l) print "  " l; l = ""; next }
    { sub(/^tsort: /, ""); l = l (l ? " -> " : "") $0 } END { if (l) print "  " l }' >&2
  bad=1
fi
if [ "$bad" = 0 ]; then echo "layers: no include points up a layer, no include cycle"; fi
exit "$bad"
