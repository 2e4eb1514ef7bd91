/* The `jelly` program as users meet it: help and version, one
 * exit-code contract for every command (0 ok, 1 diverged or untrusted under
 * --strict, 2 bad input, 3 the system refused), `jelly view` without a
 * display, --quiet, render's progress and summary and its movie message,
 * the explicit integrators' default step, the --threads bound, the flag
 * forms every command takes (--frames=3 and --frames 3), and that every flag
 * and scene key a message advises exists; Ctrl-C on run and render (exit
 * 130 with the files of the frames written so far) and the output folder's
 * manifest shared by run and render. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/harness.h"

#define JELLY  JL_JELLY_EXE
#define SCENES JL_SOURCE_DIR "/models/scenes/"

static char g_out[1 << 17];

/* A jelly built with -DJELLY_RENDER=OFF has no view or render command (they
 * exit 3 saying so): the cases that use them pass as skipped. JELLY_RENDER
 * comes with the jelly_render library (CMakeLists.txt). */
#ifdef JELLY_RENDER
#define NEEDS_RENDER() ((void)0)
#else
#define NEEDS_RENDER() SKIP("built without rendering (JELLY_RENDER=OFF)")
#endif

static const char *const COMMANDS[] = {"run", "view", "render", "check", "mesh", "bench", "study"};
enum { NCMD = sizeof COMMANDS / sizeof COMMANDS[0] };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- help and version ----------------------------------------------------------- */

static void test_help_and_version(void) {
  const char *dir = jl_test_tmpdir("program_help");
  char cmd[4096];
  /* bare `jelly`: what the program can do, exit 0, and no simulation (no out/ folder) */
  snprintf(cmd, sizeof cmd, "cd '%s' && '" JELLY "'", dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "bare jelly: exit %d: %s", rc, g_out);
  for (int c = 0; c < NCMD; c++) {
    char line[64];
    snprintf(line, sizeof line, "\n  %s ", COMMANDS[c]);
    ENSURE_MSG(strstr(g_out, line), "bare jelly does not list '%s': %s", COMMANDS[c], g_out);
  }
  ENSURE_MSG(strstr(g_out, "Exit codes: 0 success, 1 ") && strstr(g_out, "2 bad input") &&
                 strstr(g_out, "3 the system") && strstr(g_out, "--version"),
             "bare jelly lacks the exit codes or --version: %s", g_out);
  snprintf(cmd, sizeof cmd, "%s/out", dir);
  ENSURE_MSG(access(cmd, F_OK) != 0, "bare jelly simulated something: %s exists", cmd);
  static char bare[sizeof g_out];
  memcpy(bare, g_out, sizeof bare);
  ENSURE(jl_test_run("'" JELLY "' --help", g_out, sizeof g_out) == 0 && strcmp(g_out, bare) == 0);
  ENSURE(jl_test_run("'" JELLY "' help", g_out, sizeof g_out) == 0 && strcmp(g_out, bare) == 0);
  /* `jelly help CMD` is `jelly CMD --help`, and every command states the contract */
  for (int c = 0; c < NCMD; c++) {
    char a[16384];
    snprintf(cmd, sizeof cmd, "'" JELLY "' help %s", COMMANDS[c]);
    ENSURE_MSG(jl_test_run(cmd, a, sizeof a) == 0, "jelly help %s: %s", COMMANDS[c], a);
    snprintf(cmd, sizeof cmd, "'" JELLY "' %s --help", COMMANDS[c]);
    ENSURE_MSG(jl_test_run(cmd, g_out, sizeof g_out) == 0, "jelly %s --help: %s", COMMANDS[c], g_out);
    ENSURE_MSG(strcmp(a, g_out) == 0, "jelly help %s differs from jelly %s --help", COMMANDS[c], COMMANDS[c]);
    ENSURE_MSG(strstr(g_out, "Exit codes: 0 success") && strstr(g_out, "3 the system"),
               "jelly %s --help lacks the exit-code contract: %s", COMMANDS[c], g_out);
    /* fits an 80-column terminal */
    for (const char *p = g_out; *p;) {
      size_t len = strcspn(p, "\n");
      ENSURE_MSG(len <= 80, "jelly %s --help: a line of %zu columns: %.*s", COMMANDS[c], len, (int)len, p);
      p += len + (p[len] != '\0');
    }
  }
  rc = jl_test_run("'" JELLY "' help frobnicate", g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "unknown command 'frobnicate'"), "exit %d: %s", rc, g_out);
  rc = jl_test_run("'" JELLY "' --version", g_out, sizeof g_out);
  int major = -1, minor = -1, patch = -1;
  ENSURE_MSG(rc == 0 && sscanf(g_out, "jelly %d.%d.%d", &major, &minor, &patch) == 3 && major >= 0,
             "--version: exit %d: %s", rc, g_out);
}

/* ---- the exit-code contract -------------------------------------------------------- */

typedef struct Case {
  const char *cmd; /* after `jelly`; DIR is replaced by the test's folder */
  int code;
  const char *want; /* in the output */
} Case;

static void run_case(const char *dir, const Case *c, const char *prefix) {
  char args[4096], cmd[8192];
  snprintf(args, sizeof args, "%s", c->cmd);
  char *d;
  while ((d = strstr(args, "DIR")) != NULL) {
    char rest[4096];
    snprintf(rest, sizeof rest, "%s", d + 3);
    snprintf(d, sizeof args - (size_t)(d - args), "%s%s", dir, rest);
  }
  snprintf(cmd, sizeof cmd, "%stimeout 300 '" JELLY "' %s", prefix, args);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == c->code, "jelly %s: exit %d, want %d: %s", c->cmd, rc, c->code, g_out);
  ENSURE_MSG(strstr(g_out, c->want), "jelly %s: output lacks '%s': %s", c->cmd, c->want, g_out);
}

/* the cases in order, up to the first failure; 0 when one failed */
static int run_cases(const char *dir, const Case *c, size_t n, const char *prefix) {
  for (size_t i = 0; i < n && !jl_test_failed(); i++) run_case(dir, &c[i], prefix);
  return !jl_test_failed();
}

