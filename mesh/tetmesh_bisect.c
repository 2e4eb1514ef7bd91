/* Bisection of tets above max_volume (jl_tetmesh_bisect, mesh/tetmesh.h;
 * the parts: tetmesh_internal.h).
 *
 * TetGen meets -a during refinement, but the sliver removal that follows
 * (flips) can leave a few tets somewhat larger (3 of 9450 tets at up to 1.1x
 * on the default scene's torus). jl_tetgen_build then bisects the longest
 * edge of each such tet (every tet around the edge is cut in two at its
 * midpoint, so the mesh stays conforming and a boundary edge's midpoint stays
 * on the surface) until all tets are within the bound. jl_tetmesh_check
 * reports what remains: tets above max_volume (only if bisection hit its
 * limits) and tets above the radius-edge bound, which TetGen does not enforce
 * next to small input angles and which sliver removal can trade for better
 * dihedral angles. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/child.h"
#include "mesh/tetmesh_internal.h"
#include "mesh/vec3.h"

/* ---- volume bound: longest-edge bisection ---------------------------------- */

/* passes of jl_tetmesh_bisect_large; each halves every tet still above the bound, so a
 * tet up to 2^32 times the bound would fit; in practice one or two */
#define MAX_BISECT_PASSES 32

static uint64_t edge_key(int a, int b) {
  return a < b ? ((uint64_t)a << 32) | (uint64_t)b : ((uint64_t)b << 32) | (uint64_t)a;
}

/* sorts key[0..n) and drops repeats; returns the new count */
static int sort_unique(uint64_t *key, int n) {
  qsort(key, (size_t)n, sizeof(uint64_t), cmp_u64);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m == 0 || key[i] != key[m - 1]) key[m++] = key[i];
  return m;
}

/* the edges of the boundary faces of tets t[0..nt) (jl_tet_boundary_faces),
 * sorted and unique; *n their count */
static uint64_t *boundary_edges(const int *t, int nt, int *n) {
  int *face = NULL, nface = jl_tet_boundary_faces(t, nt, &face);
  uint64_t *edge = jl_calloc(3 * (size_t)nface + 1, sizeof(uint64_t));
  for (int f = 0; f < nface; f++)
    for (int k = 0; k < 3; k++) edge[3 * f + k] = edge_key(face[3 * f + k], face[3 * f + (k + 1) % 3]);
  free(face);
  *n = sort_unique(edge, 3 * nface);
  return edge;
}

/* index of key in the sorted array key[0..n), or -1 */
static int find_key(const uint64_t *key, int n, uint64_t k) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (key[mid] == k) return mid;
    if (key[mid] < k)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Bisects, pass by pass, one edge of every positively oriented tet above
 * max_volume (relative tolerance JL_TET_VOLUME_TOL), the edge whose bisection
 * makes the best worst radius-edge ratio around it (the longest edge, the
 * textbook choice, took the worst ratio of a 0.3 / 0.1 m torus at max_volume
 * 2e-5 from 1.54 to 3.1, this choice to 1.58). The midpoint m is
 * appended as a node and each tet (.. a .. b ..) around the edge becomes
 * (.. a .. m ..) and (.. m .. b ..), the midpoint taking one end's slot, so
 * both halves keep the orientation and half the volume. Cutting every tet
 * around the edge keeps the mesh conforming. The edges of one pass share no
 * tet (a tet with two of them keeps only the smaller key), so a pass is three
 * sweeps over the tets. keep_boundary: edges of boundary faces are not cut
 * (their midpoints would be new surface points), so a tet whose every edge
 * is on the boundary stays above the bound. Returns the number of edges
 * bisected. */
