"""Jelly for Python: scenes as dicts, worlds with NumPy views, parameter sweeps.

The C extension ``jelly._jelly`` binds Jelly's public C API (<jelly/jelly.h>)
and nothing else; this file adds the conveniences around it (scene dicts,
bodies by name, the stats row, states as bytes, ``run`` and ``sweep``). It
holds no physics: every number comes from the library. docs/python.md is the
guide. Units are SI (m, kg, s, N, J, Pa); Y is up.
"""
import copy as _copy
import itertools as _itertools
import json as _json
import os as _os
import re as _re
import subprocess as _subprocess
import tempfile as _tempfile
import threading as _threading
import time as _time

import numpy as _np

from . import _jelly
from ._jelly import SceneError, SimulationError

# the namespace is the public API (the imports above are private)
__all__ = ["load_scene", "Model", "World", "Body", "SceneError", "SimulationError", "body_from_arrays",
           "run", "sweep", "STATS_COLUMNS", "LAYERS", "version"]

version = _jelly.version

# the debug layers World.render draws (`jelly render --layers`), in the renderer's bit order
LAYERS = ("wireframe", "tets", "springs", "contacts", "pins", "obstacles", "velocity", "strain")

# the columns of `jelly run`'s stats.csv (docs/cli.md), in its order
STATS_COLUMNS = ("frame", "time", "wall_ms", "steps", "cg_iterations", "kinetic_energy", "elastic_energy",
                 "gravity_energy", "max_strain", "min_y", "contacts", "contact_energy", "cg_failed",
                 "inverted_tets", "energy_splits", "crossing_splits")

