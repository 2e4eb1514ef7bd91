/* Proximity contacts of cloth and ropes (collision/thin.h, src/contact.c):
 * closest points, the contact force's Jacobian against central differences,
 * and small scenes whose outcome is asserted (ropes that do not pass through
 * each other, a cube that stays on its side of a coarse cloth, cloth and rope
 * resting at their half-thickness on an obstacle and the ground). The
 * acceptance scenes of the issue are in tests/test_thin.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/narrow.h"
#include "collision/thin.h"
#include "src/contact.h"
#include "tests/fixtures.h"
#include "tests/harness.h"
#include "tests/scene_world.h"

static unsigned long long rnd_state = 0x9E3779B97F4A7C15ull;
static double rnd(void) { return jl_test_rnd(&rnd_state); }

static JlForce *contacts_of(JlWorld *w) { return jl_world_find_force(w, JL_FORCE_CONTACTS); }

/* closest points of two segments against a dense sampling of both */
static void test_closest_segments(void) {
  double worst = 0.0;
  for (int trial = 0; trial < 400; trial++) {
    double p0[3], p1[3], q0[3], q1[3];
    for (int a = 0; a < 3; a++) p0[a] = rnd(), p1[a] = rnd(), q0[a] = rnd(), q1[a] = rnd();
    if (trial % 4 == 1) /* parallel */
      for (int a = 0; a < 3; a++) q1[a] = q0[a] + 0.7 * (p1[a] - p0[a]);
    if (trial % 4 == 2) memcpy(p1, p0, sizeof p1); /* a point */
    double s, t, d2 = jl_closest_segments(p0, p1, q0, q1, &s, &t), best = INFINITY;
    ENSURE(s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0);
    for (int i = 0; i <= 200; i++)
      for (int j = 0; j <= 200; j++) {
        double d[3];
        for (int a = 0; a < 3; a++) d[a] = p0[a] + i / 200.0 * (p1[a] - p0[a]) - q0[a] - j / 200.0 * (q1[a] - q0[a]);
        double e = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (e < best) best = e;
      }
    ENSURE_MSG(d2 <= best + 1e-12, "trial %d: closest distance^2 %.6g above a sampled %.6g", trial, d2, best);
    worst = fmax(worst, best - d2);
  }
  printf("  sampled distance^2 at most %.2e above the closest points' (grid 1/200)\n", worst);
}

/* the first moment two moving segments come within a distance
 * (jl_segments_first_within, conservative advancement) against a dense
 * sampling of their paths: the distance there is within the target, and no
 * earlier sample comes closer than the target less what one forced step of
 * 1/256 can skip (L / 256); when none is returned, no sample does */
static void test_segments_first_within(void) {
  int found = 0;
  for (int trial = 0; trial < 300; trial++) {
    double pv[4][3], dv[4][3];
    for (int k = 0; k < 4; k++)
      for (int a = 0; a < 3; a++) pv[k][a] = rnd(), dv[k][a] = 2.0 * rnd() - 1.0;
    if (trial % 3 == 0) /* segment b swings about its middle through a */
      for (int a = 0; a < 3; a++) dv[2][a] = -dv[3][a], dv[0][a] = dv[1][a] = 0.0;
    const double *p[4] = {pv[0], pv[1], pv[2], pv[3]}, *dp[4] = {dv[0], dv[1], dv[2], dv[3]};
    double L = 0.0, target = 0.05 + 0.1 * rnd();
    for (int i = 0; i < 2; i++)
      for (int j = 2; j < 4; j++) {
        double d[3] = {dv[i][0] - dv[j][0], dv[i][1] - dv[j][1], dv[i][2] - dv[j][2]};
        L = fmax(L, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      }
    double s, t, tau = jl_segments_first_within(p, dp, target, &s, &t);
    double end = tau >= 0.0 ? tau : 1.0;
    for (int i = 0; i <= 4000; i++) {
      double ti = i / 4000.0, q[4][3], ss, tt;
      if (ti >= end) break;
      for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++) q[k][a] = pv[k][a] + ti * dv[k][a];
      double d = sqrt(jl_closest_segments(q[0], q[1], q[2], q[3], &ss, &tt));
      ENSURE_MSG(d > target - L / 256.0 - 1e-12,
                 "trial %d: at tau %.4f the segments are %.4g apart, target %.4g, first %.4f", trial, ti, d, target,
                 tau);
    }
    if (tau >= 0.0) {
      double q[4][3], ss, tt;
      for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++) q[k][a] = pv[k][a] + tau * dv[k][a];
      double d = sqrt(jl_closest_segments(q[0], q[1], q[2], q[3], &ss, &tt));
      ENSURE_MSG(d <= target && fabs(ss - s) < 1e-12 && fabs(tt - t) < 1e-12, "trial %d: %.4g apart at tau %.4f", trial,
                 d, tau);
      found++;
    }
  }
  printf("  %d of 300 moving pairs came within the target; none earlier than found (sampled at 1/4000)\n", found);
  ENSURE(found > 30 && found < 270);
}

