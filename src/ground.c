/* Ground plane force element: penalty contact with the plane y = ground_y.
 *
 * A node i below the plane by p = ground_y + r_i - y_i - s (r_i its body's
 * radius: half a cloth's thickness, a rope's radius; s its push-out slack,
 * below) feels
 *   normal:   F_y = k p - c v_y,   k = ground_stiffness m_i + ground_spring_scale x (summed
 *             stiffness of the node's springs), c = ground_damping m_i
 *             (critically damped, c = 2 sqrt(k m_i), while it works off slack),
 *   friction: sticking: F_t = k (a - x_t) - c v_t, capped at mu k p, with a
 *             the node's anchor on the plane: it persists from step to step
 *             while the node sticks and is dragged onto the Coulomb cone
 *             |a - x_t| <= mu p when it slips, so a resting body does not
 *             creep when its nodes settle up and down;
 *             sliding: F_t = -(mu k p / sv) v_t, lagged-viscosity Coulomb
 *             with sv the tangential speed at the step's start extrapolated
 *             to its end (src/penalty.h jl_slide_lag_speed), so a step can
 *             slow the sliding down to zero but never reverse it (a constant
 *             mu k p against the motion lets implicit Euler overshoot and
 *             reverse the velocity every step; docs/collision.md); the
 *             anchor is dragged along, mu p behind the node, so a node that
 *             stops sticks with the kinetic friction force;
 *             the regime is chosen at begin_step: sliding when the anchor
 *             spring could not hold the node over the step and it moves
 *             more than JL_SLIDE_MIN of its cone per step (src/penalty.h);
 * and stores the penalty energy 1/2 k p^2 plus the anchor spring's 1/2 |F|^2 / k.
 * Scaling k and c with the node mass makes the contact behave the same at
 * every mesh resolution (each node is a mass on a spring of frequency
 * sqrt(ground_stiffness)). Without a begin_step (a force evaluated outside a
 * world step) friction is the regularised law -min(c, mu k p / s) v_t at the
 * current speed s.
 *
 * Implicit steps (JlForce.refine): which nodes are on the plane is held fixed
 * for each linear solve and corrected from the end-of-step state, so a node
 * that crosses the plane within a step is held there instead of being found
 * deep at the next step's start (1/2 k p^2 from nowhere); the friction cap
 * uses the end-of-solve penetration. Slack: a node found below the plane
 * deeper than its approach speed explains (a body that starts below it)
 * keeps the excess as slack, worked off at contact.push_out_speed.
 *
 * Jacobian blocks (per node on the plane, a full 3x3 since it is diagonal in
 * the node index): dF_y/dy = -k, dF_y/dv_y = -c; sticking dF_t/dx_t = -k I_t,
 * dF_t/dv_t = -c I_t; sliding dF_t/dv_t = -(mu k p / s0) I_t (all symmetric,
 * negative semidefinite) and dF_t/dy = (mu k / s0) v_t, which is not
 * symmetric and is therefore only included with JL_LIN_EXACT. These blocks
 * keep a body resting on the ground stable under implicit Euler at large
 * steps (Baraff & Witkin 1998, sec. 5: stiff penalty forces need their
 * derivatives in the implicit system). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/force.h"
#include "src/parallel.h"
#include "src/penalty.h"
#include "src/loads.h"

typedef struct Ground {
  int n;       /* nodes */
  int carried; /* nodes working off slack they had before this step (push-out of an overlap) */
  int nblock;
  int nactive;
  int *active;     /* nactive <= nnode: penetrating nodes at the last linearize */
  double *blk;     /* nnode x 9: a dF/dx + b dF/dv of node active[q] at 9 q */
  double *partial; /* nblock energy partials */
  double *s0;      /* nnode: m/s, tangential speed at the step's start; < 0 = no step begun */
  double *sv;      /* nnode: m/s, sliding nodes: the speed their viscosity is lagged on */
  double h;        /* s, the step begun: outside implicit solves (explicit steppers) the sliding
                      viscosity mu k p / s0 is held below m / (2h), so no explicit stage can
                      overshoot on it (a node that starts sliding slowly and touches down mid-step) */
  /* implicit steps (JlForce.refine): which nodes are on the plane for a
   * whole linear solve, and the penetration the last solve ended with (the
   * normal load the friction cap uses) */
  int use_set;
  unsigned char *on;
  double *pen1;  /* nnode: m, end-of-solve penetration of on nodes; < 0 = none yet */
  double *slack; /* nnode: m, push-out slack; < 0 = the node was not below the plane */
  double *kn;    /* nnode: N/m, penalty stiffness of each node */
  double *top;   /* nnode: m, the plane's height for the node: ground_y + its body's radius (cloth and
                      ropes rest on their surface, not their mid-line) */
  /* friction (chosen at begin_step): a sticking node is held by a tangential
   * spring to its anchor, a point of the plane that persists across steps and
   * moves only when the node slips; a sliding node feels lagged-viscosity
   * Coulomb friction */
  unsigned char *mode; /* nnode: FRICTION_* for this step */
  double *anchor;      /* nnode x 2: m, (x, z) of the anchor for this step */
  double *next_anchor; /* nnode x 2: anchor for the next step (valid where has_anchor) */
  unsigned char *has_anchor;
} Ground;

