/* Small 3-vector helpers shared by mesh/, collision/ and src/ (double, m).
 * Header-only (static inline) so hot loops keep them inlined. */
#ifndef JL_MESH_VEC3_H
#define JL_MESH_VEC3_H

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

static inline double jl_vec3_dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

#endif
