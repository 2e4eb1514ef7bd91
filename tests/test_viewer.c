/* `jelly view`: the scripted viewer under Xvfb (a real X server, as a user
 * would have) and with SDL's dummy video driver (no X at all).
 *
 * The smoke test replays tests/data/drag.txt on tests/data/viewer_ball.json:
 * the ball sits at the window centre, the script grabs it there and pulls
 * it 260 pixels to the right. The viewer's --report gives the ball's centre
 * of mass before and after and the camera's right vector; the ball must have
 * moved along it. xvfb-run is required (scripts/setup.sh --test-deps
 * installs it): without it the test fails and says so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"

#define JELLY      JL_JELLY_EXE
#define DATA       JL_SOURCE_DIR "/tests/data"
#define PNG_STATS  "python3 " DATA "/png_stats.py"
#define PNG_PIXELS "python3 " DATA "/png_pixels.py"
#define SCENES     JL_SOURCE_DIR "/models/scenes"
#define HEADLESS   "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy "

typedef struct Report {
  char status[32];
  int frames, nbody, drag_body;
  double right[3], com0[8][3], com1[8][3];
  double fps, pace; /* --seconds runs: frames per second, wall per simulated second */
  double steps_per_second;
} Report;

/* dir/report.txt (jelly view --report report.txt run in dir) into r; 0 when it cannot be read */
static int read_report(const char *dir, Report *r) {
  memset(r, 0, sizeof *r);
  r->drag_body = -1;
  char path[1200];
  snprintf(path, sizeof path, "%s/report.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    int b;
    char name[128];
    double a[6];
    if (sscanf(line, "status %31s", r->status) == 1) continue;
    if (sscanf(line, "frames %d", &r->frames) == 1) continue;
    if (sscanf(line, "frames_per_second %lf", &r->fps) == 1) continue;
    if (sscanf(line, "wall_per_simulated_second %lf", &r->pace) == 1) continue;
    if (sscanf(line, "steps_per_second %lf", &r->steps_per_second) == 1) continue;
    if (sscanf(line, "camera_right %lf %lf %lf", &r->right[0], &r->right[1], &r->right[2]) == 3) continue;
    if (sscanf(line, "drag body %d", &r->drag_body) == 1) continue;
    if (sscanf(line, "body %d %127s com_start %lf %lf %lf com_end %lf %lf %lf", &b, name, &a[0], &a[1], &a[2], &a[3],
               &a[4], &a[5]) == 8 &&
        b >= 0 && b < 8) {
      memcpy(r->com0[b], a, sizeof r->com0[b]);
      memcpy(r->com1[b], a + 3, sizeof r->com1[b]);
      if (b + 1 > r->nbody) r->nbody = b + 1;
    }
  }
  fclose(f);
  return 1;
}

/* 1 when xvfb-run is there, else a test failure saying how to install it */
static int have_xvfb(void) {
  char out[1024];
  int have = jl_test_run("command -v xvfb-run", out, sizeof out) == 0;
  if (!have)
    jl_test_fail(__FILE__, __LINE__,
                 "xvfb-run is missing: install it with scripts/setup.sh --test-deps "
                 "(Debian packages xvfb and xauth); the viewer tests under X need an X server");
  return have;
}

