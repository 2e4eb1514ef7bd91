/* Overlaps at the start of a run: bodies inside each other, below the ground
 * plane or inside a static obstacle.
 *
 * Penalty contacts push such bodies apart in the first steps, which injects
 * energy the scene's author may not expect; `jelly run` warns about them.
 * The detection uses collision/ directly (not the contact force element):
 * jl_collision_detect for body against body, jl_obstacle_penetration for
 * obstacles and the plane y = ground_y for the ground. */
#ifndef JL_SRC_OVERLAP_H
#define JL_SRC_OVERLAP_H

#include "src/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* JlOverlap.b for the ground plane; obstacle o is JL_OVERLAP_OBSTACLE(o) = -2 - o. */
#define JL_OVERLAP_GROUND      (-1)
#define JL_OVERLAP_OBSTACLE(o) (-2 - (o))

/* Penetrations no deeper than this (m) count as touching, not overlapping:
 * bodies placed exactly on each other or on the ground are not reported. */
#define JL_OVERLAP_MIN_DEPTH 1e-6

/* One overlapping pair. */
typedef struct JlOverlap {
  int a;        /* body index */
  int b;        /* other body (> a), JL_OVERLAP_GROUND, or JL_OVERLAP_OBSTACLE(o) */
  double depth; /* m, the deepest penetration of a node of one into the other */
} JlOverlap;

/* Finds every pair that overlaps by more than JL_OVERLAP_MIN_DEPTH at
 * positions x (nnode x 3, e.g. m->x0). Body pairs take the consistent
 * penetration depth of collision/depth.h of either body's nodes in the other
 * (a body's overlap with itself is not reported); the ground and obstacles
 * take the depth of the body's nodes in them. Writes at most max entries
 * into out (which may be NULL when max is 0), ordered by a, then other
 * bodies by index, the ground, obstacles by index, and returns the number of
 * overlapping pairs, which may exceed max. */
int jl_initial_overlaps(const JlModel *m, const double *x, JlOverlap *out, int max);

#ifdef __cplusplus
}
#endif
#endif
