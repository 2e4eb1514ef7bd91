/* Validation and repair of a triangle surface before tetrahedralization.
 *
 * TetGen trusts its input: it segfaults on NaN coordinates, aborts on
 * degenerate facets and silently meshes non-manifold or inverted input. So
 * every surface is checked here first, in this order (each step relies on the
 * ones before it):
 *   1. empty input; triangles whose indices are out of range (removed);
 *      NaN/Inf coordinates (stop: no geometry is trustworthy after that);
 *   2. near-duplicate vertices welded within 1e-9 x bounding-box diagonal:
 *      a uniform grid with that cell size, each vertex compared with the 27
 *      cells around it, merged with union-find onto the lowest index;
 *   3. degenerate triangles removed: a repeated vertex, or a height (twice
 *      the area over the longest edge) within the weld tolerance; vertices no
 *      longer used are dropped;
 *   4. edge topology from the sorted list of half-edges: edges with one
 *      triangle are boundary (chained into holes), with three or more are
 *      non-manifold, with two that run the same way are inconsistently
 *      oriented; a vertex whose triangles fall into more than one fan
 *      (corners joined through shared edges, union-find) is non-manifold
 *      too (a bowtie: two parts touching at one point);
 *   5. components (union-find over triangle vertices);
 *   6. orientation, only for closed, manifold, consistent surfaces: each
 *      component's signed volume (divergence theorem) should be positive
 *      unless the component lies inside another one (a cavity), decided by
 *      the generalized winding number (Van Oosterom & Strackee 1983 solid
 *      angles) of one of its vertices w.r.t. the larger components already
 *      fixed; components with the wrong sign are flipped (warning);
 *   7. self-intersections (mesh/validate_intersect.c): triangle pairs
 *      through a hashed uniform grid, then an exact-shape test.
 * The sorts here carry their keys in the sorted records (no file-level qsort context),
 * so surfaces may be validated on several threads at once. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/surface.h"
#include "mesh/validate_internal.h"
#include "mesh/vec3.h"

/* largest |coordinate| (m) accepted: cubes of lengths (volumes, solid angles)
 * stay finite in double */
#define MAX_COORDINATE 1e100

/* ---- small helpers ---------------------------------------------------------- */

static void add_finding(JlMeshReport *r, JlSeverity sev, int imperfect, int count, const char *fmt, va_list ap) {
  if (sev == JL_SEV_ERROR) r->ok = 0;
  if (sev == JL_SEV_ERROR && !imperfect) r->embeddable = 0;
  if (r->nfinding >= JL_MAX_FINDINGS) return;
  JlFinding *f = &r->finding[r->nfinding++];
  f->severity = sev;
  f->count = count;
  f->imperfect = imperfect;
  vsnprintf(f->text, sizeof f->text, fmt, ap);
}

void jl_validate_finding(JlMeshReport *r, JlSeverity sev, int count, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_finding(r, sev, 0, count, fmt, ap);
  va_end(ap);
}

void jl_validate_imperfection(JlMeshReport *r, int count, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_finding(r, JL_SEV_ERROR, 1, count, fmt, ap);
  va_end(ap);
}

/* Keeps triangles with keep[t] != 0, in order. */
static void compact_triangles(JlSurface *s, const unsigned char *keep) {
  int n = 0;
  for (int t = 0; t < s->ntri; t++)
    if (keep[t]) {
      memmove(s->tri + 3 * n, s->tri + 3 * t, 3 * sizeof(int));
      n++;
    }
  s->ntri = n;
}

/* ---- 1. indices and coordinates ------------------------------------------------ */

static void remove_bad_indices(JlSurface *s, JlMeshReport *r) {
  unsigned char *keep = jl_calloc((size_t)s->ntri, 1);
  int nbad = 0, first = -1, first_idx = 0;
  for (int t = 0; t < s->ntri; t++) {
    keep[t] = 1;
    for (int k = 0; k < 3; k++) {
      int v = s->tri[3 * t + k];
      if (v < 0 || v >= s->nvert) {
        if (keep[t]) nbad++;
        if (first < 0) first = t, first_idx = v;
        keep[t] = 0;
      }
    }
  }
  if (nbad) {
    jl_validate_finding(r, JL_SEV_ERROR, nbad,
                        "%d triangles with vertex indices out of range 0..%d; first: triangle %d (index %d)", nbad,
                        s->nvert - 1, first, first_idx);
    compact_triangles(s, keep);
  }
  free(keep);
}

