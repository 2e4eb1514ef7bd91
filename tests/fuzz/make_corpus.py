#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/.

Run from anywhere: tests/fuzz/make_corpus.py. The output is committed; rerun
it after adding a model, a scene or a reproducer (docs/robustness.md,
"Fuzzing"). Seeds: models/scenes/*.json, the scene strings of
tests/test_scene.c, issue 11's value reproducers; tests/data/meshes/*,
models/icosphere_320.obj and the file reproducers of tests/test_hostile.c;
the small meshes again as byte soups for fuzz_validate. Each surface seed is
one extension byte (fuzz_surface.c) followed by the file."""
import hashlib
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
EXT = ["obj", "off", "ply", "stl", "gltf", "dae", "x", "dat"]


def c_strings(path):
    """The string literals of a C file, adjacent ones joined, unescaped."""
    text = open(path, encoding="utf-8").read()
    lit = r'"((?:[^"\\\n]|\\.)*)"'
    out = []
    for m in re.finditer(r'(?:%s\s*)+' % lit, text):
        parts = re.findall(lit, m.group(0))
        raw = "".join(parts)
        out.append(raw.encode("latin-1").decode("unicode_escape").encode("latin-1"))
    return out


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def scene_seeds():
    sdir = os.path.join(ROOT, "models", "scenes")
    for n in sorted(os.listdir(sdir)):
        if n.endswith(".json"):
            put("fuzz_scene", n, open(os.path.join(sdir, n), "rb").read())
    for s in c_strings(os.path.join(ROOT, "tests", "test_scene.c")):
        if s.startswith(b"{") and len(s) > 10:
            put("fuzz_scene", "test_scene_" + hashlib.sha1(s).hexdigest()[:10] + ".json", s)
    box = b'"shape": {"type": "box", "size": [1, 1, 1]}'
    issue11 = {
        # frame and step counts that overflowed int
        "frames_overflow.json": b'{"duration": 1e7, "fps": 1e6, "bodies": [{' + box + b'}]}',
        "steps_overflow.json": b'{"fps": 1e-3, "dt": 1e-7, "bodies": [{' + box + b'}]}',
        # 275 GB box, false self-intersection on a fine torus, 1e9 tets
        "box_resolution.json": b'{"bodies": [{"shape": {"type": "box", "size": [1, 1, 1], "resolution": 1e-4}}]}',
        "fine_torus.json": b'{"bodies": [{"shape": {"type": "torus", "major": 1, "minor": 0.3, "resolution": 0.002}}]}',
        "max_volume.json": b'{"bodies": [{' + box + b', "tetgen": {"max_volume": 1e-9}}]}',
        # hull obstacles (loaded at parse time) and cloth and rope that build
        "hull.json": b'{"obstacles": [{"type": "hull", "mesh": "../icosphere_320.obj", "scale": 0.5}], '
                     b'"bodies": [{"kind": "cloth", "shape": {"type": "grid", "size": [1, 1], "cells": [8, 8]}, '
                     b'"translate": [0, 1, 0]}]}',
        "hull_far.json": b'{"obstacles": [{"type": "hull", "mesh": "../icosphere_320.obj", "scale": 1e9}], '
                         b'"bodies": [{"kind": "rope", "shape": {"type": "chain", "length": 1, "segments": 10}}]}',
    }
    for n, s in issue11.items():
        put("fuzz_scene", "issue11_" + n, s)


def surface_seeds():
    mdir = os.path.join(ROOT, "tests", "data", "meshes")
    files = [os.path.join(mdir, n) for n in sorted(os.listdir(mdir))]
    files.append(os.path.join(ROOT, "models", "icosphere_320.obj"))
    for p in files:
        ext = p.rsplit(".", 1)[-1]
        put("fuzz_surface", os.path.basename(p), bytes([EXT.index(ext)]) + open(p, "rb").read())
    # tests/test_hostile.c's files: PUT("name.ext", "content")
    text = open(os.path.join(ROOT, "tests", "test_hostile.c"), encoding="utf-8").read()
    for m in re.finditer(r'PUT\("([^"]+)",\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)\)', text):
        name = m.group(1)
        body = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(2)))
        data = body.encode("latin-1").decode("unicode_escape").encode("latin-1")
        ext = name.rsplit(".", 1)[-1] if "." in name else "dat"
        if ext == "json":
            put("fuzz_scene", "hostile_" + name, data)
            continue
        if ext not in EXT:
            ext = "dat"
        put("fuzz_surface", "hostile_" + name, bytes([EXT.index(ext)]) + data)


def soup(path):
    """A small OBJ/OFF as fuzz_validate's bytes (coordinates on its 1/8 m grid)."""
    verts, tris = [], []
    lines = open(path, encoding="latin-1").read().splitlines()
    if path.endswith(".off"):
        lines = [l for l in lines if l.strip() and not l.startswith("#")][1:]
        nv, nf = map(int, lines[0].split()[:2])
        verts = [list(map(float, l.split()[:3])) for l in lines[1:1 + nv]]
        for l in lines[1 + nv:1 + nv + nf]:
            idx = list(map(int, l.split()[1:]))
            tris += [[idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1)]
    else:
        for l in lines:
            t = l.split()
            if t and t[0] == "v":
                verts.append([float(x) for x in t[1:4]])
            elif t and t[0] == "f":
                idx = [int(x.split("/")[0]) for x in t[1:]]
                idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
                tris += [[idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1)]
    if len(verts) > 255:
        return None

    def byte(x):
        if math.isnan(x):
            return 255
        if math.isinf(x):
            return 254
        if abs(x) > 1e100:
            return 253
        return max(0, min(251, int(round(x * 8 + 128))))

    n = len(verts)
    out = bytes([n]) + bytes(byte(c) for v in verts for c in v)
    # index i is stored as b with b mod (n + 2) - 1 == i
    out += bytes(min(255, max(0, i + 1)) if 0 <= i + 1 < 256 else 0 for t in tris for i in t)
    return out


def validate_seeds():
    mdir = os.path.join(ROOT, "tests", "data", "meshes")
    for n in sorted(os.listdir(mdir)):
        if n.endswith((".obj", ".off")):
            try:
                s = soup(os.path.join(mdir, n))
            except (ValueError, IndexError):
                s = None
            if s:
                put("fuzz_validate", n.rsplit(".", 1)[0], s)
    s = soup(os.path.join(ROOT, "models", "icosphere_320.obj"))
    if s:
        put("fuzz_validate", "icosphere_320", s)


if __name__ == "__main__":
    scene_seeds()
    surface_seeds()
    validate_seeds()
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(OUT) for f in fs)
    print("corpus: %d bytes in %s" % (total, OUT), file=sys.stderr)
