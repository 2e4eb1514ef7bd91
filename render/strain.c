/* The strain layer (JL_LAYER_STRAIN): each body's render surface coloured by
 * the strain of the springs around it, with a colour bar of its range.
 *
 * A node's strain is the mean of (l - L) / L over its springs (negative:
 * compressed, positive: stretched); a volume body's surface vertex takes its
 * embedding's weights of its tet's nodes, a cloth or rope vertex is a node.
 * The map is the springs layer's (blue compressed, white, red stretched),
 * over a range symmetric about 0: the 98th percentile of the nodes' |strain|
 * (render/raster.c; a few nodes at a contact would wash out the rest), rounded
 * up to 1, 2 or 5 x 10^k and at least 0.1 %, so a resting body is not all red. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"

void jl_strain_colour(double e, unsigned char rgb[3]) {
  e = e < -1 ? -1 : e > 1 ? 1 : e;
  if (!(e == e)) e = 0;
  if (e < 0) { /* white -> blue */
    rgb[0] = (unsigned char)(255 * (1 + 0.8 * e)), rgb[1] = (unsigned char)(255 * (1 + 0.5 * e)), rgb[2] = 255;
  } else { /* white -> red */
    rgb[0] = 255, rgb[1] = (unsigned char)(255 * (1 - 0.8 * e)), rgb[2] = (unsigned char)(255 * (1 - 0.8 * e));
  }
}

void jl_render_node_strain(const JlWorld *w, double *out) {
  const JlModel *m = w->model;
  const double *x = w->state.x;
  int *count = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  memset(out, 0, (size_t)m->nnode * sizeof(double));
  /* each spring once, its strain to both of its nodes */
  for (int s = 0; s < m->nspring; s++) {
    if (m->spring_kind && m->spring_kind[s] != 0) continue; /* cloth: stretch springs only */
    if (!(m->spring_rest[s] > 0)) continue;
    int i = m->spring_node[2 * s], j = m->spring_node[2 * s + 1];
    const double *a = x + 3 * i, *b = x + 3 * j;
    double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    double e = d / m->spring_rest[s] - 1.0;
    out[i] += e, out[j] += e;
    count[i]++, count[j]++;
  }
  for (int i = 0; i < m->nnode; i++) out[i] = count[i] ? out[i] / count[i] : 0.0;
  free(count);
}

void jl_render_surface_values(const JlWorld *w, int b, const double *node_val, double *field3, double *out) {
  const JlModel *m = w->model;
  const JlBody *body = &m->body[b];
  int nv = body->surface.nvert;
  if (body->kind != JL_BODY_VOLUME) {
    for (int i = 0; i < nv; i++) out[i] = i < body->node_count ? node_val[body->node_begin + i] : 0.0;
    return;
  }
  /* the embedding interpolates 3-vectors: the value rides in the first component */
  for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
    field3[3 * i] = node_val[i];
    field3[3 * i + 1] = field3[3 * i + 2] = 0.0;
  }
  jl_embed_apply(&body->embed, m->tet + 4 * (size_t)body->tet_begin, 0, field3, field3 + 3 * (size_t)m->nnode);
  const double *res = field3 + 3 * (size_t)m->nnode;
  for (int i = 0; i < nv; i++) out[i] = res[3 * i];
}

double jl_strain_range(double largest) {
  double r = largest > 1e-3 ? largest : 1e-3;
  double p = pow(10.0, floor(log10(r)));
  double f = r / p;
  return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

void jl_render_strain_bar(JlRenderer *r, double range) {
  int s = r->height >= 600 ? 2 : 1, lh = JL_FONT_LINE_H(s);
  /* bottom left, above the viewer's timeline bar */
  int bh = r->height / 3, bw = 14 * s, x = 20, y = r->height - bh - 3 * lh - 40;
  if (y < 8) y = 8;
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_BLEND);
  SDL_SetRenderDrawColor(r->sdl, 10, 12, 16, 170);
  SDL_Rect back = {x - 8, y - lh - 12, bw + 62 * s, bh + 2 * lh + 22};
  SDL_RenderFillRect(r->sdl, &back);
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
  for (int k = 0; k < bh; k++) {
    unsigned char c[3];
    jl_strain_colour(1.0 - 2.0 * k / (bh - 1 > 0 ? bh - 1 : 1), c);
    SDL_SetRenderDrawColor(r->sdl, c[0], c[1], c[2], 255);
    SDL_RenderDrawLine(r->sdl, x, y + k, x + bw - 1, y + k);
  }
  static const unsigned char white[4] = {235, 238, 242, 255};
  char lab[64];
  jl_render_text(r, x - 2, y - lh - 6, s, white, "strain");
  snprintf(lab, sizeof lab, "+%.3g %%", 100 * range);
  jl_render_text(r, x + bw + 4, y, s, white, lab);
  jl_render_text(r, x + bw + 4, y + bh / 2 - lh / 2, s, white, "0");
  snprintf(lab, sizeof lab, "-%.3g %%", 100 * range);
  jl_render_text(r, x + bw + 4, y + bh - lh, s, white, lab);
}
