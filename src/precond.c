/* The two-level preconditioner of the implicit solve (src/precond.h).
 *
 * P^-1 r = D^-1 r + R A_c^-1 R^T r: block Jacobi (the inverse of A's 3x3
 * diagonal blocks) plus an additive coarse correction.
 *
 * Coarse space. Each body's free nodes are grouped into at most
 * JL_PRECOND_AGG_MAX aggregates of about JL_PRECOND_AGG_SIZE nodes or more
 * by breadth-first growth over the springs' graph, in node order (the nodes
 * are numbered along a Hilbert curve, mesh/order.c, so the aggregates are
 * compact). An aggregate a carries the six rigid motions of its nodes about
 * their centroid c_a: node i's block of the prolongation is
 * R_i = [I | -[x_i - c_a]x] (3 x 6), R_i [t; w] = t + w x (x_i - c_a), the
 * rigid-body modes of smoothed aggregation (Vanek, Mandel & Brezina 1996)
 * without the smoothing of the prolongation. The coarse matrix
 * A_c = R^T A R is summed block by block: R_i^T D_i R_i for the diagonal
 * blocks, R_i^T C R_j for a general element's off-diagonal block, and
 * (R_i - R_j)^T B (R_i - R_j) for a spring's pair term (within an
 * aggregate only its rotations feel it). A_c is block diagonal by body
 * (springs and tets never join bodies; contacts enter through their
 * diagonal blocks only) and factored by dense Cholesky per body at every
 * linearization; a coarse unknown with no stiffness of its own (a straight
 * chain's rotation about itself) is dropped.
 *
 * Why this one (docs/performance.md, "Preconditioner", with the figures):
 * CG iterations under Jacobi grow with the mesh (the slowest modes are the
 * body-wide ones, which local smoothing reaches only after many sweeps); the
 * coarse correction takes them out. Measured alternatives: block D-ILU on
 * fixed subdomains (2.2x fewer iterations than Jacobi, but each sweep cost
 * 1.4 products and the step was slower), the same with this coarse
 * correction (5x fewer iterations, slower than block Jacobi with it), SSOR,
 * and a multiplicative two-level cycle (fewer iterations again, but two
 * more products per iteration).
 *
 * Every loop is a gather with a fixed order (per node, per aggregate, per
 * body), so the result does not depend on the thread count. */
#include "src/precond.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/common.h"
#include "mesh/vec3.h"
#include "src/parallel.h"

#define JL_PRECOND_AGG_SIZE 150 /* nodes per aggregate, at least (but for a body's last) */
#define JL_PRECOND_AGG_MAX  40  /* aggregates per body at most: the coarse block is 6 x this square */

const char *const jl_precond_names[JL_PRECOND_COUNT] = {"jacobi", "two_level"};

struct JlPrecond {
  int n;                       /* nodes */
  double *dinv;                /* 9 n: inverse diagonal blocks (0 at pinned nodes) */
  const unsigned char *pinned; /* the model's pin mask at the last begin */
  int nagg;
  int *node_agg;             /* n: aggregate, -1 for none (pinned at creation) */
  int *agg_start, *agg_node; /* nagg + 1 / n: each aggregate's nodes, ascending */
  int nbody;
  int *body_agg;       /* nbody + 1: aggregates of each body, contiguous */
  int *agg_body;       /* nagg: the body of each aggregate */
  size_t *ac_off;      /* nbody + 1: offset of each body's dense coarse block */
  double *ac;          /* the coarse blocks (dim 6 x aggregates of the body, square) */
  unsigned char *dead; /* 6 nagg: coarse unknowns dropped as singular */
  double *rel;         /* 3 n: x_i - c_a at the last begin */
  double *dprime;      /* 9 n: A's diagonal blocks less the pair terms' */
  double *diag;        /* 9 n: A's diagonal blocks the preconditioner was set up with */
  double *ac_raw;      /* the coarse blocks before factoring (jl_precond_update starts from them) */
  double *center;      /* 3 nagg */
  /* jl_precond_pairs' plan for one list of pair terms (the springs'): per
   * node and per aggregate the terms that touch it, ascending */
  const int *plan_ij; /* the list the plan is for; NULL = none yet */
  int plan_count;
  int *node_pair_start, *node_pair; /* n + 1 / 2 count */
  int *agg_pair_start, *agg_pair;   /* nagg + 1 / at most 2 count */
  double *rc;                       /* 6 nagg: coarse vector */
};

