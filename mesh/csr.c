/* Compressed rows (mesh/csr.h): one counting sort for every index list by
 * row, and the edge incidence and adjacency built on it. */
#include "mesh/csr.h"

#include <stdlib.h>

#include "mesh/common.h"

void jl_csr_by_key(int nrow, int n, const int *key, int *start, int *item) {
  /* count per row, prefix-sum, fill in item order (rows come out ascending) */
  for (int r = 0; r <= nrow; r++) start[r] = 0;
  for (int k = 0; k < n; k++) {
    JL_ASSERT(key[k] >= 0 && key[k] < nrow, "jl_csr_by_key: a key outside 0..nrow-1");
    start[key[k] + 1]++;
  }
  for (int r = 0; r < nrow; r++) start[r + 1] += start[r];
  int *fill = jl_calloc((size_t)nrow + 1, sizeof(int));
  for (int k = 0; k < n; k++) item[start[key[k]] + fill[key[k]]++] = k;
  free(fill);
}

void jl_csr_edges(int nnode, int nedge, const int *edge, int **start_out, int **inc_out, int **adj_start_out,
                  int **adj_out) {
  /* the edges' ends as 2 nedge half-edges h = 2 e + end, whose row is the node edge[h]:
   * ascending h within a row is ascending e, the first end before the second */
  int *start = jl_calloc((size_t)nnode + 1, sizeof(int));
  int *inc = jl_calloc(2 * (size_t)nedge + 1, sizeof(int));
  jl_csr_by_key(nnode, 2 * nedge, edge, start, inc);
  for (int p = 0; p < 2 * nedge; p++) inc[p] = inc[p] % 2 ? -(inc[p] / 2 + 1) : inc[p] / 2 + 1;
  /* adjacency: other ends, insertion-sorted (rows are short, about 14 entries), duplicates dropped */
  int *adj_start = jl_calloc((size_t)nnode + 1, sizeof(int));
  int *adj = jl_calloc(2 * (size_t)nedge + 1, sizeof(int));
  int na = 0;
  for (int i = 0; i < nnode; i++) {
    int row = na;
    adj_start[i] = row;
    for (int p = start[i]; p < start[i + 1]; p++) {
      int e = inc[p], s = (e > 0 ? e : -e) - 1;
      int other = e > 0 ? edge[2 * s + 1] : edge[2 * s];
      int q = na, dup = 0;
      for (int r = row; r < na; r++) dup |= adj[r] == other;
      if (dup) continue;
      while (q > row && adj[q - 1] > other) {
        adj[q] = adj[q - 1];
        q--;
      }
      adj[q] = other;
      na++;
    }
  }
  adj_start[nnode] = na;
  *adj_start_out = adj_start;
  *adj_out = adj;
  if (start_out)
    *start_out = start;
  else
    free(start);
  if (inc_out)
    *inc_out = inc;
  else
    free(inc);
}
