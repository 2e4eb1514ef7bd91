"""jelly.sweep: every combination of the parameters, each run in its own
process, in a deterministic order; on a dask.distributed LocalCluster with two
worker processes it gives the same table as run locally. And jelly.run writes
what `jelly run` writes."""
import os

import pytest

import jelly
from conftest import tiny_scene

PARAMS = {"bodies[0].young_modulus": [5e4, 2e5], "ground.friction": [0.1, 0.8]}


def final_height(world):
    """Module level, so worker processes can import it."""
    return {"min_y": float(world.positions[:, 1].min()), "t": world.time,
            "kinetic": world.energy()["kinetic"]}


def test_sweep_local_order_and_values():
    rows = jelly.sweep(tiny_scene(), PARAMS, measure=final_height, seconds=0.1)
    assert [(r["bodies[0].young_modulus"], r["ground.friction"]) for r in rows] == \
        [(5e4, 0.1), (5e4, 0.8), (2e5, 0.1), (2e5, 0.8)]
    # each row is the world of its parameters, run here the same way
    sc = tiny_scene(young=2e5, friction=0.8)
    w = jelly.World(sc)
    w.step_to(0.1)
    assert rows[3]["result"] == final_height(w)
    default = jelly.sweep(tiny_scene(), {"contact.friction": [0.3]}, seconds=0.05)
    assert tuple(default[0]["result"]) == tuple(c for c in jelly.STATS_COLUMNS if c != "wall_ms")


def test_sweep_bad_path():
    with pytest.raises(jelly.SceneError, match="no 5"):
        jelly.sweep(tiny_scene(), {"bodies[5].density": [1.0]})
    with pytest.raises(jelly.SceneError, match="bad key path"):
        jelly.sweep(tiny_scene(), {"bodies.0.density": [1.0]})
    with pytest.raises(ValueError):
        jelly.sweep(tiny_scene(), {})
    with pytest.raises(jelly.SceneError, match="young_modulus"):
        jelly.sweep(tiny_scene(), {"bodies[0].young_modulus": [-1.0]}, seconds=0.05)


def test_sweep_on_dask_local_cluster_equals_serial():
    distributed = pytest.importorskip("distributed")
    serial = jelly.sweep(tiny_scene(), PARAMS, measure=final_height, seconds=0.1, max_workers=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        # the workers are other processes: they import jelly from PYTHONPATH
        # and get this module's measure by value
        import cloudpickle
        import sys
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        try:
            on_cluster = jelly.sweep(tiny_scene(), PARAMS, measure=final_height, seconds=0.1, client=client)
        finally:
            cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids
    assert on_cluster == serial


def test_run_writes_jelly_run_files(tmp_path):
    out = jelly.run(tiny_scene(), tmp_path / "x", "--no-preview")
    names = sorted(os.listdir(out))
    assert "stats.csv" in names and "scene.pvd" in names and "frame_0000.vtu" in names
    bad = tiny_scene()
    bad["fps"] = -1
    with pytest.raises(jelly.SceneError, match="fps"):
        jelly.run(bad, tmp_path / "y")
