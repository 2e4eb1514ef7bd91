/* Collision detection and consistent penetration depth (collision/depth.h):
 * the JlCollision object (creation with the tet adjacency, buffers) and the
 * driver jl_collision_detect. The phases live in depth_broad.c,
 * depth_crossing.c, depth_normals.c and depth_propagate.c, which share
 * depth_internal.h; what follows describes the whole method.
 *
 * Broad phase after Teschner et al. 2003 with one addition: only the nodes
 * and tets inside the overlap of two bodies' bounding boxes enter the hash
 * (a mid-phase cull that costs one box test per node and tet), so resting
 * bodies that touch in a small region pay for that region only. Pass 1
 * inserts nodes by their cell, pass 2 walks each tet's box cells (clipped to
 * the overlap region) and tests candidates exactly (collision/narrow.c).
 *
 * Phase 1 keeps, per (node, body Q), the containing tet with the largest
 * smallest barycentric weight (ties: smaller tet id), so a node on a face
 * shared by two tets is counted once. Contacts are sorted by (P, Q, node);
 * phases 2-4 (Heidelberger et al. 2004, sec. 4.1-4.3; docs/references.md) run once per
 * (P, Q) group, with work proportional to the group's border edges (edges
 * from a penetrating point to a point outside Q), not to the bodies' sizes.
 * A border edge is followed through Q's tets from the tet that holds its
 * inside point, across shared faces (each tet's exit face is the one whose
 * barycentric coordinate reaches zero first along the edge), until it leaves
 * Q through a boundary face: that is its first crossing, located on the face
 * by the same barycentric coordinates. Each tet's coordinate frame is
 * computed once per detection and shared by the walks through it (a border
 * point's edges all start in its tet). When the walk cannot decide (a flat
 * tet, a face through the edge's own nodes, a crossing outside the face by
 * more than rounding) the edge falls back to exact segment-triangle tests
 * against a second spatial hash holding only
 * the boundary faces of Q reached by a breadth-first walk over Q's tets from
 * the group's tets, keeping to tets whose box meets the box of the border
 * edges; that walk misses no face an edge can first cross (the part of an
 * edge before its first crossing lies inside Q and in that box, and the tets
 * it passes through are face-connected). The normal at a crossing point
 * interpolates the struck face's corner normals, each the area-weighted
 * average (at the current positions) of the faces around the corner that are
 * within 60 degrees of the struck face in the rest shape (a crease angle):
 * smooth surfaces get the paper's interpolated vertex normals, a box's face
 * keeps its own normal up to the rim instead of tilting by up to 45 degrees
 * towards the side faces. Face normals, corner normals and, at nodes without
 * a crease, the corner normal shared by all the node's faces are computed
 * once per detection.
 *
 * The paper's known gap, points that no border point reaches, is closed in
 * two stages: the point's contact with the same Q in the previous call gives
 * its direction and, through that contact's barycentric anchor, its current
 * depth (d_prev + r.(sum w_k x_k - x_p)); what is still unreached takes, per
 * connected region, the nearest point on Q's surface for its point closest
 * to the surface and is propagated breadth-first from there. A small body
 * pushed through a thin slab therefore keeps the direction it entered with.
 *
 * The depth phases touch few bytes but in scattered places, and in a
 * simulation step the solve evicts them from the caches: each tet's
 * neighbours, boundary faces, frame slot and stamps share one 32-byte
 * record (a walk step touches one cache line of tet data), and the start
 * tets of a group are prefetched together (prefetches change no result).
 * Meshes from jl_tetgen_build are numbered along a Hilbert curve
 * (mesh/order.c), so a contact region's tets and nodes are close in memory.
 *
 * Everything is sequential and ordered by ids: results do not depend on
 * threads or timing. */
#include "collision/depth.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision/depth_internal.h"

/* a triangle by its sorted node ids, and where it came from */
typedef struct FaceKey {
  int v[3];
  int owner; /* 4 tet + corner for tet faces, face id for boundary faces */
} FaceKey;

static int key_less(const int *a, const int *b) {
  for (int k = 0; k < 3; k++)
    if (a[k] != b[k]) return a[k] < b[k];
  return 0;
}

