/* The contact set within a step (src/contact_internal.h): edge-edge pairs
 * followed along the step, the crossing checks that split a step, and the
 * active set the implicit solve corrects from its end state (refine). */
#include "src/contact_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/narrow.h"
#include "mesh/vec3.h"


/* distance of edge-edge pair ct's segments at x0 + tau (x1 - x0); s, t: their closest points */
static double ee_dist(const Contact *ct, const double *x0, const double *x1, double tau, double *s, double *t) {
  double p[4][3];
  for (int j = 0; j < 4; j++)
    for (int a = 0; a < 3; a++) {
      int i = 3 * ct->node[j] + a;
      p[j][a] = x0[i] + tau * (x1[i] - x0[i]);
    }
  return sqrt(jl_closest_segments(p[0], p[1], p[2], p[3], s, t));
}

/* the first tau in [0, 1] at which edge-edge pair ct's segments come within
 * `target` of each other on the path x0 -> x1 (jl_segments_first_within); -1 when they do not */
static double ee_first(const Contact *ct, const double *x0, const double *x1, double target) {
  double dpv[4][3];
  const double *p[4], *dp[4];
  for (int j = 0; j < 4; j++) {
    p[j] = x0 + 3 * ct->node[j];
    for (int a = 0; a < 3; a++) dpv[j][a] = x1[3 * ct->node[j] + a] - x0[3 * ct->node[j] + a];
    dp[j] = dpv[j];
  }
  return jl_segments_first_within(p, dp, target, NULL, NULL);
}

/* Edge-edge pair ct along the path x0 -> x1: 1 when its segments come closer
 * than the contact distance by more than the pair's give somewhere and the
 * linear gap there is smaller by half the give than the true one (it does
 * not see them meet); *tv: the first such moment (0..1). */
static int ee_violated(const Contact *ct, const double *x0, const double *x1, double *tv) {
  double rad = ct->reach, give = fmin(JL_THIN_GIVE, 0.5 * rad);
  if (!(rad > 0.0)) return 0;
  *tv = ee_first(ct, x0, x1, rad - give);
  if (*tv < 0.0) return 0;
  double s, t, dv = ee_dist(ct, x0, x1, *tv, &s, &t), z[3] = {0, 0, 0};
  for (int j = 0; j < 4; j++)
    for (int a = 0; a < 3; a++) {
      int i = 3 * ct->node[j] + a;
      z[a] += ct->coef[j] * (x0[i] + *tv * (x1[i] - x0[i]));
    }
  double glin = ct->d0 - jl_vec3_dot(ct->r, (double[3]){z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]});
  return glin < rad - dv - 0.5 * give;
}

/* An edge-edge pair's linear gap uses the closest points and direction of
 * the step's start. Segments that turn within the step (a rope's end
 * whipping past another at 9 m/s, 14 cm a step at 1/60 s) can pass through
 * each other between those points, with the gap still open: the segments'
 * endpoints are held a contact distance apart along the start direction
 * while their middles cross. After each active-set pass the path from the
 * step's start x0 to the pass's end state x1 (implicit Euler moves every node
 * on a straight line) is therefore checked: where the segments come closer
 * than the contact distance by more than the pair's give and the linear gap
 * does not see it, the pair is linearized again at the moment they touch
 * (their closest points and direction there; where they already touched at
 * the start, at the moment of the violation): the same linear gap g(x) =
 * d0 - s - r.(z - z0), measured from x0 with the new points and direction,
 * so the next pass holds them apart where they meet (Bridson, Fedkiw and
 * Anderson 2002 take the normal at the time of impact the same way). The
 * pair's stiffness is raised for the new approach if needed; it has no
 * friction for the rest of the step. Returns 1 when ct changed. */
