/* `jelly run` (placeholder until implemented). */
#include <stdio.h>

#include "src/cli.h"

int jl_cli_run(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "jelly run: not implemented yet\n");
  return 2;
}
