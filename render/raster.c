/* Shaded surfaces through SDL_RenderGeometry: the renderer object, the ground
 * grid, soft shadows, Lambert shading and the painter's sort.
 *
 * Each frame the embedded surfaces are evaluated from the state (double),
 * given area-weighted vertex normals, lit per vertex (Gouraud) with ambient +
 * Lambert + a small Blinn-Phong highlight from a headlight that sits just
 * above and left of the eye, projected with the camera's cglm matrix, culled
 * when back-facing (except cloth, which has no inside: both sides are drawn
 * and lit with |n.l|; ropes become screen-space ribbons a few pixels wide,
 * lit like hair by the angle between strand and light, after Kajiya & Kay
 * 1989), and sorted far to near by the view depth of their
 * centroids (painter's algorithm: exact for separate bodies and for convex
 * parts, as there is no depth buffer in SDL_Renderer). The ground (only in
 * scenes that have one) is a checkerboard of tiles sized after the bodies,
 * fading into the background, with a soft round shadow under each body whose
 * darkness falls off with its height. Everything is one
 * SDL_RenderGeometry call per layer, which SDL's software renderer
 * rasterizes into a surface when headless. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"

const unsigned char jl_render_background[3] = {34, 40, 52};

static const unsigned char palette[8][3] = {
    {236, 112, 99},  /* coral */
    {72, 186, 170},  /* teal */
    {242, 196, 84},  /* gold */
    {158, 124, 218}, /* violet */
    {96, 164, 232},  /* sky */
    {150, 204, 92},  /* lime */
    {234, 130, 180}, /* pink */
    {240, 152, 72},  /* orange */
};

void jl_render_body_color(int b, unsigned char rgb[3]) {
  if (b >= 0 && b < 8) {
    memcpy(rgb, palette[b], 3);
    return;
  }
  /* golden-ratio hue walk for further bodies */
  double h = fmod(0.13 + 0.618033988749895 * b, 1.0) * 6.0, s = 0.55, v = 0.9;
  int i = (int)h;
  double f = h - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  double c[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  for (int k = 0; k < 3; k++) rgb[k] = (unsigned char)(255.0 * c[i % 6][k]);
}

JlRenderOptions jl_default_render_options(void) {
  JlRenderOptions o;
  memset(&o, 0, sizeof o);
  o.ground = 1;
  o.shadows = 1;
  return o;
}

/* ---- renderer lifetime ---------------------------------------------------------- */

JlRenderer *jl_renderer_wrap(SDL_Renderer *sdl, int width, int height) {
  JlRenderer *r = jl_calloc(1, sizeof *r);
  r->sdl = sdl;
  r->width = width;
  r->height = height;
  return r;
}

JlResult jl_renderer_create_headless(JlRenderer **out, int width, int height, char *err, size_t errsz) {
  *out = NULL;
  if (width < 16 || height < 16 || width > 16384 || height > 16384)
    return jl_fail(err, errsz, JL_ERR_INPUT, "image size %dx%d out of range (16 to 16384)", width, height);
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32, SDL_PIXELFORMAT_ARGB8888);
  if (!s) return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot create %dx%d image: %s", width, height, SDL_GetError());
  SDL_Renderer *sdl = SDL_CreateSoftwareRenderer(s);
  if (!sdl) {
    SDL_FreeSurface(s);
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot create software renderer: %s", SDL_GetError());
  }
  JlRenderer *r = jl_renderer_wrap(sdl, width, height);
  r->surface = s;
  *out = r;
  return JL_OK;
}

void jl_renderer_destroy(JlRenderer *r) {
  if (!r) return;
  jl_font_destroy(r);
  if (r->shadow) SDL_DestroyTexture(r->shadow);
  if (r->ground) SDL_DestroyTexture(r->ground);
  if (r->surface) {
    SDL_DestroyRenderer(r->sdl);
    SDL_FreeSurface(r->surface);
  }
  free(r->xd), free(r->nd), free(r->sx), free(r->ok), free(r->col), free(r->key), free(r->out);
  free(r->node_val), free(r->field3), free(r->vval);
  free(r);
}

int jl_renderer_width(const JlRenderer *r) { return r->width; }
int jl_renderer_height(const JlRenderer *r) { return r->height; }

void jl_renderer_reserve_out(JlRenderer *r, int n) {
  if (n <= r->cap_out) return;
  int cap = r->cap_out ? r->cap_out : 1024;
  while (cap < n) cap *= 2;
  r->out = jl_realloc(r->out, (size_t)cap, sizeof *r->out);
  r->cap_out = cap;
}

