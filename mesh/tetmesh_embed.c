/* Embedded mode of jl_tetgen_build (mesh/tetmesh.h; the parts:
 * tetmesh_internal.h).
 *
 * Embedded mode follows the "simple method" of Zachmann's mass-spring lecture
 * ("volumetric objects"; docs/references.md): Steiner points fill the object and a
 * band around it, are Delaunay-tetrahedralized, and the surface is anchored in
 * the tets barycentrically. The points are a body-centred cubic lattice of
 * cube side `resolution` covering the bounding box plus one cell, each point
 * jittered by up to 10% of the spacing (deterministic seed). The BCC lattice
 * is chosen because its Delaunay tetrahedralization is unique and well shaped
 * (its Voronoi cells, truncated octahedra, meet four at a vertex), so the
 * jitter only breaks symmetry and never makes slivers. A Delaunay tet is kept
 * when it overlaps the solid: one of its nodes is inside the surface, or it
 * intersects a surface triangle (separating-axis test). Because the lattice
 * hull covers the bounding box, the kept tets cover the whole solid: every
 * surface point lies in a kept tet and the kept volume is at least the
 * surface's volume. Unreferenced lattice points are dropped.
 *
 * The inside test casts a ray along +x through a 2D bucket grid of the
 * triangles (projected on yz) and counts crossings. Rays through edges and
 * vertices are decided by simulation of simplicity (Edelsbrunner & Muecke
 * 1990): an exactly-zero orientation is resolved as if the point were moved by
 * (0, d, d^2), evaluated on each edge in a canonical direction so the two
 * triangles sharing it agree. Crossings behind the point are counted too; an
 * odd total (inconsistent rounding) retries with a slightly moved point.
 *
 * Ray parity needs a closed, manifold, non-overlapping surface. A scan with a
 * hole, two overlapping closed parts or a non-manifold spot (def->winding,
 * set by the scene when validation found only such defects) is instead
 * tested by the generalized winding number (Jacobson et al. 2013; fast by
 * Barill et al. 2018, mesh/winding.h): inside where |w| >= 0.5. A hole's
 * w falls smoothly from 1 to 0 across its rim, so the tets under a hole are
 * kept or dropped as if the hole were capped by a minimal patch; overlapping
 * parts give w = 2, inside. The fill samples take w from the tet's first
 * node plus a jump of +-1 per crossed triangle (signed by its normal), or
 * from the tree where no triangle crosses (under a hole, w varies
 * smoothly) or very many do; the fractions are the sample shares as they
 * are: an imperfect surface has no exact volume to rescale them to
 * (overlaps count twice in the divergence theorem, a hole misses its cap).
 * A tet under a hole with no node at w >= 0.5 is dropped, as a tet with no
 * node inside and no crossing triangle is in the closed case. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/grid.h"
#include "mesh/tetmesh_internal.h"
#include "mesh/vec3.h"
#include "mesh/winding.h"

/* upper bound on embedded-mode lattice points (memory and TetGen time) */
#define MAX_LATTICE_POINTS 4000000
/* Delaunay tets per point of a jittered BCC lattice (about 6.5) */
#define TETS_PER_LATTICE_POINT 6.0

/* ---- bucket grids of the triangles (mesh/grid.h) ---------------------- */

/* triangle bounding boxes (ntri x 3 each) */
static void triangle_boxes(const JlSurface *s, double *box_lo, double *box_hi) {
  for (int t = 0; t < s->ntri; t++)
    for (int k = 0; k < 3; k++) {
      double a = s->vert[3 * s->tri[3 * t] + k], b = s->vert[3 * s->tri[3 * t + 1] + k],
             c = s->vert[3 * s->tri[3 * t + 2] + k];
      box_lo[3 * t + k] = fmin(a, fmin(b, c));
      box_hi[3 * t + k] = fmax(a, fmax(b, c));
    }
}

/* ---- point in closed surface: +x ray parity ------------------------------ */

/* side (+1/-1) of p from the directed edge u->v in the yz projection, never 0
 * unless the edge projects to a point; see the file comment */
