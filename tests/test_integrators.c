/* Steppers and the linear solver: PCG against a dense solve, pins, spring
 * periods, convergence orders, stiffness stability, energy decay, adaptive
 * stepping and determinism. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/cg.h"
#include "src/world.h"
#include "tests/harness.h"
#include "tests/lattice.h"

static const double PI = 3.14159265358979323846;

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static double rnd(void) { return jl_test_rnd(&rng_state); }


static int make_world(JlWorld *w, JlModel *m, JlIntegrator integ, double tol, int threads) {
  JlStepDef sd = jl_default_step_def();
  sd.integrator = integ;
  sd.tolerance = tol;
  /* a tolerance at rounding asks for exact solves: no velocity stop (which would leave its own
   * error floor, 1e-4 m/s per step by default) */
  if (tol < 1e-12) sd.velocity_tolerance = 0.0;
  sd.max_iterations = 2000;
  sd.threads = threads;
  char err[256];
  return jl_world_create(w, m, &sd, err, sizeof err) == JL_OK;
}

/* a lattice body of cubes of `cell` metres, top layer pinned when pin_top */
static int lattice(JlModel *m, int nx, int ny, int nz, double cell, double stiffness, double damping, int pin_top,
                   int gravity) {
  double lo[3] = {0, 0, 0}, hi[3] = {nx * cell, ny * cell, nz * cell};
  JlBodyDef def = jl_default_body_def();
  snprintf(def.name, sizeof def.name, "stiff");
  def.stiffness = stiffness;
  def.damping = damping;
  def.material_damping = 0.0; /* the spring damping given, nothing else */
  if (pin_top) {
    def.has_pin_box = 1;
    double blo[3] = {-1, hi[1] - 1e-9, -1}, bhi[3] = {1e3, 1e3, 1e3};
    memcpy(def.pin_box[0], blo, sizeof blo);
    memcpy(def.pin_box[1], bhi, sizeof bhi);
  }
  JlWorldDef wd = jl_default_world_def();
  if (!gravity) wd.gravity[1] = 0.0;
  char err[256];
  return lattice_model(m, lo, hi, nx, ny, nz, &def, &wd, err, sizeof err) == JL_OK;
}

/* --- PCG against a dense solve ------------------------------------------ */

typedef struct Op {
  const JlModel *m;
  JlForce *springs;
} Op;

static void op_apply(void *ctx, const double *u, double *out) {
  const Op *op = ctx;
  for (int i = 0; i < op->m->nnode; i++)
    for (int k = 0; k < 3; k++) out[3 * i + k] = op->m->mass[i] * u[3 * i + k];
  op->springs->ops->multiply(op->springs, op->m, u, out);
}

