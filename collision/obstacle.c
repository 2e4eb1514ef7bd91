/* Static convex obstacles (collision/obstacle.h).
 *
 * Points are mapped into the obstacle's frame (q = R^T (p - t)) and tested
 * in closed form: plane (depth -q_y, direction the plane normal), box (the
 * nearest face: depth min_i (h_i - |q_i|)), sphere and capsule (radius minus
 * the distance to the centre point / axis segment, direction away from it).
 * Hulls go through libccd's Minkowski Portal Refinement (collision/ccd_wrap.c),
 * which needs only the hull's support function, so the hull's faces are never
 * built.
 *
 * jl_obstacle_query extends this to a signed distance up to a margin outside:
 * the closest point on a box is q clamped to it (Ericson, Real-Time Collision
 * Detection, 5.1.3), and a box can be told which face to measure against, so
 * the contact element can keep the face a node entered through instead of
 * flipping to the nearest one near a rim. Outside a hull, GJK (Gilbert,
 * Johnson and Keerthi 1988; Ericson 9.5) on the same support function finds
 * the closest point; MPR gives depth and direction only inside, and along its
 * centre ray rather than the shortest way, which near a corner can be tens of
 * degrees off for a point just outside.
 *
 * jl_obstacle_sweep tests a node's straight path over a step, for speculative
 * contacts (Box2D v3: a contact is created for a gap that the step may close,
 * and the solver only activates it if it does): slab clipping for boxes
 * (Ericson 5.3.3), ray-sphere (5.3.2) for spheres and capsule caps, the ray
 * against the infinite cylinder for the capsule's side, and for hulls
 * bisection on libccd's MPR overlap test of the path's prefix: exact to the
 * tolerance, never sampled, so a fast node cannot step over a thin hull.
 * Trade-off: a hull sweep costs about 25 MPR tests (bisection down to 1e-9 m
 * on a path of a few cm to a few dm); analytic types cost a few dozen flops. */
#include "collision/obstacle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/ccd_wrap.h"
#include "mesh/vec3.h"

/* Support functions for libccd (collision/ccd_wrap.h), in world coordinates: for a shape with rotation R and
 * translation t, support(d) = t + R support_local(R^T d). Box: the corner sign(d_i) h_i; sphere: r d/|d|;
 * capsule: the end cap centre on the side of d plus r d/|d|; hull: the point with the largest dot product
 * (jl_obstacle_hull_support: a linear scan, fine for the tens to hundreds of points of a convex obstacle). */
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
    case JL_OBSTACLE_HULL:
      memcpy(out, jl_obstacle_hull_support(o, d), 3 * sizeof(double));
      break;
    default:
      out[0] = out[1] = out[2] = 0.0;
  }
}

static void convex_support(const void *obj, const double dir[3], double out[3]) {
  const JlObstacle *o = obj;
  const double *R = o->rot;
  double d[3], q[3];
  for (int c = 0; c < 3; c++) d[c] = R[c] * dir[0] + R[3 + c] * dir[1] + R[6 + c] * dir[2];
  support_local(o, d, q);
  for (int r = 0; r < 3; r++) out[r] = R[3 * r] * q[0] + R[3 * r + 1] * q[1] + R[3 * r + 2] * q[2] + o->translate[r];
}

static void convex_center(const void *obj, double out[3]) {
  const JlObstacle *o = obj;
  double m[3] = {0, 0, 0};
  if (o->type == JL_OBSTACLE_HULL && o->npoint > 0) {
    for (int i = 0; i < o->npoint; i++)
      for (int k = 0; k < 3; k++) m[k] += o->point[3 * i + k] / o->npoint;
  }
  for (int r = 0; r < 3; r++)
    out[r] = o->rot[3 * r] * m[0] + o->rot[3 * r + 1] * m[1] + o->rot[3 * r + 2] * m[2] + o->translate[r];
}

/* MPR queries on obstacle o (never a plane: 0) */
static int ccd_point(const JlObstacle *o, const double p[3], double *depth, double dir[3]) {
  JlConvex c = {convex_support, convex_center, o};
  return o->type != JL_OBSTACLE_PLANE && jl_ccd_point_penetration(&c, p, depth, dir);
}
static int ccd_segment(const JlObstacle *o, const double a[3], const double b[3]) {
  JlConvex c = {convex_support, convex_center, o};
  return o->type != JL_OBSTACLE_PLANE && jl_ccd_segment_overlap(&c, a, b);
}

