/* `jelly render`: headless PNG frames of a simulated scene.
 *
 *   jelly render [SCENE] [--out DIR] [--size WxH] [--frames N]
 *                [--camera EX,EY,EZ,TX,TY,TZ] [--layers LIST] [--no-movie]
 *
 * Simulates like `jelly run` (same frame and step splitting) and draws every
 * output frame with render/ into DIR/frame_NNNN.png through SDL's software
 * renderer: no display, no video driver. With ffmpeg on PATH it also encodes
 * DIR/movie.mp4. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/render.h"
#include "src/cli.h"
#include "src/scene.h"

#define DEFAULT_SCENE "models/scenes/default.json"

int jl_cli_parse_size(const char *cmd, const char *text, int *w, int *h) {
  char *end = NULL;
  long a = text ? strtol(text, &end, 10) : 0, b = 0;
  int ok = text && end != text && (*end == 'x' || *end == 'X');
  if (ok) {
    const char *p = end + 1;
    b = strtol(p, &end, 10);
    ok = end != p && *end == '\0' && a >= 16 && a <= 16384 && b >= 16 && b <= 16384;
  }
  if (!ok) {
    fprintf(stderr, "jelly %s: --size expects WIDTHxHEIGHT with each from 16 to 16384, e.g. 1280x720, got '%s'\n",
            cmd, text ? text : "(nothing)");
    return 0;
  }
  *w = (int)a, *h = (int)b;
  return 1;
}

int jl_cli_parse_layers(const char *cmd, const char *text, unsigned *layers) {
  static const char *const names[JL_LAYER_COUNT] = {"wireframe", "tets", "springs", "contacts",
                                                    "pins", "obstacles", "velocity"};
  *layers = 0;
  const char *p = text;
  while (p && *p) {
    size_t n = strcspn(p, ",");
    int found = 0;
    for (int k = 0; k < JL_LAYER_COUNT; k++)
      if (strlen(names[k]) == n && strncmp(p, names[k], n) == 0) *layers |= 1u << k, found = 1;
    if (!found) {
      fprintf(stderr, "jelly %s: unknown layer '%.*s' in --layers (wireframe, tets, springs, "
                      "contacts, pins, obstacles, velocity)\n", cmd, (int)n, p);
      return 0;
    }
    p += n;
    if (*p == ',') p++;
  }
  return 1;
}

/* "ex,ey,ez,tx,ty,tz" */
static int parse_camera(const char *text, double eye[3], double target[3]) {
  double v[6];
  const char *p = text;
  int n = 0;
  while (n < 6) {
    char *end = NULL;
    errno = 0;
    v[n] = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v[n])) break;
    n++;
    p = end;
    if (n < 6) {
      if (*p != ',') break;
      p++;
    }
  }
  double d = 0;
  if (n == 6 && *p == '\0') d = fabs(v[0] - v[3]) + fabs(v[1] - v[4]) + fabs(v[2] - v[5]);
  if (n != 6 || *p != '\0' || !(d > 0)) {
    fprintf(stderr, "jelly render: --camera expects six numbers EX,EY,EZ,TX,TY,TZ (eye, then the "
                    "target it looks at; they must differ), got '%s'\n", text);
    return 0;
  }
  memcpy(eye, v, 3 * sizeof(double));
  memcpy(target, v + 3, 3 * sizeof(double));
  return 1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: jelly render [SCENE] [--out DIR] [--size WxH] [--frames N]\n"
          "                    [--camera EX,EY,EZ,TX,TY,TZ] [--layers LIST] [--no-movie]\n"
          "\n"
          "Simulates SCENE (default " DEFAULT_SCENE ") and writes DIR/frame_NNNN.png for\n"
          "frames 0..N (N defaults to duration x fps) without a display. DIR defaults to\n"
          "out/<scene name>. --size defaults to 1280x720; --camera places the eye and its\n"
          "target (default: frame all bodies from a 3/4 view); --layers turns on debug layers\n"
          "(wireframe,tets,springs,contacts,pins,obstacles,velocity). If ffmpeg is on PATH\n"
          "also DIR/movie.mp4 (unless --no-movie). Exit 0 ok, 1 diverged, 2 bad input.\n");
}

static int have_ffmpeg(void) {
  return system("command -v ffmpeg >/dev/null 2>&1") == 0;
}

