/* Volume force element: every tet resists changing its volume, and resists
 * without bound as it flattens or turns inside out.
 *
 * A tet with rest volume V0 and current signed volume V has the volume ratio
 * J = V / V0 and the energy E = V0 psi(J), with (docs/physics.md, "Volume")
 *
 *   psi(J) = kv (J - 1)^2 / 2 + kb b(J / J_b),   J_b = JL_VOLUME_ONSET = 1/2,
 *   b(r)   = -ln r + (r - 1) - (r - 1)^2 / 2   for R_EPS <= r < 1,
 *            0                                  for r >= 1,
 *            its second-order Taylor polynomial at R_EPS below R_EPS.
 *
 * kv (Pa) is the volume stiffness: it adds kv to the Lame parameter lambda of
 * the spring network (which alone has lambda = mu, Poisson's ratio 1/4), so
 * src/model.c picks it from (E, nu). It may be negative for nu < 1/4. The
 * barrier b is the compressive part of the classic volumetric function
 * r - 1 - ln r with its quadratic part removed: b(1) = b'(1) = b''(1) = 0. It
 * is zero while a tet keeps more than half its volume, so the small-strain
 * response (E, nu) and every scene whose tets stay above half volume are
 * untouched; below, it grows like -ln J as the tet flattens, and below
 * R_EPS J_b (flat and inverted tets) it continues as a convex parabola whose
 * slope keeps pushing the tet back to positive volume. kb (Pa) is the
 * pressure the barrier exerts at a quarter of the rest volume; model.c sets
 * it to JL_BARRIER_FACTOR times the material's bulk modulus. This is the
 * volume-preservation energy of Teschner et al. 2004 ("A Versatile and Robust
 * Model for Geometrically Complex Deformable Solids", E_V = k (V - V0)^2 / V0
 * up to the factor) plus a barrier in the spirit of the log J term of
 * compressible neo-Hookean solids. An onset at J = 1 was tried first: it
 * changed scenes that squeeze tets only mildly (the box on the elastic ropes
 * of rope_bridge.json, a chaotic bounce, then slid off) and made the
 * E = 1e3 Pa cube only 43 % tall instead of 37 %, the ball 33 % in both.
 *
 * With e_i = x_i - x_0 (i = 1..3), V = e_1 . (e_2 x e_3) / 6 and
 *   g_1 = e_2 x e_3 / 6,  g_2 = e_3 x e_1 / 6,  g_3 = e_1 x e_2 / 6,
 *   g_0 = -(g_1 + g_2 + g_3)                    (g_k = dV/dx_k),
 * the force is F_k = -psi'(J) g_k and the Hessian of E is
 *   d2E/dx_k dx_l = psi''(J) g_k g_l^T / V0 + psi'(J) d2V/dx_k dx_l.
 * d2V/dx dx is indefinite (skew 3x3 blocks, zero trace); the solver's
 * definite approximation keeps only max(psi'', 0) g g^T / V0 (Gauss-Newton,
 * rank one per tet), JL_LIN_EXACT adds the rest for the finite-difference
 * tests (tests/test_forces.c).
 *
 * multiply() is two passes: per tet s_t = w_t sum_k g_k . u_k, then per node
 * a gather over the node's tets in ascending order (no write races, bitwise
 * the same for any thread count). When no tet has a nonzero coefficient
 * (nu = 1/4 and every tet above half volume, the common case) it returns at
 * once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/force.h"
#include "mesh/vec3.h"
#include "src/parallel.h"
#include "src/volume.h"

/* at most ntet / SPARSE_FRACTION active tets: the sparse multiply */
#define SPARSE_FRACTION 8

/* below R_EPS x JL_VOLUME_ONSET the barrier continues as a parabola */
#define R_EPS 0.1

typedef struct Volume {
  int ntet, nblock;
  double *g;       /* ntet x 12: g_0 .. g_3 at the linearization */
  double *w;       /* ntet: -a max(psi'', 0) / V0 (0 = inactive) */
  double *wd;      /* ntet: -a psi'(J) (exact mode only) */
  double *e;       /* ntet x 9: e_1, e_2, e_3 (exact mode only) */
  double *s;       /* ntet: s_t = sum_k g_k . u_k (multiply scratch) */
  double *y;       /* ntet x 12: force on the four nodes (force scratch) */
  double *partial; /* nblock energy partials */
  int exact;       /* the cached matrix includes psi' d2V */
  int active;      /* number of tets with w != 0 or wd != 0 */
  int *act;        /* ntet: the active tets, ascending, when the sparse path is used (nact > 0) */
  int nact;        /* > 0: few tets active, multiply and diag loop over act serially */
  /* node -> (tet, corner) in ascending tet order: entry 4 t + k */
  int *start;    /* nnode + 1 */
  int *item;     /* 4 ntet */
  double *row_g; /* 4 ntet x 3: g_{t,k} in the order of item, so the gather streams it */
} Volume;

