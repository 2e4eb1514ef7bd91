/* Strict number parsing for command-line flags (src/cli.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/cli.h"

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
