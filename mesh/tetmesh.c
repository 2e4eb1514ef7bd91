/* Tetrahedralization of a closed surface (conforming and embedded modes), tet
 * orientation, topology (edges = springs, boundary faces, node adjacency) and
 * quality figures. TetGen itself is only reached through jl_tetgen_raw()
 * (mesh/tetgen_bridge.cpp).
 *
 * Conforming mode feeds the surface to TetGen as a PLC (-p), with quality
 * (-q, radius-edge ratio) and maximum-volume (-a) refinement. Steiner points
 * may go on the boundary (no -Y): a coarse surface such as a 12-triangle box
 * cannot meet a volume bound otherwise (with -Y TetGen kept the 1 m bar at 48
 * tets of up to 4.2x the bound it was given). Every surface vertex stays a tet
 * node (the embedding is exact: weight 1 on that node), and boundary Steiner
 * points are put on input edges and triangles, so the tet boundary is a
 * subdivision of the render surface and the tet volumes add up to the
 * surface's volume. TetGen merges adjacent triangles that are nearly coplanar
 * into one facet and re-triangulates it; its default (dihedral angle above
 * 179.9 degrees) flattens real detail (the bunny's base: boundary off the
 * surface by 1e-5 of the body's size, volume by 5e-8). "-p179.999" merges only
 * triangles within 1e-3 degrees of coplanar: the two halves of a box face, and
 * quads split in two whose corners were rounded to 6 digits in an OBJ file
 * (torus.obj, sphere_uv.obj). Tighter than that, every such quad keeps its
 * diagonal as a constraint and TetGen makes 2.6x the tets (torus.obj: 40430
 * instead of 15642), thousands of them above the quality bound; the price of
 * 1e-3 degrees is a tet boundary within 1.3e-8 of the body's size of those
 * two surfaces (tet volumes within 5e-9 of the surface's), and to rounding on
 * the bunny and the generated shapes (test_tetmesh).
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
 * dihedral angles.
 *
 * Embedded mode follows the "simple method" of Zachmann's mass-spring lecture
 * ("volumetric objects"; docs/references.md): Steiner points fill the object and a
 * band around it, are Delaunay-tetrahedralized, and the surface is anchored in
 * the tets barycentrically. The points are a body-centred cubic lattice of
 * cube side `resolution` covering the bounding box plus one cell, each point
 * jittered by up to 10% of the spacing (deterministic seed). The BCC lattice
 * is chosen because its Delaunay tetrahedralization is unique and well shaped
 * (its Voronoi cells, truncated octahedra, meet four at a vertex), so the
 * jitter only breaks symmetry and never makes slivers. A Delaunay tet is kept
 * when it overlaps the solid: one of its nodes is inside the surface, or it
 * intersects a surface triangle (separating-axis test). Because the lattice
 * hull covers the bounding box, the kept tets cover the whole solid: every
 * surface point lies in a kept tet and the kept volume is at least the
 * surface's volume. Unreferenced lattice points are dropped.
 *
 * The inside test casts a ray along +x through a 2D bucket grid of the
 * triangles (projected on yz) and counts crossings. Rays through edges and
 * vertices are decided by simulation of simplicity (Edelsbrunner & Muecke
 * 1990): an exactly-zero orientation is resolved as if the point were moved by
 * (0, d, d^2), evaluated on each edge in a canonical direction so the two
 * triangles sharing it agree. Crossings behind the point are counted too; an
 * odd total (inconsistent rounding) retries with a slightly moved point. */
#include "mesh/tetmesh.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mesh/child.h"
#include "mesh/csr.h"
#include "mesh/vec3.h"

JlTetgenDef jl_default_tetgen_def(void) {
  JlTetgenDef def;
  def.mode = JL_TETGEN_CONFORMING;
  def.max_volume = 0.0;
  def.quality = 1.5;
  def.resolution = 0.0;
  def.seed = 1u;
  return def;
}

/* smallest radius-edge bound accepted: TetGen's refinement is proven to end
 * only above 2 and in practice hangs below about 1.1 */
#define MIN_QUALITY 1.1
/* upper bound on embedded-mode lattice points (memory and TetGen time) */
#define MAX_LATTICE_POINTS 4000000
/* TetGen's peak memory per output tet (about 190 bytes measured with libtet
 * 1.5 on a refined 1 m box, 1.1 M tets: 220 MB); a lower bound, so an
 * estimate above the limit is certainly too fine */
#define TETGEN_BYTES_PER_TET 150.0
/* Delaunay tets per point of a jittered BCC lattice (about 6.5) */
#define TETS_PER_LATTICE_POINT 6.0

/* Rejects a request whose tets cannot fit the element cap or the child's
 * memory limit (mesh/child.h) before TetGen starts: "too fine for the
 * limit", distinct from TetGen's own failures. what names the setting. */
static JlResult check_estimate(double ntet, const char *what, char *err, size_t errsz) {
  JlMeshLimits lim = jl_mesh_limits();
  double mb = ntet * TETGEN_BYTES_PER_TET / 1048576.0;
  if (ntet > JL_MAX_MESH_ELEMENTS)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s is too fine for the limit: at least %.3g tets, more than the %d element limit", what,
                   ntet, JL_MAX_MESH_ELEMENTS);
  if (mb > lim.memory_mb)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s is too fine for the limit: at least %.3g tets, about %.0f MB for TetGen, more than "
                   "--mesh-memory %g MB",
                   what, ntet, mb, lim.memory_mb);
  return JL_OK;
}

