/* Force elements: the one interface every force family implements.
 *
 * Springs, gravity, the ground plane, and later contacts and the mouse drag
 * are all JlForce objects held by the world. Each provides
 *   force:     f += F(x, v) (and its potential energy),
 *   linearize: cache the blocks of  a * dF/dx + b * dF/dv  at (x, v) and add
 *              their diagonal 3x3 blocks into diag (Jacobi preconditioner),
 *   multiply:  out += (a * dF/dx + b * dF/dv) u with the cached blocks,
 * so implicit Euler never assembles a matrix (Baraff & Witkin 1998, sec. 5;
 * Kauppila sec. 4.1; docs/references.md). Explicit steppers use only `force`.
 *
 * Implicit Euler linearizes with a = h^2, b = h and solves
 *   (M - J) dv = h f0 + h^2 dF/dx v0,   J = h dF/dv + h^2 dF/dx.
 * With JL_LIN_EXACT unset, elements may replace indefinite parts by a
 * definite approximation (compressed springs clamp (1 - L/|x|) at 0) so that
 * M - J stays symmetric positive definite; JL_LIN_EXACT gives the true
 * derivative, which the finite-difference tests compare against. */
#ifndef JL_SRC_FORCE_H
#define JL_SRC_FORCE_H

#include "src/model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { JL_LIN_EXACT = 1 };

/* What an element is, so the world and its readers ask elements by kind
 * (energy bookkeeping, the energy guard, the wind's gust time) instead of
 * comparing names. */
typedef enum JlForceKind {
  JL_FORCE_OTHER,    /* an element the world knows nothing about: not conservative */
  JL_FORCE_SPRINGS,  /* src/springs.c: elastic */
  JL_FORCE_VOLUME,   /* src/volume.c: elastic */
  JL_FORCE_GRAVITY,  /* src/gravity.c */
  JL_FORCE_GROUND,   /* src/ground.c: penalty */
  JL_FORCE_CONTACTS, /* src/contact.c: penalty */
  JL_FORCE_ROLLING,  /* src/rolling.c: rolling resistance, penalty */
  JL_FORCE_WIND,     /* src/wind.c: does work */
  JL_FORCE_DRAG,     /* src/drag.c: the mouse drag, does work */
  JL_FORCE_IMPACT,   /* src/impact.c: the impact law; holds energy for rebounds (penalty) */
  JL_FORCE_KIND_COUNT
} JlForceKind;

/* Where JlForceOps.offdiag reports to. block: the block C = (row i,
 * column j), i != j, of a general element, once per unordered pair and
 * element (C_ji = C_ij^T is implied). pairs: `count` terms of differences
 * x_i - x_j (springs) at once, term p between nodes ij[2p] and ij[2p + 1]
 * contributing [[B, -B], [-B, B]] with B_p symmetric as 6 doubles (xx, xy,
 * xz, yy, yz, zz) at b6 + 6p, whose diagonal blocks +B are already in the
 * diagonal the element gave; the sink takes them in any order it likes (so
 * it may gather them in parallel), and ij stays the same array (the
 * model's) from call to call. */
typedef struct JlOffdiagSink {
  void *ctx;
  void (*block)(void *ctx, int i, int j, const double C[9]);
  void (*pairs)(void *ctx, int count, const int *ij, const double *b6, int threads);
} JlOffdiagSink;

typedef struct JlForce JlForce;

/* What an element does: one const table per family (src/springs.c, ...),
 * shared by all its instances. Callers go through e->ops->...; the optional
 * members may be NULL. */