/* neighbours of node i through the springs (the model's node-spring CSR) */
static int spring_other(const JlModel *m, int i, int q) {
  int id = m->node_spring[q], s = id > 0 ? id - 1 : -id - 1;
  int a = m->spring_node[2 * s], b = m->spring_node[2 * s + 1];
  return a == i ? b : a;
}

/* Aggregates of body b's free nodes (ids from *na on): breadth-first growth
 * from the lowest unassigned node over the springs' graph, the first `size`
 * nodes reached; a node left in an aggregate below size / 3 joins a
 * neighbouring larger one, so every aggregate has enough nodes to carry its
 * rotations. */
static void aggregate_body(JlPrecond *p, const JlModel *m, int b, int *queue, int *na) {
  const JlBody *bd = &m->body[b];
  int lo = bd->node_begin, hi = lo + bd->node_count, nfree = 0, first = *na;
  for (int i = lo; i < hi; i++) nfree += !m->pinned[i];
  if (nfree == 0) return;
  int nagg = nfree / JL_PRECOND_AGG_SIZE;
  if (nagg < 1) nagg = 1;
  if (nagg > JL_PRECOND_AGG_MAX) nagg = JL_PRECOND_AGG_MAX;
  int size = (nfree + nagg - 1) / nagg;
  for (int s = lo; s < hi; s++) {
    if (m->pinned[s] || p->node_agg[s] >= 0) continue;
    int a = (*na)++, head = 0, tail = 0;
    p->node_agg[s] = a;
    queue[tail++] = s;
    while (head < tail && head < size) {
      int i = queue[head++];
      for (int q = m->node_spring_start[i]; q < m->node_spring_start[i + 1]; q++) {
        int k = spring_other(m, i, q);
        if (k < lo || k >= hi || m->pinned[k] || p->node_agg[k] >= 0) continue;
        p->node_agg[k] = a;
        queue[tail++] = k;
      }
    }
    for (int q = size; q < tail; q++) p->node_agg[queue[q]] = -1; /* reached past the size: free again */
  }
  int *cnt = jl_calloc((size_t)(*na - first) + 1, sizeof(int));
  for (int i = lo; i < hi; i++)
    if (p->node_agg[i] >= 0) cnt[p->node_agg[i] - first]++;
  for (int i = lo; i < hi; i++) {
    int a = p->node_agg[i];
    if (a < 0 || 3 * cnt[a - first] >= size) continue;
    for (int q = m->node_spring_start[i]; q < m->node_spring_start[i + 1]; q++) {
      int k = spring_other(m, i, q), c = k >= lo && k < hi ? p->node_agg[k] : -1;
      if (c >= 0 && c != a && 3 * cnt[c - first] >= size) {
        p->node_agg[i] = c;
        cnt[a - first]--, cnt[c - first]++;
        break;
      }
    }
  }
  /* renumber the body's aggregates densely, in order of first node */
  int *map = jl_calloc((size_t)(*na - first) + 1, sizeof(int));
  for (int a = 0; a < *na - first; a++) map[a] = -1;
  int next = first;
  for (int i = lo; i < hi; i++) {
    int a = p->node_agg[i];
    if (a < 0) continue;
    if (map[a - first] < 0) map[a - first] = next++;
    p->node_agg[i] = map[a - first];
  }
  *na = next;
  free(cnt);
  free(map);
}

