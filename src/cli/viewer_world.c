/* The world the viewer shows (src/cli/viewer_internal.h): built from the
 * scene and rebuilt for reset and spawning (spawned bodies are appended to
 * the in-memory scene; the state of the existing nodes is carried over), the
 * drag force element added to it, the gravity element detached and
 * re-added, the integrator and time step, and one step, which pauses the
 * viewer with the message in the HUD when it diverges. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/drag.h"

#include "src/cli/cli.h"
#include "src/cli/viewer_internal.h"

void jl_viewer_note(Viewer *v, const char *fmt, const char *arg) {
  snprintf(v->note, sizeof v->note, fmt, arg);
  v->note_until = jl_seconds() + 2.5;
}

void jl_viewer_body_com(const JlWorld *w, int b, double com[3]) { jl_model_body_com(w->model, w->state.x, b, com); }

/* removes the gravity element from the world's table (keeps it) */
void jl_viewer_detach_gravity(Viewer *v) {
  JlForce *g = jl_world_find_force(&v->world, JL_FORCE_GRAVITY);
  if (!g || !jl_world_remove_force(&v->world, g)) return;
  if (v->gravity) jl_force_free(v->gravity);
  v->gravity = g;
}

/* the world of model m (taken over), carrying x, v, t over from `old`
 * when its bodies are the first of m's; 0 after printing */