static void test_cg_dense(void) {
  JlModel m;
  ENSURE(lattice(&m, 2, 1, 1, 0.1, 1e4, 1.0, 0, 0));
  m.pinned[0] = m.pinned[1] = 1;
  int n = m.nnode, n3 = 3 * n;
  JlForce *sp = jl_springs_create(&m);
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *diag = jl_calloc(9 * (size_t)n, sizeof(double));
  for (int k = 0; k < n3; k++) x[k] = m.x0[k] + 0.02 * rnd(), v[k] = rnd();
  /* A = M - h dF/dv - h^2 dF/dx at h = 0.01 */
  double h = 0.01;
  for (int i = 0; i < n; i++) diag[9 * i] = diag[9 * i + 4] = diag[9 * i + 8] = m.mass[i];
  sp->ops->linearize(sp, &m, x, v, -h * h, -h, 0, diag);
  Op op = {&m, sp};

  /* dense matrix of the free unknowns from products with unit vectors */
  int nf = 0, *freeidx = jl_calloc((size_t)n3, sizeof(int));
  for (int k = 0; k < n3; k++)
    if (!m.pinned[k / 3]) freeidx[nf++] = k;
  double *A = jl_calloc((size_t)nf * (size_t)(nf + 1), sizeof(double));
  double *e = jl_calloc((size_t)n3, sizeof(double)), *col = jl_calloc((size_t)n3, sizeof(double));
  for (int c = 0; c < nf; c++) {
    memset(e, 0, (size_t)n3 * sizeof(double));
    e[freeidx[c]] = 1.0;
    op_apply(&op, e, col);
    for (int r = 0; r < nf; r++) A[(size_t)r * (nf + 1) + c] = col[freeidx[r]];
  }
  /* the assembled matrix is symmetric */
  for (int r = 0; r < nf; r++)
    for (int c = 0; c < r; c++) ENSURE_NEAR(A[(size_t)r * (nf + 1) + c], A[(size_t)c * (nf + 1) + r], 1e-12);
  double *b = jl_calloc((size_t)n3, sizeof(double));
  for (int k = 0; k < n3; k++) b[k] = rnd();
  for (int r = 0; r < nf; r++) A[(size_t)r * (nf + 1) + nf] = b[freeidx[r]];
  /* Gaussian elimination with partial pivoting on [A | b] */
  for (int p = 0; p < nf; p++) {
    int best = p;
    for (int r = p + 1; r < nf; r++)
      if (fabs(A[(size_t)r * (nf + 1) + p]) > fabs(A[(size_t)best * (nf + 1) + p])) best = r;
    for (int c = 0; c <= nf; c++) {
      double t = A[(size_t)p * (nf + 1) + c];
      A[(size_t)p * (nf + 1) + c] = A[(size_t)best * (nf + 1) + c];
      A[(size_t)best * (nf + 1) + c] = t;
    }
    for (int r = p + 1; r < nf; r++) {
      double f = A[(size_t)r * (nf + 1) + p] / A[(size_t)p * (nf + 1) + p];
      for (int c = p; c <= nf; c++) A[(size_t)r * (nf + 1) + c] -= f * A[(size_t)p * (nf + 1) + c];
    }
  }
  double *dense = jl_calloc((size_t)nf, sizeof(double));
  for (int r = nf - 1; r >= 0; r--) {
    double s = A[(size_t)r * (nf + 1) + nf];
    for (int c = r + 1; c < nf; c++) s -= A[(size_t)r * (nf + 1) + c] * dense[c];
    dense[r] = s / A[(size_t)r * (nf + 1) + r];
  }

  /* PCG from a non-zero warm start (its pinned entries must be filtered out) */
  JlCg cg;
  jl_cg_init(&cg, n);
  jl_cg_set_diagonal(&cg, diag, m.pinned);
  double *sol = jl_calloc((size_t)n3, sizeof(double));
  for (int k = 0; k < n3; k++) sol[k] = 0.1 * rnd();
  JlCgResult res = jl_cg_solve(&cg, op_apply, &op, m.pinned, b, sol, 1e-13, 1000);
  ENSURE(res.converged);
  ENSURE(res.iterations > 3 && res.iterations <= nf);
  double scale = 0;
  for (int r = 0; r < nf; r++) scale = fmax(scale, fabs(dense[r]));
  for (int r = 0; r < nf; r++) ENSURE_NEAR(sol[freeidx[r]], dense[r], 1e-8 * scale);
  for (int k = 0; k < n3; k++)
    if (m.pinned[k / 3]) ENSURE(sol[k] == 0.0);
  /* a capped solve reports non-convergence */
  memset(sol, 0, (size_t)n3 * sizeof(double));
  res = jl_cg_solve(&cg, op_apply, &op, m.pinned, b, sol, 1e-13, 2);
  ENSURE(!res.converged && res.iterations == 2 && res.residual > 1e-13);

  jl_cg_free(&cg);
  free(x), free(v), free(diag), free(freeidx), free(A), free(e), free(col), free(b), free(dense), free(sol);
  jl_force_free(sp);
  jl_model_free(&m);
}

/* --- pins ------------------------------------------------------------------ */

