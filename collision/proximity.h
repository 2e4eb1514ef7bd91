/* Speculative contacts between soft bodies: nodes that are still outside
 * another body but whose path over the coming step would meet its surface.
 *
 * Penetration depth (collision/depth.h) only sees nodes that are already
 * inside another body at the start of a step; a fast node then travels a
 * whole step into (or through) the other body before anything pushes back,
 * and the penalty energy of the depth it reached comes from nowhere. Box2D
 * v3's speculative contacts are the idea: a contact is made as soon as two
 * surfaces could meet within the step, with the gap as a negative depth, and
 * the solver lets it act only if the gap closes (src/contact.c with the
 * implicit stepper's active set, JlForce.refine).
 *
 * jl_proximity_find hashes the boundary faces of every body (swept over the
 * step: their positions at x and at x + h v, grown by the gravity sag g h^2
 * and a small margin) in a Teschner et al. 2003 spatial hash, and tests the
 * swept path of every boundary node (and every cloth and rope node) against
 * the faces of other bodies it meets in the hash: the node must start in
 * front of the face's plane; its distance along the face normal at the end
 * of the step, from both bodies' velocities, must fall below the margin (plus
 * the node's body radius: cloth and ropes keep their half-thickness), or
 * else with one side's velocity alone, the other side stopped where it
 * stands (bodies falling together with a gap, the lower one landing within
 * the step); the point where it would cross the plane must lie on the face.
 * For each (node, body) the face it would meet first is kept. */
#ifndef JL_COLLISION_PROXIMITY_H
#define JL_COLLISION_PROXIMITY_H

#include "collision/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlProximity {
  int node;    /* node p (global id) */
  int body;    /* body Q it would meet */
  int face;    /* Q's boundary face (index into geo->face) */
  double w[3]; /* weights of the predicted meeting point on the face's three nodes (sum 1, each >= 0) */
  double n[3]; /* unit outward normal of the face at the step's start; where a volume node meets an edge
                  or a vertex (faces met within 1e-3 of the mean boundary edge along its path), the mean
                  of those faces' normals */
  double dist; /* m, n . (x_p - the meeting point's material point) at the step's start (>= 0: p in front
                  of the face; for one face, the distance from its plane) */
  double t;    /* fraction of the step at which p would reach the face's plane (1 = not within the step) */
  double path; /* m, length of p's path over the step relative to the face's meeting point */
} JlProximity;

typedef struct JlProximityFinder JlProximityFinder;

/* Sized for geometry geo (whose arrays must outlive it); NULL-safe destroy. */
JlProximityFinder *jl_proximity_create(const JlGeom *geo);
void jl_proximity_destroy(JlProximityFinder *f);

/* Finds the speculative contacts of the step of length h (s) starting at
 * positions x and velocities v (nnode x 3). Returns their number; *out (valid
 * until the next call) lists them sorted by (node, body). Nodes already
 * inside a body are not excluded here: the caller keeps its penetration
 * contact for such a pair. */
int jl_proximity_find(JlProximityFinder *f, const JlGeom *geo, const double *x, const double *v, double h,
                      const JlProximity **out);

#ifdef __cplusplus
}
#endif
#endif
