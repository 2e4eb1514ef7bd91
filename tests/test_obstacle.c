/* Obstacle queries (collision/obstacle.h): the signed distance query with and
 * without a box face hint, for points inside and up to a margin outside; the
 * swept-point test (first entry of a node's path over a step) against analytic
 * entry points for boxes (thin and rotated), spheres and capsules, a cube hull
 * against the box, degenerate input; and a randomized comparison of query and
 * sweep with brute force (jl_obstacle_penetration sampled along segments and
 * on balls) for every obstacle type. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "collision/obstacle.h"
#include "tests/harness.h"

static unsigned long long rng_state = 0x2545F4914F6CDD1Dull;
static double rnd(void) { /* [-1, 1] */
  return jl_test_rnd(&rng_state);
}


static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double *a) { return sqrt(dot3(a, a)); }

/* world point of local q: R q + t */
static void world_point(const JlObstacle *o, const double *q, double *p) {
  for (int r = 0; r < 3; r++)
    p[r] = o->rot[3 * r] * q[0] + o->rot[3 * r + 1] * q[1] + o->rot[3 * r + 2] * q[2] + o->translate[r];
}

/* world direction of local v: R v */
static void world_dir(const JlObstacle *o, const double *v, double *w) {
  for (int r = 0; r < 3; r++) w[r] = o->rot[3 * r] * v[0] + o->rot[3 * r + 1] * v[1] + o->rot[3 * r + 2] * v[2];
}

static JlObstacle make(JlObstacleType type, double tx, double ty, double tz, double rx, double ry, double rz) {
  JlObstacle o = jl_default_obstacle();
  o.type = type;
  o.translate[0] = tx, o.translate[1] = ty, o.translate[2] = tz;
  double rot[3] = {rx, ry, rz};
  jl_obstacle_set_rotation(&o, rot);
  return o;
}

/* hull of a box's 8 corners (pts: 24 doubles, owned by the caller) with the box's placement */
static JlObstacle cube_hull(const JlObstacle *box, double *pts) {
  JlObstacle h = *box;
  h.type = JL_OBSTACLE_HULL;
  h.npoint = 8;
  for (int i = 0; i < 8; i++)
    for (int a = 0; a < 3; a++) pts[3 * i + a] = ((i >> a) & 1 ? 0.5 : -0.5) * box->size[a];
  h.point = pts;
  return h;
}

/* ---------------------------------------------------------------- query */

/* A node that came in through a box's top face and sits 2.4 cm deep, 5 mm from
 * a side face: without a hint the side face is nearest; with the top face as
 * hint the query measures against the top plane and pushes up. */
static void test_hint_keeps_entry_face(void) {
  const double rots[3][3] = {{0, 0, 0}, {0, 30, 0}, {0, 0, 30}};
  for (int r = 0; r < 3; r++) {
    JlObstacle box = make(JL_OBSTACLE_BOX, 0.5, 1.0, -2.0, rots[r][0], rots[r][1], rots[r][2]);
    double q[3] = {0.495, 0.476, 0.1}, p[3], ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, nx[3], ny[3];
    world_point(&box, q, p);
    world_dir(&box, ex, nx);
    world_dir(&box, ey, ny);
    JlObstacleHit hit;
    /* no hint: the nearest face, +x, as jl_obstacle_penetration */
    ENSURE(jl_obstacle_query(&box, p, 0.0, -1, &hit));
    ENSURE(hit.feature == JL_BOX_FACE_POS_X);
    ENSURE_NEAR(hit.dist, -0.005, 1e-12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], nx[k], 1e-12);
    double depth, dir[3];
    ENSURE(jl_obstacle_penetration(&box, p, &depth, dir));
    ENSURE_NEAR(depth, -hit.dist, 1e-15);
    /* hint: the top face; dist is the depth below the top plane, n the (rotated) +y */
    ENSURE(jl_obstacle_query(&box, p, 0.0, JL_BOX_FACE_POS_Y, &hit));
    ENSURE(hit.feature == JL_BOX_FACE_POS_Y);
    ENSURE_NEAR(hit.dist, -0.024, 1e-12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], ny[k], 1e-12);
    double top[3] = {0.495, 0.5, 0.1}, ptop[3];
    world_point(&box, top, ptop);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.point[k], ptop[k], 1e-12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(p[k] - hit.dist * hit.n[k], hit.point[k], 1e-12);
  }
  /* the normal in world: about y the top stays world +y; about z it is the rotated +y */
  JlObstacle by = make(JL_OBSTACLE_BOX, 0, 0, 0, 0, 30, 0), bz = make(JL_OBSTACLE_BOX, 0, 0, 0, 0, 0, 30);
  double q[3] = {0.495, 0.476, 0.1}, py[3], pz[3];
  world_point(&by, q, py);
  world_point(&bz, q, pz);
  JlObstacleHit hy, hz;
  ENSURE(jl_obstacle_query(&by, py, 0.0, JL_BOX_FACE_POS_Y, &hy));
  ENSURE_NEAR(hy.n[0], 0.0, 1e-15);
  ENSURE_NEAR(hy.n[1], 1.0, 1e-15);
  ENSURE_NEAR(hy.n[2], 0.0, 1e-15);
  ENSURE(jl_obstacle_query(&bz, pz, 0.0, JL_BOX_FACE_POS_Y, &hz));
  ENSURE_NEAR(hz.n[0], -0.5, 1e-15);
  ENSURE_NEAR(hz.n[1], sqrt(0.75), 1e-15);
  ENSURE_NEAR(hz.n[2], 0.0, 1e-15);
  ENSURE_NEAR(hz.dist, -0.024, 1e-12);

  /* outside above the top face within margin: still the top plane */
  JlObstacle box = make(JL_OBSTACLE_BOX, 0, 0, 0, 0, 0, 0);
  JlObstacleHit hit;
  double above[3] = {0.2, 0.503, 0};
  ENSURE(jl_obstacle_query(&box, above, 0.01, JL_BOX_FACE_POS_Y, &hit));
  ENSURE(hit.feature == JL_BOX_FACE_POS_Y);
  ENSURE_NEAR(hit.dist, 0.003, 1e-12);
  /* above the rim, 4 mm out sideways and 3 mm up: within margin of the face rectangle (5 mm) */
  double rim[3] = {0.504, 0.503, 0};
  ENSURE(jl_obstacle_query(&box, rim, 0.01, JL_BOX_FACE_POS_Y, &hit));
  ENSURE(hit.feature == JL_BOX_FACE_POS_Y);
  ENSURE_NEAR(hit.dist, 0.003, 1e-12);
  ENSURE_NEAR(hit.n[1], 1.0, 0);
  /* slid off the rim: outside, 3 mm below the top plane -> the hint does not apply, the side face does */
  double beside[3] = {0.503, 0.497, 0};
  ENSURE(jl_obstacle_query(&box, beside, 0.01, JL_BOX_FACE_POS_Y, &hit));
  ENSURE(hit.feature == JL_BOX_FACE_POS_X);
  ENSURE_NEAR(hit.dist, 0.003, 1e-12);
  ENSURE_NEAR(hit.n[0], 1.0, 0);
  /* too far from the face rectangle (and from the box): nothing */
  double far[3] = {0.52, 0.503, 0};
  ENSURE(!jl_obstacle_query(&box, far, 0.01, JL_BOX_FACE_POS_Y, &hit));
  /* the hint is ignored by other types */
  JlObstacle sph = make(JL_OBSTACLE_SPHERE, 0, 0, 0, 0, 0, 0);
  double ps[3] = {0.3, 0, 0};
  ENSURE(jl_obstacle_query(&sph, ps, 0.0, JL_BOX_FACE_POS_Y, &hit));
  ENSURE(hit.feature == 0);
  ENSURE_NEAR(hit.n[0], 1.0, 0);
  ENSURE_NEAR(hit.dist, -0.2, 1e-15);
}

