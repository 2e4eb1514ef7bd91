"""Writable state, pictures as arrays, Ctrl-C, threads and the namespace (docs/python.md)."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import jelly
from conftest import tiny_scene


def _run_python(code, *args, stdin=None, timeout=120):
    """code in a fresh interpreter with this one's path (and no main guard)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    if stdin is not None:
        return subprocess.run([sys.executable, "-"] + list(args), input=code, capture_output=True, text=True,
                              env=env, timeout=timeout)
    return subprocess.run([sys.executable, "-c", code] + list(args), capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_set_velocity_is_the_scene_keys():
    """set_velocity(body, linear, angular) at t = 0 steps bitwise as the scene's velocity keys."""
    sc = tiny_scene()
    keyed = tiny_scene()
    keyed["bodies"][0].update(velocity=[1.0, 0.0, 0.5], angular_velocity=[0.0, 2.0, 0.0])
    a = jelly.World(keyed).step(20)
    b = jelly.World(sc)
    b.set_velocity("cube", (1.0, 0.0, 0.5), (0.0, 2.0, 0.0))
    b.step(20)
    assert np.array_equal(a.positions, b.positions) and np.array_equal(a.velocities, b.velocities)


def test_set_state_restarts_as_a_new_world():
    """Positions and velocities set on a world that stepped (warm start, contact memory) step on bitwise
    as the same set on a fresh world."""
    sc = tiny_scene(y=0.11)
    src = jelly.World(sc).step(12)
    P, V = np.array(src.positions), np.array(src.velocities)
    fresh = jelly.World(sc)
    fresh.set_positions(P)
    fresh.set_velocities(V)
    fresh.step(15)
    used = jelly.World(sc).step(9)
    used.set_positions(P)
    used.set_velocities(V)
    used.step(15)
    assert np.array_equal(fresh.positions, used.positions)
    # per body: the other nodes stay
    w = jelly.World(sc)
    before = np.array(w.positions)
    w.set_positions(before[w.bodies["cube"].node_range.start:w.bodies["cube"].node_range.stop] + 0.1, body="cube")
    assert np.allclose(np.array(w.positions) - before, 0.1)


def test_set_pose_is_rigid():
    """A rotation about the centre of mass, then a translation: x1 - mean = R (x0 - mean); a translation
    alone moves every node by it."""
    w = jelly.World(tiny_scene())
    x0 = np.array(w.positions)
    R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    w.set_pose("cube", rotation=R)
    x1 = np.array(w.positions)
    assert np.allclose(x1 - x1.mean(axis=0), (x0 - x0.mean(axis=0)) @ R.T, atol=1e-12)
    w.set_pose(0, translation=(0.5, 0.2, 0.0))
    assert np.allclose(np.array(w.positions) - x1, (0.5, 0.2, 0.0), atol=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda w: w.set_positions(np.zeros((3, 3))), r"shape \(\d+, 3\)"),
    (lambda w: w.set_positions(np.full((w.node_count, 3), np.nan)), "finite"),
    (lambda w: w.set_velocities("fast"), "numbers"),
    (lambda w: w.set_pose("cube", rotation=2 * np.eye(3)), "orthonormal"),
    (lambda w: w.set_pose("cube", rotation=np.diag([1.0, 1.0, -1.0])), "reflection"),
    (lambda w: w.set_pose("nobody"), "no body named"),
    (lambda w: w.set_velocity(5, (1, 0, 0)), "out of range"),
    (lambda w: w.set_velocity("cube", (1, 0)), "3 numbers"),
    (lambda w: w.pin(2.0), "integer indices"),
    (lambda w: w.pin([0.5, 1.5]), "integer indices"),
    (lambda w: w.pin([[0, 1]]), "one-dimensional"),
    (lambda w: w.pin([10 ** 6]), "out of range"),
    (lambda w: w.render(8, 8), "16 to 16384"),
    (lambda w: w.render(camera=((0, 0, 0), (0, 0, 0))), "differ"),
    (lambda w: w.render(layers=("sprngs",)), "unknown layer"),
])
def test_bad_arguments_have_jellys_messages(call, match):
    w = jelly.World(tiny_scene())
    with pytest.raises((ValueError, TypeError, KeyError, IndexError), match=match):
        call(w)
    w.step(1)  # still usable


def test_node_selections():
    w = jelly.World(tiny_scene())
    n = w.node_count
    w.pin(np.arange(3))
    w.pin([3, 4])
    mask = np.zeros(n, dtype=bool)
    mask[5] = True
    w.pin(mask)
    w.pin(np.int64(6))
    x = np.array(w.positions[:7])
    w.step(10)
    assert np.array_equal(np.array(w.positions[:7]), x)


def test_render_without_display():
    """An (H, W, 3) uint8 picture from the headless renderer, with no display, as jelly render draws."""
    code = textwrap.dedent("""
        import sys, numpy as np, jelly
        sys.path.insert(0, sys.argv[1])
        from conftest import tiny_scene
        w = jelly.World(tiny_scene())
        img = w.render(160, 90)
        assert img.shape == (90, 160, 3) and img.dtype == np.uint8, (img.shape, img.dtype)
        # the body (coral: red well above blue) in the middle, the background at the corners
        mid = img[30:60, 60:100].reshape(-1, 3).astype(int)
        assert ((mid[:, 0] - mid[:, 2]) > 40).sum() > 100, "no body in the middle"
        assert tuple(img[0, 0]) != tuple(img[45, 80])
        side = w.render(64, 48, camera=((2, 0.5, 0), (0, 0.2, 0)), layers=("strain", "wireframe"))
        assert side.shape == (48, 64, 3)
        print("ok")
    """)
    env_code = "import os; [os.environ.pop(k, None) for k in ('DISPLAY', 'WAYLAND_DISPLAY')]\n" + code
    p = _run_python(env_code, os.path.dirname(__file__))
    if "without the renderer" in p.stderr:
        pytest.skip("the module was built without the renderer")
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr


