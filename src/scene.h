/* Scene files: JSON (cJSON) describing bodies, integrator and world.
 *
 * jl_scene_load parses and validates a file strictly: unknown keys, wrong
 * types, missing files and impossible values are errors naming the file, the
 * key path (e.g. "bodies[1].density") and the reason. jl_scene_build then
 * turns the description into a JlModel: loads or generates each surface,
 * applies scale, rotation and translation, validates it, tetrahedralizes it
 * and builds masses, springs and pins. Every key, unit and default is listed
 * in docs/scenes.md. */
#ifndef JL_SRC_SCENE_H
#define JL_SRC_SCENE_H

#include <stdio.h>

#include "mesh/tetmesh.h"
#include "src/model_cloth.h"
#include "src/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum JlShapeType {
  JL_SHAPE_NONE,   /* the body has a "mesh" file instead */
  JL_SHAPE_BOX,    /* size[3] */
  JL_SHAPE_SPHERE, /* radius */
  JL_SHAPE_TORUS,  /* major, minor */
  JL_SHAPE_GRID,   /* cloth: grid_size[2], grid_cells[2] (x-y plane, centred on the origin) */
  JL_SHAPE_CHAIN,  /* rope: chain_length, chain_segments (origin down along -y) */
  JL_SHAPE_COUNT
} JlShapeType;

typedef struct JlSceneBody {
  JlBodyDef def;           /* material, velocity, pins (def.pin points into pin_nodes) */
  char mesh_path[4096];    /* resolved against the scene's folder; "" for shapes and inline meshes */
  JlSurface mesh_inline;   /* "mesh" given as arrays, as written (owned); nvert 0 otherwise */
  int mesh_is_tets;        /* mesh_path is a tet mesh (.node/.ele, .msh, .vtk, .vtu: mesh/tetfile.h),
                             loaded as it is instead of tetrahedralized */
  char surface_path[4096]; /* "surface" of a tet-mesh body: the render surface to embed; "" = the
                             tet mesh's boundary */
  int plausibility_check;  /* tet-mesh bodies: 1 (default) refuses a placed mesh whose extent is
                             outside JL_PLAUSIBLE_*_EXTENT or whose tets overlap (mesh/tetfile.h);
                             "plausibility_check": false says it is intended */
  JlShapeType shape;
  double size[3];          /* m, box */
  double radius;           /* m, sphere */
  double major, minor;     /* m, torus */
  double shape_resolution; /* m, target surface edge length of generated shapes; 0 = auto */
  JlTetgenDef tetgen;
  double translate[3];  /* m */
  double rotate_deg[3]; /* degrees, XYZ Euler: x first, then y, then z (world axes) */
  double scale;         /* uniform, default 1 */
  double units;         /* metres per unit of the mesh's numbers ("units": m 1, cm 0.01, mm 0.001),
                             applied before scale; 0 (a zeroed body) = 1 */
  int *pin_nodes;       /* def.npin entries, owned */
  /* cloth and ropes ("kind"; docs/scenes.md) */
  JlBodyKind kind;     /* default JL_BODY_VOLUME */
  JlClothDef cloth;    /* per-kind stiffness and Provot limit; cloth.kind == kind for cloth/rope */
  double grid_size[2]; /* m, grid width (x) and height (y) */
  int grid_cells[2];   /* grid cells along x and y */
  double chain_length; /* m */
  int chain_segments;
  /* not a scene key: a body placed by what opened it (jl_scene_open, a file dropped on the viewer) rather
   * than by translate: after scale and rotation its bounding box is centred on drop_at's x and z and its
   * lowest point lifted to drop_at's y plus a quarter of its height, from where it falls */
  int dropped;
  double drop_at[3]; /* m */
} JlSceneBody;

typedef struct JlScene {
  char path[4096];
  double duration;  /* s, default 2 */
  double fps;       /* output frames per second, default 60 */
  double dt;        /* s, largest time step, default 1/60 for implicit; at most 1/fps */
  int dt_set;       /* 1 when the file gives "dt", 0 when dt is the integrator's default */
  JlStepDef step;   /* integrator, solver tolerance, iteration cap, adaptive */
  JlWorldDef world; /* gravity, ground, contact parameters (world.obstacle is set by jl_scene_build) */
  int nobstacle;
  JlObstacle *obstacle; /* nobstacle static obstacles (hull points owned) */
  int nbody;
  JlSceneBody *body;
} JlScene;

JlResult jl_scene_load(const char *path, JlScene *sc, char *err, size_t errsz);

/* Opens any file a user may hand to `jelly run` or `jelly view`: a scene (.json) as jl_scene_load
 * does; any other file as a mesh (a surface mesh assimp reads, or a tet mesh: .node/.ele, .msh, .vtk,
 * .vtu) dropped on the ground of a default world: one body named after the file, meshed as `jelly
 * mesh` meshes it, of the file's numbers in metres, its lowest point a quarter of its height above the
 * ground at the origin. NULL:
 * an empty world with the ground, no bodies (for the viewer's spawn keys). */
JlResult jl_scene_open(const char *path, JlScene *sc, char *err, size_t errsz);
/* Pa, the Young's modulus of a mesh opened that way (a rubber; the density is the default 1000 kg/m^3) */
#define JL_OPEN_YOUNG_MODULUS 1e6
/* 1 when path names a scene file (.json) rather than a mesh */
int jl_scene_is_scene_file(const char *path);

/* Parses a scene from a string; `path` names it in messages and anchors
 * relative mesh paths. */
JlResult jl_scene_parse(const char *text, const char *path, JlScene *sc, char *err, size_t errsz);
void jl_scene_free(JlScene *sc);

/* Builds the model. Warnings (e.g. an inside-out surface that was flipped)
 * go to `log` when it is not NULL. */
JlResult jl_scene_build(const JlScene *sc, JlModel *m, FILE *log, char *err, size_t errsz);

/* Applies scale, then rotation (XYZ Euler, degrees), then translation to n points. */
void jl_transform_points(double *p, int n, double scale, const double rotate_deg[3], const double translate[3]);

/* The keys each scene object takes, for the documentation check (tests/test_scene.c
 * keys_documented): `doc` is how docs/scenes.md names the object's keys (section.key), empty for
 * keys named alone (the top level, bodies[], obstacles[]). The "ground" and "contact" keys are the
 * settings table's (src/model.h, JL_WORLD_SETTINGS). */
typedef struct JlSceneKeys {
  const char *doc;
  const char *const *keys; /* NULL-terminated */
} JlSceneKeys;
const JlSceneKeys *jl_scene_keys(int *n);

#ifdef __cplusplus
}
#endif
#endif