/* exact signed distances outside (and inside) each type, with the margin cut-off */
static void test_query_regions(void) {
  JlObstacleHit hit;
  /* box 1 x 0.5 x 2, placed and rotated: face, edge (3-4-5) and corner (2-3-6-7) regions */
  JlObstacle box = make(JL_OBSTACLE_BOX, 1, 2, 3, 10, 20, 30);
  box.size[0] = 1, box.size[1] = 0.5, box.size[2] = 2;
  const struct {
    double q[3], dist, nl[3], cl[3];
    int feature;
  } bc[] = {
      {{0.2, 0.254, 0.3}, 0.004, {0, 1, 0}, {0.2, 0.25, 0.3}, JL_BOX_FACE_POS_Y},
      {{0.503, 0.254, 0.1}, 0.005, {0.6, 0.8, 0}, {0.5, 0.25, 0.1}, JL_BOX_FACE_POS_Y},
      {{-0.502, -0.253, 1.006}, 0.007, {-2.0 / 7, -3.0 / 7, 6.0 / 7}, {-0.5, -0.25, 1}, JL_BOX_FACE_POS_Z},
      {{-0.1, 0.05, -0.95}, -0.05, {0, 0, -1}, {-0.1, 0.05, -1}, JL_BOX_FACE_NEG_Z},
  };
  for (int i = 0; i < 4; i++) {
    double p[3], n[3], c[3];
    world_point(&box, bc[i].q, p);
    world_dir(&box, bc[i].nl, n);
    world_point(&box, bc[i].cl, c);
    ENSURE_MSG(jl_obstacle_query(&box, p, 0.01, -1, &hit), "box case %d", i);
    ENSURE_NEAR(hit.dist, bc[i].dist, 1e-12);
    ENSURE(hit.feature == bc[i].feature);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], n[k], 1e-12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.point[k], c[k], 1e-12);
    /* beyond a 4.5 mm margin only the face point (4 mm) and the inside point remain */
    ENSURE(jl_obstacle_query(&box, p, 0.0045, -1, &hit) == (bc[i].dist < 0.0045));
  }
  /* sphere r 0.5 at (1, 2, 3): 7 mm out along (2, 3, 6)/7; inside 0.2 deep */
  JlObstacle sph = make(JL_OBSTACLE_SPHERE, 1, 2, 3, 0, 0, 0);
  double u[3] = {2.0 / 7, 3.0 / 7, 6.0 / 7}, p[3];
  for (int k = 0; k < 3; k++) p[k] = sph.translate[k] + 0.507 * u[k];
  ENSURE(jl_obstacle_query(&sph, p, 0.01, -1, &hit));
  ENSURE_NEAR(hit.dist, 0.007, 1e-12);
  for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], u[k], 1e-12);
  for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.point[k], sph.translate[k] + 0.5 * u[k], 1e-12);
  ENSURE(!jl_obstacle_query(&sph, p, 0.005, -1, &hit));
  for (int k = 0; k < 3; k++) p[k] = sph.translate[k] + 0.3 * u[k];
  ENSURE(jl_obstacle_query(&sph, p, 0.0, -1, &hit));
  ENSURE_NEAR(hit.dist, -0.2, 1e-12);
  /* capsule r 0.3, length 1, axis along world -x (rotated 90 degrees about z) */
  JlObstacle cap = make(JL_OBSTACLE_CAPSULE, 0, 1, 0, 0, 0, 90);
  cap.radius = 0.3;
  cap.length = 1;
  const struct {
    double q[3], dist, nl[3];
  } cc[] = {
      {{0.305, 0.2, 0}, 0.005, {1, 0, 0}},                         /* side */
      {{0, 0.804, 0}, 0.004, {0, 1, 0}},                           /* cap, on the axis */
      {{0.308 * 0.6, 0.5 + 0.308 * 0.8, 0}, 0.008, {0.6, 0.8, 0}}, /* cap, oblique */
      {{0, -0.4, 0.1}, -0.2, {0, 0, 1}},                           /* inside */
  };
  for (int i = 0; i < 4; i++) {
    double pc[3], n[3];
    world_point(&cap, cc[i].q, pc);
    world_dir(&cap, cc[i].nl, n);
    ENSURE_MSG(jl_obstacle_query(&cap, pc, 0.01, -1, &hit), "capsule case %d", i);
    ENSURE_NEAR(hit.dist, cc[i].dist, 1e-12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], n[k], 1e-12);
    ENSURE(jl_obstacle_query(&cap, pc, 0.0035, -1, &hit) == (cc[i].dist < 0.0035));
  }
  /* plane through (1, 0, 0) rotated 90 degrees about z: normal -x, solid at x > 1 */
  JlObstacle pl = make(JL_OBSTACLE_PLANE, 1, 0, 0, 0, 0, 90);
  double pp[3] = {0.993, 5, -7};
  ENSURE(jl_obstacle_query(&pl, pp, 0.01, -1, &hit));
  ENSURE_NEAR(hit.dist, 0.007, 1e-12);
  ENSURE_NEAR(hit.n[0], -1.0, 1e-15);
  ENSURE_NEAR(hit.point[0], 1.0, 1e-12);
  ENSURE_NEAR(hit.point[1], 5.0, 1e-12);
  ENSURE(!jl_obstacle_query(&pl, pp, 0.005, -1, &hit));
  pp[0] = 1.2;
  ENSURE(jl_obstacle_query(&pl, pp, 0.0, -1, &hit));
  ENSURE_NEAR(hit.dist, -0.2, 1e-12);
}

