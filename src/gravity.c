/* Gravity force element: F_i = m_i g with potential energy -m_i g . x_i
 * (zero at the origin; with g = (0, -9.81, 0) this is m_i 9.81 y_i).
 *
 * Gravity is constant, so its Jacobians vanish: linearize and multiply do
 * nothing. The energy is summed in fixed blocks (src/parallel.h) so it does
 * not depend on the thread count. */
#include <stdlib.h>

#include "src/force.h"
#include "src/parallel.h"

typedef struct Gravity {
  int nblock;
  double *partial; /* nblock energy partials */
} Gravity;

static void gravity_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                          double *energy) {
  (void)v;
  Gravity *g = e->self;
  const double *gv = m->world.gravity;
  int n = m->nnode, nb = g->nblock;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(e->threads)))
  for (int blk = 0; blk < nb; blk++) {
    double en = 0.0;
    for (int i = blk * JL_BLOCK, end = jl_block_end(blk, n); i < end; i++) {
      double mi = m->mass[i];
      f[3 * i] += mi * gv[0];
      f[3 * i + 1] += mi * gv[1];
      f[3 * i + 2] += mi * gv[2];
      en -= mi * (gv[0] * x[3 * i] + gv[1] * x[3 * i + 1] + gv[2] * x[3 * i + 2]);
    }
    g->partial[blk] = en;
  }
  if (energy) *energy += jl_sum_partials(nb, g->partial);
}

static void gravity_free(void *self) {
  Gravity *g = self;
  if (g) free(g->partial);
  free(g);
}

/* clang-format off */
static const JlForceOps gravity_ops = {.name = "gravity", .kind = JL_FORCE_GRAVITY, .force = gravity_force,
    .linearize = jl_force_no_linearize, .multiply = jl_force_no_multiply, .free_self = gravity_free};
/* clang-format on */

JlForce *jl_gravity_create(const JlModel *m) {
  Gravity *g = jl_calloc(1, sizeof *g);
  g->nblock = jl_nblock(m->nnode);
  g->partial = jl_calloc((size_t)g->nblock + 1, sizeof(double));
  return jl_force_new(&gravity_ops, g);
}
