/* Rolling resistance (src/rolling.h; docs/collision.md, "Rolling resistance").
 *
 * Why: a tetrahedral mass-spring body is not isotropic. Under its own weight
 * the elastic energy of a soft ball depends on its orientation, so a ball
 * set on a flat surface rolls towards a preferred orientation (measured: a
 * 0.15 m ball of E 2e5 Pa turns by 20 degrees on the frictionless ground,
 * and with friction that turn is a roll of 5 cm) and then rocks about it with
 * nothing to damp it. Nothing in the contact resists rolling: the friction
 * anchors hold the contact nodes, but a rolling body lifts nodes off at one
 * side of its patch and sets new ones down at the other.
 *
 * What: every pair of a volume body a and what it rests on, b (another
 * volume body, an obstacle or the ground), that carries a normal load N at
 * the step's start gets a rolling anchor: the relative orientation of a in
 * b's frame when the pair began to stick. The rolling deviation phi is the
 * rotation from the anchor to the current relative orientation, in the
 * plane of the contact (the spin about the contact normal n is free). A
 * rotational spring and damper resist it,
 *     tau = -k_r phi - c_r omega,   |tau| <= mu_r N l  (Coulomb cone),
 * with omega the tangential relative angular velocity and l the lever arm
 * (the distance from the body's centre of mass to the load's centroid; the
 * smaller of the two bodies'). When the spring needs more than the cone
 * allows, the anchor is dragged onto the cone: the body rolls, resisted by
 * mu_r N l, as with Box2D v3.1's rolling resistance (a torque capped by
 * rollingResistance x normal force x radius) and the rolling friction of
 * MuJoCo's condim 6. The anchor persists across steps while the pair
 * touches, so a resting body stays put instead of creeping; slipping is
 * chosen as for the friction anchors of src/contact.c (stick when the
 * spring can hold over the step or the pair turns by less than JL_SLIDE_MIN
 * of its cone per step, else
 * lagged-viscosity rolling, which drags the anchor along).
 *
 * A body's orientation R is the rotation of the polar decomposition of
 * sum_i m_i (x_i - c)(X_i - C)^T (Muller et al. 2005, shape matching), X the
 * initial positions. Within a step the deviation is linear in x:
 *     phi(x) = phi0 + P_n (J_a (x - xs) - J_b (x - xs)),
 *     J u = I^-1 sum_i m_i r_i x u_i,   r_i = xs_i - c,
 * xs the positions at the step's start and I the inertia tensor about c
 * there (J v is the rigid-body angular velocity that has the body's angular
 * momentum). The torque tau on a (and -tau on b) is applied as the force
 * field of a rigid angular acceleration, f_i = m_i (I^-1 tau) x r_i: it has
 * no net force and exactly the torque tau, so linear momentum is untouched
 * and the pair's angular momentum is conserved. The forces are J^T tau, so
 * the Jacobian is -J^T (k_r P_n) J and -J^T (c_r P_n) J: symmetric negative
 * semidefinite, rank 2 per pair; multiply applies it in O(nodes) (one
 * reduction per body, one 3x3 block per pair). */
#include "src/rolling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/vec3.h"
#include "src/loads.h"
#include "src/parallel.h"
#include "src/penalty.h"

enum { ROLL_STICK, ROLL_SLIDE };

typedef struct Frame {
  int ok;         /* an unpinned volume body with a regular orientation */
  double mass;    /* kg */
  double c[3];    /* m, centre of mass at the step's start */
  double Iinv[9]; /* 1/(kg m^2): inverse inertia tensor about c */
  double R[9];    /* orientation (polar decomposition against the initial shape) */
  double inertia; /* kg m^2: trace(I)/3 */
} Frame;

typedef JlLoad Load;

typedef struct Pair {
  int a, b; /* a: a volume body; b: a body (rolls too when its frame is ok) or >= nbody (static) */
  int mode; /* ROLL_STICK / ROLL_SLIDE */
  int pad;
  double n[3];    /* unit contact normal pushing a */
  double load;    /* N */
  double lever;   /* m */
  double k, c;    /* N m/rad, N m s/rad */
  double inertia; /* kg m^2: the pair's reduced moment of inertia about the contact */
  double cap;     /* N m: mu_r N l */
  double phi0[3]; /* rad: tangential deviation at the step's start, on the cone */
  double w0;      /* rad/s: tangential relative angular speed at the step's start */
  double wv;      /* rad/s, rolling: the speed the viscosity is lagged on (src/penalty.h jl_slide_lag_speed) */
  double D[9];    /* a dtau/dphi + b dtau/domega at the last linearize (P_n folded in) */
} Pair;

typedef struct Anchor {
  int a, b;
  double A[9]; /* R_b^T R_a when the deviation was zero */
  double w0;   /* rad/s: the pair's tangential angular speed at that step's start */
} Anchor;