def _absolutize(node, base):
    """Relative "mesh" paths resolved against base, so the dict works from anywhere."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "mesh":  # a path, or an inline mesh (no paths inside)
                if isinstance(v, str) and not _os.path.isabs(v):
                    node[k] = _os.path.normpath(_os.path.join(base, v))
            else:
                _absolutize(v, base)
    elif isinstance(node, list):
        for v in node:
            _absolutize(v, base)


def load_scene(path):
    """Reads a scene file (docs/scenes.md) into a dict; its mesh paths become absolute."""
    path = _os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            scene = _json.load(f)
    except _json.JSONDecodeError as e:
        raise SceneError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    except OSError as e:
        raise SceneError(f"{path}: cannot open scene: {e.strerror}") from None
    if not isinstance(scene, dict):
        raise SceneError(f"{path}: a scene is a JSON object")
    _absolutize(scene, _os.path.dirname(_os.path.abspath(path)))
    return scene


def _scene_dict(scene):
    """(a deep copy of the scene dict, its name): a path is loaded, a dict's relative
    mesh paths are taken from the current folder."""
    if isinstance(scene, (str, _os.PathLike)):
        return load_scene(scene), _os.path.abspath(_os.fspath(scene))
    if isinstance(scene, dict):
        return _copy.deepcopy(scene), _os.path.join(_os.getcwd(), "<scene dict>")
    raise TypeError(f"scene must be a dict or a path, not {type(scene).__name__}")


def _scene_json(scene, name=None):
    """(JSON text, name) of a scene dict or path (a dict of _scene_dict when name is
    given). _json.dumps writes floats as repr does, the shortest text strtod reads
    back to the same double, so inline meshes (body_from_arrays) stay exact."""
    if name is None:
        scene, name = _scene_dict(scene)
    try:
        text = _json.dumps(scene, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise SceneError(f"{name}: not JSON (numbers must be finite, keys strings): {e}") from None
    return text, name


class Model(_jelly.Model):
    """A scene built once (TetGen runs here); any number of Worlds share it."""

    def __init__(self, scene):
        sc, name = _scene_dict(scene)
        _absolutize(sc, _os.path.dirname(name))
        text, name = _scene_json(sc, name)
        try:
            super().__init__(text, name)
        except SceneError as e:
            if not isinstance(scene, dict):
                raise
            # a dict has no file: its messages say "<scene dict>", not the folder it was resolved in
            raise SceneError(str(e).replace(name, "<scene dict>")) from None
        self.scene = sc  # the dict it was built from (inline meshes included): pickling rebuilds it


class Body:
    """One body of a world: name, node_range, mass, and its current surface."""

    def __init__(self, world, index):
        # the C world, not the World: no reference cycle, so a World is freed
        # as soon as its last reference goes (not at the next gc pass)
        self._w = world._w
        self.index = index
        name, first, count, mass, nv, nt = self._w.body_info(index)
        self.name = name
        self.node_range = range(first, first + count)
        self.mass = mass
        self.vertex_count = nv
        self.triangle_count = nt

    @property
    def surface_vertices(self):
        """(vertex_count, 3) float64 copy of the surface as it is now, m."""
        return self._w.body_surface(self.index)[0]

    @property
    def surface_triangles(self):
        """(triangle_count, 3) int32 vertex indices, counter-clockwise from outside."""
        return self._w.body_surface(self.index)[1]

    @property
    def positions(self):
        """Read-only view of this body's nodes' positions."""
        return self._w.positions[self.node_range.start:self.node_range.stop]

    def __repr__(self):
        return f"<jelly.Body {self.name!r} nodes {self.node_range.start}..{self.node_range.stop - 1}>"


class _Bodies(dict):
    def __getitem__(self, key):
        if isinstance(key, int):
            return list(self.values())[key]
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            raise KeyError(f"no body named {key!r}; bodies: {', '.join(self)}") from None


class World:
    """One simulation of a scene (a dict, a path, or a Model to share)."""

    def __init__(self, scene):
        self.model = scene if isinstance(scene, Model) else Model(scene)
        self._w = _jelly.World(self.model)
        self._forces = None
        self._frame = 0
        self._row = None
        self.bodies = _Bodies()
        for i in range(self._w.body_count):
            b = Body(self, i)
            self.bodies[b.name] = b
        self._row = self._stats_row(0.0, 0)

    # --- stepping (the GIL is released inside) ---
    def step(self, n=1):
        """n steps of dt (the scene's); returns self."""
        if isinstance(n, bool) or not isinstance(n, (int, _np.integer)):
            raise TypeError("step(n): n is a whole number of steps (step_to(t) for a time)")
        self._timed(lambda: self._w.step(int(n)))
        return self

    def step_to(self, t):
        """Steps until the simulated time is t (s), in equal steps no longer than dt."""
        t = float(t)
        if not _np.isfinite(t):
            raise ValueError("step_to: t must be finite")
        if t > self.time:
            self._timed(lambda: self._w.advance(t - self.time))
        return self

    def _timed(self, fn):
        # one step/step_to call is one stats.csv frame (jelly_world_stats resets its counters)
        t0 = _time.perf_counter()
        try:
            fn()
        finally:
            self._frame += 1
            self._row = self._stats_row(1e3 * (_time.perf_counter() - t0), self._frame)

    # --- state ---
    time = property(lambda self: self._w.time, doc="simulated time, s")
    dt = property(lambda self: self._w.dt, doc="the longest step, s")
    node_count = property(lambda self: self._w.node_count)
    positions = property(lambda self: self._w.positions, doc="read-only (nnode, 3) float64 view, m")
    velocities = property(lambda self: self._w.velocities, doc="read-only (nnode, 3) float64 view, m/s")

    def _nodes(self, nodes, what):
        """A node selection as an intp array: integer indices, or a boolean mask
        with one entry per node (its True entries)."""
        try:
            a = _np.atleast_1d(_np.asarray(nodes))
        except (TypeError, ValueError):
            raise TypeError(f"{what}: nodes must be integer indices or a boolean mask") from None
        if a.ndim != 1:
            raise ValueError(f"{what}: nodes must be one-dimensional (indices or a mask), got shape {a.shape}")
        if a.dtype == _np.bool_:
            if a.shape != (self.node_count,):
                raise ValueError(f"{what}: a boolean mask needs one entry per node ({self.node_count}), "
                                 f"got shape {a.shape}")
            return _np.flatnonzero(a).astype(_np.intp)
        if a.size and not _np.issubdtype(a.dtype, _np.integer):
            raise TypeError(f"{what}: nodes must be integer indices or a boolean mask, got {a.dtype}")
        a = a.astype(_np.intp)
        if a.size and (a.min() < 0 or a.max() >= self.node_count):
            bad = int(a[(a < 0) | (a >= self.node_count)][0])
            raise IndexError(f"{what}: node {bad} out of range [0, {self.node_count})")
        return a

    def pin(self, nodes, on=True):
        """Holds the nodes where they are (on=False releases them, scene pins too).
        nodes: integer indices or a boolean mask with one entry per node."""
        self._w.pin(self._nodes(nodes, "pin"), bool(on))

    def set_force(self, nodes, force):
        """Constant force (N) on each node from now on, replacing the previous one;
        force is (3,) for all or (len(nodes), 3); nodes as for pin."""
        nodes = self._nodes(nodes, "set_force")
        f = _np.broadcast_to(_np.asarray(force, dtype=_np.float64), (len(nodes), 3))
        self._w.set_force(nodes, _np.ascontiguousarray(f))
        if self._forces is None:
            self._forces = _np.zeros((self.node_count, 3))
        self._forces[nodes] = f

    def add_force(self, nodes, force):
        """Adds a constant force (N) to what the nodes carry already (set_force replaces);
        nodes as for pin."""
        nodes = self._nodes(nodes, "add_force")
        f = _np.broadcast_to(_np.asarray(force, dtype=_np.float64), (len(nodes), 3))
        if len(nodes) and (nodes.min() < 0 or nodes.max() >= self.node_count):
            raise IndexError(f"add_force: node out of range [0, {self.node_count})")
        # repeated nodes add up, as forces do
        acc = {}
        for i, n in enumerate(nodes.tolist()):
            if n not in acc:
                acc[n] = _np.zeros(3) if self._forces is None else self._forces[n].copy()
            acc[n] = acc[n] + f[i]
        if acc:
            self.set_force(_np.array(list(acc), dtype=_np.intp), _np.array(list(acc.values())))

    # --- setting the state (the world then runs on as a world created in that state would) ---
    def _body(self, body, what):
        """A body given by name, index or Body: its index."""
        if isinstance(body, Body):
            return body.index
        if isinstance(body, str):
            if body not in self.bodies:
                raise KeyError(f"{what}: no body named {body!r}; bodies: {', '.join(self.bodies)}")
            return self.bodies[body].index
        if isinstance(body, (int, _np.integer)) and not isinstance(body, bool):
            if not 0 <= body < len(self.bodies):
                raise IndexError(f"{what}: body {body} out of range [0, {len(self.bodies)})")
            return int(body)
        raise TypeError(f"{what}: body is a name, an index or a Body, not {type(body).__name__}")

    def _node_array(self, values, body, what, current):
        """The whole world's (nnode, 3) array with `values` put in: all nodes, or body's (the
        others' rows from `current`)."""
        try:
            a = _np.array(values, dtype=_np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{what}: expected numbers of shape (n, 3), got {type(values).__name__}") from None
        if body is None:
            rows = self.node_count
            full = a
        else:
            r = self.bodies[list(self.bodies)[self._body(body, what)]].node_range
            rows = len(r)
            full = _np.array(current)
        if a.shape != (rows, 3):
            raise ValueError(f"{what}: expected shape ({rows}, 3), got {a.shape}")
        if not _np.all(_np.isfinite(a)):
            raise ValueError(f"{what}: values must be finite")
        if body is not None:
            full[r.start:r.stop] = a
        return _np.ascontiguousarray(full)

    def set_positions(self, positions, body=None):
        """Sets the node positions (m): (node_count, 3) for the world, or (its nodes, 3) for
        one body (name, index or Body). The world then steps on bitwise as a world created in
        this state would: the solver's warm start and the contacts' memory start again; time,
        pins, warnings and set forces stay."""
        self._w.set_positions(self._node_array(positions, body, "set_positions", self.positions))

    def set_velocities(self, velocities, body=None):
        """Sets the node velocities (m/s), as set_positions sets positions (pinned nodes stay at rest)."""
        self._w.set_velocities(self._node_array(velocities, body, "set_velocities", self.velocities))

    def set_pose(self, body, translation=(0.0, 0.0, 0.0), rotation=None):
        """Moves a body rigidly: rotation (3x3, a proper rotation; None: none) about its centre
        of mass, then translation (m). Its velocities turn with it."""
        r = None if rotation is None else _np.asarray(rotation, dtype=_np.float64).reshape(-1)
        self._w.set_body_pose(self._body(body, "set_pose"), translation, r)

    def set_velocity(self, body, linear=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0)):
        """Every node of the body moves at linear + angular x (x - centre of mass) (m/s, rad/s),
        as a scene body's "velocity" and "angular_velocity" start it."""
        self._w.set_body_velocity(self._body(body, "set_velocity"), linear, angular)

    # --- pictures ---
    def render(self, width=640, height=360, camera=None, layers=()):
        """The world now as an (height, width, 3) uint8 image from the headless renderer of
        `jelly render` (no display needed). camera: None frames every body as `jelly render`'s
        first frame does; or (eye, target), two points (m), as `jelly render --camera`. layers:
        names of LAYERS, e.g. ("strain",)."""
        cam = None
        if camera is not None:
            try:
                cam = _np.array(camera, dtype=_np.float64).reshape(6)
            except (TypeError, ValueError):
                raise ValueError("render: camera is (eye, target), two points (x, y, z)") from None
        if isinstance(layers, str):
            layers = (layers,)
        bits = 0
        for name in layers:
            if name not in LAYERS:
                raise ValueError(f"render: unknown layer {name!r} (one of {', '.join(LAYERS)})")
            bits |= 1 << LAYERS.index(name)
        for v, what in ((width, "width"), (height, "height")):
            if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
                raise TypeError(f"render: {what} is a whole number of pixels")
        return self._w.render(int(width), int(height), cam, bits)

    def cancel(self):
        """Stops a step/step_to running in another thread after its current step
        (KeyboardInterrupt there); the world stays usable."""
        self._w.cancel()

    def energy(self):
        """{"kinetic", "elastic", "gravity", "contact", "external", "total"} in J."""
        return self._w.energy()

    @property
    def warnings(self):
        """{kind: {"count", "first_time", "first"}} for the kinds with a count, plus
        "steps", "diverged" and "inverted_tets"."""
        w = self._w.warnings()
        steps, diverged, inverted = w.pop("_counters")
        out = {k: {"count": c, "first_time": t, "first": s} for k, (c, t, s) in w.items() if c}
        out.update(steps=steps, diverged=diverged, inverted_tets=inverted)
        return out

    def _stats_row(self, ms, frame):
        row = self._w.stats(True)
        row.update(frame=frame, wall_ms=ms)
        return {k: row[k] for k in STATS_COLUMNS}

    @property
    def stats(self):
        """The stats.csv row (STATS_COLUMNS) of the last step/step_to call as a frame."""
        return dict(self._row)

    # --- states as bytes (pickle-able) ---
    def save_state(self):
        """The world's state (jelly_world_save's checkpoint) as bytes."""
        with _tempfile.TemporaryDirectory(prefix="jelly-") as tmp:
            p = _os.path.join(tmp, "state.jck")
            self._w.save(p)
            with open(p, "rb") as f:
                return f.read()

    def load_state(self, state):
        """Restores a save_state of a world of the same scene: stepping on is bitwise the same."""
        if not isinstance(state, (bytes, bytearray, memoryview)):
            raise TypeError("load_state: state is the bytes of save_state")
        with _tempfile.TemporaryDirectory(prefix="jelly-") as tmp:
            p = _os.path.join(tmp, "state.jck")
            with open(p, "wb") as f:
                f.write(state)
            self._w.load(p)

    def __reduce__(self):
        # pickles as its scene and its state (set forces are inputs, not state)
        return (_restore_world, (self.model.scene, self.save_state()))

    def __repr__(self):
        return f"<jelly.World {len(self.bodies)} bodies, {self.node_count} nodes, t = {self.time:.6g} s>"


def _restore_world(scene, state):
    w = World(scene)
    w.load_state(state)
    return w


def body_from_arrays(vertices, triangles, **body_keys):
    """A body dict (the keys of a scene body, docs/scenes.md) whose surface is the
    arrays: vertices (n, 3) float (m), triangles (m, 3) int, closed and counter-
    clockwise from outside. Put it in scene["bodies"]: the arrays are its "mesh",
    given inline as lists (docs/scenes.md), which the scene reads back exactly, so
    the vertices keep double precision (a mesh file is rounded to float32 by the
    importer; docs/python.md)."""
    v = _np.array(vertices, dtype=_np.float64, copy=True)
    t = _np.array(triangles, copy=True)
    if v.ndim != 2 or v.shape[1] != 3 or len(v) < 4:
        raise ValueError("body_from_arrays: vertices must have shape (n >= 4, 3)")
    if not _np.all(_np.isfinite(v)):
        raise ValueError("body_from_arrays: vertices must be finite")
    if t.ndim != 2 or t.shape[1] != 3 or len(t) < 4 or not _np.issubdtype(t.dtype, _np.integer):
        raise ValueError("body_from_arrays: triangles must be integers of shape (m >= 4, 3)")
    if t.min() < 0 or t.max() >= len(v):
        raise ValueError(f"body_from_arrays: triangle vertex index out of range [0, {len(v)})")
    for k in ("mesh", "shape"):
        if k in body_keys:
            raise ValueError(f"body_from_arrays: the arrays are the surface; no {k!r} key")
    body = dict(body_keys)
    body["mesh"] = {"vertices": v.tolist(), "triangles": t.astype(_np.int64).tolist()}
    return body


_PATH = _re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\])*\Z")
_PATH_PART = _re.compile(r"([A-Za-z_]\w*)|\[(\d+)\]")


