/* Tetrahedral meshes: TetGen bridge (conforming and embedded modes) and
 * topology (unique edges, boundary faces, node adjacency in CSR).
 *
 * The C++ file mesh/tetgen_bridge.cpp is the only code that sees TetGen; it
 * exposes jl_tetgen_raw() below as a plain C function. jl_tetgen_build() does
 * everything else in C: embedded-mode Steiner points, tet filtering,
 * orientation normalisation and topology. */
#ifndef JL_MESH_TETMESH_H
#define JL_MESH_TETMESH_H

#include "mesh/surface.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum JlTetgenMode {
  JL_TETGEN_CONFORMING, /* -p: surface vertices are tet nodes (exact embedding) */
  JL_TETGEN_EMBEDDED,   /* lattice Steiner points + outer band, Delaunay (Zachmann's mass-spring lecture) */
  JL_TETGEN_MODE_COUNT
} JlTetgenMode;

typedef struct JlTetgenDef {
  JlTetgenMode mode; /* default JL_TETGEN_CONFORMING */
  double max_volume; /* m^3, upper bound on tet volume (-a); 0 = no bound. default 0 */
  double quality;    /* radius-edge ratio bound (-q); 0 = no quality refinement, else >= 1.1
                         (TetGen 1.5 may not terminate below). default 1.5 */
  int keep_surface;  /* conforming mode: 1 = TetGen -Y, the surface's vertices and triangles are the mesh's
                         boundary as they are (no Steiner points on it), so max_volume and quality are met only
                         as far as interior points can (the bisection after TetGen cuts interior edges only;
                         jl_tetmesh_check says what is missed). default 0 */
  double resolution; /* m, embedded lattice spacing; 0 = bbox diagonal / 12. default 0 */
  unsigned seed;     /* jitter seed of the embedded lattice. default 1 */
  int winding;       /* embedded mode: 1 = inside is |generalized winding number| >= 0.5 (mesh/winding.h),
                         for surfaces with holes, overlapping parts or non-manifold spots (the scene sets
                         it when jl_surface_validate found only such errors); 0 = +x ray parity, exact
                         for closed surfaces. default 0 */
} JlTetgenDef;

JlTetgenDef jl_default_tetgen_def(void);

typedef struct JlTetMesh {
  int nnode;
  int ntet;
  double *node; /* nnode x 3, metres */
  int *tet;     /* ntet x 4, positive signed volume */
  double *fill; /* ntet, fraction of each tet's volume inside the surface (embedded mode, where tets
                        overhang it; sums with the volumes to the surface's volume); NULL = every tet full */
  /* topology (jl_tetmesh_topology) */
  int nedge;
  int *edge; /* nedge x 2, edge[2e] < edge[2e+1], sorted lexicographically */
  int nface;
  int *face;      /* nface x 3 boundary faces, outward (counter-clockwise from outside) */
  int *adj_start; /* nnode + 1: CSR row starts of node adjacency */
  int *adj;       /* adj_start[nnode]: neighbour node ids, ascending per row */
  /* provenance (jl_tetgen_build) */
  int nbisect; /* edges bisected after TetGen to bring its tets within max_volume */
} JlTetMesh;

void jl_tetmesh_free(JlTetMesh *t);

/* Raw TetGen call (bridge). `switches` is a TetGen switch string (always
 * including Q). Points/triangles are the input PLC (ntri may be 0 for a pure
 * point set, e.g. "Q" Delaunay). On success fills nodes and tets (malloc'd,
 * caller frees with free()). Never prints, never exits: TetGen's thrown
 * errors become JL_ERR_INPUT with a message. */
JlResult jl_tetgen_raw(const char *switches, int npoint, const double *point, int ntri, const int *tri, int *out_nnode,
                       double **out_node, int *out_ntet, int **out_tet, char *err, size_t errsz);

/* Surface (already validated, ok == 1) -> tet mesh with topology. Rejects
 * zero-volume tets, flips negatively oriented ones. Conforming mode with a
 * max_volume: tets TetGen leaves above it are bisected (out->nbisect);
 * jl_tetmesh_check tells whether the bounds were met. */
JlResult jl_tetgen_build(const JlSurface *s, const JlTetgenDef *def, JlTetMesh *out, char *err, size_t errsz);

/* Bisects edges of t until no positively oriented tet is above max_volume
 * (m^3, > 0): each pass takes, for every such tet, the edge whose bisection
 * gives the best worst radius-edge ratio, and cuts every tet around it at its
 * midpoint (appended as a node), so the mesh stays conforming and its
 * boundary keeps its shape. Recomputes the topology if it was there. Returns
 * the number of edges bisected; stops early (tets left above the bound) only
 * at 32 passes or the element cap. jl_tetgen_build does it in conforming mode. */
int jl_tetmesh_bisect(JlTetMesh *t, double max_volume);

/* relative tolerances of the bounds: a tet counts as above max_volume when
 * its volume exceeds max_volume (1 + JL_TET_VOLUME_TOL), above quality when
 * its radius-edge ratio exceeds quality (1 + JL_TET_QUALITY_TOL) */
#define JL_TET_VOLUME_TOL  1e-9
#define JL_TET_QUALITY_TOL 1e-6
/* the radius-edge ratio Delaunay refinement guarantees (above 2, for input
 * without small angles; Shewchuk 1998); below it a quality bound is a target
 * TetGen usually reaches, and its sliver removal can leave a few tets a
 * little above it (1.5 asked, 1.76 got on a generated sphere) */
#define JL_TET_RATIO_GUARANTEE 2.0

/* How a conforming mesh meets its def's bounds. */
typedef struct JlTetCheck {
  double largest_volume; /* m^3 */
  int over_volume;       /* tets above def->max_volume; 0 without a bound */
  double largest_ratio;  /* largest radius-edge ratio (circumradius / shortest edge) */
  int over_quality;      /* tets above def->quality; 0 when quality is 0 (off) */
  int over_guarantee;    /* tets above max(def->quality, JL_TET_RATIO_GUARANTEE):
                            worth a warning; 0 when quality is 0 (off) */
} JlTetCheck;

/* Measures t against def's max_volume and quality. In embedded mode the
 * bounds do not apply (TetGen gets neither): the counts stay 0. */
void jl_tetmesh_check(const JlTetMesh *t, const JlTetgenDef *def, JlTetCheck *c);

/* Radius-edge ratio of tet (a, b, c, d): circumradius over shortest edge
 * (TetGen's -q measure; 0.612 for a regular tet); infinite for a flat tet. */
double jl_tet_radius_edge(const double *a, const double *b, const double *c, const double *d);

/* Renumbers nodes and tets along a 3D Hilbert curve through their positions
 * (centroids for tets) so that neighbours in the mesh are mostly neighbours in
 * memory; recomputes the topology if it was there. jl_tetgen_build does it. */
void jl_tetmesh_reorder(JlTetMesh *t);

/* (Re)computes edges, boundary faces and adjacency from node/tet. */
void jl_tetmesh_topology(JlTetMesh *t);

/* Signed volume of tet (a, b, c, d): positive when (b-a, c-a, d-a) is right-handed. */
double jl_tet_volume(const double *a, const double *b, const double *c, const double *d);

typedef struct JlTetQuality {
  double min_dihedral_deg, max_dihedral_deg;
  double volume_sum; /* m^3 */
  double min_volume; /* m^3 */
} JlTetQuality;
void jl_tetmesh_quality(const JlTetMesh *t, JlTetQuality *q);

#ifdef __cplusplus
}
#endif
#endif
