/* The world: holds its model (owned or shared), the state, the force
 * elements and the stepper workspace (src/world_internal.h); creates and
 * destroys them, copies states, saves and loads the elements' history, and
 * sums forces and energies. How a step advances the state is in
 * src/world_step.c.
 *
 * Threads: each parallel loop carries a num_threads clause with the world's
 * def.threads (JlForce.threads, JlCg.threads), never omp_set_num_threads, so
 * worlds on different threads of a host keep their own counts; every
 * parallel loop uses static schedules and fixed-block reductions, so results
 * are identical for any thread count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/contact.h"
#include "src/impact.h"
#include "src/precond.h"
#include "src/rolling.h"
#include "src/world_internal.h"
#include "src/volume.h"
#include "src/wind.h"

static const char *const integrator_names[JL_INTEGRATOR_COUNT] = {
    "implicit", "symplectic", "euler", "midpoint", "rk4", "verlet", "implicit_midpoint"};

const char *jl_integrator_name(JlIntegrator i) {
  return (i >= 0 && i < JL_INTEGRATOR_COUNT) ? integrator_names[i] : NULL;
}

JlIntegrator jl_integrator_parse(const char *name) {
  return (JlIntegrator)jl_name_index(integrator_names, JL_INTEGRATOR_COUNT, name);
}

#define STEP_ROW(...) JL_SETTING_ROW_OF(JlStepDef, __VA_ARGS__)
static const JlSetting step_rows[] = {JL_STEP_SETTINGS(STEP_ROW)};
const JlSettingTable JL_STEP_TABLE = {"step", step_rows, (int)(sizeof step_rows / sizeof step_rows[0])};

JlStepDef jl_default_step_def(void) {
  JlStepDef d;
  memset(&d, 0, sizeof d);
  jl_settings_default(&d, &JL_STEP_TABLE);
  d.integrator = JL_INTEGRATOR_IMPLICIT;
  d.preconditioner = JL_PRECOND_DEFAULT;
  return d;
}

static const char *const warning_names[JL_WARN_COUNT] = {"cg_cap", "inverted", "push_out", "nonfinite", "energy_rise"};

const char *jl_warning_name(JlWarningKind k) { return (k >= 0 && k < JL_WARN_COUNT) ? warning_names[k] : NULL; }

/* counts n occurrences of kind k at time t; the first one's details are kept */
static JlResult check_step_def(const JlStepDef *d, char *err, size_t errsz) {
  if (d->integrator < 0 || d->integrator >= JL_INTEGRATOR_COUNT)
    return jl_fail(err, errsz, JL_ERR_INPUT, "unknown integrator %d", (int)d->integrator);
  /* the settings of the table (src/settings.h), in the ranges a scene accepts */
  const JlSetting *st = jl_settings_bad(d, &JL_STEP_TABLE);
  if (st) {
    char range[96];
    jl_setting_range(st, range, sizeof range);
    return jl_fail(err, errsz, JL_ERR_INPUT, "step: %s (scene key %s%s%s) must be %s, got %g", st->field, st->section,
                   st->section[0] ? "." : "", st->key, range, jl_setting_get(d, st));
  }
  if (d->preconditioner < 0 || d->preconditioner >= JL_PRECOND_COUNT)
    return jl_fail(err, errsz, JL_ERR_INPUT, "unknown preconditioner %d", d->preconditioner);
  return JL_OK;
}

static void work_free(JlWork *k) {
  if (!k) return;
  free(k->hist_step.buf);
  free(k->hist_sub.buf);
  free(k->hist_mid.buf);
  double **arrays[] = {&k->f,        &k->energy_f, &k->x_step,    &k->v_step,     &k->dv_step, &k->x_sub,
                       &k->v_sub,    &k->dv_sub,   &k->xs,        &k->vs,         &k->sx,      &k->sv,
                       &k->rhs,      &k->diag,     &k->rhs_fixed, &k->diag_fixed, &k->x_guard, &k->v_guard,
                       &k->dv_guard, &k->x_mid,    &k->v_mid,     &k->dv_mid};
  for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++) free(*arrays[a]);
  free(k->group);
  free(k->inverted);
  free(k->gsum);
  JL_FREE_ALL(k->ecache_x, k->ecache_v, k->ecache_pin);
  jl_precond_free(k->prec);
  jl_cg_free(&k->cg);
  free(k);
}

