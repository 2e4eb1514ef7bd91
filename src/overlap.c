/* Overlaps at the start of a run (src/overlap.h).
 *
 * Body against body: one jl_collision_detect (collision/depth.h, Heidelberger
 * et al. 2004 consistent penetration depth) over all bodies without
 * self-collision; every penetrating node of P in Q is a candidate for the
 * unordered pair {P, Q}. Body against ground: nodes below y = ground_y, depth
 * ground_y - y. Body against obstacle: jl_obstacle_penetration of each node
 * in the obstacle's bounding box (collision/obstacle.h). Candidates are
 * sorted by pair and merged keeping the deepest, so the result does not
 * depend on the order in which collision/ reports contacts. This runs once
 * per run, so it allocates freely. */
#include "src/overlap.h"

#include <limits.h>
#include <stdlib.h>

#include "collision/depth.h"
#include "collision/obstacle.h"

typedef struct List {
  int n, cap;
  JlOverlap *item;
} List;

static void add(List *l, int a, int b, double depth) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->item = jl_realloc(l->item, (size_t)l->cap, sizeof *l->item);
  }
  l->item[l->n++] = (JlOverlap){a, b, depth};
}

/* other bodies by index, then the ground, then obstacles by index */
static long long order_key(int b) { return b >= 0 ? b : (long long)INT_MAX + (-1 - (long long)b); }

static int by_pair(const void *p, const void *q) {
  const JlOverlap *u = p, *v = q;
  if (u->a != v->a) return u->a < v->a ? -1 : 1;
  long long ku = order_key(u->b), kv = order_key(v->b);
  return ku < kv ? -1 : ku > kv;
}

int jl_initial_overlaps(const JlModel *m, const double *x, JlOverlap *out, int max) {
  JL_ASSERT(m && x, "jl_initial_overlaps: model and positions must not be NULL");
  JL_ASSERT(max >= 0 && (out || max == 0), "jl_initial_overlaps: out may be NULL only when max is 0");
  List l = {0, 0, NULL};

  /* body against body: the penetrating nodes of each body in the others */
  if (m->nbody > 1) {
    JlCollisionDef def = jl_default_collision_def();
    def.cell_size = m->world.contact_cell;
    JlCollision *col = jl_collision_create(jl_model_geom(m), &def);
    int n;
    jl_collision_detect(col, jl_model_geom(m), x);
    const JlContactPoint *cp = jl_collision_contacts(col, &n);
    for (int i = 0; i < n; i++) {
      int p = m->node_body[cp[i].node], q = cp[i].body;
      if (p != q && cp[i].depth > JL_OVERLAP_MIN_DEPTH) add(&l, p < q ? p : q, p < q ? q : p, cp[i].depth);
    }
    jl_collision_destroy(col);
  }

  /* body against the ground plane */
  if (m->world.has_ground)
    for (int b = 0; b < m->nbody; b++) {
      const JlBody *body = &m->body[b];
      double deepest = 0.0;
      for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
        double d = m->world.ground_y - x[3 * i + 1];
        if (d > deepest) deepest = d;
      }
      if (deepest > JL_OVERLAP_MIN_DEPTH) add(&l, b, JL_OVERLAP_GROUND, deepest);
    }

  /* body against each static obstacle (nodes in its bounding box first) */
  for (int o = 0; o < m->nobstacle; o++) {
    const JlObstacle *ob = &m->obstacle[o];
    double lo[3], hi[3];
    jl_obstacle_aabb(ob, lo, hi);
    for (int b = 0; b < m->nbody; b++) {
      const JlBody *body = &m->body[b];
      double deepest = 0.0;
      for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
        const double *xi = x + 3 * i;
        if (xi[0] < lo[0] || xi[1] < lo[1] || xi[2] < lo[2] || xi[0] > hi[0] || xi[1] > hi[1] || xi[2] > hi[2])
          continue;
        double depth, dir[3];
        if (jl_obstacle_penetration(ob, xi, &depth, dir) && depth > deepest) deepest = depth;
      }
      if (deepest > JL_OVERLAP_MIN_DEPTH) add(&l, b, JL_OVERLAP_OBSTACLE(o), deepest);
    }
  }

  /* one entry per pair, the deepest, in a fixed order */
  if (l.n > 1) qsort(l.item, (size_t)l.n, sizeof *l.item, by_pair);
  int count = 0;
  for (int i = 0; i < l.n; i++) {
    if (count > 0 && l.item[count - 1].a == l.item[i].a && l.item[count - 1].b == l.item[i].b) {
      if (l.item[i].depth > l.item[count - 1].depth) l.item[count - 1].depth = l.item[i].depth;
      continue;
    }
    l.item[count++] = l.item[i];
  }
  for (int i = 0; i < count && i < max; i++) out[i] = l.item[i];
  free(l.item);
  return count;
}
