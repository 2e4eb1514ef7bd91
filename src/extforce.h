/* External force element: a constant force per node set by the program that
 * embeds Jelly (jelly_world_set_force, src/api.c), held until changed.
 *
 * A constant force has the potential energy -F.x and vanishing Jacobians, as
 * gravity (src/gravity.c); the energy is reported so that the implicit step's
 * energy guard (src/world.c) sees the work the force does as potential energy
 * turning into kinetic, not as energy the integrator created. */
#ifndef JL_SRC_EXTFORCE_H
#define JL_SRC_EXTFORCE_H

#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An element with no force on any node (name "external"); freed by jl_force_free(e). */
JlForce *jl_external_force_create(const JlModel *m);
/* Sets node i's force (N, 3 values) on an element of jl_external_force_create;
 * the caller has checked i and that f is finite. */
void jl_external_force_set(JlForce *e, int i, const double f[3]);
/* Potential energy -sum F.x (J) at positions x (nnode x 3). */
double jl_external_force_energy(const JlForce *e, const double *x);

#ifdef __cplusplus
}
#endif
#endif
