/* `jelly view` as a sandbox (docs/viewer.md): opening any file, the empty
 * world, files dropped on the window, rewinding and replaying, the strain
 * layer, the live plots, recording, and the scripted runs' own errors. Each
 * case runs the real program in scripted mode with SDL's dummy video driver
 * and takes the screenshot docs/viewer.md shows (docs/images/viewer_*.png are
 * copies of them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"

#define JELLY      JL_JELLY_EXE
#define DATA       JL_SOURCE_DIR "/tests/data"
#define MODELS     JL_SOURCE_DIR "/models"
#define PNG_PIXELS "python3 " DATA "/png_pixels.py"
#define HEADLESS   "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy "

/* the report's "key value..." line's text after the key, "" when absent */
static void report_value(const char *dir, const char *key, char *out, size_t n) {
  char path[1200];
  snprintf(path, sizeof path, "%s/report.txt", dir);
  out[0] = '\0';
  char *text = jl_test_read_file(path, NULL);
  if (!text) return;
  size_t len = strlen(key);
  for (char *line = text; line && *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = '\0';
    if (strncmp(line, key, len) == 0 && line[len] == ' ') {
      snprintf(out, n, "%s", line + len + 1);
      break;
    }
    line = end ? end + 1 : NULL;
  }
  free(text);
}

/* body lines of the report: their count, and body b's centre of mass at the end */
static int report_bodies(const char *dir, double com_end[][3], int max) {
  char path[1200], line[1024];
  snprintf(path, sizeof path, "%s/report.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    int b;
    char name[128];
    double a[6];
    if (sscanf(line, "body %d %127s com_start %lf %lf %lf com_end %lf %lf %lf", &b, name, &a[0], &a[1], &a[2], &a[3],
               &a[4], &a[5]) == 8 &&
        b >= 0 && b < max) {
      memcpy(com_end[b], a + 3, sizeof com_end[b]);
      n = b + 1;
    }
  }
  fclose(f);
  return n;
}

/* pixels of the screenshot within tol of (r, g, b), optionally inside a box */
static int near_colour(const char *png, int r, int g, int b, int tol, const char *box) {
  char cmd[2048], out[512];
  snprintf(cmd, sizeof cmd, PNG_PIXELS " near %s %d %d %d %d %s", png, r, g, b, tol, box ? box : "");
  if (jl_test_run(cmd, out, sizeof out) != 0) return -1;
  return atoi(out);
}

static int run_view(const char *dir, const char *args, char *out, size_t n) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd %s && " HEADLESS "%s view %s --report report.txt", dir, JELLY, args);
  return jl_test_run(cmd, out, n);
}

/* a surface mesh and a tet mesh open as bodies dropped on the ground of a default world */
static void test_open_mesh(void) {
  char out[16384];
  const char *dir = jl_test_tmpdir("open");
  int rc = run_view(dir, MODELS "/icosphere_320.obj --frames 90 --size 640x360 --screenshot open.png", out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly view icosphere_320.obj exited %d: %s", rc, out);
  double com[4][3];
  ENSURE(report_bodies(dir, com, 4) == 1);
  /* the unit sphere fell a quarter of its height (0.5 m) and rests on the ground, its centre near 1 m up */
  ENSURE_MSG(com[0][1] > 0.8 && com[0][1] < 1.05 && fabs(com[0][0]) < 0.2 && fabs(com[0][2]) < 0.2,
             "sphere's centre at the end: %g %g %g", com[0][0], com[0][1], com[0][2]);
  char scene[1200];
  report_value(dir, "scene", scene, sizeof scene);
  ENSURE_MSG(strstr(scene, "icosphere_320.obj"), "report names '%s'", scene);
  /* a tet mesh (Gmsh) opens the same way */
  rc = run_view(dir, MODELS "/cube_tets.msh --frames 30 --size 320x180", out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly view cube_tets.msh exited %d: %s", rc, out);
  ENSURE(report_bodies(dir, com, 4) == 1);
  /* jelly run takes a mesh too */
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd %s && %s run %s/icosphere_320.obj --frames 6 --out run --quiet", dir, JELLY, MODELS);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly run icosphere_320.obj exited %d: %s", rc, out);
  char path[1200];
  snprintf(path, sizeof path, "%s/run/stats.csv", dir);
  char *stats = jl_test_read_file(path, NULL);
  ENSURE_MSG(stats && strstr(stats, "\n6,"), "stats.csv: %s", stats ? stats : "(missing)");
  free(stats);
  /* not a mesh either: the importer's message, exit 2 */
  snprintf(path, sizeof path, "%s/junk.obj", dir);
  ENSURE(jl_test_write_file(path, "this is not a mesh\n"));
  rc = run_view(dir, "junk.obj --frames 3", out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "junk.obj"), "exit %d: %s", rc, out);
}

