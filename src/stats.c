/* The state's stats.csv columns (src/stats.h). */
#include "src/stats.h"

#include <math.h>
#include <string.h>

#include "src/contact.h"
#include "src/volume.h"

void jl_state_stats(const JlWorld *w, JlStateStats *out, int *inverted_per_body) {
  const JlModel *m = w->model;
  memset(out, 0, sizeof *out);
  jl_world_energy(w, &out->energy);
  out->max_strain = jl_world_max_strain(w);
  double lo = INFINITY;
  int below = 0;
  for (int i = 0; i < m->nnode; i++) {
    double y = w->state.x[3 * i + 1];
    if (y < lo) lo = y;
    if (m->world.has_ground && y < m->world.ground_y) below++;
  }
  out->min_y = lo;
  const JlForce *c = jl_world_find_force(w, JL_FORCE_CONTACTS);
  out->contacts = below + (c ? jl_contact_count(c) : 0);
  for (int b = 0; b < m->nbody; b++) {
    int nb = m->body[b].tet_count > 0 ? jl_volume_inverted(m, w->state.x, b) : 0;
    if (inverted_per_body) inverted_per_body[b] = nb;
    out->inverted_tets += nb;
  }
}
