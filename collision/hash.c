/* Spatial hash with timestamps (Teschner et al. 2003; see collision/hash.h).
 *
 * Buckets hold singly linked lists threaded through an entry pool. Inserting
 * is O(1); starting a pass only increments the timestamp. A lookup walks the
 * bucket's list and keeps entries whose stored cell equals the queried one.
 * The pool is sized by the caller's first passes and doubled when full, so
 * steady-state steps allocate nothing. */
#include "collision/hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_prime(int n) {
  if (n < 2) return 0;
  for (int d = 2; (long)d * d <= n; d++)
    if (n % d == 0) return 0;
  return 1;
}

void jl_hash_init(JlHash *h, int min_size, double cell) {
  JL_ASSERT(h && cell > 0.0 && isfinite(cell), "jl_hash_init: cell size must be positive and finite");
  memset(h, 0, sizeof *h);
  int n = min_size < 1021 ? 1021 : min_size;
  while (!is_prime(n)) n++;
  h->size = n;
  h->cell = cell;
  h->inv_cell = 1.0 / cell;
  h->bucket_stamp = jl_calloc((size_t)n, sizeof(unsigned));
  h->head = jl_calloc((size_t)n, sizeof(int));
  h->capacity = 1024;
  h->next = jl_calloc((size_t)h->capacity, sizeof(int));
  h->item = jl_calloc((size_t)h->capacity, sizeof(int));
  h->cellk = jl_calloc(3 * (size_t)h->capacity, sizeof(int));
}

void jl_hash_free(JlHash *h) {
  if (!h) return;
  JL_FREE_ALL(h->bucket_stamp, h->head, h->next, h->item, h->cellk, h->big);
  memset(h, 0, sizeof *h);
}

void jl_hash_begin(JlHash *h) {
  h->nentry = 0;
  h->nbig = 0;
  if (++h->stamp == 0) { /* wrapped after 2^32 passes: clear once */
    memset(h->bucket_stamp, 0, (size_t)h->size * sizeof(unsigned));
    h->stamp = 1;
  }
}

void jl_hash_cell(const JlHash *h, const double *p, int cell[3]) {
  for (int k = 0; k < 3; k++) {
    double c = floor(p[k] * h->inv_cell);
    cell[k] = !(c >= -1e9) ? -1000000000 : c > 1e9 ? 1000000000 : (int)c; /* NaN: the lowest */
  }
}

static int bucket(const JlHash *h, const int c[3]) {
  unsigned v = ((unsigned)c[0] * 73856093u) ^ ((unsigned)c[1] * 19349663u) ^ ((unsigned)c[2] * 83492791u);
  return (int)(v % (unsigned)h->size);
}

void jl_hash_insert(JlHash *h, const int cell[3], int item) {
  if (h->nentry == h->capacity) {
    h->capacity *= 2;
    h->next = jl_realloc(h->next, (size_t)h->capacity, sizeof(int));
    h->item = jl_realloc(h->item, (size_t)h->capacity, sizeof(int));
    h->cellk = jl_realloc(h->cellk, 3 * (size_t)h->capacity, sizeof(int));
  }
  int b = bucket(h, cell), e = h->nentry++;
  if (h->bucket_stamp[b] != h->stamp) {
    h->bucket_stamp[b] = h->stamp;
    h->head[b] = -1;
  }
  h->next[e] = h->head[b];
  h->item[e] = item;
  memcpy(h->cellk + 3 * e, cell, 3 * sizeof(int));
  h->head[b] = e;
}

static int same_cell(const int *a, const int *b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

int jl_hash_next(const JlHash *h, int e, const int cell[3]) {
  for (e = h->next[e]; e >= 0; e = h->next[e])
    if (same_cell(h->cellk + 3 * e, cell)) return e;
  return -1;
}

int jl_hash_first(const JlHash *h, const int cell[3]) {
  int b = bucket(h, cell);
  if (h->bucket_stamp[b] != h->stamp) return -1;
  int e = h->head[b];
  if (e >= 0 && same_cell(h->cellk + 3 * e, cell)) return e;
  return e >= 0 ? jl_hash_next(h, e, cell) : -1;
}

/* cells from c0 to c1 (0 when empty); a double, as it can pass 2^63 */
static double range_cells(const int c0[3], const int c1[3]) {
  double n = 1.0;
  for (int k = 0; k < 3; k++) n *= c1[k] < c0[k] ? 0.0 : (double)c1[k] - (double)c0[k] + 1.0;
  return n;
}

void jl_hash_insert_box(JlHash *h, const double box[6], int item) {
  int c0[3], c1[3], c[3];
  jl_hash_cell(h, box, c0);
  jl_hash_cell(h, box + 3, c1);
  if (range_cells(c0, c1) > JL_HASH_BOX_CELLS) {
    jl_grow((void **)&h->big, &h->big_cap, h->nbig + 1, sizeof(int));
    h->big[h->nbig++] = item;
    return;
  }
  for (c[0] = c0[0]; c[0] <= c1[0]; c[0]++)
    for (c[1] = c0[1]; c[1] <= c1[1]; c[1]++)
      for (c[2] = c0[2]; c[2] <= c1[2]; c[2]++) jl_hash_insert(h, c, item);
}

void jl_hash_query(const JlHash *h, const double box[6], JlHashQuery *q) {
  jl_hash_cell(h, box, q->c0);
  jl_hash_cell(h, box + 3, q->c1);
  double n = range_cells(q->c0, q->c1);
  q->scan = n > JL_HASH_BOX_CELLS && n > h->nentry;
  q->cells = n == 0.0;
  q->e = -1;
  q->big = 0;
  memcpy(q->c, q->c0, sizeof q->c);
}

static int in_range(const JlHashQuery *q, const int *c) {
  for (int k = 0; k < 3; k++)
    if (c[k] < q->c0[k] || c[k] > q->c1[k]) return 0;
  return 1;
}

int jl_hash_query_next(const JlHash *h, JlHashQuery *q) {
  if (!q->cells && q->scan) {
    for (q->e++; q->e < h->nentry; q->e++)
      if (in_range(q, h->cellk + 3 * q->e)) return h->item[q->e];
    q->cells = 1;
  }
  while (!q->cells) {
    q->e = q->e < 0 ? jl_hash_first(h, q->c) : jl_hash_next(h, q->e, q->c);
    if (q->e >= 0) return h->item[q->e];
    /* the next cell, z fastest */
    int k = 2;
    while (k >= 0 && q->c[k] == q->c1[k]) q->c[k] = q->c0[k], k--;
    if (k < 0)
      q->cells = 1;
    else
      q->c[k]++;
  }
  return q->big < h->nbig ? h->big[q->big++] : -1;
}
