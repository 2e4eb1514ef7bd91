/* Calibration of a body's springs against its own mesh (src/calibrate.h).
 *
 * Van Gelder's rule k_e = E_s sum V_T / L_e^2 (src/model.c) gives the right
 * modulus for an isotropic network deformed affinely. A real tet mesh is not
 * deformed affinely: its interior nodes move off the affine map to lower the
 * energy (the non-affine relaxation of disordered networks), and the network
 * is softer than the rule says. Measured before this calibration, bar stretch
 * over rho g L^2 / (2E): 1.18-1.30 on embedded (jittered BCC) meshes at three
 * resolutions, independent of the resolution; 0.90 on 6-tet-per-cube lattices
 * (stiffer: anisotropic, every node a lattice point, no relaxation).
 *
 * The calibration measures it: on a region of the body's interior (the whole
 * body when it has at most REGION_MAX nodes, else a graph ball of that many
 * nodes around its deepest node), the region's boundary nodes follow an
 * affine displacement u = eps X, its interior nodes are relaxed (CG on the
 * rest stiffness of the region's tets: each tet's share of its six springs,
 * k_e V_T / sum V_T, plus the volume term), and the energy W(eps) is compared
 * with the continuum's V mu eps:eps for the five deviatoric strains
 * (three shears, two normal differences). Their ratio R is the network's
 * shear modulus over the springs' nominal one; the springs are then scaled by
 * mu / (R mu_s), twice (the volume term does not scale). Dilation is left to
 * the volume term: a pure dilation of these networks relaxes little.
 *
 * The affine boundary makes R an upper bound that tightens as the region
 * grows; free surfaces (few springs per node) are not part of it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/calibrate.h"

#define REGION_MAX 4000 /* nodes measured */

typedef struct Region {
  int n;                /* region nodes */
  int *node;            /* n: mesh node ids */
  int *local;           /* mesh nnode: region index or -1 */
  unsigned char *fixed; /* n: follows the affine map */
  int ntet;
  int *tet;      /* ntet: mesh tet ids */
  double volume; /* m^3 of material (sum of material_vol) */
} Region;

/* breadth-first depth from the surface nodes (faces), then the ball of about
 * REGION_MAX nodes around the deepest one */
static void pick_region(const JlTetMesh *t, const double *material_vol, Region *rg) {
  int n = t->nnode;
  int *depth = jl_calloc((size_t)n, sizeof(int)), *queue = jl_calloc((size_t)n, sizeof(int));
  for (int i = 0; i < n; i++) depth[i] = -1;
  int head = 0, tail = 0;
  for (int f = 0; f < 3 * t->nface; f++)
    if (depth[t->face[f]] < 0) depth[t->face[f]] = 0, queue[tail++] = t->face[f];
  if (tail == 0) depth[0] = 0, queue[tail++] = 0;
  while (head < tail) {
    int i = queue[head++];
    for (int p = t->adj_start[i]; p < t->adj_start[i + 1]; p++)
      if (depth[t->adj[p]] < 0) depth[t->adj[p]] = depth[i] + 1, queue[tail++] = t->adj[p];
  }
  int centre = 0;
  for (int i = 0; i < n; i++)
    if (depth[i] > depth[centre]) centre = i;
  rg->local = jl_calloc((size_t)n, sizeof(int));
  for (int i = 0; i < n; i++) rg->local[i] = -1;
  if (n <= REGION_MAX) {
    rg->n = n;
    rg->node = jl_calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) rg->node[i] = i, rg->local[i] = i;
  } else {
    /* whole breadth-first layers around the centre while they fit */
    rg->node = jl_calloc((size_t)REGION_MAX, sizeof(int));
    int *dist = depth; /* reused */
    for (int i = 0; i < n; i++) dist[i] = -1;
    head = tail = 0;
    dist[centre] = 0, queue[tail++] = centre;
    int count = 0, layer_end = 1;
    while (head < tail) {
      int i = queue[head++];
      for (int p = t->adj_start[i]; p < t->adj_start[i + 1]; p++)
        if (dist[t->adj[p]] < 0) dist[t->adj[p]] = dist[i] + 1, queue[tail++] = t->adj[p];
      if (head == layer_end) { /* a whole layer is queued up to tail */
        if (tail > REGION_MAX) break;
        count = tail;
        layer_end = tail;
      }
    }
    if (count == 0) count = tail < REGION_MAX ? tail : REGION_MAX;
    for (int q = 0; q < count; q++) rg->node[q] = queue[q], rg->local[queue[q]] = q;
    rg->n = count;
  }
  free(queue);
  free(depth);
  /* tets inside the region; nodes of tets that leave it, and surface nodes, follow the map */
  rg->fixed = jl_calloc((size_t)rg->n + 1, 1);
  rg->tet = jl_calloc(((size_t)t->ntet + 1), sizeof(int));
  rg->ntet = 0;
  rg->volume = 0.0;
  for (int e = 0; e < t->ntet; e++) {
    const int *v = t->tet + 4 * e;
    int in = 0;
    for (int k = 0; k < 4; k++) in += rg->local[v[k]] >= 0;
    if (in == 4) {
      rg->tet[rg->ntet++] = e;
      rg->volume += material_vol[e];
    } else {
      for (int k = 0; k < 4; k++)
        if (rg->local[v[k]] >= 0) rg->fixed[rg->local[v[k]]] = 1;
    }
  }
  for (int f = 0; f < 3 * t->nface; f++)
    if (rg->local[t->face[f]] >= 0) rg->fixed[rg->local[t->face[f]]] = 1;
}

