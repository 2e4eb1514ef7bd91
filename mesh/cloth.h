/* Cloth and rope topology: point masses and springs without tets.
 *
 * A JlClothMesh is what src/model_cloth.c turns into a cloth or rope body:
 * nodes, the area (cloth) or length (rope) each node stands for (masses are
 * that measure times an areal or linear density), the render triangles
 * (cloth only) and springs tagged by kind. Three generators:
 *
 *  - jl_cloth_grid: an nx x ny cell grid in the x-y plane (normal +z), the
 *    mass-spring cloth of Provot 1995 as drawn in the MIT 6.837
 *    mass-spring lecture and Zhu, Zhou & Yu sec. 2.1: structural springs (i,j)-(i+1,j) and
 *    (i,j)-(i,j+1), shear springs along both cell diagonals, flexion springs
 *    (i,j)-(i+2,j) and (i,j)-(i,j+2).
 *  - jl_cloth_chain: a rope or hair strand of n segments along -y from the
 *    origin, structural springs n-n+1 and bending springs n-n+2 with rest
 *    length 2 L0 (the MIT 6.837 lecture's "Hair", after Selle et al. 2008).
 *  - jl_cloth_from_surface: any (open or closed) manifold triangle mesh as
 *    in Kauppila sec. 1.1 (after Baraff & Witkin 1998): a stretch spring on
 *    every edge, a bend spring between the two opposite vertices of every
 *    interior edge's two triangles; node areas are one third of the areas
 *    of the triangles around the node.
 *
 * Every rest length comes later from the node positions (src/model_cloth.c),
 * so generators only fix topology and geometry. */
#ifndef JL_MESH_CLOTH_H
#define JL_MESH_CLOTH_H

#include "mesh/surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a spring models; each kind has its own stiffness in a scene. */
typedef enum JlSpringKind {
  JL_SPRING_STRETCH, /* structural: mesh edges, grid rows/columns, rope segments */
  JL_SPRING_SHEAR,   /* grid cell diagonals */
  JL_SPRING_BEND,    /* flexion: across an edge, two cells apart, n to n+2 on a rope */
  JL_SPRING_KIND_COUNT
} JlSpringKind;

typedef struct JlClothMesh {
  int nnode;
  double *node;    /* nnode x 3, m */
  double *measure; /* nnode: m^2 of cloth (or m of rope) each node carries */
  int ntri;
  int *tri; /* ntri x 3, counter-clockwise seen from the +normal side; 0 for ropes */
  int nspring;
  int *spring;         /* nspring x 2, node ids */
  unsigned char *kind; /* nspring, JlSpringKind */
} JlClothMesh;

/* A width x height (m) sheet of nx x ny cells centred at the origin in the
 * x-y plane: node (i, j) (0 <= i <= nx along x, 0 <= j <= ny along y, j = ny
 * the top row) is id i + (nx + 1) j. Each cell is split into two triangles
 * along its (i,j)-(i+1,j+1) diagonal. Fails for sizes <= 0 or cells < 1. */
JlResult jl_cloth_grid(JlClothMesh *c, double width, double height, int nx, int ny, char *err, size_t errsz);

/* A rope of `segments` equal segments, length m long, from the origin
 * (node 0, the root) down to (0, -length, 0). Fails for length <= 0 or
 * segments < 1. */
JlResult jl_cloth_chain(JlClothMesh *c, double length, int segments, char *err, size_t errsz);

/* Cloth from a triangle surface (copied). Fails, naming `name`, for an
 * empty surface, out-of-range indices, degenerate triangles or an edge
 * shared by more than two triangles. Open boundaries are allowed. */
JlResult jl_cloth_from_surface(JlClothMesh *c, const JlSurface *s, const char *name, char *err, size_t errsz);

/* Springs of kind k. */
int jl_cloth_count(const JlClothMesh *c, JlSpringKind k);

void jl_cloth_free(JlClothMesh *c);

#ifdef __cplusplus
}
#endif
#endif
