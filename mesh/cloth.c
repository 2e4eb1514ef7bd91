/* Cloth and rope topology generators (see mesh/cloth.h for the models and
 * their sources: Provot 1995, Zhu, Zhou & Yu sec. 2.1, Kauppila sec. 1.1,
 * Selle et al. 2008; docs/references.md).
 *
 * The triangle-mesh path finds edges by sorting the 3 ntri half-edges by
 * their (smaller, larger) node pair: equal neighbours are the same edge, one
 * entry is a boundary edge, two an interior edge (which gets a bend spring
 * between the two opposite vertices), three or more a non-manifold edge
 * (rejected: a bend spring would be ambiguous). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/cloth.h"

void jl_cloth_free(JlClothMesh *c) {
  if (!c) return;
  JL_FREE_ALL(c->node, c->measure, c->tri, c->spring, c->kind);
  memset(c, 0, sizeof *c);
}

int jl_cloth_count(const JlClothMesh *c, JlSpringKind k) {
  int n = 0;
  for (int s = 0; s < c->nspring; s++) n += c->kind[s] == (unsigned char)k;
  return n;
}

static void add_spring(JlClothMesh *c, int a, int b, JlSpringKind k) {
  c->spring[2 * c->nspring] = a;
  c->spring[2 * c->nspring + 1] = b;
  c->kind[c->nspring] = (unsigned char)k;
  c->nspring++;
}

JlResult jl_cloth_grid(JlClothMesh *c, double width, double height, int nx, int ny, char *err, size_t errsz) {
  JL_ASSERT(c, "jl_cloth_grid: mesh must not be NULL");
  memset(c, 0, sizeof *c);
  if (!(width > 0) || !(height > 0) || !isfinite(width) || !isfinite(height))
    return jl_fail(err, errsz, JL_ERR_INPUT, "grid size must be > 0 m, got %g x %g", width, height);
  if (nx < 1 || ny < 1 || nx > 4096 || ny > 4096)
    return jl_fail(err, errsz, JL_ERR_INPUT, "grid cells must be 1 to 4096 per side, got %d x %d", nx, ny);
  int rx = nx + 1, ry = ny + 1;
  c->nnode = rx * ry;
  c->node = jl_calloc(3 * (size_t)c->nnode, sizeof(double));
  c->measure = jl_calloc((size_t)c->nnode, sizeof(double));
  c->ntri = 2 * nx * ny;
  c->tri = jl_calloc(3 * (size_t)c->ntri, sizeof(int));
  /* structural + shear + flexion upper bound */
  size_t cap = (size_t)(nx * ry + ny * rx) + 2 * (size_t)nx * ny + (size_t)rx * ry * 2;
  c->spring = jl_calloc(2 * cap, sizeof(int));
  c->kind = jl_calloc(cap, 1);

  /* nodes, and a quarter of each cell's area to each of its corners */
  double dx = width / nx, dy = height / ny, quarter = 0.25 * dx * dy;
  for (int j = 0; j < ry; j++)
    for (int i = 0; i < rx; i++) {
      double *x = c->node + 3 * (i + rx * j);
      x[0] = -0.5 * width + dx * i;
      x[1] = -0.5 * height + dy * j;
      x[2] = 0.0;
    }
  /* triangles (counter-clockwise seen from +z) and area */
  int t = 0;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      int a = i + rx * j, b = a + 1, d = a + rx, e = d + 1;
      int *tr = c->tri + 3 * t;
      tr[0] = a, tr[1] = b, tr[2] = e;
      tr[3] = a, tr[4] = e, tr[5] = d;
      t += 2;
      c->measure[a] += quarter, c->measure[b] += quarter, c->measure[d] += quarter, c->measure[e] += quarter;
    }
  /* structural: rows and columns */
  for (int j = 0; j < ry; j++)
    for (int i = 0; i < nx; i++) add_spring(c, i + rx * j, i + 1 + rx * j, JL_SPRING_STRETCH);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < rx; i++) add_spring(c, i + rx * j, i + rx * (j + 1), JL_SPRING_STRETCH);
  /* shear: both diagonals of every cell */
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      add_spring(c, i + rx * j, i + 1 + rx * (j + 1), JL_SPRING_SHEAR);
      add_spring(c, i + 1 + rx * j, i + rx * (j + 1), JL_SPRING_SHEAR);
    }
  /* flexion: two cells apart along rows and columns */
  for (int j = 0; j < ry; j++)
    for (int i = 0; i + 2 < rx; i++) add_spring(c, i + rx * j, i + 2 + rx * j, JL_SPRING_BEND);
  for (int j = 0; j + 2 < ry; j++)
    for (int i = 0; i < rx; i++) add_spring(c, i + rx * j, i + rx * (j + 2), JL_SPRING_BEND);
  return JL_OK;
}

