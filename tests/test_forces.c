/* Force elements: finite-difference checks of every Jacobian, definiteness of
 * the clamped spring Jacobian, momentum balance and energy consistency. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/extforce.h"
#include "src/force.h"
#include "src/volume.h"
#include "tests/fixtures.h"
#include "tests/harness.h"
#include "tests/lattice.h"

/* deterministic pseudo-random numbers in [-1, 1] */
static unsigned long long rng_state = 88172645463325252ull;
static double rnd(void) { return jl_test_rnd(&rng_state); }

static double norm(int n, const double *a) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

static double dot(int n, const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* a small lattice body: 2 x 2 x 2 cubes of 0.1 m */
static int small_model_nu(JlModel *m, double young, double nu, int ground);
static int small_model(JlModel *m, double young, int ground) { return small_model_nu(m, young, 0.25, ground); }
static int small_model_nu(JlModel *m, double young, double nu, int ground) {
  double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.2, 0.2};
  JlBodyDef def = jl_default_body_def();
  snprintf(def.name, sizeof def.name, "probe");
  def.young_modulus = young;
  def.poisson_ratio = nu;
  def.stiffness = 300.0;
  def.damping = 2.0;
  JlWorldDef wd = jl_default_world_def();
  wd.has_ground = ground;
  wd.ground_y = 0.05;
  char err[256];
  return lattice_model(m, lo, hi, 2, 2, 2, &def, &wd, err, sizeof err) == JL_OK;
}

/* F(x, v) of one element */
static void eval(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f) {
  memset(f, 0, 3 * (size_t)m->nnode * sizeof(double));
  e->ops->force(e, m, x, v, f, NULL);
}

/* forces f at x sum to no net force and no net torque (relative to sum |f_i| > 1 N) */
static void balanced(const JlModel *m, const double *x, const double *f, double rel) {
  double sum[3] = {0, 0, 0}, torque[3] = {0, 0, 0}, fmag = 0;
  for (int i = 0; i < m->nnode; i++) {
    const double *p = x + 3 * i, *fi = f + 3 * i;
    for (int k = 0; k < 3; k++) sum[k] += fi[k];
    torque[0] += p[1] * fi[2] - p[2] * fi[1];
    torque[1] += p[2] * fi[0] - p[0] * fi[2];
    torque[2] += p[0] * fi[1] - p[1] * fi[0];
    fmag += norm(3, fi);
  }
  ENSURE(fmag > 1.0);
  for (int k = 0; k < 3; k++) {
    ENSURE_NEAR(sum[k], 0.0, rel * fmag);
    ENSURE_NEAR(torque[k], 0.0, rel * fmag);
  }
}

/* perturbed positions: every spring some percent longer or shorter */
static void perturb(const JlModel *m, double amount, double *x) {
  for (int k = 0; k < 3 * m->nnode; k++) x[k] = m->x0[k] + amount * 0.1 * rnd();
}

static void count_stretch(const JlModel *m, const double *x, int *stretched, int *compressed) {
  *stretched = *compressed = 0;
  for (int s = 0; s < m->nspring; s++) {
    const double *a = x + 3 * m->spring_node[2 * s], *b = x + 3 * m->spring_node[2 * s + 1];
    double l = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    if (l > m->spring_rest[s])
      ++*stretched;
    else
      ++*compressed;
  }
}

static void test_spring_dfdx_exact(void) {
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_springs_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double));
  perturb(&m, 0.3, x);
  int st, co;
  count_stretch(&m, x, &st, &co);
  ENSURE(st > 10 && co > 10); /* both kinds of springs are exercised */
  double worst = 0;
  for (int trial = 0; trial < 5; trial++) {
    for (int k = 0; k < n3; k++) u[k] = rnd();
    double err = jl_test_fd_error(e, &m, x, v, 1.0, 0.0, JL_LIN_EXACT, u, 1e-6, JL_TEST_FD_L2);
    worst = fmax(worst, err);
  }
  ENSURE_MSG(worst < 1e-6, "exact spring dF/dx vs central differences: relative error %.3g", worst);
  /* the clamped Jacobian differs on compressed configurations (so the check can fail) */
  for (int k = 0; k < n3; k++) u[k] = rnd();
  double clamped = jl_test_fd_error(e, &m, x, v, 1.0, 0.0, 0, u, 1e-6, JL_TEST_FD_L2);
  ENSURE_MSG(clamped > 1e-3, "clamped Jacobian unexpectedly equals the exact one (%.3g)", clamped);
  free(x), free(v), free(u);
  jl_force_free(e);
  jl_model_free(&m);
}

