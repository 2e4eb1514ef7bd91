/* The public API (src/include/jelly/jelly.h): thin wrappers over the engine.
 *
 * A JellyModel holds the recipe (the loaded scene, or the bodies added from
 * arrays, each already validated and tetrahedralized) and the one engine
 * JlModel built from it: at load for a scene (so errors show early), at the
 * first jelly_world_new for arrays. Every world of the model shares that
 * engine model (jl_world_create_shared); runtime pins go to the world's own
 * pin mask (jl_world_pin), so TetGen and the model build run once per model,
 * not per world. The worlds count as references: jelly_model_free with live
 * worlds only marks the model, and the last jelly_world_free frees it.
 *
 * Every entry point checks its arguments and answers a bad one with
 * JELLY_ERR_INPUT and a message naming the function and the argument: the
 * caller is another program, so internal JL_ASSERTs must never fire from
 * here. The world wrapper adds what the engine's JlWorld lacks for callers:
 * the step length, the external force element (src/extforce.c), surface
 * buffers and warning counters summed from JlStepReport (a thin accessor,
 * to be pointed at the state's own warnings when it has them). */
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
      fr_crossing; /* since the last jelly_world_stats reset (a stats.csv frame) */
};

/* the engine model of a world (its view, with the world's pins) */
static const JlModel *world_model_c(const JellyWorld *w) { return w->w.model; }

/* the public warning kinds are the engine's, in the same order */
_Static_assert((int)JELLY_WARN_COUNT == (int)JL_WARN_COUNT, "JellyWarningKind must mirror JlWarningKind");
_Static_assert((int)JELLY_WARN_SOLVER_CAP == (int)JL_WARN_CG_CAP && (int)JELLY_WARN_INVERTED == (int)JL_WARN_INVERTED &&
                   (int)JELLY_WARN_PUSH_OUT == (int)JL_WARN_PUSH_OUT &&
                   (int)JELLY_WARN_NONFINITE == (int)JL_WARN_NONFINITE &&
                   (int)JELLY_WARN_ENERGY_RISE == (int)JL_WARN_ENERGY_RISE,
               "JellyWarningKind must mirror JlWarningKind");
_Static_assert(sizeof(((JellyWarnings *)0)->first[0]) == sizeof(((JlWarnings *)0)->first[0]),
               "JellyWarnings.first must hold JlWarnings.first");

static JellyResult fail(char *err, size_t errsz, JellyResult code, const char *fn, const char *what) {
  if (err && errsz > 0) snprintf(err, errsz, "%s: %s", fn, what);
  return code;
}