/* a hull of a box's corners agrees with the analytic box outside it */
static void test_hull_query_matches_box(void) {
  JlObstacle box = make(JL_OBSTACLE_BOX, 1, 2, 3, 10, 20, 30);
  box.size[0] = 1, box.size[1] = 0.5, box.size[2] = 2;
  double pts[24];
  JlObstacle hull = cube_hull(&box, pts);
  const double q[][3] = {{0.2, 0.254, 0.3}, {0.503, 0.254, 0.1}, {-0.502, -0.253, 1.006}, {0.1, -0.2551, -0.7}};
  for (int i = 0; i < 4; i++) {
    double p[3];
    world_point(&box, q[i], p);
    JlObstacleHit hb, hh;
    ENSURE(jl_obstacle_query(&box, p, 0.01, -1, &hb));
    ENSURE_MSG(jl_obstacle_query(&hull, p, 0.01, -1, &hh), "hull case %d", i);
    ENSURE_NEAR(hh.dist, hb.dist, 1e-12); /* GJK: exact */
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hh.n[k], hb.n[k], 1e-9);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hh.point[k], hb.point[k], 1e-12);
    ENSURE(!jl_obstacle_query(&hull, p, 0.0045, -1, &hh) == !jl_obstacle_query(&box, p, 0.0045, -1, &hb));
  }
}

/* The support function against brute force over surface points, and the
 * widths it gives: a rotated box across each face is that edge's length, a
 * sphere its diameter, a capsule along its axis length + 2 r, a hull of a
 * box's corners the box's; a plane is unbounded except along its normal. */