static void test_spring_stretched_default_equals_exact(void) {
  /* when every spring is stretched, the clamp does nothing */
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_springs_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double));
  for (int k = 0; k < n3; k++) x[k] = 1.2 * m.x0[k] + 0.002 * rnd();
  int st, co;
  count_stretch(&m, x, &st, &co);
  ENSURE(co == 0);
  for (int k = 0; k < n3; k++) u[k] = rnd();
  double err = jl_test_fd_error(e, &m, x, v, 1.0, 0.0, 0, u, 1e-6, JL_TEST_FD_L2);
  ENSURE_MSG(err < 1e-6, "stretched springs, default flags: relative error %.3g", err);
  free(x), free(v), free(u);
  jl_force_free(e);
  jl_model_free(&m);
}

static void test_spring_dfdv(void) {
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_springs_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double));
  perturb(&m, 0.3, x);
  for (int k = 0; k < n3; k++) v[k] = rnd();
  for (int k = 0; k < n3; k++) u[k] = rnd();
  double err = jl_test_fd_error(e, &m, x, v, 0.0, 1.0, 0, u, 1e-6, JL_TEST_FD_L2);
  ENSURE_MSG(err < 1e-6, "spring dF/dv (axial damping): relative error %.3g", err);
  /* combined a, b as the implicit stepper uses them (v = 0: no x-dependence of damping) */
  memset(v, 0, (size_t)n3 * sizeof(double));
  err = jl_test_fd_error(e, &m, x, v, -0.01 * 0.01, -0.01, JL_LIN_EXACT, u, 1e-6, JL_TEST_FD_L2);
  ENSURE_MSG(err < 1e-6, "spring a dF/dx + b dF/dv: relative error %.3g", err);
  free(x), free(v), free(u);
  jl_force_free(e);
  jl_model_free(&m);
}

/* step_rhs (the implicit right-hand side a F + b dF/dx v in one pass) is
 * force, linearize(b, 0) and multiply by v, to rounding, on stretched and
 * compressed springs with damping */
static void test_spring_step_rhs(void) {
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_springs_create(&m);
  ENSURE(e->ops->step_rhs != NULL);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *r1 = jl_calloc((size_t)n3, sizeof(double)), *r2 = jl_calloc((size_t)n3, sizeof(double));
  perturb(&m, 0.3, x);
  int st, co;
  count_stretch(&m, x, &st, &co);
  ENSURE(st > 10 && co > 10);
  for (int k = 0; k < n3; k++) v[k] = rnd();
  double h = 1.0 / 60.0;
  e->ops->force(e, &m, x, v, r1, NULL);
  for (int k = 0; k < n3; k++) r1[k] *= h;
  e->ops->linearize(e, &m, x, v, h * h, 0.0, 0, NULL);
  e->ops->multiply(e, &m, v, r1);
  e->ops->step_rhs(e, &m, x, v, h, h * h, r2);
  double scale = norm(n3, r1), diff = 0.0;
  for (int k = 0; k < n3; k++) diff = fmax(diff, fabs(r1[k] - r2[k]));
  ENSURE(scale > 0.0);
  ENSURE_MSG(diff <= 1e-13 * scale, "step_rhs differs from force + linearize + multiply by %g of %g", diff, scale);
  free(x), free(v), free(r1), free(r2);
  jl_force_free(e);
  jl_model_free(&m);
}

static void test_spring_clamped_definite(void) {
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_springs_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double)), *ju = jl_calloc((size_t)n3, sizeof(double));
  /* every spring compressed to about 70 % */
  for (int k = 0; k < n3; k++) x[k] = 0.7 * m.x0[k] + 0.003 * rnd();
  int st, co;
  count_stretch(&m, x, &st, &co);
  ENSURE(st == 0);
  double scale = 300.0 * 0.01; /* k |u|^2 for unit u per node */
  /* clamped: u^T J u <= 0 for random u and for an infinitesimal rotation */
  for (int trial = 0; trial <= 20; trial++) {
    for (int i = 0; i < m.nnode; i++) {
      const double *p = x + 3 * i;
      if (trial == 20) { /* u = w x p, w = (0.3, 1, -0.5) */
        u[3 * i] = 1 * p[2] - (-0.5) * p[1];
        u[3 * i + 1] = -0.5 * p[0] - 0.3 * p[2];
        u[3 * i + 2] = 0.3 * p[1] - 1 * p[0];
      } else {
        for (int k = 0; k < 3; k++) u[3 * i + k] = rnd();
      }
    }
    memset(ju, 0, (size_t)n3 * sizeof(double));
    e->ops->linearize(e, &m, x, v, 1.0, 0.0, 0, NULL);
    e->ops->multiply(e, &m, u, ju);
    double q = dot(n3, u, ju);
    ENSURE_MSG(q <= 1e-12 * scale, "clamped spring Jacobian: u^T J u = %.3g > 0 (trial %d)", q, trial);
  }
  /* exact: the rotation u makes u^T J u > 0 (indefinite) */
  memset(ju, 0, (size_t)n3 * sizeof(double));
  e->ops->linearize(e, &m, x, v, 1.0, 0.0, JL_LIN_EXACT, NULL);
  e->ops->multiply(e, &m, u, ju);
  double q = dot(n3, u, ju);
  ENSURE_MSG(q > 1e-3 * dot(n3, u, u), "exact Jacobian of compressed springs should be indefinite: u^T J u = %.3g", q);
  free(x), free(v), free(u), free(ju);
  jl_force_free(e);
  jl_model_free(&m);
}

