/* `jelly check` (placeholder until implemented). */
#include <stdio.h>

#include "src/cli.h"

int jl_cli_check(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "jelly check: not implemented yet\n");
  return 2;
}
