/* Spring force element: Hookean stretch plus damping along the spring axis.
 *
 * For spring s between nodes i and j with d = x_i - x_j, l = |d|, n = d / l,
 * rest length L, stiffness k and damping kd, the force on i is
 *   F_i = -k (l - L) n - kd (n . (v_i - v_j)) n,     F_j = -F_i,
 * with potential energy 1/2 k (l - L)^2 (Macklin 2012, "Jacobian of Stretch
 * Force" and "Jacobian of Damping Force"; docs/references.md). Its Jacobian blocks are
 *   dF_i/dx_i = K = -k [ n n^T + (1 - L/l) (I - n n^T) ],
 *   dF_i/dv_i = D = -kd n n^T,
 * and dF_i/dx_j = dF_j/dx_i = -K, dF_j/dx_j = K (the same for D). The
 * dependence of the damping force on x (through n) is left out, as in
 * Baraff & Witkin 1998: it is zero when the spring's ends move together and
 * would make the blocks unsymmetric.
 *
 * For a compressed spring (l < L) the factor (1 - L/l) is negative and K is
 * indefinite; unless JL_LIN_EXACT is set it is clamped at 0 in the Jacobian
 * (not the force), which keeps M - h dF/dv - h^2 dF/dx positive definite
 * (Choi & Ko 2002 discuss the instability this avoids).
 *
 * linearize() computes B_s = a K + b D per spring as 6 doubles (symmetric
 * 3x3, Kauppila sec. 4.1), then copies each block into the rows of both of
 * its nodes (model->node_spring order) and sums the rows into the diagonal
 * blocks. multiply() is then one pass over the nodes,
 *   (J u)_i = sum over the springs s at i of B_s (u_i - u_other(s)),
 * streaming the row blocks with no per-spring intermediate and no write to
 * another node's entry: every spring's product is evaluated twice (once per
 * end), which costs less than storing and gathering it (measured). Each node
 * sums its row in a fixed order, so results are bitwise independent of the
 * thread count. force() uses a per-spring pass and a gather (split by sign
 * at creation so the loop has no branches). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/force.h"
#include "mesh/vec3.h"
#include "src/parallel.h"

#if defined(__SSE2__) && !defined(JL_NO_SIMD)
#include <emmintrin.h>
#define SPRINGS_SSE2 1
#else
#define SPRINGS_SSE2 0
#endif

typedef struct Springs {
  int nspring;
  int nblock;
  double *blk;     /* nspring x 6: B_s = a K + b D as (xx, xy, xz, yy, yz, zz) */
  double *y;       /* nspring x 3: per-spring force on its first node (force) */
  double *partial; /* nblock: energy partial sums */
  /* model->node_spring split by sign, so the gather needs no branches: node
   * i adds y_s for gather[gstart[i] .. gsplit[i]) (i is the spring's first
   * node) and subtracts it for gather[gsplit[i] .. gstart[i + 1]) */
  int *gstart;  /* nnode + 1 */
  int *gsplit;  /* nnode */
  int *gspring; /* 2 x nspring spring ids */
  /* the rows of J in model->node_spring order: entry p of node i (p in
   * node_spring_start[i] .. [i + 1]) is spring s = |node_spring[p]| - 1 with
   * the other end row_other[p] and a copy of B_s in row_blk (each block is
   * stored twice, once per end, so multiply reads it sequentially) */
  int *row_other;  /* 2 x nspring node ids */
  double *row_blk; /* 2 x nspring x 6: (xx, xy, yy, xz, yz, zz) */
} Springs;

/* out_i += sum of +y_s - sum of -y_s over incident springs (pass 2, one writer per node) */
static void gather(const Springs *sp, int threads, int n, const double *restrict y, double *restrict out) {
  const int *restrict start = sp->gstart, *restrict split = sp->gsplit, *restrict gs = sp->gspring;
  (void)threads; /* read only by the OpenMP clause: unused in a build without OpenMP */
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4) num_threads(jl_omp_threads(threads)))
  for (int i = 0; i < n; i++) {
    double sx = 0.0, sy = 0.0, sz = 0.0;
    for (int p = start[i]; p < split[i]; p++) {
      const double *ys = y + 3 * gs[p];
      sx += ys[0];
      sy += ys[1];
      sz += ys[2];
    }
    for (int p = split[i]; p < start[i + 1]; p++) {
      const double *ys = y + 3 * gs[p];
      sx -= ys[0];
      sy -= ys[1];
      sz -= ys[2];
    }
    out[3 * i] += sx;
    out[3 * i + 1] += sy;
    out[3 * i + 2] += sz;
  }
}