JlObstacle jl_default_obstacle(void) {
  JlObstacle o;
  memset(&o, 0, sizeof o);
  o.type = JL_OBSTACLE_BOX;
  o.size[0] = o.size[1] = o.size[2] = 1.0;
  o.radius = 0.5;
  o.length = 1.0;
  o.rot[0] = o.rot[4] = o.rot[8] = 1.0;
  return o;
}

static const char *const type_names[JL_OBSTACLE_COUNT] = {"plane", "box", "sphere", "capsule", "hull"};

const char *jl_obstacle_type_name(JlObstacleType t) { return (t >= 0 && t < JL_OBSTACLE_COUNT) ? type_names[t] : NULL; }

JlObstacleType jl_obstacle_type_parse(const char *name) {
  return (JlObstacleType)jl_name_index(type_names, JL_OBSTACLE_COUNT, name);
}

void jl_obstacle_set_rotation(JlObstacle *o, const double rotate_deg[3]) {
  /* R = Rz Ry Rx, as jl_transform_points */
  const double d2r = acos(-1.0) / 180.0;
  double cx = cos(rotate_deg[0] * d2r), sx = sin(rotate_deg[0] * d2r);
  double cy = cos(rotate_deg[1] * d2r), sy = sin(rotate_deg[1] * d2r);
  double cz = cos(rotate_deg[2] * d2r), sz = sin(rotate_deg[2] * d2r);
  double R[9] = {cz * cy,
                 cz * sy * sx - sz * cx,
                 cz * sy * cx + sz * sx,
                 sz * cy,
                 sz * sy * sx + cz * cx,
                 sz * sy * cx - cz * sx,
                 -sy,
                 cy * sx,
                 cy * cx};
  memcpy(o->rot, R, sizeof R);
}

void jl_obstacle_copy(JlObstacle *dst, const JlObstacle *src) {
  *dst = *src;
  dst->point = NULL;
  if (src->npoint > 0 && src->point) {
    dst->point = jl_calloc(3 * (size_t)src->npoint, sizeof(double));
    memcpy(dst->point, src->point, 3 * (size_t)src->npoint * sizeof(double));
  } else {
    dst->npoint = 0;
  }
}

void jl_obstacle_free(JlObstacle *o) {
  if (!o) return;
  free(o->point);
  o->point = NULL;
  o->npoint = 0;
}

/* world = R q + t and q = R^T (p - t) */
static void to_world_dir(const JlObstacle *o, const double *q, double *p) {
  for (int r = 0; r < 3; r++) p[r] = o->rot[3 * r] * q[0] + o->rot[3 * r + 1] * q[1] + o->rot[3 * r + 2] * q[2];
}

static int finite3(const double *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }


static void to_local_dir(const JlObstacle *o, const double *d, double *q) {
  for (int c = 0; c < 3; c++) q[c] = o->rot[c] * d[0] + o->rot[3 + c] * d[1] + o->rot[6 + c] * d[2];
}

static void to_local(const JlObstacle *o, const double *p, double *q) {
  double d[3] = {p[0] - o->translate[0], p[1] - o->translate[1], p[2] - o->translate[2]};
  to_local_dir(o, d, q);
}

void jl_obstacle_aabb(const JlObstacle *o, double lo[3], double hi[3]) {
  double ext[3] = {0, 0, 0};
  switch (o->type) {
    case JL_OBSTACLE_PLANE: {
      /* the half-space below the plane: bounded only along axes where the normal is exactly +-axis */
      double n[3], e[3] = {0, 1, 0};
      to_world_dir(o, e, n);
      for (int k = 0; k < 3; k++) {
        lo[k] = -1e30;
        hi[k] = 1e30;
      }
      for (int k = 0; k < 3; k++)
        if (fabs(n[k]) > 1.0 - 1e-12) {
          if (n[k] > 0)
            hi[k] = o->translate[k];
          else
            lo[k] = o->translate[k];
        }
      return;
    }
    case JL_OBSTACLE_BOX:
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) ext[r] += fabs(o->rot[3 * r + c]) * 0.5 * o->size[c];
      break;
    case JL_OBSTACLE_SPHERE:
      ext[0] = ext[1] = ext[2] = o->radius;
      break;
    case JL_OBSTACLE_CAPSULE:
      for (int r = 0; r < 3; r++) ext[r] = fabs(o->rot[3 * r + 1]) * 0.5 * o->length + o->radius;
      break;
    case JL_OBSTACLE_HULL: {
      for (int k = 0; k < 3; k++) {
        lo[k] = 1e30;
        hi[k] = -1e30;
      }
      for (int i = 0; i < o->npoint; i++) {
        double w[3];
        to_world_dir(o, o->point + 3 * i, w);
        for (int k = 0; k < 3; k++) {
          double v = w[k] + o->translate[k];
          lo[k] = v < lo[k] ? v : lo[k];
          hi[k] = v > hi[k] ? v : hi[k];
        }
      }
      return;
    }
    default:
      break;
  }
  for (int k = 0; k < 3; k++) {
    lo[k] = o->translate[k] - ext[k];
    hi[k] = o->translate[k] + ext[k];
  }
}