/* ---- geometry helpers (vectors: mesh/vec3.h) ----------------------------- */

double jl_tet_volume(const double *a, const double *b, const double *c, const double *d) {
  double u[3], v[3], w[3], n[3];
  jl_vec3_sub(b, a, u);
  jl_vec3_sub(c, a, v);
  jl_vec3_sub(d, a, w);
  jl_vec3_cross(v, w, n);
  return jl_vec3_dot(u, n) / 6.0;
}

static void bbox_of(int n, const double *x, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    lo[k] = n > 0 ? x[k] : 0.0;
    hi[k] = lo[k];
  }
  for (int i = 1; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], x[3 * i + k]);
      hi[k] = fmax(hi[k], x[3 * i + k]);
    }
}

/* ---- bucket grid: items (by bounding box) listed per cell, CSR ---------- */

typedef struct Grid {
  double lo[3];
  double cell[3]; /* cell size per axis, m */
  int n[3];       /* cells per axis */
  int *start;     /* ncell + 1 */
  int *item;      /* start[ncell] */
} Grid;

static void grid_cells(const Grid *g, const double *lo, const double *hi, int i0[3], int i1[3]) {
  for (int k = 0; k < 3; k++) {
    double a = floor((lo[k] - g->lo[k]) / g->cell[k]);
    double b = floor((hi[k] - g->lo[k]) / g->cell[k]);
    i0[k] = (int)fmax(0.0, fmin(a, g->n[k] - 1.0));
    i1[k] = (int)fmax(0.0, fmin(b, g->n[k] - 1.0));
  }
}

/* items with boxes box_lo/box_hi (nitem x 3) into a grid over [lo, hi] with
 * about `cell` per axis (an axis with cell <= 0 gets a single cell) */
static void grid_build(Grid *g, const double lo[3], const double hi[3], const double cell[3],
                       int nitem, const double *box_lo, const double *box_hi) {
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
  int i0[3], i1[3];
  /* count, prefix-sum, fill */
  for (int it = 0; it < nitem; it++) {
    grid_cells(g, box_lo + 3 * it, box_hi + 3 * it, i0, i1);
    for (int z = i0[2]; z <= i1[2]; z++)
      for (int y = i0[1]; y <= i1[1]; y++)
        for (int x = i0[0]; x <= i1[0]; x++) g->start[((size_t)z * g->n[1] + y) * g->n[0] + x + 1]++;
  }
  for (size_t c = 0; c < ncell; c++) g->start[c + 1] += g->start[c];
  g->item = jl_calloc((size_t)g->start[ncell], sizeof(int));
  int *fill = jl_calloc(ncell, sizeof(int));
  for (int it = 0; it < nitem; it++) {
    grid_cells(g, box_lo + 3 * it, box_hi + 3 * it, i0, i1);
    for (int z = i0[2]; z <= i1[2]; z++)
      for (int y = i0[1]; y <= i1[1]; y++)
        for (int x = i0[0]; x <= i1[0]; x++) {
          size_t c = ((size_t)z * g->n[1] + y) * g->n[0] + x;
          g->item[g->start[c] + fill[c]++] = it;
        }
  }
  free(fill);
}

static void grid_free(Grid *g) {
  free(g->start);
  free(g->item);
}

/* triangle bounding boxes (ntri x 3 each) */
static void triangle_boxes(const JlSurface *s, double *box_lo, double *box_hi) {
  for (int t = 0; t < s->ntri; t++)
    for (int k = 0; k < 3; k++) {
      double a = s->vert[3 * s->tri[3 * t] + k], b = s->vert[3 * s->tri[3 * t + 1] + k],
             c = s->vert[3 * s->tri[3 * t + 2] + k];
      box_lo[3 * t + k] = fmin(a, fmin(b, c));
      box_hi[3 * t + k] = fmax(a, fmax(b, c));
    }
}

/* ---- point in closed surface: +x ray parity ------------------------------ */

/* side (+1/-1) of p from the directed edge u->v in the yz projection, never 0
 * unless the edge projects to a point; see the file comment */
static int edge_side(const double *vert, int u, int v, const double *p) {
  int flip = u > v;
  const double *a = vert + 3 * (flip ? v : u), *b = vert + 3 * (flip ? u : v);
  double dy = b[1] - a[1], dz = b[2] - a[2];
  double o = dy * (p[2] - a[2]) - dz * (p[1] - a[1]);
  int s;
  if (o != 0.0)
    s = o > 0 ? 1 : -1;
  else if (dz != 0.0) /* orientation of p + (0, d, d^2): -dz d + dy d^2 */
    s = dz < 0 ? 1 : -1;
  else
    s = dy > 0 ? 1 : (dy < 0 ? -1 : 0);
  return flip ? -s : s;
}

/* crossings of the x-parallel line through p with the surface, ahead of and
 * behind p; returns 1 if p lies exactly on a triangle */
