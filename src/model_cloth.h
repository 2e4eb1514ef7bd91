/* Cloth and rope bodies in a JlModel, and joining models.
 *
 * jl_model_build_cloth makes a one-body model from a JlClothMesh
 * (mesh/cloth.h): masses = measure x density (kg/m^2 for cloth, kg/m for
 * ropes), one spring per mesh spring with the stiffness of its kind, pins
 * as for volumes, no tets. The body's render surface is the cloth itself
 * (vertex i = node i, triangles of the mesh; no triangles for a rope) and
 * its embedding is empty: jl_world_surface copies the node positions.
 *
 * jl_model_concat copies several models into one global numbering (bodies
 * in the given order), which is how scenes mix volumes built by
 * jl_model_build with cloth and ropes. It is also a deep copy (nmodel = 1). */
#ifndef JL_SRC_MODEL_CLOTH_H
#define JL_SRC_MODEL_CLOTH_H

#include "mesh/cloth.h"
#include "src/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stiffness per spring kind and the Provot limit (scene keys in docs/scenes.md). */
typedef struct JlClothDef {
  JlBodyKind kind;      /* JL_BODY_CLOTH or JL_BODY_ROPE; default JL_BODY_CLOTH */
  double stretch;       /* N/m, structural springs; default 800 (Zhu et al. sec. 3) */
  double shear;         /* N/m, grid diagonals; default 800 */
  double bend;          /* N/m, flexion springs; default 80 */
  double stretch_limit; /* Provot 1995: structural and shear springs stretched
                           beyond (1 + limit) L are shortened after each step;
                           0 = off (default), 0.1 = 10 % */
  double radius;        /* m, contact half-thickness: cloth keeps other bodies this far from its
                           mid-surface (scene "thickness" / 2), a rope is a tube of this radius
                           (scene "radius"); default JL_CLOTH_RADIUS or JL_ROPE_RADIUS */
} JlClothDef;

#define JL_CLOTH_RADIUS 0.002 /* m: default cloth thickness 4 mm */
#define JL_ROPE_RADIUS  0.005 /* m: default rope radius 5 mm */

JlClothDef jl_default_cloth_def(void);

/* One cloth or rope body. def->density is kg/m^2 (cloth) or kg/m (rope);
 * def->stiffness and def->young_modulus are not used (cd gives the
 * stiffness per kind); def->damping is N s/m per spring. Fails naming the
 * body for impossible values, pins out of range, zero-mass nodes and
 * coincident spring ends. */
JlResult jl_model_build_cloth(JlModel *m, const JlClothMesh *c, const JlBodyDef *def, const JlClothDef *cd,
                              const JlWorldDef *world, char *err, size_t errsz);

/* dst = the models' bodies in order, renumbered; world settings and
 * obstacles from parts[0]. Fails for nmodel < 1. */
JlResult jl_model_concat(JlModel *dst, int nmodel, const JlModel *parts, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
