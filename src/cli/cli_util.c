/* Shared command-line helpers (src/cli/cli.h): the commands' flag parsing
 * (getopt_long behind one table per command), strict number parsing for flag
 * values, mkdir -p and the lookup of the default scene. An unknown option
 * close to a known one is told which ("did you mean '--frames'?"). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/child.h"
#include "src/cli/cli.h"
#include "src/suggest.h"

int jl_cli_parse_double(const char *cmd, const char *flag, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double v = text ? strtod(text, &end) : 0.0;
  if (!text || end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    fprintf(stderr, "jelly %s: %s expects a finite number, got '%s'\n", cmd, flag, text ? text : "(nothing)");
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
    fprintf(stderr, "jelly %s: %s expects a whole number from %ld to %ld, got '%s'\n", cmd, flag, lo, hi,
            text ? text : "(nothing)");
    return 0;
  }
  *out = (int)v;
  return 1;
}

/* the default scene Jelly ships (jl_cli_data_file): the working directory's models/, the build's or
 * the installed share/jelly/models */
const char *jl_cli_default_scene(char *buf, size_t n) {
  jl_cli_data_file("scenes/default.json", buf, n); /* the working directory's, the build's or the installed one */
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

/* --mesh-timeout S, --mesh-memory MB, --mesh-max-file MB: the process-wide
 * limits of mesh imports and TetGen runs (mesh/child.h) */
static int mesh_limit(const char *cmd, const char *flag, const char *text, void *dst) {
  (void)dst;
  int which = strcmp(flag, "--mesh-timeout") == 0 ? 0 : strcmp(flag, "--mesh-memory") == 0 ? 1 : 2;
  double v = 0.0;
  if (!jl_cli_parse_double(cmd, flag, text, &v)) return 0;
  /* upper bounds: a day, 1 TiB */
  double hi = which == 0 ? 86400.0 : 1048576.0;
  if (!(v > 0) || v > hi) {
    fprintf(stderr, "jelly %s: %s must be > 0 and at most %g %s, got '%s'\n", cmd, flag, hi, which == 0 ? "s" : "MB",
            text);
    return 0;
  }
  JlMeshLimits l = jl_mesh_limits();
  if (which == 0)
    l.timeout = v;
  else if (which == 1)
    l.memory_mb = v;
  else
    l.file_mb = v;
  jl_mesh_set_limits(&l);
  return 1;
}

/* the flags every command takes besides its own */
static const JlCliFlag MESH_FLAGS[] = {
    JL_CLI_FLAG_CALL("--mesh-timeout", NULL, mesh_limit),
    JL_CLI_FLAG_CALL("--mesh-memory", NULL, mesh_limit),
    JL_CLI_FLAG_CALL("--mesh-max-file", NULL, mesh_limit),
};
enum { NMESH = sizeof MESH_FLAGS / sizeof MESH_FLAGS[0], MAX_FLAGS = 64, FIRST_VAL = 256 };

/* checks and stores one flag's value; 0 after printing why not */
static int take(const char *cmd, const JlCliFlag *f, const char *value) {
  switch (f->kind) {
    case JL_CLI_SWITCH:
      *(int *)f->dst = 1;
      return 1;
    case JL_CLI_INT:
      return jl_cli_parse_int(cmd, f->name, value, f->lo, f->hi, (int *)f->dst);
    case JL_CLI_CALL:
      return f->call(cmd, f->name, value, f->dst);
    case JL_CLI_TEXT:
      if (f->noun && !*value) {
        fprintf(stderr, "jelly %s: %s needs a %s\n", cmd, f->name, f->noun);
        return 0;
      }
      *(const char **)f->dst = value;
      return 1;
  }
  return 0;
}

/* " (did you mean '--frames'?)" when the name of an unknown option (before any '=') is close to one of the n
 * flags of the table or --help (src/suggest.h), else "" */
static void option_hint(const char *typed, const JlCliFlag *all, int n, char *hint, size_t hintsz) {
  const char *names[MAX_FLAGS + 2];
  for (int i = 0; i < n; i++) names[i] = all[i].name;
  names[n] = "--help";
  names[n + 1] = NULL;
  hint[0] = '\0';
  char name[JL_SUGGEST_MAX + 1];
  size_t len = 0;
  while (len <= JL_SUGGEST_MAX && typed[len] && typed[len] != '=') len++;
  if (len > JL_SUGGEST_MAX) return;
  memcpy(name, typed, len);
  name[len] = '\0';
  const char *s = jl_suggest(name, names);
  if (s && strcmp(s, name) != 0) snprintf(hint, hintsz, " (did you mean '%s'?)", s);
}

/* a positional argument: the spec's one, else an error */
static int positional(const JlCliSpec *sp, const char *text) {
  if (!sp->arg) {
    fprintf(stderr, "jelly %s: unexpected argument '%s' (see jelly %s --help)\n", sp->cmd, text, sp->cmd);
    return 0;
  }
  if (*sp->arg) {
    fprintf(stderr, "jelly %s: more than one %s given ('%s' and '%s')\n", sp->cmd, sp->arg_name, *sp->arg, text);
    return 0;
  }
  *sp->arg = text;
  return 1;
}

int jl_cli_parse(const JlCliSpec *sp, int argc, char **argv) {
  /* one table: the command's flags, the shared simulation flags, the mesh limits */
  JlCliFlag all[MAX_FLAGS];
  struct option opt[MAX_FLAGS + 2];
  int n = 0;
  JL_ASSERT(sp->nflag + JL_CLI_SIM_NFLAG + NMESH <= MAX_FLAGS, "jl_cli_parse: more than 64 flags; raise MAX_FLAGS");
  for (int i = 0; i < sp->nflag; i++) all[n++] = sp->flag[i];
  if (sp->sim) {
    jl_cli_sim_flags(sp->sim, &all[n]);
    n += JL_CLI_SIM_NFLAG;
  }
  for (int i = 0; i < NMESH; i++) all[n++] = MESH_FLAGS[i];
  for (int i = 0; i < n; i++) {
    JL_ASSERT(strncmp(all[i].name, "--", 2) == 0, "jl_cli_parse: flag names start with --");
    opt[i] = (struct option){all[i].name + 2, all[i].kind == JL_CLI_SWITCH ? no_argument : required_argument, NULL,
                             FIRST_VAL + i};
  }
  opt[n] = (struct option){"help", no_argument, NULL, 'h'};
  opt[n + 1] = (struct option){NULL, 0, NULL, 0};

  /* '-': positional arguments in their order among the flags; ':': a missing value is told apart;
   * opterr 0: Jelly's messages, not getopt's; optind 0: a full restart */
  opterr = 0;
  optind = 0;
  for (;;) {
    int at = optind > 0 ? optind : 1; /* the argument getopt_long reads next */
    const char *typed = at < argc ? argv[at] : "";
    int c = getopt_long(argc, argv, "-:h", opt, NULL);
    if (c == -1) break;
    if (c == 1) {
      if (!positional(sp, optarg)) return 2;
      continue;
    }
    if (c == 'h') {
      sp->usage(stdout);
      return 0;
    }
    /* the flag as the table names it: the option found, a missing value, a value a switch does not take */
    int k = c >= FIRST_VAL ? c - FIRST_VAL : optopt >= FIRST_VAL ? optopt - FIRST_VAL : -1;
    size_t len = k >= 0 ? strlen(all[k].name) : 0;
    /* whole names only: getopt_long would also take an unambiguous prefix */
    if (k < 0 || strncmp(typed, all[k].name, len) != 0 || (typed[len] != '\0' && typed[len] != '=')) {
      /* the suggestion after the message of old, which scripts may look for whole */
      char hint[JL_SUGGEST_MAX + 24];
      option_hint(typed, all, n, hint, sizeof hint);
      fprintf(stderr, "jelly %s: unknown option '%s' (see jelly %s --help)%s\n", sp->cmd, typed, sp->cmd, hint);
      return 2;
    }
    if (c == ':') {
      fprintf(stderr, "jelly %s: %s needs a value\n", sp->cmd, all[k].name);
      return 2;
    }
    if (c == '?') {
      fprintf(stderr, "jelly %s: %s takes no value, got '%s'\n", sp->cmd, all[k].name, typed);
      return 2;
    }
    if (!take(sp->cmd, &all[k], optarg)) return 2;
  }
  /* after "--": all positional */
  for (int i = optind; i < argc; i++)
    if (!positional(sp, argv[i])) return 2;
  return JL_CLI_GO;
}

void jl_cli_print_findings(const JlMeshReport *r) {
  for (int i = 0; i < r->nfinding; i++) {
    JlSeverity v = r->finding[i].severity;
    printf("    %-8s %s\n", v == JL_SEV_INFO ? "info" : v == JL_SEV_WARNING ? "warning" : "error", r->finding[i].text);
  }
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
