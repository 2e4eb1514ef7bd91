/* Internal helpers shared by the force elements and the steppers (not part
 * of the public API).
 *
 * - JL_OMP(...) emits an OpenMP pragma only when OpenMP is enabled, so the
 *   code compiles warning-free without it.
 * - Deterministic reductions: every sum over many elements is split into
 *   fixed blocks of JL_BLOCK elements; each block is summed sequentially
 *   (possibly on different threads) and the block partials are then added
 *   in block order by one thread. The result is therefore bitwise the same
 *   for any thread count and schedule.
 * - The stepper workspace (JlWork) and the stepper entry points used by
 *   src/world.c; they live here because src/world.h is the public contract.
 *
 * Hot loops call no function pointers per element: force elements are
 * called once per pass, and each loops over its own elements. */
#ifndef JL_SRC_LINALG_H
#define JL_SRC_LINALG_H

#include "src/cg.h"
#include "src/tune.h"
#include "src/world.h"

#ifdef _OPENMP
#define JL_OMP_STR_(x) #x
#define JL_OMP(x) _Pragma(JL_OMP_STR_(x))
#else
#define JL_OMP(x)
#endif

/* loops shorter than this run on one thread (a parallel region costs a few us) */
#define JL_PAR_MIN 2048

/* light per-node passes (vector updates, mass, gravity, ground) over fewer
 * nodes than this run on one thread: there a pass takes about as long as
 * waking a second thread (and much longer when that thread's core is busy:
 * the tuner then steps on one thread, src/tune.h) */
#define JL_PAR_MIN_LIGHT 2048

/* elements per block of a deterministic reduction */
#define JL_BLOCK 1024

/* The thread count of a num_threads clause: t (JlStepDef.threads through
 * JlForce.threads or JlCg.threads), or OpenMP's default for 0. A clause per
 * parallel region, never omp_set_num_threads: a host's other worlds and its
 * own OpenMP code keep their counts. */
#ifdef _OPENMP
#include <omp.h>
static inline int jl_omp_threads(int t) { return t > 0 ? t : omp_get_max_threads(); }
#endif

static inline int jl_nblock(int n) { return n > 0 ? (n + JL_BLOCK - 1) / JL_BLOCK : 0; }
/* one past the last element of block blk of n: block blk is [blk JL_BLOCK, jl_block_end) */
static inline int jl_block_end(int blk, int n) { return blk * JL_BLOCK + JL_BLOCK < n ? blk * JL_BLOCK + JL_BLOCK : n; }

/* sums block partials in block order (the only place partials are combined) */
static inline double jl_sum_partials(int nblock, const double *partial) {
  double s = 0.0;
  for (int b = 0; b < nblock; b++) s += partial[b];
  return s;
}

/* Push-out of overlaps (src/contact.c, src/ground.c): the slack a contact
 * works off in a step of length h, at most push_out_speed h, and no more
 * than the contact already separates at (v_sep, m/s) plus the ramp's speed
 * gain over the step, push_out_speed h / JL_PUSH_RAMP: a body at rest in an
 * overlap is accelerated to the push-out speed over JL_PUSH_RAMP seconds
 * rather than kicked to it in one step, which made it overshoot the speed by
 * 10 % and ring (docs/collision.md, "Push-out slack"). */
#define JL_PUSH_RAMP 0.1 /* s */
static inline double jl_push_out_step(double push_out_speed, double v_sep, double h) {
  double v0 = v_sep > 0.0 ? v_sep : 0.0, f = h < JL_PUSH_RAMP ? h / JL_PUSH_RAMP : 1.0;
  if (v0 >= push_out_speed) return push_out_speed * h;
  return (v0 + (push_out_speed - v0) * f) * h;
}

