# %% [markdown]
# # Pictures of a world as NumPy arrays
#
# A notebook in percent format (Jupyter, VS Code and Spyder open it as cells; `python3
# notebook_render.py --out DIR` runs it whole). `World.render` draws the world with `jelly
# render`'s headless renderer into an `(height, width, 3)` uint8 array: no display needed. In a
# notebook, show a frame with `plt.imshow(frame)`; here the frames go into one PNG strip.

# %%
import argparse
import os
import struct
import zlib

import numpy as np

import jelly

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--out", default=os.path.join("out", "notebook_render"), help="folder for the PNG strip")
args, _ = parser.parse_known_args()

scene = {
    "duration": 1.0, "dt": 1 / 60,
    "ground": {},
    "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.15}, "translate": [0, 0.6, 0],
                "tetgen": {"max_volume": 2e-4}, "young_modulus": 2e5}],
}
world = jelly.World(scene)
camera = ((1.2, 0.5, 1.2), (0, 0.3, 0))  # eye, target (m): a fixed view, as `jelly render --camera`

# %%
frames = []
for k in range(4):
    frame = world.render(320, 180, camera=camera)  # (180, 320, 3) uint8
    frames.append(frame)
    # the ball's pixels: coral, red well above blue (the ground and the sky are grey-blue)
    ball = (frame[:, :, 0].astype(int) - frame[:, :, 2].astype(int)) > 40
    rows = np.nonzero(ball)[0]
    print(f"t = {world.time:.2f} s: image {frame.shape} {frame.dtype}, ball pixels {int(ball.sum())}, "
          f"ball centre row {rows.mean():.1f}")
    world.step(8)  # 8 steps of 1/60 s


# %%
def write_png(path, rgb):
    """An 8-bit RGB PNG with the standard library (zlib): no imaging package needed."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


os.makedirs(args.out, exist_ok=True)
strip = np.concatenate(frames, axis=1)
path = os.path.join(args.out, "falling_ball.png")
write_png(path, strip)
print(f"wrote {path} ({strip.shape[1]}x{strip.shape[0]})")