void jl_volume_psi(double J, double kv, double kb, double out[3]) {
  double d = J - 1.0, r = J / JL_VOLUME_ONSET, b = 0.0, b1 = 0.0, b2 = 0.0;
  if (r < R_EPS) {
    double de = R_EPS - 1.0, t = r - R_EPS;
    double b1e = -de * de / R_EPS, b2e = 1.0 / (R_EPS * R_EPS) - 1.0;
    b = -log(R_EPS) + de - 0.5 * de * de + b1e * t + 0.5 * b2e * t * t;
    b1 = b1e + b2e * t;
    b2 = b2e;
  } else if (r < 1.0) {
    double dr = r - 1.0;
    b = -log(r) + dr - 0.5 * dr * dr;
    b1 = -dr * dr / r;
    b2 = 1.0 / (r * r) - 1.0;
  }
  /* b is a function of r = J / onset: chain rule */
  out[0] = 0.5 * kv * d * d + kb * b;
  out[1] = kv * d + kb * b1 / JL_VOLUME_ONSET;
  out[2] = kv + kb * b2 / (JL_VOLUME_ONSET * JL_VOLUME_ONSET);
}

/* e_1..e_3 (9) and g_1..g_3 (9) of tet t; returns the signed volume */
static double tet_grad(const double *x, const int *v, double *e, double *g) {
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) e[3 * i + k] = x[3 * v[i + 1] + k] - x[3 * v[0] + k];
  const double *e1 = e, *e2 = e + 3, *e3 = e + 6;
  const double s = 1.0 / 6.0;
  g[0] = s * (e2[1] * e3[2] - e2[2] * e3[1]);
  g[1] = s * (e2[2] * e3[0] - e2[0] * e3[2]);
  g[2] = s * (e2[0] * e3[1] - e2[1] * e3[0]);
  g[3] = s * (e3[1] * e1[2] - e3[2] * e1[1]);
  g[4] = s * (e3[2] * e1[0] - e3[0] * e1[2]);
  g[5] = s * (e3[0] * e1[1] - e3[1] * e1[0]);
  g[6] = s * (e1[1] * e2[2] - e1[2] * e2[1]);
  g[7] = s * (e1[2] * e2[0] - e1[0] * e2[2]);
  g[8] = s * (e1[0] * e2[1] - e1[1] * e2[0]);
  return e1[0] * g[0] + e1[1] * g[1] + e1[2] * g[2];
}

/* a tet with no volume stiffness (kv = 0: the default Poisson ratio) above
 * the barrier's onset stores no energy and feels no force: most tets, most
 * of the time. Its signed volume (one triple product) says so at a third of
 * tet_grad's cost, and the passes skip it. */
static int idle_tet(const JlModel *m, const double *x, int t) {
  if (m->tet_kvol[t] != 0.0) return 0;
  const int *v = m->tet + 4 * t;
  const double *a = x + 3 * v[0], *b = x + 3 * v[1], *c = x + 3 * v[2], *d = x + 3 * v[3];
  double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double e3[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
  double vol = (e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) + e1[1] * (e2[2] * e3[0] - e2[0] * e3[2]) +
                e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) /
               6.0;
  return vol >= JL_VOLUME_ONSET * m->tet_volume[t];
}

