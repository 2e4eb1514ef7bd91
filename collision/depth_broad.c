/* Broad phase and phase 1 of collision/depth.h (the parts: depth_internal.h).
 *
 * Teschner et al. 2003 with one addition: only the nodes and tets inside the
 * overlap of two bodies' bounding boxes enter the hash (a mid-phase cull that
 * costs one box test per node and tet), so resting bodies that touch in a
 * small region pay for that region only. Pass 1 inserts nodes by their cell,
 * pass 2 walks each tet's box cells (clipped to the overlap region) and tests
 * candidates exactly (collision/narrow.c). Phase 1 keeps, per (node, body Q),
 * the containing tet with the largest smallest barycentric weight (ties:
 * smaller tet id), so a node on a face shared by two tets is counted once;
 * contacts come out sorted by (P, Q, node). */
#include <stdlib.h>
#include <string.h>

#include "collision/depth_internal.h"
#include "collision/narrow.h"

/* is node a a neighbour of node b (sorted adjacency rows)? */
static int adjacent(const JlGeom *geo, int a, int b) {
  if (!geo->adj) return 0;
  for (int q = geo->adj_start[a]; q < geo->adj_start[a + 1]; q++)
    if (geo->adj[q] == b) return 1;
  return 0;
}

static void body_boxes(JlCollision *c, const JlGeom *geo, const double *x) {
  for (int b = 0; b < geo->nbody; b++) {
    const JlGeomBody *body = &geo->body[b];
    double *bx = c->box + 6 * b;
    bx[0] = bx[1] = bx[2] = INFINITY;
    bx[3] = bx[4] = bx[5] = -INFINITY;
    for (int i = body->node_begin; i < body->node_begin + body->node_count; i++)
      for (int k = 0; k < 3; k++) {
        double v = x[3 * i + k];
        if (v < bx[k]) bx[k] = v;
        if (v > bx[3 + k]) bx[3 + k] = v;
      }
  }
  /* query region of b: union of its overlaps with other bodies (all of it with self-collision) */
  for (int b = 0; b < geo->nbody; b++) {
    double *q = c->qbox + 6 * b;
    const double *bb = c->box + 6 * b;
    q[0] = q[1] = q[2] = INFINITY;
    q[3] = q[4] = q[5] = -INFINITY;
    c->active[b] = 0;
    for (int o = 0; o < geo->nbody; o++) {
      const double *ob = c->box + 6 * o;
      if (o == b ? !c->self[b] : !boxes_overlap(bb, ob)) continue;
      c->active[b] = 1;
      for (int k = 0; k < 3; k++) {
        double lo = bb[k] > ob[k] ? bb[k] : ob[k], hi = bb[3 + k] < ob[3 + k] ? bb[3 + k] : ob[3 + k];
        if (lo < q[k]) q[k] = lo;
        if (hi > q[3 + k]) q[3 + k] = hi;
      }
    }
  }
}

static void add_hit(JlCollision *c, int pbody, int node, int body, int tet, const double *w) {
  jl_grow((void **)&c->hit, &c->hit_cap, c->nhit + 1, sizeof(Hit));
  Hit *h = &c->hit[c->nhit++];
  h->pbody = pbody;
  h->node = node;
  h->body = body;
  h->tet = tet;
  memcpy(h->w, w, sizeof h->w);
  double mw = w[0];
  for (int k = 1; k < 4; k++) mw = w[k] < mw ? w[k] : mw;
  h->minw = mw;
}

static int hit_cmp(const void *pa, const void *pb) {
  const Hit *a = pa, *b = pb;
  if (a->pbody != b->pbody) return a->pbody < b->pbody ? -1 : 1;
  if (a->body != b->body) return a->body < b->body ? -1 : 1;
  if (a->node != b->node) return a->node < b->node ? -1 : 1;
  if (a->minw != b->minw) return a->minw > b->minw ? -1 : 1; /* deepest tet first */
  return a->tet < b->tet ? -1 : a->tet > b->tet;
}

void jl_depth_broad_phase(JlCollision *c, const JlGeom *geo, const double *x) {
  JlCollisionStats *st = &c->stats;
  JlHash *h = &c->nodes;
  body_boxes(c, geo, x);
  /* pass 1: nodes in their body's query region */
  jl_hash_begin(h);
  for (int b = 0; b < geo->nbody; b++) {
    if (!c->active[b]) continue;
    const JlGeomBody *body = &geo->body[b];
    const double *q = c->qbox + 6 * b;
    for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
      if (!in_box(q, x + 3 * i)) continue;
      int cell[3];
      jl_hash_cell(h, x + 3 * i, cell);
      jl_hash_insert(h, cell, i);
      st->hashed_nodes++;
    }
  }
  /* pass 2: each tet's box cells; exact point-in-tet on candidates */
  c->nhit = 0;
  for (int b = 0; b < geo->nbody; b++) {
    if (!c->active[b]) continue;
    const JlGeomBody *body = &geo->body[b];
    const double *q = c->qbox + 6 * b;
    int self = c->self[b];
    for (int t = body->tet_begin; t < body->tet_begin + body->tet_count; t++) {
      const int *tn = geo->tet + 4 * t;
      double tb[6];
      jl_depth_node_box(x, tn, 4, tb);
      double cb[6];
      if (!clip_box(tb, q, cb)) continue;
      st->queried_tets++;
      /* the nodes in the cells of the clipped box (bounded: collision/hash.h) */
      JlHashQuery hq;
      jl_hash_query(h, cb, &hq);
      for (int p; (p = jl_hash_query_next(h, &hq)) >= 0;) {
        if (geo->node_body[p] == b) {
          if (!self) continue;
          if (p == tn[0] || p == tn[1] || p == tn[2] || p == tn[3]) continue;
          if (adjacent(geo, p, tn[0]) || adjacent(geo, p, tn[1]) || adjacent(geo, p, tn[2]) || adjacent(geo, p, tn[3]))
            continue;
        }
        if (!in_box(tb, x + 3 * p)) continue;
        st->candidates++;
        double w[4];
        if (jl_point_in_tet(x, tn, x + 3 * p, w)) add_hit(c, geo->node_body[p], p, b, t, w);
      }
    }
  }
  /* one contact per (node, Q): the deepest containing tet */
  if (c->nhit > 1) qsort(c->hit, (size_t)c->nhit, sizeof(Hit), hit_cmp);
  c->ncontact = 0;
  for (int i = 0; i < c->nhit; i++) {
    const Hit *hh = &c->hit[i];
    if (i > 0 && hh->node == c->hit[i - 1].node && hh->body == c->hit[i - 1].body) continue;
    jl_grow((void **)&c->contact, &c->contact_cap, c->ncontact + 1, sizeof(JlContactPoint));
    JlContactPoint *cp = &c->contact[c->ncontact++];
    memset(cp, 0, sizeof *cp);
    cp->node = hh->node;
    cp->body = hh->body;
    cp->tet = hh->tet;
    memcpy(cp->w, hh->w, sizeof cp->w);
  }
}
