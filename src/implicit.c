/* Implicit (backward) Euler step, linearized, after Baraff & Witkin 1998.
 *
 * With f0 = F(x0, v0), the step solves (eq. 18 multiplied by M, as in Kauppila
 * sec. 2.1; docs/references.md)
 *     (M - h dF/dv - h^2 dF/dx) dv = h (f0 + h dF/dx v0)
 * and then sets v = v0 + dv, x = x0 + h v. The matrix is never assembled:
 * each force element caches its blocks (linearize) and multiplies by them
 * (multiply). Elements are linearized with a = -h^2, b = -h, so their cached
 * blocks are those of B = -h dF/dv - h^2 dF/dx and A u = M u + B u (Kauppila
 * sec. 4.1), and the diagonal of A for the Jacobi preconditioner is M plus
 * the elements' diagonal blocks. The right-hand side needs dF/dx alone: the
 * elements are first linearized with a = h^2, b = 0 and multiplied by v0
 * (or add h f0 + h^2 dF/dx v0 in one pass, JlForceOps.step_rhs).
 *
 * The system is solved by preconditioned CG (src/cg.c) with the constraint
 * filter for pinned nodes (dv = 0 there, Baraff & Witkin sec. 5.3),
 * warm-started from the previous step's dv. The preconditioner is
 * JlStepDef.preconditioner's: the two-level scheme of src/precond.c (set up
 * at every linearization from the diagonal blocks and the elements' offdiag
 * sinks) or Jacobi. CG stops at the relative tolerance or, earlier, once the
 * velocity bound of src/cg.h holds (JlStepDef.velocity_tolerance).
 * Compressed springs use the clamped, definite Jacobian (src/springs.c), so
 * A is SPD.
 *
 * Contacts are piecewise linear: on while their gap is positive. Their set is
 * held fixed for a solve (JlForce.refine); after the solve the end-of-step
 * state decides which contacts should have been on (a speculative contact
 * whose gap closed during the step, a contact that would pull), and the step
 * is solved again with the corrected set (a primal active-set iteration;
 * docs/collision.md): at most JL_ACTIVE_SET_PASSES solves once a pass has
 * switched a contact off (the set may cycle), up to JL_ACTIVE_SET_GROW while
 * the passes only switch contacts on. A stack hit in one large step needs
 * the latter: each pass stops one more body on the one below, and the next
 * body up is only seen to close its gap in the pass after. Without it a contact
 * caught only at the next step's start is already deep, and its penalty
 * energy 1/2 k d^2 comes from nowhere. A pass that may be followed by another
 * only decides the set, so it is solved JL_ACTIVE_SET_LOOSE times less
 * accurately; once the set holds, CG goes on from there to the step's
 * tolerance. Between passes only the contacts change: the other elements'
 * blocks, right-hand side and diagonal are kept from the first pass and the
 * preconditioner follows the changed diagonal blocks (pass_system).
 *
 * Newton corrections. The solve above is one Newton iteration of backward
 * Euler linearized at the step's start (Baraff & Witkin 1998, eq. 15-16),
 * exact only for forces linear in x. A spring at its rest length has no
 * stiffness across its axis (dF/dx = -k n n^T: the factor 1 - L/l is 0), so
 * a node moving sideways next to a pin, or next to nodes held by stiff
 * springs, is predicted free, and at the end of the step the spring is
 * stretched by about (h v_perp)^2 / 2L: an energy 1/2 k (h v_perp)^4 / 4L^2
 * that no force paid for, growing as h^4 (measured in one step: curtain.json
 * +0.6 J at dt 1/30 and +7.2 J at 1/15 of 27 J; rope_bridge.json +18 J of
 * 60 J and hair.json +5.9 J of 333 J at 1/15; the same with CG tolerance
 * 1e-12 or the unclamped Jacobian, and the curtain gains 8.5 J without
 * Provot's limit, which removes energy). The remedy is to solve the
 * nonlinear equations. With v1 = v0 + dv and x1 = x0 + h v1 the residual
 *     r = h F(x1, v1) - M dv
 * is zero for the exact backward Euler step; a correction solves
 *     (M - h dF/dv - h^2 dF/dx)|(x1, v1) d = r,   dv += d
 * with the same matrix-free CG started from 0, to the absolute accuracy of
 * the first solve but at most JL_NEWTON_CG_TOL relative to r (an inexact
 * Newton step; Dembo, Eisenstat & Steihaug 1982). The energy error left in
 * the step is about 1/2 r^T A^-1 r (half the squared Newton decrement; Boyd
 * & Vandenberghe 2004, sec. 9.5.1), estimated with the Jacobi preconditioner
 * of the first solve; corrections stop when it is below JL_NEWTON_TOL of the
 * kinetic energy, when r is down to the first solve's CG tolerance, or after
 * JL_NEWTON_PASSES corrections. A correction, or its half or quarter, is
 * kept only if it lowers that estimate and does not raise the end-of-step
 * energy 1/2 v1^T M v1 + U(x1): backward Euler dissipates energy where the
 * potential is convex, but compressed springs are not (their clamped
 * Jacobian makes the first solve the more dissipative step there; unguarded
 * Newton was measured to add energy in squeeze.json and stairs.json). With
 * wind, which does work, a correction is refused when it raises the energy.
 * Contacts keep the set of the last active-set pass. When the first solve
 * is already within the tolerance (small steps, slow motion) the check costs
 * one force evaluation. */