double jl_obstacle_support(const JlObstacle *o, const double n[3]) {
  double nl[3];
  if (!finite3(n)) return INFINITY;
  to_local_dir(o, n, nl);
  double len = sqrt(jl_vec3_dot(nl, nl)), h;
  switch (o->type) {
    case JL_OBSTACLE_PLANE: /* solid below local y = 0: bounded only along +y */
      if (nl[0] != 0.0 || nl[2] != 0.0 || nl[1] < 0.0) return INFINITY;
      h = 0.0;
      break;
    case JL_OBSTACLE_BOX:
      h = 0.5 * (fabs(nl[0]) * o->size[0] + fabs(nl[1]) * o->size[1] + fabs(nl[2]) * o->size[2]);
      break;
    case JL_OBSTACLE_SPHERE:
      h = o->radius * len;
      break;
    case JL_OBSTACLE_CAPSULE:
      h = 0.5 * o->length * fabs(nl[1]) + o->radius * len;
      break;
    case JL_OBSTACLE_HULL:
      if (o->npoint <= 0 || !o->point) return -INFINITY; /* empty */
      h = jl_vec3_dot(nl, jl_obstacle_hull_support(o, nl));
      break;
    default:
      return INFINITY;
  }
  return h + jl_vec3_dot(n, o->translate);
}

double jl_obstacle_width(const JlObstacle *o, const double n[3]) {
  double len = finite3(n) ? sqrt(jl_vec3_dot(n, n)) : 0.0;
  if (!(len > 0.0)) return INFINITY;
  double neg[3] = {-n[0], -n[1], -n[2]}, w = (jl_obstacle_support(o, n) + jl_obstacle_support(o, neg)) / len;
  return isnan(w) ? 0.0 : w; /* an empty hull */
}

/* depth and outward direction from the distance to a centre point c (local) */
static int round_shape(const JlObstacle *o, const double *q, const double *c, double *depth, double *dir) {
  double d[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(len < o->radius)) return 0;
  double n[3] = {0, 1, 0};
  if (len > 0) n[0] = d[0] / len, n[1] = d[1] / len, n[2] = d[2] / len;
  *depth = o->radius - len;
  to_world_dir(o, n, dir);
  return 1;
}

int jl_obstacle_penetration(const JlObstacle *o, const double p[3], double *depth, double dir[3]) {
  double q[3];
  to_local(o, p, q);
  switch (o->type) {
    case JL_OBSTACLE_PLANE: {
      if (!(q[1] < 0.0)) return 0;
      double n[3] = {0, 1, 0};
      *depth = -q[1];
      to_world_dir(o, n, dir);
      return 1;
    }
    case JL_OBSTACLE_BOX: {
      int axis = -1;
      double best = INFINITY;
      for (int k = 0; k < 3; k++) {
        double gap = 0.5 * o->size[k] - fabs(q[k]);
        if (!(gap > 0.0)) return 0;
        if (gap < best) best = gap, axis = k;
      }
      double n[3] = {0, 0, 0};
      n[axis] = q[axis] >= 0 ? 1.0 : -1.0;
      *depth = best;
      to_world_dir(o, n, dir);
      return 1;
    }
    case JL_OBSTACLE_SPHERE: {
      double c[3] = {0, 0, 0};
      return round_shape(o, q, c, depth, dir);
    }
    case JL_OBSTACLE_CAPSULE: {
      double half = 0.5 * o->length, y = q[1] < -half ? -half : q[1] > half ? half : q[1];
      double c[3] = {0, y, 0};
      return round_shape(o, q, c, depth, dir);
    }
    case JL_OBSTACLE_HULL:
      return ccd_point(o, p, depth, dir);
    default:
      return 0;
  }
}

