/* The impact law (src/impact.h; docs/physics.md, "Restitution").
 *
 * Why: the rebound of a penalty contact under backward Euler is set by the
 * step, not by the material. A contact of angular frequency omega = sqrt(k/m)
 * with omega h >> 1 is over within one step, and the step's numerical damping
 * takes all of the approach's energy (a ball dropped at dt 1/60 does not
 * leave the ground); at small steps the contact is resolved and bounces by
 * its own spring. Neither is a parameter a user can set.
 *
 * What: an impact is a pair (a, b) of a free volume body a and what it
 * touches, b: another volume body, an obstacle or the ground. Whether a pair
 * touches is read from the contacts' and the ground's loads at the end of
 * every step (the linear gaps of the step's contacts at its end state); the
 * pair's normal n is the direction of the summed load on a, its point p the
 * loads' centroid. A pair begins when it first touches; its approach speed
 * u_in = -n . (v_a(p) - v_b(p)) is taken from the bodies' rigid motion
 * (v_a(p) = v_c + w x (p - c), w = I^-1 L from the nodes) before the contact
 * acted: at the start of that step or of the one before (an implicit solve
 * may already have held the nodes at the surface then), the larger, plus
 * what gravity adds against a static b until the touch (taken at the middle
 * of the interval). Above the restitution speed (Box2D's restitution
 * threshold) the pair then follows Newton's law of restitution on its rigid
 * motion:
 *   - when its relative normal velocity u = n . (v_a(p) - v_b(p)) stops
 *     approaching (u >= 0, the end of compression) while it still touches,
 *     u is raised towards e u_in;
 *   - when it separates, u is set to e u_in: raised, or lowered when the
 *     resolved penalty contact and the bodies' own elasticity threw it off
 *     faster;
 *   - for JL_IMPACT_SETTLE after that, u is raised towards e u_in (less what
 *     gravity has taken since, against a static b) by what the impact's
 *     vibration loses.
 * A change of u is an impulse j n at p on a and -j n on b (none on static
 * b), applied to each body as a rigid-body velocity change,
 *     dv_i = J / M + (I^-1 ((p - c) x J)) x (x_i - c),
 * which changes the pair's linear and angular momentum by exactly what the
 * impulse carries: the total is conserved between two free bodies (Stronge,
 * Impact Mechanics, ch. 2; Mirtich 1996, the impulse at a contact point).
 * Its kinetic energy change is j u + 1/2 K j^2 with
 * K = sum over the free sides of 1/M + (r x n) . I^-1 (r x n).
 *
 * Energy: a raise adds energy, and only energy the impact lost may be given
 * back. Every step, the energy the whole system lost in it (kinetic +
 * elastic + gravity + penalty, from the world) is credited to the impacts
 * under way, each up to what it needs to reach its target now,
 * (t^2 - max(u, 0)^2) / 2K, and held by the element (reported as penalty
 * energy). A raise spends at most what its
 * impact holds; what is left when the impact ends is dropped. So the
 * total including the held energy never rises, and a rebound that the
 * integrator did not lose energy on (a resolved contact) is left to the
 * contact. Lowering u removes energy and needs no credit.
 *
 * Pinned bodies count as static. Cloth and ropes are left to their contacts
 * (they carry no rigid motion to restitute). */
#include "src/impact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/vec3.h"
#include "src/loads.h"

enum { IMP_REST, IMP_COMPRESS, IMP_REBOUND, IMP_FLIGHT };
enum { BRACE_NONE, BRACE_WORLD, BRACE_FREE };

/* s: an impact goes on this long after its pair separated, crediting what the bodies' vibration from it
 * loses and raising the rebound by it */
#define JL_IMPACT_SETTLE 0.1
/* cosine of the widest angle between another contact's normal on a body and the impulse's direction for
 * that contact to brace the body (braced) */
#define JL_IMPACT_BRACE 0.5
/* cosine of the widest angle between the contact's impulse so far and the loads' normal for the impulse
 * to give the law's direction (restitute) */
#define JL_IMPACT_AXIS 0.866

/* a free volume body's rigid motion */
typedef struct Rigid {
  int ok; /* a volume body without pins, with mass and an invertible inertia */
  double M, c[3], vc[3], w[3], Iinv[9];
} Rigid;