/* the axis of spring (i, j) at x: returns l = |x_i - x_j| and, when l > 0,
 * n = (x_i - x_j) / l (coincident ends have no direction: callers give no
 * force and no block then) */
static inline double spring_axis(const double *x, int i, int j, double n[3]) {
  double d0 = x[3 * i] - x[3 * j], d1 = x[3 * i + 1] - x[3 * j + 1], d2 = x[3 * i + 2] - x[3 * j + 2];
  double l = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
  if (l > 0.0) {
    double inv = 1.0 / l;
    n[0] = d0 * inv, n[1] = d1 * inv, n[2] = d2 * inv;
  }
  return l;
}

static void springs_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                          double *energy) {
  Springs *sp = e->self;
  const int *sn = m->spring_node;
  const double *rest = m->spring_rest, *ks = m->spring_k, *kd = m->spring_kd;
  int ns = sp->nspring, nb = sp->nblock;
  double *y = sp->y;

  /* pass 1: force on the first node of each spring, energy per block */
  JL_OMP(omp parallel for schedule(static) if (ns > JL_PAR_MIN) num_threads(jl_omp_threads(e->threads)))
  for (int blk = 0; blk < nb; blk++) {
    double en = 0.0;
    for (int s = blk * JL_BLOCK, end = jl_block_end(blk, ns); s < end; s++) {
      int i = sn[2 * s], j = sn[2 * s + 1];
      double nv[3], l = spring_axis(x, i, j, nv);
      double stretch = l - rest[s];
      en += 0.5 * ks[s] * stretch * stretch;
      if (!(l > 0.0)) {
        /* coincident ends: no direction, no force */
        y[3 * s] = y[3 * s + 1] = y[3 * s + 2] = 0.0;
        continue;
      }
      double n0 = nv[0], n1 = nv[1], n2 = nv[2];
      double vn = n0 * (v[3 * i] - v[3 * j]) + n1 * (v[3 * i + 1] - v[3 * j + 1]) + n2 * (v[3 * i + 2] - v[3 * j + 2]);
      double c = -ks[s] * stretch - kd[s] * vn; /* F_i = c n */
      y[3 * s] = c * n0;
      y[3 * s + 1] = c * n1;
      y[3 * s + 2] = c * n2;
    }
    sp->partial[blk] = en;
  }

  /* pass 2: gather per node */
  gather(sp, e->threads, m->nnode, y, f);
  if (energy) *energy += jl_sum_partials(nb, sp->partial);
}

/* out += a F + b K v (the implicit right-hand side term, JlForceOps.step_rhs):
 * per spring y_s = a c n + b K (v_i - v_j) with c n the force on its first
 * node and K (clamped as in linearize) = -k [c' I + (1 - c') n n^T],
 * c' = max(0, 1 - L/l); then the same gather as force(). One pass instead of
 * force, linearize and multiply (the blocks are not needed for it). */
static void springs_step_rhs(const JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                             double *out) {
  Springs *sp = e->self;
  const int *sn = m->spring_node;
  const double *rest = m->spring_rest, *ks = m->spring_k, *kd = m->spring_kd;
  int ns = sp->nspring;
  double *y = sp->y;
  JL_OMP(omp parallel for schedule(static) if (ns > JL_PAR_MIN) num_threads(jl_omp_threads(e->threads)))
  for (int s = 0; s < ns; s++) {
    int i = sn[2 * s], j = sn[2 * s + 1];
    double nv[3], l = spring_axis(x, i, j, nv);
    if (!(l > 0.0)) { /* coincident ends: no direction, no force, no block (as in force and linearize) */
      y[3 * s] = y[3 * s + 1] = y[3 * s + 2] = 0.0;
      continue;
    }
    double inv = 1.0 / l, n0 = nv[0], n1 = nv[1], n2 = nv[2];
    double u0 = v[3 * i] - v[3 * j], u1 = v[3 * i + 1] - v[3 * j + 1], u2 = v[3 * i + 2] - v[3 * j + 2];
    double vn = n0 * u0 + n1 * u1 + n2 * u2;
    double f = -ks[s] * (l - rest[s]) - kd[s] * vn; /* F_i = f n */
    double c = 1.0 - rest[s] * inv;
    if (c < 0.0) c = 0.0;
    /* a F_i + b K u = (a f - b k (1 - c) vn) n - b k c u */
    double along = a * f - b * ks[s] * (1.0 - c) * vn, across = -b * ks[s] * c;
    y[3 * s] = along * n0 + across * u0;
    y[3 * s + 1] = along * n1 + across * u1;
    y[3 * s + 2] = along * n2 + across * u2;
  }
  gather(sp, e->threads, m->nnode, y, out);
}

