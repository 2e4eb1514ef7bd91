/* Rolling resistance (src/rolling.c) and the material damping of volume
 * bodies (src/model.c): the element's Jacobian against central differences
 * when sticking and when rolling, no net force and no net torque on a pair
 * of bodies, a soft ball that stays where it was set (and rolls away without
 * the element: the case fails on the bug it guards), a ball held on a gentle
 * slope and rolling down a steep one, a stable explicit step, and the
 * damping ratio of stiffness-proportional material damping. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/force.h"
#include "src/world.h"
#include "tests/fixtures.h"
#include "tests/harness.h"
#include "tests/scene_world.h"

#define PI 3.14159265358979323846

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double rnd(void) { return jl_test_rnd(&rng); }

/* A soft ball (r 0.15 m, E 2e5 Pa, 14 kg) set 5 mm above the ground plane
 * (slope_deg < 0), or above a box obstacle tilted by slope_deg about z whose
 * top face passes through the origin; `more` adds body keys. */
static int ball_world(JlWorld *w, double rolling, double slope_deg, const char *integrator, const char *more) {
  char text[2048], obstacle[256] = "";
  double th = (slope_deg > 0 ? slope_deg : 0) * PI / 180.0, n[2] = {-sin(th), cos(th)};
  if (slope_deg >= 0)
    snprintf(obstacle, sizeof obstacle,
             "\"obstacles\": [ { \"type\": \"box\", \"size\": [4, 0.2, 1], \"rotate_deg\": [0, 0, %.9g],"
             " \"translate\": [%.9f, %.9f, 0] } ],",
             slope_deg, -0.1 * n[0], -0.1 * n[1]);
  snprintf(text, sizeof text,
           "{ \"duration\": 3, \"fps\": 60, \"integrator\": \"%s\","
           "  \"ground\": { \"y\": %g, \"friction\": 0.5, \"rolling_resistance\": %g },"
           "  \"contact\": { \"friction\": 0.5, \"rolling_resistance\": %g }, %s"
           "  \"bodies\": [ { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.15 },"
           "    \"translate\": [%.9f, %.9f, 0], \"tetgen\": { \"max_volume\": 2e-4 },"
           "    \"density\": 1000, \"young_modulus\": 2e5 %s } ] }",
           integrator, slope_deg >= 0 ? -5.0 : 0.0, rolling, rolling, obstacle, 0.155 * n[0], 0.155 * n[1], more);
  return jl_test_scene_world(w, text, "rolling.json");
}

static void com(const JlWorld *w, int b, double c[3]) { jl_model_body_com(w->model, w->state.x, b, c); }

static int run(JlWorld *w, double seconds, double h) {
  int n = (int)lround(seconds / h);
  for (int k = 0; k < n; k++) {
    JlStepReport rep;
    if (jl_world_step(w, h, &rep) != JL_OK) {
      printf("  step %d: %s\n", k, rep.message);
      return 0;
    }
  }
  return 1;
}

/* the ball's travel (m) between t0 and t1, measured in the x-z plane */
static double travel(double rolling, double slope_deg, double h, double t0, double t1, double *along_x) {
  JlWorld w;
  if (!ball_world(&w, rolling, slope_deg, "implicit", "")) return NAN;
  double c0[3], c1[3];
  int ok = run(&w, t0, h);
  com(&w, 0, c0);
  ok = ok && run(&w, t1 - t0, h);
  com(&w, 0, c1);
  jl_world_destroy(&w);
  if (along_x) *along_x = c1[0] - c0[0];
  return ok ? sqrt((c1[0] - c0[0]) * (c1[0] - c0[0]) + (c1[1] - c0[1]) * (c1[1] - c0[1]) +
                   (c1[2] - c0[2]) * (c1[2] - c0[2]))
            : NAN;
}

