/* Explicit steppers: forward Euler, symplectic Euler, explicit midpoint,
 * classical RK4 and velocity Verlet, for x' = v, v' = M^-1 F(x, v).
 *
 * Euler, midpoint and RK4 as in Witkin & Baraff 2001, "Differential Equation
 * Basics" (taught in the MIT 6.837 ODE-solver lecture; docs/references.md):
 *   euler:      x1 = x + h v,            v1 = v + h a(x, v)
 *   symplectic: v1 = v + h a(x, v),      x1 = x + h v1
 *   midpoint:   (xm, vm) = (x, v) + h/2 (v, a(x, v));
 *               x1 = x + h vm,           v1 = v + h a(xm, vm)
 *   rk4:        the classical four-stage Runge-Kutta on (x, v)
 *   verlet:     x1 = x + h v + h^2/2 a0, vh = v + h/2 a0,
 *               v1 = vh + h/2 a(x1, vh)  (velocity Verlet; with
 *               velocity-dependent forces the second force uses vh, which
 *               keeps it explicit but first-order in the damping terms)
 * Pinned nodes have zero acceleration and zero velocity, so they never move.
 * Only the force pass of each element is used; no allocation: stage vectors
 * live in the world's workspace. */
#include "src/parallel.h"
#include "src/world_internal.h"

void jl_world_accel(const JlWorld *w, const double *x, const double *v, double *a) {
  const JlModel *m = w->model;
  int n = m->nnode, threads = ((const JlWork *)w->work)->threads;
  (void)threads; /* without OpenMP */
  jl_world_forces(w, x, v, a, NULL);
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN) num_threads(jl_omp_threads(threads)))
  for (int i = 0; i < n; i++) {
    double inv = m->pinned[i] ? 0.0 : 1.0 / m->mass[i];
    a[3 * i] *= inv;
    a[3 * i + 1] *= inv;
    a[3 * i + 2] *= inv;
  }
}

void jl_step_explicit(JlWorld *w, double h) {
  const JlModel *m = w->model;
  JlWork *k = w->work;
  JlState *s = &w->state;
  int n = m->nnode, n3 = 3 * n;
  double *x = s->x, *v = s->v, *a = k->f, *xs = k->xs, *vs = k->vs, *sx = k->sx, *sv = k->sv;

  /* pinned nodes are at rest (a caller may have written v) */
  for (int i = 0; i < n; i++)
    if (m->pinned[i]) v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = 0.0;

  switch (w->def.integrator) {
    case JL_INTEGRATOR_EULER:
      jl_world_accel(w, x, v, a);
      for (int c = 0; c < n3; c++) {
        x[c] += h * v[c];
        v[c] += h * a[c];
      }
      break;

    case JL_INTEGRATOR_SYMPLECTIC:
      jl_world_accel(w, x, v, a);
      for (int c = 0; c < n3; c++) {
        v[c] += h * a[c];
        x[c] += h * v[c];
      }
      break;

    case JL_INTEGRATOR_MIDPOINT:
      jl_world_accel(w, x, v, a);
      for (int c = 0; c < n3; c++) {
        xs[c] = x[c] + 0.5 * h * v[c];
        vs[c] = v[c] + 0.5 * h * a[c];
      }
      jl_world_accel(w, xs, vs, a);
      for (int c = 0; c < n3; c++) {
        x[c] += h * vs[c];
        v[c] += h * a[c];
      }
      break;

    case JL_INTEGRATOR_RK4: {
      /* stage 1 at (x, v); sums of the weighted stage derivatives in sx, sv */
      jl_world_accel(w, x, v, a);
      for (int c = 0; c < n3; c++) {
        sx[c] = v[c];
        sv[c] = a[c];
        xs[c] = x[c] + 0.5 * h * v[c];
        vs[c] = v[c] + 0.5 * h * a[c];
      }
      /* stages 2 and 3: weight 2, next stage at h/2 then h */
      for (int stage = 2; stage <= 3; stage++) {
        double hn = stage == 2 ? 0.5 * h : h;
        jl_world_accel(w, xs, vs, a);
        for (int c = 0; c < n3; c++) {
          double vk = vs[c];
          sx[c] += 2.0 * vk;
          sv[c] += 2.0 * a[c];
          xs[c] = x[c] + hn * vk;
          vs[c] = v[c] + hn * a[c];
        }
      }
      /* stage 4 and the combination */
      jl_world_accel(w, xs, vs, a);
      for (int c = 0; c < n3; c++) {
        x[c] += h / 6.0 * (sx[c] + vs[c]);
        v[c] += h / 6.0 * (sv[c] + a[c]);
      }
      break;
    }

    case JL_INTEGRATOR_VERLET:
      jl_world_accel(w, x, v, a);
      for (int c = 0; c < n3; c++) {
        x[c] += h * v[c] + 0.5 * h * h * a[c];
        vs[c] = v[c] + 0.5 * h * a[c];
      }
      jl_world_accel(w, x, vs, a);
      for (int c = 0; c < n3; c++) v[c] = vs[c] + 0.5 * h * a[c];
      break;

    default:
      JL_ASSERT(0, "jl_step_explicit: not an explicit integrator");
  }
}
