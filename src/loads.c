/* Loads gathered per pair of bodies (src/loads.h). */
#include "src/loads.h"

#include <string.h>

int jl_load_cmp(const void *p, const void *q) {
  const JlLoad *x = p, *y = q;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

int jl_load_pair(const JlLoad *load, int n, int i, double *f, double at[3], double nsum[3], double *k) {
  *f = 0.0;
  if (k) *k = 0.0;
  for (int c = 0; c < 3; c++) at[c] = nsum[c] = 0.0;
  int j = i;
  for (; j < n && load[j].a == load[i].a && load[j].b == load[i].b; j++) {
    const JlLoad *l = &load[j];
    *f += l->f;
    if (k) *k += l->k;
    for (int c = 0; c < 3; c++) at[c] += l->f * l->at[c], nsum[c] += l->f * l->n[c];
  }
  return j;
}

int jl_pair_find(const void *base, int n, size_t size, int a, int b) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, key[2];
    memcpy(key, (const char *)base + (size_t)mid * size, sizeof key);
    if (key[0] == a && key[1] == b) return mid;
    if (key[0] < a || (key[0] == a && key[1] < b))
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}
