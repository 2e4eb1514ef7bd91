/* What the two halves of mesh/validate (jl_surface_validate, mesh/surface.h)
 * share, private to them: validate.c runs the steps and holds steps 1-6
 * (indices, coordinates, weld, degenerate triangles, edge topology,
 * components, orientation), validate_intersect.c step 7 (self-
 * intersections). Not included outside these files. */
#ifndef JL_MESH_VALIDATE_INTERNAL_H
#define JL_MESH_VALIDATE_INTERNAL_H

#include <math.h>

#include "mesh/surface.h"

/* Appends a finding (printf-style text) to r; an error also clears r->ok.
 * Findings beyond JL_MAX_FINDINGS are dropped; r->ok still falls. */
void jl_validate_finding(JlMeshReport *r, JlSeverity sev, int count, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The same for an error that embedded mode tolerates (holes, non-manifold
 * spots, inconsistent orientation, self-intersections): finding.imperfect
 * is set and r->embeddable stays. */
void jl_validate_imperfection(JlMeshReport *r, int count, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;


/* Step 7 (validate_intersect.c): reports the triangle pairs of s that
 * intersect (one error finding with the count and the first pair); lo, hi is
 * the surface's bounding box. */
void jl_validate_self_intersections(const JlSurface *s, const double lo[3], const double hi[3], JlMeshReport *r);

#endif
