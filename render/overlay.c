/* Debug layers drawn over the shaded surfaces: surface wireframe, tetrahedra,
 * springs coloured by strain, ground contacts with depth arrows, pinned
 * nodes, obstacle outlines and node velocities.
 *
 * Lines go through SDL_RenderDrawLinesF, points through SDL_RenderFillRectF;
 * everything is drawn on top (no depth test), which is what makes inner
 * structure (tets, springs) visible: the surfaces are drawn translucent while
 * those layers are on (render/raster.c). Strain colours follow the usual
 * diverging map: blue for compression, white at rest length, red for
 * stretching, saturating at 10 % strain.
 *
 * Contacts: the body-body contacts of the world's contact element (found by
 * its name "contacts", read through src/contact.h), the nodes inside static
 * obstacles (collision/obstacle.h, the same test the contact element makes)
 * and the nodes below the ground plane; each is a dot with an arrow along
 * its push-out direction, as long as 5x the penetration depth plus 1 cm.
 * Colours: orange for body-body, magenta for obstacles, yellow for ground.
 * Obstacles: boxes as their 12 edges, spheres as three great circles,
 * capsules as two cap circles, four side lines and the caps' outlines,
 * planes (and the ground) as a grid around the scene, hulls as their points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/obstacle.h"
#include "render/internal.h"
#include "src/contact.h"

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
  const JlModel *m = w->model;
  SDL_SetRenderDrawColor(c->r->sdl, 20, 24, 30, 200);
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    int nv = body->surface.nvert;
    if (nv == 0 || (body->kind == JL_BODY_VOLUME && body->embed.nvert != nv)) continue;
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
  const JlModel *m = w->model;
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

/* Springs coloured by strain (blue compressed, white, red stretched at 10 %), opaque as they are
 * strained: an unstrained spring is faint, so a fine mesh's thousands of resting springs do not
 * cover the picture and the strained ones stand out. Beyond JL_SPRINGS_DRAWN springs an even
 * subsample of the slightly strained ones is drawn; every spring strained past 2 % is. */
#define JL_SPRINGS_DRAWN 30000
static void springs(const Ctx *c, const JlWorld *w) {
  const JlModel *m = w->model;
  const double *x = w->state.x;
  int stride = m->nspring > JL_SPRINGS_DRAWN ? (m->nspring + JL_SPRINGS_DRAWN - 1) / JL_SPRINGS_DRAWN : 1;
  for (int s = 0; s < m->nspring; s++) {
    const double *a = x + 3 * m->spring_node[2 * s], *b = x + 3 * m->spring_node[2 * s + 1];
    double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    double strain = d / m->spring_rest[s] - 1.0, e = strain / 0.1;
    e = e < -1 ? -1 : e > 1 ? 1 : e;
    if (stride > 1 && fabs(strain) < 0.02 && s % stride != 0) continue;
    unsigned char rgb[3];
    jl_strain_colour(e, rgb);
    SDL_SetRenderDrawColor(c->r->sdl, rgb[0], rgb[1], rgb[2], (Uint8)(50 + 205 * fabs(e)));
    line(c, a, b);
  }
}

/* a dot at p and an arrow along dir (unit) of 5x depth + 1 cm */
static void contact_arrow(const Ctx *c, const double *p, const double *dir, double depth, const SDL_Color *col) {
  double len = 5.0 * depth + 0.01;
  double tip[3] = {p[0] + len * dir[0], p[1] + len * dir[1], p[2] + len * dir[2]};
  SDL_SetRenderDrawColor(c->r->sdl, col->r, col->g, col->b, 255);
  line(c, p, tip);
  SDL_SetRenderDrawColor(c->r->sdl, 255, 60, 50, 255);
  dot(c, p, 4);
}