#include <math.h>
#include <string.h>

#include "mesh/vec3.h"
#include "src/parallel.h"
#include "src/world_internal.h"
#include "src/precond.h"

/* out = A u = M u + sum over elements of B u */
static void apply_matrix(void *ctx, const double *u, double *out) {
  const JlWorld *w = ctx;
  const JlModel *m = w->model;
  jl_work_poll_threads(w); /* once per CG iteration: a core that got busy is left within the step */
  int n = m->nnode, threads = ((const JlWork *)w->work)->threads;
  (void)threads; /* without OpenMP */
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int i = 0; i < n; i++) {
    double mi = m->mass[i];
    out[3 * i] = mi * u[3 * i];
    out[3 * i + 1] = mi * u[3 * i + 1];
    out[3 * i + 2] = mi * u[3 * i + 2];
  }
  for (int e = 0; e < w->nforce; e++) w->force[e]->ops->multiply(w->force[e], m, u, out);
}

/* at most JL_ACTIVE_SET_PASSES linear solves per step once a pass has
 * undone an earlier one's switch (JlForce.undoing), at most
 * JL_ACTIVE_SET_GROW while passes only switch contacts on; the solves that
 * only decide the set stop JL_ACTIVE_SET_LOOSE times less accurate */
#define JL_ACTIVE_SET_PASSES 4
#define JL_ACTIVE_SET_GROW   16
#define JL_ACTIVE_SET_LOOSE  30.0

/* CG on the linearized step for s->dv, warm-started from it, to the step's
 * tolerances times `loose` */
static JlCgResult solve(JlWorld *w, double loose) {
  JlWork *k = w->work;
  double vtol = k->cg.vtol, rel = jl_step_rel_tol(w) * loose;
  if (rel > 0.1) rel = 0.1;
  k->cg.vtol = vtol * loose;
  JlCgResult res =
      jl_cg_solve(&k->cg, apply_matrix, w, w->model->pinned, k->rhs, w->state.dv, rel, w->def.max_iterations);
  k->cg.vtol = vtol;
  return res;
}

/* Newton corrections: at most this many per step; stop when the estimated
 * energy error is below JL_NEWTON_TOL of the kinetic energy; loosest CG
 * relative tolerance of a correction */
