"""`pip install .` (pyproject.toml, src/python/build_backend.py; docs/python.md, "Installing
with pip"): into a fresh venv, reusing this build folder (JELLY_BUILD_DIR), the installed copy
imports, steps a world and runs the bundled jelly program through `python -m jelly`; `pip
uninstall` takes it all away again. The venv's python never sees this build's PYTHONPATH."""
import base64
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

import pytest

import jelly
from conftest import tiny_scene

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# the build tree this test runs from: PYTHONPATH=<build>/python imports <build>/python/jelly
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(jelly.__file__))))

# what the venv's python runs: the installed copy, a world stepped, the files pip installed
CHECK = r"""
import importlib.metadata, json, os, sys
import jelly
w = jelly.World(json.loads(sys.argv[1]))
w.step(5)
dist = importlib.metadata.distribution("jelly")
print(json.dumps({
    "file": jelly.__file__, "prefix": sys.prefix, "version": jelly.version,
    "dist_version": dist.version, "wheel": dist.read_text("WHEEL"),
    "files": sorted(str(f) for f in dist.files), "program": jelly._program(),
    "time": w.time, "nodes": w.node_count, "shape": list(w.positions.shape),
    "lowest": float(w.positions[:, 1].min()), "steps": w.stats["steps"]}))
"""


def _project_version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(jelly VERSION ([0-9.]+)", f.read()).group(1)


def _wheel_tag():
    # what a wheel of compiled code for this interpreter is tagged: cp311-cp311-linux_x86_64
    xy = f"{sys.version_info[0]}{sys.version_info[1]}"
    return f"cp{xy}-cp{xy}-" + re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())


def _venv_env():
    """An environment that shows the venv nothing of this build: no PYTHONPATH (so the installed
    copy is imported), no JELLY_PROGRAM, no pip configuration or index (offline, no cache)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "PIP_", "JELLY_", "VIRTUAL_ENV"))}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1", PIP_CONFIG_FILE=os.devnull,
               PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def _run(cmd, env, cwd, timeout=120):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _elf_dynamic(path):
    r = subprocess.run(["readelf", "-d", path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture
def venv(tmp_path):
    """A venv of this interpreter that also sees Debian's packages (NumPy), with its own pip."""
    if not os.path.isfile(os.path.join(BUILD, "CMakeCache.txt")):
        pytest.skip(f"jelly is not imported from a CMake build folder ({jelly.__file__})")
    path = tmp_path / "venv"
    r = _run([sys.executable, "-m", "venv", "--system-site-packages", str(path)], _venv_env(), tmp_path)
    if r.returncode != 0 and re.search(r"ensurepip|python3(\.\d+)?-venv|No module named venv", r.stdout + r.stderr):
        pytest.skip("python -m venv with pip is unavailable (Debian: apt-get install python3-venv; "
                    "scripts/setup.sh installs it): " + (r.stdout + r.stderr).strip().splitlines()[-1])
    assert r.returncode == 0, r.stdout + r.stderr
    return str(path / "bin" / "python")