typedef struct JlForceOps {
  const char *name; /* for messages; never compared: use kind */
  JlForceKind kind;
  /* f (nnode x 3) += F(x, v); *energy += potential energy (J) if energy != NULL */
  void (*force)(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f, double *energy);
  /* caches a*dF/dx + b*dF/dv at (x, v); diag (nnode x 9, row-major 3x3) +=
   * its diagonal blocks. diag may be NULL. jl_force_no_linearize for
   * elements whose force depends on neither x nor v. */
  void (*linearize)(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b, int flags,
                    double *diag);
  /* out (nnode x 3) += (cached matrix) * u; jl_force_no_multiply with
   * jl_force_no_linearize */
  void (*multiply)(const JlForce *e, const JlModel *m, const double *u, double *out);
  /* Optional (may be NULL): out (nnode x 3) += a F(x, v) + b dF/dx(x, v) v,
   * the element's part of the implicit step's right-hand side (a = h,
   * b = h^2) in one pass, with the Jacobian linearize gives for flags 0.
   * Without it the stepper calls force, linearize(b, 0) and multiply by v;
   * with it the element's cached matrix is left as it was. */
  void (*step_rhs)(const JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                   double *out);
  /* frees the element's data (e->self); NULL: e->self is one plain block,
   * freed with free() */
  void (*free_self)(void *self);
  /* Optional (may be NULL): called once at the start of every (sub)step, before
   * any force/linearize call of that step, with the state (x, v) there and the
   * step length h (s). Contacts use it to run collision detection and hold the
   * contact set fixed for the step. */
  void (*begin_step)(JlForce *e, const JlModel *m, const double *x, const double *v, double h);
  /* Optional (may be NULL), implicit steppers only: elements whose force is
   * piecewise linear with an on/off set (contacts) keep that set fixed for a
   * whole linear solve. refine(e, m, NULL, NULL) after begin_step switches the
   * element to that mode and takes the set from the step's start; after a
   * solve, refine(e, m, x1, v1) with the end-of-step state updates the set
   * (switches on contacts whose gap closed during the step, off those that
   * would pull) and returns how many changed, so the stepper can solve again
   * (a primal active-set iteration). It also sets e->undoing to how many of
   * those changes may undo an earlier pass's (contacts switched off, pairs
   * re-linearized): passes that only switch contacts on grow the set, which
   * cannot cycle, so the stepper lets them run longer (src/implicit.c).
   * begin_step leaves that mode again, so explicit steppers see the plain
   * piecewise force. */
  int (*refine)(JlForce *e, const JlModel *m, const double *x1, const double *v1);
  /* Optional (may be NULL), implicit steppers only: after a step from (x0,
   * v0) to x1 (every node moves on the straight line between them), 1 when that
   * path carries primitives through each other that the element's linear
   * gaps did not hold apart (thin edge-edge pairs whose segments turned
   * within the step, nodes that ended deep inside an obstacle without a
   * contact, src/contact.c); the stepper then redoes the step as two
   * half steps (src/world.c). crossed(e, m, NULL, NULL, NULL): 1 when the
   * element checks steps at all (the stepper then keeps the step's start to
   * redo it). */
  int (*crossed)(const JlForce *e, const JlModel *m, const double *x0, const double *v0, const double *x1);
  /* Optional (may be NULL): after begin_step, 1 when the element does work
   * on the bodies in this step on purpose (contacts and the ground pushing
   * overlapping bodies apart at the push-out speed), so the step may add
   * energy; the implicit step's energy guard (src/world.c) then stands aside. */
  int (*pushing)(const JlForce *e);
  /* Optional (may be NULL): reports the off-diagonal part of the element's
   * cached matrix (the last linearize's a dF/dx + b dF/dv) to a sink
   * (below); a preconditioner stronger than the diagonal (src/precond.h)
   * assembles it, and elements without it enter that preconditioner through
   * their diagonal blocks only. */
  void (*offdiag)(const JlForce *e, const JlModel *m, const JlOffdiagSink *sink);
  /* Optional (may be NULL): after an implicit step's solves, joins in the
   * union-find `group` (jl_uf_union, nbody + 1 entries; entry nbody stands
   * for the fixed world) the bodies between which this element's forces
   * moved momentum in the step (a contact joins its two bodies), and every
   * body it held against the world (the ground, an obstacle). The stepper
   * then restores the momentum of groups that exchange none with the world
   * (src/implicit.c, "momentum"). Elements without it are internal to a body
   * or state-independent (springs, volume, gravity, constant forces: those
   * whose Jacobian is zero use jl_force_no_linearize); any other element
   * without it is taken to hold every body against the world. */
  void (*couple)(const JlForce *e, const JlModel *m, int *group);
  /* Optional (may be NULL), all three or none: the history an element carries
   * from one step to the next and that changes results (contacts' friction
   * anchors, slack and last contact set; the ground's anchors and slack).
   * Scratch that is rebuilt before it is read does not belong here.
   * history_size: bytes history_save writes now. history_load reads n bytes
   * written by history_save of an element of the same kind and model (another
   * world's, or a checkpoint file's: it must check every count and index
   * against m and return 0 for malformed data, leaving the element usable). */
  size_t (*history_size)(const JlForce *e);
  void (*history_save)(const JlForce *e, unsigned char *out);
  int (*history_load)(JlForce *e, const JlModel *m, const unsigned char *in, size_t n);
} JlForceOps;

/* One element: its family's table and its own data. */
struct JlForce {
  const JlForceOps *ops;
  const char *name; /* ops->name, kept here for messages */
  JlForceKind kind; /* ops->kind, kept here for the world's lookups */
  int threads;      /* OpenMP threads of the element's parallel loops, 0 = OpenMP's default; set by
                         jl_world_add_force from JlStepDef.threads */
  int implicit;     /* 1 when the world steps implicitly (set before each begin_step): elements may
                         then use stiffnesses an explicit step of the same length could not */
  int undoing;      /* of the last refine(e, m, x1, v1)'s changes, those that may undo an earlier pass's */
  void *self;       /* element-owned data, freed by ops->free_self */
};

/* src/force.c: the one way elements are made and freed. jl_force_new wraps
 * self (owned from then on) in an element of the family ops (a static table
 * that outlives it); jl_force_free(e) frees self through ops->free_self and e.
 * e may be NULL. */
JlForce *jl_force_new(const JlForceOps *ops, void *self);
void jl_force_free(JlForce *e);
/* linearize/multiply of an element with dF/dx = dF/dv = 0 (gravity, a
 * prescribed external force) */
void jl_force_no_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                           int flags, double *diag);
void jl_force_no_multiply(const JlForce *e, const JlModel *m, const double *u, double *out);

/* The built-in families. Each returns a heap object freed by jl_force_free(e). */
JlForce *jl_springs_create(const JlModel *m);
JlForce *jl_gravity_create(const JlModel *m);
JlForce *jl_ground_create(const JlModel *m);
/* Contacts between bodies and with obstacles: src/contact.h. */

#ifdef __cplusplus
}
#endif
#endif
