/* `jelly bench` rows for the implicit solve as a user meets it
 * (docs/performance.md, "Solver rows"):
 *
 *   drop_bullet  the Bullet comparison: an icosphere (icosahedron subdivided
 *                3 times, 642 vertices, r 0.5 m) meshed conforming with
 *                max_volume 1e-4 m^3 and quality 1.4, the surface kept as it
 *                is (TetGen -Y: 9533 tets, the mesh had 9616;
 *                without it 16546), k 1e4 N/m, damping 10,
 *                density 1000, dropped 0.1 m onto the ground (friction 0.5),
 *                dt 1/60 s, 1 s simulated: wall seconds per simulated second
 *                at 1 and 2 threads (Bullet 3.24 f64 needs 5.25 on this
 *                scenario, measured outside Jelly);
 *   contact_20k  two balls of about 10k tets each (the bench sphere's
 *                material, E 1e6 Pa), one resting on the ground, the other
 *                dropped 5 cm onto it, dt 1/60 s, 1 s simulated: wall seconds
 *                per simulated second at 1 and 2 threads (below 1 is faster
 *                than real time);
 *   busy_10k     the bench sphere of about 10k tets stepped while a busy loop
 *                (a child process) holds one core: ms per step at 1 and at 2
 *                threads, and their ratio (2 threads must never be slower:
 *                src/tune.h).
 * All with the default preconditioner; wall times include everything a
 * step does (collision, linearization, solve). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/cli/cli.h"
#include "src/precond.h"
#include "src/scene.h"
#include "src/world.h"

static const char drop_bullet[] =
    "{ \"ground\": { \"y\": 0, \"friction\": 0.5 },\n"
    "  \"bodies\": [ { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.5, \"resolution\": 0.1 },\n"
    "    \"translate\": [0, 0.6, 0], \"tetgen\": { \"max_volume\": 1e-4, \"quality\": 1.4, \"keep_surface\": true },\n"
    "    \"density\": 1000, \"stiffness\": 1e4, \"damping\": 10 } ] }\n";

static const char contact_20k[] =
    "{ \"ground\": { \"y\": 0 },\n"
    "  \"bodies\": [\n"
    "    { \"name\": \"lower\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.5, \"resolution\": 0.15 }, \"translate\": [0, 0.5, 0],\n"
    "      \"tetgen\": { \"max_volume\": 2.2e-4 }, \"density\": 1000, \"young_modulus\": 1e6, \"damping\": 0.5 },\n"
    "    { \"name\": \"upper\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.5, \"resolution\": 0.15 }, \"translate\": [0.1, 1.55, 0],\n"
    "      \"tetgen\": { \"max_volume\": 2.2e-4 }, \"density\": 1000, \"young_modulus\": 1e6, \"damping\": 0.5 } ] }\n";

typedef struct SceneRun {
  int tets, nodes;
  JlBenchTally t; /* stepping only */
} SceneRun;

/* steps `text`'s scene for `seconds` at dt 1/60 on `threads` threads */
static int scene_run(const char *name, const char *text, double seconds, int threads, SceneRun *out, char *err,
                     size_t errsz) {
  memset(out, 0, sizeof *out);
  JlScene sc;
  JlWorld w;
  double dt;
  if (jl_scene_parse(text, name, &sc, err, errsz) || jl_cli_bench_world(&sc, threads, &w, &dt, err, errsz)) return 1;
  out->tets = jl_cli_bench_tets(w.model);
  out->nodes = w.model->nnode;
  const double h = 1.0 / 60.0;
  int rc = jl_cli_bench_steps(&w, h, (int)(seconds / h + 0.5), &out->t, err, errsz);
  jl_world_destroy(&w);
  return rc;
}