JlPrecond *jl_precond_create(const JlModel *m, JlPrecondKind kind) {
  JL_ASSERT(m && kind >= 0 && kind < JL_PRECOND_COUNT, "jl_precond_create: a model and a kind");
  if (kind == JL_PRECOND_JACOBI || m->nnode <= 0) return NULL;
  JlPrecond *p = jl_calloc(1, sizeof *p);
  int n = p->n = m->nnode;
  p->dinv = jl_calloc(9 * (size_t)n + 1, sizeof(double));
  p->node_agg = jl_calloc((size_t)n + 1, sizeof(int));
  for (int i = 0; i < n; i++) p->node_agg[i] = -1;
  int *queue = jl_calloc((size_t)n + 1, sizeof(int)), na = 0;
  p->nbody = m->nbody;
  p->body_agg = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  for (int b = 0; b < m->nbody; b++) {
    aggregate_body(p, m, b, queue, &na);
    p->body_agg[b + 1] = na;
  }
  free(queue);
  p->nagg = na;
  p->agg_start = jl_calloc((size_t)na + 2, sizeof(int));
  p->agg_node = jl_calloc((size_t)n + 1, sizeof(int));
  for (int i = 0; i < n; i++)
    if (p->node_agg[i] >= 0) p->agg_start[p->node_agg[i] + 1]++;
  for (int a = 0; a < na; a++) p->agg_start[a + 1] += p->agg_start[a];
  int *fill = jl_calloc((size_t)na + 1, sizeof(int));
  for (int i = 0; i < n; i++) {
    int a = p->node_agg[i];
    if (a >= 0) p->agg_node[p->agg_start[a] + fill[a]++] = i;
  }
  free(fill);
  p->agg_body = jl_calloc((size_t)na + 1, sizeof(int));
  for (int b = 0; b < m->nbody; b++)
    for (int a = p->body_agg[b]; a < p->body_agg[b + 1]; a++) p->agg_body[a] = b;
  p->ac_off = jl_calloc((size_t)m->nbody + 1, sizeof(size_t));
  for (int b = 0; b < m->nbody; b++) {
    size_t d = 6 * (size_t)(p->body_agg[b + 1] - p->body_agg[b]);
    p->ac_off[b + 1] = p->ac_off[b] + d * d;
  }
  p->ac = jl_calloc(p->ac_off[m->nbody] + 1, sizeof(double));
  p->ac_raw = jl_calloc(p->ac_off[m->nbody] + 1, sizeof(double));
  p->diag = jl_calloc(9 * (size_t)n + 1, sizeof(double));
  p->dead = jl_calloc(6 * (size_t)na + 1, 1);
  p->rel = jl_calloc(3 * (size_t)n + 1, sizeof(double));
  p->dprime = jl_calloc(9 * (size_t)n + 1, sizeof(double));
  p->center = jl_calloc(3 * (size_t)na + 1, sizeof(double));
  p->rc = jl_calloc(6 * (size_t)na + 1, sizeof(double));
  return p;
}

void jl_precond_free(JlPrecond *p) {
  if (!p) return;
  JL_FREE_ALL(p->dinv, p->node_agg, p->agg_start, p->agg_node, p->body_agg, p->agg_body, p->ac_off, p->ac, p->dead,
              p->rel, p->dprime, p->center, p->rc, p->ac_raw, p->diag, p->node_pair_start, p->node_pair,
              p->agg_pair_start, p->agg_pair);
  free(p);
}

JlPrecondKind jl_precond_kind(const JlPrecond *p) { return p ? JL_PRECOND_TWO_LEVEL : JL_PRECOND_JACOBI; }

/* ---------------------------------------------------------------- setup */

/* body `body`'s dense coarse block: its dimension, and the 6 x 6 block of aggregates (a, b) in it */
static int coarse_dim(const JlPrecond *p, int body) { return 6 * (p->body_agg[body + 1] - p->body_agg[body]); }

static double *coarse_at(JlPrecond *p, int body, int a, int b) {
  int a0 = p->body_agg[body], dim = coarse_dim(p, body);
  return p->ac + p->ac_off[body] + (size_t)6 * (a - a0) * dim + 6 * (b - a0);
}

