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
 * clamped, definite Jacobian (src/springs.c), so A is SPD. */
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

int jl_step_implicit(JlWorld *w, double h, int *cg_failed) {
  const JlModel *m = &w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int n = m->nnode, n3 = 3 * n;

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

  /* solve for dv, warm-started from the previous dv */
  JlCgResult res = jl_cg_solve(&k->cg, apply_matrix, w, m->pinned, k->rhs, s->dv,
                               w->def.tolerance, w->def.max_iterations);
  *cg_failed = !res.converged;

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
  return res.iterations;
}