int jl_cli_render(int argc, char **argv) {
  const char *scene = NULL, *out = NULL;
  int width = 1280, height = 720, frames = -1, has_cam = 0, movie = 1;
  unsigned layers = 0;
  double eye[3], target[3];
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(s, "--no-movie") == 0) {
      movie = 0;
    } else if (strcmp(s, "--out") == 0 || strcmp(s, "--size") == 0 || strcmp(s, "--frames") == 0 ||
               strcmp(s, "--camera") == 0 || strcmp(s, "--layers") == 0) {
      if (!val) {
        fprintf(stderr, "jelly render: %s needs a value\n", s);
        return 2;
      }
      i++;
      if (strcmp(s, "--out") == 0) {
        if (!*val) {
          fprintf(stderr, "jelly render: --out needs a folder name\n");
          return 2;
        }
        out = val;
      } else if (strcmp(s, "--size") == 0) {
        if (!jl_cli_parse_size("render", val, &width, &height)) return 2;
      } else if (strcmp(s, "--frames") == 0) {
        if (!jl_cli_parse_int("render", s, val, 0, 1000000, &frames)) return 2;
      } else if (strcmp(s, "--camera") == 0) {
        if (!parse_camera(val, eye, target)) return 2;
        has_cam = 1;
      } else if (!jl_cli_parse_layers("render", val, &layers)) {
        return 2;
      }
    } else if (s[0] == '-' && s[1] != '\0') {
      fprintf(stderr, "jelly render: unknown option '%s' (see jelly render --help)\n", s);
      return 2;
    } else if (!scene) {
      scene = s;
    } else {
      fprintf(stderr, "jelly render: more than one scene given ('%s' and '%s')\n", scene, s);
      return 2;
    }
  }
  char buf[4200], err[4096];
  const char *path = scene ? scene : jl_cli_default_scene(buf, sizeof buf);
  JlScene sc;
  if (jl_scene_load(path, &sc, err, sizeof err)) {
    fprintf(stderr, "jelly render: %s\n", err);
    return 2;
  }
  char outdir[4096];
  if (out) {
    snprintf(outdir, sizeof outdir, "%s", out);
  } else {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(outdir, sizeof outdir, "out/%.*s", (int)strcspn(base, "."), base);
  }
  int nframes = frames >= 0 ? frames : (int)ceil(sc.duration * sc.fps - 1e-9);
  double frame_dt = 1.0 / sc.fps;
  int steps = (int)ceil(frame_dt / sc.dt - 1e-9);
  if (steps < 1) steps = 1;
  double h = frame_dt / steps;

  JlModel model;
  JlResult r = jl_scene_build(&sc, &model, stderr, err, sizeof err);
  if (r) {
    fprintf(stderr, "jelly render: %s\n", err);
    jl_scene_free(&sc);
    return r;
  }
  JlWorld w;
  r = jl_world_create(&w, &model, &sc.step, err, sizeof err);
  if (r) {
    fprintf(stderr, "jelly render: %s\n", err);
    jl_model_free(&model);
    jl_scene_free(&sc);
    return r;
  }
  JlRenderer *ren = NULL;
  int status = 0;
  if (jl_cli_make_dirs(outdir) != 0) {
    fprintf(stderr, "jelly render: cannot create output folder '%s': %s\n", outdir, strerror(errno));
    status = 2;
    goto done;
  }
  if (jl_renderer_create_headless(&ren, width, height, err, sizeof err)) {
    fprintf(stderr, "jelly render: %s\n", err);
    status = 1;
    goto done;
  }
  JlCamera cam = {{0, 0, 0}, 0, 0, 1, 40};
  if (has_cam) {
    jl_camera_look(&cam, eye, target);
  } else {
    double lo[3], hi[3];
    jl_camera_world_box(&w, lo, hi);
    jl_camera_frame(&cam, lo, hi, (double)width / height);
  }
  JlRenderOptions opt = jl_default_render_options();
  opt.layers = layers;
  int written = 0;
  for (int f = 0; f <= nframes; f++) {
    for (int k = 0; f > 0 && k < steps; k++) {
      JlStepReport rep;
      if (jl_world_step(&w, h, &rep)) {
        fprintf(stderr, "jelly render: diverged in frame %d: %s\n", f, rep.message);
        status = 1;
        break;
      }
    }
    if (status) break;
    jl_render_world(ren, &w, &cam, &opt);
    char png[4200];
    snprintf(png, sizeof png, "%s/frame_%04d.png", outdir, f);
    if (jl_renderer_write_png(ren, png, err, sizeof err)) {
      fprintf(stderr, "jelly render: %s\n", err);
      status = 2;
      break;
    }
    written++;
  }
  printf("wrote      %d frames %dx%d to %s/frame_NNNN.png\n", written, width, height, outdir);
  if (status == 0 && movie && written > 1 && have_ffmpeg()) {
    char cmd[9000];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -y -loglevel error -framerate %g -i '%s/frame_%%04d.png' -pix_fmt yuv420p "
             "-vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' '%s/movie.mp4'",
             sc.fps, outdir, outdir);
    if (strchr(outdir, '\'') == NULL && system(cmd) == 0)
      printf("wrote      %s/movie.mp4\n", outdir);
    else
      fprintf(stderr, "jelly render: ffmpeg failed; the PNG frames are complete\n");
  }
done:
  jl_renderer_destroy(ren);
  jl_world_destroy(&w);
  jl_scene_free(&sc);
  return status;
}