static void test_pinned_never_move(void) {
  for (int integ = 0; integ < JL_INTEGRATOR_COUNT; integ++) {
    JlModel m;
    ENSURE(lattice(&m, 2, 2, 2, 0.1, 2000, 0.5, 1, 1));
    JlWorld w;
    ENSURE(make_world(&w, &m, (JlIntegrator)integ, 1e-8, 1));
    int npinned = 0;
    for (int i = 0; i < w.model->nnode; i++) npinned += w.model->pinned[i];
    ENSURE(npinned == 9);
    for (int i = 0; i < w.state.nnode; i++) /* velocities set by a caller are ignored for pinned nodes */
      w.state.v[3 * i] = 0.3;
    for (int step = 0; step < 20; step++) {
      JlStepReport rep;
      ENSURE(jl_world_step(&w, 1e-3, &rep) == JL_OK);
    }
    double moved = 0;
    for (int i = 0; i < w.model->nnode; i++) {
      const double *x = w.state.x + 3 * i, *x0 = w.model->x0 + 3 * i;
      if (w.model->pinned[i]) {
        ENSURE_MSG(x[0] == x0[0] && x[1] == x0[1] && x[2] == x0[2], "%s moved a pinned node",
                   jl_integrator_name((JlIntegrator)integ));
        ENSURE(w.state.v[3 * i] == 0 && w.state.v[3 * i + 1] == 0 && w.state.v[3 * i + 2] == 0);
        ENSURE(w.state.dv[3 * i] == 0 && w.state.dv[3 * i + 1] == 0 && w.state.dv[3 * i + 2] == 0);
      } else {
        moved = fmax(moved, fabs(x[1] - x0[1]));
      }
    }
    ENSURE(moved > 1e-5); /* the free nodes did fall */
    jl_world_destroy(&w);
  }
}

/* --- spring periods ------------------------------------------------------------ */

/* period of the separation of nodes 0 and 1 from upward crossings of its mean */
static double measure_period(JlWorld *w, double h, double rest, int nperiod_steps) {
  double prev = 0, t_first = -1, t_last = -1;
  int crossings = 0;
  for (int step = 0; step <= nperiod_steps; step++) {
    const double *a = w->state.x, *b = w->state.x + 3;
    double d =
        sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2])) - rest;
    if (step > 0 && prev < 0 && d >= 0) {
      double t = w->state.t - h + h * (-prev) / (d - prev);
      if (t_first < 0) t_first = t;
      t_last = t;
      crossings++;
    }
    prev = d;
    JlStepReport rep;
    if (jl_world_step(w, h, &rep) != JL_OK) return -1;
  }
  return crossings > 1 ? (t_last - t_first) / (crossings - 1) : -1;
}

static void test_spring_period(void) {
  static const JlIntegrator which[] = {JL_INTEGRATOR_RK4, JL_INTEGRATOR_SYMPLECTIC, JL_INTEGRATOR_VERLET};
  for (int q = 0; q < 3; q++) {
    /* mass 2 kg on a spring k = 50 N/m to a pinned node: T = 2 pi sqrt(m/k) */
    {
      double x[6] = {0, 0, 0, 1, 0, 0}, mass[2] = {1, 2}, k = 50, kd = 0;
      int pair[2] = {0, 1};
      unsigned char pin[2] = {1, 0};
      JlModel m;
      spring_model(&m, "bob", 2, x, mass, 1, pair, &k, &kd, pin);
      JlWorld w;
      ENSURE(make_world(&w, &m, which[q], 1e-10, 1));
      w.state.x[3] = 1.1;
      double T = 2 * PI * sqrt(2.0 / 50.0), h = T / 400;
      double Tn = measure_period(&w, h, 1.0, 5 * 400 + 10);
      ENSURE_MSG(fabs(Tn - T) < 1e-3 * T, "%s: pinned spring period %.6f vs %.6f", jl_integrator_name(which[q]), Tn, T);
      jl_world_destroy(&w);
    }
    /* two free masses: T = 2 pi sqrt(mu/k), mu = m1 m2 / (m1 + m2) */
    {
      double x[6] = {0, 0, 0, 0.6, 0.8, 0}, mass[2] = {1, 3}, k = 100, kd = 0;
      int pair[2] = {0, 1};
      JlModel m;
      spring_model(&m, "pair", 2, x, mass, 1, pair, &k, &kd, NULL);
      JlWorld w;
      ENSURE(make_world(&w, &m, which[q], 1e-10, 1));
      w.state.x[3] = 0.66, w.state.x[4] = 0.88; /* stretched 10 % along the axis */
      double mu = 0.75, T = 2 * PI * sqrt(mu / 100), h = T / 400;
      double Tn = measure_period(&w, h, 1.0, 5 * 400 + 10);
      ENSURE_MSG(fabs(Tn - T) < 1e-3 * T, "%s: two-body spring period %.6f vs %.6f", jl_integrator_name(which[q]), Tn,
                 T);
      /* momentum stays zero */
      double p = 1 * w.state.v[0] + 3 * w.state.v[3];
      ENSURE_NEAR(p, 0.0, 1e-12);
      jl_world_destroy(&w);
    }
  }
}