static void test_exit_codes(void) {
  NEEDS_RENDER();
  const char *dir = jl_test_tmpdir("program_exit");
  char path[1024];
  snprintf(path, sizeof path, "%s/junk.obj", dir);
  ENSURE(jl_test_write_file(path, "this is not a mesh\n"));
  static const Case cases[] = {
      /* run */
      {"run " SCENES "drop.json --frames 1 --no-preview --out DIR/run0", 0, "wrote"},
      {"run " SCENES "stiff.json --integrator euler --no-preview --out DIR/run1", 1, "diverged in frame"},
      {"run " SCENES "drop.json --frames 1 --threads 65 --out DIR/run2", 2,
       "--threads expects a whole number from 1 to 64"},
      {"run " SCENES "drop.json --frames 1 --out /proc/jelly/run3", 3,
       "cannot create output folder '/proc/jelly/run3'"},
      /* render */
      {"render " SCENES "drop.json --frames 1 --size 32x24 --no-movie --out DIR/render0", 0, "wrote      2 frames"},
      {"render " SCENES "stiff.json --integrator euler --size 32x24 --no-movie --out DIR/render1", 1,
       "diverged in frame"},
      {"render " SCENES "drop.json --size 1x1 --out DIR/render2", 2, "--size expects"},
      {"render " SCENES "drop.json --frames 1 --out /proc/jelly/render3", 3, "cannot create output folder"},
      /* check */
      {"check " JL_SOURCE_DIR "/models/torus.obj", 0, "ok: can be tetrahedralized"},
      {"check DIR/junk.obj", 2, "junk.obj"},
      /* mesh */
      {"mesh --shape box --resolution 0.5", 0, "tets"},
      {"mesh --shape box --quality 0.5", 2, "--quality"},
      {"mesh --shape box --resolution 0.5 --out /proc/jelly/box.vtu", 3, "/proc/jelly/box.vtu: cannot write"},
      /* bench, study, help */
      {"bench --bogus", 2, "unknown option '--bogus'"},
      {"study " SCENES "stiff.json --quick --out DIR/study1", 1, "the RK4 reference diverged"},
      {"study --bogus", 2, "--bogus"},
      {"study --quick --out /proc/jelly/study3", 3, "cannot create output folder '/proc/jelly/study3'"},
      {"help", 0, "commands:"},
      {"help frobnicate", 2, "unknown command"},
      {"frobnicate", 2, "unknown command"},
  };
  if (!run_cases(dir, cases, sizeof cases / sizeof cases[0], "")) return;
  /* view: scripted runs work without a display; an interactive one exits 3 */
  static const Case view[] = {
      {"view " SCENES "drop.json --frames 2 --size 64x48", 0, ""},
      {"view " SCENES "stiff.json --integrator euler --frames 40 --size 64x48", 1, "diverged"},
      {"view " SCENES "drop.json --size 64x48 --layers bogus", 2, "unknown layer 'bogus'"},
      {"view " SCENES "drop.json --frames 2 --dt 0.1", 2, "--dt 0.1 s is longer than one frame"},
  };
  const char *headless = "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy ";
  if (!run_cases(dir, view, sizeof view / sizeof view[0], headless)) return;
    /* check and mesh when the system refuses memory (an address-space limit
   * below --mesh-memory; not under ASan, whose shadow memory needs more) */
#if !defined(__SANITIZE_ADDRESS__)
  snprintf(path, sizeof path, "%s/grid.off", dir);
  FILE *f = fopen(path, "w");
  ENSURE(f);
  enum { N = 700 };
  fprintf(f, "OFF\n%d %d 0\n", N * N, 2 * (N - 1) * (N - 1));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) fprintf(f, "%d %d 0\n", i, j);
  for (int i = 0; i < N - 1; i++)
    for (int j = 0; j < N - 1; j++) {
      int a = i * N + j;
      fprintf(f, "3 %d %d %d\n3 %d %d %d\n", a, a + 1, a + N, a + 1, a + N + 1, a + N);
    }
  ENSURE(fclose(f) == 0);
  static const Case oom[] = {
      {"check DIR/grid.off", 3, "(ulimit -v), less than the 8192 MB of the mesh limit memory_mb (--mesh-memory)"},
      {"mesh DIR/grid.off", 3, "(ulimit -v)"},
  };
  if (!run_cases(dir, oom, sizeof oom / sizeof oom[0], "ulimit -v 120000; ")) return;
#endif
}

/* ---- flag forms (getopt_long, src/cli/cli_util.c) ---------------------------------------- */

/* "--flag=VALUE" is "--flag VALUE" in every command; a missing value, a
 * value given to a switch, an abbreviation and an unknown flag are bad
 * input (exit 2) naming the flag */
static void test_flag_forms(void) {
  const char *dir = jl_test_tmpdir("program_flags");
  static const Case cases[] = {
      {"run " SCENES "drop.json --frames=1 --no-preview --out=DIR/eq", 0, "+ 2 .vtu frames"},
      {"run --frames=1 " SCENES "drop.json --no-preview --out DIR/mixed", 0, "wrote"},
      {"render " SCENES "drop.json --frames=1 --size=32x24 --no-movie --out=DIR/render", 0,
       "wrote      2 frames 32x24"},
      {"mesh --shape=box --resolution=0.5", 0, "tets"},
      {"study --out=DIR/study --bogus", 2, "jelly study: unknown option '--bogus' (see jelly study --help)"},
      {"run " SCENES "drop.json --frames", 2, "jelly run: --frames needs a value"},
      {"render " SCENES "drop.json --size", 2, "jelly render: --size needs a value"},
      {"mesh --shape", 2, "jelly mesh: --shape needs a value"},
      {"bench --steps", 2, "jelly bench: --steps needs a value"},
      {"run " SCENES "drop.json --frames=", 2, "--frames expects a whole number from 0 to 100000000, got ''"},
      {"run " SCENES "drop.json --quiet=yes", 2, "jelly run: --quiet takes no value"},
      {"run " SCENES "drop.json --fram 1", 2, "jelly run: unknown option '--fram' (see jelly run --help)"},
      {"run " SCENES "drop.json -q", 2, "jelly run: unknown option '-q' (see jelly run --help)"},
      {"check --frobnicate x.obj", 2, "jelly check: unknown option '--frobnicate'"},
      {"bench extra", 2, "jelly bench: unexpected argument 'extra'"},
      {"--bogus", 2, "jelly: unknown option '--bogus'"},
      {"--help run", 0, "usage: jelly run [SCENE]"},
  };
  if (!run_cases(dir, cases, sizeof cases / sizeof cases[0], "")) return;
  /* "--" ends the flags: a file named like a flag */
  char path[1024], cmd[2048];
  snprintf(path, sizeof path, "%s/-cube.obj", dir);
  ENSURE(jl_test_write_file(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
  snprintf(cmd, sizeof cmd, "cd '%s' && '" JELLY "' check -- -cube.obj", dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "ok: can be tetrahedralized"), "check -- -cube.obj: exit %d: %s", rc, g_out);
}

/* `jelly view` with no usable display: exit 3 at once with the advice, even
 * when SDL would fall back to its offscreen driver (it used to run the window
 * loop unseen, growing to 1.85 GB in 18 s) */
static void test_view_no_display(void) {
  NEEDS_RENDER();
  static const char *const envs[] = {"env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen",
                                     "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy",
                                     "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11"};
  for (int k = 0; k < 3; k++) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s timeout 20 '" JELLY "' view " SCENES "default.json", envs[k]);
    double t0 = now_s();
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    double sec = now_s() - t0;
    ENSURE_MSG(rc == 3, "%s: exit %d (124: still running after 20 s), want 3: %s", envs[k], rc, g_out);
    ENSURE_MSG(strstr(g_out, "no display: use `jelly render`"), "%s: %s", envs[k], g_out);
    /* before the world is built: no body lines, no waiting (measured 8 ms; the bound only catches a loop) */
    ENSURE_MSG(sec < 5.0, "%s: took %.1f s", envs[k], sec);
  }
}