static void test_spring_diag_blocks(void) {
  /* the diagonal blocks reported by linearize equal e_i^T J e_i from multiply */
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_springs_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double)), *ju = jl_calloc((size_t)n3, sizeof(double));
  double *diag = jl_calloc(9 * (size_t)m.nnode, sizeof(double));
  perturb(&m, 0.3, x);
  e->ops->linearize(e, &m, x, v, 0.7, 0.2, 0, diag);
  for (int i = 0; i < m.nnode; i += 5)
    for (int c = 0; c < 3; c++) {
      memset(u, 0, (size_t)n3 * sizeof(double));
      memset(ju, 0, (size_t)n3 * sizeof(double));
      u[3 * i + c] = 1.0;
      e->ops->multiply(e, &m, u, ju);
      for (int r = 0; r < 3; r++)
        ENSURE_NEAR(diag[9 * i + 3 * r + c], ju[3 * i + r], 1e-9 * fabs(ju[3 * i + r]) + 1e-12);
    }
  free(x), free(v), free(u), free(ju), free(diag);
  jl_force_free(e);
  jl_model_free(&m);
}

static void test_spring_momentum(void) {
  JlModel m;
  ENSURE(small_model(&m, 2e5, 0));
  JlForce *e = jl_springs_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *f = jl_calloc((size_t)n3, sizeof(double));
  perturb(&m, 0.4, x);
  for (int k = 0; k < n3; k++) v[k] = rnd();
  eval(e, &m, x, v, f);
  balanced(&m, x, f, 1e-13); /* central forces: no net torque either */
  free(x), free(v), free(f);
  jl_force_free(e);
  jl_model_free(&m);
}

/* -dE/dx . u by central differences equals F . u */
static double energy_error(JlForce *e, const JlModel *m, const double *x, const double *v, const double *u) {
  int n3 = 3 * m->nnode;
  double *xp = jl_calloc((size_t)n3, sizeof(double)), *f = jl_calloc((size_t)n3, sizeof(double));
  const double eps = 1e-6;
  double ep = 0, em = 0;
  for (int k = 0; k < n3; k++) xp[k] = x[k] + eps * u[k];
  e->ops->force(e, m, xp, v, f, &ep);
  for (int k = 0; k < n3; k++) xp[k] = x[k] - eps * u[k];
  e->ops->force(e, m, xp, v, f, &em);
  eval(e, m, x, v, f);
  double fu = dot(n3, f, u), de = -(ep - em) / (2 * eps);
  free(xp), free(f);
  return fabs(fu - de) / fmax(fabs(fu), 1e-300);
}

static void test_energy_consistency(void) {
  JlModel m;
  ENSURE(small_model(&m, 1e5, 1));
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double));
  perturb(&m, 0.3, x);
  /* v = 0: damping and friction vanish, the forces are conservative */
  JlForce *el[3] = {jl_springs_create(&m), jl_gravity_create(&m), jl_ground_create(&m)};
  for (int trial = 0; trial < 3; trial++) {
    for (int k = 0; k < n3; k++) u[k] = rnd();
    for (int q = 0; q < 3; q++) {
      double err = energy_error(el[q], &m, x, v, u);
      ENSURE_MSG(err < 1e-6, "%s: -dE/dx . u vs F . u relative error %.3g", el[q]->name, err);
    }
  }
  for (int q = 0; q < 3; q++) jl_force_free(el[q]);
  free(x), free(v), free(u);
  jl_model_free(&m);
}

