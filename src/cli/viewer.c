/* The interactive viewer behind `jelly view`: an SDL2 window, orbit camera,
 * mouse drag of bodies, keys for pause/step/reset/spawn/gravity/time
 * step/integrator/debug layers/screenshots, a HUD, real-time pacing, and a
 * scripted mode for tests.
 *
 * Pacing: each displayed frame adds the wall-clock time since the previous
 * one (capped at 0.1 s) to a budget of simulated time and takes steps of h
 * while the budget lasts and the frame has spent less than 30 ms stepping;
 * any remaining debt is dropped and the HUD shows the ratio of wall-clock to
 * simulated time. With --frames the viewer runs unpaced instead: exactly one
 * output frame (1/fps s, split into steps like `jelly run`) per displayed
 * frame, so scripted runs are reproducible.
 *
 * The camera frames all bodies at the start and follows them
 * (jl_camera_follow: slow recentring and zooming in, an immediate step back
 * when a body would leave the picture) until the user orbits, pans or zooms;
 * it holds still during a drag, and F frames the bodies and follows again.
 *
 * The world is only changed through the public API: the drag force element
 * (src/drag.c), removing and re-adding the gravity element of the force
 * table, the integrator and time-step settings, and rebuilding the world
 * from the scene for reset and spawning (spawned bodies are appended to the
 * in-memory scene; the state of the existing nodes is carried over).
 * A diverging explicit integrator (jl_world_step returns JL_ERR_RUNTIME and
 * leaves the state as it was) pauses the viewer with the message in the HUD
 * until `R` resets. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/internal.h"
#include "src/cli/viewer.h"
#include "src/drag.h"
#include "src/scene.h"

/* ---- script ------------------------------------------------------------------- */

typedef enum EvType { EV_KEY, EV_DRAG, EV_ORBIT, EV_ZOOM, EV_SCREENSHOT, EV_COUNT } EvType;

typedef struct Event {
  int frame;
  EvType type;
  SDL_Keycode key;
  double a[5];         /* drag: x0 y0 x1 y1 nframes; orbit: yaw pitch (deg); zoom: factor */
  char file[1024];
} Event;

typedef struct KeyName {
  const char *name;
  SDL_Keycode key;
} KeyName;

static const KeyName key_names[] = {
    {"space", SDLK_SPACE}, {"escape", SDLK_ESCAPE}, {"esc", SDLK_ESCAPE}, {"plus", SDLK_PLUS},
    {"+", SDLK_PLUS},      {"minus", SDLK_MINUS},   {"-", SDLK_MINUS},
};

static SDL_Keycode parse_key(const char *s) {
  for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
    if (strcmp(s, key_names[i].name) == 0) return key_names[i].key;
  if (strlen(s) == 1 && (isalnum((unsigned char)s[0])))
    return (SDL_Keycode)tolower((unsigned char)s[0]);
  return SDLK_UNKNOWN;
}

/* one event per line: "frame F key NAME" | "frame F drag X0 Y0 X1 Y1 N" |
 * "frame F orbit DYAW DPITCH" | "frame F zoom FACTOR" | "frame F screenshot FILE";
 * '#' starts a comment */
static int load_script(const char *path, Event **out, int *nout) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "jelly view: cannot read script '%s'\n", path);
    return 0;
  }
  Event *ev = NULL;
  int n = 0, cap = 0, lineno = 0, ok = 1;
  char line[2048];
  while (ok && fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char word[5][1024] = {{0}};
    double num[5] = {0};
    char cmd[64] = "", kw[16] = "";
    int frame = 0, used = 0;
    if (sscanf(line, " %15s", kw) != 1) continue; /* blank or comment */
    if (sscanf(line, " %15s %d %63s %n", kw, &frame, cmd, &used) < 3 || strcmp(kw, "frame") != 0 ||
        frame < 0) {
      fprintf(stderr, "%s:%d: expected 'frame F ACTION ...'\n", path, lineno);
      ok = 0;
      break;
    }
    const char *rest = line + used;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      ev = jl_realloc(ev, (size_t)cap, sizeof *ev);
    }
    Event *e = &ev[n];
    memset(e, 0, sizeof *e);
    e->frame = frame;
    int extra = 0;
    if (strcmp(cmd, "key") == 0) {
      e->type = EV_KEY;
      if (sscanf(rest, "%1023s %n", word[0], &extra) != 1 || (e->key = parse_key(word[0])) == SDLK_UNKNOWN) {
        fprintf(stderr, "%s:%d: unknown key '%s' (a letter, a digit, space, escape, plus, minus)\n",
                path, lineno, word[0]);
        ok = 0;
      }
    } else if (strcmp(cmd, "drag") == 0) {
      e->type = EV_DRAG;
      if (sscanf(rest, "%lf %lf %lf %lf %lf %n", &num[0], &num[1], &num[2], &num[3], &num[4], &extra) != 5 ||
          num[4] < 1 || num[4] > 1e6 || num[4] != floor(num[4])) {
        fprintf(stderr, "%s:%d: drag expects X0 Y0 X1 Y1 N (pixels, N >= 1 frames)\n", path, lineno);
        ok = 0;
      }
      memcpy(e->a, num, sizeof num);
    } else if (strcmp(cmd, "orbit") == 0) {
      e->type = EV_ORBIT;
      if (sscanf(rest, "%lf %lf %n", &e->a[0], &e->a[1], &extra) != 2) {
        fprintf(stderr, "%s:%d: orbit expects DYAW DPITCH (degrees)\n", path, lineno);
        ok = 0;
      }
    } else if (strcmp(cmd, "zoom") == 0) {
      e->type = EV_ZOOM;
      if (sscanf(rest, "%lf %n", &e->a[0], &extra) != 1 || !(e->a[0] > 0)) {
        fprintf(stderr, "%s:%d: zoom expects a factor > 0\n", path, lineno);
        ok = 0;
      }
    } else if (strcmp(cmd, "screenshot") == 0) {
      e->type = EV_SCREENSHOT;
      if (sscanf(rest, "%1023s %n", e->file, &extra) != 1) {
        fprintf(stderr, "%s:%d: screenshot expects a file name\n", path, lineno);
        ok = 0;
      }
    } else {
      fprintf(stderr, "%s:%d: unknown action '%s' (key, drag, orbit, zoom, screenshot)\n", path,
              lineno, cmd);
      ok = 0;
    }
    if (ok && rest[extra] != '\0' && rest[extra] != '\n') {
      fprintf(stderr, "%s:%d: unexpected text after the %s event: '%s'\n", path, lineno, cmd,
              rest + extra);
      ok = 0;
    }
    if (ok) n++;
  }
  fclose(f);
  if (!ok) {
    free(ev);
    return 0;
  }
  *out = ev;
  *nout = n;
  return 1;
}

