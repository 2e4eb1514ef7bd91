/* Shared command-line helpers (src/cli.h): strict number parsing for flags
 * and the lookup of the default scene. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/child.h"
#include "src/cli/cli.h"

int jl_cli_parse_double(const char *cmd, const char *flag, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double v = text ? strtod(text, &end) : 0.0;
  if (!text || end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    fprintf(stderr, "jelly %s: %s expects a finite number, got '%s'\n", cmd, flag,
            text ? text : "(nothing)");
    return 0;
  }
  *out = v;
  return 1;
}

int jl_cli_parse_int(const char *cmd, const char *flag, const char *text, long lo, long hi, int *out) {
  char *end = NULL;
  errno = 0;
  long v = text ? strtol(text, &end, 10) : 0;
  if (!text || end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    fprintf(stderr, "jelly %s: %s expects a whole number from %ld to %ld, got '%s'\n", cmd,
            flag, lo, hi, text ? text : "(nothing)");
    return 0;
  }
  *out = (int)v;
  return 1;
}

/* models/scenes/default.json relative to the working directory (the
 * repository root), else relative to the executable (build/jelly) */
#define DEFAULT_SCENE "models/scenes/default.json"

const char *jl_cli_default_scene(char *buf, size_t n) {
  struct stat st;
  if (stat(DEFAULT_SCENE, &st) == 0) return DEFAULT_SCENE;
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return DEFAULT_SCENE;
  exe[len] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return DEFAULT_SCENE;
  *slash = '\0';
  if ((size_t)snprintf(buf, n, "%s/../" DEFAULT_SCENE, exe) >= n || stat(buf, &st) != 0)
    return DEFAULT_SCENE;
  return buf;
}

int jl_cli_make_dirs(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  struct stat st;
  return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

int jl_cli_mesh_limit_flag(const char *cmd, int argc, char **argv, int *i) {
  const char *flag = argv[*i];
  int which = strcmp(flag, "--mesh-timeout") == 0 ? 0
              : strcmp(flag, "--mesh-memory") == 0 ? 1
              : strcmp(flag, "--mesh-max-file") == 0 ? 2
                                                      : -1;
  if (which < 0) return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "jelly %s: %s needs a value\n", cmd, flag);
    return -1;
  }
  const char *text = argv[++*i];
  double v = 0.0;
  if (!jl_cli_parse_double(cmd, flag, text, &v)) return -1;
  /* upper bounds: a day, 1 TiB */
  double hi = which == 0 ? 86400.0 : 1048576.0;
  if (!(v > 0) || v > hi) {
    fprintf(stderr, "jelly %s: %s must be > 0 and at most %g %s, got '%s'\n", cmd, flag, hi,
            which == 0 ? "s" : "MB", text);
    return -1;
  }
  JlMeshLimits l = jl_mesh_limits();
  if (which == 0) l.timeout = v;
  else if (which == 1) l.memory_mb = v;
  else l.file_mb = v;
  jl_mesh_set_limits(&l);
  return 1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double jl_cli_median(double *v, int n) {
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
