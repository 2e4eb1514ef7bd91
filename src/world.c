/* The world: points at its model (owned or shared), holds the state, the
 * force elements and the stepper workspace; advances the state with the
 * chosen integrator, optionally with adaptive sub-stepping, and detects
 * divergence.
 *
 * Adaptive stepping follows Kauppila sec. 3.2.3 (after Bridson et al.
 * 2002; docs/references.md): a sub-step is rejected and retried with half the step when any
 * spring's length changes by more than max_strain_change of its rest length,
 * or when it produces NaN/Inf; after two accepted sub-steps the sub-step is
 * doubled again (up to the full step). Below h/1024 the step is given up and
 * reported as divergence.
 *
 * Divergence (every step, adaptive or not): NaN/Inf in x or v, or a spring
 * strain |l - L| / L above def.max_strain. The state is then restored to
 * what it was before jl_world_step and the report names the body, the time
 * and the likely cause.
 *
 * Rollback: an adaptive rejection and a divergence restore the force
 * elements' history (JlForce.history_*) with x, v and dv, so a retried step
 * starts from the contact and friction state its first try started from
 * (the energy guard's split does not: see implicit_guarded).
 *
 * Threads: each parallel loop carries a num_threads clause with the world's
 * def.threads (JlForce.threads, JlCg.threads), never omp_set_num_threads, so
 * worlds on different threads of a host keep their own counts; every
 * parallel loop uses static schedules and fixed-block reductions, so results
 * are identical for any thread count.
 *
 * Warnings (JlWarnings): the step's report (cg_failed, energy_rises), a
 * count of inverted tets after each step, the elements' push-out and NaN/Inf
 * states are counted by kind with the first occurrence's details. */
#include <math.h>
#include <stdarg.h>
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
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void
warn(JlWorld *w, JlWarningKind k, long n, double t, const char *fmt, ...) {
  if (n <= 0) return;
  if (w->state.warnings.count[k] == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->state.warnings.first[k], sizeof w->state.warnings.first[k], fmt, ap);
    va_end(ap);
    w->state.warnings.first_t[k] = t;
  }
  w->state.warnings.count[k] += n;
}

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

/* max |l - L| / L over springs; *worst = spring with the largest strain */
static double max_strain(const JlModel *m, const double *x, int *worst) {
  double best = 0.0;
  int arg = -1;
  for (int s = 0; s < m->nspring; s++) {
    const double *a = x + 3 * m->spring_node[2 * s], *b = x + 3 * m->spring_node[2 * s + 1];
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    double strain = fabs(sqrt(d0 * d0 + d1 * d1 + d2 * d2) - m->spring_rest[s]) / m->spring_rest[s];
    if (!(strain <= best)) { /* larger, or NaN */
      best = strain;
      arg = s;
      if (isnan(strain)) break;
    }
  }
  if (worst) *worst = arg;
  return best;
}

double jl_world_max_strain(const JlWorld *w) { return max_strain(w->model, w->state.x, NULL); }

/* max over springs of |l_new - l_old| / L (the adaptive rejection test) */
static double max_strain_change(const JlModel *m, const double *x_old, const double *x_new, int *worst) {
  double best = 0.0;
  int arg = -1;
  for (int s = 0; s < m->nspring; s++) {
    int i = m->spring_node[2 * s], j = m->spring_node[2 * s + 1];
    const double *a = x_new + 3 * i, *b = x_new + 3 * j, *a0 = x_old + 3 * i, *b0 = x_old + 3 * j;
    double l1 = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    double l0 =
        sqrt((a0[0] - b0[0]) * (a0[0] - b0[0]) + (a0[1] - b0[1]) * (a0[1] - b0[1]) + (a0[2] - b0[2]) * (a0[2] - b0[2]));
    double c = fabs(l1 - l0) / m->spring_rest[s];
    if (!(c <= best)) {
      best = c;
      arg = s;
      if (isnan(c)) break;
    }
  }
  if (worst) *worst = arg;
  return best;
}

/* first node with a non-finite position or velocity, or -1 */
static int first_nonfinite(const JlState *s) {
  for (int i = 0; i < 3 * s->nnode; i++)
    if (!isfinite(s->x[i]) || !isfinite(s->v[i])) return i / 3;
  return -1;
}