static int finite3(const double *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

const char *jelly_version(void) { return JELLY_VERSION; }

const char *jl_version(void) { return JELLY_VERSION; }

JellyAssertHandler jelly_set_assert_handler(JellyAssertHandler handler) {
  /* the same signature as the engine's handler type */
  return (JellyAssertHandler)jl_set_assert_handler((JlAssertHandler)handler);
}

/* ---- models ------------------------------------------------------------------ */

static JellyMeshLimits public_limits(JlMeshLimits l) {
  JellyMeshLimits out = {l.timeout, l.memory_mb, l.file_mb};
  return out;
}

JellyMeshLimits jelly_default_mesh_limits(void) { return public_limits(jl_default_mesh_limits()); }

JellyMeshLimits jelly_mesh_limits(void) { return public_limits(jl_mesh_limits()); }

JellyResult jelly_set_mesh_limits(const JellyMeshLimits *limits, char *err, size_t errsz) {
  static const char fn[] = "jelly_set_mesh_limits";
  if (!limits) return fail(err, errsz, JELLY_ERR_INPUT, fn, "limits is NULL");
  const double v[3] = {limits->timeout_s, limits->memory_mb, limits->max_file_mb};
  static const char *const name[3] = {"timeout_s", "memory_mb", "max_file_mb"};
  static const double hi[3] = {86400.0, 1048576.0, 1048576.0}; /* a day, 1 TiB */
  for (int k = 0; k < 3; k++)
    if (!(v[k] > 0.0) || !(v[k] <= hi[k])) {
      char what[160];
      snprintf(what, sizeof what, "limits->%s must be > 0 and at most %g, got %g", name[k], hi[k], v[k]);
      return fail(err, errsz, JELLY_ERR_INPUT, fn, what);
    }
  JlMeshLimits l = {v[0], v[1], v[2]};
  jl_mesh_set_limits(&l);
  return JELLY_OK;
}

JellyModelDef jelly_default_model_def(void) {
  JlWorldDef wd = jl_default_world_def();
  JellyModelDef d;
  memset(&d, 0, sizeof d);
  memcpy(d.gravity, wd.gravity, sizeof d.gravity);
  d.has_ground = wd.has_ground;
  d.ground_y = wd.ground_y;
  d.ground_friction = wd.ground_friction;
  d.dt = 1.0 / 60.0;
  d.threads = 1;
  d.ground_restitution = wd.ground_restitution;
  d.contact_restitution = wd.contact_restitution;
  return d;
}

/* The model of a parsed scene: builds its bodies and takes its step settings
 * (shared by the file and the text loaders). Frees m on failure. */
static JellyResult model_from_scene(JellyModel *m, JellyModel **out, char *err, size_t errsz) {
  JlResult r = jl_scene_build(&m->scene, &m->built, NULL, err, errsz);
  if (r) {
    jl_scene_free(&m->scene);
    free(m);
    return (JellyResult)r;
  }
  m->has_built = 1;
  m->step = m->scene.step;
  m->dt = m->scene.dt;
  m->auto_dt = !m->scene.dt_set && !jl_integrator_is_implicit(m->step.integrator);
  *out = m;
  return JELLY_OK;
}

JellyResult jelly_model_load(const char *path, JellyModel **out, char *err, size_t errsz) {
  static const char fn[] = "jelly_model_load";
  if (!out) return fail(err, errsz, JELLY_ERR_INPUT, fn, "out is NULL");
  *out = NULL;
  if (!path || !path[0]) return fail(err, errsz, JELLY_ERR_INPUT, fn, "path is NULL or empty");
  JellyModel *m = jl_calloc(1, sizeof *m);
  m->from_scene = 1;
  JlResult r = jl_scene_load(path, &m->scene, err, errsz);
  if (r) {
    free(m);
    return (JellyResult)r;
  }
  return model_from_scene(m, out, err, errsz);
}

JellyResult jelly_model_load_json(const char *text, const char *name, JellyModel **out, char *err, size_t errsz) {
  static const char fn[] = "jelly_model_load_json";
  if (!out) return fail(err, errsz, JELLY_ERR_INPUT, fn, "out is NULL");
  *out = NULL;
  if (!text) return fail(err, errsz, JELLY_ERR_INPUT, fn, "text is NULL");
  if (!name || !name[0]) return fail(err, errsz, JELLY_ERR_INPUT, fn, "name is NULL or empty");
  JellyModel *m = jl_calloc(1, sizeof *m);
  m->from_scene = 1;
  JlResult r = jl_scene_parse(text, name, &m->scene, err, errsz);
  if (r) {
    free(m);
    return (JellyResult)r;
  }
  return model_from_scene(m, out, err, errsz);
}

JellyResult jelly_model_new(const JellyModelDef *def, JellyModel **out, char *err, size_t errsz) {
  static const char fn[] = "jelly_model_new";
  if (!out) return fail(err, errsz, JELLY_ERR_INPUT, fn, "out is NULL");
  *out = NULL;
  JellyModelDef d = def ? *def : jelly_default_model_def();
  if (!finite3(d.gravity)) return fail(err, errsz, JELLY_ERR_INPUT, fn, "gravity is not finite");
  if (!isfinite(d.ground_y)) return fail(err, errsz, JELLY_ERR_INPUT, fn, "ground_y is not finite");
  if (!(d.ground_friction >= 0 && d.ground_friction <= 1e3))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "ground_friction must be in [0, 1000]");
  if (!(d.dt > 0 && d.dt <= 1)) return fail(err, errsz, JELLY_ERR_INPUT, fn, "dt must be in (0, 1] s");
  if (d.threads < 0 || d.threads > JL_MAX_THREADS)
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "threads must be 0 to " JL_MAX_THREADS_TEXT);
  if (!(d.ground_restitution >= 0 && d.ground_restitution <= 1) ||
      !(d.contact_restitution >= 0 && d.contact_restitution <= 1))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "ground_restitution and contact_restitution must be in [0, 1]");
  JellyModel *m = jl_calloc(1, sizeof *m);
  m->world = jl_default_world_def();
  memcpy(m->world.gravity, d.gravity, sizeof d.gravity);
  m->world.has_ground = d.has_ground != 0;
  m->world.ground_y = d.ground_y;
  m->world.ground_friction = d.ground_friction;
  m->world.ground_restitution = d.ground_restitution;
  m->world.contact_restitution = d.contact_restitution;
  m->step = jl_default_step_def();
  m->step.threads = d.threads;
  m->dt = d.dt;
  *out = m;
  return JELLY_OK;
}

/* the public JellyBodyDef mirrors every row of the body settings table (src/model.h,
 * JL_BODY_SETTINGS): a row without its public field fails to compile here */
#define TO_PUBLIC(field, ...) d.field = b.field;
#define TO_ENGINE(field, ...) bd.field = d->field;

JellyBodyDef jelly_default_body_def(void) {
  JlBodyDef b = jl_default_body_def();
  JellyBodyDef d;
  memset(&d, 0, sizeof d);
  JL_BODY_SETTINGS(TO_PUBLIC)
  d.scale = 1.0;
  return d;
}

/* ---- settings by name --------------------------------------------------------- */

/* the tables a model's settings come from: the world's and the step's (src/settings.h) */
static const JlSettingTable *const SETTING_TABLES[] = {&JL_WORLD_TABLE, &JL_STEP_TABLE};

const char *jelly_setting_name(int index) {
  static _Thread_local char name[96];
  for (int t = 0; t < 2; t++) {
    if (index >= 0 && index < SETTING_TABLES[t]->n) {
      const JlSetting *st = &SETTING_TABLES[t]->row[index];
      snprintf(name, sizeof name, "%s%s%s", st->section, st->section[0] ? "." : "", st->key);
      return name;
    }
    index -= SETTING_TABLES[t]->n;
  }
  return NULL;
}

/* the row of a "section.key" name and the struct it is in; NULL when unknown */
static const JlSetting *setting_of(JellyModel *model, const char *name, void **dst) {
  const char *dot = strchr(name, '.');
  char section[32] = "";
  const char *key = name;
  if (dot) {
    if ((size_t)(dot - name) >= sizeof section) return NULL;
    memcpy(section, name, (size_t)(dot - name));
    section[dot - name] = '\0';
    key = dot + 1;
  }
  for (int t = 0; t < 2; t++) {
    const JlSetting *st = jl_setting_find(SETTING_TABLES[t], section, key);
    if (!st) continue;
    /* a scene's model (and an array model once built) holds its world settings in the built model */
    if (t == 1)
      *dst = &model->step;
    else
      *dst = model->from_scene || model->has_built ? (void *)&model->built.world : (void *)&model->world;
    return st;
  }
  return NULL;
}