static JlWork *work_create(int nnode, int nbody) {
  JlWork *k = jl_calloc(1, sizeof *k);
  k->nbody = nbody;
  k->group = jl_calloc((size_t)nbody + 1, sizeof(int));
  k->inverted = jl_calloc((size_t)nbody + 1, sizeof(int));
  k->gsum = jl_calloc(16 * ((size_t)nbody + 1), sizeof(double));
  k->ecache_x = jl_calloc(3 * (size_t)nnode + 1, sizeof(double));
  k->ecache_v = jl_calloc(3 * (size_t)nnode + 1, sizeof(double));
  k->ecache_pin = jl_calloc((size_t)nnode + 1, 1);
  size_t n3 = 3 * (size_t)nnode;
  k->nnode = nnode;
  double **arrays[] = {&k->f,     &k->energy_f,  &k->x_step, &k->v_step, &k->dv_step, &k->x_sub,
                       &k->v_sub, &k->dv_sub,    &k->xs,     &k->vs,     &k->sx,      &k->sv,
                       &k->rhs,   &k->rhs_fixed, &k->x_mid,  &k->v_mid,  &k->dv_mid};
  for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++) *arrays[a] = jl_calloc(n3, sizeof(double));
  k->diag = jl_calloc(3 * n3, sizeof(double));
  k->diag_fixed = jl_calloc(3 * n3, sizeof(double));
  k->x_guard = jl_calloc(JL_GUARD_DEPTH * n3 + 1, sizeof(double));
  k->v_guard = jl_calloc(JL_GUARD_DEPTH * n3 + 1, sizeof(double));
  k->dv_guard = jl_calloc(JL_GUARD_DEPTH * n3 + 1, sizeof(double));
  jl_cg_init(&k->cg, nnode);
  return k;
}

void jl_world_history_save(const JlWorld *w, JlHistory *h) {
  size_t n = 0;
  for (int e = 0; e < w->nforce; e++) {
    const JlForce *f = w->force[e];
    h->off[e] = n;
    h->len[e] = f->ops->history_size ? f->ops->history_size(f) : 0;
    h->kind[e] = f->kind;
    n += (h->len[e] + 15) & ~(size_t)15; /* each element's bytes aligned, so they may be read in place */
  }
  h->nforce = w->nforce;
  /* grown rarely: to twice the contact set's size */
  if (n > h->cap) {
    free(h->buf);
    h->cap = 2 * n;
    h->buf = jl_calloc(h->cap, 1);
  }
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->ops->history_save && h->len[e]) w->force[e]->ops->history_save(w->force[e], h->buf + h->off[e]);
}

int jl_world_history_load(JlWorld *w, const JlHistory *h) {
  ((JlWork *)w->work)->ecache_valid = 0; /* the elements' state changes: the guard's cached energy is stale */
  if (h->nforce != w->nforce) return 0;
  int ok = 1;
  for (int e = 0; e < w->nforce; e++) {
    JlForce *f = w->force[e];
    size_t n = h->len[e];
    if (h->kind[e] != f->kind) return 0;
    if (f->ops->history_load)
      ok &= f->ops->history_load(f, w->model, h->buf + h->off[e], n);
    else
      ok &= n == 0;
  }
  return ok;
}

void jl_state_alloc(JlState *s, int nnode) {
  memset(s, 0, sizeof *s);
  s->nnode = nnode;
#define ALLOC(f, T, per) s->f = jl_calloc((size_t)(per) * (size_t)nnode + 1, sizeof(T));
  JL_STATE_ARRAYS(ALLOC)
#undef ALLOC
}

void jl_state_free(JlState *s) {
#define FREE(f, T, per) free(s->f);
  JL_STATE_ARRAYS(FREE)
#undef FREE
  memset(s, 0, sizeof *s);
}

void jl_state_assign(JlState *dst, const JlState *src) {
  JL_ASSERT(dst->nnode == src->nnode, "jl_state_assign: states of different node counts");
  if (dst == src) return;
  JlState s = *src; /* the scalars */
#define COPY(f, T, per) \
  s.f = dst->f;         \
  if (src->nnode > 0) memcpy(dst->f, src->f, (size_t)(per) * (size_t)src->nnode * sizeof(T));
  JL_STATE_ARRAYS(COPY)
#undef COPY
  *dst = s;
}

/* The masses the velocity stop weighs each node's residual momentum by
 * (src/cg.h): m_i, but at least JL_VSTOP_MASS_FLOOR of its body's mean node
 * mass. An embedded body's lattice nodes that lie barely inside its surface
 * carry a sliver of material (mesh/tetmesh_embed.c): 1/100 to 1/300 of the
 * mean in default.json's bunny. Their own velocity error is |r_i| / m_i, and
 * with the plain masses those few nodes set the stop of every solve (their
 * residual is the last to fall: CG's error norm weighs them by their mass).
 * With the floor a node lighter than a tenth of its body's mean is held to
 * the momentum error a tenth-of-mean node may have, vtol x floor: its share
 * of the body's momentum and energy errors stays below a normal node's.
 * docs/performance.md, "Contact-rich scenes", has the accuracy and the
 * iterations it saves. */
#define JL_VSTOP_MASS_FLOOR 0.1