static int scene_rows(int json, const char *cpu) {
  static const struct {
    const char *name, *text;
  } rows[] = {{"drop_bullet", drop_bullet}, {"contact_20k", contact_20k}};
  if (!json)
    printf("\n%-12s %7s %7s %4s %10s %8s %14s %9s\n", "name", "tets", "nodes", "thr", "ms/step", "cg_it",
           "wall_s/sim_s", "cg_capped");
  for (int r = 0; r < 2; r++) {
    for (int threads = 1; threads <= 2; threads++) {
      SceneRun run;
      char err[1024];
      if (scene_run(rows[r].name, rows[r].text, 1.0, threads, &run, err, sizeof err)) {
        fprintf(stderr, "jelly bench: %s: %s\n", rows[r].name, jl_cli_msg(err));
        return 1;
      }
      const JlBenchTally *t = &run.t;
      double per_sim = t->wall_s / t->simulated_s, ms = 1e3 * t->wall_s / t->steps;
      double cg = (double)t->cg / t->steps;
      if (json)
        printf(
            "{\"name\": \"%s\", \"tets\": %d, \"nodes\": %d, \"threads\": %d, \"ms_per_step\": %.3f, "
            "\"cg_iterations\": %.1f, \"wall_s_per_simulated_s\": %.4f, \"cg_capped_steps\": %d, "
            "\"preconditioner\": \"%s\", \"cpu\": \"%s\"}\n",
            rows[r].name, run.tets, run.nodes, threads, ms, cg, per_sim, t->capped,
            jl_precond_names[JL_PRECOND_DEFAULT], cpu);
      else
        printf("%-12s %7d %7d %4d %10.2f %8.1f %14.4f %9d\n", rows[r].name, run.tets, run.nodes, threads, ms, cg,
               per_sim, t->capped);
      fflush(stdout);
    }
  }
  return 0;
}

/* ---- busy_10k ---- */

/* a child that spins until killed (or until its parent is gone) */
static pid_t busy_start(void) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned long spin = 0;
    for (;;) {
      for (int k = 0; k < 100000000; k++) spin++;
      if (getppid() != parent) _exit(0);
    }
  }
  return pid;
}

static void busy_stop(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* ms per step of the bench sphere on `threads` threads; tries/switches of the tuner */
static JlResult busy_steps(const JlTetMesh *t, const JlSurface *s, int threads, int nstep, double *ms, int *switches,
                           char *err, size_t errsz) {
  JlBodyDef def = jl_cli_bench_sphere_def();
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  JlResult r = jl_model_build(&m, 1, t, s, &def, &wd, err, errsz);
  if (r) return r;
  JlStepDef sd = jl_default_step_def();
  sd.threads = threads;
  JlWorld w;
  r = jl_world_create(&w, &m, &sd, err, errsz);
  if (r) return r;
  JlStepReport rep;
  double t0 = jl_seconds();
  for (int k = 0; k < nstep && !r; k++) r = jl_world_step(&w, 1.0 / 60.0, &rep);
  *ms = 1e3 * (jl_seconds() - t0) / nstep;
  *switches = jl_world_thread_switches(&w);
  jl_world_destroy(&w);
  if (r) return jl_fail(err, errsz, r, "%s", rep.message);
  return JL_OK;
}

static int busy_row(int json, int quick, const char *cpu) {
  JlSurface s = {0};
  JlTetMesh t = {0};
  double tetgen_ms, ms[2] = {0, 0};
  int switches[2] = {0, 0}, nstep = quick ? 60 : 200;
  char err[1024];
  JlResult r = jl_cli_bench_sphere(10000, &s, &t, &tetgen_ms, err, sizeof err);
  pid_t busy = r ? -1 : busy_start();
  if (!r && busy < 0) r = jl_fail(err, sizeof err, JL_ERR_SYSTEM, "busy_10k: fork failed");
  for (int k = 0; k < 2 && !r; k++) r = busy_steps(&t, &s, k + 1, nstep, &ms[k], &switches[k], err, sizeof err);
  busy_stop(busy);
  int tets = t.ntet;
  jl_surface_free(&s);
  jl_tetmesh_free(&t);
  if (r) {
    fprintf(stderr, "jelly bench: %s\n", jl_cli_msg(err));
    return 1;
  }
  double ratio = ms[0] > 0 ? ms[1] / ms[0] : 0;
  if (json)
    printf(
        "{\"name\": \"busy_10k\", \"tets\": %d, \"steps\": %d, \"ms_per_step_1_thread\": %.3f, "
        "\"ms_per_step_2_threads\": %.3f, \"ratio_2_over_1\": %.3f, \"thread_switches\": %d, "
        "\"preconditioner\": \"%s\", \"cpu\": \"%s\"}\n",
        tets, nstep, ms[0], ms[1], ratio, switches[1], jl_precond_names[JL_PRECOND_DEFAULT], cpu);
  else
    printf("\n%-12s %7s %6s %12s %12s %12s %9s\n%-12s %7d %6d %12.2f %12.2f %12.3f %9d\n", "name", "tets", "steps",
           "ms@1thr", "ms@2thr", "2thr/1thr", "switches", "busy_10k", tets, nstep, ms[0], ms[1], ratio, switches[1]);
  fflush(stdout);
  return 0;
}

int jl_cli_bench_solver(int json, int quick, const char *cpu) {
  if (scene_rows(json, cpu)) return 1;
  return busy_row(json, quick, cpu);
}