int jl_tetmesh_bisect_large(int *nnode, double **node, int *ntet, int **tet, double max_volume, int keep_boundary) {
  double bound = max_volume * (1.0 + JL_TET_VOLUME_TOL);
  int nsplit = 0;
  for (int pass = 0; pass < MAX_BISECT_PASSES; pass++) {
    double *x = *node;
    int *t = *tet, nt = *ntet;

    /* tets above the bound and their edges (sorted, unique) */
    int nover = 0;
    for (int e = 0; e < nt; e++) {
      const int *v = t + 4 * e;
      nover += jl_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]) > bound;
    }
    if (nover == 0) break;
    int *over = jl_calloc((size_t)nover, sizeof(int));
    uint64_t *edge = jl_calloc((size_t)nover * 6, sizeof(uint64_t));
    int nedge = 0;
    nover = 0;
    for (int e = 0; e < nt; e++) {
      const int *v = t + 4 * e;
      if (jl_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]) <= bound) continue;
      over[nover++] = e;
      for (int k = 0; k < 6; k++) edge[nedge++] = edge_key(v[tet_edge[k][0]], v[tet_edge[k][1]]);
    }
    nedge = sort_unique(edge, nedge);
    int nbound = 0;
    uint64_t *bound_edge = keep_boundary ? boundary_edges(t, nt, &nbound) : NULL;

    /* bisecting any edge halves the tet; score each edge by the worst
     * radius-edge ratio its bisection would make around it */
    double *score = jl_calloc((size_t)nedge, sizeof(double));
    for (int e = 0; e < nt; e++)
      for (int k = 0; k < 6; k++) {
        const int *v = t + 4 * e;
        int i = tet_edge[k][0], j = tet_edge[k][1];
        int c = find_key(edge, nedge, edge_key(v[i], v[j]));
        if (c < 0) continue;
        double m[3], half[2];
        for (int d = 0; d < 3; d++) m[d] = 0.5 * (x[3 * v[i] + d] + x[3 * v[j] + d]);
        for (int h = 0; h < 2; h++) {
          const double *p[4] = {x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]};
          p[h == 0 ? j : i] = m;
          half[h] = jl_tet_radius_edge(p[0], p[1], p[2], p[3]);
        }
        score[c] = fmax(score[c], fmax(half[0], half[1]));
      }

    /* each tet above the bound picks its best-scored edge (ties: the longer) */
    int ncand = 0;
    uint64_t *cand = jl_calloc((size_t)nover, sizeof(uint64_t));
    for (int o = 0; o < nover; o++) {
      const int *v = t + 4 * over[o];
      int best = -1;
      double best_score = 0.0, best_len = 0.0;
      for (int k = 0; k < 6; k++) {
        int a = v[tet_edge[k][0]], b = v[tet_edge[k][1]];
        if (bound_edge && find_key(bound_edge, nbound, edge_key(a, b)) >= 0) continue;
        double sc = score[find_key(edge, nedge, edge_key(a, b))], d[3];
        jl_vec3_sub(x + 3 * b, x + 3 * a, d);
        double len = jl_vec3_dot(d, d);
        if (best < 0 || sc < best_score || (sc == best_score && len > best_len)) {
          best = k;
          best_score = sc;
          best_len = len;
        }
      }
      if (best >= 0) cand[ncand++] = edge_key(v[tet_edge[best][0]], v[tet_edge[best][1]]);
    }
    JL_FREE_ALL(score, edge, over, bound_edge);
    if (ncand == 0) {
      free(cand);
      break;
    }
    ncand = sort_unique(cand, ncand);

    /* a tet holding two candidate edges rejects all but the smallest key (the
     * smallest candidate overall is never rejected: every pass progresses) */
    char *rejected = jl_calloc((size_t)ncand, 1);
    for (int e = 0; e < nt; e++) {
      int first = -1;
      for (int k = 0; k < 6; k++) {
        int c = find_key(cand, ncand, edge_key(t[4 * e + tet_edge[k][0]], t[4 * e + tet_edge[k][1]]));
        if (c < 0) continue;
        if (first < 0 || c < first) {
          if (first >= 0) rejected[first] = 1;
          first = c;
        } else {
          rejected[c] = 1;
        }
      }
    }

    /* cut tets around the accepted edges: count them first; a cut that
     * would pass the element cap stops here (jl_tetmesh_check reports) */
    int add = 0, nacc = 0;
    for (int c = 0; c < ncand; c++) nacc += !rejected[c];
    for (int e = 0; e < nt; e++)
      for (int k = 0; k < 6; k++) {
        int c = find_key(cand, ncand, edge_key(t[4 * e + tet_edge[k][0]], t[4 * e + tet_edge[k][1]]));
        add += c >= 0 && !rejected[c];
      }
    if ((double)nt + add > JL_MAX_MESH_ELEMENTS || (double)*nnode + nacc > JL_MAX_MESH_ELEMENTS) {
      free(rejected);
      free(cand);
      break;
    }

    /* midpoints of the accepted edges become nodes */
    int *mid = jl_calloc((size_t)ncand, sizeof(int));
    int nn = *nnode;
    x = *node = jl_realloc(*node, (size_t)(nn + nacc) * 3, sizeof(double));
    for (int c = 0; c < ncand; c++) {
      mid[c] = -1;
      if (rejected[c]) continue;
      int a = (int)(cand[c] >> 32), b = (int)(cand[c] & 0xFFFFFFFFu);
      for (int k = 0; k < 3; k++) x[3 * nn + k] = 0.5 * (x[3 * a + k] + x[3 * b + k]);
      mid[c] = nn++;
    }

    /* cut every tet around an accepted edge */
    t = *tet = jl_realloc(*tet, (size_t)(nt + add) * 4, sizeof(int));
    int out = nt;
    for (int e = 0; e < nt; e++)
      for (int k = 0; k < 6; k++) {
        int i = tet_edge[k][0], j = tet_edge[k][1];
        int c = find_key(cand, ncand, edge_key(t[4 * e + i], t[4 * e + j]));
        if (c < 0 || mid[c] < 0) continue;
        memcpy(t + 4 * out, t + 4 * e, sizeof(int) * 4);
        t[4 * out + i] = mid[c]; /* (m .. b) */
        t[4 * e + j] = mid[c];   /* (a .. m) */
        out++;
        break; /* at most one accepted edge per tet */
      }
    *nnode = nn;
    *ntet = out;
    nsplit += nacc;
    JL_FREE_ALL(mid, rejected, cand);
  }
  return nsplit;
}

int jl_tetmesh_bisect(JlTetMesh *t, double max_volume) {
  JL_ASSERT(t && (t->ntet == 0 || (t->node && t->tet)), "jl_tetmesh_bisect needs a tet mesh");
  JL_ASSERT(max_volume > 0, "jl_tetmesh_bisect needs a volume bound > 0");
  int n = jl_tetmesh_bisect_large(&t->nnode, &t->node, &t->ntet, &t->tet, max_volume, 0);
  if (n > 0 && t->edge) jl_tetmesh_topology(t);
  return n;
}