static void reserve(JlRenderer *r, int nvert, int ntri) {
  if (nvert > r->cap_vert) {
    r->xd = jl_realloc(r->xd, (size_t)nvert * 3, sizeof(double));
    r->nd = jl_realloc(r->nd, (size_t)nvert * 3, sizeof(double));
    r->sx = jl_realloc(r->sx, (size_t)nvert * 3, sizeof(float));
    r->ok = jl_realloc(r->ok, (size_t)nvert, 1);
    r->col = jl_realloc(r->col, (size_t)nvert, sizeof(SDL_Color));
    r->cap_vert = nvert;
  }
  if (ntri > r->cap_tri) {
    r->key = jl_realloc(r->key, (size_t)ntri, sizeof(JlSortKey));
    r->cap_tri = ntri;
  }
}

JlResult jl_renderer_read(JlRenderer *r, unsigned char *rgb, char *err, size_t errsz) {
  if (SDL_RenderReadPixels(r->sdl, NULL, SDL_PIXELFORMAT_RGB24, rgb, 3 * r->width) != 0)
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot read the image back: %s", SDL_GetError());
  return JL_OK;
}

JlResult jl_renderer_write_png(JlRenderer *r, const char *path, char *err, size_t errsz) {
  unsigned char *rgb = jl_calloc((size_t)r->width * r->height * 3, 1);
  JlResult res = jl_renderer_read(r, rgb, err, errsz);
  if (!res) res = jl_png_write(path, r->width, r->height, rgb, err, errsz);
  free(rgb);
  return res;
}

/* ---- projection ---------------------------------------------------------------------- */

typedef struct Proj {
  mat4 vp;
  float w, h, znear;
} Proj;

static void proj_init(Proj *p, const JlCamera *c, int width, int height) {
  jl_camera_matrix(c, width, height, p->vp);
  p->w = (float)width;
  p->h = (float)height;
  p->znear = (float)(c->distance * 0.01);
}

/* screen x, y (pixels) and depth; returns 0 behind the near plane */
static int proj_point(const Proj *p, double x, double y, double z, float out[3]) {
  vec4 in = {(float)x, (float)y, (float)z, 1.0f}, clip;
  glm_mat4_mulv((vec4 *)p->vp, in, clip);
  if (!(clip[3] > p->znear)) return 0;
  out[0] = (clip[0] / clip[3] + 1.0f) * 0.5f * p->w;
  out[1] = (1.0f - clip[1] / clip[3]) * 0.5f * p->h;
  out[2] = clip[3];
  return 1;
}

static SDL_Vertex vtx(const float s[3], SDL_Color c) {
  SDL_Vertex v;
  v.position.x = s[0];
  v.position.y = s[1];
  v.color = c;
  v.tex_coord.x = 0;
  v.tex_coord.y = 0;
  return v;
}

static unsigned char lerp8(double a, double b, double t) {
  double v = a + (b - a) * t;
  return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
}

/* ---- ground ------------------------------------------------------------------------- */

/* a "nice" grid step (1, 2, 2.5, 5 x 10^k) near x */
static double nice_step(double x) {
  double e = pow(10.0, floor(log10(x))), f = x / e;
  return e * (f < 1.5 ? 1 : f < 2.2 ? 2 : f < 3.5 ? 2.5 : f < 7.5 ? 5 : 10);
}

typedef struct Ground {
  double y;      /* plane height */
  double cx, cz; /* centre of the disc (under the camera's target) */
  double half;   /* radius at which the tiles have faded into the background */
  double step;   /* tile size */
} Ground;

/* The ground plane as drawn for camera c: the scene's ground height; tiles
 * of a 1-2-2.5-5 step about a quarter of the largest body's rest extent (so
 * a body spans several tiles at any scale), on a world-fixed grid; a disc
 * around the camera's target as wide as 1.6 x the scene and 1.5 x the
 * camera distance, so it fills the view as the camera follows and zooms
 * out (at most 60 tiles across its radius: the step grows beyond that). */
