/* Tetrahedralization, topology, embedding and generated shapes: conforming
 * tets tile the surface's volume exactly, topology is a consistent complex
 * (edges unique and sorted, interior faces shared by two tets, boundary a
 * closed manifold enclosing the surface's volume, Euler characteristic of a
 * ball or solid torus), embeddings reproduce the surface, embedded mode covers
 * the body with few nodes, shapes are closed with the analytic volumes, and
 * TetGen failures and bad flags come back as messages, not crashes. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collision/narrow.h"
#include "mesh/embed.h"
#include "mesh/shapes.h"
#include "mesh/tetmesh.h"
#include "tests/harness.h"

#define PI 3.14159265358979323846


static int load_model(const char *name, JlSurface *s) {
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/%s", JL_MODELS_DIR, name);
  JlResult r = jl_surface_load(path, s, err, sizeof err);
  if (r != JL_OK) fprintf(stderr, "%s\n", err);
  return r == JL_OK;
}

static double size_of(const double *x, int n) {
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], x[3 * i + k]);
      hi[k] = fmax(hi[k], x[3 * i + k]);
    }
  return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

/* area and divergence-theorem volume of a triangle set */
static void area_volume(const double *x, int ntri, const int *tri, double *area, double *volume) {
  *area = *volume = 0.0;
  for (int t = 0; t < ntri; t++) {
    const double *a = x + 3 * tri[3 * t], *b = x + 3 * tri[3 * t + 1], *c = x + 3 * tri[3 * t + 2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    *area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    *volume +=
        (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0])) /
        6.0;
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* 1 if every directed edge u->v of the triangles has exactly one v->u and
 * appears once (closed, oriented 2-manifold edges) */
static int closed_oriented(int ntri, const int *tri) {
  size_t n = (size_t)ntri * 3;
  uint64_t *fwd = calloc(n, sizeof(uint64_t)), *rev = calloc(n, sizeof(uint64_t));
  for (int t = 0; t < ntri; t++)
    for (int k = 0; k < 3; k++) {
      uint64_t a = (uint64_t)tri[3 * t + k], b = (uint64_t)tri[3 * t + (k + 1) % 3];
      fwd[3 * t + k] = a << 32 | b;
      rev[3 * t + k] = b << 32 | a;
    }
  qsort(fwd, n, sizeof(uint64_t), cmp_u64);
  qsort(rev, n, sizeof(uint64_t), cmp_u64);
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) ok = fwd[i] == rev[i] && (i == 0 || fwd[i] != fwd[i - 1]);
  free(fwd);
  free(rev);
  return ok;
}

/* a tet mesh owning copies of nnode nodes and ntet tets (jl_tetmesh_free frees them) */
static void tet_mesh_of(JlTetMesh *t, int nnode, const double *node, int ntet, const int *tet) {
  memset(t, 0, sizeof *t);
  t->nnode = nnode;
  t->ntet = ntet;
  t->node = malloc(3 * (size_t)nnode * sizeof(double));
  t->tet = malloc(4 * (size_t)ntet * sizeof(int));
  memcpy(t->node, node, 3 * (size_t)nnode * sizeof(double));
  memcpy(t->tet, tet, 4 * (size_t)ntet * sizeof(int));
}

/* interior faces shared by exactly two tets with opposite orientations, and
 * V - E + F - T over all faces equal to `euler` */
static int check_complex(const JlTetMesh *t, int euler) {
  static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  /* directed outward faces keyed by (sorted triple, orientation parity) */
  size_t n = (size_t)t->ntet * 4;
  uint64_t *key = calloc(n, sizeof(uint64_t));
  for (int e = 0; e < t->ntet; e++)
    for (int f = 0; f < 4; f++) {
      int v[3];
      for (int k = 0; k < 3; k++) v[k] = t->tet[4 * e + face[f][k]];
      /* sort with a bubble sort, counting swaps: parity of the cyclic order */
      int swaps = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2 - i; j++)
          if (v[j] > v[j + 1]) {
            int tmp = v[j];
            v[j] = v[j + 1];
            v[j + 1] = tmp;
            swaps++;
          }
      key[4 * e + f] = ((uint64_t)v[0] << 42) | ((uint64_t)v[1] << 21) | (uint64_t)v[2];
      key[4 * e + f] = key[4 * e + f] << 1 | (uint64_t)(swaps & 1);
    }
  qsort(key, n, sizeof(uint64_t), cmp_u64);
  int ok = 1, nunique = 0, nboundary = 0;
  for (size_t i = 0; i < n && ok;) {
    size_t j = i + 1;
    while (j < n && key[j] >> 1 == key[i] >> 1) j++;
    if (j - i > 2) ok = 0;                                      /* face of 3+ tets */
    if (j - i == 2 && (key[i] & 1) == (key[i + 1] & 1)) ok = 0; /* same orientation twice */
    if (j - i == 1) nboundary++;
    nunique++;
    i = j;
  }
  free(key);
  if (!ok) return 0;
  if (nboundary != t->nface) return 0;
  return t->nnode - t->nedge + nunique - t->ntet == euler;
}

/* edges unique, sorted, (lo, hi); adjacency symmetric, ascending, from edges */
static int check_edges_adjacency(const JlTetMesh *t) {
  for (int e = 0; e < t->nedge; e++) {
    const int *p = t->edge + 2 * e;
    if (p[0] >= p[1] || p[0] < 0 || p[1] >= t->nnode) return 0;
    if (e > 0 && !(p[-2] < p[0] || (p[-2] == p[0] && p[-1] < p[1]))) return 0;
  }
  if (t->adj_start[0] != 0 || t->adj_start[t->nnode] != 2 * t->nedge) return 0;
  for (int i = 0; i < t->nnode; i++)
    for (int k = t->adj_start[i]; k < t->adj_start[i + 1]; k++) {
      int j = t->adj[k];
      if (k > t->adj_start[i] && t->adj[k - 1] >= j) return 0;
      /* symmetric: i is in j's row */
      int found = 0;
      for (int m = t->adj_start[j]; m < t->adj_start[j + 1]; m++) found |= t->adj[m] == i;
      if (!found) return 0;
    }
  /* every tet edge is an edge (6 per tet, binary search) */
  for (int e = 0; e < t->ntet; e++)
    for (int a = 0; a < 4; a++)
      for (int b = a + 1; b < 4; b++) {
        int u = t->tet[4 * e + a], v = t->tet[4 * e + b];
        if (u > v) u ^= v, v ^= u, u ^= v;
        int lo = 0, hi = t->nedge - 1, found = 0;
        while (lo <= hi && !found) {
          int mid = (lo + hi) / 2;
          const int *p = t->edge + 2 * mid;
          if (p[0] == u && p[1] == v)
            found = 1;
          else if (p[0] < u || (p[0] == u && p[1] < v))
            lo = mid + 1;
          else
            hi = mid - 1;
        }
        if (!found) return 0;
      }
  return 1;
}