/* ---- quiet, progress, summary, movie ------------------------------------------------- */

static void test_quiet(void) {
  NEEDS_RENDER();
  const char *dir = jl_test_tmpdir("program_quiet");
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'" JELLY "' run " SCENES "drop.json --frames 2 --quiet --out %s/run", dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && g_out[0] == '\0', "run --quiet: exit %d, printed: %s", rc, g_out);
  snprintf(cmd, sizeof cmd, "%s/run/stats.csv", dir);
  ENSURE_MSG(access(cmd, F_OK) == 0, "run --quiet wrote no stats.csv");
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' render " SCENES "drop.json --frames 2 --size 32x24 --no-movie --quiet --out %s/r", dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && g_out[0] == '\0', "render --quiet: exit %d, printed: %s", rc, g_out);
  /* warnings still go to stderr: a scene whose bodies start inside the ground */
  snprintf(cmd, sizeof cmd, "%s/below.json", dir);
  ENSURE(jl_test_write_file(cmd,
                            "{\"duration\": 0.05, \"ground\": {\"y\": 0.5},"
                            " \"bodies\": [{\"shape\": {\"type\": \"box\", \"size\": [0.2, 0.2, 0.2]}}]}"));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run %s/below.json --quiet --no-preview --out %s/below 2>&1 >/dev/null", dir,
           dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "warning: body") && strstr(g_out, "below the ground"),
             "run --quiet should still warn: exit %d: %s", rc, g_out);
  /* without --quiet the summary is there */
  snprintf(cmd, sizeof cmd, "'" JELLY "' run " SCENES "drop.json --frames 2 --no-preview --out %s/run", dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "simulated ") && strstr(g_out, "wrote "), "exit %d: %s", rc, g_out);
}

static void test_render_progress_summary_movie(void) {
  NEEDS_RENDER();
  const char *dir = jl_test_tmpdir("program_render");
  char cmd[8192];
  /* the same header and summary as `jelly run` */
  snprintf(cmd, sizeof cmd,
           "env PATH=/nonexistent '" JELLY "' render " SCENES "drop.json --frames 3 --size 32x24 --out %s/a", dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  static const char *const lines[] = {"scene      ", "body       ball",       "integrator implicit, dt ",
                                      "built in ",   "simulated  0.05 s in ", "wrote      4 frames 32x24"};
  for (int k = 0; k < 6; k++) ENSURE_MSG(strstr(g_out, lines[k]), "render lacks '%s': %s", lines[k], g_out);
  /* no ffmpeg: it says so and why */
  ENSURE_MSG(strstr(g_out, "warning: no movie.mp4: ffmpeg is not on PATH"), "no movie message: %s", g_out);
  /* a stand-in ffmpeg on PATH: the movie is made and reported */
  char bin[1024], ff[1100];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", bin);
  ENSURE(system(cmd) == 0);
  snprintf(ff, sizeof ff, "%s/ffmpeg", bin);
  ENSURE(jl_test_write_file(ff, "#!/bin/sh\nfor a in \"$@\"; do last=$a; done\n: > \"$last\"\n"));
  snprintf(cmd, sizeof cmd, "chmod +x %s", ff);
  ENSURE(system(cmd) == 0);
  snprintf(cmd, sizeof cmd,
           "env PATH=%s:/usr/bin:/bin '" JELLY "' render " SCENES "drop.json --frames 2 --size 32x24 --out %s/b", bin,
           dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "/b/movie.mp4") && !strstr(g_out, "no movie"), "exit %d: %s", rc, g_out);
  /* on a terminal: the progress bar, as `jelly run` shows it (script(1) gives a pty) */
  if (system("command -v script >/dev/null 2>&1") == 0) {
    const char *what[] = {"render", "run"};
    for (int k = 0; k < 2; k++) {
      snprintf(cmd, sizeof cmd,
               "script -qec \"'" JELLY "' %s " SCENES "drop.json --frames 3 %s --out %s/tty%d\" /dev/null", what[k],
               k == 0 ? "--size 32x24 --no-movie" : "--no-preview", dir, k);
      rc = jl_test_run(cmd, g_out, sizeof g_out);
      ENSURE_MSG(rc == 0 && strstr(g_out, "frame 3/3") && strstr(g_out, "x real time") && strstr(g_out, "ETA"),
                 "%s on a terminal: exit %d, no progress bar: %s", what[k], rc, g_out);
    }
  }
}

/* ---- explicit integrators' default step --------------------------------------------- */

/* a soft box dropped on the ground, no dt in the scene */
#define NODT_SCENE                                                                                                    \
  "{\"duration\": 0.5, \"fps\": 30, \"ground\": {\"y\": 0},"                                                          \
  " \"bodies\": [{\"name\": \"box\", \"shape\": {\"type\": \"box\", \"size\": [0.2, 0.2, 0.2], \"resolution\": 0.1}," \
  " \"young_modulus\": 1e5, \"translate\": [0, 0.2, 0]}]}"