typedef struct Rolling {
  const JlForce *contacts, *ground;
  double mu, mu_ground; /* rolling resistance coefficients: bodies and obstacles, the ground plane */
  int implicit;         /* 1: in an implicit solve (refine); else explicit steps: stiffness and damping held stable */
  double h;             /* s, the step begun */
  int nbody, nnode;
  Frame *frame;       /* nbody */
  double *C;          /* nbody x 3: centre of mass of the initial positions */
  double *xs;         /* nnode x 3: positions at the step's start */
  double *mr;         /* nnode x 3: m_i (xs_i - c) of the rolling bodies' nodes (lever_arms) */
  double *part;       /* 3 x blocks of nnode: body_rotations' block sums */
  double *part_small; /* 6 x nbody: the block sums of the bodies of at most JL_PAR_MIN_LIGHT nodes (two blocks each) */
  int nload, loadcap;
  Load *load;
  int npair, paircap;
  Pair *pair;
  int nanchor, anchorcap, nfresh, freshcap;
  Anchor *anchor; /* sorted by (a, b): what the last step left */
  Anchor *fresh;  /* the anchors this step leaves (swapped in at its end of begin_step) */
  double *tau;    /* nbody x 3 scratch: torque per body */
  double *th;     /* nbody x 3 scratch: J u per body */
} Rolling;

/* ---------------------------------------------------------------- 3x3 helpers */

static void mat_mul(const double *A, const double *B, double *C) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* C = A^T B */
static void mat_tmul(const double *A, const double *B, double *C) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* C = A B^T */
static void mat_mult(const double *A, const double *B, double *C) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}

static void mat_vec(const double *A, const double *v, double *out) {
  for (int i = 0; i < 3; i++) out[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
}

static void mat_tvec(const double *A, const double *v, double *out) {
  for (int i = 0; i < 3; i++) out[i] = A[i] * v[0] + A[3 + i] * v[1] + A[6 + i] * v[2];
}

/* rotation of the polar decomposition A = R S (Higham's scaled Newton
 * iteration R <- (z R + R^-T / z) / 2); 0 when det A <= 0 (an inverted body) */
static int polar_rotation(const double *A, double *R) {
  if (!(jl_mat3_det(A) > 0.0)) return 0;
  memcpy(R, A, 9 * sizeof(double));
  for (int it = 0; it < 60; it++) {
    double inv[9];
    if (!jl_mat3_inv(R, inv)) return 0;
    double z = cbrt(fabs(jl_mat3_det(inv))), change = 0.0, scale = 0.0;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double nv = 0.5 * (z * R[3 * i + j] + inv[3 * j + i] / z);
        change += (nv - R[3 * i + j]) * (nv - R[3 * i + j]);
        scale += nv * nv;
        R[3 * i + j] = nv;
      }
    if (change <= 1e-28 * scale) return 1;
  }
  return 1;
}

/* rotation vector of the rotation matrix E (log map) */
static void rot_log(const double *E, double w[3]) {
  double c = 0.5 * (E[0] + E[4] + E[8] - 1.0);
  if (c > 1.0) c = 1.0;
  if (c < -1.0) c = -1.0;
  double th = acos(c), s[3] = {E[7] - E[5], E[2] - E[6], E[3] - E[1]};
  if (th < 1e-6) {
    for (int a = 0; a < 3; a++) w[a] = 0.5 * s[a];
    return;
  }
  if (th < 3.14159265358979323846 - 1e-3) {
    double f = th / (2.0 * sin(th));
    for (int a = 0; a < 3; a++) w[a] = f * s[a];
    return;
  }
  /* near pi: the axis from the symmetric part, E + I = 2 u u^T */
  int k = E[0] >= E[4] && E[0] >= E[8] ? 0 : E[4] >= E[8] ? 1 : 2;
  double u[3];
  for (int a = 0; a < 3; a++) u[a] = 0.5 * (E[3 * k + a] + E[3 * a + k]) + (a == k ? 1.0 - c : 0.0);
  double len = sqrt(jl_vec3_dot(u, u));
  if (!(len > 0.0)) {
    w[0] = w[1] = w[2] = 0.0;
    return;
  }
  if (jl_vec3_dot(u, s) < 0.0) len = -len;
  for (int a = 0; a < 3; a++) w[a] = th * u[a] / len;
}

/* rotation matrix of the rotation vector w (Rodrigues) */
static void rot_exp(const double w[3], double *E) {
  double th = sqrt(jl_vec3_dot(w, w)), a, b;
  if (th < 1e-8) {
    a = 1.0 - th * th / 6.0;
    b = 0.5 - th * th / 24.0;
  } else {
    a = sin(th) / th;
    b = (1.0 - cos(th)) / (th * th);
  }
  double K[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0}, K2[9];
  mat_mul(K, K, K2);
  for (int i = 0; i < 9; i++) E[i] = (i % 4 == 0 ? 1.0 : 0.0) + a * K[i] + b * K2[i];
}

/* ---------------------------------------------------------------- frames */

