#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/.

Run from anywhere: tests/fuzz/make_corpus.py. The output is committed; rerun
it after adding a model, a scene or a reproducer (docs/robustness.md,
"Fuzzing"). Seeds: models/scenes/*.json, the scene strings of
tests/test_scene.c, the hostile-value reproducers; tests/data/meshes/*,
models/icosphere_320.obj and the file reproducers of tests/test_hostile.c
(its PUT literals, and the files it generates for the glTF, Collada, binary
STL and binary .x screens, written again by screen_seeds);
the small meshes again as byte soups for fuzz_validate; edits of a
checkpoint for fuzz_checkpoint; tet-mesh files for fuzz_tetfile. Each surface seed is one extension byte
(fuzz_surface.c) followed by the file."""
import hashlib
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
EXT = ["obj", "off", "ply", "stl", "gltf", "dae", "x", "dat", "glb"]


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


def screen_seeds():
    """The generated files of tests/test_hostile.c's screen tests (small
    versions where the test's file is large): hostile and valid glTF, glb,
    Collada, binary STL and binary .x."""
    import base64
    import json
    import struct
    pos = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    idx = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
    blob = struct.pack("<12f", *pos) + struct.pack("<12H", *idx)
    uri = "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
    tet_acc = [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
               {"bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR"}]

    def gltf(nodes, roots, accessors=None, buffer=None):
        return json.dumps({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": roots}], "nodes": nodes,
                           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
                           "buffers": [buffer or {"byteLength": 72, "uri": uri}],
                           "bufferViews": [{"buffer": 0, "byteLength": 48},
                                           {"buffer": 0, "byteOffset": 48, "byteLength": 24}],
                           "accessors": accessors or tet_acc}, separators=(",", ":")).encode()

    def surface(name, data):
        ext = name.rsplit(".", 1)[-1] if "." in name else "dat"
        put("fuzz_surface", "screen_" + name, bytes([EXT.index(ext if ext in EXT else "dat")]) + data)

    dag = [{"children": [i + 1, i + 1]} for i in range(40)] + [{"mesh": 0}]
    surface("dag.gltf", gltf(dag, [0]))
    surface("cycle.gltf", gltf([{"children": [1]}, {"children": [2]}, {"children": [1], "mesh": 0}], [0]))
    surface("count.gltf", gltf([{"mesh": 0}], [0], [dict(tet_acc[0], count=4000000000), tet_acc[1]]))
    surface("sparse.gltf", gltf([{"mesh": 0}], [0], [
        {"componentType": 5126, "count": 100000000, "type": "VEC3",
         "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5123}, "values": {"bufferView": 0}}},
        tet_acc[1]]))
    surface("instanced.gltf", gltf([{"children": [1, 2]}, {"translation": [-2, 0, 0], "children": [3]},
                                    {"translation": [2, 0, 0], "children": [3]}, {"mesh": 0}], [0]))
    js = gltf([{"mesh": 0}], [0], buffer={"byteLength": 72})
    js += b" " * ((4 - len(js) % 4) % 4)
    glb = b"glTF" + struct.pack("<III", 2, 12 + 8 + len(js) + 8 + 72, len(js)) + b"JSON" + js
    surface("tet.glb", glb + struct.pack("<I", 72) + b"BIN\0" + blob)
    surface("chunk.glb", b"glTF" + struct.pack("<III", 2, 28, 0xFFFFFFF0) + b"JSON{}      ")

    head = (b'<?xml version="1.0" encoding="utf-8"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" '
            b'version="1.4.1">\n')
    tet = (b'<library_geometries><geometry id="tet"><mesh><source id="p"><float_array id="pa" count="12">0 0 0 1 0 0 '
           b'0 1 0 0 0 1</float_array><technique_common><accessor source="#pa" count="4" stride="3"><param name="X" '
           b'type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common>'
           b'</source><vertices id="v"><input semantic="POSITION" source="#p"/></vertices><triangles count="4">'
           b'<input semantic="VERTEX" source="#v" offset="0"/><p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles></mesh>'
           b'</geometry></library_geometries>\n')

    def dae(libs, lib_nodes, scene):
        return (head + tet + libs + b"<library_nodes>" + lib_nodes + b"</library_nodes><library_visual_scenes>"
                b'<visual_scene id="S">' + scene + b'</visual_scene></library_visual_scenes><scene>'
                b'<instance_visual_scene url="#S"/></scene></COLLADA>\n')
    geo = b'<node id="r"><instance_geometry url="#tet"/></node>'
    nest = b'<node id="n0"><instance_geometry url="#tet"/></node>' + b"".join(
        b'<node id="n%d"><instance_node url="#n%d"/><instance_node url="#n%d"/></node>' % (i, i - 1, i - 1)
        for i in range(1, 40))
    surface("nest.dae", dae(b"", nest, b'<node id="r"><instance_node url="#n39"/></node>'))
    surface("name_cycle.dae", dae(b"", b"", b'<node id="a" name="A"><node id="b"><instance_node url="#A"/>'
                                            b'</node></node>'))
    surface("floats.dae", dae(b'<library_geometries><geometry id="g"><mesh><source id="q"><float_array id="qa" '
                              b'count="1900000000">0 0 0</float_array></source></mesh></geometry>'
                              b'</library_geometries>', b"", geo))
    surface("weights.dae", dae(b'<library_controllers><controller id="c"><skin source="#tet"><vertex_weights '
                               b'count="2"><input semantic="JOINT" source="#j" offset="0"/><vcount>45000000 '
                               b'45000000</vcount><v>0 0</v></vertex_weights></skin></controller>'
                               b'</library_controllers>', b"", geo))
    surface("letter.dae", dae(b"", b"", geo).replace(b"1 2 3</p>", b"1 2 x</p>"))
    surface("instanced.dae", dae(b"", b'<node id="t"><instance_geometry url="#tet"/></node>',
                                 b'<node id="a"><translate>-2 0 0</translate><instance_node url="#t"/></node>'
                                 b'<node id="b"><translate><![CDATA[2 0 0]]></translate>'
                                 b'<instance_node url="&#35;t"/></node>'))

    stl = bytearray(b"solid but binary".ljust(80, b" ") + struct.pack("<I", 4))
    for t in range(4):
        stl += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *pos[3 * k:3 * k + 3])
                                                      for k in idx[3 * t:3 * t + 3]) + b"\0\0"
    surface("tet.stl", bytes(stl))
    surface("wrap.stl", b"\0" * 80 + struct.pack("<I", 85899347) + b"\0" * 54)

    def name(s):
        return struct.pack("<HI", 1, len(s)) + s

    def lst(code, v, fmt):
        return struct.pack("<HI", code, len(v)) + struct.pack("<%d%s" % (len(v), fmt), *v)

    def xbin(nv, faces, extra=b""):
        return (b"xof 0302bin 0032" + name(b"Mesh") + b"\x0a\0" + lst(6, [nv], "I") + lst(7, pos, "f") +
                lst(6, faces, "I") + extra + b"\x0b\0")
    tet_faces = [4, 3, 0, 2, 1, 3, 0, 1, 3, 3, 0, 3, 2, 3, 1, 2, 3]
    surface("tet_bin.x", xbin(4, tet_faces))
    surface("verts_bin.x", xbin(500000000, tet_faces))
    surface("face_bin.x", xbin(4, [1, 50000000]))
    surface("skin_bin.x", xbin(4, tet_faces, name(b"SkinWeights") + b"\x0a\0" + name(b"bone") +
                               lst(6, [400000000], "I") + b"\x0b\0"))


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



def checkpoint_seeds():
    """Edits of the checkpoint fuzz_checkpoint.c saves at start-up: flag byte
    (1: recompute the checksum), cut length, then (offset, 8 bytes) patches."""
    import struct
    put("fuzz_checkpoint", "whole", bytes([0]) + struct.pack("<I", 0))
    put("fuzz_checkpoint", "cut_header", bytes([0]) + struct.pack("<I", 40))
    put("fuzz_checkpoint", "patch_nodes_fixsum",
        bytes([1]) + struct.pack("<I", 0) + struct.pack("<I", 40) + struct.pack("<q", 1 << 40))
    put("fuzz_checkpoint", "patch_history_fixsum",
        bytes([1]) + struct.pack("<I", 0) + struct.pack("<I", 20000) + struct.pack("<q", -1))
    put("fuzz_checkpoint", "patch_tail_fixsum",
        bytes([1]) + struct.pack("<I", 0) + struct.pack("<I", 0xFFFFFF00) + struct.pack("<q", 7))
    # flag 3: patches only in the header and the histories (offsets taken in that region)
    for k, (off, val) in enumerate([(8, 99), (60, 1 << 33), (300, -1), (700, 3), (1500, 1 << 62)]):
        put("fuzz_checkpoint", "structured_%d" % k,
            bytes([3]) + struct.pack("<I", 0) + struct.pack("<I", off) + struct.pack("<q", val))


def tetfile_seeds():
    """fuzz_tetfile: format byte (0 msh, 1 vtk, 2 vtu, 3 ele, 4 node) then the
    file: models/cube_tets.msh, the VTK-written fixtures of tests/data/tetfile,
    a binary Gmsh 2.2 and 4.1 file, and TetGen halves that pair with the
    target's fixed .node/.ele."""
    import struct
    put("fuzz_tetfile", "cube_tets_msh41", bytes([0]) + open(os.path.join(ROOT, "models", "cube_tets.msh"), "rb").read())
    ddir = os.path.join(ROOT, "tests", "data", "tetfile")
    for n in sorted(os.listdir(ddir)):
        if n.endswith((".vtk", ".vtu")):
            put("fuzz_tetfile", n.replace(".", "_"), bytes([1 if n.endswith(".vtk") else 2]) +
                open(os.path.join(ddir, n), "rb").read())
    pts = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]
    tets = [(1, 2, 3, 4), (2, 3, 4, 5)]
    b = b"$MeshFormat\n2.2 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n$Nodes\n5\n"
    b += b"".join(struct.pack("<iddd", i + 1, *p) for i, p in enumerate(pts))
    b += b"\n$EndNodes\n$Elements\n3\n" + struct.pack("<iii", 4, 2, 0)
    b += b"".join(struct.pack("<iiiii", e + 1, *t) for e, t in enumerate(tets))
    b += struct.pack("<iiiiiii", 2, 1, 0, 3, 1, 2, 3) + b"\n$EndElements\n"
    put("fuzz_tetfile", "msh22_binary", bytes([0]) + b)
    b = b"$MeshFormat\n4.1 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n$Nodes\n"
    b += struct.pack("<QQQQ", 1, 5, 1, 5) + struct.pack("<iiiQ", 3, 1, 0, 5)
    b += struct.pack("<5Q", 1, 2, 3, 4, 5) + b"".join(struct.pack("<ddd", *p) for p in pts)
    b += b"\n$EndNodes\n$Elements\n" + struct.pack("<QQQQ", 1, 2, 1, 2) + struct.pack("<iiiQ", 3, 1, 4, 2)
    b += b"".join(struct.pack("<5Q", e + 1, *t) for e, t in enumerate(tets)) + b"\n$EndElements\n"
    put("fuzz_tetfile", "msh41_binary", bytes([0]) + b)
    put("fuzz_tetfile", "tetgen_ele", bytes([3]) + b"# two tets\n2 4 1\n0 0 1 2 3 7\n1 1 2 3 4 7\n")
    put("fuzz_tetfile", "tetgen_node", bytes([4]) + b"5 3 0 1\n0 0 0 0 1\n1 1 0 0 1\n2 0 1 0 0\n3 0 0 1 1\n4 1 1 1 0\n")


if __name__ == "__main__":
    scene_seeds()
    surface_seeds()
    screen_seeds()
    validate_seeds()
    checkpoint_seeds()
    tetfile_seeds()
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(OUT) for f in fs)
    print("corpus: %d bytes in %s" % (total, OUT), file=sys.stderr)