/* largest total energy (kinetic + elastic + gravity + contact) after frame 0, minus frame 0's */
static double energy_rise(const char *stats) {
  char *text = jl_test_read_file(stats, NULL);
  if (!text) return INFINITY;
  double e0 = NAN, rise = -INFINITY;
  const char *p = strchr(text, '\n');
  while (p && p[1]) {
    p++;
    double v[12];
    int n = sscanf(p, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]);
    if (n == 12) {
      double e = v[5] + v[6] + v[7] + v[11];
      if (isnan(e0))
        e0 = e;
      else if (e - e0 > rise)
        rise = e - e0;
    }
    p = strchr(p, '\n');
  }
  free(text);
  return rise;
}

static void test_explicit_default_dt(void) {
  const char *dir = jl_test_tmpdir("program_dt");
  char scene[1024], cmd[4096], stats[1200];
  snprintf(scene, sizeof scene, "%s/nodt.json", dir);
  ENSURE(jl_test_write_file(scene, NODT_SCENE));
  static const char *const integ[] = {"symplectic", "verlet", "rk4", "midpoint", "euler"};
  for (int k = 0; k < 5; k++) {
    snprintf(cmd, sizeof cmd, "'" JELLY "' run %s --integrator %s --frames 8 --no-preview --out %s/%s", scene, integ[k],
             dir, integ[k]);
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 0, "%s without dt: exit %d: %s", integ[k], rc, g_out);
    /* the run header states the step and where it comes from */
    double h = 0;
    const char *line = strstr(g_out, "integrator ");
    char want[64];
    snprintf(want, sizeof want, "integrator %s, dt %%lf s", integ[k]);
    ENSURE_MSG(line && sscanf(line, want, &h) == 1 && h > 0 && h < 1.0 / 60.0, "%s: header: %s", integ[k], g_out);
    ENSURE_MSG(strstr(g_out, "dt: the explicit default"), "%s: no default-step line: %s", integ[k], g_out);
    /* stable: no energy from nowhere (the box falls and lands) */
    snprintf(stats, sizeof stats, "%s/%s/stats.csv", dir, integ[k]);
    double rise = energy_rise(stats);
    ENSURE_MSG(rise < 0.05, "%s at its default dt %g s: energy rose by %g J", integ[k], h, rise);
  }
  /* what it replaces: the implicit default of 1/60 s diverges with an explicit integrator */
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' run %s --integrator symplectic --dt 0.0166666 --frames 8 --no-preview --out %s/old", scene,
           dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 1 && strstr(g_out, "beyond the 'symplectic' integrator's estimated stability limit"),
             "dt 1/60 with symplectic: exit %d: %s", rc, g_out);
}

/* ---- threads ------------------------------------------------------------------------- */

static void test_threads_bound(void) {
  const char *dir = jl_test_tmpdir("program_threads");
  char scene[1024], cmd[4096];
  snprintf(scene, sizeof scene, "%s/t.json", dir);
  ENSURE(jl_test_write_file(scene, "{\"threads\": 1000, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}"));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run %s --out %s/a", scene, dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "threads") && strstr(g_out, "64"), "scene threads 1000: exit %d: %s", rc, g_out);
  snprintf(cmd, sizeof cmd, "'" JELLY "' run " SCENES "drop.json --threads 1000 --out %s/b", dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "--threads expects a whole number from 1 to 64, got '1000'"), "exit %d: %s", rc,
             g_out);
  /* the bound itself runs (results do not depend on the count); more threads than processors is said */
  snprintf(cmd, sizeof cmd, "'" JELLY "' run " SCENES "drop.json --threads 64 --frames 1 --no-preview --out %s/c", dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "--threads 64: exit %d: %s", rc, g_out);
  if (sysconf(_SC_NPROCESSORS_ONLN) < 64)
    ENSURE_MSG(strstr(g_out, "warning: 64 threads on"), "no warning for 64 threads: %s", g_out);
}

/* ---- every suggestion names a flag or key that exists -------------------------------- */

/* the flags `text` mentions (--name), appended to set (space separated, each " --x ") */
static void collect_flags(const char *text, char *set, size_t n) {
  for (const char *p = text; (p = strstr(p, "--")) != NULL; p += 2) {
    if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '-')) continue;
    if (!islower((unsigned char)p[2])) continue;
    size_t len = 2;
    while (islower((unsigned char)p[len]) || isdigit((unsigned char)p[len]) || p[len] == '-') len++;
    char flag[80];
    snprintf(flag, sizeof flag, " %.*s ", (int)len, p);
    if (!strstr(set, flag) && strlen(set) + strlen(flag) + 1 < n) strcat(set, flag);
  }
}

/* string literals of a C file, adjacent ones joined (C concatenation), comments skipped */
typedef void (*LiteralFn)(const char *file, const char *text, void *ctx);
static void each_literal(const char *file, const char *src, LiteralFn fn, void *ctx) {
  size_t cap = strlen(src) + 1, n = 0;
  char *lit = malloc(cap);
  int open = 0; /* a literal is being joined */
  for (const char *p = src; *p;) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') p++;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      p = e ? e + 2 : p + strlen(p);
    } else if (*p == '\'') {
      p++;
      while (*p && *p != '\'') p += (*p == '\\' && p[1]) ? 2 : 1;
      if (*p) p++;
    } else if (*p == '"') {
      p++;
      while (*p && *p != '"') {
        if (*p == '\\' && p[1]) {
          lit[n++] = p[1] == 'n' ? '\n' : p[1];
          p += 2;
        } else {
          lit[n++] = *p++;
        }
      }
      if (*p) p++;
      open = 1;
    } else if (isspace((unsigned char)*p)) {
      p++;
    } else {
      if (open) {
        lit[n] = '\0';
        fn(file, lit, ctx);
        n = 0;
        open = 0;
      }
      p++;
    }
  }
  if (open) {
    lit[n] = '\0';
    fn(file, lit, ctx);
  }
  free(lit);
}

typedef struct Scan {
  char help[NCMD][8192]; /* flags each command's --help names */
  char top[256];         /* flags `jelly --help` names */
  char *keys;            /* docs/scenes.md */
  char bad[8192];        /* what failed */
} Scan;

