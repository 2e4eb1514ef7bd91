/* Jelly's public API: the whole supported interface of the library, installed
 * as <jelly/jelly.h> (docs/api.md: include, link, pkg-config, find_package).
 *
 * A JellyModel describes what to simulate: the bodies of a scene file, or
 * bodies built from in-memory triangle surfaces (each tetrahedralized with
 * TetGen, as a scene body is). A JellyWorld is one simulation of a model:
 * node positions and velocities, pins and external forces, stepped by
 * implicit Euler. Everything else in the source tree (src/, mesh/,
 * collision/) is private and may change between versions.
 *
 * Units are SI throughout (m, kg, s, N, J, Pa); Y is up. Nodes are numbered
 * 0..jelly_world_node_count()-1 over all bodies, body after body.
 *
 * Errors: every function that can fail returns a JellyResult (JELLY_OK = 0)
 * and, when err is not NULL and errsz > 0, writes a one-line reason into err
 * (naming the argument, file, key or body). Arguments are checked: NULL
 * handles, out-of-range indices, non-finite numbers and negative steps are
 * errors, never crashes. Functions that return a value instead (counts,
 * pointers, time) return 0 or NULL for a NULL handle.
 *
 * Model and worlds: a model is built once (TetGen runs when a body is added
 * or a scene loaded; the engine model at load or at the first
 * jelly_world_new) and every world of it shares it read-only; what changes
 * (positions, velocities, pins, contact history, warnings) is each world's
 * state. A model's worlds keep it alive: jelly_model_free while worlds live
 * frees it with the last of them.
 *
 * Threads (as Box2D states it for its worlds; docs/api.md has the table):
 * distinct worlds are independent, so different threads may step different
 * worlds at the same time, also worlds of one model. One world must not be
 * used from two threads at once (no call on a world may overlap another call
 * on the same world, readers included; jelly_world_copy_state uses both of
 * its worlds). Calls that take a model (jelly_model_*, jelly_world_new) and
 * jelly_world_free, which releases the model's reference, go on one thread
 * at a time per model. Loading and building (jelly_model_load,
 * jelly_model_add_body, jelly_model_add_mesh, the first jelly_world_new of
 * a model of arrays) run the mesh importer and TetGen in forked child
 * processes; do that before starting threads, or from one thread at a time.
 * jelly_set_assert_handler is process-wide: set it before starting threads.
 * A world may use OpenMP threads inside a step (JellyModelDef.threads). */
#ifndef JELLY_JELLY_H
#define JELLY_JELLY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JELLY_VERSION_MAJOR 0
#define JELLY_VERSION_MINOR 1
#define JELLY_VERSION_PATCH 0
#define JELLY_VERSION       "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons */
#define JELLY_VERSION_NUMBER (JELLY_VERSION_MAJOR * 10000 + JELLY_VERSION_MINOR * 100 + JELLY_VERSION_PATCH)

/* Marks the exported functions: the shared library hides every other symbol. */
#if defined(_WIN32)
#define JELLY_API
#elif defined(__GNUC__) || defined(__clang__)
#define JELLY_API __attribute__((visibility("default")))
#else
#define JELLY_API
#endif

/* The same values as the `jelly` program's exit codes. */
typedef enum JellyResult {
  JELLY_OK = 0,
  JELLY_ERR_RUNTIME = 1, /* the simulation diverged (the state is left as before the failed step) */
  JELLY_ERR_INPUT = 2,   /* a bad argument, file, scene key or surface */
  JELLY_ERR_SYSTEM = 3   /* the system refused: a child process that cannot start, out of memory */
} JellyResult;

/* The library's version, "MAJOR.MINOR.PATCH"; may differ from JELLY_VERSION
 * when a program runs against another build of the shared library. */
JELLY_API const char *jelly_version(void);
/* The same string under its first name (jl_ is otherwise the library's
 * private prefix). */
JELLY_API const char *jl_version(void);

/* Called when the library finds a broken internal contract (a bug, not bad
 * input: bad arguments are JellyResult errors). file and line are the
 * library's, expr the failed condition, msg what was expected. */
typedef void (*JellyAssertHandler)(const char *file, int line, const char *expr, const char *msg);

