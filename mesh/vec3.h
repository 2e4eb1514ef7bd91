/* Small 3-vector helpers shared by mesh/, collision/ and src/ (double, m).
 * Header-only (static inline) so hot loops keep them inlined. */
#ifndef JL_MESH_VEC3_H
#define JL_MESH_VEC3_H

#include <math.h>

/* out = a - b */
static inline void jl_vec3_sub(const double *a, const double *b, double *out) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}

/* out = a x b (out must not alias a or b) */
static inline void jl_vec3_cross(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double jl_vec3_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline double jl_vec3_norm(const double *a) { return sqrt(jl_vec3_dot(a, a)); }

/* D (a row-major 3x3 block) += the symmetric matrix s = (xx, xy, xz, yy, yz, zz) */
static inline void jl_mat3_add_sym6(double *D, const double s[6]) {
  D[0] += s[0];
  D[1] += s[1];
  D[2] += s[2];
  D[3] += s[1];
  D[4] += s[3];
  D[5] += s[4];
  D[6] += s[2];
  D[7] += s[4];
  D[8] += s[5];
}

/* determinant of a row-major 3x3 matrix */
static inline double jl_mat3_det(const double *A) {
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* out = A^-1 (row-major 3x3, out must not alias A); 0 when A is singular or not finite */
static inline int jl_mat3_inv(const double *A, double *out) {
  double d = jl_mat3_det(A);
  if (!(fabs(d) > 0.0) || !isfinite(d)) return 0;
  out[0] = (A[4] * A[8] - A[5] * A[7]) / d;
  out[1] = (A[2] * A[7] - A[1] * A[8]) / d;
  out[2] = (A[1] * A[5] - A[2] * A[4]) / d;
  out[3] = (A[5] * A[6] - A[3] * A[8]) / d;
  out[4] = (A[0] * A[8] - A[2] * A[6]) / d;
  out[5] = (A[2] * A[3] - A[0] * A[5]) / d;
  out[6] = (A[3] * A[7] - A[4] * A[6]) / d;
  out[7] = (A[1] * A[6] - A[0] * A[7]) / d;
  out[8] = (A[0] * A[4] - A[1] * A[3]) / d;
  return 1;
}

#endif
