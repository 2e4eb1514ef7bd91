/* Wind force element: aerodynamic drag on cloth triangles along their
 * normals (the wind among the external forces of the MIT 6.837 mass-spring
 * lecture, in the common form of Provot 1995 / Baraff & Witkin 1998 sec. 3:
 * only the normal component of the relative air velocity pushes a triangle;
 * docs/references.md).
 *
 * With p = x_b - x_a, q = x_c - x_a, N = p x q (|N| = 2 A) and the relative
 * air velocity u = w - (v_a + v_b + v_c) / 3, the triangle force is
 *   F = c A (n . u) n = (c / 2) g(N, u),   g = (N . u) N / |N|,
 * and each node gets F / 3. Derivatives:
 *   dg/dN = (N u^T + (N . u) I) / |N| - (N . u) N N^T / |N|^3  (= G),
 *   dN    = (dx_b - dx_a) x q + p x (dx_c - dx_a),
 *   dF_node/dx: (c / 6) G dN,
 *   dF_node/dv_k = -(c / 18) N N^T / |N|  for each of the three nodes k.
 * The velocity part is symmetric negative semidefinite (pure damping);
 * the position part is not symmetric, so it is used only with
 * JL_LIN_EXACT (tests), never inside CG. Energy: none (the wind does work).
 *
 * The loops are serial over triangles in id order (deterministic). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/wind.h"

#include "mesh/vec3.h"

typedef struct Wind {
  int ntri;
  int *tri;      /* ntri x 3, global node ids */
  double t;      /* s, time of the gust (jl_wind_set_time) */
  int exact;     /* the cache holds the position part */
  double *cache; /* ntri x CACHE: a c/6 G (9), p (3), q (3), N (3), b c / (18 |N|) (1) */
} Wind;

enum { CACHE = 19 };

static const double TWO_PI = 6.28318530717958647692;

void jl_wind_velocity(const JlWorldDef *w, double t, double out[3]) {
  double s = 1.0;
  if (w->wind_gust != 0.0 && w->wind_gust_period > 0.0) s += w->wind_gust * sin(TWO_PI * t / w->wind_gust_period);
  for (int k = 0; k < 3; k++) out[k] = w->wind[k] * s;
}

/* p, q, N and the relative air velocity u of triangle t */
static void tri_geometry(const Wind *wd, int t, const double *x, const double *v, const double *air, double *p,
                         double *q, double *N, double *u) {
  const int *tr = wd->tri + 3 * t;
  const double *a = x + 3 * tr[0], *b = x + 3 * tr[1], *c = x + 3 * tr[2];
  for (int k = 0; k < 3; k++) {
    p[k] = b[k] - a[k];
    q[k] = c[k] - a[k];
    u[k] = air[k] - (v[3 * tr[0] + k] + v[3 * tr[1] + k] + v[3 * tr[2] + k]) / 3.0;
  }
  jl_vec3_cross(p, q, N);
}

static double wind_time(const Wind *wd) { return wd->t; }

void jl_wind_set_time(JlForce *f, double t) {
  JL_ASSERT(f && f->kind == JL_FORCE_WIND, "jl_wind_set_time: f must come from jl_wind_create");
  ((Wind *)f->self)->t = t;
}

static void wind_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                       double *energy) {
  (void)energy;
  const Wind *wd = e->self;
  double air[3], c = m->world.wind_drag;
  jl_wind_velocity(&m->world, wind_time(wd), air);
  for (int t = 0; t < wd->ntri; t++) {
    double p[3], q[3], N[3], u[3];
    tri_geometry(wd, t, x, v, air, p, q, N, u);
    double len = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
    if (!(len > 0.0)) continue;
    /* F / 3 = (c / 6) (N . u) N / |N| */
    double s = c / 6.0 * (N[0] * u[0] + N[1] * u[1] + N[2] * u[2]) / len;
    for (int j = 0; j < 3; j++) {
      double *fj = f + 3 * wd->tri[3 * t + j];
      fj[0] += s * N[0];
      fj[1] += s * N[1];
      fj[2] += s * N[2];
    }
  }
}

/* dN/dx_j as a 3x3 matrix (row-major): j = 0: [q]x - [p]x, 1: -[q]x, 2: [p]x */
static void dn_dx(int j, const double *p, const double *q, double *D) {
  double w[3];
  for (int k = 0; k < 3; k++) w[k] = j == 0 ? q[k] - p[k] : j == 1 ? -q[k] : p[k];
  D[0] = 0, D[1] = -w[2], D[2] = w[1];
  D[3] = w[2], D[4] = 0, D[5] = -w[0];
  D[6] = -w[1], D[7] = w[0], D[8] = 0;
}