/* --- convergence orders ---------------------------------------------------------- */

/* three masses joined by three springs, node 0 pinned; state at t = T */
static int run_triangle(JlIntegrator integ, double h, double T, double *xout) {
  double x[9] = {0, 0, 0, 1, 0, 0, 0.5, 0.8, 0}, mass[3] = {1, 1, 1.5}, k[3] = {50, 80, 60}, kd[3] = {0, 0, 0};
  int pair[6] = {0, 1, 1, 2, 0, 2};
  unsigned char pin[3] = {1, 0, 0};
  JlModel m;
  spring_model(&m, "triangle", 3, x, mass, 3, pair, k, kd, pin);
  JlWorld w;
  if (!make_world(&w, &m, integ, 1e-14, 1)) return 0;
  double *s = w.state.x, *v = w.state.v;
  s[3] = 1.2, s[4] = 0.1, s[6] = 0.4, s[7] = 0.9, s[8] = 0.1;
  v[3] = 0.0, v[4] = 1.0, v[5] = 0.5, v[6] = -0.5;
  int n = (int)floor(T / h + 0.5), ok = 1;
  for (int i = 0; i < n && ok; i++) ok = jl_world_step(&w, h, NULL) == JL_OK;
  memcpy(xout, w.state.x, sizeof(double) * 9);
  jl_world_destroy(&w);
  return ok;
}

static void test_convergence_orders(void) {
  static const struct {
    JlIntegrator integ;
    double order;
  } cases[] = {{JL_INTEGRATOR_EULER, 1},
               {JL_INTEGRATOR_SYMPLECTIC, 1},
               {JL_INTEGRATOR_MIDPOINT, 2},
               {JL_INTEGRATOR_RK4, 4},
               {JL_INTEGRATOR_VERLET, 2},
               {JL_INTEGRATOR_IMPLICIT, 1},
               {JL_INTEGRATOR_IMPLICIT_MIDPOINT, 2}};
  const double T = 0.4, h0 = 0.004;
  double ref[9];
  ENSURE(run_triangle(JL_INTEGRATOR_RK4, h0 / 64, T, ref));
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    double err[3];
    for (int r = 0; r < 3; r++) {
      double x[9];
      ENSURE(run_triangle(cases[c].integ, h0 / (1 << r), T, x));
      err[r] = 0;
      for (int k = 0; k < 9; k++) err[r] = fmax(err[r], fabs(x[k] - ref[k]));
    }
    double p1 = log2(err[0] / err[1]), p2 = log2(err[1] / err[2]);
    printf("  %-10s errors %.3e %.3e %.3e  orders %.3f %.3f\n", jl_integrator_name(cases[c].integ), err[0], err[1],
           err[2], p1, p2);
    ENSURE_MSG(fabs(p1 - cases[c].order) < 0.3 && fabs(p2 - cases[c].order) < 0.3,
               "%s: measured orders %.3f, %.3f, expected %.0f", jl_integrator_name(cases[c].integ), p1, p2,
               cases[c].order);
  }
}

/* --- stiffness: implicit stable, forward Euler diverges ---------------------------- */

