/* What the files of the viewer application share (src/cli/viewer.c and the
 * files it is split into, docs/viewer.md): the scripted events, the viewer's
 * state and the functions one part calls in another. Private to src/cli/viewer*.c:
 *   viewer.c         jl_viewer_run: window, renderer, the main loop and its pacing, the report
 *   viewer_world.c   the simulated world: build and rebuild from the scene, reset, spawning,
 *                    gravity on/off, integrator and time step, one step with divergence handling
 *   viewer_stepper.c interactive runs: the worker thread that steps the world, the window's hold
 *                    on it, the copy of the state the window draws
 *   viewer_input.c   mouse and keys: orbit, pan, zoom, the drag of bodies, screenshots
 *   viewer_script.c  the --script file: parsing and replay, frame by frame
 *   viewer_hud.c     what is drawn over the scene: HUD, help, messages, the drag spring */
#ifndef JL_SRC_CLI_VIEWER_INTERNAL_H
#define JL_SRC_CLI_VIEWER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "render/internal.h"
#include "src/cli/viewer.h"
#include "src/scene.h"

/* ---- script events (viewer_script.c) ---- */

typedef enum EvType { EV_KEY, EV_DRAG, EV_ORBIT, EV_ZOOM, EV_SCREENSHOT, EV_COUNT } EvType;

typedef struct Event {
  int frame;
  EvType type;
  SDL_Keycode key;
  double a[5]; /* drag: x0 y0 x1 y1 nframes; orbit: yaw pitch (deg); zoom: factor */
  char file[1024];
} Event;

/* ---- the stepping thread of interactive runs (viewer_stepper.c) ---- */

typedef struct ViewerStepper {
  int running; /* the thread was started */
  pthread_t thread;
  /* the fields below are shared: read and written under `lock` */
  pthread_mutex_t lock;
  pthread_cond_t wake; /* the worker waits here for credit, the end of a hold, or stop */
  pthread_cond_t idle; /* the window waits here for the step under way */
  int stop, hold, stepping, failed;
  int paused;     /* the window was paused at its last frame */
  double h;       /* the step length (s) the worker takes */
  double credit;  /* simulated seconds the worker may still step */
  double stepped; /* simulated seconds stepped since the window last looked */
  long steps;     /* steps taken */
  double ms_step; /* wall ms per step, smoothed */
  int cg_last;
  char message[512]; /* why the failed step failed */
  JlWorld shown;     /* the world's struct after the last step ... */
  double *x, *v;     /* ... and its positions and velocities */
  size_t cap;        /* doubles in x and v */
} ViewerStepper;

/* ---- the viewer's state ---- */

typedef struct Viewer {
  JlViewerDef def;
  JlScene scene;
  JlWorld world;
  int has_world;
  JlForce *drag;    /* owned by the world */
  JlForce *gravity; /* detached gravity element while gravity is off (owned here) */
  int gravity_off;
  double h;        /* step, s */
  int h_given;     /* the step came from --dt, the scene's dt or the +/- keys: kept when the
                            integrator changes; otherwise each integrator gets its default */
  double frame_dt; /* 1 / fps */
  SDL_Window *win;
  SDL_Renderer *sdl;
  JlRenderer *r;
  JlCamera cam;
  int follow; /* the camera follows the bodies until the user moves it (F: again) */
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
  double t_start, sim_total, wall_total; /* --seconds: start, simulated and wall time while running */
  long steps_total;                      /* steps taken */
  /* a spawned body meshed on a worker thread (viewer_world.c): the window
   * keeps drawing and stepping meanwhile; the body joins the world when its
   * model is ready */
  int meshing; /* 1 while the worker runs or its result waits */
  pthread_t mesher;
  int mesh_thread;        /* the worker is a thread to join (else it ran inline) */
  atomic_int mesh_done;   /* set by the worker when spawn_model (or spawn_err) is ready */
  JlSceneBody spawn_body; /* the body being meshed */
  JlScene spawn_scene;    /* the worker's one-body scene: v->scene's settings, body = &spawn_body */
  JlModel spawn_model;
  int spawn_rc;
  char spawn_err[1024];
  /* interactive runs step on a worker thread (viewer_stepper.c); scripted
   * runs step here and draw the world itself */
  ViewerStepper stepper;
  int held;             /* the window thread holds the world (jl_viewer_hold) */
  long stepper_seen;    /* the worker's steps counted into steps_total */
  const JlWorld *shown; /* what is drawn: &world, or &disp while the worker runs */
  JlWorld disp;         /* the published world with the window's own copy of the state */
  double *disp_x, *disp_v;
  size_t disp_cap;
} Viewer;

