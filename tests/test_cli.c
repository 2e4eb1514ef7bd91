/* End-to-end tests of the `jelly` program: outputs exist and parse, runs are
 * deterministic, stiff scenes behave as the integrators promise, and bad
 * input is rejected with exit code 2 and a message. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"

#define JELLY JL_JELLY_EXE
#define SCENES JL_SOURCE_DIR "/models/scenes/"

static char g_out[1 << 16];

/* number of lines of a text */
static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* stats.csv with the wall_ms column (3rd) removed */
static char *stats_without_wall(const char *path) {
  char *text = jl_test_read_file(path, NULL);
  if (!text) return NULL;
  char *out = calloc(strlen(text) + 1, 1);
  char *o = out;
  int col = 0;
  for (const char *p = text; *p; p++) {
    if (*p == '\n') col = 0, *o++ = *p;
    else if (*p == ',') {
      col++;
      if (col != 2) *o++ = *p;
    } else if (col != 2) {
      *o++ = *p;
    }
  }
  free(text);
  return out;
}

/* value of column `col` (0-based) in data row `row` (0-based, after the header) */
static double csv_value(const char *text, int row, int col) {
  const char *p = strchr(text, '\n');
  for (int r = 0; p && r < row; r++) p = strchr(p + 1, '\n');
  if (!p) return NAN;
  p++;
  for (int c = 0; c < col && p; c++) {
    p = strpbrk(p, ",\n");
    if (p && *p == ',') p++;
    else return NAN;
  }
  return p ? atof(p) : NAN;
}

static void test_default_scene_outputs(void) {
  const char *dir = jl_test_tmpdir("cli_default");
  char cmd[4096], cwd[1024];
  ENSURE(getcwd(cwd, sizeof cwd));
  /* run from the repository root with no scene: models/scenes/default.json */
  snprintf(cmd, sizeof cmd, "cd '" JL_SOURCE_DIR "' && '" JELLY "' run --frames 3 --out '%s/%s/run' --obj",
           cwd, dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  ENSURE(strstr(g_out, "bunny") && strstr(g_out, "torus"));
  char path[2048];
  snprintf(path, sizeof path, "%s/run/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE_MSG(stats, "missing %s", path);
  const char *header = "frame,time,wall_ms,steps,cg_iterations,kinetic_energy,elastic_energy,"
                       "gravity_energy,max_strain,min_y,contacts\n";
  ENSURE(strncmp(stats, header, strlen(header)) == 0);
  ENSURE(count_lines(stats) == 5); /* header + frames 0..3 */
  ENSURE_NEAR(csv_value(stats, 3, 1), 3.0 / 60.0, 1e-9);
  ENSURE(csv_value(stats, 1, 3) >= 1);          /* steps */
  ENSURE(csv_value(stats, 1, 4) >= 1);          /* CG iterations */
  ENSURE(csv_value(stats, 3, 5) > 0);           /* falling: kinetic energy */
  ENSURE(csv_value(stats, 3, 7) < csv_value(stats, 0, 7)); /* gravity energy decreases */
  free(stats);
  snprintf(path, sizeof path, "%s/run/scene.pvd", dir);
  char *pvd = jl_test_read_file(path, NULL);
  ENSURE(pvd && strstr(pvd, "frame_0003.vtu") && strstr(pvd, "<Collection>"));
  free(pvd);
  snprintf(path, sizeof path, "%s/run/frame_0003.vtu", dir);
  char *vtu = jl_test_read_file(path, NULL);
  ENSURE(vtu && strstr(vtu, "NumberOfPoints=") && strstr(vtu, "Name=\"velocity\"") &&
         strstr(vtu, "Name=\"strain\"") && strstr(vtu, "</VTKFile>"));
  int npts = 0, ncells = 0;
  ENSURE(sscanf(strstr(vtu, "NumberOfPoints="), "NumberOfPoints=\"%d\" NumberOfCells=\"%d\"", &npts, &ncells) == 2);
  ENSURE(npts > 100 && ncells > 100);
  free(vtu);
  snprintf(path, sizeof path, "%s/run/bunny_0003.obj", dir);
  char *obj = jl_test_read_file(path, NULL);
  ENSURE_MSG(obj, "missing %s", path);
  int nv = 0, nf = 0;
  for (char *l = obj; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    nv += strncmp(l, "v ", 2) == 0;
    nf += strncmp(l, "f ", 2) == 0;
  }
  ENSURE(nv == 1839 && nf == 3674); /* the full bunny surface rides on the tets */
  free(obj);
}

static void test_determinism(void) {
  const char *dir = jl_test_tmpdir("cli_determinism");
  char cmd[2048];
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "'" JELLY "' run '" SCENES "drop.json' --frames 12 --quiet --out %s/run%d", dir, k);
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  }
  char a[1024], b[1024];
  snprintf(a, sizeof a, "%s/run0/stats.csv", dir);
  snprintf(b, sizeof b, "%s/run1/stats.csv", dir);
  char *sa = stats_without_wall(a), *sb = stats_without_wall(b);
  ENSURE(sa && sb);
  ENSURE(count_lines(sa) == 14);
  ENSURE_MSG(strcmp(sa, sb) == 0, "stats.csv differ between identical runs");
  free(sa);
  free(sb);
  for (int f = 0; f <= 12; f += 4) {
    snprintf(a, sizeof a, "%s/run0/frame_%04d.vtu", dir, f);
    snprintf(b, sizeof b, "%s/run1/frame_%04d.vtu", dir, f);
    size_t la = 0, lb = 0;
    char *va = jl_test_read_file(a, &la), *vb = jl_test_read_file(b, &lb);
    ENSURE(va && vb);
    ENSURE_MSG(la == lb && memcmp(va, vb, la) == 0, "%s and %s differ", a, b);
    free(va);
    free(vb);
  }
}

