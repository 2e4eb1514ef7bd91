#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer targets of tests/fuzz/ with clang, ASan and
# UBSan into build-fuzz/ (installing clang if missing), runs each for a fixed
# time from its seed corpus and fails on any finding (crash, sanitizer
# report, leak, timeout, out-of-memory), naming the reproducer.
# docs/robustness.md, "Fuzzing".
# Usage: scripts/fuzz.sh [--time S] [TARGET...]
#   --time S   seconds per target (default 60, or $JELLY_FUZZ_TIME)
#   TARGET     fuzz_scene, fuzz_surface, fuzz_validate, fuzz_checkpoint, fuzz_tetfile
#              (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

budget=${JELLY_FUZZ_TIME:-60}
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) budget="$2"; shift ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
if [ ${#targets[@]} = 0 ]; then
  for src in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$src" .c)"); done
fi
jobs=$(nproc 2>/dev/null || echo 2)

scripts/setup.sh --fuzz-deps --no-build
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJELLY_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}"

# Per input: 10 s (an importer child may take 2 s, fuzz_common.h); the
# fuzzer process: 2560 MB resident, no single allocation above 2048 MB.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for t in "${targets[@]}"; do
  run=build-fuzz/run/$t
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  echo "== $t: ${budget} s from tests/fuzz/corpus/$t"
  set +e
  # new inputs go into $run/corpus; the committed seeds are only read
  build-fuzz/"$t" -seed=1 -max_total_time="$budget" -timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$run/artifacts/" "$run/corpus" "tests/fuzz/corpus/$t" \
    >"$run/log" 2>&1
  rc=$?
  set -e
  grep -E "DONE|^stat::number_of_executed_units|^stat::peak_rss_mb" "$run/log" | sed 's/^/   /' || true
  if [ "$rc" != 0 ]; then
    failed+=("$t")
    echo "FINDING in $t (libFuzzer exit $rc); log: $run/log" >&2
    grep -E "ERROR: |SUMMARY: |runtime error|Test unit written to" "$run/log" | head -8 | sed 's/^/   /' >&2
    repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$run/log" | tail -1)
    if [ -n "$repro" ]; then
      echo "   reproduce: build-fuzz/$t $repro" >&2
    fi
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no findings (${#targets[@]} targets x ${budget} s)"