static void test_ball_rests(void) {
  /* a mass-spring ball is anisotropic: under its own weight it prefers an
   * orientation and, with nothing to resist rolling, rolls to it
   * (docs/collision.md, "Rolling resistance") */
  for (int k = 0; k < 2; k++) {
    double h = k ? 0.002 : 1.0 / 60.0;
    double held = travel(0.05, -1, h, 1.0, 3.0, NULL), free_roll = travel(0.0, -1, h, 1.0, 3.0, NULL);
    printf("  dt %.4g: ball on the ground, drift 1-3 s: %.3g mm; without rolling resistance %.3g mm\n", h, 1e3 * held,
           1e3 * free_roll);
    ENSURE_MSG(held < 5e-4, "the ball drifted %.3g mm", 1e3 * held);
    ENSURE_MSG(free_roll > 5e-3, "without rolling resistance the ball stayed (%.3g mm): the case cannot fail",
               1e3 * free_roll);
  }
}

static void test_slopes(void) {
  /* held where tan(slope) < rolling_resistance (the torque m g sin R below
   * mu_r m g cos R), rolling down where it is above: 2 and 4.5 degrees
   * against 0.05 (2.86 degrees) */
  double dx_gentle, dx_steep;
  double gentle = travel(0.05, 2.0, 1.0 / 60.0, 1.0, 3.0, &dx_gentle);
  double steep = travel(0.05, 4.5, 1.0 / 60.0, 1.0, 3.0, &dx_steep);
  printf("  2 degrees: %.3g mm in 2 s; 4.5 degrees: %.3g m (x %.3g m)\n", 1e3 * gentle, steep, dx_steep);
  ENSURE_MSG(gentle < 1e-3, "the ball crept %.3g mm down a 2 degree slope", 1e3 * gentle);
  ENSURE_MSG(steep > 0.05 && dx_steep < 0.0, "the ball did not roll down the 4.5 degree slope (%.3g m)", steep);
}

/* a soft cube resting on a soft ball on the ground, after 0.3 s: two pairs
 * (ball-ground, cube-ball) */
static int stacked_world(JlWorld *w) {
  const char *text =
      "{ \"duration\": 1, \"fps\": 60, \"ground\": { \"y\": 0, \"friction\": 0.5 },"
      "  \"contact\": { \"friction\": 0.5, \"restitution\": 0 },"
      "  \"bodies\": ["
      "   { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.15 }, \"translate\": [0, 0.152, 0],"
      "     \"tetgen\": { \"max_volume\": 2e-4 }, \"density\": 1000, \"young_modulus\": 2e5 },"
      "   { \"name\": \"cube\", \"shape\": { \"type\": \"box\", \"size\": [0.1, 0.1, 0.1], \"resolution\": 0.05 },"
      "     \"translate\": [0.01, 0.352, 0], \"density\": 500, \"young_modulus\": 2e5 } ] }";
  if (!jl_test_scene_world(w, text, "stacked.json")) return 0;
  return run(w, 0.3, 1.0 / 60.0);
}

static void test_jacobian_fd(void) {
  JlWorld w;
  ENSURE(stacked_world(&w));
  const JlModel *m = w.model;
  JlForce *ro = jl_world_find_force(&w, JL_FORCE_ROLLING);
  ENSURE_MSG(ro, "no rolling element");
  int n3 = 3 * m->nnode;
  double *x = calloc((size_t)n3, sizeof(double)), *v = calloc((size_t)n3, sizeof(double));
  double *u = calloc((size_t)n3, sizeof(double));
  for (int pass = 0; pass < 2; pass++) {
    /* pass 0: the state as it is (sticking); pass 1: the cube spun fast
     * about z at the step's start (rolling on the ball: lagged viscosity) */
    memcpy(x, w.state.x, (size_t)n3 * sizeof(double));
    memcpy(v, w.state.v, (size_t)n3 * sizeof(double));
    if (pass == 1) {
      double c[3];
      com(&w, 1, c);
      const JlBody *b = &m->body[1];
      for (int i = b->node_begin; i < b->node_begin + b->node_count; i++) {
        v[3 * i] += -3.0 * (x[3 * i + 1] - c[1]);
        v[3 * i + 1] += 3.0 * (x[3 * i] - c[0]);
      }
    }
    /* the step's set-up as jl_world_step does it: every element's begin_step in order */
    for (int e = 0; e < w.nforce; e++)
      if (w.force[e]->ops->begin_step) w.force[e]->ops->begin_step(w.force[e], m, x, v, 1.0 / 60.0);
    for (int e = 0; e < w.nforce; e++)
      if (w.force[e]->ops->refine) w.force[e]->ops->refine(w.force[e], m, NULL, NULL);
    /* a little into the step */
    for (int k = 0; k < n3; k++) x[k] += 1e-6 * rnd(), v[k] += 1e-4 * rnd();
    double worst = 0.0;
    for (int trial = 0; trial < 4; trial++) {
      for (int k = 0; k < n3; k++) u[k] = rnd();
      worst = fmax(worst, jl_test_fd_error(ro, m, x, v, 1.0, 0.0, JL_LIN_EXACT, u, 1e-7, JL_TEST_FD_L2));
      worst = fmax(worst, jl_test_fd_error(ro, m, x, v, 0.0, 1.0, JL_LIN_EXACT, u, 1e-7, JL_TEST_FD_L2));
    }
    /* the forces are not zero (the check compares something) */
    double *f = calloc((size_t)n3, sizeof(double)), fn = 0.0;
    ro->ops->force(ro, m, x, v, f, NULL);
    for (int k = 0; k < n3; k++) fn += f[k] * f[k];
    free(f);
    printf("  %s: Jacobian vs central differences %.3g (|F| %.3g N)\n", pass ? "rolling" : "sticking", worst, sqrt(fn));
    ENSURE_MSG(fn > 0.0, "the rolling element exerts no force");
    ENSURE_MSG(worst < 1e-6, "rolling-resistance Jacobian vs central differences: relative error %.3g", worst);
  }
  free(x), free(v), free(u);
  jl_world_destroy(&w);
}

