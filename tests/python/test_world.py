"""jelly.World from Python: NumPy views that track the state, shapes and dtypes,
read-only arrays, SceneError messages naming the key path, pins and forces,
bodies, energies, stats, save/load bitwise and pickling, and arrays vs OBJ."""
import gc
import os
import pickle
import threading

import numpy as np
import pytest

import jelly
from conftest import tiny_scene


def test_views_track_state_without_copies():
    w = jelly.World(tiny_scene())
    x, v = w.positions, w.velocities
    assert x.shape == (w.node_count, 3) and v.shape == (w.node_count, 3)
    assert x.dtype == np.float64 and v.dtype == np.float64
    assert x.flags.c_contiguous and not x.flags.owndata
    assert np.shares_memory(x, w.positions)  # the same memory every time: no copy
    y0 = x[:, 1].copy()
    assert np.all(v == 0)
    w.step(5)
    assert np.all(x[:, 1] < y0)  # the old view shows the new state (falling)
    assert np.all(v[:, 1] < 0)
    assert w.time == pytest.approx(5 / 60, abs=1e-12)


def test_views_are_read_only():
    w = jelly.World(tiny_scene())
    with pytest.raises(ValueError):
        w.positions[0, 0] = 1.0
    with pytest.raises(ValueError):
        w.velocities[:] = 0.0
    with pytest.raises(ValueError):
        w.positions.flags.writeable = True  # cannot be made writeable either


def test_view_keeps_world_alive():
    x = jelly.World(tiny_scene()).positions  # the World's only reference is the view's base
    gc.collect()
    assert np.all(np.isfinite(x)) and x[:, 1].min() > 0.1
    assert type(x.base).__name__ == "World"


def test_scene_error_names_key_path():
    sc = tiny_scene()
    sc["bodies"][0]["young_modulus"] = -5
    with pytest.raises(jelly.SceneError, match=r"^<scene dict>: bodies\[0\]\.young_modulus"):
        jelly.World(sc)
    sc = tiny_scene()
    sc["bodies"][0]["colour"] = "red"
    with pytest.raises(jelly.SceneError, match=r"bodies\[0\].*colour"):
        jelly.World(sc)
    sc = tiny_scene()
    sc["ground"]["friction"] = float("nan")
    with pytest.raises(jelly.SceneError, match="finite"):
        jelly.World(sc)
    sc = tiny_scene()
    sc["bodies"][0]["mesh"] = "/nonexistent/surface.obj"
    del sc["bodies"][0]["shape"]
    with pytest.raises(jelly.SceneError, match="nonexistent"):
        jelly.World(sc)
    with pytest.raises(jelly.SceneError, match="cannot open"):
        jelly.load_scene("/nonexistent/scene.json")
    with pytest.raises(TypeError):
        jelly.World(42)
    assert issubclass(jelly.SceneError, ValueError)


def test_load_scene_file_and_dict_alike(models):
    path = os.path.join(models, "scenes", "contact_ball_on_box.json")
    sc = jelly.load_scene(path)
    assert sc["bodies"][1]["name"] == "ball"
    a, b = jelly.World(path), jelly.World(sc)
    a.step(3)
    b.step(3)
    assert a.positions.tobytes() == b.positions.tobytes()


def test_hostile_arguments():
    w = jelly.World(tiny_scene())
    n = w.node_count
    with pytest.raises(IndexError):
        w.pin([n], True)
    with pytest.raises(IndexError):
        w.pin([-1])
    with pytest.raises(ValueError):
        w.set_force([0], [[np.inf, 0, 0]])
    with pytest.raises(ValueError):
        w.set_force([0, 1], np.zeros((3, 3)))
    with pytest.raises(TypeError):
        w.pin([0.5])  # no silent float -> int
    with pytest.raises(ValueError):
        w.step_to(float("nan"))
    with pytest.raises(TypeError):
        w.step(1.5)
    with pytest.raises(ValueError):
        w.step(-1)
    with pytest.raises(TypeError):
        w.load_state("not bytes")
    with pytest.raises(ValueError, match="checkpoint|not"):
        w.load_state(b"garbage" * 10)
    with pytest.raises(KeyError, match="cube"):
        w.bodies["nope"]
    assert w.time == 0.0  # nothing above changed the world


