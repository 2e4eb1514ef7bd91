/* Output writers: VTK XML files for ParaView (unstructured grids .vtu,
 * polygon surfaces .vtp, multiblock frames .vtm, .pvd collections) and
 * Wavefront OBJ surfaces and polylines for Blender. Deterministic: the same
 * numbers always give the same bytes (zlib at a fixed level or %.17g, no
 * timestamps). */
#ifndef JL_SRC_OUTPUT_H
#define JL_SRC_OUTPUT_H

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* VTK cell types (VTK's vtkCellType.h) that Jelly writes. */
#define JL_VTK_LINE     3  /* 2 nodes: a rope segment */
#define JL_VTK_TRIANGLE 5  /* 3 nodes: a cloth triangle */
#define JL_VTK_TETRA    10 /* 4 nodes: a tet of a volume */

/* How a VTK file stores its arrays. */
typedef enum JlVtkEncoding {
  JL_VTK_BINARY, /* appended raw bytes, UInt64 headers, zlib blocks (vtkZLibDataCompressor) */
  JL_VTK_ASCII,  /* inline %.17g text, as Jelly wrote before binary output */
  JL_VTK_ENCODING_COUNT
} JlVtkEncoding;

typedef struct JlVtuField {
  const char *name;   /* e.g. "velocity" */
  int ncomp;          /* 1 or 3 */
  int on_cells;       /* 0: one value per node, 1: one per cell */
  const double *data; /* (nnode or ncell) x ncomp */
} JlVtuField;

/* What a sequence of binary files keeps of the arrays it wrote, so an array
 * that comes again with the same bytes in the same place (the cells, the
 * triangles, a constant field: everything but the moving ones, frame after
 * frame) is copied compressed instead of compressed again. The files are
 * the same bytes as without it. One cache per sequence of files of the same
 * layout (one for the grid, one per body's surface); NULL: none. */
typedef struct JlVtkCache JlVtkCache;
JlVtkCache *jl_vtk_cache_new(void);
void jl_vtk_cache_free(JlVtkCache *c);

/* Cells of mixed types: cell c has the nodes conn[offset[c] ..
 * offset[c + 1]) and the VTK type type[c] (JL_VTK_*). */
typedef struct JlVtuCells {
  int ncell;
  const int *offset;         /* ncell + 1, offset[0] = 0, increasing */
  const int *conn;           /* offset[ncell] node ids, each in [0, nnode) */
  const unsigned char *type; /* ncell */
} JlVtuCells;

/* Tet mesh (every cell VTK_TETRA) with point/cell data fields, in the
 * encoding enc. Arrays: the fields (Float64), "position" (Float64 x 3),
 * connectivity, offsets (Int32) and types (UInt8). */
JlResult jl_vtu_write(const char *path, JlVtkEncoding enc, int nnode, const double *x, int ntet, const int *tet,
                      int nfield, const JlVtuField *field, char *err, size_t errsz);

/* Unstructured grid of mixed cells (tets, triangles, lines in one piece)
 * with point/cell data fields; cell fields have cells->ncell tuples. For
 * tets only it writes the same bytes as jl_vtu_write. */
JlResult jl_vtu_write_cells(const char *path, JlVtkEncoding enc, int nnode, const double *x, const JlVtuCells *cells,
                            int nfield, const JlVtuField *field, JlVtkCache *cache, char *err, size_t errsz);

/* A surface as VTK PolyData (.vtp): nvert points ("position"), ntri
 * triangles (tri: ntri x 3 vertex ids) as Polys, with the point array
 * "Normals" (the active normals) unless normal is NULL, and nseg line
 * segments (seg: nseg x 2) as Lines, one polyline cell per run of segments
 * that continue each other (a chain listed in order is one cell), as
 * jl_obj_write_lines groups them. cache: as for jl_vtu_write_cells. */
JlResult jl_vtp_write(const char *path, JlVtkEncoding enc, int nvert, const double *x, const double *normal, int ntri,
                      const int *tri, int nseg, const int *seg, JlVtkCache *cache, char *err, size_t errsz);

/* A frame as a VTK multiblock (.vtm, vtkMultiBlockDataSet): block 0 "grid"
 * is the file grid (the frame's .vtu), block 1 "bodies" holds nbody
 * datasets, dataset i named name[i] in the file file[i]. Files are relative
 * to the .vtm's folder. */
JlResult jl_vtm_write(const char *path, const char *grid, int nbody, const char *const *name, const char *const *file,
                      char *err, size_t errsz);

/* ParaView collection: nfile entries (timestep time[i], file[i] relative to
 * the .pvd's folder). */
JlResult jl_pvd_write(const char *path, int nfile, const double *time, const char *const *file, char *err,
                      size_t errsz);

/* Triangle surface as OBJ with vertex normals (normal may be NULL).
 * two_sided (cloth): after the nvert vertices and their normals comes a
 * copy of the vertices (OBJ indices nvert + 1 .. 2 nvert) with negated
 * normals, and after the ntri triangles each triangle again on the copy with
 * reversed winding: the back side as faces of its own, which survives
 * importers that drop a face repeated on the same vertices (Blender's mesh
 * validation) and viewers that cull back faces. */
JlResult jl_obj_write(const char *path, int nvert, const double *x, const double *normal, int ntri, const int *tri,
                      int two_sided, char *err, size_t errsz);

/* Line segments (a rope) as OBJ polyline elements: nvert vertices, then
 * one "l" element per run of segments in which each segment starts where
 * the previous one ended (a chain listed in order gives a single "l" over
 * all its vertices). seg: nseg x 2 vertex ids (0-based). */
JlResult jl_obj_write_lines(const char *path, int nvert, const double *x, int nseg, const int *seg, char *err,
                            size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
