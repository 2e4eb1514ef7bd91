/* The mouse drag: a damped spring from a picked surface point to a target
 * that moves with the cursor, as an engine force element (src/drag.c). The
 * viewer (src/cli/viewer.c) drives it; a host program can drive it the same
 * way through the world's force table. */
#ifndef JL_SRC_DRAG_H
#define JL_SRC_DRAG_H

#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A spring from a picked surface point to a target point that moves with the
 * mouse: F = k (target - p) + kd (target velocity - p'), p the attached point
 * (a fixed barycentric combination of up to 12 tet nodes), spread back onto
 * those nodes with the same weights. It is a JlForce with its exact Jacobian
 * (-k w_i w_j I, -kd w_i w_j I), so implicit Euler stays stable however stiff
 * the body is. It exerts nothing until attached. Add it to the world with
 * jl_world_add_force (the world then owns it). */
JlForce *jl_drag_create(const JlModel *m);
/* Attaches to the point `bary` on triangle `tri` of body `body`.
 * stiffness N/m, damping N s/m; <= 0 chooses values from the body's mass
 * (k = 400 m_body, kd = 20 m_body). */
void jl_drag_attach(JlForce *f, const JlModel *m, int body, int tri, const double bary[3], double stiffness,
                    double damping);
/* Moves the target (m) and sets its velocity (m/s, may be NULL for 0). */
void jl_drag_set_target(JlForce *f, const double target[3], const double velocity[3]);
void jl_drag_release(JlForce *f);
/* 1 while attached. */
int jl_drag_active(const JlForce *f);
/* Current position of the attached point for node positions x; 0 if released. */
int jl_drag_point(const JlForce *f, const double *x, double out[3]);
/* The attached body, or -1. */
int jl_drag_body(const JlForce *f);

#ifdef __cplusplus
}
#endif
#endif
