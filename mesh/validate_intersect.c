/* Step 7 of the surface check (mesh/validate.c, jl_surface_validate):
 * self-intersections.
 *
 * Triangle pairs are found through a uniform grid hashed into about one
 * bucket per (triangle, cell) entry (cell ~ twice the mean triangle extent,
 * so time and memory grow with the triangles, not with the bounding box;
 * each pair tested once, in the bucket of the cell that holds the low corner
 * of the two boxes' overlap), then an exact-shape test: non-adjacent pairs
 * intersect when an edge of one meets the other (closed test, touching
 * counts); pairs sharing one vertex when the edge opposite that vertex meets
 * the other triangle; pairs sharing an edge only when folded flat onto each
 * other. Segment/triangle uses the plane crossing point, which always lies on
 * the segment, so nearly coplanar flat regions give no false positives;
 * exactly coplanar pairs use a 2D test in the dominant projection plane.
 * Floating-point predicates, not exact ones: a pair within rounding of
 * touching may go either way, which is harmless for TetGen's own checks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/validate_internal.h"
#include "mesh/vec3.h"

/* projection onto the two coordinates other than `drop` */
static void proj2(double o[2], const double *x, int drop) {
  o[0] = x[drop == 0 ? 1 : 0];
  o[1] = x[drop == 2 ? 1 : 2];
}
static double orient2(const double a[2], const double b[2], const double c[2]) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}
static int on_seg2(const double a[2], const double b[2], const double p[2]) {
  return fmin(a[0], b[0]) <= p[0] && p[0] <= fmax(a[0], b[0]) && fmin(a[1], b[1]) <= p[1] && p[1] <= fmax(a[1], b[1]);
}
/* closed segment/segment test in 2D */
static int seg_seg2(const double p[2], const double q[2], const double a[2], const double b[2]) {
  double d1 = orient2(a, b, p), d2 = orient2(a, b, q), d3 = orient2(p, q, a), d4 = orient2(p, q, b);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return 1;
  return (d1 == 0 && on_seg2(a, b, p)) || (d2 == 0 && on_seg2(a, b, q)) || (d3 == 0 && on_seg2(p, q, a)) ||
         (d4 == 0 && on_seg2(p, q, b));
}
/* closed point-in-triangle in 2D */
static int in_tri2(const double x[2], const double a[2], const double b[2], const double c[2]) {
  double s = orient2(a, b, c);
  if (s == 0) return 0;
  double u = orient2(a, b, x) * s, v = orient2(b, c, x) * s, w = orient2(c, a, x) * s;
  return u >= 0 && v >= 0 && w >= 0;
}

/* Closed test: does segment pq meet triangle abc (n its normal)? */
static int seg_tri(const double *p, const double *q, const double *a, const double *b, const double *c) {
  double ab[3], ac[3], n[3], pa[3], qa[3];
  jl_vec3_sub(b, a, ab);
  jl_vec3_sub(c, a, ac);
  jl_vec3_cross(ab, ac, n);
  jl_vec3_sub(p, a, pa);
  jl_vec3_sub(q, a, qa);
  double dp = jl_vec3_dot(n, pa), dq = jl_vec3_dot(n, qa);
  if ((dp > 0 && dq > 0) || (dp < 0 && dq < 0)) return 0;
  if (dp == 0 && dq == 0) {
    /* exactly coplanar: 2D in the plane that drops the largest normal axis */
    int drop = fabs(n[0]) >= fabs(n[1]) ? (fabs(n[0]) >= fabs(n[2]) ? 0 : 2) : (fabs(n[1]) >= fabs(n[2]) ? 1 : 2);
    double p2[2], q2[2], a2[2], b2[2], c2[2];
    proj2(p2, p, drop);
    proj2(q2, q, drop);
    proj2(a2, a, drop);
    proj2(b2, b, drop);
    proj2(c2, c, drop);
    return in_tri2(p2, a2, b2, c2) || in_tri2(q2, a2, b2, c2) || seg_seg2(p2, q2, a2, b2) || seg_seg2(p2, q2, b2, c2) ||
           seg_seg2(p2, q2, c2, a2);
  }
  /* the plane crossing point lies on the segment; is it inside abc? */
  double t = dp / (dp - dq), x[3], e[3], d[3], m[3];
  for (int k = 0; k < 3; k++) x[k] = p[k] + t * (q[k] - p[k]);
  const double *v[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    jl_vec3_sub(v[(k + 1) % 3], v[k], e);
    jl_vec3_sub(x, v[k], d);
    jl_vec3_cross(e, d, m);
    if (jl_vec3_dot(n, m) < 0) return 0;
  }
  return 1;
}

