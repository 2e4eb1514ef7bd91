/* The world: model + state + force elements + stepper.
 *
 * jl_world_step advances the state by h seconds with the chosen integrator:
 * implicit (backward) Euler after Baraff & Witkin 1998 solved matrix-free by
 * Jacobi-preconditioned CG with the constraint filter for pinned nodes, or one
 * of the explicit schemes (forward Euler, symplectic Euler, midpoint, RK4,
 * Verlet). With adaptive stepping a step whose spring strain changes by more
 * than max_strain_change, or that produces NaN, is rejected and retried with
 * half the step; the step grows back after two good steps (Kauppila sec. 3.2.3,
 * after Bridson et al. 2002; docs/references.md). */
#ifndef JL_SRC_WORLD_H
#define JL_SRC_WORLD_H

#include "src/force.h"
#include "src/settings.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum JlIntegrator {
  JL_INTEGRATOR_IMPLICIT,          /* "implicit" */
  JL_INTEGRATOR_SYMPLECTIC,        /* "symplectic" (semi-implicit Euler: v then x) */
  JL_INTEGRATOR_EULER,             /* "euler" (forward Euler) */
  JL_INTEGRATOR_MIDPOINT,          /* "midpoint" (RK2) */
  JL_INTEGRATOR_RK4,               /* "rk4" */
  JL_INTEGRATOR_VERLET,            /* "verlet" (velocity Verlet) */
  JL_INTEGRATOR_IMPLICIT_MIDPOINT, /* "implicit_midpoint": the backward Euler half step extrapolated to the
                                      whole step (second order, no numerical damping; src/world.c) */
  JL_INTEGRATOR_COUNT
} JlIntegrator;

/* "implicit", ... ; NULL for out-of-range. */
const char *jl_integrator_name(JlIntegrator i);
/* Returns JL_INTEGRATOR_COUNT for an unknown name. */
JlIntegrator jl_integrator_parse(const char *name);
/* 1 for the implicit integrators (implicit Euler, implicit midpoint): unconditionally stable, solved by
 * src/implicit.c, their default dt 1/60 s */
static inline int jl_integrator_is_implicit(JlIntegrator i) {
  return i == JL_INTEGRATOR_IMPLICIT || i == JL_INTEGRATOR_IMPLICIT_MIDPOINT;
}

typedef struct JlStepDef {
  JlIntegrator integrator;   /* default JL_INTEGRATOR_IMPLICIT */
  double tolerance;          /* CG relative residual ||r|| / ||b||, default 1e-6; used when velocity_tolerance is 0 */
  int max_iterations;        /* CG iteration cap per step, default 500 */
  int adaptive;              /* default 0 */
  double max_strain_change;  /* adaptive rejection threshold, default 0.1 (10 %) */
  double max_strain;         /* divergence bound on |l - L| / L of any spring, default 10 */
  int threads;               /* OpenMP threads of this world's parallel loops (a num_threads clause on
                               each, never process-wide), 0 = OpenMP's default; default 1 */
  int preconditioner;        /* JlPrecondKind (src/precond.h) of the implicit solve; default JL_PRECOND_DEFAULT */
  double velocity_tolerance; /* m/s: > 0 stops CG (and the Newton corrections) once no node's residual
                                momentum exceeds this times its mass (src/cg.h), instead of at `tolerance`;
                                0 = the relative tolerance. default JL_VELOCITY_TOLERANCE */
} JlStepDef;

/* the default of JlStepDef.velocity_tolerance, m/s (docs/performance.md, "Stopping by accuracy") */
#define JL_VELOCITY_TOLERANCE 1e-4

JlStepDef jl_default_step_def(void);

/* The step's numeric settings, each written once (src/settings.h): X(field of JlStepDef, scene section,
 * scene key, type, default, lo, lo_open, hi). The integrator and the preconditioner are names
 * (src/scene.c). A scene that gives solver.tolerance without solver.velocity_tolerance stops CG at
 * the relative tolerance (velocity_tolerance 0; docs/scenes.md). */
