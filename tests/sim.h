/* The scene runner of the acceptance tests (tests/test_contact.c,
 * tests/test_thin.c): a scene from models/scenes/ loaded through the library
 * (jl_scene_load, jl_scene_build, jl_world_create, as `jelly run` does),
 * stepped frame by frame, and one printed line per run with each metric
 * next to its limit.
 *
 * A Sim overrides the scene's time step: "dt" is the largest step asked for;
 * each frame of 1/fps is split into ceil((1/fps)/dt) equal steps of length h
 * (as `jelly run`), so dt = 0.002 at 60 fps runs h = 1/540 s. Every run
 * tracks the energy rule: the total mechanical energy (kinetic + elastic +
 * gravity + penalty, JlEnergy) never rising between consecutive frames by more
 * than ENERGY_RISE of its scale |E(0)| (or KE(0) + |gravity(0)| when |E(0)| is
 * below 1 % of that, E(0) ~ 0 by cancellation). With JL_TEST_QUICK set
 * (sanitizer runs) every run stops at QUICK_T simulated seconds.
 *
 * Known gaps: the including file defines the table
 *
 *     const Gap gaps[] = {{"case", dt, "metric"}, ...};
 *     const size_t ngaps = sizeof gaps / sizeof gaps[0];
 *
 * of criteria the engine does not meet yet. They are measured and printed as
 * GAP instead of failing their case; JL_TEST_GAPS=1 makes them fail like the
 * rest. A gap that closes leaves the table, so its criterion is asserted from
 * then on. dt 0 = both time steps; metric "*" = every metric of the case; the
 * energy rule (rep_energy) is the metric "energy_rise_rel".
 *
 * Everything here is static inline: one test executable per file includes it
 * once and uses what it needs. */
#ifndef JL_TESTS_SIM_H
#define JL_TESTS_SIM_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/contact.h"
#include "src/scene.h"
#include "src/world.h"
#include "tests/harness.h"

#define DT60        (1.0 / 60.0)
#define DT002       0.002
#define QUICK_T     0.5  /* s, simulated time per run under JL_TEST_QUICK */
#define ENERGY_RISE 0.01 /* fraction of the energy scale allowed per frame */
#define PI          3.14159265358979323846


/* ---------------------------------------------------------------------------
 * the helper library: a scene run frame by frame */

typedef struct Sim Sim;
typedef void (*SimHook)(Sim *s, void *ctx);

struct Sim {
  char scene[128]; /* file name in models/scenes */
  JlScene sc;
  JlWorld w;
  double dt;  /* requested largest step, s */
  double fps; /* output frames per second */
  double h;   /* actual step, s */
  int steps_per_frame;
  int frame;      /* last frame reached (-1 before the first) */
  int nframe;     /* frames to run */
  double t_end;   /* s */
  double wall;    /* s spent stepping */
  double t_start; /* jl_seconds() at sim_load: the run's total wall time is measured from it */
  int built;      /* the world exists */
  int diverged;
  char message[384];
  long crossing_splits; /* steps the engine redid as halves because thin primitives crossed (JlStepReport) */
  /* energy rule (top of this file) */
  int energy_after_separation; /* start the rule at the first frame without contacts */
  int energy_started;
  double e0, escale, e_prev, rise_max, rise_max_t;
  JlEnergy parts_prev;
  double rise_parts[4]; /* kinetic, elastic, gravity, penalty change at the largest rise */
};

static inline const JlForce *contacts_of(const JlWorld *w) { return jl_world_find_force(w, JL_FORCE_CONTACTS); }

static inline int contact_count(const JlWorld *w) {
  const JlForce *c = contacts_of(w);
  return c ? jl_contact_count(c) : 0;
}

static inline double total_energy(const JlWorld *w, JlEnergy *parts) {
  JlEnergy e;
  jl_world_energy(w, &e);
  if (parts) *parts = e;
  return e.kinetic + e.elastic + e.gravity + e.ground;
}

