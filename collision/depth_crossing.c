/* Phase 2 of the penetration depth (collision/depth.h; the parts:
 * depth_internal.h): where each border edge (from a penetrating point to a
 * point outside Q) first crosses Q's surface.
 *
 * A border edge is followed through Q's tets from the tet that holds its
 * inside point, across shared faces (each tet's exit face is the one whose
 * barycentric coordinate reaches zero first along the edge), until it leaves
 * Q through a boundary face: that is its first crossing, located on the face
 * by the same barycentric coordinates. Each tet's coordinate frame is
 * computed once per detection and shared by the walks through it (a border
 * point's edges all start in its tet). When the walk cannot decide (a flat
 * tet, a face through the edge's own nodes, a crossing outside the face by
 * more than rounding) the edge falls back to exact segment-triangle tests
 * against a second spatial hash holding only the boundary faces of Q reached
 * by a breadth-first walk over Q's tets from the group's tets, keeping to
 * tets whose box meets the box of the border edges; that walk misses no face
 * an edge can first cross (the part of an edge before its first crossing
 * lies inside Q and in that box, and the tets it passes through are
 * face-connected). */
#include <stdlib.h>
#include <string.h>

#include "collision/depth_internal.h"
#include "collision/narrow.h"

void jl_depth_node_box(const double *x, const int *node, int n, double b[6]) {
  b[0] = b[1] = b[2] = INFINITY;
  b[3] = b[4] = b[5] = -INFINITY;
  for (int k = 0; k < n; k++)
    for (int a = 0; a < 3; a++) {
      double v = x[3 * node[k] + a];
      if (v < b[a]) b[a] = v;
      if (v > b[3 + a]) b[3 + a] = v;
    }
}

static void push_walk(JlCollision *c, int *nw, int t) {
  c->trec[t].wstamp = c->wstamp;
  jl_grow((void **)&c->walk, &c->walk_cap, *nw + 1, sizeof(int));
  c->walk[(*nw)++] = t;
}

/* Candidate faces of Q for the group's border edges (their box eb): a
 * breadth-first walk over Q's tets through shared faces from the tets that
 * hold the group's points, expanding only tets whose box meets ebox; the
 * boundary faces of the walked tets whose box meets ebox go into the face
 * hash, in the cells of their box within ebox. */