static void test_xvfb_drag(void) {
  char out[16384], cmd[4096];
  if (!have_xvfb()) return;
  const char *dir = jl_test_tmpdir("viewer_xvfb");
  /* leak checking is off for this child only (sanitizer builds): under X11
   * SDL loads D-Bus and Mesa's DRI driver, which keep process-lifetime
   * allocations; the driver is unloaded at exit so LeakSanitizer cannot even
   * name it for a suppression. The dummy-driver tests below run the same
   * viewer code with leak checking on. */
  snprintf(cmd, sizeof cmd,
           "cd %s && LSAN_OPTIONS=detect_leaks=0 xvfb-run -a -s '-screen 0 1280x720x24' %s view " DATA
           "/viewer_ball.json "
           "--frames 120 --script " DATA "/drag.txt --screenshot out.png --report report.txt",
           dir, JELLY);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly view under xvfb-run exited %d: %s", rc, out);
  Report r;
  ENSURE_MSG(read_report(dir, &r), "no report in %s", dir);
  ENSURE(strcmp(r.status, "ok") == 0);
  ENSURE(r.frames == 120 && r.nbody == 1 && r.drag_body == 0);
  /* moved along the camera's right vector (the drag direction on screen) */
  double d[3], along = 0, len = 0;
  for (int k = 0; k < 3; k++) {
    d[k] = r.com1[0][k] - r.com0[0][k];
    along += d[k] * r.right[k];
    len += d[k] * d[k];
  }
  len = sqrt(len);
  ENSURE_MSG(along > 0.15, "ball moved %.3g m along the drag direction", along);
  ENSURE_MSG(along > 0.8 * len, "ball moved %.3g m in all, only %.3g m along the drag", len, along);
  /* the screenshot is the window's size and not blank */
  snprintf(cmd, sizeof cmd, PNG_STATS " %s/out.png", dir);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0, "%s", out);
  int w, h, ncol;
  double frac;
  ENSURE(sscanf(out, "%d %d %d %lf", &w, &h, &ncol, &frac) == 4);
  ENSURE_MSG(w == 1280 && h == 720, "screenshot %dx%d", w, h);
  ENSURE_MSG(ncol > 100 && frac > 0.2, "screenshot looks blank: %s", out);
}

/* `jelly view viewer_ball.json ARGS --report report.txt` under Xvfb in the
 * folder of tag, with script (NULL: none) as keys.txt and --script keys.txt;
 * its exit code, its output in out and the report in *r (all zero when
 * there is none) */
static int xvfb_view(const char *tag, const char *script, const char *args, Report *r, char *out, size_t outsz) {
  char cmd[4096], path[1200];
  const char *dir = jl_test_tmpdir(tag);
  if (script) {
    snprintf(path, sizeof path, "%s/keys.txt", dir);
    if (!jl_test_write_file(path, script)) return -1;
  }
  snprintf(cmd, sizeof cmd,
           "cd %s && LSAN_OPTIONS=detect_leaks=0 xvfb-run -a -s '-screen 0 1280x720x24' %s view " DATA
           "/viewer_ball.json %s%s --report report.txt",
           dir, JELLY, args, script ? " --script keys.txt" : "");
  int rc = jl_test_run(cmd, out, outsz);
  if (!read_report(dir, r)) memset(r, 0, sizeof *r);
  return rc;
}

/* --seconds: the interactive loop (real-time pacing) for a fixed wall time;
 * a spawned body is meshed on a worker thread while the window goes on and
 * joins the world when ready, and the report has the frame rate and pace */
static void test_xvfb_seconds_spawn(void) {
  char out[16384], cmd[4096];
  if (!have_xvfb()) return;
  Report r;
  int rc =
      xvfb_view("viewer_seconds", "frame 3 key 1\nframe 4 key 2\n", "--seconds 4 --size 640x360", &r, out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly view --seconds exited %d: %s", rc, out);
  ENSURE_MSG(r.status[0], "no report: %s", out);
  ENSURE(strcmp(r.status, "ok") == 0);
  /* the box was spawned; the sphere's key came while the box was meshing
   * ("still meshing") or after it: one or two new bodies, never a crash */
  ENSURE_MSG(r.nbody == 2 || r.nbody == 3, "%d bodies after spawning", r.nbody);
  ENSURE_MSG(r.frames > 5 && r.fps > 1.0 && r.pace > 0.0, "frames %d, fps %g, pace %g", r.frames, r.fps, r.pace);
  /* --seconds and --frames exclude each other */
  snprintf(cmd, sizeof cmd, "%s view " DATA "/viewer_ball.json --seconds 2 --frames 5", JELLY);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "exclude each other"), "exit %d: %s", rc, out);
}