static void save_state(const JlState *s, double *x, double *v, double *dv) {
  size_t bytes = 3 * (size_t)s->nnode * sizeof(double);
  memcpy(x, s->x, bytes);
  memcpy(v, s->v, bytes);
  memcpy(dv, s->dv, bytes);
}

static void load_state(JlState *s, const double *x, const double *v, const double *dv) {
  size_t bytes = 3 * (size_t)s->nnode * sizeof(double);
  memcpy(s->x, x, bytes);
  memcpy(s->v, v, bytes);
  memcpy(s->dv, dv, bytes);
}

/* total mechanical energy of the current state as stats.csv sums it (jl_world_energy) */
static double total_energy(const JlWorld *w, double *kinetic, double *stored) {
  JlEnergy e;
  jl_world_energy(w, &e);
  *kinetic = e.kinetic;
  if (stored) *stored = fabs(e.elastic) + fabs(e.ground);
  return e.kinetic + e.elastic + e.gravity + e.ground;
}

/* total_energy of the current state, taken from the cache when the state is the one it was taken in
 * (the energy the last step left: the energy guard's and the impact law's start), else measured and
 * cached */
static double state_energy(JlWorld *w, double *kinetic, double *stored) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  const JlState *s = &w->state;
  size_t b3 = 3 * (size_t)m->nnode * sizeof(double);
  if (k->ecache_valid && memcmp(k->ecache_x, s->x, b3) == 0 && memcmp(k->ecache_v, s->v, b3) == 0 &&
      memcmp(k->ecache_pin, m->pinned, (size_t)m->nnode) == 0) {
    *kinetic = k->ecache_ke;
    if (stored) *stored = k->ecache_stored;
    return k->ecache_e;
  }
  double st = 0.0, e = total_energy(w, kinetic, &st);
  memcpy(k->ecache_x, s->x, b3);
  memcpy(k->ecache_v, s->v, b3);
  memcpy(k->ecache_pin, m->pinned, (size_t)m->nnode);
  k->ecache_e = e, k->ecache_ke = *kinetic, k->ecache_stored = st, k->ecache_valid = 1;
  if (stored) *stored = st;
  return e;
}

/* Every element's begin_step on the state at the step's start (collision
 * detection, contact set-up). Returns 1 when an element does work on the
 * bodies on purpose in this step (JlForce pushing: overlaps pushed apart at
 * the push-out speed), which is counted as a warning. */
static int begin_elements(JlWorld *w, double h) {
  int pushing = 0;
  for (int e = 0; e < w->nforce; e++) {
    JlForce *f = w->force[e];
    jl_work_poll_threads(w);
    f->implicit = jl_integrator_is_implicit(w->def.integrator);
    if (f->ops->begin_step) f->ops->begin_step(f, w->model, w->state.x, w->state.v, h);
    if (f->ops->pushing && f->ops->pushing(f)) pushing = 1;
  }
  warn(w, JL_WARN_PUSH_OUT, pushing, w->state.t,
       "t = %.6g s: contacts push overlapping bodies apart at the "
       "push-out speed (%g m/s)",
       w->state.t, w->model->world.contact_push_out);
  return pushing;
}

/* the energy guard applies when no element does work on the bodies: only
 * springs, the volume force, gravity, the ground and contacts */
static int conservative(const JlWorld *w) {
  for (int e = 0; e < w->nforce; e++) {
    JlForceKind k = w->force[e]->kind;
    if (k != JL_FORCE_SPRINGS && k != JL_FORCE_VOLUME && k != JL_FORCE_GRAVITY && k != JL_FORCE_GROUND &&
        k != JL_FORCE_CONTACTS && k != JL_FORCE_ROLLING && k != JL_FORCE_IMPACT)
      return 0;
  }
  return 1;
}

/* 1 when an element checks implicit steps for primitives carried through each other (JlForceOps.crossed) */
static int crossing_checked(const JlWorld *w) {
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->ops->crossed && w->force[e]->ops->crossed(w->force[e], w->model, NULL, NULL, NULL)) return 1;
  return 0;
}

static int crossed(const JlWorld *w, const double *x0, const double *v0, const double *x1) {
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->ops->crossed && w->force[e]->ops->crossed(w->force[e], w->model, x0, v0, x1)) return 1;
  return 0;
}

