/* Barycentric embedding of a render surface in a tet mesh (Zachmann's mass-spring
 * lecture: "represent each vertex of the surface mesh by a barycentric
 * combination of its surrounding tetrahedron"; as in Teschner et al. 2004,
 * docs/references.md), and area-weighted vertex normals.
 *
 * Point location uses a uniform bucket grid of tet bounding boxes with about
 * one tet per cell, so n points in m tets cost O(n + m), not O(n m). Among the
 * tets of a point's cell, the first whose barycentric weights are all >= 0
 * (within 1e-12) is taken. A point in no tet (possible only for embedded-mode
 * meshes that do not quite cover the surface) gets the nearest tet, searched in
 * growing shells of cells, with extrapolated weights: barycentric coordinates
 * are affine, so they still reproduce the point exactly at rest. A point that
 * coincides with a node gets the exact unit weight of that node. */
#include "mesh/embed.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mesh/closest.h"
#include "mesh/grid.h"
#include "mesh/vec3.h"

/* weights within this of zero count as inside */
#define INSIDE_TOL 1e-12

/* barycentric weights of p in tet x[0..3] (Cramer's rule on
 * p - x0 = w1 (x1 - x0) + w2 (x2 - x0) + w3 (x3 - x0)); returns the smallest */
static double barycentric(const double *const x[4], const double *p, double w[4]) {
  for (int k = 0; k < 4; k++)
    if (p[0] == x[k][0] && p[1] == x[k][1] && p[2] == x[k][2]) {
      w[0] = w[1] = w[2] = w[3] = 0.0;
      w[k] = 1.0;
      return 0.0;
    }
  double e1[3], e2[3], e3[3], q[3], c[3];
  jl_vec3_sub(x[1], x[0], e1);
  jl_vec3_sub(x[2], x[0], e2);
  jl_vec3_sub(x[3], x[0], e3);
  jl_vec3_sub(p, x[0], q);
  jl_vec3_cross(e2, e3, c);
  double det = jl_vec3_dot(e1, c);
  w[1] = jl_vec3_dot(q, c) / det;
  jl_vec3_cross(q, e3, c);
  w[2] = jl_vec3_dot(e1, c) / det;
  jl_vec3_cross(e2, q, c);
  w[3] = jl_vec3_dot(e1, c) / det;
  w[0] = 1.0 - w[1] - w[2] - w[3];
  return fmin(fmin(w[0], w[1]), fmin(w[2], w[3]));
}

/* squared distance from p to a tet (0 inside) */
static double dist2_tet(const double *const x[4], const double *p) {
  double w[4];
  if (barycentric(x, p, w) >= 0) return 0.0;
  double best = DBL_MAX;
  static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  for (int f = 0; f < 4; f++) {
    double q[3], bary[3];
    best = fmin(best, jl_closest_point_triangle(p, x[face[f][0]], x[face[f][1]], x[face[f][2]], q, bary));
  }
  return best;
}

/* ---- uniform grid of tet bounding boxes (CSR) ----------------------------- */

/* tet bounding boxes (ntet x 3 each) */
static void tet_boxes(const JlTetMesh *t, double *box_lo, double *box_hi) {
  for (int e = 0; e < t->ntet; e++)
    for (int k = 0; k < 3; k++) {
      double lo = DBL_MAX, hi = -DBL_MAX;
      for (int c = 0; c < 4; c++) {
        double v = t->node[3 * t->tet[4 * e + c] + k];
        lo = fmin(lo, v);
        hi = fmax(hi, v);
      }
      box_lo[3 * e + k] = lo;
      box_hi[3 * e + k] = hi;
    }
}

static void tetgrid_build(JlGrid *g, const JlTetMesh *t) {
  double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
  for (int i = 0; i < t->nnode; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], t->node[3 * i + k]);
      hi[k] = fmax(hi[k], t->node[3 * i + k]);
    }
  /* about one tet per cell, at most 128 cells per axis (a cell of 0 from an
   * underflowed volume means as many cells as allowed) */
  double vol = 1.0;
  for (int k = 0; k < 3; k++) vol *= fmax(hi[k] - lo[k], 1e-300);
  double cell = fmax(cbrt(vol / t->ntet), DBL_MIN);
  double *box_lo = jl_calloc(3 * (size_t)t->ntet, sizeof(double)),
         *box_hi = jl_calloc(3 * (size_t)t->ntet, sizeof(double));
  tet_boxes(t, box_lo, box_hi);
  jl_grid_build(g, lo, hi, (double[3]){cell, cell, cell}, t->ntet, box_lo, box_hi);
  JL_FREE_ALL(box_lo, box_hi);
}

/* ---- embedding ---------------------------------------------------------------- */

static void tet_corners(const JlTetMesh *t, int e, const double *x[4]) {
  for (int c = 0; c < 4; c++) x[c] = t->node + 3 * t->tet[4 * e + c];
}

/* nearest tet to p by shells of cells around p's (clamped) cell; stamp
 * (ntet) marks tets already measured for query `query` */