static void test_gravity(void) {
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_gravity_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *f = jl_calloc((size_t)n3, sizeof(double)), *u = jl_calloc((size_t)n3, sizeof(double));
  double *diag = jl_calloc(9 * (size_t)m.nnode, sizeof(double));
  perturb(&m, 0.3, x);
  double energy = 0, expect = 0;
  e->ops->force(e, &m, x, v, f, &energy);
  for (int i = 0; i < m.nnode; i++) {
    ENSURE(f[3 * i] == 0.0 && f[3 * i + 2] == 0.0);
    ENSURE_REL(f[3 * i + 1], -9.81 * m.mass[i], 1e-15);
    expect += 9.81 * m.mass[i] * x[3 * i + 1];
  }
  ENSURE_REL(energy, expect, 1e-12);
  /* zero Jacobian */
  for (int k = 0; k < n3; k++) u[k] = rnd();
  memset(f, 0, (size_t)n3 * sizeof(double));
  e->ops->linearize(e, &m, x, v, 1.0, 1.0, JL_LIN_EXACT, diag);
  e->ops->multiply(e, &m, u, f);
  ENSURE(norm(n3, f) == 0.0 && norm(9 * m.nnode, diag) == 0.0);
  free(x), free(v), free(f), free(u), free(diag);
  jl_force_free(e);
  jl_model_free(&m);
}

/* external forces (src/extforce.c, jelly_world_set_force): F on the chosen
 * nodes only, energy -F.x consistent with F (central differences), and a
 * Jacobian that is zero as the differences of a constant force are */
static void test_external(void) {
  JlModel m;
  ENSURE(small_model(&m, 0.0, 0));
  JlForce *e = jl_external_force_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *f = jl_calloc((size_t)n3, sizeof(double)), *u = jl_calloc((size_t)n3, sizeof(double));
  double *fp = jl_calloc((size_t)n3, sizeof(double)), *diag = jl_calloc(9 * (size_t)m.nnode, sizeof(double));
  perturb(&m, 0.3, x);
  const double F[2][3] = {{1.5, -2.0, 0.25}, {0.0, 0.0, -7.0}};
  int node[2] = {m.nnode - 1, 2};
  jl_external_force_set(e, node[0], F[0]);
  jl_external_force_set(e, node[1], F[1]);
  double energy = 0, expect = 0;
  e->ops->force(e, &m, x, v, f, &energy);
  for (int i = 0; i < m.nnode; i++)
    for (int k = 0; k < 3; k++) {
      double want = i == node[0] ? F[0][k] : i == node[1] ? F[1][k] : 0.0;
      ENSURE(f[3 * i + k] == want);
      expect -= want * x[3 * i + k];
    }
  ENSURE_REL(energy, expect, 1e-14);
  ENSURE(jl_external_force_energy(e, x) == energy);
  for (int k = 0; k < n3; k++) u[k] = rnd();
  double err = energy_error(e, &m, x, v, u);
  ENSURE_MSG(err < 1e-8, "-dE/dx . u vs F . u relative error %.3g", err);
  /* the Jacobian: linearize + multiply give zero, and so do the differences */
  memset(f, 0, (size_t)n3 * sizeof(double));
  e->ops->linearize(e, &m, x, v, 1.0, 1.0, JL_LIN_EXACT, diag);
  e->ops->multiply(e, &m, u, f);
  ENSURE(norm(n3, f) == 0.0 && norm(9 * m.nnode, diag) == 0.0);
  eval(e, &m, x, v, f);
  for (int k = 0; k < n3; k++) x[k] += 1e-3 * u[k], v[k] += 1e-3 * u[k];
  eval(e, &m, x, v, fp);
  for (int k = 0; k < n3; k++) ENSURE(fp[k] == f[k]);
  /* a zero force removes the node from the element */
  const double zero[3] = {0, 0, 0};
  jl_external_force_set(e, node[0], zero);
  jl_external_force_set(e, node[1], zero);
  energy = 0;
  memset(f, 0, (size_t)n3 * sizeof(double));
  e->ops->force(e, &m, x, v, f, &energy);
  ENSURE(norm(n3, f) == 0.0 && energy == 0.0);
  free(x), free(v), free(f), free(u), free(fp), free(diag);
  jl_force_free(e);
  jl_model_free(&m);
}

/* ground: nodes of the lowest layer (y = 0) penetrate the plane y = 0.05;
 * friction F_t = -min(c, mu k p / s0) v_t with s0 the speed at begin_step */
