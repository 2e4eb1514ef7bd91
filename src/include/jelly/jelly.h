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
 * Threads (as Box2D states it for its worlds): distinct worlds are
 * independent, so different threads may step different worlds at the same
 * time. One world must not be used from two threads at once (no call on a
 * world may overlap another call on the same world, readers included). A
 * model is only read by jelly_world_new, but not concurrently: do not call
 * jelly_world_new on one model from two threads at once, nor free a model
 * while a thread is building a world from it; worlds do not refer to their
 * model afterwards, so a model may be freed while its worlds live on.
 * Loading and building (jelly_model_load, jelly_model_add_body,
 * jelly_world_new) run the mesh importer and TetGen in forked child
 * processes; do that before starting threads, or from one thread at a time.
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
#define JELLY_VERSION "0.1.0"
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

/* ---- models ------------------------------------------------------------------ */

typedef struct JellyModel JellyModel; /* opaque */

/* World settings of a model built from arrays (a scene file has its own). */
typedef struct JellyModelDef {
  double gravity[3];      /* m/s^2, default (0, -9.81, 0) */
  int has_ground;         /* 1: a ground plane y = ground_y; default 0 */
  double ground_y;        /* m, default 0 */
  double ground_friction; /* Coulomb-like coefficient >= 0, default 0.5 */
  double dt;              /* s, the longest step jelly_world_step takes, default 1/60 */
  int threads;            /* OpenMP threads inside a step, 0 = the library's default; default 1 */
} JellyModelDef;

JELLY_API JellyModelDef jelly_default_model_def(void);

/* Loads a scene file (JSON, docs/scenes.md) and builds its bodies (meshes are
 * read and tetrahedralized here, so errors show now). The scene's integrator,
 * solver settings and dt are used (without a dt: 1/60 s for the implicit
 * integrator, half the stability limit for an explicit one, as `jelly run`).
 * On success *out is a model to free with jelly_model_free. */
JELLY_API JellyResult jelly_model_load(const char *path, JellyModel **out, char *err, size_t errsz);

/* An empty model to which jelly_model_add_body adds bodies. def may be NULL
 * (defaults). */
JELLY_API JellyResult jelly_model_new(const JellyModelDef *def, JellyModel **out, char *err, size_t errsz);

/* Material, placement and meshing of a body built from arrays. */
typedef struct JellyBodyDef {
  const char *name;       /* copied, at most 63 bytes; NULL: "body<i>" */
  double density;         /* kg/m^3 > 0, default 1000 */
  double stiffness;       /* N/m per spring, used when young_modulus is 0; default 5000 */
  double young_modulus;   /* Pa >= 0; > 0 derives the springs and a volume force from it; default 0 */
  double poisson_ratio;   /* 0 <= nu < 0.5, with young_modulus; default 0.25 */
  double damping;         /* N s/m per spring, along the spring; default 0.5 */
  double velocity[3];     /* m/s, initial velocity of every node; default 0 */
  double scale;           /* > 0, applied first; default 1 */
  double rotate_deg[3];   /* degrees, XYZ Euler about the world axes, applied second; default 0 */
  double translate[3];    /* m, applied last; default 0 */
  int embedded;           /* 0: conforming tets, the surface's vertices are nodes; 1: a lattice of tets
                             around the surface, which rides on it (any surface resolution); default 0 */
  double max_volume;      /* m^3, largest tet of a conforming mesh, 0 = TetGen's choice; default 0 */
  double resolution;      /* m, lattice spacing of an embedded mesh, 0 = bounding-box diagonal / 12; default 0 */
} JellyBodyDef;

JELLY_API JellyBodyDef jelly_default_body_def(void);

/* Adds a body: a closed, oriented (counter-clockwise seen from outside)
 * triangle surface of nvert vertices (nvert x 3 doubles, metres, finite) and
 * ntri triangles (ntri x 3 vertex indices), both copied. The surface is
 * checked (closed, manifold, not self-intersecting) and tetrahedralized now;
 * def may be NULL (defaults). Fails for a model loaded from a scene file. */
JELLY_API JellyResult jelly_model_add_body(JellyModel *model, const double *vertices, int nvert,
                                           const int *triangles, int ntri, const JellyBodyDef *def,
                                           char *err, size_t errsz);

/* Adds a body whose surface is read from a mesh file (OBJ, STL, PLY, OFF,
 * glTF, ...: what assimp reads, docs/robustness.md for the limits), then
 * placed, checked and tetrahedralized as jelly_model_add_body does. */
