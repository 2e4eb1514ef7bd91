/* Closed triangle surfaces: import (assimp), validation and repair.
 *
 * A JlSurface is the input of tetrahedralization and, unchanged, the render
 * surface that is embedded in the tets. Import goes through assimp's C API so
 * every format assimp reads works (OBJ, OFF, STL, PLY, glTF, ...); all meshes
 * of a file are merged into one surface and vertices that assimp split at
 * normal/UV seams are welded back by exact position.
 *
 * Validation (jl_surface_validate) reports every problem with a count and the
 * first offending element, and decides whether TetGen may see the surface. */
#ifndef JL_MESH_SURFACE_H
#define JL_MESH_SURFACE_H

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlSurface {
  int nvert;
  int ntri;
  double *vert; /* nvert x 3, metres (after the scene's transform) */
  int *tri;     /* ntri x 3, counter-clockwise seen from outside */
} JlSurface;

/* The most vertices and triangles of one surface given as arrays (the C API's
 * jelly_model_add_body, a scene's inline "mesh"): what a surface of a few
 * hundred MB holds. */
#define JL_SURFACE_MAX_VERTICES  10000000
#define JL_SURFACE_MAX_TRIANGLES 20000000

void jl_surface_free(JlSurface *s);
/* Deep copy; dst is overwritten (not freed first). */
void jl_surface_copy(JlSurface *dst, const JlSurface *src);

/* Reads any format assimp supports, in a guarded child process under the
 * limits of mesh/child.h. Fails with JL_ERR_INPUT and a message naming the
 * file for unreadable files, 0-byte files, files over the size limit, headers
 * promising more than the file holds, files with no triangles, files assimp
 * rejects, and an importer that crashes, times out or needs more memory than
 * the limit ("crashed in the importer (signal 11, ...)", "the importer took
 * longer than 60 s", "the importer needed more than 8192 MB"). Merges all meshes, welds exactly coincident
 * vertices. Does not validate: call jl_surface_validate. */
JlResult jl_surface_load(const char *path, JlSurface *out, char *err, size_t errsz);

/* Signed volume (divergence theorem; positive for outward-oriented closed
 * surfaces), m^3. */
double jl_surface_volume(const JlSurface *s);
void jl_surface_bbox(const JlSurface *s, double lo[3], double hi[3]);

typedef enum JlSeverity {
  JL_SEV_INFO,    /* reported, harmless (several components, welded vertices) */
  JL_SEV_WARNING, /* repaired (inside-out surface flipped) */
  JL_SEV_ERROR,   /* blocks tetrahedralization */
  JL_SEV_COUNT
} JlSeverity;

typedef struct JlFinding {
  JlSeverity severity;
  int count;      /* how many elements have the problem */
  int imperfect;  /* 1: an error embedded mode tolerates (a scan imperfection, see JlMeshReport) */
  char text[240]; /* e.g. "3 boundary edges in 1 hole (sizes 3); first edge 4-7" */
} JlFinding;

#define JL_MAX_FINDINGS 24

typedef struct JlMeshReport {
  int nvert, ntri; /* after welding and removal of degenerate triangles */
  int ncomponent;
  double volume; /* m^3, after any flip */
  double bbox_lo[3], bbox_hi[3];
  int nfinding;
  JlFinding finding[JL_MAX_FINDINGS];
  int ok;         /* 1 when no JL_SEV_ERROR finding: TetGen may run */
  int embeddable; /* 1 when every JL_SEV_ERROR finding is imperfect: holes, non-manifold edges or
                           vertices, inconsistent orientation, self-intersections. Embedded mode can still
                           tell inside from outside there (generalized winding number, mesh/winding.h) */
} JlMeshReport;

/* Checks and repairs s in place: welds duplicate vertices within a relative
 * tolerance (1e-9 x bounding-box diagonal), flips an inside-out surface, and
 * reports empty input, NaN/Inf coordinates, coordinates beyond 1e100,
 * out-of-range indices, degenerate triangles, holes (boundary loops and their
 * sizes), non-manifold edges and vertices (bowties), inconsistent
 * orientation, self-intersections and components. Never crashes on any
 * input; time and memory grow about linearly with the triangles. `name` is
 * used in messages (file path or body name). */
void jl_surface_validate(JlSurface *s, const char *name, JlMeshReport *report);

/* One line per JL_SEV_ERROR finding into err, for "cannot tetrahedralize". */
void jl_report_errors(const JlMeshReport *r, const char *name, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