/* Installs handler (NULL: the default, which prints and aborts) for the
 * whole process and returns the previous one. The handler must not return:
 * it should longjmp out (or end the process its own way) and then throw away
 * every world and model in use, which may be half updated; if it returns,
 * the library aborts. Set it before starting threads. */
JELLY_API JellyAssertHandler jelly_set_assert_handler(JellyAssertHandler handler);

/* ---- models ------------------------------------------------------------------ */

typedef struct JellyModel JellyModel; /* opaque */

/* World settings of a model built from arrays (a scene file has its own). */
typedef struct JellyModelDef {
  double gravity[3];          /* m/s^2, default (0, -9.81, 0) */
  int has_ground;             /* 1: a ground plane y = ground_y; default 0 */
  double ground_y;            /* m, default 0 */
  double ground_friction;     /* Coulomb-like coefficient >= 0, default 0.5 */
  double dt;                  /* s, the longest step jelly_world_step takes, default 1/60 */
  int threads;                /* OpenMP threads inside a step, 0 = the library's default; default 1 */
  double ground_restitution;  /* coefficient of restitution of impacts on the ground, in [0, 1]; default 0.5 */
  double contact_restitution; /* the same between bodies; default 0.5 (docs/physics.md, "Restitution") */
} JellyModelDef;

JELLY_API JellyModelDef jelly_default_model_def(void);

/* Limits on reading and tetrahedralizing a mesh file (docs/robustness.md): the importer (assimp) and
 * TetGen run in child processes held to them, so a hostile file is refused instead of exhausting the
 * machine. Process-wide: they apply to every later mesh read, from any thread. Errors that a limit
 * stopped name it ("mesh limit memory_mb"). */
typedef struct JellyMeshLimits {
  double timeout_s;   /* s, wall clock (and CPU time) of one child; default 60 */
  double memory_mb;   /* MB (2^20 bytes), address space of one child; default 8192 */
  double max_file_mb; /* MB, the largest mesh file (and each file it references); default 1024 */
} JellyMeshLimits;

JELLY_API JellyMeshLimits jelly_default_mesh_limits(void);
/* The limits in force (the defaults until jelly_set_mesh_limits). */
JELLY_API JellyMeshLimits jelly_mesh_limits(void);
/* Sets them: timeout_s in (0, 86400], memory_mb and max_file_mb in (0, 1048576]; JELLY_ERR_INPUT
 * naming the field otherwise (the limits then stay as they were). */
JELLY_API JellyResult jelly_set_mesh_limits(const JellyMeshLimits *limits, char *err, size_t errsz);

/* Loads a scene file (JSON, docs/scenes.md) and builds its bodies (meshes are
 * read and tetrahedralized here, so errors show now). The scene's integrator,
 * solver settings and dt are used (without a dt: 1/60 s for the implicit
 * integrator, half the stability limit for an explicit one, as `jelly run`).
 * On success *out is a model to free with jelly_model_free. */
JELLY_API JellyResult jelly_model_load(const char *path, JellyModel **out, char *err, size_t errsz);

/* The same from a scene's JSON text in memory (a binding's scene dictionary,
 * a scene generated by a program): `name` is the path the text stands for,
 * naming it in messages and anchoring relative mesh paths (its folder), as
 * the file's path does for jelly_model_load; no file of that name need
 * exist. text is NUL-terminated; errors name the key path as for a file. */
JELLY_API JellyResult jelly_model_load_json(const char *text, const char *name, JellyModel **out, char *err,
                                            size_t errsz);

/* An empty model to which jelly_model_add_body adds bodies. def may be NULL
 * (defaults). */
JELLY_API JellyResult jelly_model_new(const JellyModelDef *def, JellyModel **out, char *err, size_t errsz);