/* Interactive runs step on a worker thread while the window draws. The
 * window holds the world for what reads or changes it: a drag (picking, the
 * target each frame, the release), keys, the contacts layer (drawn from the
 * contact element), a single step while paused. The ball must follow the
 * drag as in the scripted run; a step that diverges on the worker pauses the
 * viewer with the world's message (explicit Euler far above its stable
 * step). */
static void test_xvfb_seconds_worker(void) {
  char out[16384];
  if (!have_xvfb()) return;
  Report r;
  int rc = xvfb_view("viewer_worker",
                     "frame 5 key c\nframe 10 drag 640 360 900 360 30\nframe 50 key space\n"
                     "frame 52 key n\nframe 54 key n\nframe 56 key space\nframe 58 key c\n",
                     "--seconds 4", &r, out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly view --seconds exited %d: %s", rc, out);
  ENSURE_MSG(strcmp(r.status, "ok") == 0, "status %s: %s", r.status, out);
  ENSURE_MSG(r.drag_body == 0, "the drag picked body %d", r.drag_body);
  ENSURE_MSG(r.frames > 60 && r.steps_per_second > 0.0, "frames %d, steps per second %g", r.frames, r.steps_per_second);
  /* pulled to the right (the camera's right vector), as in the scripted drag */
  double along = 0.0;
  for (int k = 0; k < 3; k++) along += (r.com1[0][k] - r.com0[0][k]) * r.right[k];
  ENSURE_MSG(along > 0.05, "the ball moved %g m along the drag", along);

  /* a diverging step on the worker: paused, the message printed and reported */
  rc = xvfb_view("viewer_worker_diverge", NULL, "--seconds 2 --integrator euler --dt 0.01", &r, out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly view --seconds (diverging) exited %d: %s", rc, out);
  ENSURE_MSG(strcmp(r.status, "diverged") == 0 && strstr(out, "jelly view: "), "status %s: %s", r.status, out);
}

static void test_dummy_driver(void) {
  char out[16384], cmd[4096];
  const char *dir = jl_test_tmpdir("viewer_dummy");
  /* spawn a sphere (key 2), toggle gravity twice, cycle the integrator back */
  char script[1200];
  snprintf(script, sizeof script, "%s/keys.txt", dir);
  ENSURE(jl_test_write_file(script,
                            "frame 2 key 2\nframe 4 key g\nframe 6 key g\nframe 8 key h\nframe 9 key t\n"
                            "frame 10 screenshot mid.png\n"));
  snprintf(cmd, sizeof cmd,
           "cd %s && env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy %s view " DATA
           "/viewer_ball.json --frames 20 --size 640x360 --script keys.txt --screenshot out.png "
           "--report report.txt",
           dir, JELLY);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0, "jelly view with the dummy driver exited %d: %s", rc, out);
  Report r;
  ENSURE(read_report(dir, &r));
  ENSURE_MSG(r.nbody == 2, "spawned body missing: %d bodies", r.nbody);
  ENSURE(strcmp(r.status, "ok") == 0);
  /* the spawned sphere fell (gravity back on), the ball stayed on the ground */
  ENSURE_NEAR(r.com1[0][1], 0.3, 0.05);
  for (const char *const *name = (const char *const[]){"out.png", "mid.png", NULL}; *name; name++) {
    snprintf(cmd, sizeof cmd, PNG_STATS " %s/%s", dir, *name);
    rc = jl_test_run(cmd, out, sizeof out);
    ENSURE_MSG(rc == 0, "%s: %s", *name, out);
    int w, h, ncol;
    double frac;
    ENSURE(sscanf(out, "%d %d %d %lf", &w, &h, &ncol, &frac) == 4);
    ENSURE_MSG(w == 640 && h == 360 && ncol > 50, "%s: %s", *name, out);
  }
}

static void test_divergence_recovers(void) {
  /* forward Euler at 1/60 s on a stiff ball diverges: the viewer pauses,
   * reports it and exits 1 in scripted mode, without crashing */
  char out[16384], cmd[4096];
  const char *dir = jl_test_tmpdir("viewer_diverge");
  snprintf(cmd, sizeof cmd,
           "cd %s && env -u DISPLAY SDL_VIDEODRIVER=dummy %s view " DATA
           "/viewer_ball.json "
           "--frames 30 --size 320x180 --integrator euler --report report.txt",
           dir, JELLY);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 1, "expected exit 1 after divergence, got %d: %s", rc, out);
  ENSURE_MSG(strstr(out, "diverged") != NULL, "%s", out);
  Report r;
  ENSURE(read_report(dir, &r));
  ENSURE(strcmp(r.status, "diverged") == 0);
  ENSURE(isfinite(r.com1[0][0]) && isfinite(r.com1[0][1]));
}