static int ee_relinearize(ContactElem *ce, const JlModel *m, Contact *ct, const double *x1) {
  const double *x0 = ce->x_step, *v0 = ce->v_step;
  double rad = ct->reach, tv;
  if (!x0 || !ee_violated(ct, x0, x1, &tv)) return 0;
  double s, t, z[3], z0[3];
  /* linearize where they touch */
  double d00 = ee_dist(ct, x0, x1, 0.0, &s, &t);
  double tl = d00 > rad ? ee_first(ct, x0, x1, rad) : tv;
  if (tl < 0.0) tl = tv;
  double dl = ee_dist(ct, x0, x1, tl, &s, &t);
  double coef[4] = {1.0 - s, s, -(1.0 - t), -t}, r[3], pa[4][3];
  for (int a = 0; a < 3; a++) z[a] = z0[a] = 0.0;
  for (int j = 0; j < 4; j++)
    for (int a = 0; a < 3; a++) {
      int i = 3 * ct->node[j] + a;
      pa[j][a] = x0[i] + tl * (x1[i] - x0[i]);
      z[a] += coef[j] * pa[j][a];
      z0[a] += coef[j] * x0[i];
    }
  if (dl > 1e-9 * rad) {
    for (int a = 0; a < 3; a++) r[a] = z[a] / dl;
  } else { /* crossing there: the normal of both segments, on the side A started on */
    double da[3], db[3];
    jl_vec3_sub(pa[1], pa[0], da);
    jl_vec3_sub(pa[3], pa[2], db);
    jl_vec3_cross(da, db, r);
    double len = sqrt(jl_vec3_dot(r, r));
    if (!(len > 0.0)) return 0;
    double sg = jl_vec3_dot(r, z0) < 0.0 ? -1.0 : 1.0;
    for (int a = 0; a < 3; a++) r[a] *= sg / len;
  }
  double n0 = jl_vec3_dot(r, z0);
  if (!(n0 >= 0.0)) return 0; /* A started on the far side of that plane: nothing consistent to hold */
  memcpy(ct->coef, coef, sizeof coef);
  memcpy(ct->r, r, sizeof r);
  memcpy(ct->z0, z0, sizeof z0);
  ct->d0 = rad - n0;
  if (ct->slack > fmax(ct->d0, 0.0)) ct->slack = fmax(ct->d0, 0.0);
  /* stiffness for the new approach (never lowered within the step) */
  double mp, kp, zd[3];
  jl_contact_thin_mass(ce, m, ct, &mp, &kp);
  contact_z(ct, v0, zd);
  double an = -jl_vec3_dot(r, zd), k = m->world.contact_stiffness * mp + m->world.contact_spring_scale * kp;
  if (an > 0.0) k = fmax(k, mp * (an / JL_THIN_GIVE) * (an / JL_THIN_GIVE));
  if (k > ct->k) ct->k = k;
  ct->friction = FRICTION_NONE;
  memset(ct->delta, 0, sizeof ct->delta);
  /* what the next step predicts from */
  Memory *q = jl_contact_mem_find(ce, ct->node[0], ct->other, ct->tag, ct->key2);
  if (q) {
    memcpy(q->coef, ct->coef, sizeof q->coef);
    memcpy(q->r, r, sizeof r);
    memcpy(q->z0, z0, sizeof z0);
    q->d0 = ct->d0;
    q->k = ct->k;
    q->slack = ct->slack;
  }
  return 1;
}

/* edge-edge pair c along the path x0 -> x1: not held (ee_violated), or
 * through half the tubes whatever held them (a pair the last pass left off,
 * a penalty that gave way). Segments that started the step already closer
 * than the give allows (an overlap being pushed apart at the push-out speed)
 * are left to that: halving the step would not separate them. */
static int ee_crossed(const Contact *c, const double *x0, const double *x1) {
  double tv, s, t, give = fmin(JL_THIN_GIVE, 0.5 * c->reach);
  if (ee_dist(c, x0, x1, 0.0, &s, &t) <= c->reach - give) return 0;
  return ee_violated(c, x0, x1, &tv) || ee_first(c, x0, x1, 0.5 * c->reach) >= 0.0;
}

/* 1 when a node's straight path a -> b over the step entered obstacle ob
 * and b is outside it again: through a thin obstacle within the step */
static int passed_through(const JlObstacle *ob, const double *a, const double *b) {
  JlObstacleHit hit;
  double t;
  return !jl_obstacle_query(ob, b, 0.0, -1, &hit) && jl_obstacle_sweep(ob, a, b, &t, &hit);
}