#define JL_STEP_SETTINGS(X)                                                                                    \
  X(tolerance, "solver", "tolerance", JL_SETTING_DOUBLE, 1e-6, 0.0, 1, 1.0)                                    \
  X(max_iterations, "solver", "max_iterations", JL_SETTING_INT, 500, 1, 0, 1e6)                                \
  X(velocity_tolerance, "solver", "velocity_tolerance", JL_SETTING_DOUBLE, JL_VELOCITY_TOLERANCE, 0.0, 0, 1e6) \
  X(max_strain, "solver", "max_strain", JL_SETTING_DOUBLE, 10.0, 0.0, 1, 1e6)                                  \
  X(max_strain_change, "solver", "max_strain_change", JL_SETTING_DOUBLE, 0.1, 0.0, 1, 1e6)                     \
  X(adaptive, "", "adaptive", JL_SETTING_BOOL, 0, 0, 0, 1)                                                     \
  X(threads, "", "threads", JL_SETTING_INT, 1, 0, 0, JL_MAX_THREADS)
/* the table as data (src/world.c) */
extern const JlSettingTable JL_STEP_TABLE;

/* Numerical trouble, counted in the world by kind (a warnings channel, as
 * docs/architecture.md describes). Nothing stops: the step goes on, jl_world_step's
 * report and `jelly run` say what happened. */
typedef enum JlWarningKind {
  JL_WARN_CG_CAP,      /* a linear solve stopped at the iteration cap (JlStepDef.max_iterations) */
  JL_WARN_INVERTED,    /* a body with inverted tets (signed volume <= 0) after a step, per body and step */
  JL_WARN_PUSH_OUT,    /* steps in which contacts or the ground pushed overlapping bodies apart at the
                          push-out speed limit (contact.push_out_speed) */
  JL_WARN_NONFINITE,   /* a state with NaN/Inf (the step was undone: divergence or adaptive rejection) */
  JL_WARN_ENERGY_RISE, /* implicit steps that still created energy at the energy guard's smallest split */
  JL_WARN_COUNT
} JlWarningKind;

/* "cg_cap", "inverted", "push_out", "nonfinite", "energy_rise"; NULL out of range */
const char *jl_warning_name(JlWarningKind k);

typedef struct JlWarnings {
  long count[JL_WARN_COUNT];      /* occurrences (steps or sub-steps) of each kind since creation */
  double first_t[JL_WARN_COUNT];  /* s, time at the start of the step of the first occurrence */
  char first[JL_WARN_COUNT][128]; /* what the first occurrence was ("" while count is 0) */
} JlWarnings;

/* A world's state: everything that changes its results besides the force
 * elements' history (JlForce.history_*). Copies (jl_state_assign,
 * jl_state_copy) and checkpoint files (src/state.h) take all of it: the
 * scalars with the struct, the arrays by JL_STATE_ARRAYS. */
typedef struct JlState {
  int nnode;
  double t;              /* s */
  double *x;             /* nnode x 3, m */
  double *v;             /* nnode x 3, m/s */
  double *dv;            /* nnode x 3, last implicit solution (CG warm start) */
  unsigned char *pinned; /* nnode, 0/1: this world's pin mask (jl_world_pin), which every element reads as
                            its model's `pinned` (JlWorld.model) */
  double h_adaptive;     /* s, the adaptive controller's current sub-step (0 = the full step) */
  int good_steps;        /* the adaptive controller's consecutive accepted sub-steps */
  JlWarnings warnings;   /* numerical trouble so far */
} JlState;

/* The state's arrays in checkpoint order: X(field, element type, elements per node). */
#define JL_STATE_ARRAYS(X) X(x, double, 3) X(v, double, 3) X(dv, double, 3) X(pinned, unsigned char, 1)

