/* Output writers: VTK unstructured grids (.vtu + .pvd index) for ParaView,
 * Wavefront OBJ surfaces and polylines for Blender. Deterministic: the same
 * numbers always give the same bytes (%.17g, no timestamps). */
#ifndef JL_SRC_OUTPUT_H
#define JL_SRC_OUTPUT_H

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* VTK cell types (VTK's vtkCellType.h) that Jelly writes. */
#define JL_VTK_LINE 3     /* 2 nodes: a rope segment */
#define JL_VTK_TRIANGLE 5 /* 3 nodes: a cloth triangle */
#define JL_VTK_TETRA 10   /* 4 nodes: a tet of a volume */

typedef struct JlVtuField {
  const char *name;   /* e.g. "velocity" */
  int ncomp;          /* 1 or 3 */
  int on_cells;       /* 0: one value per node, 1: one per cell */
  const double *data; /* (nnode or ncell) x ncomp */
} JlVtuField;

/* Cells of mixed types: cell c has the nodes conn[offset[c] ..
 * offset[c + 1]) and the VTK type type[c] (JL_VTK_*). */
typedef struct JlVtuCells {
  int ncell;
  const int *offset;          /* ncell + 1, offset[0] = 0, increasing */
  const int *conn;            /* offset[ncell] node ids, each in [0, nnode) */
  const unsigned char *type;  /* ncell */
} JlVtuCells;

/* Tet mesh (every cell VTK_TETRA) with point/cell data fields. */
JlResult jl_vtu_write(const char *path, int nnode, const double *x, int ntet,
                      const int *tet, int nfield, const JlVtuField *field,
                      char *err, size_t errsz);

/* Unstructured grid of mixed cells (tets, triangles, lines in one piece)
 * with point/cell data fields; cell fields have cells->ncell tuples. For
 * tets only it writes the same bytes as jl_vtu_write. */
JlResult jl_vtu_write_cells(const char *path, int nnode, const double *x, const JlVtuCells *cells,
                            int nfield, const JlVtuField *field, char *err, size_t errsz);

/* ParaView collection: nfile entries (timestep time[i], file[i] relative to
 * the .pvd's folder). */
JlResult jl_pvd_write(const char *path, int nfile, const double *time,
                      const char *const *file, char *err, size_t errsz);

/* Triangle surface as OBJ with vertex normals (normal may be NULL).
 * two_sided (cloth): after the nvert vertices and their normals comes a
 * copy of the vertices (OBJ indices nvert + 1 .. 2 nvert) with negated
 * normals, and after the ntri triangles each triangle again on the copy with
 * reversed winding: the back side as faces of its own, which survives
 * importers that drop a face repeated on the same vertices (Blender's mesh
 * validation) and viewers that cull back faces. */
JlResult jl_obj_write(const char *path, int nvert, const double *x,
                      const double *normal, int ntri, const int *tri,
                      int two_sided, char *err, size_t errsz);

/* Line segments (a rope) as OBJ polyline elements: nvert vertices, then
 * one "l" element per run of segments in which each segment starts where
 * the previous one ended (a chain listed in order gives a single "l" over
 * all its vertices). seg: nseg x 2 vertex ids (0-based). */
JlResult jl_obj_write_lines(const char *path, int nvert, const double *x, int nseg, const int *seg,
                            char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