/* smallest and largest tet volume */
static void tet_volume_range(const JlTetMesh *t, double *vmin, double *vmax) {
  *vmin = 1e300;
  *vmax = -1e300;
  for (int e = 0; e < t->ntet; e++) {
    const int *v = t->tet + 4 * e;
    double vol = jl_tet_volume(t->node + 3 * v[0], t->node + 3 * v[1], t->node + 3 * v[2], t->node + 3 * v[3]);
    *vmin = fmin(*vmin, vol);
    *vmax = fmax(*vmax, vol);
  }
}

/* embedding weights sum to 1 and reproduce the points to tol x size;
 * returns the smallest weight (negative: extrapolated) */
static double check_embedding(const JlTetMesh *t, const JlSurface *s, const JlEmbedding *e, double *max_err,
                              double *max_wsum_err) {
  double *y = calloc((size_t)s->nvert * 3, sizeof(double));
  jl_embed_apply(e, t->tet, 0, t->node, y);
  double minw = 1e300;
  *max_err = *max_wsum_err = 0.0;
  for (int i = 0; i < s->nvert; i++) {
    const double *w = e->weight + 4 * i;
    *max_wsum_err = fmax(*max_wsum_err, fabs(w[0] + w[1] + w[2] + w[3] - 1.0));
    minw = fmin(minw, fmin(fmin(w[0], w[1]), fmin(w[2], w[3])));
    for (int k = 0; k < 3; k++) *max_err = fmax(*max_err, fabs(y[3 * i + k] - s->vert[3 * i + k]));
  }
  free(y);
  return minw;
}

/* largest distance, over the boundary faces' corners and centroids, to the
 * surface s (closest point on each triangle, brute force) */
static double boundary_off_surface(const JlTetMesh *t, const JlSurface *s) {
  double worst = 0.0;
  for (int f = 0; f < t->nface; f++) {
    double p[4][3] = {{0, 0, 0}};
    for (int k = 0; k < 3; k++)
      for (int d = 0; d < 3; d++) {
        p[k][d] = t->node[3 * t->face[3 * f + k] + d];
        p[3][d] += p[k][d] / 3.0;
      }
    for (int k = 0; k < 4; k++) {
      double best = INFINITY, q[3], bary[3];
      for (int r = 0; r < s->ntri && best > 0.0; r++) {
        const int *v = s->tri + 3 * r;
        best = fmin(
            best, jl_closest_point_triangle(p[k], s->vert + 3 * v[0], s->vert + 3 * v[1], s->vert + 3 * v[2], q, bary));
      }
      worst = fmax(worst, sqrt(best));
    }
  }
  return worst;
}

/* ---- conforming mode ---------------------------------------------------------- */

/* t = TetGen's mesh of s with the default settings but max_volume (def: the
 * settings used); 0, reported as a failure, when TetGen fails */
static int tetgen_bounded(const JlSurface *s, double max_volume, JlTetgenDef *def, JlTetMesh *t) {
  *def = jl_default_tetgen_def();
  def->max_volume = max_volume;
  char err[512];
  if (jl_tetgen_build(s, def, t, err, sizeof err) == JL_OK) return 1;
  jl_test_fail(__FILE__, __LINE__, "%s", err);
  return 0;
}

/* Boundary Steiner points are allowed (no -Y), so the tet boundary subdivides
 * the surface's triangles: it lies on the surface to `tol` of the body's size,
 * and the tet volumes add up to the surface's volume to `tol` (to rounding,
 * except where TetGen merged triangles within 1e-3 degrees of coplanar into one
 * facet: the quads of torus.obj, 1.2e-8 and 3e-9). Surface vertices are tet
 * nodes. */
static void conforming_case(const char *name, double max_volume, int euler, double tol) {
  JlSurface s;
  ENSURE_MSG(load_model(name, &s), "cannot load %s", name);
  JlTetgenDef def = jl_default_tetgen_def();
  def.max_volume = max_volume;
  JlTetMesh t;
  char err[512] = "";
  JlResult r = jl_tetgen_build(&s, &def, &t, err, sizeof err);
  ENSURE_MSG(r == JL_OK, "%s: %s", name, err);
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  double vs = jl_surface_volume(&s);
  printf("  %s: %d nodes, %d tets, %d edges, %d faces, dihedral %.1f..%.1f deg\n", name, t.nnode, t.ntet, t.nedge,
         t.nface, q.min_dihedral_deg, q.max_dihedral_deg);
  /* tets tile the surface: volume sums agree */
  ENSURE_REL(q.volume_sum, vs, tol);
  double vmin, vmax;
  tet_volume_range(&t, &vmin, &vmax);
  ENSURE(q.min_volume > 0 && vmin > 0);
  if (max_volume > 0) ENSURE(vmax <= max_volume * (1 + 1e-9) && t.ntet >= (int)(vs / max_volume));
  JlTetCheck check;
  jl_tetmesh_check(&t, &def, &check);
  ENSURE(check.over_volume == 0 && check.largest_volume == vmax);
  printf("  %s: largest radius-edge ratio %.3f, %d tets above %g; %d edges bisected\n", name, check.largest_ratio,
         check.over_quality, def.quality, t.nbisect);
  /* surface vertices are nodes (checked exactly by the embedding below) */
  ENSURE(t.nnode >= s.nvert);
  /* topology */
  ENSURE(check_edges_adjacency(&t));
  ENSURE(check_complex(&t, euler));
  ENSURE(closed_oriented(t.nface, t.face));
  double fa, fv, sa, sv;
  area_volume(t.node, t.nface, t.face, &fa, &fv);
  area_volume(s.vert, s.ntri, s.tri, &sa, &sv);
  ENSURE_REL(fa, sa, tol);
  ENSURE_REL(fv, sv, tol);
  /* the boundary lies on the surface */
  double off = boundary_off_surface(&t, &s) / size_of(s.vert, s.nvert);
  printf("  %s: boundary off the surface by %.3g of the body's size\n", name, off);
  ENSURE(off <= tol);
  /* exact embedding: every vertex sits on a node with weight exactly 1 */
  JlEmbedding e;
  ENSURE(jl_embed_build(&t, s.vert, s.nvert, &e, err, sizeof err) == JL_OK);
  double max_err, wsum;
  double minw = check_embedding(&t, &s, &e, &max_err, &wsum);
  ENSURE(minw >= 0.0);
  ENSURE(max_err == 0.0 && wsum == 0.0);
  jl_embed_free(&e);
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
}

static void test_conforming_icosphere(void) { conforming_case("icosphere_320.obj", 0.01, 1, 1e-12); }
static void test_conforming_torus(void) { conforming_case("torus.obj", jl_test_quick() ? 0.0 : 0.002, 0, 2e-8); }
static void test_conforming_bunny(void) { conforming_case("bunny.obj", jl_test_quick() ? 5.0 : 0.5, 1, 1e-12); }

/* A 12-triangle bar (1 x 0.1 x 0.1 m, hanging_bar.json's) meets
 * max_volume; with -Y (no boundary Steiner points) TetGen leaves it at 48 tets
 * of up to 4.2x the bound. The boundary stays on the box's faces and every
 * surface vertex is a node with weight exactly 1. */