enum { FRICTION_VISCOUS, FRICTION_STICK, FRICTION_SLIDE };

/* friction viscosity eta = min(c, mu k p / s0) with the frozen speed s0 (the
 * current speed st when no step has begun); *sliding = 1 on the cap branch */
static double friction_eta(double c, double cap, double s0, double st, int *sliding) {
  double s = s0 >= 0.0 ? s0 : st;
  *sliding = c * s > cap;
  return *sliding ? cap / s : c;
}

/* the lagged viscosity of a sliding node, cap / sv; outside implicit solves
 * (explicit steppers) at most m / (2h), *held = 1 then (it no longer depends
 * on the load) */
static double slide_eta(const Ground *g, double cap, double mass, int i, int *held) {
  double eta = cap / g->sv[i], top = g->h > 0.0 ? 0.5 * mass / g->h : INFINITY;
  *held = !g->use_set && eta > top;
  return *held ? top : eta;
}

/* penetration beyond the push-out slack (m) */
static double ground_pen(const Ground *g, const JlWorldDef *wd, const double *x, int i) {
  double s = g->slack[i] > 0.0 ? g->slack[i] : 0.0;
  (void)wd;
  return g->top[i] - x[3 * i + 1] - s;
}

/* normal damping (N s/m): ground_damping m; a node being pushed out of its
 * slack is damped critically, 2 sqrt(k m), so it leaves at the push-out
 * speed without overshooting it */
static double ground_c(const Ground *g, const JlWorldDef *wd, double mass, int i) {
  double c = wd->ground_damping * mass;
  if (g->slack[i] > 0.0) {
    double crit = 2.0 * sqrt(g->kn[i] * mass);
    if (crit > c) c = crit;
  }
  return c;
}

/* normal penetration the friction cap uses: the end of the last solve when
 * there was one (the implicit, end-of-step normal load), else the current;
 * 0 where the node is off the plane now (an implicit solve may hold it on
 * while it pulls: a node that pulls has no friction, as in src/contact.c) */
static double ground_cap_pen(const Ground *g, double pen, int i) {
  if (!(pen > 0.0)) return 0.0;
  double p = g->use_set && g->pen1[i] >= 0.0 ? g->pen1[i] : pen;
  return p > 0.0 ? p : 0.0;
}

/* 1 while some node works off the slack of an earlier step (a body that
 * started below the plane); slack found in this step's detection does not
 * count: that is a missed step, which the energy guard may split */
static int ground_pushing(const JlForce *e) {
  const Ground *g = e->self;
  return g->carried > 0;
}