static int count_crossings(const JlSurface *s, const Grid *g, const double *p, int *ahead, int *behind) {
  *ahead = *behind = 0;
  int i0[3], i1[3];
  grid_cells(g, p, p, i0, i1);
  size_t c = ((size_t)i0[2] * g->n[1] + i0[1]) * g->n[0];
  for (int k = g->start[c]; k < g->start[c + 1]; k++) {
    const int *t = s->tri + 3 * g->item[k];
    int s0 = edge_side(s->vert, t[0], t[1], p);
    if (s0 == 0 || edge_side(s->vert, t[1], t[2], p) != s0 || edge_side(s->vert, t[2], t[0], p) != s0)
      continue;
    /* where the line meets the triangle's plane */
    const double *a = s->vert + 3 * t[0];
    double e1[3], e2[3], n[3];
    jl_vec3_sub(s->vert + 3 * t[1], a, e1);
    jl_vec3_sub(s->vert + 3 * t[2], a, e2);
    jl_vec3_cross(e1, e2, n);
    if (n[0] == 0.0) continue;
    double x = a[0] - (n[1] * (p[1] - a[1]) + n[2] * (p[2] - a[2])) / n[0];
    if (x == p[0]) return 1;
    if (x > p[0])
      (*ahead)++;
    else
      (*behind)++;
  }
  return 0;
}

/* 1 if p is inside (or on) the closed surface; g is the yz grid of triangles */
static int point_inside(const JlSurface *s, const Grid *g, const double *p) {
  double q[3] = {p[0], p[1], p[2]};
  int ahead = 0, behind = 0;
  for (int attempt = 0; attempt < 4; attempt++) {
    if (count_crossings(s, g, q, &ahead, &behind)) return 1;
    if ((ahead + behind) % 2 == 0) break;
    /* inconsistent rounding at a vertex: move the ray a little */
    q[1] = p[1] + 1e-9 * g->cell[1] * (attempt + 1);
    q[2] = p[2] + 0.7e-9 * g->cell[2] * (attempt + 1);
  }
  return ahead % 2 == 1;
}

/* ---- tet / triangle overlap: separating axis theorem --------------------- */

/* 1 if the projections of the two point sets on axis do not overlap */
static int separated_on(const double *axis, const double *const *p, int np, const double *const *q, int nq) {
  double pmin = DBL_MAX, pmax = -DBL_MAX, qmin = DBL_MAX, qmax = -DBL_MAX;
  for (int i = 0; i < np; i++) {
    double d = jl_vec3_dot(axis, p[i]);
    pmin = fmin(pmin, d);
    pmax = fmax(pmax, d);
  }
  for (int i = 0; i < nq; i++) {
    double d = jl_vec3_dot(axis, q[i]);
    qmin = fmin(qmin, d);
    qmax = fmax(qmax, d);
  }
  return pmax < qmin || qmax < pmin;
}

/* 1 if the (closed) tet and triangle intersect. Candidate axes: the 4 tet
 * face normals, the triangle normal and the 18 edge-edge cross products;
 * nearly-parallel edge pairs are skipped (their axis carries no information
 * and rounding could make it separate touching shapes). */
static int tet_triangle_overlap(const double *const tv[4], const double *const rv[3]) {
  static const int edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  double axis[3], u[3], v[3];
  for (int f = 0; f < 4; f++) {
    jl_vec3_sub(tv[face[f][1]], tv[face[f][0]], u);
    jl_vec3_sub(tv[face[f][2]], tv[face[f][0]], v);
    jl_vec3_cross(u, v, axis);
    if (separated_on(axis, tv, 4, rv, 3)) return 0;
  }
  double re[3][3];
  for (int k = 0; k < 3; k++) jl_vec3_sub(rv[(k + 1) % 3], rv[k], re[k]);
  jl_vec3_cross(re[0], re[1], axis);
  if (separated_on(axis, tv, 4, rv, 3)) return 0;
  for (int e = 0; e < 6; e++) {
    jl_vec3_sub(tv[edge[e][1]], tv[edge[e][0]], u);
    for (int k = 0; k < 3; k++) {
      jl_vec3_cross(u, re[k], axis);
      if (jl_vec3_dot(axis, axis) <= 1e-24 * jl_vec3_dot(u, u) * jl_vec3_dot(re[k], re[k])) continue;
      if (separated_on(axis, tv, 4, rv, 3)) return 0;
    }
  }
  return 1;
}

/* ---- embedded mode --------------------------------------------------------- */

