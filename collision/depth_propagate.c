/* Phases 3-4 of the penetration depth per (P, Q) group (collision/depth.h;
 * the parts: depth_internal.h), Heidelberger et al. 2004, sec. 4.3.
 *
 * Border points take the weighted depth and direction of their edges'
 * crossings (depth_crossing.c), then breadth-first propagation through P's
 * node adjacency reaches the other inside points. The paper's known gap,
 * points that no border point reaches, is closed in two stages: the point's
 * contact with the same Q in the previous call gives its direction and,
 * through that contact's barycentric anchor, its current depth (d_prev +
 * r.(sum w_k x_k - x_p)); what is still unreached takes, per connected
 * region, the nearest point on Q's surface for its point closest to the
 * surface and is propagated breadth-first from there. A small body pushed
 * through a thin slab therefore keeps the direction it entered with. Cloth
 * and rope nodes take the nearest surface point of Q directly. */
#include <stdlib.h>
#include <string.h>

#include "collision/depth_internal.h"
#include "collision/narrow.h"

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif


/* Breadth-first propagation from the points of the current layer queue[0..nq)
 * (already assigned, level = lev) to unassigned inside points of the group. */
static void propagate(JlCollision *c, const JlGeom *geo, const double *x, int nq, int lev) {
  if (!geo->adj) return;
  while (nq > 0) {
    int nn = 0;
    for (int qi = 0; qi < nq; qi++) {
      int p = c->contact[c->queue[qi]].node;
      for (int a = geo->adj_start[p]; a < geo->adj_start[p + 1]; a++) {
        int n = geo->adj[a];
        if (c->in_stamp[n] != c->gstamp) continue;
        int idx = c->in_idx[n];
        if (c->level[idx] != -1) continue;
        c->level[idx] = -2; /* queued */
        c->next_queue[nn++] = idx;
      }
    }
    /* each new point from its neighbours of earlier layers (Heidelberger et al. 2004, eq. 5-6) */
    for (int qi = 0; qi < nn; qi++) {
      int idx = c->next_queue[qi];
      JlContactPoint *cp = &c->contact[idx];
      const double *xp = x + 3 * cp->node;
      double sw = 0, sd = 0, r[3] = {0, 0, 0};
      for (int a = geo->adj_start[cp->node]; a < geo->adj_start[cp->node + 1]; a++) {
        int n = geo->adj[a];
        if (c->in_stamp[n] != c->gstamp) continue;
        const JlContactPoint *cq = &c->contact[c->in_idx[n]];
        int ql = c->level[c->in_idx[n]];
        if (ql < 0 || ql > lev) continue;
        double dx[3] = {x[3 * n] - xp[0], x[3 * n + 1] - xp[1], x[3 * n + 2] - xp[2]};
        double d2 = jl_vec3_dot(dx, dx), mu = d2 > 0 ? 1.0 / d2 : 1e30;
        sw += mu;
        sd += mu * (jl_vec3_dot(dx, cq->dir) + cq->depth);
        for (int k = 0; k < 3; k++) r[k] += mu * cq->dir[k];
      }
      if (sw > 0 && normalize3(r)) {
        cp->depth = sd / sw > 0 ? sd / sw : 0.0;
        memcpy(cp->dir, r, sizeof r);
      } else {
        cp->dir[0] = 0, cp->dir[1] = 1.0, cp->dir[2] = 0;
      }
    }
    lev++;
    for (int qi = 0; qi < nn; qi++) {
      c->level[c->next_queue[qi]] = lev;
      c->contact[c->next_queue[qi]].kind = JL_CONTACT_INNER;
    }
    memcpy(c->queue, c->next_queue, (size_t)nn * sizeof(int));
    nq = nn;
  }
}