static void velocity_stop_masses(const JlModel *m, double *out) {
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *bd = &m->body[b];
    double sum = 0.0;
    for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) sum += m->mass[i];
    double floor = bd->node_count > 0 ? JL_VSTOP_MASS_FLOOR * sum / bd->node_count : 0.0;
    for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++)
      out[i] = m->mass[i] > floor || !(m->mass[i] > 0.0) ? m->mass[i] : floor;
  }
}


static JlResult world_init(JlWorld *w, const JlModel *base, JlModel *owned, const JlStepDef *def, char *err,
                           size_t errsz) {
  JlResult r = check_step_def(def, err, errsz);
  if (r) return r;
  w->def = *def;
  w->work = work_create(base->nnode, base->nbody);
  JlWork *k = w->work;
  k->base = base;
  k->owned = owned;

  /* state: x = x0, v = v0 (pinned nodes at rest), dv = 0, the model's pins */
  jl_state_alloc(&w->state, base->nnode);
  size_t n3 = 3 * (size_t)base->nnode;
  if (n3) {
    memcpy(w->state.x, base->x0, n3 * sizeof(double));
    memcpy(w->state.v, base->v0, n3 * sizeof(double));
    if (base->pinned) memcpy(w->state.pinned, base->pinned, (size_t)base->nnode);
  }
  /* the model as the world's elements read it: every array the base model's
   * but `pinned`, which is the state's pin mask, so jelly_world_pin /
   * jl_world_pin in one world never reaches another world of the same model,
   * while every reader of m->pinned (CG filter, steppers, contacts) sees this
   * world's pins through the same JlModel interface. On the heap, so a
   * JlWorld struct may still be copied (the viewer swaps worlds). */
  k->view = jl_calloc(1, sizeof *k->view);
  *k->view = *base;
  k->view->pinned = w->state.pinned;
  w->model = k->view;
  const JlModel *mm = w->model;
  for (int i = 0; i < mm->nnode; i++)
    if (mm->pinned[i]) w->state.v[3 * i] = w->state.v[3 * i + 1] = w->state.v[3 * i + 2] = 0.0;

  /* force elements */
  jl_world_add_force(w, jl_springs_create(mm));
  JlForce *volume = jl_volume_create(mm);
  if (volume) jl_world_add_force(w, volume);
  jl_world_add_force(w, jl_gravity_create(mm));
  JlForce *ground = mm->world.has_ground ? jl_ground_create(mm) : NULL;
  JlForce *contacts = jl_contact_needed(mm) ? jl_contact_create(mm) : NULL;
  if (ground) jl_world_add_force(w, ground);
  if (contacts) jl_world_add_force(w, contacts);
  /* after both: its begin_step reads their loads */
  JlForce *rolling = jl_rolling_create(mm, contacts, ground);
  if (rolling) jl_world_add_force(w, rolling);
  /* after both: it reads their end-of-step loads */
  JlForce *impact = jl_impact_create(mm, contacts, ground);
  if (impact) jl_world_add_force(w, impact);
  /* wind on cloth (src/wind.c); substep() sets its gust time */
  if (mm->world.wind_drag > 0.0) {
    JlForce *wind = jl_wind_create(mm);
    if (wind) jl_world_add_force(w, wind);
  }

  {
    k->threads = k->cg.threads = def->threads;
    jl_tune_init(&k->tune, def->threads, mm->nnode);
    velocity_stop_masses(mm, k->f); /* k->f is scratch until the first step */
    jl_cg_set_velocity_stop(&k->cg, k->f, def->velocity_tolerance);
    k->mass_total = 0.0;
    for (int i = 0; i < mm->nnode; i++) k->mass_total += mm->mass[i];
    k->prec = jl_precond_create(mm, (JlPrecondKind)def->preconditioner);
    k->cg.prec = k->prec;
  }
  return JL_OK;
}

JlResult jl_world_create(JlWorld *w, JlModel *m, const JlStepDef *def, char *err, size_t errsz) {
  JL_ASSERT(w && m && def, "jl_world_create: world, model and def must not be NULL");
  memset(w, 0, sizeof *w);
  /* moved to the heap, so a JlWorld struct may be copied (the viewer swaps worlds) */
  JlModel *owned = jl_calloc(1, sizeof *owned);
  *owned = *m;
  memset(m, 0, sizeof *m);
  JlResult r = world_init(w, owned, owned, def, err, errsz);
  if (r) {
    jl_model_free(owned);
    free(owned);
  }
  return r;
}

JlResult jl_world_create_shared(JlWorld *w, const JlModel *m, const JlStepDef *def, char *err, size_t errsz) {
  JL_ASSERT(w && m && def, "jl_world_create_shared: world, model and def must not be NULL");
  memset(w, 0, sizeof *w);
  return world_init(w, m, NULL, def, err, errsz);
}

