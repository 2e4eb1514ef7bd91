/* `jelly bench`: performance figures (never asserted by tests).
 *
 *   jelly bench [--json] [--quick] [--steps N]
 *
 * For generated spheres of about 1k, 10k, 50k and 100k tets: TetGen time,
 * ms per implicit Euler step at dt = 1/60 s with the default solver, CG
 * iterations per step, spring-CG-iterations per second (springs x CG
 * iterations / step wall time, so it includes linearization), and the peak
 * resident memory of that row; each at 1 and 2 threads. The sphere (radius
 * 0.5 m, E = 1e6 Pa, density 1000) hangs from a pinned cap and sags under
 * gravity, so every step does real solver work.
 *
 * The 50k and 100k spheres run three times: with the defaults, with jacobi,
 * and with jacobi and the plain relative stopping rule
 * (tolerance 1e-6, velocity_tolerance 0), so the gains are measured side by
 * side; JSON rows name theirs ("preconditioner", "stopping"). Solver rows (drop_bullet,
 * contact_20k, busy_10k): src/cli/cli_bench_solver.c.
 *
 * Collision rows (collide_1k, collide_10k, collide_50k): two such spheres,
 * each pinned at its far cap, pressed 4 cm into each other; per implicit step
 * the time of collision detection (broad phase + exact point-in-tet, Teschner
 * et al. 2003's "collision detection") and of penetration depth (phases 2-4
 * of Heidelberger et al. 2004), per tet and per colliding point, next to the
 * rest of the same step (the implicit solve). docs/performance.md compares
 * them with the papers' tables. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "mesh/shapes.h"
#include "src/cli/cli.h"
#include "src/contact.h"
#include "src/precond.h"
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
  int tets, nodes, springs, threads, precond, relative;
  double tetgen_ms, ms_per_step, cg_iterations, spring_cg_per_s, peak_mb;
} BenchRow;

JlBodyDef jl_cli_bench_sphere_def(void) {
  JlBodyDef def = jl_default_body_def();
  snprintf(def.name, sizeof def.name, "sphere");
  def.young_modulus = 1e6;
  def.density = 1000;
  def.damping = 0.5;
  def.has_pin_box = 1;
  double lo[3] = {-1, 0.4, -1}, hi[3] = {1, 1, 1};
  memcpy(def.pin_box[0], lo, sizeof lo);
  memcpy(def.pin_box[1], hi, sizeof hi);
  return def;
}

/* Sphere tet mesh with about `target` tets (within 0.8x to 1.25x where
 * TetGen allows). Refinement under -a makes tets of about a quarter of the
 * bound on average, and the count jumps as the bound crosses the surface's
 * own refinement (1k target: 479 tets at 8.8 V/target, 2135 at 6.3), so the
 * bound is searched: scaled by the count's ratio until the target is
 * bracketed, then bisected in log scale; the closest of at most 8 runs is kept
 * and tetgen_ms is that run's time. */
JlResult jl_cli_bench_sphere(int target, JlSurface *s, JlTetMesh *t, double *tetgen_ms, char *err, size_t errsz) {
  const double radius = 0.5, volume = 4.0 / 3.0 * acos(-1.0) * radius * radius * radius;
  double edge = cbrt(volume / target * 6.0 * sqrt(2.0)); /* regular tet of volume V/target */
  jl_shape_sphere(radius, edge, s);
  JlMeshReport rep;
  jl_surface_validate(s, "bench sphere", &rep);
  JlTetgenDef def = jl_default_tetgen_def();
  def.max_volume = 4.0 * volume / target;
  double too_fine = 0.0, too_coarse = 0.0, best_miss = INFINITY;
  memset(t, 0, sizeof *t);
  for (int attempt = 0; attempt < 8; attempt++) {
    JlTetMesh trial;
    double t0 = jl_seconds();
    JlResult r = jl_tetgen_build(s, &def, &trial, err, errsz);
    double ms = 1e3 * (jl_seconds() - t0);
    if (r) {
      jl_tetmesh_free(t);
      return r;
    }
    double ratio = (double)trial.ntet / target, miss = fabs(log(ratio));
    if (miss < best_miss) {
      jl_tetmesh_free(t);
      *t = trial;
      *tetgen_ms = ms;
      best_miss = miss;
    } else {
      jl_tetmesh_free(&trial);
    }
    if (ratio > 0.8 && ratio < 1.25) break;
    if (ratio > 1.0)
      too_fine = def.max_volume;
    else
      too_coarse = def.max_volume;
    def.max_volume = too_fine > 0 && too_coarse > 0 ? sqrt(too_fine * too_coarse) : def.max_volume * ratio;
  }
  return JL_OK;
}