static void test_stiff_lattice(void) {
  const double h = 1.0 / 30.0, k = 1e6;
  /* implicit Euler: bounded */
  {
    JlModel m;
    ENSURE(lattice(&m, 3, 3, 3, 0.1, k, 1.0, 1, 1));
    double mmax = 0;
    for (int i = 0; i < m.nnode; i++) mmax = fmax(mmax, m.mass[i]);
    ENSURE(h * sqrt(k / mmax) > 20); /* far beyond explicit stability (2) */
    JlWorld w;
    ENSURE(make_world(&w, &m, JL_INTEGRATOR_IMPLICIT, 1e-6, 1));
    for (int s = 0; s < 30; s++) {
      JlStepReport rep;
      ENSURE_MSG(jl_world_step(&w, h, &rep) == JL_OK, "implicit step %d failed: %s", s, rep.message);
      ENSURE(rep.max_strain < 0.01);
    }
    jl_world_destroy(&w);
  }
  /* forward Euler: diverges, reported by name, state restored */
  {
    JlModel m;
    ENSURE(lattice(&m, 3, 3, 3, 0.1, k, 1.0, 1, 1));
    JlWorld w;
    ENSURE(make_world(&w, &m, JL_INTEGRATOR_EULER, 1e-6, 1));
    int n3 = 3 * w.state.nnode, failed_at = -1;
    double *before = jl_calloc((size_t)n3, sizeof(double));
    JlStepReport rep;
    for (int s = 0; s < 30 && failed_at < 0; s++) {
      memcpy(before, w.state.x, (size_t)n3 * sizeof(double));
      double t = w.state.t;
      if (jl_world_step(&w, h, &rep) != JL_OK) {
        failed_at = s;
        ENSURE(rep.diverged && rep.diverged_body == 0);
        ENSURE(memcmp(before, w.state.x, (size_t)n3 * sizeof(double)) == 0);
        ENSURE(w.state.t == t);
      }
    }
    printf("  forward Euler diverged at step %d: %s\n", failed_at, rep.message);
    ENSURE(failed_at >= 0);
    ENSURE(strstr(rep.message, "'stiff'") && strstr(rep.message, "'euler'"));
    free(before);
    jl_world_destroy(&w);
  }
}

/* --- energy under implicit Euler ------------------------------------------------- */

static double total_energy(const JlWorld *w, JlEnergy *e) {
  jl_world_energy(w, e);
  return e->kinetic + e->elastic + e->gravity + e->ground;
}

static void test_implicit_energy(void) {
  JlModel m;
  ENSURE(lattice(&m, 2, 4, 2, 0.1, 3000, 0.2, 1, 1));
  JlWorld w;
  ENSURE(make_world(&w, &m, JL_INTEGRATOR_IMPLICIT, 1e-10, 1));
  /* stretched start: 15 % longer downwards from the pinned top */
  for (int i = 0; i < w.state.nnode; i++) w.state.x[3 * i + 1] = 0.4 - 1.15 * (0.4 - w.state.x[3 * i + 1]);
  JlEnergy e;
  double E0 = total_energy(&w, &e), scale = e.elastic + fabs(e.gravity), prev = E0;
  ENSURE(e.elastic > 0.1);
  for (int s = 0; s < 120; s++) {
    JlStepReport rep;
    ENSURE(jl_world_step(&w, 1.0 / 60.0, &rep) == JL_OK);
    double E = total_energy(&w, &e);
    ENSURE_MSG(E <= prev + 1e-9 * scale, "energy grew at step %d: %.12g -> %.12g", s, prev, E);
    prev = E;
  }
  ENSURE(prev < E0 - 0.01 * scale); /* and it really dissipates */
  jl_world_destroy(&w);
}

/* --- adaptive stepping ------------------------------------------------------------- */

static double strain_change(const JlModel *m, const double *x0, const double *x1) {
  double best = 0;
  for (int s = 0; s < m->nspring; s++) {
    int i = m->spring_node[2 * s], j = m->spring_node[2 * s + 1];
    double l0 = sqrt(pow(x0[3 * i] - x0[3 * j], 2) + pow(x0[3 * i + 1] - x0[3 * j + 1], 2) +
                     pow(x0[3 * i + 2] - x0[3 * j + 2], 2));
    double l1 = sqrt(pow(x1[3 * i] - x1[3 * j], 2) + pow(x1[3 * i + 1] - x1[3 * j + 1], 2) +
                     pow(x1[3 * i + 2] - x1[3 * j + 2], 2));
    best = fmax(best, fabs(l1 - l0) / m->spring_rest[s]);
  }
  return best;
}

static void violent_start(JlWorld *w) {
  for (int i = 0; i < w->state.nnode; i++)
    if (w->state.x[3 * i + 1] > 0.15) w->state.v[3 * i + 1] = 20.0; /* top half flies up */
}

