"""docs/python.md's worked example: a soft ball thrown sideways at 0.8 m/s onto a
soft box (models/scenes/contact_ball_on_box.json with a horizontal velocity),
for three contact friction coefficients. At 0.05 the ball slides to the box's
edge, 0.3 m away, and drops to the ground; at 0.3 and 1.0 it grips, rolls and
stops on the box. It prints, per friction, how far the ball's centre moved, its
final height and whether it slid off or held (tests/python/test_examples.py
checks these lines), and plots the ball's position and height over time into
OUT/python_friction.png with matplotlib (Debian python3-matplotlib) if that is
installed; matplotlib is not one of Jelly's dependencies, so without it the
figure is skipped and said so.

Run after building (docs/building.md, "The Python module"):
    PYTHONPATH=build/python /usr/bin/python3 docs/examples/python_friction.py [--out DIR]
DIR defaults to out/python_friction in the current folder. docs/python_friction.png
is this figure, made on purpose with --out docs.
"""
import argparse
import os

import jelly

SECONDS = 2.0
FRICTIONS = (0.05, 0.3, 1.0)

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--out", default=os.path.join("out", "python_friction"),
                    help="folder for python_friction.png (default: out/python_friction)")
args = parser.parse_args()

scene = jelly.load_scene(os.path.join(here, "..", "..", "models", "scenes", "contact_ball_on_box.json"))
scene["bodies"][1]["velocity"] = [0.8, 0.0, 0.0]  # m/s, towards the box's edge
box = scene["bodies"][0]
edge = box["translate"][0] + box["shape"]["size"][0] / 2  # 0.3 m: the box's +x face
top = box["translate"][1] + box["shape"]["size"][1] / 2   # 0.2 m: its top face

curves = {}
for friction in FRICTIONS:
    scene["contact"]["friction"] = friction
    w = jelly.World(scene)
    ball = w.bodies["ball"].positions  # a view of the ball's nodes: no copy per step
    t, x, height = [w.time], [ball[:, 0].mean()], [ball[:, 1].mean()]
    while w.time < SECONDS - 1e-9:
        w.step(1)
        t.append(w.time)
        x.append(ball[:, 0].mean())
        height.append(ball[:, 1].mean())
    curves[friction] = (t, x, height)
    # off the box: the centre below the box's top face (it rests on the ground)
    fell = next((ti for ti, hi in zip(t, height) if hi < top), None)
    where = f"below the box top from t = {fell:.2f} s" if fell is not None else f"on the box at t = {w.time:.2f} s"
    print(f"friction {friction}: ball centre moved {x[-1] - x[0]:.3f} m (box edge {edge - x[0]:.3f} m away), "
          f"ends at height {height[-1]:.3f} m (box top {top:.3f} m), {where}: "
          f"{'slid off' if height[-1] < top else 'held'}")

try:
    import matplotlib
except ImportError:
    print("no figure: matplotlib is not installed (Debian: apt-get install python3-matplotlib)")
    raise SystemExit(0)
matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

fig, (ax_x, ax_y) = plt.subplots(2, 1, sharex=True, figsize=(6.4, 5.0))
for friction, (t, x, height) in curves.items():
    ax_x.plot(t, x, label=f"contact friction {friction}")
    ax_y.plot(t, height)
ax_x.axhline(edge, color="grey", linestyle="--", linewidth=1)
ax_x.text(0.02, edge, "box edge", va="bottom", color="grey")
ax_y.axhline(top, color="grey", linestyle="--", linewidth=1)
ax_y.text(0.02, top, "box top", va="bottom", color="grey")
ax_x.set_ylabel("ball's centre x (m)")
ax_y.set_ylabel("ball's centre height (m)")
ax_y.set_xlabel("time (s)")
ax_x.set_title("Soft ball thrown at 0.8 m/s onto a soft box")
for ax in (ax_x, ax_y):
    ax.grid(alpha=0.3)
ax_x.legend(loc="upper left")
fig.tight_layout()
os.makedirs(args.out, exist_ok=True)
out = os.path.join(args.out, "python_friction.png")
fig.savefig(out, dpi=100)
print("wrote", out)