static void test_bad_input(void) {
  char out[8192], cmd[4096];
  const char *dir = jl_test_tmpdir("viewer_bad");
  char script[1200];
  snprintf(script, sizeof script, "%s/bad.txt", dir);
  ENSURE(jl_test_write_file(script, "# comment\nframe 3 key space\nframe 5 jump 1 2\n"));
  snprintf(cmd, sizeof cmd,
           "env -u DISPLAY SDL_VIDEODRIVER=dummy %s view " DATA "/viewer_ball.json --frames 5 --script %s", JELLY,
           script);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "bad.txt:3") && strstr(out, "jump"), "exit %d: %s", rc, out);
  snprintf(cmd, sizeof cmd, "%s view " DATA "/viewer_ball.json --frames 5 --size 10x10", JELLY);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "--size"), "exit %d: %s", rc, out);
  snprintf(cmd, sizeof cmd, "%s view /nonexistent.json --frames 5", JELLY);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "nonexistent.json"), "exit %d: %s", rc, out);
  /* no display and no dummy driver: a clear message, exit 3 (the system refused) */
  snprintf(cmd, sizeof cmd,
           "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11 %s view " DATA "/viewer_ball.json --frames 5", JELLY);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 3 && strstr(out, "no display: use `jelly render`"), "exit %d: %s", rc, out);
}

/* png_pixels.py MODE ARGS: the first line's numbers into v (up to n) */
static int pixels(const char *args, int *v, int n) {
  char cmd[4096], out[4096];
  snprintf(cmd, sizeof cmd, PNG_PIXELS " %s", args);
  if (jl_test_run(cmd, out, sizeof out) != 0) {
    fprintf(stderr, "%s\n", out);
    return 0;
  }
  int k = 0, used = 0;
  const char *p = out;
  while (k < n && sscanf(p, "%d%n", &v[k], &used) == 1) p += used, k++;
  return k == n;
}

/* drop.json's ball falls and rolls away. The viewer's camera follows it
 * (its centre stays in the middle half of the window) until the user moves
 * the camera (a scripted zoom: the view then stays put and the ball ends
 * near the bottom edge); F frames the bodies and follows again. */
static void test_camera_follows(void) {
  char cmd[4096], out[8192], args[1200];
  const char *dir = jl_test_tmpdir("viewer_follow");
  static const char *const scripts[3][2] = {
      {"follow", ""}, {"user", "frame 0 zoom 1\n"}, {"refollow", "frame 0 zoom 1\nframe 40 key f\n"}};
  for (int k = 0; k < 3; k++) {
    char script[1200];
    snprintf(script, sizeof script, "%s/%s.txt", dir, scripts[k][0]);
    ENSURE(jl_test_write_file(script, scripts[k][1]));
    snprintf(cmd, sizeof cmd,
             "cd %s && " HEADLESS "%s view " SCENES
             "/drop.json --frames 80 --size 320x240 "
             "--script %s.txt --screenshot %s.png",
             dir, JELLY, scripts[k][0], scripts[k][0]);
    ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
    int b[7];
    snprintf(args, sizeof args, "bodies %s/%s.png", dir, scripts[k][0]);
    ENSURE(pixels(args, b, 7));
    double cx = 0.5 * (b[1] + b[3]), cy = 0.5 * (b[2] + b[4]);
    int middle = cx > 80 && cx < 240 && cy > 60 && cy < 180;
    printf("  %s: ball centre at (%.0f, %.0f) of 320x240, %d px\n", scripts[k][0], cx, cy, b[0]);
    ENSURE_MSG(b[0] > 1000, "%s: ball not in the picture (%d px)", scripts[k][0], b[0]);
    ENSURE_MSG(middle == (k != 1), "%s: ball centre at (%.0f, %.0f)", scripts[k][0], cx, cy);
  }
}