/* Do triangles t and u intersect anywhere but in their shared vertices/edge? */
static int tri_pair_intersects(const JlSurface *s, int t, int u) {
  const int *A = s->tri + 3 * t, *B = s->tri + 3 * u;
  int shared = 0, ia = -1, ib = -1; /* ia, ib: position of a shared vertex in A and B */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (A[i] == B[j]) shared++, ia = i, ib = j;
#define P(v) (s->vert + 3 * (size_t)(v))
  if (shared >= 3) return 1; /* the same triangle twice */
  if (shared == 2) {
    /* adjacent: only a flat fold-over overlaps; opposite vertices c in A, d in B */
    int c = -1, d = -1, e0 = -1, e1 = -1;
    for (int i = 0; i < 3; i++) {
      if (A[i] != B[0] && A[i] != B[1] && A[i] != B[2]) c = A[i];
      if (B[i] != A[0] && B[i] != A[1] && B[i] != A[2]) d = B[i];
    }
    for (int i = 0; i < 3; i++)
      if (A[i] != c) {
        if (e0 < 0)
          e0 = A[i];
        else
          e1 = A[i];
      }
    double ab[3], ac[3], ad[3], n1[3], n2[3], x[3];
    jl_vec3_sub(P(e1), P(e0), ab);
    jl_vec3_sub(P(c), P(e0), ac);
    jl_vec3_sub(P(d), P(e0), ad);
    jl_vec3_cross(ab, ac, n1);
    jl_vec3_cross(ab, ad, n2);
    jl_vec3_cross(n1, n2, x);
    return jl_vec3_dot(n1, n2) > 0 && jl_vec3_norm(x) <= 1e-9 * jl_vec3_norm(n1) * jl_vec3_norm(n2);
  }
  if (shared == 1) {
    /* the edge opposite the shared vertex in one triangle meets the other */
    int a1 = A[(ia + 1) % 3], a2 = A[(ia + 2) % 3], b1 = B[(ib + 1) % 3], b2 = B[(ib + 2) % 3];
    return seg_tri(P(a1), P(a2), P(B[0]), P(B[1]), P(B[2])) || seg_tri(P(b1), P(b2), P(A[0]), P(A[1]), P(A[2]));
  }
  /* disjoint vertices: some edge of one meets the other */
  for (int k = 0; k < 3; k++) {
    if (seg_tri(P(A[k]), P(A[(k + 1) % 3]), P(B[0]), P(B[1]), P(B[2]))) return 1;
    if (seg_tri(P(B[k]), P(B[(k + 1) % 3]), P(A[0]), P(A[1]), P(A[2]))) return 1;
  }
  return 0;
#undef P
}

/* hash bucket of grid cell (x, y, z): Fibonacci hashing of the linear cell
 * index; nbucket is a power of two, `shift` = 64 - log2(nbucket) */
static size_t cell_bucket(const int n[3], int x, int y, int z, int shift) {
  uint64_t key = ((uint64_t)z * (uint64_t)n[1] + (uint64_t)y) * (uint64_t)n[0] + (uint64_t)x;
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> shift);
}