static void test_support_and_width(void) {
  JlObstacle box = make(JL_OBSTACLE_BOX, 1, 2, 3, 10, 20, 30), sph = make(JL_OBSTACLE_SPHERE, -1, 0.5, 2, 0, 0, 0);
  JlObstacle cap = make(JL_OBSTACLE_CAPSULE, 0.3, -0.2, 0.1, 0, 40, 70),
             plane = make(JL_OBSTACLE_PLANE, 0, 1, 0, 0, 0, 30);
  box.size[0] = 1, box.size[1] = 0.005, box.size[2] = 2;
  sph.radius = 0.03;
  cap.radius = 0.01, cap.length = 0.6;
  double pts[24];
  JlObstacle hull = cube_hull(&box, pts);
  for (int a = 0; a < 3; a++) {
    double e[3] = {0, 0, 0}, n[3];
    e[a] = 1;
    world_dir(&box, e, n);
    ENSURE_NEAR(jl_obstacle_width(&box, n), box.size[a], 1e-12);
    ENSURE_NEAR(jl_obstacle_width(&hull, n), box.size[a], 1e-12);
    for (int k = 0; k < 3; k++) n[k] *= -2.5; /* any length, either sign */
    ENSURE_NEAR(jl_obstacle_width(&box, n), box.size[a], 1e-12);
  }
  double up[3] = {0, 1, 0}, axis[3];
  ENSURE_NEAR(jl_obstacle_width(&sph, up), 0.06, 1e-15);
  world_dir(&cap, up, axis);
  ENSURE_NEAR(jl_obstacle_width(&cap, axis), 0.62, 1e-12);
  /* the support value is the largest n . y over points of the obstacle */
  unsigned long long seed = 7;
  for (int t = 0; t < 200; t++) {
    double n[3];
    for (int k = 0; k < 3; k++) n[k] = (double)(jl_test_lcg(&seed) >> 11) * 0x1p-53 - 0.5;
    const JlObstacle *o[4] = {&box, &sph, &cap, &hull};
    for (int j = 0; j < 4; j++) {
      double best = -INFINITY;
      for (int s = 0; s < 4000; s++) { /* points on the surface: a query's surface point */
        double d[3], p[3];
        for (int k = 0; k < 3; k++) d[k] = (double)(jl_test_lcg(&seed) >> 11) * 0x1p-53 - 0.5;
        for (int k = 0; k < 3; k++) p[k] = o[j]->translate[k] + 3.0 * d[k] / norm3(d);
        JlObstacleHit h;
        if (jl_obstacle_query(o[j], p, 10.0, -1, &h)) best = fmax(best, dot3(n, h.point));
      }
      double sup = jl_obstacle_support(o[j], n);
      ENSURE_MSG(sup >= best - 1e-12, "obstacle %d: a surface point beyond the support plane by %g", j, best - sup);
      ENSURE_MSG(sup - best <= 0.02 * norm3(n), "obstacle %d: support %g, best sampled %g", j, sup, best);
    }
  }
  double nrm[3], tilt[3] = {0.1, 1, 0};
  world_dir(&plane, up, nrm);
  ENSURE(isinf(jl_obstacle_width(&plane, nrm)));
  ENSURE(isinf(jl_obstacle_support(&plane, tilt)));
  double zero[3] = {0, 0, 0}, nan3[3] = {NAN, 0, 0};
  ENSURE(isinf(jl_obstacle_width(&box, zero)));
  ENSURE(isinf(jl_obstacle_width(&box, nan3)));
}

/* ---------------------------------------------------------------- sweep */

/* A fast node crossing a 2 cm box in one step: neither end is inside, the sweep catches it. */
static void test_sweep_thin_box(void) {
  JlObstacle box = make(JL_OBSTACLE_BOX, 0, 0, 0, 0, 0, 0);
  box.size[1] = 0.02;
  double a[3] = {0.1, 0.1, 0.2}, b[3] = {0.1, -0.1, 0.2}, t, depth, dir[3];
  JlObstacleHit hit;
  ENSURE(!jl_obstacle_penetration(&box, a, &depth, dir));
  ENSURE(!jl_obstacle_penetration(&box, b, &depth, dir));
  ENSURE(jl_obstacle_sweep(&box, a, b, &t, &hit));
  ENSURE_NEAR(t, (0.1 - 0.01) / 0.2, 1e-14);
  ENSURE(hit.feature == JL_BOX_FACE_POS_Y);
  ENSURE_NEAR(hit.n[1], 1.0, 0);
  ENSURE_NEAR(hit.dist, 0.09, 1e-15);
  ENSURE_NEAR(hit.point[0], 0.1, 1e-15);
  ENSURE_NEAR(hit.point[1], 0.01, 0);
  ENSURE_NEAR(hit.point[2], 0.2, 1e-15);
  /* the other way: through the bottom face */
  ENSURE(jl_obstacle_sweep(&box, b, a, &t, &hit));
  ENSURE_NEAR(t, 0.45, 1e-15);
  ENSURE(hit.feature == JL_BOX_FACE_NEG_Y);
  ENSURE_NEAR(hit.n[1], -1.0, 0);
  /* a miss beside the box */
  double a2[3] = {0.6, 0.1, 0}, b2[3] = {0.6, -0.1, 0};
  ENSURE(!jl_obstacle_sweep(&box, a2, b2, &t, &hit));
  /* a path that stops short */
  double b3[3] = {0.1, 0.0101, 0.2};
  ENSURE(!jl_obstacle_sweep(&box, a, b3, &t, &hit));
  /* starting inside, or on the surface: 0 (the query's business) */
  double in[3] = {0, 0, 0}, on[3] = {0, 0.01, 0};
  ENSURE(!jl_obstacle_sweep(&box, in, b, &t, &hit));
  ENSURE(!jl_obstacle_sweep(&box, on, b, &t, &hit));
  /* grazing along the top plane touches (enters through -x at t = 0.2 / 1.4); a hair above misses */
  double g0[3] = {-0.7, 0.01, 0}, g1[3] = {0.7, 0.01, 0};
  ENSURE(jl_obstacle_sweep(&box, g0, g1, &t, &hit));
  ENSURE_NEAR(t, 0.2 / 1.4, 1e-15);
  ENSURE(hit.feature == JL_BOX_FACE_NEG_X);
  ENSURE_NEAR(hit.dist, 0.2, 1e-15);
  g0[1] = g1[1] = 0.01 + 1e-12;
  ENSURE(!jl_obstacle_sweep(&box, g0, g1, &t, &hit));
  /* ending exactly on the surface counts */
  double e0[3] = {0, 0.1, 0}, e1[3] = {0, 0.01, 0};
  ENSURE(jl_obstacle_sweep(&box, e0, e1, &t, &hit));
  ENSURE_NEAR(t, 1.0, 0);
  /* through the rim edge (x = 0.5, y = 0.01) diagonally: t = 0.5, one of the two faces */
  double d0[3] = {0.6, 0.11, 0.3}, d1[3] = {0.4, -0.09, 0.3};
  ENSURE(jl_obstacle_sweep(&box, d0, d1, &t, &hit));
  ENSURE_NEAR(t, 0.5, 1e-12);
  ENSURE(hit.feature == JL_BOX_FACE_POS_X || hit.feature == JL_BOX_FACE_POS_Y);
}