def _set_path(scene, path, value):
    """scene["bodies"][0]["young_modulus"] = value for "bodies[0].young_modulus"."""
    if not isinstance(path, str) or not _PATH.match(path):
        raise SceneError(f"sweep: bad key path {path!r} (keys joined by '.', list indices in [], "
                         "e.g. 'bodies[0].young_modulus')")
    parts = [m.group(1) if m.group(1) is not None else int(m.group(2)) for m in _PATH_PART.finditer(path)]
    node = scene
    for i, p in enumerate(parts[:-1]):
        try:
            nxt = node[p]
        except (KeyError, IndexError, TypeError):
            if isinstance(p, str) and isinstance(node, dict):
                nxt = node[p] = {}
            else:
                raise SceneError(f"sweep: {path}: no {p!r} in the scene") from None
        node = nxt
    try:
        node[parts[-1]] = value
    except (IndexError, TypeError):
        raise SceneError(f"sweep: {path}: cannot set {parts[-1]!r}") from None


def _default_measure(world):
    # the stats row but wall_ms, the one column that differs between identical runs
    row = world.stats
    del row["wall_ms"]
    return row


def _sweep_one(scene, assignment, measure, seconds, live=None):
    # one combination: build, run, measure (live: the worlds a Ctrl-C cancels)
    sc = _copy.deepcopy(scene)
    for path, value in assignment:
        _set_path(sc, path, value)
    w = World(sc)
    if live is not None:
        with live[0]:
            if live[2].is_set():
                raise KeyboardInterrupt("sweep interrupted")
            live[1].add(w)
    try:
        w.step_to(seconds if seconds is not None else float(sc.get("duration", 2.0)))
    finally:
        if live is not None:
            with live[0]:
                live[1].discard(w)
    return measure(w)