static void test_no_net_force_or_torque(void) {
  /* the torque on a pair of bodies is applied as the force field of a rigid
   * angular acceleration on each: no net force on either, and the two
   * torques cancel. Zero gravity, no ground: a cube thrown onto a ball,
   * then spun on it so that the pair rolls. */
  const char *text =
      "{ \"duration\": 1, \"fps\": 60, \"gravity\": [0, 0, 0], \"contact\": { \"friction\": 0.5, \"restitution\": 0 },"
      "  \"bodies\": ["
      "   { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.15 },"
      "     \"tetgen\": { \"max_volume\": 2e-4 }, \"density\": 1000, \"young_modulus\": 2e5 },"
      "   { \"name\": \"cube\", \"shape\": { \"type\": \"box\", \"size\": [0.1, 0.1, 0.1], \"resolution\": 0.05 },"
      "     \"translate\": [0.01, 0.203, 0], \"velocity\": [0, -1, 0], \"density\": 500, \"young_modulus\": 2e5 } ] }";
  JlWorld w;
  ENSURE(jl_test_scene_world(&w, text, "pair.json"));
  ENSURE(run(&w, 0.05, 1.0 / 60.0));
  const JlModel *m = w.model;
  JlForce *ro = jl_world_find_force(&w, JL_FORCE_ROLLING);
  ENSURE(ro);
  int n3 = 3 * m->nnode;
  double *v = calloc((size_t)n3, sizeof(double)), *f = calloc((size_t)n3, sizeof(double));
  memcpy(v, w.state.v, (size_t)n3 * sizeof(double));
  double c[3];
  com(&w, 1, c);
  const JlBody *b = &m->body[1];
  for (int i = b->node_begin; i < b->node_begin + b->node_count; i++) {
    v[3 * i] += -2.0 * (w.state.x[3 * i + 1] - c[1]);
    v[3 * i + 1] += 2.0 * (w.state.x[3 * i] - c[0]);
  }
  for (int e = 0; e < w.nforce; e++)
    if (w.force[e]->ops->begin_step) w.force[e]->ops->begin_step(w.force[e], m, w.state.x, v, 1.0 / 60.0);
  ro->ops->force(ro, m, w.state.x, v, f, NULL);
  double F[2][3] = {{0}}, T[3] = {0}, scale = 0.0;
  for (int i = 0; i < m->nnode; i++) {
    const double *xi = w.state.x + 3 * i, *fi = f + 3 * i;
    for (int a = 0; a < 3; a++) F[m->node_body[i]][a] += fi[a];
    T[0] += xi[1] * fi[2] - xi[2] * fi[1];
    T[1] += xi[2] * fi[0] - xi[0] * fi[2];
    T[2] += xi[0] * fi[1] - xi[1] * fi[0];
    scale += sqrt(fi[0] * fi[0] + fi[1] * fi[1] + fi[2] * fi[2]) * sqrt(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]);
  }
  double fm = 0.0;
  for (int bb = 0; bb < 2; bb++)
    for (int a = 0; a < 3; a++) fm = fmax(fm, fabs(F[bb][a]));
  double tn = sqrt(T[0] * T[0] + T[1] * T[1] + T[2] * T[2]);
  printf("  net force per body %.3g N, net torque %.3g N m (sum of |x| |f| %.3g N m)\n", fm, tn, scale);
  ENSURE_MSG(scale > 1e-3, "the pair exerts no torque (%.3g)", scale);
  ENSURE_MSG(fm < 1e-12 * scale, "net force %.3g N", fm);
  ENSURE_MSG(tn < 1e-12 * scale, "net torque %.3g N m", tn);
  free(v), free(f);
  jl_world_destroy(&w);
}

