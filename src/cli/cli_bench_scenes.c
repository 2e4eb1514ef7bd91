/* `jelly bench` rows for contact-rich scenes as a user runs them
 * (docs/performance.md, "Contact-rich scenes"):
 *
 *   default_scene  models/scenes/default.json (the bunny falling onto the
 *                  torus), its 2 s at its own dt;
 *   pile           models/scenes/pile.json (24 soft bodies dropped into an open
 *                  box of four static walls), its 4 s at its own dt;
 *   rest_ground    a ball of about 10k tets (r 0.5 m, E 1e6 Pa, dt 1/60 s)
 *                  resting on the ground, against the same ball in free fall:
 *                  it is set on the ground and left to settle for 2 s (not
 *                  timed; its CG iterations per step are printed as
 *                  `settle_it`), then 1 s of rest is measured; the free ball
 *                  falls for 1 s far above the ground.
 * Each at 1 and 2 threads: wall seconds of stepping per simulated second
 * (below 1 is faster than real time), CG iterations per step (mean and the
 * largest step), steps whose CG stopped at its cap, energy and crossing
 * splits, and the kinetic energy at the end (a pile at rest has little).
 * --steps N runs N steps of each part instead (a format check). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/cli.h"
#include "src/scene.h"
#include "src/world.h"

/* the rest_ground ball; "%g" is its height */
static const char rest_ball[] =
    "{ \"ground\": { \"y\": 0, \"friction\": 0.5 },\n"
    "  \"bodies\": [ { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.5, \"resolution\": 0.15 },\n"
    "    \"translate\": [0, %g, 0], \"tetgen\": { \"max_volume\": 2.2e-4 }, \"density\": 1000, \"young_modulus\": 1e6,\n"
    "    \"damping\": 0.5 } ] }\n";

int jl_cli_bench_steps(JlWorld *w, double h, int n, JlBenchTally *t, char *err, size_t errsz) {
  double t0 = jl_seconds();
  for (int s = 0; s < n; s++) {
    JlStepReport rep;
    if (jl_world_step(w, h, &rep) != JL_OK) {
      snprintf(err, errsz, "step %d: %s", s, rep.message);
      return 1;
    }
    t->cg += rep.cg_iterations;
    if (rep.cg_iterations > t->cg_max) t->cg_max = rep.cg_iterations;
    t->capped += rep.cg_failed;
    t->energy_splits += rep.energy_splits;
    t->crossing_splits += rep.crossing_splits;
  }
  t->wall_s += jl_seconds() - t0;
  t->steps += n;
  t->simulated_s += n * h;
  return 0;
}

int jl_cli_bench_world(JlScene *sc, int threads, JlWorld *w, double *dt, char *err, size_t errsz) {
  JlModel m;
  if (jl_scene_build(sc, &m, NULL, err, errsz)) {
    jl_scene_free(sc);
    return 1;
  }
  sc->step.threads = threads;
  *dt = sc->dt;
  JlResult r = jl_world_create(w, &m, &sc->step, err, errsz);
  jl_scene_free(sc);
  return r != JL_OK;
}

int jl_cli_bench_tets(const JlModel *m) {
  int tets = 0;
  for (int b = 0; b < m->nbody; b++) tets += m->body[b].tet_count;
  return tets;
}

static double per_sim(const JlBenchTally *t) { return t->simulated_s > 0.0 ? t->wall_s / t->simulated_s : 0.0; }
static double per_step(const JlBenchTally *t) { return t->steps > 0 ? (double)t->cg / t->steps : 0.0; }

/* default_scene and pile: the shipped file `file` for its duration (or nstep steps) */
static int file_row(const char *name, const char *file, int nstep, int json, const char *cpu, int *header) {
  char path[4096], buf[4096], err[1024];
  const char *def = jl_cli_default_scene(buf, sizeof buf), *slash = strrchr(def, '/');
  int dir = slash ? (int)(slash - def) + 1 : 0;
  if (snprintf(path, sizeof path, "%.*s%s", dir, def, file) >= (int)sizeof path) {
    fprintf(stderr, "jelly bench: %s: path too long\n", name);
    return 1;
  }
  for (int threads = 1; threads <= 2; threads++) {
    JlScene sc;
    JlWorld w;
    double dt;
    if (jl_scene_load(path, &sc, err, sizeof err)) {
      fprintf(stderr, "jelly bench: %s\n", jl_cli_msg(err));
      return 1;
    }
    double duration = sc.duration;
    if (jl_cli_bench_world(&sc, threads, &w, &dt, err, sizeof err)) {
      fprintf(stderr, "jelly bench: %s: %s\n", name, jl_cli_msg(err));
      return 1;
    }
    int n = nstep ? nstep : (int)(duration / dt + 0.5);
    JlBenchTally t = {0};
    int rc = jl_cli_bench_steps(&w, dt, n, &t, err, sizeof err);
    JlEnergy e;
    jl_world_energy(&w, &e);
    int tets = jl_cli_bench_tets(w.model), nodes = w.model->nnode, bodies = w.model->nbody;
    jl_world_destroy(&w);
    if (rc) {
      fprintf(stderr, "jelly bench: %s: %s\n", name, jl_cli_msg(err));
      return 1;
    }
    if (json) {
      printf(
          "{\"name\": \"%s\", \"scene\": \"models/scenes/%s\", \"bodies\": %d, \"tets\": %d, \"nodes\": %d, "
          "\"threads\": %d, \"dt\": %.6g, \"steps\": %d, \"simulated_s\": %.4g, \"wall_s_per_simulated_s\": %.4f, "
          "\"cg_iterations\": %.1f, \"cg_iterations_max\": %d, \"cg_capped_steps\": %d, \"energy_splits\": %d, "
          "\"crossing_splits\": %d, \"kinetic_energy_end\": %.4g, \"cpu\": \"%s\"}\n",
          name, file, bodies, tets, nodes, threads, dt, t.steps, t.simulated_s, per_sim(&t), per_step(&t), t.cg_max,
          t.capped, t.energy_splits, t.crossing_splits, e.kinetic, cpu);
    } else {
      if (!*header)
        printf("\n%-13s %6s %6s %6s %4s %6s %13s %8s %7s %6s %7s %7s %10s\n", "name", "bodies", "tets", "nodes", "thr",
               "steps", "wall_s/sim_s", "cg_it", "cg_max", "capped", "esplit", "xsplit", "ke_end_J");
      *header = 1;
      printf("%-13s %6d %6d %6d %4d %6d %13.3f %8.1f %7d %6d %7d %7d %10.3g\n", name, bodies, tets, nodes, threads,
             t.steps, per_sim(&t), per_step(&t), t.cg_max, t.capped, t.energy_splits, t.crossing_splits, e.kinetic);
    }
    fflush(stdout);
  }
  return 0;
}

