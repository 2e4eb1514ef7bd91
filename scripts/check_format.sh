#!/usr/bin/env bash
# Fails when a C or C++ file of the tree is not laid out as .clang-format says
# (clang-format 14, Debian 12's; `clang-format -i FILE` fixes one). Without
# clang-format it says so and passes: scripts/setup.sh --test-deps installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format: clang-format not installed, not checked"
  exit 0
fi
if ! git ls-files '*.c' '*.h' '*.cpp' | xargs clang-format --dry-run -Werror 2>/tmp/jelly_format.$$; then
  grep -E "^[^ ].*(warning|error):" /tmp/jelly_format.$$ | head -20 >&2
  echo "format: files differ from .clang-format (clang-format -i FILE fixes them)" >&2
  rm -f /tmp/jelly_format.$$
  exit 1
fi
rm -f /tmp/jelly_format.$$
echo "format: every C and C++ file follows .clang-format"