/* ---------------------------------------------------------------- signed distance query */

/* a query or sweep answer in the obstacle's frame, before mapping to the world */
typedef struct LocalHit {
  double dist;
  double n[3];     /* unit, local */
  double point[3]; /* local */
  int feature;
} LocalHit;

static void to_world_point(const JlObstacle *o, const double *q, double *p) {
  to_world_dir(o, q, p);
  for (int k = 0; k < 3; k++) p[k] += o->translate[k];
}

static void local_to_hit(const JlObstacle *o, const LocalHit *l, JlObstacleHit *hit) {
  hit->dist = l->dist;
  to_world_dir(o, l->n, hit->n);
  to_world_point(o, l->point, hit->point);
  hit->feature = l->feature;
}

/* q measured against a box face's plane: signed distance, outward normal, q projected on the plane */
static void box_face_plane(const JlObstacle *o, const double *q, int face, LocalHit *l) {
  int k = face / 2;
  double sg = (face & 1) ? -1.0 : 1.0;
  l->dist = sg * q[k] - 0.5 * o->size[k];
  l->n[0] = l->n[1] = l->n[2] = 0.0;
  l->n[k] = sg;
  for (int j = 0; j < 3; j++) l->point[j] = q[j];
  l->point[k] = sg * 0.5 * o->size[k];
  l->feature = face;
}

/* Box: per axis, how far q is outside the slab (s_k = |q_k| - h_k); inside when
 * all s_k <= 0. A hinted face is measured as a plane (see the header); otherwise
 * inside -> the nearest face (largest s_k, as jl_obstacle_penetration),
 * outside -> the closest point (clamp q to the box, Ericson 5.1.3). */
static int box_query(const JlObstacle *o, const double *q, double margin, int hint, LocalHit *l) {
  double h[3], s[3];
  int inside = 1, worst = 0;
  for (int k = 0; k < 3; k++) {
    h[k] = 0.5 * o->size[k];
    s[k] = fabs(q[k]) - h[k];
    if (s[k] > 0.0) inside = 0;
    if (s[k] > s[worst]) worst = k;
  }
  int worst_face = 2 * worst + (q[worst] >= 0.0 ? 0 : 1);
  /* the hinted face: inside, or outside above that face within margin of its rectangle */
  if (hint >= 0) {
    int k = hint / 2;
    double plane = ((hint & 1) ? -q[k] : q[k]) - h[k];
    int use = inside;
    if (!use && plane >= 0.0 && plane <= margin) {
      double e2 = plane * plane;
      for (int j = 0; j < 3; j++)
        if (j != k && s[j] > 0.0) e2 += s[j] * s[j];
      use = e2 <= margin * margin;
    }
    if (use) {
      box_face_plane(o, q, hint, l);
      return 1;
    }
  }
  /* inside or on the surface: the nearest face */
  if (inside) {
    box_face_plane(o, q, worst_face, l);
    return 1;
  }
  /* outside: closest point on the box; the direction from it to q */
  double v[3], d2 = 0.0;
  for (int k = 0; k < 3; k++) {
    double c = q[k] < -h[k] ? -h[k] : q[k] > h[k] ? h[k] : q[k];
    l->point[k] = c;
    v[k] = q[k] - c;
    d2 += v[k] * v[k];
  }
  double d = sqrt(d2);
  if (!(d <= margin) || !(d > 0.0)) return 0;
  for (int k = 0; k < 3; k++) l->n[k] = v[k] / d;
  l->dist = d;
  l->feature = worst_face;
  return 1;
}