/* the commands whose flags a file's messages may advise: all of them must know the flag */
static int file_commands(const char *file, int *use) {
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  int in_src = strstr(file, "/src/") != NULL, n = 0;
  for (int c = 0; c < NCMD; c++) use[c] = 0;
  if (in_src && strncmp(base, "cli_", 4) == 0 && strcmp(base, "cli_util.c") != 0 && strcmp(base, "cli_sim.c") != 0) {
    for (int c = 0; c < NCMD; c++) {
      size_t l = strlen(COMMANDS[c]);
      if (strncmp(base + 4, COMMANDS[c], l) == 0 && (base[4 + l] == '.' || base[4 + l] == '_')) use[c] = 1, n++;
    }
    return n;
  }
  if (in_src && strcmp(base, "main.c") == 0) return -1; /* the top-level help */
  if (in_src && strcmp(base, "cli_sim.c") == 0) {
    use[0] = use[1] = use[2] = 1; /* run, view, render */
    return 3;
  }
  if (strstr(file, "/mesh/") || (in_src && strcmp(base, "cli_util.c") == 0)) {
    for (int c = 0; c < NCMD; c++) use[c] = 1; /* every command loads meshes */
    return NCMD;
  }
  if (strncmp(base, "viewer", 6) == 0) { /* src/cli/viewer*.c: the application behind `jelly view` */
    use[1] = 1;
    return 1;
  }
  use[0] = use[1] = use[2] = 1; /* the engine and renderer: what the simulating commands print */
  return 3;
}

static int is_advice(const char *t) {
  static const char *const words[] = {"try ",      "raise ",  "lower ",  "give ",    "set ",  "use ",
                                      "increase ", "reduce ", "larger ", "smaller ", "leave "};
  for (int k = 0; k < (int)(sizeof words / sizeof words[0]); k++)
    if (strstr(t, words[k])) return 1;
  return 0;
}

static void check_literal(const char *file, const char *text, void *ctx) {
  Scan *s = ctx;
  char flags[4096] = "";
  collect_flags(text, flags, sizeof flags);
  int use[NCMD];
  int n = file_commands(file, use);
  /* a message that names commands ("jelly mesh --mode embedded") advises those commands' flags */
  int named = 0;
  for (int c = 0; c < NCMD; c++) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "jelly %s ", COMMANDS[c]);
    if (!strstr(text, cmd)) continue;
    if (!named++) memset(use, 0, sizeof use), n = 0;
    use[c] = 1, n++;
  }
  const char *rel = strstr(file, JL_SOURCE_DIR) ? file + strlen(JL_SOURCE_DIR) + 1 : file;
  for (char *f = flags; (f = strstr(f, " --")) != NULL; f++) {
    char flag[80];
    if (sscanf(f, " %79s", flag) != 1) break;
    char key[96];
    snprintf(key, sizeof key, " %s ", flag);
    if (n < 0) {
      int any = strstr(s->top, key) != NULL;
      for (int c = 0; c < NCMD && !any; c++) any = strstr(s->help[c], key) != NULL;
      if (!any && strlen(s->bad) < 7000)
        snprintf(s->bad + strlen(s->bad), sizeof s->bad - strlen(s->bad), "\n  %s: %s is no flag", rel, flag);
    }
    for (int c = 0; c < NCMD; c++)
      if (use[c] && n > 0 && !strstr(s->help[c], key) && strlen(s->bad) < 7000)
        snprintf(s->bad + strlen(s->bad), sizeof s->bad - strlen(s->bad), "\n  %s: %s is not a flag of jelly %s", rel,
                 flag, COMMANDS[c]);
  }
  /* scene keys a piece of advice names (snake_case or dotted) are keys of docs/scenes.md */
  if (!is_advice(text)) return;
  for (const char *p = text; *p; p++) {
    if (!islower((unsigned char)*p) ||
        (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.' || p[-1] == '-' || p[-1] == '/')))
      continue;
    size_t len = 0;
    int under = 0, dot = 0;
    while (islower((unsigned char)p[len]) || isdigit((unsigned char)p[len]) || p[len] == '_' ||
           (p[len] == '.' && islower((unsigned char)p[len + 1])))
      under += p[len] == '_', dot += p[len] == '.', len++;
    if (!under && !dot) continue;
    char tok[96];
    snprintf(tok, sizeof tok, "%.*s", (int)len, p);
    p += len - 1;
    /* C identifiers (an assertion naming its function, a public API function) are not keys */
    if (strncmp(tok, "jl_", 3) == 0 || strncmp(tok, "jelly_", 6) == 0) continue;
    /* file names are not keys */
    const char *ext = strrchr(tok, '.');
    if (ext && (strcmp(ext, ".csv") == 0 || strcmp(ext, ".png") == 0 || strcmp(ext, ".md") == 0 ||
                strcmp(ext, ".json") == 0 || strcmp(ext, ".vtu") == 0 || strcmp(ext, ".pvd") == 0 ||
                strcmp(ext, ".obj") == 0 || strcmp(ext, ".mp4") == 0 || strcmp(ext, ".svg") == 0))
      continue;
    char q1[128], q2[128];
    snprintf(q1, sizeof q1, "`%s`", tok);
    snprintf(q2, sizeof q2, ".%s`", tok);
    if (!strstr(s->keys, q1) && !strstr(s->keys, q2) && strlen(s->bad) < 7000)
      snprintf(s->bad + strlen(s->bad), sizeof s->bad - strlen(s->bad),
               "\n  %s: advises '%s', no key of docs/scenes.md", rel, tok);
  }
}

static void test_suggestions_exist(void) {
  NEEDS_RENDER();
  static Scan s;
  memset(&s, 0, sizeof s);
  char cmd[1024];
  for (int c = 0; c < NCMD; c++) {
    snprintf(cmd, sizeof cmd, "'" JELLY "' %s --help", COMMANDS[c]);
    ENSURE(jl_test_run(cmd, g_out, sizeof g_out) == 0);
    collect_flags(g_out, s.help[c], sizeof s.help[c]);
    strcat(s.help[c], " --help "); /* every command takes it (test_help_and_version) */
  }
  ENSURE(jl_test_run("'" JELLY "' --help", g_out, sizeof g_out) == 0);
  collect_flags(g_out, s.top, sizeof s.top);
  /* the case that started it: the divergence message advised --adaptive, which no command has */
  ENSURE_MSG(!strstr(s.help[0], " --adaptive "), "run has --adaptive now: update this test");
  s.keys = jl_test_read_file(JL_SOURCE_DIR "/docs/scenes.md", NULL);
  ENSURE(s.keys);
  /* every folder whose messages a user reads; each must hold files (a folder
   * that moved would otherwise leave its messages unscanned) */
  static const char *const dirs[] = {"src/*.c", "src/cli/*.c", "render/*.c", "mesh/*.c", "mesh/*.cpp", "collision/*.c"};
  int files = 0;
  for (int d = 0; d < (int)(sizeof dirs / sizeof dirs[0]); d++) {
    glob_t g;
    char pat[1024];
    snprintf(pat, sizeof pat, JL_SOURCE_DIR "/%s", dirs[d]);
    int found = glob(pat, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    if (!found) {
      free(s.keys);
      ENSURE_MSG(0, "no source file matches %s: the scan would miss its messages", dirs[d]);
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
      char *src = jl_test_read_file(g.gl_pathv[i], NULL);
      if (!src) continue;
      each_literal(g.gl_pathv[i], src, check_literal, &s);
      free(src);
      files++;
    }
    globfree(&g);
  }
  free(s.keys);
  ENSURE_MSG(files > 60, "scanned only %d source files", files);
  ENSURE_MSG(s.bad[0] == '\0', "messages advise what does not exist:%s", s.bad);
}

/* ---- Ctrl-C: the frames written so far, their index files, exit 130 ------------------ */

/* starts JELLY with argv (argv[0] "jelly", NULL-terminated), stdout and stderr into log; the pid, or -1 */
static pid_t spawn_jelly(char *const argv[], const char *log) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid != 0) return pid;
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO), close(fd);
  signal(SIGINT, SIG_DFL); /* as a shell's foreground job has them */
  signal(SIGTERM, SIG_DFL);
  execv(JELLY, argv);
  _exit(127);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* waits up to limit s for path to exist while pid runs: 1 when it does, 0 when pid ended first (its wait status
 * in *st) or the time ran out (*st = -1) */