static void test_sweep_rotated_box(void) {
  JlObstacle box = make(JL_OBSTACLE_BOX, 1, 2, 3, 0, 0, 30);
  box.size[0] = 0.3, box.size[1] = 0.02, box.size[2] = 0.4;
  double al[3] = {0.05, 0.1, 0.1}, bl[3] = {0.05, -0.1, 0.1}, el[3] = {0.05, 0.01, 0.1}, ey[3] = {0, 1, 0};
  double a[3], b[3], e[3], n[3], t;
  world_point(&box, al, a);
  world_point(&box, bl, b);
  world_point(&box, el, e);
  world_dir(&box, ey, n);
  JlObstacleHit hit;
  ENSURE(jl_obstacle_sweep(&box, a, b, &t, &hit));
  ENSURE_NEAR(t, 0.45, 1e-12);
  ENSURE(hit.feature == JL_BOX_FACE_POS_Y);
  ENSURE_NEAR(hit.dist, 0.09, 1e-12);
  ENSURE_NEAR(n[0], -0.5, 1e-15);
  for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], n[k], 1e-15);
  for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.point[k], e[k], 1e-12);
  /* oblique, through local +z: a = (0.1, 0, 0.5) -> b = (0, 0, 0.1): enters at z = 0.2, t = 0.75 */
  double al2[3] = {0.1, 0, 0.5}, bl2[3] = {0, 0, 0.1}, ez[3] = {0, 0, 1};
  world_point(&box, al2, a);
  world_point(&box, bl2, b);
  world_dir(&box, ez, n);
  ENSURE(jl_obstacle_sweep(&box, a, b, &t, &hit));
  ENSURE_NEAR(t, 0.75, 1e-12);
  ENSURE(hit.feature == JL_BOX_FACE_POS_Z);
  ENSURE_NEAR(hit.dist, 0.3, 1e-12);
  for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], n[k], 1e-15);
}

static void test_sweep_sphere_capsule(void) {
  JlObstacleHit hit;
  double t;
  /* sphere r 0.5 at (1, 2, 3); path at height 0.3 along x enters at x = -0.4: t = 0.3, n = (-0.8, 0.6, 0) */
  JlObstacle sph = make(JL_OBSTACLE_SPHERE, 1, 2, 3, 0, 0, 0);
  double a[3] = {0, 2.3, 3}, b[3] = {2, 2.3, 3};
  ENSURE(jl_obstacle_sweep(&sph, a, b, &t, &hit));
  ENSURE_NEAR(t, 0.3, 1e-12);
  ENSURE_NEAR(hit.n[0], -0.8, 1e-12);
  ENSURE_NEAR(hit.n[1], 0.6, 1e-12);
  ENSURE_NEAR(hit.point[0], 0.6, 1e-12);
  ENSURE_NEAR(hit.dist, 0.48, 1e-12); /* n . (a - e) = -0.8 * -0.6 */
  /* tangent at height 0.5: touches at t = 0.5 with n = +y; at 0.6 misses */
  a[1] = b[1] = 2.5;
  ENSURE(jl_obstacle_sweep(&sph, a, b, &t, &hit));
  ENSURE_NEAR(t, 0.5, 1e-12);
  ENSURE_NEAR(hit.n[1], 1.0, 1e-12);
  a[1] = b[1] = 2.6;
  ENSURE(!jl_obstacle_sweep(&sph, a, b, &t, &hit));
  /* moving away, and starting inside */
  double c0[3] = {1, 2.6, 3}, c1[3] = {1, 3, 3}, c2[3] = {1, 2.2, 3};
  ENSURE(!jl_obstacle_sweep(&sph, c0, c1, &t, &hit));
  ENSURE(!jl_obstacle_sweep(&sph, c2, c1, &t, &hit));

  /* capsule r 0.2, length 1, axis along world -x (90 degrees about z), at (0, 1, 0) */
  JlObstacle cap = make(JL_OBSTACLE_CAPSULE, 0, 1, 0, 0, 0, 90);
  cap.radius = 0.2;
  cap.length = 1;
  const struct {
    double a[3], b[3], t, nl[3], dist;
  } cs[] = {
      /* side: local x from 0.5 to -0.5 at y 0.1 -> enters at x = 0.2 */
      {{0.5, 0.1, 0}, {-0.5, 0.1, 0}, 0.3, {1, 0, 0}, 0.3},
      /* cap, off axis by 0.1: enters at y = 0.5 + sqrt(0.03) */
      {{0.1, 1.5, 0}, {0.1, 0.5, 0}, 1.0 - sqrt(0.03), {0.5, 0.5 * sqrt(3.0), 0}, 0.5 * sqrt(3.0) * (1.0 - sqrt(0.03))},
      /* along the axis: enters the top cap at y = 0.7 */
      {{0, 2, 0}, {0, 0, 0}, 0.65, {0, 1, 0}, 1.3},
  };
  for (int i = 0; i < 3; i++) {
    double aw[3], bw[3], n[3];
    world_point(&cap, cs[i].a, aw);
    world_point(&cap, cs[i].b, bw);
    world_dir(&cap, cs[i].nl, n);
    ENSURE_MSG(jl_obstacle_sweep(&cap, aw, bw, &t, &hit), "capsule case %d", i);
    ENSURE_NEAR(t, cs[i].t, 1e-12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.n[k], n[k], 1e-12);
    ENSURE_NEAR(hit.dist, cs[i].dist, 1e-12);
    ENSURE(hit.feature == 0);
  }
  /* starting inside the cylindrical part (outside both cap spheres), heading into a cap sphere: 0 */
  double il[3] = {0.1, 0, 0}, ol[3] = {0.1, 0.9, 0}, iw[3], ow[3];
  world_point(&cap, il, iw);
  world_point(&cap, ol, ow);
  ENSURE(!jl_obstacle_sweep(&cap, iw, ow, &t, &hit));
  /* beyond the cap, moving sideways: stays 0.3 from the axis segment */
  double sl0[3] = {0, 0.8, 0}, sl1[3] = {0.3, 0.8, 0}, s0[3], s1[3];
  world_point(&cap, sl0, s0);
  world_point(&cap, sl1, s1);
  ENSURE(!jl_obstacle_sweep(&cap, s0, s1, &t, &hit));
  /* plane y = 0: from 0.3 to -0.1 */
  JlObstacle pl = make(JL_OBSTACLE_PLANE, 0, 0, 0, 0, 0, 0);
  double p0[3] = {0, 0.3, 0}, p1[3] = {0.4, -0.1, 0};
  ENSURE(jl_obstacle_sweep(&pl, p0, p1, &t, &hit));
  ENSURE_NEAR(t, 0.75, 1e-15);
  ENSURE_NEAR(hit.point[0], 0.3, 1e-15);
  ENSURE_NEAR(hit.dist, 0.3, 1e-15);
}

