"""docs/python.md's worked example: a soft ball thrown sideways onto a soft box
(models/scenes/contact_ball_on_box.json with a horizontal velocity) for three
contact friction coefficients, the ball's height over time plotted with
matplotlib into docs/python_friction.png. Low friction lets it slide off the
box's edge and drop to the ground; high friction stops it on the box.

Run from the source tree after building (docs/building.md, "The Python module"):
    PYTHONPATH=build/python /usr/bin/python3 docs/examples/python_friction.py
"""
import os

import matplotlib
matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

import jelly

here = os.path.dirname(os.path.abspath(__file__))
scene = jelly.load_scene(os.path.join(here, "..", "..", "models", "scenes", "contact_ball_on_box.json"))
scene["bodies"][1]["velocity"] = [0.5, 0.0, 0.0]  # m/s, towards the box's edge 0.3 m away

fig, ax = plt.subplots(figsize=(6.4, 4.0))
for friction in (0.05, 0.3, 1.0):
    scene["contact"]["friction"] = friction
    w = jelly.World(scene)
    ball = w.bodies["ball"]
    nodes = slice(ball.node_range.start, ball.node_range.stop)
    t, height = [], []
    while w.time < 2.0:
        t.append(w.time)
        height.append(w.positions[nodes, 1].mean())  # a view: no copy per frame
        w.step(1)
    ax.plot(t, height, label=f"contact friction {friction}")
    print(f"friction {friction}: ball centre at x = {w.positions[nodes, 0].mean():+.3f} m, "
          f"y = {height[-1]:.3f} m at t = {w.time:.2f} s")
ax.set_xlabel("time (s)")
ax.set_ylabel("ball's mean node height (m)")
ax.set_title("Soft ball thrown at 0.5 m/s onto a soft box")
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
out = os.path.join(here, "..", "python_friction.png")
fig.savefig(out, dpi=100)
print("wrote", os.path.normpath(out))
