/* Uniform bucket grid (mesh/grid.h). */
#include "mesh/grid.h"

#include <math.h>
#include <stdlib.h>

#include "mesh/common.h"

void jl_grid_cells(const JlGrid *g, const double *lo, const double *hi, int i0[3], int i1[3]) {
  for (int k = 0; k < 3; k++) {
    double a = floor((lo[k] - g->lo[k]) / g->cell[k]);
    double b = floor((hi[k] - g->lo[k]) / g->cell[k]);
    i0[k] = (int)fmax(0.0, fmin(a, g->n[k] - 1.0));
    i1[k] = (int)fmax(0.0, fmin(b, g->n[k] - 1.0));
  }
}

void jl_grid_build(JlGrid *g, const double lo[3], const double hi[3], const double cell[3], int nitem,
                   const double *box_lo, const double *box_hi) {
  size_t ncell = 1;
  for (int k = 0; k < 3; k++) {
    double ext = fmax(hi[k] - lo[k], 1e-300);
    double n = cell[k] > 0 ? ceil(ext / cell[k]) : 1.0;
    n = fmax(1.0, fmin(n, 128.0)); /* at most 2M cells */
    g->n[k] = (int)n;
    g->lo[k] = lo[k];
    g->cell[k] = ext / n;
    ncell *= (size_t)g->n[k];
  }
  g->start = jl_calloc(ncell + 1, sizeof(int));
  int *fill = NULL, i0[3], i1[3];
  /* pass 0 counts and prefix-sums, pass 1 fills */
  for (int pass = 0; pass < 2; pass++) {
    for (int it = 0; it < nitem; it++) {
      jl_grid_cells(g, box_lo + 3 * it, box_hi + 3 * it, i0, i1);
      for (int z = i0[2]; z <= i1[2]; z++)
        for (int y = i0[1]; y <= i1[1]; y++)
          for (int x = i0[0]; x <= i1[0]; x++) {
            size_t c = ((size_t)z * g->n[1] + y) * g->n[0] + x;
            if (pass == 0)
              g->start[c + 1]++;
            else
              g->item[g->start[c] + fill[c]++] = it;
          }
    }
    if (pass == 0) {
      for (size_t c = 0; c < ncell; c++) g->start[c + 1] += g->start[c];
      g->item = jl_calloc((size_t)g->start[ncell], sizeof(int));
      fill = jl_calloc(ncell, sizeof(int));
    }
  }
  free(fill);
}

void jl_grid_free(JlGrid *g) {
  JL_FREE_ALL(g->start, g->item);
  g->start = g->item = NULL;
}
