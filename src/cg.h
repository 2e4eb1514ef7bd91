/* Preconditioned conjugate gradients with the constraint filter: Jacobi,
 * or the preconditioner of src/precond.h when JlCg.prec is set.
 *
 * Solves A x = b for a symmetric positive definite A given only as a
 * matrix-vector product, restricted to the free nodes: a pinned node's three
 * unknowns are held at 0 by the filter S (S = I for free nodes, 0 for pinned
 * ones; Baraff & Witkin 1998, sec. 5.3 with z = 0). Vectors are nnode x 3.
 *
 * The workspace is allocated once (jl_cg_init); jl_cg_solve never allocates.
 * Dot products use fixed blocks (src/parallel.h), so the iterates are bitwise
 * independent of the OpenMP thread count. */
#ifndef JL_SRC_CG_H
#define JL_SRC_CG_H

#ifdef __cplusplus
extern "C" {
#endif

/* out (nnode x 3) = A u. Need not filter pinned nodes (the solver does). */
typedef void (*JlCgMultiply)(void *ctx, const double *u, double *out);

typedef struct JlCg {
  int nnode;
  int nblock;             /* reduction blocks over 3 * nnode values */
  double *r;              /* nnode x 3 residual */
  double *z;              /* nnode x 3 preconditioned residual */
  double *p;              /* nnode x 3 search direction */
  double *q;              /* nnode x 3 A p */
  double *inv_diag;       /* nnode x 3 Jacobi preconditioner, 0 at pinned nodes */
  double *inv_mass;       /* nnode x 3 1 / node mass (the velocity stop; jl_cg_set_velocity_stop) */
  double vtol;            /* m/s: stop when max_i |r_i| / m_i <= vtol; 0 = off (jl_cg_set_velocity_stop) */
  double *partial;        /* 2 x nblock reduction partials */
  int threads;            /* OpenMP threads of its loops, 0 = OpenMP's default (the world sets it) */
  struct JlPrecond *prec; /* a preconditioner stronger than inv_diag (src/precond.h); NULL = Jacobi. Not owned */
} JlCg;

typedef struct JlCgResult {
  int iterations;  /* matrix-vector products after the initial residual */
  int converged;   /* 1 when ||S r|| <= tol ||S b|| or the velocity stop holds */
  double residual; /* final ||S r|| / ||S b|| (0 when S b = 0) */
} JlCgResult;

void jl_cg_init(JlCg *cg, int nnode);
void jl_cg_free(JlCg *cg);

/* Sets the Jacobi preconditioner from the diagonal 3x3 blocks of A
 * (nnode x 9, row-major): inv_diag = 1 / A_kk for free nodes, 0 for pinned
 * ones (pinned may be NULL: nothing is pinned). A non-positive or non-finite
 * diagonal entry falls back to 1 (CG then reports non-convergence if A is
 * really indefinite). */
void jl_cg_set_diagonal(JlCg *cg, const double *diag9, const unsigned char *pinned);

/* The velocity stop (docs/performance.md, "Stopping by accuracy"). The
 * implicit step's system is M dv = h F(x1, v1) linearized: the residual
 * r = b - A dv is the momentum (impulse, N s) its equations leave
 * unbalanced, and r_i / m_i the velocity that node i's share of it amounts
 * to. CG also stops once max_i |r_i| / m_i <= vtol (m/s): no node's momentum
 * balance is off by more than vtol times its mass. mass: nnode node masses
 * (> 0 for the free ones); vtol 0 turns the stop off. */
void jl_cg_set_velocity_stop(JlCg *cg, const double *mass, double vtol);

/* Solves S A S x = S b starting from x (warm start; its pinned entries are
 * set to 0). Stops when ||S r|| <= tol ||S b||, when the velocity stop holds
 * (jl_cg_set_velocity_stop) or after max_iter products. */
JlCgResult jl_cg_solve(JlCg *cg, JlCgMultiply mul, void *ctx, const unsigned char *pinned, const double *b, double *x,
                       double tol, int max_iter);

/* Deterministic dot product of two n-vectors using cg's block partials
 * (n <= 3 * cg->nnode). */
double jl_cg_dot(JlCg *cg, int n, const double *a, const double *b);

#ifdef __cplusplus
}
#endif
#endif