/* writes `text` to dir/name and runs `jelly view <args> --script name`
 * headless in dir: the exit code (-1 when the script cannot be written),
 * the output in out */
static int view_script(const char *dir, const char *name, const char *text, const char *args, char *out, size_t outsz) {
  char script[1200], cmd[4096];
  snprintf(script, sizeof script, "%s/%s", dir, name);
  if (!jl_test_write_file(script, text)) return -1;
  snprintf(cmd, sizeof cmd, "cd %s && " HEADLESS "%s view %s --script %s", dir, JELLY, args, name);
  return jl_test_run(cmd, out, outsz);
}

/* stiff.json with forward Euler diverges: in a 320x240 window the message
 * (red) is broken at spaces inside the window, no text pixel (red or the
 * HUD's white, the help included) comes near the right edge, and the
 * message names one time. */
static void test_divergence_message(void) {
  char out[16384], args[1200];
  const char *dir = jl_test_tmpdir("viewer_message");
  int rc = view_script(dir, "help.txt", "frame 13 screenshot msg.png\nframe 14 key h\n",
                       SCENES "/stiff.json --integrator euler --frames 15 --size 320x240 --screenshot help.png", out,
                       sizeof out);
  ENSURE_MSG(rc == 1, "expected exit 1 after divergence, got %d: %s", rc, out);
  const char *line = strstr(out, "jelly view: ");
  ENSURE_MSG(line && strstr(line, "diverged"), "%s", out);
  int times = 0;
  for (const char *p = line; (p = strstr(p, "t = ")) != NULL && p < line + strcspn(line, "\n"); p++) times++;
  ENSURE_MSG(times == 1, "the message names %d times: %.*s", times, (int)strcspn(line, "\n"), line);
  /* msg.png: the message (red) and the HUD (white); help.png: the key help over them (white) */
  static const int colours[3][3] = {{255, 110, 100}, {235, 238, 242}, {235, 238, 242}};
  for (int k = 0; k < 3; k++) {
    int v[7];
    const char *png = k < 2 ? "msg" : "help";
    snprintf(args, sizeof args, "colour %s/%s.png %d %d %d", dir, png, colours[k][0], colours[k][1], colours[k][2]);
    ENSURE(pixels(args, v, 7));
    printf("  %s.png, text colour %d %d %d: %d px, x %d..%d of %d\n", png, colours[k][0], colours[k][1], colours[k][2],
           v[0], v[1], v[3], v[5]);
    ENSURE_MSG(v[0] > 200, "no text in colour %d %d %d", colours[k][0], colours[k][1], colours[k][2]);
    ENSURE_MSG(v[3] < v[5] - 6, "text reaches x = %d of a %d px window", v[3], v[5]);
  }
}

/* The drag spring is drawn while dragging: a fast scripted drag (the stiff
 * spring's point then trails the cursor) shows a cyan band
 * (src/cli/viewer_hud.c, jl_viewer_draw_drag) at least 2 px thick and tens of pixels long mid-drag, and
 * nothing once released. */
