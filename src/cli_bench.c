/* `jelly bench` (placeholder until implemented). */
#include <stdio.h>

#include "src/cli.h"

int jl_cli_bench(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "jelly bench: not implemented yet\n");
  return 2;
}
