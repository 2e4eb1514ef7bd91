/* The contact set at a step's start (src/contact_internal.h; the model is in
 * src/contact.c): the body detection's contacts and their patches, the
 * speculative and thin-body contacts, the obstacles' contacts, each contact's
 * stiffness, slack and friction regime, and the memory a step leaves. */
#include "src/contact_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/narrow.h"
#include "mesh/vec3.h"
#include "src/penalty.h"

/* a new contact of node p against the point sum_k w_k x(nodes_k) of `other`
 * (a body's tet or face: nw = 4 or 3; an obstacle: nw = 0, the point is
 * fixed), pushing p along r with depth d0 (< 0: a speculative gap) */
static Contact *push_contact(ContactElem *ce, int p, int nw, const int *nodes, const double *w, int other,
                             const double r[3], double d0) {
  jl_grow((void **)&ce->contact, &ce->cap, ce->ncontact + 1, sizeof(Contact));
  Contact *ct = &ce->contact[ce->ncontact++];
  memset(ct, 0, sizeof *ct);
  ct->n = 1 + nw;
  ct->na = 1;
  ct->node[0] = p;
  ct->coef[0] = 1.0;
  JL_ASSERT(nw >= 0 && nw < JL_CONTACT_NODES, "push_contact: too many nodes");
  for (int k = 0; k < nw; k++) {
    ct->node[k + 1] = nodes[k];
    ct->coef[k + 1] = -w[k];
  }
  ct->other = other;
  ct->tet = -1;
  ct->feature = -1;
  memcpy(ct->r, r, sizeof ct->r);
  ct->d0 = d0;
  return ct;
}

/* node -> its contacts among the first n (first/next lists), for lookup */
static void index_contacts(ContactElem *ce, int n) {
  if (n > ce->scratch_cap) {
    ce->scratch_cap = 2 * n;
    free(ce->next), free(ce->parent), free(ce->patch);
    ce->next = jl_calloc((size_t)ce->scratch_cap, sizeof(int));
    ce->parent = jl_calloc((size_t)ce->scratch_cap, sizeof(int));
    ce->patch = jl_calloc(3 * (size_t)ce->scratch_cap, sizeof(double));
  }
  for (int i = n - 1; i >= 0; i--) {
    int p = ce->contact[i].node[0];
    ce->next[i] = ce->first[p];
    ce->first[p] = i;
  }
}

static void unindex_contacts(ContactElem *ce, int n) {
  for (int i = 0; i < n; i++) ce->first[ce->contact[i].node[0]] = -1;
}