/* centre of mass, inertia and orientation of every volume body without pins */
static void frames(Rolling *ro, const JlModel *m, const double *x) {
  for (int b = 0; b < m->nbody; b++) {
    Frame *fr = &ro->frame[b];
    const JlBody *bd = &m->body[b];
    memset(fr, 0, sizeof *fr);
    if (bd->kind != JL_BODY_VOLUME) continue;
    int end = bd->node_begin + bd->node_count, pinned = 0;
    double M = 0.0, c[3] = {0, 0, 0};
    for (int i = bd->node_begin; i < end; i++) {
      pinned |= m->pinned[i];
      M += m->mass[i];
      for (int a = 0; a < 3; a++) c[a] += m->mass[i] * x[3 * i + a];
    }
    if (pinned || !(M > 0.0)) continue;
    for (int a = 0; a < 3; a++) c[a] /= M;
    double I[9] = {0}, A[9] = {0};
    const double *C = ro->C + 3 * b;
    for (int i = bd->node_begin; i < end; i++) {
      double r[3], X[3], mi = m->mass[i];
      jl_vec3_sub(x + 3 * i, c, r);
      jl_vec3_sub(m->x0 + 3 * i, C, X);
      double rr = jl_vec3_dot(r, r);
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) {
          I[3 * p + q] += mi * ((p == q ? rr : 0.0) - r[p] * r[q]);
          A[3 * p + q] += mi * r[p] * X[q];
        }
    }
    if (!jl_mat3_inv(I, fr->Iinv) || !polar_rotation(A, fr->R)) continue;
    fr->ok = 1;
    fr->mass = M;
    memcpy(fr->c, c, sizeof c);
    fr->inertia = (I[0] + I[4] + I[8]) / 3.0;
  }
}

/* mr_i = m_i (xs_i - c) for the nodes of every rolling body (after frames) */
static void lever_arms(Rolling *ro, const JlModel *m) {
  for (int b = 0; b < m->nbody; b++) {
    const Frame *fr = &ro->frame[b];
    if (!fr->ok) continue;
    const JlBody *bd = &m->body[b];
    for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++)
      for (int a = 0; a < 3; a++) ro->mr[3 * i + a] = m->mass[i] * (ro->xs[3 * i + a] - fr->c[a]);
  }
}

/* th (nbody x 3) = J u per rolling body: I^-1 sum m_i r_i x u_i with
 * r_i = xs_i - c (u - xs with subtract_xs); bodies without a frame get 0.
 * Summed in fixed blocks of JL_BLOCK nodes, each block in node order and the
 * blocks in order, so the result does not depend on the thread count. A body
 * of more than JL_PAR_MIN_LIGHT nodes splits its blocks over the threads;
 * the smaller bodies are shared out whole, one thread summing each (a pile
 * of small bodies would otherwise run on one thread). */
static void body_sum(const Rolling *ro, const JlBody *bd, const double *u, int subtract_xs, double *part, int threads,
                     double s[3]) {
  (void)threads; /* without OpenMP */
  int n = bd->node_count, i0 = bd->node_begin, nb = jl_nblock(n);
  const double *restrict mr = ro->mr, *restrict xs = ro->xs;
  JL_OMP(omp parallel for schedule(static) if (threads != 1 && n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int blk = 0; blk < nb; blk++) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int i = i0 + blk * JL_BLOCK, end = i0 + jl_block_end(blk, n); i < end; i++) {
      const double *r = mr + 3 * i;
      double d0 = u[3 * i], d1 = u[3 * i + 1], d2 = u[3 * i + 2];
      if (subtract_xs) d0 -= xs[3 * i], d1 -= xs[3 * i + 1], d2 -= xs[3 * i + 2];
      s0 += r[1] * d2 - r[2] * d1;
      s1 += r[2] * d0 - r[0] * d2;
      s2 += r[0] * d1 - r[1] * d0;
    }
    part[3 * blk] = s0, part[3 * blk + 1] = s1, part[3 * blk + 2] = s2;
  }
  s[0] = s[1] = s[2] = 0.0;
  for (int blk = 0; blk < nb; blk++)
    for (int a = 0; a < 3; a++) s[a] += part[3 * blk + a];
}

/* nodes of the bodies of at most JL_PAR_MIN_LIGHT nodes (shared out whole) */
static int small_nodes(const JlModel *m) {
  int n = 0;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].node_count <= JL_PAR_MIN_LIGHT) n += m->body[b].node_count;
  return n;
}

