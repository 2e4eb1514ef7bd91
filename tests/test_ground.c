/* Ground friction in whole simulations: a soft box sliding on the ground
 * plane under implicit Euler at dt = 1/60 s must decelerate at about mu g
 * (Coulomb), come to rest, and never turn round or drift sideways. The
 * sliding law of src/ground.c is what is tested: a constant force against the
 * motion for the whole step, with no derivative along the motion, overshoots
 * and reverses the velocity each step (docs/collision.md); the
 * lagged-viscosity form cannot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/scene.h"
#include "src/world.h"
#include "tests/harness.h"
#include "tests/scene_world.h"
#include "tests/lattice.h"

typedef struct SlideRun {
  double v_half;      /* m/s, mean x velocity at t = 0.5 * t_stop (Coulomb) */
  double decel;       /* m/s^2, fitted mean deceleration while sliding fast */
  double t_rest;      /* s, first time the mean speed falls below 1 cm/s (-1: never) */
  double min_vx;      /* m/s, smallest mean x velocity after the start (reversal if < 0) */
  double max_vz;      /* m/s, largest |mean z velocity| (sideways jitter) */
  double final_speed; /* m/s, largest node speed at the end */
  double travel;      /* m, distance the centre moved along x */
} SlideRun;

static void mean_velocity(const JlWorld *w, double out[3]) {
  const JlModel *m = w->model;
  double mass = 0;
  out[0] = out[1] = out[2] = 0;
  for (int i = 0; i < m->nnode; i++) {
    mass += m->mass[i];
    for (int k = 0; k < 3; k++) out[k] += m->mass[i] * w->state.v[3 * i + k];
  }
  for (int k = 0; k < 3; k++) out[k] /= mass;
}

static double mean_x(const JlWorld *w) {
  const JlModel *m = w->model;
  double mass = 0, s = 0;
  for (int i = 0; i < m->nnode; i++) mass += m->mass[i], s += m->mass[i] * w->state.x[3 * i];
  return s / mass;
}

/* a 0.2 m soft box resting on the ground, given vx = v0, friction mu */
static int slide(double mu, double damping, double v0, double duration, SlideRun *out) {
  memset(out, 0, sizeof *out);
  out->t_rest = -1;
  JlTetMesh t;
  double lo[3] = {-0.1, 0.0, -0.1}, hi[3] = {0.1, 0.2, 0.1};
  lattice_box(&t, lo, hi, 3, 3, 3);
  JlBodyDef def = jl_default_body_def();
  snprintf(def.name, sizeof def.name, "box");
  def.density = 500;
  def.young_modulus = 2e5;
  def.damping = 0.5;
  def.velocity[0] = v0;
  JlWorldDef wd = jl_default_world_def();
  wd.has_ground = 1;
  wd.ground_friction = mu;
  wd.ground_damping = damping;
  JlModel m;
  char err[512];
  JlResult r = jl_model_build(&m, 1, &t, NULL, &def, &wd, err, sizeof err);
  jl_tetmesh_free(&t);
  if (r) {
    fprintf(stderr, "slide: %s\n", err);
    return 0;
  }
  JlStepDef sd = jl_default_step_def();
  JlWorld w;
  if (jl_world_create(&w, &m, &sd, err, sizeof err)) {
    fprintf(stderr, "slide: %s\n", err);
    return 0;
  }
  const double h = 1.0 / 60.0;
  int nstep = (int)lround(duration / h);
  double x0 = mean_x(&w);
  out->min_vx = v0;
  /* deceleration: least-squares slope of vx(t) while vx > 0.3 v0 */
  double st = 0, sv = 0, stt = 0, stv = 0;
  int nfit = 0;
  double t_stop_coulomb = v0 / (mu * 9.81);
  for (int s = 1; s <= nstep; s++) {
    JlStepReport rep;
    if (jl_world_step(&w, h, &rep)) {
      fprintf(stderr, "slide: %s\n", rep.message);
      jl_world_destroy(&w);
      return 0;
    }
    double tt = s * h, vm[3];
    mean_velocity(&w, vm);
    if (vm[0] < out->min_vx) out->min_vx = vm[0];
    if (fabs(vm[2]) > out->max_vz) out->max_vz = fabs(vm[2]);
    if (vm[0] > 0.3 * v0) {
      st += tt, sv += vm[0], stt += tt * tt, stv += tt * vm[0];
      nfit++;
    }
    if (fabs(tt - 0.5 * t_stop_coulomb) < 0.5 * h) out->v_half = vm[0];
    if (out->t_rest < 0 && sqrt(vm[0] * vm[0] + vm[2] * vm[2]) < 0.01) out->t_rest = tt;
  }
  if (nfit > 2) out->decel = -(nfit * stv - st * sv) / (nfit * stt - st * st);
  for (int i = 0; i < w.model->nnode; i++) {
    const double *v = w.state.v + 3 * i;
    double sp = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (sp > out->final_speed) out->final_speed = sp;
  }
  out->travel = mean_x(&w) - x0;
  jl_world_destroy(&w);
  return 1;
}

