/* Implicit (backward) Euler step, linearized, after Baraff & Witkin 1998.
 *
 * With f0 = F(x0, v0), the step solves (eq. 18 multiplied by M, sec. 4.1 of
 * seed 000)
 *     (M - h dF/dv - h^2 dF/dx) dv = h (f0 + h dF/dx v0)
 * and then sets v = v0 + dv, x = x0 + h v. The matrix is never assembled:
 * each force element caches its blocks (linearize) and multiplies by them
 * (multiply). Elements are linearized with a = -h^2, b = -h, so their cached
 * blocks are those of B = -h dF/dv - h^2 dF/dx and A u = M u + B u (seed 000,
 * sec. 4.1), and the diagonal of A for the Jacobi preconditioner is M plus
 * the elements' diagonal blocks. The right-hand side needs dF/dx alone: the
 * elements are first linearized with a = h^2, b = 0 and multiplied by v0.
 *
 * The system is solved by Jacobi-preconditioned CG (src/cg.c) with the
 * constraint filter for pinned nodes (dv = 0 there, Baraff & Witkin sec.
 * 5.3), warm-started from the previous step's dv. Compressed springs use the
 * clamped, definite Jacobian (src/springs.c), so A is SPD.
 *
 * Contacts are piecewise linear: on while their gap is positive. Their set is
 * held fixed for a solve (JlForce.refine); after the solve the end-of-step
 * state decides which contacts should have been on (a speculative contact
 * whose gap closed during the step, a contact that would pull), and the step
 * is solved again with the corrected set, at most JL_ACTIVE_SET_PASSES times
 * (a primal active-set iteration; docs/collision.md). Without it a contact
 * caught only at the next step's start is already deep, and its penalty
 * energy 1/2 k d^2 comes from nowhere. */
#include <string.h>

#include "src/linalg.h"

/* out = A u = M u + sum over elements of B u */
static void apply_matrix(void *ctx, const double *u, double *out) {
  const JlWorld *w = ctx;
  const JlModel *m = &w->model;
  int n = m->nnode;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT))
  for (int i = 0; i < n; i++) {
    double mi = m->mass[i];
    out[3 * i] = mi * u[3 * i];
    out[3 * i + 1] = mi * u[3 * i + 1];
    out[3 * i + 2] = mi * u[3 * i + 2];
  }
  for (int e = 0; e < w->nforce; e++) w->force[e]->multiply(w->force[e], m, u, out);
}

/* at most this many linear solves per step while contacts switch on or off */
#define JL_ACTIVE_SET_PASSES 4

int jl_step_implicit(JlWorld *w, double h, int *cg_failed) {
  const JlModel *m = &w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int n = m->nnode, n3 = 3 * n, iterations = 0;
  *cg_failed = 0;

  /* elements with an on/off set (contacts) hold it fixed for each solve */
  int refinable = 0;
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->refine) refinable += w->force[e]->refine(w->force[e], m, NULL, NULL) >= 0;

  for (int pass = 0;; pass++) {
    /* rhs = h f0 + h^2 dF/dx v0 */
    jl_world_forces(w, s->x, s->v, k->f, NULL);
    for (int i = 0; i < n3; i++) k->rhs[i] = h * k->f[i];
    for (int e = 0; e < w->nforce; e++) {
      w->force[e]->linearize(w->force[e], m, s->x, s->v, h * h, 0.0, 0, NULL);
      w->force[e]->multiply(w->force[e], m, s->v, k->rhs);
    }

    /* A = M - h dF/dv - h^2 dF/dx: cache the blocks, collect the diagonal */
    memset(k->diag, 0, 9 * (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) k->diag[9 * i] = k->diag[9 * i + 4] = k->diag[9 * i + 8] = m->mass[i];
    for (int e = 0; e < w->nforce; e++)
      w->force[e]->linearize(w->force[e], m, s->x, s->v, -h * h, -h, 0, k->diag);
    jl_cg_set_diagonal(&k->cg, k->diag, m->pinned);

    /* solve for dv, warm-started from the previous dv (or the previous pass) */
    JlCgResult res = jl_cg_solve(&k->cg, apply_matrix, w, m->pinned, k->rhs, s->dv,
                                 w->def.tolerance, w->def.max_iterations);
    iterations += res.iterations;
    *cg_failed = !res.converged;
    if (!refinable || pass + 1 >= JL_ACTIVE_SET_PASSES) break;

    /* the end-of-step state this solution gives; contacts that closed or
     * would pull switch, and the step is solved again with the new set */
    for (int i = 0; i < n; i++)
      for (int c = 3 * i; c < 3 * i + 3; c++) {
        double v1 = m->pinned[i] ? 0.0 : s->v[c] + s->dv[c];
        k->vs[c] = v1;
        k->xs[c] = m->pinned[i] ? s->x[c] : s->x[c] + h * v1;
      }
    int changed = 0;
    for (int e = 0; e < w->nforce; e++)
      if (w->force[e]->refine) changed += w->force[e]->refine(w->force[e], m, k->xs, k->vs);
    if (!changed) break;
  }

  /* v += dv, x += h v; pinned nodes stay at rest */
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT))
  for (int i = 0; i < n; i++) {
    for (int c = 3 * i; c < 3 * i + 3; c++) {
      if (m->pinned[i]) {
        s->v[c] = 0.0;
        s->dv[c] = 0.0;
      } else {
        s->v[c] += s->dv[c];
        s->x[c] += h * s->v[c];
      }
    }
  }
  return iterations;
}