static void test_drag_spring_drawn(void) {
  char out[8192], args[1200];
  const char *dir = jl_test_tmpdir("viewer_spring");
  int rc = view_script(dir, "drag.txt", "frame 5 drag 160 120 250 150 2\nframe 7 screenshot mid.png\n",
                       DATA "/viewer_ball.json --frames 10 --size 320x240 --screenshot after.png", out, sizeof out);
  ENSURE_MSG(rc == 0, "%s", out);
  int v[8];
  snprintf(args, sizeof args, "colour %s/mid.png 0 235 255", dir);
  ENSURE(pixels(args, v, 8));
  double len = sqrt((double)(v[3] - v[1]) * (v[3] - v[1]) + (double)(v[4] - v[2]) * (v[4] - v[2]));
  printf("  spring: %d px from (%d, %d) to (%d, %d), %d px thick across its middle\n", v[0], v[1], v[2], v[3], v[4],
         v[7]);
  ENSURE_MSG(v[0] > 0, "no drag spring pixels mid-drag");
  ENSURE_MSG(len > 20, "drag spring only %.0f px long", len);
  ENSURE_MSG(v[7] >= 2, "drag spring %d px thick", v[7]);
  snprintf(args, sizeof args, "colour %s/after.png 0 235 255", dir);
  ENSURE(pixels(args, v, 1));
  ENSURE_MSG(v[0] == 0, "drag spring still drawn after the release (%d px)", v[0]);
}

/* A scene without dt: pressing I (implicit -> symplectic) gives the explicit
 * integrator its stable default step, as `jelly run --integrator` does; it
 * used to keep the implicit 1/60 s and diverge at once. With the scene's own
 * dt the step is kept (and symplectic Euler diverges on it). */
static void test_integrator_key_default_dt(void) {
  char cmd[4096], out[8192], path[1200];
  const char *dir = jl_test_tmpdir("viewer_integrator");
  snprintf(path, sizeof path, "%s/nodt.json", dir);
  ENSURE(jl_test_write_file(path,
                            "{\"fps\": 30, \"ground\": {\"y\": 0},"
                            " \"bodies\": [{\"shape\": {\"type\": \"box\", \"size\": [0.2, 0.2, 0.2],"
                            " \"resolution\": 0.1}, \"young_modulus\": 1e5, \"translate\": [0, 0.15, 0]}]}"));
  snprintf(path, sizeof path, "%s/keys.txt", dir);
  ENSURE(jl_test_write_file(path, "frame 1 key i\n"));
  snprintf(cmd, sizeof cmd,
           "cd %s && " HEADLESS
           "%s view nodt.json --frames 12 --size 64x48 --script keys.txt "
           "--report report.txt",
           dir, JELLY);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0 && !strstr(out, "diverged"), "symplectic at its default step: exit %d: %s", rc, out);
  /* the scene's dt is kept: 1/60 s is far beyond symplectic Euler's limit here */
  snprintf(path, sizeof path, "%s/dt.json", dir);
  ENSURE(jl_test_write_file(path,
                            "{\"fps\": 30, \"dt\": 0.0166666, \"ground\": {\"y\": 0},"
                            " \"bodies\": [{\"shape\": {\"type\": \"box\", \"size\": [0.2, 0.2, 0.2],"
                            " \"resolution\": 0.1}, \"young_modulus\": 1e5, \"translate\": [0, 0.15, 0]}]}"));
  snprintf(cmd, sizeof cmd, "cd %s && " HEADLESS "%s view dt.json --frames 12 --size 64x48 --script keys.txt", dir,
           JELLY);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 1 && strstr(out, "diverged"), "symplectic at the scene's 1/60 s: exit %d: %s", rc, out);
}

#define JL_TEST_TIER JL_PROGRAM /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"xvfb_drag", test_xvfb_drag}, {"xvfb_seconds_spawn", test_xvfb_seconds_spawn},
             {"xvfb_seconds_worker", test_xvfb_seconds_worker}, {"dummy_driver", test_dummy_driver},
             {"divergence_recovers", test_divergence_recovers}, {"bad_input", test_bad_input},
             {"camera_follows", test_camera_follows}, {"divergence_message", test_divergence_message},
             {"drag_spring_drawn", test_drag_spring_drawn},
             {"integrator_key_default_dt", test_integrator_key_default_dt})