static void volume_force(const JlForce *el, const JlModel *m, const double *x, const double *v, double *f,
                         double *energy) {
  (void)v;
  Volume *vo = el->self;
  int nt = vo->ntet, nb = vo->nblock;
  double *y = vo->y;
  int busy = 0;
  JL_OMP(omp parallel for schedule(static) reduction(+ : busy) if (nt > JL_PAR_MIN)
             num_threads(jl_omp_threads(el->threads)))
  for (int blk = 0; blk < nb; blk++) {
    double en = 0.0;
    for (int t = blk * JL_BLOCK, end = jl_block_end(blk, nt); t < end; t++) {
      if (idle_tet(m, x, t)) {
        memset(y + 12 * (size_t)t, 0, 12 * sizeof(double));
        continue;
      }
      busy++;
      double e[9], g[9], p[3];
      double V0 = m->tet_volume[t];
      double J = tet_grad(x, m->tet + 4 * t, e, g) / V0;
      jl_volume_psi(J, m->tet_kvol[t], m->tet_kbar[t], p);
      en += V0 * p[0];
      double *yt = y + 12 * (size_t)t;
      for (int k = 0; k < 3; k++) {
        yt[3 + k] = -p[1] * g[k];
        yt[6 + k] = -p[1] * g[3 + k];
        yt[9 + k] = -p[1] * g[6 + k];
        yt[k] = -(yt[3 + k] + yt[6 + k] + yt[9 + k]);
      }
    }
    vo->partial[blk] = en;
  }
  if (energy) *energy += jl_sum_partials(nb, vo->partial);
  if (!busy) return; /* every tet idle: no force to gather */
  int n = m->nnode;
  const int *restrict start = vo->start, *restrict item = vo->item;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4) num_threads(jl_omp_threads(el->threads)))
  for (int i = 0; i < n; i++) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int p = start[i]; p < start[i + 1]; p++) {
      const double *yk = y + 3 * (size_t)item[p];
      s0 += yk[0];
      s1 += yk[1];
      s2 += yk[2];
    }
    f[3 * i] += s0;
    f[3 * i + 1] += s1;
    f[3 * i + 2] += s2;
  }
}

static void volume_linearize(JlForce *el, const JlModel *m, const double *x, const double *v, double a, double b,
                             int flags, double *diag) {
  (void)v, (void)b;
  Volume *vo = el->self;
  int nt = vo->ntet;
  vo->exact = (flags & JL_LIN_EXACT) != 0;
  if (vo->exact && !vo->e) {
    vo->e = jl_calloc(9 * (size_t)nt + 1, sizeof(double));
    vo->wd = jl_calloc((size_t)nt + 1, sizeof(double));
  }
  int active = 0;
  JL_OMP(omp parallel for schedule(static) reduction(+ : active) if (nt > JL_PAR_MIN)
             num_threads(jl_omp_threads(el->threads)))
  for (int t = 0; t < nt; t++) {
    if (!vo->exact && idle_tet(m, x, t)) {
      vo->w[t] = 0.0;
      continue;
    }
    double e[9], p[3], *g = vo->g + 12 * (size_t)t;
    double V0 = m->tet_volume[t];
    double J = tet_grad(x, m->tet + 4 * t, e, g + 3) / V0;
    for (int k = 0; k < 3; k++) g[k] = -(g[3 + k] + g[6 + k] + g[9 + k]);
    jl_volume_psi(J, m->tet_kvol[t], m->tet_kbar[t], p);
    double c = vo->exact ? p[2] : fmax(p[2], 0.0);
    vo->w[t] = -a * c / V0;
    if (vo->exact) {
      vo->wd[t] = -a * p[1];
      memcpy(vo->e + 9 * (size_t)t, e, sizeof e);
    }
    active += vo->w[t] != 0.0 || (vo->exact && vo->wd[t] != 0.0);
  }
  vo->active = active;
  vo->nact = 0;
  if (!active) return;
  if (!vo->exact && active <= nt / SPARSE_FRACTION) {
    /* few active tets (a barrier touched here and there): loop over them
     * alone, scattering in ascending tet order (serial: the same sums for
     * any thread count) */
    for (int t = 0; t < nt; t++)
      if (vo->w[t] != 0.0) vo->act[vo->nact++] = t;
    if (!diag) return;
    for (int q = 0; q < vo->nact; q++) {
      int t = vo->act[q];
      double wt = vo->w[t];
      for (int k = 0; k < 4; k++) {
        const double *gk = vo->g + 12 * (size_t)t + 3 * k;
        double *D = diag + 9 * m->tet[4 * t + k];
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) D[3 * r + c] += wt * gk[r] * gk[c];
      }
    }
    return;
  }
  {
    int n = m->nnode;
    const int *restrict start = vo->start, *restrict item = vo->item;
    JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4) num_threads(jl_omp_threads(el->threads)))
    for (int i = 0; i < n; i++)
      for (int p = start[i]; p < start[i + 1]; p++)
        memcpy(vo->row_g + 3 * (size_t)p, vo->g + 3 * (size_t)item[p], 3 * sizeof(double));
  }
  if (!diag) return;
  /* diagonal blocks w g_k g_k^T (d2V has zero diagonal blocks) */
  int n = m->nnode;
  const int *restrict start = vo->start, *restrict item = vo->item;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4) num_threads(jl_omp_threads(el->threads)))
  for (int i = 0; i < n; i++) {
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int p = start[i]; p < start[i + 1]; p++) {
      double wt = vo->w[item[p] >> 2];
      if (wt == 0.0) continue;
      const double *gk = vo->g + 3 * (size_t)item[p];
      acc[0] += wt * gk[0] * gk[0];
      acc[1] += wt * gk[0] * gk[1];
      acc[2] += wt * gk[0] * gk[2];
      acc[3] += wt * gk[1] * gk[1];
      acc[4] += wt * gk[1] * gk[2];
      acc[5] += wt * gk[2] * gk[2];
    }
    jl_mat3_add_sym6(diag + 9 * i, acc);
  }
}

