/* Ground plane force element: penalty contact with the plane y = ground_y.
 *
 * A node i below the plane (penetration p = ground_y - y_i > 0) feels
 *   normal:   F_y = k p - c v_y,            k = ground_stiffness m_i,
 *                                           c = ground_damping m_i,
 *   friction: F_t = -eta v_t,  eta = min(c, mu k p / s0),
 *             with v_t = (v_x, 0, v_z) and s0 = |v_t| at the start of the
 *             step (begin_step),
 * and stores the penalty energy 1/2 k p^2. Scaling k and c with the node
 * mass makes the contact behave the same at every mesh resolution (each node
 * is a mass on a spring of frequency sqrt(ground_stiffness)). The friction is
 * the regularised Coulomb law (viscous -c v_t below the cap mu k p, sliding at
 * the cap above it; the cap uses the penalty part of the normal force only,
 * so it depends on x alone) written as a lagged viscosity: at the step's
 * start velocity its magnitude is min(c s0, mu k p), and within the step it
 * is linear in v_t with the speed frozen at s0. The usual sliding form, a
 * constant mu k p against the motion for the whole step with no derivative
 * along it, lets implicit Euler overshoot: a step can reverse the tangential
 * velocity, and the next reverses it back, which injects energy and makes
 * resting bodies jitter sideways (docs/collision.md; src/contact.c uses the
 * same remedy). With the lagged form a step can slow the sliding down to zero
 * but never reverse it. Without a begin_step (a force evaluated outside a
 * world step) s0 is the current speed.
 *
 * Jacobian blocks (per penetrating node, a full 3x3 since it is diagonal in
 * the node index): dF_y/dy = -k, dF_y/dv_y = -c, dF_t/dv_t = -eta I_t
 * (symmetric, negative semidefinite) and, when sliding (eta = mu k p / s0),
 * dF_t/dy = (mu k / s0) v_t, which is not symmetric and is therefore only
 * included with JL_LIN_EXACT. These blocks keep a body resting on the ground
 * stable under implicit Euler at large steps (Baraff & Witkin 1998, sec. 5:
 * stiff penalty forces need their derivatives in the implicit system). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/force.h"
#include "src/linalg.h"

typedef struct Ground {
  int nblock;
  int nactive;
  int *active;     /* nactive <= nnode: penetrating nodes at the last linearize */
  double *blk;     /* nnode x 9: a dF/dx + b dF/dv of node active[q] at 9 q */
  double *partial; /* nblock energy partials */
  double *s0;      /* nnode: m/s, tangential speed at the step's start; < 0 = no step begun */
} Ground;

/* friction viscosity eta = min(c, mu k p / s0) with the frozen speed s0 (the
 * current speed st when no step has begun); *sliding = 1 on the cap branch */
static double friction_eta(double c, double cap, double s0, double st, int *sliding) {
  double s = s0 >= 0.0 ? s0 : st;
  *sliding = c * s > cap;
  return *sliding ? cap / s : c;
}

/* tangential speeds at the step's start */
static void ground_begin(JlForce *e, const JlModel *m, const double *x, const double *v, double h) {
  (void)x, (void)h;
  Ground *g = e->self;
  for (int i = 0; i < m->nnode; i++) g->s0[i] = sqrt(v[3 * i] * v[3 * i] + v[3 * i + 2] * v[3 * i + 2]);
}

static void ground_force(const JlForce *e, const JlModel *m, const double *x,
                         const double *v, double *f, double *energy) {
  Ground *g = e->self;
  const JlWorldDef *wd = &m->world;
  int n = m->nnode, nb = g->nblock;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT))
  for (int blk = 0; blk < nb; blk++) {
    int lo = blk * JL_BLOCK, hi = lo + JL_BLOCK < n ? lo + JL_BLOCK : n;
    double en = 0.0;
    for (int i = lo; i < hi; i++) {
      double pen = wd->ground_y - x[3 * i + 1];
      if (!(pen > 0.0)) continue;
      double k = wd->ground_stiffness * m->mass[i], c = wd->ground_damping * m->mass[i];
      const double *vi = v + 3 * i;
      /* normal penalty and damping */
      double normal = k * pen;
      f[3 * i + 1] += normal - c * vi[1];
      en += 0.5 * k * pen * pen;
      /* friction: lagged viscosity, min(c s0, mu N) at the start speed s0 */
      double st = sqrt(vi[0] * vi[0] + vi[2] * vi[2]);
      int sliding;
      double eta = friction_eta(c, wd->ground_friction * normal, g->s0[i], st, &sliding);
      f[3 * i] -= eta * vi[0];
      f[3 * i + 2] -= eta * vi[2];
    }
    g->partial[blk] = en;
  }
  if (energy) *energy += jl_sum_partials(nb, g->partial);
}