typedef struct Impact {
  int a, b;      /* a < b: a's body index; b another body, nbody + obstacle or nbody + nobstacle (ground) */
  int phase;     /* IMP_REST (slower than the restitution speed), IMP_COMPRESS, IMP_REBOUND, IMP_FLIGHT
                      (separated, within JL_IMPACT_SETTLE) */
  int seen;      /* scratch: touches at this step's end */
  double e;      /* coefficient of restitution */
  double u_in;   /* m/s, approach speed */
  double n[3];   /* unit normal on a at the last step it touched */
  double p[3];   /* m, contact point there */
  double held;   /* J, energy lost in the impact and held for its rebound */
  double P0[3];  /* kg m/s, a's momentum at the start of the step the pair began in */
  double t_imp;  /* s since then */
  double flight; /* s since the pair separated */
} Impact;

typedef struct ImpactElem {
  const JlForce *contacts, *ground;
  int nbody, ground_id;
  Rigid *start, *end; /* nbody: at the step's start, at its end */
  Rigid *prev;        /* nbody: at the previous step's start (history: a contact may already act in the step
                         before the one at whose end its gap is found closed) */
  JlLoad *load;
  int nload, loadcap;
  Impact *imp; /* sorted by (a, b) */
  int nimp, impcap;
  Impact *next;
  int nextcap;
  int *group; /* nbody + 1: union-find of the bodies joined by touching pairs; entry nbody is the
                         static world (the ground, obstacles and bodies without free rigid motion) */
} ImpactElem;

/* the rigid motion of every free volume body at (x, v) */
static void rigid_motion(const JlModel *m, const double *x, const double *v, Rigid *out) {
  for (int b = 0; b < m->nbody; b++) {
    Rigid *r = &out[b];
    const JlBody *bd = &m->body[b];
    memset(r, 0, sizeof *r);
    if (bd->kind != JL_BODY_VOLUME) continue;
    int end = bd->node_begin + bd->node_count, pinned = 0;
    double M = 0.0, c[3] = {0, 0, 0}, p[3] = {0, 0, 0};
    for (int i = bd->node_begin; i < end; i++) {
      pinned |= m->pinned[i];
      M += m->mass[i];
      for (int k = 0; k < 3; k++) c[k] += m->mass[i] * x[3 * i + k], p[k] += m->mass[i] * v[3 * i + k];
    }
    if (pinned || !(M > 0.0)) continue;
    for (int k = 0; k < 3; k++) c[k] /= M, p[k] /= M;
    double I[9] = {0}, L[3] = {0, 0, 0};
    for (int i = bd->node_begin; i < end; i++) {
      double d[3], u[3], l[3], mi = m->mass[i];
      jl_vec3_sub(x + 3 * i, c, d);
      jl_vec3_sub(v + 3 * i, p, u);
      jl_vec3_cross(d, u, l);
      double dd = jl_vec3_dot(d, d);
      for (int k = 0; k < 3; k++) {
        L[k] += mi * l[k];
        for (int q = 0; q < 3; q++) I[3 * k + q] += mi * ((k == q ? dd : 0.0) - d[k] * d[q]);
      }
    }
    if (!jl_mat3_inv(I, r->Iinv)) continue;
    r->ok = 1;
    r->M = M;
    memcpy(r->c, c, sizeof c);
    memcpy(r->vc, p, sizeof p);
    for (int k = 0; k < 3; k++) r->w[k] = r->Iinv[3 * k] * L[0] + r->Iinv[3 * k + 1] * L[1] + r->Iinv[3 * k + 2] * L[2];
  }
}

static void mat_vec(const double A[9], const double x[3], double y[3]) {
  for (int k = 0; k < 3; k++) y[k] = A[3 * k] * x[0] + A[3 * k + 1] * x[1] + A[3 * k + 2] * x[2];
}

/* the velocity of body b's rigid motion at p (0 for static and pinned bodies) */
static void rigid_velocity(const ImpactElem *ie, const Rigid *rig, int b, const double p[3], double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  if (b >= ie->nbody || !rig[b].ok) return;
  const Rigid *r = &rig[b];
  double d[3], wx[3];
  jl_vec3_sub(p, r->c, d);
  jl_vec3_cross(r->w, d, wx);
  for (int k = 0; k < 3; k++) out[k] = r->vc[k] + wx[k];
}