/* tangential speeds, slack and the on/off set at the step's start */
static void ground_begin(JlForce *e, const JlModel *m, const double *x, const double *v, double h) {
  Ground *g = e->self;
  const JlWorldDef *wd = &m->world;
  g->use_set = 0;
  g->carried = 0;
  g->h = h;
  for (int i = 0; i < m->nnode; i++) {
    const double *vi = v + 3 * i;
    /* pins may change between steps (jl_world_pin): a pinned node is out of the plane's reach */
    g->top[i] = m->pinned[i] ? -INFINITY : wd->ground_y + m->body[m->node_body[i]].radius;
    double s_prev = g->s0[i];
    g->s0[i] = sqrt(vi[0] * vi[0] + vi[2] * vi[2]);
    g->pen1[i] = -1.0;
    /* slack: a node found below the plane that was not there at the last
     * step (a body that starts below it; a node that crosses the plane
     * within an implicit step is held by refine instead) keeps the depth its
     * approach speed does not explain as slack, worked off at the push-out
     * speed, instead of 1/2 k p^2 of energy from nowhere; slack never grows */
    double pen = g->top[i] - x[3 * i + 1];
    if (!(pen > 0.0)) {
      g->slack[i] = -1.0;
    } else {
      double s;
      if (g->slack[i] < 0.0) {
        double approach = vi[1] < 0.0 ? -vi[1] : 0.0;
        double omega = m->mass[i] > 0.0 && g->kn[i] > 0.0 ? sqrt(g->kn[i] / m->mass[i]) : 0.0;
        s = pen - approach * (omega > 0.0 && 1.0 / omega < h ? 1.0 / omega : h);
      } else {
        s = g->slack[i];
        g->carried += s > wd->contact_push_out * h;
      }
      s -= jl_push_out_step(wd->contact_push_out, vi[1], h);
      g->slack[i] = s < 0.0 ? 0.0 : s < pen ? s : pen;
    }
    double pe = ground_pen(g, wd, x, i);
    /* the implicit solve's first guess of the set: below the plane at the
     * end of the step if the node kept its current velocity */
    g->on[i] = pe - h * vi[1] > 0.0;
    /* friction: the stored anchor, dragged onto the Coulomb cone k |d| <= mu k p */
    double *a = g->anchor + 2 * i, d[2] = {0.0, 0.0};
    const double *xi = x + 3 * i;
    double mu = wd->ground_friction, load = pe > 0.0 ? pe : 0.0;
    if (g->has_anchor[i] && load > 0.0) {
      d[0] = g->next_anchor[2 * i] - xi[0];
      d[1] = g->next_anchor[2 * i + 1] - xi[2];
      double len = sqrt(d[0] * d[0] + d[1] * d[1]), lim = mu * load;
      if (len > lim) d[0] *= lim / len, d[1] *= lim / len;
    }
    a[0] = xi[0] + d[0];
    a[1] = xi[2] + d[1];
    /* sticking when the anchor spring can hold the node over the step */
    double k = g->kn[i], c = wd->ground_damping * m->mass[i];
    double need0 = k * (d[0] - h * vi[0]) - c * vi[0], need2 = k * (d[1] - h * vi[2]) - c * vi[2];
    /* cloth and rope nodes keep the plain law, as in src/contact.c */
    int thin = m->body[m->node_body[i]].kind != JL_BODY_VOLUME;
    double nm = sqrt(need0 * need0 + need2 * need2), crawl = thin ? 0.0 : JL_SLIDE_MIN * mu * load / h;
    int slide = nm > mu * k * load && g->s0[i] > crawl;
    g->mode[i] = slide ? FRICTION_SLIDE : FRICTION_STICK;
    g->has_anchor[i] = load > 0.0 && !(slide && thin);
    g->next_anchor[2 * i] = a[0];
    g->next_anchor[2 * i + 1] = a[1];
    g->sv[i] = g->s0[i];
    if (slide && !thin) {
      /* the anchor is dragged along: where the node ends the step if it
       * keeps its velocity, mu p away along the force sticking would need
       * (src/contact.c, remember) */
      g->sv[i] = jl_slide_lag_speed(g->s0[i], s_prev, crawl);
      g->next_anchor[2 * i] = xi[0] + h * vi[0] + mu * load * need0 / nm;
      g->next_anchor[2 * i + 1] = xi[2] + h * vi[2] + mu * load * need2 / nm;
    }
  }
}

/* active set for the implicit stepper (JlForce.refine): begin_step guessed
 * the set from the step's start (the nodes below the plane at the end of the
 * step if they kept their velocity); after a solve, nodes whose penetration
 * opened or closed during the step switch, so a node that crosses the plane
 * within a step is held there instead of being found deep at the next step's
 * start */
