/* Preconditioned conjugate gradients with the constraint filter.
 *
 * The algorithm is the preconditioned CG of Shewchuk 1994 ("An Introduction
 * to the Conjugate Gradient Method Without the Agonizing Pain", B2) as
 * modified by Baraff & Witkin 1998, sec. 5.3: every vector is filtered so
 * that pinned nodes keep dv = 0 and the iteration runs on the free subspace,
 * where S A S is symmetric positive definite. The preconditioner is the
 * inverse of A's diagonal (Kauppila sec. 4.2; Shewchuk 1994, sec. 12),
 * fused into the vector updates, or the object cg->prec (src/precond.h)
 * applied as its own pass (solve_prec). Either stops at the relative
 * residual or at the velocity bound (src/cg.h), whose r^T M^-1 r is summed
 * in the same passes.
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
#include "src/parallel.h"
#include "src/precond.h"

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
  cg->inv_mass = jl_calloc(n3, sizeof(double));
  cg->partial = jl_calloc(3 * (size_t)cg->nblock + 3, sizeof(double));
}

void jl_cg_free(JlCg *cg) {
  JL_FREE_ALL(cg->r, cg->z, cg->p, cg->q, cg->inv_diag, cg->inv_mass, cg->partial);
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

void jl_cg_set_velocity_stop(JlCg *cg, const double *mass, double vtol) {
  double mmin = INFINITY; /* finite once a node has a mass */
  for (int i = 0; i < cg->nnode; i++) {
    double inv = mass[i] > 0.0 && isfinite(mass[i]) ? 1.0 / mass[i] : 0.0;
    if (mass[i] > 0.0 && mass[i] < mmin) mmin = mass[i];
    cg->inv_mass[3 * i] = cg->inv_mass[3 * i + 1] = cg->inv_mass[3 * i + 2] = inv;
  }
  cg->vtol = vtol > 0.0 && isfinite(mmin) ? vtol : 0.0;
}

/* the velocity stop holds for max_i |r_i| / m_i = vm (and a finite r.r = rr) */
static inline int velocity_stop(const JlCg *cg, double vm, double rr) {
  return cg->vtol > 0.0 && vm <= cg->vtol && isfinite(rr);
}

/* the larger of a and b (a NaN is caught by velocity_stop's finite r.r;
 * fmax would be a call into libm in the hot loops) */
static inline double max2(double a, double b) { return a > b ? a : b; }

/* the larger of the four lanes */
static inline double lanes_max(const double *acc) { return max2(max2(acc[0], acc[1]), max2(acc[2], acc[3])); }

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
 * the r.z and r.r partials of its lane and the lane's max |r| / m */
static inline void update(int k, double alpha, double *restrict x, const double *restrict p, const double *restrict q,
                          const double *restrict inv, const double *restrict im, double *restrict r, double *restrict z,
                          double *restrict rz, double *restrict rr, double *restrict vm) {
  x[k] += alpha * p[k];
  double rk = r[k] - alpha * q[k];
  double zk = inv[k] * rk;
  r[k] = rk;
  z[k] = zk;
  *rz += rk * zk;
  *rr += rk * rk;
  *vm = max2(*vm, fabs(rk) * im[k]);
}

/* r = S (b - q), z = P^-1 r; returns r.z in *rz, r.r in *rr, max_i |r_i| / m_i
 * in *vm and (S b).(S b) in *bb */