static void contacts(const Ctx *c, const JlWorld *w) {
  const JlModel *m = w->model;
  const double *x = w->state.x;
  /* body against body: the contact element's points */
  static const SDL_Color body_col = {255, 150, 40, 255}, obst_col = {240, 80, 240, 255},
                         ground_col = {255, 210, 60, 255};
  for (int f = 0; f < w->nforce; f++) {
    if (!w->force[f] || w->force[f]->kind != JL_FORCE_CONTACTS) continue;
    int n = 0;
    const JlContactPoint *cp = jl_contact_points(w->force[f], &n);
    for (int i = 0; cp && i < n; i++) contact_arrow(c, x + 3 * cp[i].node, cp[i].dir, cp[i].depth, &body_col);
  }
  /* nodes inside static obstacles */
  for (int o = 0; o < m->nobstacle; o++) {
    const JlObstacle *ob = &m->obstacle[o];
    double lo[3], hi[3];
    jl_obstacle_aabb(ob, lo, hi);
    for (int i = 0; i < m->nnode; i++) {
      const double *p = x + 3 * i;
      if (p[0] < lo[0] || p[1] < lo[1] || p[2] < lo[2] || p[0] > hi[0] || p[1] > hi[1] || p[2] > hi[2]) continue;
      double depth, dir[3];
      if (jl_obstacle_penetration(ob, p, &depth, dir)) contact_arrow(c, p, dir, depth, &obst_col);
    }
  }
  /* nodes below the ground plane */
  if (!m->world.has_ground) return;
  double gy = m->world.ground_y, up[3] = {0, 1, 0};
  for (int i = 0; i < m->nnode; i++) {
    const double *p = x + 3 * i;
    if (p[1] < gy) contact_arrow(c, p, up, gy - p[1], &ground_col);
  }
}

static void pins(const Ctx *c, const JlWorld *w) {
  const JlModel *m = w->model;
  SDL_SetRenderDrawColor(c->r->sdl, 255, 230, 40, 255);
  for (int i = 0; i < m->nnode; i++)
    if (m->pinned[i]) dot(c, w->state.x + 3 * i, 5);
}

/* local point q of obstacle o to world coordinates */
static void to_world(const JlObstacle *o, const double q[3], double out[3]) {
  for (int r = 0; r < 3; r++)
    out[r] = o->translate[r] + o->rot[3 * r] * q[0] + o->rot[3 * r + 1] * q[1] + o->rot[3 * r + 2] * q[2];
}

static void local_line(const Ctx *c, const JlObstacle *o, const double *a, const double *b) {
  double wa[3], wb[3];
  to_world(o, a, wa);
  to_world(o, b, wb);
  line(c, wa, wb);
}

/* circle of radius rad about local centre cen in the local plane of axes (i, j); arc from a0 to a1 */
static void local_arc(const Ctx *c, const JlObstacle *o, const double cen[3], double rad, int i, int j, double a0,
                      double a1) {
  const int nseg = 32;
  double prev[3] = {0, 0, 0};
  for (int k = 0; k <= nseg; k++) {
    double a = a0 + (a1 - a0) * k / nseg, q[3];
    memcpy(q, cen, sizeof q);
    q[i] += rad * cos(a);
    q[j] += rad * sin(a);
    if (k > 0) local_line(c, o, prev, q);
    memcpy(prev, q, sizeof q);
  }
}

/* grid of 2 n + 1 lines each way over the square of half-size hs in the local xz plane */
static void local_grid(const Ctx *c, const JlObstacle *o, const double cen[3], double hs, int n) {
  for (int k = -n; k <= n; k++) {
    double s = hs * k / n;
    double a[3] = {cen[0] + s, cen[1], cen[2] - hs}, b[3] = {cen[0] + s, cen[1], cen[2] + hs};
    double e[3] = {cen[0] - hs, cen[1], cen[2] + s}, f[3] = {cen[0] + hs, cen[1], cen[2] + s};
    local_line(c, o, a, b);
    local_line(c, o, e, f);
  }
}

