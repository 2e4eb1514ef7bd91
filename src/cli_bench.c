/* `jelly bench`: performance figures (never asserted by tests).
 *
 *   jelly bench [--json] [--quick] [--steps N]
 *
 * For generated spheres of about 1k, 10k, 50k and 100k tets: TetGen time,
 * ms per implicit Euler step at dt = 1/60 s with CG tolerance 1e-6, CG
 * iterations per step, spring-CG-iterations per second (springs x CG
 * iterations / step wall time, so it includes linearization), and the peak
 * resident memory of that row; each at 1 and 2 threads. The sphere (radius
 * 0.5 m, E = 1e6 Pa, density 1000) hangs from a pinned cap and sags under
 * gravity, so every step does real solver work. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "mesh/shapes.h"
#include "src/cli.h"
#include "src/world.h"

/* resets the kernel's peak-RSS counter of this process (Linux >= 4.0) */
static void reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f) {
    fputs("5", f);
    fclose(f);
  }
}

/* peak resident set size in MiB since the last reset */
static double peak_rss_mb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = atof(line + 6);
  fclose(f);
  return kb / 1024.0;
}

static void cpu_name(char *out, size_t n) {
  snprintf(out, n, "unknown cpu");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *colon = strchr(line, ':');
      if (colon) {
        snprintf(out, n, "%s", colon + 2);
        out[strcspn(out, "\n")] = '\0';
      }
      break;
    }
  }
  fclose(f);
}

typedef struct BenchRow {
  char name[32];
  int tets, nodes, springs, threads;
  double tetgen_ms, ms_per_step, cg_iterations, spring_cg_per_s, peak_mb;
} BenchRow;

/* sphere tet mesh with about `target` tets: one TetGen run, rescaled once */
static JlResult sphere_mesh(int target, JlSurface *s, JlTetMesh *t, double *tetgen_ms, char *err, size_t errsz) {
  const double radius = 0.5, volume = 4.0 / 3.0 * acos(-1.0) * radius * radius * radius;
  double edge = cbrt(volume / target * 6.0 * sqrt(2.0)); /* regular tet of volume V/target */
  jl_shape_sphere(radius, edge, s);
  JlMeshReport rep;
  jl_surface_validate(s, "bench sphere", &rep);
  JlTetgenDef def = jl_default_tetgen_def();
  def.max_volume = volume / target;
  for (int attempt = 0; attempt < 3; attempt++) {
    double t0 = jl_seconds();
    JlResult r = jl_tetgen_build(s, &def, t, err, errsz);
    *tetgen_ms = 1e3 * (jl_seconds() - t0);
    if (r) return r;
    double ratio = (double)t->ntet / target;
    if (ratio > 0.8 && ratio < 1.25) break;
    def.max_volume *= ratio;
    jl_tetmesh_free(t);
  }
  return JL_OK;
}

static JlResult bench_row(int target, int threads, int nstep, BenchRow *row, char *err, size_t errsz) {
  memset(row, 0, sizeof *row);
  reset_peak_rss();
  JlSurface s = {0};
  JlTetMesh t = {0};
  JlResult r = sphere_mesh(target, &s, &t, &row->tetgen_ms, err, errsz);
  if (r) {
    jl_surface_free(&s);
    return r;
  }
  JlBodyDef def = jl_default_body_def();
  snprintf(def.name, sizeof def.name, "sphere");
  def.young_modulus = 1e6;
  def.density = 1000;
  def.damping = 0.5;
  def.has_pin_box = 1;
  double lo[3] = {-1, 0.4, -1}, hi[3] = {1, 1, 1};
  memcpy(def.pin_box[0], lo, sizeof lo);
  memcpy(def.pin_box[1], hi, sizeof hi);
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  r = jl_model_build(&m, 1, &t, &s, &def, &wd, err, errsz);
  jl_surface_free(&s);
  row->tets = t.ntet;
  row->nodes = t.nnode;
  jl_tetmesh_free(&t);
  if (r) return r;
  row->springs = m.nspring;
  JlStepDef sd = jl_default_step_def();
  sd.tolerance = 1e-6;
  sd.threads = threads;
  JlWorld w;
  r = jl_world_create(&w, &m, &sd, err, errsz);
  if (r) return r;
  double h = 1.0 / 60.0, elapsed = 0;
  long cg = 0;
  JlStepReport rep;
  jl_world_step(&w, h, &rep); /* warm-up: first touch of all buffers */
  for (int k = 0; k < nstep; k++) {
    double t0 = jl_seconds();
    r = jl_world_step(&w, h, &rep);
    elapsed += jl_seconds() - t0;
    cg += rep.cg_iterations;
    if (r) break;
  }
  row->threads = threads;
  row->ms_per_step = 1e3 * elapsed / nstep;
  row->cg_iterations = (double)cg / nstep;
  row->spring_cg_per_s = elapsed > 0 ? (double)row->springs * (double)cg / elapsed : 0;
  row->peak_mb = peak_rss_mb();
  snprintf(row->name, sizeof row->name, "sphere_%dk", (target + 500) / 1000);
  jl_world_destroy(&w);
  if (r) return jl_fail(err, errsz, r, "%s", rep.message);
  return JL_OK;
}

