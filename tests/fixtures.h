/* Test fixtures several test files share: the finite-difference check of a
 * force element's Jacobian (test_forces.c, test_collision.c, test_cloth.c,
 * test_thin_contact.c, test_render.c). Header-only (static inline) like tests/sim.h, so
 * each test executable compiles what it uses and the build lists no new
 * file. The random numbers (jl_test_rnd) and the quick mode
 * (jl_test_quick) are in tests/harness.h. */
#ifndef JL_TESTS_FIXTURES_H
#define JL_TESTS_FIXTURES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/force.h"

/* how jl_test_fd_error measures the error of Ju against the differences fd */
typedef enum JlTestFdNorm {
  JL_TEST_FD_L2,        /* |Ju - fd|_2 / max(|Ju|_2, |fd|_2); 0 when both are zero (an idle element agrees) */
  JL_TEST_FD_L2_OF_FD,  /* |Ju - fd|_2 / |fd|_2; infinite when fd is zero (nothing was checked) */
  JL_TEST_FD_MAX_OF_FD, /* max_k |Ju - fd|_k / max_k |fd|_k; infinite when fd is zero */
} JlTestFdNorm;

/* The relative error of element e's linearization at (x, v) against central
 * differences of its force: (a dF/dx + b dF/dv) u from linearize (with the
 * JL_LIN_* flags) and multiply, against a (F(x + eps u, v) - F(x - eps u, v)) / 2 eps
 * plus b times the same along v (a term whose coefficient is 0 is skipped). */
static inline double jl_test_fd_error(JlForce *e, const JlModel *m, const double *x, const double *v, double a,
                                      double b, int flags, const double *u, double eps, JlTestFdNorm norm) {
  size_t n3 = 3 * (size_t)m->nnode;
  double *ju = calloc(n3, sizeof(double)), *fd = calloc(n3, sizeof(double));
  double *p = calloc(n3, sizeof(double)), *fp = calloc(n3, sizeof(double)), *fm = calloc(n3, sizeof(double));
  JL_ASSERT(ju && fd && p && fp && fm, "jl_test_fd_error: out of memory");
  e->ops->linearize(e, m, x, v, a, b, flags, NULL);
  e->ops->multiply(e, m, u, ju);
  /* along x (wrt 0), then along v (wrt 1) */
  for (int wrt = 0; wrt < 2; wrt++) {
    double coef = wrt ? b : a;
    if (coef == 0.0) continue;
    const double *base = wrt ? v : x;
    for (int sgn = 0; sgn < 2; sgn++) {
      double *f = sgn ? fm : fp;
      for (size_t k = 0; k < n3; k++) p[k] = sgn ? base[k] - eps * u[k] : base[k] + eps * u[k];
      memset(f, 0, n3 * sizeof(double));
      if (wrt)
        e->ops->force(e, m, x, p, f, NULL);
      else
        e->ops->force(e, m, p, v, f, NULL);
    }
    for (size_t k = 0; k < n3; k++) fd[k] += coef * (fp[k] - fm[k]) / (2 * eps);
  }
  double diff = 0, s1 = 0, s2 = 0;
  for (size_t k = 0; k < n3; k++) {
    double d = ju[k] - fd[k];
    if (norm == JL_TEST_FD_MAX_OF_FD) {
      diff = fmax(diff, fabs(d));
      s2 = fmax(s2, fabs(fd[k]));
    } else {
      diff += d * d;
      s1 += ju[k] * ju[k];
      s2 += fd[k] * fd[k];
    }
  }
  free(ju), free(fd), free(p), free(fp), free(fm);
  if (norm == JL_TEST_FD_MAX_OF_FD) return s2 > 0 ? diff / s2 : INFINITY;
  if (norm == JL_TEST_FD_L2_OF_FD) return s2 > 0 ? sqrt(diff / s2) : INFINITY;
  double scale = sqrt(fmax(s1, s2));
  return scale > 0 ? sqrt(diff) / scale : 0.0;
}

#endif
