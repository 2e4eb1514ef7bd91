/* The `jelly` program: dispatches to the subcommands in src/cli_*.c. */
#include <stdio.h>
#include <string.h>

#include "src/cli.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: jelly <command> [options]\n"
          "\n"
          "commands:\n"
          "  run [SCENE]    simulate a scene (default models/scenes/default.json)\n"
          "  view [SCENE]   interactive window: orbit, drag bodies with the mouse, spawn more\n"
          "  render [SCENE] headless PNG frames (and movie.mp4 with ffmpeg)\n"
          "  check FILE     validate a surface mesh\n"
          "  mesh FILE      tetrahedralize a surface mesh and report quality\n"
          "  bench          print performance figures\n"
          "  study [SCENE]  every integrator over a sweep of time steps (study.csv, study.svg)\n"
          "  help           this text\n"
          "\n"
          "`jelly <command> --help` describes a command's options.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) return jl_cli_run(0, argv + 1);
  const char *cmd = argv[1];
  if (strcmp(cmd, "run") == 0) return jl_cli_run(argc - 2, argv + 2);
  if (strcmp(cmd, "view") == 0) return jl_cli_view(argc - 2, argv + 2);
  if (strcmp(cmd, "render") == 0) return jl_cli_render(argc - 2, argv + 2);
  if (strcmp(cmd, "check") == 0) return jl_cli_check(argc - 2, argv + 2);
  if (strcmp(cmd, "mesh") == 0) return jl_cli_mesh(argc - 2, argv + 2);
  if (strcmp(cmd, "bench") == 0) return jl_cli_bench(argc - 2, argv + 2);
  if (strcmp(cmd, "study") == 0) return jl_cli_study(argc - 2, argv + 2);
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("jelly 0.1.0\n");
    return 0;
  }
  fprintf(stderr, "jelly: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
