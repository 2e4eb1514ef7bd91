/* End-to-end tests of `jelly study` (src/cli/cli_study.c, src/cli/study.c, docs/integrators.md) through the
 * jelly program: the help describes the default scene and the outputs, a run that diverges
 * leaves no NaN/Inf in the printed table, study.csv or study.svg (what it could not measure is
 * "-" in the table and an empty field in the csv), and every text of study.svg, its legend above
 * all, lies inside the picture. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "src/world.h"
#include "tests/harness.h"

#define JELLY JL_JELLY_EXE

static char g_out[1 << 16];

/* the study.csv header: a contract, columns are only ever appended */
#define STUDY_HEADER                                                                                    \
  "integrator,dt,steps,stable,t_end,largest_stable_dt,error_max,error_rms,wall_per_sim_s,energy_start," \
  "energy_end,energy_drift"
#define STUDY_COLUMNS 12

/* the width estimate of src/cli/study.c: characters x 0.62 x font size */
#define CHAR_EM 0.62

/* An 11-node rope (0.4 m, 200 N/m, 0.02 kg/m, undamped) pinned at one end, held out horizontally
 * and released: stiff enough that RK4 at dt 1/30 s diverges in its very first step (no simulated
 * time, so no wall time per simulated second, which must not print as "wall/sim-s nan"), that every
 * explicit integrator diverges at the large steps and forward Euler at all of them, while the
 * study's RK4 reference at 1/15360 s stays stable. The whole default sweep takes 0.3 s. */
#define ROPE_SCENE                                                                                       \
  "{ \"duration\": 1.0, \"fps\": 30, \"dt\": 0.01,"                                                      \
  "  \"bodies\": [ { \"name\": \"rope\", \"kind\": \"rope\","                                            \
  "    \"shape\": { \"type\": \"chain\", \"length\": 0.4, \"segments\": 10 }, \"translate\": [0, 1, 0]," \
  "    \"density\": 0.02, \"stiffness\": 200, \"bend_stiffness\": 2, \"damping\": 0,"                    \
  "    \"pin\": { \"nodes\": [0] } } ] }"

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 1 when text holds `word` (case-insensitive) not inside a longer word: "nan", "-nan", "inf" */
static int has_word(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *p = text; *p; p++) {
    if (strncasecmp(p, word, n) != 0) continue;
    int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = isalnum((unsigned char)p[n]) || p[n] == '_';
    if (!before && !after) return 1;
  }
  return 0;
}

/* the line of text that starts with prefix (after leading spaces), copied into out; 0 if none */
static int find_line(const char *text, const char *prefix, char *out, size_t n) {
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    const char *p = l;
    while (*p == ' ') p++;
    if (strncmp(p, prefix, strlen(prefix)) != 0) continue;
    size_t len = strcspn(l, "\n");
    if (len >= n) len = n - 1;
    memcpy(out, l, len);
    out[len] = '\0';
    return 1;
  }
  return 0;
}

/* splits one csv line (modified in place) into at most max fields; returns their number */
static int split_csv(char *line, char **field, int max) {
  int n = 0;
  for (char *p = line;;) {
    if (n < max) field[n] = p;
    n++;
    char *c = strchr(p, ',');
    if (!c) break;
    *c = '\0';
    p = c + 1;
  }
  return n;
}

/* a field is a finite number (not empty, not nan/inf, nothing after the number) */
static int is_number(const char *s) {
  char *end;
  double v = strtod(s, &end);
  return *s && *end == '\0' && isfinite(v);
}

/* checks study.csv: the header, nrows rows of 12 fields, every field empty or a finite number;
 * a diverged run leaves error_max, error_rms, energy_end and energy_drift empty, and its
 * wall_per_sim_s too exactly when it took no step; a stable run has all of them. Returns the
 * number of rows that diverged in their first step, or -1 after a failure. */
