/* Collision detection and consistent penetration depth (collision/depth.h).
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
 * phases 2-4 (Heidelberger et al. 2004, sec. 4.1-4.3; seed 003) run once per
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

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision/hash.h"
#include "collision/narrow.h"
#include "mesh/vec3.h"

typedef struct Near {
  double d;
  int idx;
} Near;

/* a tet's frame for barycentric coordinates (see tet_inv) */
typedef struct TetInv {
  double v0[3], r[3][3], det;
} TetInv;

/* what a walk step needs of a tet, in one 32-byte record (one cache line) */
typedef struct TetRec {
  int link[4];     /* across the face opposite corner k: the neighbour tet (>= 0), or
                      -2 - f for boundary face f (model->face index), or -1 */
  unsigned stamp;  /* detection that computed the tet's frame */
  int slot;        /* the frame's index in tinv */
  unsigned wstamp; /* last group whose face gathering reached the tet */
  int pad;
} TetRec;

typedef struct Hit {
  int pbody, node, body, tet;
  double w[4], minw;
} Hit;

struct JlCollision {
  JlCollisionDef def;
  unsigned char *self;      /* nbody */
  int nbody, nnode;
  int *face_begin, *face_count; /* nbody: boundary faces per body (model faces are body-contiguous) */
  double *box;              /* nbody x 6: lo, hi */
  double *qbox;             /* nbody x 6: region where others can touch the body */
  unsigned char *active;    /* nbody */
  JlHash nodes, faces;
  int *face_mark;           /* nface: last segment query that saw the face */
  int query;
  /* tet adjacency, for gathering the candidate faces of a group */
  TetRec *trec;             /* ntet, aligned to 32 bytes: links, frame slot, stamps */
  void *trec_mem;           /* the allocation holding trec */
  unsigned *face_stamp;     /* nface: last group that collected the face */
  unsigned *fn_stamp;       /* nface: last detection that computed the face's area normal */
  unsigned *fc_stamp;       /* nface: last detection that computed the face's corner normals */
  double *fbox;             /* nface x 6: box of a collected face */
  double *fn;               /* nface x 4: area normal (twice the area, outward) and its length */
  double *fc;               /* nface x 12: unit normal and the three crease-aware corner normals */
  unsigned wstamp;          /* walk / face-collection stamp of the current group */
  unsigned dstamp;          /* stamp of the current detection (normals, tet frames) */
  TetInv *tinv;             /* ntinv of tinv_cap: frames of the tets walked in this detection */
  int ntinv, tinv_cap;
  int *walk;                /* walk_cap: tets queued in the group's walk */
  int walk_cap;
  int gathered;             /* the face hash holds the current group's faces */
  int *vf_start, *vf;       /* nnode + 1 / 3 nface: boundary faces around each node (CSR) */
  /* crease-aware corner normals, creases found once on the rest shape */
  unsigned char *vsmooth;   /* nnode: no crease at the node, its corner normal is shared by its faces */
  int *cl_start, *cl;       /* 3 nface + 1 / ...: faces a creased corner 3 f + k averages (CSR) */
  unsigned *vn_stamp;       /* nnode: last detection that computed the node's shared normal */
  double *vn;               /* nnode x 4: shared unit normal, [3] = 1 if it exists */
  /* hits and contacts */
  int nhit, hit_cap;
  Hit *hit;
  int ncontact, contact_cap;
  JlContactPoint *contact;
  int nprev, prev_cap;
  JlContactPoint *prev;
  int *prev_head, *prev_next; /* nnode / prev_cap: contacts of the previous call by node */
  unsigned *prev_stamp;       /* nnode */
  unsigned pstamp;
  /* per-node marks of the current (P, Q) group */
  unsigned *in_stamp;         /* nnode */
  int *in_idx;                /* nnode: contact index in the group */
  unsigned gstamp;
  int *level;                 /* contact_cap: BFS level, -1 = unassigned */
  int *queue, *next_queue;    /* contact_cap */
  Near *order;                /* scratch_cap: unreached points by distance to Q's surface */
  int scratch_cap;            /* size of level, queue, next_queue, order */
  int prev_next_cap;
  JlCollisionStats stats;
};

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
static void tet_adjacency(JlCollision *c, const JlModel *m) {
  size_t nt = (size_t)m->ntet;
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
        if (j != k) tri[q++] = m->tet[4 * t + (size_t)j];
      sort3(tri, tk[4 * t + (size_t)k].v);
      tk[4 * t + (size_t)k].owner = (int)(4 * t + (size_t)k);
    }
  qsort(tk, 4 * nt, sizeof(FaceKey), face_key_cmp);
  FaceKey *bk = jl_calloc((size_t)m->nface + 1, sizeof(FaceKey));
  for (int f = 0; f < m->nface; f++) {
    sort3(m->face + 3 * f, bk[f].v);
    bk[f].owner = f;
  }
  if (m->nface > 1) qsort(bk, (size_t)m->nface, sizeof(FaceKey), face_key_cmp);
  for (size_t i = 0; i < 4 * nt;) {
    size_t j = i + 1;
    while (j < 4 * nt && !key_less(tk[i].v, tk[j].v)) j++;
    if (j == i + 2) { /* shared by two tets */
      *link_at(c, tk[i].owner) = tk[i + 1].owner / 4;
      *link_at(c, tk[i + 1].owner) = tk[i].owner / 4;
    } else if (j == i + 1) { /* on the boundary: find its face (lower bound by nodes) */
      size_t lo = 0, hi = (size_t)m->nface;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (key_less(bk[mid].v, tk[i].v)) lo = mid + 1;
        else hi = mid;
      }
      const FaceKey *hit = lo < (size_t)m->nface && !key_less(tk[i].v, bk[lo].v) ? &bk[lo] : NULL;
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

static void rest_creases(JlCollision *c, const JlModel *m);

JlCollision *jl_collision_create(const JlModel *m, const JlCollisionDef *def) {
  JL_ASSERT(m && def, "jl_collision_create: model and def must not be NULL");
  JlCollision *c = jl_calloc(1, sizeof *c);
  c->def = *def;
  c->nbody = m->nbody;
  c->nnode = m->nnode;
  c->self = jl_calloc((size_t)m->nbody + 1, 1);
  if (def->self_collision) memcpy(c->self, def->self_collision, (size_t)m->nbody);
  c->def.self_collision = NULL;
  c->face_begin = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  c->face_count = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  for (int b = 0; b < m->nbody; b++) c->face_begin[b] = -1;
  for (int f = 0; f < m->nface; f++) {
    int b = m->node_body[m->face[3 * f]];
    if (c->face_begin[b] < 0) c->face_begin[b] = f;
    c->face_count[b]++;
  }
  for (int b = 0; b < m->nbody; b++)
    if (c->face_begin[b] < 0) c->face_begin[b] = 0;
  c->box = jl_calloc(6 * (size_t)m->nbody + 6, sizeof(double));
  c->qbox = jl_calloc(6 * (size_t)m->nbody + 6, sizeof(double));
  c->active = jl_calloc((size_t)m->nbody + 1, 1);
  /* cell size: average rest edge length (Teschner et al. 2003, sec. 5) */
  double cell = def->cell_size;
  if (!(cell > 0.0)) {
    double sum = 0;
    for (int s = 0; s < m->nspring; s++) sum += m->spring_rest[s];
    cell = m->nspring > 0 ? sum / m->nspring : 0.1;
    if (!(cell > 0.0)) cell = 0.1;
  }
  jl_hash_init(&c->nodes, 2 * m->nnode, cell);
  jl_hash_init(&c->faces, 2 * m->nface, cell);
  c->face_mark = jl_calloc((size_t)m->nface + 1, sizeof(int));
  c->face_stamp = jl_calloc((size_t)m->nface + 1, sizeof(unsigned));
  c->fn_stamp = jl_calloc((size_t)m->nface + 1, sizeof(unsigned));
  c->fbox = jl_calloc(6 * (size_t)m->nface + 6, sizeof(double));
  c->fn = jl_calloc(4 * (size_t)m->nface + 4, sizeof(double));
  c->fc_stamp = jl_calloc((size_t)m->nface + 1, sizeof(unsigned));
  c->fc = jl_calloc(12 * (size_t)m->nface + 12, sizeof(double));
  tet_adjacency(c, m);
  /* faces around each node, for the crease-aware corner normals */
  c->vf_start = jl_calloc((size_t)m->nnode + 2, sizeof(int));
  c->vf = jl_calloc(3 * (size_t)m->nface + 1, sizeof(int));
  for (int f = 0; f < m->nface; f++)
    for (int k = 0; k < 3; k++) c->vf_start[m->face[3 * f + k] + 1]++;
  for (int i = 0; i < m->nnode; i++) c->vf_start[i + 1] += c->vf_start[i];
  {
    int *fill = jl_calloc((size_t)m->nnode + 1, sizeof(int));
    for (int f = 0; f < m->nface; f++)
      for (int k = 0; k < 3; k++) {
        int v = m->face[3 * f + k];
        c->vf[c->vf_start[v] + fill[v]++] = f;
      }
    free(fill);
  }
  rest_creases(c, m);
  c->prev_head = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  c->prev_stamp = jl_calloc((size_t)m->nnode + 1, sizeof(unsigned));
  c->in_stamp = jl_calloc((size_t)m->nnode + 1, sizeof(unsigned));
  c->in_idx = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  return c;
}

void jl_collision_destroy(JlCollision *c) {
  if (!c) return;
  free(c->self);
  free(c->face_begin);
  free(c->face_count);
  free(c->box);
  free(c->qbox);
  free(c->active);
  jl_hash_free(&c->nodes);
  jl_hash_free(&c->faces);
  free(c->face_mark);
  free(c->trec_mem);
  free(c->face_stamp);
  free(c->fn_stamp);
  free(c->fbox);
  free(c->fn);
  free(c->fc_stamp);
  free(c->fc);
  free(c->tinv);
  free(c->walk);
  free(c->vf_start);
  free(c->vf);
  free(c->vsmooth);
  free(c->cl_start);
  free(c->cl);
  free(c->vn_stamp);
  free(c->vn);
  free(c->hit);
  free(c->contact);
  free(c->prev);
  free(c->prev_head);
  free(c->prev_next);
  free(c->prev_stamp);
  free(c->in_stamp);
  free(c->in_idx);
  free(c->level);
  free(c->queue);
  free(c->next_queue);
  free(c->order);
  free(c);
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

/* ---- small vector helpers ---- */
static int normalize3(double *a) {
  double l = sqrt(jl_vec3_dot(a, a));
  if (!(l > 0.0) || !isfinite(l)) return 0;
  a[0] /= l, a[1] /= l, a[2] /= l;
  return 1;
}

static int boxes_overlap(const double *a, const double *b) {
  for (int k = 0; k < 3; k++)
    if (a[k] > b[3 + k] || b[k] > a[3 + k]) return 0;
  return 1;
}

static int in_box(const double *box, const double *p) {
  return p[0] >= box[0] && p[1] >= box[1] && p[2] >= box[2] && p[0] <= box[3] && p[1] <= box[4] && p[2] <= box[5];
}

/* cell range of box lo..hi clipped to clip (both 6-vectors); 0 when empty */
static int cell_range(const JlHash *h, const double *box, const double *clip, int c0[3], int c1[3]) {
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++) {
    lo[k] = box[k] > clip[k] ? box[k] : clip[k];
    hi[k] = box[3 + k] < clip[3 + k] ? box[3 + k] : clip[3 + k];
    if (lo[k] > hi[k]) return 0;
  }
  jl_hash_cell(h, lo, c0);
  jl_hash_cell(h, hi, c1);
  return 1;
}

static void grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return;
  int n = *cap > 0 ? *cap : 256;
  while (n < need) n *= 2;
  *p = jl_realloc(*p, (size_t)n, elem);
  *cap = n;
}