#define JL_NEWTON_PASSES 8
#define JL_NEWTON_TOL    1e-3
#define JL_NEWTON_CG_TOL 1e-3
/* the implicit midpoint's half step (JlWork.midpoint, src/world.c) is solved to the step's own accuracy
 * (the velocity stop or the relative tolerance), not to an energy fraction: the extrapolation doubles its
 * error and, unlike backward Euler's, nothing damps it. With JL_NEWTON_TOL the method fell to first
 * order (test_integrators convergence_orders: errors 9.2e-4, 4.5e-4, 2.3e-4 at h = 4, 2, 1 ms) and a
 * free spinning bar kept 93 % of its angular momentum over 1 s at dt 1/60 (99.98 % now). Its energy is
 * checked on the whole step, not per correction. */
#define JL_NEWTON_TOL_MIDPOINT 0.0

/* the end-of-step state of dv + alpha d into (xs, vs): v1 = v0 + dv + alpha d,
 * x1 = x0 + h v1; pinned nodes stay at rest (d may be NULL when alpha is 0) */
static void end_state(JlWorld *w, double h, const double *d, double alpha) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  const JlState *s = &w->state;
  for (int i = 0; i < m->nnode; i++)
    for (int c = 3 * i; c < 3 * i + 3; c++) {
      double v1 = m->pinned[i] ? 0.0 : s->v[c] + s->dv[c] + (d ? alpha * d[c] : 0.0);
      k->vs[c] = v1;
      k->xs[c] = m->pinned[i] ? s->x[c] : s->x[c] + h * v1;
    }
}

/* diag (nnode x 9) = the mass blocks m_i I */
static void mass_blocks(const JlModel *m, double *diag) {
  memset(diag, 0, 9 * (size_t)m->nnode * sizeof(double));
  for (int i = 0; i < m->nnode; i++) diag[9 * i] = diag[9 * i + 4] = diag[9 * i + 8] = m->mass[i];
}

/* the two-level preconditioner set up from k->diag and the elements'
 * off-diagonal blocks, its rotations about x */
static void precond_setup(JlWorld *w, const double *x) {
  JlWork *k = w->work;
  JlOffdiagSink sink = {k->prec, jl_precond_block, jl_precond_pairs};
  jl_precond_begin(k->prec, w->model, k->diag, x, k->threads);
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->ops->offdiag) w->force[e]->ops->offdiag(w->force[e], w->model, &sink);
  jl_precond_end(k->prec, k->threads);
}

/* caches every element's blocks of A = M - h dF/dv - h^2 dF/dx at (x, v) and
 * sets the preconditioner's diagonal (M plus the elements' diagonal blocks) */
static void linearize_system(JlWorld *w, const double *x, const double *v, double h) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  mass_blocks(m, k->diag);
  for (int e = 0; e < w->nforce; e++) w->force[e]->ops->linearize(w->force[e], m, x, v, -h * h, -h, 0, k->diag);
  jl_cg_set_diagonal(&k->cg, k->diag, m->pinned);
  if (k->prec) precond_setup(w, x);
}

/* elements whose on/off set may change between the passes of a step */
static int varies(const JlForce *f) { return f->ops->refine != NULL; }

/* The linear system of an active-set pass at the step's start (s->x, s->v):
 * rhs = h f0 + h^2 dF/dx v0 and the blocks of A = M - h dF/dv - h^2 dF/dx
 * (cached by the elements), A's diagonal for CG and the preconditioner.
 * An element with JlForceOps.step_rhs adds its h F + h^2 dF/dx v0 in one
 * pass (the springs). Between passes only the elements with an active set
 * change, so the first pass keeps the other elements' part of rhs and of the diagonal (rhs_fixed,
 * diag_fixed) and later passes redo only the varying elements and update the
 * preconditioner's diagonal blocks (jl_precond_update) instead of setting it
 * up again; unless a varying element reports off-diagonal blocks, which the
 * update cannot follow. */