static void ground_extent(const JlModel *m, const JlCamera *c, Ground *g) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  double ext = 0;
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    double blo[3] = {INFINITY, INFINITY, INFINITY}, bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = body->node_begin; i < body->node_begin + body->node_count; i++)
      for (int k = 0; k < 3; k++) {
        double v = m->x0[3 * i + k];
        if (v < blo[k]) blo[k] = v;
        if (v > bhi[k]) bhi[k] = v;
      }
    for (int k = 0; k < 3; k++) {
      if (bhi[k] - blo[k] > ext) ext = bhi[k] - blo[k];
      if (blo[k] < lo[k]) lo[k] = blo[k];
      if (bhi[k] > hi[k]) hi[k] = bhi[k];
    }
  }
  /* bounded obstacles stand on the ground too: the disc reaches under them */
  for (int o = 0; o < m->nobstacle; o++) {
    double olo[3], ohi[3];
    jl_obstacle_aabb(&m->obstacle[o], olo, ohi);
    if (!(ohi[0] - olo[0] < 1e3 && ohi[2] - olo[2] < 1e3)) continue;
    for (int k = 0; k < 3; k += 2) {
      if (olo[k] < lo[k]) lo[k] = olo[k];
      if (ohi[k] > hi[k]) hi[k] = ohi[k];
    }
  }
  double span = fmax(hi[0] - lo[0], hi[2] - lo[2]);
  if (!(span > 0) || !isfinite(span)) span = 1;
  if (!(ext > 0) || !isfinite(ext)) ext = span;
  g->y = m->world.ground_y;
  g->cx = c->target[0];
  g->cz = c->target[2];
  g->half = fmax(1.6 * span, 1.5 * c->distance);
  g->step = nice_step(ext / 4.0);
  while (g->half / g->step > 60) g->step = nice_step(2.0 * g->step);
}

/* tiles closer than FADE x radius keep their flat colour (SDL's fast path for
 * uniformly coloured triangles); further out they blend into the background */
#define FADE 0.7

/* the checkerboard colours (tests/test_render.c looks for them) */
static const unsigned char tile_rgb[2][3] = {{64, 72, 88}, {74, 83, 100}};

static void draw_ground(JlRenderer *r, const Proj *p, const Ground *g) {
  /* tiles on the world grid (multiples of step) that touch the disc */
  long i0 = (long)floor((g->cx - g->half) / g->step), i1 = (long)ceil((g->cx + g->half) / g->step);
  long j0 = (long)floor((g->cz - g->half) / g->step), j1 = (long)ceil((g->cz + g->half) / g->step);
  jl_renderer_reserve_out(r, (int)((i1 - i0) * (j1 - j0) * 6));
  const unsigned char *bg = jl_render_background;
  int nv = 0;
  for (long i = i0; i < i1; i++)
    for (long j = j0; j < j1; j++) {
      double cx[4] = {0, 1, 1, 0}, cz[4] = {0, 0, 1, 1};
      float s[4][3];
      SDL_Color c[4];
      int ok = 1, inside = 0;
      const unsigned char *base = tile_rgb[(i + j) & 1];
      for (int k = 0; k < 4 && ok; k++) {
        double x = (double)(i + cx[k]) * g->step, z = (double)(j + cz[k]) * g->step;
        ok = proj_point(p, x, g->y, z, s[k]);
        /* fade into the background towards the rim */
        double d = sqrt((x - g->cx) * (x - g->cx) + (z - g->cz) * (z - g->cz)) / g->half;
        double t = d < FADE ? 0 : d > 1 ? 1 : (d - FADE) / (1 - FADE);
        inside |= d < 1;
        t = t * t * (3 - 2 * t);
        c[k].r = lerp8(base[0], bg[0], t);
        c[k].g = lerp8(base[1], bg[1], t);
        c[k].b = lerp8(base[2], bg[2], t);
        c[k].a = 255;
      }
      if (!ok || !inside) continue;
      static const int quad[6] = {0, 1, 2, 0, 2, 3};
      for (int k = 0; k < 6; k++) r->out[nv++] = vtx(s[quad[k]], c[quad[k]]);
    }
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
  if (nv) SDL_RenderGeometry(r->sdl, NULL, r->out, nv, NULL, 0);
}

/* the shadow blob: a radial alpha falloff, black, built once per renderer */
static SDL_Texture *shadow_texture(JlRenderer *r) {
  if (r->shadow) return r->shadow;
  enum { N = 64 };
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, N, N, 32, SDL_PIXELFORMAT_ARGB8888);
  if (!s) return NULL;
  Uint32 *px = s->pixels;
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++) {
      double dx = (x + 0.5) / N * 2 - 1, dy = (y + 0.5) / N * 2 - 1, d = sqrt(dx * dx + dy * dy);
      double a = d >= 1 ? 0 : (1 - d * d) * (1 - d * d);
      px[y * (s->pitch / 4) + x] = (Uint32)(255.0 * a + 0.5) << 24;
    }
  r->shadow = SDL_CreateTextureFromSurface(r->sdl, s);
  SDL_FreeSurface(s);
  if (r->shadow) SDL_SetTextureBlendMode(r->shadow, SDL_BLENDMODE_BLEND);
  return r->shadow;
}