static void body_rotations(const Rolling *ro, const JlModel *m, const double *u, int subtract_xs, double *th,
                           int threads) {
  (void)threads; /* without OpenMP */
  /* the large bodies, each over the threads; their part[] is the shared scratch */
  for (int b = 0; b < m->nbody; b++) {
    if (m->body[b].node_count <= JL_PAR_MIN_LIGHT) continue;
    double s[3] = {0, 0, 0};
    if (ro->frame[b].ok) body_sum(ro, &m->body[b], u, subtract_xs, ro->part, threads, s);
    mat_vec(ro->frame[b].Iinv, s, th + 3 * b);
  }
  /* the small ones, a body per thread, each with its own two blocks of part[] */
  int small = small_nodes(m);
  (void)small; /* without OpenMP */
  JL_OMP(omp parallel for schedule(dynamic, 1) if (small > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *bd = &m->body[b];
    if (bd->node_count > JL_PAR_MIN_LIGHT) continue;
    double s[3] = {0, 0, 0};
    if (ro->frame[b].ok) body_sum(ro, bd, u, subtract_xs, ro->part_small + 6 * (size_t)b, 1, s);
    mat_vec(ro->frame[b].Iinv, s, th + 3 * b);
  }
}

/* out_i += m_i (I^-1 tau_b) x r_i for every node of every rolling body: a
 * large body's nodes over the threads, the small bodies shared out whole */
static void body_torque(const Rolling *ro, const JlBody *bd, const double al[3], double *out, int threads) {
  (void)threads; /* without OpenMP */
  const double *restrict mr = ro->mr;
  int end = bd->node_begin + bd->node_count;
  JL_OMP(omp parallel for schedule(static) if (threads != 1 && bd->node_count > JL_PAR_MIN_LIGHT)
             num_threads(jl_omp_threads(threads)))
  for (int i = bd->node_begin; i < end; i++) {
    const double *r = mr + 3 * i;
    out[3 * i] += al[1] * r[2] - al[2] * r[1];
    out[3 * i + 1] += al[2] * r[0] - al[0] * r[2];
    out[3 * i + 2] += al[0] * r[1] - al[1] * r[0];
  }
}

/* I^-1 tau_b of rolling body b into al; 0 when it has none (no frame or no torque) */
static int body_alpha(const Rolling *ro, const double *tau, int b, double al[3]) {
  const double *t = tau + 3 * b;
  if (!ro->frame[b].ok || (t[0] == 0.0 && t[1] == 0.0 && t[2] == 0.0)) return 0;
  mat_vec(ro->frame[b].Iinv, t, al);
  return 1;
}

static void apply_torques(const Rolling *ro, const JlModel *m, const double *tau, double *out, int threads) {
  int small = small_nodes(m);
  (void)threads, (void)small; /* without OpenMP */
  double al[3];
  JL_OMP(omp parallel for schedule(dynamic, 1) private(al) if (small > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(threads)))
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].node_count <= JL_PAR_MIN_LIGHT && body_alpha(ro, tau, b, al))
      body_torque(ro, &m->body[b], al, out, 1);
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].node_count > JL_PAR_MIN_LIGHT && body_alpha(ro, tau, b, al))
      body_torque(ro, &m->body[b], al, out, threads);
}

/* ---------------------------------------------------------------- pairs */

static void add_load(void *ctx, int a, int b, double f, const double at[3], const double n[3], double k) {
  Rolling *ro = ctx;
  if (!(f > 0.0) || !isfinite(f)) return;
  jl_grow((void **)&ro->load, &ro->loadcap, ro->nload + 1, sizeof(Load));
  Load *l = &ro->load[ro->nload];
  l->seq = ro->nload++;
  /* a body pair once, as (lower, higher) with the normal pushing the lower */
  double s = 1.0;
  if (b < ro->nbody && b < a) {
    int t = a;
    a = b, b = t, s = -1.0;
  }
  l->a = a, l->b = b, l->f = f, l->k = k;
  for (int c = 0; c < 3; c++) l->at[c] = at[c], l->n[c] = s * n[c];
}

static const Anchor *anchor_find(const Rolling *ro, int a, int b) {
  int k = jl_pair_find(ro->anchor, ro->nanchor, sizeof(Anchor), a, b);
  return k >= 0 ? &ro->anchor[k] : NULL;
}

static void tangential(const double n[3], double v[3]) {
  double d = jl_vec3_dot(n, v);
  for (int a = 0; a < 3; a++) v[a] -= d * n[a];
}