def test_pin_and_forces():
    w = jelly.World(tiny_scene())
    body = w.bodies["cube"]
    nodes = np.arange(body.node_range.start, body.node_range.start + 3)
    w.pin(nodes)
    before = w.positions[nodes].copy()
    w.step(10)
    assert w.positions[nodes].tobytes() == before.tobytes()
    w.pin(nodes, False)
    # twice its weight upward: the falling body's mean velocity gains about g t
    mass = body.mass
    everyone = np.arange(w.node_count)
    w.add_force(everyone, [0, 2 * 9.81 * mass / w.node_count, 0])
    vy = w.velocities[:, 1].mean()
    w.step(10)
    assert w.velocities[:, 1].mean() > vy + 0.5 * 9.81 * 10 / 60
    assert w.energy()["external"] < 0
    w.add_force(everyone, [0, -2 * 9.81 * mass / w.node_count, 0])  # adds up to zero
    assert w.energy()["external"] == 0.0


def test_bodies_energy_stats_warnings(models):
    w = jelly.World(os.path.join(models, "scenes", "contact_ball_on_box.json"))
    assert list(w.bodies) == ["box", "ball"]
    ball = w.bodies["ball"]
    assert ball is w.bodies[1]
    assert ball.node_range.stop == w.node_count and ball.mass > 0
    sv, st = ball.surface_vertices, ball.surface_triangles
    assert sv.shape == (ball.vertex_count, 3) and sv.dtype == np.float64
    assert st.shape == (ball.triangle_count, 3) and st.min() >= 0 and st.max() < len(sv)
    e = w.energy()
    assert set(e) == {"kinetic", "elastic", "gravity", "contact", "external", "total"}
    assert e["kinetic"] == 0.0 and e["gravity"] > 0
    s = w.stats
    assert tuple(s) == jelly.STATS_COLUMNS and s["frame"] == 0 and s["steps"] == 0
    w.step(12)
    s = w.stats
    assert s["frame"] == 1 and s["steps"] == 12 and s["cg_iterations"] > 0 and s["time"] == w.time
    assert s["min_y"] == w.positions[:, 1].min() and s["kinetic_energy"] == w.energy()["kinetic"]
    assert s["max_strain"] >= 0 and s["inverted_tets"] == 0 and s["cg_failed"] == 0
    wn = w.warnings
    assert wn["steps"] == 12 and wn["diverged"] == 0


def test_stats_match_jelly_run(tmp_path):
    # the columns of stats.csv, and for whole frames the same numbers
    sc = tiny_scene()
    out = jelly.run(sc, tmp_path / "run", "--no-preview")
    lines = (tmp_path / "run" / "stats.csv").read_text().splitlines()
    assert tuple(lines[0].split(",")) == jelly.STATS_COLUMNS
    last = dict(zip(jelly.STATS_COLUMNS, lines[-1].split(",")))
    w = jelly.World(sc)
    for f in range(1, len(lines) - 1):
        w.step(1)
    s = w.stats
    assert os.path.isdir(out) and (tmp_path / "run" / "scene.pvd").exists()
    assert int(last["frame"]) == s["frame"] and int(last["steps"]) == s["steps"]
    assert float(last["time"]) == pytest.approx(s["time"], rel=1e-9)
    for k in ("kinetic_energy", "elastic_energy", "gravity_energy", "min_y", "contact_energy"):
        assert float(last[k]) == pytest.approx(s[k], rel=1e-6, abs=1e-12), k


