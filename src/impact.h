/* The impact law: restitution set by a parameter, not by the time step
 * (src/impact.c; docs/physics.md, "Restitution").
 *
 * A penalty contact integrated by backward Euler returns as much of an
 * impact's energy as the step lets it: a contact shorter than a step is
 * perfectly inelastic, a longer one bounces by its own stiffness and the
 * integrator's damping (measured: e = 0.02 / 0.25 / 0.50 for the same ball at
 * dt 1/60 / 1/240 / 1/1000). The impact element tracks every pair of a volume
 * body and what it touches (another volume body, an obstacle, the ground)
 * through its impact and sets the rebound at the velocity level (Newton's
 * law of restitution on the pair's rigid motion at the contact point): the
 * relative normal velocity the pair leaves with is e times the one it came
 * in with. It adds back only energy the impact lost, which it holds
 * (stats.csv contact_energy) until the rebound: kinetic + elastic + gravity +
 * penalty + held energy never rises. */
#ifndef JL_SRC_IMPACT_H
#define JL_SRC_IMPACT_H

#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The impact element of model m, reading the end-of-step loads of the
 * contact element `contacts` and the ground `ground` (either may be NULL;
 * they must outlive it). NULL when m has no volume body or nothing for one
 * to hit. Its force is zero; its energy is the energy it holds for
 * rebounds. */
JlForce *jl_impact_create(const JlModel *m, const JlForce *contacts, const JlForce *ground);

/* Before a step (a whole one: the energy guard's and the crossing check's
 * half steps are inside it): the bodies' motion at its start (x, v). */
void jl_impact_start(JlForce *e, const JlModel *m, const double *x, const double *v);

/* After a step from the state jl_impact_start saw to (x, v): applies the law,
 * changing v of the bodies whose impact ended its compression or whose pair
 * separated. drop (J) = the energy the step lost, kinetic + elastic +
 * gravity + penalty at its start minus at its end (the held energy
 * excluded); the element holds at most that much more. h: the step's length (s). Returns 1 when it
 * changed v. */
int jl_impact_end_step(JlForce *e, const JlModel *m, const double *x, double *v, double drop, double h);

/* J held for the rebounds of impacts under way */
double jl_impact_held(const JlForce *e);

#ifdef __cplusplus
}
#endif
#endif
