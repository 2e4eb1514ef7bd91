/* Who touches whom, and how hard (engine-internal).
 *
 * The contact element (src/contact.c) and the ground (src/ground.c) report the
 * normal loads of their contacts; the rolling resistance (src/rolling.c) and
 * the impact law (src/impact.c) gather them per pair of bodies. */
#ifndef JL_SRC_LOADS_H
#define JL_SRC_LOADS_H

#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One contact's normal load at the step's start: force (N, > 0) pushing
 * `body` along the unit n, applied at `at` (m), by a penalty of stiffness k
 * (N/m). other: another body's index, nbody + obstacle index, or
 * nbody + nobstacle for the ground plane. */
typedef void (*JlLoadFn)(void *ctx, int body, int other, double force, const double at[3], const double n[3], double k);

/* One load gathered from a JlLoadFn, for the elements that sum them per pair of bodies (src/rolling.c,
 * src/impact.c): body a, what it touches b, the order it came in (seq), force, point, normal, k. */
typedef struct JlLoad {
  int a, b, seq;
  double f, at[3], n[3], k;
} JlLoad;
/* qsort order of JlLoad: by (a, b), then seq (so sums over a pair do not depend on qsort) */
int jl_load_cmp(const void *p, const void *q);
/* The run of load[i..] of one pair (load[i].a, load[i].b) in a sorted array of n: its summed force *f
 * and stiffness *k (k may be NULL), the force-weighted sums of the points (at) and normals (nsum).
 * Returns the index after the run. */
int jl_load_pair(const JlLoad *load, int n, int i, double *f, double at[3], double nsum[3], double *k);

/* Index of the record of pair (a, b) in base[0, n), records of `size` bytes that begin with the two ints
 * a, b and are sorted by (a, b); -1 when there is none (the rolling anchors, the impacts). */
int jl_pair_find(const void *base, int n, size_t size, int a, int b);

/* The loads of the current contacts (the last begin_step) on volume bodies:
 * one call per contact and side. */
void jl_contact_loads(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx);
void jl_ground_loads(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx);
/* The same contacts' loads with their linear gaps at x instead of at detection (the ground's
 * are always at x): which pairs still touch at the end of a step (src/impact.c). */
void jl_contact_loads_at(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
