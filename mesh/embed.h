/* Barycentric embedding of a render surface in a tet mesh.
 *
 * Each surface vertex stores the tet that contains it and its four
 * barycentric weights (summing to 1). Vertices outside every tet (possible in
 * embedded mode) use the nearest tet with extrapolated weights. At rest the
 * embedded positions reproduce the input to 1e-12. */
#ifndef JL_MESH_EMBED_H
#define JL_MESH_EMBED_H

#include "mesh/tetmesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlEmbedding {
  int nvert;
  int *tet;       /* nvert: index into the tet mesh's tets */
  double *weight; /* nvert x 4 */
} JlEmbedding;

JlResult jl_embed_build(const JlTetMesh *t, const double *point, int npoint, JlEmbedding *out, char *err, size_t errsz);
void jl_embed_free(JlEmbedding *e);

/* out (npoint x 3) = sum_k weight_k * node_x[tet[tet_index][k] + node_offset].
 * `tet` is the tet connectivity (ntet x 4) the embedding was built on; node
 * ids are shifted by node_offset into node_x (the world's global array). */
void jl_embed_apply(const JlEmbedding *e, const int *tet, int node_offset, const double *node_x, double *out);

/* Area-weighted vertex normals of a triangle surface (unit length). */
void jl_surface_normals(int nvert, const double *vert, int ntri, const int *tri, double *normal);

#ifdef __cplusplus
}
#endif
#endif
