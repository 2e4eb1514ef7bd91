/* Loads gathered per pair of bodies (src/loads.h). */
#include "src/loads.h"

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