/* Sliding friction (src/contact.c, src/ground.c, src/rolling.c) is a lagged
 * viscosity, F = -mu N v_t / sv: it can slow a slide down to zero within a
 * step but never reverse it. Implicit Euler applies it at the step's end
 * velocity, so it is mu N only if sv is the end speed; lagged on the start
 * speed s0, an accelerating slide was too slow by mu g cos(theta) h / v (a
 * block sliding down an incline at 1/60 s just above its friction angle,
 * 10-30 %) and a decelerating one too long (a block thrown along a flat box,
 * 12 %). sv is s0 extrapolated from the last step's start speed s_prev
 * (constant acceleration), 2 s0 - s_prev, within [s0 / 2, 2 s0], and at
 * least floor. */
static inline double jl_slide_lag_speed(double s0, double s_prev, double floor) {
  double e = s_prev >= 0.0 ? 2.0 * s0 - s_prev : s0;
  double s = e < 0.5 * s0 ? 0.5 * s0 : e > 2.0 * s0 ? 2.0 * s0 : e;
  return s > floor ? s : floor;
}
/* A contact that cannot stick slides only while it moves more than this
 * fraction of its friction cone's radius mu g per step (h s0 > JL_SLIDE_MIN
 * mu g); slower, it sticks to the anchor its slide dragged along, which
 * holds it with the kinetic friction force. (A node crawling at the cone
 * kept sliding with an ever smaller speed and an ever stiffer viscosity;
 * letting slides run until their extrapolated speed reached zero instead
 * cost 2.6 times the CG iterations of default.json at dt 1/15.) */
#define JL_SLIDE_MIN 0.05

/* the implicit step's energy guard (src/world.c): splits down to h / 2^(depth - 1),
 * when the energy rises by more than this fraction of the energy moved in a step */
#define JL_GUARD_DEPTH 4
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

/* Stepper scratch, sized once in jl_world_create (no allocation in a step). */
typedef struct JlWork {
  int nnode;
  double *f;        /* nnode x 3: force / acceleration scratch */
  double *energy_f; /* nnode x 3: force scratch of jl_world_energy */
  double *x_step, *v_step, *dv_step; /* nnode x 3: state at the start of jl_world_step */
  double *x_sub, *v_sub, *dv_sub;    /* nnode x 3: state at the start of a sub-step */
  double *xs, *vs;  /* nnode x 3: explicit stage state */
  double *sx, *sv;  /* nnode x 3: RK4 stage sums; implicit Newton correction and its weights */
  double *rhs;      /* nnode x 3: implicit right-hand side */
  double *diag;     /* nnode x 9: diagonal 3x3 blocks of the implicit matrix */
  /* the parts of rhs (nnode x 3) and diag (nnode x 9) from the elements without an active set
   * (JlForce.refine), which stay as they are between an implicit step's active-set passes */
  double *rhs_fixed, *diag_fixed;
  double *x_guard, *v_guard, *dv_guard; /* JL_GUARD_DEPTH x nnode x 3: state before an energy-guarded step */
  /* the elements' history with x_step and x_sub: undoing a step restores it too */
  JlHistory hist_step, hist_sub, hist_mid;
  double *x_mid, *v_mid, *dv_mid; /* nnode x 3: state at the start of an implicit midpoint step (with hist_mid) */
  int midpoint;     /* 1 during an implicit midpoint step's half step: solved closer (src/implicit.c) */
  int keep_spin;    /* 1: free groups of bodies keep their angular momentum (src/implicit.c, spin) */
  int nbody;
  int *inverted;    /* nbody: each body's inverted tets at the last divergence check (src/world.c) */
  int *group;       /* nbody + 1: union-find of the bodies that exchanged momentum in a step (src/implicit.c) */
  double *gsum;     /* 16 (nbody + 1): per group sums (src/implicit.c momentum, spin) */
  JlCg cg;
  JlThreadTune tune; /* the thread count of each step (src/tune.h) */
  int threads;       /* this step's: JlStepDef.threads or fewer (the tuner's choice) */
  double mass_total; /* kg, all nodes (the energy guard's floor under the velocity stop) */
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