/* Allocates s's arrays for nnode nodes (zeroed; t and the rest 0). */
void jl_state_alloc(JlState *s, int nnode);
void jl_state_free(JlState *s);
/* dst := src, arrays copied (the same nnode; JL_ASSERT otherwise). */
void jl_state_assign(JlState *dst, const JlState *src);

/* the implicit step's energy guard (src/world.c) splits a step down to h / 2^(JL_GUARD_DEPTH - 1) */
#define JL_GUARD_DEPTH 4

/* What one jl_world_step did. */
typedef struct JlStepReport {
  int substeps;           /* accepted steps taken (1 without adaptive stepping) */
  int rejected;           /* adaptive rejections */
  int cg_iterations;      /* summed over substeps */
  int cg_failed;          /* substeps whose CG hit the iteration cap */
  double max_strain;      /* max |l - L| / L over springs after the step */
  int diverged;           /* 1: NaN/Inf or strain beyond JlStepDef.max_strain */
  int diverged_body;      /* body index when diverged */
  char message[384];      /* set when diverged: names body and likely cause */
  int energy_splits;      /* implicit steps redone as two half steps because they would have created energy */
  int energy_rises;       /* steps that still created energy at the smallest split (h / 2^(JL_GUARD_DEPTH - 1)) */
  int midpoint_fallbacks; /* implicit midpoint steps without contact redone as backward Euler steps because
                             their extrapolation would have created energy */
  int crossing_splits;    /* implicit steps redone as two half steps because thin bodies passed through each other
                          or a node ended deep inside an obstacle without a contact (JlForceOps.crossed) */
} JlStepReport;


#define JL_MAX_FORCES 16
/* OpenMP threads a world accepts (JlStepDef.threads, scene key threads, --threads) */
#define JL_MAX_THREADS      64
#define JL_MAX_THREADS_TEXT "64"

typedef struct JlWorld {
  const JlModel *model; /* what the world simulates, read-only for every stepper and element: the model it was
                           created with, but for `pinned`, which is state.pinned (src/world.c, world_init) */
  JlStepDef def;
  JlState state;
  int nforce;
  JlForce *force[JL_MAX_FORCES];
  void *work; /* the world's internals (src/world_internal.h): stepper scratch, sized at creation, and the
                 model it was created with */
} JlWorld;

/* The model the world was created with (its own pins, as built): what fingerprints and layouts are of. */
const JlModel *jl_world_base_model(const JlWorld *w);

/* Takes ownership of *m (the caller's struct is zeroed; jl_world_destroy
 * frees it). Creates the springs, gravity and (if m->world.has_ground) ground
 * elements and sets x = x0, v = v0 (pinned nodes: v = 0). */
JlResult jl_world_create(JlWorld *w, JlModel *m, const JlStepDef *def, char *err, size_t errsz);
/* The same with a model the caller keeps: it must outlive the world and not
 * change. Several worlds may share one model and step on different threads
 * (each world only reads it). Each world starts from the model's pins and
 * keeps its own pin mask (jl_world_pin). */
JlResult jl_world_create_shared(JlWorld *w, const JlModel *m, const JlStepDef *def, char *err, size_t errsz);
void jl_world_destroy(JlWorld *w);
/* Pins (on = 1) or frees (on = 0) node `node` in this world only (its pin
 * mask, JlState.pinned); a newly pinned node gets v = dv = 0. Every force
 * element reads the mask at each step's start (the ground plane leaves pinned
 * nodes out from the next step on). JL_ASSERT on a node out of range. */
void jl_world_pin(JlWorld *w, int node, int on);
/* Adds a force element (taking ownership); returns 0 when the table is full.
 * Sets f->threads from the world's JlStepDef.threads. */