static void initial_residual(JlCg *cg, const unsigned char *pinned, const double *b, double *rz, double *rr, double *vm,
                             double *bb) {
  int n = cg->nnode, nb = cg->nblock;
  double *part = cg->partial;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
  for (int blk = 0; blk < nb; blk++) {
    int lo = blk * CG_BLOCK, hi = lo + CG_BLOCK < n ? lo + CG_BLOCK : n;
    double s_rz = 0.0, s_rr = 0.0, s_rm = 0.0;
    for (int i = lo; i < hi; i++) {
      int fixed = pinned && pinned[i];
      for (int k = 3 * i; k < 3 * i + 3; k++) {
        double r = fixed ? 0.0 : b[k] - cg->q[k];
        double z = cg->inv_diag[k] * r;
        cg->r[k] = r;
        cg->z[k] = z;
        s_rz += r * z;
        s_rr += r * r;
        s_rm = max2(s_rm, fabs(r) * cg->inv_mass[k]);
      }
    }
    part[3 * blk] = s_rz;
    part[3 * blk + 1] = s_rr;
    part[3 * blk + 2] = s_rm;
  }
  double a = 0.0, c = 0.0, e = 0.0;
  for (int blk = 0; blk < nb; blk++) {
    a += part[3 * blk];
    c += part[3 * blk + 1];
    e = max2(e, part[3 * blk + 2]);
  }
  *rz = a;
  *rr = c;
  *vm = e;
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

/* The start of a solve, shared by both paths: filter the warm start x,
 * r = S (b - A x), z = P^-1 r (Jacobi), the stop threshold; returns 1 when
 * x already satisfies a stopping rule (x = 0 when S b = 0) */
static int solve_start(JlCg *cg, JlCgMultiply mul, void *ctx, const unsigned char *pinned, const double *b, double *x,
                       double tol, double *rz, double *rr, double *vm, double *bb, double *stop) {
  int n = cg->nnode;
  if (pinned)
    for (int i = 0; i < n; i++)
      if (pinned[i]) x[3 * i] = x[3 * i + 1] = x[3 * i + 2] = 0.0;
  mul(ctx, x, cg->q);
  initial_residual(cg, pinned, b, rz, rr, vm, bb);
  *stop = tol * tol * *bb;
  if (!(*bb > 0.0)) {
    /* S b = 0: the solution is x = 0 */
    memset(x, 0, 3 * (size_t)n * sizeof(double));
    return 1;
  }
  return *rr <= *stop || velocity_stop(cg, *vm, *rr);
}

/* q = S A p and p.q (the filter and the dot in one pass) */
static double product(JlCg *cg, JlCgMultiply mul, void *ctx, const unsigned char *pinned) {
  int n = cg->nnode, nb = cg->nblock;
  double *restrict p = cg->p, *restrict q = cg->q, *part = cg->partial;
  mul(ctx, p, q);
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
  for (int blk = 0; blk < nb; blk++) {
    int lo = blk * CG_BLOCK, hi = lo + CG_BLOCK < n ? lo + CG_BLOCK : n;
    if (pinned)
      for (int i = lo; i < hi; i++)
        if (pinned[i]) q[3 * i] = q[3 * i + 1] = q[3 * i + 2] = 0.0;
    part[blk] = block_dot(p, q, 3 * lo, 3 * hi);
  }
  return jl_sum_partials(nb, part);
}

/* p = z + beta p with beta = rz_new / rz; returns rz_new */
static double next_direction(JlCg *cg, double rz_new, double rz) {
  int n = cg->nnode, n3 = 3 * n;
  double *restrict p = cg->p, *restrict z = cg->z, beta = rz_new / rz;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
  for (int k = 0; k < n3; k++) p[k] = z[k] + beta * p[k];
  return rz_new;
}

/* z = P^-1 r (0 at pinned nodes), returns r.z */
static double precondition(JlCg *cg) {
  return jl_precond_apply(cg->prec, cg->r, cg->z, cg->threads, CG_BLOCK, cg->partial);
}

/* PCG with the preconditioner object (cg->prec): the same iteration as the
 * Jacobi path below, with z = P^-1 r applied as its own pass */
static JlCgResult solve_prec(JlCg *cg, JlCgMultiply mul, void *ctx, const unsigned char *pinned, const double *b,
                             double *x, double tol, int max_iter) {
  JlCgResult res = {0, 0, 0.0};
  int n = cg->nnode, n3 = 3 * n, nb = cg->nblock;
  double *restrict r = cg->r, *restrict p = cg->p, *restrict q = cg->q, *restrict z = cg->z;
  double *part = cg->partial;
  double rz, rr, vm, bb, stop;
  int done = solve_start(cg, mul, ctx, pinned, b, x, tol, &rz, &rr, &vm, &bb, &stop);
  if (!(bb > 0.0)) {
    res.converged = 1;
    return res;
  }
  rz = done ? 0.0 : precondition(cg);
  if (!done) memcpy(p, z, (size_t)n3 * sizeof(double));
  while (!done && res.iterations < max_iter) {
    double pq = product(cg, mul, ctx, pinned);
    res.iterations++;
    if (!(pq > 0.0) || !(rz > 0.0)) break; /* not positive definite (or NaN): give up */
    double alpha = rz / pq;
    JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
    for (int blk = 0; blk < nb; blk++) {
      int lo = 3 * blk * CG_BLOCK, hi = lo + 3 * CG_BLOCK < n3 ? lo + 3 * CG_BLOCK : n3;
      double a_rr[LANES] = {0, 0, 0, 0}, a_rm[LANES] = {0, 0, 0, 0};
      const double *restrict im = cg->inv_mass;
      int k = lo;
      for (; k + LANES <= hi; k += LANES)
        for (int l = 0; l < LANES; l++) {
          x[k + l] += alpha * p[k + l];
          double rk = r[k + l] - alpha * q[k + l];
          r[k + l] = rk;
          a_rr[l] += rk * rk;
          a_rm[l] = max2(a_rm[l], fabs(rk) * im[k + l]);
        }
      for (int l = 0; k < hi; k++, l++) {
        x[k] += alpha * p[k];
        double rk = r[k] - alpha * q[k];
        r[k] = rk;
        a_rr[l] += rk * rk;
        a_rm[l] = max2(a_rm[l], fabs(rk) * im[k]);
      }
      part[2 * blk] = lanes_sum(a_rr);
      part[2 * blk + 1] = lanes_max(a_rm);
    }
    rr = 0.0, vm = 0.0;
    for (int blk = 0; blk < nb; blk++) {
      rr += part[2 * blk];
      vm = max2(vm, part[2 * blk + 1]);
    }
    if (rr <= stop || velocity_stop(cg, vm, rr)) {
      done = 1;
      break;
    }
    rz = next_direction(cg, precondition(cg), rz);
  }
  res.residual = sqrt(rr / bb);
  res.converged = done;
  return res;
}

JlCgResult jl_cg_solve(JlCg *cg, JlCgMultiply mul, void *ctx, const unsigned char *pinned, const double *b, double *x,
                       double tol, int max_iter) {
  if (cg->prec && cg->nnode > 0) return solve_prec(cg, mul, ctx, pinned, b, x, tol, max_iter);
  JlCgResult res = {0, 0, 0.0};
  int n = cg->nnode, n3 = 3 * n, nb = cg->nblock;
  double *restrict r = cg->r, *restrict z = cg->z, *restrict p = cg->p, *restrict q = cg->q;
  double *part = cg->partial;
  if (n == 0) {
    res.converged = 1;
    return res;
  }

  /* warm start: filter x, then r = S (b - A x) */
  double rz, rr, vm, bb, stop;
  int done = solve_start(cg, mul, ctx, pinned, b, x, tol, &rz, &rr, &vm, &bb, &stop);
  if (!(bb > 0.0)) {
    res.converged = 1;
    return res;
  }
  if (!done) memcpy(p, z, (size_t)n3 * sizeof(double));

  while (!done && res.iterations < max_iter) {
    /* q = S A p; alpha = r.z / p.q */
    double pq = product(cg, mul, ctx, pinned);
    res.iterations++;
    if (!(pq > 0.0)) break; /* not positive definite (or NaN): give up */
    double alpha = rz / pq;

    /* fused: x += alpha p, r -= alpha q, z = P^-1 r, partial r.z, r.r and r.M^-1 r */
    JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(cg->threads)))
    for (int blk = 0; blk < nb; blk++) {
      int lo = 3 * blk * CG_BLOCK, hi = lo + 3 * CG_BLOCK < n3 ? lo + 3 * CG_BLOCK : n3;
      double a_rz[LANES] = {0, 0, 0, 0}, a_rr[LANES] = {0, 0, 0, 0}, a_rm[LANES] = {0, 0, 0, 0};
      const double *restrict im = cg->inv_mass;
      int k = lo;
#if CG_SSE2
      /* lanes (0, 1) and (2, 3) as pairs: the same operations as update() */
      __m128d va = _mm_set1_pd(alpha), rz01 = _mm_setzero_pd(), rz23 = _mm_setzero_pd();
      __m128d rr01 = _mm_setzero_pd(), rr23 = _mm_setzero_pd(), rm01 = _mm_setzero_pd(), rm23 = _mm_setzero_pd();
      const __m128d sign = _mm_set1_pd(-0.0);
      for (; k + LANES <= hi; k += LANES) {
        for (int h = 0; h < LANES; h += 2) {
          __m128d pk = _mm_loadu_pd(p + k + h);
          _mm_storeu_pd(x + k + h, _mm_add_pd(_mm_loadu_pd(x + k + h), _mm_mul_pd(va, pk)));
          __m128d rk = _mm_sub_pd(_mm_loadu_pd(r + k + h), _mm_mul_pd(va, _mm_loadu_pd(q + k + h)));
          __m128d zk = _mm_mul_pd(_mm_loadu_pd(cg->inv_diag + k + h), rk);
          _mm_storeu_pd(r + k + h, rk);
          _mm_storeu_pd(z + k + h, zk);
          __m128d mk = _mm_mul_pd(_mm_andnot_pd(sign, rk), _mm_loadu_pd(im + k + h)); /* |r| / m */
          if (h == 0) {
            rz01 = _mm_add_pd(rz01, _mm_mul_pd(rk, zk));
            rr01 = _mm_add_pd(rr01, _mm_mul_pd(rk, rk));
            rm01 = _mm_max_pd(rm01, mk);
          } else {
            rz23 = _mm_add_pd(rz23, _mm_mul_pd(rk, zk));
            rr23 = _mm_add_pd(rr23, _mm_mul_pd(rk, rk));
            rm23 = _mm_max_pd(rm23, mk);
          }
        }
      }
      _mm_storeu_pd(a_rz, rz01);
      _mm_storeu_pd(a_rz + 2, rz23);
      _mm_storeu_pd(a_rr, rr01);
      _mm_storeu_pd(a_rr + 2, rr23);
      _mm_storeu_pd(a_rm, rm01);
      _mm_storeu_pd(a_rm + 2, rm23);
#else
      for (; k + LANES <= hi; k += LANES)
        for (int l = 0; l < LANES; l++)
          update(k + l, alpha, x, p, q, cg->inv_diag, im, r, z, a_rz + l, a_rr + l, a_rm + l);
#endif
      for (int l = 0; k < hi; k++, l++) update(k, alpha, x, p, q, cg->inv_diag, im, r, z, a_rz + l, a_rr + l, a_rm + l);
      part[3 * blk] = lanes_sum(a_rz);
      part[3 * blk + 1] = lanes_sum(a_rr);
      part[3 * blk + 2] = lanes_max(a_rm);
    }
    double rz_new = 0.0;
    rr = 0.0, vm = 0.0;
    for (int blk = 0; blk < nb; blk++) {
      rz_new += part[3 * blk];
      rr += part[3 * blk + 1];
      vm = max2(vm, part[3 * blk + 2]);
    }
    if (rr <= stop || velocity_stop(cg, vm, rr)) {
      done = 1;
      break;
    }

    rz = next_direction(cg, rz_new, rz);
  }
  res.residual = sqrt(rr / bb);
  res.converged = done;
  return res;
}
