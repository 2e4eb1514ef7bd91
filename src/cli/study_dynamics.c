/* `jelly study`'s dynamics rows (src/cli/study.h, docs/integrators.md, "What the step keeps"): for
 * every integrator at a few time steps, the bounce of a ball set by its coefficient of restitution and
 * the angular momentum a free spinning bar keeps, each next to its target. The two models are the
 * shipped scenes bounce_ball.json and spin_bar.json, built here from their text so an installed
 * program needs no scene files. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/study.h"
#include "src/scene.h"

/* models/scenes/bounce_ball.json: a ball (r 0.1 m, E 1e6 Pa) dropped with its lowest point 1 m above the
 * ground, ground.restitution 0.5 */
static const char bounce_text[] =
    "{ \"ground\": { \"friction\": 0.5, \"restitution\": 0.5 },"
    "  \"bodies\": [ { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.1 },"
    "    \"translate\": [0, 1.1, 0], \"tetgen\": { \"max_volume\": 1e-4 },"
    "    \"density\": 1000, \"young_modulus\": 1e6 } ] }";
/* models/scenes/spin_bar.json: a free bar (1 x 0.2 x 0.2 m, E 1e5 Pa, no material damping) spinning at
 * 4.9 rad/s in zero gravity */
static const char spin_text[] =
    "{ \"gravity\": [0, 0, 0],"
    "  \"bodies\": [ { \"name\": \"bar\", \"shape\": { \"type\": \"box\", \"size\": [1.0, 0.2, 0.2] },"
    "    \"angular_velocity\": [0, 0, 4.9], \"density\": 1000, \"young_modulus\": 1e5,"
    "    \"material_damping\": 0 } ] }";

#define BOUNCE_E    0.5
#define BOUNCE_DROP 1.0 /* m, the lowest point's height */
#define BOUNCE_T    1.5 /* s */
#define SPIN_T      1.0 /* s */

static JlResult build(const char *text, const char *name, JlModel *m, char *err, size_t errsz) {
  JlScene sc;
  JlResult r = jl_scene_parse(text, name, &sc, err, errsz);
  if (r) return r;
  r = jl_scene_build(&sc, m, NULL, err, errsz);
  jl_scene_free(&sc);
  return r;
}

/* body 0's centre of mass and its lowest node's height */
static void centre(const JlWorld *w, double c[3], double *lowest) {
  jl_model_body_com(w->model, w->state.x, 0, c);
  *lowest = INFINITY;
  for (int i = 0; i < w->model->nnode; i++) *lowest = fmin(*lowest, w->state.x[3 * i + 1]);
}

/* angular momentum of the whole model about its centre of mass, z component */
static double spin_z(const JlWorld *w) {
  const JlModel *m = w->model;
  double c[3], vc[3] = {0, 0, 0}, M = 0, L = 0;
  jl_model_body_com(m, w->state.x, 0, c);
  for (int i = 0; i < m->nnode; i++) {
    M += m->mass[i];
    for (int k = 0; k < 3; k++) vc[k] += m->mass[i] * w->state.v[3 * i + k];
  }
  for (int k = 0; k < 3; k++) vc[k] /= M;
  for (int i = 0; i < m->nnode; i++) {
    const double *x = w->state.x + 3 * i, *v = w->state.v + 3 * i;
    L += m->mass[i] * ((x[0] - c[0]) * (v[1] - vc[1]) - (x[1] - c[1]) * (v[0] - vc[0]));
  }
  return L;
}

/* one run of `model` (copied) with integrator integ at step dt for t seconds; bounce: 1 measures e (from
 * the centroid's rise after the first impact over its fall before it), 0 the angular momentum kept */