static int check_csv(const char *path, int nrows) {
  char *text = jl_test_read_file(path, NULL);
  if (!text) {
    jl_test_fail(__FILE__, __LINE__, "missing %s", path);
    return -1;
  }
  int rows = -1, first_step = 0, bad = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line && !bad; line = strtok_r(NULL, "\n", &save), rows++) {
    if (rows < 0) {
      if (strcmp(line, STUDY_HEADER) != 0) jl_test_fail(__FILE__, __LINE__, "header: %s", line), bad = 1;
      continue;
    }
    char copy[512];
    snprintf(copy, sizeof copy, "%s", line);
    char *f[STUDY_COLUMNS + 1];
    int n = split_csv(line, f, STUDY_COLUMNS + 1);
    if (n != STUDY_COLUMNS) {
      jl_test_fail(__FILE__, __LINE__, "%d fields in row %d: %s", n, rows, copy), bad = 1;
      break;
    }
    for (int c = 1; c < n && !bad; c++)
      if (f[c][0] && !is_number(f[c]))
        jl_test_fail(__FILE__, __LINE__, "row %d column %d is '%s' (not a finite number): %s", rows, c, f[c], copy),
            bad = 1;
    if (bad) break;
    int steps = atoi(f[2]), stable = atoi(f[3]);
    int measured = f[6][0] && f[7][0] && f[10][0] && f[11][0];
    if (stable != !!measured) {
      jl_test_fail(__FILE__, __LINE__, "row %d: stable %d but error/energy fields %s: %s", rows, stable,
                   measured ? "filled" : "empty", copy);
      bad = 1;
    } else if (!f[4][0] || !f[5][0] || !f[9][0]) {
      jl_test_fail(__FILE__, __LINE__, "row %d: t_end, largest_stable_dt and energy_start are always measured: %s",
                   rows, copy);
      bad = 1;
    } else if ((steps == 0) != (f[8][0] == '\0')) {
      jl_test_fail(__FILE__, __LINE__, "row %d: %d steps but wall_per_sim_s '%s': %s", rows, steps, f[8], copy);
      bad = 1;
    }
    first_step += steps == 0;
  }
  free(text);
  if (bad) return -1;
  if (rows != nrows) {
    jl_test_fail(__FILE__, __LINE__, "%s: %d rows, expected %d", path, rows, nrows);
    return -1;
  }
  return first_step;
}

/* value of attribute `name` in the tag [tag, end), or NULL; copies it into out */
static const char *attr(const char *tag, const char *end, const char *name, char *out, size_t n) {
  char key[64];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *p = strstr(tag, key);
  if (!p || p > end) return NULL;
  p += strlen(key);
  const char *q = strchr(p, '"');
  if (!q || q > end) return NULL;
  size_t len = (size_t)(q - p) < n - 1 ? (size_t)(q - p) : n - 1;
  memcpy(out, p, len);
  out[len] = '\0';
  return out;
}

static double attr_num(const char *tag, const char *end, const char *name, double dflt) {
  char v[128];
  return attr(tag, end, name, v, sizeof v) ? atof(v) : dflt;
}

/* characters of a text element's content: UTF-8 code points, an entity (&amp;) as one */
static int text_chars(const char *s, const char *end) {
  int n = 0;
  for (const char *p = s; p < end; p++) {
    if (*p == '&') {
      const char *semi = strchr(p, ';');
      if (semi && semi < end) p = semi;
    } else if (((unsigned char)*p & 0xC0) == 0x80) {
      continue;
    }
    n++;
  }
  return n;
}

/* Checks study.svg: a viewBox "0 0 W H" matching width and height; every <text> element's
 * estimated extent (x + chars x 0.62 em for start-anchored text, centred or right-aligned ones
 * accordingly; a rotated label along y) lies inside the picture; the legend (<g id="legend">)
 * has a rect inside the viewBox that holds all its texts, one per integrator. */