/* Loads models/scenes/<scene> (or the file <scene> when it is an absolute
 * or ./-relative path) and sets the run up: dt overrides the
 * scene's largest step (0: keep it), fps the output cadence (0: 60, or 1/dt
 * when dt is longer than a frame); the run ends at `duration` (0: the scene's
 * duration), at most QUICK_T under JL_TEST_QUICK. Nothing is built yet.
 * Returns 0 after reporting the failure. */
static inline int sim_load(Sim *s, const char *scene, double dt, double fps, double duration) {
  memset(s, 0, sizeof *s);
  s->t_start = jl_seconds();
  snprintf(s->scene, sizeof s->scene, "%s", scene);
  char path[4096], err[4096];
  if (scene[0] == '/' || strncmp(scene, "./", 2) == 0)
    snprintf(path, sizeof path, "%s", scene);
  else
    snprintf(path, sizeof path, "%s/scenes/%s", JL_MODELS_DIR, scene);
  if (jl_scene_load(path, &s->sc, err, sizeof err)) {
    jl_test_fail(__FILE__, __LINE__, "%s", err);
    return 0;
  }
  if (dt > 0) s->sc.dt = dt;
  if (fps <= 0) fps = s->sc.dt > 1.0 / 60.0 + 1e-12 ? 1.0 / s->sc.dt : 60.0;
  s->sc.fps = fps;
  s->dt = s->sc.dt;
  s->fps = fps;
  s->steps_per_frame = (int)ceil((1.0 / fps) / s->sc.dt - 1e-9);
  if (s->steps_per_frame < 1) s->steps_per_frame = 1;
  s->h = (1.0 / fps) / s->steps_per_frame;
  s->t_end = duration > 0 ? duration : s->sc.duration;
  if (jl_test_quick() && s->t_end > QUICK_T) s->t_end = QUICK_T;
  s->nframe = (int)ceil(s->t_end * fps - 1e-9);
  s->frame = -1;
  s->rise_max = -INFINITY;
  s->rise_max_t = NAN;
  /* the contact element reports penalty energy only after its first
   * detection, so E(0) of a scene starting with bodies overlapping misses it */
  s->energy_after_separation = strcmp(scene, "contact_overlap_start.json") == 0;
  return 1;
}

/* Builds the model and the world of a loaded scene (as `jelly run` does).
 * Returns 0 after reporting the failure (the scene is then freed). */
static inline int sim_build(Sim *s) {
  char err[4096];
  JlModel m;
  if (jl_scene_build(&s->sc, &m, NULL, err, sizeof err)) {
    jl_test_fail(__FILE__, __LINE__, "%s", err);
    jl_scene_free(&s->sc);
    return 0;
  }
  if (jl_world_create(&s->w, &m, &s->sc.step, err, sizeof err)) {
    jl_test_fail(__FILE__, __LINE__, "%s", err);
    jl_scene_free(&s->sc);
    return 0;
  }
  s->built = 1;
  return 1;
}

static inline int sim_open(Sim *s, const char *scene, double dt, double fps, double duration) {
  return sim_load(s, scene, dt, fps, duration) && sim_build(s);
}

static inline void sim_close(Sim *s) {
  if (s->built) jl_world_destroy(&s->w);
  jl_scene_free(&s->sc);
}

static inline double sim_t(const Sim *s) { return s->w.state.t; }
/* index of the frame at time t (s) */
static inline int frame_at(const Sim *s, double t) { return (int)lround(t * s->fps); }

/* Advances to the next output frame (the first call only records frame 0),
 * calling step_hook (may be NULL) after every step. Returns 0 when the run
 * is over (end time reached, or diverged: s->diverged, s->message). */
