/* Contact penalty force element (src/contact.h).
 *
 * begin_step detects contacts on the state at the start of the step: body
 * against body through collision/depth.c (spatial hash, exact point-in-tet,
 * consistent penetration depth of Heidelberger et al. 2004 with breadth-first
 * propagation), node against obstacle through collision/obstacle.c. Each
 * contact then acts through the linear gap
 *     g(x) = d0 - s - r.(z - z0),   z = x_p - sum_k w_k x_k   (z = x_p for obstacles)
 * for the rest of the step, so the force is linear in x within the step and
 * its Jacobian is exact; implicit Euler and every explicit stage see the same
 * contact set.
 *
 * What is carried from step to step (docs/collision.md), keyed by (node, body
 * or obstacle):
 *   - the friction anchor: the material point of the other side (a point of
 *     Q's tet, or a fixed point for an obstacle) that the node sticks to. It
 *     moves only when the node slips (Coulomb cone |F_t| <= mu F_n), so a
 *     resting body does not creep when its contacts settle up and down;
 *   - the push-out slack s: a contact first seen already deep (bodies that
 *     start overlapping, a hit found only after the step that made it) would
 *     store 1/2 k d^2 of penalty energy that nothing paid for. Its depth at
 *     detection becomes slack, and so does any later jump of the depth
 *     estimate that the motion does not explain; the slack shrinks by
 *     push_out_speed x h per step, so such bodies separate at most at that
 *     speed (Box2D v3 caps its soft contacts' push-out velocity the same
 *     way, contactPushMaxVelocity).
 *
 * One normal per contact patch: the nodes of P inside Q and the nodes of Q
 * inside P get directions from different surfaces (a box node inside a ball
 * radially, a ball node inside the box straight up); with few nodes on one
 * side their tangential parts do not cancel and push bodies sideways. Contacts
 * between the same two bodies that touch (adjacent nodes, or a node in a tet
 * of the other's node) form a patch, and all of a patch's contacts push along
 * the patch's mean direction (depth x mass weighted), with their depths
 * projected on it. Tangential force then comes only from friction.
 *
 * Force on p while the contact is on (r unit, k = stiffness m_p + spring_scale
 * x the summed stiffness of p's springs, c = damping m_p):
 *     normal    F_n = (k g - c r.z') r
 *     friction  sticking: F_t = k (delta - P (z - z0)) - c P z'  (P = I - r r^T,
 *               delta the anchor's tangential offset at the step's start),
 *               capped at mu k g;
 *               sliding:  F_t = -mu k g P z' / sv  (lagged-viscosity Coulomb:
 *               sv is the speed |P z'_0| at the step's start extrapolated to
 *               its end, src/penalty.h jl_slide_lag_speed, so the force is
 *               about mu k g at the end velocity and linear in z'; implicit
 *               Euler can slow the sliding down but never reverse it).
 * The regime is chosen at begin_step: sliding when the sticking force the
 * anchor and the tangential velocity would need at the end of the step
 * exceeds mu k g0 and the node moves more than JL_SLIDE_MIN of its cone per
 * step (src/penalty.h). A sliding contact drags its anchor along (remember).
 * The force on Q's tet nodes is -w_k times the force on p, so linear
 * momentum is balanced exactly.
 *
 * On/off: explicit steppers apply a contact while g > 0. The implicit stepper
 * holds the set of contacts that are on fixed for each linear solve and
 * corrects it from the end-of-step state (refine), so a contact whose gap
 * closes during the step acts in that step.
 *
 * Jacobian: every contact force is coef_i Phi(z, z') with coef = (1, -w_0,
 * .., -w_3), so d F_i / d x_j = coef_i coef_j dPhi/dz, one 3x3 block per
 * contact: dPhi/dz = -k r r^T - k P (sticking), dPhi/dz' = -c r r^T - c P
 * (sticking) or -c r r^T - (mu k g / |P z'_0|) P (sliding). All are
 * symmetric negative semidefinite, so M - h dF/dv - h^2 dF/dx stays SPD. The
 * sliding term d F_t / d z = mu k (P z' / |P z'_0|) r^T is unsymmetric and
 * only included with JL_LIN_EXACT (as the ground element does); the cap of
 * the sticking force is not differentiated. */
