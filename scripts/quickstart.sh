#!/usr/bin/env bash
# Quick start: install what is missing, build, and run the default scene.
# Output goes to out/default (stats.csv, scene.pvd + .vtu frames, scene_all.pvd + .vtm/.vtp surfaces).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/jelly run models/scenes/default.json --out out/default "$@"