static void ground_linearize(JlForce *e, const JlModel *m, const double *x,
                             const double *v, double a, double b, int flags, double *diag) {
  Ground *g = e->self;
  const JlWorldDef *wd = &m->world;
  int exact = (flags & JL_LIN_EXACT) != 0;
  g->nactive = 0;
  for (int i = 0; i < m->nnode; i++) {
    double pen = wd->ground_y - x[3 * i + 1];
    if (!(pen > 0.0)) continue;
    double k = wd->ground_stiffness * m->mass[i], c = wd->ground_damping * m->mass[i];
    const double *vi = v + 3 * i;
    double *B = g->blk + 9 * g->nactive;
    g->active[g->nactive++] = i;
    memset(B, 0, 9 * sizeof(double));
    /* normal: rows/cols (1, 1) */
    B[4] = -a * k - b * c;
    /* friction in the x-z plane: dF_t/dv_t = -eta I_t */
    double st = sqrt(vi[0] * vi[0] + vi[2] * vi[2]);
    int sliding;
    double eta = friction_eta(c, wd->ground_friction * k * pen, g->s0[i], st, &sliding);
    B[0] = -b * eta;
    B[8] = -b * eta;
    if (sliding && exact) {
      /* dF_t/dy = (mu k / s0) v_t (unsymmetric); with no step begun s0 follows v and this is only the x part */
      double s = g->s0[i] >= 0.0 ? g->s0[i] : st;
      B[1] = a * wd->ground_friction * k / s * vi[0];
      B[7] = a * wd->ground_friction * k / s * vi[2];
    }
    if (diag)
      for (int r = 0; r < 9; r++) diag[9 * i + r] += B[r];
  }
}

static void ground_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  (void)m;
  const Ground *g = e->self;
  int na = g->nactive;
  JL_OMP(omp parallel for schedule(static) if (na > JL_PAR_MIN))
  for (int q = 0; q < na; q++) {
    int i = g->active[q];
    const double *B = g->blk + 9 * q, *ui = u + 3 * i;
    out[3 * i] += B[0] * ui[0] + B[1] * ui[1] + B[2] * ui[2];
    out[3 * i + 1] += B[3] * ui[0] + B[4] * ui[1] + B[5] * ui[2];
    out[3 * i + 2] += B[6] * ui[0] + B[7] * ui[1] + B[8] * ui[2];
  }
}

static void ground_destroy(JlForce *e) {
  if (!e) return;
  Ground *g = e->self;
  if (g) {
    free(g->active);
    free(g->blk);
    free(g->partial);
    free(g->s0);
    free(g);
  }
  free(e);
}

JlForce *jl_ground_create(const JlModel *m) {
  Ground *g = jl_calloc(1, sizeof *g);
  g->nblock = jl_nblock(m->nnode);
  g->active = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  g->blk = jl_calloc(9 * ((size_t)m->nnode + 1), sizeof(double));
  g->partial = jl_calloc((size_t)g->nblock + 1, sizeof(double));
  g->s0 = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  for (int i = 0; i < m->nnode; i++) g->s0[i] = -1.0;
  JlForce *e = jl_calloc(1, sizeof *e);
  e->name = "ground";
  e->self = g;
  e->force = ground_force;
  e->linearize = ground_linearize;
  e->multiply = ground_multiply;
  e->destroy = ground_destroy;
  e->begin_step = ground_begin;
  return e;
}
