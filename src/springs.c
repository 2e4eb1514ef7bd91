/* Spring force element: Hookean stretch plus damping along the spring axis.
 *
 * For spring s between nodes i and j with d = x_i - x_j, l = |d|, n = d / l,
 * rest length L, stiffness k and damping kd, the force on i is
 *   F_i = -k (l - L) n - kd (n . (v_i - v_j)) n,     F_j = -F_i,
 * with potential energy 1/2 k (l - L)^2 (seed 002, "Jacobian of Stretch
 * Force" and "Jacobian of Damping Force"). Its Jacobian blocks are
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
 * linearize() stores B_s = a K + b D per spring as 6 doubles (symmetric
 * 3x3, seed 000 sec. 4.1). multiply() computes (J u)_i = B_s (u_i - u_j),
 * (J u)_j = -B_s (u_i - u_j) in two passes that never write to shared memory
 * from two threads: pass 1 per spring y_s = B_s (u_i - u_j); pass 2 per node
 * gathers +-y_s over its incident springs (model->node_spring, split by sign
 * at creation so the loop has no branches; fixed order).
 * force() uses the same two passes. Results are independent of the thread
 * count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/force.h"
#include "src/linalg.h"

typedef struct Springs {
  int nspring;
  int nblock;
  double *blk;     /* nspring x 6: B_s = a K + b D as (xx, xy, xz, yy, yz, zz) */
  double *y;       /* nspring x 3: per-spring force on its first node, or B_s (u_i - u_j) */
  double *partial; /* nblock: energy partial sums */
  /* model->node_spring split by sign, so the gather needs no branches: node
   * i adds y_s for gather[gstart[i] .. gsplit[i]) (i is the spring's first
   * node) and subtracts it for gather[gsplit[i] .. gstart[i + 1]) */
  int *gstart;     /* nnode + 1 */
  int *gsplit;     /* nnode */
  int *gspring;    /* 2 x nspring spring ids */
} Springs;

/* out_i += sum of +y_s - sum of -y_s over incident springs (pass 2, one writer per node) */
static void gather(const Springs *sp, int n, const double *restrict y, double *restrict out) {
  const int *restrict start = sp->gstart, *restrict split = sp->gsplit, *restrict gs = sp->gspring;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4))
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

static void springs_force(const JlForce *e, const JlModel *m, const double *x,
                          const double *v, double *f, double *energy) {
  Springs *sp = e->self;
  const int *sn = m->spring_node;
  const double *rest = m->spring_rest, *ks = m->spring_k, *kd = m->spring_kd;
  int ns = sp->nspring, nb = sp->nblock;
  double *y = sp->y;

  /* pass 1: force on the first node of each spring, energy per block */
  JL_OMP(omp parallel for schedule(static) if (nb > 1))
  for (int blk = 0; blk < nb; blk++) {
    int lo = blk * JL_BLOCK, hi = lo + JL_BLOCK < ns ? lo + JL_BLOCK : ns;
    double en = 0.0;
    for (int s = lo; s < hi; s++) {
      int i = sn[2 * s], j = sn[2 * s + 1];
      double d0 = x[3 * i] - x[3 * j], d1 = x[3 * i + 1] - x[3 * j + 1], d2 = x[3 * i + 2] - x[3 * j + 2];
      double l = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
      double stretch = l - rest[s];
      en += 0.5 * ks[s] * stretch * stretch;
      if (!(l > 0.0)) {
        /* coincident ends: no direction, no force */
        y[3 * s] = y[3 * s + 1] = y[3 * s + 2] = 0.0;
        continue;
      }
      double inv = 1.0 / l;
      double n0 = d0 * inv, n1 = d1 * inv, n2 = d2 * inv;
      double vn = n0 * (v[3 * i] - v[3 * j]) + n1 * (v[3 * i + 1] - v[3 * j + 1]) +
                  n2 * (v[3 * i + 2] - v[3 * j + 2]);
      double c = -ks[s] * stretch - kd[s] * vn; /* F_i = c n */
      y[3 * s] = c * n0;
      y[3 * s + 1] = c * n1;
      y[3 * s + 2] = c * n2;
    }
    sp->partial[blk] = en;
  }

  /* pass 2: gather per node */
  gather(sp, m->nnode, y, f);
  if (energy) *energy += jl_sum_partials(nb, sp->partial);
}