/* The guard's tolerance on a rise from e0 to e1 (kinetic energies ke0, ke1, stored energy at the start
 * stored0): JL_GUARD_TOL of the energy that changed hands, plus what the linear solve's accuracy leaves
 * (implicit_guarded) */
static double guard_allowance(const JlWorld *w, double e0, double e1, double ke0, double ke1, double stored0) {
  const JlWork *k = w->work;
  double moved = ke0 + ke1 + fabs(e1 - ke1 - (e0 - ke0));
  double floor = jl_step_rel_tol(w) * (ke0 + ke1 + stored0) + 1e-12 * fabs(e0);
  if (k->cg.vtol > 0.0) floor += k->cg.vtol * sqrt(2.0 * (ke0 + ke1 + stored0) * k->mass_total);
  return JL_GUARD_TOL * moved + floor;
}

/* One implicit step of length h, guarded against creating energy.
 *
 * Backward Euler dissipates energy where the potential is convex, but
 * compressed springs and the volume force are not (J is cubic in x): at large
 * steps through a hard impact its solution can end above the step's starting
 * energy (measured: +0.78 J of 17 J in one 1/15 s step of stairs.json). With
 * no element doing work, a step whose total energy rises by more than
 * JL_GUARD_TOL of the energy that changed hands in it is undone and taken as
 * two half steps, down to h / 2^(JL_GUARD_DEPTH - 1); what still rises there is
 * counted in rep->energy_rises. The energy at the start is the one the last
 * step left (with its contacts, as stats.csv reports it): the new step's
 * collision detection finds contacts already deep, whose penalty energy
 * (1246 J for a moment in stack.json at dt 1/15 s, against 76 J in motion)
 * the step then resolves, so measuring after it would hide the step's rise.
 * Steps in which contacts or the ground push apart bodies that overlapped at
 * an earlier step (JlForce.pushing: deliberate work) are not guarded. */
static void implicit_guarded(JlWorld *w, double h, JlStepReport *rep, int depth) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  /* the energy as the last step left it (its contacts), as stats.csv reports it */
  int guard = depth < JL_GUARD_DEPTH && conservative(w);
  double ke0 = 0.0, stored0 = 0.0, e0 = 0.0;
  /* the energy the last step ended with, when nothing changed since (one force pass less a step) */
  if (guard) e0 = state_energy(w, &ke0, &stored0);
  size_t n3 = 3 * (size_t)m->nnode, off = (size_t)depth * n3;
  int can_split = depth + 1 < JL_GUARD_DEPTH && crossing_checked(w);
  if (guard || can_split) save_state(s, k->x_guard + off, k->v_guard + off, k->dv_guard + off);
  if (begin_elements(w, h)) guard = 0;
  int failed = 0;
  rep->cg_iterations += jl_step_implicit(w, h, &failed);
  rep->cg_failed += failed;
  warn(w, JL_WARN_CG_CAP, failed, s->t,
       "t = %.6g s: the linear solver stopped at its cap of %d iterations "
       "(step %.3g s)",
       s->t, w->def.max_iterations, h);
  if (can_split && crossed(w, k->x_guard + off, k->v_guard + off, s->x)) {
    /* thin bodies passed through each other along the step, or a node turned into an obstacle it had no
     * contact with: two half steps, each with its own detection, follow the turning paths more closely */
    load_state(s, k->x_guard + off, k->v_guard + off, k->dv_guard + off);
    rep->crossing_splits++;
    implicit_guarded(w, 0.5 * h, rep, depth + 1);
    implicit_guarded(w, 0.5 * h, rep, depth + 1);
    return;
  }
  if (!guard) {
    s->t += h;
    return;
  }
  k->ecache_valid = 0;
  double ke1 = 0.0, stored1 = 0.0, e1 = state_energy(w, &ke1, &stored1);
  if (!isfinite(e1)) k->energy_nonfinite = 1;
  /* below the linear solve's own accuracy (its relative tolerance of the energies in play, or, with the
   * velocity stop, momentum left unbalanced by up to vtol m_i per node: an energy of about
   * vtol sqrt(2 E M)) a rise is not resolved: a body coming to rest on another rose by 2e-7 J of 70 J in
   * 18 steps of default.json */
  if (!(e1 - e0 > guard_allowance(w, e0, e1, ke0, ke1, stored0)) || first_nonfinite(s) >= 0) {
    s->t += h;
    return;
  }
  if (depth + 1 >= JL_GUARD_DEPTH) {
    rep->energy_rises++;
    warn(w, JL_WARN_ENERGY_RISE, 1, s->t,
         "t = %.6g s: a step of %.3g s created %.3g J at the energy guard's "
         "smallest split",
         s->t, h, e1 - e0);
    s->t += h;
    return;
  }
  /* undo and take two half steps. The elements' history is not undone: the
   * halves start from the contact and friction state the first try left.
   * Restoring it too changes the frames of default.json; either way the step
   * is deterministic and copies and checkpoints reproduce it bitwise, so the
   * shipped results were kept (docs/architecture.md, "Model and state"). */
  load_state(s, k->x_guard + off, k->v_guard + off, k->dv_guard + off);
  rep->energy_splits++;
  implicit_guarded(w, 0.5 * h, rep, depth + 1);
  implicit_guarded(w, 0.5 * h, rep, depth + 1);
}

