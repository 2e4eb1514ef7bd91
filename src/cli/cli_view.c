/* `jelly view`: the interactive SDL2 viewer (src/cli/viewer.c).
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
#include <string.h>

#include "src/cli/viewer.h"
#include "src/cli/cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: jelly view [SCENE] [--size WxH] [--frames N] [--screenshot FILE]\n"
          "                  [--script FILE] [--report FILE] [--layers LIST]\n"
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
          "  --screenshot FILE PNG of the last frame (needs --frames)\n"
          "  --script FILE     timed input events (docs/viewer.md)\n"
          "  --report FILE     each body's centre of mass at start and end, and drags\n"
          "  --layers LIST     debug layers: wireframe,tets,springs,contacts,pins,\n"
          "                    obstacles,velocity\n"
          JL_CLI_SIM_HELP
          JL_CLI_MESH_LIMITS_HELP
          "\n"
          JL_CLI_EXIT_HELP);
}

int jl_cli_view(int argc, char **argv) {
  JlViewerDef d = jl_default_viewer_def();
  const char *scene = NULL;
  JlCliSim sim;
  jl_cli_sim_init(&sim);
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    int simflag = jl_cli_sim_flag("view", &sim, argc, argv, &i);
    if (simflag < 0) return 2;
    if (simflag > 0) continue;
    int takes = strcmp(s, "--size") == 0 || strcmp(s, "--frames") == 0 ||
                strcmp(s, "--screenshot") == 0 || strcmp(s, "--script") == 0 ||
                strcmp(s, "--report") == 0 || strcmp(s, "--layers") == 0;
    if (takes) {
      if (!val) {
        fprintf(stderr, "jelly view: %s needs a value\n", s);
        return 2;
      }
      i++;
      if (strcmp(s, "--size") == 0) {
        if (!jl_cli_parse_size("view", val, &d.width, &d.height)) return 2;
      } else if (strcmp(s, "--frames") == 0) {
        if (!jl_cli_parse_int("view", s, val, 1, 100000000, &d.frames)) return 2;
      } else if (strcmp(s, "--layers") == 0) {
        if (!jl_cli_parse_layers("view", val, &d.layers)) return 2;
      } else if (!*val) {
        fprintf(stderr, "jelly view: %s needs a file name\n", s);
        return 2;
      } else if (strcmp(s, "--screenshot") == 0) {
        d.screenshot = val;
      } else if (strcmp(s, "--script") == 0) {
        d.script = val;
      } else {
        d.report = val;
      }
    } else if (s[0] == '-' && s[1] != '\0') {
      fprintf(stderr, "jelly view: unknown option '%s' (see jelly view --help)\n", s);
      return 2;
    } else if (!scene) {
      scene = s;
    } else {
      fprintf(stderr, "jelly view: more than one scene given ('%s' and '%s')\n", scene, s);
      return 2;
    }
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