static JlResult bench_row(int target, int threads, int precond, int relative, int nstep, BenchRow *row, char *err,
                          size_t errsz) {
  memset(row, 0, sizeof *row);
  reset_peak_rss();
  JlSurface s = {0};
  JlTetMesh t = {0};
  JlResult r = jl_cli_bench_sphere(target, &s, &t, &row->tetgen_ms, err, errsz);
  if (r) {
    jl_surface_free(&s);
    return r;
  }
  JlBodyDef def = jl_cli_bench_sphere_def();
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
  if (relative) sd.velocity_tolerance = 0.0; /* the plain relative rule: ||r|| <= 1e-6 ||b|| */
  sd.threads = threads;
  sd.preconditioner = precond;
  row->precond = precond;
  row->relative = relative;
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

/* ---- collision rows ---- */

typedef struct CollideRow {
  char name[32];
  int tets;           /* per body */
  double candidates;  /* (node, tet) candidate pairs per step */
  double penetrating; /* penetrating nodes per step */
  double detect_ms;   /* broad phase + point-in-tet per step */
  double depth_ms;    /* phases 2-4 per step */
  double solve_ms;    /* the rest of the implicit step */
} CollideRow;


/* copy of a tet mesh's nodes and tets moved by dy, with its topology */
static void shifted_copy(const JlTetMesh *t, double dy, JlTetMesh *out) {
  memset(out, 0, sizeof *out);
  out->nnode = t->nnode;
  out->ntet = t->ntet;
  out->node = jl_calloc(3 * (size_t)t->nnode, sizeof(double));
  out->tet = jl_calloc(4 * (size_t)t->ntet, sizeof(int));
  memcpy(out->tet, t->tet, 4 * (size_t)t->ntet * sizeof(int));
  for (int i = 0; i < t->nnode; i++) {
    out->node[3 * i] = t->node[3 * i];
    out->node[3 * i + 1] = t->node[3 * i + 1] + dy;
    out->node[3 * i + 2] = t->node[3 * i + 2];
  }
  jl_tetmesh_topology(out);
}

static JlResult collide_row(int target, int nstep, CollideRow *row, char *err, size_t errsz) {
  memset(row, 0, sizeof *row);
  JlSurface s = {0};
  JlTetMesh t[2];
  memset(t, 0, sizeof t);
  double tetgen_ms;
  JlResult r = jl_cli_bench_sphere(target, &s, &t[0], &tetgen_ms, err, errsz);
  jl_surface_free(&s);
  if (r) return r;
  /* sphere 1 on top of sphere 0 (radius 0.5), 4 cm overlap; far caps pinned */
  shifted_copy(&t[0], 0.96, &t[1]);
  JlBodyDef def[2];
  for (int b = 0; b < 2; b++) {
    def[b] = jl_default_body_def();
    snprintf(def[b].name, sizeof def[b].name, "sphere%d", b);
    def[b].young_modulus = 1e6;
    def[b].density = 1000;
    def[b].damping = 0.5;
    def[b].has_pin_box = 1;
    double lo[3] = {-1, b ? 1.36 : -1, -1}, hi[3] = {1, b ? 2 : -0.4, 1};
    memcpy(def[b].pin_box[0], lo, sizeof lo);
    memcpy(def[b].pin_box[1], hi, sizeof hi);
  }
  JlWorldDef wd = jl_default_world_def();
  wd.gravity[1] = 0.0;
  JlModel m;
  r = jl_model_build(&m, 2, t, NULL, def, &wd, err, errsz);
  row->tets = t[0].ntet;
  jl_tetmesh_free(&t[0]);
  jl_tetmesh_free(&t[1]);
  if (r) return r;
  JlStepDef sd = jl_default_step_def();
  sd.threads = 1;
  JlWorld w;
  r = jl_world_create(&w, &m, &sd, err, errsz);
  if (r) return r;
  const JlForce *contacts = NULL;
  for (int f = 0; f < w.nforce; f++)
    if (w.force[f]->kind == JL_FORCE_CONTACTS) contacts = w.force[f];
  double h = 1.0 / 60.0;
  double *detect = jl_calloc((size_t)nstep, sizeof(double)), *depth = jl_calloc((size_t)nstep, sizeof(double));
  double *solve = jl_calloc((size_t)nstep, sizeof(double));
  JlStepReport rep;
  jl_world_step(&w, h, &rep); /* warm-up: buffers grow to the contact count */
  int done = 0;
  for (int k = 0; k < nstep && contacts; k++) {
    double t0 = jl_seconds();
    r = jl_world_step(&w, h, &rep);
    double step_s = jl_seconds() - t0;
    const JlCollisionStats *st = jl_contact_stats(contacts);
    row->candidates += st->candidates;
    row->penetrating += st->penetrating;
    detect[k] = 1e3 * st->detect_s;
    depth[k] = 1e3 * st->depth_s;
    solve[k] = 1e3 * step_s - detect[k] - depth[k];
    done++;
    if (r) break;
  }
  /* counts: means; times: medians over the steps (robust to other processes) */
  if (done > 0) {
    row->candidates /= done;
    row->penetrating /= done;
    row->detect_ms = jl_cli_median(detect, done);
    row->depth_ms = jl_cli_median(depth, done);
    row->solve_ms = jl_cli_median(solve, done);
  }
  free(detect), free(depth), free(solve);
  snprintf(row->name, sizeof row->name, "collide_%dk", (target + 500) / 1000);
  jl_world_destroy(&w);
  if (!contacts) return jl_fail(err, errsz, JL_ERR_RUNTIME, "collision row: the world has no contact element");
  if (r) return jl_fail(err, errsz, r, "%s", rep.message);
  return JL_OK;
}

static int collide_rows(int json, int quick, int nstep, const char *cpu) {
  static const int targets[] = {1000, 10000, 50000};
  int ntarget = quick ? 2 : 3;
  if (!json)
    printf("\n%-12s %7s %10s %8s %10s %10s %10s %12s %10s\n", "name", "tets", "candidates", "points", "detect_ms",
           "us/tet", "depth_ms", "us/point", "solve_ms");
  for (int k = 0; k < ntarget; k++) {
    CollideRow row;
    char err[1024];
    int steps = nstep ? nstep : (targets[k] >= 50000 ? 5 : 9);
    if (collide_row(targets[k], steps, &row, err, sizeof err)) {
      fprintf(stderr, "jelly bench: %s\n", jl_cli_msg(err));
      return 1;
    }
    /* per tet: both bodies' tets; per point: penetrating nodes */
    double us_tet = 1e3 * row.detect_ms / (2.0 * row.tets);
    double us_point = row.penetrating > 0 ? 1e3 * row.depth_ms / row.penetrating : 0.0;
    if (json)
      printf(
          "{\"name\": \"%s\", \"tets\": %d, \"bodies\": 2, \"candidate_pairs\": %.0f, "
          "\"penetrating_nodes\": %.0f, \"detect_ms\": %.4f, \"depth_ms\": %.4f, "
          "\"collision_ms\": %.4f, \"us_per_tet\": %.4f, \"us_per_point\": %.4f, "
          "\"solve_ms\": %.3f, \"threads\": 1, \"cpu\": \"%s\"}\n",
          row.name, row.tets, row.candidates, row.penetrating, row.detect_ms, row.depth_ms,
          row.detect_ms + row.depth_ms, us_tet, us_point, row.solve_ms, cpu);
    else
      printf("%-12s %7d %10.0f %8.0f %10.3f %10.4f %10.3f %12.3f %10.1f\n", row.name, row.tets, row.candidates,
             row.penetrating, row.detect_ms, us_tet, row.depth_ms, us_point, row.solve_ms);
    fflush(stdout);
  }
  return 0;
}

/* the row groups --only names, in the order they run */
enum { GROUP_SPHERES, GROUP_COLLIDE, GROUP_VOLUME, GROUP_CLOTH, GROUP_SOLVER, GROUP_SCENES, GROUP_RENDER, NGROUP };
static const char *const group_names[NGROUP] = {"spheres", "collide", "volume", "cloth", "solver", "scenes", "render"};

/* --only: a comma-separated list of group names into a bit mask */
static int only_flag(const char *cmd, const char *flag, const char *v, void *dst) {
  unsigned mask = 0;
  const char *p = v;
  for (;;) {
    size_t len = strcspn(p, ",");
    int g = 0;
    while (g < NGROUP && !(strlen(group_names[g]) == len && strncmp(p, group_names[g], len) == 0)) g++;
    if (g == NGROUP) {
      /* the names from the table, so a new group cannot be left out of the message */
      fprintf(stderr, "jelly %s: %s expects row groups separated by commas (", cmd, flag);
      for (int k = 0; k < NGROUP; k++) fprintf(stderr, "%s%s", k ? ", " : "", group_names[k]);
      fprintf(stderr, "), got '%.*s'\n", (int)(len > 64 ? 64 : len), p);
      return 0;
    }
    mask |= 1u << g;
    if (p[len] == '\0') break;
    p += len + 1;
  }
  *(unsigned *)dst = mask;
  return 1;
}

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: jelly bench [--json] [--quick] [--steps N] [--only GROUPS]\n"
          "                   [--mesh-timeout S] [--mesh-memory MB] [--mesh-max-file MB]\n"
          "Prints TetGen time, ms per implicit step (dt 1/60 s, the default solver), CG\n"
          "iterations, spring-CG-iterations per second and peak memory for generated\n"
          "spheres of about 1k, 10k, 50k and 100k tets at 1 and 2 threads, with the\n"
          "default solver (the 50k and 100k spheres also with jacobi, and with jacobi\n"
          "and the relative stopping rule of before).\n"
          "Collision rows (collide_*): two such spheres pressed into each other, per\n"
          "step: detection and depth time, us per tet and per colliding point, and the\n"
          "implicit solve of the same step (one thread; times are medians over the steps).\n"
          "Cloth rows (cloth_on_ball, cloth_self): time to find cloth/rope proximity pairs\n"
          "against the whole implicit step (dt 1/120 s, one thread, medians).\n"
          "Volume rows (volume_*): the cost of the volume force (src/volume.c): one\n"
          "multiply of it against the springs' and the whole step with nu = 0.45 (every tet\n"
          "active) against nu = 0.25 (barrier idle), one thread, medians.\n"
          "Solver rows: drop_bullet (the Bullet comparison sphere) and contact_20k (two\n"
          "10k-tet balls in contact), wall seconds per simulated second at 1 and 2\n"
          "threads; busy_10k, ms per step at 1 and 2 threads while a busy loop holds\n"
          "a core.\n"
          "Scene rows: default_scene (models/scenes/default.json, 2 s) and pile\n"
          "(models/scenes/pile.json, 24 bodies in a box, 4 s) at their own dt: wall\n"
          "seconds of stepping per simulated second and CG iterations per step;\n"
          "rest_ground, a 10k-tet ball resting on the ground (after 2 s of settling)\n"
          "against the same ball in free fall: CG iterations per step and their ratio.\n"
          "All at 1 and 2 threads.\n"
          "--quick: only the 1k and 10k spheres. --json: one JSON object per line.\n"
          "--steps N: steps per row (default 10, 5 for the 50k and 100k spheres; scene\n"
          "rows: N steps of each part instead of their simulated time).\n"
          "--only GROUPS: only these row groups, separated by commas: spheres, collide,\n"
          "volume, cloth, solver, scenes, render (default: all).\n" JL_CLI_MESH_LIMITS_HELP "\n" JL_CLI_EXIT_HELP);
}

