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
 * two cells sharing a bucket never mix (no duplicate or spurious hits).
 *
 * Bounded work: a box is never walked cell by cell when it spans more than
 * JL_HASH_BOX_CELLS cells (a body stretched far by a huge velocity, a tiny
 * contact.cell_size): an item inserted with such a box goes to the hash's
 * list of large items, which every query visits, and a query over such a box
 * scans the entries instead of the cells when there are fewer of them. A
 * query (jl_hash_query) thus costs at most max(JL_HASH_BOX_CELLS, entries)
 * plus the large items, whatever the box. */
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
  int *next;  /* capacity: next entry in the same bucket, -1 = end */
  int *item;  /* capacity: caller's item id */
  int *cellk; /* capacity x 3: cell of the entry */
  int nbig, big_cap;
  int *big; /* items inserted with boxes of more than JL_HASH_BOX_CELLS cells */
} JlHash;

/* the most cells a box is walked over (above: the large items, or a scan) */
#define JL_HASH_BOX_CELLS 4096

/* A query over a box: jl_hash_query, then jl_hash_query_next until -1. It
 * visits the items of the entries in the box's cells (an item once per
 * cell it was inserted in) and then every large item; the order is the
 * cells' (or the entries', for a scan), so callers must not depend on it. */
typedef struct JlHashQuery {
  int c0[3], c1[3], c[3];
  int e;     /* current entry, -1 = none */
  int scan;  /* 1: scan the entries (the box spans more cells than there are entries) */
  int cells; /* 0: the cells (or entries) are not exhausted yet */
  int big;   /* next large item */
} JlHashQuery;

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
/* Inserts item into every cell box (lo x, y, z, hi x, y, z; m) touches, or
 * into the large items when they are more than JL_HASH_BOX_CELLS. */
void jl_hash_insert_box(JlHash *h, const double box[6], int item);
/* Starts a query over box (an empty box, lo > hi, finds only the large items). */
void jl_hash_query(const JlHash *h, const double box[6], JlHashQuery *q);
/* The next item of the query, or -1 when done. */
int jl_hash_query_next(const JlHash *h, JlHashQuery *q);
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