static void check_svg(const char *path) {
  char *svg = jl_test_read_file(path, NULL);
  ENSURE_MSG(svg, "missing %s", path);
  ENSURE_MSG(!has_word(svg, "nan") && !has_word(svg, "inf"), "nan or inf in %s", path);
  const char *root = strstr(svg, "<svg");
  ENSURE(root);
  const char *root_end = strchr(root, '>');
  double W = attr_num(root, root_end, "width", -1), H = attr_num(root, root_end, "height", -1);
  double font = attr_num(root, root_end, "font-size", 16); /* SVG's default font size is 16 */
  ENSURE(W > 0 && H > 0);

  /* every text inside the picture */
  const char *legend = strstr(svg, "<g id=\"legend\"");
  const char *legend_end = legend ? strstr(legend, "</g>") : NULL;
  int ntext = 0;
  for (const char *t = strstr(svg, "<text"); t; t = strstr(t + 1, "<text")) {
    const char *tag_end = strchr(t, '>'), *close = strstr(t, "</text>");
    ENSURE(tag_end && close && tag_end < close);
    char anchor[32] = "start", transform[128] = "", body[256];
    attr(t, tag_end, "text-anchor", anchor, sizeof anchor);
    attr(t, tag_end, "transform", transform, sizeof transform);
    double x = attr_num(t, tag_end, "x", 0), y = attr_num(t, tag_end, "y", 0);
    double w = text_chars(tag_end + 1, close) * CHAR_EM * attr_num(t, tag_end, "font-size", font);
    double lo = strcmp(anchor, "middle") == 0 ? -0.5 * w : strcmp(anchor, "end") == 0 ? -w : 0;
    size_t blen = (size_t)(close - tag_end - 1) < sizeof body - 1 ? (size_t)(close - tag_end - 1) : sizeof body - 1;
    memcpy(body, tag_end + 1, blen);
    body[blen] = '\0';
    if (strstr(transform, "rotate(-90")) {
      /* the y-axis label, turned to run upwards: centred on y */
      ENSURE_MSG(y - 0.5 * w >= 0 && y + 0.5 * w <= H, "'%s' spans y %.0f..%.0f of %.0f", body, y - 0.5 * w,
                 y + 0.5 * w, H);
    } else {
      ENSURE_MSG(!transform[0], "unexpected transform '%s' on '%s'", transform, body);
      ENSURE_MSG(x + lo >= 0 && x + lo + w <= W, "'%s' spans x %.0f..%.0f, the svg is %.0f wide", body, x + lo,
                 x + lo + w, W);
      ENSURE_MSG(y > 0 && y <= H, "'%s' at y %.0f of %.0f", body, y, H);
    }
    ntext++;
  }
  ENSURE(ntext > 10);

  /* the viewBox is the picture */
  char vb[128];
  ENSURE_MSG(attr(root, root_end, "viewBox", vb, sizeof vb), "no viewBox in %s", path);
  double v[4];
  ENSURE(sscanf(vb, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]) == 4);
  ENSURE(v[0] == 0 && v[1] == 0 && v[2] == W && v[3] == H);

  /* the legend: a rect inside the viewBox around its texts, one line per integrator */
  ENSURE_MSG(legend && legend_end, "no <g id=\"legend\"> in %s", path);
  const char *rect = strstr(legend, "<rect");
  ENSURE(rect && rect < legend_end);
  const char *rect_end = strchr(rect, '>');
  double rx = attr_num(rect, rect_end, "x", -1), ry = attr_num(rect, rect_end, "y", -1);
  double rw = attr_num(rect, rect_end, "width", -1), rh = attr_num(rect, rect_end, "height", -1);
  ENSURE_MSG(rx >= 0 && ry >= 0 && rw > 0 && rh > 0 && rx + rw <= W && ry + rh <= H,
             "legend rect %.0f,%.0f %.0fx%.0f outside the viewBox %.0fx%.0f", rx, ry, rw, rh, W, H);
  static const char *const names[] = {"implicit", "symplectic", "euler", "midpoint", "rk4", "verlet"};
  int found[6] = {0};
  for (const char *t = strstr(legend, "<text"); t && t < legend_end; t = strstr(t + 1, "<text")) {
    const char *tag_end = strchr(t, '>'), *close = strstr(t, "</text>");
    double x = attr_num(t, tag_end, "x", 0), y = attr_num(t, tag_end, "y", 0);
    double w = text_chars(tag_end + 1, close) * CHAR_EM * attr_num(t, tag_end, "font-size", font);
    ENSURE_MSG(x >= rx && x + w <= rx + rw && y > ry && y < ry + rh,
               "legend text at %.0f,%.0f (%.0f wide) outside its rect %.0f,%.0f %.0fx%.0f", x, y, w, rx, ry, rw, rh);
    for (int i = 0; i < 6; i++)
      if (strncmp(tag_end + 1, names[i], strlen(names[i])) == 0 && tag_end[1 + strlen(names[i])] == ' ') found[i]++;
  }
  for (int i = 0; i < 6; i++) ENSURE_MSG(found[i] == 1, "legend lines for %s: %d", names[i], found[i]);
  free(svg);
}