/* 1 when a contact or the ground acted in the step just taken (JlForceOps.couple joined a body to
 * another or to the world) */
static int contact_acted(const JlWorld *w) {
  const JlModel *m = w->model;
  int nb = m->nbody, *group = ((JlWork *)w->work)->group;
  for (int b = 0; b <= nb; b++) group[b] = b;
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->ops->couple) w->force[e]->ops->couple(w->force[e], m, group);
  for (int b = 0; b <= nb; b++)
    if (jl_uf_find(group, b) != b) return 1;
  return 0;
}

/* the midpoint half step's velocity stop, relative to the step's (JlStepDef.velocity_tolerance): the
 * spinning bar at dt 0.002 kept 97.7 % of its angular momentum with the plain stop, 99.7 % with this */
#define JL_MIDPOINT_VTOL 0.1

/* Implicit midpoint (docs/integrators.md, "Implicit midpoint"). The midpoint rule
 *     x1 = x0 + h vm,  v1 = v0 + h M^-1 F(xm, vm),  xm = (x0 + x1) / 2,  vm = (v0 + v1) / 2
 * is, for (xm, vm), vm = v0 + (h/2) M^-1 F(xm, vm) and xm = x0 + (h/2) vm: the backward Euler step of
 * h/2 from (x0, v0). So the step is that half step (implicit_guarded: the same solver and guard),
 * extrapolated to x1 = 2 xm - x0, v1 = 2 vm - v0 (Hairer, Lubich & Wanner, Geometric Numerical
 * Integration, II.1). Second order and symplectic, with no numerical damping; with equal and opposite
 * central forces it keeps the angular momentum of free bodies to the solver's accuracy, where backward
 * Euler damps a rotation of angular velocity w by about (w h)^2 / 2 per step (a free bar spinning at
 * 4.9 rad/s kept 68 % of its angular momentum over 1 s at dt 1/60, 99.98 % with this rule). It is not
 * L-stable, and a penalty contact extrapolated from the half step's end reflects the velocity of the
 * nodes it stopped (v1 = 2 vm - v0 = -v0) and goes deeper: a step in which a contact or the ground
 * acted, or whose extrapolation would create energy (no element doing work; the guard's tolerance),
 * is undone and taken as a backward Euler step (rep->midpoint_fallbacks counts the latter), in which
 * free groups of bodies keep their angular momentum (JlWork.keep_spin, src/implicit.c: two balls in a
 * glancing hit at dt 1/60 lost 44 % of it through their contact steps without this). The half
 * step is solved closer than backward Euler's (JlWork.midpoint, src/implicit.c): the extrapolation
 * doubles its error and nothing damps it. */
