/* Debug layers drawn over the shaded surfaces: surface wireframe, tetrahedra,
 * springs coloured by strain, ground contacts with depth arrows, pinned
 * nodes, obstacle outlines and node velocities.
 *
 * Lines go through SDL_RenderDrawLinesF, points through SDL_RenderFillRectF;
 * everything is drawn on top (no depth test), which is what makes inner
 * structure (tets, springs) visible: the surfaces are drawn translucent while
 * those layers are on (render/raster.c). Strain colours follow the usual
 * diverging map: blue for compression, white at rest length, red for
 * stretching, saturating at 10 % strain. Contacts are the nodes below the
 * ground plane (the only collider so far); the arrow shows the penetration
 * depth along the plane normal, 5x exaggerated. */
#include <math.h>
#include <stdlib.h>

#include "render/internal.h"

typedef struct Ctx {
  JlRenderer *r;
  mat4 vp;
  float w, h, znear;
} Ctx;

static int project(const Ctx *c, const double *p, SDL_FPoint *out) {
  vec4 in = {(float)p[0], (float)p[1], (float)p[2], 1.0f}, clip;
  glm_mat4_mulv((vec4 *)c->vp, in, clip);
  if (!(clip[3] > c->znear)) return 0;
  out->x = (clip[0] / clip[3] + 1.0f) * 0.5f * c->w;
  out->y = (1.0f - clip[1] / clip[3]) * 0.5f * c->h;
  return 1;
}

static void line(const Ctx *c, const double *a, const double *b) {
  SDL_FPoint p[2];
  if (project(c, a, &p[0]) && project(c, b, &p[1])) SDL_RenderDrawLinesF(c->r->sdl, p, 2);
}

static void dot(const Ctx *c, const double *a, float size) {
  SDL_FPoint p;
  if (!project(c, a, &p)) return;
  SDL_FRect q = {p.x - 0.5f * size, p.y - 0.5f * size, size, size};
  SDL_RenderFillRectF(c->r->sdl, &q);
}

static void wireframe(const Ctx *c, const JlWorld *w) {
  const JlModel *m = &w->model;
  SDL_SetRenderDrawColor(c->r->sdl, 20, 24, 30, 200);
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    int nv = body->surface.nvert;
    if (nv == 0 || body->embed.nvert != nv) continue;
    double *x = jl_calloc((size_t)nv * 3, sizeof(double));
    SDL_FPoint *s = jl_calloc((size_t)nv, sizeof(SDL_FPoint));
    unsigned char *ok = jl_calloc((size_t)nv, 1);
    jl_world_surface(w, b, x);
    for (int i = 0; i < nv; i++) ok[i] = (unsigned char)project(c, x + 3 * i, &s[i]);
    for (int t = 0; t < body->surface.ntri; t++) {
      const int *tri = body->surface.tri + 3 * t;
      if (!ok[tri[0]] || !ok[tri[1]] || !ok[tri[2]]) continue;
      SDL_FPoint a = s[tri[0]], bb = s[tri[1]], cc = s[tri[2]];
      /* front faces only (clockwise on the y-down screen) */
      if (!((bb.x - a.x) * (cc.y - a.y) - (bb.y - a.y) * (cc.x - a.x) < 0)) continue;
      SDL_FPoint loop[4] = {a, bb, cc, a};
      SDL_RenderDrawLinesF(c->r->sdl, loop, 4);
    }
    free(x), free(s), free(ok);
  }
}

static void tets(const Ctx *c, const JlWorld *w) {
  const JlModel *m = &w->model;
  const double *x = w->state.x;
  SDL_SetRenderDrawColor(c->r->sdl, 150, 230, 255, 140);
  static const int edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int t = 0; t < m->ntet; t++) {
    const int *n = m->tet + 4 * t;
    double p[4][3], cen[3] = {0, 0, 0};
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 3; d++) cen[d] += 0.25 * x[3 * n[k] + d];
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 3; d++) p[k][d] = cen[d] + 0.8 * (x[3 * n[k] + d] - cen[d]);
    for (int e = 0; e < 6; e++) line(c, p[edge[e][0]], p[edge[e][1]]);
  }
}