static int near_cmp(const void *pa, const void *pb) {
  const Near *a = pa, *b = pb;
  if (a->d != b->d) return a->d < b->d ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* nearest point of Q's surface to p: depth and outward direction */
static void nearest_surface(JlCollision *c, const JlGeom *geo, const double *x, int p, int qbody, double *depth,
                            double dir[3]) {
  double best = INFINITY, q[3], bary[3], bq[3] = {0, 0, 0}, bn[3] = {0, 1, 0}, bb[3] = {1, 0, 0};
  int bf = -1;
  const double *xp = x + 3 * p;
  for (int f = c->face_begin[qbody]; f < c->face_begin[qbody] + c->face_count[qbody]; f++) {
    const int *fv = geo->face + 3 * f;
    double d2 = jl_closest_point_triangle(xp, x + 3 * fv[0], x + 3 * fv[1], x + 3 * fv[2], q, bary);
    if (d2 < best) {
      best = d2;
      memcpy(bq, q, sizeof q);
      memcpy(bb, bary, sizeof bb);
      bf = f;
    }
  }
  if (bf >= 0 && !jl_depth_face_normal(c, geo, x, bf, bb, bn)) bn[0] = 0, bn[1] = 1, bn[2] = 0;
  double d[3] = {bq[0] - xp[0], bq[1] - xp[1], bq[2] - xp[2]};
  *depth = sqrt(jl_vec3_dot(d, d));
  if (!normalize3(d)) {
    memcpy(d, bn, sizeof d);
    if (!normalize3(d)) d[0] = 0, d[1] = 1, d[2] = 0;
  }
  memcpy(dir, d, sizeof d);
}

/* previous contact of (node, Q), or NULL */
static const JlContactPoint *previous(const JlCollision *c, int node, int qbody) {
  if (c->prev_stamp[node] != c->pstamp) return NULL;
  for (int i = c->prev_head[node]; i >= 0; i = c->prev_next[i])
    if (c->prev[i].body == qbody) return &c->prev[i];
  return NULL;
}

void jl_depth_group(JlCollision *c, const JlGeom *geo, const double *x, int g0, int g1) {
  JlCollisionStats *st = &c->stats;
  int qbody = c->contact[g0].body;
  /* mark the group's inside points */
  c->gstamp++;
  for (int i = g0; i < g1; i++) {
    c->in_stamp[c->contact[i].node] = c->gstamp;
    c->in_idx[c->contact[i].node] = i;
    c->level[i] = -1;
  }
  /* new stamp for the tet walk, face and normal caches */
  if (++c->wstamp == 0) {
    for (int t = 0; t < geo->ntet; t++) c->trec[t].wstamp = 0;
    memset(c->face_stamp, 0, (size_t)geo->nface * sizeof(unsigned));
    c->wstamp = 1;
  }
  c->gathered = 0;
  /* the walks start at the points' tets: load their links and nodes together
   * (independent misses overlap) rather than one by one in the edge loop */
  for (int i = g0; i < g1; i++) {
    int t = c->contact[i].tet;
    PREFETCH(c->trec + t);
    PREFETCH(geo->tet + 4 * (size_t)t);
    if (geo->adj) PREFETCH(geo->adj + geo->adj_start[c->contact[i].node]);
  }
  /* cloth and rope nodes: depth and direction from Q's own surface (the
   * nearest point), never from their edges, which only run along the rope or
   * within the sheet; the node's half-thickness is added, so the cloth's or
   * rope's surface is pushed out, not its mid-line */
  for (int i = g0; i < g1; i++) {
    JlContactPoint *cp = &c->contact[i];
    const JlGeomBody *pb = &geo->body[geo->node_body[cp->node]];
    if (pb->kind == JL_BODY_VOLUME) continue;
    nearest_surface(c, geo, x, cp->node, qbody, &cp->depth, cp->dir);
    cp->depth += pb->radius;
    cp->kind = JL_CONTACT_NEAREST;
    c->level[i] = 0;
  }
  /* phases 2-3: border points from the edges leaving Q */
  int nq = 0;
  for (int i = g0; i < g1; i++) {
    JlContactPoint *cp = &c->contact[i];
    if (c->level[i] != -1) continue; /* a cloth or rope node, done */
    int p = cp->node;
    const double *xp = x + 3 * p;
    double sw = 0, sd = 0, r[3] = {0, 0, 0};
    for (int a = geo->adj ? geo->adj_start[p] : 0; geo->adj && a < geo->adj_start[p + 1]; a++) {
      int n = geo->adj[a];
      if (c->in_stamp[n] == c->gstamp) continue;
      st->border_edges++;
      double xi[3] = {0, 0, 0}, ni[3] = {0, 0, 0};
      if (!jl_depth_edge_crossing(c, geo, x, cp->tet, p, n, g0, g1, xi, ni)) continue;
      double dx[3] = {xi[0] - xp[0], xi[1] - xp[1], xi[2] - xp[2]};
      double d2 = jl_vec3_dot(dx, dx), w = d2 > 0 ? 1.0 / d2 : 1e30;
      sw += w;
      sd += w * jl_vec3_dot(dx, ni);
      for (int k = 0; k < 3; k++) r[k] += w * ni[k];
    }
    if (sw > 0 && normalize3(r)) {
      cp->depth = sd / sw > 0 ? sd / sw : 0.0;
      memcpy(cp->dir, r, sizeof r);
      cp->kind = JL_CONTACT_BORDER;
      c->level[i] = 0;
      c->queue[nq++] = i;
    }
  }
  /* phase 4: propagation */
  propagate(c, geo, x, nq, 0);
  /* unreached points with history: previous direction, current gap of the previous anchor */
  nq = 0;
  if (c->def.use_history) {
    for (int i = g0; i < g1; i++) {
      if (c->level[i] != -1) continue;
      JlContactPoint *cp = &c->contact[i];
      const JlContactPoint *pc = previous(c, cp->node, qbody);
      if (!pc) continue;
      const int *tn = geo->tet + 4 * pc->tet;
      double y[3] = {0, 0, 0};
      for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++) y[a] += pc->w[k] * x[3 * tn[k] + a];
      double g[3] = {y[0] - x[3 * cp->node], y[1] - x[3 * cp->node + 1], y[2] - x[3 * cp->node + 2]};
      double d = pc->depth + jl_vec3_dot(pc->dir, g);
      cp->depth = d > 0 ? d : 0.0;
      memcpy(cp->dir, pc->dir, sizeof cp->dir);
      cp->kind = JL_CONTACT_HISTORY;
      c->level[i] = 0;
      c->queue[nq++] = i;
    }
    propagate(c, geo, x, nq, 0);
  }
  /* still unreached: nearest surface point of the closest point per region, then propagate */
  int nr = 0;
  for (int i = g0; i < g1; i++)
    if (c->level[i] == -1) {
      double dir[3];
      c->order[nr].idx = i;
      nearest_surface(c, geo, x, c->contact[i].node, qbody, &c->order[nr].d, dir);
      nr++;
    }
  if (nr > 0) {
    qsort(c->order, (size_t)nr, sizeof(Near), near_cmp);
    for (int o = 0; o < nr; o++) {
      int i = c->order[o].idx;
      if (c->level[i] != -1) continue;
      JlContactPoint *cp = &c->contact[i];
      nearest_surface(c, geo, x, cp->node, qbody, &cp->depth, cp->dir);
      cp->kind = JL_CONTACT_NEAREST;
      c->level[i] = 0;
      c->queue[0] = i;
      propagate(c, geo, x, 1, 0);
    }
  }
  for (int i = g0; i < g1; i++) {
    switch (c->contact[i].kind) {
      case JL_CONTACT_BORDER:
        st->border++;
        break;
      case JL_CONTACT_INNER:
        st->inner++;
        break;
      case JL_CONTACT_HISTORY:
        st->history++;
        break;
      default:
        st->nearest++;
        break;
    }
  }
}
