/* The `jelly` program: its own options (--help, --version) and the dispatch
 * to the subcommands in src/cli/cli_*.c. A mistyped command or option is
 * told the one it is close to ("did you mean 'run'?", src/suggest.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "src/cli/cli.h"
#include "src/suggest.h"

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
  fprintf(out, "Jelly " JL_VERSION
               ": volumetric soft bodies from closed surface meshes.\n"
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
  fprintf(out,
          "\n"
          "`jelly <command> --help` or `jelly help <command>`: a command's options.\n"
          "SCENE defaults to models/scenes/default.json; scene keys: docs/scenes.md.\n"
          "\n" JL_CLI_EXIT_HELP);
}

static const Command *find(const char *name) {
  for (int i = 0; i < NCOMMAND; i++)
    if (strcmp(COMMANDS[i].name, name) == 0) return &COMMANDS[i];
  return NULL;
}

/* " (did you mean 'run'?)" when typed is close to a command's name (or to "help" with help 1), else ""
 * (src/suggest.h) */
static const char *command_hint(const char *typed, int with_help, char *hint, size_t n) {
  const char *names[NCOMMAND + 2];
  for (int i = 0; i < NCOMMAND; i++) names[i] = COMMANDS[i].name;
  names[NCOMMAND] = with_help ? "help" : NULL;
  names[NCOMMAND + 1] = NULL;
  const char *s = jl_suggest(typed, names);
  hint[0] = '\0';
  if (s) snprintf(hint, n, " (did you mean '%s'?)", s);
  return hint;
}

/* `jelly help [COMMAND]`: the usage, or the command's --help */
static int help(const char *name) {
  if (!name) {
    usage(stdout);
    return 0;
  }
  const Command *c = find(name);
  if (!c) {
    char hint[JL_SUGGEST_MAX + 24];
    fprintf(stderr, "jelly help: unknown command '%s'%s\n", name, command_hint(name, 0, hint, sizeof hint));
    usage(stderr);
    return 2;
  }
  char cmd[16], flag[] = "--help";
  snprintf(cmd, sizeof cmd, "%s", c->name);
  char *args[] = {cmd, flag, NULL};
  return c->run(2, args);
}

int main(int argc, char **argv) {
  /* the program's own options, before the command ('+': getopt_long stops at
   * the command, whose options are its own: src/cli/cli_util.c) */
  static const struct option opts[] = {
      {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
  opterr = 0;
  int c = getopt_long(argc, argv, "+h", opts, NULL);
  const char *typed = c != -1 ? argv[optind - 1] : "";
  /* whole names only, as the commands take them */
  if ((c == 'h' || c == 'V') && strncmp(typed, "--", 2) == 0 && strcmp(typed, "--help") != 0 &&
      strcmp(typed, "--version") != 0)
    c = '?';
  if (c == 'h') return help(optind < argc ? argv[optind] : NULL);
  if (c == 'V') {
    printf("jelly " JL_VERSION "\n");
    return 0;
  }
  if (c != -1) {
    /* the program's own options, as a mistyped one may be told */
    static const char *const own[] = {"--help", "--version", NULL};
    const char *s = jl_suggest(typed, own);
    if (s && strcmp(s, typed) != 0)
      fprintf(stderr, "jelly: unknown option '%s' (did you mean '%s'?)\n", typed, s);
    else
      fprintf(stderr, "jelly: unknown option '%s'\n", typed);
    usage(stderr);
    return 2;
  }
  if (optind >= argc) {
    usage(stdout);
    return 0;
  }
  /* the command gets argv[0] = its name, as getopt_long expects */
  const char *cmd = argv[optind];
  const Command *command = find(cmd);
  if (command) return command->run(argc - optind, argv + optind);
  if (strcmp(cmd, "help") == 0) return help(optind + 1 < argc ? argv[optind + 1] : NULL);
  if (strcmp(cmd, "version") == 0) {
    printf("jelly " JL_VERSION "\n");
    return 0;
  }
  char hint[JL_SUGGEST_MAX + 24];
  fprintf(stderr, "jelly: unknown command '%s'%s\n", cmd, command_hint(cmd, 1, hint, sizeof hint));
  usage(stderr);
  return 2;
}
