/* The simulation model: everything that is fixed after build.
 *
 * All bodies are concatenated into one global node/spring/tet numbering so
 * forces between bodies (contacts) couple in one linear system; a body is a
 * range of nodes, springs and tets (JlBody). Nothing here changes during a
 * run: the changing part is JlState (src/world.h). MuJoCo's mjModel/mjData
 * split is the model for this. */
#ifndef JL_SRC_MODEL_H
#define JL_SRC_MODEL_H

#include <stddef.h>

#include "collision/geom.h"
#include "collision/obstacle.h"
#include "mesh/embed.h"
#include "src/settings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the volume force's inversion barrier (src/volume.c): its pressure at a quarter of the rest volume, in
 * bulk moduli (JlModel.tet_kbar) */
#define JL_BARRIER_FACTOR 4.0

#define JL_NAME_MAX 64
/* s, the default material damping of volume bodies (JlBodyDef.material_damping) */
#define JL_MATERIAL_DAMPING 0.005

/* the default coefficient of restitution and the speed (m/s) below which impacts are left to the contacts */
#define JL_RESTITUTION       0.5
#define JL_RESTITUTION_SPEED 0.5

/* JlBodyKind (what a body is made of: volume, cloth, rope) is in collision/geom.h, which
 * collision/ reads without the engine. */

/* Per-body material and initial conditions (scene "bodies" entries). */
typedef struct JlBodyDef {
  char name[JL_NAME_MAX];     /* default "body<i>" */
  double density;             /* kg/m^3, default 1000 */
  double stiffness;           /* N/m per spring, used when young_modulus == 0; default 5000 */
  double young_modulus;       /* Pa; > 0 derives per-spring stiffness from the tets (docs/physics.md); default 0 */
  double poisson_ratio;       /* 0 <= nu < 0.5, with young_modulus: springs from the shear modulus, the volume
                              force (src/volume.c) from the rest (docs/physics.md); default 0.25 */
  int calibrate;              /* 1: with young_modulus, scale the springs so that the body's own mesh has the
                              material's shear modulus (src/calibrate.c, docs/physics.md); default 1 */
  double volume_stiffness;    /* Pa, kv of the volume force, set directly; < 0 = derived from (E, nu), 0 with a
                              uniform stiffness; default -1 */
  double damping;             /* N s/m per spring, along the spring axis only; default 0.5 */
  double material_damping;    /* s, volume bodies: Kelvin-Voigt material damping, each spring also gets a dashpot of
                              material_damping x its stiffness, at most critical for its two nodes (docs/physics.md,
                              "Material damping"); default JL_MATERIAL_DAMPING */
  double velocity[3];         /* m/s, initial velocity of every node; default 0 */
  double angular_velocity[3]; /* rad/s, initial spin about the body's centre of mass (by node masses): each free
                                 node also gets angular_velocity x (x - centre); default 0 */
  int npin;                   /* number of entries in pin (local node ids); default 0 */
  const int *pin;             /* npin local node ids, may be NULL when npin == 0; copied */
  int has_pin_box;            /* pin every node inside pin_box (world coordinates); default 0 */
  double pin_box[2][3];       /* m, [lo, hi] */
  int self_collision;         /* 1: the body collides with itself (volumes: nodes against non-adjacent tets;
                              cloth and ropes: triangles and segments apart by a few rest lengths); default 0 */
} JlBodyDef;

JlBodyDef jl_default_body_def(void);

