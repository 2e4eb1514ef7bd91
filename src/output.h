/* Output writers: VTK unstructured grids (.vtu + .pvd index) for ParaView,
 * Wavefront OBJ surfaces for Blender. Deterministic: the same numbers always
 * give the same bytes (%.17g, no timestamps). */
#ifndef JL_SRC_OUTPUT_H
#define JL_SRC_OUTPUT_H

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlVtuField {
  const char *name;   /* e.g. "velocity" */
  int ncomp;          /* 1 or 3 */
  int on_cells;       /* 0: one value per node, 1: one per tet */
  const double *data; /* (nnode or ntet) x ncomp */
} JlVtuField;

/* Tet mesh (VTK_TETRA) with point/cell data fields. */
JlResult jl_vtu_write(const char *path, int nnode, const double *x, int ntet,
                      const int *tet, int nfield, const JlVtuField *field,
                      char *err, size_t errsz);

/* ParaView collection: nfile entries (timestep time[i], file[i] relative to
 * the .pvd's folder). */
JlResult jl_pvd_write(const char *path, int nfile, const double *time,
                      const char *const *file, char *err, size_t errsz);

/* Triangle surface as OBJ with vertex normals (normal may be NULL). */
JlResult jl_obj_write(const char *path, int nvert, const double *x,
                      const double *normal, int ntri, const int *tri,
                      char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
