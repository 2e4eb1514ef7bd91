#!/bin/bash
# Wall time of shipped scenes with the older solver settings (Jacobi, CG
# relative tolerance 1e-6) against today's defaults (docs/performance.md,
# "The implicit solve"). Best of two runs each, one thread.
#   scripts/solver_compare.sh [JELLY] [SCENE.json ...]
# JELLY defaults to build/jelly; scenes to a set of models/scenes/.
set -eu
cd "$(dirname "$0")/.."
jelly=${1:-build/jelly}
shift || true
scenes=("$@")
if [ ${#scenes[@]} -eq 0 ]; then
  for s in default stack stairs squeeze drape rope_bridge contact_ball_on_box contact_stack8 hanging_bar curtain \
           flag drop thin_cloth_on_box hair; do scenes+=("models/scenes/$s.json"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-28s %12s %12s %8s\n" scene "before_s" "now_s" ratio
for f in "${scenes[@]}"; do
  s=$(basename "$f" .json)
  declare -A best=()
  for v in before now; do
    python3 - "$f" "$v" > "$tmp/$s.$v.json" <<'PY'
import json, os, sys
f, v = sys.argv[1], sys.argv[2]
sc = json.load(open(f))
sol = sc.setdefault("solver", {})
if v == "before":
    sol.update({"preconditioner": "jacobi", "tolerance": 1e-6})
    sol.pop("velocity_tolerance", None)
else:
    sol.pop("tolerance", None)
d = os.path.dirname(os.path.abspath(f))
for b in sc.get("bodies", []):
    for k in ("mesh", "surface"):
        if isinstance(b.get(k), str): b[k] = os.path.normpath(os.path.join(d, b[k]))
for o in sc.get("obstacles", []):
    if isinstance(o.get("mesh"), str): o["mesh"] = os.path.normpath(os.path.join(d, o["mesh"]))
print(json.dumps(sc))
PY
    b=1e9
    for r in 1 2; do
      w=$("$jelly" run "$tmp/$s.$v.json" --out "$tmp/out" --no-preview --threads 1 | awk '/^simulated/ {print $5}')
      b=$(python3 -c "print(min($b, $w))")
    done
    best[$v]=$b
  done
  printf "%-28s %12s %12s %8.2f\n" "$s" "${best[before]}" "${best[now]}" "$(python3 -c "print(${best[before]} / ${best[now]})")"
  unset best
done
