/* The two-level preconditioner of the implicit solve (src/precond.c;
 * docs/performance.md, "Preconditioner").
 *
 * The implicit matrix A = M - h dF/dv - h^2 dF/dx is never assembled for the
 * CG products (each force element multiplies by its own blocks). After
 * every linearization the world hands the preconditioner A's diagonal 3x3
 * blocks (all elements) and the off-diagonal parts of the elements that
 * report them (JlForceOps.offdiag: the springs and the volume force);
 * contacts and the other elements enter through their diagonal blocks only.
 * P^-1 = D^-1 + R A_c^-1 R^T: block Jacobi plus an additive coarse
 * correction on the rigid motions of aggregates of nodes, whose Galerkin
 * matrix R^T A R is factored exactly per body. Symmetric positive definite
 * for an SPD A, as PCG needs; the same result at any thread count. */
#ifndef JL_SRC_PRECOND_H
#define JL_SRC_PRECOND_H

#include "src/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum JlPrecondKind {
  JL_PRECOND_JACOBI,    /* the diagonal (src/cg.c); no object */
  JL_PRECOND_TWO_LEVEL, /* block Jacobi + rigid-body coarse correction */
  JL_PRECOND_COUNT
} JlPrecondKind;

/* the implicit solve's preconditioner unless a scene or JlStepDef says otherwise */
#define JL_PRECOND_DEFAULT JL_PRECOND_TWO_LEVEL

/* scene names, indexed by JlPrecondKind: "jacobi", "two_level" */
extern const char *const jl_precond_names[JL_PRECOND_COUNT];

typedef struct JlPrecond JlPrecond;

/* The preconditioner of `kind` for model m (its springs' graph, bodies and
 * pins fix the aggregates); NULL for Jacobi.
 * Freed by jl_precond_free (NULL-safe). */
JlPrecond *jl_precond_create(const JlModel *m, JlPrecondKind kind);
void jl_precond_free(JlPrecond *p);
JlPrecondKind jl_precond_kind(const JlPrecond *p);

/* One setup per linearization: begin with A's diagonal blocks (nnode x 9,
 * row-major) and the positions x the coarse space's rotations are taken
 * about; then the elements' off-diagonal parts through a JlOffdiagSink
 * (src/force.h) with these callbacks; then end, which factors. Pinned nodes (m->pinned now) are left
 * out: the preconditioner returns 0 there. */
void jl_precond_begin(JlPrecond *p, const JlModel *m, const double *diag, const double *x, int threads);
/* the two callbacks of a JlOffdiagSink (src/force.h) whose ctx is the
 * preconditioner; pairs gathers its terms per node and per aggregate, in
 * parallel and in a fixed order */
void jl_precond_block(void *p, int i, int j, const double C[9]);
void jl_precond_pairs(void *p, int count, const int *ij, const double *b6, int threads);
void jl_precond_end(JlPrecond *p, int threads);
/* After end: only A's diagonal blocks changed, to diag (nnode x 9; an
 * implicit step's contacts switching between its active-set passes). The
 * block inverses and the coarse matrix follow the changed blocks, and the
 * coarse matrix is refactored; the off-diagonal parts stay. */
void jl_precond_update(JlPrecond *p, const double *diag, int threads);

/* z (nnode x 3) = P^-1 r (0 at pinned nodes); returns r.z, summed over
 * blocks of `block` nodes into partial (ceil(nnode / block) entries) and
 * those in order. Deterministic for any thread count. */
double jl_precond_apply(JlPrecond *p, const double *r, double *z, int threads, int block, double *partial);

#ifdef __cplusplus
}
#endif
#endif