static void rolling_begin(JlForce *e, const JlModel *m, const double *x, const double *v, double h) {
  Rolling *ro = e->self;
  static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  ro->implicit = 0;
  ro->h = h;
  memcpy(ro->xs, x, 3 * (size_t)m->nnode * sizeof(double));
  frames(ro, m, x);
  lever_arms(ro, m);
  ro->nload = 0;
  if (ro->contacts) jl_contact_loads(ro->contacts, m, x, add_load, ro);
  if (ro->ground) jl_ground_loads(ro->ground, m, x, add_load, ro);
  if (ro->nload > 1) qsort(ro->load, (size_t)ro->nload, sizeof(Load), jl_load_cmp);
  /* angular velocities at the step's start */
  double *om = ro->th;
  body_rotations(ro, m, v, 0, om, e->threads);
  ro->npair = 0;
  ro->nfresh = 0;
  for (int i = 0; i < ro->nload;) {
    /* one pair per (a, b): the loads' sum, centroid and mean normal */
    double f, k, at[3], n[3];
    int a = ro->load[i].a, b = ro->load[i].b;
    i = jl_load_pair(ro->load, ro->nload, i, &f, at, n, &k);
    const Frame *fa = &ro->frame[a], *fb = b < m->nbody ? &ro->frame[b] : NULL;
    int rolls_b = fb && fb->ok;
    double nl = sqrt(jl_vec3_dot(n, n)), mu = b == m->nbody + m->nobstacle ? ro->mu_ground : ro->mu;
    if (!fa->ok || !(nl > 0.0) || !(mu > 0.0)) continue;
    for (int c = 0; c < 3; c++) at[c] /= f, n[c] /= nl;
    /* lever arm and moment of inertia about the contact: the body's, or for
     * two rolling bodies the smaller lever and the reduced inertia */
    double d[3];
    jl_vec3_sub(fa->c, at, d);
    double lever = sqrt(jl_vec3_dot(d, d)), inertia = fa->inertia + fa->mass * lever * lever;
    if (rolls_b) {
      jl_vec3_sub(fb->c, at, d);
      double lb = sqrt(jl_vec3_dot(d, d)), ib = fb->inertia + fb->mass * lb * lb;
      if (lb < lever) lever = lb;
      inertia = inertia * ib / (inertia + ib);
    }
    jl_grow((void **)&ro->pair, &ro->paircap, ro->npair + 1, sizeof(Pair));
    Pair *p = &ro->pair[ro->npair++];
    memset(p, 0, sizeof *p);
    p->a = a, p->b = b, p->load = f, p->lever = lever, p->inertia = inertia;
    memcpy(p->n, n, sizeof n);
    p->cap = mu * f * lever;
    /* the contacts' normal stiffness at the lever arm, damped critically */
    p->k = k * lever * lever;
    p->c = 2.0 * sqrt(p->k * inertia);
    /* the deviation from the anchor, in b's frame, as a world rotation vector in the contact plane */
    const double *Rb = rolls_b ? fb->R : eye;
    double Rrel[9], E[9], ev[3] = {0, 0, 0}, phi[3];
    mat_tmul(Rb, fa->R, Rrel);
    const Anchor *q = anchor_find(ro, a, b);
    if (q) {
      mat_mult(Rrel, q->A, E);
      rot_log(E, ev);
    }
    mat_vec(Rb, ev, phi);
    tangential(n, phi);
    /* dragged onto the cone k |phi| <= mu N l: the pair rolls */
    double len = sqrt(jl_vec3_dot(phi, phi));
    if (p->k * len > p->cap) {
      double s = p->cap / (p->k * len);
      for (int c = 0; c < 3; c++) phi[c] *= s;
    }
    memcpy(p->phi0, phi, sizeof phi);
    /* the regime: stick while the spring can hold the pair over the step
     * (its damper is critical, much stiffer than the cone at the slightest
     * rocking: it is capped within the step, and does not count here) */
    double w[3], need[3];
    for (int c = 0; c < 3; c++) w[c] = om[3 * a + c] - (rolls_b ? om[3 * b + c] : 0.0);
    tangential(n, w);
    p->w0 = sqrt(jl_vec3_dot(w, w));
    for (int c = 0; c < 3; c++) need[c] = p->k * (phi[c] + h * w[c]);
    /* rolling only while it turns by more than JL_SLIDE_MIN of the cone per
     * step, as the friction anchors of src/contact.c */
    double nm = sqrt(jl_vec3_dot(need, need)), crawl = JL_SLIDE_MIN * p->cap / (p->k * h);
    p->mode = nm > p->cap && p->w0 > crawl ? ROLL_SLIDE : ROLL_STICK;
    if (p->mode == ROLL_SLIDE) p->wv = jl_slide_lag_speed(p->w0, q ? q->w0 : -1.0, crawl);
    /* the anchor for the next step keeps this deviation, A = exp(-e) R_rel
     * so that R_rel A^T = exp(e). A rolling pair drags its anchor along:
     * the deviation it leaves is the cone's, cap / k along the torque
     * sticking would need, less the step's turn at the current speed, so
     * that when the roll stops the spring holds it with the rolling
     * resistance (as the friction anchors of src/contact.c: a pair that
     * stopped on a fresh anchor rolled on by a little every step, a ball
     * on a slope at 0.9 of the resistance's angle 0.9 mm/s at dt 0.002) */
    jl_grow((void **)&ro->fresh, &ro->freshcap, ro->nfresh + 1, sizeof(Anchor));
    Anchor *an = &ro->fresh[ro->nfresh++];
    memset(an, 0, sizeof *an);
    an->a = a, an->b = b;
    an->w0 = p->w0;
    double eb[3] = {0, 0, 0}, Em[9];
    if (p->mode == ROLL_SLIDE) {
      for (int c = 0; c < 3; c++) phi[c] = p->cap / p->k * need[c] / nm - h * w[c];
      tangential(n, phi);
    }
    mat_tvec(Rb, phi, eb);
    for (int c = 0; c < 3; c++) eb[c] = -eb[c];
    rot_exp(eb, Em);
    mat_mul(Em, Rrel, an->A);
  }
  /* loads were sorted by (a, b), so the new anchors are too: swap them in */
  Anchor *t = ro->anchor;
  int tc = ro->anchorcap;
  ro->anchor = ro->fresh, ro->anchorcap = ro->freshcap, ro->nanchor = ro->nfresh;
  ro->fresh = t, ro->freshcap = tc, ro->nfresh = 0;
}