static void gather_faces(JlCollision *c, const JlGeom *geo, const double *x, int g0, int g1) {
  JlHash *h = &c->faces;
  jl_hash_begin(h);
  /* box of the border edges (inside point to outside neighbour) */
  double eb[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (int i = g0; i < g1 && geo->adj; i++) {
    int p = c->contact[i].node;
    for (int a = geo->adj_start[p]; a < geo->adj_start[p + 1]; a++) {
      int n = geo->adj[a];
      if (c->in_stamp[n] == c->gstamp) continue;
      for (int k = 0; k < 3; k++) {
        double u = x[3 * p + k], v = x[3 * n + k];
        double lo = u < v ? u : v, hi = u < v ? v : u;
        if (lo < eb[k]) eb[k] = lo;
        if (hi > eb[3 + k]) eb[3 + k] = hi;
      }
    }
  }
  /* walk Q's tets from the group's tets, keeping to those that meet the box */
  int nw = 0;
  for (int i = g0; i < g1; i++)
    if (c->trec[c->contact[i].tet].wstamp != c->wstamp) push_walk(c, &nw, c->contact[i].tet);
  for (int wi = 0; wi < nw; wi++) {
    int t = c->walk[wi];
    double tb[6];
    jl_depth_node_box(x, geo->tet + 4 * t, 4, tb);
    if (!boxes_overlap(tb, eb)) continue;
    for (int k = 0; k < 4; k++) {
      int nb = c->trec[t].link[k];
      if (nb >= 0) {
        if (c->trec[nb].wstamp != c->wstamp) push_walk(c, &nw, nb);
        continue;
      }
      int f = -2 - nb;
      if (f < 0 || c->face_stamp[f] == c->wstamp) continue;
      c->face_stamp[f] = c->wstamp;
      double *fb = c->fbox + 6 * f;
      jl_depth_node_box(x, geo->face + 3 * f, 3, fb);
      double cb[6];
      if (!clip_box(fb, eb, cb)) continue;
      c->stats.gathered_faces++;
      jl_hash_insert_box(h, cb, f);
    }
  }
  c->stats.walked_tets += nw;
}

/* The frame of tet t for barycentric coordinates, computed at its first
 * visit in this detection (the edges of a border point all start in its tet,
 * neighbouring points' walks cross the same tets): corner 0 and the rows of
 * the inverse of [v1-v0 v2-v0 v3-v0] times |det|, signed so that the
 * coordinates of points inside are positive. */
static const TetInv *tet_inv_new(JlCollision *c, const JlGeom *geo, const double *x, int t) {
  TetRec *ts = &c->trec[t];
  jl_grow((void **)&c->tinv, &c->tinv_cap, c->ntinv + 1, sizeof(TetInv));
  TetInv *ti = &c->tinv[c->ntinv];
  ts->stamp = c->dstamp;
  ts->slot = c->ntinv++;
  const int *tn = geo->tet + 4 * t;
  const double *v0 = x + 3 * tn[0], *v1 = x + 3 * tn[1], *v2 = x + 3 * tn[2], *v3 = x + 3 * tn[3];
  double e1[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]};
  double e2[3] = {v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]};
  double e3[3] = {v3[0] - v0[0], v3[1] - v0[1], v3[2] - v0[2]};
  /* e2 x e3, e3 x e1, e1 x e2 */
  double r[3][3] = {{e2[1] * e3[2] - e2[2] * e3[1], e2[2] * e3[0] - e2[0] * e3[2], e2[0] * e3[1] - e2[1] * e3[0]},
                    {e3[1] * e1[2] - e3[2] * e1[1], e3[2] * e1[0] - e3[0] * e1[2], e3[0] * e1[1] - e3[1] * e1[0]},
                    {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]}};
  double det = jl_vec3_dot(e1, r[0]), sign = det < 0 ? -1.0 : 1.0;
  det *= sign;
  if (!(det > 0.0) || !isfinite(det)) det = 0.0; /* flat: the walk gives up */
  for (int i = 0; i < 3; i++) {
    ti->v0[i] = v0[i];
    for (int k = 0; k < 3; k++) ti->r[i][k] = sign * r[i][k];
  }
  ti->det = det;
  return ti;
}

static inline const TetInv *tet_inv(JlCollision *c, const JlGeom *geo, const double *x, int t) {
  const TetRec *ts = &c->trec[t];
  return ts->stamp == c->dstamp ? &c->tinv[ts->slot] : tet_inv_new(c, geo, x, t);
}

/* barycentric coordinates of y in frame ti, times det */
static void tet_coords(const TetInv *ti, const double *y, double l[4]) {
  double d[3] = {y[0] - ti->v0[0], y[1] - ti->v0[1], y[2] - ti->v0[2]};
  l[1] = jl_vec3_dot(ti->r[0], d), l[2] = jl_vec3_dot(ti->r[1], d), l[3] = jl_vec3_dot(ti->r[2], d);
  l[0] = ti->det - l[1] - l[2] - l[3];
}

/* Walk along segment a-b through Q's tets from tet t (which holds a),
 * crossing shared faces, until it leaves Q through a boundary face: the
 * first crossing of the segment with Q's surface (every face before it is
 * shared by two tets). Each tet's exit face is the one
 * whose barycentric coordinate falls to zero first along the segment; at a
 * boundary face, the crossing's parameter s on a-b and its weights bary on
 * the face's corners come from the same coordinates. Returns the boundary
 * face, -1 when the segment ends inside Q, -2 when the walk cannot decide (a
 * flat tet, a face through p or n, a crossing outside the face by more than
 * rounding, too many steps): the caller then uses the face hash. */
