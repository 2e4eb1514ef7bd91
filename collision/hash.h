/* Spatial hash of Teschner et al. 2003 ("Optimized Spatial Hashing for
 * Collision Detection of Deformable Objects", VMV 2003, sec. 3-4).
 *
 * Space is split into cubic cells of edge `cell`; integer cell coordinates
 * (i, j, k) map to a bucket by
 *     h = (i * 73856093 xor j * 19349663 xor k * 83492791) mod size
 * with `size` a prime. Each bucket carries a timestamp: a bucket whose stamp
 * is not the current one counts as empty, so the table is never cleared
 * between steps (sec. 4.2). Entries (an item id and the cell it was inserted
 * in) live in a pool that grows rarely; lookups compare the stored cell, so
 * two cells sharing a bucket never mix (no duplicate or spurious hits). */
#ifndef JL_COLLISION_HASH_H
#define JL_COLLISION_HASH_H

#include <math.h>

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlHash {
  int size;               /* number of buckets (a prime) */
  double cell;            /* cell edge, m */
  double inv_cell;        /* 1 / cell */
  unsigned stamp;         /* current timestamp (0 is never used) */
  unsigned *bucket_stamp; /* size */
  int *head;              /* size: first entry of the bucket, -1 = none */
  int nentry, capacity;
  int *next;              /* capacity: next entry in the same bucket, -1 = end */
  int *item;              /* capacity: caller's item id */
  int *cellk;             /* capacity x 3: cell of the entry */
} JlHash;

/* Creates a table of at least `min_size` buckets (rounded up to a prime) and
 * cells of edge `cell` (> 0, m). Free with jl_hash_free. */
void jl_hash_init(JlHash *h, int min_size, double cell);
void jl_hash_free(JlHash *h);
/* Starts a new pass: new timestamp, no entries. O(1). */
void jl_hash_begin(JlHash *h);
/* Cell coordinates of point p (m). */
void jl_hash_cell(const JlHash *h, const double *p, int cell[3]);
/* Inserts item into the given cell (the pool grows when full). */
void jl_hash_insert(JlHash *h, const int cell[3], int item);
/* Inserts item into every cell box (lo x, y, z, hi x, y, z; m) touches. */
void jl_hash_insert_box(JlHash *h, const double box[6], int item);
/* First entry of the cell, or -1; continue with jl_hash_next. */
int jl_hash_first(const JlHash *h, const int cell[3]);
int jl_hash_next(const JlHash *h, int entry, const int cell[3]);

/* Axis-aligned boxes as [lo x, lo y, lo z, hi x, hi y, hi z] (m), for the
 * swept boxes the hash is filled with. */
static inline void jl_box_empty(double b[6]) {
  b[0] = b[1] = b[2] = INFINITY;
  b[3] = b[4] = b[5] = -INFINITY;
}

/* grows box b by the segment p -> p + h v */
static inline void jl_box_add_path(double b[6], const double p[3], const double v[3], double h) {
  for (int a = 0; a < 3; a++) {
    double e = p[a] + h * v[a], lo = p[a] < e ? p[a] : e, hi = p[a] < e ? e : p[a];
    if (lo < b[a]) b[a] = lo;
    if (hi > b[3 + a]) b[3 + a] = hi;
  }
}

static inline void jl_box_grow(double b[6], double g) {
  for (int a = 0; a < 3; a++) b[a] -= g, b[3 + a] += g;
}

static inline int jl_boxes_overlap(const double a[6], const double b[6]) {
  return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

#ifdef __cplusplus
}
#endif
#endif