/* two ropes crossing 4 mm apart (radius 5 mm each: edge-edge), a cube's top
 * 2 mm under a cloth (thickness 1 cm: point-triangle) and a rope lying on
 * the cube (point-segment, rope node inside the cube), no gravity */
static const char *const pairs_scene =
    "{ \"gravity\": [0, 0, 0], \"contact\": { \"friction\": 0.4, \"push_out_speed\": 100 },\n"
    "  \"bodies\": [\n"
    "  { \"name\": \"cube\", \"shape\": { \"type\": \"box\", \"size\": [0.2, 0.2, 0.2], \"resolution\": 0.1 },\n"
    "    \"translate\": [0, 0, 0], \"young_modulus\": 1e5 },\n"
    "  { \"name\": \"cloth\", \"kind\": \"cloth\", \"thickness\": 0.01, \"shape\": { \"type\": \"grid\",\n"
    "    \"size\": [0.3, 0.3], \"cells\": [3, 3] }, \"rotate_deg\": [-90, 0, 0], \"translate\": [0.01, 0.102, 0.013] },\n"
    "  { \"name\": \"a\", \"kind\": \"rope\", \"shape\": { \"type\": \"chain\", \"length\": 0.4, \"segments\": 4 },\n"
    "    \"rotate_deg\": [0, 0, 90], \"translate\": [0.6, 0, 0.02] },\n"
    "  { \"name\": \"b\", \"kind\": \"rope\", \"shape\": { \"type\": \"chain\", \"length\": 0.4, \"segments\": 4 },\n"
    "    \"rotate_deg\": [-90, 0, 0], \"translate\": [0.81, 0.004, -0.18] },\n"
    "  { \"name\": \"c\", \"kind\": \"rope\", \"shape\": { \"type\": \"chain\", \"length\": 0.4, \"segments\": 4 },\n"
    "    \"rotate_deg\": [0, 0, 90], \"translate\": [-0.2, -0.098, 0.002] } ] }\n";

static void test_thin_jacobian_fd(void) {
  JlWorld w;
  ENSURE(jl_test_scene_world(&w, pairs_scene, "pairs"));
  const JlModel *m = w.model;
  JlForce *e = contacts_of(&w);
  ENSURE(e);
  int n3 = 3 * m->nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double));
  for (int pass = 0; pass < 2; pass++) {
    memcpy(x, m->x0, (size_t)n3 * sizeof(double));
    /* sticking (slow) and sliding (fast, tangential) */
    for (int k = 0; k < n3; k++) v[k] = pass ? 0.0 : 1e-4 * rnd();
    if (pass)
      for (int i = 0; i < m->nnode; i++) v[3 * i + 2] = m->node_body[i] % 2 ? 1.0 : -0.5;
    e->ops->begin_step(e, m, x, v, 1.0 / 60.0);
    e->ops->begin_step(e, m, x, v, 1.0 / 60.0);
    int n = jl_contact_count(e);
    ENSURE_MSG(n >= 3, "only %d contacts", n);
    for (int k = 0; k < n3; k++) x[k] += 1e-5 * rnd();
    double worst = 0;
    for (int trial = 0; trial < 4; trial++) {
      for (int k = 0; k < n3; k++) u[k] = rnd();
      worst = fmax(worst, jl_test_fd_error(e, m, x, v, 1.0, 0.0, JL_LIN_EXACT, u, 1e-7, JL_TEST_FD_L2));
      worst = fmax(worst, jl_test_fd_error(e, m, x, v, 0.0, 1.0, JL_LIN_EXACT, u, 1e-7, JL_TEST_FD_L2));
    }
    printf("  %s: %d contacts, Jacobian vs central differences: relative error %.2e\n", pass ? "sliding" : "sticking",
           n, worst);
    ENSURE_MSG(worst < 1e-5, "thin contact Jacobian: relative error %.3g", worst);
  }
  /* every kind of pair was found */
  const JlThinPair *tp;
  JlThinFinder *tf = jl_thin_create(jl_model_geom(m));
  memcpy(x, m->x0, (size_t)n3 * sizeof(double));
  memset(v, 0, (size_t)n3 * sizeof(double));
  int np = jl_thin_find(tf, jl_model_geom(m), x, v, 1.0 / 60.0, &tp), kinds[4] = {0, 0, 0, 0};
  for (int k = 0; k < np; k++) kinds[tp[k].kind]++;
  printf("  pairs: %d point-triangle, %d point-segment, %d edge-edge\n", kinds[1], kinds[2], kinds[3]);
  ENSURE(kinds[JL_THIN_POINT_TRIANGLE] > 0 && kinds[JL_THIN_POINT_SEGMENT] > 0 && kinds[JL_THIN_EDGE_EDGE] > 0);
  jl_thin_destroy(tf);
  free(x), free(v), free(u);
  jl_world_destroy(&w);
}

