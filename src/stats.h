/* The columns of a stats.csv row that describe the state (docs/cli.md, "What `jelly run` writes"):
 * one computation for every front end (`jelly run`, the C API's jelly_world_stats, and through it
 * Python). The frame's step counters (steps, CG iterations, splits) are the caller's. */
#ifndef JL_SRC_STATS_H
#define JL_SRC_STATS_H

#include "src/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlStateStats {
  JlEnergy energy;   /* J: kinetic, elastic, gravity, and every other element's in energy.ground */
  double max_strain; /* largest |l - L| / L over the springs */
  double min_y;      /* m, the lowest node (+inf without nodes) */
  int contacts;      /* nodes below the ground plane plus nodes penetrating bodies and obstacles (as detected
                        at the start of the last step) */
  int inverted_tets; /* tets of all bodies with signed volume <= 0 */
} JlStateStats;

/* The state's columns of world w. inverted_per_body (nbody entries, may be NULL) receives each body's
 * inverted tets. */
void jl_state_stats(const JlWorld *w, JlStateStats *out, int *inverted_per_body);

#ifdef __cplusplus
}
#endif
#endif