/* the rest_ground ball at height y */
static int ball_world(double y, int threads, JlWorld *w, double *dt, char *err, size_t errsz) {
  char text[sizeof rest_ball + 64];
  snprintf(text, sizeof text, rest_ball, y);
  JlScene sc;
  if (jl_scene_parse(text, "rest_ground", &sc, err, errsz)) return 1;
  return jl_cli_bench_world(&sc, threads, w, dt, err, errsz);
}

static int rest_row(int nstep, int json, const char *cpu) {
  char err[1024];
  for (int threads = 1; threads <= 2; threads++) {
    JlWorld rest, fall;
    double dt;
    JlBenchTally settle = {0}, t_rest = {0}, t_fall = {0};
    /* resting: set on the ground (its lowest point at y = 0), settled, then measured */
    if (ball_world(0.5, threads, &rest, &dt, err, sizeof err)) {
      fprintf(stderr, "jelly bench: rest_ground: %s\n", jl_cli_msg(err));
      return 1;
    }
    int n_settle = nstep ? nstep : (int)(2.0 / dt + 0.5), n = nstep ? nstep : (int)(1.0 / dt + 0.5);
    int rc = jl_cli_bench_steps(&rest, dt, n_settle, &settle, err, sizeof err) ||
             jl_cli_bench_steps(&rest, dt, n, &t_rest, err, sizeof err);
    JlEnergy e;
    jl_world_energy(&rest, &e);
    int tets = jl_cli_bench_tets(rest.model), nodes = rest.model->nnode;
    jl_world_destroy(&rest);
    /* free fall: far above the ground for the whole measurement */
    if (!rc && ball_world(100.0, threads, &fall, &dt, err, sizeof err) == 0) {
      rc = jl_cli_bench_steps(&fall, dt, n, &t_fall, err, sizeof err);
      jl_world_destroy(&fall);
    } else {
      rc = 1;
    }
    if (rc) {
      fprintf(stderr, "jelly bench: rest_ground: %s\n", jl_cli_msg(err));
      return 1;
    }
    double ratio = per_step(&t_fall) > 0.0 ? per_step(&t_rest) / per_step(&t_fall) : 0.0;
    if (json)
      printf(
          "{\"name\": \"rest_ground\", \"tets\": %d, \"nodes\": %d, \"threads\": %d, \"dt\": %.6g, "
          "\"settle_s\": %.4g, \"measured_s\": %.4g, \"cg_iterations_settle\": %.1f, \"cg_iterations_rest\": %.1f, "
          "\"cg_iterations_free\": %.1f, \"ratio_rest_over_free\": %.3f, \"wall_s_per_simulated_s_rest\": %.4f, "
          "\"wall_s_per_simulated_s_free\": %.4f, \"kinetic_energy_end\": %.4g, \"cpu\": \"%s\"}\n",
          tets, nodes, threads, dt, settle.simulated_s, t_rest.simulated_s, per_step(&settle), per_step(&t_rest),
          per_step(&t_fall), ratio, per_sim(&t_rest), per_sim(&t_fall), e.kinetic, cpu);
    else {
      if (threads == 1)
        printf("\n%-12s %6s %6s %4s %9s %8s %8s %10s %12s %12s %10s\n", "name", "tets", "nodes", "thr", "settle_it",
               "rest_it", "free_it", "rest/free", "rest_s/sim", "free_s/sim", "ke_end_J");
      printf("%-12s %6d %6d %4d %9.1f %8.1f %8.1f %10.2f %12.3f %12.3f %10.3g\n", "rest_ground", tets, nodes, threads,
             per_step(&settle), per_step(&t_rest), per_step(&t_fall), ratio, per_sim(&t_rest), per_sim(&t_fall),
             e.kinetic);
    }
    fflush(stdout);
  }
  return 0;
}

int jl_cli_bench_scenes(int json, int nstep, const char *cpu) {
  int header = 0;
  if (file_row("default_scene", "default.json", nstep, json, cpu, &header)) return 1;
  if (file_row("pile", "pile.json", nstep, json, cpu, &header)) return 1;
  return rest_row(nstep, json, cpu);
}