static int walk_crossing(JlCollision *c, const JlGeom *geo, const double *x, int t, int p, int n, double *s,
                         double bary[3]) {
  const double *a = x + 3 * p, *b = x + 3 * n;
  for (int step = 0; step < 64; step++) {
    const TetInv *ti = tet_inv(c, geo, x, t);
    double det = ti->det;
    if (!(det > 0.0)) return -2;
    double la[4], lb[4];
    tet_coords(ti, a, la);
    tet_coords(ti, b, lb);
    /* exit face: the coordinate that reaches zero first while decreasing,
     * at s = la / (la - lb); fractions compared by cross-multiplying */
    int exit_k = -1;
    double num = 1.0, den = 0.0;
    for (int k = 0; k < 4; k++) {
      if (!(lb[k] < 0.0) || !(lb[k] < la[k])) continue;
      double dk = la[k] - lb[k];
      if (exit_k < 0 || la[k] * den < num * dk) num = la[k], den = dk, exit_k = k;
    }
    if (exit_k < 0) return -1; /* b inside this tet */
    int nb = c->trec[t].link[exit_k];
    if (nb >= 0) {
      t = nb;
      continue;
    }
    int f = -2 - nb;
    if (f < 0) return -2;
    const int *fv = geo->face + 3 * f;
    if (fv[0] == p || fv[1] == p || fv[2] == p || fv[0] == n || fv[1] == n || fv[2] == n) return -2;
    /* the crossing: s on a-b, weights of the face's corners */
    double best = num / den, sc = best > 0.0 ? (best < 1.0 ? best : 1.0) : 0.0, sum = 0.0;
    const int *tn = geo->tet + 4 * t;
    for (int i = 0; i < 3; i++) {
      int k = 0;
      while (k < 4 && tn[k] != fv[i]) k++;
      if (k == 4 || k == exit_k) return -2; /* not this tet's face: inconsistent topology */
      double l = la[k] + sc * (lb[k] - la[k]);
      if (l < -1e-9 * det) return -2;
      bary[i] = l > 0.0 ? l : 0.0;
      sum += bary[i];
    }
    if (!(sum > 0.0)) return -2;
    for (int i = 0; i < 3; i++) bary[i] /= sum;
    *s = sc;
    return f;
  }
  return -2;
}

/* first crossing (smallest s) of segment p-n with the faces gather_faces put
 * in the hash; the face, or -1 */
static int hash_crossing(JlCollision *c, const JlGeom *geo, const double *x, int p, int n, double *s_out,
                         double bary_out[3]) {
  JlHash *h = &c->faces;
  const double *a = x + 3 * p, *b = x + 3 * n;
  double sb[6];
  for (int k = 0; k < 3; k++) {
    sb[k] = a[k] < b[k] ? a[k] : b[k];
    sb[3 + k] = a[k] < b[k] ? b[k] : a[k];
  }
  c->query++;
  double best = INFINITY, best_bary[3] = {0, 0, 0};
  int best_face = -1;
  JlHashQuery hq;
  jl_hash_query(h, sb, &hq);
  for (int f; (f = jl_hash_query_next(h, &hq)) >= 0;) {
    if (c->face_mark[f] == c->query) continue;
    c->face_mark[f] = c->query;
    const int *fv = geo->face + 3 * f;
    if (!boxes_overlap(c->fbox + 6 * f, sb)) continue;
    if (fv[0] == p || fv[1] == p || fv[2] == p || fv[0] == n || fv[1] == n || fv[2] == n) continue;
    c->stats.segment_tests++;
    double s, bary[3];
    if (!jl_segment_triangle(a, b, x + 3 * fv[0], x + 3 * fv[1], x + 3 * fv[2], &s, bary)) continue;
    if (s >= best) continue;
    best = s;
    best_face = f;
    memcpy(best_bary, bary, sizeof bary);
  }
  *s_out = best;
  memcpy(bary_out, best_bary, sizeof best_bary);
  return best_face;
}

/* First crossing (nearest p) of the border edge p-n with Q's surface: point
 * xi and normal ni. The walk through Q's tets from p's tet t decides almost
 * every edge; the rest use the face hash, gathered once per group. */
int jl_depth_edge_crossing(JlCollision *c, const JlGeom *geo, const double *x, int t, int p, int n, int g0, int g1,
                           double xi[3], double ni[3]) {
  double s = 0, bary[3] = {0, 0, 0};
  int f = walk_crossing(c, geo, x, t, p, n, &s, bary);
  if (f < 0) {
    if (!c->gathered) {
      gather_faces(c, geo, x, g0, g1);
      c->gathered = 1;
    }
    c->stats.hashed_edges++;
    f = hash_crossing(c, geo, x, p, n, &s, bary);
  }
  if (f < 0) return 0;
  const double *a = x + 3 * p, *b = x + 3 * n;
  for (int d = 0; d < 3; d++) xi[d] = a[d] + s * (b[d] - a[d]);
  return jl_depth_face_normal(c, geo, x, f, bary, ni);
}