static void test_adaptive(void) {
  const double h = 1.0 / 60.0;
  /* without adaptivity the first step changes strains far beyond 10 % */
  {
    JlModel m;
    ENSURE(lattice(&m, 2, 2, 2, 0.1, 5000, 0.5, 0, 0));
    JlWorld w;
    ENSURE(make_world(&w, &m, JL_INTEGRATOR_IMPLICIT, 1e-8, 1));
    violent_start(&w);
    double *x0 = jl_calloc(3 * (size_t)w.state.nnode, sizeof(double));
    memcpy(x0, w.state.x, 3 * (size_t)w.state.nnode * sizeof(double));
    ENSURE(jl_world_step(&w, h, NULL) == JL_OK);
    ENSURE(strain_change(w.model, x0, w.state.x) > 0.1);
    free(x0);
    jl_world_destroy(&w);
  }
  /* with adaptivity: rejected, halved, accepted, then back to full steps */
  JlModel m;
  ENSURE(lattice(&m, 2, 2, 2, 0.1, 5000, 0.5, 0, 0));
  JlStepDef sd = jl_default_step_def();
  sd.adaptive = 1;
  sd.tolerance = 1e-8;
  JlWorld w;
  char err[256];
  ENSURE(jl_world_create(&w, &m, &sd, err, sizeof err) == JL_OK);
  violent_start(&w);
  JlStepReport rep;
  double *x0 = jl_calloc(3 * (size_t)w.state.nnode, sizeof(double));
  ENSURE(jl_world_step(&w, h, &rep) == JL_OK);
  ENSURE(rep.rejected >= 1 && rep.substeps >= 2);
  ENSURE_NEAR(w.state.t, h, 1e-15);
  int recovered = -1;
  for (int s = 1; s < 300 && recovered < 0; s++) {
    memcpy(x0, w.state.x, 3 * (size_t)w.state.nnode * sizeof(double));
    ENSURE(jl_world_step(&w, h, &rep) == JL_OK);
    if (rep.substeps == 1 && rep.rejected == 0) recovered = s;
  }
  printf("  adaptive: back to full steps after %d steps\n", recovered);
  ENSURE(recovered > 0);
  ENSURE(strain_change(w.model, x0, w.state.x) <= 0.1); /* the accepted full step obeys the bound */
  free(x0);
  jl_world_destroy(&w);

  /* an impossible case: forward Euler on very stiff springs gives up below h/1024 */
  ENSURE(lattice(&m, 2, 2, 2, 0.1, 1e12, 0.5, 1, 1));
  sd.integrator = JL_INTEGRATOR_EULER;
  ENSURE(jl_world_create(&w, &m, &sd, err, sizeof err) == JL_OK);
  JlResult r = JL_OK;
  for (int s = 0; s < 5 && r == JL_OK; s++) r = jl_world_step(&w, h, &rep);
  ENSURE(r == JL_ERR_RUNTIME && rep.diverged);
  ENSURE(strstr(rep.message, "'stiff'") != NULL);
  jl_world_destroy(&w);
}

/* --- determinism ----------------------------------------------------------------------- */

/* the lattice of run_det, built once: its worlds share it (jl_world_create_shared) */
static int det_model(JlModel *m, int n) {
  double lo[3] = {0, 0.02, 0}, hi[3] = {0.1 * n, 0.1 * n + 0.02, 0.1 * n};
  JlBodyDef def = jl_default_body_def();
  def.young_modulus = 2e5;
  def.velocity[0] = 1.0;
  JlWorldDef wd = jl_default_world_def();
  wd.has_ground = 1;
  char err[256];
  return lattice_model(m, lo, hi, n, n, n, &def, &wd, err, sizeof err) == JL_OK;
}

static int run_det(const JlModel *m, int threads, int steps, double **x_out, double **v_out) {
  JlStepDef sd = jl_default_step_def();
  sd.tolerance = 1e-6;
  sd.max_iterations = 2000;
  sd.threads = threads;
  char err[256];
  JlWorld w;
  if (jl_world_create_shared(&w, m, &sd, err, sizeof err) != JL_OK) return 0;
  for (int s = 0; s < steps; s++)
    if (jl_world_step(&w, 1.0 / 60.0, NULL) != JL_OK) return 0;
  size_t bytes = 3 * (size_t)w.state.nnode * sizeof(double);
  *x_out = jl_calloc(bytes, 1);
  *v_out = jl_calloc(bytes, 1);
  memcpy(*x_out, w.state.x, bytes);
  memcpy(*v_out, w.state.v, bytes);
  int nn = w.state.nnode;
  jl_world_destroy(&w);
  return nn;
}