static void pass_system(JlWorld *w, double h, int first) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  const JlState *s = &w->state;
  int n = m->nnode, n3 = 3 * n, full = first;
  for (int e = 0; e < w->nforce; e++) full |= varies(w->force[e]) && w->force[e]->ops->offdiag;
  for (int part = full ? 0 : 1; part < 2; part++) {
    /* part 0: the fixed elements into rhs_fixed and diag_fixed; part 1: the varying ones on top */
    double *rhs = part ? k->rhs : k->rhs_fixed, *diag = part ? k->diag : k->diag_fixed;
    memset(k->f, 0, (size_t)n3 * sizeof(double));
    for (int e = 0; e < w->nforce; e++) {
      JlForce *f = w->force[e];
      if (varies(f) == part && !f->ops->step_rhs) f->ops->force(f, m, s->x, s->v, k->f, NULL);
    }
    for (int c = 0; c < n3; c++) rhs[c] = (part ? k->rhs_fixed[c] : 0.0) + h * k->f[c];
    if (part)
      memcpy(diag, k->diag_fixed, 9 * (size_t)n * sizeof(double));
    else
      mass_blocks(m, diag);
    for (int e = 0; e < w->nforce; e++) {
      JlForce *f = w->force[e];
      if (varies(f) != part) continue;
      jl_work_poll_threads(w);
      if (f->ops->step_rhs) {
        f->ops->step_rhs(f, m, s->x, s->v, h, h * h, rhs);
      } else {
        f->ops->linearize(f, m, s->x, s->v, h * h, 0.0, 0, NULL);
        f->ops->multiply(f, m, s->v, rhs);
      }
      f->ops->linearize(f, m, s->x, s->v, -h * h, -h, 0, diag);
    }
  }
  jl_cg_set_diagonal(&k->cg, k->diag, m->pinned);
  jl_work_poll_threads(w);
  if (!k->prec) return;
  if (full)
    precond_setup(w, s->x);
  else
    jl_precond_update(k->prec, k->diag, k->threads);
}

/* v1 = v0 + dv + alpha d, x1 = x0 + h v1 into (xs, vs); r = h F(x1, v1) - M (dv + alpha d)
 * into rhs (0 at pinned nodes). Returns r^T P r with the weights p (J); *ke =
 * 1/2 v1^T M v1 and *energy = *ke + U(x1). */
static double residual(JlWorld *w, double h, const double *d, double alpha, const double *p, double *ke, double *energy,
                       double *vm) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  const JlState *s = &w->state;
  int n = m->nnode;
  end_state(w, h, d, alpha);
  double potential = 0.0, rr = 0.0, kin = 0.0, vmax = 0.0;
  jl_world_forces(w, k->xs, k->vs, k->f, &potential);
  for (int i = 0; i < n; i++)
    for (int c = 3 * i; c < 3 * i + 3; c++) {
      double r = m->pinned[i] ? 0.0 : h * k->f[c] - m->mass[i] * (s->dv[c] + alpha * d[c]);
      k->rhs[c] = r;
      rr += r * p[c] * r;
      double vr = fabs(r) * k->cg.inv_mass[c];
      if (vr > vmax) vmax = vr;
      kin += 0.5 * m->mass[i] * k->vs[c] * k->vs[c];
    }
  *vm = vmax;
  *ke = kin;
  *energy = kin + potential;
  return rr;
}

/* Newton corrections of s->dv (file comment). On entry rhs and the CG
 * preconditioner are those of the step's first solve. */