static double dist_segments(const double *x, int a0, int a1, int b0, int b1) {
  double s, t;
  return sqrt(jl_closest_segments(x + 3 * a0, x + 3 * a1, x + 3 * b0, x + 3 * b1, &s, &t));
}

/* a rope thrown across a pinned rope at `speed`: the two never pass through
 * each other (the thrown rope's middle stays on its side) */
static void ropes_cross(double speed, double dt) {
  char text[2048];
  snprintf(
      text, sizeof text,
      "{ \"gravity\": [0, 0, 0], \"dt\": %.17g,\n"
      "  \"bodies\": [\n"
      "  { \"name\": \"fixed\", \"kind\": \"rope\", \"radius\": 0.005, \"shape\": { \"type\": \"chain\", \"length\": 1,"
      "    \"segments\": 10 }, \"rotate_deg\": [0, 0, 90], \"translate\": [-0.5, 0, 0], \"stiffness\": 5000,"
      "    \"pin\": { \"nodes\": [0, 10] } },\n"
      "  { \"name\": \"thrown\", \"kind\": \"rope\", \"radius\": 0.005, \"shape\": { \"type\": \"chain\", \"length\": 0.6,"
      "    \"segments\": 6 }, \"rotate_deg\": [-90, 0, 0], \"translate\": [0.03, 0.1, -0.3], \"stiffness\": 5000,"
      "    \"velocity\": [0, %.17g, 0] } ] }\n",
      dt, -speed);
  JlWorld w;
  ENSURE(jl_test_scene_world(&w, text, "ropes"));
  const JlModel *m = w.model;
  int fixed0 = m->body[0].node_begin, thrown0 = m->body[1].node_begin;
  double dmin = INFINITY, ymid_min = INFINITY;
  int steps = (int)(0.5 / dt);
  for (int s = 0; s < steps; s++) {
    JlStepReport rep;
    ENSURE_MSG(jl_world_step(&w, dt, &rep) == JL_OK, "diverged: %s", rep.message);
    const double *x = w.state.x;
    for (int i = 0; i < 10; i++)
      for (int j = 0; j < 6; j++)
        dmin = fmin(dmin, dist_segments(x, fixed0 + i, fixed0 + i + 1, thrown0 + j, thrown0 + j + 1));
    /* the thrown rope's middle node relative to the fixed rope's node under it */
    double rel = x[3 * (thrown0 + 3) + 1] - x[3 * (fixed0 + 5) + 1];
    ymid_min = fmin(ymid_min, rel);
  }
  printf("  rope thrown at %.0f m/s, dt %.4g: closest segments %.4f m (2 r = 0.01 m), middle %.4f m above\n", speed, dt,
         dmin, ymid_min);
  ENSURE_MSG(ymid_min > 0.0, "the thrown rope passed through the fixed one (middle %.4f m below it)", -ymid_min);
  /* held at the tubes' surface within the give, also fast (13 cm a step at
   * 8 m/s: 0.3 mm apart before the edge-edge pairs followed their path
   * through the step, 9.6 mm now) */
  ENSURE_MSG(dmin > 0.01 - 0.001, "segments came %.4f m close (2 r = 0.01 m)", dmin);
  jl_world_destroy(&w);
}

static void test_ropes_do_not_pass(void) {
  ropes_cross(2.0, 1.0 / 60.0);
  ropes_cross(2.0, 0.002);
  ropes_cross(8.0, 1.0 / 60.0);
}

/* two ropes that start through each other (crossing at one point, no
 * gravity) are pushed apart at the push-out speed; the crossing split
 * (src/world.c) leaves them to that instead of halving every step of the
 * push-out, which could not separate them (6 of 30 steps were split) */
