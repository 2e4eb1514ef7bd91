/* Contact penalty force element (src/contact.h).
 *
 * begin_step detects contacts on the state at the start of the step: body
 * against body through collision/depth.c (spatial hash, exact point-in-tet,
 * consistent penetration depth of Heidelberger et al. 2004 with breadth-first
 * propagation), node against obstacle through collision/obstacle.c. Each
 * contact then acts through the linear gap
 *     g(x) = d0 - r.(z - z0),   z = x_p - sum_k w_k x_k   (z = x_p for obstacles)
 * for the rest of the step, so the force is linear in x within the step and
 * its Jacobian is exact; implicit Euler and every explicit stage see the same
 * contact set.
 *
 * Force on p while g > 0 (r unit, k = stiffness m_p, c = damping m_p):
 *     normal    F_n = (k g - c r.z') r
 *     friction  sticking: F_t = -k P (z - z0) - c P z'   (P = I - r r^T),
 *               a tangential penalty spring anchored at the step's start,
 *               capped at mu k g;
 *               sliding:  F_t = -mu k g P z' / |P z'_0|  (lagged-viscosity
 *               Coulomb: the speed |P z'_0| is frozen at the step's start, so
 *               the force is mu k g at the start velocity and linear in z';
 *               implicit Euler can slow the sliding down but never reverse
 *               it, which the constant -mu k g t of src/ground.c can).
 * The regime is chosen at begin_step: sliding when the sticking force the
 * current tangential velocity would need over the step, (k h + c)|P z'|,
 * exceeds mu k d0. The force on Q's tet nodes is -w_k times the force on p,
 * so linear momentum is balanced exactly, and at detection the two points of
 * application coincide (sum w_k x_k = x_p), so angular momentum is too.
 *
 * Jacobian: every contact force is coef_i Phi(z, z') with coef = (1, -w_0,
 * .., -w_3), so d F_i / d x_j = coef_i coef_j dPhi/dz, one 3x3 block per
 * contact: dPhi/dz = -k r r^T - k P (sticking), dPhi/dz' = -c r r^T - c P
 * (sticking) or -c r r^T - (mu k g / |P z'_0|) P (sliding). All are
 * symmetric negative semidefinite, so M - h dF/dv - h^2 dF/dx stays SPD. The
 * sliding term d F_t / d z = mu k (P z' / |P z'_0|) r^T is unsymmetric and
 * only included with JL_LIN_EXACT (as the ground element does); the cap of
 * the sticking force is not differentiated. */
#include "src/contact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mesh/vec3.h"

typedef struct Contact {
  int n;          /* 1 (obstacle) or 5 (node + Q's tet) */
  int node[5];
  double coef[5]; /* 1, -w_0 .. -w_3 */
  double r[3];    /* unit normal: force direction on node[0] */
  double d0;      /* m, depth at detection */
  double z0[3];   /* z at detection */
  double k, c;    /* N/m, N s/m */
  int slide;      /* friction regime for this step */
  double st0;     /* m/s, tangential speed |P z'| at the step's start (> 0 when sliding) */
  int active;     /* g > 0 at the last linearize */
  double D[9];    /* a dPhi/dz + b dPhi/dz' at the last linearize */
} Contact;

typedef struct ContactElem {
  JlCollision *col; /* NULL when there is nothing to collide body against body */
  int ncontact, cap;
  Contact *contact;
  int nbody_contacts; /* of ncontact, from body-body detection */
  double mu;
} ContactElem;

int jl_contact_needed(const JlModel *m) {
  if (m->nbody > 1 || m->nobstacle > 0) return 1;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].self_collision) return 1;
  return 0;
}

/* z = sum coef_j x_j over the contact's nodes */
static void contact_z(const Contact *ct, const double *x, double z[3]) {
  z[0] = z[1] = z[2] = 0.0;
  for (int j = 0; j < ct->n; j++) {
    const double *xj = x + 3 * ct->node[j];
    z[0] += ct->coef[j] * xj[0];
    z[1] += ct->coef[j] * xj[1];
    z[2] += ct->coef[j] * xj[2];
  }
}

static Contact *push(ContactElem *ce) {
  if (ce->ncontact == ce->cap) {
    ce->cap = ce->cap ? 2 * ce->cap : 256;
    ce->contact = jl_realloc(ce->contact, (size_t)ce->cap, sizeof(Contact));
  }
  Contact *ct = &ce->contact[ce->ncontact++];
  memset(ct, 0, sizeof *ct);
  return ct;
}

/* friction regime from the velocity at the start of the step */
static void choose_regime(Contact *ct, const double *v, double h, double mu) {
  double zd[3];
  contact_z(ct, v, zd);
  double vn = jl_vec3_dot(ct->r, zd);
  double vt[3] = {zd[0] - vn * ct->r[0], zd[1] - vn * ct->r[1], zd[2] - vn * ct->r[2]};
  double st = sqrt(jl_vec3_dot(vt, vt));
  ct->st0 = st;
  ct->slide = (ct->k * h + ct->c) * st > mu * ct->k * ct->d0;
}

