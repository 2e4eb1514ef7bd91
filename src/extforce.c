/* External force element (src/extforce.h): per-node constant forces.
 *
 * The forces are kept per node and summed serially in node order, so the
 * result does not depend on the thread count; a list of the nodes that have
 * a force keeps the loops short when, as usual, only a few do. */
#include <stdlib.h>
#include <string.h>

#include "src/extforce.h"

typedef struct External {
  int nnode;
  double *f; /* nnode x 3, N */
  int nused; /* nodes with a nonzero force, in used[0..nused) (ascending) */
  int *used; /* nnode */
} External;

static void external_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                           double *energy) {
  (void)m, (void)v;
  const External *ex = e->self;
  double en = 0.0;
  for (int k = 0; k < ex->nused; k++) {
    int i = ex->used[k];
    const double *fi = ex->f + 3 * (size_t)i;
    f[3 * i] += fi[0];
    f[3 * i + 1] += fi[1];
    f[3 * i + 2] += fi[2];
    en -= fi[0] * x[3 * i] + fi[1] * x[3 * i + 1] + fi[2] * x[3 * i + 2];
  }
  if (energy) *energy += en;
}

static void external_free(void *self) {
  External *ex = self;
  if (ex) JL_FREE_ALL(ex->f, ex->used);
  free(ex);
}

/* clang-format off */
static const JlForceOps external_ops = {.name = "external", .kind = JL_FORCE_OTHER, .force = external_force,
    .linearize = jl_force_no_linearize, .multiply = jl_force_no_multiply, .free_self = external_free};
/* clang-format on */

JlForce *jl_external_force_create(const JlModel *m) {
  External *ex = jl_calloc(1, sizeof *ex);
  ex->nnode = m->nnode;
  ex->f = jl_calloc(3 * (size_t)m->nnode + 1, sizeof(double));
  ex->used = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  return jl_force_new(&external_ops, ex);
}

void jl_external_force_set(JlForce *e, int i, const double f[3]) {
  External *ex = e->self;
  JL_ASSERT(i >= 0 && i < ex->nnode, "jl_external_force_set: node out of range");
  memcpy(ex->f + 3 * (size_t)i, f, 3 * sizeof(double));
  /* rebuild the list of nodes with a force, ascending (the order of summation) */
  ex->nused = 0;
  for (int j = 0; j < ex->nnode; j++) {
    const double *fj = ex->f + 3 * (size_t)j;
    if (fj[0] != 0.0 || fj[1] != 0.0 || fj[2] != 0.0) ex->used[ex->nused++] = j;
  }
}

double jl_external_force_energy(const JlForce *e, const double *x) {
  const External *ex = e->self;
  double en = 0.0;
  for (int k = 0; k < ex->nused; k++) {
    int i = ex->used[k];
    const double *fi = ex->f + 3 * (size_t)i;
    en -= fi[0] * x[3 * i] + fi[1] * x[3 * i + 1] + fi[2] * x[3 * i + 2];
  }
  return en;
}