static void test_ropes_start_crossed(void) {
  const char *text =
      "{ \"gravity\": [0, 0, 0], \"dt\": 0.016666666666666666,\n"
      "  \"bodies\": [\n"
      "  { \"name\": \"a\", \"kind\": \"rope\", \"radius\": 0.005, \"shape\": { \"type\": \"chain\", \"length\": 1,"
      "    \"segments\": 10 }, \"rotate_deg\": [0, 0, 90], \"translate\": [-0.5, 0, 0], \"stiffness\": 5000 },\n"
      "  { \"name\": \"b\", \"kind\": \"rope\", \"radius\": 0.005, \"shape\": { \"type\": \"chain\", \"length\": 1,"
      "    \"segments\": 10 }, \"rotate_deg\": [-90, 0, 0], \"translate\": [0.05, 0, -0.5], \"stiffness\": 5000 } ] }\n";
  JlWorld w;
  ENSURE(jl_test_scene_world(&w, text, "ropes"));
  const JlModel *m = w.model;
  int a0 = m->body[0].node_begin, b0 = m->body[1].node_begin;
  long splits = 0;
  for (int s = 0; s < 60; s++) {
    JlStepReport rep;
    ENSURE_MSG(jl_world_step(&w, 1.0 / 60.0, &rep) == JL_OK, "diverged: %s", rep.message);
    splits += rep.crossing_splits;
  }
  double dmin = INFINITY;
  for (int i = 0; i < 10; i++)
    for (int j = 0; j < 10; j++) dmin = fmin(dmin, dist_segments(w.state.x, a0 + i, a0 + i + 1, b0 + j, b0 + j + 1));
  printf("  ropes started through each other: %.4f m apart after 1 s (2 r = 0.01 m), %ld steps split for crossing\n",
         dmin, splits);
  ENSURE_MSG(splits == 0, "%ld steps split", splits);
  ENSURE_MSG(dmin > 0.01 - 0.001, "still %.4f m apart", dmin);
  jl_world_destroy(&w);
}

/* A soft body falls on a coarse pinned cloth (cells several times its surface
 * spacing): none of its render-surface vertices ever gets below the cloth
 * triangle under it. Returns the worst depth below (m; < 0: always above). */
static double body_on_coarse_cloth(const char *body_json, const char *name) {
  char text[2048];
  snprintf(
      text, sizeof text,
      "{ \"duration\": 1.0, \"dt\": 0.016666666666666666,\n"
      "  \"bodies\": [\n"
      "  { \"name\": \"cloth\", \"kind\": \"cloth\", \"thickness\": 0.004, \"stiffness\": 4000, \"shear_stiffness\": 4000,"
      "    \"shape\": { \"type\": \"grid\", \"size\": [0.8, 0.8], \"cells\": [4, 4] }, \"rotate_deg\": [-90, 0, 0],"
      "    \"pin\": { \"nodes\": [0, 4, 20, 24] } },\n"
      "  %s ] }\n",
      body_json);
  JlWorld w;
  if (!jl_test_scene_world(&w, text, name)) {
    jl_test_fail(__FILE__, __LINE__, "%s: scene failed", name);
    return INFINITY;
  }
  const JlModel *m = w.model;
  const JlBody *cl = &m->body[0], *cu = &m->body[1];
  double worst = -INFINITY, *sv = jl_calloc(3 * (size_t)cu->surface.nvert + 3, sizeof(double));
  for (int s = 0; s < 60; s++) {
    JlStepReport rep;
    if (jl_world_step(&w, 1.0 / 60.0, &rep) != JL_OK) {
      jl_test_fail(__FILE__, __LINE__, "%s diverged: %s", name, rep.message);
      worst = INFINITY;
      break;
    }
    const double *x = w.state.x;
    jl_world_surface(&w, 1, sv);
    /* each surface vertex over the cloth: its height above the cloth triangle under it */
    for (int i = 0; i < cu->surface.nvert; i++)
      for (int t = 0; t < cl->surface.ntri; t++) {
        const int *tv = cl->surface.tri + 3 * t;
        const double *a = x + 3 * (cl->node_begin + tv[0]), *b = x + 3 * (cl->node_begin + tv[1]),
                     *c = x + 3 * (cl->node_begin + tv[2]), *p = sv + 3 * i;
        /* barycentric coordinates of the vertex's x-z position in the triangle's x-z projection */
        double det = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
        if (fabs(det) < 1e-12) continue;
        double px = p[0] - a[0], pz = p[2] - a[2];
        double l1 = (px * (c[2] - a[2]) - (c[0] - a[0]) * pz) / det,
               l2 = ((b[0] - a[0]) * pz - px * (b[2] - a[2])) / det;
        if (l1 < 0 || l2 < 0 || l1 + l2 > 1) continue;
        double ycl = a[1] + l1 * (b[1] - a[1]) + l2 * (c[1] - a[1]);
        worst = fmax(worst, ycl - p[1]); /* > 0: the vertex is below the cloth */
      }
  }
  free(sv);
  jl_world_destroy(&w);
  return worst;
}

