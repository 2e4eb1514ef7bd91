/* The viewer's panels over the scene (src/cli/viewer_internal.h): the
 * timeline bar of the recent states (rewind and replay), the live plots of
 * energies, contacts and solver iterations per step, and recording the
 * window to PNG frames and an mp4. Drawn with the renderer's SDL renderer
 * and its font; no plotting library. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/cli/cli.h"
#include "src/cli/viewer_internal.h"
#include "src/stats.h"

static void fill(JlRenderer *r, int x, int y, int w, int h, Uint8 cr, Uint8 cg, Uint8 cb, Uint8 a) {
  SDL_SetRenderDrawBlendMode(r->sdl, a < 255 ? SDL_BLENDMODE_BLEND : SDL_BLENDMODE_NONE);
  SDL_SetRenderDrawColor(r->sdl, cr, cg, cb, a);
  SDL_Rect q = {x, y, w, h};
  SDL_RenderFillRect(r->sdl, &q);
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
}

static int text_scale(const Viewer *v) { return v->r->height >= 600 ? 2 : 1; }

/* ---- the timeline bar ---- */

void jl_viewer_timeline_rect(const Viewer *v, int *x, int *y, int *w, int *h) {
  int s = text_scale(v);
  *h = 5 * s;
  *x = 12;
  *w = v->r->width - 24;
  *y = v->r->height - *h - JL_FONT_LINE_H(s) - 14;
}

void jl_viewer_draw_timeline(Viewer *v) {
  TimelineSpan sp;
  jl_timeline_span(&v->tl, &sp);
  if (v->def.history <= 0) return;
  int x, y, w, h, s = text_scale(v);
  jl_viewer_timeline_rect(v, &x, &y, &w, &h);
  fill(v->r, x - 6, y - 6, w + 12, h + JL_FONT_LINE_H(s) + 18, 10, 12, 16, 150);
  fill(v->r, x, y, w, h, 60, 66, 78, 255);
  double span = sp.t1 - sp.t0, full = v->def.history;
  if (sp.count > 1 && span > 0) {
    /* the part of --history seconds held so far, the shown state's place in it */
    int held = (int)(w * (span < full ? span / full : 1.0));
    fill(v->r, x, y, held, h, 90, 150, 220, 255);
    int mx = x + (int)lround((sp.tc - sp.t0) / span * held);
    fill(v->r, mx - 2 * s, y - 3 * s, 4 * s, h + 6 * s, sp.cursor >= 0 ? 255 : 235, sp.cursor >= 0 ? 200 : 238,
         sp.cursor >= 0 ? 90 : 242, 255);
  }
  char line[256];
  double mb = (double)sp.bytes / (1024.0 * 1024.0);
  if (sp.cursor >= 0)
    snprintf(line, sizeof line, "REWOUND to t %.3f s of %.3f - %.3f s   space resumes from here   %.0f MB%s", sp.tc,
             sp.t0, sp.t1, mb, sp.capped ? " (memory cap)" : "");
  else
    snprintf(line, sizeof line, "history %.1f s (%d states, %.0f MB%s)   left/right, home/end or click to rewind", span,
             sp.count, mb, sp.capped ? ", memory cap" : "");
  static const unsigned char white[4] = {235, 238, 242, 255}, yellow[4] = {255, 220, 120, 255};
  char wrapped[512];
  jl_font_wrap(line, w, s, wrapped, sizeof wrapped);
  char *nl = strchr(wrapped, '\n');
  if (nl) *nl = '\0'; /* one line: what does not fit is left out */
  jl_render_text(v->r, x, y + h + 6, s, sp.cursor >= 0 ? yellow : white, wrapped);
}

/* ---- live plots ---- */

void jl_plots_clear(Plots *p) {
  pthread_mutex_lock(&p->lock);
  p->n = p->head = 0;
  pthread_mutex_unlock(&p->lock);
}

