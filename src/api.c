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
 * buffers and the step counters of stats.csv. The models' half is
 * src/api_model.c, what both share src/api_internal.h. */
#include "src/api_internal.h"

/* the public warning kinds are the engine's, in the same order */
_Static_assert((int)JELLY_WARN_COUNT == (int)JL_WARN_COUNT, "JellyWarningKind must mirror JlWarningKind");
_Static_assert((int)JELLY_WARN_SOLVER_CAP == (int)JL_WARN_CG_CAP && (int)JELLY_WARN_INVERTED == (int)JL_WARN_INVERTED &&
                   (int)JELLY_WARN_PUSH_OUT == (int)JL_WARN_PUSH_OUT &&
                   (int)JELLY_WARN_NONFINITE == (int)JL_WARN_NONFINITE &&
                   (int)JELLY_WARN_ENERGY_RISE == (int)JL_WARN_ENERGY_RISE,
               "JellyWarningKind must mirror JlWarningKind");
_Static_assert(sizeof(((JellyWarnings *)0)->first[0]) == sizeof(((JlWarnings *)0)->first[0]),
               "JellyWarnings.first must hold JlWarnings.first");

const char *jelly_version(void) { return JELLY_VERSION; }

const char *jl_version(void) { return JELLY_VERSION; }

JellyAssertHandler jelly_set_assert_handler(JellyAssertHandler handler) {
  /* the same signature as the engine's handler type */
  return (JellyAssertHandler)jl_set_assert_handler((JlAssertHandler)handler);
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
  jl_snapshot_take(&w->w, &w->fresh);
  *out = w;
  return JELLY_OK;
}

void jelly_world_free(JellyWorld *world) {
  if (!world) return;
  for (int b = 0; b < world_model_c(world)->nbody; b++) free(world->surf[b]);
  free(world->surf);
  free(world->scratch);
  jl_snapshot_free(world->fresh);
  jl_world_destroy(&world->w); /* frees the external force and drag elements too */
  JellyModel *model = world->model;
  free(world);
  if (--model->nworld == 0 && model->freed) jl_api_model_release(model);
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

long jelly_world_step_count(const JellyWorld *world, double seconds) {
  if (!world || !(isfinite(seconds) && seconds > 0 && seconds <= 1e6)) return 0;
  JlStepPlan plan = jl_world_step_plan(NULL, world->w.def.integrator, seconds, world->dt, 0, 0.0);
  return plan.steps > (double)API_MAX_STEPS ? 0 : (long)plan.steps;
}

/* ---- setting the state -------------------------------------------------------- */

/* The world goes on as a world created in state (x, v) would: the solver's warm start, the
 * adaptive controller and every element's history (contact memory, friction anchors, impacts
 * under way) as at creation; the time, the pins, the warnings, set forces and a drag stay.
 * Pinned nodes keep v = 0. x and v may be the world's own arrays. */
static void restart(JellyWorld *world, const double *x, const double *v) {
  JlState *s = &world->w.state;
  size_t n3 = 3 * (size_t)s->nnode;
  double *keep = jl_calloc(2 * n3 + 1, sizeof(double));
  unsigned char *pins = jl_calloc((size_t)s->nnode + 1, 1);
  if (n3) {
    memcpy(keep, x, n3 * sizeof(double));
    memcpy(keep + n3, v, n3 * sizeof(double));
    memcpy(pins, s->pinned, (size_t)s->nnode);
  }
  double t = s->t;
  JlWarnings warnings = s->warnings;
  JlResult r = jl_snapshot_restore(&world->w, world->fresh, NULL, 0);
  JL_ASSERT(r == JL_OK, "restart: the world's own creation snapshot must fit it");
  if (n3) {
    memcpy(s->x, keep, n3 * sizeof(double));
    memcpy(s->v, keep + n3, n3 * sizeof(double));
    memcpy(s->pinned, pins, (size_t)s->nnode);
  }
  for (int i = 0; i < s->nnode; i++)
    if (s->pinned[i]) s->v[3 * i] = s->v[3 * i + 1] = s->v[3 * i + 2] = 0.0;
  s->t = t;
  s->warnings = warnings;
  free(keep);
  free(pins);
}

/* count x 3 finite doubles of at most `bound` in magnitude; else the message */
static JellyResult check_array(const JellyWorld *world, const double *a, int count, double bound, const char *fn,
                               const char *what, char *err, size_t errsz) {
  if (!a) return fail(err, errsz, JELLY_ERR_INPUT, fn, "the array is NULL");
  if (count != world_model_c(world)->nnode) {
    if (err && errsz > 0)
      snprintf(err, errsz, "%s: %d nodes given, the world has %d", fn, count, world_model_c(world)->nnode);
    return JELLY_ERR_INPUT;
  }
  for (int i = 0; i < 3 * count; i++)
    if (!isfinite(a[i]) || fabs(a[i]) > bound) {
      if (err && errsz > 0)
        snprintf(err, errsz, "%s: node %d's %s is not finite or beyond %g (%g)", fn, i / 3, what, bound, a[i]);
      return JELLY_ERR_INPUT;
    }
  return JELLY_OK;
}

JellyResult jelly_world_set_positions(JellyWorld *world, const double *positions, int count, char *err, size_t errsz) {
  static const char fn[] = "jelly_world_set_positions";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  JellyResult r = check_array(world, positions, count, 1e6, fn, "position (m)", err, errsz);
  if (r) return r;
  restart(world, positions, world->w.state.v);
  return JELLY_OK;
}

JellyResult jelly_world_set_velocities(JellyWorld *world, const double *velocities, int count, char *err,
                                       size_t errsz) {
  static const char fn[] = "jelly_world_set_velocities";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  JellyResult r = check_array(world, velocities, count, 1e6, fn, "velocity (m/s)", err, errsz);
  if (r) return r;
  restart(world, world->w.state.x, velocities);
  return JELLY_OK;
}

JellyResult jelly_world_set_body_pose(JellyWorld *world, int body, const double translation[3],
                                      const double rotation[9], char *err, size_t errsz) {
  static const char fn[] = "jelly_world_set_body_pose";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  const JlModel *m = world_model_c(world);
  if (body < 0 || body >= m->nbody) return fail(err, errsz, JELLY_ERR_INPUT, fn, "body index out of range");
  static const double none[3] = {0, 0, 0}, identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double *t = translation ? translation : none, *R = rotation ? rotation : identity;
  if (!finite3(t) || fabs(t[0]) > 1e6 || fabs(t[1]) > 1e6 || fabs(t[2]) > 1e6)
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "translation must be finite and within 1e6 m");
  /* a rotation: R R^T = I and det R = +1, to 1e-9 */
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double d = 0;
      for (int k = 0; k < 3; k++) d += R[3 * a + k] * R[3 * b + k];
      if (!(fabs(d - (a == b)) <= 1e-9))
        return fail(err, errsz, JELLY_ERR_INPUT, fn, "rotation is not orthonormal (R R^T = I to 1e-9)");
    }
  double det =
      R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
  if (!(det > 0)) return fail(err, errsz, JELLY_ERR_INPUT, fn, "rotation is a reflection (det R = -1)");
  const JlBody *bd = &m->body[body];
  size_t n3 = 3 * (size_t)m->nnode;
  double *x = world->scratch, *v = jl_calloc(n3 + 1, sizeof(double)), c[3];
  memcpy(x, world->w.state.x, n3 * sizeof(double));
  memcpy(v, world->w.state.v, n3 * sizeof(double));
  jl_model_body_com(m, world->w.state.x, body, c);
  /* rigidly: rotated about the centre of mass, then moved; velocities turn with the body */
  for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
    const double *p = world->w.state.x + 3 * i, *u = world->w.state.v + 3 * i;
    double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    for (int k = 0; k < 3; k++) {
      x[3 * i + k] = R[3 * k] * r[0] + R[3 * k + 1] * r[1] + R[3 * k + 2] * r[2] + c[k] + t[k];
      v[3 * i + k] = R[3 * k] * u[0] + R[3 * k + 1] * u[1] + R[3 * k + 2] * u[2];
    }
  }
  restart(world, x, v);
  free(v);
  return JELLY_OK;
}

