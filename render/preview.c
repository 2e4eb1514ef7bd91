/* The contact sheet `jelly run` writes as preview.png: up to six evenly
 * spaced frames of the run in a 3 x 2 grid, each labelled with its frame
 * number and simulated time.
 *
 * The camera is fixed when the sheet is created (it frames the scene's first
 * state), so motion between tiles is visible. Each chosen frame is rendered
 * headless at tile size and copied into the sheet as it happens, so a run
 * keeps no history and needs no display. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"

enum { TILE_W = 480, TILE_H = 300, COLS = 3, MAXTILE = 6, GAP = 4 };

struct JlPreview {
  JlRenderer *r;
  JlCamera cam;
  int ntile, frame[MAXTILE], done[MAXTILE];
  unsigned char *sheet; /* sheet_w x sheet_h x 3 */
  int sheet_w, sheet_h;
};

JlPreview *jl_preview_create(const JlWorld *w, int nframes, char *err, size_t errsz) {
  JlPreview *p = jl_calloc(1, sizeof *p);
  if (jl_renderer_create_headless(&p->r, TILE_W, TILE_H, err, errsz)) {
    free(p);
    return NULL;
  }
  double lo[3], hi[3];
  jl_camera_world_box(w, lo, hi);
  p->cam.fov_deg = 40;
  jl_camera_frame(&p->cam, lo, hi, (double)TILE_W / TILE_H);
  /* frames round(k * nframes / 5), k = 0..5, without repeats */
  int last = -1;
  for (int k = 0; k < MAXTILE; k++) {
    int f = (int)((double)k * (nframes < 0 ? 0 : nframes) / (MAXTILE - 1) + 0.5);
    if (f == last) continue;
    p->frame[p->ntile++] = last = f;
  }
  int rows = (p->ntile + COLS - 1) / COLS, cols = p->ntile < COLS ? p->ntile : COLS;
  p->sheet_w = cols * TILE_W + (cols + 1) * GAP;
  p->sheet_h = rows * TILE_H + (rows + 1) * GAP;
  p->sheet = jl_calloc((size_t)p->sheet_w * p->sheet_h * 3, 1);
  for (size_t i = 0; i < (size_t)p->sheet_w * p->sheet_h; i++) {
    p->sheet[3 * i] = 16, p->sheet[3 * i + 1] = 18, p->sheet[3 * i + 2] = 22;
  }
  return p;
}

void jl_preview_frame(JlPreview *p, const JlWorld *w, int frame) {
  if (!p) return;
  int k = 0;
  while (k < p->ntile && p->frame[k] != frame) k++;
  if (k == p->ntile || p->done[k]) return;
  JlRenderOptions o = jl_default_render_options();
  jl_render_world(p->r, w, &p->cam, &o);
  char label[96];
  snprintf(label, sizeof label, "frame %d   t = %.3f s", frame, w->state.t);
  static const unsigned char shadow[4] = {0, 0, 0, 200}, white[4] = {240, 240, 240, 255};
  jl_render_text(p->r, 11, 11, 2, shadow, label);
  jl_render_text(p->r, 10, 10, 2, white, label);
  unsigned char *rgb = jl_calloc((size_t)TILE_W * TILE_H * 3, 1);
  char err[256];
  if (jl_renderer_read(p->r, rgb, err, sizeof err) == JL_OK) {
    int col = k % COLS, row = k / COLS;
    int x0 = GAP + col * (TILE_W + GAP), y0 = GAP + row * (TILE_H + GAP);
    for (int y = 0; y < TILE_H; y++)
      memcpy(p->sheet + 3 * ((size_t)(y0 + y) * p->sheet_w + x0), rgb + 3 * (size_t)y * TILE_W,
             3 * (size_t)TILE_W);
    p->done[k] = 1;
  }
  free(rgb);
}

JlResult jl_preview_write(JlPreview *p, const char *path, char *err, size_t errsz) {
  return jl_png_write(path, p->sheet_w, p->sheet_h, p->sheet, err, errsz);
}

void jl_preview_destroy(JlPreview *p) {
  if (!p) return;
  jl_renderer_destroy(p->r);
  free(p->sheet);
  free(p);
}