static void test_explicit_stable(void) {
  /* the rolling spring and damper are held to what one explicit step can take */
  JlWorld w;
  ENSURE(ball_world(&w, 0.05, -1, "symplectic", ""));
  double h = jl_world_stable_dt(&w, JL_INTEGRATOR_SYMPLECTIC, 1.0 / 60.0, 0.5).dt;
  ENSURE(run(&w, 0.5, h));
  JlEnergy e;
  jl_world_energy(&w, &e);
  printf("  symplectic Euler at %.3g s: kinetic energy at 0.5 s %.3g J\n", h, e.kinetic);
  ENSURE_MSG(e.kinetic < 1.0, "kinetic energy %.3g J after a 5 mm drop", e.kinetic);
  jl_world_destroy(&w);
}

static void test_material_damping_ratio(void) {
  /* two nodes on one spring: stiffness-proportional damping beta k gives
   * the axial mode (omega^2 = k / m_r) the damping ratio beta omega / 2,
   * held at critical (1) */
  for (int k = 0; k < 2; k++) {
    double beta = k ? 1.0 : 0.005;
    char text[1024];
    snprintf(text, sizeof text,
             "{ \"duration\": 1, \"fps\": 60, \"gravity\": [0, 0, 0],"
             "  \"bodies\": [ { \"name\": \"bar\", \"shape\": { \"type\": \"box\", \"size\": [0.1, 0.1, 0.1] },"
             "    \"density\": 1000, \"young_modulus\": 2e5, \"damping\": 0, \"material_damping\": %g } ] }",
             beta);
    JlWorld w;
    ENSURE(jl_test_scene_world(&w, text, "damping.json"));
    const JlModel *m = w.model;
    int worst = -1;
    double ratio = 0.0, err = 0.0;
    for (int s = 0; s < m->nspring; s++) {
      int i = m->spring_node[2 * s], j = m->spring_node[2 * s + 1];
      double mr = m->mass[i] * m->mass[j] / (m->mass[i] + m->mass[j]), om = sqrt(m->spring_k[s] / mr);
      double zeta = m->spring_kd[s] / (2.0 * sqrt(m->spring_k[s] * mr)), want = fmin(beta * om / 2.0, 1.0);
      if (fabs(zeta - want) > err) err = fabs(zeta - want), worst = s;
      ratio = fmax(ratio, zeta);
    }
    printf("  material_damping %g s: largest spring damping ratio %.3g, worst error %.2g (spring %d)\n", beta, ratio,
           err, worst);
    ENSURE_MSG(err < 1e-12, "a spring's damping ratio is off by %.3g", err);
    ENSURE_MSG(ratio <= 1.0 + 1e-12, "a spring is damped beyond critical (%.3g)", ratio);
    jl_world_destroy(&w);
  }
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"ball_rests", test_ball_rests, JL_SCENE}, {"slopes", test_slopes, JL_SCENE},
             {"jacobian_fd", test_jacobian_fd}, {"no_net_force_or_torque", test_no_net_force_or_torque},
             {"explicit_stable", test_explicit_stable, JL_SCENE | JL_SHORT},
             {"material_damping_ratio", test_material_damping_ratio, JL_SCENE | JL_SHORT})