/* u = n . (v_a(p) - v_b(p)): > 0 separating */
static double normal_speed(const ImpactElem *ie, const Rigid *rig, const Impact *q) {
  double va[3], vb[3];
  rigid_velocity(ie, rig, q->a, q->p, va);
  rigid_velocity(ie, rig, q->b, q->p, vb);
  return q->n[0] * (va[0] - vb[0]) + q->n[1] * (va[1] - vb[1]) + q->n[2] * (va[2] - vb[2]);
}

/* 1/M + (r x n) . I^-1 (r x n) of body b at p along n (0 when static) */
static double side_k(const ImpactElem *ie, const Rigid *rig, int b, const double p[3], const double n[3]) {
  if (b >= ie->nbody || !rig[b].ok) return 0.0;
  const Rigid *r = &rig[b];
  double d[3], rn[3], t[3];
  jl_vec3_sub(p, r->c, d);
  jl_vec3_cross(d, n, rn);
  mat_vec(r->Iinv, rn, t);
  return 1.0 / r->M + jl_vec3_dot(rn, t);
}

/* BRACE_NONE, or how another pair that touches now holds `body` against being pushed along -dir (its
 * normal on the body points along dir, within 60 degrees): BRACE_WORLD when the bodies touching it reach,
 * through touching pairs, the ground, an obstacle or a static body (ie->group); BRACE_FREE when they are
 * all free. A body braced by the world takes an impulse without moving: it goes into what holds it (a
 * cube landing on a stack meets the stack, not the top cube alone; a free body's partner would be kicked
 * into the cubes below it). The touching pairs are ie->next[0, ntouch). */
static int braced(const ImpactElem *ie, int ntouch, const Impact *q, int body, const double dir[3]) {
  if (body >= ie->nbody) return BRACE_WORLD;
  for (int t = 0; t < ntouch; t++) {
    const Impact *o = &ie->next[t];
    if (o == q || (o->a == q->a && o->b == q->b)) continue;
    double sgn = o->a == body ? 1.0 : o->b == body ? -1.0 : 0.0;
    if (sgn != 0.0 && sgn * jl_vec3_dot(o->n, dir) > JL_IMPACT_BRACE)
      return jl_uf_find(ie->group, body) == jl_uf_find(ie->group, ie->nbody) ? BRACE_WORLD : BRACE_FREE;
  }
  return BRACE_NONE;
}

/* K = sum over the sides free to move along the normal of 1/M + (r x n) . I^-1 (r x n); *fa, *fb = 1 for
 * the free sides (a static, pinned or world-braced side takes the impulse without moving). 0 when a side
 * is braced by free bodies only: the hit is shared by a chain of free bodies (Newton's cradle, a stack
 * falling together), which a pair's law cannot divide, and an impulse that stopped at the brace would
 * take momentum out of the free bodies (the cradle lost 82 % of its momentum that way); the contacts
 * alone decide it. */
static double pair_k(const ImpactElem *ie, int ntouch, const Impact *q, int *fa, int *fb) {
  double up[3] = {q->n[0], q->n[1], q->n[2]}, down[3] = {-q->n[0], -q->n[1], -q->n[2]};
  int ba = ie->end[q->a].ok ? braced(ie, ntouch, q, q->a, down) : BRACE_WORLD;
  int bb = q->b < ie->nbody && ie->end[q->b].ok ? braced(ie, ntouch, q, q->b, up) : BRACE_WORLD;
  *fa = ba == BRACE_NONE, *fb = bb == BRACE_NONE;
  if (ba == BRACE_FREE || bb == BRACE_FREE) return 0.0;
  return (*fa ? side_k(ie, ie->end, q->a, q->p, q->n) : 0.0) + (*fb ? side_k(ie, ie->end, q->b, q->p, q->n) : 0.0);
}

/* impulse s J (J = j n, s = +1 on a, -1 on b) at p on body b: its nodes' velocities and its rigid motion */
static void push_body(const ImpactElem *ie, const JlModel *m, const double *x, double *v, Rigid *rig, int b,
                      const double p[3], const double J[3]) {
  if (b >= ie->nbody || !rig[b].ok) return;
  Rigid *r = &rig[b];
  const JlBody *bd = &m->body[b];
  double d[3], rj[3], dw[3], dvc[3];
  jl_vec3_sub(p, r->c, d);
  jl_vec3_cross(d, J, rj);
  mat_vec(r->Iinv, rj, dw);
  for (int k = 0; k < 3; k++) dvc[k] = J[k] / r->M;
  for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
    double e[3], wx[3];
    jl_vec3_sub(x + 3 * i, r->c, e);
    jl_vec3_cross(dw, e, wx);
    for (int k = 0; k < 3; k++) v[3 * i + k] += dvc[k] + wx[k];
  }
  for (int k = 0; k < 3; k++) r->vc[k] += dvc[k], r->w[k] += dw[k];
}