/* splitmix64 (Steele, Lea & Flood 2014): the lattice jitter's random stream */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* uniform in [-1, 1) */
static double jitter_unit(uint64_t *state) {
  return (double)(splitmix64(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* jittered BCC lattice over [lo - h, hi + h]: corners (n+1)^3 then centres n^3 */
static int make_lattice(const double lo[3], const double hi[3], double h, unsigned seed, double **out,
                        char *err, size_t errsz) {
  int n[3];
  double npoint = 1.0, ncentre = 1.0;
  for (int k = 0; k < 3; k++) {
    double cells = ceil((hi[k] - lo[k]) / h) + 2.0;
    npoint *= cells + 1.0;
    ncentre *= cells;
    n[k] = cells < 1e7 ? (int)cells : 0; /* huge counts fail just below */
  }
  if (npoint + ncentre > MAX_LATTICE_POINTS) {
    jl_fail(err, errsz, JL_ERR_INPUT,
            "embedded resolution %g m is too fine for this body: %.0f lattice points (limit %d)", h,
            npoint + ncentre, MAX_LATTICE_POINTS);
    return -1;
  }
  int total = (int)(npoint + ncentre);
  double *x = jl_calloc((size_t)total * 3, sizeof(double));
  uint64_t state = 0x6A656C6C79ull ^ ((uint64_t)seed << 32) ^ seed;
  double amp = 0.1 * h;
  int m = 0;
  for (int pass = 0; pass < 2; pass++) {
    int extra = pass == 0 ? 1 : 0;     /* corners have one more per axis */
    double shift = pass == 0 ? 0.0 : 0.5; /* centres sit half a cell in */
    for (int k = 0; k <= n[2] - 1 + extra; k++)
      for (int j = 0; j <= n[1] - 1 + extra; j++)
        for (int i = 0; i <= n[0] - 1 + extra; i++) {
          int idx[3] = {i, j, k};
          for (int d = 0; d < 3; d++)
            x[3 * m + d] = lo[d] + (idx[d] - 1.0 + shift) * h + amp * jitter_unit(&state);
          m++;
        }
  }
  *out = x;
  return m;
}

/* Fraction of each kept tet inside the surface: 1 for a tet with all four
 * nodes inside, else the share of FILL_SAMPLES points on a barycentric grid
 * that are inside (at least one sample's worth, so no node is left without
 * mass); then the partial tets are scaled together so that the volumes times
 * the fractions add up to the surface's volume. */
#define FILL_N 6 /* grid points (i, j, k, l) / (FILL_N + 1) with i + j + k + l = FILL_N, shifted by 1/4 */
static double *tet_fill(const JlSurface *s, const Grid *ray_grid, const double *x, const int *tet, int ntet,
                        const char *inside) {
  double *fill = jl_calloc((size_t)ntet + 1, sizeof(double));
  double full = 0.0, part = 0.0;
  for (int t = 0; t < ntet; t++) {
    const int *v = tet + 4 * t;
    double vol = fabs(jl_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]));
    if (inside[v[0]] && inside[v[1]] && inside[v[2]] && inside[v[3]]) {
      fill[t] = 1.0;
      full += vol;
      continue;
    }
    int in = 0, n = 0;
    for (int i = 0; i <= FILL_N; i++)
      for (int j = 0; i + j <= FILL_N; j++)
        for (int k = 0; i + j + k <= FILL_N; k++) {
          int l = FILL_N - i - j - k;
          double w[4] = {(i + 0.25) / (FILL_N + 1), (j + 0.25) / (FILL_N + 1), (k + 0.25) / (FILL_N + 1),
                         (l + 0.25) / (FILL_N + 1)};
          double p[3] = {0, 0, 0};
          for (int c = 0; c < 4; c++)
            for (int d = 0; d < 3; d++) p[d] += w[c] * x[3 * v[c] + d];
          in += point_inside(s, ray_grid, p);
          n++;
        }
    fill[t] = (double)(in > 0 ? in : 1) / n;
    part += vol * fill[t];
  }
  /* the partial tets carry exactly the surface's volume beyond the full ones */
  double want = fabs(jl_surface_volume(s)) - full;
  if (part > 0.0 && want > 0.0)
    for (int t = 0; t < ntet; t++)
      if (fill[t] < 1.0) fill[t] = fmin(1.0, fill[t] * want / part);
  return fill;
}

static JlResult build_embedded(const JlSurface *s, const JlTetgenDef *def, int *nnode, double **node,
                               int *ntet, int **tet, double **fill_out, char *err, size_t errsz) {
  double lo[3], hi[3];
  bbox_of(s->nvert, s->vert, lo, hi);
  double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                     (hi[2] - lo[2]) * (hi[2] - lo[2]));
  double h = def->resolution > 0 ? def->resolution : diag / 12.0;

  /* Steiner points: jittered BCC lattice over the bounding box plus a cell;
   * about 6 Delaunay tets per point must fit the limits */
  double cells = 1.0;
  for (int k = 0; k < 3; k++) cells *= ceil((hi[k] - lo[k]) / h) + 3.0;
  char what[96];
  snprintf(what, sizeof what, "embedded resolution %g m", h);
  if (check_estimate(2.0 * cells * TETS_PER_LATTICE_POINT, what, err, errsz) != JL_OK) return JL_ERR_INPUT;
  double *pts = NULL;
  int npts = make_lattice(lo, hi, h, def->seed, &pts, err, errsz);
  if (npts < 0) return JL_ERR_INPUT;

  /* Delaunay tetrahedralization of the points alone */
  int nout = 0, nt = 0;
  double *outx = NULL;
  int *outt = NULL;
  JlResult r = jl_tetgen_raw("Q", npts, pts, 0, NULL, &nout, &outx, &nt, &outt, err, errsz);
  free(pts);
  if (r != JL_OK) return r;

  /* which nodes are inside the surface (yz grid of triangles for the rays) */
  double *box_lo = jl_calloc((size_t)s->ntri * 3, sizeof(double));
  double *box_hi = jl_calloc((size_t)s->ntri * 3, sizeof(double));
  triangle_boxes(s, box_lo, box_hi);
  double cell2d = sqrt((hi[1] - lo[1]) * (hi[2] - lo[2]) / fmax(1.0, 0.5 * s->ntri));
  Grid ray_grid, tri_grid;
  grid_build(&ray_grid, lo, hi, (double[3]){0.0, cell2d, cell2d}, s->ntri, box_lo, box_hi);
  grid_build(&tri_grid, lo, hi, (double[3]){0.5 * h, 0.5 * h, 0.5 * h}, s->ntri, box_lo, box_hi);
  char *inside = jl_calloc((size_t)nout, 1);
  for (int i = 0; i < nout; i++) {
    const double *p = outx + 3 * i;
    int in_box = 1;
    for (int k = 0; k < 3; k++) in_box &= p[k] >= lo[k] && p[k] <= hi[k];
    inside[i] = (char)(in_box && point_inside(s, &ray_grid, p));
  }

  /* keep tets overlapping the solid: a node inside, or crossing a triangle */
  int *stamp = jl_calloc((size_t)s->ntri, sizeof(int));
  int kept = 0;
  for (int t = 0; t < nt; t++) {
    const int *v = outt + 4 * t;
    const double *tv[4] = {outx + 3 * v[0], outx + 3 * v[1], outx + 3 * v[2], outx + 3 * v[3]};
    double vol = jl_tet_volume(tv[0], tv[1], tv[2], tv[3]);
    if (fabs(vol) <= 1e-12 * h * h * h) continue; /* zero-volume sliver */
    int keep = inside[v[0]] || inside[v[1]] || inside[v[2]] || inside[v[3]];
    if (!keep) {
      double tlo[3], thi[3], flat[12];
      for (int k = 0; k < 4; k++) memcpy(flat + 3 * k, tv[k], sizeof(double) * 3);
      bbox_of(4, flat, tlo, thi);
      int i0[3], i1[3];
      grid_cells(&tri_grid, tlo, thi, i0, i1);
      for (int z = i0[2]; z <= i1[2] && !keep; z++)
        for (int y = i0[1]; y <= i1[1] && !keep; y++)
          for (int x = i0[0]; x <= i1[0] && !keep; x++) {
            size_t c = ((size_t)z * tri_grid.n[1] + y) * tri_grid.n[0] + x;
            for (int k = tri_grid.start[c]; k < tri_grid.start[c + 1] && !keep; k++) {
              int tri = tri_grid.item[k];
              if (stamp[tri] == t + 1) continue; /* already tested for this tet */
              stamp[tri] = t + 1;
              int disjoint = 0;
              for (int d = 0; d < 3; d++)
                disjoint |= box_hi[3 * tri + d] < tlo[d] || box_lo[3 * tri + d] > thi[d];
              if (disjoint) continue;
              const int *f = s->tri + 3 * tri;
              const double *rv[3] = {s->vert + 3 * f[0], s->vert + 3 * f[1], s->vert + 3 * f[2]};
              keep = tet_triangle_overlap(tv, rv);
            }
          }
    }
    if (keep) memmove(outt + 4 * kept++, v, sizeof(int) * 4);
  }
  free(stamp);
  *fill_out = kept > 0 ? tet_fill(s, &ray_grid, outx, outt, kept, inside) : NULL;
  free(inside);
  free(box_lo);
  free(box_hi);
  grid_free(&ray_grid);
  grid_free(&tri_grid);

  if (kept == 0) {
    free(outx);
    free(outt);
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "embedded mode kept no tetrahedra (resolution %g m, body %g m across)", h, diag);
  }
  *nnode = nout;
  *node = outx;
  *ntet = kept;
  *tet = outt;
  return JL_OK;
}