def test_ctrl_c_stops_a_long_step():
    """A real SIGINT during step(100000): KeyboardInterrupt within a second, the world usable after."""
    code = textwrap.dedent("""
        import sys, time, jelly
        sys.path.insert(0, sys.argv[1])
        from conftest import tiny_scene
        w = jelly.World(tiny_scene(y=0.5))
        print("stepping", flush=True)
        t0 = time.monotonic()
        try:
            w.step(100000)
        except KeyboardInterrupt:
            t1 = time.monotonic()
            steps = round(w.time / w.dt)
            w.step(2)
            print(f"interrupted after {t1 - t0:.2f} s at step {steps} then {round(w.time / w.dt)}", flush=True)
            sys.exit(0)
        sys.exit(1)
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    p = subprocess.Popen([sys.executable, "-c", code, os.path.dirname(__file__)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    assert p.stdout.readline().strip() == "stepping"
    time.sleep(1.0)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    waited = time.monotonic() - sent
    assert p.returncode == 0, (out, err)
    assert "interrupted after" in out and waited < 10, (out, waited)
    words = out.split()
    assert int(words[-1]) == int(words[-3]) + 2, out  # whole steps, then two more


def _interrupt_python(code, ready, tmp_path, wait=1.0):
    """Runs code in a fresh interpreter, sends it a real SIGINT `wait` s after it printed `ready`;
    (its stdout, seconds from the signal to its exit)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    p = subprocess.Popen([sys.executable, "-c", code, os.path.dirname(__file__), str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert p.stdout.readline().strip() == ready
    time.sleep(wait)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    return out, time.monotonic() - sent


def test_ctrl_c_stops_a_local_sweep(tmp_path):
    """A real SIGINT during jelly.sweep on threads: KeyboardInterrupt, every run stopped."""
    code = textwrap.dedent("""
        import sys, threading, jelly
        sys.path.insert(0, sys.argv[1])
        from conftest import tiny_scene
        print("sweeping", flush=True)
        try:
            jelly.sweep(tiny_scene(y=0.5), {"bodies[0].young_modulus": [1e5, 2e5]}, seconds=10000.0, max_workers=2)
        except KeyboardInterrupt:
            print("interrupted, threads left", threading.active_count() - 1, flush=True)
            sys.exit(0)
        sys.exit(1)
    """)
    out, waited = _interrupt_python(code, "sweeping", tmp_path, wait=1.5)
    assert "interrupted, threads left 0" in out and waited < 10, (out, waited)


def test_ctrl_c_on_jelly_run_keeps_its_files(tmp_path):
    """A real SIGINT to Python during jelly.run: the program gets it, writes what it finished (scene.pvd,
    stats.csv), and KeyboardInterrupt follows."""
    code = textwrap.dedent("""
        import os, sys, jelly
        sys.path.insert(0, sys.argv[1])
        from conftest import tiny_scene
        out = os.path.join(sys.argv[2], "run")
        sc = tiny_scene(y=0.5)
        sc["duration"] = 10000.0
        print("running", flush=True)
        try:
            jelly.run(sc, out, "--no-preview")
        except KeyboardInterrupt:
            print("interrupted", os.path.exists(os.path.join(out, "scene.pvd")),
                  os.path.exists(os.path.join(out, "stats.csv")), flush=True)
            sys.exit(0)
        sys.exit(1)
    """)
    out, waited = _interrupt_python(code, "running", tmp_path, wait=2.0)
    assert "interrupted True True" in out and waited < 30, (out, waited)


def test_cancel_from_another_thread():
    """cancel() from this thread stops a step(n) running on another: this thread ran meanwhile, so the
    stepping thread had released the GIL."""
    w = jelly.World(tiny_scene(y=0.5))
    caught = []

    def run():
        try:
            w.step(1000000)
        except KeyboardInterrupt as e:
            caught.append(str(e))

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.3)
    w.cancel()
    t.join(timeout=10)
    assert not t.is_alive() and caught and "cancel" in caught[0]
    w.step(1)


@pytest.mark.parametrize("how", ["stdin", "unguarded"])
def test_local_sweep_anywhere(how, tmp_path):
    """jelly.sweep without a client from `python -` and from a script without a main guard, with a
    lambda measure: threads, no spawned interpreters."""
    code = textwrap.dedent("""
        import sys, jelly
        sys.path.insert(0, %r)
        from conftest import tiny_scene
        r = jelly.sweep(tiny_scene(), {"bodies[0].young_modulus": [5e4, 2e5]}, measure=lambda w: w.time, seconds=0.1)
        assert [x["bodies[0].young_modulus"] for x in r] == [5e4, 2e5]
        assert all(abs(x["result"] - 0.1) < 1e-9 for x in r), r
        print("swept", len(r))
    """) % os.path.dirname(__file__)
    if how == "stdin":
        p = _run_python(code, stdin=code)
    else:
        script = tmp_path / "sweep_script.py"
        script.write_text(code)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and "swept 2" in p.stdout, p.stderr


def test_namespace_is_the_public_api():
    public = {n for n in dir(jelly) if not n.startswith("_")}
    assert public == set(jelly.__all__), public ^ set(jelly.__all__)
