/* Generalized winding number, fast (mesh/winding.h).
 *
 * w(p) = sum over triangles of the solid angle they subtend at p / 4 pi
 * (Jacobson et al. 2013, eq. 6), each solid angle by Van Oosterom & Strackee
 * (1983). Summing every triangle for every query is O(points x triangles),
 * too slow for a million lattice points against 100k triangles, so the
 * triangles are clustered (Barill et al. 2018, sec. 3): sorted along a Morton
 * curve of their centroids and split in halves down to leaves of LEAF
 * triangles. Each cluster keeps its area-weighted centroid c, its summed
 * area vector N = sum of a_t n_t and a radius r bounding all its vertices
 * around c. A query farther than beta r from c takes the cluster as a point
 * dipole plus its next Taylor term, w ~= [(c - p) . N / |c - p|^3 + J : M]
 * / 4 pi (Barill's expansion to second order, with the second moment M of
 * the area vectors about c); nearer clusters are opened, leaves summed
 * exactly. The truncation error is of order (r / |c - p|)^2 <= 1 / beta^2
 * of the cluster's own share; the measured error is in docs/robustness.md. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/vec3.h"
#include "mesh/winding.h"

#define LEAF    8
#define FOUR_PI (4.0 * 3.14159265358979323846)

struct JlWindingNode {
  double c[3];      /* area-weighted centroid, m */
  double n[3];      /* sum of area x unit normal, m^2 */
  double m[9];      /* second moment sum of a_t n_t (g_t - c)^T, row-major (n index first), m^3 */
  double r;         /* radius around c holding every vertex, m */
  int first, count; /* range in order */
  int child[2];     /* -1 for a leaf */
};

typedef struct MortonKey {
  uint64_t code;
  int tri;
} MortonKey;

static int cmp_morton(const void *pa, const void *pb) {
  const MortonKey *a = pa, *b = pb;
  if (a->code != b->code) return a->code < b->code ? -1 : 1;
  return (a->tri > b->tri) - (a->tri < b->tri);
}

/* 21 bits of x spread to every third bit */
static uint64_t spread3(uint64_t x) {
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffull;
  x = (x | x << 16) & 0x1f0000ff0000ffull;
  x = (x | x << 8) & 0x100f00f00f00f00full;
  x = (x | x << 4) & 0x10c30c30c30c30c3ull;
  x = (x | x << 2) & 0x1249249249249249ull;
  return x;
}

/* solid angle of triangle abc seen from p (Van Oosterom & Strackee 1983) */
static double solid_angle(const double *p, const double *a0, const double *b0, const double *c0) {
  double a[3], b[3], c[3], bc[3];
  jl_vec3_sub(a0, p, a);
  jl_vec3_sub(b0, p, b);
  jl_vec3_sub(c0, p, c);
  double la = sqrt(jl_vec3_dot(a, a)), lb = sqrt(jl_vec3_dot(b, b)), lc = sqrt(jl_vec3_dot(c, c));
  jl_vec3_cross(b, c, bc);
  double num = jl_vec3_dot(a, bc);
  double den = la * lb * lc + jl_vec3_dot(a, b) * lc + jl_vec3_dot(a, c) * lb + jl_vec3_dot(b, c) * la;
  return 2.0 * atan2(num, den);
}

static double tri_solid_angle(const JlSurface *s, int t, const double *p) {
  const int *f = s->tri + 3 * (size_t)t;
  return solid_angle(p, s->vert + 3 * (size_t)f[0], s->vert + 3 * (size_t)f[1], s->vert + 3 * (size_t)f[2]);
}

/* twice the area vector (b - a) x (d - a) of triangle t and its centroid g */
static void tri_cross_centroid(const JlSurface *s, int t, double x[3], double g[3]) {
  const int *f = s->tri + 3 * (size_t)t;
  const double *a = s->vert + 3 * (size_t)f[0], *b = s->vert + 3 * (size_t)f[1], *d = s->vert + 3 * (size_t)f[2];
  double e1[3], e2[3];
  jl_vec3_sub(b, a, e1);
  jl_vec3_sub(d, a, e2);
  jl_vec3_cross(e1, e2, x);
  for (int k = 0; k < 3; k++) g[k] = (a[k] + b[k] + d[k]) / 3.0;
}

