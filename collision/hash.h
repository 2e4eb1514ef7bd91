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
/* First entry of the cell, or -1; continue with jl_hash_next. */
int jl_hash_first(const JlHash *h, const int cell[3]);
int jl_hash_next(const JlHash *h, int entry, const int cell[3]);

#ifdef __cplusplus
}
#endif
#endif
