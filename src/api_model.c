/* The public API's models (src/include/jelly/jelly.h, "models"): loading a
 * scene, building from arrays and mesh files, the settings by name and the
 * body defs the engine's tables mirror (src/api.c has the overview). */
#include "src/api_internal.h"

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

void jl_api_model_release(JellyModel *model) {
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
  jl_api_model_release(model);
}
