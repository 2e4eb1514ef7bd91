/* Generated closed surfaces: box, geodesic sphere and torus (mesh/shapes.h).
 *
 * All are watertight, outward oriented (counter-clockwise seen from outside),
 * free of duplicate vertices and centred on the origin. `resolution` is a
 * target edge length; 0 picks about an eighth of the body's size (for the
 * torus also at most a twelfth of the tube's circumference). At most 4096
 * segments per direction; jl_shape_*_triangles give the size beforehand.
 *  - box: every face split into a grid of squares, two triangles each; the
 *    boundary vertices of the (nx+1)(ny+1)(nz+1) grid are shared by faces
 *    (only the boundary is stored);
 *  - sphere: an icosahedron subdivided `level` times (each triangle into four,
 *    midpoints pushed onto the sphere), level from the edge length
 *    1.05 r / 2^level;
 *  - torus: around the Y axis, lying flat in the XZ plane, a (u, v) grid
 *    wrapped in both directions. */
#include "mesh/shapes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static void surface_alloc(JlSurface *out, int nvert, int ntri) {
  out->nvert = nvert;
  out->ntri = ntri;
  out->vert = jl_calloc((size_t)nvert * 3, sizeof(double));
  out->tri = jl_calloc((size_t)ntri * 3, sizeof(int));
}

/* segments so that an edge of `length` is at most `resolution` long */
static int segments(double length, double resolution, int min) {
  double n = ceil(length / resolution - 1e-9);
  if (!(n >= min)) n = min; /* also catches NaN */
  if (n > 4096) n = 4096;
  return (int)n;
}

/* ---- box ---------------------------------------------------------------------- */

static void box_segments(const double size[3], double resolution, int n[3]) {
  double res = resolution > 0 ? resolution : fmax(size[0], fmax(size[1], size[2])) / 8.0;
  for (int k = 0; k < 3; k++) n[k] = segments(size[k], res, 1);
}

double jl_shape_box_triangles(const double size[3], double resolution) {
  int n[3];
  box_segments(size, resolution, n);
  return 4.0 * ((double)n[0] * n[1] + (double)n[1] * n[2] + (double)n[2] * n[0]);
}

/* Slot of boundary grid point (i, j, k) in a store that holds only the
 * boundary: the full bottom (k = 0) and top (k = n2) layers, then for each
 * layer in between the ring i in {0, n0} or j in {0, n1}, walked
 * counter-clockwise from (0, 0). */
static size_t box_slot(const int n[3], int i, int j, int k) {
  size_t layer = (size_t)(n[0] + 1) * (n[1] + 1), ring = 2 * ((size_t)n[0] + n[1]);
  if (k == 0) return (size_t)i + (size_t)j * (n[0] + 1);
  if (k == n[2]) return layer + (size_t)i + (size_t)j * (n[0] + 1);
  size_t r = j == 0      ? (size_t)i
             : i == n[0] ? (size_t)n[0] + j
             : j == n[1] ? (size_t)n[0] + n[1] + (n[0] - i)
                         : 2 * (size_t)n[0] + n[1] + (n[1] - j);
  return 2 * layer + (size_t)(k - 1) * ring + r;
}