/* builds node `id` over order[first .. first+count) and its subtree */
static void build_node(JlWinding *w, int id, int first, int count) {
  JlWindingNode *nd = &w->node[id];
  nd->first = first;
  nd->count = count;
  nd->child[0] = nd->child[1] = -1;
  if (count > LEAF) {
    int half = count / 2;
    nd->child[0] = w->nnode++;
    nd->child[1] = w->nnode++;
    build_node(w, nd->child[0], first, half);
    build_node(w, nd->child[1], first + half, count - half);
    nd = &w->node[id];
  }
  /* centroid and area vector: from the triangles (leaf) or the children */
  const JlSurface *s = w->s;
  double area = 0.0, c[3] = {0, 0, 0}, mean[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  for (int i = first; i < first + count; i++) {
    double x[3], g[3];
    tri_cross_centroid(s, w->order[i], x, g);
    double ar = 0.5 * sqrt(jl_vec3_dot(x, x));
    for (int k = 0; k < 3; k++) {
      c[k] += ar * g[k];
      mean[k] += g[k];
      n[k] += 0.5 * x[k];
    }
    area += ar;
  }
  for (int k = 0; k < 3; k++) {
    nd->c[k] = area > 0.0 ? c[k] / area : mean[k] / count;
    nd->n[k] = n[k];
  }
  /* second-order term: sum of a n (g - c)^T, with g the triangle's centroid
   * (exact: the first moment of a triangle is its area times its centroid) */
  memset(nd->m, 0, sizeof nd->m);
  for (int i = first; i < first + count; i++) {
    double x[3], g[3];
    tri_cross_centroid(s, w->order[i], x, g);
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++) nd->m[3 * r + k] += 0.5 * x[r] * (g[k] - nd->c[k]);
  }
  /* radius: every vertex of the cluster */
  double r2 = 0.0;
  for (int i = first; i < first + count; i++)
    for (int v = 0; v < 3; v++) {
      double d[3];
      jl_vec3_sub(s->vert + 3 * (size_t)s->tri[3 * (size_t)w->order[i] + v], nd->c, d);
      r2 = fmax(r2, jl_vec3_dot(d, d));
    }
  nd->r = sqrt(r2);
}

void jl_winding_build(JlWinding *w, const JlSurface *s) {
  memset(w, 0, sizeof *w);
  w->s = s;
  w->beta = 3.0;
  int nt = s->ntri > 0 ? s->ntri : 0;
  w->order = jl_calloc((size_t)nt + 1, sizeof(int));
  w->node = jl_calloc(2 * (size_t)nt + 1, sizeof(JlWindingNode));
  /* Morton order of the triangle centroids in the bounding box */
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  if (s->nvert > 0) jl_surface_bbox(s, lo, hi);
  MortonKey *key = jl_calloc((size_t)nt + 1, sizeof(MortonKey));
  for (int t = 0; t < nt; t++) {
    uint64_t code = 0;
    for (int k = 0; k < 3; k++) {
      const int *f = s->tri + 3 * (size_t)t;
      double g = (s->vert[3 * (size_t)f[0] + k] + s->vert[3 * (size_t)f[1] + k] + s->vert[3 * (size_t)f[2] + k]) / 3.0;
      double u = hi[k] > lo[k] ? (g - lo[k]) / (hi[k] - lo[k]) : 0.0;
      u = fmin(fmax(u, 0.0), 1.0);
      code |= spread3((uint64_t)(u * 2097151.0)) << k;
    }
    key[t].code = code;
    key[t].tri = t;
  }
  qsort(key, (size_t)nt, sizeof(MortonKey), cmp_morton);
  for (int t = 0; t < nt; t++) w->order[t] = key[t].tri;
  free(key);
  w->nnode = 1;
  build_node(w, 0, 0, nt);
}

void jl_winding_free(JlWinding *w) {
  free(w->node);
  free(w->order);
  memset(w, 0, sizeof *w);
}

double jl_winding_number(const JlWinding *w, const double p[3]) {
  if (!w->node || w->s->ntri <= 0) return 0.0;
  int stack[128], top = 0;
  double sum = 0.0;
  stack[top++] = 0;
  while (top > 0) {
    const JlWindingNode *nd = &w->node[stack[--top]];
    double d[3];
    jl_vec3_sub(nd->c, p, d);
    double dist2 = jl_vec3_dot(d, d);
    if (dist2 > w->beta * w->beta * nd->r * nd->r) {
      /* far: Taylor expansion about c of the integrand (x - p) . n / |x - p|^3
       * (Barill et al. 2018, eq. 9, first two terms): with r = c - p, the
       * dipole r . N / |r|^3, then J : M for J = I / |r|^3 - 3 r r^T / |r|^5 */
      double r3 = dist2 * sqrt(dist2), r5 = r3 * dist2;
      double mr[3] = {0, 0, 0};
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) mr[i] += nd->m[3 * i + k] * d[k];
      double tr = nd->m[0] + nd->m[4] + nd->m[8];
      sum += jl_vec3_dot(d, nd->n) / r3 + tr / r3 - 3.0 * jl_vec3_dot(d, mr) / r5;
    } else if (nd->child[0] < 0) {
      for (int i = nd->first; i < nd->first + nd->count; i++) sum += tri_solid_angle(w->s, w->order[i], p);
    } else {
      stack[top++] = nd->child[1];
      stack[top++] = nd->child[0];
    }
  }
  return sum / FOUR_PI;
}

double jl_winding_number_exact(const JlSurface *s, const double p[3]) {
  double sum = 0.0;
  for (int t = 0; t < s->ntri; t++) sum += tri_solid_angle(s, t, p);
  return sum / FOUR_PI;
}
