#!/usr/bin/env bash
# The whole test suite (docs/testing.md): installs what is missing, builds with
# warnings as errors and runs every tier (unit, scene, program, robustness)
# in release; then, under AddressSanitizer + UndefinedBehaviorSanitizer, the
# unit, program and robustness tiers and the short scene subset (label
# "short": the same code paths on short runs); then the thread cases under
# ThreadSanitizer. Prints each stage's time.
# Usage: scripts/test.sh [--no-sanitize]
#   --no-sanitize  the release stage only
# One tier by hand: ctest --test-dir build -L unit (scene, program, robustness).
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=1
case "${1:-}" in
  "") ;;
  --no-sanitize) sanitize=0 ;;
  *) echo "test.sh: unknown option '$1' (usage: scripts/test.sh [--no-sanitize])" >&2; exit 2 ;;
esac
jobs=$(nproc 2>/dev/null || echo 2)
suite_start=$(date +%s)
stage_start=$suite_start
# prints how long the stage that just ended took
stage_done() {
  local now
  now=$(date +%s)
  echo "== $1: $((now - stage_start)) s"
  stage_start=$now
}

JELLY_CMAKE_FLAGS="-DJELLY_WERROR=ON" scripts/setup.sh --test-deps --build-dir build
scripts/check_layers.sh
scripts/check_format.sh
stage_done "dependencies and release build"

echo "== every tier (release build)"
ctest --test-dir build --output-on-failure -j "$jobs"
stage_done "release tests"

if [ "$sanitize" = 1 ]; then
  echo "== unit, program, robustness and the short scenes under AddressSanitizer + UndefinedBehaviorSanitizer"
  # -O2: the sanitizers check the same accesses, and the tests run about four
  # times faster than at -O0 (227 s at -O1, 174 s at -O2; docs/testing.md).
  # JL_TEST_QUICK: the scene runs stop at 0.5 s simulated.
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O2" "-DCMAKE_CXX_FLAGS_DEBUG=-g -O2" \
    -DJELLY_WERROR=ON -DJELLY_SANITIZE=ON >/dev/null
  cmake --build build-asan -j "$jobs"
  stage_done "sanitizer build"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    JL_TEST_QUICK=1 ctest --test-dir build-asan --output-on-failure -j "$jobs" -L 'unit|program|robustness|short'
  stage_done "sanitizer tests"

  echo "== thread cases under ThreadSanitizer"
  # Worlds (also of one model) stepped on several threads, meshes loaded and
  # PNGs written at once. OpenMP off: libgomp is not instrumented and would
  # report its own barriers. Only the three thread test binaries are built,
  # and only their thread cases run (CTest's name filter), side by side.
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O2" "-DCMAKE_CXX_FLAGS_DEBUG=-g -O2" \
    -DJELLY_OPENMP=OFF -DJELLY_WERROR=ON \
    -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_CXX_FLAGS=-fsanitize=thread \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
  cmake --build build-tsan -j "$jobs" --target test_threads test_state test_api
  TSAN_OPTIONS=halt_on_error=1 JL_TEST_QUICK=1 ctest --test-dir build-tsan --output-on-failure -j "$jobs" \
    -R '^(threads\..*|state\..*thread.*|api\..*thread.*)$'
  stage_done "ThreadSanitizer stage"
fi
echo "== test suite: $(($(date +%s) - suite_start)) s"