static int newton_corrections(JlWorld *w, double h) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int n = m->nnode, n3 = 3 * n, iterations = 0;
  double *p = k->sv, *d = k->sx; /* weights (the first preconditioner) and the correction */
  double bb = 0.0, b2 = 0.0, ke0 = 0.0;
  for (int c = 0; c < n3; c++) {
    p[c] = k->cg.inv_diag[c];
    bb += k->rhs[c] * p[c] * k->rhs[c];
    b2 += m->pinned[c / 3] ? 0.0 : k->rhs[c] * k->rhs[c];
    ke0 += 0.5 * m->mass[c / 3] * s->v[c] * s->v[c];
  }
  double ke1, energy, vm, rel = jl_step_rel_tol(w), vtol = k->cg.vtol;
  double rr = residual(w, h, d, 0.0, p, &ke1, &energy, &vm);
  for (int pass = 0; pass < JL_NEWTON_PASSES; pass++) {
    double ke = ke0 > ke1 ? ke0 : ke1;
    if (!(0.5 * rr > (k->midpoint ? JL_NEWTON_TOL_MIDPOINT : JL_NEWTON_TOL) * ke) || !(rr > rel * rel * bb)) break;
    if (vtol > 0.0 && vm <= vtol) break; /* solved to the velocity tolerance */

    /* A at (x1, v1), whose residual rhs holds; A d = r */
    linearize_system(w, k->xs, k->vs, h);
    /* CG to the first solve's absolute accuracy (so momentum is kept as well as
     * there), but relative to r no looser than JL_NEWTON_CG_TOL */
    double r2 = 0.0;
    for (int c = 0; c < n3; c++) r2 += k->rhs[c] * k->rhs[c]; /* rhs is 0 at pinned nodes */
    double tol = r2 > 0.0 ? rel * sqrt(b2 / r2) : rel;
    if (tol > JL_NEWTON_CG_TOL) tol = JL_NEWTON_CG_TOL;
    if (tol < rel) tol = rel;
    memset(d, 0, (size_t)n3 * sizeof(double));
    JlCgResult res = jl_cg_solve(&k->cg, apply_matrix, w, m->pinned, k->rhs, d, tol, w->def.max_iterations);
    iterations += res.iterations;
    if (!res.converged) break;

    /* keep d, d/2 or d/4 if it lowers the error estimate and not the energy */
    double alpha = 1.0, rr_a = 0.0, ke_a = 0.0, energy_a = 0.0, vm_a = 0.0;
    for (; alpha > 0.2; alpha *= 0.5) {
      rr_a = residual(w, h, d, alpha, p, &ke_a, &energy_a, &vm_a);
      if (rr_a < rr && (k->midpoint || energy_a <= energy)) break;
    }
    if (!(alpha > 0.2)) break;
    for (int c = 0; c < n3; c++) s->dv[c] += alpha * d[c];
    rr = rr_a, ke1 = ke_a, energy = energy_a, vm = vm_a;
  }
  return iterations;
}

/* Momentum. Forces between bodies are equal and opposite, so backward Euler
 * keeps the linear momentum of bodies that exchange none with the world
 * (M dv = h F(x1, v1) summed over them: the internal forces cancel), but only
 * as well as its equations are solved: the residual r = h F(x1, v1) - M dv
 * of the last solve (CG at `tolerance`, Newton corrections at up to
 * JL_NEWTON_CG_TOL) changes the momentum by -sum r. Two balls hitting
 * head-on at dt 1/60 lost 7e-5 of their momentum that way. Every such group
 * of bodies (joined by the contacts that acted in the step, JlForce.couple;
 * none pinned, none on the ground or an obstacle, none under wind or the
 * mouse drag) therefore gets the uniform velocity change sum r / sum m that
 * zeroes its residual's sum: a translation, which none of the forces inside
 * the group feels (they depend on differences of positions and velocities),
 * of the size of the solver's error. The group's momentum then changes by
 * exactly h times its external constant forces (gravity), to rounding. One
 * force evaluation per step, and none when every body touches the world. */
/* joins in k->group the bodies that exchanged momentum in the step, with entry nbody for the world
 * (pins, contacts with the ground or an obstacle, elements that do not say whom they couple).
 * Returns the world's root, or -1 when every body is joined to it. *internal_only = 1 when every
 * element other than springs, the volume force and gravity couples bodies (JlForceOps.couple): no
 * constant force or field acts on a group but gravity. */