/* the cube hull of the rotated thin box gives the box's entries within the documented tolerance */
static void test_sweep_hull_matches_box(void) {
  JlObstacle box = make(JL_OBSTACLE_BOX, 1, 2, 3, 0, 0, 30);
  box.size[0] = 0.3, box.size[1] = 0.02, box.size[2] = 0.4;
  double pts[24];
  JlObstacle hull = cube_hull(&box, pts);
  const double seg[][6] = {
      {0.05, 0.1, 0.1, 0.05, -0.1, 0.1},   /* straight through the 2 cm slab */
      {0.1, 0, 0.5, 0, 0, 0.1},            /* oblique through +z */
      {-0.3, 0.05, -0.3, 0.1, -0.02, 0.1}, /* diagonal */
      {0.2, 0.011, 0, -0.2, 0.011, 0},     /* misses, 1 mm above the top */
  };
  for (int i = 0; i < 4; i++) {
    double a[3], b[3], tb, th;
    world_point(&box, seg[i], a);
    world_point(&box, seg[i] + 3, b);
    JlObstacleHit hb, hh;
    int rb = jl_obstacle_sweep(&box, a, b, &tb, &hb), rh = jl_obstacle_sweep(&hull, a, b, &th, &hh);
    ENSURE_MSG(rb == rh, "case %d: box %d hull %d", i, rb, rh);
    if (!rb) continue;
    double len = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
    ENSURE_NEAR(th, tb, JL_OBSTACLE_HULL_TOLERANCE / len);
    ENSURE(th >= tb - 1e-12); /* MPR says "overlap" only when it is sure: never before the entry */
    ENSURE_NEAR(hh.dist, hb.dist, JL_OBSTACLE_HULL_TOLERANCE);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hh.n[k], hb.n[k], 1e-9);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(hh.point[k], hb.point[k], JL_OBSTACLE_HULL_TOLERANCE);
  }
  /* starting inside the hull: 0 */
  double il[3] = {0, 0, 0}, ol[3] = {0, 0.5, 0}, iw[3], ow[3], t;
  world_point(&box, il, iw);
  world_point(&box, ol, ow);
  JlObstacleHit h;
  ENSURE(!jl_obstacle_sweep(&hull, iw, ow, &t, &h));
  ENSURE(jl_obstacle_sweep(&hull, ow, iw, &t, &h));
}

/* NaN, infinities, zero-length paths, points at a shape's centre, empty hulls */
static void test_degenerate_inputs(void) {
  JlObstacleHit hit;
  double t, nanp[3] = {0, NAN, 0}, infp[3] = {INFINITY, 0, 0}, o0[3] = {0, 0, 0}, up[3] = {0, 2, 0};
  for (int ty = 0; ty < JL_OBSTACLE_COUNT; ty++) {
    JlObstacle o = make((JlObstacleType)ty, 0, 0, 0, 10, 20, 30);
    double pts[24];
    if (ty == JL_OBSTACLE_HULL) o = cube_hull(&o, pts);
    ENSURE(!jl_obstacle_query(&o, nanp, 0.1, -1, &hit));
    ENSURE(!jl_obstacle_query(&o, infp, 0.1, -1, &hit));
    ENSURE(!jl_obstacle_query(&o, o0, NAN, -1, &hit));
    ENSURE(!jl_obstacle_query(&o, o0, -1.0, -1, &hit));
    ENSURE(!jl_obstacle_sweep(&o, nanp, o0, &t, &hit));
    ENSURE(!jl_obstacle_sweep(&o, up, nanp, &t, &hit));
    ENSURE(!jl_obstacle_sweep(&o, up, infp, &t, &hit));
    ENSURE(!jl_obstacle_sweep(&o, up, up, &t, &hit)); /* zero length, outside */
    /* the centre: inside, a unit normal */
    if (ty == JL_OBSTACLE_PLANE) continue;
    ENSURE_MSG(jl_obstacle_query(&o, o0, 0.0, -1, &hit), "type %d", ty);
    ENSURE_NEAR(norm3(hit.n), 1.0, 1e-12);
    ENSURE(hit.dist < 0);
  }
  JlObstacle sph = make(JL_OBSTACLE_SPHERE, 0, 0, 0, 0, 0, 0);
  ENSURE(jl_obstacle_query(&sph, o0, 0.0, -1, &hit));
  ENSURE_NEAR(hit.dist, -0.5, 0);
  ENSURE_NEAR(hit.n[1], 1.0, 0);
  JlObstacle box = make(JL_OBSTACLE_BOX, 0, 0, 0, 0, 0, 0);
  ENSURE(jl_obstacle_query(&box, o0, 0.0, -1, &hit));
  ENSURE(hit.feature == JL_BOX_FACE_POS_X);
  ENSURE_NEAR(hit.dist, -0.5, 0);
  JlObstacle empty = make(JL_OBSTACLE_HULL, 0, 0, 0, 0, 0, 0);
  ENSURE(!jl_obstacle_query(&empty, o0, 0.1, -1, &hit));
  ENSURE(!jl_obstacle_sweep(&empty, up, o0, &t, &hit));
}