/* a soft round shadow under each body: darker and tighter the closer it is.
 * One blended copy of the blob texture per body, stretched over the screen
 * rectangle of the projected disc (SDL's fastest blended path). */
static void draw_shadows(JlRenderer *r, const JlWorld *w, const Proj *p, const Ground *g) {
  const JlModel *m = w->model;
  const double *x = w->state.x;
  SDL_Texture *tex = shadow_texture(r);
  if (!tex) return;
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    if (body->node_count <= 0) continue;
    double com[3] = {0, 0, 0}, mass = 0, lo[3] = {INFINITY, INFINITY, INFINITY},
           hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
      for (int k = 0; k < 3; k++) {
        com[k] += m->mass[i] * x[3 * i + k];
        if (x[3 * i + k] < lo[k]) lo[k] = x[3 * i + k];
        if (x[3 * i + k] > hi[k]) hi[k] = x[3 * i + k];
      }
      mass += m->mass[i];
    }
    if (!(mass > 0)) continue;
    for (int k = 0; k < 3; k++) com[k] /= mass;
    double rad = 0.62 * fmax(hi[0] - lo[0], hi[2] - lo[2]);
    double height = lo[1] - g->y;
    if (!(rad > 0) || !isfinite(rad) || !isfinite(height)) continue;
    double fall = 1.0 - height / (4.0 * rad);
    fall = fall < 0.2 ? 0.2 : fall > 1 ? 1 : fall;
    rad *= 1.0 + 0.5 * (1.0 - fall);
    /* screen rectangle of the projected disc (no camera roll: close to its bounding box) */
    float lo2[2] = {1e30f, 1e30f}, hi2[2] = {-1e30f, -1e30f};
    int ok = 1;
    for (int k = 0; k < 16 && ok; k++) {
      double a = 2 * 3.14159265358979 * k / 16;
      float sp[3];
      ok = proj_point(p, com[0] + rad * cos(a), g->y, com[2] + rad * sin(a), sp);
      if (!ok) break;
      for (int d = 0; d < 2; d++) {
        if (sp[d] < lo2[d]) lo2[d] = sp[d];
        if (sp[d] > hi2[d]) hi2[d] = sp[d];
      }
    }
    if (!ok || hi2[0] - lo2[0] > 4.0f * p->w || hi2[1] - lo2[1] > 4.0f * p->h) continue;
    SDL_FRect dst = {lo2[0], lo2[1], hi2[0] - lo2[0], hi2[1] - lo2[1]};
    SDL_SetTextureAlphaMod(tex, (Uint8)(170 * fall));
    SDL_RenderCopyF(r->sdl, tex, NULL, &dst);
  }
}

/* ---- surfaces ----------------------------------------------------------------------- */

static int key_cmp(const void *pa, const void *pb) {
  const JlSortKey *a = pa, *b = pb;
  if (a->depth != b->depth) return a->depth > b->depth ? -1 : 1; /* far first */
  if (a->body != b->body) return a->body - b->body;
  return a->tri - b->tri;
}

/* lighting of one frame: headlight direction l and Blinn-Phong half vector hv */
typedef struct Light {
  double l[3], hv[3];
} Light;

/* Projects and shades nv vertices (x, normals n) into the scratch arrays at
 * voff and appends the front-facing triangles (all of them when two_sided)
 * as sort keys of item `item`. */