/* 1 when a node ended the step x0 -> x1 inside an obstacle it had no
 * contact with in the step (not even a speculative one), deeper than a new
 * contact may start (the depth its approach speed explains, contact_setup)
 * by more than JL_MISS_TOL. Its velocity at the step's start did not lead it
 * there (a stiff slab rebounding from its supports turns within the step),
 * and found at the next step it would be an overlap pushed out at the
 * push-out speed: work that the energy guard lets through. */
static int obstacle_missed(ContactElem *ce, const JlModel *m, const double *x0, const double *x1, double h) {
  if (m->nobstacle == 0) return 0;
  if (!ce->seen) ce->seen = jl_calloc((size_t)m->nnode + 1, sizeof(unsigned));
  const JlWorldDef *wd = &m->world;
  for (int o = 0; o < m->nobstacle; o++) {
    const JlObstacle *ob = &m->obstacle[o];
    unsigned stamp = ++ce->seen_stamp;
    if (stamp == 0) { /* wrapped: start the marks afresh */
      memset(ce->seen, 0, ((size_t)m->nnode + 1) * sizeof(unsigned));
      stamp = ce->seen_stamp = 1;
    }
    for (int q = 0; q < ce->ncontact; q++)
      if (ce->contact[q].other == m->nbody + o && ce->contact[q].tag == 0) {
        const Contact *ct = &ce->contact[q];
        int p = ct->node[0];
        ce->seen[p] = stamp;
        if (ct->active) continue;
        /* off in the last pass (very stiff contacts of a fast hit can leave
         * a set that still flips): missed if the node went in deeper than a
         * new contact's give, or through and out */
        double rad = m->body[m->node_body[p]].radius, give = JL_OBSTACLE_GIVE * jl_obstacle_width(ob, ct->r);
        JlObstacleHit hit;
        if (jl_obstacle_query(ob, x1 + 3 * p, rad, ct->feature, &hit) ? rad - hit.dist > give + JL_MISS_TOL
                                                                      : passed_through(ob, x0 + 3 * p, x1 + 3 * p))
          return 1;
      }
    double lo[3], hi[3];
    jl_obstacle_aabb(ob, lo, hi);
    for (int i = 0; i < m->nnode; i++) {
      if (m->pinned[i] || ce->seen[i] == stamp) continue;
      const double *xi = x1 + 3 * i, *xs = x0 + 3 * i;
      double rad = m->body[m->node_body[i]].radius; /* a cloth or rope node keeps its half-thickness off */
      int off = 0;
      for (int a = 0; a < 3; a++) off |= fmax(xi[a], xs[a]) < lo[a] - rad || fmin(xi[a], xs[a]) > hi[a] + rad;
      if (off) continue;
      JlObstacleHit hit;
      if (!jl_obstacle_query(ob, xi, rad, -1, &hit) || !(rad - hit.dist > JL_MISS_TOL)) {
        if (passed_through(ob, xs, xi)) return 1;
        continue;
      }
      /* the depth a new contact found there would keep (contact_setup), at
       * the step's mean velocity (x1 = x0 + h v1) */
      double mp = m->mass[i], k = wd->contact_stiffness * mp + wd->contact_spring_scale * ce->knode[i], vn = 0.0;
      for (int a = 0; a < 3; a++) vn += hit.n[a] * (x1[3 * i + a] - x0[3 * i + a]) / h;
      if (rad - hit.dist > jl_contact_explained_depth(k, mp, vn, h) + JL_MISS_TOL) return 1;
    }
  }
  return 0;
}

/* JlForceOps.crossed: nodes that ended the step deep inside an obstacle
 * without a contact (obstacle_missed), or rope segments or cloth edges that
 * the step carried through each other (ee_crossed). When every cloth and rope node ended
 * within half a pair's give of where its velocity at the start of the step
 * would have taken it, the step's detection (which finds pairs that come
 * within their contact distance on those predicted paths) saw every pair
 * that could come within the give, and its pairs are checked. Otherwise (a
 * whipping rope end accelerates within the step) the pairs are found again
 * on the step's own path and checked with the linear gap they had in the
 * step, or with none when the step's detection did not find them. */