static JellyResult unknown_setting(const char *fn, const char *name, char *err, size_t errsz) {
  if (err && errsz > 0)
    snprintf(err, errsz, "%s: unknown setting '%s' (jelly_setting_name lists them: \"contact.friction\", ...)", fn,
             name);
  return JELLY_ERR_INPUT;
}

JellyResult jelly_model_set_setting(JellyModel *model, const char *name, double value, char *err, size_t errsz) {
  static const char fn[] = "jelly_model_set_setting";
  if (!model) return fail(err, errsz, JELLY_ERR_INPUT, fn, "model is NULL");
  if (!name) return fail(err, errsz, JELLY_ERR_INPUT, fn, "name is NULL");
  if (model->freed) return fail(err, errsz, JELLY_ERR_INPUT, fn, "the model was freed (jelly_model_free)");
  if (model->nworld > 0)
    return fail(err, errsz, JELLY_ERR_INPUT, fn,
                "the model has worlds (they share its settings); set it before jelly_world_new or free its worlds");
  void *dst = NULL;
  const JlSetting *st = setting_of(model, name, &dst);
  if (!st) return unknown_setting(fn, name, err, errsz);
  if (!jl_setting_ok(st, value)) {
    char range[96];
    jl_setting_range(st, range, sizeof range);
    if (err && errsz > 0) snprintf(err, errsz, "%s: %s must be %s, got %g", fn, name, range, value);
    return JELLY_ERR_INPUT;
  }
  jl_setting_set(dst, st, value);
  /* an array model keeps its own copy of the world settings for the build */
  if (dst == &model->built.world && !model->from_scene) jl_setting_set(&model->world, st, value);
  return JELLY_OK;
}

JellyResult jelly_model_setting(const JellyModel *model, const char *name, double *value, char *err, size_t errsz) {
  static const char fn[] = "jelly_model_setting";
  if (!model) return fail(err, errsz, JELLY_ERR_INPUT, fn, "model is NULL");
  if (!name) return fail(err, errsz, JELLY_ERR_INPUT, fn, "name is NULL");
  if (!value) return fail(err, errsz, JELLY_ERR_INPUT, fn, "value is NULL");
  void *dst = NULL;
  const JlSetting *st = setting_of((JellyModel *)model, name, &dst);
  if (!st) return unknown_setting(fn, name, err, errsz);
  *value = jl_setting_get(dst, st);
  return JELLY_OK;
}

/* the surface of arrays, checked before the engine sees it: the engine's own
 * validation follows (closed, manifold, ...), this keeps its input sane */
static JellyResult copy_surface(const double *vertices, int nvert, const int *triangles, int ntri, JlSurface *s,
                                char *err, size_t errsz) {
  static const char fn[] = "jelly_model_add_body";
  char msg[160];
  if (!vertices) return fail(err, errsz, JELLY_ERR_INPUT, fn, "vertices is NULL");
  if (!triangles) return fail(err, errsz, JELLY_ERR_INPUT, fn, "triangles is NULL");
  if (nvert < 4 || nvert > API_MAX_VERTICES) {
    snprintf(msg, sizeof msg, "nvert %d: a closed surface needs 4 to %d vertices", nvert, API_MAX_VERTICES);
    return fail(err, errsz, JELLY_ERR_INPUT, fn, msg);
  }
  if (ntri < 4 || ntri > API_MAX_TRIANGLES) {
    snprintf(msg, sizeof msg, "ntri %d: a closed surface needs 4 to %d triangles", ntri, API_MAX_TRIANGLES);
    return fail(err, errsz, JELLY_ERR_INPUT, fn, msg);
  }
  for (int i = 0; i < nvert; i++)
    if (!finite3(vertices + 3 * (size_t)i) || fabs(vertices[3 * i]) > 1e100 || fabs(vertices[3 * i + 1]) > 1e100 ||
        fabs(vertices[3 * i + 2]) > 1e100) {
      snprintf(msg, sizeof msg, "vertex %d is not finite (or beyond 1e100 m)", i);
      return fail(err, errsz, JELLY_ERR_INPUT, fn, msg);
    }
  for (int t = 0; t < 3 * ntri; t++)
    if (triangles[t] < 0 || triangles[t] >= nvert) {
      snprintf(msg, sizeof msg, "triangle %d has vertex index %d, not in 0..%d", t / 3, triangles[t], nvert - 1);
      return fail(err, errsz, JELLY_ERR_INPUT, fn, msg);
    }
  s->nvert = nvert;
  s->ntri = ntri;
  s->vert = jl_calloc(3 * (size_t)nvert, sizeof(double));
  s->tri = jl_calloc(3 * (size_t)ntri, sizeof(int));
  memcpy(s->vert, vertices, 3 * (size_t)nvert * sizeof(double));
  memcpy(s->tri, triangles, 3 * (size_t)ntri * sizeof(int));
  return JELLY_OK;
}

