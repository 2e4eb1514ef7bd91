/* Closest points (mesh/closest.h). */
#include "mesh/closest.h"

#include "mesh/vec3.h"

double jl_closest_point_triangle(const double *p, const double *a, const double *b, const double *c, double q[3],
                                 double bary[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  for (int k = 0; k < 3; k++) {
    ab[k] = b[k] - a[k];
    ac[k] = c[k] - a[k];
    ap[k] = p[k] - a[k];
    bp[k] = p[k] - b[k];
    cp[k] = p[k] - c[k];
  }
  double u = 1, v = 0, w = 0; /* weights of a, b, c */
  double d1 = jl_vec3_dot(ab, ap), d2 = jl_vec3_dot(ac, ap);
  double d3 = jl_vec3_dot(ab, bp), d4 = jl_vec3_dot(ac, bp);
  double d5 = jl_vec3_dot(ab, cp), d6 = jl_vec3_dot(ac, cp);
  double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (d1 <= 0 && d2 <= 0) {
    u = 1, v = 0, w = 0; /* vertex a */
  } else if (d3 >= 0 && d4 <= d3) {
    u = 0, v = 1, w = 0; /* vertex b */
  } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    v = d1 / (d1 - d3); /* edge ab */
    u = 1 - v, w = 0;
  } else if (d6 >= 0 && d5 <= d6) {
    u = 0, v = 0, w = 1; /* vertex c */
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    w = d2 / (d2 - d6); /* edge ac */
    u = 1 - w, v = 0;
  } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    w = (d4 - d3) / ((d4 - d3) + (d5 - d6)); /* edge bc */
    u = 0, v = 1 - w;
  } else {
    double den = 1.0 / (va + vb + vc); /* face interior */
    v = vb * den;
    w = vc * den;
    u = 1 - v - w;
  }
  double d2s = 0;
  for (int k = 0; k < 3; k++) {
    q[k] = u * a[k] + v * b[k] + w * c[k];
    d2s += (p[k] - q[k]) * (p[k] - q[k]);
  }
  bary[0] = u, bary[1] = v, bary[2] = w;
  return d2s;
}