/* C += R_i^T B R_j (6 x 6 into a dense block of row stride dim), with
 * R = [I | -[r]x]: [[B, -B[rj]x], [[ri]x B, -[ri]x B [rj]x]] */
static void coarse_add(double *C, int dim, const double *B, const double *ri, const double *rj) {
  double P[9], Q[9], S[9]; /* P = B [rj]x, Q = [ri]x B, S = [ri]x P */
  for (int a = 0; a < 3; a++) {
    const double *b = B + 3 * a;
    P[3 * a] = b[1] * rj[2] - b[2] * rj[1];
    P[3 * a + 1] = b[2] * rj[0] - b[0] * rj[2];
    P[3 * a + 2] = b[0] * rj[1] - b[1] * rj[0];
  }
  for (int c = 0; c < 3; c++) {
    double b0 = B[c], b1 = B[3 + c], b2 = B[6 + c];
    Q[c] = ri[1] * b2 - ri[2] * b1;
    Q[3 + c] = ri[2] * b0 - ri[0] * b2;
    Q[6 + c] = ri[0] * b1 - ri[1] * b0;
    double p0 = P[c], p1 = P[3 + c], p2 = P[6 + c];
    S[c] = ri[1] * p2 - ri[2] * p1;
    S[3 + c] = ri[2] * p0 - ri[0] * p2;
    S[6 + c] = ri[0] * p1 - ri[1] * p0;
  }
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 3; c++) {
      C[a * dim + c] += B[3 * a + c];
      C[a * dim + 3 + c] -= P[3 * a + c];
      C[(3 + a) * dim + c] += Q[3 * a + c];
      C[(3 + a) * dim + 3 + c] -= S[3 * a + c];
    }
}

void jl_precond_begin(JlPrecond *p, const JlModel *m, const double *diag, const double *x, int threads) {
  (void)threads; /* without OpenMP */
  int n = p->n, na = p->nagg;
  const unsigned char *pinned = p->pinned = m->pinned;
  /* aggregate centres and each node's offset at x (pinned nodes: none) */
  JL_OMP(omp parallel for schedule(static) if (na > 8 && n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int a = 0; a < na; a++) {
    double c[3] = {0, 0, 0};
    int cnt = 0;
    for (int q = p->agg_start[a]; q < p->agg_start[a + 1]; q++) {
      int i = p->agg_node[q];
      if (pinned[i]) continue;
      for (int k = 0; k < 3; k++) c[k] += x[3 * i + k];
      cnt++;
    }
    for (int k = 0; k < 3; k++) p->center[3 * a + k] = cnt ? c[k] / cnt : 0.0;
  }
  memset(p->ac, 0, p->ac_off[p->nbody] * sizeof(double));
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int i = 0; i < n; i++) {
    int a = p->node_agg[i];
    for (int k = 0; k < 3; k++) p->rel[3 * i + k] = a >= 0 ? x[3 * i + k] - p->center[3 * a + k] : 0.0;
    memcpy(p->dprime + 9 * (size_t)i, diag + 9 * (size_t)i, 9 * sizeof(double));
    memcpy(p->diag + 9 * (size_t)i, diag + 9 * (size_t)i, 9 * sizeof(double));
    double *Di = p->dinv + 9 * (size_t)i;
    if (pinned[i] || !jl_mat3_inv(diag + 9 * (size_t)i, Di)) memset(Di, 0, 9 * sizeof(double));
  }
}

void jl_precond_block(void *ctx, int i, int j, const double C[9]) {
  JlPrecond *p = ctx;
  if (i == j || p->pinned[i] || p->pinned[j]) return;
  int a = p->node_agg[i], b = p->node_agg[j];
  if (a < 0 || b < 0 || p->agg_body[a] != p->agg_body[b]) return; /* elements never join bodies */
  double ct[9];                                                   /* A_ji = A_ij^T */
  for (int u = 0; u < 3; u++)
    for (int v = 0; v < 3; v++) ct[3 * u + v] = C[3 * v + u];
  int body = p->agg_body[a], dim = coarse_dim(p, body);
  coarse_add(coarse_at(p, body, a, b), dim, C, p->rel + 3 * i, p->rel + 3 * j);
  coarse_add(coarse_at(p, body, b, a), dim, ct, p->rel + 3 * j, p->rel + 3 * i);
}