static void contact_begin(JlForce *e, const JlModel *m, const double *x, const double *v, double h) {
  ContactElem *ce = e->self;
  const JlWorldDef *wd = &m->world;
  ce->ncontact = 0;
  /* soft body against soft body */
  if (ce->col) {
    int n;
    jl_collision_detect(ce->col, m, x);
    const JlContactPoint *cp = jl_collision_contacts(ce->col, &n);
    for (int i = 0; i < n; i++) {
      Contact *ct = push(ce);
      const int *tn = m->tet + 4 * cp[i].tet;
      ct->n = 5;
      ct->node[0] = cp[i].node;
      ct->coef[0] = 1.0;
      for (int k = 0; k < 4; k++) {
        ct->node[k + 1] = tn[k];
        ct->coef[k + 1] = -cp[i].w[k];
      }
      memcpy(ct->r, cp[i].dir, sizeof ct->r);
      ct->d0 = cp[i].depth;
    }
  }
  ce->nbody_contacts = ce->ncontact;
  /* soft body against static obstacles */
  for (int o = 0; o < m->nobstacle; o++) {
    const JlObstacle *ob = &m->obstacle[o];
    double lo[3], hi[3];
    jl_obstacle_aabb(ob, lo, hi);
    for (int i = 0; i < m->nnode; i++) {
      const double *xi = x + 3 * i;
      if (xi[0] < lo[0] || xi[1] < lo[1] || xi[2] < lo[2] || xi[0] > hi[0] || xi[1] > hi[1] || xi[2] > hi[2])
        continue;
      double depth, dir[3];
      if (!jl_obstacle_penetration(ob, xi, &depth, dir)) continue;
      Contact *ct = push(ce);
      ct->n = 1;
      ct->node[0] = i;
      ct->coef[0] = 1.0;
      memcpy(ct->r, dir, sizeof dir);
      ct->d0 = depth;
    }
  }
  /* stiffness and damping per kg of the penetrating node; anchor and friction regime */
  for (int q = 0; q < ce->ncontact; q++) {
    Contact *ct = &ce->contact[q];
    double mp = m->mass[ct->node[0]];
    ct->k = wd->contact_stiffness * mp;
    ct->c = wd->contact_damping * mp;
    contact_z(ct, x, ct->z0);
    choose_regime(ct, v, h, ce->mu);
  }
}

/* Phi: force on the penetrating node at (z, z'); returns g (<= 0: no force) */
static double contact_phi(const Contact *ct, double mu, const double *z, const double *zd, double phi[3]) {
  const double *r = ct->r;
  double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
  double g = ct->d0 - jl_vec3_dot(r, dz);
  phi[0] = phi[1] = phi[2] = 0.0;
  if (!(g > 0.0)) return g;
  /* normal penalty and damping */
  double vn = jl_vec3_dot(r, zd), fn = ct->k * g - ct->c * vn;
  for (int a = 0; a < 3; a++) phi[a] = fn * r[a];
  /* friction */
  double vt[3] = {zd[0] - vn * r[0], zd[1] - vn * r[1], zd[2] - vn * r[2]};
  double cap = mu * ct->k * g, ft[3];
  if (ct->slide) {
    /* lagged-viscosity Coulomb: -mu k g P z' / |P z'_0| */
    double s = cap / ct->st0;
    for (int a = 0; a < 3; a++) ft[a] = -s * vt[a];
  } else {
    double sn = jl_vec3_dot(r, dz);
    for (int a = 0; a < 3; a++) ft[a] = -ct->k * (dz[a] - sn * r[a]) - ct->c * vt[a];
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
    double z[3], zd[3], phi[3];
    contact_z(ct, x, z);
    contact_z(ct, v, zd);
    double g = contact_phi(ct, ce->mu, z, zd, phi);
    if (!(g > 0.0)) continue;
    en += 0.5 * ct->k * g * g;
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
    double g = ct->d0 - jl_vec3_dot(r, dz);
    ct->active = g > 0.0;
    if (!ct->active) continue;
    double *D = ct->D;
    double vn = jl_vec3_dot(r, zd);
    double vt[3] = {zd[0] - vn * r[0], zd[1] - vn * r[1], zd[2] - vn * r[2]};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double rr = r[i] * r[j], P = (i == j) - rr;
        double dx = -ct->k * rr, dv = -ct->c * rr;
        if (!ct->slide) {
          dx -= ct->k * P;
          dv -= ct->c * P;
        } else {
          double s = ce->mu * ct->k * g / ct->st0;
          dv -= s * P;
          if (exact) dx += ce->mu * ct->k * (vt[i] / ct->st0) * r[j];
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

static void contact_destroy(JlForce *e) {
  if (!e) return;
  ContactElem *ce = e->self;
  if (ce) {
    jl_collision_destroy(ce->col);
    free(ce->contact);
    free(ce);
  }
  free(e);
}

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
    ce->col = jl_collision_create(m, &def);
  }
  free(flags);
  JlForce *e = jl_calloc(1, sizeof *e);
  e->name = "contacts";
  e->self = ce;
  e->force = contact_force;
  e->linearize = contact_linearize;
  e->multiply = contact_multiply;
  e->destroy = contact_destroy;
  e->begin_step = contact_begin;
  return e;
}

int jl_contact_count(const JlForce *e) {
  const ContactElem *ce = e->self;
  return ce->ncontact;
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
