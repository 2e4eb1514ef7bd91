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

typedef enum EvType { EV_KEY, EV_DRAG, EV_ORBIT, EV_ZOOM, EV_SCREENSHOT, EV_DROP, EV_COUNT } EvType;

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

/* ---- the timeline: recent states for rewinding (viewer_timeline.c) ---- */

typedef struct JlSnapshot JlSnapshot;
typedef struct Timeline {
  pthread_mutex_t lock; /* the ring's bookkeeping: the worker adds, the window reads and seeks */
  JlSnapshot **snap;    /* ring of cap snapshots, count of them from start (the oldest) */
  int cap, start, count;
  int want;      /* snapshots asked for: --history seconds at the frame rate, + 1 */
  int capped;    /* 1: a quarter of the memory holds fewer than want */
  int cursor;    /* the snapshot the world was set back to (paused), -1 while live */
  size_t bytes;  /* held by the snapshots */
  size_t budget; /* bytes the ring may hold */
  double frame_dt, next_t;
} Timeline;

/* what the timeline bar shows */
typedef struct TimelineSpan {
  int count, cursor, capped;
  size_t bytes;
  double t0, t1, tc; /* s: oldest, newest and the shown snapshot (t1 while live) */
} TimelineSpan;

void jl_timeline_init(Timeline *tl, double seconds, double frame_dt);
void jl_timeline_clear(Timeline *tl); /* a new model: the timeline starts again */
void jl_timeline_free(Timeline *tl);
/* after a step of w: a snapshot when the step reached the next frame boundary */
void jl_timeline_after_step(Timeline *tl, const JlWorld *w);
void jl_timeline_span(Timeline *tl, TimelineSpan *out);
/* w := snapshot `index` (0 oldest; clamped); 0 (message in err) when none or it does not fit */
int jl_timeline_seek(Timeline *tl, JlWorld *w, int index, char *err, size_t errsz);
/* the snapshot `delta` frames from the one shown (from the live state: the newest before it) */
int jl_timeline_step_index(Timeline *tl, const JlWorld *w, int delta);
/* running again from the snapshot shown: the snapshots after it are dropped */
void jl_timeline_resume(Timeline *tl);
/* the snapshot at fraction frac (0 oldest, 1 newest) of the bar; -1 when empty */
int jl_timeline_index_at(Timeline *tl, double frac);

/* ---- live plots: per step figures of the last seconds (viewer_panels.c) ---- */

enum { PLOT_KINETIC, PLOT_ELASTIC, PLOT_GRAVITY, PLOT_CONTACT, PLOT_CONTACTS, PLOT_CG, PLOT_SERIES };
#define JL_PLOT_SAMPLES 1200 /* steps kept: 20 s at 60 steps per second */
typedef struct Plots {
  pthread_mutex_t lock; /* the stepping thread adds, the window draws */
  atomic_int on;        /* sampled only while the panel is shown (each sample evaluates the energies) */
  int n, head;          /* samples held, and where the next goes */
  double t[JL_PLOT_SAMPLES], val[PLOT_SERIES][JL_PLOT_SAMPLES];
} Plots;
/* after a step (cg: its CG iterations): a sample when the panel is on */
void jl_plots_after_step(Plots *p, const JlWorld *w, int cg);
void jl_plots_clear(Plots *p);

/* ---- recording the window (viewer_panels.c) ---- */

typedef struct Recording {
  int on, frames, count; /* recording now; frames written; recordings made this run */
  char dir[512];         /* jelly_recording_NNN/ in the working directory */
} Recording;

/* ---- the viewer's state ---- */

typedef struct Viewer {
  JlViewerDef def;       /* def.scene: the file shown (NULL: an empty world), reloaded by R */
  char scene_file[4096]; /* a scene file dropped on the window (def.scene then points here) */
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
  char script_error[512]; /* the first scripted event that could not do what it says (exit 2, in the report) */
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
  Timeline tl;   /* recent states (viewer_timeline.c) */
  Plots plots;   /* the live plots' samples (L) */
  Recording rec; /* the window recorded to PNG frames (M) */
  int scrubbing; /* the left button went down on the timeline bar and is held */
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
/* a file dropped on the window (SDL_DROPFILE, or a script's `drop`): a scene replaces the world, a
 * surface or tet mesh joins it as a body dropped from above the others, meshed on the worker thread */
void jl_viewer_drop_file(Viewer *v, const char *path);
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

/* viewer_input.c: rewinding by the timeline: `delta` frames (from the live state: the newest snapshot
 * before it), or to snapshot `index` when delta is 0; pauses */
void jl_viewer_rewind(Viewer *v, int delta, int index);
/* 1 when window pixel (x, y) is on the timeline bar; *frac its position along it (0 to 1, clamped) */
int jl_viewer_on_timeline(const Viewer *v, double x, double y, double *frac);

/* viewer_hud.c */
void jl_viewer_draw_hud(Viewer *v);
/* the timeline bar's rectangle in window pixels */
void jl_viewer_timeline_rect(const Viewer *v, int *x, int *y, int *w, int *h);

/* viewer_panels.c */
void jl_viewer_draw_timeline(Viewer *v);
void jl_viewer_draw_plots(Viewer *v);
/* M: starts recording the window, or stops (and encodes an mp4 with ffmpeg when it is there) */
void jl_viewer_record_toggle(Viewer *v);
/* after a frame is drawn: its PNG while recording */
void jl_viewer_record_frame(Viewer *v);
void jl_viewer_draw_drag(Viewer *v);

#endif