/* the terms inside one aggregate at each of their nodes, and the terms
 * touching each aggregate (listed once when inside it), in term order;
 * terms between bodies or with an end outside every aggregate are left out
 * (elements never join bodies; pinned nodes have no aggregate) */
static void pairs_plan(JlPrecond *p, int count, const int *ij) {
  int n = p->n, na = p->nagg;
  JL_FREE_ALL(p->node_pair_start, p->node_pair, p->agg_pair_start, p->agg_pair);
  p->node_pair_start = jl_calloc((size_t)n + 2, sizeof(int));
  p->agg_pair_start = jl_calloc((size_t)na + 2, sizeof(int));
  for (int q = 0; q < count; q++) {
    int i = ij[2 * q], j = ij[2 * q + 1];
    int a = i >= 0 && i < n ? p->node_agg[i] : -1, b = j >= 0 && j < n ? p->node_agg[j] : -1;
    if (i == j || a < 0 || b < 0 || p->agg_body[a] != p->agg_body[b]) continue;
    if (a == b) p->node_pair_start[i + 1]++, p->node_pair_start[j + 1]++;
    p->agg_pair_start[a + 1]++;
    if (b != a) p->agg_pair_start[b + 1]++;
  }
  for (int i = 0; i < n; i++) p->node_pair_start[i + 1] += p->node_pair_start[i];
  for (int a = 0; a < na; a++) p->agg_pair_start[a + 1] += p->agg_pair_start[a];
  p->node_pair = jl_calloc((size_t)p->node_pair_start[n] + 1, sizeof(int));
  p->agg_pair = jl_calloc((size_t)p->agg_pair_start[na] + 1, sizeof(int));
  int *nfill = jl_calloc((size_t)n + 1, sizeof(int)), *afill = jl_calloc((size_t)na + 1, sizeof(int));
  for (int q = 0; q < count; q++) {
    int i = ij[2 * q], j = ij[2 * q + 1];
    int a = i >= 0 && i < n ? p->node_agg[i] : -1, b = j >= 0 && j < n ? p->node_agg[j] : -1;
    if (i == j || a < 0 || b < 0 || p->agg_body[a] != p->agg_body[b]) continue;
    if (a == b) {
      p->node_pair[p->node_pair_start[i] + nfill[i]++] = q;
      p->node_pair[p->node_pair_start[j] + nfill[j]++] = q;
    }
    p->agg_pair[p->agg_pair_start[a] + afill[a]++] = q;
    if (b != a) p->agg_pair[p->agg_pair_start[b] + afill[b]++] = q;
  }
  free(nfill);
  free(afill);
  p->plan_ij = ij;
  p->plan_count = count;
}

static inline void sym_block(const double *b6, double B[9]) {
  B[0] = b6[0], B[1] = b6[1], B[2] = b6[2];
  B[3] = b6[1], B[4] = b6[3], B[5] = b6[4];
  B[6] = b6[2], B[7] = b6[4], B[8] = b6[5];
}

/* Row a of the coarse matrix from the pair terms that touch aggregate a:
 * the parts of (R_i - R_j)^T B (R_i - R_j) in block row a not already in
 * the diagonal blocks. Within one aggregate R_i - R_j = [0 | -[d]x],
 * d = x_i - x_j: only the rotations feel the term, through -[d]x B [d]x (a
 * spring's block is a n n^T + b I with n along d, so that is
 * b (|d|^2 I - d d^T): rigid rotations of an aggregate do not stretch its
 * springs), and its diagonal parts R_i^T B R_i come out of the diagonal
 * blocks (D'_i = D_i - B). Between aggregates B stays in the diagonal blocks
 * and the term adds its cross blocks -R_i^T B R_j. Each aggregate adds its
 * own row, so no two threads write the same block. */
