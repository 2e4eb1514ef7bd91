/* `jelly view`: the interactive SDL2 viewer (src/cli/viewer.c and the parts
 * listed in src/cli/viewer_internal.h).
 *
 *   jelly view [FILE] [--size WxH] [--frames N] [--screenshot FILE]
 *              [--script FILE] [--report FILE] [--integrator NAME] [--dt S]
 *              [--layers LIST]
 *
 * Without --frames it runs until the window is closed. With --frames N it
 * runs N frames (1/fps of simulated time each, no real-time pacing, mouse
 * and keyboard ignored), replays --script events, saves --screenshot after
 * the last frame and exits: the scripted mode tests and batch jobs use.
 * Keys and the script format are in docs/viewer.md. */
#include <stdio.h>
#include <sys/stat.h>

#include "src/cli/viewer.h"
#include "src/cli/cli.h"

#define VIEW_DEFAULT_SCENE "models/scenes/default.json"

static void usage(FILE *f) {
  fprintf(f,
          "usage: jelly view [FILE] [--size WxH] [--frames N | --seconds N]\n"
          "                  [--screenshot FILE] [--script FILE] [--report FILE]\n"
          "                  [--layers LIST]\n"
          "                  [--dt S] [--fps F] [--integrator NAME] [--threads N]\n"
          "                  [--mesh-timeout S] [--mesh-memory MB] [--mesh-max-file MB]\n"
          "\n"
          "Opens a window on FILE: a scene (.json), or a surface or tet mesh dropped on\n"
          "the ground of a default world. Without FILE: models/scenes/default.json when\n"
          "the working directory has it, else an empty world (keys 1-5 spawn bodies, a\n"
          "file dragged onto the window joins the world). Right-drag orbits, middle- or\n"
          "shift-drag pans, the wheel zooms, left-drag pulls a body; press H in the\n"
          "window for all keys. Needs a display (X11 or Wayland); without one it exits 3\n"
          "at once: use `jelly render` for headless PNG frames.\n"
          "\n"
          "  --size WxH        window size (default 1280x720)\n"
          "  --frames N        run N frames unattended (1/fps of simulated time each,\n"
          "                    replaying --script events), then quit; also runs without\n"
          "                    a display\n"
          "  --seconds N       interactive for N seconds of wall time, then quit; --script\n"
          "                    events replay by displayed frame and --report adds the\n"
          "                    frame rate and pace (how fast the viewer runs here)\n"
          "  --screenshot FILE PNG of the last frame (needs --frames)\n"
          "  --script FILE     timed input events (docs/viewer.md)\n"
          "  --report FILE     each body's centre of mass at start and end, and drags\n"
          "  --layers LIST     debug layers: wireframe,tets,springs,contacts,pins,\n"
          "                    obstacles,velocity,strain\n"
          "  --history S       seconds of recent states kept for rewinding (default 10,\n"
          "                    0: none)\n"
          "  --plots           start with the live plots panel shown (L toggles it)\n" JL_CLI_SIM_HELP
              JL_CLI_MESH_LIMITS_HELP "\n" JL_CLI_EXIT_HELP);
}

/* --history S: seconds from 0 (no timeline) to an hour */
static int history_flag(const char *cmd, const char *flag, const char *value, void *dst) {
  double s;
  if (!jl_cli_parse_double(cmd, flag, value, &s)) return 0;
  if (!(s >= 0 && s <= 3600)) {
    fprintf(stderr, "jelly %s: %s expects seconds from 0 (no rewinding) to 3600, got '%s'\n", cmd, flag, value);
    return 0;
  }
  *(double *)dst = s;
  return 1;
}

int jl_cli_view(int argc, char **argv) {
  JlViewerDef d = jl_default_viewer_def();
  const char *scene = NULL;
  JlCliSim sim;
  jl_cli_sim_init(&sim);
  int size[2] = {d.width, d.height};
  const JlCliFlag flags[] = {
      JL_CLI_FLAG_CALL("--size", size, jl_cli_size_flag),
      JL_CLI_FLAG_INT("--frames", &d.frames, 1, 100000000),
      JL_CLI_FLAG_INT("--seconds", &d.seconds, 1, 86400),
      JL_CLI_FLAG_TEXT("--screenshot", &d.screenshot, "file name"),
      JL_CLI_FLAG_TEXT("--script", &d.script, "file name"),
      JL_CLI_FLAG_TEXT("--report", &d.report, "file name"),
      JL_CLI_FLAG_CALL("--layers", &d.layers, jl_cli_layers_flag),
      JL_CLI_FLAG_CALL("--history", &d.history, history_flag),
      JL_CLI_FLAG_SWITCH("--plots", &d.plots),
  };
  JlCliSpec spec = {"view", flags, (int)(sizeof flags / sizeof flags[0]), &sim, &scene, "scene", usage};
  int rc = jl_cli_parse(&spec, argc, argv);
  if (rc != JL_CLI_GO) return rc;
  d.width = size[0], d.height = size[1];
  if (d.seconds > 0 && d.frames > 0) {
    fprintf(stderr, "jelly view: --seconds (interactive, timed) and --frames (scripted) exclude each other\n");
    return 2;
  }
  if (d.screenshot && d.frames <= 0) {
    fprintf(stderr, "jelly view: --screenshot needs --frames N (press P in the window instead)\n");
    return 2;
  }
  d.dt = sim.dt;
  d.fps = sim.fps;
  d.integrator = sim.integrator;
  d.threads = sim.threads > 0 ? sim.threads : 0;
  /* no file: the scene of a checkout in the working directory, else an empty world for the spawn keys */
  struct stat st;
  d.scene = scene ? scene : stat(VIEW_DEFAULT_SCENE, &st) == 0 ? VIEW_DEFAULT_SCENE : NULL;
  return jl_viewer_run(&d);
}
