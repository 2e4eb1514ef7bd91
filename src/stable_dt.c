/* The default time step of an explicit integrator (world.h,
 * jl_world_stable_dt; docs/integrators.md, "Default time step").
 *
 * Explicit schemes are stable only while h times the fastest mode stays inside
 * their stability region. The rule:
 *  1. the highest angular frequency: omega^2 = the largest eigenvalue of
 *     M^-1 K, K = -dF/dx of the springs and the volume force at the current
 *     state (power iteration on M^-1/2 K M^-1/2 through the force elements'
 *     linearize/multiply, pinned nodes left out), plus the largest penalty a
 *     node can feel once it touches the ground or a body:
 *     stiffness per kg + spring_scale x (the node's summed spring stiffness / m);
 *  2. the highest damping rate gamma the same way from -dF/dv, plus the
 *     penalty damping per kg or, where a contact pushes out of its slack, the
 *     critical 2 sqrt(k / m) of the penalty above; spring damping is stiffness-proportional
 *     (c_s / k_s per spring), so a mode of frequency w is damped at a rate
 *     between min(c_s/k_s) w^2 and max(c_s/k_s) w^2 + the penalty damping;
 *  3. the largest h for which the integrator's 2x2 amplification matrix on
 *     x'' = -w^2 x - g x' has a spectral radius rho with rho^(duration / h)
 *     <= 1.001 for every such mode (w on a log grid up to omega, g at both
 *     ends of its range, and the pure damping mode w = 0, g = gamma): at most
 *     0.1 % growth over the run, found by bisection;
 *  4. dt = half that h (the estimate of omega is from the rest state; springs
 *     stiffen under compression through the volume barrier).
 * Symplectic Euler, Verlet and RK4 have rho = 1 up to their limit, so 3. is
 * that limit. Forward Euler and midpoint amplify every undamped oscillation
 * at any h (docs/integrators.md): for them 3. is the step whose growth
 * compounds to 0.1 % over the run (bounded_growth).
 * Deterministic: a fixed start vector and a fixed iteration count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/world.h"

enum { POWER_ITERATIONS = 60, OMEGA_GRID = 96 };

/* largest eigenvalue of M^-1/2 (-dF) M^-1/2 for the elements named in use[]
 * after linearize(a, b) (a = 1, b = 0: dF/dx; a = 0, b = 1: dF/dv) */
static double power_iteration(JlWorld *w, JlForce **el, int nel, double a, double b) {
  const JlModel *m = w->model;
  int n = m->nnode, n3 = 3 * n;
  if (nel == 0 || n == 0) return 0.0;
  for (int e = 0; e < nel; e++) el[e]->ops->linearize(el[e], m, w->state.x, w->state.v, a, b, 0, NULL);
  double *u = jl_calloc((size_t)n3, sizeof(double)), *y = jl_calloc((size_t)n3, sizeof(double));
  double *out = jl_calloc((size_t)n3, sizeof(double)), *isq = jl_calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) isq[i] = m->pinned[i] || !(m->mass[i] > 0) ? 0.0 : 1.0 / sqrt(m->mass[i]);
  /* a fixed pseudo-random start with a component along every mode */
  unsigned s = 2463534242u;
  for (int c = 0; c < n3; c++) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    u[c] = isq[c / 3] > 0 ? (double)(s >> 8) / 16777216.0 - 0.5 : 0.0;
  }
  double lambda = 0.0;
  for (int it = 0; it < POWER_ITERATIONS; it++) {
    double nu = 0;
    for (int c = 0; c < n3; c++) nu += u[c] * u[c];
    if (!(nu > 0)) break;
    nu = 1.0 / sqrt(nu);
    for (int c = 0; c < n3; c++) u[c] *= nu, y[c] = u[c] * isq[c / 3];
    memset(out, 0, sizeof(double) * (size_t)n3);
    for (int e = 0; e < nel; e++) el[e]->ops->multiply(el[e], m, y, out);
    double rq = 0;
    for (int c = 0; c < n3; c++) {
      out[c] = -out[c] * isq[c / 3]; /* A u, A = -M^-1/2 dF M^-1/2 */
      rq += u[c] * out[c];
    }
    if (rq > lambda) lambda = rq;
    memcpy(u, out, sizeof(double) * (size_t)n3);
  }
  free(u), free(y), free(out), free(isq);
  return isfinite(lambda) ? lambda : 0.0;
}