/* Material, placement and meshing of a body built from arrays. */
typedef struct JellyBodyDef {
  const char *name;           /* copied, at most 63 bytes; NULL: "body<i>" */
  double density;             /* kg/m^3 > 0, default 1000 */
  double stiffness;           /* N/m per spring, used when young_modulus is 0; default 5000 */
  double young_modulus;       /* Pa >= 0; > 0 derives the springs and a volume force from it; default 0 */
  double poisson_ratio;       /* 0 <= nu < 0.5, with young_modulus; default 0.25 */
  double damping;             /* N s/m per spring, along the spring; default 0.5 */
  double velocity[3];         /* m/s, initial velocity of every node; default 0 */
  double scale;               /* > 0, applied first; default 1 */
  double rotate_deg[3];       /* degrees, XYZ Euler about the world axes, applied second; default 0 */
  double translate[3];        /* m, applied last; default 0 */
  int embedded;               /* 0: conforming tets, the surface's vertices are nodes; 1: a lattice of tets
                             around the surface, which rides on it (any surface resolution); default 0 */
  double max_volume;          /* m^3, largest tet of a conforming mesh, 0 = TetGen's choice; default 0 */
  double resolution;          /* m, lattice spacing of an embedded mesh, 0 = bounding-box diagonal / 12; default 0 */
  double material_damping;    /* s >= 0, Kelvin-Voigt material damping: each spring also gets a dashpot of this x its
                              stiffness, at most critical (docs/physics.md); default 0.005 */
  double angular_velocity[3]; /* rad/s, initial spin about the body's centre of mass: every node also gets
                                 angular_velocity x (x - centre); default 0 */
  double volume_stiffness;    /* Pa, the volume force's modulus set directly; < 0 = derived from young_modulus and
                                 poisson_ratio (0 without young_modulus); default -1 */
  int calibrate;              /* 1: with young_modulus, scale the springs so that the body's own mesh has the
                                 material's shear modulus (docs/physics.md); default 1 */
  int self_collision;         /* 1: the body collides with itself; default 0 */
} JellyBodyDef;

JELLY_API JellyBodyDef jelly_default_body_def(void);

/* Adds a body: a closed, oriented (counter-clockwise seen from outside)
 * triangle surface of nvert vertices (nvert x 3 doubles, metres, finite) and
 * ntri triangles (ntri x 3 vertex indices), both copied. The surface is
 * checked (closed, manifold, not self-intersecting) and tetrahedralized now;
 * def may be NULL (defaults). Fails for a model loaded from a scene file and
 * for a model that has live worlds (they share its built bodies). */
JELLY_API JellyResult jelly_model_add_body(JellyModel *model, const double *vertices, int nvert, const int *triangles,
                                           int ntri, const JellyBodyDef *def, char *err, size_t errsz);

/* Adds a body whose surface is read from a mesh file (OBJ, STL, PLY, OFF,
 * glTF, ...: what assimp reads, docs/robustness.md for the limits), then
 * placed, checked and tetrahedralized as jelly_model_add_body does. A path
 * ending in .node or .ele (TetGen), .msh (Gmsh 2.2/4.1), .vtk or .vtu (VTK)
 * is a tet mesh made elsewhere: its tets are used as they are (checked,
 * reoriented where inverted; docs/scenes.md "Tet meshes from other tools"),
 * placed by def's scale, rotate_deg and translate, and its boundary is the
 * body's surface; def->embedded, max_volume and resolution must then be 0
 * (JELLY_ERR_INPUT otherwise). */
JELLY_API JellyResult jelly_model_add_mesh(JellyModel *model, const char *path, const JellyBodyDef *def, char *err,
                                           size_t errsz);

/* The model's numeric settings by their scene names (docs/scenes.md): "contact.friction",
 * "ground.stiffness", "solver.tolerance", "threads", "adaptive", ... (the keys of the scene's "ground",
 * "contact" and "solver" sections and the top-level "threads" and "adaptive"). Setting one checks it
 * against the range a scene accepts (JELLY_ERR_INPUT naming the range); a model with live worlds
 * refuses changes (they share it). "ground.*" settings apply once the model has a ground
 * (JellyModelDef.has_ground or a scene's "ground"). jelly_setting_name(i) lists them: the i-th name,
 * NULL past the last. */
JELLY_API JellyResult jelly_model_set_setting(JellyModel *model, const char *name, double value, char *err,
                                              size_t errsz);
JELLY_API JellyResult jelly_model_setting(const JellyModel *model, const char *name, double *value, char *err,
                                          size_t errsz);
JELLY_API const char *jelly_setting_name(int index);

/* Number of bodies of the model (0 for NULL). */
JELLY_API int jelly_model_body_count(const JellyModel *model);

/* Frees the model (NULL is fine). Worlds made from it are not affected: they
 * share its engine model, so while any lives the model is only marked (no
 * more jelly_model_* or jelly_world_new calls on it) and the last
 * jelly_world_free frees it. */