static int check_finite(const JlSurface *s, JlMeshReport *r) {
  int nbad = 0, first = -1;
  for (int i = 0; i < s->nvert; i++) {
    const double *x = s->vert + 3 * (size_t)i;
    if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2])) {
      if (first < 0) first = i;
      nbad++;
    }
  }
  if (nbad) {
    const double *x = s->vert + 3 * (size_t)first;
    jl_validate_finding(r, JL_SEV_ERROR, nbad, "%d vertices with NaN/Inf coordinates; first: vertex %d (%g %g %g)",
                        nbad, first, x[0], x[1], x[2]);
  }
  return nbad;
}

/* ---- 2. weld near-duplicates ------------------------------------------------------ */

typedef struct CellKey {
  int64_t c[3];
  int v;
} CellKey;

static int cmp_cellkey(const void *pa, const void *pb) {
  const CellKey *a = pa, *b = pb;
  for (int k = 0; k < 3; k++)
    if (a->c[k] != b->c[k]) return a->c[k] < b->c[k] ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

/* First key >= (c, -inf) in the sorted array. */
static int lower_bound(const CellKey *keys, int n, const int64_t c[3]) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    int less = 0;
    for (int k = 0; k < 3; k++)
      if (keys[mid].c[k] != c[k]) {
        less = keys[mid].c[k] < c[k];
        goto decided;
      }
  decided:
    if (less)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int weld_near(JlSurface *s, const double lo[3], double tol, JlMeshReport *r) {
  int n = s->nvert;
  double h = tol > 0 ? tol : 1.0;
  CellKey *keys = jl_calloc((size_t)n, sizeof(CellKey));
  int *parent = jl_calloc((size_t)n, sizeof(int));
  for (int i = 0; i < n; i++) {
    parent[i] = i;
    keys[i].v = i;
    /* cell coordinates clamped into int64 range: NaN (inf - inf) and huge
     * quotients would make the conversion undefined; clamped vertices only
     * land in one shared cell and are still compared by true distance */
    for (int k = 0; k < 3; k++) {
      double q = floor((s->vert[3 * (size_t)i + k] - lo[k]) / h);
      keys[i].c[k] = q >= 0 ? (q < 0x1p62 ? (int64_t)q : (int64_t)1 << 62) : 0;
    }
  }
  qsort(keys, (size_t)n, sizeof(CellKey), cmp_cellkey);
  /* compare each vertex with the higher-numbered ones in the 27 cells around it */
  for (int i = 0; i < n; i++) {
    const CellKey *ki = &keys[i];
    const double *x = s->vert + 3 * (size_t)ki->v;
    for (int d = 0; d < 27; d++) {
      int64_t c[3] = {ki->c[0] + d % 3 - 1, ki->c[1] + (d / 3) % 3 - 1, ki->c[2] + d / 9 - 1};
      for (int j = lower_bound(keys, n, c); j < n; j++) {
        if (keys[j].c[0] != c[0] || keys[j].c[1] != c[1] || keys[j].c[2] != c[2]) break;
        if (keys[j].v <= ki->v) continue;
        double e[3];
        jl_vec3_sub(s->vert + 3 * (size_t)keys[j].v, x, e);
        if (jl_vec3_dot(e, e) <= tol * tol) jl_uf_union(parent, ki->v, keys[j].v);
      }
    }
  }
  /* remap triangles onto the lowest vertex of each cluster */
  int nweld = 0, first = -1;
  for (int i = 0; i < n; i++)
    if (jl_uf_find(parent, i) != i) {
      if (first < 0) first = i;
      nweld++;
    }
  if (nweld) {
    for (int c = 0; c < 3 * s->ntri; c++) s->tri[c] = jl_uf_find(parent, s->tri[c]);
    jl_validate_finding(r, JL_SEV_INFO, nweld, "%d duplicate vertices welded (within %.3g); first: vertex %d onto %d",
                        nweld, tol, first, jl_uf_find(parent, first));
  }
  free(keys);
  free(parent);
  return nweld;
}

/* ---- 3. degenerate triangles and unused vertices ------------------------------------ */

static void remove_degenerate(JlSurface *s, double tol, JlMeshReport *r) {
  unsigned char *keep = jl_calloc((size_t)s->ntri, 1);
  int ndeg = 0, first = -1;
  for (int t = 0; t < s->ntri; t++) {
    const int *f = s->tri + 3 * t;
    int degenerate = f[0] == f[1] || f[1] == f[2] || f[2] == f[0];
    if (!degenerate) {
      /* height over the longest edge = |cross| / longest edge */
      const double *a = s->vert + 3 * (size_t)f[0], *b = s->vert + 3 * (size_t)f[1], *c = s->vert + 3 * (size_t)f[2];
      double ab[3], bc[3], ca[3], n[3];
      jl_vec3_sub(b, a, ab);
      jl_vec3_sub(c, b, bc);
      jl_vec3_sub(a, c, ca);
      jl_vec3_cross(ab, bc, n);
      double lmax = fmax(jl_vec3_norm(ab), fmax(jl_vec3_norm(bc), jl_vec3_norm(ca)));
      degenerate = jl_vec3_norm(n) <= tol * lmax;
    }
    keep[t] = !degenerate;
    if (degenerate) {
      if (first < 0) first = t;
      ndeg++;
    }
  }
  if (ndeg) {
    const int *f = s->tri + 3 * first;
    jl_validate_finding(r, JL_SEV_WARNING, ndeg,
                        "%d degenerate (zero-area) triangles removed; first: triangle %d (vertices %d %d %d)", ndeg,
                        first, f[0], f[1], f[2]);
    compact_triangles(s, keep);
  }
  free(keep);
}

/* Drops vertices no triangle uses; returns how many. */
static int remove_unused(JlSurface *s) {
  int *id = jl_calloc((size_t)s->nvert, sizeof(int));
  for (int c = 0; c < 3 * s->ntri; c++) id[s->tri[c]] = 1;
  int n = 0;
  for (int i = 0; i < s->nvert; i++) {
    if (!id[i]) {
      id[i] = -1;
      continue;
    }
    memmove(s->vert + 3 * (size_t)n, s->vert + 3 * (size_t)i, 3 * sizeof(double));
    id[i] = n++;
  }
  for (int c = 0; c < 3 * s->ntri; c++) s->tri[c] = id[s->tri[c]];
  int removed = s->nvert - n;
  s->nvert = n;
  free(id);
  return removed;
}

/* ---- 4. edge topology -------------------------------------------------------------- */

typedef struct HalfEdge {
  int lo, hi; /* vertices, lo < hi */
  int tri;
  int fwd; /* 1 when the triangle runs lo -> hi */
  int k;   /* the edge runs from corner k to corner k+1 of its triangle */
} HalfEdge;

/* corner (3 * triangle + position) of half-edge h at its vertex v */
static int he_corner(const JlSurface *s, const HalfEdge *h, int v) {
  int c = 3 * h->tri + h->k;
  return s->tri[c] == v ? c : 3 * h->tri + (h->k + 1) % 3;
}

static int cmp_halfedge(const void *pa, const void *pb) {
  const HalfEdge *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return (a->tri > b->tri) - (a->tri < b->tri);
}

static int cmp_int_desc(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return (a < b) - (a > b);
}

/* Chains the boundary edges (pairs of vertices) into holes and reports them. */
static void report_holes(const JlSurface *s, const int *bedge, int nb, JlMeshReport *r) {
  /* incidence lists, vertex -> boundary edges */
  int *start = jl_calloc((size_t)s->nvert + 1, sizeof(int));
  int *inc = jl_calloc((size_t)nb * 2, sizeof(int));
  unsigned char *used = jl_calloc((size_t)nb, 1);
  int *sizes = jl_calloc((size_t)nb, sizeof(int));
  for (int e = 0; e < 2 * nb; e++) start[bedge[e] + 1]++;
  for (int v = 0; v < s->nvert; v++) start[v + 1] += start[v];
  int *fill = jl_calloc((size_t)s->nvert, sizeof(int));
  for (int e = 0; e < 2 * nb; e++) inc[start[bedge[e]] + fill[bedge[e]]++] = e / 2;
  /* walk each chain of unused edges */
  int nhole = 0;
  for (int e0 = 0; e0 < nb; e0++) {
    if (used[e0]) continue;
    used[e0] = 1;
    int size = 1;
    /* forward from its end, then (open chains) backward from its start */
    for (int dir = 0; dir < 2; dir++) {
      int cur = bedge[2 * e0 + 1 - dir];
      for (;;) {
        int next = -1;
        for (int k = start[cur]; k < start[cur + 1]; k++)
          if (!used[inc[k]]) {
            next = inc[k];
            break;
          }
        if (next < 0) break;
        used[next] = 1;
        size++;
        cur = bedge[2 * next] == cur ? bedge[2 * next + 1] : bedge[2 * next];
      }
    }
    sizes[nhole++] = size;
  }
  qsort(sizes, (size_t)nhole, sizeof(int), cmp_int_desc);
  char list[96] = "";
  size_t len = 0;
  for (int h = 0; h < nhole && len + 16 < sizeof list; h++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", h ? ", " : "", sizes[h]);
  if (nhole > 0 && len + 16 >= sizeof list) snprintf(list + len, sizeof list - len, ", ...");
  jl_validate_imperfection(r, nb, "open surface: %d boundary edges in %d hole%s (sizes %s); first edge %d-%d", nb,
                           nhole, nhole == 1 ? "" : "s", list, bedge[0], bedge[1]);
  JL_FREE_ALL(start, inc, used, sizes, fill);
}

/* Returns 1 when every edge has exactly two triangles running opposite ways. */
static int check_edges(const JlSurface *s, JlMeshReport *r) {
  size_t nh = 3 * (size_t)s->ntri;
  HalfEdge *he = jl_calloc(nh, sizeof(HalfEdge));
  for (int t = 0; t < s->ntri; t++)
    for (int k = 0; k < 3; k++) {
      int a = s->tri[3 * t + k], b = s->tri[3 * t + (k + 1) % 3];
      HalfEdge *h = &he[3 * (size_t)t + k];
      h->lo = a < b ? a : b;
      h->hi = a < b ? b : a;
      h->tri = t;
      h->fwd = a < b;
      h->k = k;
    }
  qsort(he, nh, sizeof(HalfEdge), cmp_halfedge);
  /* fans: corners of one vertex joined through the edges they share */
  int *fan = jl_calloc(nh, sizeof(int));
  for (size_t c = 0; c < nh; c++) fan[c] = (int)c;

  int *bedge = jl_calloc(nh * 2, sizeof(int));
  int nb = 0, nnm = 0, ninc = 0;
  int nm_first[3] = {0, 0, 0}, inc_first[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < nh;) {
    size_t j = i + 1;
    while (j < nh && he[j].lo == he[i].lo && he[j].hi == he[i].hi) j++;
    size_t k = j - i;
    for (size_t m = i + 1; m < j; m++) {
      jl_uf_union(fan, he_corner(s, &he[i], he[i].lo), he_corner(s, &he[m], he[i].lo));
      jl_uf_union(fan, he_corner(s, &he[i], he[i].hi), he_corner(s, &he[m], he[i].hi));
    }
    if (k == 1) {
      /* boundary edge, kept in the triangle's direction */
      bedge[2 * nb] = he[i].fwd ? he[i].lo : he[i].hi;
      bedge[2 * nb + 1] = he[i].fwd ? he[i].hi : he[i].lo;
      nb++;
    } else if (k == 2) {
      if (he[i].fwd == he[i + 1].fwd) {
        if (!ninc)
          inc_first[0] = he[i].lo, inc_first[1] = he[i].hi, inc_first[2] = he[i].tri, inc_first[3] = he[i + 1].tri;
        ninc++;
      }
    } else {
      if (!nnm) nm_first[0] = he[i].lo, nm_first[1] = he[i].hi, nm_first[2] = (int)k;
      nnm++;
    }
    i = j;
  }
  /* a vertex whose triangles form more than one fan joins parts of the
   * surface at a single point (a bowtie): non-manifold like such an edge */
  int *nfan = jl_calloc((size_t)s->nvert, sizeof(int));
  for (size_t c = 0; c < nh; c++)
    if (jl_uf_find(fan, (int)c) == (int)c) nfan[s->tri[c]]++;
  int nvm = 0, vm_first = -1;
  for (int v = 0; v < s->nvert; v++)
    if (nfan[v] > 1) {
      if (vm_first < 0) vm_first = v;
      nvm++;
    }
  if (nb) report_holes(s, bedge, nb, r);
  if (nnm)
    jl_validate_imperfection(
        r, nnm, "non-manifold: %d edges shared by more than two triangles; first edge %d-%d (%d triangles)", nnm,
        nm_first[0], nm_first[1], nm_first[2]);
  if (nvm)
    jl_validate_imperfection(r, nvm,
                             "non-manifold: %d vertices where separate parts of the surface touch at a single point; "
                             "first vertex %d (%d fans of triangles)",
                             nvm, vm_first, nfan[vm_first]);
  if (ninc)
    jl_validate_imperfection(r, ninc,
                             "inconsistent orientation: %d edges where neighbouring triangles run the same way; "
                             "first edge %d-%d (triangles %d and %d)",
                             ninc, inc_first[0], inc_first[1], inc_first[2], inc_first[3]);
  JL_FREE_ALL(he, bedge, fan, nfan);
  return nb == 0 && nnm == 0 && ninc == 0;
}

/* ---- 5. components ------------------------------------------------------------------ */

/* Labels each triangle with its component 0..n-1 (numbered by first
 * triangle); returns n. */
static int label_components(const JlSurface *s, int *comp) {
  int *parent = jl_calloc((size_t)s->nvert, sizeof(int));
  int *label = jl_calloc((size_t)s->nvert, sizeof(int));
  for (int i = 0; i < s->nvert; i++) parent[i] = i, label[i] = -1;
  for (int t = 0; t < s->ntri; t++) {
    jl_uf_union(parent, s->tri[3 * t], s->tri[3 * t + 1]);
    jl_uf_union(parent, s->tri[3 * t], s->tri[3 * t + 2]);
  }
  int n = 0;
  for (int t = 0; t < s->ntri; t++) {
    int root = jl_uf_find(parent, s->tri[3 * t]);
    if (label[root] < 0) label[root] = n++;
    comp[t] = label[root];
  }
  free(parent);
  free(label);
  return n;
}

/* ---- 6. orientation ---------------------------------------------------------------- */

/* Solid angle of triangle abc seen from p (Van Oosterom & Strackee 1983). */
static double solid_angle(const double *p, const double *a0, const double *b0, const double *c0) {
  double a[3], b[3], c[3], bc[3];
  jl_vec3_sub(a0, p, a);
  jl_vec3_sub(b0, p, b);
  jl_vec3_sub(c0, p, c);
  double la = jl_vec3_norm(a), lb = jl_vec3_norm(b), lc = jl_vec3_norm(c);
  jl_vec3_cross(b, c, bc);
  double num = jl_vec3_dot(a, bc);
  double den = la * lb * lc + jl_vec3_dot(a, b) * lc + jl_vec3_dot(a, c) * lb + jl_vec3_dot(b, c) * la;
  return 2.0 * atan2(num, den);
}

typedef struct CompInfo {
  double vol;          /* signed volume */
  double lo[3], hi[3]; /* bounding box */
  int first;           /* start in the triangle list */
  int count;
} CompInfo;

/* A component's place in the order: its unsigned volume travels with its
 * index so the comparator needs no context (qsort has no context argument in
 * C11, and a file-level pointer would be a data race between threads). */
typedef struct CompKey {
  double absvol;
  int index;
} CompKey;

/* larger volume first, then lower index: a total order */
static int cmp_comp(const void *pa, const void *pb) {
  const CompKey *a = pa, *b = pb;
  if (a->absvol != b->absvol) return a->absvol > b->absvol ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static void fix_orientation(JlSurface *s, const int *comp, int ncomp, const double center[3], JlMeshReport *r) {
  /* triangles grouped by component */
  CompInfo *info = jl_calloc((size_t)ncomp, sizeof(CompInfo));
  int *bytri = jl_calloc((size_t)s->ntri, sizeof(int));
  int *order = jl_calloc((size_t)ncomp, sizeof(int));
  int *fill = jl_calloc((size_t)ncomp, sizeof(int));
  for (int t = 0; t < s->ntri; t++) info[comp[t]].count++;
  for (int c = 1; c < ncomp; c++) info[c].first = info[c - 1].first + info[c - 1].count;
  for (int t = 0; t < s->ntri; t++) bytri[info[comp[t]].first + fill[comp[t]]++] = t;
  /* signed volume and box of each component, around the mesh centre */
  for (int c = 0; c < ncomp; c++) {
    CompInfo *ci = &info[c];
    for (int i = 0; i < ci->count; i++) {
      const int *f = s->tri + 3 * bytri[ci->first + i];
      double a[3], b[3], d[3], n[3];
      jl_vec3_sub(s->vert + 3 * (size_t)f[0], center, a);
      jl_vec3_sub(s->vert + 3 * (size_t)f[1], center, b);
      jl_vec3_sub(s->vert + 3 * (size_t)f[2], center, d);
      jl_vec3_cross(b, d, n);
      ci->vol += jl_vec3_dot(a, n) / 6.0;
      for (int k = 0; k < 3; k++)
        for (int q = 0; q < 3; q++) {
          double x = s->vert[3 * (size_t)f[k] + q];
          if ((i == 0 && k == 0) || x < ci->lo[q]) ci->lo[q] = x;
          if ((i == 0 && k == 0) || x > ci->hi[q]) ci->hi[q] = x;
        }
    }
  }
  /* largest first: a component can only lie inside a larger one */
  CompKey *key = jl_calloc((size_t)ncomp + 1, sizeof(CompKey));
  for (int c = 0; c < ncomp; c++) key[c].absvol = fabs(info[c].vol), key[c].index = c;
  qsort(key, (size_t)ncomp, sizeof(CompKey), cmp_comp);
  for (int c = 0; c < ncomp; c++) order[c] = key[c].index;
  free(key);
  int nflip = 0, first_flip = -1;
  double first_vol = 0.0;
  for (int oi = 0; oi < ncomp; oi++) {
    CompInfo *ci = &info[order[oi]];
    if (ci->vol == 0.0) continue;
    /* winding number of one of its vertices w.r.t. the components fixed so far */
    const double *p = s->vert + 3 * (size_t)s->tri[3 * bytri[ci->first]];
    double w = 0.0;
    for (int oj = 0; oj < oi; oj++) {
      const CompInfo *cj = &info[order[oj]];
      if (p[0] < cj->lo[0] || p[0] > cj->hi[0] || p[1] < cj->lo[1] || p[1] > cj->hi[1] || p[2] < cj->lo[2] ||
          p[2] > cj->hi[2])
        continue;
      for (int i = 0; i < cj->count; i++) {
        const int *f = s->tri + 3 * bytri[cj->first + i];
        w += solid_angle(p, s->vert + 3 * (size_t)f[0], s->vert + 3 * (size_t)f[1], s->vert + 3 * (size_t)f[2]);
      }
    }
    w /= 4.0 * 3.14159265358979323846;
    int inside = (labs(lround(w)) % 2) == 1; /* inside material: this is a cavity */
    if ((ci->vol > 0.0) == !inside) continue;
    /* wrong sign: flip every triangle of the component */
    if (first_flip < 0 || bytri[ci->first] < first_flip) first_flip = bytri[ci->first], first_vol = ci->vol;
    for (int i = 0; i < ci->count; i++) {
      int *f = s->tri + 3 * bytri[ci->first + i];
      int tmp = f[1];
      f[1] = f[2];
      f[2] = tmp;
    }
    ci->vol = -ci->vol;
    nflip++;
  }
  if (nflip)
    jl_validate_finding(r, JL_SEV_WARNING, nflip,
                        "inside-out: %d of %d components faced inward (first: triangle %d, signed volume %.6g); "
                        "flipped",
                        nflip, ncomp, first_flip, first_vol);
  JL_FREE_ALL(info, bytri, order, fill);
}

/* ---- the whole check --------------------------------------------------------------------- */

void jl_surface_validate(JlSurface *s, const char *name, JlMeshReport *report) {
  JL_ASSERT(s && report, "jl_surface_validate needs a surface and a report");
  (void)name; /* findings are phrased without the name; jl_report_errors adds it */
  JlMeshReport *r = report;
  memset(r, 0, sizeof *r);
  r->ok = 1;
  r->embeddable = 1;
  if (s->nvert < 0) s->nvert = 0;
  if (s->ntri < 0) s->ntri = 0;

  /* 1. empty, indices, coordinates */
  if (s->nvert == 0 || s->ntri == 0 || !s->vert || !s->tri) {
    jl_validate_finding(r, JL_SEV_ERROR, 0, "empty: %d vertices, %d triangles", s->nvert, s->ntri);
    r->nvert = s->nvert;
    r->ntri = s->ntri;
    return;
  }
  remove_bad_indices(s, r);
  if (check_finite(s, r) > 0 || s->ntri == 0) {
    if (s->ntri == 0) jl_validate_finding(r, JL_SEV_ERROR, 0, "empty: no valid triangles left");
    r->nvert = s->nvert;
    r->ntri = s->ntri;
    return;
  }

  /* coordinates whose products overflow (areas, volumes, the weld
   * tolerance) cannot be checked, let alone simulated */
  double lo[3], hi[3], ext[3];
  jl_surface_bbox(s, lo, hi);
  jl_vec3_sub(hi, lo, ext);
  double big = 0.0;
  for (int k = 0; k < 3; k++) big = fmax(big, fmax(fabs(lo[k]), fabs(hi[k])));
  if (!(big <= MAX_COORDINATE)) {
    jl_validate_finding(r, JL_SEV_ERROR, s->nvert,
                        "coordinates too large: the bounding box spans %g .. %g (at most %g in any coordinate)",
                        fmin(lo[0], fmin(lo[1], lo[2])), fmax(hi[0], fmax(hi[1], hi[2])), MAX_COORDINATE);
    r->nvert = s->nvert;
    r->ntri = s->ntri;
    return;
  }

  /* 2. weld within 1e-9 of the bounding-box diagonal */
  double tol = 1e-9 * jl_vec3_norm(ext);
  int nweld = weld_near(s, lo, tol, r);

  /* 3. degenerate triangles, then vertices nobody uses */
  remove_degenerate(s, tol, r);
  int nunused = remove_unused(s) - nweld;
  if (nunused > 0)
    jl_validate_finding(r, JL_SEV_INFO, nunused, "%d vertices not used by any triangle removed", nunused);
  if (s->ntri == 0) {
    jl_validate_finding(r, JL_SEV_ERROR, 0, "empty: no triangles left after removing degenerate ones");
    r->nvert = s->nvert;
    return;
  }

  /* 4. holes, non-manifold edges, orientation consistency */
  int clean = check_edges(s, r);

  /* 5. components */
  int *comp = jl_calloc((size_t)s->ntri, sizeof(int));
  r->ncomponent = label_components(s, comp);
  if (r->ncomponent > 1) jl_validate_finding(r, JL_SEV_INFO, r->ncomponent, "%d separate components", r->ncomponent);

  /* 6. inside-out components, only meaningful on a clean closed surface */
  jl_surface_bbox(s, lo, hi);
  double center[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
  if (clean) fix_orientation(s, comp, r->ncomponent, center, r);
  free(comp);

  /* 7. self-intersections */
  jl_validate_self_intersections(s, lo, hi, r);

  r->nvert = s->nvert;
  r->ntri = s->ntri;
  r->volume = jl_surface_volume(s);
  memcpy(r->bbox_lo, lo, sizeof lo);
  memcpy(r->bbox_hi, hi, sizeof hi);
}

void jl_report_errors(const JlMeshReport *r, const char *name, char *err, size_t errsz) {
  JL_ASSERT(r, "jl_report_errors needs a report");
  if (!err || errsz == 0) return;
  err[0] = '\0';
  size_t len = 0;
  for (int i = 0; i < r->nfinding && len + 1 < errsz; i++) {
    if (r->finding[i].severity != JL_SEV_ERROR) continue;
    int w = snprintf(err + len, errsz - len, "%s%s: %s", len ? "\n" : "", name ? name : "mesh", r->finding[i].text);
    if (w < 0) break;
    len += (size_t)w;
  }
  if (len == 0 && !r->ok) snprintf(err, errsz, "%s: cannot be tetrahedralized", name ? name : "mesh");
}