static int face_key_cmp(const void *pa, const void *pb) {
  const FaceKey *a = pa, *b = pb;
  if (key_less(a->v, b->v)) return -1;
  if (key_less(b->v, a->v)) return 1;
  return a->owner < b->owner ? -1 : a->owner > b->owner;
}

static void sort3(const int *in, int out[3]) {
  int a = in[0], b = in[1], cc = in[2], t;
  if (a > b) t = a, a = b, b = t;
  if (b > cc) t = b, b = cc, cc = t;
  if (a > b) t = a, a = b, b = t;
  out[0] = a, out[1] = b, out[2] = cc;
}

/* the link of tet face owner = 4 tet + corner */
static int *link_at(JlCollision *c, int owner) { return &c->trec[owner / 4].link[owner % 4]; }

/* tet neighbours across faces and the boundary face on each unshared tet face
 * (sorting the 4 ntet tet faces once at creation) */
static void tet_adjacency(JlCollision *c, const JlGeom *geo) {
  size_t nt = (size_t)geo->ntet;
  c->trec_mem = jl_calloc(nt + 2, sizeof(TetRec));
  uintptr_t mis = (uintptr_t)c->trec_mem % sizeof(TetRec);
  c->trec = (TetRec *)((char *)c->trec_mem + (mis ? sizeof(TetRec) - mis : 0));
  for (size_t t = 0; t < nt; t++)
    for (int k = 0; k < 4; k++) c->trec[t].link[k] = -1;
  if (nt == 0) return;
  FaceKey *tk = jl_calloc(4 * nt, sizeof(FaceKey));
  for (size_t t = 0; t < nt; t++)
    for (int k = 0; k < 4; k++) {
      int tri[3], q = 0;
      for (int j = 0; j < 4; j++)
        if (j != k) tri[q++] = geo->tet[4 * t + (size_t)j];
      sort3(tri, tk[4 * t + (size_t)k].v);
      tk[4 * t + (size_t)k].owner = (int)(4 * t + (size_t)k);
    }
  qsort(tk, 4 * nt, sizeof(FaceKey), face_key_cmp);
  FaceKey *bk = jl_calloc((size_t)geo->nface + 1, sizeof(FaceKey));
  for (int f = 0; f < geo->nface; f++) {
    sort3(geo->face + 3 * f, bk[f].v);
    bk[f].owner = f;
  }
  if (geo->nface > 1) qsort(bk, (size_t)geo->nface, sizeof(FaceKey), face_key_cmp);
  for (size_t i = 0; i < 4 * nt;) {
    size_t j = i + 1;
    while (j < 4 * nt && !key_less(tk[i].v, tk[j].v)) j++;
    if (j == i + 2) { /* shared by two tets */
      *link_at(c, tk[i].owner) = tk[i + 1].owner / 4;
      *link_at(c, tk[i + 1].owner) = tk[i].owner / 4;
    } else if (j == i + 1) { /* on the boundary: find its face (lower bound by nodes) */
      size_t lo = 0, hi = (size_t)geo->nface;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (key_less(bk[mid].v, tk[i].v))
          lo = mid + 1;
        else
          hi = mid;
      }
      const FaceKey *hit = lo < (size_t)geo->nface && !key_less(tk[i].v, bk[lo].v) ? &bk[lo] : NULL;
      if (hit) *link_at(c, tk[i].owner) = -2 - hit->owner;
    }
    i = j;
  }
  free(tk);
  free(bk);
}

JlCollisionDef jl_default_collision_def(void) {
  JlCollisionDef d;
  memset(&d, 0, sizeof d);
  d.use_history = 1;
  return d;
}