/* spectral radius of the integrator's one-step map on x'' = -w2 x - g x' */
static double amplification(JlIntegrator integ, double h, double w2, double g) {
  double col[2][2];
  for (int k = 0; k < 2; k++) {
    double x = k == 0, v = k == 1, x1, v1;
#define ACC(X, V) (-w2 * (X)-g * (V))
    switch (integ) {
      case JL_INTEGRATOR_EULER:
        x1 = x + h * v, v1 = v + h * ACC(x, v);
        break;
      case JL_INTEGRATOR_SYMPLECTIC:
        v1 = v + h * ACC(x, v), x1 = x + h * v1;
        break;
      case JL_INTEGRATOR_MIDPOINT: {
        double xm = x + 0.5 * h * v, vm = v + 0.5 * h * ACC(x, v);
        x1 = x + h * vm, v1 = v + h * ACC(xm, vm);
        break;
      }
      case JL_INTEGRATOR_RK4: {
        double k1x = v, k1v = ACC(x, v);
        double k2x = v + 0.5 * h * k1v, k2v = ACC(x + 0.5 * h * k1x, v + 0.5 * h * k1v);
        double k3x = v + 0.5 * h * k2v, k3v = ACC(x + 0.5 * h * k2x, v + 0.5 * h * k2v);
        double k4x = v + h * k3v, k4v = ACC(x + h * k3x, v + h * k3v);
        x1 = x + h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x);
        v1 = v + h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v);
        break;
      }
      case JL_INTEGRATOR_VERLET: {
        double a0 = ACC(x, v), vh = v + 0.5 * h * a0;
        x1 = x + h * v + 0.5 * h * h * a0;
        v1 = vh + 0.5 * h * ACC(x1, vh);
        break;
      }
      default: /* implicit Euler: unconditionally stable for these modes */
        return 0.0;
    }
#undef ACC
    col[k][0] = x1, col[k][1] = v1;
  }
  /* eigenvalues tr/2 +- sqrt(disc); disc = tr^2/4 - det written without the
   * cancellation that would put rounding noise of 1e-8 on a double root */
  double a = col[0][0], b = col[1][0], c = col[0][1], d = col[1][1];
  double tr = a + d, det = a * d - b * c, disc = 0.25 * (a - d) * (a - d) + b * c;
  if (disc >= 0) return fabs(0.5 * tr) + sqrt(disc);
  return sqrt(det);
}

typedef struct Modes {
  double omega, gamma, r_lo, r_hi, pen_gamma;
} Modes;

/* worst amplification over the test modes at step h */
static double worst(JlIntegrator integ, const Modes *md, double h) {
  double rho = amplification(integ, h, 0.0, md->gamma);
  for (int k = 0; k < OMEGA_GRID; k++) {
    double wk = md->omega * pow(1e-4, (double)k / (OMEGA_GRID - 1)), w2 = wk * wk;
    double glo = md->r_lo * w2, ghi = md->r_hi * w2 + md->pen_gamma;
    if (ghi > md->gamma) ghi = md->gamma;
    if (glo > ghi) glo = ghi;
    double a = amplification(integ, h, w2, glo), b = amplification(integ, h, w2, ghi);
    if (a > rho) rho = a;
    if (b > rho) rho = b;
  }
  return rho;
}

/* largest h in (0, hmax] whose worst mode grows by at most 0.1 % over
 * `duration` (rho^(duration / h) <= 1.001), by bisection on log h; 0 if none */
static double largest(JlIntegrator integ, const Modes *md, double hmax, double duration) {
  double lo = hmax * 1e-12, hi = hmax;
#define OK(H) ((duration / (H)) * log(worst(integ, md, (H))) <= log(1.001))
  if (OK(hi)) return hi;
  if (!OK(lo)) return 0.0;
  for (int it = 0; it < 80; it++) {
    double mid = sqrt(lo * hi);
    if (OK(mid))
      lo = mid;
    else
      hi = mid;
  }
#undef OK
  return lo;
}

