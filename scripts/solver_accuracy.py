#!/usr/bin/env python3
"""Stopping by accuracy, checked on a scene (docs/performance.md, "Stopping by accuracy").

    scripts/solver_accuracy.py SCENE [--jelly build/jelly] [--seconds 1] [--solver JSON]...

Runs `jelly run` on SCENE once with CG tolerance 1e-10 (velocity stop off) as the
reference and once per --solver setting (default: the scene's own solver keys, i.e.
Jelly's defaults unless it sets them), each for --seconds of simulated time, and prints
for each the wall time, the CG iterations and the largest node distance from the
reference after that time, as a fraction of the largest extent of the model at the start.
The solver's defaults are chosen to keep this below 1e-4. Uses ASCII VTK output; Python's standard library only.

Example: scripts/solver_accuracy.py models/scenes/curtain.json \\
             --solver '{}' --solver '{"velocity_tolerance": 1e-3}' --solver '{"tolerance": 1e-6}'
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def points(vtu):
    """positions of the grid in a jelly ASCII .vtu"""
    text = open(vtu).read()
    m = re.search(r'<Points>\s*<DataArray[^>]*format="ascii">(.*?)</DataArray>', text, re.S)
    if not m:
        sys.exit(f"{vtu}: no ASCII points (jelly run --vtk-ascii)")
    v = [float(t) for t in m.group(1).split()]
    return [v[i:i + 3] for i in range(0, len(v), 3)]


def run(jelly, scene, solver, seconds, out):
    sc = json.load(open(scene))
    base = os.path.dirname(os.path.abspath(scene))
    for b in sc.get("bodies", []):
        for k in ("mesh", "surface"):
            if isinstance(b.get(k), str):
                b[k] = os.path.normpath(os.path.join(base, b[k]))
    for o in sc.get("obstacles", []):
        if isinstance(o.get("mesh"), str):
            o["mesh"] = os.path.normpath(os.path.join(base, o["mesh"]))
    if solver is not None:
        keep = {k: v for k, v in sc.get("solver", {}).items() if k == "max_iterations"}
        keep.update(solver)
        sc["solver"] = keep
    fps = sc.get("fps", 60)
    frames = max(1, round(seconds * fps))
    path = os.path.join(out, "scene.json")
    json.dump(sc, open(path, "w"))
    res = subprocess.run([jelly, "run", path, "--out", os.path.join(out, "run"), "--no-preview", "--vtk-ascii",
                          "--frames", str(frames)], capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"jelly run failed ({res.returncode}):\n{res.stderr}")
    m = re.search(r"simulated .* in ([0-9.e+-]+) s wall .* ([0-9]+) CG iterations", res.stdout)
    wall, its = (float(m.group(1)), int(m.group(2))) if m else (float("nan"), -1)
    first = points(os.path.join(out, "run", "frame_0000.vtu"))
    last = points(os.path.join(out, "run", f"frame_{frames:04d}.vtu"))
    return first, last, wall, its


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scene")
    ap.add_argument("--jelly", default="build/jelly")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--solver", action="append", help="solver keys as JSON (default: the scene's own)")
    a = ap.parse_args()
    settings = [json.loads(s) for s in a.solver] if a.solver else [None]
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "ref"))
        first, ref, wall, its = run(a.jelly, a.scene, {"tolerance": 1e-10, "velocity_tolerance": 0}, a.seconds,
                                    os.path.join(tmp, "ref"))
        size = max(max(p[k] for p in first) - min(p[k] for p in first) for k in range(3))
        print(f"{a.scene}: {len(ref)} nodes, size {size:.4g} m, {a.seconds:g} s")
        print(f"  reference (tolerance 1e-10): {wall:.3g} s wall, {its} CG iterations")
        for i, s in enumerate(settings):
            d = os.path.join(tmp, f"s{i}")
            os.makedirs(d)
            _, x, wall, its = run(a.jelly, a.scene, s, a.seconds, d)
            diff = max(math.dist(p, q) for p, q in zip(x, ref))
            name = json.dumps(s) if s is not None else "scene's solver keys"
            print(f"  {name}: {wall:.3g} s wall, {its} CG iterations, max distance {diff / size:.3g} of the size")


if __name__ == "__main__":
    main()
