/* `jelly render`: headless PNG frames of a simulated scene.
 *
 *   jelly render [SCENE] [--out DIR] [--size WxH] [--frames N]
 *                [--camera EX,EY,EZ,TX,TY,TZ] [--layers LIST] [--no-movie]
 *
 * Simulates like `jelly run` (same frame and step splitting) and draws every
 * output frame with render/ into DIR/frame_NNNN.png through SDL's software
 * renderer: no display, no video driver. With ffmpeg on PATH it also encodes
 * DIR/movie.mp4 from this render's frames (-frames:v: never a file beyond
 * them).
 *
 * The output folder is kept as `jelly run` keeps it (src/cli/cli_run_manifest.c):
 * DIR/jelly_manifest.txt lists what the render wrote. A render first deletes
 * exactly the files the folder's manifest lists (an earlier render's frames
 * and movie, or an earlier `jelly run`'s files: a folder holds one command's
 * output at a time), lists every file it may write before writing any, and
 * at the end lists what it wrote; a folder with frames, scene .pvd files or
 * movie.mp4 but no manifest is refused (exit 2) before anything is built.
 *
 * Ctrl-C or SIGTERM (src/cli/cli_signal.c) stops the render before its next
 * step: the frame in progress is dropped, the PNG frames already written stay
 * and the manifest lists them, no movie is made, the render says so on
 * stderr and exits 130. A second signal exits 130 at once. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/render.h"
#include "src/cli/cli.h"
#include "src/cli/cli_run_internal.h"
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
    fprintf(stderr, "jelly %s: --size expects WIDTHxHEIGHT with each from 16 to 16384, e.g. 1280x720, got '%s'\n", cmd,
            text ? text : "(nothing)");
    return 0;
  }
  *w = (int)a, *h = (int)b;
  return 1;
}

int jl_cli_parse_layers(const char *cmd, const char *text, unsigned *layers) {
  static const char *const names[JL_LAYER_COUNT] = {"wireframe", "tets",      "springs",  "contacts",
                                                    "pins",      "obstacles", "velocity", "strain"};
  *layers = 0;
  const char *p = text;
  while (p && *p) {
    size_t n = strcspn(p, ",");
    int found = 0;
    for (int k = 0; k < JL_LAYER_COUNT; k++)
      if (strlen(names[k]) == n && strncmp(p, names[k], n) == 0) *layers |= 1u << k, found = 1;
    if (!found) {
      fprintf(stderr,
              "jelly %s: unknown layer '%.*s' in --layers (wireframe, tets, springs, "
              "contacts, pins, obstacles, velocity, strain)\n",
              cmd, (int)n, p);
      return 0;
    }
    p += n;
    if (*p == ',') p++;
  }
  return 1;
}

int jl_cli_size_flag(const char *cmd, const char *flag, const char *value, void *dst) {
  (void)flag;
  int *size = dst;
  return jl_cli_parse_size(cmd, value, &size[0], &size[1]);
}

int jl_cli_layers_flag(const char *cmd, const char *flag, const char *value, void *dst) {
  (void)flag;
  return jl_cli_parse_layers(cmd, value, dst);
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
    fprintf(stderr,
            "jelly render: --camera expects six numbers EX,EY,EZ,TX,TY,TZ (eye, then the "
            "target it looks at; they must differ), got '%s'\n",
            text);
    return 0;
  }
  memcpy(eye, v, 3 * sizeof(double));
  memcpy(target, v + 3, 3 * sizeof(double));
  return 1;
}

/* --camera: the eye, the target and that one was given */
typedef struct Camera {
  double *eye, *target;
  int *given;
} Camera;
static int camera_flag(const char *cmd, const char *flag, const char *value, void *dst) {
  (void)cmd, (void)flag;
  Camera *c = dst;
  if (!parse_camera(value, c->eye, c->target)) return 0;
  *c->given = 1;
  return 1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: jelly render [SCENE] [--out DIR] [--size WxH] [--frames N]\n"
          "                    [--camera EX,EY,EZ,TX,TY,TZ] [--layers LIST] [--no-movie]\n"
          "                    [--quiet]\n"
          "                    [--dt S] [--fps F] [--integrator NAME] [--threads N]\n"
          "                    [--mesh-timeout S] [--mesh-memory MB] [--mesh-max-file MB]\n"
          "\n"
          "Simulates SCENE (default " DEFAULT_SCENE
          "; or a mesh, dropped on the\n"
          "ground) like `jelly run` and writes\n"
          "DIR/frame_NNNN.png for frames 0..N without a display, DIR/movie.mp4 when\n"
          "ffmpeg is on PATH, and DIR/" MANIFEST
          ", the files written.\n"
          "A render first deletes the files DIR's manifest lists (an earlier run's or\n"
          "render's); it refuses a DIR with frames but no manifest.\n"
          "\n"
          "  --out DIR    output folder (default out/<scene name>)\n"
          "  --size WxH   image size (default 1280x720)\n"
          "  --frames N   output frames after frame 0 (default: the scene's duration x fps)\n"
          "  --camera EX,EY,EZ,TX,TY,TZ  a fixed eye and the target it looks at (default:\n"
          "               a 3/4 view that follows the bodies)\n"
          "  --layers LIST debug layers: wireframe,tets,springs,contacts,pins,obstacles,\n"
          "               velocity,strain\n"
          "  --no-movie   no movie.mp4\n"
          "  --quiet      print nothing on success (warnings and errors still go to stderr)\n" JL_CLI_SIM_HELP
              JL_CLI_MESH_LIMITS_HELP "\n" JL_CLI_EXIT_HELP);
}