void jl_shape_box(const double size[3], double resolution, JlSurface *out) {
  JL_ASSERT(size && out && size[0] > 0 && size[1] > 0 && size[2] > 0, "jl_shape_box needs positive sizes");
  int n[3];
  box_segments(size, resolution, n);

  /* ids of the boundary grid points, numbered in (k, j, i) order; memory
   * grows with the surface, not with the (n0+1)(n1+1)(n2+1) grid inside */
  size_t nslot = 2 * (size_t)(n[0] + 1) * (n[1] + 1) + (size_t)(n[2] - 1) * 2 * ((size_t)n[0] + n[1]);
  int *id = jl_calloc(nslot, sizeof(int));
  int nvert = 0;
  for (int k = 0; k <= n[2]; k++)
    for (int j = 0; j <= n[1]; j++) {
      int full = k == 0 || k == n[2] || j == 0 || j == n[1];
      for (int i = 0; i <= n[0]; i += full ? 1 : n[0]) {
        id[box_slot(n, i, j, k)] = nvert++;
      }
    }
  int ntri = 4 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0]);
  surface_alloc(out, nvert, ntri);
  for (int k = 0; k <= n[2]; k++)
    for (int j = 0; j <= n[1]; j++) {
      int full = k == 0 || k == n[2] || j == 0 || j == n[1];
      for (int i = 0; i <= n[0]; i += full ? 1 : n[0]) {
        int v = id[box_slot(n, i, j, k)];
        int idx[3] = {i, j, k};
        /* size * (i/n - 1/2) puts the end points exactly at +-size/2 */
        for (int d = 0; d < 3; d++) out->vert[3 * (size_t)v + d] = size[d] * ((double)idx[d] / n[d] - 0.5);
      }
    }

  /* faces normal to axis a, spanned by u = a+1 and v = a+2 (u x v = +a) */
  int t = 0;
  for (int a = 0; a < 3; a++) {
    int u = (a + 1) % 3, v = (a + 2) % 3;
    for (int side = 0; side < 2; side++) {
      for (int iu = 0; iu < n[u]; iu++)
        for (int iv = 0; iv < n[v]; iv++) {
          int q[4];
          for (int c = 0; c < 4; c++) {
            int idx[3];
            idx[a] = side ? n[a] : 0;
            idx[u] = iu + (c == 1 || c == 2);
            idx[v] = iv + (c == 2 || c == 3);
            q[c] = id[box_slot(n, idx[0], idx[1], idx[2])];
          }
          /* counter-clockwise around +a on the far side, reversed on the near side */
          int tri[2][3] = {{q[0], q[1], q[2]}, {q[0], q[2], q[3]}};
          for (int h = 0; h < 2; h++) {
            out->tri[3 * t] = tri[h][0];
            out->tri[3 * t + 1] = side ? tri[h][1] : tri[h][2];
            out->tri[3 * t + 2] = side ? tri[h][2] : tri[h][1];
            t++;
          }
        }
    }
  }
  free(id);
}

/* ---- geodesic sphere ------------------------------------------------------------ */

/* midpoint vertex of edge (a, b), created once: open-addressing hash on the
 * sorted pair */
typedef struct EdgeMap {
  size_t cap;
  uint64_t *key;
  int *value;
} EdgeMap;

static int edge_midpoint(EdgeMap *m, JlSurface *s, int *nvert, int a, int b, double radius) {
  uint64_t lo = (uint64_t)(a < b ? a : b), hi = (uint64_t)(a < b ? b : a);
  uint64_t key = (lo << 32) | hi;
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
  while (m->key[h] != UINT64_MAX) {
    if (m->key[h] == key) return m->value[h];
    h = (h + 1) & (m->cap - 1);
  }
  int v = (*nvert)++;
  double *p = s->vert + 3 * v, len = 0.0;
  for (int k = 0; k < 3; k++) {
    p[k] = 0.5 * (s->vert[3 * a + k] + s->vert[3 * b + k]);
    len += p[k] * p[k];
  }
  len = sqrt(len);
  for (int k = 0; k < 3; k++) p[k] *= radius / len;
  m->key[h] = key;
  m->value[h] = v;
  return v;
}

/* icosahedron edge = 1.0515 r; each subdivision halves it (at most 7 times) */
static int sphere_level(double radius, double resolution) {
  double res = resolution > 0 ? resolution : 2.0 * radius / 8.0;
  int level = 0;
  while (level < 7 && 1.0515 * radius / ldexp(1.0, level) > res) level++;
  return level;
}

double jl_shape_sphere_triangles(double radius, double resolution) {
  return ldexp(20.0, 2 * sphere_level(radius, resolution));
}

