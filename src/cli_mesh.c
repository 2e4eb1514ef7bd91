/* `jelly mesh` (placeholder until implemented). */
#include <stdio.h>

#include "src/cli.h"

int jl_cli_mesh(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "jelly mesh: not implemented yet\n");
  return 2;
}