#include "src/contact_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/vec3.h"
#include "src/loads.h"

int jl_contact_needed(const JlModel *m) {
  if (m->nbody > 1 || m->nobstacle > 0) return 1;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].self_collision) return 1;
  return 0;
}

/* 1 while a contact works off the slack of an earlier step (an overlap
 * being pushed apart); slack found in this step's detection does not count:
 * that is a missed step, which the energy guard may split */
static int contact_pushing(const JlForce *e) {
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++)
    if (ce->contact[q].pushing) return 1;
  return 0;
}

/* ---------------------------------------------------------------- force */

/* Phi: force on the penetrating node at (z, z'); returns g. *spring (may be
 * NULL) = the elastic energy of the friction anchor spring. on: apply the
 * normal force whatever the sign of g (implicit solve with a fixed set). */
static double contact_phi(const Contact *ct, double mu, int use_set, int on, const double *z, const double *zd,
                          double phi[3], double *spring) {
  const double *r = ct->r;
  double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
  double g = ct->d0 - ct->slack - jl_vec3_dot(r, dz);
  phi[0] = phi[1] = phi[2] = 0.0;
  if (spring) *spring = 0.0;
  if (!on) return g;
  /* normal penalty and damping */
  double vn = jl_vec3_dot(r, zd), fn = ct->k * g - ct->c * vn;
  for (int a = 0; a < 3; a++) phi[a] = fn * r[a];
  if (ct->friction == FRICTION_NONE || !(g > 0.0)) return g;
  /* friction */
  double vt[3] = {zd[0] - vn * r[0], zd[1] - vn * r[1], zd[2] - vn * r[2]};
  double cap = mu * ct->k * g, ft[3];
  if (ct->friction == FRICTION_SLIDE) {
    /* lagged-viscosity Coulomb: -mu k g P z' / sv */
    double s = cap / ct->sv;
    if (!use_set && s > ct->eta_top) s = ct->eta_top;
    for (int a = 0; a < 3; a++) ft[a] = -s * vt[a];
  } else {
    double sn = jl_vec3_dot(r, dz), fs[3];
    for (int a = 0; a < 3; a++) fs[a] = ct->k * (ct->delta[a] - (dz[a] - sn * r[a]));
    double fsm = sqrt(jl_vec3_dot(fs, fs));
    if (fsm > cap) { /* the anchor spring holds at most mu k g; beyond that the node slips */
      for (int a = 0; a < 3; a++) fs[a] *= cap / fsm;
      fsm = cap;
    }
    if (spring) *spring = 0.5 * fsm * fsm / ct->k;
    for (int a = 0; a < 3; a++) ft[a] = fs[a] - ct->c * vt[a];
    double fm = sqrt(jl_vec3_dot(ft, ft));
    if (fm > cap) {
      double s = cap / fm;
      for (int a = 0; a < 3; a++) ft[a] *= s;
    }
  }
  for (int a = 0; a < 3; a++) phi[a] += ft[a];
  return g;
}

static void contact_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                          double *energy) {
  (void)m;
  const ContactElem *ce = e->self;
  double en = 0.0;
  /* sequential: contacts share Q's nodes; the order is fixed, so sums are deterministic */
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    double z[3], zd[3], phi[3], spring;
    contact_z(ct, x, z);
    contact_z(ct, v, zd);
    double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
    double g = ct->d0 - ct->slack - jl_vec3_dot(ct->r, dz);
    int on = ce->use_set ? ct->active : g > 0.0;
    if (!on) continue;
    contact_phi(ct, ce->mu, ce->use_set, 1, z, zd, phi, &spring);
    if (g > 0.0) en += 0.5 * ct->k * g * g + spring;
    for (int j = 0; j < ct->n; j++) {
      double *fj = f + 3 * ct->node[j];
      fj[0] += ct->coef[j] * phi[0];
      fj[1] += ct->coef[j] * phi[1];
      fj[2] += ct->coef[j] * phi[2];
    }
  }
  if (energy) *energy += en;
}

