#!/usr/bin/env bash
# Quick start: install what is missing, build, and run the default scene.
# Output goes to out/default (stats.csv, scene.pvd + .vtu frames, scene_all.pvd + .vtm/.vtp surfaces).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# out/default is this script's own folder: one written by a Jelly from before
# run manifests (frames, no jelly_manifest.txt) would be refused by `jelly
# run`, so it is cleared here; any other --out keeps that protection.
if [ -d out/default ] && [ ! -f out/default/jelly_manifest.txt ] &&
   { compgen -G 'out/default/frame_*.vtu' >/dev/null || compgen -G 'out/default/frame_*.png' >/dev/null; }; then
  echo "quickstart: clearing out/default (frames of an older Jelly, written before run manifests)"
  rm -f out/default/frame_*.vtu out/default/frame_*.png out/default/movie.mp4 out/default/*.obj \
        out/default/scene.pvd out/default/stats.csv out/default/preview.png
fi
exec build/jelly run models/scenes/default.json --out out/default "$@"