static int ground_refine(JlForce *e, const JlModel *m, const double *x1, const double *v1) {
  (void)v1;
  Ground *g = e->self;
  if (!x1) {
    g->use_set = 1;
    return 0;
  }
  int changed = 0, undoing = 0;
  for (int i = 0; i < m->nnode; i++) {
    double pen = ground_pen(g, &m->world, x1, i);
    unsigned char want = pen > 0.0;
    changed += want != g->on[i];
    undoing += g->on[i] && !want;
    g->on[i] = want;
    g->pen1[i] = want ? pen : -1.0;
  }
  e->undoing = undoing;
  return changed;
}

static void ground_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                         double *energy) {
  Ground *g = e->self;
  const JlWorldDef *wd = &m->world;
  int n = m->nnode, nb = g->nblock;
  JL_OMP(omp parallel for schedule(static) if (n > JL_PAR_MIN_LIGHT) num_threads(jl_omp_threads(e->threads)))
  for (int blk = 0; blk < nb; blk++) {
    double en = 0.0;
    for (int i = blk * JL_BLOCK, end = jl_block_end(blk, n); i < end; i++) {
      double pen = ground_pen(g, wd, x, i);
      if (g->use_set ? !g->on[i] : !(pen > 0.0)) continue;
      double k = g->kn[i], c = ground_c(g, wd, m->mass[i], i);
      const double *vi = v + 3 * i;
      /* normal penalty and damping: linear in y while on, also where an
       * implicit solve carries it through pen < 0 within the step */
      f[3 * i + 1] += k * pen - c * vi[1];
      if (pen > 0.0) en += 0.5 * k * pen * pen;
      /* friction */
      double cap = wd->ground_friction * k * ground_cap_pen(g, pen, i), ft[2];
      int mode = g->s0[i] >= 0.0 ? g->mode[i] : FRICTION_VISCOUS;
      if (mode == FRICTION_STICK) {
        const double *a = g->anchor + 2 * i;
        double fs[2] = {k * (a[0] - x[3 * i]), k * (a[1] - x[3 * i + 2])};
        double fsm = sqrt(fs[0] * fs[0] + fs[1] * fs[1]);
        if (fsm > cap) fs[0] *= cap / fsm, fs[1] *= cap / fsm, fsm = cap;
        if (pen > 0.0) en += 0.5 * fsm * fsm / k;
        ft[0] = fs[0] - c * vi[0];
        ft[1] = fs[1] - c * vi[2];
        double fm = sqrt(ft[0] * ft[0] + ft[1] * ft[1]);
        if (fm > cap) ft[0] *= cap / fm, ft[1] *= cap / fm;
      } else {
        /* sliding: lagged viscosity, mu N at the extrapolated end speed sv; before any
         * step: min(c s, mu N) at the current speed */
        double st = sqrt(vi[0] * vi[0] + vi[2] * vi[2]);
        int sliding;
        int held;
        double eta =
            mode == FRICTION_SLIDE ? slide_eta(g, cap, m->mass[i], i, &held) : friction_eta(c, cap, -1.0, st, &sliding);
        ft[0] = -eta * vi[0];
        ft[1] = -eta * vi[2];
      }
      f[3 * i] += ft[0];
      f[3 * i + 2] += ft[1];
    }
    g->partial[blk] = en;
  }
  if (energy) *energy += jl_sum_partials(nb, g->partial);
}

static void ground_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                             int flags, double *diag) {
  Ground *g = e->self;
  const JlWorldDef *wd = &m->world;
  int exact = (flags & JL_LIN_EXACT) != 0;
  g->nactive = 0;
  for (int i = 0; i < m->nnode; i++) {
    double pen = ground_pen(g, wd, x, i);
    if (g->use_set ? !g->on[i] : !(pen > 0.0)) continue;
    double k = g->kn[i], c = ground_c(g, wd, m->mass[i], i);
    const double *vi = v + 3 * i;
    double *B = g->blk + 9 * g->nactive;
    g->active[g->nactive++] = i;
    memset(B, 0, 9 * sizeof(double));
    /* normal: rows/cols (1, 1) */
    B[4] = -a * k - b * c;
    /* friction in the x-z plane: sticking -k I_t (x) and -c I_t (v);
     * sliding (and before any step) dF_t/dv_t = -eta I_t */
    double st = sqrt(vi[0] * vi[0] + vi[2] * vi[2]);
    int mode = g->s0[i] >= 0.0 ? g->mode[i] : FRICTION_VISCOUS, sliding = mode == FRICTION_SLIDE;
    double cap = wd->ground_friction * k * ground_cap_pen(g, pen, i);
    int held = 0;
    if (!(pen > 0.0)) {
      sliding = 0; /* off the plane here: no friction (ground_cap_pen) */
    } else if (mode == FRICTION_STICK) {
      B[0] = B[8] = -a * k - b * c;
    } else {
      double eta = sliding ? slide_eta(g, cap, m->mass[i], i, &held) : friction_eta(c, cap, -1.0, st, &sliding);
      B[0] = -b * eta;
      B[8] = -b * eta;
    }
    if (sliding && !held && exact && !(g->use_set && g->pen1[i] >= 0.0)) {
      /* dF_t/dy = (mu k / sv) v_t (unsymmetric); with no step begun the speed follows v and this is only
       * the x part */
      double s = g->s0[i] >= 0.0 ? g->sv[i] : st;
      B[1] = a * wd->ground_friction * k / s * vi[0];
      B[7] = a * wd->ground_friction * k / s * vi[2];
    }
    if (diag)
      for (int r = 0; r < 9; r++) diag[9 * i + r] += B[r];
  }
}

