/* Provot's stretch limit (X. Provot, "Deformation constraints in a
 * mass-spring model to describe rigid cloth behavior", Graphics Interface
 * 1995: the length may grow by less than 10 %; docs/references.md).
 *
 * After a step, every structural or shear spring of a body with
 * stretch_limit > 0 that is longer than (1 + limit) L is shortened to
 * exactly that length: both ends move towards each other by their
 * inverse-mass shares of the excess (so no momentum is moved; equal halves
 * for equal masses), or the free end all of it when the other end is pinned; the velocities get
 * the same displacement / h so the state stays consistent (a position-based
 * correction, as in Provot's "inverse dynamic" procedure). Bend springs are
 * left alone: they shorten when cloth folds. Sweeps are Gauss-Seidel in
 * spring id order, so the result is deterministic; a few sweeps are needed
 * because correcting one spring can stretch its neighbours; the limit is
 * therefore met approximately (tests/test_cloth.c: a rope stretched by 230 %
 * without the limit ends at 10.2 % with a 10 % limit after 50 sweeps). The correction
 * does not conserve energy (it removes the energy of the excess stretch). */
#include <math.h>

#include "mesh/cloth.h"
#include "src/wind.h"

int jl_provot_needed(const JlModel *m) {
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].stretch_limit > 0.0) return 1;
  return 0;
}

int jl_provot_apply(const JlModel *m, double *x, double *v, double h, int iterations) {
  int fixes = 0;
  double inv_h = h > 0.0 ? 1.0 / h : 0.0;
  for (int it = 0; it < iterations; it++) {
    int fixed_now = 0;
    for (int b = 0; b < m->nbody; b++) {
      const JlBody *body = &m->body[b];
      double limit = body->stretch_limit;
      if (!(limit > 0.0)) continue;
      for (int s = body->spring_begin; s < body->spring_begin + body->spring_count; s++) {
        if (m->spring_kind && m->spring_kind[s] == JL_SPRING_BEND) continue;
        int i = m->spring_node[2 * s], j = m->spring_node[2 * s + 1];
        if (m->pinned[i] && m->pinned[j]) continue;
        double *xi = x + 3 * i, *xj = x + 3 * j;
        double d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), lmax = (1.0 + limit) * m->spring_rest[s];
        if (!(l > lmax * (1.0 + 1e-12)) || !isfinite(l)) continue;
        /* move the ends along d to length lmax, each by its inverse-mass
         * share (w_i = m_j / (m_i + m_j)), so the correction moves no
         * momentum: m_i dv_i + m_j dv_j = 0; a pinned end does not move */
        double excess = (l - lmax) / l, mi = m->mass[i], mj = m->mass[j], wi, wj;
        if (m->pinned[i])
          wi = 0.0, wj = 1.0;
        else if (m->pinned[j])
          wi = 1.0, wj = 0.0;
        else if (mi + mj > 0.0)
          wi = mj / (mi + mj), wj = mi / (mi + mj);
        else
          wi = wj = 0.5;
        for (int k = 0; k < 3; k++) {
          double di = -wi * excess * d[k], dj = wj * excess * d[k];
          xi[k] += di;
          xj[k] += dj;
          if (v) {
            v[3 * i + k] += di * inv_h;
            v[3 * j + k] += dj * inv_h;
          }
        }
        fixed_now++;
      }
    }
    fixes += fixed_now;
    if (!fixed_now) break;
  }
  return fixes;
}
