/* Topology and quality of a tet mesh (mesh/tetmesh.h; the parts:
 * tetmesh_internal.h): unique edges (the springs), boundary faces in outward
 * order, CSR node adjacency, radius-edge and volume figures and
 * jl_tetmesh_check of a build's bounds. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/csr.h"
#include "mesh/tetmesh_internal.h"
#include "mesh/vec3.h"

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

int jl_tet_boundary_faces(const int *tet, int ntet, int **face) {
  /* faces of exactly one tet, kept in that tet's outward order */
  size_t nfk = (size_t)ntet * 4;
  FaceKey *fk = jl_calloc(nfk + 1, sizeof(FaceKey));
  for (int e = 0; e < ntet; e++)
    for (int f = 0; f < 4; f++) {
      FaceKey *k = &fk[4 * (size_t)e + f];
      int a = tet[4 * e + tet_face[f][0]], b = tet[4 * e + tet_face[f][1]], c = tet[4 * e + tet_face[f][2]];
      int lo = a < b ? (a < c ? a : c) : (b < c ? b : c);
      int hi = a > b ? (a > c ? a : c) : (b > c ? b : c);
      k->sorted[0] = lo;
      k->sorted[1] = a + b + c - lo - hi;
      k->sorted[2] = hi;
      k->tet = e;
      k->which = f;
    }
  qsort(fk, nfk, sizeof(FaceKey), cmp_face);
  int nface = 0;
  int *out = jl_calloc(nfk * 3 + 1, sizeof(int));
  for (size_t i = 0; i < nfk;) {
    size_t j = i + 1;
    while (j < nfk && cmp_face(&fk[i], &fk[j]) == 0) j++;
    if (j - i == 1) {
      const int *v = tet + 4 * fk[i].tet;
      for (int k = 0; k < 3; k++) out[3 * nface + k] = v[tet_face[fk[i].which][k]];
      nface++;
    }
    i = j;
  }
  free(fk);
  *face = jl_realloc(out, (size_t)nface * 3, sizeof(int));
  return nface;
}

void jl_tetmesh_topology(JlTetMesh *t) {
  JL_ASSERT(t && (t->ntet == 0 || (t->node && t->tet)), "jl_tetmesh_topology needs a tet mesh");
  JL_FREE_ALL(t->edge, t->face, t->adj_start, t->adj);

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

  t->nface = jl_tet_boundary_faces(t->tet, t->ntet, &t->face);

  /* adjacency (CSR, mesh/csr.h): each node's neighbours, ascending */
  jl_csr_edges(t->nnode, t->nedge, t->edge, NULL, NULL, &t->adj_start, &t->adj);
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