void jl_shape_sphere(double radius, double resolution, JlSurface *out) {
  JL_ASSERT(out && radius > 0, "jl_shape_sphere needs a positive radius");
  int level = sphere_level(radius, resolution);

  /* icosahedron: vertices (0, +-1, +-g) cyclically, g the golden ratio */
  static const int ico_tri[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                     {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                     {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                     {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  const double g = (1.0 + sqrt(5.0)) / 2.0;
  const double ico_vert[12][3] = {{-1, g, 0},  {1, g, 0},  {-1, -g, 0}, {1, -g, 0}, {0, -1, g},  {0, 1, g},
                                  {0, -1, -g}, {0, 1, -g}, {g, 0, -1},  {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
  int final_tri = 20 << (2 * level);
  int final_vert = final_tri / 2 + 2; /* Euler: V - E + F = 2, E = 3F/2 */
  JlSurface s;
  surface_alloc(&s, final_vert, final_tri);
  double scale = radius / sqrt(1.0 + g * g);
  for (int i = 0; i < 12; i++)
    for (int k = 0; k < 3; k++) s.vert[3 * i + k] = ico_vert[i][k] * scale;
  memcpy(s.tri, ico_tri, sizeof ico_tri);
  int nvert = 12, ntri = 20;

  /* each level: every triangle into four, sharing edge midpoints */
  int *next = jl_calloc((size_t)final_tri * 3, sizeof(int));
  for (int l = 0; l < level; l++) {
    EdgeMap m;
    m.cap = 64;
    while (m.cap < (size_t)ntri * 4) m.cap *= 2;
    m.key = jl_calloc(m.cap, sizeof(uint64_t));
    m.value = jl_calloc(m.cap, sizeof(int));
    memset(m.key, 0xFF, m.cap * sizeof(uint64_t));
    for (int t = 0; t < ntri; t++) {
      int a = s.tri[3 * t], b = s.tri[3 * t + 1], c = s.tri[3 * t + 2];
      int ab = edge_midpoint(&m, &s, &nvert, a, b, radius);
      int bc = edge_midpoint(&m, &s, &nvert, b, c, radius);
      int ca = edge_midpoint(&m, &s, &nvert, c, a, radius);
      int quad[4][3] = {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}};
      memcpy(next + 12 * t, quad, sizeof quad);
    }
    ntri *= 4;
    memcpy(s.tri, next, sizeof(int) * 3 * (size_t)ntri);
    free(m.key);
    free(m.value);
  }
  free(next);
  JL_ASSERT(nvert == final_vert && ntri == final_tri, "icosphere counts disagree with Euler's formula");
  *out = s;
}

/* ---- torus ------------------------------------------------------------------------ */

/* segments around the Y axis (nu) and around the tube (nv); the default
 * resolution is an eighth of the diameter, and at least 12 segments round
 * the tube */
static void torus_segments(double major, double minor, double resolution, int *nu, int *nv) {
  double res = resolution > 0 ? resolution : fmin(2.0 * (major + minor) / 8.0, 2.0 * PI * minor / 12.0);
  *nu = segments(2.0 * PI * (major + minor), res, 3);
  *nv = segments(2.0 * PI * minor, res, 3);
}

double jl_shape_torus_triangles(double major, double minor, double resolution) {
  int nu, nv;
  torus_segments(major, minor, resolution, &nu, &nv);
  return 2.0 * nu * nv;
}

void jl_shape_torus(double major, double minor, double resolution, JlSurface *out) {
  JL_ASSERT(out && minor > 0 && major > minor, "jl_shape_torus needs 0 < minor < major");
  int nu, nv;
  torus_segments(major, minor, resolution, &nu, &nv);
  surface_alloc(out, nu * nv, 2 * nu * nv);
  /* P(u, v) = ((R + r cos v) cos u, r sin v, (R + r cos v) sin u) */
  for (int i = 0; i < nu; i++) {
    double u = 2.0 * PI * i / nu;
    for (int j = 0; j < nv; j++) {
      double v = 2.0 * PI * j / nv;
      double *p = out->vert + 3 * (i * nv + j);
      p[0] = (major + minor * cos(v)) * cos(u);
      p[1] = minor * sin(v);
      p[2] = (major + minor * cos(v)) * sin(u);
    }
  }
  /* dP/du x dP/dv points into the tube, so quads (a, b=a+u, c, d=a+v) are
   * split as (a, d, c) and (a, c, b) */
  int t = 0;
  for (int i = 0; i < nu; i++)
    for (int j = 0; j < nv; j++) {
      int a = i * nv + j, b = ((i + 1) % nu) * nv + j;
      int c = ((i + 1) % nu) * nv + (j + 1) % nv, d = i * nv + (j + 1) % nv;
      int tri[2][3] = {{a, d, c}, {a, c, b}};
      memcpy(out->tri + 3 * t, tri, sizeof tri);
      t += 2;
    }
}
