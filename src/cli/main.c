/* The `jelly` program: dispatches to the subcommands in src/cli_*.c. */
#include <stdio.h>
#include <string.h>

#include "src/cli/cli.h"

#ifndef JL_VERSION
#define JL_VERSION "unknown"
#endif

typedef struct Command {
  const char *name, *args, *what;
  int (*run)(int argc, char **argv);
} Command;

static const Command COMMANDS[] = {
    {"run", "[SCENE]", "simulate a scene: stats.csv, ParaView frames, preview.png", jl_cli_run},
    {"view", "[SCENE]", "interactive window: orbit, drag bodies with the mouse", jl_cli_view},
    {"render", "[SCENE]", "simulate and draw PNG frames without a display, movie.mp4", jl_cli_render},
    {"check", "FILE", "validate a surface mesh: can it be tetrahedralized?", jl_cli_check},
    {"mesh", "FILE", "tetrahedralize a surface mesh and report the quality", jl_cli_mesh},
    {"bench", "", "performance figures on this machine (docs/performance.md)", jl_cli_bench},
    {"study", "[SCENE]", "every integrator over a sweep of time steps, error vs dt", jl_cli_study},
};
enum { NCOMMAND = sizeof COMMANDS / sizeof COMMANDS[0] };

static void usage(FILE *out) {
  fprintf(out, "Jelly " JL_VERSION ": volumetric soft bodies from closed surface meshes.\n"
               "\n"
               "usage: jelly <command> [options]\n"
               "\n"
               "commands:\n");
  for (int i = 0; i < NCOMMAND; i++) {
    char head[32];
    snprintf(head, sizeof head, "%s %s", COMMANDS[i].name, COMMANDS[i].args);
    fprintf(out, "  %-16s %s\n", head, COMMANDS[i].what);
  }
  fprintf(out, "  %-16s %s\n", "help [COMMAND]", "this text, or a command's options");
  fprintf(out, "  %-16s %s\n", "--version", "the version");
  fprintf(out, "\n"
               "`jelly <command> --help` or `jelly help <command>`: a command's options.\n"
               "SCENE defaults to models/scenes/default.json; scene keys: docs/scenes.md.\n"
               "\n" JL_CLI_EXIT_HELP);
}

static const Command *find(const char *name) {
  for (int i = 0; i < NCOMMAND; i++)
    if (strcmp(COMMANDS[i].name, name) == 0) return &COMMANDS[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stdout);
    return 0;
  }
  const char *cmd = argv[1];
  const Command *c = find(cmd);
  if (c) return c->run(argc - 1, argv + 1); /* argv[0]: the command's name, as getopt_long expects */
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    if (argc < 3) {
      usage(stdout);
      return 0;
    }
    c = find(argv[2]);
    if (!c) {
      fprintf(stderr, "jelly help: unknown command '%s'\n", argv[2]);
      usage(stderr);
      return 2;
    }
    char name[16], flag[] = "--help";
    snprintf(name, sizeof name, "%s", c->name);
    char *args[] = {name, flag, NULL};
    return c->run(2, args);
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("jelly " JL_VERSION "\n");
    return 0;
  }
  fprintf(stderr, "jelly: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