/* ---------------------------------------------------------------- randomized against brute force */

/* A random obstacle of type ty (hull: 14 points on a random ellipsoid, owned by pts). */
static JlObstacle random_obstacle(int ty, double *pts) {
  JlObstacle o = make((JlObstacleType)ty, 0.3 * rnd(), 0.3 * rnd(), 0.3 * rnd(), 180 * rnd(), 180 * rnd(), 180 * rnd());
  o.size[0] = 0.6 + 0.5 * rnd(), o.size[1] = 0.03 + 0.02 * rnd(), o.size[2] = 0.4 + 0.3 * rnd();
  o.radius = 0.3 + 0.1 * rnd();
  o.length = 0.5 + 0.4 * rnd();
  if (ty == JL_OBSTACLE_HULL) {
    double ax[3] = {0.4 + 0.2 * rnd(), 0.1 + 0.05 * rnd(), 0.3 + 0.1 * rnd()};
    o.npoint = 14;
    o.point = pts;
    for (int i = 0; i < 14; i++) {
      double u[3] = {rnd(), rnd(), rnd()}, l = norm3(u);
      for (int k = 0; k < 3; k++) pts[3 * i + k] = ax[k] * u[k] / (l > 0 ? l : 1);
    }
  }
  return o;
}

/* a point inside o (not a plane): its centre, or the mean of a hull's points */
static void interior_point(const JlObstacle *o, double *x) {
  double m[3] = {0, 0, 0};
  for (int i = 0; i < o->npoint && o->type == JL_OBSTACLE_HULL; i++)
    for (int k = 0; k < 3; k++) m[k] += o->point[3 * i + k] / o->npoint;
  world_point(o, m, x);
}

static int inside(const JlObstacle *o, const double *p) {
  double d, n[3];
  return jl_obstacle_penetration(o, p, &d, n);
}

/* A random path near o: the sweep's entry is on the surface, no sample before
 * it is inside, and a path with an inside sample is caught no later than that
 * sample. *hits counts the paths caught. */
static void random_sweep_case(const JlObstacle *o, int ty, int c, int nsample, double tol, int *hits) {
  /* aimed at a point near the obstacle, ending before or beyond it */
  double a[3], b[3], aim[3], t, len = 0, beyond = 1.2 * rnd();
  for (int k = 0; k < 3; k++) aim[k] = o->translate[k] + 0.35 * rnd(), a[k] = aim[k] + 0.5 * rnd();
  for (int k = 0; k < 3; k++) b[k] = aim[k] + beyond * (aim[k] - a[k]), len += (b[k] - a[k]) * (b[k] - a[k]);
  len = sqrt(len);
  JlObstacleHit hit;
  int r = jl_obstacle_sweep(o, a, b, &t, &hit);
  int first = -1;
  for (int i = 0; i <= nsample && first < 0; i++) {
    double s = (double)i / nsample, x[3];
    for (int k = 0; k < 3; k++) x[k] = a[k] + s * (b[k] - a[k]);
    if (inside(o, x)) first = i;
  }
  if (first == 0) {
    ENSURE_MSG(!r, "type %d case %d: sweep from inside", ty, c);
    return;
  }
  if (first > 0) ENSURE_MSG(r && t <= (double)first / nsample + tol / len, "type %d case %d: missed", ty, c);
  if (!r) return;
  (*hits)++;
  ENSURE(t > 0 && t <= 1);
  double e[3], d[3];
  for (int k = 0; k < 3; k++) e[k] = a[k] + t * (b[k] - a[k]), d[k] = b[k] - a[k];
  for (int k = 0; k < 3; k++) ENSURE_NEAR(hit.point[k], e[k], tol + 1e-12);
  ENSURE_NEAR(norm3(hit.n), 1.0, 1e-12);
  double sep[3] = {a[0] - hit.point[0], a[1] - hit.point[1], a[2] - hit.point[2]};
  ENSURE(hit.dist >= 0);
  ENSURE_NEAR(hit.dist, fmax(dot3(hit.n, sep), 0.0), 1e-12);
  /* the entry point is on the surface and no sample before it is inside */
  JlObstacleHit qh;
  ENSURE_MSG(jl_obstacle_query(o, e, 2 * tol, -1, &qh), "type %d case %d: entry off the surface", ty, c);
  ENSURE_MSG(fabs(qh.dist) <= 2 * tol, "type %d case %d: entry %.3g from the surface", ty, c, qh.dist);
  if (first > 0) ENSURE((double)first / nsample >= t - tol / len - 1e-12);
  /* the path comes from the outer side of the entry feature */
  ENSURE(dot3(hit.n, d) <= 1e-9);
}

