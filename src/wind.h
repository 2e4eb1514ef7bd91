/* Wind on cloth, and Provot's stretch limit: the two cloth-only parts of
 * the force/step machinery (src/wind.c, src/provot.c). */
#ifndef JL_SRC_WIND_H
#define JL_SRC_WIND_H

#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Drag of the air on every triangle of every JL_BODY_CLOTH body:
 *   F_tri = c A (n . (w(t) - v_tri)) n,  shared equally by its 3 nodes,
 * with c = model->world.wind_drag (kg/m^3), A and n the triangle's current
 * area and unit normal, v_tri the mean velocity of its nodes and
 *   w(t) = wind (1 + gust sin(2 pi t / period)) (model->world).
 * The time t is set by jl_wind_set_time (src/world.c does so at the start of
 * every step, so the gust is held over the step; it starts at 0). Returns NULL
 * when the model has no cloth triangles. The Jacobian is exact with
 * JL_LIN_EXACT (finite-difference tested); otherwise only the velocity part,
 * which is symmetric negative semidefinite, is used so that the implicit
 * system stays symmetric positive definite. */
JlForce *jl_wind_create(const JlModel *m);
/* Sets the time (s) the gust is evaluated at; f must come from jl_wind_create. */
void jl_wind_set_time(JlForce *f, double t);

/* The air velocity (m/s) at time t. */
void jl_wind_velocity(const JlWorldDef *w, double t, double out[3]);

/* Provot 1995 (the length may grow by less than 10 %):
 * for every structural or shear spring of a body with stretch_limit > 0
 * whose length exceeds (1 + limit) L, both free ends are moved towards each
 * other (only the free one when the other is pinned) to length (1 + limit) L,
 * and their velocities are changed by the same displacement / h, in
 * up to `iterations` Gauss-Seidel sweeps over the springs in id order
 * (stopping early when a sweep changes nothing; src/world.c uses 50)
 * (deterministic). Returns the number of corrections made. */
int jl_provot_apply(const JlModel *m, double *x, double *v, double h, int iterations);

/* 1 when some body has a stretch limit. */
int jl_provot_needed(const JlModel *m);

#ifdef __cplusplus
}
#endif
#endif
