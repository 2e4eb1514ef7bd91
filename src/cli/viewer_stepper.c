/* The interactive viewer steps on a worker thread (src/cli/viewer_internal.h),
 * so the window draws, orbits and zooms at the display's rate whatever a
 * step costs; scripted runs (--frames) step on the window's thread, frame by
 * frame, and stay reproducible.
 *
 * The world belongs to one thread at a time. The worker takes a step when
 * the window has granted it simulated time (credit: the wall time of each
 * displayed frame, at most JL_STEPPER_CREDIT seconds ahead, so a solver that
 * cannot keep up drops the debt instead of running behind for ever) and
 * nobody holds the world; after each step it publishes a copy of the world's
 * struct and of its positions and velocities. The window thread draws from
 * its own copy of that (jl_viewer_stepper_frame), and holds the world
 * (jl_viewer_hold: waits for the step under way, at most one) for whatever
 * reads or changes it: keys, picking and dragging a body, spawning, the
 * script's events, the contacts layer (it reads the contact element); it
 * lets go once a frame (jl_viewer_release). Both sides change the shared
 * fields only under the mutex, which also orders every change of the world
 * by one thread before the other's next use of it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/viewer_internal.h"

/* the most simulated time (s) the worker may run ahead of what it has
 * stepped: a hiccup of up to this much is caught up, more is dropped */
#define JL_STEPPER_CREDIT 0.1

/* two buffers of n3 doubles each (kept when large enough) */
static void grow(double **x, double **u, size_t *cap, size_t n3) {
  if (*cap >= n3 && *x && *u) return;
  free(*x);
  free(*u);
  *x = jl_calloc(n3 + 1, sizeof(double));
  *u = jl_calloc(n3 + 1, sizeof(double));
  *cap = n3;
}

/* the worker's published copy from the world as it is now (the world is
 * the caller's, and the caller holds the lock) */
static void publish(Viewer *v) {
  ViewerStepper *s = &v->stepper;
  size_t n3 = 3 * (size_t)v->world.model->nnode;
  grow(&s->x, &s->v, &s->cap, n3);
  memcpy(s->x, v->world.state.x, n3 * sizeof(double));
  memcpy(s->v, v->world.state.v, n3 * sizeof(double));
  s->shown = v->world;
}

static void *stepper_main(void *arg) {
  Viewer *v = arg;
  ViewerStepper *s = &v->stepper;
  pthread_mutex_lock(&s->lock);
  while (!s->stop) {
    if (s->hold || s->failed || s->credit < s->h * (1.0 - 1e-9)) {
      pthread_cond_wait(&s->wake, &s->lock);
      continue;
    }
    double h = s->h;
    s->credit -= h;
    s->stepping = 1;
    pthread_mutex_unlock(&s->lock);

    double ms = 0.0;
    int cg = 0;
    char msg[sizeof s->message];
    int ok = jl_viewer_step_world(v, h, &ms, &cg, msg, sizeof msg);

    pthread_mutex_lock(&s->lock);
    s->stepping = 0;
    s->ms_step = s->steps ? 0.8 * s->ms_step + 0.2 * ms : ms;
    s->cg_last = cg;
    if (ok) {
      s->stepped += h;
      s->steps++;
    } else {
      s->failed = 1;
      s->credit = 0.0;
      snprintf(s->message, sizeof s->message, "%s", msg);
    }
    publish(v); /* what the window draws: the world's struct and its state after this step */
    pthread_cond_broadcast(&s->idle);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

int jl_viewer_stepper_start(Viewer *v) {
  ViewerStepper *s = &v->stepper;
  memset(s, 0, sizeof *s);
  v->stepper_seen = 0;
  s->h = v->h;
  publish(v);
  if (pthread_mutex_init(&s->lock, NULL)) return 0;
  if (pthread_cond_init(&s->wake, NULL)) {
    pthread_mutex_destroy(&s->lock);
    return 0;
  }
  if (pthread_cond_init(&s->idle, NULL)) {
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    return 0;
  }
  if (pthread_create(&s->thread, NULL, stepper_main, v)) {
    pthread_cond_destroy(&s->idle);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    return 0;
  }
  s->running = 1;
  v->shown = &v->disp;
  jl_viewer_stepper_frame(v, 0.0);
  return 1;
}

void jl_viewer_stepper_stop(Viewer *v) {
  ViewerStepper *s = &v->stepper;
  if (s->running) {
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->idle);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    s->running = 0;
  }
  free(s->x);
  free(s->v);
  free(v->disp_x);
  free(v->disp_v);
  s->x = s->v = v->disp_x = v->disp_v = NULL;
  s->cap = v->disp_cap = 0;
  v->shown = &v->world;
}

void jl_viewer_hold(Viewer *v) {
  ViewerStepper *s = &v->stepper;
  if (!s->running || v->held) return;
  pthread_mutex_lock(&s->lock);
  s->hold = 1;
  while (s->stepping) pthread_cond_wait(&s->idle, &s->lock);
  pthread_mutex_unlock(&s->lock);
  v->held = 1;
}

void jl_viewer_release(Viewer *v) {
  ViewerStepper *s = &v->stepper;
  if (!s->running || !v->held) return;
  pthread_mutex_lock(&s->lock);
  s->hold = 0;
  pthread_cond_broadcast(&s->wake);
  pthread_mutex_unlock(&s->lock);
  v->held = 0;
}

double jl_viewer_stepper_frame(Viewer *v, double wall) {
  ViewerStepper *s = &v->stepper;
  if (!s->running) return 0.0;
  /* a step that diverged: paused with its message until R resets */
  pthread_mutex_lock(&s->lock);
  int failed = s->failed;
  if (failed) snprintf(v->error, sizeof v->error, "%s", s->message);
  s->failed = 0; /* the worker waits for credit, which a paused viewer does not give */
  pthread_mutex_unlock(&s->lock);
  if (failed) {
    jl_viewer_hold(v);
    fprintf(stderr, "jelly view: %s\n", v->error);
    v->paused = 1;
    jl_viewer_drag_release(v);
  }
  pthread_mutex_lock(&s->lock);
  if (v->held) {
    /* the window may have changed the world (keys, spawn, reset, drag): show it as it is, step it with
     * the window's step length */
    publish(v);
    s->h = v->h;
  }
  if (v->paused) {
    /* nothing more once paused; N grants one step (taken even if the next frame comes first) */
    if (!s->paused) s->credit = 0.0;
    if (v->step_once) s->credit = s->h;
  } else {
    s->credit += wall;
    double cap = JL_STEPPER_CREDIT > s->h ? JL_STEPPER_CREDIT : s->h;
    if (s->credit > cap) s->credit = cap;
  }
  s->paused = v->paused;
  double stepped = s->stepped;
  s->stepped = 0.0;
  v->steps_total += s->steps - v->stepper_seen;
  v->stepper_seen = s->steps;
  v->ms_step = s->ms_step;
  v->cg_last = s->cg_last;
  v->disp = s->shown;
  size_t n3 = 3 * (size_t)s->shown.model->nnode;
  grow(&v->disp_x, &v->disp_v, &v->disp_cap, n3);
  memcpy(v->disp_x, s->x, n3 * sizeof(double));
  memcpy(v->disp_v, s->v, n3 * sizeof(double));
  v->disp.state.x = v->disp_x;
  v->disp.state.v = v->disp_v;
  pthread_cond_broadcast(&s->wake);
  pthread_mutex_unlock(&s->lock);
  return stepped;
}