static int pair_rolls_b(const Rolling *ro, const Pair *p) { return p->b < ro->nbody && ro->frame[p->b].ok; }

/* the stiffness, damping and sliding viscosity pair p acts with: in
 * explicit steps held where one step cannot overshoot (omega h <= 1, c h <= I / 2) */
static void pair_coefs(const Rolling *ro, const Pair *p, double *k, double *c, double *eta) {
  *k = p->k, *c = p->c, *eta = p->mode == ROLL_SLIDE ? p->cap / p->wv : 0.0;
  if (ro->implicit || !(ro->h > 0.0)) return;
  double ktop = p->inertia / (ro->h * ro->h), ctop = 0.5 * p->inertia / ro->h;
  if (*k > ktop) *k = ktop;
  if (*c > ctop) *c = ctop;
  if (*eta > ctop) *eta = ctop;
}

/* tau on a of pair p at the deviation phi and angular velocity w (both
 * tangential); *spring = its elastic energy */
static void pair_torque(const Rolling *ro, const Pair *p, const double phi[3], const double w[3], double tau[3],
                        double *spring) {
  double k, c, eta;
  pair_coefs(ro, p, &k, &c, &eta);
  *spring = 0.0;
  if (p->mode == ROLL_SLIDE) {
    for (int i = 0; i < 3; i++) tau[i] = -eta * w[i];
    return;
  }
  double fs[3];
  for (int i = 0; i < 3; i++) fs[i] = -k * phi[i];
  double fsm = sqrt(jl_vec3_dot(fs, fs));
  if (fsm > p->cap) {
    for (int i = 0; i < 3; i++) fs[i] *= p->cap / fsm;
    fsm = p->cap;
  }
  if (k > 0.0) *spring = 0.5 * fsm * fsm / k;
  for (int i = 0; i < 3; i++) tau[i] = fs[i] - c * w[i];
  double tm = sqrt(jl_vec3_dot(tau, tau));
  if (tm > p->cap)
    for (int i = 0; i < 3; i++) tau[i] *= p->cap / tm;
}

static void rolling_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                          double *energy) {
  Rolling *ro = e->self;
  if (ro->npair == 0) return;
  double *th = ro->th, *om = ro->th + 3 * (size_t)m->nbody, *tau = ro->tau, en = 0.0;
  body_rotations(ro, m, x, 1, th, e->threads);
  body_rotations(ro, m, v, 0, om, e->threads);
  memset(tau, 0, 3 * (size_t)m->nbody * sizeof(double));
  for (int q = 0; q < ro->npair; q++) {
    const Pair *p = &ro->pair[q];
    int rb = pair_rolls_b(ro, p);
    double phi[3], w[3], t[3], spring;
    for (int c = 0; c < 3; c++) {
      phi[c] = th[3 * p->a + c] - (rb ? th[3 * p->b + c] : 0.0);
      w[c] = om[3 * p->a + c] - (rb ? om[3 * p->b + c] : 0.0);
    }
    tangential(p->n, phi);
    tangential(p->n, w);
    for (int c = 0; c < 3; c++) phi[c] += p->phi0[c];
    pair_torque(ro, p, phi, w, t, &spring);
    en += spring;
    for (int c = 0; c < 3; c++) {
      tau[3 * p->a + c] += t[c];
      if (rb) tau[3 * p->b + c] -= t[c];
    }
  }
  apply_torques(ro, m, tau, f, e->threads);
  if (energy) *energy += en;
}

static void rolling_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                              int flags, double *diag) {
  (void)x, (void)v, (void)flags;
  Rolling *ro = e->self;
  for (int q = 0; q < ro->npair; q++) {
    Pair *p = &ro->pair[q];
    double k, c, eta;
    pair_coefs(ro, p, &k, &c, &eta);
    double dx = p->mode == ROLL_STICK ? -k : 0.0, dv = p->mode == ROLL_STICK ? -c : -eta;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) p->D[3 * i + j] = (a * dx + b * dv) * ((i == j) - p->n[i] * p->n[j]);
    if (!diag) continue;
    /* node i of a rolling body: J_i^T D J_i with J_i = m_i I^-1 [r_i]x */
    for (int side = 0; side < 2; side++) {
      int body = side == 0 ? p->a : p->b;
      if (side == 1 && !pair_rolls_b(ro, p)) break;
      const Frame *fr = &ro->frame[body];
      double T[9], M3[9];
      mat_mul(p->D, fr->Iinv, T);
      mat_tmul(fr->Iinv, T, M3); /* I^-T D I^-1 */
      const JlBody *bd = &m->body[body];
      for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
        double r[3];
        jl_vec3_sub(ro->xs + 3 * i, fr->c, r);
        double X[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0}, MX[9], B[9];
        mat_mul(M3, X, MX);
        mat_tmul(X, MX, B);
        double m2 = m->mass[i] * m->mass[i];
        for (int k2 = 0; k2 < 9; k2++) diag[9 * i + k2] += m2 * B[k2];
      }
    }
  }
}