static int key_cmp(const int a[4], const int b[4]) {
  for (int i = 0; i < 4; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

int jl_contact_mem_cmp(const void *a, const void *b) {
  const Memory *p = a, *q = b;
  return key_cmp((const int[4]){p->node, p->other, p->tag, p->key2},
                 (const int[4]){q->node, q->other, q->tag, q->key2});
}

/* the memory of contact (node, other, tag, key2); NULL when new */
Memory *jl_contact_mem_find(const ContactElem *ce, int node, int other, int tag, int key2) {
  const int key[4] = {node, other, tag, key2};
  int lo = 0, hi = ce->nmem - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    Memory *q = &ce->mem[mid];
    int c = key_cmp((const int[4]){q->node, q->other, q->tag, q->key2}, key);
    if (c == 0) return q;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* ---------------------------------------------------------------- patches */

/* the body contact of node with body `other`, or -1 */
static int lookup(const ContactElem *ce, int node, int other) {
  for (int j = ce->first[node]; j >= 0; j = ce->next[j])
    if (ce->contact[j].other == other) return j;
  return -1;
}

/* Contacts of P's nodes in Q share their patch's normal only between two
 * volumes: within one body (self-collision) the two sides of a fold would
 * cancel, and a cloth or rope node takes the direction of Q's own surface
 * (collision/depth.c), which is already one-sided, while a patch mean would
 * push a cloth draped over a ball straight up on its flanks. */
static int patched(const JlModel *m, int P, int Q) {
  return P != Q && m->body[P].kind == JL_BODY_VOLUME && m->body[Q].kind == JL_BODY_VOLUME;
}

/* one normal per patch of touching contacts between the same two bodies */
static void patch_normals(ContactElem *ce, const JlModel *m) {
  int n = ce->nbody_contacts;
  if (n == 0) return;
  index_contacts(ce, n);
  for (int i = 0; i < n; i++) ce->parent[i] = i;
  for (int i = 0; i < n; i++) {
    const Contact *ct = &ce->contact[i];
    int p = ct->node[0], P = m->node_body[p], Q = ct->other;
    if (!patched(m, P, Q)) continue;
    /* neighbours of p in P that are inside Q too */
    for (int a = m->adj_start[p]; a < m->adj_start[p + 1]; a++) {
      int j = lookup(ce, m->adj[a], Q);
      if (j >= 0) jl_uf_union(ce->parent, i, j);
    }
    /* nodes of Q's tet around p that are inside P */
    for (int k = 1; k < 5; k++) {
      int j = lookup(ce, ct->node[k], P);
      if (j >= 0) jl_uf_union(ce->parent, i, j);
    }
  }
  /* mean direction per patch, oriented out of the higher-numbered body */
  for (int i = 0; i < 3 * n; i++) ce->patch[i] = 0.0;
  for (int i = 0; i < n; i++) {
    const Contact *ct = &ce->contact[i];
    int P = m->node_body[ct->node[0]];
    if (!patched(m, P, ct->other)) continue;
    double wgt = m->mass[ct->node[0]] * ct->d0 * (P < ct->other ? 1.0 : -1.0);
    double *s = ce->patch + 3 * jl_uf_find(ce->parent, i);
    for (int a = 0; a < 3; a++) s[a] += wgt * ct->r[a];
  }
  for (int i = 0; i < n; i++) {
    Contact *ct = &ce->contact[i];
    if (!patched(m, m->node_body[ct->node[0]], ct->other)) continue;
    const double *s = ce->patch + 3 * jl_uf_find(ce->parent, i);
    double len = sqrt(jl_vec3_dot(s, s));
    if (!(len > 0.0) || !isfinite(len)) continue;
    double sign = m->node_body[ct->node[0]] < ct->other ? 1.0 : -1.0, r[3];
    for (int a = 0; a < 3; a++) r[a] = sign * s[a] / len;
    /* a contact that points against its patch (an outlier of the depth
     * estimate) would only pull: it is dropped */
    double cosv = jl_vec3_dot(r, ct->r);
    ct->d0 = cosv > 0.0 ? ct->d0 * cosv : -1.0;
    memcpy(ct->r, r, sizeof r);
  }
  unindex_contacts(ce, n);
  int kept = 0;
  for (int i = 0; i < n; i++)
    if (ce->contact[i].d0 >= 0.0) ce->contact[kept++] = ce->contact[i];
  ce->ncontact = ce->nbody_contacts = kept;
}

/* A cloth or rope node inside a volume takes its direction from the
 * nearest point of the volume's surface (collision/depth.c). Deep inside a
 * thin part of the volume that can be the far side: a rope pulled up
 * through the bottom of a box would be pushed on up and out of the top. A
 * node that was in contact with the same body at the last step (inside it,
 * or speculatively at its surface) therefore keeps that contact's plane when
 * the nearest surface points more than 60 degrees away from it: its linear
 * gap carries on (nodes, weights, normal), so it is pushed back out the way
 * it came in. */
static void thin_history(ContactElem *ce, const JlModel *m) {
  for (int i = 0; i < ce->nbody_contacts; i++) {
    Contact *ct = &ce->contact[i];
    if (m->body[m->node_body[ct->node[0]]].kind == JL_BODY_VOLUME) continue;
    const Memory *q = jl_contact_mem_find(ce, ct->node[0], ct->other, 0, 0);
    if (!q || q->n < 1 || jl_vec3_dot(q->r, ct->r) >= 0.5) continue;
    ct->n = q->n;
    ct->na = q->na;
    memcpy(ct->node, q->nodes, sizeof ct->node);
    memcpy(ct->coef, q->coef, sizeof ct->coef);
    memcpy(ct->r, q->r, sizeof ct->r);
    memcpy(ct->z0, q->z0, sizeof ct->z0);
    ct->d0 = q->d0;
    ct->tet = q->anchor_tet;
    ct->continued = 1;
  }
}

/* ---------------------------------------------------------------- step set-up */

/* the anchor point of memory q at positions x (world); 0 when it has none */
static int anchor_point(const JlModel *m, const Memory *q, const double *x, double y[3]) {
  if (!q || !q->anchored) return 0;
  if (q->other >= m->nbody) {
    memcpy(y, q->anchor, 3 * sizeof(double));
    return 1;
  }
  y[0] = y[1] = y[2] = 0.0;
  for (int k = 0; k < q->anchor_n; k++)
    for (int a = 0; a < 3; a++) y[a] += q->anchor[k] * x[3 * q->anchor_node[k] + a];
  return 1;
}

/* a thin pair: both sides move; the mass and spring stiffness the contact
 * acts on are the reduced ones, 1 / sum coef_j^2 / m_j (pinned nodes do not
 * move: infinite mass) */
void jl_contact_thin_mass(const ContactElem *ce, const JlModel *m, const Contact *ct, double *mp, double *kp) {
  double im = 0.0, ik = 0.0;
  for (int j = 0; j < ct->n; j++) {
    int nj = ct->node[j];
    double c2 = ct->coef[j] * ct->coef[j];
    if (m->pinned[nj]) continue;
    if (m->mass[nj] > 0.0) im += c2 / m->mass[nj];
    if (ce->knode[nj] > 0.0) ik += c2 / ce->knode[nj];
  }
  *mp = im > 0.0 ? 1.0 / im : 0.0;
  *kp = ik > 0.0 ? 1.0 / ik : 0.0;
}

/* the depth a new contact of stiffness k on a node of mass mp, approaching
 * at vn (m/s, < 0 approaching) along its direction, keeps without slack:
 * what its approach explains within the contact's own period or the step */
double jl_contact_explained_depth(double k, double mp, double vn, double h) {
  double approach = vn < 0.0 ? -vn : 0.0, omega = k > 0.0 && mp > 0.0 ? sqrt(k / mp) : 0.0;
  return approach * (omega > 0.0 && 1.0 / omega < h ? 1.0 / omega : h);
}

/* 1 for a cloth or rope node's contact and for a thin pair (tag != 0): these
 * keep the plain friction law (contact_setup) */
int jl_contact_thin_friction(const JlModel *m, const Contact *ct) {
  return ct->tag != 0 || m->body[m->node_body[ct->node[0]]].kind != JL_BODY_VOLUME;
}

/* stiffness, slack, friction anchor and regime of contact ct at (x, v) */
static void contact_setup(ContactElem *ce, const JlModel *m, Contact *ct, const double *x, const double *v, double h) {
  const JlWorldDef *wd = &m->world;
  int p = ct->node[0];
  double mp = m->mass[p], kp = ce->knode[p];
  if (ct->tag != 0) jl_contact_thin_mass(ce, m, ct, &mp, &kp);
  ct->k = wd->contact_stiffness * mp + wd->contact_spring_scale * kp;
  const Memory *q = jl_contact_mem_find(ce, p, ct->other, ct->tag, ct->key2);
  if (ct->tag != 0) {
    /* A thin pair (a rope's end whipping into another at 9 m/s, cloth hit
     * by a fast body) must stop its approach within JL_THIN_GIVE, or the
     * two sides pass through each other: the penalty stores the approach's
     * kinetic energy, 1/2 m v^2 <= 1/2 k JL_THIN_GIVE^2. A new pair gets
     * that stiffness when its approach needs more than the usual one, and
     * keeps it while it lasts (a stiffness that changed while compressed
     * would create or destroy energy). */
    if (q && q->k > ct->k) ct->k = q->k;
    if (!q) {
      double zd0[3];
      contact_z(ct, v, zd0);
      double an = -jl_vec3_dot(ct->r, zd0), kneed = an > 0.0 ? mp * (an / JL_THIN_GIVE) * (an / JL_THIN_GIVE) : 0.0;
      if (kneed > ct->k) ct->k = kneed;
    }
  } else if (ct->other >= m->nbody) {
    /* A node hitting a static obstacle must stop within a fraction of the
     * obstacle's width along the contact's direction (a 5 mm plate hit at
     * 30 m/s, a thin post), or the penalty lets it through to the far side:
     * the same energy bound as a thin pair's, 1/2 m v^2 <= 1/2 k give^2,
     * with give = JL_OBSTACLE_GIVE x the width and m the node's share of
     * its body's mass (the body behind the node pushes it on: a ball landing
     * on a post stops on the few nodes that meet it). Raised for a new
     * contact (gap still open or just closed) and kept while it lasts. */
    if (q && q->k > ct->k) ct->k = q->k;
    if (!q) {
      const double *vp = v + 3 * p;
      double an = -jl_vec3_dot(ct->r, vp);
      double give = JL_OBSTACLE_GIVE * jl_obstacle_width(&m->obstacle[ct->other - m->nbody], ct->r);
      if (an > 0.0 && give > 0.0 && isfinite(give)) {
        double me = ct->mshare > mp ? ct->mshare : mp, kneed = me * (an / give) * (an / give);
        /* an explicit step is stable up to omega h = 2 (docs/integrators.md): stay at omega h <= 1 */
        if (!ce->implicit && kneed > mp / (h * h)) kneed = mp / (h * h);
        if (kneed > ct->k) ct->k = kneed;
      }
    }
  }
  ct->c = wd->contact_damping * mp;
  if (ct->continued) {
    /* the carried gap at x: its depth now, measured from z0 = z(x) like every contact */
    double z[3];
    contact_z(ct, x, z);
    ct->d0 -= ct->r[0] * (z[0] - ct->z0[0]) + ct->r[1] * (z[1] - ct->z0[1]) + ct->r[2] * (z[2] - ct->z0[2]);
  }
  contact_z(ct, x, ct->z0);
  double zd[3];
  contact_z(ct, v, zd);
  const double *r = ct->r;
  double vn = jl_vec3_dot(r, zd);
  double vt[3] = {zd[0] - vn * r[0], zd[1] - vn * r[1], zd[2] - vn * r[2]};
  ct->st0 = sqrt(jl_vec3_dot(vt, vt));
  /* slack: a known contact keeps (and works off) its slack */
  double d0 = ct->d0 > 0.0 ? ct->d0 : 0.0;
  if (q) {
    /* depth the motion does not explain (the estimate jumped: another border
     * edge, a new patch normal) joins the slack; the slack shrinks by
     * push_out h per step, and with the depth when the bodies separate
     * faster: then g - s = 0 and the contact stops pushing, so they separate
     * at push_out_speed at most */
    double zq[3] = {0, 0, 0};
    for (int j = 0; j < q->n; j++)
      for (int a = 0; a < 3; a++) zq[a] += q->coef[j] * x[3 * q->nodes[j] + a];
    double pred = q->d0 - (q->r[0] * (zq[0] - q->z0[0]) + q->r[1] * (zq[1] - q->z0[1]) + q->r[2] * (zq[2] - q->z0[2]));
    double jump = d0 - (pred > 0.0 ? pred : 0.0);
    double s = q->slack + (jump > 0.0 ? jump : 0.0) - jl_push_out_step(wd->contact_push_out, vn, h);
    ct->slack = s < d0 ? s : d0;
    ct->pushing = q->slack > wd->contact_push_out * h && ct->slack > 0.0;
  } else {
    /* a new contact keeps the depth its approach speed explains, at most the
     * depth whose penalty energy equals the node's kinetic energy of
     * approach; the rest is slack */
    double allow = jl_contact_explained_depth(ct->k, mp, vn, h);
    ct->slack = d0 > allow ? d0 - allow : 0.0;
  }
  if (ct->slack < 0.0) ct->slack = 0.0;
  ct->gpred = ct->d0 - ct->slack - h * vn;
  /* a contact pushing out of its slack is damped critically, so the bodies
   * leave at the push-out speed without overshooting it */
  if (ct->slack > 0.0 && mp > 0.0) {
    double crit = 2.0 * sqrt(ct->k * mp);
    if (crit > ct->c) ct->c = crit;
  }
  /* friction anchor: the stored material point, dragged onto the Coulomb cone */
  double g0 = ct->d0 - ct->slack;
  memset(ct->delta, 0, sizeof ct->delta);
  ct->friction = FRICTION_NONE;
  if (!(g0 > 0.0) || !(ce->mu > 0.0)) return;
  double y[3];
  if (anchor_point(m, q, x, y)) {
    double xa[3], d[3];
    side_a(ct, x, xa);
    for (int a = 0; a < 3; a++) d[a] = y[a] - xa[a];
    double dn = jl_vec3_dot(r, d);
    for (int a = 0; a < 3; a++) ct->delta[a] = d[a] - dn * r[a];
    double len = sqrt(jl_vec3_dot(ct->delta, ct->delta)), lim = ce->mu * g0;
    if (len > lim) {
      double s = lim / len;
      for (int a = 0; a < 3; a++) ct->delta[a] *= s;
    }
  }
  /* sticking if the anchor can hold the node over the step, or if the node
   * crawls (src/penalty.h, JL_SLIDE_MIN): it then sticks to the anchor its
   * slide dragged along (remember), which holds it with the kinetic friction */
  double need[3];
  for (int a = 0; a < 3; a++) need[a] = ct->k * (ct->delta[a] - h * vt[a]) - ct->c * vt[a];
  /* Cloth and rope nodes (and their pairs, tag != 0) keep the plain law:
   * they slide at any speed, lagged on the start speed, and leave no anchor
   * when they slide. (With the crawl rule a rope hung over a box crossed
   * itself at 1/30 s in test_thin rope_ends, and two ropes came within
   * 5.2 mm of their 10 mm contact distance in test_thin_contact; not
   * understood yet.) */
  int thin = jl_contact_thin_friction(m, ct);
  double nm = sqrt(jl_vec3_dot(need, need)), crawl = thin ? 0.0 : JL_SLIDE_MIN * ce->mu * g0 / h;
  int slide = nm > ce->mu * ct->k * g0 && ct->st0 > crawl;
  ct->friction = slide ? FRICTION_SLIDE : FRICTION_STICK;
  if (slide) {
    ct->sv = thin ? ct->st0 : jl_slide_lag_speed(ct->st0, q ? q->st : -1.0, crawl);
    for (int a = 0; a < 3; a++) ct->hold[a] = need[a] / nm;
  }
  double im = 0.0; /* 1 / reduced mass of the relative motion z */
  for (int j = 0; j < ct->n; j++)
    if (!m->pinned[ct->node[j]] && m->mass[ct->node[j]] > 0.0) im += ct->coef[j] * ct->coef[j] / m->mass[ct->node[j]];
  ct->eta_top = im > 0.0 && h > 0.0 ? 0.5 / (im * h) : INFINITY;
}

/* weights w on the n = 2 (segment) or 3 (triangle) nodes of the point of
 * their line or plane nearest y (not clamped to the segment or triangle), so
 * sum w_k x_k follows the other side's material; 0 when degenerate */
static int material_weights(const double *x, int n, const int *nodes, const double y[3], double *w) {
  const double *a = x + 3 * nodes[0], *b = x + 3 * nodes[1];
  double e1[3], d[3];
  jl_vec3_sub(b, a, e1);
  jl_vec3_sub(y, a, d);
  if (n == 2) {
    double ll = jl_vec3_dot(e1, e1);
    if (!(ll > 0.0)) return 0;
    double t = jl_vec3_dot(d, e1) / ll;
    w[0] = 1.0 - t, w[1] = t;
    return 1;
  }
  if (n != 3) return 0;
  double e2[3];
  jl_vec3_sub(x + 3 * nodes[2], a, e2);
  double d11 = jl_vec3_dot(e1, e1), d12 = jl_vec3_dot(e1, e2), d22 = jl_vec3_dot(e2, e2);
  double den = d11 * d22 - d12 * d12;
  if (!(den > 1e-12 * d11 * d22)) return 0;
  double r1 = jl_vec3_dot(d, e1), r2 = jl_vec3_dot(d, e2);
  double u = (d22 * r1 - d12 * r2) / den, v = (d11 * r2 - d12 * r1) / den;
  w[0] = 1.0 - u - v, w[1] = u, w[2] = v;
  return 1;
}

/* the memory this step leaves: slack and anchor of each contact */
static void remember(ContactElem *ce, const JlModel *m, const double *x, const double *v) {
  if (ce->ncontact > ce->memcap) {
    ce->memcap = 2 * ce->ncontact;
    free(ce->mem);
    ce->mem = jl_calloc((size_t)ce->memcap, sizeof(Memory));
  }
  ce->nmem = ce->ncontact;
  for (int i = 0; i < ce->ncontact; i++) {
    const Contact *ct = &ce->contact[i];
    Memory *q = &ce->mem[i];
    memset(q, 0, sizeof *q);
    q->node = ct->node[0];
    q->other = ct->other;
    q->tag = ct->tag;
    q->key2 = ct->key2;
    q->slack = ct->slack;
    q->feature = ct->feature;
    q->anchor_tet = ct->tet;
    q->n = ct->n;
    q->na = ct->na;
    memcpy(q->nodes, ct->node, sizeof q->nodes);
    memcpy(q->coef, ct->coef, sizeof q->coef);
    memcpy(q->r, ct->r, sizeof q->r);
    memcpy(q->z0, ct->z0, sizeof q->z0);
    q->d0 = ct->d0;
    q->k = ct->k;
    q->st = ct->st0;
    /* edge-edge pairs re-anchor every step: neither side is one point */
    if (ct->friction == FRICTION_NONE || (ct->tag & 3) == JL_THIN_EDGE_EDGE) continue;
    /* cloth and rope: no dragged anchor (contact_setup) */
    if (ct->friction == FRICTION_SLIDE && jl_contact_thin_friction(m, ct)) continue;
    double xp[3], off[3];
    side_a(ct, x, xp);
    memcpy(off, ct->delta, sizeof off);
    if (ct->friction == FRICTION_SLIDE) {
      /* Sliding, the anchor is dragged along: it is left where the node ends
       * the step if it keeps its velocity, the cone's radius mu g0 away along
       * the force sticking would need. When the slide stops, that anchor
       * holds the node with the kinetic friction force. Without it a node
       * that stopped got a fresh anchor, held nothing until its spring
       * stretched, slid again the step after, and so on: a block on an
       * incline near its friction angle crept by about mu g0 per step
       * (3.2 mm/s at dt 0.002 with tan(theta) = 0.9 mu). */
      double zd[3];
      contact_z(ct, v, zd);
      double vn = jl_vec3_dot(ct->r, zd), lim = ce->mu * (ct->d0 - ct->slack);
      for (int a = 0; a < 3; a++) off[a] = ce->h_step * (zd[a] - vn * ct->r[a]) + lim * ct->hold[a];
    }
    double y[3] = {xp[0] + off[0], xp[1] + off[1], xp[2] + off[2]};
    if (ct->other >= m->nbody) { /* an obstacle: a fixed point */
      memcpy(q->anchor, y, sizeof y);
      q->anchored = 1;
    } else if (ct->tet >= 0) { /* Q's tet */
      double w[4];
      jl_point_in_tet(x, m->tet + 4 * ct->tet, y, w);
      q->anchored = (w[0] + w[1] + w[2] + w[3]) > 0.5; /* 0 for a flat tet */
      q->anchor_n = 4;
      memcpy(q->anchor_node, m->tet + 4 * ct->tet, 4 * sizeof(int));
      memcpy(q->anchor, w, sizeof w);
    } else { /* Q's face (speculative, point-triangle) or a rope segment (point-segment) */
      q->anchor_n = ct->n - ct->na;
      memcpy(q->anchor_node, ct->node + ct->na, (size_t)q->anchor_n * sizeof(int));
      q->anchored = material_weights(x, q->anchor_n, q->anchor_node, y, q->anchor);
    }
  }
  if (ce->nmem > 1) qsort(ce->mem, (size_t)ce->nmem, sizeof(Memory), jl_contact_mem_cmp);
}

/* Speculative contacts between bodies (collision/proximity.h): a node whose
 * path over the step would meet another body's face, and that is not already
 * inside that body, gets a contact with the face's plane at a negative depth
 * (the gap). z = x_p - sum_k w_k x_k over the face's nodes, so g = -n.z: the
 * node's distance from the plane through the face points, which the implicit
 * solve switches on only if it closes (JlForce.refine). */
static void speculative_contacts(ContactElem *ce, const JlModel *m, const double *x, const double *v, double h) {
  const JlProximity *pr;
  int np = jl_proximity_find(ce->prox, jl_model_geom(m), x, v, h, &pr), nb = ce->ncontact;
  if (np == 0) return;
  index_contacts(ce, nb);
  for (int k = 0; k < np; k++)
    if (lookup(ce, pr[k].node, pr[k].body) < 0) /* inside already: its depth contact acts */
      push_contact(ce, pr[k].node, 3, m->face + 3 * pr[k].face, pr[k].w, pr[k].body, pr[k].n,
                   m->body[m->node_body[pr[k].node]].radius - pr[k].dist);
  unindex_contacts(ce, nb);
}

/* Proximity pairs of cloth and ropes (collision/thin.h): each pushes its two
 * closest points apart along n while they are nearer than the pair's contact
 * distance (d0 = radius - dist; < 0: speculative). */
static void thin_contacts(ContactElem *ce, const JlModel *m, const double *x, const double *v, double h) {
  const JlThinPair *tp;
  int np = jl_thin_find(ce->thin, jl_model_geom(m), x, v, h, &tp);
  for (int k = 0; k < np; k++) {
    const JlThinPair *pr = &tp[k];
    double w[JL_CONTACT_NODES];
    int nodes[JL_CONTACT_NODES];
    for (int j = 1; j < pr->n; j++) nodes[j - 1] = pr->node[j], w[j - 1] = -pr->coef[j];
    Contact *ct = push_contact(ce, pr->node[0], pr->n - 1, nodes, w, pr->body_b, pr->dir, pr->radius - pr->dist);
    ct->coef[0] = pr->coef[0];
    ct->na = pr->na;
    /* (node[0], other, tag) names the pair from step to step: kind in the low two bits */
    ct->tag = (int)pr->kind + 4 * pr->key;
    ct->key2 = pr->key2;
    ct->reach = pr->radius;
  }
}

/* A node that kept a contact with obstacle ob from the last step (q) and
 * is now past the obstacle's middle, or through it and out of its far side,
 * is measured against the support plane of the contact's direction, the
 * obstacle's face on the side the node came in through: a sphere's or a
 * capsule's tangent plane there, a hull's face, a box's entry face. The
 * nearest surface would push it on through (a fast body landing on a post
 * or a thin plate). Beyond the far side only within the obstacle's shadow:
 * the straight line from the node back along the direction must meet the
 * obstacle. Returns 1 and fills *hit (dist < 0) when the node is behind
 * that plane in this sense. */
static int entry_side(const JlObstacle *ob, const double *xi, const Memory *q, JlObstacleHit *hit) {
  if (ob->type == JL_OBSTACLE_PLANE) return 0; /* a half-space has no far side */
  double hsup = jl_obstacle_support(ob, q->r), dist = jl_vec3_dot(q->r, xi) - hsup;
  if (!(dist < 0.0) || !isfinite(dist)) return 0;
  double back[3], t;
  JlObstacleHit through;
  for (int a = 0; a < 3; a++) back[a] = xi[a] - 1.001 * dist * q->r[a];
  if (!jl_obstacle_query(ob, xi, 0.0, -1, &through) && !jl_obstacle_sweep(ob, xi, back, &t, &through)) return 0;
  hit->dist = dist;
  memcpy(hit->n, q->r, sizeof hit->n);
  for (int a = 0; a < 3; a++) hit->point[a] = xi[a] - dist * q->r[a];
  hit->feature = q->feature; /* a box's entry face; -1 for other shapes, which have no features */
  return 1;
}

/* Contacts of every node with obstacle o. A node inside is measured against
 * the feature it came in through (for a box: the face its path over the last
 * step crossed, kept while the contact lasts), not the nearest one, so a node
 * that entered through the top near a side face is pushed back up. A node
 * outside whose path over the step (its velocity and gravity) would reach the
 * obstacle gets a speculative contact: the plane of the feature it would
 * enter, with a negative gap. It acts only if the implicit solve closes that
 * gap (JlForce.refine), so fast nodes are caught at the surface instead of
 * being found deep inside, or beyond a thin obstacle, at the next step. */
static void obstacle_contacts(ContactElem *ce, const JlModel *m, int o, const double *x, const double *v, double h) {
  const JlObstacle *ob = &m->obstacle[o];
  const double *gr = m->world.gravity;
  double lo[3], hi[3], gh2 = h * h * sqrt(jl_vec3_dot(gr, gr));
  jl_obstacle_aabb(ob, lo, hi);
  int first = ce->ncontact;
  for (int i = 0; i < m->nnode; i++) {
    if (m->pinned[i]) continue; /* held in place: neither side can move, no force and no energy */
    const double *xi = x + 3 * i, *vi = v + 3 * i;
    /* a cloth or rope node keeps its half-thickness from the obstacle */
    double rad = m->body[m->node_body[i]].radius;
    double reach = h * sqrt(jl_vec3_dot(vi, vi)) + gh2 + rad + 1e-9;
    if (xi[0] < lo[0] - reach || xi[1] < lo[1] - reach || xi[2] < lo[2] - reach || xi[0] > hi[0] + reach ||
        xi[1] > hi[1] + reach || xi[2] > hi[2] + reach)
      continue;
    const Memory *q = jl_contact_mem_find(ce, i, m->nbody + o, 0, 0);
    JlObstacleHit hit;
    int hint = q ? q->feature : -1, found = 0;
    if (jl_obstacle_query(ob, xi, rad, hint, &hit) && !(hit.dist > rad)) {
      if (!q && ob->type == JL_OBSTACLE_BOX) {
        /* new and already inside: the face its last step came in through */
        double back[3] = {xi[0] - h * vi[0], xi[1] - h * vi[1], xi[2] - h * vi[2]}, t;
        JlObstacleHit entry;
        if (jl_obstacle_sweep(ob, back, xi, &t, &entry)) jl_obstacle_query(ob, xi, rad, entry.feature, &hit);
      }
      found = 1;
      /* past the middle: the nearest surface is now the far one */
      if (q && jl_vec3_dot(hit.n, q->r) < 0.0) entry_side(ob, xi, q, &hit);
    } else if (q && entry_side(ob, xi, q, &hit)) {
      found = 1; /* through and out of the far side within the obstacle's shadow */
    } else {
      /* outside: where the path over this step (lengthened by the node's
       * radius) would enter, if it does */
      double ahead[3], t, path[3], len;
      for (int a = 0; a < 3; a++) path[a] = h * vi[a] + h * h * gr[a];
      len = sqrt(jl_vec3_dot(path, path));
      for (int a = 0; a < 3; a++) ahead[a] = xi[a] + path[a] * (len > 0.0 ? 1.0 + rad / len : 1.0);
      found = jl_obstacle_sweep(ob, xi, ahead, &t, &hit);
      /* a slow node resting just above the surface: the closest feature (a
       * moving node's own path decides: the plane of an edge or corner it
       * passes by would push it although it misses the obstacle) */
      if (!found && h * sqrt(jl_vec3_dot(vi, vi)) <= 2.0 * gh2 + 1e-9)
        found = jl_obstacle_query(ob, xi, reach, -1, &hit) && hit.dist > 0.0 && hit.dist < reach;
    }
    if (!found) continue;
    /* d0 > 0 inside (depth), < 0 speculative (gap) */
    Contact *ct = push_contact(ce, i, 0, NULL, NULL, m->nbody + o, hit.n, rad - hit.dist);
    ct->feature = ob->type == JL_OBSTACLE_BOX ? hit.feature : -1;
  }
  /* each contact's share of its body's mass (contact_setup's stiffness for fast hits) */
  if (!ce->bcount) ce->bcount = jl_calloc((size_t)m->nbody, sizeof(int));
  memset(ce->bcount, 0, (size_t)m->nbody * sizeof(int));
  for (int q = first; q < ce->ncontact; q++) ce->bcount[m->node_body[ce->contact[q].node[0]]]++;
  for (int q = first; q < ce->ncontact; q++) {
    int b = m->node_body[ce->contact[q].node[0]];
    ce->contact[q].mshare = m->body[b].mass / ce->bcount[b];
  }
}

void jl_contact_begin(JlForce *e, const JlModel *m, const double *x, const double *v, double h) {
  ContactElem *ce = e->self;
  ce->ncontact = 0;
  ce->use_set = 0;
  ce->x_step = x, ce->v_step = v, ce->h_step = h;
  ce->implicit = e->implicit;
  /* soft body against soft body */
  if (ce->col) {
    int n;
    jl_collision_detect(ce->col, jl_model_geom(m), x);
    const JlContactPoint *cp = jl_collision_contacts(ce->col, &n);
    for (int i = 0; i < n; i++) {
      Contact *ct =
          push_contact(ce, cp[i].node, 4, m->tet + 4 * cp[i].tet, cp[i].w, cp[i].body, cp[i].dir, cp[i].depth);
      ct->tet = cp[i].tet;
    }
  }
  ce->nbody_contacts = ce->ncontact;
  patch_normals(ce, m);
  thin_history(ce, m);
  if (ce->prox) speculative_contacts(ce, m, x, v, h);
  if (ce->thin) thin_contacts(ce, m, x, v, h);
  /* soft body against static obstacles */
  for (int o = 0; o < m->nobstacle; o++) obstacle_contacts(ce, m, o, x, v, h);
  for (int q = 0; q < ce->ncontact; q++) contact_setup(ce, m, &ce->contact[q], x, v, h);
  remember(ce, m, x, v);
}
