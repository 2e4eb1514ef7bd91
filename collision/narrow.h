/* Exact geometric tests of the narrow phase: point in tetrahedron, segment
 * against triangle, closest point on a triangle.
 *
 * All sign decisions come from one orientation determinant evaluated with the
 * face's vertices in ascending global node order (and the sign fixed by the
 * permutation's parity). Two tets sharing a face therefore compute bitwise
 * the same number for a point near that face, with opposite signs: a point
 * is inside one, the other, or (exactly on the face) both, never neither.
 * jl_collision uses the largest smallest-weight to choose one tet (ties:
 * smaller tet id), so no point is counted twice. */
#ifndef JL_COLLISION_NARROW_H
#define JL_COLLISION_NARROW_H

#include "mesh/closest.h" /* jl_closest_point_triangle */

#ifdef __cplusplus
extern "C" {
#endif

/* det[b - a, c - a, d - a] (six times the signed volume of tet abcd). */
double jl_orient3d(const double *a, const double *b, const double *c, const double *d);

/* Orientation of point p against the triangle of nodes (ia, ib, ic) of the
 * position array x (nnode x 3), evaluated in ascending id order so the value
 * depends only on the triangle, not on how it is listed. Returns
 * jl_orient3d(x[ia], x[ib], x[ic], p) up to rounding (exactly its negation
 * for an odd permutation). */
double jl_orient_face(const double *x, int ia, int ib, int ic, const double *p);

/* Point p in the tet with nodes t[4] of x (nnode x 3). Fills the barycentric
 * weights w[4] (sum 1; w[k] belongs to node t[k]) and returns 1 when all are
 * >= 0 (inside or on the boundary), 0 outside or for a flat/inverted tet. */
int jl_point_in_tet(const double *x, const int *t, const double *p, double w[4]);

/* Segment p0-p1 against triangle abc. Returns 1 when they intersect (the
 * segment's endpoints strictly on opposite sides of the triangle's plane and
 * the crossing point inside or on the triangle); *s in [0, 1] is the position
 * along the segment and bary[3] the crossing's barycentric weights on
 * (a, b, c). */
int jl_segment_triangle(const double *p0, const double *p1, const double *a, const double *b, const double *c,
                        double *s, double bary[3]);

#ifdef __cplusplus
}
#endif
#endif
