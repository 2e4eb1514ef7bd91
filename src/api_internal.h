/* What the public API's files share (engine-internal): the JellyModel and
 * JellyWorld structs and the argument-check helpers (src/api.c, src/api_model.c). */
#ifndef JL_SRC_API_INTERNAL_H
#define JL_SRC_API_INTERNAL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jelly/jelly.h"
#include "mesh/child.h"
#include "mesh/surface.h"
#include "mesh/tetfile.h"
#include "src/contact.h"
#include "src/drag.h"
#include "src/extforce.h"
#include "src/scene.h"
#include "src/state.h"
#include "src/stats.h"
#include "src/volume.h"
#include "src/world.h"

#define API_MAX_VERTICES  JL_SURFACE_MAX_VERTICES /* per body (mesh/surface.h), as for a scene's inline mesh */
#define API_MAX_TRIANGLES JL_SURFACE_MAX_TRIANGLES
#define API_MAX_TETS      10000000    /* tets a conforming max_volume may ask for, per body (as scenes) */
#define API_MAX_STEPS     1000000000L /* steps one jelly_world_step may take */

struct JellyModel {
  int from_scene;
  JlScene scene; /* from_scene: the loaded file */
  JlModel built; /* the engine model every world shares (has_built) */
  int has_built;
  int nworld;       /* live worlds of this model (they point at `built`) */
  int freed;        /* jelly_model_free was called: freed with its last world */
  JlWorldDef world; /* arrays: gravity, ground */
  JlStepDef step;
  double dt;       /* s, longest step */
  int auto_dt;     /* a scene without dt and an explicit integrator: the stable step */
  int nbody, cap;  /* arrays: bodies added */
  JlSurface *surf; /* nbody, world coordinates, validated */
  JlTetMesh *tets; /* nbody */
  JlBodyDef *defs; /* nbody */
};

struct JellyWorld {
  JlWorld w;
  JellyModel *model;    /* counted in model->nworld */
  double dt;            /* s */
  JlForce *ext;         /* the external force element, owned by w */
  JlForce *drag;        /* the drag element (src/drag.c), owned by w; inactive until jelly_world_drag */
  double *scratch;      /* nnode x 3, the drag element's force when its energy is asked for */
  double **surf;        /* nbody surface vertex buffers (nvert x 3), allocated on first use */
  long steps, diverged; /* this world object's counters (not state) */
  long fr_steps, fr_cg, fr_cg_failed, fr_splits,
      fr_crossing;   /* since the last jelly_world_stats reset (a stats.csv frame) */
  JlSnapshot *fresh; /* the state at creation: what setting positions or velocities restarts from */
};

/* the engine model of a world (its view, with the world's pins) */
static inline const JlModel *world_model_c(const JellyWorld *w) { return w->w.model; }

/* a JELLY_ERR_* with "fn: what" in err */
static inline JellyResult fail(char *err, size_t errsz, JellyResult code, const char *fn, const char *what) {
  if (err && errsz > 0) snprintf(err, errsz, "%s: %s", fn, what);
  return code;
}

static inline int finite3(const double *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* frees a model whose last world is gone (src/api_model.c) */
void jl_api_model_release(JellyModel *model);

#endif
