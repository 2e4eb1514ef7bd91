#!/usr/bin/env python3
"""Writes the VTK-made fixtures of tests/test_tetfile.c with VTK's own
writers (Debian python3-vtk9, VTK 9.1): the test's mesh (2 x 2 x 2 cells of
0.5 m, 6 Kuhn tets each, one unused node, one triangle cell) as .vtu in
ascii, binary, binary + zlib, appended raw, appended raw + zlib with UInt64
headers, and as legacy .vtk (5.1 ASCII and BINARY, 4.2 ASCII).
Run: /usr/bin/python3 tests/data/tetfile/make.py (writes next to itself)."""
import os
import vtk

here = os.path.dirname(os.path.abspath(__file__))
pts = vtk.vtkPoints()
pts.SetDataTypeToDouble()
for k in range(3):
    for j in range(3):
        for i in range(3):
            pts.InsertNextPoint(0.5 * i + 0.25, 0.5 * j - 1.0, 0.5 * k + 3.0)
pts.InsertNextPoint(5, 5, 5)
g = vtk.vtkUnstructuredGrid()
g.SetPoints(pts)
perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
for k in range(2):
    for j in range(2):
        for i in range(2):
            for p in perms:
                c = [i, j, k]
                ids = vtk.vtkIdList()
                ids.InsertNextId(c[0] + 3 * c[1] + 9 * c[2])
                for s in range(3):
                    c[p[s]] += 1
                    ids.InsertNextId(c[0] + 3 * c[1] + 9 * c[2])
                g.InsertNextCell(vtk.VTK_TETRA, ids)
tri = vtk.vtkIdList()
for v in (0, 1, 2):
    tri.InsertNextId(v)
g.InsertNextCell(vtk.VTK_TRIANGLE, tri)

for name, mode, zlib, h64 in [("ascii", "Ascii", 0, 0), ("binary", "Binary", 0, 0), ("binary_zlib", "Binary", 1, 0),
                              ("appended", "Appended", 0, 0), ("appended_zlib64", "Appended", 1, 1)]:
    w = vtk.vtkXMLUnstructuredGridWriter()
    w.SetFileName(os.path.join(here, "vtk_%s.vtu" % name))
    w.SetInputData(g)
    getattr(w, "SetDataModeTo" + mode)()
    if not zlib:
        w.SetCompressorTypeToNone()
    if h64:
        w.SetHeaderTypeToUInt64()
    w.Write()
for name, binary, version in [("legacy_ascii", 0, 51), ("legacy_binary", 1, 51), ("legacy42", 0, 42)]:
    w = vtk.vtkUnstructuredGridWriter()
    w.SetFileName(os.path.join(here, "vtk_%s.vtk" % name))
    w.SetInputData(g)
    w.SetFileVersion(version)
    if binary:
        w.SetFileTypeToBinary()
    w.Write()