static void test_determinism(void) {
  int n = jl_test_quick() ? 5 : 8, steps = jl_test_quick() ? 8 : 20;
  double *xa, *va, *xb, *vb, *xc, *vc, *xd, *vd;
  JlModel m;
  ENSURE(det_model(&m, n));
  int nn = run_det(&m, 1, steps, &xa, &va);
  ENSURE(nn > 0);
  ENSURE(run_det(&m, 1, steps, &xb, &vb) == nn);
  ENSURE(run_det(&m, 2, steps, &xc, &vc) == nn);
  ENSURE(run_det(&m, 2, steps, &xd, &vd) == nn);
  jl_model_free(&m);
  size_t bytes = 3 * (size_t)nn * sizeof(double);
  ENSURE(memcmp(xa, xb, bytes) == 0 && memcmp(va, vb, bytes) == 0); /* same model, same result */
  ENSURE(memcmp(xc, xd, bytes) == 0 && memcmp(vc, vd, bytes) == 0); /* 2 threads, twice */
  ENSURE(memcmp(xa, xc, bytes) == 0 && memcmp(va, vc, bytes) == 0); /* 1 vs 2 threads */
  /* and the body did move (reached the ground) */
  double ymin = 1e9;
  for (int i = 0; i < nn; i++) ymin = fmin(ymin, xa[3 * i + 1]);
  ENSURE(ymin < 0.02);
  free(xa), free(va), free(xb), free(vb), free(xc), free(vc), free(xd), free(vd);
}

/* --- names ----------------------------------------------------------------------------- */

static void test_integrator_names(void) {
  for (int i = 0; i < JL_INTEGRATOR_COUNT; i++)
    ENSURE(jl_integrator_parse(jl_integrator_name((JlIntegrator)i)) == (JlIntegrator)i);
  ENSURE(jl_integrator_parse("leapfrog") == JL_INTEGRATOR_COUNT);
  ENSURE(jl_integrator_parse(NULL) == JL_INTEGRATOR_COUNT);
  ENSURE(jl_integrator_name(JL_INTEGRATOR_COUNT) == NULL);
  ENSURE(strcmp(jl_integrator_name(JL_INTEGRATOR_RK4), "rk4") == 0);
}

/* --- the explicit integrators' default step (src/stable_dt.c) ----------------------- */

/* energy of the two-body spring after n steps of h, relative to the start */
static double spring_energy_ratio(JlIntegrator integ, double kd, double h, int n) {
  double x[6] = {0, 0, 0, 0.6, 0.8, 0}, mass[2] = {1, 3}, k = 100;
  int pair[2] = {0, 1};
  JlModel m;
  spring_model(&m, "pair", 2, x, mass, 1, pair, &k, &kd, NULL);
  JlWorld w;
  if (!make_world(&w, &m, integ, 1e-10, 1)) return NAN;
  w.state.x[3] = 0.66, w.state.x[4] = 0.88;
  JlEnergy e;
  jl_world_energy(&w, &e);
  double e0 = e.kinetic + e.elastic;
  for (int i = 0; i < n; i++) {
    JlStepReport rep;
    if (jl_world_step(&w, h, &rep) != JL_OK) {
      jl_world_destroy(&w);
      return INFINITY;
    }
  }
  jl_world_energy(&w, &e);
  jl_world_destroy(&w);
  return (e.kinetic + e.elastic) / e0;
}

static JlStableDt spring_stable_dt(JlIntegrator integ, double kd, double duration) {
  double x[6] = {0, 0, 0, 0.6, 0.8, 0}, mass[2] = {1, 3}, k = 100;
  int pair[2] = {0, 1};
  JlModel m;
  spring_model(&m, "pair", 2, x, mass, 1, pair, &k, &kd, NULL);
  JlWorld w;
  JlStableDt sd = {0, 0, 0, 0};
  if (!make_world(&w, &m, integ, 1e-10, 1)) return sd;
  sd = jl_world_stable_dt(&w, integ, 1.0, duration);
  jl_world_destroy(&w);
  return sd;
}

