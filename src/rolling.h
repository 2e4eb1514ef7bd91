/* Rolling resistance between volume bodies and what they rest on (src/rolling.c).
 *
 * The contact element (src/contact.c) and the ground (src/ground.c) report
 * the normal loads of their contacts at the step's start (src/loads.h); the
 * rolling element gathers them per
 * pair of a volume body and what it touches (another volume body, an
 * obstacle, the ground) and resists the pair's relative rolling rotation with
 * a torque of at most rolling_resistance x load x lever arm (docs/collision.md,
 * "Rolling resistance"). */
#ifndef JL_SRC_ROLLING_H
#define JL_SRC_ROLLING_H

#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rolling-resistance element of model m, reading the loads of the
 * contact element `contacts` and the ground element `ground` (either may be
 * NULL; they must outlive it and come before it in the world's element list,
 * so their begin_step runs first). NULL when m has no volume body or
 * nothing to roll on, or its coefficients are 0. */
JlForce *jl_rolling_create(const JlModel *m, const JlForce *contacts, const JlForce *ground);

#ifdef __cplusplus
}
#endif
#endif