static void test_conforming_coarse_box_bound(void) {
  static const double vert[24] = {0, 0, 0,   1, 0, 0,   1, 0.1, 0,   0, 0.1, 0,
                                  0, 0, 0.1, 1, 0, 0.1, 1, 0.1, 0.1, 0, 0.1, 0.1};
  static const int tri[36] = {0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                              3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
  double bounds[2] = {5e-5, 1e-6};
  for (int b = 0; b < (jl_test_quick() ? 1 : 2); b++) {
    JlSurface s = {0};
    s.nvert = 8;
    s.ntri = 12;
    s.vert = malloc(sizeof vert);
    s.tri = malloc(sizeof tri);
    memcpy(s.vert, vert, sizeof vert);
    memcpy(s.tri, tri, sizeof tri);
    JlTetgenDef def;
    JlTetMesh t;
    if (!tetgen_bounded(&s, bounds[b], &def, &t)) return;
    JlTetQuality q;
    jl_tetmesh_quality(&t, &q);
    JlTetCheck check;
    jl_tetmesh_check(&t, &def, &check);
    printf("  max_volume %g: %d tets, largest %.4g, radius-edge ratio up to %.3f, %d edges bisected\n", bounds[b],
           t.ntet, check.largest_volume, check.largest_ratio, t.nbisect);
    ENSURE(check.over_volume == 0 && check.largest_volume <= bounds[b] * (1 + 1e-9));
    ENSURE(t.ntet >= (int)(0.01 / bounds[b]));
    ENSURE_REL(q.volume_sum, 0.01, 1e-12);
    ENSURE(t.nface > s.ntri); /* Steiner points on the boundary */
    /* every boundary node is on a face of the box (to rounding) */
    for (int f = 0; f < 3 * t.nface; f++) {
      const double *x = t.node + 3 * t.face[f];
      double off = fmin(fmin(fabs(x[0]), fabs(x[0] - 1)),
                        fmin(fmin(fabs(x[1]), fabs(x[1] - 0.1)), fmin(fabs(x[2]), fabs(x[2] - 0.1))));
      ENSURE_MSG(off <= 1e-15, "boundary node (%g %g %g) off the box by %g", x[0], x[1], x[2], off);
    }
    ENSURE(check_complex(&t, 1));
    JlEmbedding e;
    char err[512];
    ENSURE(jl_embed_build(&t, s.vert, s.nvert, &e, err, sizeof err) == JL_OK);
    double max_err, wsum;
    ENSURE(check_embedding(&t, &s, &e, &max_err, &wsum) >= 0.0);
    ENSURE(max_err == 0.0 && wsum == 0.0);
    jl_embed_free(&e);
    jl_tetmesh_free(&t);
    jl_surface_free(&s);
  }
}

/* TetGen's sliver removal can leave a few tets above -a (3 on a 0.3 / 0.1 m
 * torus at 2e-5 m^3); jl_tetgen_build bisects them. Checked through the
 * library on that torus, and directly on a hand-made cube of 6 tets that has
 * to be bisected down to 1/40 of its volume per tet: the mesh stays a
 * conforming, consistently oriented complex with the same boundary surface
 * and volume. */
static void test_bisect_to_volume_bound(void) {
  JlSurface s;
  jl_shape_torus(0.3, 0.1, 0, &s);
  JlTetgenDef def;
  JlTetMesh t;
  if (!tetgen_bounded(&s, 2e-5, &def, &t)) return;
  JlTetCheck check;
  jl_tetmesh_check(&t, &def, &check);
  printf("  torus: %d tets, %d edges bisected, largest %.4g, radius-edge ratio up to %.3f (%d above %g)\n", t.ntet,
         t.nbisect, check.largest_volume, check.largest_ratio, check.over_quality, def.quality);
  ENSURE(check.over_volume == 0 && check.over_guarantee == 0);
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  ENSURE_REL(q.volume_sum, jl_surface_volume(&s), 1e-12);
  ENSURE(check_complex(&t, 0));
  jl_tetmesh_free(&t);
  jl_surface_free(&s);

  /* unit cube: 6 tets around the diagonal 0-6 (Kuhn), bisected to 1/40 */
  static const double node[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
  static const int tet[24] = {0, 1, 2, 6, 0, 2, 3, 6, 0, 3, 7, 6, 0, 7, 4, 6, 0, 4, 5, 6, 0, 5, 1, 6};
  tet_mesh_of(&t, 8, node, 6, tet);
  for (int e = 0; e < 6; e++) {
    int *v = t.tet + 4 * e;
    if (jl_tet_volume(t.node + 3 * v[0], t.node + 3 * v[1], t.node + 3 * v[2], t.node + 3 * v[3]) < 0) {
      int tmp = v[2];
      v[2] = v[3];
      v[3] = tmp;
    }
  }
  jl_tetmesh_topology(&t);
  double area0, vol0;
  area_volume(t.node, t.nface, t.face, &area0, &vol0);
  int n = jl_tetmesh_bisect(&t, 1.0 / 40.0);
  double vmin, vmax, area, vol;
  tet_volume_range(&t, &vmin, &vmax);
  area_volume(t.node, t.nface, t.face, &area, &vol);
  jl_tetmesh_quality(&t, &q);
  printf("  cube: %d edges bisected, %d tets, volumes %.4g..%.4g\n", n, t.ntet, vmin, vmax);
  ENSURE(n > 0 && t.ntet >= 40);
  ENSURE(vmin > 0 && vmax <= 1.0 / 40.0 * (1 + 1e-9));
  ENSURE_NEAR(q.volume_sum, 1.0, 1e-14);
  ENSURE_NEAR(area, 6.0, 1e-14);
  ENSURE_NEAR(vol, 1.0, 1e-14);
  ENSURE(check_complex(&t, 1) && check_edges_adjacency(&t) && closed_oriented(t.nface, t.face));
  /* the boundary is still the cube's surface */
  for (int f = 0; f < 3 * t.nface; f++) {
    const double *x = t.node + 3 * t.face[f];
    double off = fmin(fmin(fabs(x[0]), fabs(x[0] - 1)), fmin(fabs(x[1]), fabs(x[1] - 1)));
    off = fmin(off, fmin(fabs(x[2]), fabs(x[2] - 1)));
    ENSURE(off == 0.0);
  }
  jl_tetmesh_free(&t);
}

/* jl_tetmesh_check: the radius-edge ratio of a regular tet is sqrt(6)/4; a
 * flat-ish tet counts above the quality bound and, past 2, above what
 * Delaunay refinement guarantees; embedded meshes are not held to bounds */
static void test_tetmesh_check(void) {
  double reg[12] = {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1};
  ENSURE_NEAR(jl_tet_radius_edge(reg, reg + 3, reg + 6, reg + 9), sqrt(6.0) / 4.0, 1e-15);
  ENSURE_NEAR(jl_tet_volume(reg, reg + 3, reg + 6, reg + 9), -8.0 / 3.0, 1e-15);
  /* nodes: regular tet (0-3, positively ordered below) and a flat one on 0-2 plus a point just above */
  double node[15] = {1, 1, 1, -1, -1, 1, 1, -1, -1, -1, 1, -1, 0.2, 0.2, 0.3};
  int tet[8] = {0, 2, 1, 3, 0, 2, 1, 4};
  JlTetMesh t;
  memset(&t, 0, sizeof t);
  t.nnode = 5;
  t.ntet = 2;
  t.node = node;
  t.tet = tet;
  double flat = jl_tet_radius_edge(node, node + 6, node + 3, node + 12);
  double v1 = jl_tet_volume(node, node + 6, node + 3, node + 12);
  ENSURE(jl_tet_volume(node, node + 6, node + 3, node + 9) > 0 && v1 > 0 && flat > 2.0);
  JlTetgenDef def = jl_default_tetgen_def();
  def.max_volume = 1.0; /* the regular tet (8/3) is above, the flat one not */
  JlTetCheck c;
  jl_tetmesh_check(&t, &def, &c);
  ENSURE(c.over_volume == 1 && c.over_quality == 1 && c.over_guarantee == 1);
  ENSURE_NEAR(c.largest_volume, 8.0 / 3.0, 1e-14);
  ENSURE_NEAR(c.largest_ratio, flat, 1e-14);
  def.quality = 0.0; /* off: no quality counts */
  def.max_volume = 0.0;
  jl_tetmesh_check(&t, &def, &c);
  ENSURE(c.over_volume == 0 && c.over_quality == 0 && c.over_guarantee == 0);
  def = jl_default_tetgen_def();
  def.mode = JL_TETGEN_EMBEDDED;
  def.max_volume = 1.0;
  jl_tetmesh_check(&t, &def, &c);
  ENSURE(c.over_volume == 0 && c.over_quality == 0 && c.largest_ratio == flat);
}

/* with no volume bound and no quality refinement TetGen adds few points */
static void test_conforming_plain(void) {
  JlSurface s;
  ENSURE(load_model("icosphere_320.obj", &s));
  JlTetgenDef def = jl_default_tetgen_def();
  def.quality = 0.0;
  JlTetMesh t;
  char err[512];
  ENSURE(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_OK);
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  ENSURE_REL(q.volume_sum, jl_surface_volume(&s), 1e-9);
  ENSURE(t.nface == s.ntri); /* no Steiner points on the boundary */
  ENSURE(check_complex(&t, 1));
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
}

/* a tiny max volume needs the exponent form of the switch (a1e-07 ...) */
static void test_conforming_small_volume_bound(void) {
  double size[3] = {0.01, 0.01, 0.01}; /* 1 cm cube, 1e-6 m^3 */
  JlSurface s;
  jl_shape_box(size, 0, &s);
  JlTetgenDef def;
  JlTetMesh t;
  if (!tetgen_bounded(&s, 2e-9, &def, &t)) return;
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  ENSURE_REL(q.volume_sum, 1e-6, 1e-9);
  ENSURE(t.ntet >= 500); /* 1e-6 / 2e-9 */
  double vmin, vmax;
  tet_volume_range(&t, &vmin, &vmax);
  ENSURE(vmin > 0 && vmax <= 2e-9 * (1 + 1e-9));
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
}

/* ---- orientation and topology on hand-made tets ----------------------------------- */

static void test_orientation_and_zero_volume(void) {
  double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, d[3] = {0, 0, 1};
  ENSURE_NEAR(jl_tet_volume(a, b, c, d), 1.0 / 6.0, 1e-15);
  ENSURE_NEAR(jl_tet_volume(a, c, b, d), -1.0 / 6.0, 1e-15);
  /* a corner tet and the regular tet on its slanted face: 9 edges, 6 faces */
  double node[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  int tet[8] = {0, 1, 2, 3, 1, 2, 3, 4};
  JlTetMesh t;
  tet_mesh_of(&t, 5, node, 2, tet);
  ENSURE_NEAR(jl_tet_volume(node + 3, node + 6, node + 9, node + 12), 1.0 / 3.0, 1e-15);
  jl_tetmesh_topology(&t);
  ENSURE(t.nedge == 9 && t.nface == 6);
  ENSURE(check_edges_adjacency(&t));
  ENSURE(check_complex(&t, 1));
  ENSURE(closed_oriented(t.nface, t.face));
  double area, vol;
  area_volume(t.node, t.nface, t.face, &area, &vol);
  ENSURE_NEAR(vol, 0.5, 1e-15);
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  ENSURE_NEAR(q.volume_sum, 0.5, 1e-15);
  ENSURE_NEAR(q.min_volume, 1.0 / 6.0, 1e-15);
  /* corner tet: 90 deg at the axes, acos(1/sqrt 3) at the slanted face;
   * regular tet: acos(1/3) = 70.5 deg */
  ENSURE_NEAR(q.min_dihedral_deg, acos(1.0 / sqrt(3.0)) * 180.0 / PI, 1e-9);
  ENSURE_NEAR(q.max_dihedral_deg, 90.0, 1e-9);
  jl_tetmesh_free(&t);
  ENSURE(t.node == NULL && t.nnode == 0);
}

/* ---- embedded mode --------------------------------------------------------------- */

static void embedded_case(const char *name, double resolution_fraction, int euler_unused) {
  (void)euler_unused;
  JlSurface s;
  ENSURE_MSG(load_model(name, &s), "cannot load %s", name);
  double size = size_of(s.vert, s.nvert);
  JlTetgenDef def = jl_default_tetgen_def();
  def.mode = JL_TETGEN_EMBEDDED;
  def.resolution = size * resolution_fraction;
  JlTetMesh t;
  char err[512] = "";
  double t0 = jl_seconds();
  ENSURE_MSG(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_OK, "%s: %s", name, err);
  JlEmbedding e;
  ENSURE(jl_embed_build(&t, s.vert, s.nvert, &e, err, sizeof err) == JL_OK);
  double t1 = jl_seconds();
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  double vs = jl_surface_volume(&s);
  printf(
      "  %s embedded (h = %g): %d nodes, %d tets for %d vertices, volume %.4g vs %.4g, dihedral %.1f..%.1f, "
      "%.3f s\n",
      name, def.resolution, t.nnode, t.ntet, s.nvert, q.volume_sum, vs, q.min_dihedral_deg, q.max_dihedral_deg,
      t1 - t0);
  ENSURE(q.min_volume > 0);
  /* the kept tets cover the solid */
  ENSURE(q.volume_sum >= vs * (1 - 1e-9));
  ENSURE(q.volume_sum <= vs * 3.0);
  ENSURE(check_edges_adjacency(&t));
  ENSURE(closed_oriented(t.nface, t.face));
  /* weights: partition of unity, exact reproduction, every vertex inside a tet */
  double max_err, wsum;
  double minw = check_embedding(&t, &s, &e, &max_err, &wsum);
  ENSURE_NEAR(wsum, 0.0, 1e-12);
  ENSURE_NEAR(max_err, 0.0, 1e-12 * size);
  ENSURE(minw >= -1e-9);
  /* deterministic: the same seed gives the same mesh */
  JlTetMesh t2;
  ENSURE(jl_tetgen_build(&s, &def, &t2, err, sizeof err) == JL_OK);
  ENSURE(t2.nnode == t.nnode && t2.ntet == t.ntet);
  ENSURE(memcmp(t2.node, t.node, sizeof(double) * 3 * t.nnode) == 0);
  ENSURE(memcmp(t2.tet, t.tet, sizeof(int) * 4 * t.ntet) == 0);
  jl_tetmesh_free(&t2);
  if (strcmp(name, "bunny.obj") == 0) ENSURE(t.nnode * 2 < s.nvert); /* far fewer nodes */
  jl_embed_free(&e);
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
}

static void test_embedded_bunny(void) { embedded_case("bunny.obj", 0.1, 1); }
static void test_embedded_torus(void) { embedded_case("torus.obj", 0.05, 0); }
static void test_embedded_icosphere(void) { embedded_case("icosphere_320.obj", 0.2, 1); }

/* a coarse lattice on a thin plate: no lattice point is inside, yet the tets
 * crossing the plate are kept and every vertex is covered */
static void test_embedded_thin_plate(void) {
  double size[3] = {1.0, 0.02, 1.0};
  JlSurface s;
  jl_shape_box(size, 0.1, &s);
  JlTetgenDef def = jl_default_tetgen_def();
  def.mode = JL_TETGEN_EMBEDDED;
  def.resolution = 0.25;
  JlTetMesh t;
  char err[512];
  ENSURE_MSG(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_OK, "%s", err);
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  ENSURE(q.volume_sum >= 0.02 * (1 - 1e-9));
  JlEmbedding e;
  ENSURE(jl_embed_build(&t, s.vert, s.nvert, &e, err, sizeof err) == JL_OK);
  double max_err, wsum;
  ENSURE(check_embedding(&t, &s, &e, &max_err, &wsum) >= -1e-9);
  ENSURE(max_err <= 1e-12);
  jl_embed_free(&e);
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
}

/* points outside every tet use the nearest tet and still reproduce exactly */
static void test_embed_outside_points(void) {
  JlSurface s;
  ENSURE(load_model("icosphere_320.obj", &s));
  JlTetgenDef def;
  JlTetMesh t;
  ENSURE(tetgen_bounded(&s, jl_default_tetgen_def().max_volume, &def, &t));
  double pts[4 * 3] = {2.0, 0.1, -0.2, 0.0, -3.0, 0.5, 0.3, 0.2, 0.1, 1.01, 0.0, 0.0};
  JlEmbedding e;
  char err[512];
  ENSURE(jl_embed_build(&t, pts, 4, &e, err, sizeof err) == JL_OK);
  double y[12];
  jl_embed_apply(&e, t.tet, 0, t.node, y);
  for (int i = 0; i < 12; i++) ENSURE_NEAR(y[i], pts[i], 1e-12);
  /* far points extrapolate (a negative weight), the inner point does not */
  double w0 = fmin(fmin(e.weight[0], e.weight[1]), fmin(e.weight[2], e.weight[3]));
  double w2 = fmin(fmin(e.weight[8], e.weight[9]), fmin(e.weight[10], e.weight[11]));
  ENSURE(w0 < 0 && w2 >= -1e-12);
  /* the nearest tet for (2, 0.1, -0.2) touches the sphere's +x side */
  int best = e.tet[0];
  double cx = 0;
  for (int k = 0; k < 4; k++) cx += 0.25 * t.node[3 * t.tet[4 * best + k]];
  ENSURE(cx > 0.5);
  /* node_offset shifts into a global array */
  double *big = calloc((size_t)(t.nnode + 7) * 3, sizeof(double));
  memcpy(big + 21, t.node, sizeof(double) * 3 * t.nnode);
  double z[12];
  jl_embed_apply(&e, t.tet, 7, big, z);
  for (int i = 0; i < 12; i++) ENSURE(z[i] == y[i]);
  free(big);
  jl_embed_free(&e);
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
}

static void test_surface_normals(void) {
  JlSurface s;
  jl_shape_sphere(2.0, 0.3, &s);
  double *n = calloc((size_t)s.nvert * 3, sizeof(double));
  jl_surface_normals(s.nvert, s.vert, s.ntri, s.tri, n);
  for (int i = 0; i < s.nvert; i++) {
    double len = sqrt(n[3 * i] * n[3 * i] + n[3 * i + 1] * n[3 * i + 1] + n[3 * i + 2] * n[3 * i + 2]);
    ENSURE_NEAR(len, 1.0, 1e-12);
    /* radial on a sphere, within the faceting */
    double dot = (n[3 * i] * s.vert[3 * i] + n[3 * i + 1] * s.vert[3 * i + 1] + n[3 * i + 2] * s.vert[3 * i + 2]) / 2.0;
    ENSURE(dot > 0.99);
  }
  free(n);
  jl_surface_free(&s);
}

/* ---- shapes ------------------------------------------------------------------------- */

static int no_duplicate_vertices(const JlSurface *s) {
  for (int i = 0; i < s->nvert; i++)
    for (int j = i + 1; j < s->nvert; j++)
      if (s->vert[3 * i] == s->vert[3 * j] && s->vert[3 * i + 1] == s->vert[3 * j + 1] &&
          s->vert[3 * i + 2] == s->vert[3 * j + 2])
        return 0;
  return 1;
}

static int centred(const JlSurface *s, double tol) {
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (int i = 0; i < s->nvert; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], s->vert[3 * i + k]);
      hi[k] = fmax(hi[k], s->vert[3 * i + k]);
    }
  for (int k = 0; k < 3; k++)
    if (fabs(lo[k] + hi[k]) > tol) return 0;
  return 1;
}

static void test_shape_box(void) {
  double size[3] = {2.0, 0.5, 1.25};
  JlSurface s;
  jl_shape_box(size, 0.25, &s);
  ENSURE(closed_oriented(s.ntri, s.tri));
  ENSURE(no_duplicate_vertices(&s));
  ENSURE(centred(&s, 0.0));
  ENSURE_REL(jl_surface_volume(&s), 2.0 * 0.5 * 1.25, 1e-12);
  ENSURE(s.ntri == 4 * (8 * 2 + 2 * 5 + 5 * 8));
  /* Euler characteristic of a sphere */
  ENSURE(s.nvert - 3 * s.ntri / 2 + s.ntri == 2);
  jl_surface_free(&s);
  /* default resolution: an eighth of the largest side */
  jl_shape_box(size, 0, &s);
  ENSURE(s.ntri == 4 * (8 * 2 + 2 * 5 + 5 * 8));
  ENSURE_REL(jl_surface_volume(&s), 1.25, 1e-12);
  jl_surface_free(&s);
}

static void test_shape_sphere(void) {
  /* resolutions 0.5, 0.25, 0.125 of the radius: levels 2, 3, 4; default: 3 */
  double exact = 4.0 / 3.0 * PI * 1.5 * 1.5 * 1.5, prev = 0.0;
  for (int i = 0; i < 4; i++) {
    double res = i < 3 ? 0.75 / (1 << i) : 0.0;
    JlSurface s;
    jl_shape_sphere(1.5, res, &s);
    ENSURE(closed_oriented(s.ntri, s.tri));
    ENSURE(no_duplicate_vertices(&s));
    ENSURE(centred(&s, 1e-12));
    ENSURE(s.nvert - 3 * s.ntri / 2 + s.ntri == 2);
    /* inscribed polyhedron: below the ball, converging as h^2 */
    double v = jl_surface_volume(&s);
    ENSURE(v < exact && v > exact * (i == 0 ? 0.95 : 0.97));
    if (i > 0 && i < 3) ENSURE(exact - v < 0.3 * (exact - prev));
    if (i == 3) ENSURE(s.ntri == 20 * 64);
    prev = v;
    for (int k = 0; k < s.nvert; k++) {
      const double *p = s.vert + 3 * k;
      ENSURE_NEAR(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 1.5, 1e-12);
    }
    /* edges no longer than the resolution */
    for (int t = 0; res > 0 && t < s.ntri; t++)
      for (int k = 0; k < 3; k++) {
        const double *a = s.vert + 3 * s.tri[3 * t + k], *b = s.vert + 3 * s.tri[3 * t + (k + 1) % 3];
        ENSURE(sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2])) <=
               res);
      }
    jl_surface_free(&s);
  }
}