static void obstacle_shape(const Ctx *c, const JlObstacle *o, const double scene_c[3], double scene_h) {
  const double pi = acos(-1.0);
  switch (o->type) {
    case JL_OBSTACLE_BOX: {
      double h[3] = {0.5 * o->size[0], 0.5 * o->size[1], 0.5 * o->size[2]};
      for (int a = 0; a < 3; a++) { /* 4 edges along each axis */
        int b = (a + 1) % 3, d = (a + 2) % 3;
        for (int sb = -1; sb <= 1; sb += 2)
          for (int sd = -1; sd <= 1; sd += 2) {
            double p[3], q[3];
            p[a] = -h[a], q[a] = h[a];
            p[b] = q[b] = sb * h[b];
            p[d] = q[d] = sd * h[d];
            local_line(c, o, p, q);
          }
      }
      break;
    }
    case JL_OBSTACLE_SPHERE: {
      double z[3] = {0, 0, 0};
      local_arc(c, o, z, o->radius, 0, 1, 0, 2 * pi);
      local_arc(c, o, z, o->radius, 1, 2, 0, 2 * pi);
      local_arc(c, o, z, o->radius, 2, 0, 0, 2 * pi);
      break;
    }
    case JL_OBSTACLE_CAPSULE: {
      double hl = 0.5 * o->length, top[3] = {0, hl, 0}, bot[3] = {0, -hl, 0}, rad = o->radius;
      local_arc(c, o, top, rad, 2, 0, 0, 2 * pi); /* cap rims (local xz) */
      local_arc(c, o, bot, rad, 2, 0, 0, 2 * pi);
      local_arc(c, o, top, rad, 0, 1, 0, pi); /* cap outlines in xy and zy */
      local_arc(c, o, bot, rad, 0, 1, pi, 2 * pi);
      local_arc(c, o, top, rad, 2, 1, 0, pi);
      local_arc(c, o, bot, rad, 2, 1, pi, 2 * pi);
      for (int k = 0; k < 4; k++) {
        double a = 0.5 * pi * k, p[3] = {rad * cos(a), -hl, rad * sin(a)}, q[3] = {rad * cos(a), hl, rad * sin(a)};
        local_line(c, o, p, q);
      }
      break;
    }
    case JL_OBSTACLE_PLANE: {
      /* the plane's point nearest the scene centre, in local coordinates */
      double d[3] = {scene_c[0] - o->translate[0], scene_c[1] - o->translate[1], scene_c[2] - o->translate[2]}, q[3];
      for (int k = 0; k < 3; k++) q[k] = o->rot[k] * d[0] + o->rot[3 + k] * d[1] + o->rot[6 + k] * d[2];
      q[1] = 0.0;
      local_grid(c, o, q, scene_h, 8);
      break;
    }
    case JL_OBSTACLE_HULL:
      for (int k = 0; k < o->npoint; k++) {
        double p[3];
        to_world(o, o->point + 3 * k, p);
        dot(c, p, 3);
      }
      break;
    default:
      break;
  }
}

static void obstacles(const Ctx *c, const JlWorld *w) {
  const JlModel *m = w->model;
  double lo[3], hi[3];
  jl_camera_world_box(w, lo, hi);
  double cen[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
  double h = fmax(fmax(hi[0] - lo[0], hi[2] - lo[2]), 0.5);
  SDL_SetRenderDrawColor(c->r->sdl, 60, 200, 255, 230);
  for (int o = 0; o < m->nobstacle; o++) obstacle_shape(c, &m->obstacle[o], cen, h);
  if (!m->world.has_ground) return;
  /* the ground: a grid as for a plane obstacle */
  JlObstacle g = jl_default_obstacle();
  g.type = JL_OBSTACLE_PLANE;
  memset(g.translate, 0, sizeof g.translate);
  g.translate[1] = m->world.ground_y;
  SDL_SetRenderDrawColor(c->r->sdl, 255, 160, 60, 110);
  double q[3] = {cen[0], 0.0, cen[2]};
  local_grid(c, &g, q, h, 2);
}

static void velocities(const Ctx *c, const JlWorld *w) {
  const JlModel *m = w->model;
  SDL_SetRenderDrawColor(c->r->sdl, 120, 255, 120, 200);
  for (int i = 0; i < m->nnode; i++) {
    const double *p = w->state.x + 3 * i, *v = w->state.v + 3 * i;
    double q[3] = {p[0] + 0.05 * v[0], p[1] + 0.05 * v[1], p[2] + 0.05 * v[2]};
    line(c, p, q);
  }
}

void jl_draw_thick_line(JlRenderer *r, float x0, float y0, float x1, float y1, float width,
                        const unsigned char rgba[4]) {
  float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy), hw = 0.5f * width;
  float ux = len > 1e-3f ? dx / len : 1.0f, uy = len > 1e-3f ? dy / len : 0.0f;
  float nx = -uy * hw, ny = ux * hw;
  /* square caps: the ends reach half the width past the points */
  float ax = x0 - ux * hw, ay = y0 - uy * hw, bx = x1 + ux * hw, by = y1 + uy * hw;
  SDL_Vertex v[6];
  float px[6] = {ax + nx, ax - nx, bx - nx, ax + nx, bx - nx, bx + nx};
  float py[6] = {ay + ny, ay - ny, by - ny, ay + ny, by - ny, by + ny};
  for (int k = 0; k < 6; k++) {
    v[k].position.x = px[k];
    v[k].position.y = py[k];
    v[k].color.r = rgba[0], v[k].color.g = rgba[1], v[k].color.b = rgba[2], v[k].color.a = rgba[3];
    v[k].tex_coord.x = v[k].tex_coord.y = 0;
  }
  SDL_SetRenderDrawBlendMode(r->sdl, rgba[3] < 255 ? SDL_BLENDMODE_BLEND : SDL_BLENDMODE_NONE);
  SDL_RenderGeometry(r->sdl, NULL, v, 6, NULL, 0);
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
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