/* viewer_script.c: reads the --script file (docs/viewer.md); 0 after printing the reason */
int jl_viewer_load_script(const char *path, Event **out, int *nout);
/* the script's input for this frame, before stepping */
void jl_viewer_run_script(Viewer *v);
/* 1 when the script has input for this frame (a scripted drag under way included) */
int jl_viewer_script_due(const Viewer *v);

/* viewer_world.c */
void jl_viewer_note(Viewer *v, const char *fmt, const char *arg); /* a HUD message for 2.5 s */
void jl_viewer_body_com(const JlWorld *w, int b, double com[3]);  /* body b's centre of mass */
void jl_viewer_detach_gravity(Viewer *v);
/* builds model and world from v->scene, carrying x, v, t over from `old` (may be NULL); 0 after printing */
int jl_viewer_build_world(Viewer *v, const JlWorld *old);
void jl_viewer_frame_camera(Viewer *v);
int jl_viewer_reset(Viewer *v); /* reloads the scene file; 0 after printing */
/* 1 box, 2 sphere, 3 torus, 4 bunny, 5 random: meshed on a worker thread
 * (jl_viewer_spawn_poll adds it); a scripted run (def.frames > 0) waits for it */
void jl_viewer_spawn(Viewer *v, int kind);
/* adds a spawned body whose mesh is ready (wait: block until it is); 1 when one was added */
int jl_viewer_spawn_poll(Viewer *v, int wait);
/* waits for a running mesher and drops its body (reset, quit) */
void jl_viewer_spawn_cancel(Viewer *v);
double jl_viewer_default_step(Viewer *v, JlIntegrator i);
void jl_viewer_cycle_integrator(Viewer *v);
int jl_viewer_step(Viewer *v); /* one step of v->h; 0 when it diverged (paused, message set) */
/* one step of h on v->world and nothing else of v (the worker's step): its wall
 * ms and CG iterations; 0 with the message when it diverged */
int jl_viewer_step_world(Viewer *v, double h, double *ms, int *cg, char *msg, size_t msgsz);

/* viewer_stepper.c */
int jl_viewer_stepper_start(Viewer *v); /* 1 when the worker runs (v->shown = &v->disp) */
void jl_viewer_stepper_stop(Viewer *v); /* joins the worker; v->shown = &v->world */
void jl_viewer_hold(Viewer *v);         /* the world is the window's until jl_viewer_release */
void jl_viewer_release(Viewer *v);
/* once a frame: grants `wall` s of simulated time (none while paused, one
 * step for N), takes the state to draw into v->disp and the HUD's figures;
 * returns the simulated time stepped since the last call */
double jl_viewer_stepper_frame(Viewer *v, double wall);

/* viewer_input.c */
void jl_viewer_mouse_target(Viewer *v, double out[3]); /* the mouse on the drag plane */
void jl_viewer_drag_press(Viewer *v);
void jl_viewer_drag_release(Viewer *v);
void jl_viewer_drag_update(Viewer *v, double dt);
void jl_viewer_screenshot(Viewer *v, const char *path); /* NULL: jelly_NNN.png */
void jl_viewer_handle_key(Viewer *v, SDL_Keycode key, int want_shot);
void jl_viewer_handle_event(Viewer *v, const SDL_Event *e);
/* 1 when handling e reads or changes the world (keys, picking, releasing a drag) */
int jl_viewer_event_needs_world(const Viewer *v, const SDL_Event *e);

/* viewer_hud.c */
void jl_viewer_draw_hud(Viewer *v);
void jl_viewer_draw_drag(Viewer *v);

#endif