static void implicit_midpoint(JlWorld *w, double h, JlStepReport *rep) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int guard = conservative(w);
  double ke0 = 0.0, stored0 = 0.0, e0 = guard ? state_energy(w, &ke0, &stored0) : 0.0, t0 = s->t;
  save_state(s, k->x_mid, k->v_mid, k->dv_mid);
  jl_world_history_save(w, &k->hist_mid);
  double vtol = k->cg.vtol;
  k->cg.vtol = JL_MIDPOINT_VTOL * vtol;
  k->midpoint = 1;
  JlStepReport half = *rep;
  implicit_guarded(w, 0.5 * h, &half, 0);
  k->midpoint = 0;
  k->cg.vtol = vtol;
  s->t = t0;
  int ok =
      !contact_acted(w) && half.energy_splits == rep->energy_splits && half.crossing_splits == rep->crossing_splits;
  if (ok) {
    for (int i = 0; i < m->nnode; i++) {
      if (m->pinned[i]) continue;
      for (int c = 3 * i; c < 3 * i + 3; c++) {
        s->x[c] = 2.0 * s->x[c] - k->x_mid[c];
        s->v[c] = 2.0 * s->v[c] - k->v_mid[c];
      }
    }
    ok = first_nonfinite(s) < 0;
    if (ok && guard) {
      double ke1 = 0.0, stored1 = 0.0, e1 = state_energy(w, &ke1, &stored1);
      ok = !(e1 - e0 > guard_allowance(w, e0, e1, ke0, ke1, stored0));
      rep->midpoint_fallbacks += !ok;
    }
  }
  if (ok) {
    *rep = half; /* the half step split nothing (ok needs that) */
    return;
  }
  /* backward Euler instead, from the step's start */
  rep->cg_iterations = half.cg_iterations, rep->cg_failed = half.cg_failed;
  load_state(s, k->x_mid, k->v_mid, k->dv_mid);
  jl_world_history_load(w, &k->hist_mid);
  k->keep_spin = 1;
  implicit_guarded(w, h, rep, 0);
  k->keep_spin = 0;
  s->t = t0;
}

/* one step of length h with the configured integrator */
static void substep(JlWorld *w, double h, JlStepReport *rep) {
  /* per-step set-up (collision detection, wind gust time) on the state at the step's start */
  for (int e = 0; e < w->nforce; e++)
    if (w->force[e]->kind == JL_FORCE_WIND) jl_wind_set_time(w->force[e], w->state.t);
  /* the impact law (src/impact.c): the bodies' motion and the energy at the step's start */
  JlForce *impact = jl_world_find_force(w, JL_FORCE_IMPACT);
  double e0 = 0.0, ke = 0.0;
  if (impact) {
    e0 = state_energy(w, &ke, NULL);
    jl_impact_start(impact, w->model, w->state.x, w->state.v);
  }
  if (w->def.integrator == JL_INTEGRATOR_IMPLICIT) {
    double t0 = w->state.t;
    implicit_guarded(w, h, rep, 0);
    w->state.t = t0;
  } else if (w->def.integrator == JL_INTEGRATOR_IMPLICIT_MIDPOINT) {
    implicit_midpoint(w, h, rep);
  } else {
    begin_elements(w, h);
    jl_step_explicit(w, h);
  }
  /* Provot's stretch limit on cloth and ropes (src/provot.c) */
  if (jl_provot_needed(w->model)) jl_provot_apply(w->model, w->state.x, w->state.v, h, 50);
  /* rebounds set by the coefficient of restitution, from the energy the step lost */
  if (impact && first_nonfinite(&w->state) < 0) {
    double e1 = state_energy(w, &ke, NULL), held = jl_impact_held(impact);
    JlWork *k = w->work;
    if (jl_impact_end_step(impact, w->model, w->state.x, w->state.v, e0 - e1, h))
      k->ecache_valid = 0; /* velocities changed */
    else
      k->ecache_e += jl_impact_held(impact) - held; /* the same state, the held energy changed */
  }
  w->state.t += h;
}

/* the likely cause of a divergence, for the report */
static void cause_text(const JlWorld *w, const JlStepReport *rep, char *out, size_t n) {
  const char *name = jl_integrator_name(w->def.integrator);
  if (!jl_integrator_is_implicit(w->def.integrator))
    snprintf(out, n,
             "time step too large for the '%s' integrator; try the implicit integrator (\"integrator\": "
             "\"implicit\") or a smaller \"dt\"",
             name);
  else if (rep->cg_failed)
    snprintf(out, n,
             "the linear solver did not converge in %d iterations; try a smaller \"dt\" or \"adaptive\": "
             "true in the scene",
             w->def.max_iterations);
  else
    snprintf(out, n,
             "time step too large for these stiffnesses; try a smaller \"dt\" or \"adaptive\": true in "
             "the scene");
}

/* rep->message = printf(fmt, ...), truncated to the report's buffer */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
set_message(JlStepReport *rep, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rep->message, sizeof rep->message, fmt, ap);
  va_end(ap);
}

