/* The mouse drag: a damped spring from a picked surface point to the cursor's
 * target, as a force element of the implicit system.
 *
 * The picked point p = sum_j w_j x_j is a fixed combination of up to 12 tet
 * nodes (3 triangle vertices, each embedded with 4 barycentric weights;
 * repeated nodes are merged). The force
 *   F = k (target - p) + kd (target velocity - p')
 * acts on node i as w_i F, so the element's Jacobians are the rank-one blocks
 *   dF_i/dx_j = -k w_i w_j I,   dF_i/dv_j = -kd w_i w_j I
 * (Baraff & Witkin 1998 treat their constraint springs the same way). With
 * them in the implicit solve a stiff drag spring on a stiff body cannot blow
 * up, and the body follows the mouse. Releasing leaves the body with the
 * velocity the spring gave it, i.e. it is thrown with the mouse's velocity.
 * Energy: k/2 |target - p|^2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/drag.h"

enum { MAXN = 12 };

typedef struct Drag {
  int active, body, n;
  int node[MAXN];
  double w[MAXN];
  double k, kd;
  double target[3], vtarget[3];
  double coef; /* linearized: a * (-k) + b * (-kd) */
} Drag;

static void drag_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                       double *energy) {
  (void)m;
  const Drag *d = e->self;
  if (!d->active) return;
  double p[3] = {0, 0, 0}, pv[3] = {0, 0, 0};
  for (int j = 0; j < d->n; j++)
    for (int k = 0; k < 3; k++) {
      p[k] += d->w[j] * x[3 * d->node[j] + k];
      pv[k] += d->w[j] * v[3 * d->node[j] + k];
    }
  double F[3], e2 = 0;
  for (int k = 0; k < 3; k++) {
    F[k] = d->k * (d->target[k] - p[k]) + d->kd * (d->vtarget[k] - pv[k]);
    e2 += (d->target[k] - p[k]) * (d->target[k] - p[k]);
  }
  for (int j = 0; j < d->n; j++)
    for (int k = 0; k < 3; k++) f[3 * d->node[j] + k] += d->w[j] * F[k];
  if (energy) *energy += 0.5 * d->k * e2;
}

static void drag_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                           int flags, double *diag) {
  (void)m, (void)x, (void)v, (void)flags;
  Drag *d = e->self;
  d->coef = d->active ? -(a * d->k + b * d->kd) : 0.0;
  if (!d->active || !diag) return;
  for (int j = 0; j < d->n; j++) {
    double c = d->coef * d->w[j] * d->w[j];
    double *blk = diag + 9 * (size_t)d->node[j];
    blk[0] += c, blk[4] += c, blk[8] += c;
  }
}

static void drag_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  (void)m;
  const Drag *d = e->self;
  if (!d->active) return;
  double s[3] = {0, 0, 0};
  for (int j = 0; j < d->n; j++)
    for (int k = 0; k < 3; k++) s[k] += d->w[j] * u[3 * d->node[j] + k];
  for (int j = 0; j < d->n; j++)
    for (int k = 0; k < 3; k++) out[3 * d->node[j] + k] += d->coef * d->w[j] * s[k];
}

/* the dragged body is pulled by the world (the mouse) */
static void drag_couple(const JlForce *e, const JlModel *m, int *group) {
  const Drag *d = e->self;
  if (d->active && d->body >= 0 && d->body < m->nbody) jl_uf_union(group, d->body, m->nbody);
}

/* clang-format off */
static const JlForceOps drag_ops = {.name = "drag", .kind = JL_FORCE_DRAG, .force = drag_force,
    .linearize = drag_linearize, .multiply = drag_multiply, .couple = drag_couple};
/* clang-format on */

JlForce *jl_drag_create(const JlModel *m) {
  (void)m;
  Drag *d = jl_calloc(1, sizeof *d);
  d->body = -1;
  return jl_force_new(&drag_ops, d);
}

void jl_drag_attach(JlForce *f, const JlModel *m, int body, int tri, const double bary[3], double stiffness,
                    double damping) {
  JL_ASSERT(f && m && body >= 0 && body < m->nbody, "jl_drag_attach: body index out of range");
  const JlBody *b = &m->body[body];
  JL_ASSERT(tri >= 0 && tri < b->surface.ntri, "jl_drag_attach: triangle index out of range");
  Drag *d = f->self;
  d->n = 0;
  /* sum over the triangle's vertices of bary x embedding weight, merging nodes */
  for (int v = 0; v < 3; v++) {
    int vert = b->surface.tri[3 * tri + v];
    const int *tn = m->tet + 4 * (size_t)(b->tet_begin + b->embed.tet[vert]);
    for (int k = 0; k < 4; k++) {
      double wk = bary[v] * b->embed.weight[4 * (size_t)vert + k];
      int j = 0;
      while (j < d->n && d->node[j] != tn[k]) j++;
      if (j == d->n) {
        d->node[d->n] = tn[k];
        d->w[d->n++] = 0;
      }
      d->w[j] += wk;
    }
  }
  d->k = stiffness > 0 ? stiffness : 400.0 * b->mass;
  d->kd = damping > 0 ? damping : 20.0 * b->mass;
  d->body = body;
  d->active = 1;
  jl_drag_point(f, m->x0, d->target); /* placeholder until the first set_target */
  memset(d->vtarget, 0, sizeof d->vtarget);
}

void jl_drag_set_target(JlForce *f, const double target[3], const double velocity[3]) {
  Drag *d = f->self;
  for (int k = 0; k < 3; k++) {
    d->target[k] = target[k];
    d->vtarget[k] = velocity ? velocity[k] : 0.0;
  }
}

void jl_drag_release(JlForce *f) {
  Drag *d = f->self;
  d->active = 0;
  d->body = -1;
  d->coef = 0;
}

int jl_drag_active(const JlForce *f) { return ((const Drag *)f->self)->active; }

int jl_drag_body(const JlForce *f) {
  const Drag *d = f->self;
  return d->active ? d->body : -1;
}

int jl_drag_point(const JlForce *f, const double *x, double out[3]) {
  const Drag *d = f->self;
  out[0] = out[1] = out[2] = 0;
  if (!d->active) return 0;
  for (int j = 0; j < d->n; j++)
    for (int k = 0; k < 3; k++) out[k] += d->w[j] * x[3 * d->node[j] + k];
  return 1;
}