/* ---- viewer state ----------------------------------------------------------------- */

typedef struct Viewer {
  JlViewerDef def;
  JlScene scene;
  JlWorld world;
  int has_world;
  JlForce *drag;         /* owned by the world */
  JlForce *gravity;      /* detached gravity element while gravity is off (owned here) */
  int gravity_off;
  double h;              /* step, s */
  int h_given;           /* the step came from --dt, the scene's dt or the +/- keys: kept when the
                            integrator changes; otherwise each integrator gets its default */
  double frame_dt;       /* 1 / fps */
  SDL_Window *win;
  SDL_Renderer *sdl;
  JlRenderer *r;
  JlCamera cam;
  int follow;            /* the camera follows the bodies until the user moves it (F: again) */
  JlRenderOptions opt;
  int paused, step_once, help, quit, frame;
  /* statistics for the HUD */
  double fps, ms_step, slowdown;
  int cg_last, steps_last;
  char error[512];
  char note[200];
  double note_until;
  /* mouse */
  int orbiting, panning, dragging;
  double mx, my;
  double plane_p[3], plane_n[3], last_target[3], vel[3];
  int have_last;
  /* script */
  Event *ev;
  int nev;
  int sdrag_active;
  const Event *sdrag;
  /* report */
  int nbody0;
  double (*com0)[3];
  int drag_body, drag_from, drag_to;
  unsigned rng;
  int shots;
} Viewer;

static void notef(Viewer *v, const char *fmt, const char *arg) {
  snprintf(v->note, sizeof v->note, fmt, arg);
  v->note_until = jl_seconds() + 2.5;
}

static void body_com(const JlWorld *w, int b, double com[3]) {
  const JlModel *m = w->model;
  const JlBody *body = &m->body[b];
  double mass = 0;
  com[0] = com[1] = com[2] = 0;
  for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
    for (int k = 0; k < 3; k++) com[k] += m->mass[i] * w->state.x[3 * i + k];
    mass += m->mass[i];
  }
  if (mass > 0)
    for (int k = 0; k < 3; k++) com[k] /= mass;
}

/* removes the gravity element from the world's table (keeps it) */
static void detach_gravity(Viewer *v) {
  JlForce *g = jl_world_find_force(&v->world, JL_FORCE_GRAVITY);
  if (!g || !jl_world_remove_force(&v->world, g)) return;
  if (v->gravity) v->gravity->destroy(v->gravity);
  v->gravity = g;
}

/* builds model and world from v->scene; carries over x, v, t of the first
 * `keep` nodes from `old` when given */