/* why no movie.mp4 can be made, or NULL when ffmpeg is there */
static const char *movie_obstacle(void) {
  return system("command -v ffmpeg >/dev/null 2>&1") == 0 ? NULL : "ffmpeg is not on PATH";
}

int jl_cli_render(int argc, char **argv) {
  const char *scene = NULL, *out = NULL;
  int width = 1280, height = 720, has_cam = 0, movie = 1, quiet = 0;
  unsigned layers = 0;
  double eye[3], target[3];
  JlCliSim sim;
  jl_cli_sim_init(&sim);
  /* every frame's PNG is planned (and listed in the manifest) before the render starts, as in jelly run */
  sim.max_frames = 1000000;
  int size[2] = {width, height}, no_movie = 0;
  Camera cam_flag = {eye, target, &has_cam};
  const JlCliFlag flags[] = {
      JL_CLI_FLAG_TEXT("--out", &out, "folder name"),
      JL_CLI_FLAG_CALL("--size", size, jl_cli_size_flag),
      JL_CLI_FLAG_INT("--frames", &sim.frames, 0, 1000000),
      JL_CLI_FLAG_CALL("--camera", &cam_flag, camera_flag),
      JL_CLI_FLAG_CALL("--layers", &layers, jl_cli_layers_flag),
      JL_CLI_FLAG_SWITCH("--no-movie", &no_movie),
      JL_CLI_FLAG_SWITCH("--quiet", &quiet),
  };
  JlCliSpec spec = {"render", flags, (int)(sizeof flags / sizeof flags[0]), &sim, &scene, "scene", usage};
  int rc = jl_cli_parse(&spec, argc, argv);
  if (rc != JL_CLI_GO) return rc;
  width = size[0], height = size[1], movie = !no_movie;
  char buf[4200], err[4096];
  const char *path = scene ? scene : jl_cli_default_scene(buf, sizeof buf);
  char outdir[4096];
  jl_cli_out_dir(path, out, outdir, sizeof outdir);
  /* an earlier run or render in DIR: its manifest, or a refusal before anything is built */
  Names old = {0};
  int has_manifest = run_manifest_read(outdir, &old, "render");
  if (has_manifest < 0 || (has_manifest == 0 && run_foreign_files(outdir, "render"))) return JL_ERR_INPUT;
  JlScene sc;
  JlWorld w;
  JlCliTiming tm;
  JlResult r = jl_cli_start("render", path, scene != NULL, &sim, outdir, quiet, &sc, &w, &tm);
  if (r) {
    run_names_free(&old);
    return r;
  }
  /* from here on Ctrl-C and SIGTERM end the render at the next step, its manifest written */
  jl_cli_catch_interrupts();
  int tty = isatty(STDERR_FILENO) && !quiet;
  int nframes = tm.nframes, steps = tm.steps;
  double h = tm.h;
  JlRenderer *ren = NULL;
  int status = 0, written = 0;
  double wall = 0;
  long steps_total = 0, cg_total = 0;
  /* the earlier run's or render's files go; the manifest lists what this render may write before it writes
   * anything, then (below) what it wrote */
  Names none = {0}, planned = {0}, wrote = {0};
  char name[64];
  int other = run_names_other(&old, "render");
  if (other > 0 && !quiet)
    fprintf(stderr, "jelly render: note: deleting the %d files of the jelly run in '%s' first\n", other, outdir);
  if (run_manifest_clean(outdir, &old, -1, NULL, &none, "render") != 0) status = JL_ERR_SYSTEM;
  run_names_free(&old);
  for (int f = 0; f <= nframes; f++) {
    snprintf(name, sizeof name, "frame_%04d.png", f);
    run_names_add(&planned, name);
  }
  if (movie) run_names_add(&planned, "movie.mp4");
  if (!status && run_manifest_write(outdir, &none, &planned, "render") != 0) status = JL_ERR_SYSTEM;
  run_names_free(&planned);
  if (status) goto done;
  if (jl_renderer_create_headless(&ren, width, height, err, sizeof err)) {
    fprintf(stderr, "jelly render: %s\n", jl_cli_msg(err));
    status = JL_ERR_SYSTEM;
    goto done;
  }
  JlCamera cam = {{0, 0, 0}, 0, 0, 1, 40};
  if (has_cam)
    jl_camera_look(&cam, eye, target); /* fixed */
  else
    jl_camera_frame_world(&cam, &w, (double)width / height); /* then follows the bodies */
  JlRenderOptions opt = jl_default_render_options();
  opt.layers = layers;
  /* the last frame written and its time; the frame an interrupt dropped after some of its steps (-1: none) */
  int last = -1, dropped = -1;
  double t_last = 0;
  for (int f = 0; f <= nframes; f++) {
    double f0 = jl_seconds();
    int stop = 0;
    long fsteps = 0, fcg = 0;
    for (int k = 0; f > 0 && k < steps; k++) {
      /* Ctrl-C: this frame is dropped (polled every step) */
      if (jl_cli_interrupted()) {
        stop = 1;
        if (k > 0) dropped = f;
        break;
      }
      JlStepReport rep;
      r = jl_world_step(&w, h, &rep);
      fsteps += rep.substeps;
      fcg += rep.cg_iterations;
      if (r) {
        if (tty) fprintf(stderr, "\n");
        fprintf(stderr, "jelly render: diverged in frame %d: %s\n", f, jl_cli_msg(rep.message));
        status = JL_ERR_RUNTIME;
        break;
      }
    }
    if (stop) break;
    wall += jl_seconds() - f0;
    steps_total += fsteps;
    cg_total += fcg;
    if (status) break;
    if (!has_cam && f > 0) jl_camera_follow(&cam, &w, (double)width / height, h * steps); /* one frame, 1/fps */
    jl_render_world(ren, &w, &cam, &opt);
    char png[4200];
    snprintf(png, sizeof png, "%s/frame_%04d.png", outdir, f);
    if (jl_renderer_write_png(ren, png, err, sizeof err)) {
      if (tty) fprintf(stderr, "\n");
      fprintf(stderr, "jelly render: %s\n", jl_cli_msg(err));
      status = JL_ERR_SYSTEM;
      break;
    }
    run_names_add(&wrote, strrchr(png, '/') + 1);
    written++;
    last = f;
    t_last = w.state.t;
    if (tty) jl_cli_progress(f, nframes, w.state.t, wall);
  }
  if (tty) fprintf(stderr, "\n");
  /* interrupted (also while the last frame was drawn): the frames so far stay, no movie, exit 130 */
  int interrupted = !status && jl_cli_interrupted();
  if (!quiet) {
    jl_cli_print_simulated(stdout, interrupted ? t_last : w.state.t, wall, steps_total, cg_total);
    printf("wrote      %d frames %dx%d to %s/frame_NNNN.png\n", written, width, height, outdir);
  }
  /* the movie: made, or why not (the PNG frames stand on their own); an interrupt says so below */
  const char *why = !movie || interrupted  ? NULL
                    : status               ? "the run stopped early"
                    : written < 2          ? "fewer than 2 frames"
                    : strchr(outdir, '\'') ? "the output folder's name has a quote"
                                           : movie_obstacle();
  if (movie && why) {
    fflush(stdout);
    fprintf(stderr, "jelly render: warning: no movie.mp4: %s%s\n", why,
            strcmp(why, "ffmpeg is not on PATH") == 0 ? " (install ffmpeg, or give --no-movie)" : "");
  } else if (movie && !interrupted) {
    char cmd[9000], mp4[4200];
    /* exactly this render's frames (-frames:v), whatever else the folder holds */
    snprintf(cmd, sizeof cmd,
             "ffmpeg -y -loglevel error -framerate %g -i '%s/frame_%%04d.png' -frames:v %d -pix_fmt yuv420p "
             "-vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' '%s/movie.mp4'",
             sc.fps, outdir, written, outdir);
    int made = system(cmd) == 0;
    if (made) {
      if (!quiet) printf("wrote      %s/movie.mp4\n", outdir);
    } else {
      fflush(stdout);
      fprintf(stderr, "jelly render: warning: no movie.mp4: ffmpeg failed; the PNG frames are complete\n");
    }
    /* listed when on disk (a failed ffmpeg may leave part of one) */
    snprintf(mp4, sizeof mp4, "%s/movie.mp4", outdir);
    if (made || access(mp4, F_OK) == 0) run_names_add(&wrote, "movie.mp4");
  }
  /* the manifest: what this render wrote */
  int manifest_ok = run_manifest_write(outdir, &none, &wrote, "render") == 0;
  if (!manifest_ok && !status) status = JL_ERR_SYSTEM;
  /* an interrupt: what is on disk, even with --quiet */
  if (interrupted) {
    fflush(stdout);
    char drop[96] = "";
    if (dropped >= 0) snprintf(drop, sizeof drop, "; frame %d, in progress, was dropped", dropped);
    fprintf(stderr,
            "jelly render: interrupted at frame %d of %d (t = %.4g s): wrote %s/frame_0000.png to frame_%04d.png "
            "(%d frames)%s%s%s\n",
            last, nframes, t_last, outdir, last, written, manifest_ok ? ", " MANIFEST : "",
            movie ? ", no movie.mp4" : "", drop);
    if (!status) status = JL_CLI_INTERRUPTED;
  }
done:
  run_names_free(&none);
  run_names_free(&wrote);
  jl_renderer_destroy(ren);
  jl_world_destroy(&w);
  jl_scene_free(&sc);
  return status;
}
