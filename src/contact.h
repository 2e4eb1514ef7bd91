/* Contact penalty forces between soft bodies and with static obstacles.
 *
 * jl_contact_create returns a force element (src/force.h) whose begin_step
 * runs collision detection (collision/depth.h, collision/obstacle.h) on the
 * state at the start of every (sub)step and holds the contact set fixed for
 * that step. Each contact is a node p, a unit direction r, a depth d0 and
 * the points it pushes against: the four nodes of Q's tet holding p with
 * barycentric weights w (body-body), or nothing (obstacle). With
 * z = x_p - sum_k w_k x_k (z = x_p for obstacles) and g = d0 - r.(z - z0):
 *     F_p   = k g r - c (r.z') r + friction,   F_{q_k} = -w_k F_p,
 * k = contact stiffness x m_p, c = contact damping x m_p (per kg, like the
 * ground; docs/collision.md), applied while g > 0. Forces on the two sides
 * cancel exactly (momentum balanced) and the Jacobian is
 * (coef coef^T) (x) dF_p/dz with coef = (1, -w_0..-w_3): symmetric, negative
 * semidefinite, so stiff contacts are stable under implicit Euler. */
#ifndef JL_SRC_CONTACT_H
#define JL_SRC_CONTACT_H

#include "collision/depth.h"
#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Contact element for model m: body-body contacts when m has two or more
 * bodies or a body with self-collision, obstacle contacts for m->obstacle.
 * Parameters from m->world (contact_stiffness, contact_damping,
 * contact_friction, contact_cell). Freed by jl_force_free(e). */
JlForce *jl_contact_create(const JlModel *m);

/* Number of penetrating nodes (body-body contacts plus obstacle contacts)
 * found by the last begin_step; 0 before the first. e must come from
 * jl_contact_create. */
int jl_contact_count(const JlForce *e);
/* Body-body contacts of the last detection (NULL-safe n). */
const JlContactPoint *jl_contact_points(const JlForce *e, int *n);
/* Detection statistics of the last begin_step. */
const JlCollisionStats *jl_contact_stats(const JlForce *e);
/* Deepest penetration (m) among the current contacts (body-body and obstacle). */
double jl_contact_max_depth(const JlForce *e);

/* 1 when m needs a contact element (several bodies, self-collision or obstacles). */
int jl_contact_needed(const JlModel *m);

#ifdef __cplusplus
}
#endif
#endif