JELLY_API void jelly_model_free(JellyModel *model);

/* ---- worlds ------------------------------------------------------------------- */

typedef struct JellyWorld JellyWorld; /* opaque */

/* A simulation of the model at time 0: every node at rest or at its body's
 * initial velocity. A model may make any number of worlds, which share its
 * built bodies (the first world of a model of arrays builds them). On
 * success *out is a world to free with jelly_world_free. */
JELLY_API JellyResult jelly_world_new(JellyModel *model, JellyWorld **out, char *err, size_t errsz);

/* Frees the world (NULL is fine). Pointers it handed out become invalid. */
JELLY_API void jelly_world_free(JellyWorld *world);

/* Advances by `seconds` (> 0, finite, at most 1e6) in equal steps no longer
 * than the model's dt. JELLY_ERR_RUNTIME when the simulation diverged: err
 * names the body and the likely cause, and the state is left as it was
 * before the step that failed. */
JELLY_API JellyResult jelly_world_step(JellyWorld *world, double seconds, char *err, size_t errsz);

/* Simulated time, s. */
/* The steps jelly_world_step(world, seconds) takes (equal steps of at most the model's dt); 0 for a
 * NULL world or seconds out of (0, 1e6]. Taking them one at a time, jelly_world_step(world, seconds / n)
 * n times, gives bitwise what the one call gives (a host can stop in between). */
JELLY_API long jelly_world_step_count(const JellyWorld *world, double seconds);
JELLY_API double jelly_world_time(const JellyWorld *world);

/* The model's step, s: the longest step jelly_world_step takes (the scene's
 * dt, or its default), so a caller can step whole steps (seconds = n dt). */
JELLY_API double jelly_world_dt(const JellyWorld *world);

/* Number of nodes over all bodies. */
JELLY_API int jelly_world_node_count(const JellyWorld *world);

/* Node positions (m) and velocities (m/s), node_count x 3 doubles owned by
 * the world: valid until jelly_world_free, updated by every step. */
JELLY_API const double *jelly_world_positions(const JellyWorld *world);
JELLY_API const double *jelly_world_velocities(const JellyWorld *world);

/* Mass of a node, kg. */
JELLY_API JellyResult jelly_world_node_mass(const JellyWorld *world, int node, double *kg, char *err, size_t errsz);

/* Number of bodies. */
JELLY_API int jelly_world_body_count(const JellyWorld *world);

typedef struct JellyBodyInfo {
  char name[64];
  int first_node, node_count;       /* the body's nodes: first_node .. first_node + node_count - 1 */
  double mass;                      /* kg */
  int vertex_count, triangle_count; /* its surface (jelly_world_body_surface) */
} JellyBodyInfo;

JELLY_API JellyResult jelly_world_body_info(const JellyWorld *world, int body, JellyBodyInfo *info, char *err,
                                            size_t errsz);

/* Body `body`'s surface as it is now: the triangle surface it was built from,
 * carried by its tets (vertex_count x 3 doubles, m; triangle_count x 3
 * vertex indices, counter-clockwise from outside; a rope has no triangles).
 * The arrays belong to the world and stay valid until the next call for
 * the same body or jelly_world_free. Any pointer argument but world may be
 * NULL when not wanted. */
JELLY_API JellyResult jelly_world_body_surface(JellyWorld *world, int body, const double **vertices, int *vertex_count,
                                               const int **triangles, int *triangle_count, char *err, size_t errsz);

/* on = 1 holds the node where it is (its velocity becomes 0, no force moves
 * it) until released with on = 0. Nodes pinned by the scene file can be
 * released too. Pins belong to this world (other worlds of the model keep
 * theirs) and are part of its state (copied and saved). The ground plane
 * keeps leaving out the nodes the model pinned, not the ones pinned here. */
JELLY_API JellyResult jelly_world_pin(JellyWorld *world, int node, int on, char *err, size_t errsz);