static int build_world(Viewer *v, const JlWorld *old) {
  JlModel m;
  char err[4096];
  if (jl_scene_build(&v->scene, &m, stderr, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", err);
    return 0;
  }
  JlWorld w;
  if (jl_world_create(&w, &m, &v->scene.step, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", err);
    jl_model_free(&m);
    return 0;
  }
  if (old) {
    int same = old->model->nbody <= w.model->nbody;
    for (int b = 0; same && b < old->model->nbody; b++)
      same = old->model->body[b].node_count == w.model->body[b].node_count;
    if (same) {
      size_t n = 3 * (size_t)old->model->nnode;
      memcpy(w.state.x, old->state.x, n * sizeof(double));
      memcpy(w.state.v, old->state.v, n * sizeof(double));
      w.state.t = old->state.t;
    }
  }
  if (v->has_world) jl_world_destroy(&v->world);
  v->world = w;
  v->has_world = 1;
  v->drag = jl_drag_create(v->world.model);
  jl_world_add_force(&v->world, v->drag);
  v->dragging = 0;
  if (v->gravity_off) detach_gravity(v);
  return 1;
}

static void frame_camera(Viewer *v) {
  jl_camera_frame_world(&v->cam, &v->world, (double)v->r->width / v->r->height);
  v->follow = 1;
}

static int reset_scene(Viewer *v) {
  JlScene sc;
  char err[4096];
  if (jl_scene_load(v->def.scene, &sc, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", err);
    return 0;
  }
  if (v->def.integrator) sc.step.integrator = jl_integrator_parse(v->def.integrator);
  jl_scene_free(&v->scene);
  v->scene = sc;
  if (!build_world(v, NULL)) return 0;
  if (v->error[0]) v->paused = 0; /* recovering from a divergence */
  v->error[0] = '\0';
  return 1;
}

/* ---- spawning ----------------------------------------------------------------------- */

static double rnd(Viewer *v) {
  v->rng = v->rng * 1664525u + 1013904223u;
  return (v->rng >> 8) / 16777216.0;
}

/* models/bunny.obj next to the scene folder, the working directory or the program */
static int find_bunny(const Viewer *v, char *out, size_t n) {
  struct stat st;
  const char *slash = strrchr(v->def.scene, '/');
  int len = slash ? (int)(slash - v->def.scene) : 1;
  const char *dir = slash ? v->def.scene : ".";
  if ((size_t)snprintf(out, n, "%.*s/../bunny.obj", len, dir) < n && stat(out, &st) == 0) return 1;
  if ((size_t)snprintf(out, n, "models/bunny.obj") < n && stat(out, &st) == 0) return 1;
  char exe[4096];
  ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (l > 0) {
    exe[l] = '\0';
    char *s = strrchr(exe, '/');
    if (s) *s = '\0';
    if ((size_t)snprintf(out, n, "%s/../models/bunny.obj", exe) < n && stat(out, &st) == 0) return 1;
  }
  return 0;
}

/* kind 1 box, 2 sphere, 3 torus, 4 bunny, 5 random */
static void spawn(Viewer *v, int kind) {
  if (kind == 5) kind = 1 + (int)(rnd(v) * 4) % 4;
  JlSceneBody b;
  memset(&b, 0, sizeof b);
  b.def = jl_default_body_def();
  b.tetgen = jl_default_tetgen_def();
  b.scale = 1.0;
  b.def.density = 400;
  b.def.young_modulus = 1.5e5;
  b.def.damping = 0.4;
  double s = 0.12 + 0.08 * rnd(v);
  static const char *const names[5] = {"", "box", "sphere", "torus", "bunny"};
  snprintf(b.def.name, sizeof b.def.name, "%s%d", names[kind], v->scene.nbody);
  if (kind == 1) {
    b.shape = JL_SHAPE_BOX;
    b.size[0] = b.size[1] = b.size[2] = 1.6 * s;
    b.tetgen.max_volume = pow(1.6 * s, 3) / 200;
  } else if (kind == 2) {
    b.shape = JL_SHAPE_SPHERE;
    b.radius = s;
    b.tetgen.max_volume = pow(s, 3) / 150;
  } else if (kind == 3) {
    b.shape = JL_SHAPE_TORUS;
    b.major = 1.3 * s;
    b.minor = 0.5 * s;
    b.tetgen.max_volume = pow(s, 3) / 300;
  } else {
    if (!find_bunny(v, b.mesh_path, sizeof b.mesh_path)) {
      notef(v, "%s", "cannot spawn a bunny: models/bunny.obj not found");
      return;
    }
    b.scale = 0.035;
    b.tetgen.mode = JL_TETGEN_EMBEDDED;
    b.tetgen.resolution = 0.045;
  }
  for (int k = 0; k < 3; k++) b.rotate_deg[k] = 360.0 * rnd(v);
  /* above the current bodies, somewhere over their footprint */
  double lo[3], hi[3];
  jl_camera_world_box(&v->world, lo, hi);
  b.translate[0] = lo[0] + (hi[0] - lo[0]) * (0.25 + 0.5 * rnd(v));
  b.translate[1] = hi[1] + 2.5 * s;
  b.translate[2] = lo[2] + (hi[2] - lo[2]) * (0.25 + 0.5 * rnd(v));
  if (kind == 4) { /* the bunny's origin is near its base */
    b.translate[1] = hi[1] + 0.1;
  }
  v->scene.body = jl_realloc(v->scene.body, (size_t)v->scene.nbody + 1, sizeof *v->scene.body);
  v->scene.body[v->scene.nbody++] = b;
  /* rebuild, carrying the current state over; a failed build drops the body */
  JlWorld old = v->world;
  v->has_world = 0; /* keep `old` alive until the new world holds its state */
  if (!build_world(v, &old)) {
    v->scene.nbody--;
    v->world = old;
    v->has_world = 1;
    notef(v, "%s", "spawn failed (see the terminal)");
    return;
  }
  jl_world_destroy(&old);
  notef(v, "spawned %s", b.def.name);
}

/* ---- input ----------------------------------------------------------------------------- */

static void mouse_target(Viewer *v, double out[3]) {
  double o[3], d[3];
  jl_camera_ray(&v->cam, v->r->width, v->r->height, v->mx, v->my, o, d);
  double dn = d[0] * v->plane_n[0] + d[1] * v->plane_n[1] + d[2] * v->plane_n[2];
  double t = 0;
  if (fabs(dn) > 1e-9)
    t = ((v->plane_p[0] - o[0]) * v->plane_n[0] + (v->plane_p[1] - o[1]) * v->plane_n[1] +
         (v->plane_p[2] - o[2]) * v->plane_n[2]) / dn;
  if (!(t > 0)) t = 0;
  for (int k = 0; k < 3; k++) out[k] = o[k] + t * d[k];
}

static void drag_press(Viewer *v) {
  double o[3], d[3];
  jl_camera_ray(&v->cam, v->r->width, v->r->height, v->mx, v->my, o, d);
  JlPick hit;
  if (!jl_pick_ray(&v->world, o, d, &hit)) return;
  jl_drag_attach(v->drag, v->world.model, hit.body, hit.tri, hit.bary, 0, 0);
  double right[3], up[3], fwd[3];
  jl_camera_basis(&v->cam, right, up, fwd);
  for (int k = 0; k < 3; k++) {
    v->plane_p[k] = hit.point[k];
    v->plane_n[k] = -fwd[k];
    v->last_target[k] = hit.point[k];
    v->vel[k] = 0;
  }
  jl_drag_set_target(v->drag, hit.point, NULL);
  v->dragging = 1;
  v->have_last = 1;
  if (v->drag_body < 0) {
    v->drag_body = hit.body;
    v->drag_from = v->frame;
  }
}

static void drag_release(Viewer *v) {
  if (!v->dragging) return;
  jl_drag_release(v->drag);
  v->dragging = 0;
  v->drag_to = v->frame;
}

/* moves the drag target under the mouse; the target's velocity (smoothed) is
 * what the body is thrown with on release */
static void drag_update(Viewer *v, double dt) {
  if (!v->dragging) return;
  double t[3];
  mouse_target(v, t);
  for (int k = 0; k < 3; k++) {
    double vk = dt > 0 ? (t[k] - v->last_target[k]) / dt : 0;
    v->vel[k] = 0.5 * v->vel[k] + 0.5 * vk;
    v->last_target[k] = t[k];
  }
  /* keep the target within half a body size of the grabbed point, so a far
   * mouse pulls hard but cannot tear the body apart */
  double p[3], d2 = 0;
  int b = jl_drag_body(v->drag);
  if (b >= 0 && jl_drag_point(v->drag, v->world.state.x, p)) {
    double lim = 0.5 * v->world.model->body[b].size;
    for (int k = 0; k < 3; k++) d2 += (t[k] - p[k]) * (t[k] - p[k]);
    if (d2 > lim * lim)
      for (int k = 0; k < 3; k++) t[k] = p[k] + (t[k] - p[k]) * lim / sqrt(d2);
  }
  jl_drag_set_target(v->drag, t, v->vel);
}

static void screenshot(Viewer *v, const char *path) {
  char err[1024], name[64];
  if (!path) {
    snprintf(name, sizeof name, "jelly_%03d.png", v->shots++);
    path = name;
  }
  if (jl_renderer_write_png(v->r, path, err, sizeof err))
    fprintf(stderr, "jelly view: %s\n", err);
  else
    notef(v, "saved %.180s", path);
}

/* the step of integrator i when none was given: the scene's default (1/60 s,
 * at most a frame) for the implicit one, half the stability limit of the
 * scene's fastest mode for the explicit ones (jl_world_stable_dt, as `jelly run`) */
static double default_step(Viewer *v, JlIntegrator i) {
  double dt = v->scene.dt < v->frame_dt ? v->scene.dt : v->frame_dt;
  if (i != JL_INTEGRATOR_IMPLICIT) dt = jl_world_stable_dt(&v->world, i, v->frame_dt, 0.0).dt;
  int spf = (int)ceil(v->frame_dt / dt - 1e-9);
  return v->frame_dt / (spf < 1 ? 1 : spf);
}

static void cycle_integrator(Viewer *v) {
  JlIntegrator i = (JlIntegrator)((v->world.def.integrator + 1) % JL_INTEGRATOR_COUNT);
  jl_world_set_integrator(&v->world, i);
  v->scene.step.integrator = i;
  if (!v->h_given) v->h = default_step(v, i);
  char text[96];
  snprintf(text, sizeof text, "%s, dt %.3g s", jl_integrator_name(i), v->h);
  notef(v, "integrator %s", text);
}

static void toggle_layer(Viewer *v, JlLayer l) { v->opt.layers ^= 1u << l; }

static void handle_key(Viewer *v, SDL_Keycode key, int want_shot) {
  switch (key) {
    case SDLK_ESCAPE: v->quit = 1; break;
    case SDLK_SPACE: v->paused = !v->paused; break;
    case SDLK_n: v->step_once = 1; v->paused = 1; break;
    case SDLK_r:
      if (!reset_scene(v)) v->quit = 2;
      break;
    case SDLK_1: case SDLK_2: case SDLK_3: case SDLK_4: case SDLK_5:
      spawn(v, (int)(key - SDLK_0));
      break;
    case SDLK_g:
      if (v->gravity_off) {
        if (v->gravity && jl_world_add_force(&v->world, v->gravity)) v->gravity = NULL;
        v->gravity_off = 0;
      } else {
        v->gravity_off = 1;
        detach_gravity(v);
      }
      break;
    case SDLK_PLUS: case SDLK_EQUALS: case SDLK_KP_PLUS:
      if (v->h * 2 <= 0.05) v->h *= 2;
      v->h_given = 1;
      break;
    case SDLK_MINUS: case SDLK_KP_MINUS:
      if (v->h / 2 >= 1e-5) v->h /= 2;
      v->h_given = 1;
      break;
    case SDLK_i: cycle_integrator(v); break;
    case SDLK_p: if (want_shot) screenshot(v, NULL); break;
    case SDLK_h: v->help = !v->help; break;
    case SDLK_f: frame_camera(v); break;
    case SDLK_w: toggle_layer(v, JL_LAYER_WIREFRAME); break;
    case SDLK_t: toggle_layer(v, JL_LAYER_TETS); break;
    case SDLK_s: toggle_layer(v, JL_LAYER_SPRINGS); break;
    case SDLK_c: toggle_layer(v, JL_LAYER_CONTACTS); break;
    case SDLK_x: toggle_layer(v, JL_LAYER_PINS); break;
    case SDLK_o: toggle_layer(v, JL_LAYER_OBSTACLES); break;
    case SDLK_v: toggle_layer(v, JL_LAYER_VELOCITY); break;
    default: break;
  }
}

static void handle_event(Viewer *v, const SDL_Event *e) {
  float sx = 1, sy = 1;
  int ww = 1, wh = 1;
  SDL_GetWindowSize(v->win, &ww, &wh);
  sx = (float)v->r->width / (float)ww;
  sy = (float)v->r->height / (float)wh;
  switch (e->type) {
    case SDL_QUIT: v->quit = 1; break;
    case SDL_KEYDOWN:
      if (!e->key.repeat || e->key.keysym.sym == SDLK_n) handle_key(v, e->key.keysym.sym, 1);
      break;
    case SDL_MOUSEBUTTONDOWN: {
      v->mx = e->button.x * sx, v->my = e->button.y * sy;
      int shift = (SDL_GetModState() & KMOD_SHIFT) != 0;
      if (e->button.button == SDL_BUTTON_MIDDLE ||
          (shift && (e->button.button == SDL_BUTTON_LEFT || e->button.button == SDL_BUTTON_RIGHT)))
        v->panning = 1;
      else if (e->button.button == SDL_BUTTON_RIGHT) v->orbiting = 1;
      else if (e->button.button == SDL_BUTTON_LEFT) drag_press(v);
      break;
    }
    case SDL_MOUSEBUTTONUP:
      v->orbiting = v->panning = 0;
      if (e->button.button == SDL_BUTTON_LEFT) drag_release(v);
      break;
    case SDL_MOUSEMOTION: {
      double dx = e->motion.xrel * sx, dy = e->motion.yrel * sy;
      v->mx = e->motion.x * sx, v->my = e->motion.y * sy;
      if (v->orbiting) jl_camera_orbit(&v->cam, -0.008 * dx, 0.008 * dy);
      if (v->panning) jl_camera_pan(&v->cam, v->r->height, dx, dy);
      if (v->orbiting || v->panning) v->follow = 0; /* the user's camera now */
      break;
    }
    case SDL_MOUSEWHEEL:
      jl_camera_zoom(&v->cam, pow(0.9, e->wheel.y));
      v->follow = 0;
      break;
    case SDL_RENDER_TARGETS_RESET:
    case SDL_RENDER_DEVICE_RESET:
      v->r->ground_w = 0; /* redraw the cached ground */
      break;
    case SDL_WINDOWEVENT:
      if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
        int w, h;
        if (SDL_GetRendererOutputSize(v->sdl, &w, &h) == 0 && w > 0 && h > 0) {
          v->r->width = w;
          v->r->height = h;
        }
      }
      break;
    default: break;
  }
}

/* scripted input for this frame (before stepping) */
static void run_script(Viewer *v) {
  /* an active scripted drag: move, or release one frame after reaching B */
  if (v->sdrag_active) {
    const Event *e = v->sdrag;
    int k = v->frame - e->frame, n = (int)e->a[4];
    if (k > n) {
      drag_release(v);
      v->sdrag_active = 0;
    } else {
      double s = (double)k / n;
      v->mx = e->a[0] + s * (e->a[2] - e->a[0]);
      v->my = e->a[1] + s * (e->a[3] - e->a[1]);
    }
  }
  for (int i = 0; i < v->nev; i++) {
    const Event *e = &v->ev[i];
    if (e->frame != v->frame) continue;
    switch (e->type) {
      case EV_KEY: handle_key(v, e->key, 1); break;
      case EV_DRAG:
        drag_release(v);
        v->mx = e->a[0], v->my = e->a[1];
        drag_press(v);
        if (!v->dragging) fprintf(stderr, "jelly view: scripted drag at frame %d: no body under (%g, %g)\n",
                                  e->frame, e->a[0], e->a[1]);
        v->sdrag = e;
        v->sdrag_active = 1;
        break;
      case EV_ORBIT:
        jl_camera_orbit(&v->cam, e->a[0] * 3.14159265358979 / 180, e->a[1] * 3.14159265358979 / 180);
        v->follow = 0;
        break;
      case EV_ZOOM:
        jl_camera_zoom(&v->cam, e->a[0]);
        v->follow = 0;
        break;
      default: break;
    }
  }
}

/* ---- stepping ----------------------------------------------------------------------------- */

static int step(Viewer *v) {
  JlStepReport rep;
  double t0 = jl_seconds();
  JlResult r = jl_world_step(&v->world, v->h, &rep);
  double ms = 1e3 * (jl_seconds() - t0);
  v->ms_step = 0.8 * v->ms_step + 0.2 * ms;
  v->cg_last = rep.cg_iterations;
  if (r) {
    /* the world's message names the body and the time of the failed step */
    if (strstr(rep.message, "t = "))
      snprintf(v->error, sizeof v->error, "%s", rep.message);
    else
      snprintf(v->error, sizeof v->error, "diverged at t = %.3f s: %s", v->world.state.t, rep.message);
    fprintf(stderr, "jelly view: %s\n", v->error);
    v->paused = 1;
    drag_release(v);
    return 0;
  }
  return 1;
}

/* ---- HUD ------------------------------------------------------------------------------------- */

static void panel(JlRenderer *r, int x, int y, int w, int h) {
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_BLEND);
  SDL_SetRenderDrawColor(r->sdl, 10, 12, 16, 170);
  SDL_Rect q = {x, y, w, h};
  SDL_RenderFillRect(r->sdl, &q);
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
}

static int contacts(const JlWorld *w) {
  const JlModel *m = w->model;
  if (!m->world.has_ground) return 0;
  int n = 0;
  for (int i = 0; i < m->nnode; i++) n += w->state.x[3 * i + 1] < m->world.ground_y;
  return n;
}

/* wrapped text in a panel at (8, y), at most the window's width; returns the
 * y below it */
static int text_panel(Viewer *v, int y, int scale, const unsigned char rgba[4], const char *text) {
  char buf[2400];
  int lines = jl_font_wrap(text, v->r->width - 8 - 14 - 4, scale, buf, sizeof buf);
  int h = lines * JL_FONT_LINE_H(scale) + 12;
  panel(v->r, 8, y, jl_font_text_width(buf, scale) + 12, h);
  jl_render_text(v->r, 14, y + 6, scale, rgba, buf);
  return y + h + 6;
}

static void draw_hud(Viewer *v) {
  const JlModel *m = v->world.model;
  char buf[1200], pace[80];
  if (v->def.frames > 0) snprintf(pace, sizeof pace, "scripted (%d frames)", v->def.frames);
  else if (v->paused) snprintf(pace, sizeof pace, "PAUSED");
  else if (v->slowdown > 1.05) snprintf(pace, sizeof pace, "%.1fx slower than real time", v->slowdown);
  else snprintf(pace, sizeof pace, "real time");
  snprintf(buf, sizeof buf,
           "FPS %.0f   t %.3f s   %s\n"
           "step %.2f ms   dt %.3g ms   CG %d it\n"
           "nodes %d  tets %d  springs %d  contacts %d\n"
           "%s   gravity %s%s\n"
           "H: keys",
           v->fps, v->world.state.t, pace, v->ms_step, 1e3 * v->h, v->cg_last, m->nnode, m->ntet,
           m->nspring, contacts(&v->world), jl_integrator_name(v->world.def.integrator),
           v->gravity_off ? "off" : "on", v->paused && v->def.frames > 0 ? "   PAUSED" : "");
  int scale = v->r->height >= 600 ? 2 : 1;
  static const unsigned char white[4] = {235, 238, 242, 255}, red[4] = {255, 110, 100, 255},
                             yellow[4] = {255, 220, 120, 255};
  /* every text is broken at spaces to fit the window's width */
  int y = text_panel(v, 8, scale, white, buf);
  if (v->error[0]) {
    char e[sizeof v->error + 32];
    snprintf(e, sizeof e, "%s\npress R to reset", v->error);
    y = text_panel(v, y, scale, red, e);
  }
  if (v->note[0] && jl_seconds() < v->note_until) text_panel(v, y, scale, yellow, v->note);
  if (v->help) {
    const char *help =
        "mouse   right-drag orbit   middle/shift-drag pan   wheel zoom\n"
        "        left-drag a body to pull it; release to throw\n"
        "space   pause / resume        N  single step\n"
        "R       reset scene           F  frame all bodies\n"
        "1-5     spawn box, sphere, torus, bunny, random\n"
        "G       gravity on/off        +/-  time step x2 / x0.5\n"
        "I       cycle integrator      P  save PNG screenshot\n"
        "W T S   wireframe, tets, springs (strain colours)\n"
        "C X O V contacts, pinned nodes, obstacles, velocities\n"
        "H       this help             Esc  quit";
    /* one key per line when the two columns do not fit the window */
    const char *narrow =
        "mouse   right-drag orbit\n"
        "        middle/shift-drag pan\n"
        "        wheel zoom\n"
        "        left-drag a body to pull it;\n"
        "        release to throw\n"
        "space   pause / resume\n"
        "N       single step\n"
        "R       reset scene\n"
        "F       frame all bodies\n"
        "1-5     spawn box, sphere, torus,\n"
        "        bunny, random\n"
        "G       gravity on/off\n"
        "+/-     time step x2 / x0.5\n"
        "I       cycle integrator\n"
        "P       save PNG screenshot\n"
        "W T S   wireframe, tets, springs\n"
        "C X O V contacts, pins, obstacles,\n"
        "        velocities\n"
        "H       this help\n"
        "Esc     quit";
    int room = v->r->width - 16 - 24;
    if (jl_font_text_width(help, scale) > room) help = narrow;
    char wrapped[2400];
    int lines = jl_font_wrap(help, room, scale, wrapped, sizeof wrapped);
    int hw = jl_font_text_width(wrapped, scale) + 24, hh = lines * JL_FONT_LINE_H(scale) + 24;
    int x = (v->r->width - hw) / 2, yy = (v->r->height - hh) / 2;
    if (yy < 0) yy = 0;
    panel(v->r, x, yy, hw, hh);
    jl_render_text(v->r, x + 12, yy + 12, scale, white, wrapped);
  }
}

/* The drag spring from the grabbed point to the point under the cursor: a
 * cyan band 3 px wide (4 px from 1000 px) with a dark rim, so it shows on
 * bodies, ground and background alike, and squares at both ends. The spring
 * is stiff, so the grabbed point trails the cursor by only a few pixels
 * unless the mouse moves fast: the ends' squares keep the grab visible. */
static void draw_drag(Viewer *v) {
  double p[3], q[3], a[3], b[3];
  if (!v->dragging || !jl_drag_point(v->drag, v->world.state.x, p)) return;
  mouse_target(v, q);
  if (!jl_camera_project(&v->cam, v->r->width, v->r->height, p, a) ||
      !jl_camera_project(&v->cam, v->r->width, v->r->height, q, b))
    return;
  static const unsigned char dark[4] = {10, 12, 16, 255}, cyan[4] = {0, 235, 255, 255};
  float w = v->r->width >= 1000 ? 4.0f : 3.0f;
  float ax = (float)a[0], ay = (float)a[1], bx = (float)b[0], by = (float)b[1];
  jl_draw_thick_line(v->r, ax, ay, bx, by, w + 2, dark);
  jl_draw_thick_line(v->r, ax, ay, ax, ay, w + 6, dark);
  jl_draw_thick_line(v->r, bx, by, bx, by, w + 6, dark);
  jl_draw_thick_line(v->r, ax, ay, bx, by, w, cyan);
  jl_draw_thick_line(v->r, ax, ay, ax, ay, w + 4, cyan);
  jl_draw_thick_line(v->r, bx, by, bx, by, w + 4, cyan);
}

/* ---- main loop ------------------------------------------------------------------------------- */

JlViewerDef jl_default_viewer_def(void) {
  JlViewerDef d;
  memset(&d, 0, sizeof d);
  d.width = 1280;
  d.height = 720;
  return d;
}

static void write_report(Viewer *v, const char *status) {
  if (!v->def.report) return;
  FILE *f = fopen(v->def.report, "w");
  if (!f) {
    fprintf(stderr, "jelly view: cannot write report '%s'\n", v->def.report);
    return;
  }
  double right[3], up[3], fwd[3];
  jl_camera_basis(&v->cam, right, up, fwd);
  fprintf(f, "scene %s\nframes %d\nstatus %s\ntime %.9g\n", v->def.scene, v->frame, status,
          v->world.state.t);
  fprintf(f, "camera_right %.9g %.9g %.9g\ncamera_up %.9g %.9g %.9g\n", right[0], right[1],
          right[2], up[0], up[1], up[2]);
  for (int b = 0; b < v->world.model->nbody; b++) {
    double c1[3];
    body_com(&v->world, b, c1);
    const double *c0 = b < v->nbody0 ? v->com0[b] : c1;
    fprintf(f, "body %d %s com_start %.9g %.9g %.9g com_end %.9g %.9g %.9g\n", b,
            v->world.model->body[b].name, c0[0], c0[1], c0[2], c1[0], c1[1], c1[2]);
  }
  if (v->drag_body >= 0)
    fprintf(f, "drag body %d from_frame %d to_frame %d\n", v->drag_body, v->drag_from,
            v->drag_to >= 0 ? v->drag_to : v->frame);
  fclose(f);
}

int jl_viewer_run(const JlViewerDef *def) {
  Viewer v;
  memset(&v, 0, sizeof v);
  v.def = *def;
  if (v.def.width <= 0) v.def.width = 1280;
  if (v.def.height <= 0) v.def.height = 720;
  v.drag_body = -1;
  v.drag_to = -1;
  v.rng = 12345u;
  v.opt = jl_default_render_options();
  v.opt.layers = def->layers;
  if (def->script && !load_script(def->script, &v.ev, &v.nev)) return 2;

  /* the scene file first (bad input exits 2), then a display: without one
   * the window loop would run unseen (SDL falls back to its offscreen or
   * dummy driver), so say so at once, before the world is built. Only
   * scripted runs (--frames), which show nothing to anyone, may run there. */
  char err[4096];
  int status = 0;
  if (jl_scene_load(def->scene, &v.scene, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", err);
    free(v.ev);
    return 2;
  }
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    fprintf(stderr, "jelly view: no display: use `jelly render` for headless PNG frames (%s; set DISPLAY or "
                    "WAYLAND_DISPLAY, or run under xvfb-run)\n", SDL_GetError());
    SDL_Quit();
    jl_scene_free(&v.scene);
    free(v.ev);
    return JL_ERR_SYSTEM;
  }
  const char *driver = SDL_GetCurrentVideoDriver();
  if (def->frames <= 0 && (!driver || strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0 ||
                           strcmp(driver, "evdev") == 0)) {
    fprintf(stderr, "jelly view: no display: use `jelly render` for headless PNG frames (SDL's video driver "
                    "'%s' shows no window; set DISPLAY or WAYLAND_DISPLAY, or run under xvfb-run)\n",
            driver ? driver : "none");
    SDL_Quit();
    jl_scene_free(&v.scene);
    free(v.ev);
    return JL_ERR_SYSTEM;
  }

  /* the world: a mesh that cannot be built exits 2 before any window opens */
  if (def->integrator) v.scene.step.integrator = jl_integrator_parse(def->integrator);
  if (def->threads > 0) v.scene.step.threads = def->threads;
  if (def->fps > 0) v.scene.fps = def->fps;
  v.frame_dt = 1.0 / v.scene.fps;
  /* the checks `jelly run` makes (src/cli/cli_sim.c): a given step no longer than a frame, at most 1e7 per frame */
  if ((def->dt > 0 || v.scene.dt_set) && (def->dt > 0 ? def->dt : v.scene.dt) > v.frame_dt * (1.0 + 1e-9)) {
    fprintf(stderr, "jelly view: %s %g s is longer than one frame (1/fps = %g s); %s or raise fps (--fps)\n",
            def->dt > 0 ? "--dt" : "the scene's dt", def->dt > 0 ? def->dt : v.scene.dt, v.frame_dt,
            def->dt > 0 ? "lower --dt" : "lower dt (or give --dt)");
    status = 2;
    goto done;
  }
  if (def->dt > 0 && v.frame_dt / def->dt > 1e7) {
    fprintf(stderr, "jelly view: --dt %g s would need %.3g steps per frame (at most 1e7); raise --dt\n", def->dt,
            v.frame_dt / def->dt);
    status = 2;
    goto done;
  }
  double dt = def->dt > 0 ? def->dt : v.scene.dt;
  int spf = (int)ceil(v.frame_dt / dt - 1e-9);
  v.h = v.frame_dt / (spf < 1 ? 1 : spf);
  if (!build_world(&v, NULL)) {
    status = 2;
    goto done;
  }
  /* explicit integrators without a dt: the stable default (as `jelly run`) */
  v.h_given = def->dt > 0 || v.scene.dt_set;
  if (!v.h_given) v.h = default_step(&v, v.scene.step.integrator);

  v.win = SDL_CreateWindow("jelly", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, v.def.width,
                           v.def.height, SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  if (!v.win) {
    fprintf(stderr, "jelly view: no display: cannot open a window (%s); use `jelly render` for headless PNG "
                    "frames\n", SDL_GetError());
    status = JL_ERR_SYSTEM;
    goto done;
  }
  Uint32 flags = def->frames > 0 ? 0 : SDL_RENDERER_PRESENTVSYNC;
  v.sdl = SDL_CreateRenderer(v.win, -1, flags);
  if (!v.sdl) v.sdl = SDL_CreateRenderer(v.win, -1, SDL_RENDERER_SOFTWARE);
  if (!v.sdl) {
    fprintf(stderr, "jelly view: cannot create a renderer: %s\n", SDL_GetError());
    status = JL_ERR_SYSTEM;
    goto done;
  }
  int ow = v.def.width, oh = v.def.height;
  if (SDL_GetRendererOutputSize(v.sdl, &ow, &oh) != 0 || ow <= 0 || oh <= 0)
    ow = v.def.width, oh = v.def.height;
  v.r = jl_renderer_wrap(v.sdl, ow, oh);
  v.cam.fov_deg = 40;
  frame_camera(&v);

  /* centres of mass at the start, for the report */
  v.nbody0 = v.world.model->nbody;
  v.com0 = jl_calloc((size_t)v.nbody0 + 1, sizeof *v.com0);
  for (int b = 0; b < v.nbody0; b++) body_com(&v.world, b, v.com0[b]);

  double last = jl_seconds(), budget = 0, fps_t0 = last, sim_acc = 0, wall_acc = 0;
  int fps_frames = 0;
  while (!v.quit) {
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
      if (def->frames > 0 && e.type != SDL_QUIT && e.type != SDL_WINDOWEVENT) continue;
      handle_event(&v, &e);
    }
    if (v.quit) break;
    double now = jl_seconds(), wall = now - last;
    last = now;
    if (wall > 0.1) wall = 0.1;

    if (def->frames > 0) {
      /* scripted: one output frame of simulated time per displayed frame */
      run_script(&v);
      if (v.quit) break;
      drag_update(&v, v.frame_dt);
      int n = (int)floor(v.frame_dt / v.h + 0.5);
      if (n < 1) n = 1;
      if (!v.paused)
        for (int k = 0; k < n && step(&v); k++) {
        }
      else if (v.step_once)
        step(&v);
    } else {
      /* interactive: follow the wall clock while the solver keeps up */
      drag_update(&v, wall);
      double t0 = jl_seconds(), simulated = 0;
      if (!v.paused) {
        budget += wall;
        while (budget >= v.h && jl_seconds() - t0 < 0.030) {
          if (!step(&v)) break;
          budget -= v.h;
          simulated += v.h;
        }
        if (budget > v.h) budget = 0; /* could not keep up: drop the debt */
        sim_acc += simulated;
        wall_acc += wall;
      } else {
        budget = 0;
        if (v.step_once) step(&v);
      }
    }
    v.step_once = 0;

    /* the camera follows the bodies until the user moves it; not while a
     * drag holds a point under the cursor */
    if (v.follow && !v.dragging)
      jl_camera_follow(&v.cam, &v.world, (double)v.r->width / v.r->height, def->frames > 0 ? v.frame_dt : wall);
    jl_render_world(v.r, &v.world, &v.cam, &v.opt);
    draw_drag(&v);
    draw_hud(&v);
    for (int i = 0; i < v.nev; i++)
      if (v.ev[i].type == EV_SCREENSHOT && v.ev[i].frame == v.frame) screenshot(&v, v.ev[i].file);
    v.frame++;
    if (def->frames > 0 && v.frame >= def->frames) {
      if (def->screenshot) screenshot(&v, def->screenshot);
      v.quit = 1;
    }
    SDL_RenderPresent(v.sdl);

    fps_frames++;
    if (now - fps_t0 >= 0.5) {
      v.fps = fps_frames / (now - fps_t0);
      v.slowdown = sim_acc > 0 ? wall_acc / sim_acc : (wall_acc > 0 && !v.paused ? 99 : 1);
      fps_frames = 0;
      fps_t0 = now;
      sim_acc = wall_acc = 0;
    }
  }
  if (v.quit == 2) status = 2;
  if (v.dragging) drag_release(&v);
  write_report(&v, v.error[0] ? "diverged" : "ok");
  if (def->frames > 0 && v.error[0] && status == 0) status = 1;

done:
  if (v.r) {
    jl_font_destroy(v.r);
    jl_renderer_destroy(v.r);
  }
  if (v.sdl) SDL_DestroyRenderer(v.sdl);
  if (v.win) SDL_DestroyWindow(v.win);
  SDL_Quit();
  if (v.gravity) v.gravity->destroy(v.gravity);
  if (v.has_world) jl_world_destroy(&v.world);
  jl_scene_free(&v.scene);
  free(v.com0);
  free(v.ev);
  return status;
}
