/* `jelly view`: the interactive SDL2 viewer (src/cli/viewer.c and the parts
 * listed in src/cli/viewer_internal.h).
 *
 *   jelly view [SCENE] [--size WxH] [--frames N] [--screenshot FILE]
 *              [--script FILE] [--report FILE] [--integrator NAME] [--dt S]
 *              [--layers LIST]
 *
 * Without --frames it runs until the window is closed. With --frames N it
 * runs N frames (1/fps of simulated time each, no real-time pacing, mouse
 * and keyboard ignored), replays --script events, saves --screenshot after
 * the last frame and exits: the scripted mode tests and batch jobs use.
 * Keys and the script format are in docs/viewer.md. */
#include <stdio.h>

#include "src/cli/viewer.h"
#include "src/cli/cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: jelly view [SCENE] [--size WxH] [--frames N | --seconds N]\n"
          "                  [--screenshot FILE] [--script FILE] [--report FILE]\n"
          "                  [--layers LIST]\n"
          "                  [--dt S] [--fps F] [--integrator NAME] [--threads N]\n"
          "                  [--mesh-timeout S] [--mesh-memory MB] [--mesh-max-file MB]\n"
          "\n"
          "Opens a window on SCENE (default models/scenes/default.json). Right-drag orbits,\n"
          "middle- or shift-drag pans, the wheel zooms, left-drag pulls a body; press H in\n"
          "the window for all keys. Needs a display (X11 or Wayland); without one it\n"
          "exits 3 at once: use `jelly render` for headless PNG frames.\n"
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
          "                    obstacles,velocity\n" JL_CLI_SIM_HELP JL_CLI_MESH_LIMITS_HELP "\n" JL_CLI_EXIT_HELP);
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
  char buf[4200];
  d.scene = scene ? scene : jl_cli_default_scene(buf, sizeof buf);
  return jl_viewer_run(&d);
}
