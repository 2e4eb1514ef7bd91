"""The VTK files `jelly run` writes, read back with VTK's own XML readers
(Debian python3-vtk9): every frame's grid (.vtu), each body's
surface (.vtp), the per-frame multiblock (.vtm) and both collections
(scene.pvd, scene_all.pvd, parsed with xml.etree: vtkPVDReader is
ParaView's). Cell counts, cell types and fields are checked against the
scene, and the binary files (appended, zlib) against --vtk-ascii ones."""
import os
import xml.etree.ElementTree as ET

import pytest

vtk = pytest.importorskip("vtk", reason="python3-vtk9 is not installed (scripts/setup.sh --test-deps installs it)")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

import jelly  # noqa: E402

VTK_LINE, VTK_TRIANGLE, VTK_TETRA = 3, 5, 10
FRAMES = 2

# a volume, a 4 x 3 cloth (24 triangles on 20 nodes) and a 7-segment rope
MIXED = {
    "fps": 30, "ground": {"y": 0},
    "bodies": [
        {"name": "block", "shape": {"type": "box", "size": [0.3, 0.3, 0.3]}, "translate": [0, 0.5, 0]},
        {"name": "sheet", "kind": "cloth", "shape": {"type": "grid", "size": [1, 1], "cells": [4, 3]},
         "rotate_deg": [90, 0, 0], "translate": [0, 1.2, 0]},
        {"name": "strand", "kind": "rope", "shape": {"type": "chain", "length": 0.5, "segments": 7},
         "translate": [1, 1.5, 0]},
    ],
}


def read(reader_class, path):
    assert os.path.exists(path), path
    r = reader_class()
    r.SetFileName(str(path))
    r.Update()
    return r.GetOutput()