static void rolling_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  const Rolling *ro = e->self;
  if (ro->npair == 0) return;
  double *th = ro->th, *tau = ro->tau;
  body_rotations(ro, m, u, 0, th, e->threads);
  memset(tau, 0, 3 * (size_t)m->nbody * sizeof(double));
  for (int q = 0; q < ro->npair; q++) {
    const Pair *p = &ro->pair[q];
    int rb = pair_rolls_b(ro, p);
    double d[3], t[3];
    for (int c = 0; c < 3; c++) d[c] = th[3 * p->a + c] - (rb ? th[3 * p->b + c] : 0.0);
    mat_vec(p->D, d, t);
    for (int c = 0; c < 3; c++) {
      tau[3 * p->a + c] += t[c];
      if (rb) tau[3 * p->b + c] -= t[c];
    }
  }
  apply_torques(ro, m, tau, out, e->threads);
}

/* implicit steps announce themselves here (JlForce.refine); the set of
 * pairs does not change within a step */
static int rolling_refine(JlForce *e, const JlModel *m, const double *x1, const double *v1) {
  (void)m, (void)v1;
  Rolling *ro = e->self;
  if (!x1) ro->implicit = 1;
  return 0;
}

static void rolling_free(void *self) {
  Rolling *ro = self;
  if (ro)
    JL_FREE_ALL(ro->frame, ro->C, ro->xs, ro->mr, ro->part, ro->part_small, ro->load, ro->pair, ro->anchor, ro->fresh,
                ro->tau, ro->th);
  free(ro);
}

/* ---------------------------------------------------------------- history */

/* What carries to the next step and what the energy between steps reads:
 * the pairs of the last begin_step, the body frames and positions they were
 * linearized at, and the anchors. Pair, Anchor and Frame are stored as they
 * are in memory (zeroed before they are filled, so their padding is too);
 * the header holds their sizes, so another build's layout is refused. */
enum { ROLL_HEADER = 8 };

static void roll_counts(const Rolling *ro, int h[ROLL_HEADER]) {
  h[0] = (int)sizeof(Pair);
  h[1] = (int)sizeof(Anchor);
  h[2] = (int)sizeof(Frame);
  h[3] = ro->npair;
  h[4] = ro->nanchor;
  h[5] = ro->nbody;
  h[6] = ro->nnode;
  h[7] = ro->implicit;
}

static size_t rolling_history_size(const JlForce *e) {
  const Rolling *ro = e->self;
  int h[ROLL_HEADER];
  roll_counts(ro, h);
  return sizeof h + sizeof(double) + (size_t)h[3] * sizeof(Pair) + (size_t)h[4] * sizeof(Anchor) +
         (h[3] ? (size_t)h[5] * sizeof(Frame) + 3 * (size_t)h[6] * sizeof(double) : 0);
}

static void rolling_history_save(const JlForce *e, unsigned char *out) {
  const Rolling *ro = e->self;
  int h[ROLL_HEADER];
  roll_counts(ro, h);
  memcpy(out, h, sizeof h);
  out += sizeof h;
  memcpy(out, &ro->h, sizeof ro->h);
  out += sizeof ro->h;
  if (h[3]) memcpy(out, ro->pair, (size_t)h[3] * sizeof(Pair));
  out += (size_t)h[3] * sizeof(Pair);
  if (h[4]) memcpy(out, ro->anchor, (size_t)h[4] * sizeof(Anchor));
  out += (size_t)h[4] * sizeof(Anchor);
  if (!h[3]) return;
  memcpy(out, ro->frame, (size_t)h[5] * sizeof(Frame));
  out += (size_t)h[5] * sizeof(Frame);
  memcpy(out, ro->xs, 3 * (size_t)h[6] * sizeof(double));
}

/* a's and b's indices: a a volume body, b a body or an obstacle or the ground */
static int pair_ok(const JlModel *m, int a, int b) {
  return a >= 0 && a < m->nbody && m->body[a].kind == JL_BODY_VOLUME && b >= 0 && b <= m->nbody + m->nobstacle &&
         b != a;
}