static void test_shape_torus(void) {
  double R = 1.0, r = 0.3;
  JlSurface s;
  jl_shape_torus(R, r, 0.05, &s);
  ENSURE(closed_oriented(s.ntri, s.tri));
  ENSURE(no_duplicate_vertices(&s));
  ENSURE(centred(&s, 1e-12));
  ENSURE_REL(jl_surface_volume(&s), 2.0 * PI * PI * R * r * r, 0.02);
  /* flat in XZ: y within the tube radius, axis Y */
  for (int i = 0; i < s.nvert; i++) ENSURE(fabs(s.vert[3 * i + 1]) <= r + 1e-12);
  ENSURE(s.nvert - 3 * s.ntri / 2 + s.ntri == 0); /* genus 1 */
  jl_surface_free(&s);
  /* default resolution still within a few percent */
  jl_shape_torus(R, r, 0, &s);
  ENSURE(closed_oriented(s.ntri, s.tri));
  ENSURE_REL(jl_surface_volume(&s), 2.0 * PI * PI * R * r * r, 0.06);
  jl_surface_free(&s);
}

/* generated shapes go through TetGen and tile exactly */
static void test_shapes_tetrahedralize(void) {
  JlSurface s[3];
  double size[3] = {1.0, 0.6, 0.4};
  jl_shape_box(size, 0, &s[0]);
  jl_shape_sphere(0.5, 0, &s[1]);
  jl_shape_torus(0.5, 0.2, 0, &s[2]);
  int euler[3] = {1, 1, 0};
  for (int i = 0; i < 3; i++) {
    JlTetgenDef def = jl_default_tetgen_def();
    JlTetMesh t;
    char err[512];
    ENSURE_MSG(jl_tetgen_build(&s[i], &def, &t, err, sizeof err) == JL_OK, "shape %d: %s", i, err);
    JlTetQuality q;
    jl_tetmesh_quality(&t, &q);
    ENSURE_REL(q.volume_sum, jl_surface_volume(&s[i]), 1e-9);
    ENSURE(check_complex(&t, euler[i]));
    jl_tetmesh_free(&t);
    jl_surface_free(&s[i]);
  }
}