void jl_plots_after_step(Plots *p, const JlWorld *w, int cg) {
  if (!atomic_load(&p->on)) return;
  JlStateStats st;
  jl_state_stats(w, &st, NULL);
  pthread_mutex_lock(&p->lock);
  int i = p->head;
  p->t[i] = w->state.t;
  p->val[PLOT_KINETIC][i] = st.energy.kinetic;
  p->val[PLOT_ELASTIC][i] = st.energy.elastic;
  p->val[PLOT_GRAVITY][i] = st.energy.gravity;
  p->val[PLOT_CONTACT][i] = st.energy.ground;
  p->val[PLOT_CONTACTS][i] = st.contacts;
  p->val[PLOT_CG][i] = cg;
  p->head = (i + 1) % JL_PLOT_SAMPLES;
  if (p->n < JL_PLOT_SAMPLES) p->n++;
  pthread_mutex_unlock(&p->lock);
}

/* the last `seconds` of the samples, oldest first, into t and val (n of them) */
static int plot_window(Plots *p, double seconds, double *t, double (*val)[JL_PLOT_SAMPLES]) {
  pthread_mutex_lock(&p->lock);
  int n = 0;
  double t_end = p->n ? p->t[(p->head + JL_PLOT_SAMPLES - 1) % JL_PLOT_SAMPLES] : 0.0;
  for (int k = 0; k < p->n; k++) {
    int i = (p->head + JL_PLOT_SAMPLES - p->n + k) % JL_PLOT_SAMPLES;
    if (p->t[i] < t_end - seconds || (n > 0 && p->t[i] < t[n - 1])) n = 0; /* a rewind: the newest run only */
    if (p->t[i] < t_end - seconds) continue;
    t[n] = p->t[i];
    for (int sr = 0; sr < PLOT_SERIES; sr++) val[sr][n] = p->val[sr][i];
    n++;
  }
  pthread_mutex_unlock(&p->lock);
  return n;
}

/* a number in 4 significant digits for a label */
static void fmt(char *buf, size_t n, double v) {
  if (fabs(v) >= 1e5 || (fabs(v) < 1e-3 && v != 0))
    snprintf(buf, n, "%.3g", v);
  else
    snprintf(buf, n, "%.4g", v);
}

void jl_viewer_draw_plots(Viewer *v) {
  if (!atomic_load(&v->plots.on)) return;
  static double t[JL_PLOT_SAMPLES], val[PLOT_SERIES][JL_PLOT_SAMPLES]; /* the window thread's only */
  const double seconds = 10.0;
  int n = plot_window(&v->plots, seconds, t, val);
  static const char *const names[PLOT_SERIES] = {"kinetic", "elastic", "gravity", "contact", "contacts", "CG"};
  static const char *const units[PLOT_SERIES] = {" J", " J", " J", " J", "", " iterations"};
  static const Uint8 colour[PLOT_SERIES][3] = {{250, 200, 90},  {110, 200, 120}, {150, 170, 255},
                                               {240, 110, 100}, {220, 140, 230}, {120, 220, 230}};
  int s = text_scale(v), lh = JL_FONT_LINE_H(s), small = JL_FONT_LINE_H(1);
  int pw = v->r->width / 4 < 200 * s ? 200 * s : v->r->width / 4;
  if (pw > v->r->width - 16) pw = v->r->width - 16;
  int tx, ty, tw, th;
  jl_viewer_timeline_rect(v, &tx, &ty, &tw, &th);
  int room = ty - 24 - lh - 8; /* from below the title to above the timeline */
  int strip = room / PLOT_SERIES - lh - 8;
  if (strip > 60 * s) strip = 60 * s;
  if (strip < 12) strip = 12;
  /* the time axis: the last 10 s, or what there is of them */
  double span = n > 1 ? t[n - 1] - t[0] : 0.0;
  span = span < 0.5 ? 0.5 : span > seconds ? seconds : span;
  int x0 = v->r->width - pw - 8, y = 8;
  fill(v->r, x0 - 6, y - 4, pw + 12, lh + 8 + PLOT_SERIES * (lh + 2 + strip + 6), 10, 12, 16, 170);
  static const unsigned char white[4] = {235, 238, 242, 255}, grey[4] = {170, 176, 186, 255};
  char head[96];
  snprintf(head, sizeof head, "per step, last %.1f s", span);
  jl_render_text(v->r, x0, y, s, white, head);
  y += lh + 4;
  for (int sr = 0; sr < PLOT_SERIES; sr++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
      if (val[sr][i] < lo) lo = val[sr][i];
      if (val[sr][i] > hi) hi = val[sr][i];
    }
    char label[160], a[32];
    if (n > 0) {
      fmt(a, sizeof a, val[sr][n - 1]);
      snprintf(label, sizeof label, "%s %s%s", names[sr], a, units[sr]);
    } else {
      snprintf(label, sizeof label, "%s -", names[sr]);
    }
    unsigned char col[4] = {colour[sr][0], colour[sr][1], colour[sr][2], 255};
    jl_render_text(v->r, x0, y, s, col, label);
    y += lh + 2;
    fill(v->r, x0, y, pw, strip, 30, 34, 42, 255);
    if (n > 1) {
      double range = hi - lo > 0 ? hi - lo : 1.0, t0 = t[n - 1] - span;
      SDL_FPoint *pt = malloc(sizeof *pt * (size_t)n);
      if (pt) {
        int m = 0;
        for (int i = 0; i < n; i++) {
          if (t[i] < t0) continue;
          pt[m].x = (float)(x0 + (t[i] - t0) / span * (pw - 1));
          pt[m].y = (float)(y + strip - 1 - (val[sr][i] - lo) / range * (strip - 2));
          m++;
        }
        SDL_SetRenderDrawColor(v->r->sdl, col[0], col[1], col[2], 255);
        if (m > 1) SDL_RenderDrawLinesF(v->r->sdl, pt, m);
        free(pt);
      }
      /* the strip's range, small, at its right edge */
      char b[32];
      fmt(b, sizeof b, hi);
      jl_render_text(v->r, x0 + pw - jl_font_text_width(b, 1) - 2, y + 1, 1, grey, b);
      fmt(b, sizeof b, lo);
      jl_render_text(v->r, x0 + pw - jl_font_text_width(b, 1) - 2, y + strip - small, 1, grey, b);
    }
    y += strip + 6;
  }
}