static void pairs_row(JlPrecond *p, int a, const int *ij, const double *b6) {
  int body = p->agg_body[a], dim = coarse_dim(p, body);
  double *Caa = coarse_at(p, body, a, a);
  /* the terms inside the aggregate: S = sum [d]x B [d]x (symmetric: xx, xy,
   * xz, yy, yz, zz), subtracted from the rotation block once at the end */
  double S[6] = {0, 0, 0, 0, 0, 0};
  for (int t = p->agg_pair_start[a]; t < p->agg_pair_start[a + 1]; t++) {
    int q = p->agg_pair[t], i = ij[2 * q], j = ij[2 * q + 1];
    if (p->pinned[i] || p->pinned[j]) continue;
    int ai = p->node_agg[i], aj = p->node_agg[j];
    const double *ri = p->rel + 3 * i, *rj = p->rel + 3 * j, *b = b6 + 6 * (size_t)q;
    if (ai == aj) {
      /* T = B [d]x, then the upper triangle of [d]x T */
      double d0 = ri[0] - rj[0], d1 = ri[1] - rj[1], d2 = ri[2] - rj[2];
      double t01 = b[2] * d0 - b[0] * d2, t02 = b[0] * d1 - b[1] * d0;
      double t10 = b[3] * d2 - b[4] * d1, t11 = b[4] * d0 - b[1] * d2, t12 = b[1] * d1 - b[3] * d0;
      double t20 = b[4] * d2 - b[5] * d1, t21 = b[5] * d0 - b[2] * d2, t22 = b[2] * d1 - b[4] * d0;
      S[0] += d1 * t20 - d2 * t10;
      S[1] += d1 * t21 - d2 * t11;
      S[2] += d1 * t22 - d2 * t12;
      S[3] += d2 * t01 - d0 * t21;
      S[4] += d2 * t02 - d0 * t22;
      S[5] += d0 * t12 - d1 * t02;
      continue;
    }
    /* between aggregates: B stays in both diagonal blocks (D'_i = D_i for
     * it, so end adds R_i^T B R_i), and row a gets the cross block */
    double nb[9];
    sym_block(b, nb);
    for (int k = 0; k < 9; k++) nb[k] = -nb[k];
    if (ai == a)
      coarse_add(coarse_at(p, body, a, aj), dim, nb, ri, rj);
    else
      coarse_add(coarse_at(p, body, a, ai), dim, nb, rj, ri);
  }
  double *C = Caa + 3 * dim + 3;
  C[0] -= S[0], C[1] -= S[1], C[2] -= S[2];
  C[dim] -= S[1], C[dim + 1] -= S[3], C[dim + 2] -= S[4];
  C[2 * dim] -= S[2], C[2 * dim + 1] -= S[4], C[2 * dim + 2] -= S[5];
}

void jl_precond_pairs(void *ctx, int count, const int *ij, const double *b6, int threads) {
  JlPrecond *p = ctx;
  (void)threads; /* without OpenMP */
  if (p->plan_ij != ij || p->plan_count != count) pairs_plan(p, count, ij);
  int n = p->n, na = p->nagg;
  /* the diagonal blocks less the terms' inside aggregates (D'_i), per node */
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int i = 0; i < n; i++) {
    if (p->pinned[i]) continue;
    double acc[6] = {0, 0, 0, 0, 0, 0}, *di = p->dprime + 9 * (size_t)i;
    for (int t = p->node_pair_start[i]; t < p->node_pair_start[i + 1]; t++) {
      int q = p->node_pair[t];
      if (p->pinned[ij[2 * q]] || p->pinned[ij[2 * q + 1]]) continue;
      const double *b = b6 + 6 * (size_t)q;
      for (int k = 0; k < 6; k++) acc[k] += b[k];
    }
    double B[9];
    sym_block(acc, B);
    for (int k = 0; k < 9; k++) di[k] -= B[k];
  }
  JL_OMP(omp parallel for schedule(dynamic, 1) if (na > 1 && n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int a = 0; a < na; a++) pairs_row(p, a, ij, b6);
}

