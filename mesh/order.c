/* Cache-friendly numbering of a tet mesh: nodes and tets in the order of a 3D
 * Hilbert curve through their positions.
 *
 * TetGen numbers its nodes in insertion order (input points first, then
 * Steiner points wherever refinement put them) and its tets in the order of
 * its memory pool, so two nodes of one tet are usually far apart in memory.
 * Every per-step loop of the engine walks the mesh by connectivity: spring
 * forces and the matrix-free multiply gather the positions of a node's
 * neighbours, the collision depth phases walk from tet to neighbour tet.
 * Along a Hilbert curve, points close in space are close in the order (more
 * than along a Z-order curve, which jumps between octants), so a node's
 * neighbours and a tet's neighbours mostly share cache lines and pages.
 *
 * The key of a point is the Hilbert index of its cell in a 2^21 grid over the
 * mesh's bounding box (Skilling, "Programming the Hilbert curve", AIP Conf.
 * Proc. 707, 2004: axes to transposed index, then bit interleaving); equal
 * keys keep their previous order, so the numbering is deterministic. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/tetmesh.h"

#define HILBERT_BITS 21

/* Hilbert index of integer coordinates X[3] < 2^HILBERT_BITS */
static uint64_t hilbert_index(uint32_t X[3]) {
  const uint32_t M = 1u << (HILBERT_BITS - 1);
  /* inverse undo of the excess work */
  for (uint32_t Q = M; Q > 1; Q >>= 1) {
    uint32_t P = Q - 1;
    for (int i = 0; i < 3; i++) {
      if (X[i] & Q) {
        X[0] ^= P;
      } else {
        uint32_t t = (X[0] ^ X[i]) & P;
        X[0] ^= t;
        X[i] ^= t;
      }
    }
  }
  /* Gray encode */
  for (int i = 1; i < 3; i++) X[i] ^= X[i - 1];
  uint32_t t = 0;
  for (uint32_t Q = M; Q > 1; Q >>= 1)
    if (X[2] & Q) t ^= Q - 1;
  for (int i = 0; i < 3; i++) X[i] ^= t;
  /* interleave the transposed index, most significant bit of X[0] first */
  uint64_t key = 0;
  for (int b = HILBERT_BITS - 1; b >= 0; b--)
    for (int i = 0; i < 3; i++) key = (key << 1) | ((X[i] >> b) & 1u);
  return key;
}

typedef struct Keyed {
  uint64_t key;
  int id;
} Keyed;

static int keyed_cmp(const void *pa, const void *pb) {
  const Keyed *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

typedef struct Frame {
  double lo[3], scale; /* cell = (p - lo) * scale, clamped to the grid */
} Frame;

static uint64_t point_key(const Frame *fr, const double p[3]) {
  const double top = (double)((1u << HILBERT_BITS) - 1);
  uint32_t X[3];
  for (int k = 0; k < 3; k++) {
    double c = (p[k] - fr->lo[k]) * fr->scale;
    c = c > 0 ? (c < top ? c : top) : 0; /* NaN -> 0 */
    X[k] = (uint32_t)c;
  }
  return hilbert_index(X);
}

void jl_tetmesh_reorder(JlTetMesh *t) {
  JL_ASSERT(t && (t->nnode == 0 || t->node) && (t->ntet == 0 || t->tet), "jl_tetmesh_reorder needs a tet mesh");
  if (t->nnode < 2) return;
  Frame fr;
  double hi[3];
  for (int k = 0; k < 3; k++) fr.lo[k] = hi[k] = t->node[k];
  for (int i = 1; i < t->nnode; i++)
    for (int k = 0; k < 3; k++) {
      fr.lo[k] = fmin(fr.lo[k], t->node[3 * i + k]);
      hi[k] = fmax(hi[k], t->node[3 * i + k]);
    }
  double size = fmax(hi[0] - fr.lo[0], fmax(hi[1] - fr.lo[1], hi[2] - fr.lo[2]));
  fr.scale = size > 0 && isfinite(size) ? (double)(1u << HILBERT_BITS) / size : 0.0;

  /* nodes */
  size_t nn = (size_t)t->nnode, nt = (size_t)t->ntet;
  Keyed *k = jl_calloc(nn > nt ? nn : nt, sizeof(Keyed));
  for (size_t i = 0; i < nn; i++) k[i].key = point_key(&fr, t->node + 3 * i), k[i].id = (int)i;
  qsort(k, nn, sizeof(Keyed), keyed_cmp);
  int *new_id = jl_calloc(nn, sizeof(int));
  double *node = jl_calloc(3 * nn, sizeof(double));
  for (size_t i = 0; i < nn; i++) {
    new_id[k[i].id] = (int)i;
    memcpy(node + 3 * i, t->node + 3 * (size_t)k[i].id, 3 * sizeof(double));
  }
  free(t->node);
  t->node = node;
  for (size_t i = 0; i < 4 * nt; i++) t->tet[i] = new_id[t->tet[i]];
  free(new_id);

  /* tets, by their centroids (corner order, hence orientation, unchanged) */
  for (size_t e = 0; e < nt; e++) {
    double c[3] = {0, 0, 0};
    for (int j = 0; j < 4; j++)
      for (int d = 0; d < 3; d++) c[d] += 0.25 * t->node[3 * (size_t)t->tet[4 * e + j] + d];
    k[e].key = point_key(&fr, c), k[e].id = (int)e;
  }
  qsort(k, nt, sizeof(Keyed), keyed_cmp);
  int *tet = jl_calloc(4 * nt + 4, sizeof(int));
  for (size_t e = 0; e < nt; e++) memcpy(tet + 4 * e, t->tet + 4 * (size_t)k[e].id, 4 * sizeof(int));
  free(t->tet);
  t->tet = tet;
  if (t->fill) {
    double *fill = jl_calloc(nt + 1, sizeof(double));
    for (size_t e = 0; e < nt; e++) fill[e] = t->fill[k[e].id];
    free(t->fill);
    t->fill = fill;
  }
  free(k);

  if (t->edge || t->face || t->adj) jl_tetmesh_topology(t);
}