/* Global settings of the model (scene top level). */
typedef struct JlWorldDef {
  double gravity[3];          /* m/s^2, default (0, -9.81, 0) */
  int has_ground;             /* default 0 */
  double ground_y;            /* m, height of the plane y = ground_y; default 0 */
  double ground_friction;     /* Coulomb-like coefficient, default 0.5 */
  double ground_stiffness;    /* N/m per kg of node mass (penalty k = stiffness * m_i); default 1e6 */
  double ground_damping;      /* 1/s per kg of node mass (normal damping, friction viscosity); default 50 */
  double ground_spring_scale; /* ground stiffness also gets this times the summed stiffness (N/m) of the node's
                                 springs; default 1 */
  /* contacts between bodies and with obstacles (src/contact.h, docs/collision.md) */
  double contact_stiffness;    /* N/m per kg of the penetrating node's mass; default 1e5 */
  double contact_damping;      /* 1/s per kg of the penetrating node's mass, along the normal; default 10 */
  double contact_friction;     /* Coulomb-like coefficient; default 0.3 */
  double contact_cell;         /* m, spatial-hash cell edge; 0 = average rest edge length; default 0 */
  double contact_spring_scale; /* contact stiffness also gets this times the summed stiffness (N/m) of the
                                  penetrating node's springs, so light nodes of stiff bodies resist; default 1 */
  double contact_push_out;     /* m/s, largest speed at which contacts found already deep (overlapping starts,
                               missed hits) push bodies apart; also the ground's; default 0.5 */
  double contact_rolling;      /* rolling resistance of volume bodies on each other and on obstacles (src/rolling.c):
                               a torque of at most this x normal load x lever arm resists their rolling; default 0.02 */
  double ground_rolling;       /* the same on the ground plane; default 0.02 */
  /* the impact law (src/impact.h): coefficient of restitution of volume bodies' impacts on each other and on
   * obstacles (contact_) and on the ground (ground_), applied to impacts approaching faster than the
   * restitution speed (m/s); defaults JL_RESTITUTION, JL_RESTITUTION_SPEED */
  double contact_restitution, ground_restitution;
  double contact_restitution_speed, ground_restitution_speed;
  int nobstacle;              /* static obstacles; default 0 */
  const JlObstacle *obstacle; /* nobstacle entries, copied by jl_model_build (model->obstacle); may be NULL when 0 */
  /* wind on cloth triangles (src/wind.h); off while wind_drag == 0 or no cloth body exists */
  double wind[3];          /* m/s, mean air velocity; default 0 */
  double wind_gust;        /* relative gust amplitude: speed x (1 + gust sin(2 pi t / period)); default 0 */
  double wind_gust_period; /* s, default 2 */
  double wind_drag;        /* kg/m^3, drag coefficient x air density (about 1.2 x 1); default 0 */
} JlWorldDef;

JlWorldDef jl_default_world_def(void);

/* The world's contact and ground settings, each written once (src/settings.h):
 * X(field of JlWorldDef, scene section, scene key, type, default, lo, lo_open, hi). Also in the
 * checkpoint fingerprint (src/state.c). */
#define JL_WORLD_SETTINGS(X)                                                                                       \
  X(ground_y, "ground", "y", JL_SETTING_DOUBLE, 0.0, -1e9, 0, 1e9)                                                 \
  X(ground_friction, "ground", "friction", JL_SETTING_DOUBLE, 0.5, 0.0, 0, 1e3)                                    \
  X(ground_stiffness, "ground", "stiffness", JL_SETTING_DOUBLE, 1e6, 0.0, 1, 1e15)                                 \
  X(ground_damping, "ground", "damping", JL_SETTING_DOUBLE, 50.0, 0.0, 0, 1e15)                                    \
  X(ground_spring_scale, "ground", "spring_scale", JL_SETTING_DOUBLE, 1.0, 0.0, 0, 1e6)                            \
  X(ground_rolling, "ground", "rolling_resistance", JL_SETTING_DOUBLE, 0.05, 0.0, 0, 1e3)                          \
  X(ground_restitution, "ground", "restitution", JL_SETTING_DOUBLE, JL_RESTITUTION, 0.0, 0, 1.0)                   \
  X(ground_restitution_speed, "ground", "restitution_speed", JL_SETTING_DOUBLE, JL_RESTITUTION_SPEED, 0.0, 0, 1e6) \
  X(contact_stiffness, "contact", "stiffness", JL_SETTING_DOUBLE, 1e5, 0.0, 1, 1e15)                               \
  X(contact_damping, "contact", "damping", JL_SETTING_DOUBLE, 10.0, 0.0, 0, 1e15)                                  \
  X(contact_friction, "contact", "friction", JL_SETTING_DOUBLE, 0.3, 0.0, 0, 1e3)                                  \
  X(contact_cell, "contact", "cell_size", JL_SETTING_DOUBLE, 0.0, 0.0, 1, 1e6)                                     \
  X(contact_spring_scale, "contact", "spring_scale", JL_SETTING_DOUBLE, 1.0, 0.0, 0, 1e6)                          \
  X(contact_push_out, "contact", "push_out_speed", JL_SETTING_DOUBLE, 0.5, 0.0, 1, 1e6)                            \
  X(contact_rolling, "contact", "rolling_resistance", JL_SETTING_DOUBLE, 0.05, 0.0, 0, 1e3)                        \
  X(contact_restitution, "contact", "restitution", JL_SETTING_DOUBLE, JL_RESTITUTION, 0.0, 0, 1.0)                 \
  X(contact_restitution_speed, "contact", "restitution_speed", JL_SETTING_DOUBLE, JL_RESTITUTION_SPEED, 0.0, 0, 1e6)