static void ground_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  (void)m;
  const Ground *g = e->self;
  int na = g->nactive;
  JL_OMP(omp parallel for schedule(static) if (na > JL_PAR_MIN) num_threads(jl_omp_threads(e->threads)))
  for (int q = 0; q < na; q++) {
    int i = g->active[q];
    const double *B = g->blk + 9 * q, *ui = u + 3 * i;
    out[3 * i] += B[0] * ui[0] + B[1] * ui[1] + B[2] * ui[2];
    out[3 * i + 1] += B[3] * ui[0] + B[4] * ui[1] + B[5] * ui[2];
    out[3 * i + 2] += B[6] * ui[0] + B[7] * ui[1] + B[8] * ui[2];
  }
}

static void ground_free(void *self) {
  Ground *g = self;
  if (g)
    JL_FREE_ALL(g->active, g->blk, g->partial, g->s0, g->sv, g->on, g->pen1, g->slack, g->kn, g->top, g->mode,
                g->anchor, g->next_anchor, g->has_anchor);
  free(g);
}

/* History (JlForce.history_*): what the next step or an energy evaluation
 * between steps reads: the regime, slack, anchors and on/off set that
 * begin_step and refine left, and the step length they were set up for.
 * The active list and blocks are rebuilt by every linearize. */
enum {
  GROUND_DOUBLES = 8,
  GROUND_BYTES = 3
}; /* per node: s0, sv, pen1, slack, anchor (2), next_anchor (2);
                                                 on, mode, has_anchor */

static size_t ground_history_size(const JlForce *e) {
  const Ground *g = e->self;
  return 4 * sizeof(int) + sizeof(double) + (size_t)g->n * (GROUND_DOUBLES * sizeof(double) + GROUND_BYTES);
}

static void ground_history_save(const JlForce *e, unsigned char *out) {
  const Ground *g = e->self;
  size_t n = (size_t)g->n;
  int head[4] = {g->n, g->carried, g->use_set, 0};
  memcpy(out, head, sizeof head);
  out += sizeof head;
  memcpy(out, &g->h, sizeof g->h);
  out += sizeof g->h;
  const double *d[] = {g->s0, g->sv, g->pen1, g->slack};
  for (int a = 0; a < 4; a++, out += n * sizeof(double)) memcpy(out, d[a], n * sizeof(double));
  memcpy(out, g->anchor, 2 * n * sizeof(double));
  out += 2 * n * sizeof(double);
  memcpy(out, g->next_anchor, 2 * n * sizeof(double));
  out += 2 * n * sizeof(double);
  const unsigned char *b[] = {g->on, g->mode, g->has_anchor};
  for (int a = 0; a < 3; a++, out += n) memcpy(out, b[a], n);
}

