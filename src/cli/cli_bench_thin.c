/* `jelly bench` rows for cloth and rope contacts (collision/thin.h):
 *
 *   cloth_on_ball  a 24x24 cloth (1.6 m) draped over a soft ball (drape.json's
 *                  set-up), measured after 1.5 s of settling;
 *   cloth_self     a 32x32 self-colliding cloth (1 m) dropped edge first onto
 *                  the ground (hanging, tilted 10 degrees), so it crumples
 *                  onto itself; measured from 0.6 s on, while it folds.
 * Per implicit step (dt 1/120 s, one thread): the time to find the thin pairs
 * (jl_thin_find alone, on the step's start state), the pairs found, and the
 * whole step; times are medians over the measured steps. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/thin.h"
#include "src/cli/cli.h"
#include "src/scene.h"
#include "src/world.h"

static const char *const cloth_on_ball =
    "{ \"ground\": { \"y\": 0 }, \"contact\": { \"friction\": 0.4 },\n"
    "  \"bodies\": [ { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.4 }, \"translate\": [0, 0.4, 0],\n"
    "    \"tetgen\": { \"max_volume\": 0.002 }, \"density\": 200, \"young_modulus\": 5e4, \"damping\": 1 },\n"
    "  { \"name\": \"cloth\", \"kind\": \"cloth\", \"shape\": { \"type\": \"grid\", \"size\": [1.6, 1.6], \"cells\": [24, 24] },\n"
    "    \"rotate_deg\": [-90, 0, 0], \"translate\": [0, 0.9, 0] } ] }\n";

static const char *const cloth_self =
    "{ \"ground\": { \"y\": 0, \"friction\": 0.8 },\n"
    "  \"bodies\": [ { \"name\": \"cloth\", \"kind\": \"cloth\", \"self_collision\": true, \"bend_stiffness\": 5,\n"
    "    \"shape\": { \"type\": \"grid\", \"size\": [1, 1], \"cells\": [32, 32] }, \"rotate_deg\": [-10, 0, 0],\n"
    "    \"translate\": [0, 0.55, 0] } ] }\n";

static int thin_row(const char *name, const char *text, double settle, int nstep, int json, const char *cpu) {
  char err[1024];
  JlScene sc;
  JlModel m;
  JlWorld w;
  if (jl_scene_parse(text, name, &sc, err, sizeof err) || jl_scene_build(&sc, &m, NULL, err, sizeof err)) {
    fprintf(stderr, "jelly bench: %s\n", jl_cli_msg(err));
    return 1;
  }
  sc.step.threads = 1;
  if (jl_world_create(&w, &m, &sc.step, err, sizeof err)) {
    fprintf(stderr, "jelly bench: %s\n", jl_cli_msg(err));
    jl_scene_free(&sc);
    return 1;
  }
  jl_scene_free(&sc);
  const double h = 1.0 / 120.0;
  int rc = 0;
  for (int s = 0; s < (int)(settle / h) && !rc; s++) {
    JlStepReport rep;
    rc = jl_world_step(&w, h, &rep) != JL_OK;
  }
  JlThinFinder *tf = jl_thin_create(jl_model_geom(w.model));
  double *find = jl_calloc((size_t)nstep, sizeof(double)), *step = jl_calloc((size_t)nstep, sizeof(double));
  double pairs = 0;
  int prims = 0;
  for (int b = 0; b < w.model->nbody; b++) prims += w.model->body[b].node_count;
  for (int s = 0; s < nstep && !rc; s++) {
    const JlThinPair *tp;
    double t0 = jl_seconds();
    pairs += jl_thin_find(tf, jl_model_geom(w.model), w.state.x, w.state.v, h, &tp);
    double t1 = jl_seconds();
    JlStepReport rep;
    rc = jl_world_step(&w, h, &rep) != JL_OK;
    double t2 = jl_seconds();
    find[s] = 1e3 * (t1 - t0);
    step[s] = 1e3 * (t2 - t1);
  }
  if (rc) {
    fprintf(stderr, "jelly bench: %s diverged\n", name);
  } else {
    double fm = jl_cli_median(find, nstep), sm = jl_cli_median(step, nstep);
    if (json)
      printf(
          "{\"name\": \"%s\", \"nodes\": %d, \"pairs\": %.0f, \"thin_find_ms\": %.4f, \"step_ms\": %.3f, "
          "\"find_share\": %.4f, \"us_per_node\": %.4f, \"threads\": 1, \"cpu\": \"%s\"}\n",
          name, prims, pairs / nstep, fm, sm, sm > 0 ? fm / sm : 0.0, 1e3 * fm / prims, cpu);
    else
      printf("%-14s %7d %8.0f %12.3f %10.2f %10.3f %10.4f\n", name, prims, pairs / nstep, fm, sm,
             sm > 0 ? fm / sm : 0.0, 1e3 * fm / prims);
    fflush(stdout);
  }
  free(find), free(step);
  jl_thin_destroy(tf);
  jl_world_destroy(&w);
  return rc;
}

int jl_cli_bench_thin(int json, int quick, const char *cpu) {
  if (!json)
    printf("\n%-14s %7s %8s %12s %10s %10s %10s\n", "name", "nodes", "pairs", "thin_find_ms", "step_ms", "find/step",
           "us/node");
  int n = quick ? 10 : 30;
  if (thin_row("cloth_on_ball", cloth_on_ball, 1.5, n, json, cpu)) return 1;
  if (thin_row("cloth_self", cloth_self, 0.6, n, json, cpu)) return 1;
  return 0;
}