static void contact_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                              int flags, double *diag) {
  (void)m;
  ContactElem *ce = e->self;
  int exact = (flags & JL_LIN_EXACT) != 0;
  for (int q = 0; q < ce->ncontact; q++) {
    Contact *ct = &ce->contact[q];
    double z[3], zd[3];
    contact_z(ct, x, z);
    contact_z(ct, v, zd);
    const double *r = ct->r;
    double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
    double g = ct->d0 - ct->slack - jl_vec3_dot(r, dz);
    if (!ce->use_set) ct->active = g > 0.0;
    if (!ct->active) continue;
    double *D = ct->D;
    double vn = jl_vec3_dot(r, zd);
    double vt[3] = {zd[0] - vn * r[0], zd[1] - vn * r[1], zd[2] - vn * r[2]};
    int fric = g > 0.0 ? ct->friction : FRICTION_NONE;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double rr = r[i] * r[j], P = (i == j) - rr;
        double dx = -ct->k * rr, dv = -ct->c * rr;
        if (fric == FRICTION_STICK) {
          dx -= ct->k * P;
          dv -= ct->c * P;
        } else if (fric == FRICTION_SLIDE) {
          double s = ce->mu * ct->k * g / ct->sv;
          int held = !ce->use_set && s > ct->eta_top; /* then independent of g */
          dv -= (held ? ct->eta_top : s) * P;
          if (exact && !held) dx += ce->mu * ct->k * (vt[i] / ct->sv) * r[j];
        }
        D[3 * i + j] = a * dx + b * dv;
      }
    if (diag)
      for (int j = 0; j < ct->n; j++) {
        double c2 = ct->coef[j] * ct->coef[j];
        double *dg = diag + 9 * ct->node[j];
        for (int k = 0; k < 9; k++) dg[k] += c2 * D[k];
      }
  }
}

static void contact_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  (void)m;
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    if (!ct->active) continue;
    double zu[3], t[3];
    contact_z(ct, u, zu);
    const double *D = ct->D;
    for (int i = 0; i < 3; i++) t[i] = D[3 * i] * zu[0] + D[3 * i + 1] * zu[1] + D[3 * i + 2] * zu[2];
    for (int j = 0; j < ct->n; j++) {
      double *oj = out + 3 * ct->node[j];
      oj[0] += ct->coef[j] * t[0];
      oj[1] += ct->coef[j] * t[1];
      oj[2] += ct->coef[j] * t[2];
    }
  }
}

static void contact_free(void *self) {
  ContactElem *ce = self;
  if (ce) {
    jl_collision_destroy(ce->col);
    jl_proximity_destroy(ce->prox);
    jl_thin_destroy(ce->thin);
    JL_FREE_ALL(ce->seen, ce->bcount, ce->vpath, ce->contact, ce->mem, ce->knode, ce->first, ce->next, ce->parent,
                ce->patch, ce->load_cp);
  }
  free(ce);
}

/* the bodies of every contact in the solve's set: two bodies, or a body and an obstacle (the world) */
static void contact_couple(const JlForce *e, const JlModel *m, int *group) {
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    if (!ct->active) continue;
    int a = m->node_body[ct->node[0]];
    for (int j = 1; j < ct->n; j++) jl_uf_union(group, a, m->node_body[ct->node[j]]);
    if (ct->n == 1) jl_uf_union(group, a, ct->other < m->nbody ? ct->other : m->nbody);
  }
}