static void shade_item(JlRenderer *r, const Proj *p, const Light *li, int nv, const double *x, const double *n,
                       int ntri, const int *tri, const unsigned char body_base[3], const double *vval, double range,
                       Uint8 alpha, int two_sided, int voff, int item, int *nkey) {
  for (int i = 0; i < nv; i++) {
    /* the body's colour, or the strain layer's for this vertex */
    unsigned char strain_rgb[3];
    const unsigned char *base = body_base;
    if (vval) {
      jl_strain_colour(vval[i] / range, strain_rgb);
      base = strain_rgb;
    }
    float *s = r->sx + 3 * (size_t)(voff + i);
    r->ok[voff + i] = (unsigned char)proj_point(p, x[3 * i], x[3 * i + 1], x[3 * i + 2], s);
    double nl = n[3 * i] * li->l[0] + n[3 * i + 1] * li->l[1] + n[3 * i + 2] * li->l[2];
    double nh = n[3 * i] * li->hv[0] + n[3 * i + 1] * li->hv[1] + n[3 * i + 2] * li->hv[2];
    /* a sheet seen from behind is lit on that side: the headlight sits at the eye */
    if (two_sided) nl = fabs(nl), nh = fabs(nh);
    double diff = 0.30 + 0.70 * (nl > 0 ? nl : 0);
    double spec = nh > 0 ? 0.28 * pow(nh, 32) : 0;
    SDL_Color col;
    col.r = lerp8(0, base[0] * diff + 255 * spec, 1);
    col.g = lerp8(0, base[1] * diff + 255 * spec, 1);
    col.b = lerp8(0, base[2] * diff + 255 * spec, 1);
    col.a = alpha;
    r->col[voff + i] = col;
  }
  for (int t = 0; t < ntri; t++) {
    int a = voff + tri[3 * t], bb = voff + tri[3 * t + 1], cc = voff + tri[3 * t + 2];
    if (!r->ok[a] || !r->ok[bb] || !r->ok[cc]) continue;
    const float *sa = r->sx + 3 * a, *sb = r->sx + 3 * bb, *sc = r->sx + 3 * cc;
    /* counter-clockwise from outside is clockwise on a y-down screen */
    float area = (sb[0] - sa[0]) * (sc[1] - sa[1]) - (sb[1] - sa[1]) * (sc[0] - sa[0]);
    if (!(area < 0) && !(two_sided && area > 0)) continue;
    JlSortKey *k = &r->key[(*nkey)++];
    k->depth = sa[2] + sb[2] + sc[2];
    if (two_sided) {
      /* a sheet lies on whatever it covers: sorted by its nearest corner, so
       * a large cloth triangle is drawn after the small triangles of the body
       * under it, whose centroids can be nearer than its own */
      float near = sa[2] < sb[2] ? sa[2] : sb[2];
      near = near < sc[2] ? near : sc[2];
      k->depth = 3.0f * near;
    }
    k->body = item;
    k->tri = t;
  }
}

/* A rope of nv nodes x as a ribbon of screen width `width` pixels: vertex
 * voff + 2i and voff + 2i + 1 sit either side of node i, across the strand's
 * screen direction; triangles come from rope_triangles. Lit by the strand's
 * angle to the light (diffuse ~ sin, Kajiya & Kay 1989). */
static void shade_rope(JlRenderer *r, const Proj *p, const Light *li, int nv, const double *x,
                       const unsigned char base[3], Uint8 alpha, float width, int voff, int item, int *nkey) {
  float *node = jl_calloc(3 * (size_t)nv, sizeof(float));
  unsigned char *ok = jl_calloc((size_t)nv, 1);
  for (int i = 0; i < nv; i++) ok[i] = (unsigned char)proj_point(p, x[3 * i], x[3 * i + 1], x[3 * i + 2], node + 3 * i);
  for (int i = 0; i < nv; i++) {
    int a = i > 0 ? i - 1 : i, b = i + 1 < nv ? i + 1 : i;
    /* strand direction in space (lighting) and on screen (ribbon offset) */
    double t[3], tl = 0, tt = 0;
    for (int k = 0; k < 3; k++) {
      t[k] = x[3 * b + k] - x[3 * a + k];
      tt += t[k] * t[k];
      tl += t[k] * li->l[k];
    }
    double cos2 = tt > 0 ? tl * tl / tt : 0, sin_tl = sqrt(cos2 < 1 ? 1 - cos2 : 0);
    double diff = 0.30 + 0.70 * sin_tl, spec = 0.18 * pow(sin_tl, 24);
    SDL_Color col;
    col.r = lerp8(0, base[0] * diff + 255 * spec, 1);
    col.g = lerp8(0, base[1] * diff + 255 * spec, 1);
    col.b = lerp8(0, base[2] * diff + 255 * spec, 1);
    col.a = alpha;
    float dx = node[3 * b] - node[3 * a], dy = node[3 * b + 1] - node[3 * a + 1];
    float len = sqrtf(dx * dx + dy * dy);
    float ox = len > 1e-6f ? -dy / len * 0.5f * width : 0.5f * width, oy = len > 1e-6f ? dx / len * 0.5f * width : 0;
    for (int side = 0; side < 2; side++) {
      int v = voff + 2 * i + side;
      float sgn = side ? -1.0f : 1.0f;
      r->sx[3 * (size_t)v] = node[3 * i] + sgn * ox;
      r->sx[3 * (size_t)v + 1] = node[3 * i + 1] + sgn * oy;
      r->sx[3 * (size_t)v + 2] = node[3 * i + 2];
      r->ok[v] = ok[i] && ok[a] && ok[b];
      r->col[v] = col;
    }
  }
  for (int sgm = 0; sgm + 1 < nv; sgm++)
    for (int h = 0; h < 2; h++) {
      if (!r->ok[voff + 2 * sgm] || !r->ok[voff + 2 * sgm + 2]) continue;
      JlSortKey *k = &r->key[(*nkey)++];
      k->depth = 1.5f * (node[3 * sgm + 2] + node[3 * sgm + 5]); /* comparable with 3-vertex sums */
      k->body = item;
      k->tri = 2 * sgm + h;
    }
  free(node);
  free(ok);
}