static int body_of_spring(const JlModel *m, int s) { return s >= 0 ? m->node_body[m->spring_node[2 * s]] : 0; }

/* the fraction of its rest volume below which a volume body has collapsed (a diverged step) */
#define JL_COLLAPSED 1e-3

/* Checks the state after an accepted step; fills the report on divergence. */
static int diverged(JlWorld *w, double t, JlStepReport *rep) {
  const JlModel *m = w->model;
  char cause[200];
  int node = first_nonfinite(&w->state);
  if (node >= 0) {
    warn(w, JL_WARN_NONFINITE, 1, t, "t = %.6g s: node %d of body '%s' became NaN/Inf (the step was undone)", t, node,
         m->body[m->node_body[node]].name);
    rep->diverged = 1;
    rep->diverged_body = m->node_body[node];
    cause_text(w, rep, cause, sizeof cause);
    set_message(rep, "body '%s' diverged in the step to t = %.4g s: position or velocity became NaN/Inf (%s)",
                m->body[rep->diverged_body].name, t, cause);
    return 1;
  }
  /* kinetic energy past the doubles (velocities near 1e154 and up): every later number is inf or NaN */
  double ke = 0.0;
  for (int i = 0; i < m->nnode; i++) {
    const double *v = w->state.v + 3 * i;
    ke += 0.5 * m->mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  JlWork *k = w->work;
  if (!isfinite(ke) || k->energy_nonfinite) {
    k->energy_nonfinite = 0;
    int fast = 0;
    double vmax = -1.0;
    for (int i = 0; i < m->nnode; i++) {
      const double *v = w->state.v + 3 * i;
      double s = fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
      if (s > vmax) vmax = s, fast = i;
    }
    rep->diverged = 1;
    rep->diverged_body = m->node_body[fast];
    cause_text(w, rep, cause, sizeof cause);
    set_message(rep,
                "body '%s' diverged in the step to t = %.4g s: its %s energy is no longer a finite number "
                "(its fastest node moves at %.3g m/s; %s)",
                m->body[rep->diverged_body].name, t, isfinite(ke) ? "elastic or contact" : "kinetic", vmax, cause);
    return 1;
  }
  /* a volume body crushed flat or turned inside out: all its tets inverted, or its volume below
   * JL_COLLAPSED of its rest volume */
  for (int b = 0; b < m->nbody; b++) {
    if (m->body[b].tet_count == 0) continue;
    double now, rest;
    int inverted = k->inverted[b] = jl_volume_body(m, w->state.x, b, &now, &rest);
    if (inverted < m->body[b].tet_count && now >= JL_COLLAPSED * rest) continue;
    rep->diverged = 1;
    rep->diverged_body = b;
    cause_text(w, rep, cause, sizeof cause);
    set_message(rep,
                "body '%s' diverged in the step to t = %.4g s: it collapsed (volume %.3g of its rest volume, "
                "%d of %d tets inverted; %s)",
                m->body[b].name, t, rest > 0.0 ? now / rest : 0.0, inverted, m->body[b].tet_count, cause);
    return 1;
  }
  int worst;
  double strain = max_strain(m, w->state.x, &worst);
  rep->max_strain = strain;
  if (strain > w->def.max_strain) {
    rep->diverged = 1;
    rep->diverged_body = body_of_spring(m, worst);
    cause_text(w, rep, cause, sizeof cause);
    set_message(rep, "body '%s' diverged in the step to t = %.4g s: strain %.3g exceeds %g (%s)",
                m->body[rep->diverged_body].name, t, strain, w->def.max_strain, cause);
    return 1;
  }
  return 0;
}

/* warns of the tets inverted after a step (signed volume <= 0): the volume
 * force's barrier was crossed, the body will not recover its shape there.
 * The counts are the divergence check's of the step's end state. */
static void count_inverted(JlWorld *w, double t) {
  const JlModel *m = w->model;
  const JlWork *k = w->work;
  if (m->ntet == 0) return;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body[b].tet_count == 0) continue;
    int n = k->inverted[b];
    warn(w, JL_WARN_INVERTED, n > 0, t, "t = %.6g s: %d tets of body '%s' inverted", t, n, m->body[b].name);
  }
}