static void cross_add(const double *a, const double *b, double s, double *out) {
  out[0] += s * (a[1] * b[2] - a[2] * b[1]);
  out[1] += s * (a[2] * b[0] - a[0] * b[2]);
  out[2] += s * (a[0] * b[1] - a[1] * b[0]);
}

/* exact mode only: y_t = -a psi' (d2V u) per corner (tests) */
static void exact_term(const Volume *vo, const JlModel *m, const double *u) {
  for (int t = 0; t < vo->ntet; t++) {
    const int *v = m->tet + 4 * t;
    double du[9];
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 3; k++) du[3 * i + k] = u[3 * v[i + 1] + k] - u[3 * v[0] + k];
    const double *e = vo->e + 9 * (size_t)t;
    double *yt = vo->y + 12 * (size_t)t, c = vo->wd[t] / 6.0;
    memset(yt, 0, 12 * sizeof(double));
    cross_add(du + 3, e + 6, c, yt + 3);
    cross_add(e + 3, du + 6, c, yt + 3);
    cross_add(du + 6, e, c, yt + 6);
    cross_add(e + 6, du, c, yt + 6);
    cross_add(du, e + 3, c, yt + 9);
    cross_add(e, du + 3, c, yt + 9);
    for (int k = 0; k < 3; k++) yt[k] = -(yt[3 + k] + yt[6 + k] + yt[9 + k]);
  }
}

/* out_i += sum over the tets t at i of s_t g_{t,i}, s_t = w_t sum_k g_k . u_k */
static void volume_multiply(const JlForce *el, const JlModel *m, const double *u, double *out) {
  const Volume *vo = el->self;
  if (!vo->active) return;
  if (vo->nact > 0) {
    for (int q = 0; q < vo->nact; q++) {
      int t = vo->act[q];
      const double *gt = vo->g + 12 * (size_t)t;
      const int *v = m->tet + 4 * t;
      double d = 0.0;
      for (int k = 0; k < 4; k++)
        d += gt[3 * k] * u[3 * v[k]] + gt[3 * k + 1] * u[3 * v[k] + 1] + gt[3 * k + 2] * u[3 * v[k] + 2];
      d *= vo->w[t];
      for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++) out[3 * v[k] + c] += d * gt[3 * k + c];
    }
    return;
  }
  int nt = vo->ntet;
  double *restrict s = vo->s;
  const double *restrict g = vo->g, *restrict w = vo->w, *restrict row_g = vo->row_g;
  const int *restrict tet = m->tet;
  JL_OMP(omp parallel for schedule(static) if (nt > JL_PAR_MIN) num_threads(jl_omp_threads(el->threads)))
  for (int t = 0; t < nt; t++) {
    const double *gt = g + 12 * (size_t)t;
    const double *u0 = u + 3 * tet[4 * t], *u1 = u + 3 * tet[4 * t + 1], *u2 = u + 3 * tet[4 * t + 2],
                 *u3 = u + 3 * tet[4 * t + 3];
    double d = (gt[0] * u0[0] + gt[1] * u0[1] + gt[2] * u0[2]) + (gt[3] * u1[0] + gt[4] * u1[1] + gt[5] * u1[2]) +
               (gt[6] * u2[0] + gt[7] * u2[1] + gt[8] * u2[2]) + (gt[9] * u3[0] + gt[10] * u3[1] + gt[11] * u3[2]);
    s[t] = w[t] * d;
  }
  if (vo->exact) exact_term(vo, m, u);
  int n = m->nnode;
  const int *restrict start = vo->start, *restrict item = vo->item;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN / 4) num_threads(jl_omp_threads(el->threads)))
  for (int i = 0; i < n; i++) {
    double o0 = 0.0, o1 = 0.0, o2 = 0.0;
    for (int p = start[i]; p < start[i + 1]; p++) {
      double st = s[item[p] >> 2];
      const double *gk = row_g + 3 * (size_t)p;
      o0 += st * gk[0];
      o1 += st * gk[1];
      o2 += st * gk[2];
    }
    if (vo->exact)
      for (int p = start[i]; p < start[i + 1]; p++) {
        const double *yk = vo->y + 3 * (size_t)item[p];
        o0 += yk[0], o1 += yk[1], o2 += yk[2];
      }
    out[3 * i] += o0;
    out[3 * i + 1] += o1;
    out[3 * i + 2] += o2;
  }
}