JELLY_API JellyResult jelly_model_add_mesh(JellyModel *model, const char *path, const JellyBodyDef *def,
                                           char *err, size_t errsz);

/* Number of bodies of the model (0 for NULL). */
JELLY_API int jelly_model_body_count(const JellyModel *model);

/* Frees the model (NULL is fine). Worlds made from it are not affected. */
JELLY_API void jelly_model_free(JellyModel *model);

/* ---- worlds ------------------------------------------------------------------- */

typedef struct JellyWorld JellyWorld; /* opaque */

/* A simulation of the model at time 0: every node at rest or at its body's
 * initial velocity. A model may make any number of worlds. On success *out
 * is a world to free with jelly_world_free. */
JELLY_API JellyResult jelly_world_new(JellyModel *model, JellyWorld **out, char *err, size_t errsz);

/* Frees the world (NULL is fine). Pointers it handed out become invalid. */
JELLY_API void jelly_world_free(JellyWorld *world);

/* Advances by `seconds` (> 0, finite, at most 1e6) in equal steps no longer
 * than the model's dt. JELLY_ERR_RUNTIME when the simulation diverged: err
 * names the body and the likely cause, and the state is left as it was
 * before the step that failed. */
JELLY_API JellyResult jelly_world_step(JellyWorld *world, double seconds, char *err, size_t errsz);

/* Simulated time, s. */
JELLY_API double jelly_world_time(const JellyWorld *world);

/* Number of nodes over all bodies. */
JELLY_API int jelly_world_node_count(const JellyWorld *world);

/* Node positions (m) and velocities (m/s), node_count x 3 doubles owned by
 * the world: valid until jelly_world_free, updated by every step. */
JELLY_API const double *jelly_world_positions(const JellyWorld *world);
JELLY_API const double *jelly_world_velocities(const JellyWorld *world);

/* Mass of a node, kg. */
JELLY_API JellyResult jelly_world_node_mass(const JellyWorld *world, int node, double *kg, char *err,
                                            size_t errsz);

/* Number of bodies. */
JELLY_API int jelly_world_body_count(const JellyWorld *world);

typedef struct JellyBodyInfo {
  char name[64];
  int first_node, node_count; /* the body's nodes: first_node .. first_node + node_count - 1 */
  double mass;                /* kg */
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
JELLY_API JellyResult jelly_world_body_surface(JellyWorld *world, int body, const double **vertices,
                                               int *vertex_count, const int **triangles,
                                               int *triangle_count, char *err, size_t errsz);

/* on = 1 holds the node where it is (its velocity becomes 0, no force moves
 * it) until released with on = 0. Nodes pinned by the scene file can be
 * released too. */
JELLY_API JellyResult jelly_world_pin(JellyWorld *world, int node, int on, char *err, size_t errsz);

/* A constant force (N, finite) on the node from now on, replacing the
 * previous one; (0, 0, 0) removes it. Its potential energy -F.x counts in
 * JellyEnergies.external. */
JELLY_API JellyResult jelly_world_set_force(JellyWorld *world, int node, const double force[3], char *err,
                                            size_t errsz);

typedef struct JellyEnergies {
  double kinetic;  /* J, 1/2 sum m v^2 */
  double elastic;  /* J, springs and the volume force */
  double gravity;  /* J, -sum m g.x (zero at y = 0 for the default gravity) */
  double contact;  /* J, penalty energy of the ground and of contacts */
  double external; /* J, -sum F.x of the forces of jelly_world_set_force */
  double total;    /* J, the sum of the above */
} JellyEnergies;

JELLY_API JellyResult jelly_world_energies(const JellyWorld *world, JellyEnergies *out, char *err,
                                           size_t errsz);

/* Numerical trouble since the world was created (docs/robustness.md): results
 * to look at twice. */
typedef struct JellyWarnings {
  long steps;            /* steps taken (adaptive sub-steps included) */
  long solver_capped;    /* steps whose linear solver stopped at its iteration cap before converging */
  long energy_rises;     /* steps that created energy even at an eighth of the step */
  long diverged;         /* jelly_world_step calls that failed with JELLY_ERR_RUNTIME */
  int inverted_tets;     /* tets turned inside out now (material too soft for the load or the step) */
} JellyWarnings;

JELLY_API JellyResult jelly_world_warnings(const JellyWorld *world, JellyWarnings *out, char *err,
                                           size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