/* clang-format off */
static const JlForceOps contact_ops = {.name = "contacts", .kind = JL_FORCE_CONTACTS, .force = contact_force,
    .linearize = contact_linearize, .multiply = contact_multiply, .free_self = contact_free,
    .begin_step = jl_contact_begin, .refine = jl_contact_refine, .crossed = jl_contact_crossed, .pushing = contact_pushing, .couple = contact_couple,
    .history_size = jl_contact_history_size, .history_save = jl_contact_history_save,
    .history_load = jl_contact_history_load};
/* clang-format on */

JlForce *jl_contact_create(const JlModel *m) {
  JL_ASSERT(m, "jl_contact_create: model must not be NULL");
  ContactElem *ce = jl_calloc(1, sizeof *ce);
  ce->mu = m->world.contact_friction;
  int self = 0;
  unsigned char *flags = jl_calloc((size_t)m->nbody + 1, 1);
  for (int b = 0; b < m->nbody; b++) {
    flags[b] = (unsigned char)(m->body[b].self_collision != 0);
    self |= flags[b];
  }
  if (m->nbody > 1 || self) {
    JlCollisionDef def = jl_default_collision_def();
    def.cell_size = m->world.contact_cell;
    def.self_collision = flags;
    ce->col = jl_collision_create(jl_model_geom(m), &def);
  }
  if (m->nbody > 1) ce->prox = jl_proximity_create(jl_model_geom(m));
  ce->thin = jl_thin_create(jl_model_geom(m));
  free(flags);
  ce->knode = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  jl_model_node_stiffness(m, ce->knode);
  ce->first = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  for (int i = 0; i < m->nnode; i++) ce->first[i] = -1;
  return jl_force_new(&contact_ops, ce);
}

int jl_contact_count(const JlForce *e) {
  const ContactElem *ce = e->self;
  int n = 0; /* penetrating only: speculative contacts (d0 < 0) are not in anything yet */
  for (int q = 0; q < ce->ncontact; q++) n += ce->contact[q].d0 > 0.0;
  return n;
}

const JlContactPoint *jl_contact_points(const JlForce *e, int *n) {
  const ContactElem *ce = e->self;
  int dummy;
  if (!n) n = &dummy;
  if (!ce->col) {
    *n = 0;
    return NULL;
  }
  return jl_collision_contacts(ce->col, n);
}

const JlCollisionStats *jl_contact_stats(const JlForce *e) {
  static const JlCollisionStats none;
  const ContactElem *ce = e->self;
  return ce->col ? jl_collision_stats(ce->col) : &none;
}

double jl_contact_max_depth(const JlForce *e) {
  const ContactElem *ce = e->self;
  double d = 0.0;
  for (int q = 0; q < ce->ncontact; q++) d = ce->contact[q].d0 > d ? ce->contact[q].d0 : d;
  return d;
}

/* the loads with each contact's gap at detection (at_x = 0) or its linear gap at x (at_x = 1) */
static void contact_loads(const JlForce *e, const JlModel *m, const double *x, int at_x, JlLoadFn add, void *ctx) {
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    double g0 = ct->d0 - ct->slack;
    if (at_x && ct->tag == 0) {
      double z[3];
      contact_z(ct, x, z);
      double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
      g0 -= jl_vec3_dot(ct->r, dz);
    }
    if (ct->tag != 0 || !(g0 > 0.0)) continue; /* thin pairs and open gaps carry no load */
    int p = ct->node[0], P = m->node_body[p], Q = ct->other;
    const double *xp = x + 3 * p;
    double f = ct->k * g0;
    if (m->body[P].kind == JL_BODY_VOLUME) add(ctx, P, Q, f, xp, ct->r, ct->k);
    if (Q < m->nbody && m->body[Q].kind == JL_BODY_VOLUME) {
      double rn[3] = {-ct->r[0], -ct->r[1], -ct->r[2]};
      add(ctx, Q, P, f, xp, rn, ct->k);
    }
  }
}

void jl_contact_loads(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx) {
  contact_loads(e, m, x, 0, add, ctx);
}

void jl_contact_loads_at(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx) {
  contact_loads(e, m, x, 1, add, ctx);
}