JellyResult jelly_world_set_body_velocity(JellyWorld *world, int body, const double linear[3], const double angular[3],
                                          char *err, size_t errsz) {
  static const char fn[] = "jelly_world_set_body_velocity";
  if (!world) return fail(err, errsz, JELLY_ERR_INPUT, fn, "world is NULL");
  const JlModel *m = world_model_c(world);
  if (body < 0 || body >= m->nbody) return fail(err, errsz, JELLY_ERR_INPUT, fn, "body index out of range");
  static const double none[3] = {0, 0, 0};
  const double *l = linear ? linear : none, *w = angular ? angular : none;
  if (!finite3(l) || !finite3(w) || fabs(l[0]) > 1e6 || fabs(l[1]) > 1e6 || fabs(l[2]) > 1e6 || fabs(w[0]) > 1e6 ||
      fabs(w[1]) > 1e6 || fabs(w[2]) > 1e6)
    return fail(err, errsz, JELLY_ERR_INPUT, fn, "linear and angular must be finite and within 1e6");
  const JlBody *bd = &m->body[body];
  size_t n3 = 3 * (size_t)m->nnode;
  double *v = world->scratch, c[3];
  memcpy(v, world->w.state.v, n3 * sizeof(double));
  jl_model_body_com(m, world->w.state.x, body, c);
  /* as a scene's "velocity" and "angular_velocity" set them (src/model.c, jl_model_spin) */
  int spin = w[0] != 0.0 || w[1] != 0.0 || w[2] != 0.0;
  for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
    double *u = v + 3 * i;
    const double *x = world->w.state.x + 3 * i;
    u[0] = l[0], u[1] = l[1], u[2] = l[2];
    if (!spin) continue;
    double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    u[0] += w[1] * r[2] - w[2] * r[1];
    u[1] += w[2] * r[0] - w[0] * r[2];
    u[2] += w[0] * r[1] - w[1] * r[0];
  }
  restart(world, world->w.state.x, v);
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
