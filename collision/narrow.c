/* Exact narrow-phase tests (collision/narrow.h).
 *
 * Point in tet (Teschner et al. 2003, sec. 4: barycentric coordinates of the
 * point in the tet): the four weights are the signed volumes of the point with
 * each face, divided by their sum. Each face volume is one orientation
 * determinant with the face's nodes in ascending global order, so adjacent
 * tets agree bitwise on their shared face (no point falls through a crack).
 *
 * Segment-triangle: the segment crosses the triangle's plane when its ends
 * have orientations of opposite sign; the crossing lies in the triangle when
 * the three signed volumes of the segment with the triangle's edges agree in
 * sign (the classic orientation formulation, e.g. Ericson 2005, sec. 5.3.4).
 *
 * Closest point on a triangle: Voronoi-region walk of Ericson 2005, 5.1.5. */
#include "collision/narrow.h"

#include <math.h>
#include "mesh/vec3.h"

double jl_orient3d(const double *a, const double *b, const double *c, const double *d) {
  double u0 = b[0] - a[0], u1 = b[1] - a[1], u2 = b[2] - a[2];
  double v0 = c[0] - a[0], v1 = c[1] - a[1], v2 = c[2] - a[2];
  double w0 = d[0] - a[0], w1 = d[1] - a[1], w2 = d[2] - a[2];
  return u0 * (v1 * w2 - v2 * w1) - u1 * (v0 * w2 - v2 * w0) + u2 * (v0 * w1 - v1 * w0);
}

double jl_orient_face(const double *x, int ia, int ib, int ic, const double *p) {
  /* sort (ia, ib, ic) ascending, counting swaps */
  int s = 0, t;
  if (ia > ib) t = ia, ia = ib, ib = t, s ^= 1;
  if (ib > ic) t = ib, ib = ic, ic = t, s ^= 1;
  if (ia > ib) t = ia, ia = ib, ib = t, s ^= 1;
  double o = jl_orient3d(x + 3 * ia, x + 3 * ib, x + 3 * ic, p);
  return s ? -o : o;
}

int jl_point_in_tet(const double *x, const int *t, const double *p, double w[4]) {
  /* w_k ~ volume of the tet with node k replaced by p; face k is opposite node k.
   * vol(p, b, c, d) = -orient(b, c, d, p), vol(a, p, c, d) = orient(a, c, d, p), ... */
  double v0 = -jl_orient_face(x, t[1], t[2], t[3], p);
  double v1 = jl_orient_face(x, t[0], t[2], t[3], p);
  double v2 = -jl_orient_face(x, t[0], t[1], t[3], p);
  double v3 = jl_orient_face(x, t[0], t[1], t[2], p);
  double sum = v0 + v1 + v2 + v3;
  if (!(sum > 0.0)) {
    w[0] = w[1] = w[2] = w[3] = 0.0;
    return 0;
  }
  double inv = 1.0 / sum;
  w[0] = v0 * inv;
  w[1] = v1 * inv;
  w[2] = v2 * inv;
  w[3] = v3 * inv;
  return v0 >= 0.0 && v1 >= 0.0 && v2 >= 0.0 && v3 >= 0.0;
}

int jl_segment_triangle(const double *p0, const double *p1, const double *a, const double *b, const double *c,
                        double *s, double bary[3]) {
  double o0 = jl_orient3d(a, b, c, p0), o1 = jl_orient3d(a, b, c, p1);
  if (!((o0 > 0.0 && o1 < 0.0) || (o0 < 0.0 && o1 > 0.0))) return 0;
  /* signed volumes of the segment with each edge: equal signs = inside */
  double ea = jl_orient3d(p0, p1, b, c), eb = jl_orient3d(p0, p1, c, a), ec = jl_orient3d(p0, p1, a, b);
  if (!((ea >= 0.0 && eb >= 0.0 && ec >= 0.0) || (ea <= 0.0 && eb <= 0.0 && ec <= 0.0))) return 0;
  double sum = ea + eb + ec;
  if (sum == 0.0) return 0;
  bary[0] = ea / sum;
  bary[1] = eb / sum;
  bary[2] = ec / sum;
  *s = o0 / (o0 - o1);
  return 1;
}