int jl_contact_crossed(const JlForce *e, const JlModel *m, const double *x0, const double *v0, const double *x1) {
  ContactElem *ce = e->self;
  double h = ce->h_step;
  if (!x0) return ce->thin != NULL || m->nobstacle > 0; /* the stepper asks whether this element checks at all */
  if (!(h > 0.0)) return 0;
  if (obstacle_missed(ce, m, x0, x1, h)) return 1;
  if (!ce->thin) return 0;
  double dev = 0.0, give = JL_THIN_GIVE;
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *bd = &m->body[b];
    if (bd->kind == JL_BODY_VOLUME) continue;
    if (bd->radius > 0.0) give = fmin(give, bd->radius); /* a pair's give: min(JL_THIN_GIVE, half its reach) */
    for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
      double d[3];
      for (int a = 0; a < 3; a++) d[a] = x1[3 * i + a] - x0[3 * i + a] - h * v0[3 * i + a];
      dev = fmax(dev, sqrt(jl_vec3_dot(d, d)));
    }
  }
  if (2.0 * dev <= give) {
    for (int q = 0; q < ce->ncontact; q++) {
      const Contact *ct = &ce->contact[q];
      if ((ct->tag & 3) == JL_THIN_EDGE_EDGE && ct->n == 4 && ee_crossed(ct, x0, x1)) return 1;
    }
    return 0;
  }
  size_t n3 = 3 * (size_t)m->nnode;
  if (!ce->vpath) ce->vpath = jl_calloc(n3 + 1, sizeof(double));
  for (size_t i = 0; i < n3; i++) ce->vpath[i] = (x1[i] - x0[i]) / h;
  const JlThinPair *tp;
  int np = jl_thin_find_edges(ce->thin, jl_model_geom(m), x0, ce->vpath, h, &tp);
  for (int k = 0; k < np; k++) {
    const JlThinPair *pr = &tp[k];
    Contact c;
    memset(&c, 0, sizeof c);
    c.n = 4;
    c.reach = pr->radius;
    const Memory *q = jl_contact_mem_find(ce, pr->node[0], pr->body_b, (int)pr->kind + 4 * pr->key, pr->key2);
    if (q && q->n == 4) { /* the gap the step held */
      memcpy(c.node, q->nodes, sizeof c.node);
      memcpy(c.coef, q->coef, sizeof c.coef);
      memcpy(c.r, q->r, sizeof c.r);
      memcpy(c.z0, q->z0, sizeof c.z0);
      c.d0 = q->d0;
    } else { /* none: it never pushed */
      memcpy(c.node, pr->node, 4 * sizeof(int));
      memcpy(c.coef, pr->coef, 4 * sizeof(double));
      memcpy(c.r, pr->dir, sizeof c.r);
      contact_z(&c, x0, c.z0);
      c.d0 = -INFINITY;
    }
    if (ee_crossed(&c, x0, x1)) return 1;
  }
  return 0;
}

/* active-set update for the implicit stepper (JlForce.refine) */
int jl_contact_refine(JlForce *e, const JlModel *m, const double *x1, const double *v1) {
  (void)v1;
  ContactElem *ce = e->self;
  if (!x1) {
    /* start of the step: on where the gap would be open at the step's end
     * if the contact kept its velocity (contact_setup) */
    ce->use_set = 1;
    for (int q = 0; q < ce->ncontact; q++) {
      Contact *ct = &ce->contact[q];
      ct->active = ct->tag ? ct->d0 - ct->slack > 0.0 : ct->gpred > 0.0;
    }
    return 0;
  }
  int changed = 0, undoing = 0;
  for (int q = 0; q < ce->ncontact; q++) {
    Contact *ct = &ce->contact[q];
    int relin = (ct->tag & 3) == JL_THIN_EDGE_EDGE && ct->n == 4 && ee_relinearize(ce, m, ct, x1);
    changed += relin, undoing += relin;
    double z[3];
    contact_z(ct, x1, z);
    double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
    double g = ct->d0 - ct->slack - jl_vec3_dot(ct->r, dz);
    int want = g > 0.0;
    if (want != ct->active) {
      ct->active = want;
      changed++;
      undoing += !want;
    }
  }
  e->undoing = undoing;
  return changed;
}