/* A body's material, each written once (src/settings.h): X(field of JlBodyDef, "body", scene key of a
 * bodies[] entry, type, default, lo, lo_open, hi). The public JellyBodyDef mirrors the rows the API
 * takes (src/api.c, a missing field fails to compile); poisson_ratio must also be < 0.5 and needs
 * young_modulus; a volume body needs stiffness > 0 or young_modulus > 0; cloth and ropes read "stiffness"
 * into their stretch springs (src/scene.c). */
#define JL_BODY_SETTINGS(X)                                                                            \
  X(density, "body", "density", JL_SETTING_DOUBLE, 1000.0, 0.0, 1, 1e9)                                \
  X(stiffness, "body", "stiffness", JL_SETTING_DOUBLE, 5000.0, 0.0, 0, 1e15)                           \
  X(young_modulus, "body", "young_modulus", JL_SETTING_DOUBLE, 0.0, 0.0, 1, 1e15)                      \
  X(poisson_ratio, "body", "poisson_ratio", JL_SETTING_DOUBLE, 0.25, 0.0, 0, 0.5)                      \
  X(volume_stiffness, "body", "volume_stiffness", JL_SETTING_DOUBLE, -1.0, 0.0, 0, 1e15)               \
  X(calibrate, "body", "calibrate", JL_SETTING_BOOL, 1, 0, 0, 1)                                       \
  X(damping, "body", "damping", JL_SETTING_DOUBLE, 0.5, 0.0, 0, 1e15)                                  \
  X(material_damping, "body", "material_damping", JL_SETTING_DOUBLE, JL_MATERIAL_DAMPING, 0.0, 0, 1e6) \
  X(self_collision, "body", "self_collision", JL_SETTING_BOOL, 0, 0, 0, 1)

/* the tables as data (src/model.c) */
extern const JlSettingTable JL_WORLD_TABLE, JL_BODY_TABLE;

typedef struct JlBody {
  char name[JL_NAME_MAX];
  int node_begin, node_count;     /* global node range */
  int spring_begin, spring_count; /* global spring range */
  int tet_begin, tet_count;       /* global tet range (model tet ids) */
  double mass;                    /* kg */
  double size;                    /* m, bounding-box diagonal at rest */
  JlSurface surface;              /* render surface at build time (world coords) */
  JlEmbedding embed;              /* surface in the body's tets; embed.tet is local to the body */
  int self_collision;             /* from JlBodyDef */
  JlBodyKind kind;                /* JL_BODY_VOLUME for jl_model_build bodies */
  double stretch_limit;           /* Provot 1995 limit on structural/shear strain (0.1 = 10 %); 0 = off */
  double calibration;             /* factor on the Young's-modulus springs from src/calibrate.c (1 = none) */
  double radius;                  /* m, contact half-thickness of cloth (thickness / 2) and rope radius; 0 for
                                     volumes: contacts keep other surfaces this far from its nodes */
} JlBody;

