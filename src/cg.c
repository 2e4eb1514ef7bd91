/* Jacobi-preconditioned conjugate gradients with the constraint filter.
 *
 * The algorithm is the preconditioned CG of Shewchuk 1994 ("An Introduction
 * to the Conjugate Gradient Method Without the Agonizing Pain", B2) as
 * modified by Baraff & Witkin 1998, sec. 5.3: every vector is filtered so
 * that pinned nodes keep dv = 0 and the iteration runs on the free subspace,
 * where S A S is symmetric positive definite. The preconditioner is the
 * inverse of A's diagonal (Kauppila sec. 4.2; Shewchuk 1994, sec. 12).
 *
 * Reductions are blocked over fixed node ranges (CG_BLOCK nodes), each block
 * summed in order, the partials added in block order: results are bitwise
 * identical for any thread count. Within a block, sums run over four
 * interleaved partials (fixed order, four independent add chains). The
 * vector updates of one iteration are fused into a single pass that also
 * produces r.z and r.r (SSE2 when available: the same operations in the same
 * order as the scalar code, hence the same bits); the constraint filter of
 * q is fused with p.q. Vector passes run on one thread below JL_PAR_MIN_LIGHT
 * nodes, where waking a second thread costs about as much as the pass. */
#include "src/cg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/common.h"
#include "src/linalg.h"

#if defined(__SSE2__) && !defined(JL_NO_SIMD)
#include <emmintrin.h>
#define CG_SSE2 1
#else
#define CG_SSE2 0
#endif

#define CG_BLOCK 512 /* nodes per reduction block */

/* Each block sums into 4 interleaved partials (value k goes to partial
 * (k - lo) mod 4; lo is a multiple of 4), added as (p0 + p1) + (p2 + p3) at
 * the end: a fixed order, but four independent addition chains instead of
 * one, so the loop is not bound by the latency of the adds. */
enum { LANES = 4 };

static inline double lanes_sum(const double *acc) { return (acc[0] + acc[1]) + (acc[2] + acc[3]); }

/* a[lo..hi) . b[lo..hi) with LANES partials */
static double block_dot(const double *restrict a, const double *restrict b, int lo, int hi) {
  double acc[LANES] = {0, 0, 0, 0};
  int k = lo;
  for (; k + LANES <= hi; k += LANES)
    for (int l = 0; l < LANES; l++) acc[l] += a[k + l] * b[k + l];
  for (int l = 0; k < hi; k++, l++) acc[l] += a[k] * b[k];
  return lanes_sum(acc);
}

void jl_cg_init(JlCg *cg, int nnode) {
  memset(cg, 0, sizeof *cg);
  size_t n3 = 3 * (size_t)(nnode > 0 ? nnode : 0);
  cg->nnode = nnode;
  cg->nblock = nnode > 0 ? (nnode + CG_BLOCK - 1) / CG_BLOCK : 0;
  cg->r = jl_calloc(n3, sizeof(double));
  cg->z = jl_calloc(n3, sizeof(double));
  cg->p = jl_calloc(n3, sizeof(double));
  cg->q = jl_calloc(n3, sizeof(double));
  cg->inv_diag = jl_calloc(n3, sizeof(double));
  cg->partial = jl_calloc(2 * (size_t)cg->nblock + 2, sizeof(double));
}

void jl_cg_free(JlCg *cg) {
  JL_FREE_ALL(cg->r, cg->z, cg->p, cg->q, cg->inv_diag, cg->partial);
  memset(cg, 0, sizeof *cg);
}

void jl_cg_set_diagonal(JlCg *cg, const double *diag9, const unsigned char *pinned) {
  int n = cg->nnode;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      double d = diag9[9 * i + 4 * k]; /* entry (k, k) of block i */
      double inv = (d > 0.0 && isfinite(d)) ? 1.0 / d : 1.0;
      cg->inv_diag[3 * i + k] = (pinned && pinned[i]) ? 0.0 : inv;
    }
  }
}