/* is node a a neighbour of node b (sorted adjacency rows)? */
static int adjacent(const JlModel *m, int a, int b) {
  if (!m->adj) return 0;
  for (int q = m->adj_start[a]; q < m->adj_start[a + 1]; q++)
    if (m->adj[q] == b) return 1;
  return 0;
}

/* ---- broad phase + phase 1 ---- */

static void body_boxes(JlCollision *c, const JlModel *m, const double *x) {
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
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
  for (int b = 0; b < m->nbody; b++) {
    double *q = c->qbox + 6 * b;
    const double *bb = c->box + 6 * b;
    q[0] = q[1] = q[2] = INFINITY;
    q[3] = q[4] = q[5] = -INFINITY;
    c->active[b] = 0;
    for (int o = 0; o < m->nbody; o++) {
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
  grow((void **)&c->hit, &c->hit_cap, c->nhit + 1, sizeof(Hit));
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

static void broad_and_points(JlCollision *c, const JlModel *m, const double *x) {
  JlCollisionStats *st = &c->stats;
  JlHash *h = &c->nodes;
  body_boxes(c, m, x);
  /* pass 1: nodes in their body's query region */
  jl_hash_begin(h);
  for (int b = 0; b < m->nbody; b++) {
    if (!c->active[b]) continue;
    const JlBody *body = &m->body[b];
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
  for (int b = 0; b < m->nbody; b++) {
    if (!c->active[b]) continue;
    const JlBody *body = &m->body[b];
    const double *q = c->qbox + 6 * b;
    int self = c->self[b];
    for (int t = body->tet_begin; t < body->tet_begin + body->tet_count; t++) {
      const int *tn = m->tet + 4 * t;
      double tb[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
      for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++) {
          double v = x[3 * tn[k] + a];
          if (v < tb[a]) tb[a] = v;
          if (v > tb[3 + a]) tb[3 + a] = v;
        }
      int c0[3], c1[3];
      if (!cell_range(h, tb, q, c0, c1)) continue;
      st->queried_tets++;
      for (int i = c0[0]; i <= c1[0]; i++)
        for (int j = c0[1]; j <= c1[1]; j++)
          for (int k = c0[2]; k <= c1[2]; k++) {
            int cell[3] = {i, j, k};
            for (int e = jl_hash_first(h, cell); e >= 0; e = jl_hash_next(h, e, cell)) {
              int p = h->item[e];
              if (m->node_body[p] == b) {
                if (!self) continue;
                if (p == tn[0] || p == tn[1] || p == tn[2] || p == tn[3]) continue;
                if (adjacent(m, p, tn[0]) || adjacent(m, p, tn[1]) || adjacent(m, p, tn[2]) ||
                    adjacent(m, p, tn[3]))
                  continue;
              }
              if (!in_box(tb, x + 3 * p)) continue;
              st->candidates++;
              double w[4];
              if (jl_point_in_tet(x, tn, x + 3 * p, w)) add_hit(c, m->node_body[p], p, b, t, w);
            }
          }
    }
  }
  /* one contact per (node, Q): the deepest containing tet */
  if (c->nhit > 1) qsort(c->hit, (size_t)c->nhit, sizeof(Hit), hit_cmp);
  c->ncontact = 0;
  for (int i = 0; i < c->nhit; i++) {
    const Hit *hh = &c->hit[i];
    if (i > 0 && hh->node == c->hit[i - 1].node && hh->body == c->hit[i - 1].body) continue;
    grow((void **)&c->contact, &c->contact_cap, c->ncontact + 1, sizeof(JlContactPoint));
    JlContactPoint *cp = &c->contact[c->ncontact++];
    memset(cp, 0, sizeof *cp);
    cp->node = hh->node;
    cp->body = hh->body;
    cp->tet = hh->tet;
    memcpy(cp->w, hh->w, sizeof cp->w);
  }
}

/* ---- phases 2-4 ---- */

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* area-weighted normal (twice the area, outward) of boundary face f */
static void face_area_normal(const JlModel *m, const double *x, int f, double n[3]) {
  const int *fv = m->face + 3 * f;
  const double *a = x + 3 * fv[0], *b = x + 3 * fv[1], *cc = x + 3 * fv[2];
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
}

/* Normal at the point with weights bary[3] of boundary face f: the
 * interpolation of the face's three corner normals (Heidelberger et al. 2004,
 * sec. 4.2 interpolate vertex normals). A corner normal averages, weighted by
 * area, only the faces around the corner that are within JL_CREASE_COS of f
 * itself in the rest shape, so at a sharp edge (a box's rim) the faces on the
 * other side do not tilt the normal: a point on a box's top face is pushed
 * straight up, a point on a smooth surface still gets a normal that varies
 * continuously. Creases are a property of the body's shape and are found
 * once, on the rest positions: at a node without one (almost all nodes of a
 * smooth body) the corner normal is the same for all its faces and is
 * computed once per detection. */
#define JL_CREASE_COS 0.5 /* cos 60 deg */

/* vsmooth, cl_start and cl from the rest positions x0 */
static void rest_creases(JlCollision *c, const JlModel *m) {
  size_t nf = (size_t)m->nface;
  double *rn = jl_calloc(4 * nf + 4, sizeof(double)); /* unit rest normal, [3] = |area normal| */
  for (size_t f = 0; f < nf; f++) {
    double *n = rn + 4 * f;
    face_area_normal(m, m->x0, (int)f, n);
    n[3] = sqrt(jl_vec3_dot(n, n));
    if (n[3] > 0.0 && isfinite(n[3]))
      for (int d = 0; d < 3; d++) n[d] /= n[3];
    else
      n[3] = 0.0;
  }
  /* g is averaged into f's corner when f and g are both non-degenerate and
   * within the crease angle (or f is degenerate: then all faces are) */
#define KEEPS(f, g) (rn[4 * (size_t)(g) + 3] > 0.0 && \
                     (!(rn[4 * (size_t)(f) + 3] > 0.0) || jl_vec3_dot(rn + 4 * (size_t)(g), rn + 4 * (size_t)(f)) >= JL_CREASE_COS))
  c->vsmooth = jl_calloc((size_t)m->nnode + 1, 1);
  for (int v = 0; v < m->nnode; v++) {
    int smooth = 1;
    for (int a = c->vf_start[v]; a < c->vf_start[v + 1] && smooth; a++)
      for (int b = c->vf_start[v]; b < c->vf_start[v + 1]; b++) {
        int g = c->vf[b];
        if (rn[4 * (size_t)g + 3] > 0.0 && !KEEPS(c->vf[a], g)) {
          smooth = 0;
          break;
        }
      }
    c->vsmooth[v] = (unsigned char)smooth;
  }
  c->cl_start = jl_calloc(3 * nf + 1, sizeof(int));
  for (int pass = 0; pass < 2; pass++) {
    int n = 0;
    for (size_t f = 0; f < nf; f++)
      for (int k = 0; k < 3; k++) {
        int v = m->face[3 * f + k];
        if (pass == 0) c->cl_start[3 * f + k] = n;
        if (c->vsmooth[v]) continue;
        for (int b = c->vf_start[v]; b < c->vf_start[v + 1]; b++)
          if (KEEPS(f, c->vf[b])) {
            if (pass == 1) c->cl[n] = c->vf[b];
            n++;
          }
      }
    if (pass == 0) {
      c->cl_start[3 * nf] = n;
      c->cl = jl_calloc((size_t)n + 1, sizeof(int));
    }
  }
#undef KEEPS
  free(rn);
  c->vn_stamp = jl_calloc((size_t)m->nnode + 1, sizeof(unsigned));
  c->vn = jl_calloc(4 * (size_t)m->nnode + 4, sizeof(double));
}

/* area normal and its length of face f, computed once per detection */
static const double *cached_normal(JlCollision *c, const JlModel *m, const double *x, int f) {
  double *n = c->fn + 4 * f;
  if (c->fn_stamp[f] != c->dstamp) {
    c->fn_stamp[f] = c->dstamp;
    face_area_normal(m, x, f, n);
    n[3] = sqrt(jl_vec3_dot(n, n));
  }
  return n;
}

/* unit normal and corner normals of face f (fc + 12 f: nf, then corners
 * 0-2), computed once per detection; 0 for a degenerate face */
static const double *face_corners(JlCollision *c, const JlModel *m, const double *x, int f) {
  double *fc = c->fc + 12 * (size_t)f;
  if (c->fc_stamp[f] == c->dstamp) return fc;
  const double *cf = cached_normal(c, m, x, f);
  if (!(cf[3] > 0.0) || !isfinite(cf[3])) return NULL;
  double *nf = fc;
  nf[0] = cf[0] / cf[3], nf[1] = cf[1] / cf[3], nf[2] = cf[2] / cf[3];
  for (int k = 0; k < 3; k++) {
    int v = m->face[3 * f + k];
    double *cn = fc + 3 + 3 * k;
    if (c->vsmooth[v]) {
      /* shared by the node's faces: the area-weighted sum of all of them */
      double *vn = c->vn + 4 * (size_t)v;
      if (c->vn_stamp[v] != c->dstamp) {
        c->vn_stamp[v] = c->dstamp;
        vn[0] = vn[1] = vn[2] = 0.0;
        for (int q = c->vf_start[v]; q < c->vf_start[v + 1]; q++) {
          const double *ng = cached_normal(c, m, x, c->vf[q]);
          if (ng[3] > 0.0) vn[0] += ng[0], vn[1] += ng[1], vn[2] += ng[2];
        }
        vn[3] = normalize3(vn);
      }
      memcpy(cn, vn[3] != 0.0 ? vn : nf, 3 * sizeof(double));
      continue;
    }
    cn[0] = cn[1] = cn[2] = 0.0;
    for (int q = c->cl_start[3 * f + k]; q < c->cl_start[3 * f + k + 1]; q++) {
      const double *ng = cached_normal(c, m, x, c->cl[q]);
      if (ng[3] > 0.0) cn[0] += ng[0], cn[1] += ng[1], cn[2] += ng[2];
    }
    if (!normalize3(cn)) memcpy(cn, nf, 3 * sizeof(double));
  }
  c->fc_stamp[f] = c->dstamp;
  return fc;
}

static int face_normal(JlCollision *c, const JlModel *m, const double *x, int f, const double bary[3],
                       double n[3]) {
  const double *fc = face_corners(c, m, x, f);
  if (!fc) return 0;
  const double *c0 = fc + 3, *c1 = fc + 6, *c2 = fc + 9;
  n[0] = bary[0] * c0[0] + bary[1] * c1[0] + bary[2] * c2[0];
  n[1] = bary[0] * c0[1] + bary[1] * c1[1] + bary[2] * c2[1];
  n[2] = bary[0] * c0[2] + bary[1] * c1[2] + bary[2] * c2[2];
  if (!normalize3(n)) memcpy(n, fc, 3 * sizeof(double));
  return 1;
}

static void tet_box(const JlModel *m, const double *x, int t, double b[6]) {
  const int *tn = m->tet + 4 * t;
  b[0] = b[1] = b[2] = INFINITY;
  b[3] = b[4] = b[5] = -INFINITY;
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++) {
      double v = x[3 * tn[k] + a];
      if (v < b[a]) b[a] = v;
      if (v > b[3 + a]) b[3 + a] = v;
    }
}

static void push_walk(JlCollision *c, int *nw, int t) {
  c->trec[t].wstamp = c->wstamp;
  grow((void **)&c->walk, &c->walk_cap, *nw + 1, sizeof(int));
  c->walk[(*nw)++] = t;
}

/* Candidate faces of Q for the group's border edges (their box eb): a
 * breadth-first walk over Q's tets through shared faces from the tets that
 * hold the group's points, expanding only tets whose box meets ebox; the
 * boundary faces of the walked tets whose box meets ebox go into the face
 * hash, in the cells of their box within ebox. */
static void gather_faces(JlCollision *c, const JlModel *m, const double *x, int g0, int g1) {
  JlHash *h = &c->faces;
  jl_hash_begin(h);
  /* box of the border edges (inside point to outside neighbour) */
  double eb[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (int i = g0; i < g1 && m->adj; i++) {
    int p = c->contact[i].node;
    for (int a = m->adj_start[p]; a < m->adj_start[p + 1]; a++) {
      int n = m->adj[a];
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
    tet_box(m, x, t, tb);
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
      const int *fv = m->face + 3 * f;
      double *fb = c->fbox + 6 * f;
      fb[0] = fb[1] = fb[2] = INFINITY;
      fb[3] = fb[4] = fb[5] = -INFINITY;
      for (int j = 0; j < 3; j++)
        for (int a = 0; a < 3; a++) {
          double v = x[3 * fv[j] + a];
          if (v < fb[a]) fb[a] = v;
          if (v > fb[3 + a]) fb[3 + a] = v;
        }
      int c0[3], c1[3];
      if (!cell_range(h, fb, eb, c0, c1)) continue;
      c->stats.gathered_faces++;
      for (int ci = c0[0]; ci <= c1[0]; ci++)
        for (int cj = c0[1]; cj <= c1[1]; cj++)
          for (int ck = c0[2]; ck <= c1[2]; ck++) {
            int cell[3] = {ci, cj, ck};
            jl_hash_insert(h, cell, f);
          }
    }
  }
  c->stats.walked_tets += nw;
}

/* The frame of tet t for barycentric coordinates, computed at its first
 * visit in this detection (the edges of a border point all start in its tet,
 * neighbouring points' walks cross the same tets): corner 0 and the rows of
 * the inverse of [v1-v0 v2-v0 v3-v0] times |det|, signed so that the
 * coordinates of points inside are positive. */
static const TetInv *tet_inv_new(JlCollision *c, const JlModel *m, const double *x, int t) {
  TetRec *ts = &c->trec[t];
  grow((void **)&c->tinv, &c->tinv_cap, c->ntinv + 1, sizeof(TetInv));
  TetInv *ti = &c->tinv[c->ntinv];
  ts->stamp = c->dstamp;
  ts->slot = c->ntinv++;
  const int *tn = m->tet + 4 * t;
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

static inline const TetInv *tet_inv(JlCollision *c, const JlModel *m, const double *x, int t) {
  const TetRec *ts = &c->trec[t];
  return ts->stamp == c->dstamp ? &c->tinv[ts->slot] : tet_inv_new(c, m, x, t);
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
static int walk_crossing(JlCollision *c, const JlModel *m, const double *x, int t, int p, int n, double *s,
                         double bary[3]) {
  const double *a = x + 3 * p, *b = x + 3 * n;
  for (int step = 0; step < 64; step++) {
    const TetInv *ti = tet_inv(c, m, x, t);
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
    const int *fv = m->face + 3 * f;
    if (fv[0] == p || fv[1] == p || fv[2] == p || fv[0] == n || fv[1] == n || fv[2] == n) return -2;
    /* the crossing: s on a-b, weights of the face's corners */
    double best = num / den, sc = best > 0.0 ? (best < 1.0 ? best : 1.0) : 0.0, sum = 0.0;
    const int *tn = m->tet + 4 * t;
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
static int hash_crossing(JlCollision *c, const JlModel *m, const double *x, int p, int n, double *s_out,
                         double bary_out[3]) {
  JlHash *h = &c->faces;
  const double *a = x + 3 * p, *b = x + 3 * n;
  double sb[6];
  for (int k = 0; k < 3; k++) {
    sb[k] = a[k] < b[k] ? a[k] : b[k];
    sb[3 + k] = a[k] < b[k] ? b[k] : a[k];
  }
  int c0[3], c1[3];
  jl_hash_cell(h, sb, c0);
  jl_hash_cell(h, sb + 3, c1);
  c->query++;
  double best = INFINITY, best_bary[3] = {0, 0, 0};
  int best_face = -1;
  for (int i = c0[0]; i <= c1[0]; i++)
    for (int j = c0[1]; j <= c1[1]; j++)
      for (int k = c0[2]; k <= c1[2]; k++) {
        int cell[3] = {i, j, k};
        for (int e = jl_hash_first(h, cell); e >= 0; e = jl_hash_next(h, e, cell)) {
          int f = h->item[e];
          if (c->face_mark[f] == c->query) continue;
          c->face_mark[f] = c->query;
          const int *fv = m->face + 3 * f;
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
      }
  *s_out = best;
  memcpy(bary_out, best_bary, sizeof best_bary);
  return best_face;
}

/* First crossing (nearest p) of the border edge p-n with Q's surface: point
 * xi and normal ni. The walk through Q's tets from p's tet t decides almost
 * every edge; the rest use the face hash, gathered once per group. */
static int edge_crossing(JlCollision *c, const JlModel *m, const double *x, int t, int p, int n, int g0,
                         int g1, double xi[3], double ni[3]) {
  double s = 0, bary[3] = {0, 0, 0};
  int f = walk_crossing(c, m, x, t, p, n, &s, bary);
  if (f < 0) {
    if (!c->gathered) {
      gather_faces(c, m, x, g0, g1);
      c->gathered = 1;
    }
    c->stats.hashed_edges++;
    f = hash_crossing(c, m, x, p, n, &s, bary);
  }
  if (f < 0) return 0;
  const double *a = x + 3 * p, *b = x + 3 * n;
  for (int d = 0; d < 3; d++) xi[d] = a[d] + s * (b[d] - a[d]);
  return face_normal(c, m, x, f, bary, ni);
}

/* Breadth-first propagation from the points of the current layer queue[0..nq)
 * (already assigned, level = lev) to unassigned inside points of the group. */
static void propagate(JlCollision *c, const JlModel *m, const double *x, int nq, int lev) {
  if (!m->adj) return;
  while (nq > 0) {
    int nn = 0;
    for (int qi = 0; qi < nq; qi++) {
      int p = c->contact[c->queue[qi]].node;
      for (int a = m->adj_start[p]; a < m->adj_start[p + 1]; a++) {
        int n = m->adj[a];
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
      for (int a = m->adj_start[cp->node]; a < m->adj_start[cp->node + 1]; a++) {
        int n = m->adj[a];
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
static void nearest_surface(JlCollision *c, const JlModel *m, const double *x, int p, int qbody,
                            double *depth, double dir[3]) {
  double best = INFINITY, q[3], bary[3], bq[3] = {0, 0, 0}, bn[3] = {0, 1, 0}, bb[3] = {1, 0, 0};
  int bf = -1;
  const double *xp = x + 3 * p;
  for (int f = c->face_begin[qbody]; f < c->face_begin[qbody] + c->face_count[qbody]; f++) {
    const int *fv = m->face + 3 * f;
    double d2 = jl_closest_point_triangle(xp, x + 3 * fv[0], x + 3 * fv[1], x + 3 * fv[2], q, bary);
    if (d2 < best) {
      best = d2;
      memcpy(bq, q, sizeof q);
      memcpy(bb, bary, sizeof bb);
      bf = f;
    }
  }
  if (bf >= 0 && !face_normal(c, m, x, bf, bb, bn)) bn[0] = 0, bn[1] = 1, bn[2] = 0;
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

static void depth_group(JlCollision *c, const JlModel *m, const double *x, int g0, int g1) {
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
    for (int t = 0; t < m->ntet; t++) c->trec[t].wstamp = 0;
    memset(c->face_stamp, 0, (size_t)m->nface * sizeof(unsigned));
    c->wstamp = 1;
  }
  c->gathered = 0;
  /* the walks start at the points' tets: load their links and nodes together
   * (independent misses overlap) rather than one by one in the edge loop */
  for (int i = g0; i < g1; i++) {
    int t = c->contact[i].tet;
    PREFETCH(c->trec + t);
    PREFETCH(m->tet + 4 * (size_t)t);
    if (m->adj) PREFETCH(m->adj + m->adj_start[c->contact[i].node]);
  }
  /* cloth and rope nodes: depth and direction from Q's own surface (the
   * nearest point), never from their edges, which only run along the rope or
   * within the sheet; the node's half-thickness is added, so the cloth's or
   * rope's surface is pushed out, not its mid-line */
  for (int i = g0; i < g1; i++) {
    JlContactPoint *cp = &c->contact[i];
    const JlBody *pb = &m->body[m->node_body[cp->node]];
    if (pb->kind == JL_BODY_VOLUME) continue;
    nearest_surface(c, m, x, cp->node, qbody, &cp->depth, cp->dir);
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
    for (int a = m->adj ? m->adj_start[p] : 0; m->adj && a < m->adj_start[p + 1]; a++) {
      int n = m->adj[a];
      if (c->in_stamp[n] == c->gstamp) continue;
      st->border_edges++;
      double xi[3] = {0, 0, 0}, ni[3] = {0, 0, 0};
      if (!edge_crossing(c, m, x, cp->tet, p, n, g0, g1, xi, ni)) continue;
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
  propagate(c, m, x, nq, 0);
  /* unreached points with history: previous direction, current gap of the previous anchor */
  nq = 0;
  if (c->def.use_history) {
    for (int i = g0; i < g1; i++) {
      if (c->level[i] != -1) continue;
      JlContactPoint *cp = &c->contact[i];
      const JlContactPoint *pc = previous(c, cp->node, qbody);
      if (!pc) continue;
      const int *tn = m->tet + 4 * pc->tet;
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
    propagate(c, m, x, nq, 0);
  }
  /* still unreached: nearest surface point of the closest point per region, then propagate */
  int nr = 0;
  for (int i = g0; i < g1; i++)
    if (c->level[i] == -1) {
      double dir[3];
      c->order[nr].idx = i;
      nearest_surface(c, m, x, c->contact[i].node, qbody, &c->order[nr].d, dir);
      nr++;
    }
  if (nr > 0) {
    qsort(c->order, (size_t)nr, sizeof(Near), near_cmp);
    for (int o = 0; o < nr; o++) {
      int i = c->order[o].idx;
      if (c->level[i] != -1) continue;
      JlContactPoint *cp = &c->contact[i];
      nearest_surface(c, m, x, cp->node, qbody, &cp->depth, cp->dir);
      cp->kind = JL_CONTACT_NEAREST;
      c->level[i] = 0;
      c->queue[0] = i;
      propagate(c, m, x, 1, 0);
    }
  }
  for (int i = g0; i < g1; i++) {
    switch (c->contact[i].kind) {
      case JL_CONTACT_BORDER: st->border++; break;
      case JL_CONTACT_INNER: st->inner++; break;
      case JL_CONTACT_HISTORY: st->history++; break;
      default: st->nearest++; break;
    }
  }
}

int jl_collision_detect(JlCollision *c, const JlModel *m, const double *x) {
  JL_ASSERT(c && m && x && m->nnode == c->nnode, "jl_collision_detect: collision object was made for another model");
  memset(&c->stats, 0, sizeof c->stats);
  /* the previous contacts become the history */
  grow((void **)&c->prev, &c->prev_cap, c->ncontact, sizeof(JlContactPoint));
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
    memset(c->fn_stamp, 0, (size_t)m->nface * sizeof(unsigned));
    memset(c->fc_stamp, 0, (size_t)m->nface * sizeof(unsigned));
    memset(c->vn_stamp, 0, (size_t)m->nnode * sizeof(unsigned));
    for (int t = 0; t < m->ntet; t++) c->trec[t].stamp = 0;
    c->dstamp = 1;
  }
  c->ntinv = 0;

  double t0 = jl_seconds();
  broad_and_points(c, m, x);
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
    int pb = m->node_body[c->contact[g0].node], qb = c->contact[g0].body, g1 = g0 + 1;
    while (g1 < c->ncontact && m->node_body[c->contact[g1].node] == pb && c->contact[g1].body == qb) g1++;
    depth_group(c, m, x, g0, g1);
    g0 = g1;
  }
  c->stats.depth_s = jl_seconds() - t1;
  return c->ncontact;
}

void jl_collision_set_contacts(JlCollision *c, const JlContactPoint *cp, int n) {
  JL_ASSERT(c && n >= 0 && (cp || n == 0), "jl_collision_set_contacts: collision must not be NULL, n >= 0");
  for (int i = 0; i < n; i++)
    JL_ASSERT(cp[i].node >= 0 && cp[i].node < c->nnode, "jl_collision_set_contacts: node out of range");
  grow((void **)&c->contact, &c->contact_cap, n, sizeof(JlContactPoint));
  if (n > 0) memcpy(c->contact, cp, (size_t)n * sizeof(JlContactPoint));
  c->ncontact = n;
}