static int free_groups(JlWorld *w, int *internal_only) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  int nb = m->nbody, *group = k->group;
  *internal_only = 1;
  for (int b = 0; b <= nb; b++) group[b] = b;
  for (int i = 0; i < m->nnode; i++)
    if (m->pinned[i]) jl_uf_union(group, m->node_body[i], nb);
  for (int e = 0; e < w->nforce; e++) {
    const JlForce *f = w->force[e];
    if (f->ops->couple)
      f->ops->couple(f, m, group);
    else if (f->kind != JL_FORCE_SPRINGS && f->kind != JL_FORCE_VOLUME && f->ops->linearize != jl_force_no_linearize)
      for (int b = 0; b < nb; b++) jl_uf_union(group, b, nb); /* unknown: held by the world */
    else if (f->kind != JL_FORCE_SPRINGS && f->kind != JL_FORCE_VOLUME && f->kind != JL_FORCE_GRAVITY &&
             f->kind != JL_FORCE_IMPACT)
      *internal_only = 0;
  }
  int world = jl_uf_find(group, nb);
  for (int b = 0; b < nb; b++)
    if (jl_uf_find(group, b) != world) return world;
  return -1;
}

static void momentum(JlWorld *w, double h, int world) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int nb = m->nbody, *group = k->group;
  if (world < 0) return;
  /* r = h F(x1, v1) - M dv, summed per group with the group's mass */
  end_state(w, h, NULL, 0.0);
  jl_world_forces(w, k->xs, k->vs, k->f, NULL);
  double *gs = k->gsum;
  memset(gs, 0, 4 * ((size_t)nb + 1) * sizeof(double));
  for (int i = 0; i < m->nnode; i++) {
    double *g = gs + 4 * jl_uf_find(group, m->node_body[i]);
    for (int c = 0; c < 3; c++) g[c] += h * k->f[3 * i + c] - m->mass[i] * s->dv[3 * i + c];
    g[3] += m->mass[i];
  }
  for (int i = 0; i < m->nnode; i++) {
    int r = jl_uf_find(group, m->node_body[i]);
    const double *g = gs + 4 * r;
    if (r == world || !(g[3] > 0.0)) continue;
    for (int c = 0; c < 3; c++) s->dv[3 * i + c] += g[c] / g[3];
  }
}


/* Angular momentum (JlWork.keep_spin: the implicit midpoint's backward Euler
 * steps, src/world.c). With x1 = x0 + h v1, a group's angular momentum about
 * its centre of mass c0 at the step's start is sum m (x0 - c0) x v1: backward
 * Euler changes it by h sum (x0_i - x0_j) x F_ij(x1), which is not zero for
 * central forces F_ij || x1_i - x1_j. That is the damping of a rotation by
 * about (w h)^2 / 2 per step. Gravity has no torque about c0, and forces
 * inside the group cancel in pairs, so a free group (the groups momentum uses; and no
 * constant force on it but gravity) should keep L0 = sum m (x0 - c0) x v0.
 * The group gets the rigid rotation w x (x0 - c0) with I0 w = L0 - L1 (I0
 * its inertia tensor about c0 at the step's start): a projection onto the
 * invariant (Hairer, Lubich & Wanner, Geometric Numerical Integration, IV.4)
 * along the group's rigid rotation, which moves no momentum. The energy
 * guard checks the step with it. */