static void ground_case(int sliding) {
  JlModel m;
  ENSURE(small_model(&m, 0.0, 1));
  /* fixed contact parameters (not the defaults) so the speeds below stick / slide */
  m.world.ground_stiffness = 1e4;
  m.world.ground_damping = 20.0;
  /* the nodes start 5 cm below the plane: a fast push-out leaves no slack
   * (src/ground.c), so the whole penetration acts */
  m.world.contact_push_out = 1e6;
  m.world.ground_spring_scale = 0.0; /* k = 1e4 m_i exactly, as the cap check below computes it */
  JlForce *e = jl_ground_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double)), *f = jl_calloc((size_t)n3, sizeof(double));
  double *diag = jl_calloc(9 * (size_t)m.nnode, sizeof(double));
  int active = 0;
  for (int i = 0; i < m.nnode; i++) {
    for (int k = 0; k < 3; k++) x[3 * i + k] = m.x0[3 * i + k] + 0.005 * rnd();
    /* penetration 0.04..0.06 m: cap = mu k p = 0.5 * 1e4 * 0.05 m = 250 m (N per kg);
     * viscous friction c |v_t| = 20 |v_t| m: |v_t| ~ 0.5 sticks, ~ 50 slides */
    double speed = sliding ? 50.0 : 0.5;
    v[3 * i] = speed * (0.5 + 0.5 * fabs(rnd()));
    v[3 * i + 1] = rnd();
    v[3 * i + 2] = speed * rnd();
    if (x[3 * i + 1] < 0.05) active++;
  }
  ENSURE(active == 9);
  /* the friction's speed is frozen at the step's start (lagged viscosity): begin a step at (x, v) */
  ENSURE(e->ops->begin_step != NULL);
  e->ops->begin_step(e, &m, x, v, 1.0 / 60.0);
  /* each check: dF/dx alone, dF/dv alone, with random directions */
  for (int trial = 0; trial < 3; trial++) {
    for (int k = 0; k < n3; k++) u[k] = rnd();
    double ex = jl_test_fd_error(e, &m, x, v, 1.0, 0.0, JL_LIN_EXACT, u, 1e-6, JL_TEST_FD_L2);
    double ev = jl_test_fd_error(e, &m, x, v, 0.0, 1.0, JL_LIN_EXACT, u, 1e-6, JL_TEST_FD_L2);
    double evd =
        jl_test_fd_error(e, &m, x, v, 0.0, 1.0, 0, u, 1e-6, JL_TEST_FD_L2); /* dF/dv is kept in the default too */
    ENSURE_MSG(ex < 1e-6, "ground dF/dx (%s): relative error %.3g", sliding ? "sliding" : "sticking", ex);
    ENSURE_MSG(ev < 1e-6, "ground dF/dv (%s): relative error %.3g", sliding ? "sliding" : "sticking", ev);
    ENSURE_MSG(evd < 1e-6, "ground dF/dv default (%s): relative error %.3g", sliding ? "sliding" : "sticking", evd);
    if (sliding) {
      /* the default drops the unsymmetric friction dF_t/dy: it must differ from FD */
      double exd = jl_test_fd_error(e, &m, x, v, 1.0, 0.0, 0, u, 1e-6, JL_TEST_FD_L2);
      ENSURE_MSG(exd > 1e-3, "default ground dF/dx should omit dF_t/dy (error %.3g)", exd);
    }
  }
  /* friction force never exceeds mu N; sliding nodes are at the cap */
  eval(e, &m, x, v, f);
  for (int i = 0; i < m.nnode; i++) {
    double pen = 0.05 - x[3 * i + 1];
    if (pen <= 0) {
      ENSURE(norm(3, f + 3 * i) == 0.0);
      continue;
    }
    double ft = hypot(f[3 * i], f[3 * i + 2]), cap = 0.5 * 1e4 * m.mass[i] * pen;
    ENSURE(ft <= cap * (1 + 1e-12));
    if (sliding) ENSURE_REL(ft, cap, 1e-12);
  }
  /* default blocks are symmetric and their sum with M stays definite */
  e->ops->linearize(e, &m, x, v, -1e-4, -1e-2, 0, diag);
  for (int i = 0; i < m.nnode; i++) {
    const double *B = diag + 9 * i;
    ENSURE(B[1] == B[3] && B[2] == B[6] && B[5] == B[7]);
    ENSURE(B[0] >= 0 && B[4] >= 0 && B[8] >= 0);
  }
  free(x), free(v), free(u), free(f), free(diag);
  jl_force_free(e);
  jl_model_free(&m);
}

static void test_ground_sticking(void) { ground_case(0); }
static void test_ground_sliding(void) { ground_case(1); }

/* ---- volume force (src/volume.c) ------------------------------------------ */

/* volume ratios J = V / V0 of all tets at x: *lo, *hi and how many are <= 0 */
static int volume_ratios(const JlModel *m, const double *x, double *lo, double *hi) {
  int inverted = 0;
  *lo = INFINITY, *hi = -INFINITY;
  for (int t = 0; t < m->ntet; t++) {
    const int *v = m->tet + 4 * t;
    double J = jl_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]) / m->tet_volume[t];
    *lo = fmin(*lo, J), *hi = fmax(*hi, J);
    inverted += J <= 0;
  }
  return inverted;
}

/* the states the volume force must handle: x = scale * x0 about the centre
 * plus noise, or mirrored (every tet inverted) */