/* sphere and capsule: distance to a centre point c (local) minus the radius */
static int round_query(const JlObstacle *o, const double *q, const double *c, double margin, LocalHit *l) {
  double v[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  double dist = len - o->radius;
  if (!(dist <= margin)) return 0;
  l->n[0] = 0.0, l->n[1] = 1.0, l->n[2] = 0.0;
  if (len > 0) l->n[0] = v[0] / len, l->n[1] = v[1] / len, l->n[2] = v[2] / len;
  for (int k = 0; k < 3; k++) l->point[k] = c[k] + o->radius * l->n[k];
  l->dist = dist;
  l->feature = 0;
  return 1;
}

const double *jl_obstacle_hull_support(const JlObstacle *o, const double d[3]) {
  int best = 0;
  double bd = -INFINITY;
  for (int i = 0; i < o->npoint; i++) {
    const double *x = o->point + 3 * i;
    double v = x[0] * d[0] + x[1] * d[1] + x[2] * d[2];
    if (v > bd) bd = v, best = i;
  }
  return o->point + 3 * best;
}

/* Closest point c to q on the convex hull of the n <= 4 points s: the
 * projection of q on the affine hull of each subset (a 1x1 to 3x3 normal
 * equation), kept when its barycentric weights are all >= 0, and the nearest
 * of those (the naive form of Johnson's sub-algorithm; 15 subsets at most).
 * Returns the mask of the subset used (0 when q is inside the tetrahedron). */
static int simplex_closest(const double (*s)[3], int n, const double *q, double *c) {
  double best = INFINITY;
  int best_mask = 1;
  for (int mask = 1; mask < (1 << n); mask++) {
    int idx[4], m = 0;
    for (int i = 0; i < n; i++)
      if (mask & (1 << i)) idx[m++] = i;
    /* q - s0 = sum_j w_j (s_j - s0), j = 1..m-1: solve G w = r by Cramer's rule */
    const double *s0 = s[idx[0]];
    double e[3][3], G[3][3], r[3], w[3] = {0, 0, 0};
    for (int j = 1; j < m; j++)
      for (int k = 0; k < 3; k++) e[j - 1][k] = s[idx[j]][k] - s0[k];
    double rq[3] = {q[0] - s0[0], q[1] - s0[1], q[2] - s0[2]};
    int k1 = m - 1, ok = 1;
    for (int i = 0; i < k1; i++) {
      r[i] = jl_vec3_dot(e[i], rq);
      for (int j = 0; j < k1; j++) G[i][j] = jl_vec3_dot(e[i], e[j]);
    }
    if (k1 == 1) {
      ok = G[0][0] > 0.0;
      if (ok) w[0] = r[0] / G[0][0];
    } else if (k1 == 2) {
      double det = G[0][0] * G[1][1] - G[0][1] * G[1][0];
      ok = det > 1e-14 * G[0][0] * G[1][1];
      if (ok) w[0] = (r[0] * G[1][1] - G[0][1] * r[1]) / det, w[1] = (G[0][0] * r[1] - G[1][0] * r[0]) / det;
    } else if (k1 == 3) {
      double det = G[0][0] * (G[1][1] * G[2][2] - G[1][2] * G[2][1]) -
                   G[0][1] * (G[1][0] * G[2][2] - G[1][2] * G[2][0]) +
                   G[0][2] * (G[1][0] * G[2][1] - G[1][1] * G[2][0]);
      ok = det > 1e-14 * G[0][0] * G[1][1] * G[2][2];
      for (int col = 0; ok && col < 3; col++) {
        double M[3][3];
        memcpy(M, G, sizeof M);
        for (int i = 0; i < 3; i++) M[i][col] = r[i];
        w[col] =
            (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
             M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
            det;
      }
    }
    if (!ok) continue;
    double w0 = 1.0;
    for (int j = 0; j < k1; j++) w0 -= w[j];
    if (w0 < 0.0) continue;
    for (int j = 0; j < k1; j++)
      if (w[j] < 0.0) ok = 0;
    if (!ok) continue;
    double x[3], d2 = 0.0;
    for (int k = 0; k < 3; k++) {
      x[k] = s0[k];
      for (int j = 0; j < k1; j++) x[k] += w[j] * e[j][k];
      d2 += (q[k] - x[k]) * (q[k] - x[k]);
    }
    if (d2 < best) {
      best = d2, best_mask = mask;
      memcpy(c, x, 3 * sizeof(double));
      if (m == 4) best_mask = 0;
    }
  }
  return best_mask;
}

/* Hull, q (local) outside: the closest hull point by GJK (Gilbert, Johnson and
 * Keerthi 1988; Ericson 9.5) on the support function of the hull's points.
 * Each round adds the support point towards q to a simplex of at most four
 * points and keeps the sub-simplex nearest to q; it stops when the support
 * plane is within 1e-12 m of the current point (the distance is then exact to
 * that) or no new point comes. libccd 2.1 offers no distance query. Returns
 * the distance; c is the closest point. */
static double hull_closest(const JlObstacle *o, const double *q, double *c) {
  double s[4][3], dir[3] = {0, 0, 0};
  int n = 1;
  memcpy(s[0], jl_obstacle_hull_support(o, dir), sizeof s[0]); /* the first point: any hull point */
  memcpy(c, s[0], sizeof s[0]);
  for (int iter = 0; iter < 64; iter++) {
    double v[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]}, vl = sqrt(jl_vec3_dot(v, v));
    if (!(vl > 0.0)) return 0.0;
    const double *w = jl_obstacle_hull_support(o, v);
    /* lower bound: the plane through w normal to v separates q from the hull */
    if (vl - (jl_vec3_dot(v, q) - jl_vec3_dot(v, w)) / vl <= 1e-12) return vl;
    for (int i = 0; i < n; i++)
      if (s[i][0] == w[0] && s[i][1] == w[1] && s[i][2] == w[2]) return vl;
    if (n > 3) return vl; /* cannot happen: a full simplex either holds q or drops a point */
    memcpy(s[n++], w, sizeof s[0]);
    int mask = simplex_closest((const double(*)[3])s, n, q, c);
    if (mask == 0) return 0.0;
    int m = 0;
    for (int i = 0; i < n; i++)
      if (mask & (1 << i)) {
        if (m != i) memcpy(s[m], s[i], sizeof s[0]);
        m++;
      }
    n = m;
  }
  return sqrt((q[0] - c[0]) * (q[0] - c[0]) + (q[1] - c[1]) * (q[1] - c[1]) + (q[2] - c[2]) * (q[2] - c[2]));
}

int jl_obstacle_query(const JlObstacle *o, const double p[3], double margin, int feature_hint, JlObstacleHit *hit) {
  JL_ASSERT(o && p && hit, "jl_obstacle_query: obstacle, point and hit must not be NULL");
  JL_ASSERT(feature_hint >= -1 && feature_hint < JL_BOX_FACE_COUNT,
            "jl_obstacle_query: feature_hint must be -1 (choose) or a JlBoxFace (0..5)");
  if (!finite3(p) || !(margin >= 0.0) || !isfinite(margin)) return 0;
  double q[3];
  to_local(o, p, q);
  LocalHit l;
  int found = 0;
  switch (o->type) {
    case JL_OBSTACLE_PLANE:
      if (!(q[1] <= margin)) return 0;
      l.dist = q[1];
      l.n[0] = 0.0, l.n[1] = 1.0, l.n[2] = 0.0;
      l.point[0] = q[0], l.point[1] = 0.0, l.point[2] = q[2];
      l.feature = 0;
      found = 1;
      break;
    case JL_OBSTACLE_BOX:
      found = box_query(o, q, margin, feature_hint, &l);
      break;
    case JL_OBSTACLE_SPHERE: {
      double c[3] = {0, 0, 0};
      found = round_query(o, q, c, margin, &l);
      break;
    }
    case JL_OBSTACLE_CAPSULE: {
      double half = 0.5 * o->length, y = q[1] < -half ? -half : q[1] > half ? half : q[1];
      double c[3] = {0, y, 0};
      found = round_query(o, q, c, margin, &l);
      break;
    }
    case JL_OBSTACLE_HULL: {
      /* world-space answers straight from MPR */
      double depth, dir[3];
      if (o->npoint <= 0 || !o->point) return 0;
      if (ccd_point(o, p, &depth, dir)) {
        hit->dist = -depth;
        memcpy(hit->n, dir, sizeof dir);
        for (int k = 0; k < 3; k++) hit->point[k] = p[k] + depth * dir[k];
        hit->feature = 0;
        return 1;
      }
      double c[3], dist = hull_closest(o, q, c);
      if (!(dist <= margin) || !(dist > 0.0)) return 0;
      for (int k = 0; k < 3; k++) l.n[k] = (q[k] - c[k]) / dist, l.point[k] = c[k];
      l.dist = dist;
      l.feature = 0;
      found = 1;
      break;
    }
    default:
      return 0;
  }
  if (!found) return 0;
  local_to_hit(o, &l, hit);
  return 1;
}

/* ---------------------------------------------------------------- swept point */

/* First entry of a + t d (local) into the ball (c, r), a outside it: the
 * smaller root of |a - c + t d|^2 = r^2 (Ericson 5.3.2), written as
 * C / (-B + sqrt(B^2 - A C)) to avoid cancellation when a is near the surface. */
static int ball_sweep(const double *a, const double *d, const double *c, double r, double *t) {
  double m[3] = {a[0] - c[0], a[1] - c[1], a[2] - c[2]};
  double A = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  double B = m[0] * d[0] + m[1] * d[1] + m[2] * d[2];
  double C = m[0] * m[0] + m[1] * m[1] + m[2] * m[2] - r * r;
  if (!(C > 0.0) || !(A > 0.0) || !(B < 0.0)) return 0;
  double disc = B * B - A * C;
  if (!(disc >= 0.0)) return 0;
  double tt = C / (-B + sqrt(disc));
  if (!(tt <= 1.0)) return 0;
  *t = tt;
  return 1;
}

/* Box: slab clipping (Ericson 5.3.3), with the face of the last slab entered. */
static int box_sweep(const JlObstacle *o, const double *a, const double *d, double *t, LocalHit *l) {
  double tmin = 0.0, tmax = 1.0;
  int face = -1;
  for (int k = 0; k < 3; k++) {
    double h = 0.5 * o->size[k];
    if (d[k] == 0.0) {
      if (a[k] < -h || a[k] > h) return 0;
      continue;
    }
    /* division, not a reciprocal: 0 / tiny stays 0 where 0 * inf would be NaN */
    double t_neg = (-h - a[k]) / d[k], t_pos = (h - a[k]) / d[k];
    double t_in = t_neg, t_out = t_pos;
    int f_in = 2 * k + 1;
    if (t_neg > t_pos) t_in = t_pos, t_out = t_neg, f_in = 2 * k;
    if (t_in > tmin) tmin = t_in, face = f_in;
    if (t_out < tmax) tmax = t_out;
    if (tmin > tmax) return 0;
  }
  if (face < 0) return 0; /* a was not outside */
  *t = tmin;
  double e[3];
  for (int k = 0; k < 3; k++) e[k] = a[k] + tmin * d[k];
  box_face_plane(o, e, face, l); /* snaps the entry point onto the face's plane */
  l->dist = ((face & 1) ? -a[face / 2] : a[face / 2]) - 0.5 * o->size[face / 2];
  return 1;
}

/* Capsule: the first entry among the side (the infinite cylinder of the axis,
 * where the entry lies between the cap centres) and the two cap spheres. A
 * path entering the finite cylinder through an end disk is inside the cap
 * sphere there already, so the spheres cover those entries. */
static int capsule_sweep(const JlObstacle *o, const double *a, const double *d, double *t, LocalHit *l) {
  double half = 0.5 * o->length, r = o->radius, best = INFINITY, axis_y = 0.0;
  /* a must be outside: farther than r from the axis segment */
  double ya = a[1] < -half ? -half : a[1] > half ? half : a[1];
  if (!(a[0] * a[0] + (a[1] - ya) * (a[1] - ya) + a[2] * a[2] > r * r)) return 0;
  /* side: |(a + t d)_xz|^2 = r^2 */
  double A = d[0] * d[0] + d[2] * d[2], B = a[0] * d[0] + a[2] * d[2], C = a[0] * a[0] + a[2] * a[2] - r * r;
  if (C > 0.0 && A > 0.0 && B < 0.0) {
    double disc = B * B - A * C;
    if (disc >= 0.0) {
      double ts = C / (-B + sqrt(disc));
      double y = a[1] + ts * d[1];
      if (ts <= 1.0 && y >= -half && y <= half) best = ts, axis_y = y;
    }
  }
  /* caps */
  for (int s = 0; s < 2; s++) {
    double c[3] = {0.0, s ? -half : half, 0.0}, tc;
    if (ball_sweep(a, d, c, r, &tc) && tc < best) best = tc, axis_y = c[1];
  }
  if (!(best <= 1.0)) return 0;
  double e[3], v[3];
  for (int k = 0; k < 3; k++) e[k] = a[k] + best * d[k];
  v[0] = e[0], v[1] = e[1] - axis_y, v[2] = e[2];
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(len > 0.0)) return 0; /* only with a zero radius */
  for (int k = 0; k < 3; k++) l->n[k] = v[k] / len;
  memcpy(l->point, e, sizeof e);
  *t = best;
  return 1;
}