/* ---- conforming mode ------------------------------------------------------- */

static JlResult build_conforming(const JlSurface *s, const JlTetgenDef *def, int *nnode, double **node,
                                 int *ntet, int **tet, char *err, size_t errsz) {
  /* -p PLC, facets merged only when coplanar to 1e-3 degrees (file comment),
   * -q radius-edge bound, -a volume bound; %.9g keeps the bounds (TetGen's
   * parser accepts exponents, a1.5e-07) */
  char sw[96] = "p179.999Q";
  size_t len = strlen(sw);
  if (def->quality > 0) len += (size_t)snprintf(sw + len, sizeof sw - len, "q%.9g", def->quality);
  if (def->max_volume > 0) snprintf(sw + len, sizeof sw - len, "a%.9g", def->max_volume);
  return jl_tetgen_raw(sw, s->nvert, s->vert, s->ntri, s->tri, nnode, node, ntet, tet, err, errsz);
}

/* ---- volume bound: longest-edge bisection ---------------------------------- */

/* passes of bisect_large; each halves every tet still above the bound, so a
 * tet up to 2^32 times the bound would fit; in practice one or two */
#define MAX_BISECT_PASSES 32

static const int tet_edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

static uint64_t edge_key(int a, int b) {
  return a < b ? ((uint64_t)a << 32) | (uint64_t)b : ((uint64_t)b << 32) | (uint64_t)a;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* sorts key[0..n) and drops repeats; returns the new count */
static int sort_unique(uint64_t *key, int n) {
  qsort(key, (size_t)n, sizeof(uint64_t), cmp_u64);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m == 0 || key[i] != key[m - 1]) key[m++] = key[i];
  return m;
}