/* the ribbon triangles of a rope of nv nodes (2 per segment) */
static int *rope_triangles(int nv) {
  int *tri = jl_calloc(6 * (size_t)(nv > 1 ? nv - 1 : 0) + 1, sizeof(int));
  for (int s = 0; s + 1 < nv; s++) {
    int a = 2 * s, b = 2 * s + 1, c = 2 * s + 2, d = 2 * s + 3;
    int *t = tri + 6 * (size_t)s;
    t[0] = a, t[1] = b, t[2] = c, t[3] = b, t[4] = d, t[5] = c;
  }
  return tri;
}

/* 1 when the segment from a to b passes through the box [lo, hi] (slab test) */
static int segment_hits_box(const double a[3], const double b[3], const double lo[3], const double hi[3]) {
  double t0 = 0.0, t1 = 1.0;
  for (int k = 0; k < 3; k++) {
    double d = b[k] - a[k];
    if (fabs(d) < 1e-300) {
      if (a[k] < lo[k] || a[k] > hi[k]) return 0;
      continue;
    }
    double u = (lo[k] - a[k]) / d, v = (hi[k] - a[k]) / d;
    if (u > v) {
      double tmp = u;
      u = v;
      v = tmp;
    }
    if (u > t0) t0 = u;
    if (v < t1) t1 = v;
    if (t0 > t1) return 0;
  }
  return 1;
}

/* An obstacle that stands between the eye and a body's centre is drawn
 * see-through (x-ray), so walls around bodies (a chute, a bowl) never hide
 * what moves inside them. */
static Uint8 obstacle_alpha(const JlWorld *w, const JlCamera *c, const JlObstacle *o) {
  const JlModel *m = w->model;
  double eye[3], lo[3], hi[3];
  jl_camera_eye(c, eye);
  jl_obstacle_aabb(o, lo, hi);
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    double centre[3] = {0, 0, 0};
    for (int i = body->node_begin; i < body->node_begin + body->node_count; i++)
      for (int k = 0; k < 3; k++) centre[k] += w->state.x[3 * i + k];
    for (int k = 0; k < 3; k++) centre[k] /= body->node_count > 0 ? body->node_count : 1;
    if (segment_hits_box(eye, centre, lo, hi)) return 80;
  }
  return 255;
}

/* Bodies' embedded surfaces and the bounded obstacles, shaded and sorted
 * together so they occlude each other correctly. Returns the triangles drawn. */
static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* the strain layer's values: each node's (r->node_val) and the range */
static double strain_values(JlRenderer *r, const JlWorld *w) {
  const JlModel *m = w->model;
  int maxv = 0;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].surface.nvert > maxv) maxv = m->body[b].surface.nvert;
  size_t nn = (size_t)m->nnode + 1, nf = 3 * ((size_t)m->nnode + (size_t)maxv) + 3, nv = (size_t)maxv + 1;
  if (nn > r->cap_node) r->node_val = jl_realloc(r->node_val, nn, sizeof(double)), r->cap_node = nn;
  if (nf > r->cap_field) r->field3 = jl_realloc(r->field3, nf, sizeof(double)), r->cap_field = nf;
  if (nv > r->cap_vval) r->vval = jl_realloc(r->vval, nv, sizeof(double)), r->cap_vval = nv;
  jl_render_node_strain(w, r->node_val);
  /* the range: the 98th percentile of |strain| (a few nodes at a contact would wash out the rest) */
  double *a = r->field3; /* free until the surfaces are interpolated */
  for (int i = 0; i < m->nnode; i++) a[i] = fabs(r->node_val[i]);
  qsort(a, (size_t)m->nnode, sizeof(double), cmp_double);
  double top = m->nnode > 0 ? a[(int)(0.98 * (m->nnode - 1))] : 0.0;
  return jl_strain_range(top);
}