static void volume_state(const JlModel *m, double scale, double noise, int mirror, double *x) {
  for (int i = 0; i < m->nnode; i++)
    for (int k = 0; k < 3; k++) {
      double c = m->x0[3 * i + k] - 0.1;
      if (mirror && k == 1) c = -c;
      x[3 * i + k] = 0.1 + scale * c + noise * rnd();
    }
}

static void test_volume_psi(void) {
  /* psi' and psi'' against differences of psi on both sides of 1, J_EPS and 0 */
  const double Js[] = {1.7, 1.0 + 1e-3, 0.999, 0.6, 0.5001, 0.4999, 0.2, 0.0501, 0.0499, 0.01, -0.3, -2.0};
  const double kv[] = {0.0, 3e4, -2e4};
  for (int a = 0; a < 3; a++)
    for (size_t j = 0; j < sizeof Js / sizeof Js[0]; j++) {
      double J = Js[j], h = 1e-6, p[3], pp[3], pm[3];
      jl_volume_psi(J, kv[a], 5e4, p);
      jl_volume_psi(J + h, kv[a], 5e4, pp);
      jl_volume_psi(J - h, kv[a], 5e4, pm);
      ENSURE_NEAR(p[1], (pp[0] - pm[0]) / (2 * h), 1e-6 * fmax(1.0, fabs(p[1])) * 5e4 / 1e4);
      ENSURE_NEAR(p[2], (pp[1] - pm[1]) / (2 * h), 1e-5 * fmax(1.0, fabs(p[2])) * 5e4 / 1e4);
      /* below rest volume the pressure pushes out, and harder the flatter */
      if ((J < 1.0 && kv[a] > 0.0) || (J < JL_VOLUME_ONSET && kv[a] >= 0.0)) ENSURE(p[1] < 0.0);
    }
  double p1[3], p2[3], p3[3];
  jl_volume_psi(0.1, 0.0, 1.0, p1);
  jl_volume_psi(0.01, 0.0, 1.0, p2);
  jl_volume_psi(-1.0, 0.0, 1.0, p3);
  ENSURE(p2[0] > p1[0] && p3[0] > p2[0] && p3[1] < p2[1] && p2[1] < p1[1]);
  /* at rest: no energy, no pressure, stiffness kv (the barrier adds nothing) */
  jl_volume_psi(1.0, 3e4, 5e4, p1);
  ENSURE(p1[0] == 0.0 && p1[1] == 0.0 && p1[2] == 3e4);
}

static void test_volume_dfdx_exact(void) {
  const double nus[] = {0.1, 0.25, 0.45};
  struct {
    double scale, noise;
    int mirror;
    const char *what;
  } st[] = {{1.0, 0.01, 0, "near rest"},
            {0.7, 0.004, 0, "compressed"},
            {0.4, 0.004, 0, "near flat"},
            {1.0, 0.02, 1, "inverted"},
            {1.0, 0.06, 0, "tangled"}};
  for (int a = 0; a < 3; a++) {
    JlModel m;
    ENSURE(small_model_nu(&m, 1e5, nus[a], 0));
    JlForce *e = jl_volume_create(&m);
    ENSURE(e != NULL);
    int n3 = 3 * m.nnode;
    double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
    double *u = jl_calloc((size_t)n3, sizeof(double));
    for (size_t c = 0; c < sizeof st / sizeof st[0]; c++) {
      volume_state(&m, st[c].scale, st[c].noise, st[c].mirror, x);
      double lo, hi;
      int inv = volume_ratios(&m, x, &lo, &hi);
      for (int trial = 0; trial < 3; trial++) {
        for (int k = 0; k < n3; k++) u[k] = rnd();
        double err = jl_test_fd_error(e, &m, x, v, 1.0, 0.0, JL_LIN_EXACT, u, 1e-6, JL_TEST_FD_L2);
        ENSURE_MSG(err < 1e-6, "volume, nu %.2f, %s (J in [%.3f, %.3f], %d inverted): FD error %.3g", nus[a],
                   st[c].what, lo, hi, inv, err);
        double eerr = energy_error(e, &m, x, v, u);
        /* central differences of an energy of ~1e3 J with a log barrier: 1e-6 is their noise */
        ENSURE_MSG(eerr < 1e-5, "volume, nu %.2f, %s: -dE/dx . u vs F . u error %.3g", nus[a], st[c].what, eerr);
      }
      if (a == 0) printf("  %-10s J in [%6.3f, %5.3f], %2d of %d tets inverted\n", st[c].what, lo, hi, inv, m.ntet);
      if (st[c].mirror) ENSURE(inv == m.ntet);
    }
    free(x), free(v), free(u);
    jl_force_free(e);
    jl_model_free(&m);
  }
}