static void test_stable_dt(void) {
  /* masses 1 and 3 kg on k = 100 N/m: omega = sqrt(k (1/m1 + 1/m2)) = 11.547 rad/s */
  double omega = sqrt(100.0 * (1.0 + 1.0 / 3.0));
  /* undamped: the stability limits are 2/omega (symplectic Euler, velocity Verlet) and
   * 2 sqrt(2)/omega (RK4); the default is half of that */
  static const struct {
    JlIntegrator integ;
    double limit; /* x 1/omega */
  } lim[] = {{JL_INTEGRATOR_SYMPLECTIC, 2.0}, {JL_INTEGRATOR_VERLET, 2.0}, {JL_INTEGRATOR_RK4, 2.0 * 1.41421356}};
  for (int q = 0; q < 3; q++) {
    JlStableDt sd = spring_stable_dt(lim[q].integ, 0.0, 10.0);
    const char *name = jl_integrator_name(lim[q].integ);
    ENSURE_MSG(fabs(sd.omega - omega) < 1e-6 * omega, "%s: omega %.9g vs %.9g", name, sd.omega, omega);
    ENSURE_MSG(!sd.bounded_growth && fabs(sd.dt - 0.5 * lim[q].limit / omega) < 1e-3 * sd.dt,
               "%s: default dt %.6g, want %.6g", name, sd.dt, 0.5 * lim[q].limit / omega);
    /* the limit is real: stable at the default, growing beyond twice it */
    double at = spring_energy_ratio(lim[q].integ, 0.0, sd.dt, 2000);
    double beyond = spring_energy_ratio(lim[q].integ, 0.0, 2.2 * sd.dt, 200);
    ENSURE_MSG(at < 3.0, "%s: energy x%.3g over 2000 steps at the default dt", name,
               at); /* bounded (symplectic: oscillates) */
    ENSURE_MSG(beyond > 1e3, "%s: energy only x%.3g at 2.2 x the default dt", name, beyond);
  }
  /* forward Euler, damped (kd = 1 N s/m): stable for h <= kd/k = 0.01 s, so dt = 0.005 s */
  JlStableDt sd = spring_stable_dt(JL_INTEGRATOR_EULER, 1.0, 10.0);
  ENSURE_MSG(!sd.bounded_growth && fabs(sd.dt - 0.005) < 2e-2 * 0.005, "euler damped: dt %.6g", sd.dt);
  ENSURE(spring_energy_ratio(JL_INTEGRATOR_EULER, 1.0, sd.dt, 4000) < 1.0);
  ENSURE(spring_energy_ratio(JL_INTEGRATOR_EULER, 1.0, 2.2 * sd.dt, 4000) > 10.0);
  /* undamped forward Euler and midpoint are stable at no step: energy grows at most 0.1 % over the duration */
  static const JlIntegrator grow[] = {JL_INTEGRATOR_EULER, JL_INTEGRATOR_MIDPOINT};
  for (int q = 0; q < 2; q++) {
    sd = spring_stable_dt(grow[q], 0.0, 2.0);
    const char *name = jl_integrator_name(grow[q]);
    ENSURE_MSG(sd.bounded_growth && sd.dt > 0, "%s undamped: bounded_growth %d dt %g", name, sd.bounded_growth, sd.dt);
    int n = (int)ceil(2.0 / sd.dt);
    double r = spring_energy_ratio(grow[q], 0.0, sd.dt, n);
    ENSURE_MSG(r > 1.0 && r < 1.0011, "%s: energy x%.6g over 2 s at dt %.3g", name, r, sd.dt);
  }
  /* the implicit integrator keeps hmax */
  sd = spring_stable_dt(JL_INTEGRATOR_IMPLICIT, 0.0, 1.0);
  ENSURE(sd.dt == 1.0);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"cg_dense", test_cg_dense}, {"pinned_never_move", test_pinned_never_move},
             {"spring_period", test_spring_period}, {"convergence_orders", test_convergence_orders},
             {"stiff_lattice", test_stiff_lattice}, {"implicit_energy", test_implicit_energy},
             {"adaptive", test_adaptive}, {"determinism", test_determinism},
             {"integrator_names", test_integrator_names}, {"stable_dt", test_stable_dt})