static void springs_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                              int flags, double *diag) {
  (void)v;
  Springs *sp = e->self;
  const int *sn = m->spring_node;
  const double *rest = m->spring_rest, *ks = m->spring_k, *kd = m->spring_kd;
  int ns = sp->nspring, exact = (flags & JL_LIN_EXACT) != 0;
  double *blk = sp->blk;

  /* pass 1, per spring: B_s = a K + b D = alpha n n^T + beta I */
  JL_OMP(omp parallel for schedule(static) if (ns > JL_PAR_MIN) num_threads(jl_omp_threads(e->threads)))
  for (int s = 0; s < ns; s++) {
    int i = sn[2 * s], j = sn[2 * s + 1];
    double nv[3], l = spring_axis(x, i, j, nv);
    double *B = blk + 6 * s;
    if (!(l > 0.0)) {
      memset(B, 0, 6 * sizeof(double));
      continue;
    }
    double inv = 1.0 / l, n0 = nv[0], n1 = nv[1], n2 = nv[2];
    double c = 1.0 - rest[s] * inv; /* (1 - L/l), < 0 when compressed */
    if (!exact && c < 0.0) c = 0.0;
    /* K = -k [c I + (1 - c) n n^T], D = -kd n n^T */
    double alpha = -a * ks[s] * (1.0 - c) - b * kd[s];
    double beta = -a * ks[s] * c;
    B[0] = alpha * n0 * n0 + beta;
    B[1] = alpha * n0 * n1;
    B[2] = alpha * n0 * n2;
    B[3] = alpha * n1 * n1 + beta;
    B[4] = alpha * n1 * n2;
    B[5] = alpha * n2 * n2 + beta;
  }

  /* pass 2, per node: copy the blocks into the node's row (CSR order, so
   * multiply streams them) and sum the diagonal block D_i = sum_s B_s */
  int n = m->nnode;
  const int *restrict start = m->node_spring_start, *restrict ns_id = m->node_spring;
  double *restrict rblk = sp->row_blk;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4) num_threads(jl_omp_threads(e->threads)))
  for (int i = 0; i < n; i++) {
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int p = start[i]; p < start[i + 1]; p++) {
      int q = ns_id[p];
      const double *B = blk + 6 * (q > 0 ? q - 1 : -q - 1);
      double *R = rblk + 6 * (size_t)p;
      /* row layout (xx, xy, yy, xz, yz, zz): pairs (xx, xy), (xy, yy) and
       * (xz, yz) are adjacent for the SSE2 multiply */
      R[0] = B[0], R[1] = B[1], R[2] = B[3], R[3] = B[2], R[4] = B[4], R[5] = B[5];
      for (int k = 0; k < 6; k++) acc[k] += B[k];
    }
    if (!diag) continue;
    jl_mat3_add_sym6(diag + 9 * i, acc);
  }
}

/* (J u)_i = sum over the springs s at i of B_s (u_i - u_other(s)): one pass
 * over the rows, each node summing its own springs in a fixed order. Per
 * entry, with d = u_i - u_other and B = row_blk (b0 b1 b3 b2 b4 b5):
 *   x += (b0 d0 + b1 d1) + b2 d2,   y += (b1 d0 + b3 d1) + b4 d2,
 *   and z = (sum b2 d0 + sum b4 d1) + sum b5 d2 over the entries.
 * The SSE2 path computes x and y as one pair and the z sums as a pair plus a
 * scalar; it performs the same IEEE operations in the same order as the
 * scalar path, so both give the same bits. */
static void springs_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  const Springs *sp = e->self;
  const int *restrict start = m->node_spring_start, *restrict other = sp->row_other;
  const double *restrict rblk = sp->row_blk;
  const double *restrict uu = u;
  double *restrict o = out;
  int n = m->nnode;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4) num_threads(jl_omp_threads(e->threads)))
  for (int i = 0; i < n; i++) {
#if SPRINGS_SSE2
    __m128d uixy = _mm_loadu_pd(uu + 3 * i), uiz = _mm_load_sd(uu + 3 * i + 2);
    __m128d sxy = _mm_setzero_pd(), szxy = _mm_setzero_pd(), szz = _mm_setzero_pd();
    for (int p = start[i]; p < start[i + 1]; p++) {
      const double *B = rblk + 6 * (size_t)p, *uj = uu + 3 * other[p];
      __m128d dxy = _mm_sub_pd(uixy, _mm_loadu_pd(uj));
      __m128d dz = _mm_sub_sd(uiz, _mm_load_sd(uj + 2));
      __m128d c2 = _mm_loadu_pd(B + 3);
      __m128d t = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(B), _mm_unpacklo_pd(dxy, dxy)),
                             _mm_mul_pd(_mm_loadu_pd(B + 1), _mm_unpackhi_pd(dxy, dxy)));
      t = _mm_add_pd(t, _mm_mul_pd(c2, _mm_unpacklo_pd(dz, dz)));
      sxy = _mm_add_pd(sxy, t);
      szxy = _mm_add_pd(szxy, _mm_mul_pd(c2, dxy));
      szz = _mm_add_sd(szz, _mm_mul_sd(_mm_load_sd(B + 5), dz));
    }
    double r[2], zp[2];
    _mm_storeu_pd(r, sxy);
    _mm_storeu_pd(zp, szxy);
    double s0 = r[0], s1 = r[1], s2 = (zp[0] + zp[1]) + _mm_cvtsd_f64(szz);