/* the study of a scene whose runs diverge, one of them in its first step: the table says so
 * instead of printing nan; study.csv leaves unmeasured values empty; study.svg fits */
static void test_diverged_runs_without_nan(void) {
  const char *dir = jl_test_tmpdir("study_rope");
  char scene[1024], cmd[4096], path[2048], line[512];
  snprintf(scene, sizeof scene, "%s/rope.json", dir);
  ENSURE(jl_test_write_file(scene, ROPE_SCENE));
  snprintf(cmd, sizeof cmd, "'" JELLY "' study '%s' --out '%s/out'", scene, dir);
  double t0 = seconds();
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  printf("  jelly study on an 11-node rope: %.1f s\n", seconds() - t0);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  ENSURE_MSG(!has_word(g_out, "nan") && !has_word(g_out, "inf"), "nan or inf in the table:\n%s", g_out);
  /* RK4 at 1/30 s diverges in its first step: its row shows '-', never nan */
  ENSURE_MSG(find_line(g_out, "rk4        dt 0.03333 ", line, sizeof line), "no rk4 1/30 s row in:\n%s", g_out);
  ENSURE_MSG(strstr(line, "DIVERGED") && strstr(line, "wall/sim-s -") && strstr(line, "error -") &&
                 strstr(line, "energy drift -") && strstr(line, "diverged in its first step"),
             "%s", line);
  /* a later divergence says when */
  ENSURE_MSG(find_line(g_out, "euler      dt 0.03333 ", line, sizeof line), "no euler 1/30 s row in:\n%s", g_out);
  ENSURE_MSG(strstr(line, "DIVERGED") && strstr(line, "diverged in step ") && !strstr(line, "wall/sim-s -"), "%s",
             line);
  ENSURE_MSG(strstr(g_out, "- = not measured"), "no footnote for '-' in:\n%s", g_out);
  ENSURE_MSG(strstr(g_out, "euler none"), "forward Euler has no stable dt here:\n%s", g_out);
  snprintf(path, sizeof path, "%s/out/study.csv", dir);
  int first = check_csv(path, JL_INTEGRATOR_COUNT * 8);
  ENSURE(first >= 0);
  ENSURE_MSG(first >= 1, "no run diverged in its first step");
  snprintf(path, sizeof path, "%s/out/study.svg", dir);
  check_svg(path);
}

