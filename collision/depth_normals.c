/* Crease-aware normals for the penetration depth (collision/depth.h; the
 * parts: depth_internal.h).
 *
 * The normal at a crossing point interpolates the struck face's corner
 * normals (Heidelberger et al. 2004, sec. 4.2), each the area-weighted
 * average (at the current positions) of the faces around the corner that are
 * within 60 degrees of the struck face in the rest shape (a crease angle):
 * smooth surfaces get the paper's interpolated vertex normals, a box's face
 * keeps its own normal up to the rim instead of tilting by up to 45 degrees
 * towards the side faces. Creases are found once on the rest shape; face
 * normals, corner normals and, at nodes without a crease, the corner normal
 * shared by all the node's faces are computed once per detection (stamps). */
#include <stdlib.h>
#include <string.h>

#include "collision/depth_internal.h"

/* area-weighted normal (twice the area, outward) of boundary face f */
static void face_area_normal(const JlGeom *geo, const double *x, int f, double n[3]) {
  const int *fv = geo->face + 3 * f;
  const double *a = x + 3 * fv[0], *b = x + 3 * fv[1], *cc = x + 3 * fv[2];
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
}

/* Normal at the point with weights bary[3] of boundary face f: the
 * interpolation of the face's three corner normals (Heidelberger et al. 2004,
 * sec. 4.2 interpolate vertex normals). A corner normal averages, weighted by
 * area, only the faces around the corner that are within JL_CREASE_COS of f
 * itself in the rest shape, so at a sharp edge (a box's rim) the faces on the
 * other side do not tilt the normal: a point on a box's top face is pushed
 * straight up, a point on a smooth surface still gets a normal that varies
 * continuously. Creases are a property of the body's shape and are found
 * once, on the rest positions: at a node without one (almost all nodes of a
 * smooth body) the corner normal is the same for all its faces and is
 * computed once per detection. */
#define JL_CREASE_COS 0.5 /* cos 60 deg */

/* vsmooth, cl_start and cl from the rest positions x0 */
void jl_depth_rest_creases(JlCollision *c, const JlGeom *geo) {
  size_t nf = (size_t)geo->nface;
  double *rn = jl_calloc(4 * nf + 4, sizeof(double)); /* unit rest normal, [3] = |area normal| */
  for (size_t f = 0; f < nf; f++) {
    double *n = rn + 4 * f;
    face_area_normal(geo, geo->x0, (int)f, n);
    n[3] = sqrt(jl_vec3_dot(n, n));
    if (n[3] > 0.0 && isfinite(n[3]))
      for (int d = 0; d < 3; d++) n[d] /= n[3];
    else
      n[3] = 0.0;
  }
  /* g is averaged into f's corner when f and g are both non-degenerate and
   * within the crease angle (or f is degenerate: then all faces are) */
#define KEEPS(f, g)                 \
  (rn[4 * (size_t)(g) + 3] > 0.0 && \
   (!(rn[4 * (size_t)(f) + 3] > 0.0) || jl_vec3_dot(rn + 4 * (size_t)(g), rn + 4 * (size_t)(f)) >= JL_CREASE_COS))
  c->vsmooth = jl_calloc((size_t)geo->nnode + 1, 1);
  for (int v = 0; v < geo->nnode; v++) {
    int smooth = 1;
    for (int a = c->vf_start[v]; a < c->vf_start[v + 1] && smooth; a++)
      for (int b = c->vf_start[v]; b < c->vf_start[v + 1]; b++) {
        int g = c->vf[b];
        if (rn[4 * (size_t)g + 3] > 0.0 && !KEEPS(c->vf[a], g)) {
          smooth = 0;
          break;
        }
      }
    c->vsmooth[v] = (unsigned char)smooth;
  }
  c->cl_start = jl_calloc(3 * nf + 1, sizeof(int));
  for (int pass = 0; pass < 2; pass++) {
    int n = 0;
    for (size_t f = 0; f < nf; f++)
      for (int k = 0; k < 3; k++) {
        int v = geo->face[3 * f + k];
        if (pass == 0) c->cl_start[3 * f + k] = n;
        if (c->vsmooth[v]) continue;
        for (int b = c->vf_start[v]; b < c->vf_start[v + 1]; b++)
          if (KEEPS(f, c->vf[b])) {
            if (pass == 1) c->cl[n] = c->vf[b];
            n++;
          }
      }
    if (pass == 0) {
      c->cl_start[3 * nf] = n;
      c->cl = jl_calloc((size_t)n + 1, sizeof(int));
    }
  }
#undef KEEPS
  free(rn);
  c->vn_stamp = jl_calloc((size_t)geo->nnode + 1, sizeof(unsigned));
  c->vn = jl_calloc(4 * (size_t)geo->nnode + 4, sizeof(double));
}