/* Hull: MPR overlap of the whole path first, then bisection on the prefix
 * a -> a + t (b - a) until the bracket is shorter than the tolerance. The
 * normal is MPR's at a point just inside the entry point on the line to the
 * hull's centre, so that MPR's ray from that centre leaves through the entry
 * point itself and its portal is the face containing it. */
static int hull_sweep(const JlObstacle *o, const double *a, const double *b, double *t, JlObstacleHit *hit) {
  const double tol = 0.1 * JL_OBSTACLE_HULL_TOLERANCE;
  if (o->npoint <= 0 || !o->point) return 0;
  if (ccd_segment(o, a, a) || !ccd_segment(o, a, b)) return 0;
  double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double lo = 0.0, hi = 1.0, e[3];
  while ((hi - lo) * len > tol) {
    double mid = 0.5 * (lo + hi);
    for (int k = 0; k < 3; k++) e[k] = a[k] + mid * d[k];
    if (ccd_segment(o, a, e))
      hi = mid;
    else
      lo = mid;
  }
  for (int k = 0; k < 3; k++) e[k] = a[k] + hi * d[k];
  /* the hull's centre as MPR uses it: the mean of its points */
  double m[3] = {0, 0, 0}, c[3], u[3];
  for (int i = 0; i < o->npoint; i++)
    for (int k = 0; k < 3; k++) m[k] += o->point[3 * i + k] / o->npoint;
  to_world_point(o, m, c);
  for (int k = 0; k < 3; k++) u[k] = c[k] - e[k];
  double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  double step = fmin(1e-6, 0.5 * ul), depth, n[3];
  int got = 0;
  if (ul > 0.0) {
    double pin[3];
    for (int k = 0; k < 3; k++) pin[k] = e[k] + step * u[k] / ul;
    got = ccd_point(o, pin, &depth, n);
  }
  if (!got) /* degenerate: against the motion */
    for (int k = 0; k < 3; k++) n[k] = -d[k] / len;
  double dist = 0.0;
  for (int k = 0; k < 3; k++) dist += n[k] * (a[k] - e[k]);
  *t = hi;
  hit->dist = dist > 0.0 ? dist : 0.0;
  memcpy(hit->n, n, sizeof n);
  memcpy(hit->point, e, sizeof e);
  hit->feature = 0;
  return 1;
}

