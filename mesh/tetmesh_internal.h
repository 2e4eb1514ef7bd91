/* What the parts of mesh/tetmesh.h share, private to them:
 *   tetmesh.c           jl_tetgen_build (checks, conforming mode, orientation,
 *                       unused nodes), the size estimate, jl_tet_volume;
 *   tetmesh_embed.c     embedded mode (jittered BCC lattice, inside test,
 *                       tet/triangle overlap, fill fractions);
 *   tetmesh_bisect.c    bisection of tets above max_volume;
 *   tetmesh_topology.c  edges, boundary faces, adjacency, quality and
 *                       jl_tetmesh_check.
 * Not included outside these files. */
#ifndef JL_MESH_TETMESH_INTERNAL_H
#define JL_MESH_TETMESH_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "mesh/tetmesh.h"

/* the six edges of a tet as corner pairs */
static const int tet_edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

/* ascending order of 64-bit keys (edge keys: min node << 32 | max node) */
static inline int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* bounding box of n points x (n x 3); 0 for n == 0 */
static inline void bbox_of(int n, const double *x, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    lo[k] = n > 0 ? x[k] : 0.0;
    hi[k] = lo[k];
  }
  for (int i = 1; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], x[3 * i + k]);
      hi[k] = fmax(hi[k], x[3 * i + k]);
    }
}

/* tetmesh.c: rejects a request whose ntet tets cannot fit the element cap or
 * the child's memory limit before TetGen starts; what names the setting */
JlResult jl_tetmesh_check_estimate(double ntet, const char *what, char *err, size_t errsz);

/* tetmesh_embed.c: embedded mode's nodes, tets and fill fractions (malloc'd) */
JlResult jl_tetmesh_build_embedded(const JlSurface *s, const JlTetgenDef *def, int *nnode, double **node, int *ntet,
                                   int **tet, double **fill_out, char *err, size_t errsz);

/* tetmesh_bisect.c: bisects tets above max_volume in place; returns the edges bisected */
/* The boundary faces (faces of exactly one tet, in that tet's outward order)
 * of tets tet[0..ntet) into *face (malloc'd, 3 per face); returns their
 * number. jl_tetmesh_topology's boundary, on raw arrays. */
int jl_tet_boundary_faces(const int *tet, int ntet, int **face);

int jl_tetmesh_bisect_large(int *nnode, double **node, int *ntet, int **tet, double max_volume, int keep_boundary);

#endif