JlCollision *jl_collision_create(const JlGeom *geo, const JlCollisionDef *def) {
  JL_ASSERT(geo && def, "jl_collision_create: geo and def must not be NULL");
  JlCollision *c = jl_calloc(1, sizeof *c);
  c->def = *def;
  c->nbody = geo->nbody;
  c->nnode = geo->nnode;
  c->self = jl_calloc((size_t)geo->nbody + 1, 1);
  if (def->self_collision) memcpy(c->self, def->self_collision, (size_t)geo->nbody);
  c->def.self_collision = NULL;
  c->face_begin = jl_calloc((size_t)geo->nbody + 1, sizeof(int));
  c->face_count = jl_calloc((size_t)geo->nbody + 1, sizeof(int));
  for (int b = 0; b < geo->nbody; b++) c->face_begin[b] = -1;
  for (int f = 0; f < geo->nface; f++) {
    int b = geo->node_body[geo->face[3 * f]];
    if (c->face_begin[b] < 0) c->face_begin[b] = f;
    c->face_count[b]++;
  }
  for (int b = 0; b < geo->nbody; b++)
    if (c->face_begin[b] < 0) c->face_begin[b] = 0;
  c->box = jl_calloc(6 * (size_t)geo->nbody + 6, sizeof(double));
  c->qbox = jl_calloc(6 * (size_t)geo->nbody + 6, sizeof(double));
  c->active = jl_calloc((size_t)geo->nbody + 1, 1);
  /* cell size: average rest edge length (Teschner et al. 2003, sec. 5) */
  double cell = def->cell_size;
  if (!(cell > 0.0)) {
    double sum = 0;
    for (int s = 0; s < geo->nspring; s++) sum += geo->spring_rest[s];
    cell = geo->nspring > 0 ? sum / geo->nspring : 0.1;
    if (!(cell > 0.0)) cell = 0.1;
  }
  jl_hash_init(&c->nodes, 2 * geo->nnode, cell);
  jl_hash_init(&c->faces, 2 * geo->nface, cell);
  c->face_mark = jl_calloc((size_t)geo->nface + 1, sizeof(int));
  c->face_stamp = jl_calloc((size_t)geo->nface + 1, sizeof(unsigned));
  c->fn_stamp = jl_calloc((size_t)geo->nface + 1, sizeof(unsigned));
  c->fbox = jl_calloc(6 * (size_t)geo->nface + 6, sizeof(double));
  c->fn = jl_calloc(4 * (size_t)geo->nface + 4, sizeof(double));
  c->fc_stamp = jl_calloc((size_t)geo->nface + 1, sizeof(unsigned));
  c->fc = jl_calloc(12 * (size_t)geo->nface + 12, sizeof(double));
  tet_adjacency(c, geo);
  /* faces around each node, for the crease-aware corner normals */
  c->vf_start = jl_calloc((size_t)geo->nnode + 2, sizeof(int));
  c->vf = jl_calloc(3 * (size_t)geo->nface + 1, sizeof(int));
  for (int f = 0; f < geo->nface; f++)
    for (int k = 0; k < 3; k++) c->vf_start[geo->face[3 * f + k] + 1]++;
  for (int i = 0; i < geo->nnode; i++) c->vf_start[i + 1] += c->vf_start[i];
  {
    int *fill = jl_calloc((size_t)geo->nnode + 1, sizeof(int));
    for (int f = 0; f < geo->nface; f++)
      for (int k = 0; k < 3; k++) {
        int v = geo->face[3 * f + k];
        c->vf[c->vf_start[v] + fill[v]++] = f;
      }
    free(fill);
  }
  jl_depth_rest_creases(c, geo);
  c->prev_head = jl_calloc((size_t)geo->nnode + 1, sizeof(int));
  c->prev_stamp = jl_calloc((size_t)geo->nnode + 1, sizeof(unsigned));
  c->in_stamp = jl_calloc((size_t)geo->nnode + 1, sizeof(unsigned));
  c->in_idx = jl_calloc((size_t)geo->nnode + 1, sizeof(int));
  return c;
}

void jl_collision_destroy(JlCollision *c) {
  if (!c) return;
  JL_FREE_ALL(c->self, c->face_begin, c->face_count, c->box, c->qbox, c->active);
  jl_hash_free(&c->nodes);
  jl_hash_free(&c->faces);
  JL_FREE_ALL(c->face_mark, c->trec_mem, c->face_stamp, c->fn_stamp, c->fbox, c->fn, c->fc_stamp, c->fc, c->tinv,
              c->walk, c->vf_start, c->vf, c->vsmooth, c->cl_start, c->cl, c->vn_stamp, c->vn, c->hit, c->contact,
              c->prev, c->prev_head, c->prev_next, c->prev_stamp, c->in_stamp, c->in_idx, c->level, c->queue,
              c->next_queue, c->order, c);
}