static int rolling_history_load(JlForce *e, const JlModel *m, const unsigned char *in, size_t n) {
  Rolling *ro = e->self;
  int h[ROLL_HEADER];
  if (n < sizeof h + sizeof(double)) return 0;
  memcpy(h, in, sizeof h);
  if (h[0] != (int)sizeof(Pair) || h[1] != (int)sizeof(Anchor) || h[2] != (int)sizeof(Frame) || h[3] < 0 || h[4] < 0 ||
      h[5] != m->nbody || h[6] != m->nnode || (h[7] != 0 && h[7] != 1))
    return 0;
  size_t body = n - sizeof h - sizeof(double);
  if ((size_t)h[3] > body / sizeof(Pair)) return 0;
  body -= (size_t)h[3] * sizeof(Pair);
  if ((size_t)h[4] > body / sizeof(Anchor)) return 0;
  body -= (size_t)h[4] * sizeof(Anchor);
  if (body != (h[3] ? (size_t)h[5] * sizeof(Frame) + 3 * (size_t)h[6] * sizeof(double) : 0)) return 0;
  const unsigned char *pp = in + sizeof h + sizeof(double), *pa = pp + (size_t)h[3] * sizeof(Pair);
  const unsigned char *pf = pa + (size_t)h[4] * sizeof(Anchor);
  for (int i = 0; i < h[3]; i++) {
    Pair p;
    memcpy(&p, pp + (size_t)i * sizeof p, sizeof p);
    if (!pair_ok(m, p.a, p.b) || (p.mode != ROLL_STICK && p.mode != ROLL_SLIDE)) return 0;
  }
  for (int i = 0; i < h[4]; i++) {
    Anchor q;
    memcpy(&q, pa + (size_t)i * sizeof q, sizeof q);
    if (!pair_ok(m, q.a, q.b)) return 0;
  }
  for (int i = 0; h[3] && i < h[5]; i++) {
    Frame fr;
    memcpy(&fr, pf + (size_t)i * sizeof fr, sizeof fr);
    if (fr.ok != 0 && fr.ok != 1) return 0;
  }
  jl_grow((void **)&ro->pair, &ro->paircap, h[3], sizeof(Pair));
  jl_grow((void **)&ro->anchor, &ro->anchorcap, h[4], sizeof(Anchor));
  memcpy(&ro->h, in + sizeof h, sizeof ro->h);
  if (h[3]) memcpy(ro->pair, pp, (size_t)h[3] * sizeof(Pair));
  if (h[4]) memcpy(ro->anchor, pa, (size_t)h[4] * sizeof(Anchor));
  ro->npair = h[3];
  ro->nanchor = h[4];
  ro->implicit = h[7];
  if (h[3]) {
    memcpy(ro->frame, pf, (size_t)h[5] * sizeof(Frame));
    memcpy(ro->xs, pf + (size_t)h[5] * sizeof(Frame), 3 * (size_t)h[6] * sizeof(double));
    lever_arms(ro, m);
  }
  return 1;
}

/* a pair of bodies exchanges angular momentum only, but joins them all the
 * same; a body rolling on the world keeps its linear momentum */
static void rolling_couple(const JlForce *e, const JlModel *m, int *group) {
  const Rolling *ro = e->self;
  for (int q = 0; q < ro->npair; q++)
    if (ro->pair[q].b < m->nbody) jl_uf_union(group, ro->pair[q].a, ro->pair[q].b);
}

/* clang-format off */
static const JlForceOps rolling_ops = {.name = "rolling", .kind = JL_FORCE_ROLLING, .force = rolling_force,
    .linearize = rolling_linearize, .multiply = rolling_multiply, .free_self = rolling_free,
    .begin_step = rolling_begin, .refine = rolling_refine, .couple = rolling_couple,
    .history_size = rolling_history_size,
    .history_save = rolling_history_save, .history_load = rolling_history_load};
/* clang-format on */

JlForce *jl_rolling_create(const JlModel *m, const JlForce *contacts, const JlForce *ground) {
  const JlWorldDef *wd = &m->world;
  double mu = contacts ? wd->contact_rolling : 0.0, mug = ground ? wd->ground_rolling : 0.0;
  if (!(mu > 0.0) && !(mug > 0.0)) return NULL;
  int volumes = 0;
  for (int b = 0; b < m->nbody; b++) volumes += m->body[b].kind == JL_BODY_VOLUME;
  if (!volumes) return NULL;
  Rolling *ro = jl_calloc(1, sizeof *ro);
  ro->contacts = contacts;
  ro->ground = ground;
  ro->mu = mu;
  ro->mu_ground = mug;
  ro->nbody = m->nbody;
  ro->nnode = m->nnode;
  ro->frame = jl_calloc((size_t)m->nbody + 1, sizeof(Frame));
  ro->C = jl_calloc(3 * ((size_t)m->nbody + 1), sizeof(double));
  ro->xs = jl_calloc(3 * ((size_t)m->nnode + 1), sizeof(double));
  ro->mr = jl_calloc(3 * ((size_t)m->nnode + 1), sizeof(double));
  ro->part = jl_calloc(3 * ((size_t)jl_nblock(m->nnode) + 1), sizeof(double));
  ro->part_small = jl_calloc(6 * ((size_t)m->nbody + 1), sizeof(double)); /* two blocks per small body */
  ro->tau = jl_calloc(3 * ((size_t)m->nbody + 1), sizeof(double));
  ro->th = jl_calloc(6 * ((size_t)m->nbody + 1), sizeof(double));
  for (int b = 0; b < m->nbody; b++) jl_model_body_com(m, m->x0, b, ro->C + 3 * b);
  return jl_force_new(&rolling_ops, ro);
}