void jl_world_destroy(JlWorld *w) {
  if (!w) return;
  for (int f = 0; f < w->nforce; f++) jl_force_free(w->force[f]);
  JlWork *k = w->work;
  if (k) {
    free(k->view); /* its arrays are the base model's and the state's */
    if (k->owned) {
      jl_model_free(k->owned);
      free(k->owned);
    }
  }
  work_free(k);
  jl_state_free(&w->state);
  memset(w, 0, sizeof *w);
}

const JlModel *jl_world_base_model(const JlWorld *w) { return ((const JlWork *)w->work)->base; }

void jl_world_pin(JlWorld *w, int node, int on) {
  JL_ASSERT(w && w->work, "jl_world_pin: create the world with jl_world_create first");
  JL_ASSERT(node >= 0 && node < w->state.nnode, "jl_world_pin: node out of range (0 to nnode - 1)");
  w->state.pinned[node] = on ? 1 : 0;
  /* a newly pinned node is at rest: the constraint filter keeps v + dv where
   * they are, so both start at 0 (and the CG warm start there too) */
  if (on)
    for (int k = 0; k < 3; k++) w->state.v[3 * node + k] = w->state.dv[3 * node + k] = 0.0;
}

int jl_world_add_force(JlWorld *w, JlForce *f) {
  JL_ASSERT(w && f, "jl_world_add_force: world and force must not be NULL");
  if (w->nforce >= JL_MAX_FORCES) return 0;
  f->threads = w->def.threads;
  w->force[w->nforce++] = f;
  return 1;
}

JlForce *jl_world_find_force(const JlWorld *w, JlForceKind kind) {
  JL_ASSERT(w, "jl_world_find_force: world must not be NULL");
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->kind == kind) return w->force[e];
  return NULL;
}

int jl_world_remove_force(JlWorld *w, JlForce *f) {
  JL_ASSERT(w, "jl_world_remove_force: world must not be NULL");
  for (int e = 0; e < w->nforce; e++) {
    if (w->force[e] != f) continue;
    /* keep the others' order: the force sum's order is part of the results */
    memmove(&w->force[e], &w->force[e + 1], sizeof(JlForce *) * (size_t)(w->nforce - e - 1));
    w->nforce--;
    return 1;
  }
  return 0;
}

void jl_world_set_integrator(JlWorld *w, JlIntegrator integ) {
  JL_ASSERT(w && integ >= 0 && integ < JL_INTEGRATOR_COUNT,
            "jl_world_set_integrator: world must not be NULL and the integrator one of JlIntegrator");
  w->def.integrator = integ;
}

void jl_world_forces(const JlWorld *w, const double *x, const double *v, double *f, double *potential) {
  const JlModel *m = w->model;
  memset(f, 0, 3 * (size_t)m->nnode * sizeof(double));
  if (potential) *potential = 0.0;
  for (int e = 0; e < w->nforce; e++) w->force[e]->ops->force(w->force[e], m, x, v, f, potential);
}

void jl_world_energy(const JlWorld *w, JlEnergy *e) {
  const JlModel *m = w->model;
  const JlState *s = &w->state;
  JlWork *k = w->work;
  memset(e, 0, sizeof *e);
  for (int i = 0; i < m->nnode; i++) {
    const double *v = s->v + 3 * i;
    e->kinetic += 0.5 * m->mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  /* potential energy per element; elements other than springs and gravity
   * (ground, contacts, ...) count as penalty energy in e->ground */
  for (int f = 0; f < w->nforce; f++) {
    const JlForce *el = w->force[f];
    double en = 0.0;
    el->ops->force(el, m, s->x, s->v, k->energy_f, &en);
    if (el->kind == JL_FORCE_SPRINGS || el->kind == JL_FORCE_VOLUME)
      e->elastic += en;
    else if (el->kind == JL_FORCE_GRAVITY)
      e->gravity += en;
    else
      e->ground += en;
  }
}

void jl_world_surface(const JlWorld *w, int b, double *out) {
  const JlModel *m = w->model;
  JL_ASSERT(b >= 0 && b < m->nbody, "jl_world_surface: body index out of range");
  const JlBody *body = &m->body[b];
  /* cloth and ropes: the surface vertices are the body's nodes */
  if (body->kind != JL_BODY_VOLUME) {
    int n = body->surface.nvert < body->node_count ? body->surface.nvert : body->node_count;
    memcpy(out, w->state.x + 3 * (size_t)body->node_begin, 3 * (size_t)n * sizeof(double));
    return;
  }
  if (body->embed.nvert <= 0) return;
  /* embed.tet indexes the body's tets; their node ids in model->tet are global */
  jl_embed_apply(&body->embed, m->tet + 4 * (size_t)body->tet_begin, 0, w->state.x, out);
}

int jl_world_thread_switches(const JlWorld *w) { return ((const JlWork *)w->work)->tune.switches; }