static void spin(JlWorld *w, int world, int internal_only) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int nb = m->nbody, *group = k->group;
  if (world < 0 || !internal_only) return;
  /* per group: 0 mass, 1-3 sum m x0, 4-6 L0 - L1 about c0, 7-15 I0 */
  double *gs = k->gsum;
  memset(gs, 0, 16 * ((size_t)nb + 1) * sizeof(double));
  for (int i = 0; i < m->nnode; i++) {
    double *g = gs + 16 * jl_uf_find(group, m->node_body[i]);
    g[0] += m->mass[i];
    for (int c = 0; c < 3; c++) g[1 + c] += m->mass[i] * s->x[3 * i + c];
  }
  for (int b = 0; b <= nb; b++) {
    double *g = gs + 16 * b;
    if (g[0] > 0.0)
      for (int c = 0; c < 3; c++) g[1 + c] /= g[0];
  }
  for (int i = 0; i < m->nnode; i++) {
    int r = jl_uf_find(group, m->node_body[i]);
    if (r == world) continue;
    double *g = gs + 16 * r, mi = m->mass[i];
    const double *x = s->x + 3 * i, *dv = s->dv + 3 * i;
    double d[3] = {x[0] - g[1], x[1] - g[2], x[2] - g[3]}, l[3];
    jl_vec3_cross(d, dv, l); /* (L1 - L0) per node: m d x dv */
    for (int c = 0; c < 3; c++) g[4 + c] -= mi * l[c];
    double dd = jl_vec3_dot(d, d);
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 3; c++) g[7 + 3 * a + c] += mi * ((a == c ? dd : 0.0) - d[a] * d[c]);
  }
  for (int b = 0; b <= nb; b++) {
    double *g = gs + 16 * b, Iinv[9], om[3];
    if (b == world || !(g[0] > 0.0) || !jl_mat3_inv(g + 7, Iinv)) {
      g[0] = 0.0;
      continue;
    }
    for (int a = 0; a < 3; a++) om[a] = Iinv[3 * a] * g[4] + Iinv[3 * a + 1] * g[5] + Iinv[3 * a + 2] * g[6];
    memcpy(g + 4, om, sizeof om);
  }
  for (int i = 0; i < m->nnode; i++) {
    int r = jl_uf_find(group, m->node_body[i]);
    const double *g = gs + 16 * r;
    if (r == world || !(g[0] > 0.0) || m->pinned[i]) continue;
    const double *x = s->x + 3 * i;
    double d[3] = {x[0] - g[1], x[1] - g[2], x[2] - g[3]}, u[3];
    jl_vec3_cross(g + 4, d, u);
    for (int c = 0; c < 3; c++) s->dv[3 * i + c] += u[c];
  }
}

int jl_step_implicit(JlWorld *w, double h, int *cg_failed) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int n = m->nnode, iterations = 0;
  *cg_failed = 0;

  /* elements with an on/off set (contacts) hold it fixed for each solve */
  int refinable = 0;
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->ops->refine) refinable += w->force[e]->ops->refine(w->force[e], m, NULL, NULL) >= 0;

  int undone = 0; /* passes after which a switch was undone */
  for (int pass = 0;; pass++) {
    /* rhs = h f0 + h^2 dF/dx v0; A = M - h dF/dv - h^2 dF/dx: the blocks
     * cached, the diagonal collected, the preconditioner set up */
    pass_system(w, h, pass == 0);

    /* solve for dv, warm-started from the previous dv (or the previous
     * pass); a pass that may be followed by another only decides the set and
     * is solved JL_ACTIVE_SET_LOOSE times looser */
    int last = !refinable || undone + 1 >= JL_ACTIVE_SET_PASSES || pass + 1 >= JL_ACTIVE_SET_GROW;
    JlCgResult res = solve(w, last ? 1.0 : JL_ACTIVE_SET_LOOSE);
    iterations += res.iterations;
    *cg_failed = !res.converged;
    if (last) break;

    /* the end-of-step state this solution gives; contacts that closed or
     * would pull switch, and the step is solved again with the new set */
    end_state(w, h, NULL, 0.0);
    int changed = 0, undoing = 0;
    for (int e = 0; e < w->nforce; e++)
      if (w->force[e]->ops->refine) {
        changed += w->force[e]->ops->refine(w->force[e], m, k->xs, k->vs);
        undoing += w->force[e]->undoing;
      }
    undone += undoing > 0;
    if (!changed) {
      /* the set holds: finish this system to the full accuracy */
      res = solve(w, 1.0);
      iterations += res.iterations;
      *cg_failed = !res.converged;
      break;
    }
  }

  /* solve the nonlinear step: Newton corrections from the end-of-step state */
  iterations += newton_corrections(w, h);
  /* free groups of bodies keep their momentum whatever the solver left */
  int internal_only, world = free_groups(w, &internal_only); /* k->group for both corrections */
  momentum(w, h, world);
  if (k->keep_spin) spin(w, world, internal_only);

  /* v += dv, x += h v; pinned nodes stay at rest */
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(k->threads)))
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