/* the body def: placement and meshing here, material by a trial jl_model_build */
static JellyResult check_body_def(const JellyBodyDef *d, const char *fn, char *err, size_t errsz) {
  if (d->name && strlen(d->name) >= JL_NAME_MAX)
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "def->name is longer than 63 bytes");
  if (!(isfinite(d->scale) && d->scale > 0 && d->scale < 1e6))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "def->scale must be > 0 and below 1e6");
  if (!finite3(d->rotate_deg) || !finite3(d->translate) || !finite3(d->velocity) || !finite3(d->angular_velocity))
    return fail(err, errsz, JELLY_ERR_INPUT, fn,
                "def->rotate_deg, translate, velocity and angular_velocity must be "
                "finite");
  if (!(isfinite(d->max_volume) && d->max_volume >= 0))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "def->max_volume must be >= 0 (0: TetGen's choice)");
  if (!(isfinite(d->resolution) && d->resolution >= 0))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "def->resolution must be >= 0 (0: automatic)");
  if (d->embedded != 0 && d->embedded != 1)
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "def->embedded must be 0 or 1");
  /* the material's ranges: the engine's check (src/model.c) names what it refuses */
  return JELLY_OK;
}

/* the JlBodyDef of a checked JellyBodyDef */
static JlBodyDef engine_body_def(const JellyBodyDef *d, int index) {
  JlBodyDef bd = jl_default_body_def();
  if (d->name)
    snprintf(bd.name, sizeof bd.name, "%s", d->name);
  else
    snprintf(bd.name, sizeof bd.name, "body%d", index);
  JL_BODY_SETTINGS(TO_ENGINE)
  memcpy(bd.velocity, d->velocity, sizeof bd.velocity);
  memcpy(bd.angular_velocity, d->angular_velocity, sizeof bd.angular_velocity);
  return bd;
}

/* places, validates and tetrahedralizes surface s (taken over: freed on
 * failure, kept by the model on success) as body bd of the model */
static JellyResult add_tets(JellyModel *model, JlTetMesh *tp, JlSurface *s, const JlBodyDef *bd, const char *fn,
                            char *err, size_t errsz);

static JellyResult add_surface(JellyModel *model, JlSurface *s, const JellyBodyDef *d, const JlBodyDef *bd,
                               const char *fn, char *err, size_t errsz) {
  jl_transform_points(s->vert, s->nvert, d->scale, d->rotate_deg, d->translate);
  JlMeshReport rep;
  jl_surface_validate(s, bd->name, &rep);
  char msg[2048];
  if (!rep.ok) {
    jl_report_errors(&rep, bd->name, msg, sizeof msg);
    jl_surface_free(s);
    if (err && errsz > 0) snprintf(err, errsz, "%s: body '%s': cannot tetrahedralize: %s", fn, bd->name, msg);
    return JELLY_ERR_INPUT;
  }
  JlTetgenDef td = jl_default_tetgen_def();
  td.mode = d->embedded ? JL_TETGEN_EMBEDDED : JL_TETGEN_CONFORMING;
  td.max_volume = d->max_volume;
  td.resolution = d->resolution;
  if (!d->embedded && d->max_volume > 0 && jl_surface_volume(s) / d->max_volume > API_MAX_TETS) {
    jl_surface_free(s);
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "def->max_volume asks for more than 1e7 tets; raise it");
  }
  JlTetMesh t;
  memset(&t, 0, sizeof t);
  JlResult jr = jl_tetgen_build(s, &td, &t, msg, sizeof msg);
  if (jr) {
    jl_surface_free(s);
    if (err && errsz > 0) snprintf(err, errsz, "%s: body '%s': %s", fn, bd->name, msg);
    return (JellyResult)jr;
  }
  return add_tets(model, &t, s, bd, fn, err, errsz);
}

/* Appends a body of tets t and surface s (both taken over, freed on failure)
 * after a trial build that checks its material. */
static JellyResult add_tets(JellyModel *model, JlTetMesh *tp, JlSurface *s, const JlBodyDef *bd, const char *fn,
                            char *err, size_t errsz) {
  char msg[2048];
  JlTetMesh t = *tp;
  /* the material: jl_model_build names what it refuses (density <= 0, ...) */
  JlModel trial;
  JlResult jr = jl_model_build(&trial, 1, &t, s, bd, &model->world, msg, sizeof msg);
  if (jr) {
    jl_surface_free(s);
    jl_tetmesh_free(&t);
    if (err && errsz > 0) snprintf(err, errsz, "%s: %s", fn, msg);
    return (JellyResult)jr;
  }
  jl_model_free(&trial);
  if (model->nbody == model->cap) {
    model->cap = model->cap ? 2 * model->cap : 4;
    model->surf = jl_realloc(model->surf, (size_t)model->cap, sizeof *model->surf);
    model->tets = jl_realloc(model->tets, (size_t)model->cap, sizeof *model->tets);
    model->defs = jl_realloc(model->defs, (size_t)model->cap, sizeof *model->defs);
  }
  model->surf[model->nbody] = *s;
  model->tets[model->nbody] = t;
  model->defs[model->nbody] = *bd;
  model->nbody++;
  /* an engine model built for worlds freed since no longer has every body */
  if (model->has_built) {
    jl_model_free(&model->built);
    model->has_built = 0;
  }
  return JELLY_OK;
}