typedef struct JlModel {
  int nnode;
  double *mass;          /* nnode, kg (density x tet volume / 4 summed) */
  unsigned char *pinned; /* nnode, 1 = held by the constraint filter */
  double *x0;            /* nnode x 3, m, initial positions */
  double *v0;            /* nnode x 3, m/s, initial velocities */
  int *node_body;        /* nnode, body index */

  int nspring;
  int *spring_node;    /* nspring x 2 */
  double *spring_rest; /* nspring, m */
  double *spring_k;    /* nspring, N/m */
  double *spring_kd;   /* nspring, N s/m */
  /* node -> incident springs (CSR), for gather loops that do not depend on
   * thread scheduling: node_spring[j] = s (spring id) with sign: +s+1 when the
   * node is spring_node[2s], -(s+1) when it is spring_node[2s+1]. */
  int *node_spring_start; /* nnode + 1 */
  int *node_spring;       /* 2 * nspring */
  /* nspring, JlSpringKind (mesh/cloth.h): stretch, shear or bend; NULL when
   * every spring is a stretch spring (volumes) */
  unsigned char *spring_kind;

  int ntet;
  int *tet;           /* ntet x 4, global node ids */
  double *tet_volume; /* ntet, m^3 at rest */
  double *tet_kvol;   /* ntet, Pa: volume stiffness kv of the volume force (src/volume.c) */
  double *tet_kbar;   /* ntet, Pa: its inversion-barrier modulus kb (0 = no volume force) */
  /* boundary faces of all bodies and node adjacency (for collision/) */
  int nface;
  int *face;      /* nface x 3, global node ids, outward */
  int *adj_start; /* nnode + 1 */
  int *adj;       /* global node ids */

  int nbody;
  JlBody *body; /* nbody */

  JlWorldDef world; /* world.obstacle points at model->obstacle */
  int nobstacle;
  JlObstacle *obstacle; /* nobstacle, owned (hull points too) */

  /* collision/'s view of this model (collision/geom.h), filled by jl_model_sync_geom at the end of
   * every build; read it through jl_model_geom. Its pointers go only to the heap arrays above and to
   * geom_body, never into this struct, so the view stays valid when the model is moved or copied by
   * value (JlWorld holds its model by value). */
  JlGeom geom;
  JlGeomBody *geom_body; /* nbody, owned: the JlGeomBody of each body */
} JlModel;

/* Builds the model from nbody tet meshes, their render surfaces and defs.
 * Surfaces and tets are in world coordinates. Fails (JL_ERR_INPUT) for
 * impossible values (density <= 0, negative stiffness, ...), naming the body. */
JlResult jl_model_build(JlModel *m, int nbody, const JlTetMesh *tets, const JlSurface *surfaces, const JlBodyDef *defs,
                        const JlWorldDef *world, char *err, size_t errsz);
void jl_model_free(JlModel *m);

/* (Re)fills m->geom and m->geom_body from the model's arrays and bodies. The builders
 * (jl_model_build, jl_model_build_cloth, jl_model_concat) call it; code that builds a
 * JlModel by hand or replaces one of its arrays calls it afterwards. */
void jl_model_sync_geom(JlModel *m);

/* The model's geometry for collision/ (collision/geom.h). Asserts that the view still
 * matches the model (sizes, arrays, gravity), i.e. that nobody changed the model after
 * jl_model_sync_geom. */
const JlGeom *jl_model_geom(const JlModel *m);

/* out (nnode, N/m) = summed stiffness of each node's springs: what a contact
 * or the ground adds (x spring_scale) to its per-kg penalty stiffness. */
void jl_model_node_stiffness(const JlModel *m, double *out);

/* com (m) = centre of mass of body b at positions x (nnode x 3); the sum of
 * its nodes' positions when its mass is 0. */
/* For the builders (src/model.c, src/model_cloth.c): m->obstacle = copies of
 * obstacle[0..nobstacle) (m->world.obstacle points there) and m's node
 * arrays (mass, pinned, x0, v0, node_body) for nnode nodes, zeroed. */
void jl_model_alloc_nodes(JlModel *m, const JlObstacle *obstacle, int nobstacle, int nnode);

void jl_model_body_com(const JlModel *m, const double *x, int b, double com[3]);
/* Adds the rigid rotation w x (x0 - c) about body b's centre of mass c
 * (by node masses) to the initial velocity v0 of b's free nodes (rad/s). */
void jl_model_spin(JlModel *m, int b, const double w[3]);

#ifdef __cplusplus
}
#endif
#endif