static int edge_side(const double *vert, int u, int v, const double *p) {
  int flip = u > v;
  const double *a = vert + 3 * (flip ? v : u), *b = vert + 3 * (flip ? u : v);
  double dy = b[1] - a[1], dz = b[2] - a[2];
  double o = dy * (p[2] - a[2]) - dz * (p[1] - a[1]);
  int s;
  if (o != 0.0)
    s = o > 0 ? 1 : -1;
  else if (dz != 0.0) /* orientation of p + (0, d, d^2): -dz d + dy d^2 */
    s = dz < 0 ? 1 : -1;
  else
    s = dy > 0 ? 1 : (dy < 0 ? -1 : 0);
  return flip ? -s : s;
}

/* crossings of the x-parallel line through p with the surface, ahead of and
 * behind p; returns 1 if p lies exactly on a triangle */
static int count_crossings(const JlSurface *s, const JlGrid *g, const double *p, int *ahead, int *behind) {
  *ahead = *behind = 0;
  int i0[3], i1[3];
  jl_grid_cells(g, p, p, i0, i1);
  size_t c = ((size_t)i0[2] * g->n[1] + i0[1]) * g->n[0];
  for (int k = g->start[c]; k < g->start[c + 1]; k++) {
    const int *t = s->tri + 3 * g->item[k];
    int s0 = edge_side(s->vert, t[0], t[1], p);
    if (s0 == 0 || edge_side(s->vert, t[1], t[2], p) != s0 || edge_side(s->vert, t[2], t[0], p) != s0) continue;
    /* where the line meets the triangle's plane */
    const double *a = s->vert + 3 * t[0];
    double e1[3], e2[3], n[3];
    jl_vec3_sub(s->vert + 3 * t[1], a, e1);
    jl_vec3_sub(s->vert + 3 * t[2], a, e2);
    jl_vec3_cross(e1, e2, n);
    if (n[0] == 0.0) continue;
    double x = a[0] - (n[1] * (p[1] - a[1]) + n[2] * (p[2] - a[2])) / n[0];
    if (x == p[0]) return 1;
    if (x > p[0])
      (*ahead)++;
    else
      (*behind)++;
  }
  return 0;
}

/* 1 if p is inside (or on) the closed surface; g is the yz grid of triangles */
static int point_inside(const JlSurface *s, const JlGrid *g, const double *p) {
  double q[3] = {p[0], p[1], p[2]};
  int ahead = 0, behind = 0;
  for (int attempt = 0; attempt < 4; attempt++) {
    if (count_crossings(s, g, q, &ahead, &behind)) return 1;
    if ((ahead + behind) % 2 == 0) break;
    /* inconsistent rounding at a vertex: move the ray a little */
    q[1] = p[1] + 1e-9 * g->cell[1] * (attempt + 1);
    q[2] = p[2] + 0.7e-9 * g->cell[2] * (attempt + 1);
  }
  return ahead % 2 == 1;
}

/* the inside test of one build: ray parity, or the winding number when wn */
typedef struct InsideTest {
  const JlSurface *s;
  const JlGrid *ray_grid;
  const JlWinding *wn; /* NULL for ray parity */
  /* winding number only: w at each lattice node (0 outside the bounding
   * box), and what tet_fill needs to find the triangles crossing a tet */
  const double *wnode;
  const JlGrid *tri_grid;
  const double *box_lo, *box_hi; /* triangle boxes, ntri x 3 */
  int *stamp;                    /* ntri, scratch */
} InsideTest;

static int inside_at(const InsideTest *it, const double *p) {
  if (it->wn) return fabs(jl_winding_number(it->wn, p)) >= 0.5;
  return point_inside(it->s, it->ray_grid, p);
}

/* ---- tet / triangle overlap: separating axis theorem --------------------- */

/* 1 if the projections of the two point sets on axis do not overlap */
static int separated_on(const double *axis, const double *const *p, int np, const double *const *q, int nq) {
  double pmin = DBL_MAX, pmax = -DBL_MAX, qmin = DBL_MAX, qmax = -DBL_MAX;
  for (int i = 0; i < np; i++) {
    double d = jl_vec3_dot(axis, p[i]);
    pmin = fmin(pmin, d);
    pmax = fmax(pmax, d);
  }
  for (int i = 0; i < nq; i++) {
    double d = jl_vec3_dot(axis, q[i]);
    qmin = fmin(qmin, d);
    qmax = fmax(qmax, d);
  }
  return pmax < qmin || qmax < pmin;
}

