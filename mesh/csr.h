/* Compressed rows (CSR): the one builder of Jelly's index lists by row, used
 * for the model's node -> spring incidence and node adjacency (src/model.c,
 * src/model_cloth.c), the tet mesh's node adjacency (mesh/tetmesh.c) and the
 * per-node edge lists of the model build. A counting sort: count per row,
 * prefix-sum, fill in item order, so every row lists its items in ascending
 * order and the result depends on nothing but the input (the gather loops'
 * fixed order, docs/architecture.md "Determinism"). */
#ifndef JL_MESH_CSR_H
#define JL_MESH_CSR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Items 0..n-1 into rows: item k goes into row key[k] (0 <= key[k] < nrow).
 * Fills start (nrow + 1 ints; start[0] = 0, start[nrow] = n) and item (n
 * ints): row r is item[start[r] .. start[r + 1]), in ascending item order. */
void jl_csr_by_key(int nrow, int n, const int *key, int *start, int *item);

/* The incidence and adjacency of nedge edges (edge: nedge x 2 node ids, each
 * < nnode), allocated here (jl_calloc; the caller frees them):
 *   *start, *inc: nnode + 1 and 2 nedge ints: for each node the signed ids of
 *     its edges, +(e + 1) where it is edge e's first end, -(e + 1) where it is
 *     the second, e ascending;
 *   *adj_start, *adj: nnode + 1 and at most 2 nedge ints: each node's
 *     neighbours (the other ends of its edges), ascending, each once (parallel
 *     edges give one neighbour).
 * start and inc may be NULL when only the adjacency is wanted. */
void jl_csr_edges(int nnode, int nedge, const int *edge, int **start, int **inc, int **adj_start, int **adj);

#ifdef __cplusplus
}
#endif

#endif