static void test_volume_definite_and_diag(void) {
  JlModel m;
  ENSURE(small_model_nu(&m, 1e5, 0.1, 0)); /* kv < 0: the clamp matters */
  JlForce *e = jl_volume_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double)), *ju = jl_calloc((size_t)n3, sizeof(double));
  double *diag = jl_calloc(9 * (size_t)m.nnode, sizeof(double));
  int indefinite = 0;
  for (int c = 0; c < 3; c++) {
    volume_state(&m, c == 0 ? 1.1 : 0.6, 0.01, c == 2, x);
    for (int trial = 0; trial < 20; trial++) {
      for (int k = 0; k < n3; k++) u[k] = rnd();
      memset(ju, 0, (size_t)n3 * sizeof(double));
      e->ops->linearize(e, &m, x, v, 1.0, 0.0, 0, NULL);
      e->ops->multiply(e, &m, u, ju);
      double q = dot(n3, u, ju);
      ENSURE_MSG(q <= 1e-12 * fabs(dot(n3, u, u)) * 1e5, "volume Jacobian u^T J u = %.3g > 0", q);
      memset(ju, 0, (size_t)n3 * sizeof(double));
      e->ops->linearize(e, &m, x, v, 1.0, 0.0, JL_LIN_EXACT, NULL);
      e->ops->multiply(e, &m, u, ju);
      indefinite += dot(n3, u, ju) > 0.0;
    }
    /* diagonal blocks = e_i^T J e_i */
    memset(diag, 0, 9 * (size_t)m.nnode * sizeof(double));
    e->ops->linearize(e, &m, x, v, 0.7, 0.2, 0, diag);
    for (int i = 0; i < m.nnode; i += 3)
      for (int cc = 0; cc < 3; cc++) {
        memset(u, 0, (size_t)n3 * sizeof(double));
        memset(ju, 0, (size_t)n3 * sizeof(double));
        u[3 * i + cc] = 1.0;
        e->ops->multiply(e, &m, u, ju);
        for (int r = 0; r < 3; r++)
          ENSURE_NEAR(diag[9 * i + 3 * r + cc], ju[3 * i + r], 1e-9 * fabs(ju[3 * i + r]) + 1e-9);
      }
  }
  ENSURE_MSG(indefinite > 0, "the exact volume Hessian should be indefinite somewhere");
  free(x), free(v), free(u), free(ju), free(diag);
  jl_force_free(e);
  jl_model_free(&m);
}

static void test_volume_pushes_back(void) {
  /* inverted or flattened tets: the force raises every tet's volume to first
   * order (F . dV/dx > 0 summed over each tet), and sums to no net force or torque */
  JlModel m;
  ENSURE(small_model(&m, 1e5, 0));
  JlForce *e = jl_volume_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *f = jl_calloc((size_t)n3, sizeof(double)), *xp = jl_calloc((size_t)n3, sizeof(double));
  for (int c = 0; c < 2; c++) {
    volume_state(&m, c ? 1.0 : 0.3, 0.002, c, x);
    eval(e, &m, x, v, f);
    balanced(&m, x, f, 1e-12);
    /* a small step along the force raises the total |volume| deficit's energy: lower energy, larger volumes */
    double lo0, hi0, lo1, hi1, e0 = 0, e1 = 0;
    volume_ratios(&m, x, &lo0, &hi0);
    double fm = 0;
    for (int k = 0; k < n3; k++) fm = fmax(fm, fabs(f[k]));
    for (int k = 0; k < n3; k++) xp[k] = x[k] + 1e-4 * f[k] / fm;
    volume_ratios(&m, xp, &lo1, &hi1);
    e->ops->force(e, &m, x, v, f, &e0);
    e->ops->force(e, &m, xp, v, f, &e1);
    printf("  %s: smallest J %.4f -> %.4f along the force, energy %.4g -> %.4g J\n", c ? "mirrored" : "flattened", lo0,
           lo1, e0, e1);
    ENSURE(lo1 > lo0 && e1 < e0);
  }
  free(x), free(v), free(f), free(xp);
  jl_force_free(e);
  jl_model_free(&m);
}

/* few tets past the barrier's onset: the element loops over them alone; its
 * product equals sum_t w_t g_t (g_t . u) computed here from the definition */
