/* Generalized winding number of a triangle surface (Jacobson, Kavan &
 * Sorkine-Hornung 2013), fast by a tree of triangle clusters with a dipole
 * far field (Barill et al. 2018, second order). The inside/outside test of
 * embedded mode for surfaces with holes, overlapping parts or non-manifold
 * spots (mesh/tetmesh_embed.c): w(p) is 1 inside a closed outward surface,
 * 0 outside, 2 where two closed parts overlap, and varies smoothly across a
 * hole, so "|w| >= 0.5" is a robust inside test where ray parity is not.
 * Accuracy and cost: docs/robustness.md. */
#ifndef JL_MESH_WINDING_H
#define JL_MESH_WINDING_H

#include "mesh/surface.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlWindingNode JlWindingNode;

typedef struct JlWinding {
  const JlSurface *s; /* not owned; must outlive the tree */
  int nnode;
  JlWindingNode *node; /* nnode; node 0 is the root */
  int *order;          /* ntri: triangles in cluster order (leaves are ranges) */
  double beta;         /* a cluster at more than beta x its radius is expanded; default 3 */
} JlWinding;

/* Builds the cluster tree over s's triangles (O(n log n)). */
void jl_winding_build(JlWinding *w, const JlSurface *s);
void jl_winding_free(JlWinding *w);
/* Winding number at p with the far field approximated. */
double jl_winding_number(const JlWinding *w, const double p[3]);
/* The exact sum of all triangles' solid angles / 4 pi (O(n), for tests). */
double jl_winding_number_exact(const JlSurface *s, const double p[3]);

#ifdef __cplusplus
}
#endif
#endif