def sweep(scene, params, measure=None, client=None, seconds=None, max_workers=None):
    """Runs every combination of params ({"key.path": [values]}) from scene, steps to
    `seconds` (default: the scene's duration) and returns one dict per combination, in
    the order of itertools.product over params: the parameters plus "result":
    measure(world) (default: world.stats without wall_ms).

    Without client: on threads of this process (max_workers, default the processor
    count), which step in parallel (stepping releases the GIL); measure may be any
    callable (a lambda, a notebook's function), and it works from a script without a
    main guard, `python -`, or a notebook. Ctrl-C stops every run after its current
    step and raises KeyboardInterrupt. With a dask.distributed Client: on its workers
    (measure must then be picklable)."""
    if isinstance(scene, (str, _os.PathLike)):
        scene = load_scene(scene)
    elif not isinstance(scene, dict):
        raise TypeError("sweep: scene must be a dict or a path")
    else:
        scene = _copy.deepcopy(scene)
        _absolutize(scene, _os.getcwd())  # workers may run elsewhere
    if not isinstance(params, dict) or not params:
        raise ValueError("sweep: params is a non-empty dict {key path: [values]}")
    keys = list(params)
    values = [list(params[k]) for k in keys]
    for k, vs in zip(keys, values):
        if not vs:
            raise ValueError(f"sweep: no values for {k!r}")
        _set_path(_copy.deepcopy(scene), k, vs[0])  # a bad path fails here, not in a worker
    combos = [tuple(zip(keys, c)) for c in _itertools.product(*values)]
    measure = measure or _default_measure
    if not callable(measure):
        raise TypeError("sweep: measure must be callable (world -> result)")
    if client is not None:
        futures = client.map(_sweep_one, [scene] * len(combos), combos, [measure] * len(combos),
                             [seconds] * len(combos), pure=False)
        results = client.gather(futures)
    else:
        import concurrent.futures
        workers = max_workers or _os.cpu_count() or 1
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError("sweep: max_workers is a whole number >= 1")
        live = (_threading.Lock(), set(), _threading.Event())  # the worlds stepping now; set once interrupted
        ex = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="jelly-sweep")
        try:
            futures = [ex.submit(_sweep_one, scene, c, measure, seconds, live) for c in combos]
            results = [f.result() for f in futures]
        except BaseException:
            # Ctrl-C (or a failed run): the other runs stop after their current step
            with live[0]:
                live[2].set()
                for w in live[1]:
                    w.cancel()
            ex.shutdown(wait=True, cancel_futures=True)
            raise
        ex.shutdown(wait=True)
    return [dict(dict(c), result=r) for c, r in zip(combos, results)]