/* index of key in the sorted array key[0..n), or -1 */
static int find_key(const uint64_t *key, int n, uint64_t k) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (key[mid] == k) return mid;
    if (key[mid] < k) lo = mid + 1;
    else hi = mid - 1;
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
 * sweeps over the tets. Returns the number of edges bisected. */
static int bisect_large(int *nnode, double **node, int *ntet, int **tet, double max_volume) {
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
        double sc = score[find_key(edge, nedge, edge_key(a, b))], d[3];
        jl_vec3_sub(x + 3 * b, x + 3 * a, d);
        double len = jl_vec3_dot(d, d);
        if (best < 0 || sc < best_score || (sc == best_score && len > best_len)) {
          best = k;
          best_score = sc;
          best_len = len;
        }
      }
      cand[ncand++] = edge_key(v[tet_edge[best][0]], v[tet_edge[best][1]]);
    }
    free(score);
    free(edge);
    free(over);
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
    free(mid);
    free(rejected);
    free(cand);
  }
  return nsplit;
}

int jl_tetmesh_bisect(JlTetMesh *t, double max_volume) {
  JL_ASSERT(t && (t->ntet == 0 || (t->node && t->tet)), "jl_tetmesh_bisect needs a tet mesh");
  JL_ASSERT(max_volume > 0, "jl_tetmesh_bisect needs a volume bound > 0");
  int n = bisect_large(&t->nnode, &t->node, &t->ntet, &t->tet, max_volume);
  if (n > 0 && t->edge) jl_tetmesh_topology(t);
  return n;
}

/* ---- build ------------------------------------------------------------------ */

JlResult jl_tetgen_build(const JlSurface *s, const JlTetgenDef *def, JlTetMesh *out, char *err,
                         size_t errsz) {
  JL_ASSERT(s && def && out, "jl_tetgen_build needs a surface, a def (jl_default_tetgen_def) and an output");
  memset(out, 0, sizeof *out);

  /* check the def and the surface */
  if ((int)def->mode < 0 || (int)def->mode >= (int)JL_TETGEN_MODE_COUNT)
    return jl_fail(err, errsz, JL_ERR_INPUT, "unknown tetrahedralization mode %d", (int)def->mode);
  if (!(def->max_volume >= 0) || !isfinite(def->max_volume))
    return jl_fail(err, errsz, JL_ERR_INPUT, "maximum tet volume must be >= 0 m^3, got %g", def->max_volume);
  if (!(def->quality == 0 || def->quality >= MIN_QUALITY) || !isfinite(def->quality))
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "tet quality (radius-edge ratio bound) must be 0 (off) or >= %.1f, got %g",
                   MIN_QUALITY, def->quality);
  if (!(def->resolution >= 0) || !isfinite(def->resolution))
    return jl_fail(err, errsz, JL_ERR_INPUT, "embedded resolution must be >= 0 m, got %g", def->resolution);
  if (s->nvert < 4 || s->ntri < 4)
    return jl_fail(err, errsz, JL_ERR_INPUT, "surface too small to tetrahedralize (%d vertices, %d triangles)",
                   s->nvert, s->ntri);
  for (int i = 0; i < 3 * s->nvert; i++)
    if (!isfinite(s->vert[i]))
      return jl_fail(err, errsz, JL_ERR_INPUT, "vertex %d has a non-finite coordinate", i / 3);

  /* conforming with a volume bound: at least volume / max_volume tets */
  if (def->mode == JL_TETGEN_CONFORMING && def->max_volume > 0) {
    char what[96];
    snprintf(what, sizeof what, "max_volume %g m^3", def->max_volume);
    if (check_estimate(fabs(jl_surface_volume(s)) / def->max_volume, what, err, errsz) != JL_OK)
      return JL_ERR_INPUT;
  }

  int nnode = 0, ntet = 0;
  double *node = NULL, *fill = NULL;
  int *tet = NULL;
  JlResult r = def->mode == JL_TETGEN_EMBEDDED
                   ? build_embedded(s, def, &nnode, &node, &ntet, &tet, &fill, err, errsz)
                   : build_conforming(s, def, &nnode, &node, &ntet, &tet, err, errsz);
  if (r != JL_OK) return r;

  /* orientation: positive signed volume; a zero-volume tet is an error */
  double lo[3], hi[3];
  bbox_of(nnode, node, lo, hi);
  double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  for (int t = 0; t < ntet; t++) {
    int *v = tet + 4 * t;
    double vol = jl_tet_volume(node + 3 * v[0], node + 3 * v[1], node + 3 * v[2], node + 3 * v[3]);
    if (fabs(vol) <= 1e-15 * size * size * size) {
      r = jl_fail(err, errsz, JL_ERR_INPUT, "tet %d (nodes %d %d %d %d) has zero volume (%g m^3)", t,
                  v[0], v[1], v[2], v[3], vol);
      free(node);
      free(tet);
      free(fill);
      return r;
    }
    if (vol < 0) {
      int tmp = v[2];
      v[2] = v[3];
      v[3] = tmp;
    }
  }

  /* conforming: bring tets TetGen's sliver removal left above max_volume
   * within it (bisect_large) */
  int nbisect = 0;
  if (def->mode == JL_TETGEN_CONFORMING && def->max_volume > 0)
    nbisect = bisect_large(&nnode, &node, &ntet, &tet, def->max_volume);

  /* drop nodes no tet uses (then jl_tetmesh_reorder numbers the rest along
   * a Hilbert curve, mesh/order.c) */
  int *remap = jl_calloc((size_t)nnode, sizeof(int));
  for (int i = 0; i < 4 * ntet; i++) remap[tet[i]] = 1;
  int used = 0;
  for (int i = 0; i < nnode; i++) {
    if (!remap[i]) {
      remap[i] = -1;
      continue;
    }
    if (used != i) memcpy(node + 3 * used, node + 3 * i, sizeof(double) * 3);
    remap[i] = used++;
  }
  for (int i = 0; i < 4 * ntet; i++) tet[i] = remap[tet[i]];
  free(remap);

  out->nnode = used;
  out->node = jl_realloc(node, (size_t)used * 3, sizeof(double));
  out->ntet = ntet;
  out->tet = jl_realloc(tet, (size_t)ntet * 4, sizeof(int));
  out->fill = fill;
  out->nbisect = nbisect;
  jl_tetmesh_reorder(out);
  jl_tetmesh_topology(out);
  return JL_OK;
}

