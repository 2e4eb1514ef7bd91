#!/usr/bin/env python3
"""Tip sag of models/scenes/hanging_bar.json against the cantilever formula.

Runs `jelly run` on the scene for SECONDS (default 15 s, long enough for the
bar's damped swing to die out; the scene's own 3 s end with it still swinging
by about +-1 mm) and reads the first and last .vtu frames:

  measured sag: mean downward displacement of the nodes of the free end face
                (largest x at rest), and their mean sideways (z) drift;
  analytic sag: uniformly loaded cantilever, delta = w L^4 / (8 E I) with
                w = rho g A, A = a^2, I = a^4 / 12 (Euler-Bernoulli; shear adds
                w L^2 / (2 kappa G A), under 1 %), L the free length from the
                last pinned node (the scene's pin box) to the free end.

Usage: scripts/hanging_bar_sag.py [--jelly build/jelly] [--seconds 15] [--out DIR]
Standard library only (Debian's /usr/bin/python3)."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "models", "scenes", "hanging_bar.json")


def positions(path):
    """Node positions of a .vtu written by jelly run (ASCII DataArrays)."""
    text = open(path, encoding="ascii").read()
    m = re.search(r'Name="position"[^>]*>(.*?)</DataArray>', text, re.S)
    v = [float(x) for x in m.group(1).split()]
    return [v[i:i + 3] for i in range(0, len(v), 3)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jelly", default=os.path.join(ROOT, "build", "jelly"))
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--out", default=None, help="output directory (default: a temporary one)")
    a = ap.parse_args()

    scene = json.load(open(SCENE))
    fps = scene["fps"]
    frames = int(round(a.seconds * fps))
    out = a.out or tempfile.mkdtemp(prefix="hanging_bar_")
    subprocess.run([a.jelly, "run", SCENE, "--frames", str(frames), "--out", out, "--no-preview", "--quiet",
                    "--vtk-ascii"], check=True)
    x0 = positions(os.path.join(out, "frame_0000.vtu"))
    x1 = positions(os.path.join(out, "frame_%04d.vtu" % frames))

    # the bar and its pins, from the scene
    body = scene["bodies"][0]
    size = body["shape"]["size"]
    a_side = size[1]
    rho, e_mod, g = body["density"], body["young_modulus"], -scene["gravity"][1]
    lo, hi = body["pin"]["box"]
    pinned = [p for p in x0 if all(lo[k] <= p[k] <= hi[k] for k in range(3))]
    x_clamp = max(p[0] for p in pinned)
    x_tip = max(p[0] for p in x0)
    tip = [i for i, p in enumerate(x0) if p[0] >= x_tip - 1e-9]
    sag = sum(x0[i][1] - x1[i][1] for i in tip) / len(tip)
    drift = sum(x1[i][2] - x0[i][2] for i in tip) / len(tip)

    length = x_tip - x_clamp
    w = rho * g * a_side * a_side
    inertia = a_side ** 4 / 12.0
    analytic = w * length ** 4 / (8.0 * e_mod * inertia)
    print("hanging_bar.json after %g s: %d nodes, %d pinned (x <= %.4g m), free length L = %.4g m"
          % (a.seconds, len(x0), len(pinned), x_clamp, length))
    print("tip sag   measured %.4g m (mean of %d end-face nodes), sideways drift %.3g m" % (sag, len(tip), drift))
    print("analytic  w L^4 / (8 E I) = %.4g m (w = %.4g N/m, E = %.4g Pa, I = %.4g m^4); measured / analytic = %.3f"
          % (analytic, w, e_mod, inertia, sag / analytic))
    return 0


if __name__ == "__main__":
    sys.exit(main())