JlResult jl_cloth_chain(JlClothMesh *c, double length, int segments, char *err, size_t errsz) {
  JL_ASSERT(c, "jl_cloth_chain: mesh must not be NULL");
  memset(c, 0, sizeof *c);
  if (!(length > 0) || !isfinite(length))
    return jl_fail(err, errsz, JL_ERR_INPUT, "chain length must be > 0 m, got %g", length);
  if (segments < 1 || segments > 1000000)
    return jl_fail(err, errsz, JL_ERR_INPUT, "chain segments must be 1 to 1000000, got %d", segments);
  c->nnode = segments + 1;
  c->node = jl_calloc(3 * (size_t)c->nnode, sizeof(double));
  c->measure = jl_calloc((size_t)c->nnode, sizeof(double));
  c->spring = jl_calloc(2 * (2 * (size_t)segments), sizeof(int));
  c->kind = jl_calloc(2 * (size_t)segments, 1);
  double seg = length / segments;
  for (int i = 0; i < c->nnode; i++) c->node[3 * i + 1] = -seg * i;
  /* half a segment of rope to each end of every segment */
  for (int i = 0; i < segments; i++) {
    c->measure[i] += 0.5 * seg;
    c->measure[i + 1] += 0.5 * seg;
  }
  for (int i = 0; i < segments; i++) add_spring(c, i, i + 1, JL_SPRING_STRETCH);
  for (int i = 0; i + 2 <= segments; i++) add_spring(c, i, i + 2, JL_SPRING_BEND);
  return JL_OK;
}

/* one half-edge: its node pair sorted, the triangle's third vertex */
typedef struct HalfEdge {
  int lo, hi, opposite;
} HalfEdge;

static int half_edge_cmp(const void *pa, const void *pb) {
  const HalfEdge *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return (a->opposite > b->opposite) - (a->opposite < b->opposite);
}

JlResult jl_cloth_from_surface(JlClothMesh *c, const JlSurface *s, const char *name, char *err, size_t errsz) {
  JL_ASSERT(c && s, "jl_cloth_from_surface: mesh and surface must not be NULL");
  memset(c, 0, sizeof *c);
  if (!name) name = "cloth";
  if (s->nvert <= 0 || s->ntri <= 0 || !s->vert || !s->tri)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: empty surface (%d vertices, %d triangles)", name, s->nvert, s->ntri);
  for (int i = 0; i < 3 * s->nvert; i++)
    if (!isfinite(s->vert[i]))
      return jl_fail(err, errsz, JL_ERR_INPUT, "%s: vertex %d has a non-finite coordinate", name, i / 3);

  /* triangles: indices in range, non-degenerate; node areas */
  double *area = jl_calloc((size_t)s->nvert, sizeof(double));
  for (int t = 0; t < s->ntri; t++) {
    const int *tr = s->tri + 3 * t;
    for (int k = 0; k < 3; k++)
      if (tr[k] < 0 || tr[k] >= s->nvert) {
        free(area);
        return jl_fail(err, errsz, JL_ERR_INPUT, "%s: triangle %d refers to vertex %d (of %d)", name, t, tr[k],
                       s->nvert);
      }
    const double *a = s->vert + 3 * tr[0], *b = s->vert + 3 * tr[1], *d = s->vert + 3 * tr[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double ar = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(ar > 0.0) || tr[0] == tr[1] || tr[1] == tr[2] || tr[0] == tr[2]) {
      free(area);
      return jl_fail(err, errsz, JL_ERR_INPUT, "%s: triangle %d is degenerate (zero area)", name, t);
    }
    for (int k = 0; k < 3; k++) area[tr[k]] += ar / 3.0;
  }

  /* edges from sorted half-edges */
  size_t nh = 3 * (size_t)s->ntri;
  HalfEdge *he = jl_calloc(nh, sizeof *he);
  for (int t = 0; t < s->ntri; t++)
    for (int k = 0; k < 3; k++) {
      int a = s->tri[3 * t + k], b = s->tri[3 * t + (k + 1) % 3], o = s->tri[3 * t + (k + 2) % 3];
      HalfEdge *h = &he[3 * (size_t)t + k];
      h->lo = a < b ? a : b, h->hi = a < b ? b : a, h->opposite = o;
    }
  qsort(he, nh, sizeof *he, half_edge_cmp);
  c->spring = jl_calloc(2 * nh, sizeof(int));
  c->kind = jl_calloc(nh, 1);
  for (size_t p = 0; p < nh;) {
    size_t q = p + 1;
    while (q < nh && he[q].lo == he[p].lo && he[q].hi == he[p].hi) q++;
    if (q - p > 2) {
      int lo = he[p].lo, hi = he[p].hi;
      free(he);
      free(area);
      jl_cloth_free(c);
      return jl_fail(err, errsz, JL_ERR_INPUT, "%s: edge %d-%d is shared by %d triangles (non-manifold)", name, lo, hi,
                     (int)(q - p));
    }
    add_spring(c, he[p].lo, he[p].hi, JL_SPRING_STRETCH);
    if (q - p == 2 && he[p].opposite != he[p + 1].opposite)
      add_spring(c, he[p].opposite, he[p + 1].opposite, JL_SPRING_BEND);
    p = q;
  }
  free(he);

  /* copy geometry */
  c->nnode = s->nvert;
  c->node = jl_calloc(3 * (size_t)s->nvert, sizeof(double));
  memcpy(c->node, s->vert, 3 * (size_t)s->nvert * sizeof(double));
  c->measure = area;
  c->ntri = s->ntri;
  c->tri = jl_calloc(3 * (size_t)s->ntri, sizeof(int));
  memcpy(c->tri, s->tri, 3 * (size_t)s->ntri * sizeof(int));
  return JL_OK;
}