static void wind_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                           int flags, double *diag) {
  Wind *wd = e->self;
  double air[3], c = m->world.wind_drag;
  jl_wind_velocity(&m->world, wind_time(wd), air);
  wd->exact = (flags & JL_LIN_EXACT) != 0;
  for (int t = 0; t < wd->ntri; t++) {
    double *C = wd->cache + (size_t)CACHE * t, *G = C, *p = C + 9, *q = C + 12, *N = C + 15, u[3];
    tri_geometry(wd, t, x, v, air, p, q, N, u);
    double len = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
    if (!(len > 0.0)) {
      memset(C, 0, CACHE * sizeof(double));
      continue;
    }
    C[18] = b * c / (18.0 * len);
    /* G = (N u^T + (N . u) I) / |N| - (N . u) N N^T / |N|^3, scaled by a c / 6 */
    double nu = N[0] * u[0] + N[1] * u[1] + N[2] * u[2], sc = wd->exact ? a * c / 6.0 : 0.0;
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++)
        G[3 * r + k] = sc * ((N[r] * u[k] + (r == k ? nu : 0.0)) / len - nu * N[r] * N[k] / (len * len * len));
    if (!diag) continue;
    /* diagonal blocks: velocity part -C18 N N^T, position part G dN/dx_j */
    for (int j = 0; j < 3; j++) {
      double *d = diag + 9 * (size_t)wd->tri[3 * t + j], D[9];
      dn_dx(j, p, q, D);
      for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) {
          double gd = G[3 * r] * D[k] + G[3 * r + 1] * D[3 + k] + G[3 * r + 2] * D[6 + k];
          d[3 * r + k] += gd - C[18] * N[r] * N[k];
        }
    }
  }
}

static void wind_multiply(const JlForce *e, const JlModel *m, const double *uin, double *out) {
  (void)m;
  const Wind *wd = e->self;
  for (int t = 0; t < wd->ntri; t++) {
    const double *C = wd->cache + (size_t)CACHE * t, *G = C, *p = C + 9, *q = C + 12, *N = C + 15;
    const int *tr = wd->tri + 3 * t;
    const double *ua = uin + 3 * tr[0], *ub = uin + 3 * tr[1], *uc = uin + 3 * tr[2];
    double y[3] = {0, 0, 0};
    if (wd->exact) {
      /* G dN with dN = (u_b - u_a) x q + p x (u_c - u_a) */
      double d1[3] = {ub[0] - ua[0], ub[1] - ua[1], ub[2] - ua[2]},
             d2[3] = {uc[0] - ua[0], uc[1] - ua[1], uc[2] - ua[2]};
      double c1[3], c2[3], dN[3];
      jl_vec3_cross(d1, q, c1);
      jl_vec3_cross(p, d2, c2);
      for (int k = 0; k < 3; k++) dN[k] = c1[k] + c2[k];
      for (int r = 0; r < 3; r++) y[r] = G[3 * r] * dN[0] + G[3 * r + 1] * dN[1] + G[3 * r + 2] * dN[2];
    }
    /* velocity part: -C18 N (N . (u_a + u_b + u_c)) */
    double ns = N[0] * (ua[0] + ub[0] + uc[0]) + N[1] * (ua[1] + ub[1] + uc[1]) + N[2] * (ua[2] + ub[2] + uc[2]);
    for (int r = 0; r < 3; r++) y[r] -= C[18] * ns * N[r];
    for (int j = 0; j < 3; j++) {
      double *o = out + 3 * tr[j];
      o[0] += y[0], o[1] += y[1], o[2] += y[2];
    }
  }
}

static void wind_free(void *self) {
  Wind *wd = self;
  if (wd) JL_FREE_ALL(wd->tri, wd->cache);
  free(wd);
}

/* History (JlForce.history_*): the gust time, which the world sets before
 * each step but a force evaluated between steps (jl_world_forces) reads */
static size_t wind_history_size(const JlForce *e) {
  (void)e;
  return sizeof(double);
}

static void wind_history_save(const JlForce *e, unsigned char *out) {
  const Wind *wd = e->self;
  memcpy(out, &wd->t, sizeof wd->t);
}

static int wind_history_load(JlForce *e, const JlModel *m, const unsigned char *in, size_t n) {
  (void)m;
  Wind *wd = e->self;
  double t;
  if (n != sizeof t) return 0;
  memcpy(&t, in, sizeof t);
  if (!isfinite(t)) return 0;
  wd->t = t;
  return 1;
}

/* the air is the world: every body with a triangle in the wind */
static void wind_couple(const JlForce *e, const JlModel *m, int *group) {
  const Wind *wi = e->self;
  for (int t = 0; t < wi->ntri; t++) jl_uf_union(group, m->node_body[wi->tri[3 * t]], m->nbody);
}

/* clang-format off */
static const JlForceOps wind_ops = {.name = "wind", .kind = JL_FORCE_WIND, .force = wind_force,
    .linearize = wind_linearize, .multiply = wind_multiply, .free_self = wind_free, .couple = wind_couple,
    .history_size = wind_history_size, .history_save = wind_history_save, .history_load = wind_history_load};
/* clang-format on */

JlForce *jl_wind_create(const JlModel *m) {
  int ntri = 0;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].kind == JL_BODY_CLOTH) ntri += m->body[b].surface.ntri;
  if (ntri == 0) return NULL;
  Wind *wd = jl_calloc(1, sizeof *wd);
  wd->ntri = ntri;
  wd->tri = jl_calloc(3 * (size_t)ntri, sizeof(int));
  wd->cache = jl_calloc((size_t)CACHE * ntri, sizeof(double));
  int t = 0;
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    if (body->kind != JL_BODY_CLOTH) continue;
    for (int k = 0; k < 3 * body->surface.ntri; k++) wd->tri[3 * t + k] = body->surface.tri[k] + body->node_begin;
    t += body->surface.ntri;
  }
  return jl_force_new(&wind_ops, wd);
}