/* 1 if the (closed) tet and triangle intersect. Candidate axes: the 4 tet
 * face normals, the triangle normal and the 18 edge-edge cross products;
 * nearly-parallel edge pairs are skipped (their axis carries no information
 * and rounding could make it separate touching shapes). */
static int tet_triangle_overlap(const double *const tv[4], const double *const rv[3]) {
  static const int edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  double axis[3], u[3], v[3];
  for (int f = 0; f < 4; f++) {
    jl_vec3_sub(tv[face[f][1]], tv[face[f][0]], u);
    jl_vec3_sub(tv[face[f][2]], tv[face[f][0]], v);
    jl_vec3_cross(u, v, axis);
    if (separated_on(axis, tv, 4, rv, 3)) return 0;
  }
  double re[3][3];
  for (int k = 0; k < 3; k++) jl_vec3_sub(rv[(k + 1) % 3], rv[k], re[k]);
  jl_vec3_cross(re[0], re[1], axis);
  if (separated_on(axis, tv, 4, rv, 3)) return 0;
  for (int e = 0; e < 6; e++) {
    jl_vec3_sub(tv[edge[e][1]], tv[edge[e][0]], u);
    for (int k = 0; k < 3; k++) {
      jl_vec3_cross(u, re[k], axis);
      if (jl_vec3_dot(axis, axis) <= 1e-24 * jl_vec3_dot(u, u) * jl_vec3_dot(re[k], re[k])) continue;
      if (separated_on(axis, tv, 4, rv, 3)) return 0;
    }
  }
  return 1;
}

/* Change of the winding number along the segment a -> b across triangle
 * t: +1 entering through its back (outward normal against the motion), -1
 * leaving, 0 when the segment misses it (signed volumes; a segment through
 * an edge or vertex may count on both sides, rare for jittered samples). */
static int crossing_jump(const JlSurface *s, int t, const double *a, const double *b) {
  const int *f = s->tri + 3 * (size_t)t;
  const double *p[3] = {s->vert + 3 * (size_t)f[0], s->vert + 3 * (size_t)f[1], s->vert + 3 * (size_t)f[2]};
  double u[3], v[3], w[3], c[3], d[3];
  jl_vec3_sub(p[1], p[0], u);
  jl_vec3_sub(p[2], p[0], v);
  jl_vec3_cross(u, v, c);
  jl_vec3_sub(a, p[0], w);
  double sa = -jl_vec3_dot(w, c); /* det(p0 - a, p1 - a, p2 - a): > 0 on the back (inner) side */
  jl_vec3_sub(b, p[0], w);
  double sb = -jl_vec3_dot(w, c);
  if ((sa > 0) == (sb > 0) || sa == 0.0 || sb == 0.0) return 0;
  jl_vec3_sub(b, a, d);
  int sign = 0;
  for (int k = 0; k < 3; k++) {
    double e0[3], e1[3], x[3];
    jl_vec3_sub(p[k], a, e0);
    jl_vec3_sub(p[(k + 1) % 3], a, e1);
    jl_vec3_cross(e0, e1, x);
    double o = jl_vec3_dot(x, d);
    int sg = o > 0 ? 1 : (o < 0 ? -1 : 0);
    if (k == 0)
      sign = sg;
    else if (sg != sign)
      return 0;
  }
  if (sign == 0) return 0;
  return sa > 0 ? -1 : 1;
}

/* The surface triangles overlapping tet tv (at most cap, into list; -1 if
 * more); stamp_id marks triangles already tested */
static int tet_crossing_triangles(const InsideTest *it, const double *const tv[4], int stamp_id, int *list, int cap) {
  double tlo[3], thi[3], flat[12];
  for (int k = 0; k < 4; k++) memcpy(flat + 3 * k, tv[k], sizeof(double) * 3);
  bbox_of(4, flat, tlo, thi);
  int i0[3], i1[3], n = 0;
  const JlGrid *g = it->tri_grid;
  jl_grid_cells(g, tlo, thi, i0, i1);
  for (int z = i0[2]; z <= i1[2]; z++)
    for (int y = i0[1]; y <= i1[1]; y++)
      for (int x = i0[0]; x <= i1[0]; x++) {
        size_t c = ((size_t)z * g->n[1] + y) * g->n[0] + x;
        for (int k = g->start[c]; k < g->start[c + 1]; k++) {
          int tri = g->item[k];
          if (it->stamp[tri] == stamp_id) continue;
          it->stamp[tri] = stamp_id;
          int disjoint = 0;
          for (int d = 0; d < 3; d++) disjoint |= it->box_hi[3 * tri + d] < tlo[d] || it->box_lo[3 * tri + d] > thi[d];
          if (disjoint) continue;
          const int *f = it->s->tri + 3 * tri;
          const double *rv[3] = {it->s->vert + 3 * f[0], it->s->vert + 3 * f[1], it->s->vert + 3 * f[2]};
          if (!tet_triangle_overlap(tv, rv)) continue;
          if (n == cap) return -1;
          list[n++] = tri;
        }
      }
  return n;
}