/* area normal and its length of face f, computed once per detection */
static const double *cached_normal(JlCollision *c, const JlGeom *geo, const double *x, int f) {
  double *n = c->fn + 4 * f;
  if (c->fn_stamp[f] != c->dstamp) {
    c->fn_stamp[f] = c->dstamp;
    face_area_normal(geo, x, f, n);
    n[3] = sqrt(jl_vec3_dot(n, n));
  }
  return n;
}

/* unit normal and corner normals of face f (fc + 12 f: nf, then corners
 * 0-2), computed once per detection; 0 for a degenerate face */
static const double *face_corners(JlCollision *c, const JlGeom *geo, const double *x, int f) {
  double *fc = c->fc + 12 * (size_t)f;
  if (c->fc_stamp[f] == c->dstamp) return fc;
  const double *cf = cached_normal(c, geo, x, f);
  if (!(cf[3] > 0.0) || !isfinite(cf[3])) return NULL;
  double *nf = fc;
  nf[0] = cf[0] / cf[3], nf[1] = cf[1] / cf[3], nf[2] = cf[2] / cf[3];
  for (int k = 0; k < 3; k++) {
    int v = geo->face[3 * f + k];
    double *cn = fc + 3 + 3 * k;
    if (c->vsmooth[v]) {
      /* shared by the node's faces: the area-weighted sum of all of them */
      double *vn = c->vn + 4 * (size_t)v;
      if (c->vn_stamp[v] != c->dstamp) {
        c->vn_stamp[v] = c->dstamp;
        vn[0] = vn[1] = vn[2] = 0.0;
        for (int q = c->vf_start[v]; q < c->vf_start[v + 1]; q++) {
          const double *ng = cached_normal(c, geo, x, c->vf[q]);
          if (ng[3] > 0.0) vn[0] += ng[0], vn[1] += ng[1], vn[2] += ng[2];
        }
        vn[3] = normalize3(vn);
      }
      memcpy(cn, vn[3] != 0.0 ? vn : nf, 3 * sizeof(double));
      continue;
    }
    cn[0] = cn[1] = cn[2] = 0.0;
    for (int q = c->cl_start[3 * f + k]; q < c->cl_start[3 * f + k + 1]; q++) {
      const double *ng = cached_normal(c, geo, x, c->cl[q]);
      if (ng[3] > 0.0) cn[0] += ng[0], cn[1] += ng[1], cn[2] += ng[2];
    }
    if (!normalize3(cn)) memcpy(cn, nf, 3 * sizeof(double));
  }
  c->fc_stamp[f] = c->dstamp;
  return fc;
}

int jl_depth_face_normal(JlCollision *c, const JlGeom *geo, const double *x, int f, const double bary[3], double n[3]) {
  const double *fc = face_corners(c, geo, x, f);
  if (!fc) return 0;
  const double *c0 = fc + 3, *c1 = fc + 6, *c2 = fc + 9;
  n[0] = bary[0] * c0[0] + bary[1] * c1[0] + bary[2] * c2[0];
  n[1] = bary[0] * c0[1] + bary[1] * c1[1] + bary[2] * c2[1];
  n[2] = bary[0] * c0[2] + bary[1] * c1[2] + bary[2] * c2[2];
  if (!normalize3(n)) memcpy(n, fc, 3 * sizeof(double));
  return 1;
}