static int ground_history_load(JlForce *e, const JlModel *m, const unsigned char *in, size_t size) {
  Ground *g = e->self;
  int head[4];
  if (size != ground_history_size(e) || g->n != m->nnode) return 0;
  memcpy(head, in, sizeof head);
  if (head[0] != g->n || head[1] < 0 || head[1] > g->n || (head[2] != 0 && head[2] != 1)) return 0;
  size_t n = (size_t)g->n;
  const unsigned char *bytes = in + sizeof head + sizeof(double) + n * GROUND_DOUBLES * sizeof(double);
  for (size_t i = 0; i < n; i++)
    if (bytes[i] > 1 || bytes[n + i] > FRICTION_SLIDE || bytes[2 * n + i] > 1) return 0;
  g->carried = head[1];
  g->use_set = head[2];
  in += sizeof head;
  memcpy(&g->h, in, sizeof g->h);
  in += sizeof g->h;
  double *d[] = {g->s0, g->sv, g->pen1, g->slack};
  for (int a = 0; a < 4; a++, in += n * sizeof(double)) memcpy(d[a], in, n * sizeof(double));
  memcpy(g->anchor, in, 2 * n * sizeof(double));
  in += 2 * n * sizeof(double);
  memcpy(g->next_anchor, in, 2 * n * sizeof(double));
  in += 2 * n * sizeof(double);
  unsigned char *b[] = {g->on, g->mode, g->has_anchor};
  for (int a = 0; a < 3; a++, in += n) memcpy(b[a], in, n);
  return 1;
}

/* every body with a node on the plane (the last solve's set) is held by the world */
static void ground_couple(const JlForce *e, const JlModel *m, int *group) {
  const Ground *g = e->self;
  for (int i = 0; i < m->nnode; i++)
    if (g->use_set ? g->on[i] : 0) jl_uf_union(group, m->node_body[i], m->nbody);
}

/* clang-format off */
static const JlForceOps ground_ops = {.name = "ground", .kind = JL_FORCE_GROUND, .force = ground_force,
    .linearize = ground_linearize, .multiply = ground_multiply, .free_self = ground_free,
    .begin_step = ground_begin, .refine = ground_refine, .pushing = ground_pushing, .couple = ground_couple,
    .history_size = ground_history_size, .history_save = ground_history_save,
    .history_load = ground_history_load};
/* clang-format on */

JlForce *jl_ground_create(const JlModel *m) {
  Ground *g = jl_calloc(1, sizeof *g);
  g->nblock = jl_nblock(m->nnode);
  g->active = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  g->blk = jl_calloc(9 * ((size_t)m->nnode + 1), sizeof(double));
  g->partial = jl_calloc((size_t)g->nblock + 1, sizeof(double));
  g->s0 = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  g->sv = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  g->on = jl_calloc((size_t)m->nnode + 1, 1);
  g->pen1 = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  g->slack = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  g->n = m->nnode;
  g->mode = jl_calloc((size_t)m->nnode + 1, 1);
  g->anchor = jl_calloc(2 * ((size_t)m->nnode + 1), sizeof(double));
  g->next_anchor = jl_calloc(2 * ((size_t)m->nnode + 1), sizeof(double));
  g->has_anchor = jl_calloc((size_t)m->nnode + 1, 1);
  for (int i = 0; i < m->nnode; i++) g->s0[i] = g->pen1[i] = g->slack[i] = -1.0;
  /* k = ground_stiffness m_i + ground_spring_scale x the summed stiffness of
   * the node's springs: light nodes of stiff bodies (a 1 mm ball) resist as
   * much as their springs, not just per kg */
  g->kn = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  jl_model_node_stiffness(m, g->kn);
  for (int i = 0; i < m->nnode; i++)
    g->kn[i] = m->world.ground_stiffness * m->mass[i] + m->world.ground_spring_scale * g->kn[i];
  g->top = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  /* a pinned node is held where it is: the plane never acts on it (nor stores energy) */
  for (int i = 0; i < m->nnode; i++)
    g->top[i] = m->pinned[i] ? -INFINITY : m->world.ground_y + m->body[m->node_body[i]].radius;
  return jl_force_new(&ground_ops, g);
}

void jl_ground_loads(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx) {
  const Ground *g = e->self;
  static const double up[3] = {0.0, 1.0, 0.0};
  int other = m->nbody + m->nobstacle;
  for (int i = 0; i < m->nnode; i++) {
    int b = m->node_body[i];
    if (m->body[b].kind != JL_BODY_VOLUME) continue;
    double pen = ground_pen(g, &m->world, x, i);
    if (pen > 0.0) add(ctx, b, other, g->kn[i] * pen, x + 3 * i, up, g->kn[i]);
  }
}
