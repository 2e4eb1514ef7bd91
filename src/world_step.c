/* A world's step (src/world.h, jl_world_step): the chosen integrator,
 * optionally with adaptive sub-stepping, under the implicit step's energy
 * guard, and the divergence check.
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
 * Warnings (JlWarnings, in the state): the step's report (cg_failed, energy_rises), a
 * count of inverted tets after each step, the elements' push-out and NaN/Inf
 * states are counted by kind with the first occurrence's details. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/impact.h"
#include "src/volume.h"
#include "src/wind.h"
#include "src/world_internal.h"

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