def _program():
    prog = _os.environ.get("JELLY_PROGRAM")
    if prog:
        return prog
    try:
        from ._config import PROGRAM
        if _os.path.exists(PROGRAM):
            return PROGRAM
    except ImportError:
        pass
    import shutil
    prog = shutil.which("jelly")
    if not prog:
        raise FileNotFoundError("jelly.run: the jelly program was not found (set JELLY_PROGRAM)")
    return prog


def run(scene, out, *args, quiet=True):
    """Runs the scene with the `jelly run` program (the same files: stats.csv,
    scene.pvd + frame_NNNN.vtu, scene_all.pvd + frame_NNNN.vtm + per-body .vtp
    surfaces, preview.png, jelly_manifest.txt; VTK binary with zlib unless
    "--vtk-ascii"; args are more options, e.g. "--obj", "--no-preview"). A rerun
    into out deletes the earlier run's files first; an out holding frames
    without Jelly's manifest raises SceneError. The scene is written to a
    temporary JSON file; returns out."""
    with _tempfile.TemporaryDirectory(prefix="jelly-") as tmp:
        text, name = _scene_json(scene)
        sc = _json.loads(text)
        _absolutize(sc, _os.path.dirname(name))
        path = _os.path.join(tmp, "scene.json")
        with open(path, "w", encoding="utf-8") as f:
            _json.dump(sc, f)
        cmd = [_program(), "run", path, "--out", _os.fspath(out)] + [str(a) for a in args]
        if quiet:
            cmd.append("--quiet")
        p = _subprocess.Popen(cmd, stdout=_subprocess.PIPE, stderr=_subprocess.PIPE, text=True)
        try:
            stdout, stderr = p.communicate()
        except KeyboardInterrupt:
            # Ctrl-C: the program writes what it finished (scene.pvd, stats.csv) and exits 130;
            # give it the time for that instead of killing it mid-write
            import signal
            try:
                p.send_signal(signal.SIGINT)
                p.wait(timeout=30)
            except (ProcessLookupError, _subprocess.TimeoutExpired):
                p.kill()
                p.wait()
            raise
        p = _subprocess.CompletedProcess(cmd, p.returncode, stdout, stderr)
        if p.returncode == 130:
            raise KeyboardInterrupt(p.stderr.strip())
        if p.returncode == 2:
            raise SceneError(p.stderr.strip())
        if p.returncode == 1:
            raise SimulationError(p.stderr.strip())
        if p.returncode != 0:
            raise OSError(p.stderr.strip() or f"jelly run failed ({p.returncode})")
    return _os.fspath(out)