/* ---- embedded mode --------------------------------------------------------- */

/* splitmix64 (Steele, Lea & Flood 2014): the lattice jitter's random stream */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* uniform in [-1, 1) */
static double jitter_unit(uint64_t *state) {
  return (double)(splitmix64(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* jittered BCC lattice over [lo - h, hi + h]: corners (n+1)^3 then centres n^3 */
static int make_lattice(const double lo[3], const double hi[3], double h, unsigned seed, double **out, char *err,
                        size_t errsz) {
  int n[3];
  double npoint = 1.0, ncentre = 1.0;
  for (int k = 0; k < 3; k++) {
    double cells = ceil((hi[k] - lo[k]) / h) + 2.0;
    npoint *= cells + 1.0;
    ncentre *= cells;
    n[k] = cells < 1e7 ? (int)cells : 0; /* huge counts fail just below */
  }
  if (npoint + ncentre > MAX_LATTICE_POINTS) {
    jl_fail(err, errsz, JL_ERR_INPUT,
            "embedded resolution %g m is too fine for this body: %.0f lattice points (limit %d)", h, npoint + ncentre,
            MAX_LATTICE_POINTS);
    return -1;
  }
  int total = (int)(npoint + ncentre);
  double *x = jl_calloc((size_t)total * 3, sizeof(double));
  uint64_t state = 0x6A656C6C79ull ^ ((uint64_t)seed << 32) ^ seed;
  double amp = 0.1 * h;
  int m = 0;
  for (int pass = 0; pass < 2; pass++) {
    int extra = pass == 0 ? 1 : 0;        /* corners have one more per axis */
    double shift = pass == 0 ? 0.0 : 0.5; /* centres sit half a cell in */
    for (int k = 0; k <= n[2] - 1 + extra; k++)
      for (int j = 0; j <= n[1] - 1 + extra; j++)
        for (int i = 0; i <= n[0] - 1 + extra; i++) {
          int idx[3] = {i, j, k};
          for (int d = 0; d < 3; d++) x[3 * m + d] = lo[d] + (idx[d] - 1.0 + shift) * h + amp * jitter_unit(&state);
          m++;
        }
  }
  *out = x;
  return m;
}

/* Fraction of each kept tet inside the surface: 1 for a tet with all four
 * nodes inside, else the share of FILL_SAMPLES points on a barycentric grid
 * that are inside (at least one sample's worth, so no node is left without
 * mass); then the partial tets are scaled together so that the volumes times
 * the fractions add up to the surface's volume. */
#define FILL_CROSS_MAX 256 /* winding number: most triangles crossing one tet before the tree takes over */
#define FILL_N         6   /* grid points (i, j, k, l) / (FILL_N + 1) with i + j + k + l = FILL_N, shifted by 1/4 */
static double *tet_fill(const InsideTest *it, const double *x, const int *tet, int ntet, const char *inside) {
  const JlSurface *s = it->s;
  double *fill = jl_calloc((size_t)ntet + 1, sizeof(double));
  double full = 0.0, part = 0.0;
  int cross[FILL_CROSS_MAX];
  for (int t = 0; t < ntet; t++) {
    const int *v = tet + 4 * t;
    double vol = fabs(jl_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]));
    if (inside[v[0]] && inside[v[1]] && inside[v[2]] && inside[v[3]]) {
      fill[t] = 1.0;
      full += vol;
      continue;
    }
    /* winding number: w at the samples from w at node 0 plus the jumps across
     * the triangles crossing the tet (one tree query per sample would cost
     * minutes near a 100k-triangle surface); too many crossing triangles,
     * or none (a tet under a hole, where w varies smoothly between its
     * nodes): the tree at every sample */
    int ncross = -1;
    const double *tv[4] = {x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]};
    if (it->wn) ncross = tet_crossing_triangles(it, tv, t + 1, cross, FILL_CROSS_MAX);
    if (ncross == 0) ncross = -1; /* under a hole: w varies without jumps */
    int in = 0, n = 0;
    for (int i = 0; i <= FILL_N; i++)
      for (int j = 0; i + j <= FILL_N; j++)
        for (int k = 0; i + j + k <= FILL_N; k++) {
          int l = FILL_N - i - j - k;
          double w[4] = {(i + 0.25) / (FILL_N + 1), (j + 0.25) / (FILL_N + 1), (k + 0.25) / (FILL_N + 1),
                         (l + 0.25) / (FILL_N + 1)};
          double p[3] = {0, 0, 0};
          for (int c = 0; c < 4; c++)
            for (int d = 0; d < 3; d++) p[d] += w[c] * x[3 * v[c] + d];
          if (ncross >= 0) {
            double wp = it->wnode[v[0]];
            for (int q = 0; q < ncross; q++) wp += crossing_jump(s, cross[q], tv[0], p);
            in += fabs(wp) >= 0.5;
          } else {
            in += inside_at(it, p);
          }
          n++;
        }
    fill[t] = (double)(in > 0 ? in : 1) / n;
    part += vol * fill[t];
  }
  /* the partial tets carry exactly the surface's volume beyond the full ones
   * (a closed surface only: see the file comment) */
  if (it->wn) return fill;
  double want = fabs(jl_surface_volume(s)) - full;
  if (part > 0.0 && want > 0.0)
    for (int t = 0; t < ntet; t++)
      if (fill[t] < 1.0) fill[t] = fmin(1.0, fill[t] * want / part);
  return fill;
}