/* no file and no scene in the working directory: an empty world; keys spawn, a dropped file joins */
static void test_empty_world_drop(void) {
  char out[16384];
  const char *dir = jl_test_tmpdir("empty");
  char path[1200];
  snprintf(path, sizeof path, "%s/drop.txt", dir);
  ENSURE(jl_test_write_file(
      path, "frame 1 screenshot empty.png\nframe 2 key 2\nframe 30 drop " MODELS "/icosphere_320.obj\n"));
  int rc = run_view(dir, "--frames 100 --size 640x360 --script drop.txt --screenshot dropped.png", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  char scene[1200];
  report_value(dir, "scene", scene, sizeof scene);
  ENSURE_MSG(strstr(scene, "empty world"), "scene '%s'", scene);
  double com[4][3];
  ENSURE_MSG(report_bodies(dir, com, 4) == 2, "bodies: %d", report_bodies(dir, com, 4));
  /* the dropped sphere landed on the spawned one or beside it: above the ground, not through it */
  ENSURE_MSG(com[1][1] > 0.4, "dropped body's centre at y = %g", com[1][1]);
  snprintf(path, sizeof path, "%s/empty.png", dir);
  ENSURE_MSG(near_colour(path, 255, 220, 120, 0, NULL) > 100, "no hint text on the empty world's screenshot");
  /* a scene dropped on the window replaces the world */
  snprintf(path, sizeof path, "%s/scene.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 2 drop " DATA "/viewer_ball.json\n"));
  rc = run_view(dir, "--frames 10 --size 320x180 --script scene.txt", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  report_value(dir, "scene", scene, sizeof scene);
  ENSURE_MSG(strstr(scene, "viewer_ball.json") && report_bodies(dir, com, 4) == 1, "scene '%s'", scene);
}

/* rewinding 10 frames and resuming ends bitwise where a run that never rewound ends */
static void test_rewind_bitwise(void) {
  char out[16384];
  const char *dir = jl_test_tmpdir("rewind");
  int rc = run_view(dir, DATA "/viewer_ball.json --frames 50 --size 320x180", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  char straight[64], rewound[64], t1[64], t2[64], frames[64];
  report_value(dir, "state_hash", straight, sizeof straight);
  report_value(dir, "time", t1, sizeof t1);
  /* frames 30-39: back one frame each (paused, t from 30/60 to 20/60); frame 40: resume; 30 more frames */
  char script[2048] = "", path[1200];
  for (int f = 30; f < 40; f++)
    snprintf(script + strlen(script), sizeof script - strlen(script), "frame %d key left\n", f);
  strcat(script, "frame 39 screenshot rewound.png\nframe 40 key space\n");
  snprintf(path, sizeof path, "%s/rewind.txt", dir);
  ENSURE(jl_test_write_file(path, script));
  rc = run_view(dir, DATA "/viewer_ball.json --frames 70 --size 960x540 --plots --script rewind.txt", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  report_value(dir, "state_hash", rewound, sizeof rewound);
  report_value(dir, "time", t2, sizeof t2);
  report_value(dir, "history_frames", frames, sizeof frames);
  ENSURE_MSG(strcmp(t1, t2) == 0, "times differ: %s against %s", t1, t2);
  ENSURE_MSG(straight[0] && strcmp(straight, rewound) == 0, "state after rewinding %s, straight %s", rewound, straight);
  ENSURE_MSG(atoi(frames) == 51, "history holds %s states (one per frame of 0..50/60 s)", frames);
  /* the rewound frame shows the yellow REWOUND line on the timeline */
  snprintf(path, sizeof path, "%s/rewound.png", dir);
  ENSURE_MSG(near_colour(path, 255, 220, 120, 0, "0 480 959 539") > 200, "no REWOUND line on the timeline");
  /* --history 0: no timeline, left does nothing */
  snprintf(path, sizeof path, "%s/left.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 30 key left\nframe 31 key left\nframe 32 key space\n"));
  rc =
      run_view(dir, DATA "/viewer_ball.json --frames 50 --size 320x180 --history 0 --script left.txt", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  report_value(dir, "history_frames", frames, sizeof frames);
  ENSURE_MSG(atoi(frames) == 0, "--history 0 kept %s states", frames);
}

/* the strain layer colours a pulled ball red where it stretches, with its colour bar */
static void test_strain_layer(void) {
  char out[16384];
  const char *dir = jl_test_tmpdir("strain");
  char path[1200];
  snprintf(path, sizeof path, "%s/pull.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 20 drag 640 300 640 150 30\nframe 45 screenshot strain.png\n"));
  int rc = run_view(dir, DATA "/viewer_ball.json --frames 46 --layers strain --script pull.txt", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  snprintf(path, sizeof path, "%s/strain.png", dir);
  /* the stretched cap under the grab is saturated red, the resting rest of the ball near white
   * (the ball's own colour is a coral red: neither) */
  int red = near_colour(path, 250, 60, 60, 25, "400 130 880 600"),
      white = near_colour(path, 240, 240, 240, 18, "400 130 880 600");
  ENSURE_MSG(red > 1000 && white > 500, "%d red and %d white pixels on the pulled ball", red, white);
  /* the colour bar's ends: pure red and blue stripes at the left */
  ENSURE_MSG(near_colour(path, 255, 51, 51, 2, "0 300 199 700") > 50, "no red end of the colour bar");
  ENSURE_MSG(near_colour(path, 51, 127, 255, 2, "0 300 199 700") > 50, "no blue end of the colour bar");
  /* without the layer, no such reds or whites */
  snprintf(path, sizeof path, "%s/plain.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 20 drag 640 300 640 150 30\nframe 45 screenshot plain.png\n"));
  rc = run_view(dir, DATA "/viewer_ball.json --frames 46 --script plain.txt", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  snprintf(path, sizeof path, "%s/plain.png", dir);
  red = near_colour(path, 250, 60, 60, 25, "400 130 880 600");
  white = near_colour(path, 240, 240, 240, 18, "400 130 880 600");
  ENSURE_MSG(red < 50 && white < 50, "without the layer: %d red and %d white pixels", red, white);
}

/* the live plots panel draws each series; recording writes the frames between two M presses */
static void test_plots_and_recording(void) {
  char out[16384];
  const char *dir = jl_test_tmpdir("record");
  char path[1200];
  snprintf(path, sizeof path, "%s/rec.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 5 key m\nframe 15 key m\nframe 20 key l\nframe 59 screenshot plots.png\n"));
  int rc = run_view(dir, DATA "/viewer_ball.json --frames 60 --script rec.txt", out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
  ENSURE_MSG(strstr(out, "recorded 10 frames to jelly_recording_000/"), "%s", out);
  for (int k = 0; k < 11; k++) {
    snprintf(path, sizeof path, "%s/jelly_recording_000/frame_%05d.png", dir, k);
    FILE *f = fopen(path, "rb");
    ENSURE_MSG((f != NULL) == (k < 10), "%s %s", path, f ? "exists" : "is missing");
    if (f) fclose(f);
  }
  char cmd[1400];
  if (jl_test_run("command -v ffmpeg", out, sizeof out) == 0) {
    snprintf(path, sizeof path, "%s/jelly_recording_000.mp4", dir);
    FILE *f = fopen(path, "rb");
    ENSURE_MSG(f != NULL, "ffmpeg is there but no %s", path);
    if (f) fclose(f);
  }
  /* a second recording never goes into the first's folder */
  snprintf(path, sizeof path, "%s/rec2.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 2 key m\nframe 4 key m\n"));
  rc = run_view(dir, DATA "/viewer_ball.json --frames 6 --size 320x180 --script rec2.txt", out, sizeof out);
  ENSURE_MSG(rc == 0 && strstr(out, "recorded 2 frames to jelly_recording_001/"), "exit %d: %s", rc, out);
  /* the plots panel: each series' colour is drawn at the right */
  snprintf(path, sizeof path, "%s/plots.png", dir);
  static const int colour[6][3] = {{250, 200, 90},  {110, 200, 120}, {150, 170, 255},
                                   {240, 110, 100}, {220, 140, 230}, {120, 220, 230}};
  for (int s = 0; s < 6; s++) {
    int n = near_colour(path, colour[s][0], colour[s][1], colour[s][2], 0, "900 0 1279 719");
    ENSURE_MSG(n > 60, "series %d: %d pixels of its colour", s, n);
  }
  (void)cmd;
}

/* a scripted drag that grabs nothing is an error (exit 2, in the report); no display: Jelly's message alone */
static void test_script_errors_and_display(void) {
  char out[16384];
  const char *dir = jl_test_tmpdir("errors");
  char path[1200];
  snprintf(path, sizeof path, "%s/miss.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 3 drag 5 5 50 50 5\n"));
  int rc = run_view(dir, DATA "/viewer_ball.json --frames 10 --size 320x180 --script miss.txt", out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "grabbed nothing"), "exit %d: %s", rc, out);
  char status[64], error[512];
  report_value(dir, "status", status, sizeof status);
  report_value(dir, "error", error, sizeof error);
  ENSURE_MSG(strcmp(status, "script_error") == 0 && strstr(error, "frame 3"), "status %s, error %s", status, error);
  /* interactive without any display: exit 3 with Jelly's message first and nothing of SDL's */
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER -u XDG_RUNTIME_DIR %s view %s", JELLY,
           DATA "/viewer_ball.json");
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 3 && strncmp(out, "jelly view: no display", 22) == 0 && !strstr(out, "XDG"), "exit %d: %s", rc, out);
}

#define JL_TEST_TIER JL_PROGRAM /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"open_mesh", test_open_mesh}, {"empty_world_drop", test_empty_world_drop},
             {"rewind_bitwise", test_rewind_bitwise}, {"strain_layer", test_strain_layer},
             {"plots_and_recording", test_plots_and_recording},
             {"script_errors_and_display", test_script_errors_and_display})