static int wait_for_file(pid_t pid, const char *path, double limit, int *st) {
  *st = -1;
  for (double t0 = now_s(); now_s() - t0 < limit; sleep_ms(50)) {
    if (access(path, F_OK) == 0) return 1;
    if (waitpid(pid, st, WNOHANG) == pid) return 0;
  }
  return 0;
}

/* starts jelly with argv (output to log) and waits until it has written probe: its pid, or 0 after
 * failing the test (the child killed) */
static pid_t start_until(char **argv, const char *log, const char *probe, int *st) {
  pid_t pid = spawn_jelly(argv, log);
  if (pid <= 0) {
    jl_test_fail(__FILE__, __LINE__, "cannot start %s %s", argv[0], argv[1]);
    return 0;
  }
  if (!wait_for_file(pid, probe, 300, st)) {
    if (*st == -1) kill(pid, SIGKILL), waitpid(pid, st, 0);
    char *t = jl_test_read_file(log, NULL);
    jl_test_fail(__FILE__, __LINE__, "no %s within 300 s (wait status %d): %s", probe, *st, t ? t : "");
    free(t);
    return 0;
  }
  return pid;
}

/* the exit code of pid within limit s: -1 after SIGKILL when it takes longer, -N when signal N killed it (a
 * shell would report that as 128 + N too, but the program did not end itself) */
static int wait_exit(pid_t pid, double limit) {
  int st = 0;
  for (double t0 = now_s(); now_s() - t0 < limit; sleep_ms(50))
    if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return -1;
}

/* how many files of dir are named prefix + NNNN + suffix, and whether they are frames 0 .. n - 1 exactly */
static int count_frames(const char *dir, const char *prefix, const char *suffix, int *contiguous) {
  int n = 0, top = -1;
  DIR *d = opendir(dir);
  if (!d) return -1;
  size_t np = strlen(prefix), ns = strlen(suffix);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len != np + 4 + ns || strncmp(e->d_name, prefix, np) != 0 || strcmp(e->d_name + np + 4, suffix) != 0) continue;
    int f = atoi(e->d_name + np);
    n++;
    if (f > top) top = f;
  }
  closedir(d);
  *contiguous = top == n - 1;
  return n;
}

/* every file="..." of the .pvd at path is in dir, and there are n of them, frames 0 .. n - 1 in order */
static int pvd_lists(const char *dir, const char *path, const char *suffix, int n) {
  char *t = jl_test_read_file(path, NULL);
  if (!t) return 0;
  int k = 0, ok = 1;
  for (const char *p = t; (p = strstr(p, "file=\"")) != NULL; p++, k++) {
    char want[64], full[1200];
    snprintf(want, sizeof want, "file=\"frame_%04d%s\"", k, suffix);
    snprintf(full, sizeof full, "%s/frame_%04d%s", dir, k, suffix);
    if (strncmp(p, want, strlen(want)) != 0 || access(full, F_OK) != 0) ok = 0;
  }
  free(t);
  return ok && k == n;
}

/* dir's manifest lists exactly the files in dir (but itself); 0 after printing the first difference */
static int manifest_is_folder(const char *dir) {
  char path[1200];
  snprintf(path, sizeof path, "%s/jelly_manifest.txt", dir);
  char *t = jl_test_read_file(path, NULL);
  if (!t) return printf("  no %s\n", path), 0;
  int ok = 1, listed = 0;
  for (char *line = strtok(t, "\n"); line && ok; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    listed++;
    snprintf(path, sizeof path, "%s/%s", dir, line);
    if (access(path, F_OK) != 0) printf("  the manifest lists %s, which is not in %s\n", line, dir), ok = 0;
  }
  free(t);
  int files = 0;
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;)
    files += e->d_name[0] != '.' && strcmp(e->d_name, "jelly_manifest.txt") != 0;
  if (d) closedir(d);
  if (ok && files != listed) printf("  %s holds %d files, its manifest lists %d\n", dir, files, listed), ok = 0;
  return ok;
}