int jl_cli_bench(int argc, char **argv) {
  int json = 0, quick = 0, nstep = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--steps") == 0) {
      if (!jl_cli_parse_int("bench", "--steps", i + 1 < argc ? argv[i + 1] : NULL, 1, 100000, &nstep))
        return 2;
      i++;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: jelly bench [--json] [--quick] [--steps N]\n"
             "Prints TetGen time, ms per implicit step (dt 1/60 s, CG tolerance 1e-6), CG\n"
             "iterations, spring-CG-iterations per second and peak memory for generated\n"
             "spheres of about 1k, 10k, 50k and 100k tets at 1 and 2 threads.\n"
             "--quick: only the 1k and 10k spheres. --json: one JSON object per line.\n");
      return 0;
    } else {
      fprintf(stderr, "jelly bench: unknown option '%s' (see jelly bench --help)\n", argv[i]);
      return 2;
    }
  }
  static const int targets[] = {1000, 10000, 50000, 100000};
  int ntarget = quick ? 2 : 4;
  char cpu[256];
  cpu_name(cpu, sizeof cpu);
  struct utsname un;
  uname(&un);
  if (!json) {
    printf("jelly bench on %s (%s %s)\n", cpu, un.sysname, un.machine);
    printf("%-12s %7s %7s %8s %4s %10s %9s %8s %14s %8s\n", "name", "tets", "nodes", "springs",
           "thr", "tetgen_ms", "ms/step", "cg_it", "spring-cg-it/s", "peak_mb");
  }
  for (int k = 0; k < ntarget; k++) {
    for (int threads = 1; threads <= 2; threads++) {
      BenchRow row;
      char err[1024];
      int steps = nstep ? nstep : (targets[k] >= 50000 ? 4 : 10);
      if (bench_row(targets[k], threads, steps, &row, err, sizeof err)) {
        fprintf(stderr, "jelly bench: %s\n", err);
        return 1;
      }
      if (json)
        printf("{\"name\": \"%s\", \"tets\": %d, \"nodes\": %d, \"springs\": %d, \"threads\": %d, "
               "\"ms_per_step\": %.4f, \"cg_iterations\": %.2f, \"spring_cg_iterations_per_s\": %.4g, "
               "\"peak_mb\": %.1f, \"tetgen_ms\": %.2f, \"cpu\": \"%s\"}\n",
               row.name, row.tets, row.nodes, row.springs, row.threads, row.ms_per_step,
               row.cg_iterations, row.spring_cg_per_s, row.peak_mb, row.tetgen_ms, cpu);
      else
        printf("%-12s %7d %7d %8d %4d %10.1f %9.2f %8.1f %14.3g %8.1f\n", row.name, row.tets,
               row.nodes, row.springs, row.threads, row.tetgen_ms, row.ms_per_step,
               row.cg_iterations, row.spring_cg_per_s, row.peak_mb);
      fflush(stdout);
    }
  }
  if (jl_cli_bench_render(json, cpu)) return 1; /* src/cli_bench_render.c */
  return 0;
}