JlStableDt jl_world_stable_dt(JlWorld *w, JlIntegrator integ, double hmax, double duration) {
  JlStableDt r = {hmax, 0, 0, 0};
  if (jl_integrator_is_implicit(integ) || !(hmax > 0)) return r;
  const JlModel *m = w->model;
  JlForce *el[JL_MAX_FORCES];
  int nel = 0, contacts = 0;
  for (int f = 0; f < w->nforce; f++) {
    JlForceKind kind = w->force[f]->kind;
    if (kind == JL_FORCE_SPRINGS || kind == JL_FORCE_VOLUME) el[nel++] = w->force[f];
    if (kind == JL_FORCE_CONTACTS) contacts = 1;
  }
  double w2 = power_iteration(w, el, nel, 1.0, 0.0), g = power_iteration(w, el, nel, 0.0, 1.0);
  /* penalty a node can feel: per kg + spring_scale x its spring stiffness per kg */
  double pen_k = 0, pen_scale = 0, pen_g = 0;
  if (m->world.has_ground) {
    pen_k = m->world.ground_stiffness, pen_scale = m->world.ground_spring_scale, pen_g = m->world.ground_damping;
  }
  if (contacts) {
    if (m->world.contact_stiffness > pen_k) pen_k = m->world.contact_stiffness;
    if (m->world.contact_spring_scale > pen_scale) pen_scale = m->world.contact_spring_scale;
    if (m->world.contact_damping > pen_g) pen_g = m->world.contact_damping;
  }
  if (pen_k > 0 || pen_scale > 0) {
    double *ks = jl_calloc((size_t)m->nnode + 1, sizeof(double)), top = 0;
    jl_model_node_stiffness(m, ks);
    for (int i = 0; i < m->nnode; i++)
      if (!m->pinned[i] && m->mass[i] > 0 && ks[i] / m->mass[i] > top) top = ks[i] / m->mass[i];
    free(ks);
    double pw2 = pen_k + pen_scale * top;
    w2 += pw2;
    /* a contact or ground node pushed out of its slack is damped critically, 2 sqrt(k m) */
    if (2.0 * sqrt(pw2) > pen_g) pen_g = 2.0 * sqrt(pw2);
  }
  Modes md = {sqrt(w2), g + pen_g, INFINITY, 0, pen_g};
  for (int s = 0; s < m->nspring; s++)
    if (m->spring_k[s] > 0) {
      double rs = m->spring_kd[s] / m->spring_k[s];
      if (rs < md.r_lo) md.r_lo = rs;
      if (rs > md.r_hi) md.r_hi = rs;
    }
  if (!isfinite(md.r_lo)) md.r_lo = 0;
  r.omega = md.omega, r.gamma = md.gamma;
  if (!(md.omega > 0) && !(md.gamma > 0)) return r;
  if (!(duration > 0)) duration = 1.0;
  double h = largest(integ, &md, 2.0 * hmax, duration);
  r.dt = 0.5 * h < hmax ? 0.5 * h : hmax;
  if (!(r.dt > 0)) r.dt = hmax * 1e-12;
  /* forward Euler and midpoint on (nearly) undamped modes: growing, only slowly */
  r.bounded_growth = worst(integ, &md, r.dt) > 1.0 + 1e-13;
  return r;
}

int jl_dt_too_long(double dt, double span) { return dt > span * (1.0 + JL_DT_TOL); }

JlStepPlan jl_world_step_plan(JlWorld *w, JlIntegrator integ, double span, double dt, int auto_dt, double duration) {
  JlStepPlan p = {dt, 1.0, span, 0, {dt, 0, 0, 0}};
  if (auto_dt && !jl_integrator_is_implicit(integ) && w) {
    p.auto_dt = 1;
    p.stable = jl_world_stable_dt(w, integ, dt, duration);
    p.dt = p.stable.dt;
  }
  double n = ceil(span / p.dt * (1.0 - JL_DT_TOL));
  p.steps = n >= 1.0 ? n : 1.0;
  p.h = span / p.steps;
  return p;
}