/* ---- failures --------------------------------------------------------------------- */

/* two interpenetrating boxes in one surface, given straight to TetGen */
static void test_tetgen_self_intersection(void) {
  double size[3] = {1.0, 1.0, 1.0};
  JlSurface a, b;
  jl_shape_box(size, 0, &a);
  jl_shape_box(size, 0, &b);
  JlSurface m;
  m.nvert = a.nvert + b.nvert;
  m.ntri = a.ntri + b.ntri;
  m.vert = calloc((size_t)m.nvert * 3, sizeof(double));
  m.tri = calloc((size_t)m.ntri * 3, sizeof(int));
  memcpy(m.vert, a.vert, sizeof(double) * 3 * a.nvert);
  for (int i = 0; i < b.nvert; i++) {
    m.vert[3 * (a.nvert + i)] = b.vert[3 * i] + 0.31;
    m.vert[3 * (a.nvert + i) + 1] = b.vert[3 * i + 1] + 0.27;
    m.vert[3 * (a.nvert + i) + 2] = b.vert[3 * i + 2] + 0.23;
  }
  memcpy(m.tri, a.tri, sizeof(int) * 3 * a.ntri);
  for (int i = 0; i < 3 * b.ntri; i++) m.tri[3 * a.ntri + i] = b.tri[i] + a.nvert;

  /* stdout and stderr into a file while TetGen runs: it must stay empty */
  char path[1024];
  snprintf(path, sizeof path, "%s/captured.txt", jl_test_tmpdir("tetmesh_selfint"));
  fflush(stdout);
  fflush(stderr);
  int saved_out = dup(1), saved_err = dup(2);
  FILE *cap = fopen(path, "w");
  ENSURE(cap);
  dup2(fileno(cap), 1);
  dup2(fileno(cap), 2);
  JlTetgenDef def = jl_default_tetgen_def();
  JlTetMesh t;
  char err[1024] = "";
  JlResult r = jl_tetgen_build(&m, &def, &t, err, sizeof err);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  fclose(cap);
  size_t len = 99;
  char *captured = jl_test_read_file(path, &len);
  printf("  message: %s\n", err);
  ENSURE(r == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "self-intersect") != NULL, "message: %s", err);
  ENSURE_MSG(strstr(err, "near (") != NULL, "message: %s", err);
  ENSURE_MSG(captured && len == 0, "TetGen printed: %s", captured ? captured : "?");
  ENSURE(t.node == NULL && t.ntet == 0);
  free(captured);
  free(m.vert);
  free(m.tri);
  jl_surface_free(&a);
  jl_surface_free(&b);
}