/* Setting the state. The world then goes on exactly (bitwise) as a world created in that state
 * would: the solver's warm start, the adaptive step and every element's history (contact memory,
 * friction anchors, impacts under way) start again as at jelly_world_new; the time, the pins, the
 * warnings, set forces and a drag stay. Pinned nodes keep zero velocity.
 * set_positions / set_velocities: count must be the node count, values (count x 3, m or m/s)
 * finite and within 1e6. set_body_pose: moves body rigidly, rotation (row-major 3x3, a proper
 * rotation to 1e-9; NULL: none) about its centre of mass (by node masses) and then translation (m;
 * NULL: none); its velocities turn with it. set_body_velocity: every node of the body gets linear +
 * angular x (x - centre of mass), as a scene's "velocity" and "angular_velocity" give them (m/s,
 * rad/s; NULL: zero). */
JELLY_API JellyResult jelly_world_set_positions(JellyWorld *world, const double *positions, int count, char *err,
                                                size_t errsz);
JELLY_API JellyResult jelly_world_set_velocities(JellyWorld *world, const double *velocities, int count, char *err,
                                                 size_t errsz);
JELLY_API JellyResult jelly_world_set_body_pose(JellyWorld *world, int body, const double translation[3],
                                                const double rotation[9], char *err, size_t errsz);
JELLY_API JellyResult jelly_world_set_body_velocity(JellyWorld *world, int body, const double linear[3],
                                                    const double angular[3], char *err, size_t errsz);

/* A constant force (N, finite) on the node from now on, replacing the
 * previous one; (0, 0, 0) removes it. Its potential energy -F.x counts in
 * JellyEnergies.external. An input, not state: jelly_world_copy_state and
 * jelly_world_load leave the world's forces (and drag) as they are. */
JELLY_API JellyResult jelly_world_set_force(JellyWorld *world, int node, const double force[3], char *err,
                                            size_t errsz);

typedef struct JellyEnergies {
  double kinetic;  /* J, 1/2 sum m v^2 */
  double elastic;  /* J, springs and the volume force */
  double gravity;  /* J, -sum m g.x (zero at y = 0 for the default gravity) */
  double contact;  /* J, penalty energy of the ground and of contacts */
  double external; /* J, -sum F.x of the forces of jelly_world_set_force, plus the drag spring's
                      k/2 |target - p|^2 while dragging */
  double total;    /* J, the sum of the above */
} JellyEnergies;

JELLY_API JellyResult jelly_world_energies(const JellyWorld *world, JellyEnergies *out, char *err, size_t errsz);

/* A row of `jelly run`'s stats.csv (docs/cli.md, "What `jelly run` writes") for this
 * world now: the counters cover the steps since the last call with reset = 1
 * (a frame; since jelly_world_new before the first), the rest is the state
 * now. contact_energy is JellyEnergies.contact (the forces of
 * jelly_world_set_force and the drag are not in it). */
typedef struct JellyStats {
  double time;           /* s */
  long steps;            /* steps taken (accepted adaptive sub-steps included) */
  long cg_iterations;    /* linear-solver iterations summed over those steps */
  long cg_failed;        /* those steps whose solver stopped at its iteration cap */
  long energy_splits;    /* implicit steps redone as two half steps (energy guard) */
  double kinetic_energy; /* J */
  double elastic_energy; /* J */
  double gravity_energy; /* J */
  double max_strain;     /* largest |l - L|/L over all springs */
  double min_y;          /* m, the lowest node (+inf without nodes) */
  int contacts;          /* nodes below the ground plane plus nodes penetrating bodies and obstacles
                            (as detected at the start of the last step) */
  double contact_energy; /* J, penalty energy of the ground and of contacts */
  int inverted_tets;     /* tets with signed volume <= 0 now */
  long crossing_splits;  /* implicit steps redone as two half steps because rope segments or cloth edges passed
                            through each other along the step (docs/collision.md) */
} JellyStats;

/* Fills *out; reset = 1 then starts the next frame's counters. */
JELLY_API JellyResult jelly_world_stats(JellyWorld *world, int reset, JellyStats *out, char *err, size_t errsz);

/* Kinds of numerical trouble (docs/robustness.md): results to look at twice.
 * Nothing stops; the step goes on. */
typedef enum JellyWarningKind {
  JELLY_WARN_SOLVER_CAP,  /* a linear solve stopped at its iteration cap before converging */
  JELLY_WARN_INVERTED,    /* a body with tets turned inside out after a step (per body and step) */
  JELLY_WARN_PUSH_OUT,    /* steps in which contacts pushed overlapping bodies apart at the speed limit */
  JELLY_WARN_NONFINITE,   /* a state with NaN/Inf, undone (divergence or an adaptive step's retry) */
  JELLY_WARN_ENERGY_RISE, /* steps that created energy even at an eighth of the step */
  JELLY_WARN_COUNT
} JellyWarningKind;