def test_save_load_bitwise_and_pickle():
    w = jelly.World(tiny_scene())
    w.step(8)
    s = w.save_state()
    assert isinstance(s, bytes)
    w.step(10)
    ref_x, ref_v = w.positions.tobytes(), w.velocities.tobytes()
    w.load_state(pickle.loads(pickle.dumps(s)))
    assert w.time == pytest.approx(8 / 60, abs=1e-12)
    w.step(10)
    assert w.positions.tobytes() == ref_x and w.velocities.tobytes() == ref_v
    # another world of the same scene takes the state too, and a pickled world
    w2 = jelly.World(tiny_scene())
    w2.load_state(s)
    w2.step(10)
    assert w2.positions.tobytes() == ref_x
    w3 = pickle.loads(pickle.dumps(jelly.World(tiny_scene()).step(8)))
    w3.step(10)
    assert w3.positions.tobytes() == ref_x


def read_obj(path):
    v, t = [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "v":
                v.append([float(a) for a in p[1:4]])
            elif p and p[0] == "f":
                t.append([int(a.split("/")[0]) - 1 for a in p[1:4]])
    return np.array(v), np.array(t)


def test_arrays_match_obj_bitwise(models):
    # the importer rounds a file's vertices to float32 and welds them in its own
    # order; arrays holding what it made of the file (a world's surface at t = 0,
    # unplaced) give the same world, bit for bit
    obj = os.path.join(models, "icosphere_320.obj")
    probe = jelly.World({"bodies": [{"name": "ball", "mesh": obj}]}).bodies["ball"]
    v, t = probe.surface_vertices, probe.surface_triangles
    v_file, t_file = read_obj(obj)
    assert np.array_equal(np.sort(v, axis=0), np.sort(v_file.astype(np.float32).astype(np.float64), axis=0))
    keys = dict(name="ball", scale=0.1, translate=[0, 0.3, 0], young_modulus=1e5, density=800)
    scene = {"dt": 1 / 60, "ground": {"y": 0.0}}
    w_obj = jelly.World(dict(scene, bodies=[dict(keys, mesh=obj)]))
    # the file's own order (float32-rounded) gives the same surface and mass, its
    # tets in another order
    w_ord = jelly.World(dict(scene, bodies=[jelly.body_from_arrays(
        v_file.astype(np.float32).astype(np.float64), t_file, **keys)]))
    s_obj, s_ord = w_obj.bodies["ball"].surface_vertices, w_ord.bodies["ball"].surface_vertices
    assert np.array_equal(np.sort(s_obj, axis=0), np.sort(s_ord, axis=0))
    assert w_ord.bodies["ball"].mass == pytest.approx(w_obj.bodies["ball"].mass, rel=1e-12)
    w_arr = jelly.World(dict(scene, bodies=[jelly.body_from_arrays(v, t, **keys)]))
    assert w_obj.positions.tobytes() == w_arr.positions.tobytes()
    w_obj.step(30)
    w_arr.step(30)
    assert w_obj.positions.tobytes() == w_arr.positions.tobytes()
    assert w_arr.bodies["ball"].triangle_count == len(t)
    w_back = pickle.loads(pickle.dumps(w_arr))  # the arrays travel with the world
    w_back.step(5)
    w_arr.step(5)
    assert w_back.positions.tobytes() == w_arr.positions.tobytes()
    with pytest.raises(ValueError, match="shape"):
        jelly.body_from_arrays(v[:, :2], t)
    with pytest.raises(ValueError, match="out of range"):
        jelly.body_from_arrays(v, t + len(v))
    with pytest.raises(ValueError, match="finite"):
        jelly.body_from_arrays(np.full_like(v, np.nan), t)


def test_arrays_keep_double_precision(models):
    # inline vertices are not rounded: the surface at t = 0 is the input placed
    # (scale, then translate), to the last bit where a float32 file would differ
    v, t = read_obj(os.path.join(models, "icosphere_320.obj"))
    v = v + 1e-9 * (np.arange(v.size).reshape(v.shape) % 7)
    assert np.any(v.astype(np.float32).astype(np.float64) != v)
    body = jelly.body_from_arrays(v, t, name="ball", scale=0.5, translate=[0.25, 0.5, 0.125])
    assert body["mesh"]["vertices"] == v.tolist()
    w = jelly.World({"bodies": [body]})
    got = w.bodies["ball"].surface_vertices
    assert got.shape == v.shape
    assert got.tobytes() == (v * 0.5 + np.array([0.25, 0.5, 0.125])).tobytes()
    w_back = pickle.loads(pickle.dumps(w))
    assert w_back.bodies["ball"].surface_vertices.tobytes() == got.tobytes()


def test_one_thread_per_world():
    # a second thread that calls a world while it steps gets an exception, not a race
    w = jelly.World(tiny_scene())
    errors = []
    started = threading.Event()

    def stepper():
        started.set()
        w.step(400)

    th = threading.Thread(target=stepper)
    th.start()
    started.wait()
    for _ in range(2000):
        try:
            w.energy()
        except RuntimeError as e:
            errors.append(str(e))
            break
    th.join()
    assert w.time == pytest.approx(400 / 60, rel=1e-9)
    if errors:
        assert "another thread" in errors[0]


def test_boolean_masks_select_nodes():
    # a mask used to be cast to indices 0 and 1 (NumPy's same-kind cast lets bool through)
    w = jelly.World(tiny_scene())
    n = w.node_count
    mask = np.zeros(n, dtype=bool)
    mask[5] = True
    w.pin(mask)
    w.set_force(mask, [0.0, 1.0, 0.0])
    w.step(3)
    v = np.asarray(w.velocities)
    assert np.all(v[5] == 0.0)
    assert np.any(v[0] != 0.0) and np.any(v[1] != 0.0)  # not pinned
    w.pin(mask, False)
    w.add_force(mask, [0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="one entry per node"):
        w.pin(np.ones(3, dtype=bool))
    with pytest.raises(TypeError, match="integer indices or a boolean mask"):
        w.set_force([1.5], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("key,value", [("velocity", [1e300, 0, 0]), ("density", 1e-300)])
def test_divergence_raises(key, value):
    # these used to step on with kinetic energy inf and the body collapsed to a point
    sc = tiny_scene()
    sc["bodies"][0][key] = value
    if key == "velocity":
        sc["bodies"][0].pop("damping", None)
    w = jelly.World(sc)
    with pytest.raises(jelly.SimulationError, match="cube"):
        w.step(6)


def test_angular_velocity_and_restitution_keys():
    """A body dict's angular_velocity spins it as a rigid body (v_i - v_j = w x (x_i - x_j)) about its
    centre of mass (the spin alone moves nothing: the body stays where it is on average); the
    restitution keys are taken and range-checked."""
    w_z = np.array([0.0, 0.0, 2.0])
    w = jelly.World({"gravity": [0, 0, 0],
                     "bodies": [{"shape": {"type": "box", "size": [1.0, 0.2, 0.2]}, "angular_velocity": list(w_z)}]})
    x, v = np.array(w.positions), np.array(w.velocities)
    assert np.abs(v[:, 2]).max() == 0.0 and np.abs(v).max() > 0.9  # the tips move at 2 rad/s x 0.5 m
    assert np.abs((v - v[0]) - np.cross(w_z, x - x[0])).max() < 1e-12
    c0 = np.array(w.positions).mean(axis=0)
    w.step(30)
    assert np.linalg.norm(np.array(w.positions).mean(axis=0) - c0) < 0.05  # spinning in place
    with pytest.raises(jelly.SceneError, match="restitution"):
        jelly.World({"ground": {"restitution": 1.5}, "bodies": [{"shape": {"type": "sphere", "radius": 0.1}}]})
    w = jelly.World({"ground": {"restitution": 0.3, "restitution_speed": 1.0}, "contact": {"restitution": 0.7},
                     "bodies": [{"shape": {"type": "sphere", "radius": 0.1}, "translate": [0, 0.5, 0]}]})
    w.step(10)