/* the pair's target normal speed: e u_in, less what gravity took from it since it separated when b does
 * not move with a (free_b = 0; two free bodies fall together) */
static double target_speed(const JlModel *m, const Impact *q, int free_b) {
  double t = q->e * q->u_in;
  if (!free_b) t += q->flight * jl_vec3_dot(m->world.gravity, q->n);
  return t;
}

static int restitute_along(ImpactElem *ie, const JlModel *m, const double *x, double *v, int ntouch, Impact *q,
                           int raise_only);

/* sets the pair's u to its target (raise_only: only when below it) by an impulse along its normal,
 * limited to the held energy when it adds energy; returns 1 when velocities changed */
static int restitute(ImpactElem *ie, const JlModel *m, const double *x, double *v, int ntouch, Impact *q,
                     int raise_only) {
  /* between two free bodies the impulse goes along the one the contact gave a so far (its momentum change
   * less gravity's), which two independently meshed bodies tilt less than the loads' mean normal */
  double n_loads[3] = {q->n[0], q->n[1], q->n[2]};
  if (q->b < ie->nbody && ie->end[q->a].ok && ie->end[q->b].ok) {
    const Rigid *ra = &ie->end[q->a];
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = ra->M * ra->vc[k] - q->P0[k] - ra->M * m->world.gravity[k] * q->t_imp;
    double dl = sqrt(jl_vec3_dot(d, d));
    if (dl > 0.0 && jl_vec3_dot(d, q->n) > JL_IMPACT_AXIS * dl)
      for (int k = 0; k < 3; k++) q->n[k] = d[k] / dl;
  }
  int r = restitute_along(ie, m, x, v, ntouch, q, raise_only);
  memcpy(q->n, n_loads, sizeof n_loads);
  return r;
}

/* restitute along q->n */
static int restitute_along(ImpactElem *ie, const JlModel *m, const double *x, double *v, int ntouch, Impact *q,
                           int raise_only) {
  int fa, fb;
  double K = pair_k(ie, ntouch, q, &fa, &fb), u = normal_speed(ie, ie->end, q);
  double target = target_speed(m, q, fb), du = target - u;
  if (!(K > 0.0) || !(du > 0.0 || (!raise_only && du < 0.0))) return 0;
  double j = du / K;
  if (du > 0.0) {
    /* kinetic energy change j u + 1/2 K j^2, at most what the impact holds */
    double gain = j * u + 0.5 * K * j * j;
    if (gain > q->held) {
      j = (-u + sqrt(fmax(u * u + 2.0 * K * q->held, 0.0))) / K;
      gain = q->held;
    }
    if (!(j > 0.0)) return 0;
    q->held = fmax(q->held - fmax(gain, 0.0), 0.0);
  }
  double J[3] = {j * q->n[0], j * q->n[1], j * q->n[2]}, Jb[3] = {-J[0], -J[1], -J[2]};
  if (fa) push_body(ie, m, x, v, ie->end, q->a, q->p, J);
  if (fb) push_body(ie, m, x, v, ie->end, q->b, q->p, Jb);
  return 1;
}

static void add_load(void *ctx, int body, int other, double f, const double at[3], const double n[3], double k) {
  ImpactElem *ie = ctx;
  /* a body-body contact is reported from both sides: the one with a < b; cloth and ropes are not impacts */
  if (other < ie->nbody && other < body) return;
  jl_grow((void **)&ie->load, &ie->loadcap, ie->nload + 1, sizeof(JlLoad));
  JlLoad *l = &ie->load[ie->nload];
  l->a = body, l->b = other, l->seq = ie->nload, l->f = f, l->k = k;
  memcpy(l->at, at, sizeof l->at);
  memcpy(l->n, n, sizeof l->n);
  ie->nload++;
}

