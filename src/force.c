/* Force elements' one constructor and destructor (src/force.h).
 *
 * Every family fills a const JlForceOps table once; creating an element is
 * building its own data and one jl_force_new call, freeing it is
 * jl_force_free. name and kind are copied into the element so the world's
 * lookups and messages read them without a second indirection. */
#include "src/force.h"

#include <stdlib.h>

JlForce *jl_force_new(const JlForceOps *ops, void *self) {
  JL_ASSERT(ops && ops->force && ops->linearize && ops->multiply,
            "jl_force_new: an element's table must name its force, linearize and multiply (a constant force "
            "takes jl_force_no_linearize and jl_force_no_multiply)");
  JL_ASSERT(!ops->history_size == !ops->history_save && !ops->history_save == !ops->history_load,
            "jl_force_new: an element has all three history hooks or none");
  JlForce *e = jl_calloc(1, sizeof *e);
  e->ops = ops;
  e->name = ops->name;
  e->kind = ops->kind;
  e->self = self;
  return e;
}

void jl_force_free(JlForce *e) {
  if (!e) return;
  if (e->ops->free_self)
    e->ops->free_self(e->self);
  else
    free(e->self);
  free(e);
}

void jl_force_no_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                           int flags, double *diag) {
  /* dF/dx = dF/dv = 0 */
  (void)e, (void)m, (void)x, (void)v, (void)a, (void)b, (void)flags, (void)diag;
}

void jl_force_no_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  (void)e, (void)m, (void)u, (void)out;
}