/* ---- topology ----------------------------------------------------------------- */

typedef struct FaceKey {
  int sorted[3]; /* node ids ascending: identifies the face */
  int tet, which;
} FaceKey;

static int cmp_face(const void *a, const void *b) {
  const FaceKey *x = a, *y = b;
  for (int k = 0; k < 3; k++)
    if (x->sorted[k] != y->sorted[k]) return (x->sorted[k] > y->sorted[k]) - (x->sorted[k] < y->sorted[k]);
  return 0;
}

/* outward faces of a positively oriented tet (a, b, c, d) */
static const int tet_face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

void jl_tetmesh_topology(JlTetMesh *t) {
  JL_ASSERT(t && (t->ntet == 0 || (t->node && t->tet)), "jl_tetmesh_topology needs a tet mesh");
  free(t->edge);
  free(t->face);
  free(t->adj_start);
  free(t->adj);

  /* unique edges: 6 per tet as (min, max) keys, sorted, deduplicated */
  size_t nkey = (size_t)t->ntet * 6;
  uint64_t *key = jl_calloc(nkey, sizeof(uint64_t));
  for (int e = 0; e < t->ntet; e++)
    for (int k = 0; k < 6; k++) {
      uint64_t a = (uint64_t)t->tet[4 * e + tet_edge[k][0]], b = (uint64_t)t->tet[4 * e + tet_edge[k][1]];
      key[6 * (size_t)e + k] = a < b ? (a << 32) | b : (b << 32) | a;
    }
  qsort(key, nkey, sizeof(uint64_t), cmp_u64);
  size_t nedge = 0;
  for (size_t i = 0; i < nkey; i++)
    if (i == 0 || key[i] != key[i - 1]) key[nedge++] = key[i];
  t->nedge = (int)nedge;
  t->edge = jl_calloc(nedge * 2, sizeof(int));
  for (size_t i = 0; i < nedge; i++) {
    t->edge[2 * i] = (int)(key[i] >> 32);
    t->edge[2 * i + 1] = (int)(key[i] & 0xFFFFFFFFu);
  }
  free(key);

  /* boundary faces: faces of exactly one tet, kept in that tet's outward order */
  size_t nfk = (size_t)t->ntet * 4;
  FaceKey *fk = jl_calloc(nfk, sizeof(FaceKey));
  for (int e = 0; e < t->ntet; e++)
    for (int f = 0; f < 4; f++) {
      FaceKey *k = &fk[4 * (size_t)e + f];
      int a = t->tet[4 * e + tet_face[f][0]], b = t->tet[4 * e + tet_face[f][1]], c = t->tet[4 * e + tet_face[f][2]];
      int lo = a < b ? (a < c ? a : c) : (b < c ? b : c);
      int hi = a > b ? (a > c ? a : c) : (b > c ? b : c);
      k->sorted[0] = lo;
      k->sorted[1] = a + b + c - lo - hi;
      k->sorted[2] = hi;
      k->tet = e;
      k->which = f;
    }
  qsort(fk, nfk, sizeof(FaceKey), cmp_face);
  t->nface = 0;
  t->face = jl_calloc(nfk * 3, sizeof(int));
  for (size_t i = 0; i < nfk;) {
    size_t j = i + 1;
    while (j < nfk && cmp_face(&fk[i], &fk[j]) == 0) j++;
    if (j - i == 1) {
      const int *v = t->tet + 4 * fk[i].tet;
      for (int k = 0; k < 3; k++) t->face[3 * t->nface + k] = v[tet_face[fk[i].which][k]];
      t->nface++;
    }
    i = j;
  }
  free(fk);
  t->face = jl_realloc(t->face, (size_t)t->nface * 3, sizeof(int));

  /* adjacency (CSR, mesh/csr.h): each node's neighbours, ascending */
  jl_csr_edges(t->nnode, t->nedge, t->edge, NULL, NULL, &t->adj_start, &t->adj);
}