/* a run of the default scene (seconds of work on 2 cores) interrupted by a real SIGINT once it has written frame
 * 4: exit 130, scene.pvd and scene_all.pvd list exactly the frames on disk, stats.csv has one row per frame, the
 * manifest lists the folder, and stderr says what was written (the run used to die of the signal, leaving no
 * scene.pvd) */
static void test_run_interrupted(void) {
  const char *dir = jl_test_tmpdir("program_run_sigint");
  char out[512], log[600], probe[700], path[700];
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(log, sizeof log, "%s/log.txt", dir);
  snprintf(probe, sizeof probe, "%s/frame_0004.vtu", out);
  char *argv[] = {"jelly", "run", SCENES "default.json", "--frames", "2000", "--out", out, NULL};
  int st;
  pid_t pid = start_until(argv, log, probe, &st);
  if (pid <= 0) return;
  double t0 = now_s();
  ENSURE(kill(pid, SIGINT) == 0);
  int rc = wait_exit(pid, 300);
  char *msg = jl_test_read_file(log, NULL);
  ENSURE(msg);
  printf("  exit %d %.2f s after SIGINT\n%s", rc, now_s() - t0, msg);
  ENSURE_MSG(rc == 130, "exit %d after SIGINT (-N: killed by signal N, -1: still running after 300 s), want 130", rc);
  int contiguous = 0, n = count_frames(out, "frame_", ".vtu", &contiguous), nvtm = 0;
  ENSURE_MSG(n >= 5 && n < 2001 && contiguous, "%d .vtu frames (contiguous: %d)", n, contiguous);
  nvtm = count_frames(out, "frame_", ".vtm", &contiguous);
  ENSURE_MSG(nvtm == n && contiguous, "%d .vtm files for %d .vtu frames", nvtm, n);
  snprintf(path, sizeof path, "%s/scene.pvd", out);
  ENSURE_MSG(pvd_lists(out, path, ".vtu", n), "%s does not list exactly frames 0 to %d", path, n - 1);
  snprintf(path, sizeof path, "%s/scene_all.pvd", out);
  ENSURE_MSG(pvd_lists(out, path, ".vtm", n), "%s does not list exactly frames 0 to %d", path, n - 1);
  /* stats.csv: the header and frames 0 .. n - 1 */
  snprintf(path, sizeof path, "%s/stats.csv", out);
  char *csv = jl_test_read_file(path, NULL);
  ENSURE(csv && strncmp(csv, "frame,time,", 11) == 0);
  int rows = 0, ordered = 1;
  for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n')) ordered &= atoi(p + 1) == rows++;
  free(csv);
  ENSURE_MSG(rows == n && ordered, "stats.csv has %d rows (in order: %d) for %d frames", rows, ordered, n);
  ENSURE_MSG(manifest_is_folder(out), "the manifest of the interrupted run does not match %s", out);
  /* the message: the last frame and the files */
  char want[128];
  snprintf(want, sizeof want, "jelly run: interrupted at frame %d of 2000 (t = ", n - 1);
  ENSURE_MSG(strstr(msg, want), "no '%s'", want);
  snprintf(want, sizeof want, "with frames 0 to %d", n - 1);
  ENSURE_MSG(strstr(msg, want) && strstr(msg, "/scene.pvd, scene_all.pvd, stats.csv"), "no '%s' with the files", want);
#ifdef JELLY_RENDER
  snprintf(path, sizeof path, "%s/preview.png", out);
  ENSURE_MSG(access(path, F_OK) == 0 && strstr(msg, "preview.png"), "no preview.png after the interrupt");
#endif
  free(msg);
}

/* the same for `jelly render`: exit 130, the PNG frames so far stay, the manifest lists them, no movie */
static void test_render_interrupted(void) {
  NEEDS_RENDER();
  const char *dir = jl_test_tmpdir("program_render_sigint");
  char out[512], log[600], probe[700], path[700];
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(log, sizeof log, "%s/log.txt", dir);
  snprintf(probe, sizeof probe, "%s/frame_0004.png", out);
  char *argv[] = {"jelly", "render", SCENES "default.json", "--frames", "2000", "--size", "64x48", "--out", out, NULL};
  int st;
  pid_t pid = start_until(argv, log, probe, &st);
  if (pid <= 0) return;
  ENSURE(kill(pid, SIGINT) == 0);
  int rc = wait_exit(pid, 300);
  char *msg = jl_test_read_file(log, NULL);
  ENSURE(msg);
  printf("  exit %d\n%s", rc, msg);
  ENSURE_MSG(rc == 130, "exit %d after SIGINT (-N: killed by signal N, -1: still running after 300 s), want 130", rc);
  int contiguous = 0, n = count_frames(out, "frame_", ".png", &contiguous);
  ENSURE_MSG(n >= 5 && n < 2001 && contiguous, "%d PNG frames (contiguous: %d)", n, contiguous);
  snprintf(path, sizeof path, "%s/movie.mp4", out);
  ENSURE_MSG(access(path, F_OK) != 0, "an interrupted render made %s", path);
  ENSURE_MSG(manifest_is_folder(out), "the manifest of the interrupted render does not match %s", out);
  char want[128];
  snprintf(want, sizeof want, "jelly render: interrupted at frame %d of 2000 (t = ", n - 1);
  ENSURE_MSG(strstr(msg, want), "no '%s'", want);
  snprintf(want, sizeof want, "frame_0000.png to frame_%04d.png (%d frames)", n - 1, n);
  ENSURE_MSG(strstr(msg, want), "no '%s'", want);
  free(msg);
}

/* a stand-in ffmpeg in dir/bin that writes, as its output file (the last argument), how many PNG frames its
 * folder holds: what a real one would read */
static int stand_in_ffmpeg(const char *dir, char *path_env, size_t n) {
  char bin[600], ff[700], cmd[1400];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  snprintf(ff, sizeof ff, "%s/ffmpeg", bin);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", bin);
  if (system(cmd) != 0) return 0;
  if (!jl_test_write_file(ff,
                          "#!/bin/sh\nfor a in \"$@\"; do last=$a; done\n"
                          "ls \"$(dirname \"$last\")\" | grep -c '^frame_....\\.png$' > \"$last\"\n"))
    return 0;
  snprintf(cmd, sizeof cmd, "chmod +x '%s'", ff);
  snprintf(path_env, n, "PATH=%s:/usr/bin:/bin", bin);
  return system(cmd) == 0;
}