/* "solver_cap", "inverted", "push_out", "nonfinite", "energy_rise"; NULL out of range. */
JELLY_API const char *jelly_warning_name(JellyWarningKind kind);

typedef struct JellyWarnings {
  long count[JELLY_WARN_COUNT];        /* occurrences of each kind (state: copied, saved and loaded) */
  double first_time[JELLY_WARN_COUNT]; /* s, simulated time of the step of the first occurrence */
  char first[JELLY_WARN_COUNT][128];   /* what the first occurrence was ("" while the count is 0) */
  long steps;                          /* steps this world object took (adaptive sub-steps included) */
  long diverged;                       /* jelly_world_step calls of this object that failed with
                                        JELLY_ERR_RUNTIME */
  int inverted_tets;                   /* tets turned inside out now (material too soft for the load or the step) */
} JellyWarnings;

JELLY_API JellyResult jelly_world_warnings(const JellyWorld *world, JellyWarnings *out, char *err, size_t errsz);

/* ---- states ------------------------------------------------------------------- */

/* dst's state := src's: time, positions, velocities, the solver's warm start,
 * pins, contact and friction history, adaptive step and warning counts, so
 * both step on bitwise alike (rollback, what-if runs, a state per thread).
 * Both must be worlds of one model (or of models built alike: the same
 * scene file or arrays, same library build); else JELLY_ERR_INPUT and dst is
 * unchanged. Forces of jelly_world_set_force and the drag are not copied. */
JELLY_API JellyResult jelly_world_copy_state(JellyWorld *dst, const JellyWorld *src, char *err, size_t errsz);

/* Writes the world's state (what jelly_world_copy_state copies) to a
 * checkpoint file at path (replaced; written to "<path>.tmp" first).
 * JELLY_ERR_SYSTEM when it cannot be written. The file is for the same
 * library build on the same kind of machine (docs/architecture.md,
 * "Checkpoint files"). */
JELLY_API JellyResult jelly_world_save(const JellyWorld *world, const char *path, char *err, size_t errsz);

/* Reads a checkpoint of jelly_world_save into the world, which must be of
 * the model it was saved from (or one built alike). JELLY_ERR_INPUT (the
 * world unchanged) for a file that is not a checkpoint, is of another
 * model, build or format version, truncated or corrupted; JELLY_ERR_SYSTEM
 * when it cannot be opened. Stepping on gives bitwise the run that saved. */
JELLY_API JellyResult jelly_world_load(JellyWorld *world, const char *path, char *err, size_t errsz);

/* ---- drag --------------------------------------------------------------------- */

/* Grabs the point bary (barycentric weights >= 0 summing to 1) of triangle
 * `triangle` of body `body`'s surface (the triangles of
 * jelly_world_body_surface) with a damped spring to target (m): F = k
 * (target - p) + kd (target velocity - p'), in the implicit solve with its
 * exact Jacobian, so any stiffness is stable (the viewer's mouse drag).
 * stiffness k (N/m) and damping kd (N s/m) >= 0; 0 chooses from the body's
 * mass m_b: k = 400 m_b, kd = 20 m_b. Replaces a previous drag. Bodies
 * without tets (cloth, ropes) cannot be dragged (JELLY_ERR_INPUT). */
JELLY_API JellyResult jelly_world_drag(JellyWorld *world, int body, int triangle, const double bary[3],
                                       const double target[3], double stiffness, double damping, char *err,
                                       size_t errsz);

/* Moves the drag's target (m) with velocity (m/s; NULL: at rest), e.g. the
 * cursor's. JELLY_ERR_INPUT when nothing is dragged. */
JELLY_API JellyResult jelly_world_drag_move(JellyWorld *world, const double target[3], const double velocity[3],
                                            char *err, size_t errsz);

/* Lets go (nothing happens when nothing is dragged): the body keeps the
 * velocity the spring gave it. */
JELLY_API JellyResult jelly_world_drag_release(JellyWorld *world, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