int jl_world_add_force(JlWorld *w, JlForce *f);
/* The first force element of that kind, or NULL. */
JlForce *jl_world_find_force(const JlWorld *w, JlForceKind kind);
/* Takes element f out of the world's table without destroying it (the
 * caller owns it again; it may be added back with jl_world_add_force);
 * returns 0 when f is not in the table. */
int jl_world_remove_force(JlWorld *w, JlForce *f);
/* Changes the integrator from the next step on; JL_ASSERT on an unknown one. */
void jl_world_set_integrator(JlWorld *w, JlIntegrator integ);

/* Advances by h seconds. Returns JL_ERR_RUNTIME when the state diverged
 * (rep->message says which body and why); the state is then left as it was
 * before the step. */
JlResult jl_world_step(JlWorld *w, double h, JlStepReport *rep);

/* The default step of an explicit integrator (src/stable_dt.c, docs/integrators.md):
 * half the largest step for which every mode of the current state is stable
 * (highest frequency from the springs and volume force by power iteration,
 * plus the ground and contact penalty a node can feel), at most hmax. For
 * the implicit integrator dt = hmax. "Stable": the worst mode grows by at most
 * 0.1 % over `duration` seconds (1 s when 0). Forward Euler and midpoint grow
 * at every step on undamped springs: then bounded_growth = 1. */
typedef struct JlStableDt {
  double dt;    /* s */
  double omega; /* rad/s, highest angular frequency used */
  double gamma; /* 1/s, highest damping rate used */
  int bounded_growth;
} JlStableDt;
JlStableDt jl_world_stable_dt(JlWorld *w, JlIntegrator integ, double hmax, double duration);

/* The step plan of a span of simulated time (an output frame of `jelly run`
 * or `jelly view`, or the seconds of one jelly_world_step call): the same
 * number of equal steps of at most dt, a dt within JL_DT_TOL (relative) of
 * span / k counting as that fraction, as written to four digits or more
 * (0.01667 or 0.0166667 for 1/60 s). With auto_dt (an explicit integrator
 * and no dt given) dt is jl_world_stable_dt(w, integ, dt, duration) first;
 * w is read only then and may be NULL otherwise. Every front end steps by
 * it; the messages about a plan that cannot run are theirs. */
#define JL_DT_TOL 1e-3
typedef struct JlStepPlan {
  double dt;         /* s: the step limit used */
  double steps;      /* steps per span, a whole number >= 1 (a double: the caller checks its own cap) */
  double h;          /* s: span / steps */
  int auto_dt;       /* 1: dt is the explicit integrator's stable default (`stable`) */
  JlStableDt stable; /* with auto_dt */
} JlStepPlan;
JlStepPlan jl_world_step_plan(JlWorld *w, JlIntegrator integ, double span, double dt, int auto_dt, double duration);
/* 1 when dt is longer than span beyond JL_DT_TOL (a step longer than one output frame). */
int jl_dt_too_long(double dt, double span);

/* How often the thread tuner (src/tune.h) changed this world's thread count so far. */
int jl_world_thread_switches(const JlWorld *w);

/* Total force f (nnode x 3) at (x, v) from all elements; energy (J) if non-NULL. */
void jl_world_forces(const JlWorld *w, const double *x, const double *v, double *f, double *potential);

typedef struct JlEnergy {
  double kinetic; /* J */
  double elastic; /* J, springs and the volume force */
  double gravity; /* J, m g . x relative to y = 0 (i.e. -m g.x) */
  double ground;  /* J, penalty energy of every other element: the ground plane and the body and
                      obstacle contacts (stats.csv contact_energy); the name is historical */
} JlEnergy;
void jl_world_energy(const JlWorld *w, JlEnergy *e);

/* max |l - L| / L over all springs of the current state. */
double jl_world_max_strain(const JlWorld *w);

/* Updates body b's embedded surface positions (nvert x 3) from the state. */
void jl_world_surface(const JlWorld *w, int b, double *out);

#ifdef __cplusplus
}
#endif
#endif