static void test_volume_sparse(void) {
  JlModel m;
  ENSURE(small_model(&m, 1e5, 0));
  JlForce *e = jl_volume_create(&m);
  int n3 = 3 * m.nnode;
  double *x = jl_calloc((size_t)n3, sizeof(double)), *v = jl_calloc((size_t)n3, sizeof(double));
  double *u = jl_calloc((size_t)n3, sizeof(double)), *ju = jl_calloc((size_t)n3, sizeof(double));
  double *want = jl_calloc((size_t)n3, sizeof(double)), *diag = jl_calloc(9 * (size_t)m.nnode, sizeof(double));
  memcpy(x, m.x0, (size_t)n3 * sizeof(double));
  /* flatten one corner: the tets at node 0 only */
  x[1] += 0.09;
  int active = 0;
  for (int t = 0; t < m.ntet; t++) {
    const int *n = m.tet + 4 * t;
    double J = jl_tet_volume(x + 3 * n[0], x + 3 * n[1], x + 3 * n[2], x + 3 * n[3]) / m.tet_volume[t];
    active += J < JL_VOLUME_ONSET;
  }
  ENSURE_MSG(active > 0 && active * 8 <= m.ntet, "%d of %d tets past the onset", active, m.ntet);
  for (int k = 0; k < n3; k++) u[k] = rnd();
  const double a = 0.3;
  e->ops->linearize(e, &m, x, v, a, 0.0, 0, diag);
  e->ops->multiply(e, &m, u, ju);
  for (int t = 0; t < m.ntet; t++) {
    const int *n = m.tet + 4 * t;
    const double *p0 = x + 3 * n[0];
    double e1[3], e2[3], e3[3], g[4][3], psi[3];
    for (int k = 0; k < 3; k++) {
      e1[k] = x[3 * n[1] + k] - p0[k];
      e2[k] = x[3 * n[2] + k] - p0[k];
      e3[k] = x[3 * n[3] + k] - p0[k];
    }
    for (int k = 0; k < 3; k++) {
      int b = (k + 1) % 3, c = (k + 2) % 3;
      g[1][k] = (e2[b] * e3[c] - e2[c] * e3[b]) / 6, g[2][k] = (e3[b] * e1[c] - e3[c] * e1[b]) / 6;
      g[3][k] = (e1[b] * e2[c] - e1[c] * e2[b]) / 6;
      g[0][k] = -(g[1][k] + g[2][k] + g[3][k]);
    }
    double V = e1[0] * g[1][0] + e1[1] * g[1][1] + e1[2] * g[1][2], V0 = m.tet_volume[t];
    jl_volume_psi(V / V0, m.tet_kvol[t], m.tet_kbar[t], psi);
    double w = -a * fmax(psi[2], 0.0) / V0, d = 0.0;
    for (int k = 0; k < 4; k++)
      for (int c = 0; c < 3; c++) d += g[k][c] * u[3 * n[k] + c];
    for (int k = 0; k < 4; k++)
      for (int c = 0; c < 3; c++) want[3 * n[k] + c] += w * d * g[k][c];
  }
  double diff = 0.0, scale = 0.0;
  for (int k = 0; k < n3; k++) diff = fmax(diff, fabs(ju[k] - want[k])), scale = fmax(scale, fabs(want[k]));
  printf("  %d of %d tets active: |Ju - want| %.3g of %.3g\n", active, m.ntet, diff, scale);
  ENSURE(scale > 0.0 && diff <= 1e-12 * scale);
  /* its diagonal blocks */
  for (int i = 0; i < m.nnode; i++)
    for (int c = 0; c < 3; c++) {
      memset(u, 0, (size_t)n3 * sizeof(double));
      memset(ju, 0, (size_t)n3 * sizeof(double));
      u[3 * i + c] = 1.0;
      e->ops->multiply(e, &m, u, ju);
      for (int r = 0; r < 3; r++) ENSURE_NEAR(diag[9 * i + 3 * r + c], ju[3 * i + r], 1e-12 * scale + 1e-300);
    }
  free(x), free(v), free(u), free(ju), free(want), free(diag);
  jl_force_free(e);
  jl_model_free(&m);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"spring_dfdx_exact", test_spring_dfdx_exact},
             {"spring_stretched_default_equals_exact", test_spring_stretched_default_equals_exact},
             {"spring_dfdv", test_spring_dfdv}, {"spring_step_rhs", test_spring_step_rhs},
             {"spring_clamped_definite", test_spring_clamped_definite}, {"spring_diag_blocks", test_spring_diag_blocks},
             {"spring_momentum", test_spring_momentum}, {"energy_consistency", test_energy_consistency},
             {"gravity", test_gravity}, {"external", test_external}, {"ground_sticking", test_ground_sticking},
             {"ground_sliding", test_ground_sliding}, {"volume_psi", test_volume_psi},
             {"volume_dfdx_exact", test_volume_dfdx_exact}, {"volume_definite_and_diag", test_volume_definite_and_diag},
             {"volume_pushes_back", test_volume_pushes_back}, {"volume_sparse", test_volume_sparse})