/* mean |i - j| over the edges (i, j), as a fraction of the node count */
static double edge_span(const JlTetMesh *t) {
  double sum = 0;
  for (int e = 0; e < t->nedge; e++) sum += abs(t->edge[2 * e + 1] - t->edge[2 * e]);
  return sum / t->nedge / t->nnode;
}

/* Hilbert renumbering: jl_tetgen_build's meshes come out in curve order, the
 * order depends only on the geometry (a shuffled copy renumbers to the very
 * same arrays), and a mesh's neighbours end up close in memory. */
static void test_reorder_hilbert(void) {
  JlSurface s;
  ENSURE(load_model("bunny.obj", &s));
  JlTetgenDef def = jl_default_tetgen_def();
  def.max_volume = jl_test_quick() ? 5.0 : 0.5;
  JlTetMesh t, u;
  char err[512];
  ENSURE_MSG(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_OK, "%s", err);
  /* u: the same mesh with nodes and tets shuffled (and topology recomputed) */
  memset(&u, 0, sizeof u);
  u.nnode = t.nnode, u.ntet = t.ntet;
  u.node = jl_calloc(3 * (size_t)t.nnode, sizeof(double));
  u.tet = jl_calloc(4 * (size_t)t.ntet, sizeof(int));
  int *perm = jl_calloc((size_t)t.nnode, sizeof(int)), *tperm = jl_calloc((size_t)t.ntet, sizeof(int));
  for (int i = 0; i < t.nnode; i++) perm[i] = i;
  for (int i = 0; i < t.ntet; i++) tperm[i] = i;
  unsigned long long r = 12345;
  for (int i = t.nnode - 1; i > 0; i--) {
    int j = (int)((jl_test_lcg(&r) >> 33) % (unsigned long long)(i + 1)), tmp = perm[i];
    perm[i] = perm[j], perm[j] = tmp;
  }
  for (int i = t.ntet - 1; i > 0; i--) {
    int j = (int)((jl_test_lcg(&r) >> 33) % (unsigned long long)(i + 1)), tmp = tperm[i];
    tperm[i] = tperm[j], tperm[j] = tmp;
  }
  for (int i = 0; i < t.nnode; i++) memcpy(u.node + 3 * perm[i], t.node + 3 * i, 3 * sizeof(double));
  for (int e = 0; e < t.ntet; e++)
    for (int k = 0; k < 4; k++) u.tet[4 * tperm[e] + k] = perm[t.tet[4 * e + k]];
  jl_tetmesh_topology(&u);
  double span_built = edge_span(&t), span_shuffled = edge_span(&u);
  jl_tetmesh_reorder(&u);
  double span_reordered = edge_span(&u);
  printf("  %d nodes: mean edge span %.4f built, %.4f shuffled, %.4f renumbered\n", t.nnode, span_built, span_shuffled,
         span_reordered);
  /* TetGen's own order: about 0.24 here; random: 1/3 */
  ENSURE(span_shuffled > 0.25 && span_reordered < 0.08 && span_built == span_reordered);
  ENSURE(memcmp(u.node, t.node, 3 * (size_t)t.nnode * sizeof(double)) == 0);
  ENSURE(memcmp(u.tet, t.tet, 4 * (size_t)t.ntet * sizeof(int)) == 0);
  ENSURE(u.nface == t.nface && memcmp(u.face, t.face, 3 * (size_t)t.nface * sizeof(int)) == 0);
  ENSURE(check_edges_adjacency(&u));
  free(perm), free(tperm);
  jl_tetmesh_free(&u);
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
}