/* A random point near o. Inside: the query's dist is minus
 * jl_obstacle_penetration's depth. Within margin outside: the surface point
 * p - dist n has inside points just below it and outside points just above it,
 * and no sampled point of the ball of radius 0.999 dist about p is inside.
 * Beyond the margin: no sampled point of the margin ball is inside. *near
 * counts the points found outside within the margin. */
static void random_query_case(const JlObstacle *o, int ty, int c, double margin, int *near) {
  double p[3], depth, dir[3];
  for (int k = 0; k < 3; k++) p[k] = o->translate[k] + 0.5 * rnd();
  JlObstacleHit qh;
  int rq = jl_obstacle_query(o, p, margin, -1, &qh);
  if (jl_obstacle_penetration(o, p, &depth, dir)) {
    ENSURE_MSG(rq, "type %d case %d: inside point not found", ty, c);
    ENSURE_NEAR(qh.dist, -depth, 1e-12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(qh.n[k], dir[k], 1e-12);
    if (o->type != JL_OBSTACLE_BOX) return;
    /* a random hinted face: p - dist n is on that face, just in along -n, just out along n */
    int f = (int)(3.0 * (rnd() + 1.0)) % JL_BOX_FACE_COUNT;
    ENSURE(jl_obstacle_query(o, p, 0.0, f, &qh));
    ENSURE(qh.feature == f && qh.dist <= 0 && qh.dist >= -o->size[f / 2]);
    double fin[3], fout[3];
    for (int k = 0; k < 3; k++) fin[k] = qh.point[k] - 1e-9 * qh.n[k], fout[k] = qh.point[k] + 1e-9 * qh.n[k];
    ENSURE_MSG(inside(o, fin) && !inside(o, fout), "case %d: hinted face %d point off the face", c, f);
    return;
  }
  double radius = rq ? 0.999 * qh.dist : margin;
  for (int i = 0; i < 300; i++) {
    double u[3] = {rnd(), rnd(), rnd()}, l = norm3(u), x[3];
    if (!(l > 1e-3)) continue;
    for (int k = 0; k < 3; k++) x[k] = p[k] + radius * u[k] / l;
    ENSURE_MSG(!inside(o, x), "type %d case %d: inside point closer than %.6g", ty, c, radius);
  }
  if (!rq) return;
  (*near)++;
  ENSURE(qh.dist >= 0 && qh.dist <= margin);
  ENSURE_NEAR(norm3(qh.n), 1.0, 1e-12);
  for (int k = 0; k < 3; k++) ENSURE_NEAR(p[k] - qh.dist * qh.n[k], qh.point[k], 1e-12);
  /* just inside: towards an interior point (-n itself can leave a sharp hull vertex) */
  double below[3], above[3], in[3], eps = 1e-6;
  interior_point(o, in);
  double u[3] = {in[0] - qh.point[0], in[1] - qh.point[1], in[2] - qh.point[2]}, ul = norm3(u);
  if (o->type == JL_OBSTACLE_PLANE) u[0] = -qh.n[0], u[1] = -qh.n[1], u[2] = -qh.n[2], ul = 1.0;
  for (int k = 0; k < 3; k++) below[k] = qh.point[k] + eps * u[k] / ul, above[k] = qh.point[k] + eps * qh.n[k];
  ENSURE_MSG(inside(o, below), "type %d case %d: below the surface point is outside", ty, c);
  ENSURE_MSG(!inside(o, above), "type %d case %d: above the surface point is inside", ty, c);
}

/* every type, a few hundred random paths and points each (deterministic RNG) */
static void test_random_against_brute_force(void) {
  const int ncase = jl_test_quick() ? 60 : 300, nsample = jl_test_quick() ? 400 : 2000;
  int hits[JL_OBSTACLE_COUNT] = {0}, near[JL_OBSTACLE_COUNT] = {0};
  for (int ty = 0; ty < JL_OBSTACLE_COUNT; ty++) {
    double tol = ty == JL_OBSTACLE_HULL ? JL_OBSTACLE_HULL_TOLERANCE : 1e-9;
    for (int c = 0; c < ncase; c++) {
      double pts[42];
      JlObstacle o = random_obstacle(ty, pts);
      random_sweep_case(&o, ty, c, nsample, tol, &hits[ty]);
      if (jl_test_failed()) return;
      for (int i = 0; i < 3; i++) {
        random_query_case(&o, ty, c, 0.1, &near[ty]);
        if (jl_test_failed()) return;
      }
    }
  }
  /* the random cases exercise both branches for every type */
  for (int ty = 0; ty < JL_OBSTACLE_COUNT; ty++)
    printf("  type %d: %d sweep hits, %d near points\n", ty, hits[ty], near[ty]);
  for (int ty = 0; ty < JL_OBSTACLE_COUNT; ty++)
    ENSURE_MSG(hits[ty] >= ncase / 20 && near[ty] >= ncase / 50, "type %d: %d sweep hits, %d near points", ty, hits[ty],
               near[ty]);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"hint_keeps_entry_face", test_hint_keeps_entry_face}, {"query_regions", test_query_regions},
             {"hull_query_matches_box", test_hull_query_matches_box}, {"sweep_thin_box", test_sweep_thin_box},
             {"sweep_rotated_box", test_sweep_rotated_box}, {"sweep_sphere_capsule", test_sweep_sphere_capsule},
             {"sweep_hull_matches_box", test_sweep_hull_matches_box}, {"degenerate_inputs", test_degenerate_inputs},
             {"random_against_brute_force", test_random_against_brute_force},
             {"support_and_width", test_support_and_width})