static inline int sim_frame(Sim *s, SimHook step_hook, void *ctx) {
  if (s->diverged || s->frame >= s->nframe) return 0;
  if (s->frame >= 0) {
    double t0 = jl_seconds();
    for (int k = 0; k < s->steps_per_frame; k++) {
      JlStepReport rep;
      if (jl_world_step(&s->w, s->h, &rep) != JL_OK) {
        s->diverged = 1;
        snprintf(s->message, sizeof s->message, "%s", rep.message);
        break;
      }
      s->crossing_splits += rep.crossing_splits;
      if (step_hook) step_hook(s, ctx);
    }
    s->wall += jl_seconds() - t0;
  }
  s->frame++;
  JlEnergy parts;
  double e = total_energy(&s->w, &parts);
  if (!s->energy_started && (s->frame == 0 || s->energy_after_separation) && !s->diverged &&
      (!s->energy_after_separation || (s->frame > 0 && contact_count(&s->w) == 0))) {
    /* the rule's reference: |E|, or KE + |gravity| when E is ~0 by cancellation */
    s->energy_started = 1;
    s->e0 = e;
    double alt = parts.kinetic + fabs(parts.gravity);
    s->escale = fabs(e) >= 0.01 * alt ? fabs(e) : alt;
    if (!(s->escale > 0)) s->escale = 1e-12;
  } else if (s->energy_started && !s->diverged) {
    double rise = e - s->e_prev;
    if (!(rise <= s->rise_max)) { /* larger, or NaN */
      s->rise_max = rise;
      s->rise_max_t = sim_t(s);
      s->rise_parts[0] = parts.kinetic - s->parts_prev.kinetic;
      s->rise_parts[1] = parts.elastic - s->parts_prev.elastic;
      s->rise_parts[2] = parts.gravity - s->parts_prev.gravity;
      s->rise_parts[3] = parts.ground - s->parts_prev.ground;
    }
  }
  s->e_prev = e;
  s->parts_prev = parts;
  return !s->diverged;
}

/* runs to the end without looking */
static inline void sim_run(Sim *s) {
  while (sim_frame(s, NULL, NULL)) {
  }
}

static inline int body_index(const Sim *s, const char *name) {
  const JlModel *m = s->w.model;
  for (int b = 0; b < m->nbody; b++)
    if (strcmp(m->body[b].name, name) == 0) return b;
  JL_ASSERT(0, "tests/sim.h: the scene has no body with this name");
  return -1;
}

static inline void body_com(const JlWorld *w, int b, double c[3]) { jl_model_body_com(w->model, w->state.x, b, c); }

static inline double body_mass(const JlWorld *w, int b) {
  const JlBody *bd = &w->model->body[b];
  double mass = 0;
  for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) mass += w->model->mass[i];
  return mass;
}

static inline void body_momentum(const JlWorld *w, int b, double p[3]) {
  const JlModel *m = w->model;
  const JlBody *bd = &m->body[b];
  p[0] = p[1] = p[2] = 0;
  for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++)
    for (int a = 0; a < 3; a++) p[a] += m->mass[i] * w->state.v[3 * i + a];
}

static inline double body_ke(const JlWorld *w, int b) {
  const JlModel *m = w->model;
  const JlBody *bd = &m->body[b];
  double ke = 0;
  for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
    const double *v = &w->state.v[3 * i];
    ke += 0.5 * m->mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  return ke;
}

/* lowest and highest node y of body b */
static inline void body_y_range(const JlWorld *w, int b, double *lo, double *hi) {
  const JlBody *bd = &w->model->body[b];
  *lo = INFINITY, *hi = -INFINITY;
  for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
    double y = w->state.x[3 * i + 1];
    if (y < *lo) *lo = y;
    if (y > *hi) *hi = y;
  }
}