/* the whole step h as sub-steps that halve on rejection and double after two good ones */
static int adaptive_steps(JlWorld *w, double h, JlStepReport *rep) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  double t_end = s->t + h, h_min = h / 1024.0;
  double sub = (w->state.h_adaptive > 0.0 && w->state.h_adaptive < h) ? w->state.h_adaptive : h;
  while (s->t < t_end) {
    double remaining = t_end - s->t;
    double hs = sub < remaining ? sub : remaining;
    if (remaining - hs < 1e-9 * h) hs = remaining; /* no sliver sub-steps at the end */
    save_state(s, k->x_sub, k->v_sub, k->dv_sub);
    jl_world_history_save(w, &k->hist_sub);
    double t0 = s->t;
    substep(w, hs, rep);
    int worst = -1;
    double change = max_strain_change(m, k->x_sub, s->x, &worst);
    int nonfinite = first_nonfinite(s);
    int bad = nonfinite >= 0 || !(change <= w->def.max_strain_change);
    if (nonfinite >= 0)
      warn(w, JL_WARN_NONFINITE, 1, t0,
           "t = %.6g s: node %d of body '%s' became NaN/Inf in an adaptive sub-step of "
           "%.3g s (rejected)",
           t0, nonfinite, m->body[m->node_body[nonfinite]].name, hs);
    if (bad) {
      /* reject: restore (with the contact and friction history) and halve */
      load_state(s, k->x_sub, k->v_sub, k->dv_sub);
      jl_world_history_load(w, &k->hist_sub);
      s->t = t0;
      rep->rejected++;
      w->state.good_steps = 0;
      sub = 0.5 * hs;
      if (sub < h_min) {
        char cause[200];
        rep->diverged = 1;
        rep->diverged_body = body_of_spring(m, worst);
        cause_text(w, rep, cause, sizeof cause);
        set_message(
            rep,
            "body '%s' diverged in the step to t = %.4g s: adaptive step fell below h/1024 (strain change %.3g per step; %s)",
            m->body[rep->diverged_body].name, t0, change, cause);
        return 1;
      }
      continue;
    }
    if (t_end - s->t < 1e-9 * h) s->t = t_end;
    rep->substeps++;
    if (diverged(w, s->t, rep)) return 1;
    /* accept; grow after two good sub-steps */
    if (++w->state.good_steps >= 2 && sub < h) {
      sub = 2.0 * sub < h ? 2.0 * sub : h;
      w->state.good_steps = 0;
    }
  }
  w->state.h_adaptive = sub < h ? sub : 0.0;
  return 0;
}

void jl_work_set_threads(const JlWorld *w, int n) {
  JlWork *k = w->work;
  k->threads = k->cg.threads = n;
  for (int f = 0; f < w->nforce; f++) w->force[f]->threads = n;
}

JlResult jl_world_step(JlWorld *w, double h, JlStepReport *rep) {
  JL_ASSERT(w && w->work, "jl_world_step: create the world with jl_world_create first");
  JL_ASSERT(h > 0.0 && isfinite(h), "jl_world_step: the step h must be positive and finite");
  JlStepReport local;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  JlWork *k = w->work;
  JlState *s = &w->state;
  double t_start = s->t;
  k->energy_nonfinite = 0;
  save_state(s, k->x_step, k->v_step, k->dv_step);
  jl_world_history_save(w, &k->hist_step);

  /* the thread count of this step (src/tune.h): the def's, or one while another process holds a core */
  if (k->tune.full > 1) jl_work_set_threads(w, jl_tune_begin(&k->tune));
  double wall0 = jl_seconds();
  int bad;
  if (w->def.adaptive) {
    bad = adaptive_steps(w, h, rep);
  } else {
    substep(w, h, rep);
    rep->substeps = 1;
    bad = diverged(w, s->t, rep);
  }
  if (k->tune.full > 1) jl_tune_end(&k->tune, jl_seconds() - wall0, rep->cg_iterations);
  if (bad) {
    /* leave the state as it was before the step */
    load_state(s, k->x_step, k->v_step, k->dv_step);
    jl_world_history_load(w, &k->hist_step);
    s->t = t_start;
    w->state.h_adaptive = 0.0;
    w->state.good_steps = 0;
    return JL_ERR_RUNTIME;
  }
  s->t = t_start + h;
  count_inverted(w, t_start);
  return JL_OK;
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
