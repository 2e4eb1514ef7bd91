/* A uniform bucket grid: items listed per cell by their bounding boxes, in
 * compressed rows (count, prefix-sum, fill in item order, so each cell lists
 * its items ascending). One builder for the embedding's tet grid
 * (mesh/embed.c) and the embedded mode's triangle grids (mesh/tetmesh_embed.c). */
#ifndef JL_MESH_GRID_H
#define JL_MESH_GRID_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlGrid {
  double lo[3];   /* corner, m */
  double cell[3]; /* cell size per axis, m */
  int n[3];       /* cells per axis (1..128) */
  int *start;     /* ncell + 1 */
  int *item;      /* start[ncell] item ids */
} JlGrid;

/* items 0..nitem-1 with boxes box_lo/box_hi (nitem x 3) into a grid over
 * [lo, hi] with cells of about cell[k] per axis (an axis with cell[k] <= 0
 * gets a single cell; at most 128 per axis). Free with jl_grid_free. */
void jl_grid_build(JlGrid *g, const double lo[3], const double hi[3], const double cell[3], int nitem,
                   const double *box_lo, const double *box_hi);
/* i0..i1 (inclusive, clamped to the grid) = the cells the box [lo, hi] touches */
void jl_grid_cells(const JlGrid *g, const double *lo, const double *hi, int i0[3], int i1[3]);
void jl_grid_free(JlGrid *g);

#ifdef __cplusplus
}
#endif
#endif