static int draw_surfaces(JlRenderer *r, const JlWorld *w, const JlCamera *c, const Proj *p, Uint8 alpha, int strain) {
  static const unsigned char obstacle_rgb[3] = {150, 156, 168};
  const JlModel *m = w->model;
  int nitem = m->nbody + m->nobstacle;
  JlSurface *obs = jl_calloc((size_t)m->nobstacle + 1, sizeof *obs);
  const int **item_tri = jl_calloc((size_t)nitem + 1, sizeof *item_tri);
  int **rope_tri = jl_calloc((size_t)m->nbody + 1, sizeof *rope_tri);
  int *item_off = jl_calloc((size_t)nitem + 1, sizeof(int));
  int nvert = 0, ntri = 0;
  for (int i = 0; i < nitem; i++) {
    const JlSurface *s = &m->body[i < m->nbody ? i : 0].surface;
    if (i >= m->nbody) {
      jl_obstacle_mesh(&m->obstacle[i - m->nbody], &obs[i - m->nbody]);
      s = &obs[i - m->nbody];
    }
    item_tri[i] = s->tri;
    item_off[i] = nvert;
    if (i < m->nbody && m->body[i].kind == JL_BODY_ROPE && s->nvert > 1) {
      /* a ribbon: two screen vertices per node, two triangles per segment */
      rope_tri[i] = rope_triangles(s->nvert);
      item_tri[i] = rope_tri[i];
      nvert += 2 * s->nvert;
      ntri += 2 * (s->nvert - 1);
      continue;
    }
    nvert += s->nvert;
    ntri += s->ntri;
  }
  int nkey = 0, blend = alpha < 255;
  r->strain_range = strain ? strain_values(r, w) : 0.0;
  if (ntri > 0) {
    reserve(r, nvert, ntri);

    /* headlight: slightly above and left of the eye; half vector for the highlight */
    Light li;
    double right[3], up[3], fwd[3], ln = 0, hn = 0;
    jl_camera_basis(c, right, up, fwd);
    for (int k = 0; k < 3; k++) {
      li.l[k] = -fwd[k] + 0.45 * up[k] - 0.3 * right[k];
      ln += li.l[k] * li.l[k];
    }
    for (int k = 0; k < 3; k++) {
      li.l[k] /= sqrt(ln);
      li.hv[k] = li.l[k] - fwd[k];
      hn += li.hv[k] * li.hv[k];
    }
    for (int k = 0; k < 3; k++) li.hv[k] /= sqrt(hn);

    /* evaluate, shade and project every vertex; collect front-facing triangles */
    for (int i = 0; i < nitem; i++) {
      int voff = item_off[i];
      double *x = r->xd + 3 * (size_t)voff, *n = r->nd + 3 * (size_t)voff;
      unsigned char base[3];
      const JlSurface *s;
      const double *vval = NULL;
      if (i < m->nbody) {
        const JlBody *body = &m->body[i];
        s = &body->surface;
        if (s->nvert == 0 || (body->kind == JL_BODY_VOLUME && body->embed.nvert != s->nvert)) continue;
        jl_world_surface(w, i, x);
        jl_render_body_color(i, base);
        if (r->strain_range > 0) {
          jl_render_surface_values(w, i, r->node_val, r->field3, r->vval);
          vval = r->vval;
        }
        if (body->kind == JL_BODY_ROPE) {
          if (!rope_tri[i]) continue;
          /* about 3 px at 1280 wide, never thinner than 2 px */
          float width = p->w / 420.0f < 2.0f ? 2.0f : p->w / 420.0f;
          shade_rope(r, p, &li, s->nvert, x, base, alpha, width, voff, i, &nkey);
          continue;
        }
      } else {
        s = &obs[i - m->nbody];
        if (s->nvert == 0) continue;
        memcpy(x, s->vert, sizeof(double) * 3 * (size_t)s->nvert);
        memcpy(base, obstacle_rgb, 3);
      }
      Uint8 a = i < m->nbody ? alpha : obstacle_alpha(w, c, &m->obstacle[i - m->nbody]);
      if (a < 255) blend = 1;
      jl_surface_normals(s->nvert, x, s->ntri, s->tri, n);
      int two_sided = i < m->nbody && m->body[i].kind == JL_BODY_CLOTH;
      shade_item(r, p, &li, s->nvert, x, n, s->ntri, s->tri, base, vval, r->strain_range, a, two_sided, voff, i, &nkey);
    }

    /* painter's order: far to near */
    qsort(r->key, (size_t)nkey, sizeof *r->key, key_cmp);
    jl_renderer_reserve_out(r, 3 * nkey);
    for (int k = 0; k < nkey; k++) {
      const int *tri = item_tri[r->key[k].body] + 3 * r->key[k].tri;
      int off = item_off[r->key[k].body];
      for (int j = 0; j < 3; j++) {
        int v = off + tri[j];
        r->out[3 * k + j] = vtx(r->sx + 3 * v, r->col[v]);
      }
    }
    SDL_SetRenderDrawBlendMode(r->sdl, blend ? SDL_BLENDMODE_BLEND : SDL_BLENDMODE_NONE);
    if (nkey) SDL_RenderGeometry(r->sdl, NULL, r->out, 3 * nkey, NULL, 0);
    SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
  }
  for (int o = 0; o < m->nobstacle; o++) jl_surface_free(&obs[o]);
  free(obs);
  for (int b = 0; b < m->nbody; b++) free(rope_tri[b]);
  JL_FREE_ALL(rope_tri, item_tri, item_off);
  return nkey;
}

