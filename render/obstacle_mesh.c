/* Triangle meshes of static obstacles for drawing (render/internal.h).
 *
 * Obstacles are exact shapes for collision (collision/obstacle.h); to draw
 * them with the bodies, each bounded one becomes a world-space triangle
 * surface once per model: a box with flat faces (four vertices per face, so
 * area-weighted vertex normals stay flat), a geodesic sphere
 * (jl_shape_sphere), a capsule (a UV sphere split at its equator and
 * stretched by its length) and, for a hull, nothing here (its outline is a
 * debug layer). Planes are infinite and drawn by the ground grid instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/shapes.h"
#include "render/internal.h"

/* local -> world: rot * p + translate */
static void place(const JlObstacle *o, JlSurface *s) {
  for (int i = 0; i < s->nvert; i++) {
    double *p = s->vert + 3 * i, q[3] = {p[0], p[1], p[2]};
    for (int r = 0; r < 3; r++)
      p[r] = o->rot[3 * r] * q[0] + o->rot[3 * r + 1] * q[1] + o->rot[3 * r + 2] * q[2] + o->translate[r];
  }
}

/* six faces, each its own four vertices, counter-clockwise from outside */
static void box_mesh(const double size[3], JlSurface *s) {
  static const int face[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  s->nvert = 24;
  s->ntri = 12;
  s->vert = jl_calloc(72, sizeof(double));
  s->tri = jl_calloc(36, sizeof(int));
  for (int f = 0; f < 6; f++) {
    for (int k = 0; k < 4; k++) {
      int c = face[f][k]; /* corner bits: x = bit 0, y = bit 1, z = bit 2 */
      double *p = s->vert + 3 * (4 * f + k);
      p[0] = (c & 1 ? 0.5 : -0.5) * size[0];
      p[1] = (c & 2 ? 0.5 : -0.5) * size[1];
      p[2] = (c & 4 ? 0.5 : -0.5) * size[2];
    }
    int *t = s->tri + 6 * f, b = 4 * f;
    t[0] = b, t[1] = b + 1, t[2] = b + 2;
    t[3] = b, t[4] = b + 2, t[5] = b + 3;
  }
}

/* capsule along local y: rings of a UV sphere, the upper half lifted by length/2 */
static void capsule_mesh(double radius, double length, JlSurface *s) {
  enum { SEG = 24, RINGS = 12 }; /* RINGS latitude bands per half, even split at the equator */
  int nring = 2 * RINGS + 1;     /* latitude rings including both poles' rings */
  s->nvert = 2 + (nring - 2 + 1) * SEG;
  s->vert = jl_calloc((size_t)s->nvert * 3, sizeof(double));
  s->tri = jl_calloc((size_t)(2 * SEG * nring) * 3, sizeof(int));
  const double pi = acos(-1.0);
  int nv = 0;
  /* poles */
  s->vert[1] = -radius - 0.5 * length;
  s->vert[4] = radius + 0.5 * length;
  nv = 2;
  /* rings from the bottom up; the equator appears twice (bottom and top half) */
  int ring_start[2 * RINGS + 2], nr = 0;
  for (int half = 0; half < 2; half++)
    for (int k = half ? 0 : 1; k <= RINGS - (half ? 1 : 0); k++) {
      double lat = half ? (double)k / RINGS * 0.5 * pi : -0.5 * pi + (double)k / RINGS * 0.5 * pi;
      double y = radius * sin(lat) + (half ? 0.5 : -0.5) * length, rr = radius * cos(lat);
      ring_start[nr++] = nv;
      for (int j = 0; j < SEG; j++) {
        double a = 2 * pi * j / SEG;
        double *p = s->vert + 3 * nv++;
        p[0] = rr * cos(a), p[1] = y, p[2] = -rr * sin(a);
      }
    }
  s->nvert = nv;
  int nt = 0;
  for (int j = 0; j < SEG; j++) {
    int a = ring_start[0] + j, b = ring_start[0] + (j + 1) % SEG;
    int *t = s->tri + 3 * nt++;
    t[0] = 0, t[1] = b, t[2] = a; /* bottom cap, outward (down) */
    a = ring_start[nr - 1] + j, b = ring_start[nr - 1] + (j + 1) % SEG;
    t = s->tri + 3 * nt++;
    t[0] = 1, t[1] = a, t[2] = b; /* top cap */
  }
  for (int r = 0; r + 1 < nr; r++)
    for (int j = 0; j < SEG; j++) {
      int a = ring_start[r] + j, b = ring_start[r] + (j + 1) % SEG;
      int c = ring_start[r + 1] + j, d = ring_start[r + 1] + (j + 1) % SEG;
      int *t = s->tri + 3 * nt;
      t[0] = a, t[1] = b, t[2] = d;
      t[3] = a, t[4] = d, t[5] = c;
      nt += 2;
    }
  s->ntri = nt;
}

void jl_obstacle_mesh(const JlObstacle *o, JlSurface *out) {
  memset(out, 0, sizeof *out);
  switch (o->type) {
    case JL_OBSTACLE_BOX:
      box_mesh(o->size, out);
      break;
    case JL_OBSTACLE_SPHERE:
      jl_shape_sphere(o->radius, o->radius / 6, out);
      break;
    case JL_OBSTACLE_CAPSULE:
      capsule_mesh(o->radius, o->length, out);
      break;
    default:
      return; /* planes: the ground grid; hulls: the obstacles debug layer */
  }
  place(o, out);
}