/* render 10 frames, then 4 into the same folder: frames 0 to 4 and the movie of those five remain, listed in the
 * manifest (the earlier frames 5 to 10 used to stay and go into the movie) */
static void test_render_rerun_fewer_frames(void) {
  NEEDS_RENDER();
  const char *dir = jl_test_tmpdir("program_render_rerun");
  char env[700], cmd[4096], out[600], path[700];
  ENSURE(stand_in_ffmpeg(dir, env, sizeof env));
  snprintf(out, sizeof out, "%s/out", dir);
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "env %s '" JELLY "' render " SCENES "drop.json --frames %d --size 32x24 --quiet --out %s",
             env, k ? 4 : 10, out);
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 0, "render --frames %d: exit %d: %s", k ? 4 : 10, rc, g_out);
  }
  int contiguous = 0, n = count_frames(out, "frame_", ".png", &contiguous);
  ENSURE_MSG(n == 5 && contiguous, "%d PNG frames after rendering 4 frames (0 to 4) over 10", n);
  snprintf(path, sizeof path, "%s/movie.mp4", out);
  char *movie = jl_test_read_file(path, NULL);
  ENSURE_MSG(movie && atoi(movie) == 5, "the movie was made from %s frames, want 5", movie ? movie : "no");
  free(movie);
  ENSURE_MSG(manifest_is_folder(out), "the manifest does not match %s", out);
  snprintf(path, sizeof path, "%s/jelly_manifest.txt", out);
  char *t = jl_test_read_file(path, NULL);
  ENSURE_MSG(t && strstr(t, "\nframe_0004.png\n") && strstr(t, "\nmovie.mp4\n") && !strstr(t, "frame_0005"),
             "manifest: %s", t ? t : "none");
  free(t);
  /* --no-movie: the earlier render's movie goes too */
  snprintf(cmd, sizeof cmd,
           "'" JELLY "' render " SCENES "drop.json --frames 2 --size 32x24 --no-movie --quiet --out %s", out);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && access(path, F_OK) == 0, "render --no-movie: exit %d: %s", rc, g_out);
  n = count_frames(out, "frame_", ".png", &contiguous);
  snprintf(path, sizeof path, "%s/movie.mp4", out);
  ENSURE_MSG(n == 3 && contiguous && access(path, F_OK) != 0, "%d PNG frames, movie.mp4 %s", n,
             access(path, F_OK) == 0 ? "still there" : "gone");
  ENSURE(manifest_is_folder(out));
}

/* run, render and run into one folder: each deletes the files the other listed (one command's output at a time);
 * PNG frames without a manifest are refused by both, untouched */
static void test_run_render_one_folder(void) {
  NEEDS_RENDER();
  const char *dir = jl_test_tmpdir("program_run_render");
  char cmd[4096], out[600], path[700];
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(cmd, sizeof cmd, "'" JELLY "' run " SCENES "drop.json --frames 3 --quiet --out %s", out);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "run: exit %d: %s", rc, g_out);
  snprintf(cmd, sizeof cmd, "'" JELLY "' render " SCENES "drop.json --frames 2 --size 32x24 --no-movie --out %s", out);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "note: deleting the") && strstr(g_out, "of the jelly run"),
             "render after run: exit %d: %s", rc, g_out);
  int contiguous = 0;
  ENSURE_MSG(count_frames(out, "frame_", ".vtu", &contiguous) == 0, "the run's frames are still there");
  ENSURE_MSG(count_frames(out, "frame_", ".png", &contiguous) == 3, "not 3 PNG frames");
  static const char *const gone[] = {"scene.pvd", "scene_all.pvd", "stats.csv", "preview.png", "frame_0001_ball.vtp"};
  for (int k = 0; k < 5; k++) {
    snprintf(path, sizeof path, "%s/%s", out, gone[k]);
    ENSURE_MSG(access(path, F_OK) != 0, "%s of the run is still there after the render", path);
  }
  ENSURE(manifest_is_folder(out));
  snprintf(cmd, sizeof cmd, "'" JELLY "' run " SCENES "drop.json --frames 1 --no-preview --out %s", out);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "of the jelly render"), "run after render: exit %d: %s", rc, g_out);
  ENSURE_MSG(count_frames(out, "frame_", ".png", &contiguous) == 0, "the render's frames are still there");
  ENSURE_MSG(count_frames(out, "frame_", ".vtu", &contiguous) == 2, "not 2 .vtu frames");
  ENSURE(manifest_is_folder(out));
  /* PNG frames without a manifest (an older Jelly's render, anyone's): refused, untouched */
  snprintf(out, sizeof out, "%s/foreign", dir);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", out);
  ENSURE(system(cmd) == 0);
  snprintf(path, sizeof path, "%s/frame_0007.png", out);
  ENSURE(jl_test_write_file(path, "not ours\n"));
  static const char *const what[] = {"render", "run"};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "'" JELLY "' %s " SCENES "drop.json --frames 1 %s --out %s", what[k],
             k ? "--no-preview" : "--size 32x24 --no-movie", out);
    rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 2 && strstr(g_out, "frame_0007.png") && strstr(g_out, "jelly_manifest.txt"),
               "%s into foreign PNG frames: exit %d: %s", what[k], rc, g_out);
    char *kept = jl_test_read_file(path, NULL);
    ENSURE_MSG(kept && strcmp(kept, "not ours\n") == 0, "the refused %s touched %s", what[k], path);
    free(kept);
    ENSURE(count_frames(out, "frame_", ".png", &contiguous) == 1);
  }
}

#define JL_TEST_TIER JL_PROGRAM /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"help_and_version", test_help_and_version}, {"exit_codes", test_exit_codes},
             {"flag_forms", test_flag_forms}, {"view_no_display", test_view_no_display}, {"quiet", test_quiet},
             {"render_progress_summary_movie", test_render_progress_summary_movie},
             {"explicit_default_dt", test_explicit_default_dt}, {"threads_bound", test_threads_bound},
             {"suggestions_exist", test_suggestions_exist}, {"run_interrupted", test_run_interrupted},
             {"render_interrupted", test_render_interrupted},
             {"render_rerun_fewer_frames", test_render_rerun_fewer_frames},
             {"run_render_one_folder", test_run_render_one_folder})