/* the model and def arguments every add function takes */
static JellyResult check_add(const JellyModel *model, const JellyBodyDef *d, const char *fn, char *err, size_t errsz) {
  if (!model) return fail(err, errsz, JELLY_ERR_INPUT, fn, "model is NULL");
  if (model->from_scene)
    return fail(err, errsz, JELLY_ERR_INPUT, fn,
                "the model was loaded from a scene file; add bodies to a model "
                "of jelly_model_new");
  if (model->nworld > 0)
    return fail(err, errsz, JELLY_ERR_INPUT, fn,
                "the model has worlds (they share its built bodies); add bodies "
                "before jelly_world_new or free its worlds first");
  if (model->nbody >= 100000) return fail(err, errsz, JELLY_ERR_INPUT, fn, "more than 100000 bodies");
  return check_body_def(d, fn, err, errsz);
}

JellyResult jelly_model_add_body(JellyModel *model, const double *vertices, int nvert, const int *triangles, int ntri,
                                 const JellyBodyDef *def, char *err, size_t errsz) {
  static const char fn[] = "jelly_model_add_body";
  JellyBodyDef d = def ? *def : jelly_default_body_def();
  JellyResult r = check_add(model, &d, fn, err, errsz);
  if (r) return r;
  JlBodyDef bd = engine_body_def(&d, model->nbody);
  JlSurface s;
  memset(&s, 0, sizeof s);
  r = copy_surface(vertices, nvert, triangles, ntri, &s, err, errsz);
  if (r) return r;
  return add_surface(model, &s, &d, &bd, fn, err, errsz);
}

JellyResult jelly_model_add_mesh(JellyModel *model, const char *path, const JellyBodyDef *def, char *err,
                                 size_t errsz) {
  static const char fn[] = "jelly_model_add_mesh";
  JellyBodyDef d = def ? *def : jelly_default_body_def();
  JellyResult r = check_add(model, &d, fn, err, errsz);
  if (r) return r;
  if (!path || !path[0]) return fail(err, errsz, JELLY_ERR_INPUT, fn, "path is NULL or empty");
  JlBodyDef bd = engine_body_def(&d, model->nbody);
  JlSurface s;
  memset(&s, 0, sizeof s);
  char msg[2048];
  if (jl_tetfile_is_volume(path)) {
    /* a tet mesh made elsewhere: its tets as they are, its boundary as the surface */
    if (d.embedded || d.max_volume > 0 || d.resolution > 0)
      return fail(err, errsz, JELLY_ERR_INPUT, fn,
                  "def->embedded, max_volume and resolution mesh a surface; this path is already a tet mesh");
    JlTetMesh t;
    JlResult tr = jl_tetfile_load(path, &t, NULL, msg, sizeof msg);
    if (tr) {
      if (err && errsz > 0) snprintf(err, errsz, "%s: %s", fn, msg);
      return (JellyResult)tr;
    }
    jl_transform_points(t.node, t.nnode, d.scale, d.rotate_deg, d.translate);
    jl_tetmesh_boundary_surface(&t, &s);
    return add_tets(model, &t, &s, &bd, fn, err, errsz);
  }
  JlResult jr = jl_surface_load(path, &s, msg, sizeof msg);
  if (jr) {
    if (err && errsz > 0) snprintf(err, errsz, "%s: %s", fn, msg);
    return (JellyResult)jr;
  }
  return add_surface(model, &s, &d, &bd, fn, err, errsz);
}

int jelly_model_body_count(const JellyModel *model) {
  if (!model) return 0;
  return model->from_scene ? model->scene.nbody : model->nbody;
}

static void model_release(JellyModel *model) {
  if (model->from_scene) jl_scene_free(&model->scene);
  if (model->has_built) jl_model_free(&model->built);
  for (int b = 0; b < model->nbody; b++) {
    jl_surface_free(&model->surf[b]);
    jl_tetmesh_free(&model->tets[b]);
  }
  free(model->surf);
  free(model->tets);
  free(model->defs);
  free(model);
}

void jelly_model_free(JellyModel *model) {
  if (!model) return;
  /* worlds share the model's engine model: the last of them frees it */
  if (model->nworld > 0) {
    model->freed = 1;
    return;
  }
  model_release(model);
}

/* ---- worlds ------------------------------------------------------------------- */

JellyResult jelly_world_new(JellyModel *model, JellyWorld **out, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_new";
  if (!out) return fail(err, errsz, JELLY_ERR_INPUT, fn, "out is NULL");
  *out = NULL;
  if (!model) return fail(err, errsz, JELLY_ERR_INPUT, fn, "model is NULL");
  if (model->freed) return fail(err, errsz, JELLY_ERR_INPUT, fn, "the model was freed (jelly_model_free)");
  JlResult r;
  if (!model->has_built) {
    /* arrays: built once, here (a scene's model is built at load); bodies
     * added after a free of every world invalidate it (jelly_model_add_body) */
    if (model->nbody == 0)
      return fail(err, errsz, JELLY_ERR_INPUT, fn, "the model has no bodies (jelly_model_add_body)");
    r = jl_model_build(&model->built, model->nbody, model->tets, model->surf, model->defs, &model->world, err, errsz);
    if (r) return (JellyResult)r;
    model->has_built = 1;
  }
  JellyWorld *w = jl_calloc(1, sizeof *w);
  r = jl_world_create_shared(&w->w, &model->built, &model->step, err, errsz);
  if (r) {
    free(w);
    return (JellyResult)r;
  }
  w->ext = jl_external_force_create(w->w.model);
  w->drag = jl_drag_create(w->w.model);
  if (!jl_world_add_force(&w->w, w->ext)) {
    jl_force_free(w->ext);
    jl_force_free(w->drag);
    jl_world_destroy(&w->w);
    free(w);
    return fail(err, errsz, JELLY_ERR_SYSTEM, fn, "the world's force table is full");
  }
  if (!jl_world_add_force(&w->w, w->drag)) {
    jl_force_free(w->drag);
    jl_world_destroy(&w->w);
    free(w);
    return fail(err, errsz, JELLY_ERR_SYSTEM, fn, "the world's force table is full");
  }
  w->model = model;
  model->nworld++;
  w->dt = model->dt;
  if (model->auto_dt) w->dt = jl_world_step_plan(&w->w, model->step.integrator, model->dt, model->dt, 1, 0.0).dt;
  w->surf = jl_calloc((size_t)world_model_c(w)->nbody + 1, sizeof *w->surf);
  w->scratch = jl_calloc(3 * (size_t)world_model_c(w)->nnode + 1, sizeof(double));
  *out = w;
  return JELLY_OK;
}