JlResult jl_tetmesh_build_embedded(const JlSurface *s, const JlTetgenDef *def, int *nnode, double **node, int *ntet,
                                   int **tet, double **fill_out, char *err, size_t errsz) {
  double lo[3], hi[3];
  bbox_of(s->nvert, s->vert, lo, hi);
  double diag =
      sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
  double h = def->resolution > 0 ? def->resolution : diag / 12.0;

  /* Steiner points: jittered BCC lattice over the bounding box plus a cell;
   * about 6 Delaunay tets per point must fit the limits */
  double cells = 1.0;
  for (int k = 0; k < 3; k++) cells *= ceil((hi[k] - lo[k]) / h) + 3.0;
  char what[96];
  snprintf(what, sizeof what, "embedded resolution %g m", h);
  if (jl_tetmesh_check_estimate(2.0 * cells * TETS_PER_LATTICE_POINT, what, err, errsz) != JL_OK) return JL_ERR_INPUT;
  double *pts = NULL;
  int npts = make_lattice(lo, hi, h, def->seed, &pts, err, errsz);
  if (npts < 0) return JL_ERR_INPUT;

  /* Delaunay tetrahedralization of the points alone */
  int nout = 0, nt = 0;
  double *outx = NULL;
  int *outt = NULL;
  JlResult r = jl_tetgen_raw("Q", npts, pts, 0, NULL, &nout, &outx, &nt, &outt, err, errsz);
  free(pts);
  if (r != JL_OK) return r;

  /* which nodes are inside the surface (yz grid of triangles for the rays) */
  double *box_lo = jl_calloc((size_t)s->ntri * 3, sizeof(double));
  double *box_hi = jl_calloc((size_t)s->ntri * 3, sizeof(double));
  triangle_boxes(s, box_lo, box_hi);
  double cell2d = sqrt((hi[1] - lo[1]) * (hi[2] - lo[2]) / fmax(1.0, 0.5 * s->ntri));
  JlGrid ray_grid, tri_grid;
  jl_grid_build(&ray_grid, lo, hi, (double[3]){0.0, cell2d, cell2d}, s->ntri, box_lo, box_hi);
  jl_grid_build(&tri_grid, lo, hi, (double[3]){0.5 * h, 0.5 * h, 0.5 * h}, s->ntri, box_lo, box_hi);
  JlWinding wn;
  if (def->winding) jl_winding_build(&wn, s);
  double *wnode = def->winding ? jl_calloc((size_t)nout, sizeof(double)) : NULL;
  int *stamp2 = def->winding ? jl_calloc((size_t)s->ntri, sizeof(int)) : NULL;
  InsideTest it = {s, &ray_grid, def->winding ? &wn : NULL, wnode, &tri_grid, box_lo, box_hi, stamp2};
  char *inside = jl_calloc((size_t)nout, 1);
  int nin = 0;
  for (int i = 0; i < nout; i++) {
    const double *p = outx + 3 * i;
    int in_box = 1;
    for (int k = 0; k < 3; k++) in_box &= p[k] >= lo[k] && p[k] <= hi[k];
    if (it.wn) {
      wnode[i] = in_box ? jl_winding_number(&wn, p) : 0.0;
      inside[i] = (char)(fabs(wnode[i]) >= 0.5);
    } else {
      inside[i] = (char)(in_box && inside_at(&it, p));
    }
    nin += inside[i];
  }
  if (it.wn && nin == 0) {
    /* an open sheet, or a hole as large as the body: nothing to fill */
    JL_FREE_ALL(inside, box_lo, box_hi, outx, outt, wnode, stamp2);
    jl_winding_free(&wn);
    jl_grid_free(&ray_grid);
    jl_grid_free(&tri_grid);
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "the surface encloses no volume: no lattice point (resolution %g m) has a winding number of "
                   "0.5 or more (an open sheet, or holes as large as the body)",
                   h);
  }

  /* keep tets overlapping the solid: a node inside, or crossing a triangle */
  int *stamp = jl_calloc((size_t)s->ntri, sizeof(int));
  int kept = 0;
  for (int t = 0; t < nt; t++) {
    const int *v = outt + 4 * t;
    const double *tv[4] = {outx + 3 * v[0], outx + 3 * v[1], outx + 3 * v[2], outx + 3 * v[3]};
    double vol = jl_tet_volume(tv[0], tv[1], tv[2], tv[3]);
    if (fabs(vol) <= 1e-12 * h * h * h) continue; /* zero-volume sliver */
    int keep = inside[v[0]] || inside[v[1]] || inside[v[2]] || inside[v[3]];
    if (!keep) {
      double tlo[3], thi[3], flat[12];
      for (int k = 0; k < 4; k++) memcpy(flat + 3 * k, tv[k], sizeof(double) * 3);
      bbox_of(4, flat, tlo, thi);
      int i0[3], i1[3];
      jl_grid_cells(&tri_grid, tlo, thi, i0, i1);
      for (int z = i0[2]; z <= i1[2] && !keep; z++)
        for (int y = i0[1]; y <= i1[1] && !keep; y++)
          for (int x = i0[0]; x <= i1[0] && !keep; x++) {
            size_t c = ((size_t)z * tri_grid.n[1] + y) * tri_grid.n[0] + x;
            for (int k = tri_grid.start[c]; k < tri_grid.start[c + 1] && !keep; k++) {
              int tri = tri_grid.item[k];
              if (stamp[tri] == t + 1) continue; /* already tested for this tet */
              stamp[tri] = t + 1;
              int disjoint = 0;
              for (int d = 0; d < 3; d++) disjoint |= box_hi[3 * tri + d] < tlo[d] || box_lo[3 * tri + d] > thi[d];
              if (disjoint) continue;
              const int *f = s->tri + 3 * tri;
              const double *rv[3] = {s->vert + 3 * f[0], s->vert + 3 * f[1], s->vert + 3 * f[2]};
              keep = tet_triangle_overlap(tv, rv);
            }
          }
    }
    if (keep) memmove(outt + 4 * kept++, v, sizeof(int) * 4);
  }
  free(stamp);
  *fill_out = kept > 0 ? tet_fill(&it, outx, outt, kept, inside) : NULL;
  if (def->winding) jl_winding_free(&wn);
  JL_FREE_ALL(inside, box_lo, box_hi, wnode, stamp2);
  jl_grid_free(&ray_grid);
  jl_grid_free(&tri_grid);

  if (kept == 0) {
    free(outx);
    free(outt);
    return jl_fail(err, errsz, JL_ERR_INPUT, "embedded mode kept no tetrahedra (resolution %g m, body %g m across)", h,
                   diag);
  }
  *nnode = nout;
  *node = outx;
  *ntet = kept;
  *tet = outt;
  return JL_OK;
}