static void springs(const Ctx *c, const JlWorld *w) {
  const JlModel *m = &w->model;
  const double *x = w->state.x;
  for (int s = 0; s < m->nspring; s++) {
    const double *a = x + 3 * m->spring_node[2 * s], *b = x + 3 * m->spring_node[2 * s + 1];
    double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                    (a[2] - b[2]) * (a[2] - b[2]));
    double e = (d / m->spring_rest[s] - 1.0) / 0.1;
    e = e < -1 ? -1 : e > 1 ? 1 : e;
    Uint8 r, g, bl;
    if (e < 0) { /* white -> blue */
      r = (Uint8)(255 * (1 + 0.8 * e)), g = (Uint8)(255 * (1 + 0.5 * e)), bl = 255;
    } else { /* white -> red */
      r = 255, g = (Uint8)(255 * (1 - 0.8 * e)), bl = (Uint8)(255 * (1 - 0.8 * e));
    }
    SDL_SetRenderDrawColor(c->r->sdl, r, g, bl, 200);
    line(c, a, b);
  }
}

static void contacts(const Ctx *c, const JlWorld *w) {
  const JlModel *m = &w->model;
  if (!m->world.has_ground) return;
  const double *x = w->state.x;
  double gy = m->world.ground_y;
  for (int i = 0; i < m->nnode; i++) {
    const double *p = x + 3 * i;
    if (!(p[1] < gy)) continue;
    double tip[3] = {p[0], p[1] + 5.0 * (gy - p[1]) + 0.01, p[2]};
    SDL_SetRenderDrawColor(c->r->sdl, 255, 210, 60, 255);
    line(c, p, tip);
    SDL_SetRenderDrawColor(c->r->sdl, 255, 80, 60, 255);
    dot(c, p, 4);
  }
}

static void pins(const Ctx *c, const JlWorld *w) {
  const JlModel *m = &w->model;
  SDL_SetRenderDrawColor(c->r->sdl, 255, 230, 40, 255);
  for (int i = 0; i < m->nnode; i++)
    if (m->pinned[i]) dot(c, w->state.x + 3 * i, 5);
}

static void obstacles(const Ctx *c, const JlWorld *w) {
  const JlModel *m = &w->model;
  if (!m->world.has_ground) return;
  double lo[3], hi[3];
  jl_camera_world_box(w, lo, hi);
  double cx = 0.5 * (lo[0] + hi[0]), cz = 0.5 * (lo[2] + hi[2]);
  double h = fmax(fmax(hi[0] - lo[0], hi[2] - lo[2]), 0.5), y = m->world.ground_y;
  double q[5][3] = {{cx - h, y, cz - h}, {cx + h, y, cz - h}, {cx + h, y, cz + h},
                    {cx - h, y, cz + h}, {cx - h, y, cz - h}};
  SDL_SetRenderDrawColor(c->r->sdl, 255, 160, 60, 220);
  for (int k = 0; k < 4; k++) line(c, q[k], q[k + 1]);
}

static void velocities(const Ctx *c, const JlWorld *w) {
  const JlModel *m = &w->model;
  SDL_SetRenderDrawColor(c->r->sdl, 120, 255, 120, 200);
  for (int i = 0; i < m->nnode; i++) {
    const double *p = w->state.x + 3 * i, *v = w->state.v + 3 * i;
    double q[3] = {p[0] + 0.05 * v[0], p[1] + 0.05 * v[1], p[2] + 0.05 * v[2]};
    line(c, p, q);
  }
}

void jl_overlay_draw(JlRenderer *r, const JlWorld *w, const JlCamera *cam, unsigned layers) {
  Ctx c;
  c.r = r;
  jl_camera_matrix(cam, r->width, r->height, c.vp);
  c.w = (float)r->width;
  c.h = (float)r->height;
  c.znear = (float)(cam->distance * 0.01);
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_BLEND);
  if (layers & (1u << JL_LAYER_TETS)) tets(&c, w);
  if (layers & (1u << JL_LAYER_SPRINGS)) springs(&c, w);
  if (layers & (1u << JL_LAYER_WIREFRAME)) wireframe(&c, w);
  if (layers & (1u << JL_LAYER_OBSTACLES)) obstacles(&c, w);
  if (layers & (1u << JL_LAYER_VELOCITY)) velocities(&c, w);
  if (layers & (1u << JL_LAYER_PINS)) pins(&c, w);
  if (layers & (1u << JL_LAYER_CONTACTS)) contacts(&c, w);
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
}
