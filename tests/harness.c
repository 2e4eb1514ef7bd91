/* Implementation of the test harness declared in harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

static int g_case_failed, g_case_skipped;
static const char *g_case_name = "";
static char g_prog[128] = "test";

void jl_test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "  FAIL %s (%s:%d): ", g_case_name, file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  g_case_failed = 1;
}

int jl_test_failed(void) { return g_case_failed; }

void jl_test_skip(const char *fmt, ...) {
  va_list ap;
  printf("  SKIP %s: ", g_case_name);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
  g_case_skipped = 1;
}

int jl_test_close(const char *file, int line, const char *what, double a, double b, double tol, int rel) {
  double scale = fmax(fabs(a), fabs(b)), diff = fabs(a - b);
  if (rel ? diff <= tol * scale : diff <= tol) return 1;
  if (rel)
    jl_test_fail(file, line, "%s: %.17g vs %.17g (rel %.3g)", what, a, b, scale > 0 ? diff / scale : 0.0);
  else
    jl_test_fail(file, line, "%s: %.17g vs %.17g (diff %.3g)", what, a, b, diff);
  return 0;
}

static const char *const tier_names[] = {"", "unit", "scene", "program", "robustness"};

/* the case's tier (its own, or the file's) */
static int case_tier(const JlTestCase *c, int file_tier) {
  int t = c->tier & JL_TIER_MASK ? c->tier & JL_TIER_MASK : file_tier & JL_TIER_MASK;
  return t >= JL_UNIT && t <= JL_ROBUSTNESS ? t : 0;
}

/* whether the case carries label `label` (a tier's name, or "short") */
static int case_has_label(const JlTestCase *c, int file_tier, const char *label) {
  if (strcmp(label, "short") == 0) return (c->tier & JL_SHORT) != 0;
  return strcmp(tier_names[case_tier(c, file_tier)], label) == 0;
}

int jl_test_main(int argc, char **argv, const JlTestCase *cases, int ncase, int file_tier) {
  const char *base = argc > 0 && strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argc > 0 ? argv[0] : "test";
  snprintf(g_prog, sizeof g_prog, "%s", base);
  for (int i = 0; i < ncase; i++)
    if (!case_tier(&cases[i], file_tier)) {
      fprintf(stderr, "%s: case '%s' has no tier (JL_TEST_TIER or its own)\n", g_prog, cases[i].name);
      return 2;
    }
  if (argc > 2) {
    fprintf(stderr, "usage: %s [NAME | --case=NAME | --tier=TIER | --list]\n", g_prog);
    return 2;
  }
  const char *arg = argc > 1 ? argv[1] : NULL, *filter = NULL, *exact = NULL, *tier = NULL;
  if (arg && strcmp(arg, "--list") == 0) {
    for (int i = 0; i < ncase; i++)
      printf("%s %s%s\n", cases[i].name, tier_names[case_tier(&cases[i], file_tier)],
             cases[i].tier & JL_SHORT ? ",short" : "");
    return 0;
  }
  if (arg && strncmp(arg, "--case=", 7) == 0)
    exact = arg + 7;
  else if (arg && strncmp(arg, "--tier=", 7) == 0)
    tier = arg + 7;
  else if (arg && arg[0] == '-') {
    fprintf(stderr, "%s: unknown option '%s'\nusage: %s [NAME | --case=NAME | --tier=TIER | --list]\n", g_prog, arg,
            g_prog);
    return 2;
  } else
    filter = arg;
  int passed = 0, failed = 0, skipped = 0;
  for (int i = 0; i < ncase; i++) {
    if (filter && !strstr(cases[i].name, filter)) continue;
    if (exact && strcmp(cases[i].name, exact) != 0) continue;
    if (tier && !case_has_label(&cases[i], file_tier, tier)) continue;
    g_case_failed = g_case_skipped = 0;
    g_case_name = cases[i].name;
    printf("- %s\n", cases[i].name);
    fflush(stdout);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cases[i].fn();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (g_case_failed) {
      failed++;
      printf("  FAILED %s (%.2f s)\n", cases[i].name, secs);
    } else if (g_case_skipped) {
      skipped++;
    } else {
      passed++;
      printf("  ok %s (%.2f s)\n", cases[i].name, secs);
    }
    fflush(stdout);
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (passed + failed + skipped == 0) {
    fprintf(stderr, "%s: no test case matched '%s'\n", g_prog, arg ? arg : "");
    return 1;
  }
  if (failed) return 1;
  /* one case asked for and skipped: CTest's SKIP_RETURN_CODE (tests/discover.cmake) */
  return exact && skipped ? 77 : 0;
}

int jl_test_run(const char *cmd, char *out, size_t outsz) {
  char full[8192];
  snprintf(full, sizeof full, "( %s ) 2>&1", cmd);
  FILE *p = popen(full, "r");
  if (!p) return -1;
  size_t n = 0;
  int c;
  while ((c = fgetc(p)) != EOF) {
    if (out && n + 1 < outsz) out[n++] = (char)c;
  }
  if (out && outsz) out[n] = '\0';
  int st = pclose(p);
  if (st == -1) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

const char *jl_test_tmpdir(const char *tag) {
  static char paths[16][512];
  static int used;
  char *p = paths[used++ % 16];
  snprintf(p, 512, "tmp_tests/%s.%s/%s", g_prog, g_case_name, tag);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", p, p);
  if (system(cmd) != 0) fprintf(stderr, "cannot create %s\n", p);
  return p;
}

int jl_test_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  int ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

char *jl_test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += r;
    if (cap - n - 1 == 0) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) return NULL;
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}