static Impact *impact_find(ImpactElem *ie, int a, int b) {
  int k = jl_pair_find(ie->imp, ie->nimp, sizeof(Impact), a, b);
  return k >= 0 ? &ie->imp[k] : NULL;
}

void jl_impact_start(JlForce *e, const JlModel *m, const double *x, const double *v) {
  ImpactElem *ie = e->self;
  Rigid *t = ie->prev;
  ie->prev = ie->start, ie->start = t;
  rigid_motion(m, x, v, ie->start);
}

static void impact_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                         double *energy) {
  (void)m, (void)x, (void)v, (void)f;
  if (energy) *energy += jl_impact_held(e);
}

double jl_impact_held(const JlForce *e) {
  const ImpactElem *ie = e->self;
  double held = 0.0;
  for (int q = 0; q < ie->nimp; q++) held += ie->imp[q].held;
  return held;
}

/* J the impact may still take of a step's loss: what brings it from its normal speed now (from rest while
 * it approaches) to its target, less what it holds */
static double impact_need(const ImpactElem *ie, const JlModel *m, int ntouch, const Impact *p) {
  if (p->phase == IMP_REST) return 0.0;
  int fa, fb;
  double K = pair_k(ie, ntouch, p, &fa, &fb), u = fmax(normal_speed(ie, ie->end, p), 0.0);
  double t = target_speed(m, p, fb);
  return t > u && K > 0.0 ? fmax(0.5 * (t * t - u * u) / K - p->held, 0.0) : 0.0;
}