static inline double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static inline double hdist(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static inline double dist3(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---------------------------------------------------------------------------
 * one printed line per run: metrics with their limits */

typedef enum { LE, GE } Cmp;

typedef struct Report {
  char text[4096];
  size_t len;
  int nfail;
  char failed[512];
  char name[192]; /* case label (scene stem) */
  double dt;      /* s, the dt asked for */
} Report;

/* Known gaps (see the top of this file); defined by the including test. */
typedef struct Gap {
  const char *name; /* Report.name, or the scene file for the energy rule */
  double dt;
  const char *metric;
} Gap;
extern const Gap gaps[];
extern const size_t ngaps;

static inline int is_gap(const char *name, double dt, const char *metric) {
  const char *all = getenv("JL_TEST_GAPS");
  if (all && *all && strcmp(all, "0") != 0) return 0;
  for (size_t i = 0; i < ngaps; i++)
    if (strcmp(gaps[i].name, name) == 0 && (gaps[i].dt == 0 || fabs(gaps[i].dt - dt) < 1e-9 * dt) &&
        (strcmp(gaps[i].metric, "*") == 0 || strcmp(gaps[i].metric, metric) == 0))
      return 1;
  return 0;
}

static inline void rep_add(Report *r, const char *fmt, ...) {
  if (r->len >= sizeof r->text) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(r->text + r->len, sizeof r->text - r->len, fmt, ap);
  va_end(ap);
  if (n > 0) r->len += (size_t)n;
  if (r->len > sizeof r->text) r->len = sizeof r->text;
}

static inline void rep_start(Report *r, const char *name, const Sim *s) {
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->dt = s->dt;
  rep_add(r, "%s dt=%.4g h=%.4g", name, s->dt, s->h);
}

/* value against limit; checked = 0 prints it as n/a (quick runs) */
static inline void rep_metric(Report *r, const char *name, double value, Cmp cmp, double limit, int checked) {
  int ok = cmp == LE ? value <= limit : value >= limit; /* NaN fails */
  int gap = !ok && is_gap(r->name, r->dt, name);
  rep_add(r, "  %s=%.3g (limit %s %.3g) %s", name, value, cmp == LE ? "<=" : ">=", limit,
          !checked ? "n/a"
          : ok     ? "ok"
          : gap    ? "GAP"
                   : "FAIL");
  if (checked && !ok && !gap) {
    r->nfail++;
    size_t l = strlen(r->failed);
    snprintf(r->failed + l, sizeof r->failed - l, "%s%s", l ? ", " : "", name);
  }
}

static inline void rep_info(Report *r, const char *name, double value) { rep_add(r, "  %s=%.3g", name, value); }

/* prints the line; a diverged run or a failed metric fails the case */
static inline void rep_finish(Report *r, const Sim *s) {
  if (s->diverged) {
    rep_add(r, "  DIVERGED at t=%.3f: %s", sim_t(s), s->message);
    r->nfail++;
    size_t l = strlen(r->failed);
    snprintf(r->failed + l, sizeof r->failed - l, "%sdiverged", l ? ", " : "");
  }
  printf("  %s  [%.2f s, stepping %.2f s]\n", r->text, jl_seconds() - s->t_start, s->wall);
  fflush(stdout);
  if (r->nfail) jl_test_fail(__FILE__, __LINE__, "%s dt=%.4g: out of limits: %s", s->scene, s->dt, r->failed);
}

#define TWO_DT(fn)                          \
  static void fn##_dt60(void) { fn(DT60); } \
  static void fn##_dt002(void) { fn(DT002); }

/* the energy rule of the whole run as the metric energy_rise_rel (scenes
 * without wind); a run whose rule never started (contact_overlap_start.json
 * never separating) fails it */
static inline void rep_energy(Report *r, const Sim *s) {
  rep_metric(r, "energy_rise_rel", s->energy_started ? s->rise_max / s->escale : NAN, LE, ENERGY_RISE, 1);
  rep_add(r, "  (rise %.3g J at t=%.3f of scale %.4g J: dKE %.3g dEl %.3g dGrav %.3g dPen %.3g)%s", s->rise_max,
          s->rise_max_t, s->escale, s->rise_parts[0], s->rise_parts[1], s->rise_parts[2], s->rise_parts[3],
          s->energy_started ? "" : " (never separated: rule not started)");
}

#endif