/* ---- recording ---- */

static int have_ffmpeg(void) { return system("command -v ffmpeg >/dev/null 2>&1") == 0; }

void jl_viewer_record_toggle(Viewer *v) {
  Recording *rc = &v->rec;
  if (!rc->on) {
    /* a new folder each time: jelly_recording_NNN (never another recording's) */
    struct stat st;
    int k = rc->count;
    do snprintf(rc->dir, sizeof rc->dir, "jelly_recording_%03d", k++);
    while (stat(rc->dir, &st) == 0 && k < 100000);
    if (jl_cli_make_dirs(rc->dir) != 0) {
      fprintf(stderr, "jelly view: cannot create '%s': %s\n", rc->dir, strerror(errno));
      jl_viewer_note(v, "cannot record: %s (see the terminal)", rc->dir);
      return;
    }
    rc->count = k;
    rc->on = 1;
    rc->frames = 0;
    jl_viewer_note(v, "recording to %s/ (M stops)", rc->dir);
    return;
  }
  rc->on = 0;
  char msg[1400];
  int n = snprintf(msg, sizeof msg, "recorded %d frames to %s/", rc->frames, rc->dir);
  if (rc->frames > 0 && have_ffmpeg()) {
    char cmd[1600];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -y -loglevel error -framerate %g -i '%s/frame_%%05d.png' -pix_fmt yuv420p "
             "-vf 'scale=trunc(iw/2)*2:trunc(ih/2)*2' '%s.mp4' </dev/null",
             v->scene.fps > 0 ? v->scene.fps : 60.0, rc->dir, rc->dir);
    if (system(cmd) == 0)
      snprintf(msg + n, sizeof msg - (size_t)n, " and %s.mp4", rc->dir);
    else
      snprintf(msg + n, sizeof msg - (size_t)n, " (ffmpeg failed: no mp4)");
  } else if (rc->frames > 0) {
    snprintf(msg + n, sizeof msg - (size_t)n, " (no mp4: ffmpeg is not on PATH)");
  }
  fprintf(stderr, "jelly view: %s\n", msg);
  jl_viewer_note(v, "%s", msg);
}

void jl_viewer_record_frame(Viewer *v) {
  Recording *rc = &v->rec;
  if (!rc->on) return;
  char path[600], err[1024];
  snprintf(path, sizeof path, "%s/frame_%05d.png", rc->dir, rc->frames);
  if (jl_renderer_write_png(v->r, path, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s; recording stopped\n", jl_cli_msg(err));
    jl_viewer_record_toggle(v);
    return;
  }
  rc->frames++;
}