int jl_impact_end_step(JlForce *e, const JlModel *m, const double *x, double *v, double drop, double h) {
  ImpactElem *ie = e->self;
  const JlWorldDef *wd = &m->world;
  rigid_motion(m, x, v, ie->end);
  ie->nload = 0;
  if (ie->contacts) jl_contact_loads_at(ie->contacts, m, x, add_load, ie);
  if (ie->ground) jl_ground_loads(ie->ground, m, x, add_load, ie);
  if (ie->nload > 1) qsort(ie->load, (size_t)ie->nload, sizeof(JlLoad), jl_load_cmp);

  /* the pairs that touch now: continued or begun (a pair touching again in flight begins anew) */
  for (int q = 0; q < ie->nimp; q++) ie->imp[q].seen = 0;
  int nnext = 0;
  for (int i = 0; i < ie->nload;) {
    double f, at[3], n[3];
    int a = ie->load[i].a, b = ie->load[i].b;
    i = jl_load_pair(ie->load, ie->nload, i, &f, at, n, NULL);
    double nl = sqrt(jl_vec3_dot(n, n));
    int free_a = ie->end[a].ok, free_b = b < ie->nbody && ie->end[b].ok;
    if (!(f > 0.0) || !(nl > 0.0) || !(free_a || free_b)) continue;
    jl_grow((void **)&ie->next, &ie->nextcap, nnext + 1, sizeof(Impact));
    Impact *q = &ie->next[nnext++], *old = impact_find(ie, a, b);
    if (old) old->seen = 1;
    int fresh = !old || old->phase == IMP_FLIGHT;
    if (!fresh) {
      *q = *old;
    } else {
      memset(q, 0, sizeof *q);
      q->a = a, q->b = b;
    }
    for (int k = 0; k < 3; k++) q->p[k] = at[k] / f, q->n[k] = n[k] / nl;
    q->seen = 1;
    q->t_imp += h;
    if (fresh) {
      /* begun in this step: the approach before the contact acted (at this step's start, or the last's,
       * in which an implicit solve may already have held it at the surface) */
      int ground = b == ie->ground_id;
      double speed = ground ? wd->ground_restitution_speed : wd->contact_restitution_speed;
      q->e = ground ? wd->ground_restitution : wd->contact_restitution;
      double u_start = -normal_speed(ie, ie->start, q), u_prev = -normal_speed(ie, ie->prev, q);
      if (!free_b) {
        /* against a static b gravity speeds the approach up until the touch, somewhere within the
         * interval since the sample: the middle of it (this step's half, or the last's end) */
        double gn = -jl_vec3_dot(wd->gravity, q->n);
        u_start += 0.5 * h * gn, u_prev += h * gn;
      }
      q->u_in = fmax(fmax(u_start, u_prev), 0.0);
      q->phase = q->u_in > speed ? IMP_COMPRESS : IMP_REST;
      for (int k = 0; k < 3; k++) q->P0[k] = ie->start[a].M * ie->start[a].vc[k];
      q->t_imp = h;
    }
  }
  /* then the pairs that no longer touch: separated in this step, or in flight since (each part sorted) */
  int nfree = 0;
  for (int q = 0; q < ie->nimp; q++) {
    Impact *p = &ie->imp[q];
    if (p->seen || p->phase == IMP_REST) continue;
    if (p->phase == IMP_FLIGHT) {
      p->flight += h;
      if (p->flight > JL_IMPACT_SETTLE) continue; /* over: what it holds is lost */
    }
    p->t_imp += h;
    jl_grow((void **)&ie->next, &ie->nextcap, nnext + nfree + 1, sizeof(Impact));
    ie->next[nnext + nfree++] = *p;
  }
  int nall = nnext + nfree;
  /* which bodies the touching pairs join to the static world (braced) */
  for (int b = 0; b <= ie->nbody; b++) ie->group[b] = b;
  for (int b = 0; b < ie->nbody; b++)
    if (!ie->end[b].ok) jl_uf_union(ie->group, b, ie->nbody);
  for (int q = 0; q < nnext; q++)
    jl_uf_union(ie->group, ie->next[q].a, ie->next[q].b < ie->nbody ? ie->next[q].b : ie->nbody);

  /* the energy the step lost, credited to the impacts under way up to what each needs now to reach its
   * target (from rest while it still approaches) */
  if (drop > 0.0) {
    double total = 0.0;
    for (int q = 0; q < nall; q++) total += impact_need(ie, m, nnext, &ie->next[q]);
    double share = total > 0.0 ? fmin(drop / total, 1.0) : 0.0;
    if (share > 0.0)
      for (int q = 0; q < nall; q++) ie->next[q].held += share * impact_need(ie, m, nnext, &ie->next[q]);
  }

  /* the law */
  int changed = 0;
  for (int q = 0; q < nnext; q++) {
    Impact *p = &ie->next[q];
    if (p->phase == IMP_COMPRESS && normal_speed(ie, ie->end, p) >= 0.0) {
      p->phase = IMP_REBOUND; /* compression over: raised to e u_in */
      changed |= restitute(ie, m, x, v, nnext, p, 1);
    }
  }
  for (int q = nnext; q < nall; q++) {
    Impact *p = &ie->next[q];
    if (p->phase != IMP_FLIGHT) {
      /* separated: set to e u_in, raised or lowered */
      p->phase = IMP_FLIGHT;
      p->flight = 0.0;
      changed |= restitute(ie, m, x, v, nnext, p, 0);
    } else {
      /* in flight: raised by what the impact's vibration lost since */
      changed |= restitute(ie, m, x, v, nnext, p, 1);
    }
  }

  /* the new list, sorted by (a, b): the two parts merged */
  jl_grow((void **)&ie->imp, &ie->impcap, nall + 1, sizeof(Impact));
  int i = 0, j = nnext, o = 0;
  while (i < nnext || j < nall) {
    int take_i = j >= nall || (i < nnext && (ie->next[i].a < ie->next[j].a ||
                                             (ie->next[i].a == ie->next[j].a && ie->next[i].b < ie->next[j].b)));
    ie->imp[o++] = ie->next[take_i ? i++ : j++];
  }
  ie->nimp = nall;
  return changed;
}

/* history: the impacts under way */
#define HIST_HEADER 3

static size_t impact_history_size(const JlForce *e) {
  const ImpactElem *ie = e->self;
  return HIST_HEADER * sizeof(int) + (size_t)ie->nimp * sizeof(Impact) + (size_t)ie->nbody * sizeof(Rigid);
}

static void impact_history_save(const JlForce *e, unsigned char *out) {
  const ImpactElem *ie = e->self;
  int h[HIST_HEADER] = {(int)sizeof(Impact), ie->nimp, ie->nbody};
  memcpy(out, h, sizeof h);
  if (ie->nimp) memcpy(out + sizeof h, ie->imp, (size_t)ie->nimp * sizeof(Impact));
  memcpy(out + sizeof h + (size_t)ie->nimp * sizeof(Impact), ie->start, (size_t)ie->nbody * sizeof(Rigid));
}

