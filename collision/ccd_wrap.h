/* The only door to libccd (Fiser's GJK/EPA/MPR library).
 *
 * libccd must be its double-precision build: jl_ccd_check reports otherwise.
 * Every query sets max_iterations (JL_CCD_MAX_ITERATIONS) and uses MPR
 * (ccdMPRPenetration, ccdMPRIntersect), which does not allocate. A shape is
 * a JlConvex: a support function and a point inside (collision/obstacle.c
 * describes its boxes, spheres, capsules and hulls so); it knows nothing of
 * obstacles.
 * Answers are exact up to JL_CCD_TOLERANCE: MPR stops refining when the
 * portal is that close to the surface, so contacts shallower than it may be
 * missed. */
#ifndef JL_COLLISION_CCD_WRAP_H
#define JL_COLLISION_CCD_WRAP_H

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JL_CCD_MAX_ITERATIONS 100
/* m, MPR's portal tolerance (ccd_t.mpr_tolerance) */
#define JL_CCD_TOLERANCE 1e-9

/* A convex shape by its support function: support(obj, d, out) writes the
 * shape's point farthest along the direction d (world, not unit), center the
 * world position of a point inside it. */
typedef struct JlConvex {
  void (*support)(const void *obj, const double d[3], double out[3]);
  void (*center)(const void *obj, double out[3]);
  const void *obj;
} JlConvex;

/* JL_OK when libccd was built with double precision (sizeof(ccd_real_t) ==
 * sizeof(double)); JL_ERR_RUNTIME with a message otherwise. */
JlResult jl_ccd_check(char *err, size_t errsz);

/* Penetration of point p into the convex shape s by MPR: returns 1 when
 * inside, with *depth (m) and the unit direction dir that moves p out; 0
 * when outside (or if libccd reports no intersection). */
int jl_ccd_point_penetration(const JlConvex *s, const double p[3], double *depth, double dir[3]);

/* 1 when the segment a-b (m, world; a == b is a point) touches the convex
 * shape s (MPR intersection test). */
int jl_ccd_segment_overlap(const JlConvex *s, const double a[3], const double b[3]);

#ifdef __cplusplus
}
#endif
#endif
