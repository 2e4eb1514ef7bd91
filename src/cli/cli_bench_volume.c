/* `jelly bench` volume rows: what the volume force (src/volume.c) costs.
 *
 * For the bench sphere (src/cli/cli_bench.c: radius 0.5 m, E = 1e6 Pa, pinned at
 * its top cap, sagging under gravity) of about 10k and 50k tets (10k only with
 * --quick), one thread:
 *   - mult_ratio: one multiply of the volume element over one of the springs,
 *     with every tet active (nu = 0.45, kv > 0), medians of 30 calls each;
 *   - step_ms at nu = 0.25 (kv = 0: the barrier idles above half volume, the
 *     multiply skips every tet) and at nu = 0.45, medians over the steps, with
 *     the CG iterations per step (the volume term changes the matrix, so the
 *     iteration count moves too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/cli.h"
#include "src/force.h"
#include "src/volume.h"
#include "src/world.h"

typedef struct VolumeRow {
  int tets;
  double mult_volume_us, mult_springs_us;
  double step_ms[2], cg[2]; /* nu = 0.25, 0.45 */
} VolumeRow;

static JlResult sphere_world(const JlTetMesh *t, double nu, JlWorld *w, char *err, size_t errsz) {
  JlBodyDef def = jl_cli_bench_sphere_def();
  def.poisson_ratio = nu;
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  JlResult r = jl_model_build(&m, 1, t, NULL, &def, &wd, err, errsz);
  if (r) return r;
  JlStepDef sd = jl_default_step_def();
  sd.threads = 1;
  return jl_world_create(w, &m, &sd, err, errsz);
}

/* median time (us) of one multiply of element e, linearized at the world's state */
static double multiply_us(JlWorld *w, JlForce *e) {
  const JlModel *m = w->model;
  size_t n3 = 3 * (size_t)m->nnode;
  double *u = jl_calloc(n3, sizeof(double)), *out = jl_calloc(n3, sizeof(double)), t[30];
  for (size_t k = 0; k < n3; k++) u[k] = (double)(k % 7) - 3.0;
  e->ops->linearize(e, m, w->state.x, w->state.v, 1.0 / 3600.0, 1.0 / 60.0, 0, NULL);
  for (int k = 0; k < 30; k++) {
    double t0 = jl_seconds();
    e->ops->multiply(e, m, u, out);
    t[k] = 1e6 * (jl_seconds() - t0);
  }
  free(u);
  free(out);
  return jl_cli_median(t, 30);
}

static JlResult volume_row(int target, int nstep, VolumeRow *row, char *err, size_t errsz) {
  memset(row, 0, sizeof *row);
  JlSurface s = {0};
  JlTetMesh t = {0};
  double tetgen_ms;
  JlResult r = jl_cli_bench_sphere(target, &s, &t, &tetgen_ms, err, errsz);
  jl_surface_free(&s);
  if (r) return r;
  row->tets = t.ntet;
  for (int k = 0; k < 2 && !r; k++) {
    JlWorld w;
    r = sphere_world(&t, k ? 0.45 : 0.25, &w, err, errsz);
    if (r) break;
    double *ms = jl_calloc((size_t)nstep, sizeof(double));
    long cg = 0;
    JlStepReport rep;
    jl_world_step(&w, 1.0 / 60.0, &rep); /* warm-up */
    for (int s2 = 0; s2 < nstep && !r; s2++) {
      double t0 = jl_seconds();
      r = jl_world_step(&w, 1.0 / 60.0, &rep);
      ms[s2] = 1e3 * (jl_seconds() - t0);
      cg += rep.cg_iterations;
    }
    row->step_ms[k] = jl_cli_median(ms, nstep);
    row->cg[k] = (double)cg / nstep;
    free(ms);
    if (k == 1)
      for (int e = 0; e < w.nforce; e++) {
        if (w.force[e]->kind == JL_FORCE_VOLUME) row->mult_volume_us = multiply_us(&w, w.force[e]);
        if (w.force[e]->kind == JL_FORCE_SPRINGS) row->mult_springs_us = multiply_us(&w, w.force[e]);
      }
    if (r) r = jl_fail(err, errsz, r, "%s", rep.message);
    jl_world_destroy(&w);
  }
  jl_tetmesh_free(&t);
  return r;
}

int jl_cli_bench_volume(int json, int quick, const char *cpu) {
  static const int targets[] = {10000, 50000};
  int n = quick ? 1 : 2;
  if (!json)
    printf("\n%-12s %7s %12s %12s %10s %12s %8s %12s %8s %10s\n", "name", "tets", "vol_mult_us", "spr_mult_us",
           "mult_ratio", "ms/step@.25", "cg@.25", "ms/step@.45", "cg@.45", "step_ratio");
  for (int k = 0; k < n; k++) {
    VolumeRow row;
    char err[1024];
    if (volume_row(targets[k], targets[k] >= 50000 ? 4 : 10, &row, err, sizeof err)) {
      fprintf(stderr, "jelly bench: %s\n", jl_cli_msg(err));
      return 1;
    }
    double mr = row.mult_springs_us > 0 ? row.mult_volume_us / row.mult_springs_us : 0;
    double sr = row.step_ms[0] > 0 ? row.step_ms[1] / row.step_ms[0] : 0;
    if (json)
      printf(
          "{\"name\": \"volume_%dk\", \"tets\": %d, \"volume_multiply_us\": %.2f, \"springs_multiply_us\": %.2f, "
          "\"multiply_ratio\": %.3f, \"ms_per_step_nu025\": %.3f, \"cg_nu025\": %.1f, \"ms_per_step_nu045\": %.3f, "
          "\"cg_nu045\": %.1f, \"step_ratio\": %.3f, \"threads\": 1, \"cpu\": \"%s\"}\n",
          targets[k] / 1000, row.tets, row.mult_volume_us, row.mult_springs_us, mr, row.step_ms[0], row.cg[0],
          row.step_ms[1], row.cg[1], sr, cpu);
    else
      printf("volume_%-5s %7d %12.1f %12.1f %10.2f %12.2f %8.1f %12.2f %8.1f %10.2f\n",
             targets[k] >= 50000 ? "50k" : "10k", row.tets, row.mult_volume_us, row.mult_springs_us, mr, row.step_ms[0],
             row.cg[0], row.step_ms[1], row.cg[1], sr);
    fflush(stdout);
  }
  return 0;
}