def test_pip_install_venv_run_uninstall(venv, tmp_path):
    env = _venv_env()
    env["JELLY_BUILD_DIR"] = BUILD
    version = _project_version()

    # pip install from the source tree, offline, with Debian's pip of the venv
    r = _run([venv, "-m", "pip", "install", "--no-build-isolation", "--no-deps", SOURCE], env, tmp_path, timeout=400)
    assert r.returncode == 0, f"pip install failed:\n{r.stdout}\n{r.stderr}"

    # the installed copy, not this build's: inside the venv, with its program bundled
    r = _run([venv, "-c", CHECK, json.dumps(tiny_scene())], env, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(r.stdout)
    site = os.path.dirname(os.path.dirname(got["file"]))
    assert got["file"].startswith(got["prefix"] + os.sep) and got["prefix"] == os.path.dirname(os.path.dirname(venv))
    assert got["version"] == version and got["dist_version"] == version
    assert "Root-Is-Purelib: false" in got["wheel"]
    assert re.search(r"^Tag: cp3\d+-cp3\d+\w*-linux_\w+$", got["wheel"], re.M), got["wheel"]
    assert got["program"] == os.path.join(site, "jelly", "bin", "jelly") and os.access(got["program"], os.X_OK)
    files = got["files"]
    for f in ("jelly/__init__.py", "jelly/__main__.py", "jelly/_config.py", "jelly/bin/jelly",
              "jelly/models/scenes/default.json"):
        assert f in files, f
    modules = [f for f in files if re.fullmatch(r"jelly/_jelly\..*\.so", f)]
    assert len(modules) == 1, files
    # a world of the installed module steps (5 steps of 1/60 s: falling, above the ground)
    assert got["time"] == pytest.approx(5 / 60) and got["steps"] == 5
    assert got["shape"] == [got["nodes"], 3] and 0.0 < got["lowest"] < 0.2
    # self-contained: neither binary needs libjelly.so or points into a build folder
    for binary in (os.path.join(site, modules[0]), got["program"]):
        dynamic = _elf_dynamic(binary)
        assert "libjelly" not in dynamic and BUILD not in dynamic, dynamic

    # python -m jelly: the bundled program's commands and exit codes
    r = _run([venv, "-m", "jelly", "--version"], env, tmp_path)
    assert r.returncode == 0 and version in r.stdout, r.stdout + r.stderr
    scene = tmp_path / "tiny.json"
    scene.write_text(json.dumps(tiny_scene()))
    out = tmp_path / "out"
    r = _run([venv, "-m", "jelly", "run", str(scene), "--frames", "2", "--out", str(out), "--quiet"], env, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = (out / "stats.csv").read_text().splitlines()
    assert rows[0].startswith("frame,") and [row.split(",")[0] for row in rows[1:]] == ["0", "1", "2"]
    r = _run([venv, "-m", "jelly", "run", "/nonexistent.json"], env, tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr

    # pip uninstall removes every file: the package folder is gone and jelly no longer imports
    r = _run([venv, "-m", "pip", "uninstall", "-y", "jelly"], env, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not os.path.exists(os.path.join(site, "jelly"))
    r = _run([venv, "-c", "import jelly"], env, tmp_path)
    assert r.returncode != 0 and "No module named 'jelly'" in r.stderr, r.stdout + r.stderr


def test_wheel_record_and_modes(tmp_path, monkeypatch):
    """The wheel itself (pip rewrites RECORD on install, other installers trust it): RECORD lists
    every other file with its sha256 and size, the two binaries are executable, the rest not."""
    if not os.path.isfile(os.path.join(BUILD, "CMakeCache.txt")):
        pytest.skip(f"jelly is not imported from a CMake build folder ({jelly.__file__})")
    monkeypatch.syspath_prepend(os.path.join(SOURCE, "src", "python"))
    import build_backend
    monkeypatch.chdir(SOURCE)
    monkeypatch.setenv("JELLY_BUILD_DIR", BUILD)
    name = build_backend.build_wheel(str(tmp_path))
    dist_info = f"jelly-{_project_version()}.dist-info"
    assert name == f"jelly-{_project_version()}-{_wheel_tag()}.whl"
    with zipfile.ZipFile(tmp_path / name) as z:
        infos = {i.filename: i for i in z.infolist()}
        record = list(csv.reader(io.StringIO(z.read(f"{dist_info}/RECORD").decode())))
        assert sorted(r[0] for r in record) == sorted(infos) and len(record) == len(infos)
        for path, digest, size in record:
            if path == f"{dist_info}/RECORD":
                assert digest == size == ""
                continue
            data = z.read(path)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == f"sha256={want}" and int(size) == len(data), path
            executable = path == "jelly/bin/jelly" or re.fullmatch(r"jelly/_jelly\..*\.so", path)
            assert (infos[path].external_attr >> 16) & 0o777 == (0o755 if executable else 0o644), path
        assert "Root-Is-Purelib: false" in z.read(f"{dist_info}/WHEEL").decode()
        assert f"{dist_info}/NOTICE" in infos and f"{dist_info}/LICENSE" in infos


def test_backend_refuses_a_wrong_build_dir(tmp_path, monkeypatch):
    """JELLY_BUILD_DIR must be a configured build of this source tree; the version is
    CMakeLists.txt's and the wheel is tagged for this interpreter and platform."""
    monkeypatch.syspath_prepend(os.path.join(SOURCE, "src", "python"))
    import build_backend
    monkeypatch.chdir(SOURCE)
    assert build_backend._version(SOURCE) == _project_version() == jelly.version
    monkeypatch.setenv("JELLY_BUILD_DIR", str(tmp_path))
    with pytest.raises(SystemExit, match="not a configured CMake build folder"):
        build_backend.build_wheel(str(tmp_path / "wheels"))
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else\n")
    with pytest.raises(SystemExit, match="not this source tree"):
        build_backend.build_wheel(str(tmp_path / "wheels"))
    assert not (tmp_path / "wheels").exists()
