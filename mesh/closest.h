/* Closest points (one implementation for the mesh, collision and engine layers). */
#ifndef JL_MESH_CLOSEST_H
#define JL_MESH_CLOSEST_H

#ifdef __cplusplus
extern "C" {
#endif

/* Closest point q on triangle abc to p (Ericson, Real-Time Collision
 * Detection, sec. 5.1.5); bary[3] its weights on (a, b, c). Returns |p - q|^2. */
double jl_closest_point_triangle(const double *p, const double *a, const double *b, const double *c, double q[3],
                                 double bary[3]);

#ifdef __cplusplus
}
#endif
#endif