/* dense Cholesky in place (lower), dropping unknowns whose pivot is not
 * above tiny x the block's largest diagonal: their row and column are
 * zeroed and the solve leaves them 0 */
static void cholesky(double *a, int dim, unsigned char *dead, int threads) {
  (void)threads;
  double big = 0.0;
  for (int k = 0; k < dim; k++) big = fmax(big, a[(size_t)k * dim + k]);
  for (int j = 0; j < dim; j++) {
    double *aj = a + (size_t)j * dim, s = aj[j];
    for (int k = 0; k < j; k++) s -= aj[k] * aj[k];
    dead[j] = !(s > 1e-12 * big) || !isfinite(s);
    if (dead[j]) {
      for (int k = 0; k <= j; k++) aj[k] = 0.0;
      for (int i = j + 1; i < dim; i++) a[(size_t)i * dim + j] = 0.0;
      continue;
    }
    double d = sqrt(s);
    aj[j] = d;
    /* the rows below: independent of each other */
    JL_OMP(omp parallel for schedule(static) if (dim - j > 96) num_threads(jl_omp_threads(threads)))
    for (int i = j + 1; i < dim; i++) {
      double *ai = a + (size_t)i * dim, t = ai[j];
      for (int k = 0; k < j; k++) t -= ai[k] * aj[k];
      ai[j] = t / d;
    }
  }
}

static void cholesky_solve(const double *a, int dim, const unsigned char *dead, double *b) {
  for (int i = 0; i < dim; i++) {
    if (dead[i]) {
      b[i] = 0.0;
      continue;
    }
    const double *ai = a + (size_t)i * dim;
    double t = b[i];
    for (int k = 0; k < i; k++) t -= ai[k] * b[k];
    b[i] = t / ai[i];
  }
  for (int i = dim - 1; i >= 0; i--) {
    if (dead[i]) continue;
    double t = b[i];
    for (int k = i + 1; k < dim; k++) t -= a[(size_t)k * dim + i] * b[k];
    b[i] = t / a[(size_t)i * dim + i];
  }
}

static void factor(JlPrecond *p, int threads);