static void test_box_slides_to_rest(void) {
  /* default ground (stiffness 1e6, damping 50 per kg): Coulomb deceleration while fast; the
   * regularised (viscous) part below mu k p / c ~ 0.4 m/s then brings it smoothly to rest */
  const double mu = 0.5, v0 = 2.0, g = 9.81;
  SlideRun run;
  ENSURE(slide(mu, 50.0, v0, 1.2, &run));
  printf(
      "  damping 50: decel %.3f (mu g %.3f), v(t_stop/2) %.3f (Coulomb %.3f), rest at %.3f s, travel %.3f m, "
      "min vx %.2e, max |vz| %.2e, final max speed %.2e\n",
      run.decel, mu * g, run.v_half, 0.5 * v0, run.t_rest, run.travel, run.min_vx, run.max_vz, run.final_speed);
  /* 4.62 (6 % short) while sliding friction was lagged on the step's start speed; 4.92 since it is
   * extrapolated to the step's end (src/penalty.h, jl_slide_lag_speed) */
  ENSURE_MSG(fabs(run.decel - mu * g) < 0.03 * mu * g, "deceleration %.3f m/s^2, expected about mu g = %.3f", run.decel,
             mu * g);
  ENSURE_MSG(fabs(run.v_half - 0.5 * v0) < 0.1 * v0, "speed at half the Coulomb stopping time %.3f, expected %.3f",
             run.v_half, 0.5 * v0);
  ENSURE_MSG(run.t_rest > 0 && run.t_rest < 1.0, "not at rest after 1 s (t_rest %.3f)", run.t_rest);
  ENSURE_MSG(run.final_speed < 0.01, "still moving at the end: %.3g m/s", run.final_speed);
  /* the bug this guards threw the box back at -1.8 m/s; what remains is the
   * soft box's shear relaxing against its sticking base when it stops:
   * -0.018 m/s while friction faded out as the box slowed, -0.030 since it
   * stops it at full Coulomb force (the same without the dragged anchors) */
  ENSURE_MSG(run.min_vx > -0.02 * v0, "the box turned round: vx = %.3g m/s", run.min_vx);
  ENSURE_MSG(run.max_vz < 0.02, "sideways motion |vz| = %.3g m/s", run.max_vz);
}