/* the default scene with --quick: 4 steps per integrator; the svg legend fits */
static void test_quick_default(void) {
  const char *dir = jl_test_tmpdir("study_quick");
  char cmd[4096], path[2048];
  snprintf(cmd, sizeof cmd, "'" JELLY "' study --quick --out '%s/out'", dir);
  double t0 = seconds();
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  printf("  jelly study --quick: %.1f s\n", seconds() - t0);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  ENSURE_MSG(!has_word(g_out, "nan") && !has_word(g_out, "inf"), "nan or inf in the table:\n%s", g_out);
  ENSURE_MSG(strstr(g_out, "1681 nodes") && strstr(g_out, "4 time steps per integrator"), "%s", g_out);
  snprintf(path, sizeof path, "%s/out/study.csv", dir);
  ENSURE(check_csv(path, JL_INTEGRATOR_COUNT * 4) >= 0);
  /* implicit Euler survives every step; RK4's error at 1/120 s is tiny */
  char *csv = jl_test_read_file(path, NULL);
  ENSURE(csv);
  ENSURE_MSG(strstr(csv, "\nimplicit,0.0333333333,30,1,1,0.0333333333,"), "%s", csv);
  const char *rk4 = strstr(csv, "\nrk4,0.00833333333,120,1,1,");
  ENSURE_MSG(rk4, "%s", csv);
  char row[512], *fld[STUDY_COLUMNS];
  snprintf(row, sizeof row, "%.*s", (int)strcspn(rk4 + 1, "\n"), rk4 + 1);
  ENSURE(split_csv(row, fld, STUDY_COLUMNS) == STUDY_COLUMNS);
  ENSURE_MSG(atof(fld[6]) > 0 && atof(fld[6]) < 1e-4, "rk4 at 1/120 s: error_max %s", fld[6]);
  free(csv);
  snprintf(path, sizeof path, "%s/out/study.svg", dir);
  check_svg(path);
  /* the dynamics rows: every integrator at two steps; the bounce set by the coefficient under both
   * implicit integrators, the spin kept by the midpoint rule and damped by backward Euler */
  snprintf(path, sizeof path, "%s/out/dynamics.csv", dir);
  csv = jl_test_read_file(path, NULL);
  ENSURE_MSG(csv, "missing %s", path);
  int lines = 0;
  for (const char *c = csv; *c; c++) lines += *c == '\n';
  ENSURE_MSG(strncmp(csv,
                     "integrator,dt,bounce_stable,e_target,e,spin_stable,spin_kept_target,spin_kept,"
                     "bounce_wall_per_sim_s,spin_wall_per_sim_s\n",
                     120) == 0 &&
                 lines == 1 + 2 * JL_INTEGRATOR_COUNT,
             "%d lines:\n%s", lines, csv);
  static const struct {
    const char *prefix;
    double kept_lo, kept_hi;
  } want[] = {{"\nimplicit,0.0166666667,1,0.5,", 0.5, 0.8}, {"\nimplicit_midpoint,0.0166666667,1,0.5,", 0.99, 1.01}};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    const char *r = strstr(csv, want[k].prefix);
    ENSURE_MSG(r, "no row %s in\n%s", want[k].prefix + 1, csv);
    snprintf(row, sizeof row, "%.*s", (int)strcspn(r + 1, "\n"), r + 1);
    char *f[10];
    ENSURE(split_csv(row, f, 10) == 10);
    double e = atof(f[4]), kept = atof(f[7]);
    ENSURE_MSG(fabs(e - 0.5) <= 0.05 && kept >= want[k].kept_lo && kept <= want[k].kept_hi, "%s: e %g, kept %g",
               want[k].prefix + 1, e, kept);
  }
  free(csv);
}

/* the help says what the default scene is and what is written, in plain words */
static void test_help(void) {
  ENSURE(jl_test_run("'" JELLY "' study --help", g_out, sizeof g_out) == 0);
  ENSURE_MSG(!strstr(g_out, "seed 004"), "the help should not need the project's seed papers:\n%s", g_out);
  static const char *const want[] = {"cloth",           "20 m x 20 m", "41 x 41 nodes", "800 N/m",
                                     "two top corners", "gravity",     "study.csv",     "study.svg",
                                     "dynamics.csv",    "--quick",     "--full",        "--out"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ENSURE_MSG(strstr(g_out, want[i]), "'%s' missing from the help:\n%s", want[i], g_out);
  for (const char *l = g_out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
    ENSURE_MSG(strcspn(l, "\n") <= 80, "help line over 80 columns: %.100s", l);
  ENSURE(jl_test_run("'" JELLY "' study --full --quick", g_out, sizeof g_out) == 2);
}

#define JL_TEST_TIER JL_PROGRAM /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"help", test_help}, {"diverged_runs_without_nan", test_diverged_runs_without_nan},
             {"quick_default", test_quick_default})