static void springs_linearize(JlForce *e, const JlModel *m, const double *x,
                              const double *v, double a, double b, int flags, double *diag) {
  (void)v;
  Springs *sp = e->self;
  const int *sn = m->spring_node;
  const double *rest = m->spring_rest, *ks = m->spring_k, *kd = m->spring_kd;
  int ns = sp->nspring, exact = (flags & JL_LIN_EXACT) != 0;
  double *blk = sp->blk;

  /* B_s = a K + b D = alpha n n^T + beta I */
  JL_OMP(omp parallel for schedule(static) if (ns > JL_PAR_MIN))
  for (int s = 0; s < ns; s++) {
    int i = sn[2 * s], j = sn[2 * s + 1];
    double d0 = x[3 * i] - x[3 * j], d1 = x[3 * i + 1] - x[3 * j + 1], d2 = x[3 * i + 2] - x[3 * j + 2];
    double l = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
    double *B = blk + 6 * s;
    if (!(l > 0.0)) {
      memset(B, 0, 6 * sizeof(double));
      continue;
    }
    double inv = 1.0 / l;
    double n0 = d0 * inv, n1 = d1 * inv, n2 = d2 * inv;
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
  if (!diag) return;

  /* diagonal blocks: both ends of a spring get +B_s (gather, fixed order) */
  int n = m->nnode;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4))
  for (int i = 0; i < n; i++) {
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int p = sp->gstart[i]; p < sp->gstart[i + 1]; p++) {
      const double *B = blk + 6 * sp->gspring[p];
      for (int k = 0; k < 6; k++) acc[k] += B[k];
    }
    double *D = diag + 9 * i;
    D[0] += acc[0]; D[1] += acc[1]; D[2] += acc[2];
    D[3] += acc[1]; D[4] += acc[3]; D[5] += acc[4];
    D[6] += acc[2]; D[7] += acc[4]; D[8] += acc[5];
  }
}

static void springs_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  Springs *sp = e->self;
  const int *restrict sn = m->spring_node;
  const double *restrict blk = sp->blk;
  double *restrict y = sp->y;
  int ns = sp->nspring;

  /* pass 1: y_s = B_s (u_i - u_j) */
  JL_OMP(omp parallel for schedule(static) if (ns > JL_PAR_MIN))
  for (int s = 0; s < ns; s++) {
    int i = sn[2 * s], j = sn[2 * s + 1];
    const double *B = blk + 6 * s;
    double d0 = u[3 * i] - u[3 * j], d1 = u[3 * i + 1] - u[3 * j + 1], d2 = u[3 * i + 2] - u[3 * j + 2];
    y[3 * s] = B[0] * d0 + B[1] * d1 + B[2] * d2;
    y[3 * s + 1] = B[1] * d0 + B[3] * d1 + B[4] * d2;
    y[3 * s + 2] = B[2] * d0 + B[4] * d1 + B[5] * d2;
  }

  /* pass 2: (J u)_i = +y_s for the first node, -y_s for the second */
  gather(sp, m->nnode, y, out);
}

static void springs_destroy(JlForce *e) {
  if (!e) return;
  Springs *sp = e->self;
  if (sp) {
    free(sp->blk);
    free(sp->y);
    free(sp->partial);
    free(sp->gstart);
    free(sp->gsplit);
    free(sp->gspring);
    free(sp);
  }
  free(e);
}

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
  JlForce *e = jl_calloc(1, sizeof *e);
  e->name = "springs";
  e->self = sp;
  e->force = springs_force;
  e->linearize = springs_linearize;
  e->multiply = springs_multiply;
  e->destroy = springs_destroy;
  return e;
}
