"""Jelly's build backend (PEP 517): setuptools.build_meta with one project step, the CMake build.
pyproject.toml names it (`build-backend = "build_backend"`, `backend-path = ["src/python"]`) and
holds the metadata; docs/python.md, "Installing with pip", says how to use it. setuptools and
wheel write the wheel, its METADATA, WHEEL and RECORD, and the sdist.

The `build_ext` step of a wheel build:
  1. configures CMake in a temporary folder for this interpreter (`-DPython3_EXECUTABLE=` the
     python running this backend, `-DCMAKE_BUILD_TYPE=Release`, `-DJELLY_PYTHON=ON`, then
     $JELLY_CMAKE_FLAGS), or, with $JELLY_BUILD_DIR set, reuses that configured build folder;
  2. builds the targets jelly_python and jelly_cli (the module and the `jelly` program) only;
  3. copies into the package `jelly` the build tree's python/jelly/ (the .py files and _jelly*.so,
     which links the engine statically), the program as jelly/bin/jelly, models/ as jelly/models
     (the program looks for its scenes and meshes in ../models next to itself) and a _config.py
     pointing jelly.run at the bundled program. The distribution says it has extension modules,
     so the wheel is tagged for this interpreter and platform (cp311-cp311-linux_x86_64).

_Backend subclasses setuptools.build_meta._BuildMetaBackend, as setuptools' own
build_meta.__legacy__ does, to call setup() with these commands instead of running a setup.py
(the clone keeps pyproject.toml as its only packaging file at the top).

The module must be compiled against the NumPy of the interpreter that will import it, so CMake
runs with pip's isolation overlay removed from the environment: it sees the interpreter's own
site-packages, as `pip install --no-build-isolation .` does.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from importlib.machinery import EXTENSION_SUFFIXES

import setuptools
from setuptools import build_meta
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

# what a source distribution holds besides setuptools' defaults: what CMake needs, and the docs
_SDIST_FILES = ["CMakeLists.txt", "CHANGELOG.md", ".clang-format"]
_SDIST_DIRS = ["src", "mesh", "collision", "render", "tests", "models", "scripts", "docs"]
_CONFIG_PY = ('# Written by src/python/build_backend.py: the jelly program jelly.run and\n'
              '# `python -m jelly` start, bundled in the wheel as jelly/bin/jelly.\n'
              'import os\n'
              'PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "jelly")\n')


def _fail(message):
    # a message without a traceback (pip shows the backend's output when a hook fails)
    raise SystemExit(f"jelly build backend: {message}")


def _log(message):
    print(f"jelly build backend: {message}", flush=True)


def _root():
    # PEP 517 runs the hooks in the source tree's root
    root = os.path.abspath(os.getcwd())
    if not os.path.isfile(os.path.join(root, "CMakeLists.txt")):
        _fail(f"{root} has no CMakeLists.txt: run pip from (or on) a clone of Jelly")
    return root


def _version(root):
    # the one version: CMakeLists.txt's project(jelly VERSION x.y.z ...)
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"^\s*project\s*\(\s*jelly\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)\b", f.read(), re.M | re.I)
    if not m:
        _fail("CMakeLists.txt: no `project(jelly VERSION x.y.z ...)` to take the version from")
    return m.group(1)


# --- the CMake build ---------------------------------------------------------------------------

def _build_env():
    """This process's environment without pip's build-isolation overlay (a PYTHONPATH entry
    pip-build-env-*/site whose sitecustomize hides the interpreter's site-packages), so that CMake
    finds the NumPy the module will be imported with."""
    env = dict(os.environ)
    entries = [e for e in env.get("PYTHONPATH", "").split(os.pathsep) if e]
    kept = [e for e in entries if not (os.path.basename(os.path.dirname(os.path.normpath(e))).startswith("pip-build-env-")
                                       and os.path.isfile(os.path.join(e, "sitecustomize.py")))]
    if kept != entries:
        env.pop("PYTHONNOUSERSITE", None)
        if kept:
            env["PYTHONPATH"] = os.pathsep.join(kept)
        else:
            env.pop("PYTHONPATH", None)
    return env


def _run(cmd, env):
    _log("$ " + " ".join(shlex.quote(c) for c in cmd))
    r = subprocess.run(cmd, env=env)
    if r.returncode != 0:
        _fail(f"`{' '.join(cmd)}` failed (exit {r.returncode}); its output is above")


def _check_interpreter(env):
    # what CMake's FindPython3 would refuse, said in Debian's words first
    include = sysconfig.get_paths().get("include", "")
    if not os.path.isfile(os.path.join(include, "Python.h")):
        _fail(f"{sys.executable} has no C headers ({include}/Python.h): install python3-dev "
              f"(Debian) or your Python's development files")
    r = subprocess.run([sys.executable, "-c", "import numpy; print(numpy.__version__)"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if r.returncode != 0:
        _fail(f"{sys.executable} has no NumPy, which the module is compiled against: install it "
              f"there (pip install numpy; or, on Debian, python3-numpy and a venv made with "
              f"--system-site-packages)")
    _log(f"building for {sys.executable} (Python {sys.version.split()[0]}, NumPy {r.stdout.strip()})")


def _cache_value(build_dir, name):
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    return None


def _check_build_dir(root, build_dir):
    """$JELLY_BUILD_DIR must be a configured build of this source tree with the module."""
    if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
        _fail(f"JELLY_BUILD_DIR={build_dir} is not a configured CMake build folder (no CMakeCache.txt)")
    home = _cache_value(build_dir, "CMAKE_HOME_DIRECTORY")
    if not home or os.path.realpath(home) != os.path.realpath(root):
        _fail(f"JELLY_BUILD_DIR={build_dir} builds {home}, not this source tree {root}")
    if (_cache_value(build_dir, "JELLY_PYTHON") or "").upper() not in ("ON", "TRUE", "1", "YES"):
        _fail(f"JELLY_BUILD_DIR={build_dir} was configured without the Python module "
              f"(JELLY_PYTHON is off: python3-dev and python3-numpy missing, or a sanitizer build)")


def _cmake_build(root, build_dir, env):
    """Builds the module and the program in build_dir, configuring it first when it is a fresh
    temporary folder (reuse False)."""
    cmake = shutil.which("cmake", path=env.get("PATH"))
    if not cmake:
        _fail("cmake not found on PATH (Debian: apt-get install cmake; docs/building.md)")
    if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
        flags = shlex.split(os.environ.get("JELLY_CMAKE_FLAGS", ""))
        _run([cmake, "-S", root, "-B", build_dir, f"-DPython3_EXECUTABLE={sys.executable}",
              "-DCMAKE_BUILD_TYPE=Release", "-DJELLY_PYTHON=ON"] + flags, env)
    level = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "")
    jobs = level if level.isdigit() else str(os.cpu_count() or 2)
    _run([cmake, "--build", build_dir, "--target", "jelly_python", "jelly_cli", "-j", jobs], env)


def _copy_package(root, build_dir, dest):
    """Fills dest (build_lib/jelly) from the build tree, models/ and _config.py."""
    pkg = os.path.join(build_dir, "python", "jelly")
    names = sorted(os.listdir(pkg)) if os.path.isdir(pkg) else []
    modules = [n for n in names if n.endswith(".so") and n.startswith("_jelly.")]
    ours = [n for n in modules if any(n == "_jelly" + s for s in EXTENSION_SUFFIXES)]
    if len(ours) != 1:
        _fail(f"{pkg} holds {modules or 'no _jelly*.so'}, and exactly one must load in this interpreter "
              f"(suffixes {EXTENSION_SUFFIXES}): the build folder is for another Python")
    sources = sorted(n for n in os.listdir(os.path.join(root, "src", "python", "jelly")) if n.endswith(".py"))
    missing = [n for n in sources if n not in names]
    if missing:
        _fail(f"{pkg} lacks {', '.join(missing)} of src/python/jelly/ (CMakeLists.txt copies the package there)")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.join(dest, "bin"))
    files = [(os.path.join(pkg, n), n) for n in names if (n.endswith(".py") and n != "_config.py") or n == ours[0]]
    files.append((os.path.join(build_dir, "jelly"), os.path.join("bin", "jelly")))  # jelly_cli's OUTPUT_NAME
    for src, name in files:
        shutil.copyfile(src, os.path.join(dest, name))
    with open(os.path.join(dest, "_config.py"), "w", encoding="utf-8") as f:
        f.write(_CONFIG_PY)
    shutil.copytree(os.path.join(root, "models"), os.path.join(dest, "models"), copy_function=shutil.copyfile)
    binaries = {os.path.join(dest, ours[0]), os.path.join(dest, "bin", "jelly")}
    for d, _, names in os.walk(dest):  # the wheel keeps these modes, whatever the umask
        for path in (os.path.join(d, n) for n in names):
            os.chmod(path, 0o755 if path in binaries else 0o644)


# --- setuptools --------------------------------------------------------------------------------

class _BinaryDistribution(Distribution):
    # the package holds compiled code that setuptools does not build: platlib, a platform tag
    def has_ext_modules(self):
        return True

    def parse_config_files(self, *args, **kwargs):
        # setuptools 66 (Debian 12) misses NOTICE: its default license-files patterns from
        # pyproject.toml are " COPYING*", " NOTICE*" (a leading space)
        super().parse_config_files(*args, **kwargs)
        self.metadata.license_files = [f for f in ("LICENSE", "NOTICE") if os.path.isfile(f)]


class _BuildExt(build_ext):
    def run(self):
        root = _root()
        env = _build_env()
        _check_interpreter(env)
        reuse = os.environ.get("JELLY_BUILD_DIR")
        if reuse:
            build_dir = os.path.abspath(reuse)
            _check_build_dir(root, build_dir)
            _log(f"reusing the build folder {build_dir} (JELLY_BUILD_DIR)")
        with tempfile.TemporaryDirectory(prefix="jelly-wheel-build-") as temporary:
            build_dir = os.path.abspath(reuse) if reuse else temporary
            _cmake_build(root, build_dir, env)
            _copy_package(root, build_dir, os.path.join(self.build_lib, "jelly"))


class _Sdist(sdist):
    def make_distribution(self):
        # setuptools' defaults (pyproject.toml, README.md, LICENSE, NOTICE) and the sources
        files = [f for f in self.filelist.files if not os.path.isabs(f)]
        files += [f for f in _SDIST_FILES if os.path.isfile(f)]
        for top in _SDIST_DIRS:
            for d, subdirs, names in os.walk(top):
                subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
                files += [os.path.join(d, n) for n in sorted(names) if not n.endswith(".pyc")]
        self.filelist.files = sorted(set(files))
        super().make_distribution()


class _Backend(build_meta._BuildMetaBackend):
    def run_setup(self, setup_script="setup.py"):
        # instead of a setup.py; setuptools' own scratch folders (build/, jelly.egg-info) go to a
        # temporary folder, not into the clone, whose build/ is usually Jelly's CMake build
        with tempfile.TemporaryDirectory(prefix="jelly-setuptools-") as scratch:
            setuptools.setup(version=_version(_root()), packages=[], distclass=_BinaryDistribution,
                             cmdclass={"build_ext": _BuildExt, "sdist": _Sdist},
                             options={"build": {"build_base": os.path.join(scratch, "build")},
                                      "egg_info": {"egg_base": scratch}})

    def build_wheel(self, wheel_directory, config_settings=None, metadata_directory=None):
        if os.environ.get("JELLY_BUILD_DIR"):  # refused before anything is written
            _check_build_dir(_root(), os.path.abspath(os.environ["JELLY_BUILD_DIR"]))
        return super().build_wheel(wheel_directory, config_settings, metadata_directory)


_BACKEND = _Backend()
get_requires_for_build_wheel = _BACKEND.get_requires_for_build_wheel
get_requires_for_build_sdist = _BACKEND.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = _BACKEND.prepare_metadata_for_build_wheel
build_wheel = _BACKEND.build_wheel
build_sdist = _BACKEND.build_sdist