void jelly_world_free(JellyWorld *world) {
  if (!world) return;
  for (int b = 0; b < world_model_c(world)->nbody; b++) free(world->surf[b]);
  free(world->surf);
  free(world->scratch);
  jl_world_destroy(&world->w); /* frees the external force and drag elements too */
  JellyModel *model = world->model;
  free(world);
  if (--model->nworld == 0 && model->freed) model_release(model);
}

JellyResult jelly_world_step(JellyWorld *world, double seconds, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_step";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  if (!(isfinite(seconds) && seconds > 0 && seconds <= 1e6))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "seconds must be > 0 and at most 1e6");
  /* the engine's step plan, as `jelly run` steps a frame */
  JlStepPlan plan = jl_world_step_plan(NULL, world->w.def.integrator, seconds, world->dt, 0, 0.0);
  if (plan.steps > (double)API_MAX_STEPS)
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "more than 1e9 steps of the model's dt");
  long steps = (long)plan.steps;
  double h = plan.h;
  for (long k = 0; k < steps; k++) {
    JlStepReport rep;
    JlResult r = jl_world_step(&world->w, h, &rep);
    world->steps += rep.substeps;
    world->fr_steps += rep.substeps;
    world->fr_cg += rep.cg_iterations;
    world->fr_cg_failed += rep.cg_failed;
    world->fr_splits += rep.energy_splits;
    world->fr_crossing += rep.crossing_splits;
    if (r) {
      world->diverged++;
      if (err && errsz > 0) snprintf(err, errsz, "%s: diverged at t = %.6g s: %s", fn, world->w.state.t, rep.message);
      return (JellyResult)r;
    }
  }
  return JELLY_OK;
}

double jelly_world_time(const JellyWorld *world) { return world ? world->w.state.t : 0.0; }

double jelly_world_dt(const JellyWorld *world) { return world ? world->dt : 0.0; }

int jelly_world_node_count(const JellyWorld *world) { return world ? world_model_c(world)->nnode : 0; }

const double *jelly_world_positions(const JellyWorld *world) { return world ? world->w.state.x : NULL; }

const double *jelly_world_velocities(const JellyWorld *world) { return world ? world->w.state.v : NULL; }

/* index i of a world's nodes or bodies (what: "node" or "body", n of them) */
static JellyResult check_index(const JellyWorld *world, int i, const char *what, const char *fn, char *err,
                               size_t errsz) {
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  int n = what[0] == 'n' ? world_model_c(world)->nnode : world_model_c(world)->nbody;
  if (i < 0 || i >= n) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s %d is not in 0..%d", what, i, n - 1);
    return fail(err, errsz, JELLY_ERR_INPUT, fn, msg);
  }
  return JELLY_OK;
}

static JellyResult check_node(const JellyWorld *world, int node, const char *fn, char *err, size_t errsz) {
  return check_index(world, node, "node", fn, err, errsz);
}

static JellyResult check_body(const JellyWorld *world, int body, const char *fn, char *err, size_t errsz) {
  return check_index(world, body, "body", fn, err, errsz);
}

JellyResult jelly_world_node_mass(const JellyWorld *world, int node, double *kg, char *err, size_t errsz) {
  JellyResult r = check_node(world, node, "jelly_world_node_mass", err, errsz);
  if (r) return r;
  if (!kg) return fail(err, errsz, JELLY_ERR_INPUT, "jelly_world_node_mass", "kg is NULL");
  *kg = world_model_c(world)->mass[node];
  return JELLY_OK;
}

int jelly_world_body_count(const JellyWorld *world) { return world ? world_model_c(world)->nbody : 0; }

JellyResult jelly_world_body_info(const JellyWorld *world, int body, JellyBodyInfo *info, char *err, size_t errsz) {
  JellyResult r = check_body(world, body, "jelly_world_body_info", err, errsz);
  if (r) return r;
  if (!info) return fail(err, errsz, JELLY_ERR_INPUT, "jelly_world_body_info", "info is NULL");
  const JlBody *b = &world_model_c(world)->body[body];
  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "%s", b->name);
  info->first_node = b->node_begin;
  info->node_count = b->node_count;
  info->mass = b->mass;
  info->vertex_count = b->surface.nvert;
  info->triangle_count = b->surface.ntri;
  return JELLY_OK;
}

