/* The viewer's timeline (src/cli/viewer_internal.h, docs/viewer.md "Rewind
 * and replay"): a ring of whole-state snapshots (src/state.h, JlSnapshot),
 * one per output frame of simulated time (1/fps), the last `--history`
 * seconds of them (10 by default) within a quarter of the machine's memory.
 * The step that crosses a frame boundary takes the snapshot (the worker's
 * step in interactive runs, the window's in scripted ones), so scrubbing
 * restores a state the run really had. Resuming from a past snapshot drops
 * the ones after it: the run continues from there exactly (bitwise) as a
 * run that reached that state would. A change of the model (spawn, a dropped
 * file, reset) starts the timeline again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/viewer_internal.h"
#include "src/state.h"

/* the part of physical memory the timeline may hold */
#define JL_TIMELINE_MEMORY_SHARE 0.25

static size_t memory_budget(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  double bytes = pages > 0 && page > 0 ? (double)pages * (double)page : 4e9;
  return (size_t)(JL_TIMELINE_MEMORY_SHARE * bytes);
}

void jl_timeline_init(Timeline *tl, double seconds, double frame_dt) {
  memset(tl, 0, sizeof *tl);
  pthread_mutex_init(&tl->lock, NULL);
  tl->frame_dt = frame_dt;
  double n = ceil(seconds / frame_dt - 1e-9) + 1;
  tl->want = !(seconds > 0) ? 0 : n < 2 ? 2 : n > 1e7 ? 10000000 : (int)n;
  tl->budget = memory_budget();
  tl->cursor = -1;
}

/* the i-th oldest snapshot (0 <= i < count) */
static JlSnapshot **slot(Timeline *tl, int i) { return &tl->snap[(tl->start + i) % tl->cap]; }

void jl_timeline_clear(Timeline *tl) {
  pthread_mutex_lock(&tl->lock);
  for (int i = 0; i < tl->cap; i++) jl_snapshot_free(tl->snap[i]);
  free(tl->snap);
  tl->snap = NULL;
  tl->cap = tl->start = tl->count = 0;
  tl->bytes = 0;
  tl->cursor = -1;
  tl->next_t = 0.0;
  tl->capped = 0;
  pthread_mutex_unlock(&tl->lock);
}

void jl_timeline_free(Timeline *tl) {
  jl_timeline_clear(tl);
  pthread_mutex_destroy(&tl->lock);
}

void jl_timeline_after_step(Timeline *tl, const JlWorld *w) {
  double t = w->state.t;
  if (tl->want <= 0 || t < tl->next_t - 1e-9 * tl->frame_dt) return;
  pthread_mutex_lock(&tl->lock);
  if (!tl->snap) {
    /* the ring's length: the seconds asked for, or what a quarter of the memory holds */
    JlSnapshot *probe = NULL;
    jl_snapshot_take(w, &probe);
    size_t one = jl_snapshot_bytes(probe);
    jl_snapshot_free(probe);
    double fit = one > 0 ? (double)tl->budget / (double)one : tl->want;
    tl->cap = fit < tl->want ? (fit < 2 ? 2 : (int)fit) : tl->want;
    tl->capped = tl->cap < tl->want;
    tl->snap = jl_calloc((size_t)tl->cap, sizeof *tl->snap);
  }
  JlSnapshot **s;
  if (tl->count < tl->cap) {
    s = slot(tl, tl->count++);
  } else { /* full: the oldest's buffers take the newest */
    s = slot(tl, 0);
    tl->start = (tl->start + 1) % tl->cap;
  }
  size_t before = jl_snapshot_bytes(*s);
  jl_snapshot_take(w, s);
  tl->bytes += jl_snapshot_bytes(*s) - before;
  /* the next boundary after t: k frames of simulated time */
  tl->next_t = (floor(t / tl->frame_dt + 1e-6) + 1.0) * tl->frame_dt;
  pthread_mutex_unlock(&tl->lock);
}

void jl_timeline_span(Timeline *tl, TimelineSpan *out) {
  pthread_mutex_lock(&tl->lock);
  out->count = tl->count;
  out->cursor = tl->cursor;
  out->bytes = tl->bytes;
  out->capped = tl->capped;
  out->t0 = tl->count ? jl_snapshot_time(*slot(tl, 0)) : 0.0;
  out->t1 = tl->count ? jl_snapshot_time(*slot(tl, tl->count - 1)) : 0.0;
  out->tc = tl->cursor >= 0 ? jl_snapshot_time(*slot(tl, tl->cursor)) : out->t1;
  pthread_mutex_unlock(&tl->lock);
}

int jl_timeline_seek(Timeline *tl, JlWorld *w, int index, char *err, size_t errsz) {
  pthread_mutex_lock(&tl->lock);
  int ok = 0;
  if (tl->count > 0) {
    if (index < 0) index = 0;
    if (index > tl->count - 1) index = tl->count - 1;
    ok = jl_snapshot_restore(w, *slot(tl, index), err, errsz) == JL_OK;
    if (ok) tl->cursor = index;
  }
  pthread_mutex_unlock(&tl->lock);
  return ok;
}

int jl_timeline_step_index(Timeline *tl, const JlWorld *w, int delta) {
  pthread_mutex_lock(&tl->lock);
  int i;
  if (tl->cursor >= 0) {
    i = tl->cursor + delta;
  } else {
    /* from the live state: back to the newest snapshot before it (or at it, going forward) */
    i = tl->count - 1;
    while (delta < 0 && i > 0 && jl_snapshot_time(*slot(tl, i)) >= w->state.t - 1e-9 * tl->frame_dt) i--;
    if (delta < -1) i += delta + 1;
  }
  if (i < 0) i = 0;
  if (i > tl->count - 1) i = tl->count - 1;
  pthread_mutex_unlock(&tl->lock);
  return i;
}

void jl_timeline_resume(Timeline *tl) {
  pthread_mutex_lock(&tl->lock);
  if (tl->cursor >= 0) {
    /* the future after the state resumed from is another run's: drop it */
    for (int i = tl->cursor + 1; i < tl->count; i++) {
      JlSnapshot **s = slot(tl, i);
      tl->bytes -= jl_snapshot_bytes(*s);
      jl_snapshot_free(*s);
      *s = NULL;
    }
    tl->count = tl->cursor + 1;
    double t = jl_snapshot_time(*slot(tl, tl->cursor));
    tl->next_t = (floor(t / tl->frame_dt + 1e-6) + 1.0) * tl->frame_dt;
    tl->cursor = -1;
  }
  pthread_mutex_unlock(&tl->lock);
}

int jl_timeline_index_at(Timeline *tl, double frac) {
  pthread_mutex_lock(&tl->lock);
  int n = tl->count;
  pthread_mutex_unlock(&tl->lock);
  if (n <= 0) return -1;
  int i = (int)floor(frac * (n - 1) + 0.5);
  return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}