static void test_sharp_friction_never_reverses(void) {
  /* damping 1000 per kg: the viscous branch ends at ~0.02 m/s, far below the speed one step
   * of Coulomb friction removes from a bottom node (~0.3 m/s). A constant sliding force then
   * overshoots; measured with that law: the box is thrown back at -1.8 m/s and ends 9 cm behind
   * its start. The lagged viscosity stops it (only the body's own elastic rebound remains). */
  const double mu = 0.5, v0 = 2.0, g = 9.81;
  SlideRun run;
  ENSURE(slide(mu, 1000.0, v0, 1.0, &run));
  printf("  damping 1000: rest at %.3f s, travel %.3f m (Coulomb %.3f), min vx %.3f, max |vz| %.2e, final %.2e\n",
         run.t_rest, run.travel, v0 * v0 / (2 * mu * g), run.min_vx, run.max_vz, run.final_speed);
  ENSURE_MSG(run.min_vx > -0.2, "the box was thrown back at %.3f m/s", run.min_vx);
  ENSURE_MSG(run.travel > 0.05, "travel %.3f m: the box must move forward before stopping", run.travel);
  ENSURE_MSG(run.max_vz < 0.1, "sideways motion |vz| = %.3g m/s", run.max_vz);
  ENSURE_MSG(run.final_speed < 0.01, "still moving at the end: %.3g m/s", run.final_speed);
}

static void test_frictionless_keeps_speed(void) {
  /* the control: with mu = 0 the box keeps its speed (only the normal damping acts) */
  SlideRun run;
  ENSURE(slide(0.0, 50.0, 2.0, 0.5, &run));
  printf("  mu 0: travel %.3f m in 0.5 s, min vx %.3f\n", run.travel, run.min_vx);
  ENSURE_MSG(run.min_vx > 1.95, "frictionless box slowed to %.3f m/s", run.min_vx);
  ENSURE_NEAR(run.travel, 1.0, 0.03);
}

/* A 1 mm soft ball resting on the ground sinks less than 2 % of its radius:
 * the penalty stiffness includes the node's springs (ground.spring_scale), so
 * light nodes of a small stiff body resist like the body. Per kg alone
 * (spring_scale 0, the old law) it sank 0.33 mm, a third of its radius. */
static double tiny_ball_depth(double spring_scale, double dt) {
  char text[1024];
  snprintf(text, sizeof text,
           "{ \"ground\": {\"y\": 0.0, \"spring_scale\": %g},\n"
           "  \"bodies\": [ {\"name\": \"bead\", \"shape\": {\"type\": \"sphere\", \"radius\": 0.001},\n"
           "    \"translate\": [0, 0.00105, 0], \"tetgen\": {\"max_volume\": 1e-10}, \"young_modulus\": 2e5} ] }",
           spring_scale);
  JlWorld w;
  if (!jl_test_scene_world(&w, text, "tiny_ball.json")) return INFINITY;
  int steps = (int)(1.0 / dt + 0.5);
  for (int k = 0; k < steps; k++) {
    JlStepReport rep;
    if (jl_world_step(&w, dt, &rep) != JL_OK) break;
  }
  double depth = 0.0;
  for (int i = 0; i < w.model->nnode; i++) depth = fmax(depth, -w.state.x[3 * i + 1]);
  jl_world_destroy(&w);
  return depth;
}

static void test_tiny_ball_rests(void) {
  double dts[2] = {1.0 / 60.0, 0.002};
  for (int k = 0; k < (jl_test_quick() ? 1 : 2); k++) {
    double d = tiny_ball_depth(1.0, dts[k]), d0 = tiny_ball_depth(0.0, dts[k]);
    printf("  dt %.4g: 1 mm ball rests %.3g mm deep (per kg only: %.3g mm)\n", dts[k], 1e3 * d, 1e3 * d0);
    ENSURE_MSG(d < 0.02 * 0.001, "the 1 mm ball sank %g m (2 %% of its radius is 2e-5 m)", d);
    ENSURE_MSG(d0 > 0.02 * 0.001, "per-kg stiffness alone should sink it deeper (%g m): the test lost its point", d0);
  }
}

#define JL_TEST_TIER JL_SCENE /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"box_slides_to_rest", test_box_slides_to_rest, JL_SCENE | JL_SHORT},
             {"sharp_friction_never_reverses", test_sharp_friction_never_reverses, JL_SCENE | JL_SHORT},
             {"frictionless_keeps_speed", test_frictionless_keeps_speed, JL_SCENE | JL_SHORT},
             {"tiny_ball_rests", test_tiny_ball_rests})