double jl_cg_dot(JlCg *cg, int n, const double *a, const double *b) {
  int nb = (n + 3 * CG_BLOCK - 1) / (3 * CG_BLOCK);
  JL_ASSERT(nb <= cg->nblock, "jl_cg_dot: vector longer than the CG workspace");
  double *part = cg->partial;
  JL_OMP(omp parallel for schedule(static) if (n > 3 * JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
  for (int blk = 0; blk < nb; blk++) {
    int lo = blk * 3 * CG_BLOCK, hi = lo + 3 * CG_BLOCK < n ? lo + 3 * CG_BLOCK : n;
    part[blk] = block_dot(a, b, lo, hi);
  }
  return jl_sum_partials(nb, part);
}

/* one value of the fused CG update: x += alpha p, r -= alpha q, z = P^-1 r,
 * and the r.z, r.r partials of its lane */
static inline void update(int k, double alpha, double *restrict x, const double *restrict p,
                          const double *restrict q, const double *restrict inv, double *restrict r,
                          double *restrict z, double *restrict rz, double *restrict rr) {
  x[k] += alpha * p[k];
  double rk = r[k] - alpha * q[k];
  double zk = inv[k] * rk;
  r[k] = rk;
  z[k] = zk;
  *rz += rk * zk;
  *rr += rk * rk;
}

/* r = S (b - q), z = P^-1 r; returns r.z in *rz, r.r in *rr and (S b).(S b) in *bb */
static void initial_residual(JlCg *cg, const unsigned char *pinned, const double *b,
                             double *rz, double *rr, double *bb) {
  int n = cg->nnode, nb = cg->nblock;
  double *part = cg->partial;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
  for (int blk = 0; blk < nb; blk++) {
    int lo = blk * CG_BLOCK, hi = lo + CG_BLOCK < n ? lo + CG_BLOCK : n;
    double s_rz = 0.0, s_rr = 0.0;
    for (int i = lo; i < hi; i++) {
      int fixed = pinned && pinned[i];
      for (int k = 3 * i; k < 3 * i + 3; k++) {
        double r = fixed ? 0.0 : b[k] - cg->q[k];
        double z = cg->inv_diag[k] * r;
        cg->r[k] = r;
        cg->z[k] = z;
        s_rz += r * z;
        s_rr += r * r;
      }
    }
    part[2 * blk] = s_rz;
    part[2 * blk + 1] = s_rr;
  }
  double a = 0.0, c = 0.0;
  for (int blk = 0; blk < nb; blk++) {
    a += part[2 * blk];
    c += part[2 * blk + 1];
  }
  *rz = a;
  *rr = c;
  /* ||S b||^2: a separate blocked pass (once per solve) */
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
  for (int blk = 0; blk < nb; blk++) {
    int lo = blk * CG_BLOCK, hi = lo + CG_BLOCK < n ? lo + CG_BLOCK : n;
    double s = 0.0;
    for (int i = lo; i < hi; i++) {
      if (pinned && pinned[i]) continue;
      for (int k = 3 * i; k < 3 * i + 3; k++) s += b[k] * b[k];
    }
    part[blk] = s;
  }
  *bb = jl_sum_partials(nb, part);
}

JlCgResult jl_cg_solve(JlCg *cg, JlCgMultiply mul, void *ctx,
                       const unsigned char *pinned, const double *b, double *x,
                       double tol, int max_iter) {
  JlCgResult res = {0, 0, 0.0};
  int n = cg->nnode, n3 = 3 * n, nb = cg->nblock;
  double *restrict r = cg->r, *restrict z = cg->z, *restrict p = cg->p, *restrict q = cg->q;
  double *part = cg->partial;
  if (n == 0) {
    res.converged = 1;
    return res;
  }

  /* warm start: filter x, then r = S (b - A x) */
  if (pinned)
    for (int i = 0; i < n; i++)
      if (pinned[i]) x[3 * i] = x[3 * i + 1] = x[3 * i + 2] = 0.0;
  mul(ctx, x, q);
  double rz, rr, bb;
  initial_residual(cg, pinned, b, &rz, &rr, &bb);
  if (!(bb > 0.0)) {
    /* S b = 0: the solution is x = 0 */
    memset(x, 0, (size_t)n3 * sizeof(double));
    res.converged = 1;
    return res;
  }
  double stop = tol * tol * bb;
  memcpy(p, z, (size_t)n3 * sizeof(double));

  while (rr > stop && res.iterations < max_iter) {
    /* q = S A p; alpha = r.z / p.q (the filter and the dot in one pass) */
    mul(ctx, p, q);
    JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
    for (int blk = 0; blk < nb; blk++) {
      int lo = blk * CG_BLOCK, hi = lo + CG_BLOCK < n ? lo + CG_BLOCK : n;
      if (pinned)
        for (int i = lo; i < hi; i++)
          if (pinned[i]) q[3 * i] = q[3 * i + 1] = q[3 * i + 2] = 0.0;
      part[blk] = block_dot(p, q, 3 * lo, 3 * hi);
    }
    double pq = jl_sum_partials(nb, part);
    res.iterations++;
    if (!(pq > 0.0)) break; /* not positive definite (or NaN): give up */
    double alpha = rz / pq;

    /* fused: x += alpha p, r -= alpha q, z = P^-1 r, partial r.z and r.r */
    JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
    for (int blk = 0; blk < nb; blk++) {
      int lo = 3 * blk * CG_BLOCK, hi = lo + 3 * CG_BLOCK < n3 ? lo + 3 * CG_BLOCK : n3;
      double a_rz[LANES] = {0, 0, 0, 0}, a_rr[LANES] = {0, 0, 0, 0};
      int k = lo;
#if CG_SSE2
      /* lanes (0, 1) and (2, 3) as pairs: the same operations as update() */
      __m128d va = _mm_set1_pd(alpha), rz01 = _mm_setzero_pd(), rz23 = _mm_setzero_pd();
      __m128d rr01 = _mm_setzero_pd(), rr23 = _mm_setzero_pd();
      for (; k + LANES <= hi; k += LANES) {
        for (int h = 0; h < LANES; h += 2) {
          __m128d pk = _mm_loadu_pd(p + k + h);
          _mm_storeu_pd(x + k + h, _mm_add_pd(_mm_loadu_pd(x + k + h), _mm_mul_pd(va, pk)));
          __m128d rk = _mm_sub_pd(_mm_loadu_pd(r + k + h), _mm_mul_pd(va, _mm_loadu_pd(q + k + h)));
          __m128d zk = _mm_mul_pd(_mm_loadu_pd(cg->inv_diag + k + h), rk);
          _mm_storeu_pd(r + k + h, rk);
          _mm_storeu_pd(z + k + h, zk);
          if (h == 0) {
            rz01 = _mm_add_pd(rz01, _mm_mul_pd(rk, zk));
            rr01 = _mm_add_pd(rr01, _mm_mul_pd(rk, rk));
          } else {
            rz23 = _mm_add_pd(rz23, _mm_mul_pd(rk, zk));
            rr23 = _mm_add_pd(rr23, _mm_mul_pd(rk, rk));
          }
        }
      }
      _mm_storeu_pd(a_rz, rz01);
      _mm_storeu_pd(a_rz + 2, rz23);
      _mm_storeu_pd(a_rr, rr01);
      _mm_storeu_pd(a_rr + 2, rr23);
#else
      for (; k + LANES <= hi; k += LANES)
        for (int l = 0; l < LANES; l++) update(k + l, alpha, x, p, q, cg->inv_diag, r, z, a_rz + l, a_rr + l);
#endif
      for (int l = 0; k < hi; k++, l++) update(k, alpha, x, p, q, cg->inv_diag, r, z, a_rz + l, a_rr + l);
      part[2 * blk] = lanes_sum(a_rz);
      part[2 * blk + 1] = lanes_sum(a_rr);
    }
    double rz_new = 0.0;
    rr = 0.0;
    for (int blk = 0; blk < nb; blk++) {
      rz_new += part[2 * blk];
      rr += part[2 * blk + 1];
    }
    if (rr <= stop) break;

    /* p = z + beta p */
    double beta = rz_new / rz;
    rz = rz_new;
    JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
    for (int k = 0; k < n3; k++) p[k] = z[k] + beta * p[k];
  }
  res.residual = sqrt(rr / bb);
  res.converged = rr <= stop;
  return res;
}