static void test_stiff_implicit_vs_euler(void) {
  const char *dir = jl_test_tmpdir("cli_stiff");
  char cmd[2048], path[1024];
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '" SCENES "stiff.json' --quiet --out %s/implicit", dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "implicit exit %d: %s", rc, g_out);
  snprintf(path, sizeof path, "%s/implicit/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE(stats);
  int rows = count_lines(stats) - 1;
  ENSURE(rows == 31);
  for (int r = 0; r < rows; r++) {
    ENSURE_MSG(csv_value(stats, r, 8) < 0.5, "implicit strain %g at frame %d", csv_value(stats, r, 8), r);
    ENSURE_MSG(csv_value(stats, r, 9) > -0.1, "implicit fell through the ground at frame %d", r);
  }
  free(stats);
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '" SCENES "stiff.json' --quiet --integrator euler --out %s/euler", dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 1, "forward Euler should diverge with exit 1, got %d: %s", rc, g_out);
  ENSURE_MSG(strstr(g_out, "block") && strstr(g_out, "diverged") && strstr(g_out, "frame"),
             "divergence message must name body and frame: %s", g_out);
}

typedef struct BadRun {
  const char *args;
  const char *want;
} BadRun;

static void test_bad_input(void) {
  const char *dir = jl_test_tmpdir("cli_bad");
  char scene[1024];
  snprintf(scene, sizeof scene, "%s/bad.json", dir);
  FILE *f = fopen(scene, "w");
  ENSURE(f);
  fputs("{ \"bodies\": [ { \"shape\": { \"type\": \"box\" }, \"density\": -5 } ] }\n", f);
  fclose(f);
  snprintf(scene, sizeof scene, "%s/garbage.json", dir);
  f = fopen(scene, "w");
  ENSURE(f);
  fputs("\x01\x02{{{ not json", f);
  fclose(f);
  const BadRun cases[] = {
      {"run /no/such/scene.json", "/no/such/scene.json"},
      {"run BAD/bad.json", "bodies[0].density"},
      {"run BAD/garbage.json", "invalid JSON"},
      {"run " SCENES "drop.json --frames -3", "--frames"},
      {"run " SCENES "drop.json --frames", "--frames"},
      {"run " SCENES "drop.json --dt 0", "--dt"},
      {"run " SCENES "drop.json --dt abc", "--dt"},
      {"run " SCENES "drop.json --integrator leapfrog", "leapfrog"},
      {"run " SCENES "drop.json --threads 0", "--threads"},
      {"run " SCENES "drop.json --bogus", "--bogus"},
      {"run " SCENES "drop.json " SCENES "stiff.json", "more than one scene"},
      {"frobnicate", "unknown command"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char args[2048], cmd[4096];
    snprintf(args, sizeof args, "%s", cases[i].args);
    char *bad = strstr(args, "BAD/");
    if (bad) {
      char rest[1024];
      snprintf(rest, sizeof rest, "%s", bad + 4);
      snprintf(bad, sizeof args - (size_t)(bad - args), "%s/%s", dir, rest);
    }
    snprintf(cmd, sizeof cmd, "'" JELLY "' %s --out %s/out%zu", args, dir, i);
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 2, "'%s': exit %d, want 2: %s", args, rc, g_out);
    ENSURE_MSG(strstr(g_out, cases[i].want), "'%s': message lacks '%s': %s", args, cases[i].want, g_out);
  }
}

static void test_help(void) {
  ENSURE(jl_test_run("'" JELLY "' run --help", g_out, sizeof g_out) == 0);
  ENSURE(strstr(g_out, "--integrator") && strstr(g_out, "--obj"));
  ENSURE(jl_test_run("'" JELLY "' help", g_out, sizeof g_out) == 0);
  ENSURE(strstr(g_out, "run") && strstr(g_out, "check") && strstr(g_out, "mesh") && strstr(g_out, "bench"));
}

static void test_bench_json_format(void) {
  /* format only (figures are not asserted: speed is measured, not tested) */
  int rc = jl_test_run("'" JELLY "' bench --json --quick --steps 1", g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  /* the implicit-step rows: 1k and 10k spheres at 1 and 2 threads (other rows may follow) */
  int rows = 0;
  for (const char *p = g_out; (p = strstr(p, "{\"name\": \"sphere_")) != NULL; p++) rows++;
  ENSURE_MSG(rows == 4, "%d sphere rows in: %s", rows, g_out);
  static const char *keys[] = {"\"name\"", "\"tets\"", "\"nodes\"", "\"springs\"", "\"threads\"",
                               "\"ms_per_step\"", "\"cg_iterations\"", "\"spring_cg_iterations_per_s\"",
                               "\"peak_mb\""};
  for (int k = 0; k < 9; k++) ENSURE_MSG(strstr(g_out, keys[k]), "missing %s in %s", keys[k], g_out);
  int tets = 0;
  const char *p = strstr(g_out, "\"tets\": ");
  ENSURE(p && sscanf(p, "\"tets\": %d", &tets) == 1);
  ENSURE_MSG(tets > 800 && tets < 1250, "first row should have about 1k tets, has %d", tets);
}

JL_TEST_MAIN({"default_scene_outputs", test_default_scene_outputs},
             {"determinism", test_determinism},
             {"stiff_implicit_vs_euler", test_stiff_implicit_vs_euler},
             {"bad_input", test_bad_input}, {"help", test_help},
             {"bench_json_format", test_bench_json_format})
