#!/usr/bin/env bash
# Runs every shipped scene with two jelly programs and compares their stats.csv
# in every column but wall_ms: a change meant to leave behaviour alone (a
# refactor) must print "same" for every scene.
#   scripts/same_results.sh OLD_JELLY NEW_JELLY [SCENE...]
# Scenes default to models/scenes/*.json; runs go to a temporary folder, two at
# a time. Exit status 1 when any scene differs or fails to run.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/same_results.sh OLD_JELLY NEW_JELLY [SCENE...]" >&2
  exit 2
fi
old=$(realpath "$1") new=$(realpath "$2")
shift 2
cd "$(dirname "$0")/.."
scenes=("$@")
[ ${#scenes[@]} -gt 0 ] || scenes=(models/scenes/*.json)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_one() { # PROGRAM TAG SCENE
  local out="$4/$2/$(basename "$3" .json)"
  "$1" run "$3" --out "$out" --quiet --no-preview >/dev/null 2>"$out.err" || echo "exit $?" >>"$out.err"
}
export -f run_one
for s in "${scenes[@]}"; do
  mkdir -p "$tmp/old" "$tmp/new"
  printf '%s\0%s\0' "$old old $s" "$new new $s"
done | xargs -0 -n1 -P2 bash -c 'set -- $1; run_one "$1" "$2" "$3" "'"$tmp"'"' _
# stats.csv without the wall_ms column
strip() { awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="wall_ms") c=i} {s=""; for(i=1;i<=NF;i++) if(i!=c) s=s (s==""?"":",") $i; print s}' "$1"; }
bad=0
for s in "${scenes[@]}"; do
  n=$(basename "$s" .json)
  a="$tmp/old/$n/stats.csv" b="$tmp/new/$n/stats.csv"
  if [ ! -f "$a" ] || [ ! -f "$b" ]; then
    echo "$n: no stats.csv ($(cat "$tmp/old/$n.err" "$tmp/new/$n.err" 2>/dev/null | tail -1))"
    bad=1
  elif cmp -s <(strip "$a") <(strip "$b"); then
    echo "$n: same ($(($(wc -l <"$b") - 1)) frames)"
  else
    echo "$n: DIFFERENT"
    bad=1
  fi
done
exit "$bad"