/* keep_surface (TetGen -Y): the Bullet comparison sphere (642
 * vertices, r 0.5 m, max_volume 1e-4, quality 1.4; the Bullet comparison's
 * own mesh had 9616 tets) keeps its 1280 triangles as the boundary, every boundary node a
 * surface vertex at its exact coordinates, and meets max_volume by cutting
 * interior edges only; without it TetGen puts Steiner points on the surface
 * (16.5k tets). */
static void test_conforming_keep_surface(void) {
  JlSurface s;
  jl_shape_sphere(0.5, 0.0, &s);
  ENSURE(s.nvert == 642 && s.ntri == 1280);
  int ntet[2], nface[2];
  for (int keep = 0; keep < 2; keep++) {
    JlTetgenDef def = jl_default_tetgen_def();
    def.max_volume = 1e-4;
    def.quality = 1.4;
    def.keep_surface = keep;
    JlTetMesh t;
    char err[512] = "";
    ENSURE_MSG(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_OK, "%s", err);
    JlTetQuality q;
    jl_tetmesh_quality(&t, &q);
    ENSURE_REL(q.volume_sum, jl_surface_volume(&s), 1e-12);
    ntet[keep] = t.ntet, nface[keep] = t.nface;
    printf("  keep_surface %d: %d nodes, %d tets, %d boundary faces, %d edges bisected\n", keep, t.nnode, t.ntet,
           t.nface, t.nbisect);
    JlTetCheck check;
    jl_tetmesh_check(&t, &def, &check);
    ENSURE_MSG(check.over_volume == 0, "%d tets above max_volume", check.over_volume);
    if (keep) {
      /* TetGen leaves 2 tets up to 1.04x the bound; their interior edges are cut */
      ENSURE(t.nface == s.ntri && t.nbisect > 0);
      /* every boundary node is a surface vertex, bit for bit */
      int off = 0;
      for (int f = 0; f < 3 * t.nface; f++) {
        const double *p = t.node + 3 * t.face[f];
        int found = 0;
        for (int v = 0; v < s.nvert && !found; v++) found = memcmp(p, s.vert + 3 * v, 3 * sizeof(double)) == 0;
        off += !found;
      }
      ENSURE_MSG(off == 0, "%d boundary corners are not surface vertices", off);
    }
    jl_tetmesh_free(&t);
  }
  ENSURE(nface[0] > s.ntri && ntet[1] < ntet[0]);
  jl_surface_free(&s);
}

static void test_bad_defs(void) {
  JlSurface s;
  ENSURE(load_model("icosphere_320.obj", &s));
  JlTetMesh t;
  char err[512];
  JlTetgenDef def = jl_default_tetgen_def();
  def.quality = 1.0;
  ENSURE(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_ERR_INPUT && strstr(err, "quality"));
  def = jl_default_tetgen_def();
  def.max_volume = -1;
  ENSURE(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_ERR_INPUT && strstr(err, "volume"));
  def = jl_default_tetgen_def();
  def.mode = JL_TETGEN_EMBEDDED;
  def.resolution = 1e-4; /* 10^12 lattice points */
  ENSURE(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_ERR_INPUT && strstr(err, "too fine"));
  def = jl_default_tetgen_def();
  def.resolution = NAN;
  ENSURE(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_ERR_INPUT);
  def = jl_default_tetgen_def();
  def.keep_surface = 2;
  ENSURE(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_ERR_INPUT && strstr(err, "keep_surface"));
  def = jl_default_tetgen_def();
  def.mode = JL_TETGEN_EMBEDDED;
  def.keep_surface = 1;
  ENSURE(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_ERR_INPUT && strstr(err, "conforming"));
  /* raw: too few points, coplanar points */
  double flat[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0};
  int nn, nt;
  double *node;
  int *tet;
  ENSURE(jl_tetgen_raw("Q", 3, flat, 0, NULL, &nn, &node, &nt, &tet, err, sizeof err) == JL_ERR_INPUT);
  ENSURE(jl_tetgen_raw("Q", 5, flat, 0, NULL, &nn, &node, &nt, &tet, err, sizeof err) == JL_ERR_INPUT);
  ENSURE(node == NULL && tet == NULL);
  jl_surface_free(&s);
}

/* ---- command line -------------------------------------------------------------------- */

static char g_out[1 << 15];

