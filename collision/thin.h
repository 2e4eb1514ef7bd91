/* Proximity contacts of thin bodies: cloth triangles and edges, rope
 * segments.
 *
 * A cloth or rope has no inside, so the penetration depth of
 * collision/depth.h cannot keep anything on its side of it: a volume's
 * surface passes between cloth nodes, and ropes pass through each other. As
 * in Bridson, Fedkiw and Anderson 2002 ("Robust treatment of collisions,
 * contact and friction for cloth animation", sec. 6-7), thin bodies collide
 * through proximity: pairs of primitives closer than the sum of their
 * half-thicknesses (JlBody.radius; 0 for volumes) get a repulsion along the
 * line between their closest points. The pairs:
 *   point - triangle   a volume's render-surface vertex (embedded in its tets,
 *                      so a surface finer than the tets is kept out at every
 *                      vertex), a cloth or rope node against a cloth triangle
 *                      (another cloth, or the same with self_collision);
 *   point - segment    a volume's surface vertex or a cloth node against a
 *                      rope segment;
 *   edge - edge        rope segments and cloth edges against each other
 *                      (other bodies, or the same with self_collision).
 * A pair is found when the primitives are within their contact distance now
 * or would come within it over the step (their relative normal velocity over
 * h, plus the gravity sag g h^2): then the gap is negative and the implicit
 * solve switches the contact on only if it closes (speculative, as
 * collision/proximity.h). Of all pairs of one primitive with one body only
 * the closest is kept, except for rope segments: a segment meets every edge
 * within reach (where one rope crosses another near a node, or its end whips
 * past the last segments of another, the closest segment at the step's start
 * is often not the one it would pass through). Edge pairs are taken once
 * (lower edge first).
 * Self-collision leaves out primitives whose rest positions are within
 * JL_THIN_SELF_EXCLUDE rest edge lengths of each other (neighbours along the
 * rope or in the sheet).
 *
 * Broad phase: the swept boxes of triangles and edges (over the step, grown
 * by the contact distance) in a Teschner et al. 2003 spatial hash; points and
 * edges query the cells of their own swept boxes. Deterministic: items are
 * visited in cell order and ties go to the lower primitive id. */
#ifndef JL_COLLISION_THIN_H
#define JL_COLLISION_THIN_H

#include "collision/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JL_THIN_SELF_EXCLUDE 2.5  /* rest edge lengths: self pairs closer than this at rest are neighbours */
#define JL_THIN_GIVE         1e-3 /* m: a pair's stiffness stops its approach within this (src/contact.c) */

typedef enum JlThinKind { JL_THIN_POINT_TRIANGLE = 1, JL_THIN_POINT_SEGMENT = 2, JL_THIN_EDGE_EDGE = 3 } JlThinKind;

typedef struct JlThinPair {
  JlThinKind kind;
  int n;  /* nodes in node[]: side A's na, then side B's 3 (triangle) or 2 (segment, edge) */
  int na; /* side A's nodes: 1 (a cloth or rope node), up to 4 (a volume's embedded surface vertex:
                     its tet's nodes with nonzero weight), 2 (edge a) */
  int node[7];
  double coef[7]; /* z = sum coef_j x_j = A's closest point - B's closest point */
  int body_a, body_b;
  int key;       /* identifies the pair across steps with (node[0], body_b, kind, key2): the point's index in
                     the finder (point pairs) or the second node of edge a (edge-edge) */
  int key2;      /* edge-edge pairs with a rope segment: the other edge's index in the finder (a segment
                     meets every segment within reach, not only the closest of each body); else 0 */
  double dir[3]; /* unit direction from B's closest point to A's: the force on A pushes along it */
  double dist;   /* m, n . z at the step's start (>= 0) */
  double radius; /* m, contact distance: the two bodies' radii summed */
} JlThinPair;

typedef struct JlThinFinder JlThinFinder;

/* NULL when geometry geo has no cloth or rope body that could meet another body
 * or itself (self_collision): nothing to find; geo's arrays
 * must outlive the finder. NULL-safe destroy. */
JlThinFinder *jl_thin_create(const JlGeom *geo);
void jl_thin_destroy(JlThinFinder *f);

/* The pairs of the step of length h (s) from positions x and velocities v
 * (nnode x 3). Returns their number; *out stays valid until the next call. */
int jl_thin_find(JlThinFinder *f, const JlGeom *geo, const double *x, const double *v, double h,
                 const JlThinPair **out);
/* The same, edge-edge pairs only. */
int jl_thin_find_edges(JlThinFinder *f, const JlGeom *geo, const double *x, const double *v, double h,
                       const JlThinPair **out);

/* Closest points of segments p0p1 and q0q1 (Ericson, Real-Time Collision
 * Detection, sec. 5.1.9): p0 + s (p1 - p0) and q0 + t (q1 - q0), s, t in [0, 1].
 * Returns the squared distance. */
double jl_closest_segments(const double *p0, const double *p1, const double *q0, const double *q1, double *s,
                           double *t);

/* Segments p[0]p[1] and p[2]p[3] whose ends move on straight lines from p[k]
 * to p[k] + dp[k] as tau goes from 0 to 1: the first tau at which they come
 * within `target` of each other, found by conservative advancement (Mirtich
 * 1996: their distance changes by at most L per unit of tau, L the largest
 * relative displacement of an end of one against an end of the other; steps
 * of at least 1/256, at most 64 of them); -1 when they do not. *s, *t: their
 * closest points then (may be NULL). */
double jl_segments_first_within(const double *const p[4], const double *const dp[4], double target, double *s,
                                double *t);

#ifdef __cplusplus
}
#endif
#endif
