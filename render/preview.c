/* The contact sheet `jelly run` writes as preview.png: up to six evenly
 * spaced frames of the run in a 3 x 2 grid, each labelled with its frame
 * number and simulated time.
 *
 * All tiles share one camera, so motion between them shows, and that camera
 * frames every tile's bodies: as the chosen frames pass, their node
 * positions are copied (6 x nnode x 3 doubles); jl_preview_write then frames
 * the union of their boxes (jl_camera_frame_points over all their surface
 * vertices) and draws the tiles headless at tile size. No display needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"

enum { TILE_W = 480, TILE_H = 300, COLS = 3, MAXTILE = 6, GAP = 4 };

struct JlPreview {
  const JlWorld *world; /* the world of the last jl_preview_frame (alive until the write) */
  int ntile, frame[MAXTILE], done[MAXTILE];
  double *x[MAXTILE]; /* node positions of each captured frame */
  double t[MAXTILE];
};

JlPreview *jl_preview_create(int nframes) {
  JlPreview *p = jl_calloc(1, sizeof *p);
  /* frames round(k * nframes / 5), k = 0..5, without repeats */
  int last = -1;
  for (int k = 0; k < MAXTILE; k++) {
    int f = (int)((double)k * (nframes < 0 ? 0 : nframes) / (MAXTILE - 1) + 0.5);
    if (f == last) continue;
    p->frame[p->ntile++] = last = f;
  }
  return p;
}

void jl_preview_frame(JlPreview *p, const JlWorld *w, int frame) {
  if (!p) return;
  int k = 0;
  while (k < p->ntile && p->frame[k] != frame) k++;
  if (k == p->ntile || p->done[k]) return;
  size_t n = 3 * (size_t)w->model->nnode;
  p->x[k] = jl_calloc(n + 1, sizeof(double));
  memcpy(p->x[k], w->state.x, n * sizeof(double));
  p->t[k] = w->state.t;
  p->world = w;
  p->done[k] = 1;
}

/* the captured world of tile k: the live world's model and forces with the
 * tile's positions (render/ only reads state.x and state.t) */
static JlWorld tile_world(const JlPreview *p, int k) {
  JlWorld tw = *p->world;
  tw.state.x = p->x[k];
  tw.state.t = p->t[k];
  return tw;
}

JlResult jl_preview_write(JlPreview *p, const char *path, char *err, size_t errsz) {
  int rows = (p->ntile + COLS - 1) / COLS, cols = p->ntile < COLS ? p->ntile : COLS;
  int sheet_w = cols * TILE_W + (cols + 1) * GAP, sheet_h = rows * TILE_H + (rows + 1) * GAP;
  unsigned char *sheet = jl_calloc((size_t)sheet_w * sheet_h * 3, 1);
  for (size_t i = 0; i < (size_t)sheet_w * sheet_h; i++)
    sheet[3 * i] = 16, sheet[3 * i + 1] = 18, sheet[3 * i + 2] = 22;
  JlResult res = JL_OK;
  if (p->world) {
    /* one camera for all tiles: the union of their boxes, all their vertices inside */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double *pts = NULL;
    int npts = 0;
    for (int k = 0; k < p->ntile; k++) {
      if (!p->done[k]) continue;
      JlWorld tw = tile_world(p, k);
      double blo[3], bhi[3];
      jl_camera_world_box(&tw, blo, bhi);
      for (int d = 0; d < 3; d++) {
        if (blo[d] < lo[d]) lo[d] = blo[d];
        if (bhi[d] > hi[d]) hi[d] = bhi[d];
      }
      int n = 0;
      double *q = jl_camera_world_points(&tw, &n);
      pts = jl_realloc(pts, 3 * (size_t)(npts + n) + 3, sizeof(double));
      memcpy(pts + 3 * (size_t)npts, q, 3 * (size_t)n * sizeof(double));
      npts += n;
      free(q);
    }
    JlCamera cam = {{0, 0, 0}, 0, 0, 1, 40};
    jl_camera_frame_points(&cam, lo, hi, pts, npts, (double)TILE_W / TILE_H);
    free(pts);
    JlRenderer *r = NULL;
    res = jl_renderer_create_headless(&r, TILE_W, TILE_H, err, errsz);
    unsigned char *rgb = jl_calloc((size_t)TILE_W * TILE_H * 3, 1);
    for (int k = 0; !res && k < p->ntile; k++) {
      if (!p->done[k]) continue;
      JlWorld tw = tile_world(p, k);
      JlRenderOptions o = jl_default_render_options();
      jl_render_world(r, &tw, &cam, &o);
      char label[96];
      snprintf(label, sizeof label, "frame %d   t = %.3f s", p->frame[k], p->t[k]);
      static const unsigned char shadow[4] = {0, 0, 0, 200}, white[4] = {240, 240, 240, 255};
      jl_render_text(r, 11, 11, 2, shadow, label);
      jl_render_text(r, 10, 10, 2, white, label);
      res = jl_renderer_read(r, rgb, err, errsz);
      if (res) break;
      int col = k % COLS, row = k / COLS;
      int x0 = GAP + col * (TILE_W + GAP), y0 = GAP + row * (TILE_H + GAP);
      for (int y = 0; y < TILE_H; y++)
        memcpy(sheet + 3 * ((size_t)(y0 + y) * sheet_w + x0), rgb + 3 * (size_t)y * TILE_W, 3 * (size_t)TILE_W);
    }
    free(rgb);
    jl_renderer_destroy(r);
  }
  if (!res) res = jl_png_write(path, sheet_w, sheet_h, sheet, err, errsz);
  free(sheet);
  return res;
}

void jl_preview_destroy(JlPreview *p) {
  if (!p) return;
  for (int k = 0; k < MAXTILE; k++) free(p->x[k]);
  free(p);
}