static int nearest_tet(const JlTetMesh *t, const JlGrid *g, const double *p, int *stamp, int query) {
  int c0[3], c1[3];
  jl_grid_cells(g, p, p, c0, c1);
  double best = DBL_MAX, cmin = fmin(g->cell[0], fmin(g->cell[1], g->cell[2]));
  int best_tet = -1, rmax = g->n[0] + g->n[1] + g->n[2];
  const double *x[4];
  for (int r = 0; r <= rmax; r++) {
    for (int z = c0[2] - r; z <= c0[2] + r; z++)
      for (int y = c0[1] - r; y <= c0[1] + r; y++)
        for (int xx = c0[0] - r; xx <= c0[0] + r; xx++) {
          if (z < 0 || y < 0 || xx < 0 || z >= g->n[2] || y >= g->n[1] || xx >= g->n[0]) continue;
          /* only the shell at Chebyshev distance r */
          if (abs(z - c0[2]) != r && abs(y - c0[1]) != r && abs(xx - c0[0]) != r) continue;
          size_t c = ((size_t)z * g->n[1] + y) * g->n[0] + xx;
          for (int k = g->start[c]; k < g->start[c + 1]; k++) {
            int e = g->item[k];
            if (stamp[e] == query) continue;
            stamp[e] = query;
            tet_corners(t, e, x);
            double d = dist2_tet(x, p);
            if (d < best) {
              best = d;
              best_tet = e;
            }
          }
        }
    /* every cell beyond shell r is at least r cells away from p */
    if (best_tet >= 0 && sqrt(best) <= r * cmin) break;
  }
  return best_tet;
}

JlResult jl_embed_build(const JlTetMesh *t, const double *point, int npoint, JlEmbedding *out, char *err,
                        size_t errsz) {
  JL_ASSERT(t && out && (npoint == 0 || point), "jl_embed_build needs a tet mesh, points and an output");
  memset(out, 0, sizeof *out);
  if (t->ntet <= 0) return jl_fail(err, errsz, JL_ERR_INPUT, "cannot embed a surface in a mesh with no tets");

  JlGrid g;
  tetgrid_build(&g, t);
  int *stamp = jl_calloc((size_t)t->ntet, sizeof(int));
  for (int e = 0; e < t->ntet; e++) stamp[e] = -1;
  out->nvert = npoint;
  out->tet = jl_calloc((size_t)npoint, sizeof(int));
  out->weight = jl_calloc((size_t)npoint * 4, sizeof(double));
  const double *x[4];
  double w[4];
  for (int i = 0; i < npoint; i++) {
    const double *p = point + 3 * i;
    /* containing tet among those of p's cell */
    int c0[3], c1[3], found = -1;
    jl_grid_cells(&g, p, p, c0, c1);
    size_t c = ((size_t)c0[2] * g.n[1] + c0[1]) * g.n[0] + c0[0];
    for (int k = g.start[c]; k < g.start[c + 1] && found < 0; k++) {
      tet_corners(t, g.item[k], x);
      if (barycentric(x, p, w) >= -INSIDE_TOL) found = g.item[k];
    }
    /* outside every tet: nearest tet, extrapolated weights */
    if (found < 0) {
      found = nearest_tet(t, &g, p, stamp, i);
      tet_corners(t, found, x);
      barycentric(x, p, w);
    }
    out->tet[i] = found;
    memcpy(out->weight + 4 * (size_t)i, w, sizeof w);
  }
  JL_FREE_ALL(stamp, g.start, g.item);
  return JL_OK;
}

void jl_embed_free(JlEmbedding *e) {
  if (!e) return;
  free(e->tet);
  free(e->weight);
  memset(e, 0, sizeof *e);
}

void jl_embed_apply(const JlEmbedding *e, const int *tet, int node_offset, const double *node_x, double *out) {
  JL_ASSERT(e && tet && node_x && out, "jl_embed_apply needs an embedding, tets, node positions and an output");
  for (int i = 0; i < e->nvert; i++) {
    const int *v = tet + 4 * (size_t)e->tet[i];
    const double *w = e->weight + 4 * (size_t)i;
    for (int k = 0; k < 3; k++) {
      double s = 0.0;
      for (int c = 0; c < 4; c++) s += w[c] * node_x[3 * (size_t)(v[c] + node_offset) + k];
      out[3 * (size_t)i + k] = s;
    }
  }
}

void jl_surface_normals(int nvert, const double *vert, int ntri, const int *tri, double *normal) {
  JL_ASSERT(nvert == 0 || (vert && normal), "jl_surface_normals needs vertices and an output");
  memset(normal, 0, sizeof(double) * 3 * (size_t)nvert);
  /* the cross product of two edges is the face normal times twice the area */
  for (int t = 0; t < ntri; t++) {
    const int *f = tri + 3 * t;
    double a[3], b[3], n[3];
    jl_vec3_sub(vert + 3 * f[1], vert + 3 * f[0], a);
    jl_vec3_sub(vert + 3 * f[2], vert + 3 * f[0], b);
    jl_vec3_cross(a, b, n);
    for (int c = 0; c < 3; c++)
      for (int k = 0; k < 3; k++) normal[3 * f[c] + k] += n[k];
  }
  /* unit length; a vertex with no area around it points up (+y) */
  for (int i = 0; i < nvert; i++) {
    double *n = normal + 3 * i;
    double len = sqrt(jl_vec3_dot(n, n));
    if (len > 0) {
      n[0] /= len;
      n[1] /= len;
      n[2] /= len;
    } else {
      n[0] = 0.0;
      n[1] = 1.0;
      n[2] = 0.0;
    }
  }
}