int jl_render_world(JlRenderer *r, const JlWorld *w, const JlCamera *c, const JlRenderOptions *o) {
  JlRenderOptions def = jl_default_render_options();
  if (!o) o = &def;
  const unsigned char *bg = jl_render_background;
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
  SDL_SetRenderDrawColor(r->sdl, bg[0], bg[1], bg[2], 255);
  SDL_RenderClear(r->sdl);
  Proj p;
  proj_init(&p, c, r->width, r->height);
  Ground g;
  ground_extent(w->model, c, &g);
  /* a scene without a ground has no floor (and nothing to cast shadows on) */
  int ground = o->ground && w->model->world.has_ground;
  if (ground) {
    /* the ground only changes with the camera: draw it once into a texture */
    double key[JL_GROUND_KEY] = {c->target[0], c->target[1], c->target[2], c->yaw, c->pitch,
                                 c->distance,  c->fov_deg,   g.y,          g.half, g.step};
    if (!r->ground || r->ground_w != r->width || r->ground_h != r->height ||
        memcmp(key, r->ground_key, sizeof key) != 0) {
      if (r->ground && (r->ground_w != r->width || r->ground_h != r->height)) {
        SDL_DestroyTexture(r->ground);
        r->ground = NULL;
      }
      if (!r->ground)
        r->ground = SDL_CreateTexture(r->sdl, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_TARGET, r->width, r->height);
      if (r->ground && SDL_SetRenderTarget(r->sdl, r->ground) == 0) {
        SDL_SetRenderDrawColor(r->sdl, bg[0], bg[1], bg[2], 255);
        SDL_RenderClear(r->sdl);
        draw_ground(r, &p, &g);
        SDL_SetRenderTarget(r->sdl, NULL);
        memcpy(r->ground_key, key, sizeof key);
        r->ground_w = r->width;
        r->ground_h = r->height;
      } else if (r->ground) {
        SDL_DestroyTexture(r->ground);
        r->ground = NULL;
      }
    }
    if (r->ground) {
      SDL_SetTextureBlendMode(r->ground, SDL_BLENDMODE_NONE);
      SDL_RenderCopy(r->sdl, r->ground, NULL, NULL);
    } else {
      draw_ground(r, &p, &g);
    }
  }
  if (o->shadows && ground) draw_shadows(r, w, &p, &g);
  /* see-through surfaces while the inside (tets, springs) is shown */
  unsigned inside = (1u << JL_LAYER_TETS) | (1u << JL_LAYER_SPRINGS);
  int n = draw_surfaces(r, w, c, &p, (o->layers & inside) ? 70 : 255, (o->layers >> JL_LAYER_STRAIN) & 1u);
  if (o->layers) jl_overlay_draw(r, w, c, o->layers);
  if (r->strain_range > 0) jl_render_strain_bar(r, r->strain_range);
  r->last_triangles = n;
  return n;
}

/* ---- benchmark ------------------------------------------------------------------------ */

JlResult jl_render_bench(const JlWorld *w, int width, int height, int frames, JlRenderBench *out, char *err,
                         size_t errsz) {
  memset(out, 0, sizeof *out);
  JlRenderer *r;
  JlResult res = jl_renderer_create_headless(&r, width, height, err, errsz);
  if (res) return res;
  JlCamera c = {{0, 0, 0}, 0, 0, 1, 40};
  jl_camera_frame_world(&c, w, (double)width / height);
  JlRenderOptions o = jl_default_render_options();
  jl_render_world(r, w, &c, &o); /* warm-up: scratch buffers */
  int tri = 0;
  for (int b = 0; b < w->model->nbody; b++) tri += w->model->body[b].surface.ntri;
  double t0 = jl_seconds();
  for (int k = 0; k < frames; k++) {
    jl_render_world(r, w, &c, &o);
    SDL_RenderPresent(r->sdl);
  }
  double s = jl_seconds() - t0;
  out->width = width;
  out->height = height;
  out->frames = frames;
  out->triangles = tri;
  out->ms_per_frame = frames > 0 ? 1e3 * s / frames : 0;
  out->triangles_per_s = s > 0 ? (double)tri * frames / s : 0;
  jl_renderer_destroy(r);
  return JL_OK;
}
