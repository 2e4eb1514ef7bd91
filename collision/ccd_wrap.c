/* libccd wrapper (collision/ccd_wrap.h).
 *
 * Support functions in world coordinates: for a shape with rotation R and
 * translation t, support(d) = t + R support_local(R^T d). Box: the corner
 * sign(d_i) h_i; sphere: r d/|d|; capsule: the end cap centre on the side of
 * d plus r d/|d|; hull: the point with the largest dot product (linear scan,
 * fine for the tens to hundreds of points of a convex obstacle). The second
 * object is the convex hull of up to four points: a point, a segment (a
 * node's path over a step) or a tetrahedron. MPR (Snethen, Game Programming
 * Gems 7; libccd's ccdMPRPenetration) returns the depth and the direction
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

/* local support of an obstacle in local direction d */
static void support_local(const JlObstacle *o, const double *d, double *out) {
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double u[3] = {0, 0, 0};
  if (len > 0) u[0] = d[0] / len, u[1] = d[1] / len, u[2] = d[2] / len;
  switch (o->type) {
    case JL_OBSTACLE_BOX:
      for (int k = 0; k < 3; k++) out[k] = (d[k] >= 0 ? 0.5 : -0.5) * o->size[k];
      break;
    case JL_OBSTACLE_SPHERE:
      for (int k = 0; k < 3; k++) out[k] = o->radius * u[k];
      break;
    case JL_OBSTACLE_CAPSULE:
      for (int k = 0; k < 3; k++) out[k] = o->radius * u[k];
      out[1] += (d[1] >= 0 ? 0.5 : -0.5) * o->length;
      break;
    case JL_OBSTACLE_HULL: {
      memcpy(out, jl_obstacle_hull_support(o, d), 3 * sizeof(double));
      break;
    }
    default:
      out[0] = out[1] = out[2] = 0.0;
  }
}

static void obstacle_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec) {
  const JlObstacle *o = obj;
  const double *R = o->rot;
  double d[3], q[3];
  for (int c = 0; c < 3; c++) d[c] = R[c] * dir->v[0] + R[3 + c] * dir->v[1] + R[6 + c] * dir->v[2];
  support_local(o, d, q);
  for (int r = 0; r < 3; r++) vec->v[r] = R[3 * r] * q[0] + R[3 * r + 1] * q[1] + R[3 * r + 2] * q[2] + o->translate[r];
}

static void obstacle_center(const void *obj, ccd_vec3_t *c) {
  const JlObstacle *o = obj;
  double m[3] = {0, 0, 0};
  if (o->type == JL_OBSTACLE_HULL && o->npoint > 0) {
    for (int i = 0; i < o->npoint; i++)
      for (int k = 0; k < 3; k++) m[k] += o->point[3 * i + k] / o->npoint;
  }
  for (int r = 0; r < 3; r++) c->v[r] = o->rot[3 * r] * m[0] + o->rot[3 * r + 1] * m[1] + o->rot[3 * r + 2] * m[2] + o->translate[r];
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
  ccd->support1 = obstacle_support;
  ccd->center1 = obstacle_center;
  ccd->support2 = points_support;
  ccd->center2 = points_center;
  ccd->max_iterations = JL_CCD_MAX_ITERATIONS;
  ccd->mpr_tolerance = JL_CCD_TOLERANCE;
}

/* MPR penetration of s into o: 1 with depth and unit dir when they overlap */
static int penetration(const JlObstacle *o, const Points *s, double *depth, double dir[3]) {
  if (sizeof(ccd_real_t) != sizeof(double) || o->type == JL_OBSTACLE_PLANE) return 0;
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

static int intersect(const JlObstacle *o, const Points *s) {
  if (sizeof(ccd_real_t) != sizeof(double) || o->type == JL_OBSTACLE_PLANE) return 0;
  ccd_t ccd;
  setup(&ccd);
  return ccdMPRIntersect(o, s, &ccd) != 0;
}

int jl_ccd_point_penetration(const JlObstacle *o, const double p[3], double *depth, double dir[3]) {
  Points pt = {1, {p, p, p, p}};
  return penetration(o, &pt, depth, dir);
}

int jl_ccd_tet_overlap(const JlObstacle *o, const double *a, const double *b, const double *c,
                       const double *d) {
  Points t = {4, {a, b, c, d}};
  return intersect(o, &t);
}

int jl_ccd_segment_overlap(const JlObstacle *o, const double a[3], const double b[3]) {
  Points s = {2, {a, b, b, b}};
  return intersect(o, &s);
}
