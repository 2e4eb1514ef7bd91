/* The world's internals shared with its steppers (engine-internal): the
 * stepper scratch (JlWork), the elements' history buffers, and the implicit
 * and explicit steps src/world.c calls. They live here because src/world.h
 * is the public contract. */
#ifndef JL_SRC_WORLD_INTERNAL_H
#define JL_SRC_WORLD_INTERNAL_H

#include "src/cg.h"
#include "src/tune.h"
#include "src/world.h"

/* the implicit step's energy guard (src/world.c) splits when the energy rises
 * by more than this fraction of the energy moved in a step (its depth,
 * JL_GUARD_DEPTH, is in src/world.h) */
#define JL_GUARD_TOL 1e-3

/* The force elements' history (JlForce.history_*) in one buffer: element e's
 * len[e] bytes start at buf + off[e] (16-byte aligned). The buffer grows to
 * twice what it needs when a save needs more (the contact set's size), so
 * steps allocate rarely, not never. */
typedef struct JlHistory {
  unsigned char *buf;
  size_t cap;
  int nforce;
  size_t off[JL_MAX_FORCES], len[JL_MAX_FORCES];
  JlForceKind kind[JL_MAX_FORCES];
} JlHistory;

/* Saves every element's history into h. */
void jl_world_history_save(const JlWorld *w, JlHistory *h);
/* Loads it back (h from this world or another of the same model and
 * elements); 0 when the element counts differ or an element refuses it. */
int jl_world_history_load(JlWorld *w, const JlHistory *h);

/* The world's internals: the model it was created with and the stepper
 * scratch, sized once in jl_world_create (no allocation in a step). */
typedef struct JlWork {
  const JlModel *base; /* the model as created: owned, or shared with other worlds (jl_world_create_shared) */
  JlModel *owned;      /* the base model when the world owns it (jl_world_create), else NULL */
  JlModel *view;       /* JlWorld.model: a shallow copy of *base whose `pinned` is the state's pin mask */
  int nnode;
  double *f;                         /* nnode x 3: force / acceleration scratch */
  double *energy_f;                  /* nnode x 3: force scratch of jl_world_energy */
  double *x_step, *v_step, *dv_step; /* nnode x 3: state at the start of jl_world_step */
  double *x_sub, *v_sub, *dv_sub;    /* nnode x 3: state at the start of a sub-step */
  double *xs, *vs;                   /* nnode x 3: explicit stage state */
  double *sx, *sv;                   /* nnode x 3: RK4 stage sums; implicit Newton correction and its weights */
  double *rhs;                       /* nnode x 3: implicit right-hand side */
  double *diag;                      /* nnode x 9: diagonal 3x3 blocks of the implicit matrix */
  /* the parts of rhs (nnode x 3) and diag (nnode x 9) from the elements without an active set
   * (JlForce.refine), which stay as they are between an implicit step's active-set passes */
  double *rhs_fixed, *diag_fixed;
  double *x_guard, *v_guard, *dv_guard; /* JL_GUARD_DEPTH x nnode x 3: state before an energy-guarded step */
  /* the elements' history with x_step and x_sub: undoing a step restores it too */
  JlHistory hist_step, hist_sub, hist_mid;
  double *x_mid, *v_mid, *dv_mid; /* nnode x 3: state at the start of an implicit midpoint step (with hist_mid) */
  int midpoint;                   /* 1 during an implicit midpoint step's half step: solved closer (src/implicit.c) */
  int keep_spin;                  /* 1: free groups of bodies keep their angular momentum (src/implicit.c, spin) */
  int nbody;
  int *inverted; /* nbody: each body's inverted tets at the last divergence check (src/world.c) */
  int *group;    /* nbody + 1: union-find of the bodies that exchanged momentum in a step (src/implicit.c) */
  double *gsum;  /* 16 (nbody + 1): per group sums (src/implicit.c momentum, spin) */
  JlCg cg;
  JlThreadTune tune;      /* the thread count of each step (src/tune.h) */
  int threads;            /* this step's: JlStepDef.threads or fewer (the tuner's choice) */
  double mass_total;      /* kg, all nodes (the energy guard's floor under the velocity stop) */
  struct JlPrecond *prec; /* the implicit solve's preconditioner (src/precond.h); NULL = Jacobi */
  /* the energy guard's last end-of-step energy and the state it was taken in (src/world.c) */
  int ecache_valid;
  int energy_nonfinite; /* the energy guard found the step's end energy not finite (diverged() reports it) */
  double ecache_e, ecache_ke, ecache_stored;
  double *ecache_x, *ecache_v; /* nnode x 3 */
  unsigned char *ecache_pin;   /* nnode */
} JlWork;

/* The relative CG tolerance of a step: JlStepDef.tolerance, or with the
 * velocity stop (velocity_tolerance > 0), which then decides alone,
 * JL_CG_REL_FLOOR: only a residual at the limit of rounding stops CG before
 * it (docs/performance.md, "Stopping by accuracy"). */
#define JL_CG_REL_FLOOR 1e-13
static inline double jl_step_rel_tol(const JlWorld *w) {
  return w->def.velocity_tolerance > 0.0 ? JL_CG_REL_FLOOR : w->def.tolerance;
}

/* The thread count of the step's solver and elements: n (src/world.c). */
void jl_work_set_threads(const JlWorld *w, int n);
/* Within a step: asks the tuner whether the rest of it goes on fewer
 * threads (a busy core, src/tune.h), and sets that count. */
static inline void jl_work_poll_threads(const JlWorld *w) {
  const JlWork *k = w->work;
  if (k->threads > 1) {
    int n = jl_tune_poll(&((JlWork *)w->work)->tune);
    if (n != k->threads) jl_work_set_threads(w, n);
  }
}

/* One implicit Euler step of length h (src/implicit.c). Returns the CG
 * iteration count; *cg_failed = 1 when CG hit its iteration cap. */
int jl_step_implicit(JlWorld *w, double h, int *cg_failed);

/* One explicit step of length h with w->def.integrator (src/explicit.c). */
void jl_step_explicit(JlWorld *w, double h);

/* a (nnode x 3) = M^-1 F(x, v), zero at pinned nodes (src/explicit.c). */
void jl_world_accel(const JlWorld *w, const double *x, const double *v, double *a);

#endif