static void test_cli_mesh(void) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s mesh %s/icosphere_320.obj", JL_JELLY_EXE, JL_MODELS_DIR);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "rc %d: %s", rc, g_out);
  ENSURE_MSG(strstr(g_out, "nodes") && strstr(g_out, "tets") && strstr(g_out, "springs") && strstr(g_out, "dihedral"),
             "%s", g_out);
  /* the printed counts match the library's */
  const char *p = strstr(g_out, "\n  tets ");
  ENSURE_MSG(p, "%s", g_out);
  JlSurface s;
  ENSURE(load_model("icosphere_320.obj", &s));
  JlTetgenDef def;
  JlTetMesh t;
  ENSURE(tetgen_bounded(&s, jl_default_tetgen_def().max_volume, &def, &t));
  ENSURE_MSG(atoi(p + 7) == t.ntet, "%s", g_out);
  jl_tetmesh_free(&t);
  jl_surface_free(&s);

  /* embedded mode and a .vtu */
  const char *dir = jl_test_tmpdir("tetmesh_cli");
  snprintf(cmd, sizeof cmd, "%s mesh %s/bunny.obj --mode embedded --resolution 1 --out %s/bunny.vtu", JL_JELLY_EXE,
           JL_MODELS_DIR, dir);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "rc %d: %s", rc, g_out);
  char path[1024];
  snprintf(path, sizeof path, "%s/bunny.vtu", dir);
  char *vtu = jl_test_read_file(path, NULL);
  ENSURE(vtu && strstr(vtu, "UnstructuredGrid"));
  free(vtu);

  /* generated shape; its bounds are reported */
  snprintf(cmd, sizeof cmd, "%s mesh --shape torus --max-volume 0.001", JL_JELLY_EXE);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "tets"), "rc %d: %s", rc, g_out);
  ENSURE_MSG(strstr(g_out, "max volume   largest tet") && strstr(g_out, "(bound 0.001): met"), "%s", g_out);
  ENSURE_MSG(strstr(g_out, "quality      radius-edge ratio largest"), "%s", g_out);

  /* --keep-surface: the 0.5 m sphere's 1280 triangles are the boundary */
  snprintf(cmd, sizeof cmd, "%s mesh --shape sphere --keep-surface --max-volume 1e-4 --quality 1.4", JL_JELLY_EXE);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0 && strstr(g_out, "boundary     1280 faces") && strstr(g_out, "(bound 0.0001): met"), "rc %d: %s",
             rc, g_out);

  /* a quality bound TetGen misses next to the bunny's small angles is a warning (exit 0) */
  snprintf(cmd, sizeof cmd, "%s mesh %s/bunny.obj --max-volume 50", JL_JELLY_EXE, JL_MODELS_DIR);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(
      rc == 0 && strstr(g_out, "(bound 1.5): not met") && strstr(g_out, "jelly mesh: warning: --quality 1.5 not met"),
      "rc %d: %s", rc, g_out);
}

static void test_cli_mesh_bad_flags(void) {
  static const char *bad[] = {
      "--quality 0.5",    "--quality 1.0",   "--max-volume -1",
      "--max-volume abc", "--mode sideways", "--resolution -2",
      "--max-volume",     "--frobnicate",    "",
  };
  char cmd[2048];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s mesh %s %s", JL_JELLY_EXE,
             i + 1 < sizeof bad / sizeof bad[0] ? JL_MODELS_DIR "/icosphere_320.obj" : "", bad[i]);
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 2, "'%s' gave %d: %s", bad[i], rc, g_out);
    ENSURE_MSG(strstr(g_out, "jelly mesh"), "'%s': %s", bad[i], g_out);
  }
  /* a flag of the other meshing mode is an error naming it, in any order */
  static const struct {
    const char *flags, *want;
  } other[] = {
      {"--mode embedded --max-volume 0.01", "--max-volume applies to --mode conforming only; this mesh is embedded"},
      {"--quality 2 --mode embedded", "--quality applies to --mode conforming only; this mesh is embedded"},
      {"--keep-surface --mode embedded", "--keep-surface applies to --mode conforming only; this mesh is embedded"},
      {"--resolution 0.1", "--resolution applies to --mode embedded (or to a --shape's edge length) only"},
      {"--resolution 0.1 --mode conforming", "this mesh is conforming"},
  };
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
    snprintf(cmd, sizeof cmd, "%s mesh %s/icosphere_320.obj %s", JL_JELLY_EXE, JL_MODELS_DIR, other[i].flags);
    int rc = jl_test_run(cmd, g_out, sizeof g_out);
    ENSURE_MSG(rc == 2 && strstr(g_out, other[i].want), "'%s' gave %d: %s", other[i].flags, rc, g_out);
  }
  /* with --shape, --resolution is the shape's edge length in either mode,
   * refused before the surface is made when it is too fine */
  snprintf(cmd, sizeof cmd, "%s mesh --shape box --resolution 0.25", JL_JELLY_EXE);
  ENSURE(jl_test_run(cmd, g_out, sizeof g_out) == 0);
  snprintf(cmd, sizeof cmd, "%s mesh --shape box --mode embedded --resolution 1e-6", JL_JELLY_EXE);
  ENSURE_MSG(jl_test_run(cmd, g_out, sizeof g_out) == 2 && strstr(g_out, "--resolution 1e-06 m makes a box of"), "%s",
             g_out);
  snprintf(cmd, sizeof cmd, "%s mesh /nonexistent/file.obj", JL_JELLY_EXE);
  ENSURE(jl_test_run(cmd, g_out, sizeof g_out) == 2);
  snprintf(cmd, sizeof cmd, "%s mesh --help", JL_JELLY_EXE);
  ENSURE(jl_test_run(cmd, g_out, sizeof g_out) == 0 && strstr(g_out, "--max-volume"));
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"conforming_icosphere", test_conforming_icosphere},
             {"conforming_keep_surface", test_conforming_keep_surface}, {"reorder_hilbert", test_reorder_hilbert},
             {"conforming_torus", test_conforming_torus}, {"conforming_bunny", test_conforming_bunny},
             {"conforming_plain", test_conforming_plain},
             {"conforming_small_volume_bound", test_conforming_small_volume_bound},
             {"conforming_coarse_box_bound", test_conforming_coarse_box_bound},
             {"bisect_to_volume_bound", test_bisect_to_volume_bound}, {"tetmesh_check", test_tetmesh_check},
             {"orientation_and_zero_volume", test_orientation_and_zero_volume}, {"embedded_bunny", test_embedded_bunny},
             {"embedded_torus", test_embedded_torus}, {"embedded_icosphere", test_embedded_icosphere},
             {"embedded_thin_plate", test_embedded_thin_plate}, {"embed_outside_points", test_embed_outside_points},
             {"surface_normals", test_surface_normals}, {"shape_box", test_shape_box},
             {"shape_sphere", test_shape_sphere}, {"shape_torus", test_shape_torus},
             {"shapes_tetrahedralize", test_shapes_tetrahedralize},
             {"tetgen_self_intersection", test_tetgen_self_intersection}, {"bad_defs", test_bad_defs},
             {"cli_mesh", test_cli_mesh, JL_PROGRAM}, {"cli_mesh_bad_flags", test_cli_mesh_bad_flags, JL_PROGRAM})