void jl_precond_end(JlPrecond *p, int threads) {
  (void)threads; /* without OpenMP */
  int na = p->nagg;
  /* the diagonal blocks left after the pair terms, R_i^T D'_i R_i, into each
   * aggregate's own diagonal block (one aggregate per iteration: no two
   * write the same block) */
  JL_OMP(omp parallel for schedule(static) if (na > 8 && p->n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int a = 0; a < na; a++) {
    int body = p->agg_body[a], dim = coarse_dim(p, body);
    double *C = coarse_at(p, body, a, a);
    for (int q = p->agg_start[a]; q < p->agg_start[a + 1]; q++) {
      int i = p->agg_node[q];
      if (!p->pinned[i]) coarse_add(C, dim, p->dprime + 9 * (size_t)i, p->rel + 3 * i, p->rel + 3 * i);
    }
  }
  factor(p, threads);
}

/* keeps the assembled coarse blocks (for jl_precond_update) and factors them */
static void factor(JlPrecond *p, int threads) {
  memcpy(p->ac_raw, p->ac, p->ac_off[p->nbody] * sizeof(double));
  for (int b = 0; b < p->nbody; b++) {
    int a0 = p->body_agg[b], dim = coarse_dim(p, b);
    if (dim > 0) cholesky(p->ac + p->ac_off[b], dim, p->dead + 6 * (size_t)a0, threads);
  }
}

/* A's diagonal blocks changed, nothing else: the coarse matrix changes by
 * R_i^T (D_new - D_old) R_i at each node whose block changed (in its
 * aggregate's diagonal block, one aggregate per iteration as in end) */
void jl_precond_update(JlPrecond *p, const double *diag, int threads) {
  int na = p->nagg, n = p->n;
  (void)threads, (void)n; /* read only by OpenMP clauses */
  memcpy(p->ac, p->ac_raw, p->ac_off[p->nbody] * sizeof(double));
  JL_OMP(omp parallel for schedule(static) if (na > 8 && n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int a = 0; a < na; a++) {
    int body = p->agg_body[a], dim = coarse_dim(p, body);
    double *C = coarse_at(p, body, a, a);
    for (int q = p->agg_start[a]; q < p->agg_start[a + 1]; q++) {
      int i = p->agg_node[q];
      double *old = p->diag + 9 * (size_t)i, dd[9];
      const double *now = diag + 9 * (size_t)i;
      if (p->pinned[i] || !memcmp(old, now, sizeof dd)) continue;
      for (int k = 0; k < 9; k++) dd[k] = now[k] - old[k];
      coarse_add(C, dim, dd, p->rel + 3 * i, p->rel + 3 * i);
      memcpy(old, now, sizeof dd);
      double *Di = p->dinv + 9 * (size_t)i;
      if (!jl_mat3_inv(now, Di)) memset(Di, 0, 9 * sizeof(double));
    }
  }
  factor(p, threads);
}

/* ---------------------------------------------------------------- apply */

static inline void mv3(const double *a, const double *u, double *o) {
  o[0] = a[0] * u[0] + a[1] * u[1] + a[2] * u[2];
  o[1] = a[3] * u[0] + a[4] * u[1] + a[5] * u[2];
  o[2] = a[6] * u[0] + a[7] * u[1] + a[8] * u[2];
}

double jl_precond_apply(JlPrecond *p, const double *r, double *z, int threads, int block, double *partial) {
  int n = p->n, na = p->nagg;
  (void)threads;
  /* restriction: rc_a = sum_i R_i^T r_i = [sum r_i ; sum (x_i - c_a) x r_i] */
  JL_OMP(omp parallel for schedule(static) if (na > 8 && n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int a = 0; a < na; a++) {
    double s[6] = {0, 0, 0, 0, 0, 0};
    for (int q = p->agg_start[a]; q < p->agg_start[a + 1]; q++) {
      int i = p->agg_node[q];
      if (p->pinned[i]) continue;
      const double *ri = r + 3 * i, *e = p->rel + 3 * i;
      s[0] += ri[0], s[1] += ri[1], s[2] += ri[2];
      s[3] += e[1] * ri[2] - e[2] * ri[1];
      s[4] += e[2] * ri[0] - e[0] * ri[2];
      s[5] += e[0] * ri[1] - e[1] * ri[0];
    }
    memcpy(p->rc + 6 * (size_t)a, s, sizeof s);
  }
  for (int b = 0; b < p->nbody; b++) {
    int a0 = p->body_agg[b], dim = coarse_dim(p, b);
    if (dim > 0) cholesky_solve(p->ac + p->ac_off[b], dim, p->dead + 6 * (size_t)a0, p->rc + 6 * (size_t)a0);
  }
  /* block Jacobi plus the prolongation R_i c_a = t_a + w_a x (x_i - c_a), and r.z per block of `block` nodes */
  int nb = (n + block - 1) / block;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int blk = 0; blk < nb; blk++) {
    double rz = 0.0;
    for (int i = blk * block, end = i + block < n ? i + block : n; i < end; i++) {
      double t[3];
      const double *ri = r + 3 * i;
      mv3(p->dinv + 9 * (size_t)i, ri, t);
      int a = p->node_agg[i];
      if (a >= 0 && !p->pinned[i]) {
        const double *c = p->rc + 6 * (size_t)a, *e = p->rel + 3 * i;
        t[0] += c[0] + c[4] * e[2] - c[5] * e[1];
        t[1] += c[1] + c[5] * e[0] - c[3] * e[2];
        t[2] += c[2] + c[3] * e[1] - c[4] * e[0];
      }
      z[3 * i] = t[0], z[3 * i + 1] = t[1], z[3 * i + 2] = t[2];
      rz += ri[0] * t[0] + ri[1] * t[1] + ri[2] * t[2];
    }
    partial[blk] = rz;
  }
  return jl_sum_partials(nb, partial);
}