int jl_obstacle_sweep(const JlObstacle *o, const double a[3], const double b[3], double *t_hit, JlObstacleHit *hit) {
  JL_ASSERT(o && a && b && t_hit && hit, "jl_obstacle_sweep: obstacle, a, b, t_hit and hit must not be NULL");
  if (!finite3(a) || !finite3(b)) return 0;
  if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) return 0;
  if (o->type == JL_OBSTACLE_HULL) return hull_sweep(o, a, b, t_hit, hit);
  double qa[3], qb[3], d[3], t = 0.0;
  to_local(o, a, qa);
  to_local(o, b, qb);
  for (int k = 0; k < 3; k++) d[k] = qb[k] - qa[k];
  LocalHit l;
  l.feature = 0;
  switch (o->type) {
    case JL_OBSTACLE_PLANE:
      /* a above the plane, b on or below it */
      if (!(qa[1] > 0.0) || !(qb[1] <= 0.0)) return 0;
      t = qa[1] / (qa[1] - qb[1]);
      l.n[0] = 0.0, l.n[1] = 1.0, l.n[2] = 0.0;
      l.point[0] = qa[0] + t * d[0], l.point[1] = 0.0, l.point[2] = qa[2] + t * d[2];
      break;
    case JL_OBSTACLE_BOX:
      if (!box_sweep(o, qa, d, &t, &l)) return 0;
      break;
    case JL_OBSTACLE_SPHERE: {
      double c[3] = {0, 0, 0};
      if (!ball_sweep(qa, d, c, o->radius, &t)) return 0;
      double len = 0.0;
      for (int k = 0; k < 3; k++) l.point[k] = qa[k] + t * d[k], len += l.point[k] * l.point[k];
      len = sqrt(len);
      if (!(len > 0.0)) return 0;
      for (int k = 0; k < 3; k++) l.n[k] = l.point[k] / len;
      break;
    }
    case JL_OBSTACLE_CAPSULE:
      if (!capsule_sweep(o, qa, d, &t, &l)) return 0;
      break;
    default:
      return 0;
  }
  /* distance of a from the entry feature's (tangent) plane */
  if (o->type != JL_OBSTACLE_BOX) {
    double dist = 0.0;
    for (int k = 0; k < 3; k++) dist += l.n[k] * (qa[k] - l.point[k]);
    l.dist = dist > 0.0 ? dist : 0.0;
  }
  *t_hit = t;
  local_to_hit(o, &l, hit);
  return 1;
}
