/* The only door to libccd (Fiser's GJK/EPA/MPR library).
 *
 * libccd must be its double-precision build: jl_ccd_check reports otherwise.
 * Every query sets max_iterations (JL_CCD_MAX_ITERATIONS) and uses MPR
 * (ccdMPRPenetration, ccdMPRIntersect), which does not allocate. Shapes are
 * JlObstacles described by their support functions (box, sphere, capsule,
 * hull); planes are never passed here (every function returns 0 for them).
 * Answers are exact up to JL_CCD_TOLERANCE: MPR stops refining when the
 * portal is that close to the surface, so contacts shallower than it may be
 * missed. */
#ifndef JL_COLLISION_CCD_WRAP_H
#define JL_COLLISION_CCD_WRAP_H

#include "collision/obstacle.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JL_CCD_MAX_ITERATIONS 100
/* m, MPR's portal tolerance (ccd_t.mpr_tolerance) */
#define JL_CCD_TOLERANCE 1e-9

/* JL_OK when libccd was built with double precision (sizeof(ccd_real_t) ==
 * sizeof(double)); JL_ERR_RUNTIME with a message otherwise. */
JlResult jl_ccd_check(char *err, size_t errsz);

/* Penetration of point p into the convex obstacle o (not a plane) by MPR:
 * returns 1 when inside, with *depth (m) and the unit direction dir that
 * moves p out; 0 when outside (or if libccd reports no intersection). */
int jl_ccd_point_penetration(const JlObstacle *o, const double p[3], double *depth, double dir[3]);

/* 1 when the tetrahedron (4 points, m) and obstacle o overlap (MPR). */
int jl_ccd_tet_overlap(const JlObstacle *o, const double *a, const double *b, const double *c,
                       const double *d);

/* 1 when the segment a-b (m, world; a == b is a point) touches obstacle o
 * (MPR intersection test). */
int jl_ccd_segment_overlap(const JlObstacle *o, const double a[3], const double b[3]);

#ifdef __cplusplus
}
#endif
#endif