static int adopt_model(Viewer *v, JlModel *m, const JlWorld *old) {
  char err[4096];
  JlWorld w;
  if (jl_world_create(&w, m, &v->scene.step, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", jl_cli_msg(err));
    jl_model_free(m);
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
  /* another model: the timeline starts again, from this state */
  jl_timeline_clear(&v->tl);
  jl_timeline_after_step(&v->tl, &v->world);
  jl_plots_clear(&v->plots);
  v->drag = jl_drag_create(v->world.model);
  jl_world_add_force(&v->world, v->drag);
  v->dragging = 0;
  if (v->gravity_off) jl_viewer_detach_gravity(v);
  return 1;
}

/* builds model and world from v->scene; carries over x, v, t of the first
 * nodes from `old` when given */
int jl_viewer_build_world(Viewer *v, const JlWorld *old) {
  JlModel m;
  char err[4096];
  if (jl_scene_build(&v->scene, &m, stderr, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", jl_cli_msg(err));
    return 0;
  }
  return adopt_model(v, &m, old);
}

void jl_viewer_frame_camera(Viewer *v) {
  jl_camera_frame_world(&v->cam, &v->world, (double)v->r->width / v->r->height);
  v->follow = 1;
}

int jl_viewer_reset(Viewer *v) {
  jl_viewer_spawn_cancel(v);
  JlScene sc;
  char err[4096];
  if (jl_scene_open(v->def.scene, &sc, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", jl_cli_msg(err));
    return 0;
  }
  if (v->def.integrator) sc.step.integrator = jl_integrator_parse(v->def.integrator);
  jl_scene_free(&v->scene);
  v->scene = sc;
  if (!jl_viewer_build_world(v, NULL)) return 0;
  if (v->error[0]) v->paused = 0; /* recovering from a divergence */
  v->error[0] = '\0';
  return 1;
}

static double rnd(Viewer *v) {
  v->rng = v->rng * 1664525u + 1013904223u;
  return (v->rng >> 8) / 16777216.0;
}

/* bunny.obj next to the scene's folder, or the one Jelly ships (jl_cli_data_file) */
static int find_bunny(const Viewer *v, char *out, size_t n) {
  struct stat st;
  const char *slash = strrchr(v->scene.path, '/');
  if (slash && (size_t)snprintf(out, n, "%.*s/../bunny.obj", (int)(slash - v->scene.path), v->scene.path) < n &&
      stat(out, &st) == 0)
    return 1;
  return jl_cli_data_file("bunny.obj", out, n);
}

/* the worker: builds the one-body model of v->spawn_scene */
static void *mesh_worker(void *arg) {
  Viewer *v = arg;
  v->spawn_rc = jl_scene_build(&v->spawn_scene, &v->spawn_model, NULL, v->spawn_err, sizeof v->spawn_err);
  atomic_store(&v->mesh_done, 1);
  return NULL;
}

static void bodies_box(const Viewer *v, double lo[3], double hi[3]);
static void start_meshing(Viewer *v, const JlSceneBody *b);

/* kind 1 box, 2 sphere, 3 torus, 4 bunny, 5 random */
void jl_viewer_spawn(Viewer *v, int kind) {
  if (v->meshing) {
    jl_viewer_note(v, "still meshing %s", v->spawn_body.def.name);
    return;
  }
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
      jl_viewer_note(v, "%s", "cannot spawn a bunny: models/bunny.obj not found");
      return;
    }
    b.scale = 0.035;
    b.tetgen.mode = JL_TETGEN_EMBEDDED;
    b.tetgen.resolution = 0.045;
  }
  for (int k = 0; k < 3; k++) b.rotate_deg[k] = 360.0 * rnd(v);
  /* above the current bodies, somewhere over their footprint */
  double lo[3], hi[3];
  bodies_box(v, lo, hi);
  b.translate[0] = lo[0] + (hi[0] - lo[0]) * (0.25 + 0.5 * rnd(v));
  b.translate[1] = hi[1] + 2.5 * s;
  b.translate[2] = lo[2] + (hi[2] - lo[2]) * (0.25 + 0.5 * rnd(v));
  if (kind == 4) { /* the bunny's origin is near its base */
    b.translate[1] = hi[1] + 0.1;
  }
  start_meshing(v, &b);
}

/* the box of the world's bodies, or of a 1 m patch of ground in an empty world */
static void bodies_box(const Viewer *v, double lo[3], double hi[3]) {
  if (v->world.model->nbody > 0) {
    jl_camera_world_box(&v->world, lo, hi);
    return;
  }
  double y = v->world.model->world.has_ground ? v->world.model->world.ground_y : 0.0;
  lo[0] = lo[2] = -0.5, hi[0] = hi[2] = 0.5;
  lo[1] = hi[1] = y;
}

void jl_viewer_drop_file(Viewer *v, const char *path) {
  if (jl_scene_is_scene_file(path)) {
    /* a scene replaces the world, as if the viewer had been opened on it (R reloads it) */
    snprintf(v->scene_file, sizeof v->scene_file, "%s", path);
    v->def.scene = v->scene_file;
    if (jl_viewer_reset(v)) {
      jl_viewer_frame_camera(v);
      jl_viewer_note(v, "opened %s", path);
    } else {
      jl_viewer_note(v, "%s", "cannot open the scene (see the terminal)");
    }
    return;
  }
  if (v->meshing) {
    jl_viewer_note(v, "still meshing %s", v->spawn_body.def.name);
    return;
  }
  /* a mesh: meshed as `jelly mesh` meshes it and dropped from above the bodies, over their middle */
  JlScene one;
  char err[4096];
  if (jl_scene_open(path, &one, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", jl_cli_msg(err));
    jl_viewer_note(v, "%s", "cannot open the dropped file (see the terminal)");
    return;
  }
  JlSceneBody b = one.body[0];
  one.nbody = 0; /* the body's arrays move to b */
  jl_scene_free(&one);
  char stem[JL_NAME_MAX];
  snprintf(stem, sizeof stem, "%s", b.def.name);
  snprintf(b.def.name, sizeof b.def.name, "%.40s%d", stem, v->scene.nbody);
  double lo[3], hi[3];
  bodies_box(v, lo, hi);
  b.drop_at[0] = 0.5 * (lo[0] + hi[0]);
  b.drop_at[1] = hi[1];
  b.drop_at[2] = 0.5 * (lo[2] + hi[2]);
  start_meshing(v, &b);
}

/* the body alone is meshed on a worker thread (TetGen in its guarded child);
 * the window goes on meanwhile, and jl_viewer_spawn_poll joins the model to
 * the world's when it is ready */
static void start_meshing(Viewer *v, const JlSceneBody *b) {
  v->spawn_body = *b;
  v->spawn_scene = v->scene; /* settings only: no obstacles (the world's stay), one body */
  v->spawn_scene.nobstacle = 0;
  v->spawn_scene.obstacle = NULL;
  v->spawn_scene.nbody = 1;
  v->spawn_scene.body = &v->spawn_body;
  atomic_store(&v->mesh_done, 0);
  v->meshing = 1;
#if defined(__SANITIZE_ADDRESS__)
  /* gcc 12's ASan allocator takes no lock across fork(): a TetGen child forked
   * while the window's thread is inside malloc could wait forever on it
   * (docs/architecture.md, "Threads"), so sanitizer builds mesh here */
  v->mesh_thread = 0;
#else
  v->mesh_thread = pthread_create(&v->mesher, NULL, mesh_worker, v) == 0;
#endif
  if (!v->mesh_thread) mesh_worker(v);               /* no thread: mesh here */
  if (v->def.frames > 0) jl_viewer_spawn_poll(v, 1); /* scripted runs stay deterministic */
}

int jl_viewer_spawn_poll(Viewer *v, int wait) {
  if (!v->meshing || (!wait && !atomic_load(&v->mesh_done))) return 0;
  if (v->mesh_thread) pthread_join(v->mesher, NULL);
  v->meshing = 0;
  const char *name = v->spawn_body.def.name;
  if (v->spawn_rc != JL_OK) {
    fprintf(stderr, "jelly view: %s\n", v->spawn_err);
    jl_viewer_note(v, "%s", "spawn failed (see the terminal)");
    return 0;
  }
  /* the world's model (its bodies first) and the new body's, in one numbering */
  JlModel parts[2] = {*v->world.model, v->spawn_model}, m;
  char err[1024];
  JlResult r = jl_model_concat(&m, 2, parts, err, sizeof err);
  jl_model_free(&v->spawn_model);
  if (r != JL_OK) {
    fprintf(stderr, "jelly view: %s\n", jl_cli_msg(err));
    jl_viewer_note(v, "%s", "spawn failed (see the terminal)");
    return 0;
  }
  JlWorld old = v->world;
  v->has_world = 0; /* keep `old` alive until the new world holds its state */
  if (!adopt_model(v, &m, &old)) {
    v->world = old;
    v->has_world = 1;
    jl_viewer_note(v, "%s", "spawn failed (see the terminal)");
    return 0;
  }
  jl_world_destroy(&old);
  v->scene.body = jl_realloc(v->scene.body, (size_t)v->scene.nbody + 1, sizeof *v->scene.body);
  v->scene.body[v->scene.nbody++] = v->spawn_body;
  jl_viewer_note(v, "spawned %s", name);
  return 1;
}

void jl_viewer_spawn_cancel(Viewer *v) {
  if (!v->meshing) return;
  if (v->mesh_thread) pthread_join(v->mesher, NULL);
  v->meshing = 0;
  if (v->spawn_rc == JL_OK) jl_model_free(&v->spawn_model);
}

/* the step of integrator i when none was given: the scene's default (1/60 s,
 * at most a frame) for the implicit one, half the stability limit of the
 * scene's fastest mode for the explicit ones (jl_world_stable_dt, as `jelly run`) */
double jl_viewer_default_step(Viewer *v, JlIntegrator i) {
  int auto_dt = !jl_integrator_is_implicit(i);
  double dt = auto_dt || v->scene.dt > v->frame_dt ? v->frame_dt : v->scene.dt;
  return jl_world_step_plan(&v->world, i, v->frame_dt, dt, auto_dt, 0.0).h;
}

void jl_viewer_cycle_integrator(Viewer *v) {
  JlIntegrator i = (JlIntegrator)((v->world.def.integrator + 1) % JL_INTEGRATOR_COUNT);
  jl_world_set_integrator(&v->world, i);
  v->scene.step.integrator = i;
  if (!v->h_given) v->h = jl_viewer_default_step(v, i);
  char text[96];
  snprintf(text, sizeof text, "%s, dt %.3g s", jl_integrator_name(i), v->h);
  jl_viewer_note(v, "integrator %s", text);
}

int jl_viewer_step_world(Viewer *v, double h, double *ms, int *cg, char *msg, size_t msgsz) {
  JlStepReport rep;
  double t0 = jl_seconds();
  JlResult r = jl_world_step(&v->world, h, &rep);
  *ms = 1e3 * (jl_seconds() - t0);
  *cg = rep.cg_iterations;
  if (!r) {
    jl_timeline_after_step(&v->tl, &v->world);
    jl_plots_after_step(&v->plots, &v->world, rep.cg_iterations);
    return 1;
  }
  /* the world's message names the body and the time of the failed step */
  if (strstr(rep.message, "t = "))
    snprintf(msg, msgsz, "%s", jl_cli_msg(rep.message));
  else
    snprintf(msg, msgsz, "diverged at t = %.3f s: %s", v->world.state.t, jl_cli_msg(rep.message));
  return 0;
}

int jl_viewer_step(Viewer *v) {
  double ms = 0.0;
  int ok = jl_viewer_step_world(v, v->h, &ms, &v->cg_last, v->error, sizeof v->error);
  v->ms_step = 0.8 * v->ms_step + 0.2 * ms;
  v->steps_total += ok;
  if (!ok) {
    fprintf(stderr, "jelly view: %s\n", v->error);
    v->paused = 1;
    jl_viewer_drag_release(v);
  }
  return ok;
}
