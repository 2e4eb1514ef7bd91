/* Ground plane force element: penalty contact with the plane y = ground_y.
 *
 * A node i below the plane (penetration p = ground_y - y_i > 0) feels
 *   normal:   F_y = k p - c v_y,            k = ground_stiffness m_i,
 *                                           c = ground_damping m_i,
 *   friction: F_t = -c v_t, capped at mu N: F_t = -mu N v_t / |v_t|,
 *             with N = k p and v_t = (v_x, 0, v_z),
 * and stores the penalty energy 1/2 k p^2. Scaling k and c with the node
 * mass makes the contact behave the same at every mesh resolution (each node
 * is a mass on a spring of frequency sqrt(ground_stiffness)). The friction is
 * the usual regularised Coulomb law (viscous below the cap, sliding above);
 * the cap uses the penalty part of the normal force only, so it depends on x
 * alone.
 *
 * Jacobian blocks (per penetrating node, a full 3x3 since it is diagonal in
 * the node index): dF_y/dy = -k, dF_y/dv_y = -c; friction below the cap
 * dF_t/dv_t = -c I_t; above the cap dF_t/dv_t = -(mu N/|v_t|)(I_t - t t^T)
 * (symmetric, negative semidefinite) and dF_t/dy = mu k t, which is not
 * symmetric and is therefore only included with JL_LIN_EXACT. These blocks
 * keep a body resting on the ground stable under implicit Euler at large
 * steps (Baraff & Witkin 1998, sec. 5: stiff penalty forces need their
 * derivatives in the implicit system). */
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
} Ground;

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
      /* friction: viscous, capped at mu N */
      double st = sqrt(vi[0] * vi[0] + vi[2] * vi[2]);
      double cap = wd->ground_friction * normal;
      double ct = (c * st > cap) ? cap / st : c; /* F_t = -ct v_t */
      f[3 * i] -= ct * vi[0];
      f[3 * i + 2] -= ct * vi[2];
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
    /* friction in the x-z plane */
    double st = sqrt(vi[0] * vi[0] + vi[2] * vi[2]);
    double cap = wd->ground_friction * k * pen;
    if (c * st > cap) {
      double tx = vi[0] / st, tz = vi[2] / st, s = cap / st;
      /* dF_t/dv_t = -(mu N / |v_t|) (I_t - t t^T) */
      B[0] = -b * s * (1.0 - tx * tx);
      B[2] = b * s * tx * tz;
      B[6] = b * s * tx * tz;
      B[8] = -b * s * (1.0 - tz * tz);
      if (exact) {
        /* dF_t/dy = mu k t (unsymmetric) */
        B[1] = a * wd->ground_friction * k * tx;
        B[7] = a * wd->ground_friction * k * tz;
      }
    } else {
      B[0] = -b * c;
      B[8] = -b * c;
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
  JlForce *e = jl_calloc(1, sizeof *e);
  e->name = "ground";
  e->self = g;
  e->force = ground_force;
  e->linearize = ground_linearize;
  e->multiply = ground_multiply;
  e->destroy = ground_destroy;
  return e;
}