JellyResult jelly_world_body_surface(JellyWorld *world, int body, const double **vertices, int *vertex_count,
                                     const int **triangles, int *triangle_count, char *err, size_t errsz) {
  JellyResult r = check_body(world, body, "jelly_world_body_surface", err, errsz);
  if (r) return r;
  const JlBody *b = &world_model_c(world)->body[body];
  if (!world->surf[body]) {
    /* the rest shape first: jl_world_surface writes only what the body's kind carries */
    world->surf[body] = jl_calloc(3 * (size_t)b->surface.nvert + 1, sizeof(double));
    memcpy(world->surf[body], b->surface.vert, 3 * (size_t)b->surface.nvert * sizeof(double));
  }
  jl_world_surface(&world->w, body, world->surf[body]);
  if (vertices) *vertices = world->surf[body];
  if (vertex_count) *vertex_count = b->surface.nvert;
  if (triangles) *triangles = b->surface.tri;
  if (triangle_count) *triangle_count = b->surface.ntri;
  return JELLY_OK;
}

JellyResult jelly_world_pin(JellyWorld *world, int node, int on, char *err, size_t errsz) {
  JellyResult r = check_node(world, node, "jelly_world_pin", err, errsz);
  if (r) return r;
  if (on != 0 && on != 1) return fail(err, errsz, JELLY_ERR_INPUT, "jelly_world_pin", "on must be 0 or 1");
  /* the world's own pin mask (the model is shared): the constraint filter of
   * the implicit step and the explicit steppers read it each step */
  jl_world_pin(&world->w, node, on);
  return JELLY_OK;
}

JellyResult jelly_world_set_force(JellyWorld *world, int node, const double force[3], char *err, size_t errsz) {
  JellyResult r = check_node(world, node, "jelly_world_set_force", err, errsz);
  if (r) return r;
  if (!force) return fail(err, errsz, JELLY_ERR_INPUT, "jelly_world_set_force", "force is NULL");
  if (!finite3(force) || fabs(force[0]) > 1e15 || fabs(force[1]) > 1e15 || fabs(force[2]) > 1e15)
    return fail(err, errsz, JELLY_ERR_INPUT, "jelly_world_set_force", "force must be finite (and below 1e15 N)");
  jl_external_force_set(world->ext, node, force);
  return JELLY_OK;
}

static void energies_of(const JellyWorld *world, const JlEnergy *e, JellyEnergies *out);

JellyResult jelly_world_energies(const JellyWorld *world, JellyEnergies *out, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_energies";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  if (!out) return fail(err, errsz, JELLY_ERR_INPUT, fn, "out is NULL");
  JlEnergy e;
  jl_world_energy(&world->w, &e);
  energies_of(world, &e, out);
  return JELLY_OK;
}

/* the public energies from the engine's: jl_world_energy counts every element but springs, volume and
 * gravity as penalty energy, so the external element's share is taken out again */
static void energies_of(const JellyWorld *world, const JlEnergy *engine, JellyEnergies *out) {
  JlEnergy e = *engine;
  double ext = jl_external_force_energy(world->ext, world->w.state.x);
  if (jl_drag_active(world->drag)) {
    double en = 0.0;
    world->drag->ops->force(world->drag, world_model_c(world), world->w.state.x, world->w.state.v, world->scratch, &en);
    ext += en;
  }
  out->kinetic = e.kinetic;
  out->elastic = e.elastic;
  out->gravity = e.gravity;
  out->external = ext;
  out->contact = e.ground - ext;
  out->total = out->kinetic + out->elastic + out->gravity + out->contact + out->external;
}

JellyResult jelly_world_stats(JellyWorld *world, int reset, JellyStats *out, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_stats";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  if (!out) return fail(err, errsz, JELLY_ERR_INPUT, fn, "out is NULL");
  memset(out, 0, sizeof *out);
  JlStateStats st;
  jl_state_stats(&world->w, &st, NULL); /* the columns `jelly run` writes (src/stats.h) */
  JellyEnergies e;
  energies_of(world, &st.energy, &e);
  out->time = world->w.state.t;
  out->steps = world->fr_steps;
  out->cg_iterations = world->fr_cg;
  out->cg_failed = world->fr_cg_failed;
  out->energy_splits = world->fr_splits;
  out->crossing_splits = world->fr_crossing;
  out->kinetic_energy = e.kinetic;
  out->elastic_energy = e.elastic;
  out->gravity_energy = e.gravity;
  out->max_strain = st.max_strain;
  out->min_y = st.min_y;
  out->contacts = st.contacts;
  out->contact_energy = e.contact;
  out->inverted_tets = st.inverted_tets;
  if (reset) world->fr_steps = world->fr_cg = world->fr_cg_failed = world->fr_splits = world->fr_crossing = 0;
  return JELLY_OK;
}

const char *jelly_warning_name(JellyWarningKind kind) {
  if ((int)kind < 0 || (int)kind >= JELLY_WARN_COUNT) return NULL;
  /* the engine's names but for the solver cap, named as the public kind */
  return kind == JELLY_WARN_SOLVER_CAP ? "solver_cap" : jl_warning_name((JlWarningKind)kind);
}

JellyResult jelly_world_warnings(const JellyWorld *world, JellyWarnings *out, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_warnings";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  if (!out) return fail(err, errsz, JELLY_ERR_INPUT, fn, "out is NULL");
  memset(out, 0, sizeof *out);
  out->steps = world->steps;
  out->diverged = world->diverged;
  const JlWarnings *wn = &world->w.state.warnings;
  for (int k = 0; k < JELLY_WARN_COUNT; k++) {
    out->count[k] = wn->count[k];
    out->first_time[k] = wn->first_t[k];
    memcpy(out->first[k], wn->first[k], sizeof out->first[k]);
    out->first[k][sizeof out->first[k] - 1] = '\0';
  }
  const JlModel *m = world_model_c(world);
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].tet_count > 0) out->inverted_tets += jl_volume_inverted(m, world->w.state.x, b);
  return JELLY_OK;
}