void jl_tetmesh_free(JlTetMesh *t) {
  if (!t) return;
  free(t->node);
  free(t->tet);
  free(t->fill);
  free(t->edge);
  free(t->face);
  free(t->adj_start);
  free(t->adj);
  memset(t, 0, sizeof *t);
}

/* ---- quality ------------------------------------------------------------------- */

void jl_tetmesh_quality(const JlTetMesh *t, JlTetQuality *q) {
  JL_ASSERT(t && q, "jl_tetmesh_quality needs a tet mesh and an output");
  q->min_dihedral_deg = t->ntet > 0 ? 180.0 : 0.0;
  q->max_dihedral_deg = 0.0;
  q->volume_sum = 0.0;
  q->min_volume = t->ntet > 0 ? DBL_MAX : 0.0;
  for (int e = 0; e < t->ntet; e++) {
    const int *v = t->tet + 4 * e;
    const double *x[4] = {t->node + 3 * v[0], t->node + 3 * v[1], t->node + 3 * v[2], t->node + 3 * v[3]};
    double vol = jl_tet_volume(x[0], x[1], x[2], x[3]);
    q->volume_sum += vol;
    q->min_volume = fmin(q->min_volume, vol);
    /* outward face normals; the dihedral angle at the edge shared by faces
     * f and g is pi minus the angle between their normals */
    double n[4][3];
    for (int f = 0; f < 4; f++) {
      double a[3], b[3];
      jl_vec3_sub(x[tet_face[f][1]], x[tet_face[f][0]], a);
      jl_vec3_sub(x[tet_face[f][2]], x[tet_face[f][0]], b);
      jl_vec3_cross(a, b, n[f]);
    }
    for (int f = 0; f < 4; f++)
      for (int g = f + 1; g < 4; g++) {
        double c = jl_vec3_dot(n[f], n[g]) / sqrt(jl_vec3_dot(n[f], n[f]) * jl_vec3_dot(n[g], n[g]));
        double deg = 180.0 - acos(fmax(-1.0, fmin(1.0, c))) * (180.0 / 3.14159265358979323846);
        q->min_dihedral_deg = fmin(q->min_dihedral_deg, deg);
        q->max_dihedral_deg = fmax(q->max_dihedral_deg, deg);
      }
  }
}

double jl_tet_radius_edge(const double *a, const double *b, const double *c, const double *d) {
  /* circumcentre relative to a: o = (|u|^2 (v x w) + |v|^2 (w x u) + |w|^2 (u x v)) / (2 u.(v x w)) */
  double u[3], v[3], w[3], vw[3], wu[3], uv[3];
  jl_vec3_sub(b, a, u);
  jl_vec3_sub(c, a, v);
  jl_vec3_sub(d, a, w);
  jl_vec3_cross(v, w, vw);
  jl_vec3_cross(w, u, wu);
  jl_vec3_cross(u, v, uv);
  double det = 2.0 * jl_vec3_dot(u, vw);
  if (det == 0.0) return INFINITY;
  double uu = jl_vec3_dot(u, u), vv = jl_vec3_dot(v, v), ww = jl_vec3_dot(w, w), o[3];
  for (int k = 0; k < 3; k++) o[k] = (uu * vw[k] + vv * wu[k] + ww * uv[k]) / det;
  /* shortest of the six edges */
  double bc[3], bd[3], cd[3];
  jl_vec3_sub(c, b, bc);
  jl_vec3_sub(d, b, bd);
  jl_vec3_sub(d, c, cd);
  double shortest = fmin(fmin(uu, vv), ww);
  shortest = fmin(shortest, fmin(jl_vec3_dot(bc, bc), fmin(jl_vec3_dot(bd, bd), jl_vec3_dot(cd, cd))));
  return sqrt(jl_vec3_dot(o, o) / shortest);
}

void jl_tetmesh_check(const JlTetMesh *t, const JlTetgenDef *def, JlTetCheck *c) {
  JL_ASSERT(t && def && c, "jl_tetmesh_check needs a tet mesh, its def and an output");
  memset(c, 0, sizeof *c);
  int conforming = def->mode == JL_TETGEN_CONFORMING;
  for (int e = 0; e < t->ntet; e++) {
    const int *v = t->tet + 4 * e;
    const double *x[4] = {t->node + 3 * v[0], t->node + 3 * v[1], t->node + 3 * v[2], t->node + 3 * v[3]};
    double vol = jl_tet_volume(x[0], x[1], x[2], x[3]);
    double ratio = jl_tet_radius_edge(x[0], x[1], x[2], x[3]);
    c->largest_volume = fmax(c->largest_volume, vol);
    c->largest_ratio = fmax(c->largest_ratio, ratio);
    if (!conforming) continue;
    c->over_volume += def->max_volume > 0 && vol > def->max_volume * (1.0 + JL_TET_VOLUME_TOL);
    c->over_quality += def->quality > 0 && ratio > def->quality * (1.0 + JL_TET_QUALITY_TOL);
    c->over_guarantee +=
        def->quality > 0 && ratio > fmax(def->quality, JL_TET_RATIO_GUARANTEE) * (1.0 + JL_TET_QUALITY_TOL);
  }
}