#else
    double u0 = uu[3 * i], u1 = uu[3 * i + 1], u2 = uu[3 * i + 2];
    double s0 = 0.0, s1 = 0.0, zx = 0.0, zy = 0.0, zz = 0.0;
    for (int p = start[i]; p < start[i + 1]; p++) {
      const double *B = rblk + 6 * (size_t)p, *uj = uu + 3 * other[p];
      double d0 = u0 - uj[0], d1 = u1 - uj[1], d2 = u2 - uj[2];
      s0 += (B[0] * d0 + B[1] * d1) + B[3] * d2;
      s1 += (B[1] * d0 + B[2] * d1) + B[4] * d2;
      zx += B[3] * d0;
      zy += B[4] * d1;
      zz += B[5] * d2;
    }
    double s2 = (zx + zy) + zz;
#endif
    o[3 * i] += s0;
    o[3 * i + 1] += s1;
    o[3 * i + 2] += s2;
  }
}

/* each spring is a pair term B_s (blk layout xx xy xz yy yz zz) */
static void springs_offdiag(const JlForce *e, const JlModel *m, const JlOffdiagSink *sink) {
  const Springs *sp = e->self;
  sink->pairs(sink->ctx, sp->nspring, m->spring_node, sp->blk, e->threads);
}

static void springs_free(void *self) {
  Springs *sp = self;
  if (sp) JL_FREE_ALL(sp->blk, sp->y, sp->partial, sp->gstart, sp->gsplit, sp->gspring, sp->row_other, sp->row_blk);
  free(sp);
}

/* clang-format off */
static const JlForceOps springs_ops = {.name = "springs", .kind = JL_FORCE_SPRINGS, .force = springs_force,
    .linearize = springs_linearize, .multiply = springs_multiply, .free_self = springs_free,
    .offdiag = springs_offdiag, .step_rhs = springs_step_rhs};
/* clang-format on */

JlForce *jl_springs_create(const JlModel *m) {
  Springs *sp = jl_calloc(1, sizeof *sp);
  sp->nspring = m->nspring;
  sp->nblock = jl_nblock(m->nspring);
  sp->blk = jl_calloc(6 * (size_t)m->nspring, sizeof(double));
  sp->y = jl_calloc(3 * (size_t)m->nspring, sizeof(double));
  sp->partial = jl_calloc((size_t)sp->nblock + 1, sizeof(double));
  /* the split gather index, from model->node_spring (order kept within each sign) */
  int n = m->nnode;
  sp->gstart = jl_calloc((size_t)n + 1, sizeof(int));
  sp->gsplit = jl_calloc((size_t)n + 1, sizeof(int));
  sp->gspring = jl_calloc(2 * (size_t)m->nspring + 1, sizeof(int));
  int q = 0;
  for (int i = 0; i < n; i++) {
    sp->gstart[i] = q;
    for (int p = m->node_spring_start[i]; p < m->node_spring_start[i + 1]; p++)
      if (m->node_spring[p] > 0) sp->gspring[q++] = m->node_spring[p] - 1;
    sp->gsplit[i] = q;
    for (int p = m->node_spring_start[i]; p < m->node_spring_start[i + 1]; p++)
      if (m->node_spring[p] < 0) sp->gspring[q++] = -m->node_spring[p] - 1;
  }
  sp->gstart[n] = q;
  sp->row_other = jl_calloc(2 * (size_t)m->nspring + 1, sizeof(int));
  sp->row_blk = jl_calloc(12 * (size_t)m->nspring + 1, sizeof(double));
  for (int p = 0; p < m->node_spring_start[n]; p++) {
    int id = m->node_spring[p], s = id > 0 ? id - 1 : -id - 1;
    sp->row_other[p] = m->spring_node[2 * s + (id > 0 ? 1 : 0)];
  }
  return jl_force_new(&springs_ops, sp);
}