static void test_bodies_on_coarse_cloth(void) {
  double cube = body_on_coarse_cloth(
      "{ \"name\": \"cube\", \"shape\": { \"type\": \"box\", \"size\": [0.2, 0.2, 0.2], \"resolution\": 0.05 },"
      "  \"translate\": [0.03, 0.15, 0.02], \"density\": 200, \"young_modulus\": 1e5 }",
      "cube_on_cloth");
  /* a ball whose render surface (2 cm edges) is much finer than its tets
   * (embedded in a 10 cm lattice): its surface vertices are points of the
   * tets, and each is kept on its side of the cloth */
  double ball = body_on_coarse_cloth(
      "{ \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.12, \"resolution\": 0.02 },"
      "  \"tetgen\": { \"mode\": \"embedded\", \"resolution\": 0.1 },"
      "  \"translate\": [0.03, 0.15, 0.02], \"density\": 200, \"young_modulus\": 1e5 }",
      "embedded_ball_on_cloth");
  printf("  on a 4x4 cloth: cube surface vertices at most %.4f m below the cloth under them, embedded ball's %.4f m\n",
         cube, ball);
  ENSURE_MSG(cube < 0.0, "a cube vertex got %.4f m below the cloth", cube);
  ENSURE_MSG(ball < 0.0, "an embedded ball's surface vertex got %.4f m below the cloth", ball);
}

/* cloth and a rope resting on a box obstacle and on the ground sit at their
 * half-thickness above it, not in it */
static void test_rest_at_thickness(void) {
  static const char *const text =
      "{ \"ground\": { \"y\": 0 }, \"obstacles\": [ { \"type\": \"box\", \"size\": [1, 0.2, 1], \"translate\": [-0.8, 0.1, 0] } ],\n"
      "  \"bodies\": [\n"
      "  { \"name\": \"cloth\", \"kind\": \"cloth\", \"thickness\": 0.02, \"shape\": { \"type\": \"grid\", \"size\": [0.4, 0.4],"
      "    \"cells\": [4, 4] }, \"rotate_deg\": [-90, 0, 0], \"translate\": [-0.8, 0.22, 0] },\n"
      "  { \"name\": \"rope\", \"kind\": \"rope\", \"radius\": 0.015, \"shape\": { \"type\": \"chain\", \"length\": 0.4,"
      "    \"segments\": 4 }, \"rotate_deg\": [0, 0, 90], \"translate\": [0.6, 0.02, 0] } ] }\n";
  JlWorld w;
  ENSURE(jl_test_scene_world(&w, text, "rest"));
  const JlModel *m = w.model;
  for (int s = 0; s < 90; s++) {
    JlStepReport rep;
    ENSURE_MSG(jl_world_step(&w, 1.0 / 60.0, &rep) == JL_OK, "diverged: %s", rep.message);
  }
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int b = 0; b < 2; b++)
    for (int i = m->body[b].node_begin; i < m->body[b].node_begin + m->body[b].node_count; i++) {
      lo[b] = fmin(lo[b], w.state.x[3 * i + 1]);
      hi[b] = fmax(hi[b], w.state.x[3 * i + 1]);
    }
  printf(
      "  cloth (thickness 2 cm) on a box top at 0.2 m: nodes at %.4f..%.4f m; rope (radius 1.5 cm) on the ground:"
      " %.4f..%.4f m\n",
      lo[0], hi[0], lo[1], hi[1]);
  ENSURE_MSG(fabs(lo[0] - 0.21) < 1e-3 && fabs(hi[0] - 0.21) < 1e-3, "cloth not at half its thickness above the box");
  ENSURE_MSG(fabs(lo[1] - 0.015) < 1e-3 && fabs(hi[1] - 0.015) < 1e-3, "rope not at its radius above the ground");
  jl_world_destroy(&w);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"closest_segments", test_closest_segments}, {"segments_first_within", test_segments_first_within},
             {"thin_jacobian_fd", test_thin_jacobian_fd},
             {"ropes_do_not_pass", test_ropes_do_not_pass, JL_SCENE | JL_SHORT},
             {"ropes_start_crossed", test_ropes_start_crossed, JL_SCENE | JL_SHORT},
             {"bodies_on_coarse_cloth", test_bodies_on_coarse_cloth, JL_SCENE | JL_SHORT},
             {"rest_at_thickness", test_rest_at_thickness, JL_SCENE | JL_SHORT})
