/* End-to-end tests of the `jelly` program: outputs exist and parse, runs are
 * deterministic, stiff scenes behave as the integrators promise, solver
 * failures and starting overlaps are reported, bad input is rejected
 * with exit code 2 and a message, and a rerun into a folder never leaves the
 * earlier run's files behind (jelly_manifest.txt). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/harness.h"

#define JELLY  JL_JELLY_EXE
#define SCENES JL_SOURCE_DIR "/models/scenes/"

static char g_out[1 << 16];

/* the stats.csv header: a contract, columns are only ever appended */
#define STATS_HEADER                                                                                      \
  "frame,time,wall_ms,steps,cg_iterations,kinetic_energy,elastic_energy,gravity_energy,max_strain,min_y," \
  "contacts,contact_energy,cg_failed,inverted_tets,energy_splits,crossing_splits\n"

/* writes text to dir/name and the file's path into path */
static int write_scene(const char *dir, const char *name, const char *text, char *path, size_t n) {
  snprintf(path, n, "%s/%s", dir, name);
  return jl_test_write_file(path, text);
}

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
    if (*p == '\n')
      col = 0, *o++ = *p;
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
    if (p && *p == ',')
      p++;
    else
      return NAN;
  }
  return p ? atof(p) : NAN;
}

static void test_default_scene_outputs(void) {
  const char *dir = jl_test_tmpdir("cli_default");
  char cmd[4096], cwd[1024];
  ENSURE(getcwd(cwd, sizeof cwd));
  /* run from the repository root with no scene: models/scenes/default.json */
  snprintf(cmd, sizeof cmd, "cd '" JL_SOURCE_DIR "' && '" JELLY "' run --frames 3 --out '%s/%s/run' --obj", cwd, dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  ENSURE(strstr(g_out, "bunny") && strstr(g_out, "torus"));
  char path[2048];
  snprintf(path, sizeof path, "%s/run/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE_MSG(stats, "missing %s", path);
  ENSURE_MSG(strncmp(stats, STATS_HEADER, strlen(STATS_HEADER)) == 0, "header: %.200s", stats);
  ENSURE(count_lines(stats) == 5); /* header + frames 0..3 */
  ENSURE_NEAR(csv_value(stats, 3, 1), 3.0 / 60.0, 1e-9);
  ENSURE(csv_value(stats, 1, 3) >= 1);                               /* steps */
  ENSURE(csv_value(stats, 1, 4) >= 1);                               /* CG iterations */
  ENSURE(csv_value(stats, 3, 5) > 0);                                /* falling: kinetic energy */
  ENSURE(csv_value(stats, 3, 7) < csv_value(stats, 0, 7));           /* gravity energy decreases */
  for (int r = 0; r <= 3; r++) ENSURE(csv_value(stats, r, 12) == 0); /* cg_failed: the solver converged */
  free(stats);
  snprintf(path, sizeof path, "%s/run/scene.pvd", dir);
  char *pvd = jl_test_read_file(path, NULL);
  ENSURE(pvd && strstr(pvd, "frame_0003.vtu") && strstr(pvd, "<Collection>"));
  free(pvd);
  snprintf(path, sizeof path, "%s/run/frame_0003.vtu", dir);
  size_t len = 0;
  char *vtu = jl_test_read_file(path, &len);
  ENSURE(vtu && strstr(vtu, "NumberOfPoints=") && strstr(vtu, "Name=\"velocity\"") && strstr(vtu, "Name=\"strain\"") &&
         strstr(vtu, "compressor=\"vtkZLibDataCompressor\"") && len > 11 &&
         memcmp(vtu + len - 11, "</VTKFile>\n", 11) == 0);
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
  /* the same surface in the frame's multiblock, which scene_all.pvd lists */
  snprintf(path, sizeof path, "%s/run/scene_all.pvd", dir);
  pvd = jl_test_read_file(path, NULL);
  ENSURE(pvd && strstr(pvd, "file=\"frame_0003.vtm\"") && strstr(pvd, "<Collection>"));
  free(pvd);
  snprintf(path, sizeof path, "%s/run/frame_0003.vtm", dir);
  char *vtm = jl_test_read_file(path, NULL);
  ENSURE(vtm && strstr(vtm, "file=\"frame_0003.vtu\"") && strstr(vtm, "name=\"bunny\" file=\"frame_0003_bunny.vtp\"") &&
         strstr(vtm, "name=\"torus\" file=\"frame_0003_torus.vtp\""));
  free(vtm);
  snprintf(path, sizeof path, "%s/run/frame_0003_bunny.vtp", dir);
  char *vtp = jl_test_read_file(path, NULL);
  ENSURE(vtp && strstr(vtp, "NumberOfPoints=\"1839\"") && strstr(vtp, "NumberOfPolys=\"3674\"") &&
         strstr(vtp, "Name=\"Normals\""));
  free(vtp);
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
  for (int k = 0; k < 12; k++) {
    static const char *const form[3] = {"%s/run%d/frame_%04d.vtu", "%s/run%d/frame_%04d.vtm",
                                        "%s/run%d/frame_%04d_ball.vtp"};
    snprintf(a, sizeof a, form[k % 3], dir, 0, 4 * (k / 3));
    snprintf(b, sizeof b, form[k % 3], dir, 1, 4 * (k / 3));
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

/* A cube whose linear solver may take one iteration: every step stops at the cap. */
static const char *const CG_CAP_SCENE =
    "{ \"duration\": 0.1, \"solver\": { \"max_iterations\": 1 },\n"
    "  \"bodies\": [ { \"name\": \"cube\", \"shape\": { \"type\": \"box\", \"size\": [0.3, 0.3, 0.3] },\n"
    "                \"translate\": [0, 1, 0] } ] }\n";

static void test_cg_failed_column_and_warning(void) {
  const char *dir = jl_test_tmpdir("cli_cg_failed");
  char scene[1024], cmd[4096], path[2048];
  ENSURE(write_scene(dir, "cap.json", CG_CAP_SCENE, scene, sizeof scene));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '%s' --quiet --no-preview --out %s/run", scene, dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "without --strict the run succeeds, got exit %d: %s", rc, g_out);
  /* one warning with the cap, the count and the first frame */
  const char *warn = strstr(g_out, "jelly run: warning: the linear solver hit its iteration cap (1) in ");
  ENSURE_MSG(warn, "no solver warning in: %s", g_out);
  ENSURE_MSG(strstr(strstr(warn, "hit its") + 1, "hit its") == NULL, "more than one solver warning: %s", g_out);
  int failed = 0, steps = 0;
  ENSURE(sscanf(warn, "jelly run: warning: the linear solver hit its iteration cap (1) in %d of %d steps", &failed,
                &steps) == 2);
  ENSURE_MSG(failed > 0 && steps == 6, "%d of %d steps", failed, steps);
  ENSURE_MSG(strstr(warn, "first in frame 1;") && strstr(warn, "solver.max_iterations") && strstr(warn, "--dt"),
             "warning lacks the first frame or the remedies: %s", warn);
  /* stats.csv: the two new columns last, cg_failed per frame summing to the warning's count */
  snprintf(path, sizeof path, "%s/run/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE(stats);
  ENSURE_MSG(strncmp(stats, STATS_HEADER, strlen(STATS_HEADER)) == 0, "header: %.200s", stats);
  ENSURE(count_lines(stats) == 8);
  ENSURE(csv_value(stats, 0, 12) == 0); /* frame 0 takes no step */
  ENSURE(csv_value(stats, 1, 12) >= 1);
  double sum = 0;
  for (int r = 0; r <= 6; r++) sum += csv_value(stats, r, 12);
  ENSURE_MSG(sum == failed, "cg_failed sums to %g, the warning says %d", sum, failed);
  free(stats);
  /* --strict: exit 1 with the reason, outputs still written */
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '%s' --quiet --no-preview --strict --out %s/strict", scene, dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 1, "--strict should exit 1, got %d: %s", rc, g_out);
  ENSURE_MSG(strstr(g_out, "iteration cap") && strstr(g_out, "--strict"), "no reason given: %s", g_out);
  snprintf(path, sizeof path, "%s/strict/stats.csv", dir);
  char *strict_stats = jl_test_read_file(path, NULL);
  ENSURE_MSG(strict_stats && count_lines(strict_stats) == 8, "--strict did not write all of %s", path);
  free(strict_stats);
  snprintf(path, sizeof path, "%s/strict/scene.pvd", dir);
  char *pvd = jl_test_read_file(path, NULL);
  ENSURE_MSG(pvd, "--strict did not write %s", path);
  free(pvd);
  /* --strict on a scene whose solver converges: exit 0, no warning */
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' run '" SCENES "drop.json' --frames 3 --quiet --no-preview --strict --out %s/ok", dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "--strict on drop.json: exit %d: %s", rc, g_out);
  ENSURE_MSG(!strstr(g_out, "warning"), "unexpected warning: %s", g_out);
}

static void test_fps_flag(void) {
  const char *dir = jl_test_tmpdir("cli_fps");
  char cmd[4096], path[2048];
  /* drop.json: dt 1/120 s at 60 fps; at 30 fps a frame takes 4 steps */
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '" SCENES "drop.json' --fps 30 --frames 2 --quiet --no-preview --out %s/a",
           dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  snprintf(path, sizeof path, "%s/a/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE(stats && count_lines(stats) == 4);
  ENSURE_NEAR(csv_value(stats, 2, 1), 2.0 / 30.0, 1e-9);
  ENSURE(csv_value(stats, 1, 3) == 4);
  free(stats);
  /* fps = 1/dt = 30: one step per frame */
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' run '" SCENES
           "drop.json' --fps 30 --dt 0.03333333333333333 --frames 2 --quiet --no-preview "
           "--out %s/b",
           dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  snprintf(path, sizeof path, "%s/b/stats.csv", dir);
  stats = jl_test_read_file(path, NULL);
  ENSURE(stats && count_lines(stats) == 4);
  ENSURE_NEAR(csv_value(stats, 2, 1), 2.0 / 30.0, 1e-9);
  ENSURE(csv_value(stats, 1, 3) == 1);
  free(stats);
  /* without --frames: the scene's duration (0.1 s) at 30 fps is 3 frames */
  char scene[1024];
  ENSURE(write_scene(dir, "short.json", CG_CAP_SCENE, scene, sizeof scene));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '%s' --fps 30 --quiet --no-preview --out %s/c", scene, dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  snprintf(path, sizeof path, "%s/c/stats.csv", dir);
  stats = jl_test_read_file(path, NULL);
  ENSURE(stats && count_lines(stats) == 5);
  ENSURE_NEAR(csv_value(stats, 3, 1), 0.1, 1e-9);
  free(stats);
}

/* two boxes 5 cm into each other, one 3 cm below the ground, one inside a sphere obstacle */
static const char *const OVERLAP_SCENE =
    "{ \"duration\": 0.05, \"ground\": { \"y\": 0 },\n"
    "  \"obstacles\": [ { \"type\": \"sphere\", \"radius\": 0.3, \"translate\": [3, 0.5, 0] } ],\n"
    "  \"bodies\": [\n"
    "    { \"name\": \"left\", \"shape\": { \"type\": \"box\", \"size\": [0.5, 0.5, 0.5] }, \"translate\": [0, 0.5, 0] },\n"
    "    { \"name\": \"right\", \"shape\": { \"type\": \"box\", \"size\": [0.5, 0.5, 0.5] }, \"translate\": [0.45, 0.5, 0] },\n"
    "    { \"name\": \"low\", \"shape\": { \"type\": \"box\", \"size\": [0.5, 0.5, 0.5] }, \"translate\": [1.5, 0.22, 0] },\n"
    "    { \"name\": \"stuck\", \"shape\": { \"type\": \"box\", \"size\": [0.5, 0.5, 0.5] }, \"translate\": [3, 0.9, 0] } ] }\n";

static void test_overlap_warnings(void) {
  const char *dir = jl_test_tmpdir("cli_overlap");
  char scene[1024], cmd[4096], path[2048];
  ENSURE(write_scene(dir, "overlap.json", OVERLAP_SCENE, scene, sizeof scene));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '%s' --frames 1 --no-preview --out %s/run", scene, dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "a warning must not change the exit code, got %d: %s", rc, g_out);
  const char *w = strstr(g_out, "jelly run: warning: bodies 'left' and 'right' overlap by ");
  ENSURE_MSG(w, "no overlap warning naming both bodies: %s", g_out);
  double cm = 0;
  ENSURE(sscanf(w, "jelly run: warning: bodies 'left' and 'right' overlap by %lf cm", &cm) == 1);
  ENSURE_NEAR(cm, 5.0, 0.5);
  ENSURE_MSG(strstr(g_out, "jelly run: warning: body 'low' starts 3 cm below the ground plane"),
             "no ground warning: %s", g_out);
  ENSURE_MSG(strstr(g_out, "jelly run: warning: body 'stuck' starts 15 cm inside obstacles[0] (sphere)"),
             "no obstacle warning: %s", g_out);
  ENSURE_MSG(!strstr(g_out, "'left' and 'low'") && !strstr(g_out, "body 'left' starts"), "spurious warning: %s", g_out);
  /* contact_energy: the penalty energy of 'low' in the ground at frame 0 */
  snprintf(path, sizeof path, "%s/run/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE(stats);
  ENSURE_MSG(csv_value(stats, 0, 11) > 0, "contact_energy at frame 0 is %g", csv_value(stats, 0, 11));
  free(stats);
}

typedef struct BadRun {
  const char *args;
  const char *want;
} BadRun;

static void test_bad_input(void) {
  const char *dir = jl_test_tmpdir("cli_bad");
  char scene[1024];
  snprintf(scene, sizeof scene, "%s/bad.json", dir);
  ENSURE(jl_test_write_file(scene, "{ \"bodies\": [ { \"shape\": { \"type\": \"box\" }, \"density\": -5 } ] }\n"));
  snprintf(scene, sizeof scene, "%s/garbage.json", dir);
  ENSURE(jl_test_write_file(scene, "\x01\x02{{{ not json"));
  char path[1024];
  ENSURE(write_scene(dir, "dt.json", "{ \"dt\": 0.05, \"bodies\": [ { \"shape\": { \"type\": \"box\" } } ] }\n", path,
                     sizeof path));
  ENSURE(write_scene(dir, "long.json",
                     "{ \"duration\": 1e7, \"fps\": 1000, \"bodies\": [ { \"shape\": { \"type\": \"box\" } } ] }\n",
                     path, sizeof path));
  ENSURE(write_scene(dir, "pin.json",
                     "{ \"bodies\": [ { \"name\": \"bar\", \"shape\": { \"type\": \"box\", \"size\": [1, 0.2, 0.2] },\n"
                     "    \"pin\": { \"box\": [[2, -0.1, -0.1], [2.1, 0.1, 0.1]] } } ] }\n",
                     path, sizeof path));
  ENSURE(write_scene(dir, "pin_rope.json",
                     "{ \"bodies\": [ { \"name\": \"strand\", \"kind\": \"rope\",\n"
                     "    \"shape\": { \"type\": \"chain\", \"length\": 1, \"segments\": 4 },\n"
                     "    \"pin\": { \"box\": [[3, 3, 3], [4, 4, 4]] } } ] }\n",
                     path, sizeof path));
  const BadRun cases[] = {
      {"run /no/such/scene.json", "/no/such/scene.json"},
      {"run BAD/bad.json", "bodies[0].density"},
      {"run BAD/garbage.json", "invalid JSON"},
      {"run " SCENES "drop.json --frames -3", "--frames"},
      {"run " SCENES "drop.json --frames", "--frames"},
      {"run " SCENES "drop.json --dt 0", "--dt"},
      {"run " SCENES "drop.json --dt abc", "--dt"},
      {"run " SCENES "drop.json --dt 0.1", "--dt 0.1 s is longer than one output frame (1/fps = 0.0166666667 s)"},
      {"run " SCENES "drop.json --fps 120 --dt 0.01", "--dt 0.01 s is longer than one output frame"},
      {"run " SCENES "drop.json --dt 1e-12", "steps per output frame"},
      {"run BAD/dt.json", "dt.json: dt: 0.05 s is longer than one output frame"},
      {"run " SCENES "stiff.json --fps 60", "stiff.json: dt: "},
      {"run BAD/long.json", "long.json: duration, fps:"},
      {"run " SCENES "drop.json --fps 0", "--fps must be > 0"},
      {"run " SCENES "drop.json --fps", "--fps expects a finite number"},
      {"run BAD/pin.json", "body 'bar': pin.box [[2, -0.1, -0.1], [2.1, 0.1, 0.1]] holds none"},
      {"run BAD/pin_rope.json", "body 'strand': pin.box"},
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

/* Hostile values: each used to abort, run absurdly or silently
 * misbehave; now exit 2 naming the key and the limit, quickly and without a
 * large allocation (address space capped at 4 GB outside sanitizer builds,
 * whose shadow memory needs more). */
static void test_hostile_values(void) {
  const char *dir = jl_test_tmpdir("cli_hostile");
  char path[1024];
  static const struct {
    const char *file, *text, *want;
  } cases[] = {
      {"frames.json", "{\"duration\": 1e7, \"fps\": 1e6, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "duration, fps: 1e+07 s at 1e+06 frames per second is 1e+13 output frames (at most 1e8)"},
      {"steps.json", "{\"fps\": 1e-3, \"dt\": 1e-7, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "dt: 1e-07 s would need 1e+10 steps per output frame of 1/fps = 1000 s (at most 1e7)"},
      {"box.json", "{\"bodies\": [{\"shape\": {\"type\": \"box\", \"resolution\": 1e-4}}]}",
       "bodies[0].shape.resolution: 0.0001 m makes a box of 2.01e+08 triangles (at most 1000000 per generated shape)"},
      {"torus.json", "{\"bodies\": [{\"shape\": {\"type\": \"torus\", \"resolution\": 1e-3}}]}",
       "bodies[0].shape.resolution: 0.001 m makes a torus of 1.03e+07 triangles (at most 1000000"},
      {"cloth.json", "{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"cells\": [2000, 2000]}}]}",
       "bodies[0].shape.cells: 2000 x 2000 is 4e+06 cells (at most 1000000 per cloth)"},
      {"tets.json", "{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"max_volume\": 1e-9}}]}",
       "bodies[0].tetgen.max_volume: 1e-09 m^3 in body 'body0' of 1 m^3 asks for at least 1e+09 tets (at most 10000000"},
      {"hull.json",
       "{\"obstacles\": [{\"type\": \"hull\", \"mesh\": \"hull.obj\"}], \"ground\": {},"
       " \"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 0.2}, \"translate\": [0, 2, 0]}]}",
       "obstacles[0].mesh: 'hull.obj' vertex 3 is not finite (0 0 nan)"},
  };
  snprintf(path, sizeof path, "%s/hull.obj", dir);
  ENSURE(jl_test_write_file(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 nan\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
#if defined(__SANITIZE_ADDRESS__)
  const char *limit = "";
#else
  const char *limit = "ulimit -v 4000000; ";
#endif
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ENSURE(write_scene(dir, cases[i].file, cases[i].text, path, sizeof path));
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%stimeout 60 '" JELLY "' run '%s' --no-preview --out '%s/out%zu'", limit, path, dir, i);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ENSURE_MSG(rc == 2, "%s: exit %d, want 2: %s", cases[i].file, rc, g_out);
    ENSURE_MSG(strstr(g_out, cases[i].file) && strstr(g_out, cases[i].want), "%s: message lacks '%s': %s",
               cases[i].file, cases[i].want, g_out);
    ENSURE_MSG(sec < 10.0, "%s: %.1f s", cases[i].file, sec);
  }
}

/* "did you mean": a mistyped command, option or scene key is told the close one after the message of old
 * (exit 2 as before); a far one, a huge one and bytes beyond ASCII get the message alone */
static void test_did_you_mean(void) {
  const char *dir = jl_test_tmpdir("cli_did_you_mean");
  char path[1024];
  ENSURE(write_scene(dir, "typo.json", "{ \"bodies\": [ { \"shape\": { \"type\": \"box\" }, \"densty\": 1000 } ] }\n",
                     path, sizeof path));
  static const struct {
    const char *args, *want, *unwanted;
  } cases[] = {
      {"rn", "jelly: unknown command 'rn' (did you mean 'run'?)", NULL},
      {"mseh x.obj", "jelly: unknown command 'mseh' (did you mean 'mesh'?)", NULL},
      {"hlep", "jelly: unknown command 'hlep' (did you mean 'help'?)", NULL},
      {"help rn", "jelly help: unknown command 'rn' (did you mean 'run'?)", NULL},
      {"help frobnicate", "jelly help: unknown command 'frobnicate'\n", "did you mean"},
      {"frobnicate", "jelly: unknown command 'frobnicate'\n", "did you mean"},
      {"--verison", "jelly: unknown option '--verison' (did you mean '--version'?)", NULL},
      {"run --frmes 3 " SCENES "drop.json",
       "jelly run: unknown option '--frmes' (see jelly run --help) (did you mean '--frames'?)", NULL},
      {"run " SCENES "drop.json --frmes=3",
       "jelly run: unknown option '--frmes=3' (see jelly run --help) (did you mean '--frames'?)", NULL},
      {"run " SCENES "drop.json --fram 1",
       "jelly run: unknown option '--fram' (see jelly run --help) (did you mean '--frames'?)", NULL},
      {"render " SCENES "drop.json --sise 64x48",
       "jelly render: unknown option '--sise' (see jelly render --help) (did you mean '--size'?)", NULL},
      {"mesh --reslution 0.5",
       "jelly mesh: unknown option '--reslution' (see jelly mesh --help) (did you mean '--resolution'?)", NULL},
      {"check --mesh-timout 5 x.obj",
       "jelly check: unknown option '--mesh-timout' (see jelly check --help) (did you mean '--mesh-timeout'?)", NULL},
      {"run " SCENES "drop.json --bogus", "jelly run: unknown option '--bogus' (see jelly run --help)\n",
       "did you mean"},
      {"run " SCENES "drop.json -q", "jelly run: unknown option '-q' (see jelly run --help)\n", "did you mean"},
      {"run typo.json", "typo.json: bodies[0].densty: unknown key (did you mean 'density'? allowed: name, ", NULL},
      {"run --HUGE", "jelly run: unknown option '--aaaa", "did you mean"},
      {"HUGE", "jelly: unknown command 'aaaa", "did you mean"},
      {"\xc3\xa9\xc3\xa9", "jelly: unknown command '\xc3\xa9\xc3\xa9'\n", "did you mean"},
      {"r\xffn", "jelly: unknown command 'r\xffn' (did you mean 'run'?)", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char args[1024], cmd[2048];
    const char *a = cases[i].args;
    /* HUGE: 10240 a's, made by the shell (a command line of jl_test_run holds 8 KB) */
    if (strstr(a, "HUGE"))
      snprintf(args, sizeof args, "%.*s\"$(printf '%%010240d' 0 | tr 0 a)\"", (int)(strstr(a, "HUGE") - a), a);
    else
      snprintf(args, sizeof args, "%s", a);
    snprintf(cmd, sizeof cmd, "cd '%s' && '" JELLY "' %s", dir, args); /* typo.json is there */
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 2, "'%s': exit %d, want 2: %.300s", cases[i].args, rc, g_out);
    ENSURE_MSG(strstr(g_out, cases[i].want), "'%s': message lacks '%s': %.300s", cases[i].args, cases[i].want, g_out);
    ENSURE_MSG(!cases[i].unwanted || !strstr(g_out, cases[i].unwanted), "'%s': message has '%s': %.300s", cases[i].args,
               cases[i].unwanted, g_out);
  }
}

static void test_help(void) {
  ENSURE(jl_test_run("'" JELLY "' run --help", g_out, sizeof g_out) == 0);
  ENSURE(strstr(g_out, "--integrator") && strstr(g_out, "--obj") && strstr(g_out, "--fps") &&
         strstr(g_out, "--strict"));
  ENSURE(jl_test_run("'" JELLY "' help", g_out, sizeof g_out) == 0);
  ENSURE(strstr(g_out, "run") && strstr(g_out, "check") && strstr(g_out, "mesh") && strstr(g_out, "bench"));
}

static void test_bench_json_format(void) {
  /* format only (figures are not asserted: speed is measured, not tested).
   * Under JL_TEST_QUICK (the sanitizer stage) only the sphere, collision and
   * render rows run (about 35 s under ASan + UBSan): the solver rows simulate
   * whole seconds whatever --steps says (390 s), the volume and cloth rows
   * take 57 s and 73 s; the release run does them all. */
  const char *cmd = jl_test_quick() ? "'" JELLY "' bench --json --quick --steps 1 --only spheres,collide,render"
                                    : "'" JELLY "' bench --json --quick --steps 1";
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  /* the implicit-step rows: 1k and 10k spheres at 1 and 2 threads (other rows may follow) */
  int rows = 0;
  for (const char *p = g_out; (p = strstr(p, "{\"name\": \"sphere_")) != NULL; p++) rows++;
  ENSURE_MSG(rows == 4, "%d sphere rows in: %s", rows, g_out);
  static const char *keys[] = {"\"name\"",    "\"tets\"",        "\"nodes\"",         "\"springs\"",
                               "\"threads\"", "\"ms_per_step\"", "\"cg_iterations\"", "\"spring_cg_iterations_per_s\"",
                               "\"peak_mb\""};
  for (int k = 0; k < 9; k++) ENSURE_MSG(strstr(g_out, keys[k]), "missing %s in %s", keys[k], g_out);
  int tets = 0;
  const char *p = strstr(g_out, "\"tets\": ");
  ENSURE(p && sscanf(p, "\"tets\": %d", &tets) == 1);
  ENSURE_MSG(tets > 800 && tets < 1250, "first row should have about 1k tets, has %d", tets);
}

/* --only picks row groups; a name it does not know is an error */
static void test_bench_only(void) {
  int rc = jl_test_run("'" JELLY "' bench --json --steps 1 --only render", g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  ENSURE_MSG(strstr(g_out, "\"name\": \"render_default\"") && !strstr(g_out, "sphere_") && !strstr(g_out, "collide_"),
             "render rows only: %s", g_out);
  rc = jl_test_run("'" JELLY "' bench --only render,spheres,bogus", g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "--only expects row groups") && strstr(g_out, "got 'bogus'"), "exit %d: %s", rc,
             g_out);
  ENSURE_MSG(strstr(g_out, "solver, scenes, render"), "the message names every group: %s", g_out);
  rc = jl_test_run("'" JELLY "' bench --only render,", g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "got ''"), "exit %d: %s", rc, g_out);
}

/* a cube of E = 10 Pa dropped 1 m at dt 1/15 s: its weight (450 bulk moduli at the bottom) beats the
 * volume barrier's pressure at zero volume, so tets invert; stats.csv counts them per frame and the
 * run ends with one warning naming the body, the largest fraction and the first frame */
#define INVERT_SCENE                                                                                    \
  "{ \"duration\": 1.0, \"fps\": 15, \"dt\": 0.06666666666666667, \"ground\": { \"y\": 0 },"            \
  "  \"bodies\": [ { \"name\": \"jelly\", \"shape\": { \"type\": \"box\", \"size\": [0.3, 0.3, 0.3] }," \
  "    \"translate\": [0, 1.15, 0], \"tetgen\": { \"max_volume\": 1e-4 }, \"young_modulus\": 10 } ] }"

static void test_inverted_tets_column_and_warning(void) {
  const char *dir = jl_test_tmpdir("cli_inverted");
  char scene[1024], cmd[4096], path[2048];
  ENSURE(write_scene(dir, "soft.json", INVERT_SCENE, scene, sizeof scene));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '%s' --quiet --no-preview --out %s/run", scene, dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  const char *warn = strstr(g_out, "jelly run: warning: body 'jelly' had inverted tets: up to ");
  ENSURE_MSG(warn, "no inverted-tets warning in: %s", g_out);
  int most = 0, of = 0, first = 0;
  double pct = 0;
  ENSURE(sscanf(warn, "jelly run: warning: body 'jelly' had inverted tets: up to %d of %d (%lf %%), first in frame %d",
                &most, &of, &pct, &first) == 4);
  snprintf(path, sizeof path, "%s/run/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE(stats);
  int lines = count_lines(stats), seen_first = -1;
  double seen_most = 0;
  for (int r = 0; r + 1 < lines; r++) {
    double n = csv_value(stats, r, 13);
    if (n > 0 && seen_first < 0) seen_first = r;
    seen_most = fmax(seen_most, n);
  }
  free(stats);
  printf("  up to %d of %d tets inverted (%.3g %%), first in frame %d\n", most, of, pct, first);
  ENSURE(most > 0 && of > most && seen_most == most && seen_first == first);
}

/* ---- the manifest: no run leaves files another run into its folder mixes up ------ */

static int exists(const char *dir, const char *name) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

/* the folder's files that the text (a .pvd or the manifest) names as whole
 * lines or file="..." agree with the folder: every frame_*.suffix file of
 * the folder is named and every named one exists; 1 when they do, else 0
 * after a test failure naming the first mismatch */
static int names_match(const char *dir, const char *text, const char *suffix, int quoted) {
  char key[300];
  int ok = 1;
  DIR *d = opendir(dir);
  if (!d || !text) {
    if (d) closedir(d);
    jl_test_fail(__FILE__, __LINE__, "%s: no folder or no listing", dir);
    return 0;
  }
  for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
    size_t n = strlen(e->d_name), ns = strlen(suffix);
    if (strncmp(e->d_name, "frame_", 6) != 0 || n < ns || strcmp(e->d_name + n - ns, suffix) != 0) continue;
    snprintf(key, sizeof key, quoted ? "file=\"%s\"" : "\n%s\n", e->d_name);
    if (!strstr(text, key)) {
      jl_test_fail(__FILE__, __LINE__, "%s/%s is in the folder but not listed", dir, e->d_name);
      ok = 0;
    }
  }
  closedir(d);
  const char *lead = quoted ? "file=\"" : "\n";
  for (const char *p = text; ok && (p = strstr(p, lead)) != NULL; p++) {
    char name[256];
    if (sscanf(p + strlen(lead), quoted ? "%255[^\"]" : "%255[^\n]", name) != 1) continue;
    if (strncmp(name, "frame_", 6) == 0 && !exists(dir, name)) {
      jl_test_fail(__FILE__, __LINE__, "%s lists %s, which is not in the folder", dir, name);
      ok = 0;
    }
  }
  return ok;
}

/* a rerun with fewer frames into the same folder: the earlier run's later
 * frames, surfaces, .obj files and checkpoints are gone, other files stay,
 * and scene.pvd, scene_all.pvd and the manifest agree with the folder */
static void test_rerun_fewer_frames(void) {
  const char *dir = jl_test_tmpdir("cli_rerun");
  char cmd[4096], out[512], path[1200];
  snprintf(out, sizeof out, "%s/run", dir);
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' run '" SCENES
           "drop.json' --frames 6 --obj --checkpoint-every 3 --quiet "
           "--out %s",
           out);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  ENSURE(exists(out, "frame_0006.vtu") && exists(out, "frame_0006_ball.vtp") && exists(out, "ball_0006.obj") &&
         exists(out, "checkpoint_0006.jlck") && exists(out, "preview.png") && exists(out, "jelly_manifest.txt"));
  snprintf(path, sizeof path, "%s/notes.txt", out);
  ENSURE(jl_test_write_file(path, "mine\n"));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '" SCENES "drop.json' --frames 2 --quiet --no-preview --out %s", out);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "rerun: exit %d: %s", rc, g_out);
  static const char *const gone[] = {"frame_0003.vtu", "frame_0006.vtu", "frame_0006.vtm",       "frame_0004_ball.vtp",
                                     "ball_0001.obj",  "ball_0006.obj",  "checkpoint_0003.jlck", "preview.png"};
  for (int k = 0; k < (int)(sizeof gone / sizeof gone[0]); k++)
    ENSURE_MSG(!exists(out, gone[k]), "%s of the earlier run is still in %s", gone[k], out);
  ENSURE(exists(out, "frame_0002.vtu") && exists(out, "frame_0002_ball.vtp") && exists(out, "notes.txt"));
  static const char *const text[3] = {"scene.pvd", "scene_all.pvd", "jelly_manifest.txt"};
  static const char *const suffix[3] = {".vtu", ".vtm", ""};
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/%s", out, text[k]);
    char *t = jl_test_read_file(path, NULL);
    int ok = names_match(out, t, suffix[k], k < 2);
    if (k == 2 && ok) ok = !strstr(t, "notes.txt") && !strstr(t, ".obj") && strstr(t, "\nstats.csv\n");
    free(t);
    ENSURE_MSG(ok, "%s does not match the folder", path);
  }
}

/* frames without a manifest (an older Jelly's, anyone's) or a manifest that
 * names a path out of the folder: exit 2 with a message, nothing deleted */
static void test_foreign_frames_refused(void) {
  const char *dir = jl_test_tmpdir("cli_foreign");
  char cmd[4096], out[512], path[1200];
  snprintf(out, sizeof out, "%s/old", dir);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", out);
  ENSURE(system(cmd) == 0);
  snprintf(path, sizeof path, "%s/frame_0000.vtu", out);
  ENSURE(jl_test_write_file(path, "not ours\n"));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '" SCENES "drop.json' --frames 1 --quiet --no-preview --out %s", out);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "frame_0000.vtu") && strstr(g_out, "jelly_manifest.txt"), "exit %d: %s", rc,
             g_out);
  char *kept = jl_test_read_file(path, NULL);
  ENSURE_MSG(kept && strcmp(kept, "not ours\n") == 0, "the refused run touched %s", path);
  free(kept);
  ENSURE(!exists(out, "stats.csv") && !exists(out, "scene.pvd"));
  /* a manifest naming ../decoy.txt (a file beside the folder), an absolute
   * path, a subfolder's file, or a file in the folder Jelly never writes */
  static const char *const bad[] = {"stats.csv\n../decoy.txt\n", "/tmp/jelly_decoy_absent\n", "a/b\n",
                                    "stats.csv\nnotes.txt\n"};
  for (int k = 0; k < 4; k++) {
    snprintf(out, sizeof out, "%s/bad%d", dir, k);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", out);
    ENSURE(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/decoy.txt", dir);
    ENSURE(jl_test_write_file(path, "keep\n"));
    snprintf(path, sizeof path, "%s/jelly_manifest.txt", out);
    ENSURE(jl_test_write_file(path, bad[k]));
    snprintf(cmd, sizeof cmd, "'" JELLY "' run '" SCENES "drop.json' --frames 1 --quiet --no-preview --out %s", out);
    rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 2 && strstr(g_out, "is not the name of a file jelly run writes"), "manifest %d: exit %d: %s", k,
               rc, g_out);
    ENSURE_MSG(exists(dir, "decoy.txt"), "manifest %d deleted a file outside the folder", k);
    if (k == 3) {
      snprintf(path, sizeof path, "%s/notes.txt", out);
      ENSURE(jl_test_write_file(path, "mine\n"));
      rc = jl_test_run(cmd, g_out, sizeof g_out);
      ENSURE_MSG(rc == 2 && exists(out, "notes.txt"), "a manifest naming notes.txt: exit %d, notes.txt %s", rc,
                 exists(out, "notes.txt") ? "kept" : "deleted");
    }
  }
}

/* --resume into the checkpointed run's folder keeps its frames up to the
 * checkpoint (not rewritten) and the checkpoint, rewrites the rest, and the
 * final manifest lists all of the run's files */
static void test_resume_keeps_frames(void) {
  const char *dir = jl_test_tmpdir("cli_resume_manifest");
  char cmd[4096], out[512], path[1200];
  snprintf(out, sizeof out, "%s/run", dir);
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' run '" SCENES
           "drop.json' --frames 6 --checkpoint-every 3 --quiet "
           "--no-preview --out %s",
           out);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  /* a marker in a kept frame shows it is not rewritten; one in a later frame that it is */
  snprintf(path, sizeof path, "%s/frame_0002.vtu", out);
  ENSURE(jl_test_write_file(path, "kept\n"));
  snprintf(path, sizeof path, "%s/frame_0005.vtu", out);
  ENSURE(jl_test_write_file(path, "stale\n"));
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' run '" SCENES
           "drop.json' --frames 6 --resume %s/checkpoint_0003.jlck "
           "--quiet --out %s",
           out, out);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "resume: exit %d: %s", rc, g_out);
  snprintf(path, sizeof path, "%s/frame_0002.vtu", out);
  char *t = jl_test_read_file(path, NULL);
  ENSURE_MSG(t && strcmp(t, "kept\n") == 0, "frame 2 (before the checkpoint) was not kept");
  free(t);
  snprintf(path, sizeof path, "%s/frame_0005.vtu", out);
  t = jl_test_read_file(path, NULL);
  ENSURE_MSG(t && strstr(t, "UnstructuredGrid"), "frame 5 (after the checkpoint) was not rewritten");
  free(t);
  ENSURE(exists(out, "checkpoint_0003.jlck") && exists(out, "frame_0001_ball.vtp") && exists(out, "frame_0003.vtm"));
  snprintf(path, sizeof path, "%s/jelly_manifest.txt", out);
  t = jl_test_read_file(path, NULL);
  int ok = names_match(out, t, "", 0) && strstr(t, "\ncheckpoint_0003.jlck\n") && strstr(t, "\nstats.csv\n");
  free(t);
  ENSURE_MSG(ok, "%s does not list the resumed run's files", path);
  snprintf(path, sizeof path, "%s/scene.pvd", out);
  t = jl_test_read_file(path, NULL);
  ok = names_match(out, t, ".vtu", 1) && strstr(t, "frame_0006.vtu");
  free(t);
  ENSURE_MSG(ok, "scene.pvd of the resumed run does not match its folder");
}

#define JL_TEST_TIER JL_PROGRAM /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"default_scene_outputs", test_default_scene_outputs}, {"determinism", test_determinism},
             {"stiff_implicit_vs_euler", test_stiff_implicit_vs_euler},
             {"cg_failed_column_and_warning", test_cg_failed_column_and_warning},
             {"inverted_tets_column_and_warning", test_inverted_tets_column_and_warning}, {"fps_flag", test_fps_flag},
             {"overlap_warnings", test_overlap_warnings}, {"bad_input", test_bad_input},
             {"hostile_values", test_hostile_values}, {"did_you_mean", test_did_you_mean}, {"help", test_help},
             {"bench_json_format", test_bench_json_format}, {"bench_only", test_bench_only},
             {"rerun_fewer_frames", test_rerun_fewer_frames}, {"foreign_frames_refused", test_foreign_frames_refused},
             {"resume_keeps_frames", test_resume_keeps_frames})