static int impact_history_load(JlForce *e, const JlModel *m, const unsigned char *in, size_t n) {
  ImpactElem *ie = e->self;
  int h[HIST_HEADER];
  if (n < sizeof h) return 0;
  memcpy(h, in, sizeof h);
  if (h[0] != (int)sizeof(Impact) || h[2] != m->nbody || h[1] < 0 || h[1] > 4 * (m->nbody + 1) * (m->nbody + 1) ||
      n != sizeof h + (size_t)h[1] * sizeof(Impact) + (size_t)m->nbody * sizeof(Rigid))
    return 0;
  Impact *imp = jl_calloc((size_t)h[1] + 1, sizeof(Impact));
  if (h[1]) memcpy(imp, in + sizeof h, (size_t)h[1] * sizeof(Impact));
  int nb = m->nbody, top = nb + m->nobstacle;
  for (int q = 0; q < h[1]; q++) {
    const Impact *p = &imp[q];
    int ok = p->a >= 0 && p->a < nb && p->b > p->a && p->b <= top && p->phase >= IMP_REST && p->phase <= IMP_FLIGHT &&
             isfinite(p->e) && isfinite(p->u_in) && isfinite(p->held) && p->held >= 0.0 && isfinite(p->flight) &&
             isfinite(p->t_imp) && isfinite(p->P0[0]) && isfinite(p->P0[1]) && isfinite(p->P0[2]) &&
             isfinite(p->n[0]) && isfinite(p->n[1]) && isfinite(p->n[2]) && isfinite(p->p[0]) && isfinite(p->p[1]) &&
             isfinite(p->p[2]);
    if (ok && q > 0) ok = p->a > imp[q - 1].a || (p->a == imp[q - 1].a && p->b > imp[q - 1].b);
    if (!ok) {
      free(imp);
      return 0;
    }
  }
  Rigid *start = jl_calloc((size_t)nb + 1, sizeof(Rigid));
  memcpy(start, in + sizeof h + (size_t)h[1] * sizeof(Impact), (size_t)nb * sizeof(Rigid));
  for (int b = 0; b < nb; b++) {
    const Rigid *r = &start[b];
    int ok = (r->ok == 0 || r->ok == 1) && isfinite(r->M) && (!r->ok || r->M > 0.0);
    for (int k = 0; k < 3; k++) ok &= isfinite(r->c[k]) && isfinite(r->vc[k]) && isfinite(r->w[k]);
    for (int k = 0; k < 9; k++) ok &= isfinite(r->Iinv[k]);
    if (!ok) {
      free(start);
      free(imp);
      return 0;
    }
  }
  memcpy(ie->start, start, (size_t)nb * sizeof(Rigid));
  free(start);
  free(ie->imp);
  ie->imp = imp;
  ie->nimp = h[1];
  ie->impcap = h[1] + 1;
  return 1;
}

static void impact_free(void *self) {
  ImpactElem *ie = self;
  if (!ie) return;
  JL_FREE_ALL(ie->start, ie->end, ie->prev, ie->load, ie->imp, ie->next, ie->group);
  free(ie);
}

/* clang-format off */
static const JlForceOps impact_ops = {.name = "impacts", .kind = JL_FORCE_IMPACT, .force = impact_force,
    .linearize = jl_force_no_linearize, .multiply = jl_force_no_multiply, .free_self = impact_free,
    .history_size = impact_history_size, .history_save = impact_history_save,
    .history_load = impact_history_load};
/* clang-format on */

JlForce *jl_impact_create(const JlModel *m, const JlForce *contacts, const JlForce *ground) {
  int volume = 0;
  for (int b = 0; b < m->nbody; b++) volume |= m->body[b].kind == JL_BODY_VOLUME;
  if (!volume || (!contacts && !ground)) return NULL;
  ImpactElem *ie = jl_calloc(1, sizeof *ie);
  ie->contacts = contacts;
  ie->ground = ground;
  ie->nbody = m->nbody;
  ie->ground_id = m->nbody + m->nobstacle;
  ie->start = jl_calloc((size_t)m->nbody, sizeof(Rigid));
  ie->end = jl_calloc((size_t)m->nbody, sizeof(Rigid));
  ie->prev = jl_calloc((size_t)m->nbody, sizeof(Rigid));
  ie->group = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  return jl_force_new(&impact_ops, ie);
}