const JlContactPoint *jl_collision_contacts(const JlCollision *c, int *n) {
  *n = c->ncontact;
  return c->contact;
}

const JlCollisionStats *jl_collision_stats(const JlCollision *c) { return &c->stats; }

double jl_collision_cell_size(const JlCollision *c) { return c->nodes.cell; }

void jl_collision_reset(JlCollision *c) {
  c->nprev = 0;
  c->ncontact = 0;
}

int jl_collision_detect(JlCollision *c, const JlGeom *geo, const double *x) {
  JL_ASSERT(c && geo && x && geo->nnode == c->nnode,
            "jl_collision_detect: collision object was made for another geometry");
  memset(&c->stats, 0, sizeof c->stats);
  /* the previous contacts become the history */
  jl_grow((void **)&c->prev, &c->prev_cap, c->ncontact, sizeof(JlContactPoint));
  if (c->prev_next_cap < c->prev_cap) {
    c->prev_next = jl_realloc(c->prev_next, (size_t)c->prev_cap, sizeof(int));
    c->prev_next_cap = c->prev_cap;
  }
  if (c->ncontact > 0) {
    memcpy(c->prev, c->contact, (size_t)c->ncontact * sizeof(JlContactPoint));
  }
  c->nprev = c->ncontact;
  if (++c->pstamp == 0) {
    memset(c->prev_stamp, 0, (size_t)c->nnode * sizeof(unsigned));
    c->pstamp = 1;
  }
  for (int i = c->nprev - 1; i >= 0; i--) {
    int p = c->prev[i].node;
    if (c->prev_stamp[p] != c->pstamp) {
      c->prev_stamp[p] = c->pstamp;
      c->prev_head[p] = -1;
    }
    c->prev_next[i] = c->prev_head[p];
    c->prev_head[p] = i;
  }

  if (++c->dstamp == 0) {
    memset(c->fn_stamp, 0, (size_t)geo->nface * sizeof(unsigned));
    memset(c->fc_stamp, 0, (size_t)geo->nface * sizeof(unsigned));
    memset(c->vn_stamp, 0, (size_t)geo->nnode * sizeof(unsigned));
    for (int t = 0; t < geo->ntet; t++) c->trec[t].stamp = 0;
    c->dstamp = 1;
  }
  c->ntinv = 0;

  double t0 = jl_seconds();
  jl_depth_broad_phase(c, geo, x);
  double t1 = jl_seconds();
  c->stats.detect_s = t1 - t0;
  c->stats.penetrating = c->ncontact;
  if (c->ncontact == 0) return 0;

  /* scratch for the depth phases */
  int cap = c->contact_cap;
  if (cap > c->scratch_cap) {
    c->level = jl_realloc(c->level, (size_t)cap, sizeof(int));
    c->queue = jl_realloc(c->queue, (size_t)cap, sizeof(int));
    c->next_queue = jl_realloc(c->next_queue, (size_t)cap, sizeof(int));
    c->order = jl_realloc(c->order, (size_t)cap, sizeof(Near));
    c->scratch_cap = cap;
  }
  /* groups of equal (P, Q) */
  int g0 = 0;
  while (g0 < c->ncontact) {
    int pb = geo->node_body[c->contact[g0].node], qb = c->contact[g0].body, g1 = g0 + 1;
    while (g1 < c->ncontact && geo->node_body[c->contact[g1].node] == pb && c->contact[g1].body == qb) g1++;
    jl_depth_group(c, geo, x, g0, g1);
    g0 = g1;
  }
  c->stats.depth_s = jl_seconds() - t1;
  return c->ncontact;
}

void jl_collision_set_contacts(JlCollision *c, const JlContactPoint *cp, int n) {
  JL_ASSERT(c && n >= 0 && (cp || n == 0), "jl_collision_set_contacts: collision must not be NULL, n >= 0");
  for (int i = 0; i < n; i++)
    JL_ASSERT(cp[i].node >= 0 && cp[i].node < c->nnode, "jl_collision_set_contacts: node out of range");
  jl_grow((void **)&c->contact, &c->contact_cap, n, sizeof(JlContactPoint));
  if (n > 0) memcpy(c->contact, cp, (size_t)n * sizeof(JlContactPoint));
  c->ncontact = n;
}