typedef struct Op {
  const JlTetMesh *t;
  const Region *rg;
  double *ktet; /* 6 per region tet: the tet's share of each edge spring */
  double *kvol; /* per region tet: kv / V0 (Pa / m^3) */
  double *g;    /* 12 per region tet: volume gradient at rest */
  double *n;    /* 18 per region tet: unit edge directions */
} Op;

static const int EDGE[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

/* out = K u over the region (region-local indexing, 3 per node) */
static void apply(const Op *op, const double *u, double *out) {
  const Region *rg = op->rg;
  memset(out, 0, 3 * (size_t)rg->n * sizeof(double));
  for (int q = 0; q < rg->ntet; q++) {
    const int *v = op->t->tet + 4 * rg->tet[q];
    int l[4];
    for (int k = 0; k < 4; k++) l[k] = rg->local[v[k]];
    for (int e = 0; e < 6; e++) {
      int i = l[EDGE[e][0]], j = l[EDGE[e][1]];
      const double *nn = op->n + 18 * (size_t)q + 3 * e;
      double s = op->ktet[6 * (size_t)q + e] * (nn[0] * (u[3 * i] - u[3 * j]) + nn[1] * (u[3 * i + 1] - u[3 * j + 1]) +
                                                nn[2] * (u[3 * i + 2] - u[3 * j + 2]));
      for (int d = 0; d < 3; d++) out[3 * i + d] += s * nn[d], out[3 * j + d] -= s * nn[d];
    }
    if (op->kvol[q] != 0.0) {
      const double *g = op->g + 12 * (size_t)q;
      double s = 0.0;
      for (int k = 0; k < 4; k++)
        for (int d = 0; d < 3; d++) s += g[3 * k + d] * u[3 * l[k] + d];
      s *= op->kvol[q];
      for (int k = 0; k < 4; k++)
        for (int d = 0; d < 3; d++) out[3 * l[k] + d] += s * g[3 * k + d];
    }
  }
}

/* Solves K u = f for the free nodes of u by Jacobi-CG (fixed nodes keep
 * their values; f may be NULL for 0) and returns the energy 1/2 u^T K u. With
 * traction loads nothing is fixed and K is singular (rigid motions); f is
 * balanced, so CG stays in the complement. */
static double relax(const Op *op, const double *diag, const double *f, double *u, double *r, double *z, double *p,
                    double *ap) {
  const Region *rg = op->rg;
  int n3 = 3 * rg->n;
  apply(op, u, r);
  double rz = 0.0, r0 = 0.0;
  for (int c = 0; c < n3; c++) {
    r[c] = rg->fixed[c / 3] ? 0.0 : (f ? f[c] : 0.0) - r[c];
    z[c] = diag[c] > 0.0 ? r[c] / diag[c] : 0.0;
    p[c] = z[c];
    rz += r[c] * z[c];
    r0 += r[c] * r[c];
  }
  for (int it = 0; it < 5000 && rz > 0.0; it++) {
    apply(op, p, ap);
    double pap = 0.0;
    for (int c = 0; c < n3; c++) {
      if (rg->fixed[c / 3]) ap[c] = 0.0;
      pap += p[c] * ap[c];
    }
    if (!(pap > 0.0)) break;
    double alpha = rz / pap, rz1 = 0.0, rr = 0.0;
    for (int c = 0; c < n3; c++) {
      u[c] += alpha * p[c];
      r[c] -= alpha * ap[c];
      z[c] = diag[c] > 0.0 ? r[c] / diag[c] : 0.0;
      rz1 += r[c] * z[c];
      rr += r[c] * r[c];
    }
    if (rr <= 1e-14 * r0) break; /* the energy is then exact to ~1e-14 */
    for (int c = 0; c < n3; c++) p[c] = z[c] + rz1 / rz * p[c];
    rz = rz1;
  }
  apply(op, u, ap);
  double w = 0.0;
  for (int c = 0; c < n3; c++) w += 0.5 * u[c] * ap[c];
  return w;
}

double jl_calibrate_shear(const JlTetMesh *t, const double *material_vol, const double *edge_vol, const int *tet_edge,
                          const double *k_edge, const double *kv_tet, double mu, JlCalibration *out) {
  const double *fill = t->fill;
  JlCalibration rep;
  memset(&rep, 0, sizeof rep);
  rep.factor = 1.0;
  if (out) *out = rep;
  if (!(mu > 0.0) || !t->adj_start || !t->adj || t->nnode < 5) return 1.0;
  Region rg;
  memset(&rg, 0, sizeof rg);
  pick_region(t, material_vol, &rg);
  int nfree = 0;
  for (int q = 0; q < rg.n; q++) nfree += !rg.fixed[q];
  rep.nodes = rg.n, rep.relaxed = nfree, rep.tets = rg.ntet;
  if (rg.ntet == 0 || !(rg.volume > 0.0)) {
    free(rg.node), free(rg.local), free(rg.fixed), free(rg.tet);
    if (out) *out = rep;
    return 1.0;
  }
  Op op = {t, &rg, NULL, NULL, NULL, NULL};
  op.ktet = jl_calloc(6 * (size_t)rg.ntet, sizeof(double));
  op.kvol = jl_calloc((size_t)rg.ntet, sizeof(double));
  op.g = jl_calloc(12 * (size_t)rg.ntet, sizeof(double));
  op.n = jl_calloc(18 * (size_t)rg.ntet, sizeof(double));
  for (int q = 0; q < rg.ntet; q++) {
    int e = rg.tet[q];
    const int *v = t->tet + 4 * e;
    const double *x[4] = {t->node + 3 * v[0], t->node + 3 * v[1], t->node + 3 * v[2], t->node + 3 * v[3]};
    for (int s = 0; s < 6; s++) {
      int edge = tet_edge[6 * e + s];
      op.ktet[6 * q + s] = edge_vol[edge] > 0.0 ? k_edge[edge] * material_vol[e] / edge_vol[edge] : 0.0;
      double d[3], L = 0.0;
      for (int k = 0; k < 3; k++) d[k] = x[EDGE[s][0]][k] - x[EDGE[s][1]][k], L += d[k] * d[k];
      L = sqrt(L);
      for (int k = 0; k < 3; k++) op.n[18 * q + 3 * s + k] = d[k] / L;
    }
    double e1[3], e2[3], e3[3], *g = op.g + 12 * q;
    for (int k = 0; k < 3; k++) e1[k] = x[1][k] - x[0][k], e2[k] = x[2][k] - x[0][k], e3[k] = x[3][k] - x[0][k];
    for (int k = 0; k < 3; k++) {
      int a = (k + 1) % 3, b = (k + 2) % 3;
      g[3 + k] = (e2[a] * e3[b] - e2[b] * e3[a]) / 6.0;
      g[6 + k] = (e3[a] * e1[b] - e3[b] * e1[a]) / 6.0;
      g[9 + k] = (e1[a] * e2[b] - e1[b] * e2[a]) / 6.0;
      g[k] = -(g[3 + k] + g[6 + k] + g[9 + k]);
    }
    double V0 = jl_tet_volume(x[0], x[1], x[2], x[3]);
    op.kvol[q] = V0 > 0.0 && kv_tet[e] > 0.0 ? kv_tet[e] / V0 : 0.0; /* kv < 0 would make K indefinite */
  }
  int n3 = 3 * rg.n;
  double *diag = jl_calloc((size_t)n3, sizeof(double)), *u = jl_calloc((size_t)n3, sizeof(double));
  double *r = jl_calloc((size_t)n3, sizeof(double)), *z = jl_calloc((size_t)n3, sizeof(double));
  double *p = jl_calloc((size_t)n3, sizeof(double)), *ap = jl_calloc((size_t)n3, sizeof(double));
  double *f = jl_calloc((size_t)n3, sizeof(double));
  /* small conforming bodies: traction test on the whole body, surfaces included */
  int traction = !fill && rg.n == t->nnode && t->nface > 0;
  if (traction) memset(rg.fixed, 0, (size_t)rg.n);
  rep.traction = traction;
  double centre[3] = {0, 0, 0};
  for (int q = 0; q < rg.n; q++)
    for (int k = 0; k < 3; k++) centre[k] += t->node[3 * rg.node[q] + k] / rg.n;
  /* five deviatoric strains: eps:eps = 1/2 for the shears (two entries of
   * 1/2), 2 for diag(1, -1, 0) and diag(0, 1, -1) */
  static const double EPS[5][3][3] = {{{0, .5, 0}, {.5, 0, 0}, {0, 0, 0}},
                                      {{0, 0, 0}, {0, 0, .5}, {0, .5, 0}},
                                      {{0, 0, .5}, {0, 0, 0}, {.5, 0, 0}},
                                      {{1, 0, 0}, {0, -1, 0}, {0, 0, 0}},
                                      {{0, 0, 0}, {0, 1, 0}, {0, 0, -1}}};
  const int nmode = 5; /* the normal differences alone were tried: 0.84-1.11 conforming, 0.95 embedded */
  const double strain = 1e-3;
  double factor = 1.0, ratio = 1.0;
  for (int pass = 0; pass < 2; pass++) {
    /* Jacobi diagonal of the region's K (springs scaled by the factor so far) */
    memset(diag, 0, (size_t)n3 * sizeof(double));
    for (int q = 0; q < rg.ntet; q++) {
      const int *v = t->tet + 4 * rg.tet[q];
      for (int s = 0; s < 6; s++)
        for (int end = 0; end < 2; end++) {
          int i = rg.local[v[EDGE[s][end]]];
          for (int d = 0; d < 3; d++) {
            double nd = op.n[18 * q + 3 * s + d];
            diag[3 * i + d] += op.ktet[6 * q + s] * nd * nd;
          }
        }
      for (int k = 0; k < 4; k++)
        for (int d = 0; d < 3; d++) {
          double gk = op.g[12 * q + 3 * k + d];
          diag[3 * rg.local[v[k]] + d] += op.kvol[q] * gk * gk;
        }
    }
    double w = 0.0, target = 0.0;
    for (int mode = 0; mode < nmode; mode++) {
      double ee = 0.0;
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) ee += EPS[mode][a][b] * EPS[mode][a][b];
      for (int q = 0; q < rg.n; q++) {
        const double *X = t->node + 3 * rg.node[q];
        for (int a = 0; a < 3; a++) {
          double s = 0.0;
          for (int b = 0; b < 3; b++) s += strain * EPS[mode][a][b] * (X[b] - centre[b]);
          u[3 * q + a] = rg.fixed[q] ? s : 0.0;
        }
      }
      if (traction) {
        /* uniform stress sigma = 2 mu strain EPS: nodal forces from the
         * surface tractions sigma n, a third of each face to each corner;
         * the continuum's energy is V sigma:sigma / (4 mu) = V mu ee strain^2 */
        memset(f, 0, (size_t)n3 * sizeof(double));
        memset(u, 0, (size_t)n3 * sizeof(double));
        for (int fc = 0; fc < t->nface; fc++) {
          const int *v = t->face + 3 * fc;
          const double *a = t->node + 3 * v[0], *b = t->node + 3 * v[1], *c = t->node + 3 * v[2];
          double ab[3], ac[3], an[3]; /* area-weighted normal, outward */
          for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k];
          an[0] = 0.5 * (ab[1] * ac[2] - ab[2] * ac[1]);
          an[1] = 0.5 * (ab[2] * ac[0] - ab[0] * ac[2]);
          an[2] = 0.5 * (ab[0] * ac[1] - ab[1] * ac[0]);
          for (int a2 = 0; a2 < 3; a2++) {
            double tr = 0.0;
            for (int b2 = 0; b2 < 3; b2++) tr += 2.0 * mu * strain * EPS[mode][a2][b2] * an[b2];
            for (int k = 0; k < 3; k++) f[3 * rg.local[v[k]] + a2] += tr / 3.0;
          }
        }
        double wk = relax(&op, diag, f, u, r, z, p, ap);
        /* the network's shear modulus over mu is the continuum's energy over
         * the network's (same stress, compliances); sum both */
        w += rg.volume * mu * ee * strain * strain * (rg.volume * mu * ee * strain * strain / wk);
      } else {
        w += relax(&op, diag, NULL, u, r, z, p, ap);
      }
      target += rg.volume * mu * ee * strain * strain;
    }
    ratio = w / target;
    if (pass == 0) rep.before = ratio;
    if (!(ratio > 0.0) || !isfinite(ratio)) {
      factor = 1.0;
      break;
    }
    /* scale the springs (not the volume term) by 1 / ratio and measure again;
     * without a volume term the energy scales with the springs: done */
    for (size_t q = 0; q < 6 * (size_t)rg.ntet; q++) op.ktet[q] /= ratio;
    factor /= ratio;
    int any_kv = 0;
    for (int q = 0; q < rg.ntet; q++) any_kv |= op.kvol[q] > 0.0;
    if (!any_kv) {
      ratio = 1.0;
      break;
    }
  }
  rep.after = ratio;
  rep.factor = factor;
  free(diag), free(u), free(r), free(z), free(p), free(ap), free(f);
  free(op.ktet), free(op.kvol), free(op.g), free(op.n);
  free(rg.node), free(rg.local), free(rg.fixed), free(rg.tet);
  if (out) *out = rep;
  return factor;
}
