"""Every Python script of docs/examples runs here as a reader would run it, and
shows what its doc claims: each in a fresh interpreter (this suite's python and
PYTHONPATH) with its working directory and its --out folder in a pytest tmp
folder, and a check per script of the numbers it prints. A new example fails
until CHECKS has a check for it. The examples and the tracked figures under
docs/ are left as they were: an example writes only where it is told, and by
default into its working directory."""
import glob
import hashlib
import importlib.util
import os
import re
import subprocess
import sys

import pytest

DOCS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "docs"))
EXAMPLES = sorted(glob.glob(os.path.join(DOCS, "examples", "*.py")))
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def tracked_files():
    """Size, mtime and hash of the examples and of every figure under docs/."""
    paths = set(glob.glob(os.path.join(DOCS, "examples", "*")))
    paths |= set(glob.glob(os.path.join(DOCS, "**", "*.png"), recursive=True))
    out = {}
    for p in sorted(paths):
        if os.path.isfile(p):
            st = os.stat(p)
            with open(p, "rb") as f:
                out[p] = (st.st_size, st.st_mtime_ns, hashlib.sha256(f.read()).hexdigest())
    return out


def run_example(path, cwd, *args):
    """Runs one example; returns its stdout, after checking that docs/ is as it was."""
    os.makedirs(cwd, exist_ok=True)
    env = dict(os.environ, MPLCONFIGDIR=str(cwd.parent / "mplconfig"))  # matplotlib's cache, if any
    before = tracked_files()
    p = subprocess.run([sys.executable, path, *args], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, f"{os.path.basename(path)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}"
    assert tracked_files() == before, f"{os.path.basename(path)} wrote into {DOCS}"
    return p.stdout


# --- python_friction.py (docs/python.md, "Worked example: friction") ---------------------------

FRICTION_LINE = re.compile(
    r"^friction (?P<mu>[\d.]+): ball centre moved (?P<moved>-?[\d.]+) m \(box edge (?P<edge>[\d.]+) m away\), "
    r"ends at height (?P<height>[\d.]+) m \(box top (?P<top>[\d.]+) m\), "
    r"(?:below the box top from t = (?P<fell>[\d.]+) s|on the box at t = (?P<end>[\d.]+) s): "
    r"(?P<verdict>slid off|held)$", re.M)


def check_python_friction(stdout, out):
    rows = {float(m["mu"]): m for m in FRICTION_LINE.finditer(stdout)}
    assert sorted(rows) == [0.05, 0.3, 1.0], stdout
    moved = {mu: float(m["moved"]) for mu, m in rows.items()}
    height = {mu: float(m["height"]) for mu, m in rows.items()}
    edge, top = float(rows[0.05]["edge"]), float(rows[0.05]["top"])
    assert (edge, top) == (0.3, 0.2)
    # 0.05: slides past the edge by more than the ball's radius (0.15 m) and
    # rests on the ground (centre at about its radius, squashed: 0.14 m), having
    # dropped below the box's top at about 0.7 s
    low = rows[0.05]
    assert low["verdict"] == "slid off", stdout
    assert moved[0.05] > edge + 0.15 and 0.12 < height[0.05] < 0.16, stdout
    assert low["fell"] is not None and 0.5 < float(low["fell"]) < 1.0, stdout
    # 0.3 and 1.0: grip, roll and stop on the box more than 0.1 m short of its
    # edge, resting on its top (0.2 m + radius, squashed: 0.33 m)
    for mu in (0.3, 1.0):
        assert rows[mu]["verdict"] == "held", stdout
        assert rows[mu]["end"] is not None and float(rows[mu]["end"]) >= 2.0 - 1e-9, stdout
        assert 0.05 < moved[mu] < edge - 0.1 and 0.32 < height[mu] < 0.345, stdout
    # the figure, with matplotlib; without it the script says it made none
    figure = os.path.join(out, "python_friction.png")
    if HAS_MATPLOTLIB:
        with open(figure, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert "wrote " in stdout
    else:
        assert not os.path.exists(figure) and "no figure: matplotlib is not installed" in stdout, stdout


def test_python_friction_default_output(tmp_path):
    """Without --out the figure goes to out/python_friction under the working directory."""
    cwd = tmp_path / "cwd"
    stdout = run_example(os.path.join(DOCS, "examples", "python_friction.py"), cwd)
    check_python_friction(stdout, cwd / "out" / "python_friction")


# --- notebook_render.py (docs/python.md, World.render) ---------------------------------------

RENDER_LINE = re.compile(r"^t = (?P<t>[\d.]+) s: image \((?P<h>\d+), (?P<w>\d+), 3\) uint8, ball pixels "
                         r"(?P<px>\d+), ball centre row (?P<row>[\d.]+)$", re.M)


def check_notebook_render(stdout, out):
    rows = list(RENDER_LINE.finditer(stdout))
    assert len(rows) == 4, stdout
    assert all((int(m["h"]), int(m["w"])) == (180, 320) for m in rows), stdout
    # the ball is in every picture and falls: its centre moves down the image (rows grow)
    assert all(int(m["px"]) > 500 for m in rows), stdout
    centre = [float(m["row"]) for m in rows]
    assert all(b > a + 3 for a, b in zip(centre, centre[1:])), stdout
    with open(os.path.join(out, "falling_ball.png"), "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[16:24] == (1280).to_bytes(4, "big") + (180).to_bytes(4, "big")


CHECKS = {"python_friction.py": check_python_friction, "notebook_render.py": check_notebook_render}


def test_examples_found():
    assert EXAMPLES, f"no Python examples under {DOCS}/examples"


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example(path, tmp_path):
    """Each example with --out: its claim holds, and nothing lands in its working directory."""
    name = os.path.basename(path)
    assert name in CHECKS, f"docs/examples/{name} has no check in tests/python/test_examples.py: " \
                           "add one asserting what its doc claims"
    cwd, out = tmp_path / "cwd", tmp_path / "out"
    stdout = run_example(path, cwd, "--out", str(out))
    CHECKS[name](stdout, out)
    assert os.listdir(cwd) == [], f"{name} wrote into its working directory despite --out"
