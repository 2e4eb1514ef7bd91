/* libccd wrapper (collision/ccd_wrap.h).
 *
 * The first object is a JlConvex (its support function and a point inside;
 * collision/obstacle.c gives them for its shapes), the second the convex hull
 * of up to four points: a point or a segment (a node's path over a step).
 * MPR (Snethen, Game Programming Gems 7; libccd's ccdMPRPenetration)
 * returns the depth and the direction
 * that moves the second object out of the first; ccdMPRIntersect only answers
 * yes/no. Both stop refining once the portal is within JL_CCD_TOLERANCE
 * (1e-9 m) of the Minkowski difference's surface, so an overlap shallower than
 * that may be reported as none. libccd 2.1 has no distance query and no ray
 * cast: a path's first contact is found by the caller (collision/obstacle.c)
 * by bisection on segment overlaps. */
#include "collision/ccd_wrap.h"

#include <ccd/ccd.h>
#include <math.h>
#include <string.h>

JlResult jl_ccd_check(char *err, size_t errsz) {
  if (sizeof(ccd_real_t) != sizeof(double))
    return jl_fail(err, errsz, JL_ERR_SYSTEM,
                   "libccd is a single-precision build (ccd_real_t has %d bytes); Jelly needs CCD_DOUBLE",
                   (int)sizeof(ccd_real_t));
  return JL_OK;
}

static void convex_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec) {
  const JlConvex *c = obj;
  double d[3] = {dir->v[0], dir->v[1], dir->v[2]}, out[3];
  c->support(c->obj, d, out);
  for (int k = 0; k < 3; k++) vec->v[k] = out[k];
}

static void convex_center(const void *obj, ccd_vec3_t *cv) {
  const JlConvex *c = obj;
  double out[3];
  c->center(c->obj, out);
  for (int k = 0; k < 3; k++) cv->v[k] = out[k];
}

/* the second object: the convex hull of up to 4 points (a point, a segment, a tetrahedron) */
typedef struct Points {
  int n;
  const double *p[4];
} Points;

static void points_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec) {
  const Points *s = obj;
  int best = 0;
  double bd = -INFINITY;
  for (int i = 0; i < s->n; i++) {
    double v = s->p[i][0] * dir->v[0] + s->p[i][1] * dir->v[1] + s->p[i][2] * dir->v[2];
    if (v > bd) bd = v, best = i;
  }
  for (int k = 0; k < 3; k++) vec->v[k] = s->p[best][k];
}

static void points_center(const void *obj, ccd_vec3_t *c) {
  const Points *s = obj;
  for (int k = 0; k < 3; k++) {
    double m = 0;
    for (int i = 0; i < s->n; i++) m += s->p[i][k];
    c->v[k] = m / s->n;
  }
}

static void setup(ccd_t *ccd) {
  CCD_INIT(ccd);
  ccd->support1 = convex_support;
  ccd->center1 = convex_center;
  ccd->support2 = points_support;
  ccd->center2 = points_center;
  ccd->max_iterations = JL_CCD_MAX_ITERATIONS;
  ccd->mpr_tolerance = JL_CCD_TOLERANCE;
}

/* MPR penetration of s into o: 1 with depth and unit dir when they overlap */
static int penetration(const JlConvex *o, const Points *s, double *depth, double dir[3]) {
  if (sizeof(ccd_real_t) != sizeof(double)) return 0;
  ccd_t ccd;
  setup(&ccd);
  ccd_real_t dep = 0;
  ccd_vec3_t dv, pos;
  if (ccdMPRPenetration(o, s, &ccd, &dep, &dv, &pos) != 0) return 0;
  double len = sqrt(dv.v[0] * dv.v[0] + dv.v[1] * dv.v[1] + dv.v[2] * dv.v[2]);
  if (!(len > 0) || !isfinite(dep)) return 0;
  *depth = dep;
  for (int k = 0; k < 3; k++) dir[k] = dv.v[k] / len;
  return 1;
}

static int intersect(const JlConvex *o, const Points *s) {
  if (sizeof(ccd_real_t) != sizeof(double)) return 0;
  ccd_t ccd;
  setup(&ccd);
  return ccdMPRIntersect(o, s, &ccd) != 0;
}

int jl_ccd_point_penetration(const JlConvex *o, const double p[3], double *depth, double dir[3]) {
  Points pt = {1, {p, p, p, p}};
  return penetration(o, &pt, depth, dir);
}

int jl_ccd_segment_overlap(const JlConvex *o, const double a[3], const double b[3]) {
  Points s = {2, {a, b, b, b}};
  return intersect(o, &s);
}