int jl_cli_bench(int argc, char **argv) {
  int json = 0, quick = 0, nstep = 0;
  unsigned only = (1u << NGROUP) - 1;
  const JlCliFlag flags[] = {
      JL_CLI_FLAG_SWITCH("--json", &json),
      JL_CLI_FLAG_SWITCH("--quick", &quick),
      JL_CLI_FLAG_INT("--steps", &nstep, 1, 100000),
      JL_CLI_FLAG_CALL("--only", &only, only_flag),
  };
  JlCliSpec spec = {"bench", flags, (int)(sizeof flags / sizeof flags[0]), NULL, NULL, NULL, bench_usage};
  int rc = jl_cli_parse(&spec, argc, argv);
  if (rc != JL_CLI_GO) return rc;
  static const int targets[] = {1000, 10000, 50000, 100000};
  int ntarget = !(only & 1u << GROUP_SPHERES) ? 0 : quick ? 2 : 4;
  char cpu[256];
  cpu_name(cpu, sizeof cpu);
  struct utsname un;
  uname(&un);
  if (!json) printf("jelly bench on %s (%s %s)\n", cpu, un.sysname, un.machine);
  if (!json && ntarget > 0) {
    printf("%-12s %7s %7s %8s %4s %10s %9s %8s %14s %8s %s\n", "name", "tets", "nodes", "springs", "thr", "tetgen_ms",
           "ms/step", "cg_it", "spring-cg-it/s", "peak_mb", "precond    stopping");
  }
  for (int k = 0; k < ntarget; k++) {
    /* the large spheres also with Jacobi, with the default stopping rule and
     * with the relative one of before: the gains side by side */
    int nvar = targets[k] >= 50000 ? 3 : 1;
    for (int var = 0; var < nvar; var++) {
      for (int threads = 1; threads <= 2; threads++) {
        BenchRow row;
        char err[1024];
        int steps = nstep ? nstep : (targets[k] >= 50000 ? 5 : 10);
        if (bench_row(targets[k], threads, var ? JL_PRECOND_JACOBI : JL_PRECOND_DEFAULT, var == 2, steps, &row, err,
                      sizeof err)) {
          fprintf(stderr, "jelly bench: %s\n", jl_cli_msg(err));
          return JL_ERR_SYSTEM; /* the generated meshes are not bad input: TetGen or memory refused */
        }
        char stop[64];
        if (row.relative)
          snprintf(stop, sizeof stop, "tolerance %g", jl_default_step_def().tolerance);
        else
          snprintf(stop, sizeof stop, "velocity_tolerance %g m/s", JL_VELOCITY_TOLERANCE);
        if (json)
          printf(
              "{\"name\": \"%s\", \"tets\": %d, \"nodes\": %d, \"springs\": %d, \"threads\": %d, "
              "\"ms_per_step\": %.4f, \"cg_iterations\": %.2f, \"spring_cg_iterations_per_s\": %.4g, "
              "\"peak_mb\": %.1f, \"tetgen_ms\": %.2f, \"cpu\": \"%s\", \"preconditioner\": \"%s\", "
              "\"stopping\": \"%s\"}\n",
              row.name, row.tets, row.nodes, row.springs, row.threads, row.ms_per_step, row.cg_iterations,
              row.spring_cg_per_s, row.peak_mb, row.tetgen_ms, cpu, jl_precond_names[row.precond], stop);
        else
          printf("%-12s %7d %7d %8d %4d %10.1f %9.2f %8.1f %14.3g %8.1f %-10s %s\n", row.name, row.tets, row.nodes,
                 row.springs, row.threads, row.tetgen_ms, row.ms_per_step, row.cg_iterations, row.spring_cg_per_s,
                 row.peak_mb, jl_precond_names[row.precond], stop);
        fflush(stdout);
      }
    }
  }
  if ((only & 1u << GROUP_COLLIDE) && collide_rows(json, quick, nstep, cpu)) return JL_ERR_SYSTEM;
  if ((only & 1u << GROUP_VOLUME) && jl_cli_bench_volume(json, quick, cpu))
    return JL_ERR_SYSTEM;                                                                      /* cli_bench_volume.c */
  if ((only & 1u << GROUP_CLOTH) && jl_cli_bench_thin(json, quick, cpu)) return JL_ERR_SYSTEM; /* cli_bench_thin.c */
  if ((only & 1u << GROUP_SOLVER) && jl_cli_bench_solver(json, quick, cpu))
    return JL_ERR_SYSTEM; /* cli_bench_solver.c */
  if ((only & 1u << GROUP_SCENES) && jl_cli_bench_scenes(json, nstep, cpu))
    return JL_ERR_SYSTEM;                                                                  /* cli_bench_scenes.c */
  if ((only & 1u << GROUP_RENDER) && jl_cli_bench_render(json, cpu)) return JL_ERR_SYSTEM; /* cli_bench_render.c */
  return 0;
}