/* each active tet's blocks w_t g_k g_l^T between its corners (the solver's
 * Gauss-Newton part; the exact mode's indefinite term is left out) */
static void volume_offdiag(const JlForce *el, const JlModel *m, const JlOffdiagSink *sink) {
  const Volume *vo = el->self;
  if (!vo->active) return;
  for (int t = 0; t < vo->ntet; t++) {
    double wt = vo->w[t];
    if (wt == 0.0) continue;
    const double *g = vo->g + 12 * (size_t)t;
    const int *v = m->tet + 4 * t;
    for (int k = 0; k < 4; k++)
      for (int l = k + 1; l < 4; l++) {
        double C[9];
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) C[3 * a + b] = wt * g[3 * k + a] * g[3 * l + b];
        sink->block(sink->ctx, v[k], v[l], C);
      }
  }
}

static void volume_free(void *self) {
  Volume *vo = self;
  if (vo) JL_FREE_ALL(vo->g, vo->w, vo->wd, vo->e, vo->s, vo->y, vo->partial, vo->start, vo->item, vo->row_g, vo->act);
  free(vo);
}

/* clang-format off */
static const JlForceOps volume_ops = {.name = "volume", .kind = JL_FORCE_VOLUME, .force = volume_force,
    .linearize = volume_linearize, .multiply = volume_multiply, .free_self = volume_free,
    .offdiag = volume_offdiag};
/* clang-format on */

JlForce *jl_volume_create(const JlModel *m) {
  if (m->ntet <= 0 || !m->tet_kvol || !m->tet_kbar) return NULL;
  Volume *vo = jl_calloc(1, sizeof *vo);
  int nt = m->ntet, n = m->nnode;
  vo->ntet = nt;
  vo->nblock = jl_nblock(nt);
  vo->g = jl_calloc(12 * (size_t)nt, sizeof(double));
  vo->w = jl_calloc((size_t)nt, sizeof(double));
  vo->s = jl_calloc((size_t)nt, sizeof(double));
  vo->y = jl_calloc(12 * (size_t)nt, sizeof(double));
  vo->partial = jl_calloc((size_t)vo->nblock + 1, sizeof(double));
  vo->start = jl_calloc((size_t)n + 1, sizeof(int));
  vo->item = jl_calloc(4 * (size_t)nt, sizeof(int));
  vo->row_g = jl_calloc(12 * (size_t)nt, sizeof(double));
  vo->act = jl_calloc((size_t)nt + 1, sizeof(int));
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 4; k++) vo->start[m->tet[4 * t + k] + 1]++;
  for (int i = 0; i < n; i++) vo->start[i + 1] += vo->start[i];
  int *fill = jl_calloc((size_t)n + 1, sizeof(int));
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 4; k++) {
      int i = m->tet[4 * t + k];
      vo->item[vo->start[i] + fill[i]++] = 4 * t + k;
    }
  free(fill);
  return jl_force_new(&volume_ops, vo);
}

int jl_volume_body(const JlModel *m, const double *x, int b, double *now, double *rest) {
  const JlBody *body = &m->body[b];
  int count = 0;
  double v = 0.0, v0 = 0.0;
  for (int t = body->tet_begin; t < body->tet_begin + body->tet_count; t++) {
    double e[9], g[9], vt = tet_grad(x, m->tet + 4 * t, e, g);
    count += !(vt > 0.0);
    v += vt;
    v0 += m->tet_volume[t];
  }
  *now = v;
  *rest = v0;
  return count;
}

int jl_volume_inverted(const JlModel *m, const double *x, int b) {
  const JlBody *body = &m->body[b];
  int count = 0;
  for (int t = body->tet_begin; t < body->tet_begin + body->tet_count; t++) {
    double e[9], g[9];
    if (!(tet_grad(x, m->tet + 4 * t, e, g) > 0.0)) count++;
  }
  return count;
}