def array(data, name):
    a = data.GetArray(name)
    assert a is not None, name
    return vtk_to_numpy(a)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The mixed scene written binary (the default) and with --vtk-ascii."""
    base = tmp_path_factory.mktemp("vtk_files")
    out = {}
    for kind, args in (("binary", []), ("ascii", ["--vtk-ascii"])):
        out[kind] = jelly.run(MIXED, base / kind, "--frames", FRAMES, "--no-preview", *args)
    return out


def test_grid_cells_and_fields(runs):
    for f in range(FRAMES + 1):
        g = read(vtk.vtkXMLUnstructuredGridReader, os.path.join(runs["binary"], "frame_%04d.vtu" % f))
        types = vtk_to_numpy(g.GetCellTypesArray())
        ntet = int((types == VTK_TETRA).sum())
        assert ntet > 0
        assert int((types == VTK_TRIANGLE).sum()) == 24 and int((types == VTK_LINE).sum()) == 7
        assert g.GetNumberOfCells() == ntet + 24 + 7
        pd, cd = g.GetPointData(), g.GetCellData()
        assert array(pd, "velocity").shape == (g.GetNumberOfPoints(), 3)
        assert array(pd, "strain").shape == (g.GetNumberOfPoints(),)
        body = array(cd, "body")
        assert list(body[:ntet]) == [0] * ntet and list(body[ntet:ntet + 24]) == [1] * 24
        assert list(body[ntet + 24:]) == [2] * 7
        if f == 0:  # the rest shape: no volume, area or length change
            assert abs(array(cd, "volume_strain")).max() <= 1e-12


def test_body_surfaces(runs):
    d = runs["binary"]
    block = read(vtk.vtkXMLPolyDataReader, os.path.join(d, "frame_0002_block.vtp"))
    assert block.GetNumberOfPolys() > 0 and block.GetNumberOfLines() == 0
    n = vtk_to_numpy(block.GetPointData().GetNormals())
    assert n.shape == (block.GetNumberOfPoints(), 3)
    assert abs((n * n).sum(axis=1) - 1).max() < 1e-9
    # every polygon a triangle on the surface's points
    polys = block.GetPolys()
    assert polys.GetNumberOfConnectivityIds() == 3 * block.GetNumberOfPolys()
    sheet = read(vtk.vtkXMLPolyDataReader, os.path.join(d, "frame_0002_sheet.vtp"))
    assert sheet.GetNumberOfPolys() == 24 and sheet.GetNumberOfPoints() == 20
    assert sheet.GetPointData().GetNormals() is not None
    strand = read(vtk.vtkXMLPolyDataReader, os.path.join(d, "frame_0002_strand.vtp"))
    assert strand.GetNumberOfLines() == 1 and strand.GetNumberOfPolys() == 0 and strand.GetNumberOfPoints() == 8
    assert list(vtk_to_numpy(strand.GetLines().GetConnectivityArray())) == list(range(8))


def test_multiblock_frame(runs):
    d = runs["binary"]
    mb = read(vtk.vtkXMLMultiBlockDataReader, os.path.join(d, "frame_0001.vtm"))
    assert mb.GetNumberOfBlocks() == 2
    grid = mb.GetBlock(0)
    assert grid.IsA("vtkUnstructuredGrid") and grid.GetNumberOfCells() > 31
    bodies = mb.GetBlock(1)
    names = [bodies.GetMetaData(i).Get(vtk.vtkCompositeDataSet.NAME()) for i in range(bodies.GetNumberOfBlocks())]
    assert names == ["block", "sheet", "strand"]
    assert all(bodies.GetBlock(i).IsA("vtkPolyData") for i in range(3))
    assert bodies.GetBlock(1).GetNumberOfPolys() == 24


def test_collections(runs):
    for kind in ("binary", "ascii"):
        d = runs[kind]
        for pvd, ext in (("scene.pvd", ".vtu"), ("scene_all.pvd", ".vtm")):
            root = ET.parse(os.path.join(d, pvd)).getroot()
            assert root.get("type") == "Collection"
            sets = root.find("Collection").findall("DataSet")
            assert [s.get("file") for s in sets] == ["frame_%04d%s" % (f, ext) for f in range(FRAMES + 1)]
            t = [float(s.get("timestep")) for s in sets]
            assert t[0] == 0 and abs(t[-1] - FRAMES / 30) < 1e-12
            assert all(os.path.exists(os.path.join(d, s.get("file"))) for s in sets)
        # the manifest lists the folder's files
        listed = [ln for ln in open(os.path.join(d, "jelly_manifest.txt")).read().splitlines() if not ln.startswith("#")]
        assert sorted(listed) == sorted(n for n in os.listdir(d) if n != "jelly_manifest.txt")


def test_binary_equals_ascii(runs):
    """The same numbers, bit for bit, in both encodings; the binary file is the appended + zlib kind."""
    for name in ("frame_0002.vtu", "frame_0002_block.vtp", "frame_0002_sheet.vtp", "frame_0002_strand.vtp"):
        head = open(os.path.join(runs["binary"], name), "rb").read(400)
        assert b'compressor="vtkZLibDataCompressor"' in head and b'header_type="UInt64"' in head
        reader = vtk.vtkXMLUnstructuredGridReader if name.endswith(".vtu") else vtk.vtkXMLPolyDataReader
        b = read(reader, os.path.join(runs["binary"], name))
        a = read(reader, os.path.join(runs["ascii"], name))
        assert (vtk_to_numpy(b.GetPoints().GetData()) == vtk_to_numpy(a.GetPoints().GetData())).all()
        for data in ("GetPointData", "GetCellData"):
            db, da = getattr(b, data)(), getattr(a, data)()
            assert db.GetNumberOfArrays() == da.GetNumberOfArrays()
            for i in range(db.GetNumberOfArrays()):
                nm = db.GetArrayName(i)
                assert (array(db, nm) == array(da, nm)).all(), (name, nm)
        assert b.GetNumberOfCells() == a.GetNumberOfCells()


def test_default_scene_bunny_surface(models, tmp_path):
    """The default scene's bunny: its full embedded surface, 3674 triangles on 1839 points, with normals."""
    out = jelly.run(os.path.join(models, "scenes", "default.json"), tmp_path / "default", "--frames", 0,
                    "--no-preview")
    bunny = read(vtk.vtkXMLPolyDataReader, os.path.join(out, "frame_0000_bunny.vtp"))
    assert bunny.GetNumberOfPolys() == 3674 and bunny.GetNumberOfPoints() == 1839
    assert bunny.GetPointData().GetNormals().GetNumberOfTuples() == 1839


def test_mesh_out_both_encodings(tmp_path):
    """`jelly mesh --out` writes the same tets and volumes binary (default) and with --vtk-ascii."""
    import subprocess
    grids = []
    for name, extra in (("bin.vtu", []), ("ascii.vtu", ["--vtk-ascii"])):
        path = tmp_path / name
        subprocess.run([jelly._program(), "mesh", "--shape", "box", "--resolution", "0.5", "--out", str(path)] + extra,
                       check=True, capture_output=True)
        grids.append(read(vtk.vtkXMLUnstructuredGridReader, path))
    b, a = grids
    assert b.GetNumberOfCells() > 0 and b.GetNumberOfCells() == a.GetNumberOfCells()
    assert (vtk_to_numpy(b.GetCellTypesArray()) == VTK_TETRA).all()
    vb, va = array(b.GetCellData(), "volume"), array(a.GetCellData(), "volume")
    assert (vb == va).all() and (vb > 0).all()
    assert b'compressor="vtkZLibDataCompressor"' in open(tmp_path / "bin.vtu", "rb").read(300)