/* ---- states ------------------------------------------------------------------- */

JellyResult jelly_world_copy_state(JellyWorld *dst, const JellyWorld *src, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_copy_state";
  if (!dst) return fail(err, errsz, JELLY_ERR_INPUT, fn, "dst is NULL");
  if (!src) return fail(err, errsz, JELLY_ERR_INPUT, fn, "src is NULL");
  char msg[512];
  /* jl_state_copy refuses worlds of different models (fingerprint) */
  JlResult r = jl_state_copy(&dst->w, &src->w, msg, sizeof msg);
  if (r) return fail(err, errsz, (JellyResult)r, fn, msg);
  return JELLY_OK;
}

/* a checkpoint file written from (save) or read into (load) the world */
static JellyResult checkpoint_io(JellyWorld *world, const char *path, int save, char *err, size_t errsz) {
  const char *fn = save ? "jelly_world_save" : "jelly_world_load";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  if (!path || !path[0]) return fail(err, errsz, JELLY_ERR_INPUT, fn, "path is NULL or empty");
  char msg[1200];
  JlResult r = save ? jl_checkpoint_save(&world->w, path, msg, sizeof msg)
                    : jl_checkpoint_load(&world->w, path, msg, sizeof msg);
  if (r) return fail(err, errsz, (JellyResult)r, fn, msg);
  return JELLY_OK;
}

JellyResult jelly_world_save(const JellyWorld *world, const char *path, char *err, size_t errsz) {
  /* only read: checkpoint_io's world is non-const for the load direction */
  return checkpoint_io((JellyWorld *)world, path, 1, err, errsz);
}

JellyResult jelly_world_load(JellyWorld *world, const char *path, char *err, size_t errsz) {
  return checkpoint_io(world, path, 0, err, errsz);
}

/* ---- drag --------------------------------------------------------------------- */

static int finite_below(const double *v, double bound) {
  return finite3(v) && fabs(v[0]) <= bound && fabs(v[1]) <= bound && fabs(v[2]) <= bound;
}

JellyResult jelly_world_drag(JellyWorld *world, int body, int triangle, const double bary[3], const double target[3],
                             double stiffness, double damping, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_drag";
  JellyResult r = check_body(world, body, fn, err, errsz);
  if (r) return r;
  const JlModel *m = world_model_c(world);
  const JlBody *b = &m->body[body];
  char msg[128];
  /* the drag point rides on the body's tets through its surface embedding */
  if (b->tet_count <= 0 || !b->embed.tet || b->surface.ntri <= 0) {
    snprintf(msg, sizeof msg, "body %d has no tetrahedralized surface to drag (cloth and ropes cannot be)", body);
    return fail(err, errsz, JELLY_ERR_INPUT, fn, msg);
  }
  if (triangle < 0 || triangle >= b->surface.ntri) {
    snprintf(msg, sizeof msg, "triangle %d is not in 0..%d", triangle, b->surface.ntri - 1);
    return fail(err, errsz, JELLY_ERR_INPUT, fn, msg);
  }
  if (!bary) return fail(err, errsz, JELLY_ERR_INPUT, fn, "bary is NULL");
  if (!target) return fail(err, errsz, JELLY_ERR_INPUT, fn, "target is NULL");
  if (!(bary[0] >= 0 && bary[1] >= 0 && bary[2] >= 0 && fabs(bary[0] + bary[1] + bary[2] - 1.0) <= 1e-6))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "bary must be >= 0 each and sum to 1");
  if (!finite_below(target, 1e15)) return fail(err, errsz, JELLY_ERR_INPUT, fn, "target must be finite (below 1e15 m)");
  if (!(isfinite(stiffness) && stiffness >= 0 && stiffness <= 1e15) ||
      !(isfinite(damping) && damping >= 0 && damping <= 1e15))
    return fail(err, errsz, JELLY_ERR_INPUT, fn,
                "stiffness and damping must be in [0, 1e15] (0: from the body's mass)");
  jl_drag_attach(world->drag, m, body, triangle, bary, stiffness, damping);
  jl_drag_set_target(world->drag, target, NULL);
  return JELLY_OK;
}

JellyResult jelly_world_drag_move(JellyWorld *world, const double target[3], const double velocity[3], char *err,
                                  size_t errsz) {
  static const char fn[] = "jelly_world_drag_move";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  if (!jl_drag_active(world->drag))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "nothing is dragged (jelly_world_drag)");
  if (!target) return fail(err, errsz, JELLY_ERR_INPUT, fn, "target is NULL");
  if (!finite_below(target, 1e15)) return fail(err, errsz, JELLY_ERR_INPUT, fn, "target must be finite (below 1e15 m)");
  if (velocity && !finite_below(velocity, 1e15))
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "velocity must be finite (below 1e15 m/s)");
  jl_drag_set_target(world->drag, target, velocity);
  return JELLY_OK;
}

JellyResult jelly_world_drag_release(JellyWorld *world, char *err, size_t errsz) {
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, "jelly_world_drag_release", "world is NULL");
  jl_drag_release(world->drag);
  return JELLY_OK;
}