void jl_validate_self_intersections(const JlSurface *s, const double lo[3], const double hi[3], JlMeshReport *r) {
  int nt = s->ntri;
  double *box = jl_calloc((size_t)nt * 6, sizeof(double)); /* nt x (lo[3], hi[3]) */
  double mean = 0.0, ext[3];
  for (int t = 0; t < nt; t++) {
    double *b = box + 6 * (size_t)t;
    for (int k = 0; k < 3; k++) {
      b[k] = b[3 + k] = s->vert[3 * (size_t)s->tri[3 * t] + k];
      for (int c = 1; c < 3; c++) {
        double x = s->vert[3 * (size_t)s->tri[3 * t + c] + k];
        b[k] = fmin(b[k], x);
        b[3 + k] = fmax(b[3 + k], x);
      }
    }
    mean += fmax(b[3] - b[0], fmax(b[4] - b[1], b[5] - b[2]));
  }
  mean /= nt;
  for (int k = 0; k < 3; k++) ext[k] = hi[k] - lo[k];
  double diag = jl_vec3_norm(ext);
  double h = mean > 0 ? 2.0 * mean : (diag > 0 ? diag : 1.0);

  /* grid of cells about twice the mean triangle extent, stored sparsely in a hash
   * table (Teschner et al. 2003), so a thin surface in a large box needs no
   * cell per unit of volume: the work stays proportional to the triangles.
   * Coarsen only while a few large triangles would cover too many cells. */
  int n[3];
  double nentry = 0.0;
  for (;;) {
    for (int k = 0; k < 3; k++) n[k] = (int)fmin(fmax(ceil(ext[k] / h), 1.0), 1 << 20);
    nentry = 0.0;
    for (int t = 0; t < nt; t++) {
      double cells = 1.0;
      for (int k = 0; k < 3; k++) {
        int c0 = (int)fmin(fmax(floor((box[6 * (size_t)t + k] - lo[k]) / h), 0), n[k] - 1);
        int c1 = (int)fmin(fmax(floor((box[6 * (size_t)t + 3 + k] - lo[k]) / h), 0), n[k] - 1);
        cells *= c1 - c0 + 1;
      }
      nentry += cells;
    }
    if (nentry > 32.0 * nt + 1e6) {
      h *= 2.0;
      continue;
    }
    break;
  }
#define CELL_RANGE(t, k, c0, c1)                                                          \
  int c0 = (int)fmin(fmax(floor((box[6 * (size_t)(t) + (k)] - lo[k]) / h), 0), n[k] - 1); \
  int c1 = (int)fmin(fmax(floor((box[6 * (size_t)(t) + 3 + (k)] - lo[k]) / h), 0), n[k] - 1)

  /* bucket the triangles (CSR: bucket -> triangles, each triangle once per
   * bucket even when several of its cells hash there) */
  int shift = 64 - 6;
  size_t nb = 64;
  while ((double)nb < nentry) nb *= 2, shift--;
  int *start = jl_calloc(nb + 1, sizeof(int));
  int *last = jl_calloc(nb, sizeof(int)); /* last triangle + 1 put in the bucket */
  int *item = NULL;
  for (int pass = 0; pass < 2; pass++) {
    memset(last, 0, nb * sizeof(int));
    for (int t = 0; t < nt; t++) {
      CELL_RANGE(t, 0, x0, x1);
      CELL_RANGE(t, 1, y0, y1);
      CELL_RANGE(t, 2, z0, z1);
      for (int z = z0; z <= z1; z++)
        for (int y = y0; y <= y1; y++)
          for (int x = x0; x <= x1; x++) {
            size_t b = cell_bucket(n, x, y, z, shift);
            if (last[b] == t + 1) continue;
            last[b] = t + 1;
            if (pass == 0)
              start[b + 1]++;
            else
              item[start[b]++] = t;
          }
    }
    if (pass == 0) {
      for (size_t b = 0; b < nb; b++) start[b + 1] += start[b];
      item = jl_calloc((size_t)start[nb] + 1, sizeof(int));
    } else {
      for (size_t b = nb; b > 0; b--) start[b] = start[b - 1];
      start[0] = 0;
    }
  }
  free(last);

  /* candidate pairs per bucket; give up (error) beyond a budget so that
   * thousands of stacked triangles cannot hang the check. A valid surface
   * has a few pairs per triangle, so the budget grows with the surface and
   * no generated shape up to JL_SHAPE_MAX_TRIANGLES comes near it. */
  double npair = 0.0, budget = fmax(2e8, 64.0 * nt);
  for (size_t b = 0; b < nb; b++) {
    double k = start[b + 1] - start[b];
    npair += k * (k - 1) / 2;
  }
  if (npair > budget) {
    jl_validate_finding(r, JL_SEV_ERROR, nt,
                        "self-intersection check gave up: %.3g candidate triangle pairs, more than %.3g (heavily "
                        "overlapping triangles)",
                        npair, budget);
    JL_FREE_ALL(box, start, item);
    return;
  }
  int nhit = 0, ft = -1, fu = -1;
  for (size_t b = 0; b < nb; b++) {
    for (int i = start[b]; i < start[b + 1]; i++)
      for (int j = i + 1; j < start[b + 1]; j++) {
        int t = item[i], u = item[j];
        const double *bt = box + 6 * (size_t)t, *bu = box + 6 * (size_t)u;
        int apart = 0;
        for (int k = 0; k < 3; k++) apart |= bt[k] > bu[3 + k] || bu[k] > bt[3 + k];
        if (apart) continue;
        /* test each pair once: in the bucket of the cell of the overlap
         * box's low corner (a cell both triangles cover) */
        int cc[3];
        for (int k = 0; k < 3; k++) cc[k] = (int)fmin(fmax(floor((fmax(bt[k], bu[k]) - lo[k]) / h), 0), n[k] - 1);
        if (cell_bucket(n, cc[0], cc[1], cc[2], shift) != b) continue;
        if (!tri_pair_intersects(s, t, u)) continue;
        int a = t < u ? t : u, c = t < u ? u : t;
        if (ft < 0 || a < ft || (a == ft && c < fu)) ft = a, fu = c;
        nhit++;
      }
  }
#undef CELL_RANGE
  if (nhit)
    jl_validate_imperfection(r, nhit, "self-intersecting: %d triangle pairs intersect; first: triangles %d and %d",
                             nhit, ft, fu);
  JL_FREE_ALL(box, start, item);
}