static JlResult dyn_run(const JlModel *model, JlIntegrator integ, double dt, double t, int bounce, double *value,
                        int *stable, double *wall_per_sim, char *err, size_t errsz) {
  JlModel copy;
  JlResult r = jl_model_concat(&copy, 1, model, err, errsz);
  if (r) return r;
  JlStepDef sd = jl_default_step_def();
  sd.integrator = integ;
  JlWorld w;
  r = jl_world_create(&w, &copy, &sd, err, errsz);
  if (r) return r;
  int n = (int)ceil(t / dt - 1e-9);
  double h = t / n, c[3], lo, y_start, y_touch = NAN, apex = -INFINITY, L0 = spin_z(&w);
  centre(&w, c, &lo);
  y_start = c[1];
  *stable = 1;
  double t0 = jl_seconds();
  int rising = 0, done = 0;
  for (int s = 0; s < n && *stable; s++) {
    if (jl_world_step(&w, h, NULL) != JL_OK) {
      *stable = 0;
      break;
    }
    if (!bounce) continue;
    double prev = c[1];
    centre(&w, c, &lo);
    if (isnan(y_touch)) {
      if (lo <= 0.0) y_touch = c[1] - lo; /* where the centre would be with the lowest node on the ground */
    } else if (!done) {
      if (c[1] > prev) rising = 1;
      if (rising && c[1] > apex) apex = c[1];
      if (rising && c[1] < apex - 1e-4) done = 1;
    }
  }
  *wall_per_sim = w.state.t > 0 ? (jl_seconds() - t0) / w.state.t : NAN;
  if (!*stable)
    *value = NAN;
  else if (bounce)
    *value = (y_start - y_touch > 0 && apex > y_touch) ? sqrt((apex - y_touch) / (y_start - y_touch)) : 0.0;
  else
    *value = L0 != 0 ? spin_z(&w) / L0 : NAN;
  jl_world_destroy(&w);
  return JL_OK;
}

static void num(FILE *f, double v, const char *fmt) {
  if (isfinite(v))
    fprintf(f, fmt, v);
  else
    fprintf(f, "%8s", "-");
}

JlResult jl_study_dynamics(int quick, FILE *log, const char *csv_path, char *err, size_t errsz) {
  static const double dts[] = {1.0 / 60.0, 1.0 / 240.0, 1.0 / 1000.0, 1.0 / 4000.0};
  int ndt = quick ? 2 : 4;
  JlModel ball, bar;
  JlResult r = build(bounce_text, "<study bounce>", &ball, err, errsz);
  if (r) return r;
  r = build(spin_text, "<study spin>", &bar, err, errsz);
  if (r) {
    jl_model_free(&ball);
    return r;
  }
  FILE *f = fopen(csv_path, "w");
  if (!f) {
    jl_model_free(&ball);
    jl_model_free(&bar);
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot write %s", csv_path);
  }
  fprintf(f,
          "integrator,dt,bounce_stable,e_target,e,spin_stable,spin_kept_target,spin_kept,bounce_wall_per_sim_s,"
          "spin_wall_per_sim_s\n");
  if (log) {
    fprintf(log,
            "\ndynamics   a ball (r 0.1 m, E 1e6 Pa) dropped 1 m, ground.restitution %.1f: e, target %.2f +- 0.05;\n"
            "           a free bar spinning at 4.9 rad/s: angular momentum kept after 1 s, target >= 0.99\n",
            BOUNCE_E, BOUNCE_E);
    fprintf(log, "%-18s %9s %8s %8s %10s %10s\n", "integrator", "dt", "e", "kept", "bounce s/s", "spin s/s");
  }
  for (int i = 0; i < JL_INTEGRATOR_COUNT && !r; i++)
    for (int d = 0; d < ndt && !r; d++) {
      double e = NAN, kept = NAN, wb = NAN, ws = NAN;
      int sb = 0, ss = 0;
      r = dyn_run(&ball, (JlIntegrator)i, dts[d], BOUNCE_T, 1, &e, &sb, &wb, err, errsz);
      if (!r) r = dyn_run(&bar, (JlIntegrator)i, dts[d], SPIN_T, 0, &kept, &ss, &ws, err, errsz);
      if (r) break;
      fprintf(f, "%s,%.9g,%d,%g,", jl_integrator_name((JlIntegrator)i), dts[d], sb, BOUNCE_E);
      if (isfinite(e)) fprintf(f, "%.6g", e);
      fprintf(f, ",%d,0.99,", ss);
      if (isfinite(kept)) fprintf(f, "%.6g", kept);
      fputc(',', f);
      if (isfinite(wb)) fprintf(f, "%.6g", wb);
      fputc(',', f);
      if (isfinite(ws)) fprintf(f, "%.6g", ws);
      fputc('\n', f);
      if (log) {
        fprintf(log, "%-18s %9.6f ", jl_integrator_name((JlIntegrator)i), dts[d]);
        num(log, e, "%8.3f");
        fputc(' ', log);
        num(log, kept, "%8.4f");
        fputc(' ', log);
        num(log, wb, "%10.3g");
        fputc(' ', log);
        num(log, ws, "%10.3g");
        fprintf(log, "%s\n", !sb || !ss ? "  (diverged: -)" : "");
        fflush(log);
      }
    }
  if (fclose(f) != 0 && !r) r = jl_fail(err, errsz, JL_ERR_SYSTEM, "write failed: %s", csv_path);
  jl_model_free(&ball);
  jl_model_free(&bar);
  return r;
}
