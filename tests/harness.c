/* Implementation of the test harness declared in harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int g_case_failed;
static const char *g_case_name = "";

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

int jl_test_close(const char *file, int line, const char *what, double a, double b, double tol, int rel) {
  double scale = fmax(fabs(a), fabs(b)), diff = fabs(a - b);
  if (rel ? diff <= tol * scale : diff <= tol) return 1;
  if (rel) jl_test_fail(file, line, "%s: %.17g vs %.17g (rel %.3g)", what, a, b, scale > 0 ? diff / scale : 0.0);
  else jl_test_fail(file, line, "%s: %.17g vs %.17g (diff %.3g)", what, a, b, diff);
  return 0;
}

/* the index of the case named `name`, or -1 */
static int case_index(const JlTestCase *cases, int ncase, const char *name) {
  for (int i = 0; i < ncase; i++)
    if (strcmp(cases[i].name, name) == 0) return i;
  return -1;
}

int jl_test_main(int argc, char **argv, const JlTestCase *cases, int ncase) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  /* --before=NAME / --from=NAME: the cases before the one named NAME, or it
   * and those after; CMake runs a long test as these two halves (each case
   * in exactly one), so that each stays well within its time limit */
  int lo = 0, hi = ncase;
  if (filter && (strncmp(filter, "--before=", 9) == 0 || strncmp(filter, "--from=", 7) == 0)) {
    int before = filter[2] == 'b';
    const char *name = filter + (before ? 9 : 7);
    int k = case_index(cases, ncase, name);
    if (k < 0) {
      fprintf(stderr, "no test case named '%s'\n", name);
      return 1;
    }
    if (before) hi = k;
    else lo = k;
    filter = NULL;
  }
  int passed = 0, failed = 0;
  for (int i = lo; i < hi; i++) {
    if (filter && !strstr(cases[i].name, filter)) continue;
    g_case_failed = 0;
    g_case_name = cases[i].name;
    printf("- %s\n", cases[i].name);
    fflush(stdout);
    cases[i].fn();
    fflush(stdout);
    if (g_case_failed) {
      failed++;
      printf("  FAILED %s\n", cases[i].name);
    } else {
      passed++;
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  if (passed + failed == 0) {
    fprintf(stderr, "no test matched '%s'\n", filter ? filter : "");
    return 1;
  }
  return failed ? 1 : 0;
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
  snprintf(p, 512, "tmp_tests/%s", tag);
  mkdir("tmp_tests", 0755);
  char cmd[1100];
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
      if (!nb) { free(buf); buf = NULL; break; }
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
