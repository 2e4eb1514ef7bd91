/* Picking: the nearest embedded-surface triangle hit by a ray.
 *
 * Brute force over every body's surface triangles with the Moller-Trumbore
 * ray/triangle test (Moller & Trumbore 1997, "Fast, minimum storage
 * ray-triangle intersection"), in double precision on the current embedded
 * positions. A click costs one pass over the surfaces (about 10^4 triangles
 * in the shipped scenes), so no acceleration structure is needed. Both
 * sides of a triangle count, so a pick works even from inside a body. */
#include <math.h>
#include <stdlib.h>

#include "render/render.h"

static int ray_triangle(const double o[3], const double d[3], const double *a, const double *b, const double *c,
                        double *t, double *u, double *v) {
  double e1[3], e2[3], p[3], q[3], s[3];
  for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], s[k] = o[k] - a[k];
  p[0] = d[1] * e2[2] - d[2] * e2[1];
  p[1] = d[2] * e2[0] - d[0] * e2[2];
  p[2] = d[0] * e2[1] - d[1] * e2[0];
  double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
  if (fabs(det) < 1e-300) return 0;
  double inv = 1.0 / det;
  *u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
  if (*u < 0 || *u > 1) return 0;
  q[0] = s[1] * e1[2] - s[2] * e1[1];
  q[1] = s[2] * e1[0] - s[0] * e1[2];
  q[2] = s[0] * e1[1] - s[1] * e1[0];
  *v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
  if (*v < 0 || *u + *v > 1) return 0;
  *t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
  return *t > 0;
}

int jl_pick_ray(const JlWorld *w, const double origin[3], const double dir[3], JlPick *hit) {
  const JlModel *m = w->model;
  int maxv = 0, found = 0;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].surface.nvert > maxv) maxv = m->body[b].surface.nvert;
  if (maxv == 0) return 0;
  double *x = jl_calloc((size_t)maxv * 3, sizeof(double));
  double best = INFINITY;
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    if (body->surface.nvert == 0 || (body->kind == JL_BODY_VOLUME && body->embed.nvert != body->surface.nvert))
      continue;
    jl_world_surface(w, b, x);
    for (int t = 0; t < body->surface.ntri; t++) {
      const int *tri = body->surface.tri + 3 * t;
      const double *a = x + 3 * tri[0], *bb = x + 3 * tri[1], *c = x + 3 * tri[2];
      double tt, u, v;
      if (!ray_triangle(origin, dir, a, bb, c, &tt, &u, &v) || !(tt < best)) continue;
      best = tt;
      found = 1;
      hit->body = b;
      hit->tri = t;
      hit->bary[0] = 1 - u - v;
      hit->bary[1] = u;
      hit->bary[2] = v;
      hit->t = tt;
      for (int k = 0; k < 3; k++) hit->point[k] = origin[k] + tt * dir[k];
    }
  }
  free(x);
  return found;
}
