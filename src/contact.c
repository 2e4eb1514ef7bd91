/* Contact penalty force element (src/contact.h).
 *
 * begin_step detects contacts on the state at the start of the step: body
 * against body through collision/depth.c (spatial hash, exact point-in-tet,
 * consistent penetration depth of Heidelberger et al. 2004 with breadth-first
 * propagation), node against obstacle through collision/obstacle.c. Each
 * contact then acts through the linear gap
 *     g(x) = d0 - s - r.(z - z0),   z = x_p - sum_k w_k x_k   (z = x_p for obstacles)
 * for the rest of the step, so the force is linear in x within the step and
 * its Jacobian is exact; implicit Euler and every explicit stage see the same
 * contact set.
 *
 * What is carried from step to step (docs/collision.md), keyed by (node, body
 * or obstacle):
 *   - the friction anchor: the material point of the other side (a point of
 *     Q's tet, or a fixed point for an obstacle) that the node sticks to. It
 *     moves only when the node slips (Coulomb cone |F_t| <= mu F_n), so a
 *     resting body does not creep when its contacts settle up and down;
 *   - the push-out slack s: a contact first seen already deep (bodies that
 *     start overlapping, a hit found only after the step that made it) would
 *     store 1/2 k d^2 of penalty energy that nothing paid for. Its depth at
 *     detection becomes slack, and so does any later jump of the depth
 *     estimate that the motion does not explain; the slack shrinks by
 *     push_out_speed x h per step, so such bodies separate at most at that
 *     speed (Box2D v3 caps its soft contacts' push-out velocity the same
 *     way, contactPushMaxVelocity).
 *
 * One normal per contact patch: the nodes of P inside Q and the nodes of Q
 * inside P get directions from different surfaces (a box node inside a ball
 * radially, a ball node inside the box straight up); with few nodes on one
 * side their tangential parts do not cancel and push bodies sideways. Contacts
 * between the same two bodies that touch (adjacent nodes, or a node in a tet
 * of the other's node) form a patch, and all of a patch's contacts push along
 * the patch's mean direction (depth x mass weighted), with their depths
 * projected on it. Tangential force then comes only from friction.
 *
 * Force on p while the contact is on (r unit, k = stiffness m_p + spring_scale
 * x the summed stiffness of p's springs, c = damping m_p):
 *     normal    F_n = (k g - c r.z') r
 *     friction  sticking: F_t = k (delta - P (z - z0)) - c P z'  (P = I - r r^T,
 *               delta the anchor's tangential offset at the step's start),
 *               capped at mu k g;
 *               sliding:  F_t = -mu k g P z' / sv  (lagged-viscosity Coulomb:
 *               sv is the speed |P z'_0| at the step's start extrapolated to
 *               its end, src/penalty.h jl_slide_lag_speed, so the force is
 *               about mu k g at the end velocity and linear in z'; implicit
 *               Euler can slow the sliding down but never reverse it).
 * The regime is chosen at begin_step: sliding when the sticking force the
 * anchor and the tangential velocity would need at the end of the step
 * exceeds mu k g0 and the node moves more than JL_SLIDE_MIN of its cone per
 * step (src/penalty.h). A sliding contact drags its anchor along (remember).
 * The force on Q's tet nodes is -w_k times the force on p, so linear
 * momentum is balanced exactly.
 *
 * On/off: explicit steppers apply a contact while g > 0. The implicit stepper
 * holds the set of contacts that are on fixed for each linear solve and
 * corrects it from the end-of-step state (refine), so a contact whose gap
 * closes during the step acts in that step.
 *
 * Jacobian: every contact force is coef_i Phi(z, z') with coef = (1, -w_0,
 * .., -w_3), so d F_i / d x_j = coef_i coef_j dPhi/dz, one 3x3 block per
 * contact: dPhi/dz = -k r r^T - k P (sticking), dPhi/dz' = -c r r^T - c P
 * (sticking) or -c r r^T - (mu k g / |P z'_0|) P (sliding). All are
 * symmetric negative semidefinite, so M - h dF/dv - h^2 dF/dx stays SPD. The
 * sliding term d F_t / d z = mu k (P z' / |P z'_0|) r^T is unsymmetric and
 * only included with JL_LIN_EXACT (as the ground element does); the cap of
 * the sticking force is not differentiated. */
#include "src/contact.h"
#include "src/penalty.h"
#include "src/loads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "collision/narrow.h"
#include "collision/proximity.h"
#include "collision/thin.h"
#include "mesh/vec3.h"

enum { FRICTION_NONE, FRICTION_STICK, FRICTION_SLIDE };

#define JL_OBSTACLE_GIVE 0.25 /* a new obstacle contact stops its node within this fraction of the obstacle's width */
#define JL_MISS_TOL 1e-4 /* m: a node found this much deeper in an obstacle than its approach explains was missed */
#define JL_CONTACT_NODES 7 /* a volume's embedded surface vertex (4 tet nodes) against a cloth triangle */

typedef struct Contact {
  int n;          /* nodes: 1 (obstacle), 5 (node + Q's tet), 4 (node + Q's face); thin pairs up to 7 */
  int na;         /* of them, the penetrating side's (node[0..na)): 1, or a thin pair's point or edge */
  int node[JL_CONTACT_NODES];
  double coef[JL_CONTACT_NODES]; /* 1, -w_0 .. -w_3 (thin pairs: collision/thin.h) */
  int other;      /* body index Q, or nbody + obstacle index */
  int tet;        /* Q's tet (global id); -1 for obstacles */
  int feature;    /* obstacle feature the node is measured against (box face it came in through); -1 */
  int tag;        /* 0: node[0] against a body or obstacle; thin pairs (collision/thin.h): kind + key */
  int key2;       /* thin pairs: JlThinPair.key2 (with node[0], other and tag, names the pair); else 0 */
  double reach;   /* m, thin pairs: the contact distance (JlThinPair.radius); else 0 */
  int continued;  /* 1: z0 and d0 carried over from the last step's contact (thin_history): z0 is not z(x) */
  int pushing;    /* 1: works off slack it already had at the last step (an overlap being pushed apart) */
  double r[3];    /* unit normal: force direction on node[0] */
  double d0;      /* m, depth at detection */
  double slack;   /* m, push-out slack: the penalty acts on g - slack */
  double z0[3];   /* z at detection */
  double delta[3];/* m, tangential offset from the node to its friction anchor at the step's start */
  double k, c;    /* N/m, N s/m */
  int friction;   /* FRICTION_NONE / STICK / SLIDE for this step */
  double st0;     /* m/s, tangential speed |P z'| at the step's start (> 0 when sliding) */
  double sv;      /* m/s, the speed sliding friction is lagged on (src/penalty.h jl_slide_lag_speed) */
  double hold[3]; /* sliding: unit direction of the force sticking would have needed */
  double eta_top; /* N s/m: outside implicit solves (explicit steppers) the sliding viscosity
                     mu k g / st0 is held below m_reduced / (2h), so no explicit stage overshoots on it */
  int active;     /* on in the current linear solve (implicit) or g > 0 at the last linearize */
  double gpred;   /* m, g at the end of the step if z kept its velocity: the implicit solve's first guess */
  double D[9];    /* a dPhi/dz + b dPhi/dz' at the last linearize */
  double mshare;  /* kg, obstacle contacts: the body's mass over its contacts with that obstacle in this step */
} Contact;

/* what a contact leaves for the next step */
typedef struct Memory {
  int node, other, tag, key2;
  int feature;        /* obstacle: the box face the node came in through; -1 */
  double slack;       /* m */
  /* the contact's linear gap, to predict its depth at the next step's start */
  int n, na, nodes[JL_CONTACT_NODES];
  double coef[JL_CONTACT_NODES], r[3], z0[3], d0;
  double k;           /* N/m: the stiffness the contact had (thin pairs keep it while they last) */
  double st;          /* m/s: its tangential speed |P z'| at that step's start */
  int anchored;       /* 1: anchor holds the friction anchor */
  int anchor_tet;     /* body contacts: Q's tet (-1: a face, a segment, an obstacle) */
  int anchor_n;       /* body contacts: the anchor is sum_k anchor[k] x(anchor_node[k]), k < anchor_n */
  int anchor_node[4]; /* Q's tet, face or segment nodes */
  double anchor[4];   /* body: weights on anchor_node (barycentric, may lie outside); obstacle: world point */
} Memory;

typedef struct ContactElem {
  JlCollision *col; /* NULL when there is nothing to collide body against body */
  JlProximityFinder *prox; /* speculative body-body contacts; NULL with fewer than two bodies */
  JlThinFinder *thin; /* cloth and rope proximity pairs; NULL without cloth or ropes */
  int ncontact, cap;
  Contact *contact;
  int nbody_contacts; /* of ncontact, from body-body detection */
  double mu;
  int use_set;        /* 1: implicit solve with a fixed on/off set (refine) */
  const double *x_step, *v_step; /* the state begin_step read (refine re-linearizes edge-edge pairs on it) */
  double h_step;
  int implicit;       /* JlForce.implicit of this step: explicit steps keep raised stiffnesses below m / h^2 */
  double *vpath;      /* nnode x 3, scratch of contact_crossed: the step's mean velocities */
  int nmem, memcap;
  Memory *mem;        /* previous step's contacts, sorted by (node, other) */
  double *knode;      /* nnode: summed stiffness of each node's springs, N/m */
  int *bcount;        /* nbody, scratch of obstacle_contacts: contacts per body */
  unsigned *seen;     /* nnode + 1, scratch of obstacle_missed: the node has a contact with the obstacle when = seen_stamp */
  unsigned seen_stamp;
  /* patch scratch */
  int *first, *next, *parent;
  double *patch;      /* 3 per contact */
  int scratch_cap;
  JlContactPoint *load_cp; /* load_cap: the detection's points while history_load decodes them */
  int load_cap;
} ContactElem;

int jl_contact_needed(const JlModel *m) {
  if (m->nbody > 1 || m->nobstacle > 0) return 1;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].self_collision) return 1;
  return 0;
}

/* z = sum coef_j x_j over the contact's nodes */
static void contact_z(const Contact *ct, const double *x, double z[3]) {
  z[0] = z[1] = z[2] = 0.0;
  for (int j = 0; j < ct->n; j++) {
    const double *xj = x + 3 * ct->node[j];
    z[0] += ct->coef[j] * xj[0];
    z[1] += ct->coef[j] * xj[1];
    z[2] += ct->coef[j] * xj[2];
  }
}

/* the penetrating side's point, sum of coef_j x_j over node[0..na) */
static void side_a(const Contact *ct, const double *x, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (int j = 0; j < ct->na; j++)
    for (int a = 0; a < 3; a++) out[a] += ct->coef[j] * x[3 * ct->node[j] + a];
}

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

static int mem_cmp(const void *a, const void *b) {
  const Memory *p = a, *q = b;
  return key_cmp((const int[4]){p->node, p->other, p->tag, p->key2}, (const int[4]){q->node, q->other, q->tag, q->key2});
}

/* the memory of contact (node, other, tag, key2); NULL when new */
static Memory *mem_find(const ContactElem *ce, int node, int other, int tag, int key2) {
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
    const Memory *q = mem_find(ce, ct->node[0], ct->other, 0, 0);
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
static void thin_mass(const ContactElem *ce, const JlModel *m, const Contact *ct, double *mp, double *kp) {
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
static double explained_depth(double k, double mp, double vn, double h) {
  double approach = vn < 0.0 ? -vn : 0.0, omega = k > 0.0 && mp > 0.0 ? sqrt(k / mp) : 0.0;
  return approach * (omega > 0.0 && 1.0 / omega < h ? 1.0 / omega : h);
}

/* 1 for a cloth or rope node's contact and for a thin pair (tag != 0): these
 * keep the plain friction law (contact_setup) */
static int thin_friction(const JlModel *m, const Contact *ct) {
  return ct->tag != 0 || m->body[m->node_body[ct->node[0]]].kind != JL_BODY_VOLUME;
}

/* stiffness, slack, friction anchor and regime of contact ct at (x, v) */
static void contact_setup(ContactElem *ce, const JlModel *m, Contact *ct, const double *x, const double *v,
                          double h) {
  const JlWorldDef *wd = &m->world;
  int p = ct->node[0];
  double mp = m->mass[p], kp = ce->knode[p];
  if (ct->tag != 0) thin_mass(ce, m, ct, &mp, &kp);
  ct->k = wd->contact_stiffness * mp + wd->contact_spring_scale * kp;
  const Memory *q = mem_find(ce, p, ct->other, ct->tag, ct->key2);
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
    double allow = explained_depth(ct->k, mp, vn, h);
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
  int thin = thin_friction(m, ct);
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
    if (ct->friction == FRICTION_SLIDE && thin_friction(m, ct)) continue;
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
  if (ce->nmem > 1) qsort(ce->mem, (size_t)ce->nmem, sizeof(Memory), mem_cmp);
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
    const Memory *q = mem_find(ce, i, m->nbody + o, 0, 0);
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

static void contact_begin(JlForce *e, const JlModel *m, const double *x, const double *v, double h) {
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
      Contact *ct = push_contact(ce, cp[i].node, 4, m->tet + 4 * cp[i].tet, cp[i].w, cp[i].body, cp[i].dir,
                                 cp[i].depth);
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

/* 1 while a contact works off the slack of an earlier step (an overlap
 * being pushed apart); slack found in this step's detection does not count:
 * that is a missed step, which the energy guard may split */
static int contact_pushing(const JlForce *e) {
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++)
    if (ce->contact[q].pushing) return 1;
  return 0;
}

/* ---------------------------------------------------------------- force */

/* Phi: force on the penetrating node at (z, z'); returns g. *spring (may be
 * NULL) = the elastic energy of the friction anchor spring. on: apply the
 * normal force whatever the sign of g (implicit solve with a fixed set). */
static double contact_phi(const Contact *ct, double mu, int use_set, int on, const double *z, const double *zd,
                          double phi[3], double *spring) {
  const double *r = ct->r;
  double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
  double g = ct->d0 - ct->slack - jl_vec3_dot(r, dz);
  phi[0] = phi[1] = phi[2] = 0.0;
  if (spring) *spring = 0.0;
  if (!on) return g;
  /* normal penalty and damping */
  double vn = jl_vec3_dot(r, zd), fn = ct->k * g - ct->c * vn;
  for (int a = 0; a < 3; a++) phi[a] = fn * r[a];
  if (ct->friction == FRICTION_NONE || !(g > 0.0)) return g;
  /* friction */
  double vt[3] = {zd[0] - vn * r[0], zd[1] - vn * r[1], zd[2] - vn * r[2]};
  double cap = mu * ct->k * g, ft[3];
  if (ct->friction == FRICTION_SLIDE) {
    /* lagged-viscosity Coulomb: -mu k g P z' / sv */
    double s = cap / ct->sv;
    if (!use_set && s > ct->eta_top) s = ct->eta_top;
    for (int a = 0; a < 3; a++) ft[a] = -s * vt[a];
  } else {
    double sn = jl_vec3_dot(r, dz), fs[3];
    for (int a = 0; a < 3; a++) fs[a] = ct->k * (ct->delta[a] - (dz[a] - sn * r[a]));
    double fsm = sqrt(jl_vec3_dot(fs, fs));
    if (fsm > cap) { /* the anchor spring holds at most mu k g; beyond that the node slips */
      for (int a = 0; a < 3; a++) fs[a] *= cap / fsm;
      fsm = cap;
    }
    if (spring) *spring = 0.5 * fsm * fsm / ct->k;
    for (int a = 0; a < 3; a++) ft[a] = fs[a] - ct->c * vt[a];
    double fm = sqrt(jl_vec3_dot(ft, ft));
    if (fm > cap) {
      double s = cap / fm;
      for (int a = 0; a < 3; a++) ft[a] *= s;
    }
  }
  for (int a = 0; a < 3; a++) phi[a] += ft[a];
  return g;
}

static void contact_force(const JlForce *e, const JlModel *m, const double *x, const double *v, double *f,
                          double *energy) {
  (void)m;
  const ContactElem *ce = e->self;
  double en = 0.0;
  /* sequential: contacts share Q's nodes; the order is fixed, so sums are deterministic */
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    double z[3], zd[3], phi[3], spring;
    contact_z(ct, x, z);
    contact_z(ct, v, zd);
    double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
    double g = ct->d0 - ct->slack - jl_vec3_dot(ct->r, dz);
    int on = ce->use_set ? ct->active : g > 0.0;
    if (!on) continue;
    contact_phi(ct, ce->mu, ce->use_set, 1, z, zd, phi, &spring);
    if (g > 0.0) en += 0.5 * ct->k * g * g + spring;
    for (int j = 0; j < ct->n; j++) {
      double *fj = f + 3 * ct->node[j];
      fj[0] += ct->coef[j] * phi[0];
      fj[1] += ct->coef[j] * phi[1];
      fj[2] += ct->coef[j] * phi[2];
    }
  }
  if (energy) *energy += en;
}

static void contact_linearize(JlForce *e, const JlModel *m, const double *x, const double *v, double a, double b,
                              int flags, double *diag) {
  (void)m;
  ContactElem *ce = e->self;
  int exact = (flags & JL_LIN_EXACT) != 0;
  for (int q = 0; q < ce->ncontact; q++) {
    Contact *ct = &ce->contact[q];
    double z[3], zd[3];
    contact_z(ct, x, z);
    contact_z(ct, v, zd);
    const double *r = ct->r;
    double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
    double g = ct->d0 - ct->slack - jl_vec3_dot(r, dz);
    if (!ce->use_set) ct->active = g > 0.0;
    if (!ct->active) continue;
    double *D = ct->D;
    double vn = jl_vec3_dot(r, zd);
    double vt[3] = {zd[0] - vn * r[0], zd[1] - vn * r[1], zd[2] - vn * r[2]};
    int fric = g > 0.0 ? ct->friction : FRICTION_NONE;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double rr = r[i] * r[j], P = (i == j) - rr;
        double dx = -ct->k * rr, dv = -ct->c * rr;
        if (fric == FRICTION_STICK) {
          dx -= ct->k * P;
          dv -= ct->c * P;
        } else if (fric == FRICTION_SLIDE) {
          double s = ce->mu * ct->k * g / ct->sv;
          int held = !ce->use_set && s > ct->eta_top; /* then independent of g */
          dv -= (held ? ct->eta_top : s) * P;
          if (exact && !held) dx += ce->mu * ct->k * (vt[i] / ct->sv) * r[j];
        }
        D[3 * i + j] = a * dx + b * dv;
      }
    if (diag)
      for (int j = 0; j < ct->n; j++) {
        double c2 = ct->coef[j] * ct->coef[j];
        double *dg = diag + 9 * ct->node[j];
        for (int k = 0; k < 9; k++) dg[k] += c2 * D[k];
      }
  }
}

static void contact_multiply(const JlForce *e, const JlModel *m, const double *u, double *out) {
  (void)m;
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    if (!ct->active) continue;
    double zu[3], t[3];
    contact_z(ct, u, zu);
    const double *D = ct->D;
    for (int i = 0; i < 3; i++) t[i] = D[3 * i] * zu[0] + D[3 * i + 1] * zu[1] + D[3 * i + 2] * zu[2];
    for (int j = 0; j < ct->n; j++) {
      double *oj = out + 3 * ct->node[j];
      oj[0] += ct->coef[j] * t[0];
      oj[1] += ct->coef[j] * t[1];
      oj[2] += ct->coef[j] * t[2];
    }
  }
}

/* ---------------------------------------------------------------- edge-edge pairs along the step */

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
  thin_mass(ce, m, ct, &mp, &kp);
  contact_z(ct, v0, zd);
  double an = -jl_vec3_dot(r, zd), k = m->world.contact_stiffness * mp + m->world.contact_spring_scale * kp;
  if (an > 0.0) k = fmax(k, mp * (an / JL_THIN_GIVE) * (an / JL_THIN_GIVE));
  if (k > ct->k) ct->k = k;
  ct->friction = FRICTION_NONE;
  memset(ct->delta, 0, sizeof ct->delta);
  /* what the next step predicts from */
  Memory *q = mem_find(ce, ct->node[0], ct->other, ct->tag, ct->key2);
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
      for (int a = 0; a < 3; a++)
        off |= fmax(xi[a], xs[a]) < lo[a] - rad || fmin(xi[a], xs[a]) > hi[a] + rad;
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
      if (rad - hit.dist > explained_depth(k, mp, vn, h) + JL_MISS_TOL) return 1;
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
static int contact_crossed(const JlForce *e, const JlModel *m, const double *x0, const double *v0,
                           const double *x1) {
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
    const Memory *q = mem_find(ce, pr->node[0], pr->body_b, (int)pr->kind + 4 * pr->key, pr->key2);
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
static int contact_refine(JlForce *e, const JlModel *m, const double *x1, const double *v1) {
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

static void contact_free(void *self) {
  ContactElem *ce = self;
  if (ce) {
    jl_collision_destroy(ce->col);
    jl_proximity_destroy(ce->prox);
    jl_thin_destroy(ce->thin);
    JL_FREE_ALL(ce->seen, ce->bcount, ce->vpath, ce->contact, ce->mem, ce->knode, ce->first, ce->next, ce->parent, ce->patch, ce->load_cp);
  }
  free(ce);
}

/* ---------------------------------------------------------------- history */

/* What carries from one step to the next (JlForce.history_*): the contacts
 * of the last begin_step (the energy between steps is theirs; the energy
 * guard starts from it), their memory (slack, friction anchors) and the body
 * detection's last contacts (collision/depth.c takes unreached points'
 * directions from them). Contact and Memory are stored as they are in
 * memory (both are zeroed before they are filled, so their padding is too):
 * the header holds their sizes, and another build's layout is refused. The
 * detection's points are written field by field (JlContactPoint has padding
 * that nothing clears): 4 ints and 8 doubles each. */
enum { HIST_HEADER = 8, POINT_BYTES = 4 * sizeof(int) + 8 * sizeof(double) };

static void point_put(unsigned char *out, const JlContactPoint *c) {
  int i[4] = {c->node, c->body, c->tet, (int)c->kind};
  double d[8] = {c->w[0], c->w[1], c->w[2], c->w[3], c->depth, c->dir[0], c->dir[1], c->dir[2]};
  memcpy(out, i, sizeof i);
  memcpy(out + sizeof i, d, sizeof d);
}

static void point_get(const unsigned char *in, JlContactPoint *c) {
  int i[4];
  double d[8];
  memcpy(i, in, sizeof i);
  memcpy(d, in + sizeof i, sizeof d);
  memset(c, 0, sizeof *c);
  c->node = i[0], c->body = i[1], c->tet = i[2], c->kind = (JlContactKind)i[3];
  for (int k = 0; k < 4; k++) c->w[k] = d[k];
  c->depth = d[4];
  for (int k = 0; k < 3; k++) c->dir[k] = d[5 + k];
}

static void hist_counts(const ContactElem *ce, int out[HIST_HEADER]) {
  int ncol = 0;
  if (ce->col) jl_collision_contacts(ce->col, &ncol);
  out[0] = (int)sizeof(Contact);
  out[1] = (int)sizeof(Memory);
  out[2] = (int)POINT_BYTES;
  out[3] = ce->ncontact;
  out[4] = ce->nbody_contacts;
  out[5] = ce->use_set;
  out[6] = ce->nmem;
  out[7] = ncol;
}

static size_t contact_history_size(const JlForce *e) {
  int h[HIST_HEADER];
  hist_counts(e->self, h);
  return sizeof h + (size_t)h[3] * sizeof(Contact) + (size_t)h[6] * sizeof(Memory) + (size_t)h[7] * POINT_BYTES;
}

static void contact_history_save(const JlForce *e, unsigned char *out) {
  const ContactElem *ce = e->self;
  int h[HIST_HEADER], ncol = 0;
  hist_counts(ce, h);
  const JlContactPoint *cp = ce->col ? jl_collision_contacts(ce->col, &ncol) : NULL;
  memcpy(out, h, sizeof h);
  out += sizeof h;
  if (h[3]) memcpy(out, ce->contact, (size_t)h[3] * sizeof(Contact));
  out += (size_t)h[3] * sizeof(Contact);
  if (h[6]) memcpy(out, ce->mem, (size_t)h[6] * sizeof(Memory));
  out += (size_t)h[6] * sizeof(Memory);
  for (int i = 0; i < ncol; i++) point_put(out + (size_t)i * POINT_BYTES, &cp[i]);
}

static int node_ok(const JlModel *m, int i) { return i >= 0 && i < m->nnode; }

/* node, other-side and feature indices of a saved contact (hostile files) */
static int contact_ok(const JlModel *m, const Contact *ct) {
  if (ct->n < 1 || ct->n > JL_CONTACT_NODES || ct->na < 1 || ct->na > ct->n) return 0;
  for (int k = 0; k < ct->n; k++)
    if (!node_ok(m, ct->node[k])) return 0;
  return ct->other >= 0 && ct->other < m->nbody + m->nobstacle && ct->tet >= -1 && ct->tet < m->ntet &&
         ct->feature >= -1 && ct->feature < JL_BOX_FACE_COUNT && ct->friction >= FRICTION_NONE &&
         ct->friction <= FRICTION_SLIDE;
}

static int memory_ok(const JlModel *m, const Memory *q) {
  if (!node_ok(m, q->node) || q->n < 1 || q->n > JL_CONTACT_NODES || q->na < 1 || q->na > q->n) return 0;
  for (int k = 0; k < q->n; k++)
    if (!node_ok(m, q->nodes[k])) return 0;
  if (q->anchor_n < 0 || q->anchor_n > 4) return 0;
  for (int k = 0; k < q->anchor_n; k++)
    if (!node_ok(m, q->anchor_node[k])) return 0;
  return q->other >= 0 && q->other < m->nbody + m->nobstacle && q->anchor_tet >= -1 && q->anchor_tet < m->ntet &&
         q->feature >= -1 && q->feature < JL_BOX_FACE_COUNT;
}

static int contact_history_load(JlForce *e, const JlModel *m, const unsigned char *in, size_t n) {
  ContactElem *ce = e->self;
  int h[HIST_HEADER];
  if (n < sizeof h) return 0;
  memcpy(h, in, sizeof h);
  if (h[0] != (int)sizeof(Contact) || h[1] != (int)sizeof(Memory) || h[2] != (int)POINT_BYTES)
    return 0;
  if (h[3] < 0 || h[4] < 0 || h[4] > h[3] || (h[5] != 0 && h[5] != 1) || h[6] < 0 || h[7] < 0) return 0;
  if (h[7] > 0 && !ce->col) return 0;
  /* the sizes first, so counts are never trusted beyond the bytes given */
  size_t body = n - sizeof h;
  if ((size_t)h[3] > body / sizeof(Contact)) return 0;
  body -= (size_t)h[3] * sizeof(Contact);
  if ((size_t)h[6] > body / sizeof(Memory)) return 0;
  body -= (size_t)h[6] * sizeof(Memory);
  if (body != (size_t)h[7] * POINT_BYTES) return 0;
  const unsigned char *pc = in + sizeof h, *pm = pc + (size_t)h[3] * sizeof(Contact),
                      *pp = pm + (size_t)h[6] * sizeof(Memory);
  /* check every index before anything changes */
  for (int i = 0; i < h[3]; i++) {
    Contact ct;
    memcpy(&ct, pc + (size_t)i * sizeof ct, sizeof ct);
    if (!contact_ok(m, &ct)) return 0;
  }
  for (int i = 0; i < h[6]; i++) {
    Memory q;
    memcpy(&q, pm + (size_t)i * sizeof q, sizeof q);
    if (!memory_ok(m, &q)) return 0;
  }
  for (int i = 0; i < h[7]; i++) {
    JlContactPoint c;
    point_get(pp + (size_t)i * POINT_BYTES, &c);
    if (!node_ok(m, c.node) || c.body < 0 || c.body >= m->nbody || c.tet < 0 || c.tet >= m->ntet ||
        c.kind < 0 || c.kind >= JL_CONTACT_KIND_COUNT)
      return 0;
  }
  if (h[3] > ce->cap) {
    ce->cap = h[3];
    ce->contact = jl_realloc(ce->contact, (size_t)ce->cap, sizeof(Contact));
  }
  if (h[6] > ce->memcap) {
    ce->memcap = h[6];
    free(ce->mem);
    ce->mem = jl_calloc((size_t)ce->memcap, sizeof(Memory));
  }
  if (h[3]) memcpy(ce->contact, pc, (size_t)h[3] * sizeof(Contact));
  if (h[6]) memcpy(ce->mem, pm, (size_t)h[6] * sizeof(Memory));
  ce->ncontact = h[3];
  ce->nbody_contacts = h[4];
  ce->use_set = h[5];
  ce->nmem = h[6];
  if (ce->col) {
    if (h[7] > ce->load_cap) { /* grown rarely: undoing a step loads history too */
      ce->load_cap = 2 * h[7];
      ce->load_cp = jl_realloc(ce->load_cp, (size_t)ce->load_cap, sizeof(JlContactPoint));
    }
    for (int i = 0; i < h[7]; i++) point_get(pp + (size_t)i * POINT_BYTES, &ce->load_cp[i]);
    jl_collision_set_contacts(ce->col, ce->load_cp, h[7]);
  }
  return 1;
}

/* the bodies of every contact in the solve's set: two bodies, or a body and an obstacle (the world) */
static void contact_couple(const JlForce *e, const JlModel *m, int *group) {
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    if (!ct->active) continue;
    int a = m->node_body[ct->node[0]];
    for (int j = 1; j < ct->n; j++) jl_uf_union(group, a, m->node_body[ct->node[j]]);
    if (ct->n == 1) jl_uf_union(group, a, ct->other < m->nbody ? ct->other : m->nbody);
  }
}

static const JlForceOps contact_ops = {.name = "contacts", .kind = JL_FORCE_CONTACTS, .force = contact_force,
    .linearize = contact_linearize, .multiply = contact_multiply, .free_self = contact_free,
    .begin_step = contact_begin, .refine = contact_refine, .crossed = contact_crossed, .pushing = contact_pushing, .couple = contact_couple,
    .history_size = contact_history_size, .history_save = contact_history_save,
    .history_load = contact_history_load};

JlForce *jl_contact_create(const JlModel *m) {
  JL_ASSERT(m, "jl_contact_create: model must not be NULL");
  ContactElem *ce = jl_calloc(1, sizeof *ce);
  ce->mu = m->world.contact_friction;
  int self = 0;
  unsigned char *flags = jl_calloc((size_t)m->nbody + 1, 1);
  for (int b = 0; b < m->nbody; b++) {
    flags[b] = (unsigned char)(m->body[b].self_collision != 0);
    self |= flags[b];
  }
  if (m->nbody > 1 || self) {
    JlCollisionDef def = jl_default_collision_def();
    def.cell_size = m->world.contact_cell;
    def.self_collision = flags;
    ce->col = jl_collision_create(jl_model_geom(m), &def);
  }
  if (m->nbody > 1) ce->prox = jl_proximity_create(jl_model_geom(m));
  ce->thin = jl_thin_create(jl_model_geom(m));
  free(flags);
  ce->knode = jl_calloc((size_t)m->nnode + 1, sizeof(double));
  jl_model_node_stiffness(m, ce->knode);
  ce->first = jl_calloc((size_t)m->nnode + 1, sizeof(int));
  for (int i = 0; i < m->nnode; i++) ce->first[i] = -1;
  return jl_force_new(&contact_ops, ce);
}

int jl_contact_count(const JlForce *e) {
  const ContactElem *ce = e->self;
  int n = 0; /* penetrating only: speculative contacts (d0 < 0) are not in anything yet */
  for (int q = 0; q < ce->ncontact; q++) n += ce->contact[q].d0 > 0.0;
  return n;
}

const JlContactPoint *jl_contact_points(const JlForce *e, int *n) {
  const ContactElem *ce = e->self;
  int dummy;
  if (!n) n = &dummy;
  if (!ce->col) {
    *n = 0;
    return NULL;
  }
  return jl_collision_contacts(ce->col, n);
}

const JlCollisionStats *jl_contact_stats(const JlForce *e) {
  static const JlCollisionStats none;
  const ContactElem *ce = e->self;
  return ce->col ? jl_collision_stats(ce->col) : &none;
}

double jl_contact_max_depth(const JlForce *e) {
  const ContactElem *ce = e->self;
  double d = 0.0;
  for (int q = 0; q < ce->ncontact; q++) d = ce->contact[q].d0 > d ? ce->contact[q].d0 : d;
  return d;
}

/* the loads with each contact's gap at detection (at_x = 0) or its linear gap at x (at_x = 1) */
static void contact_loads(const JlForce *e, const JlModel *m, const double *x, int at_x, JlLoadFn add, void *ctx) {
  const ContactElem *ce = e->self;
  for (int q = 0; q < ce->ncontact; q++) {
    const Contact *ct = &ce->contact[q];
    double g0 = ct->d0 - ct->slack;
    if (at_x && ct->tag == 0) {
      double z[3];
      contact_z(ct, x, z);
      double dz[3] = {z[0] - ct->z0[0], z[1] - ct->z0[1], z[2] - ct->z0[2]};
      g0 -= jl_vec3_dot(ct->r, dz);
    }
    if (ct->tag != 0 || !(g0 > 0.0)) continue; /* thin pairs and open gaps carry no load */
    int p = ct->node[0], P = m->node_body[p], Q = ct->other;
    const double *xp = x + 3 * p;
    double f = ct->k * g0;
    if (m->body[P].kind == JL_BODY_VOLUME) add(ctx, P, Q, f, xp, ct->r, ct->k);
    if (Q < m->nbody && m->body[Q].kind == JL_BODY_VOLUME) {
      double rn[3] = {-ct->r[0], -ct->r[1], -ct->r[2]};
      add(ctx, Q, P, f, xp, rn, ct->k);
    }
  }
}

void jl_contact_loads(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx) {
  contact_loads(e, m, x, 0, add, ctx);
}

void jl_contact_loads_at(const JlForce *e, const JlModel *m, const double *x, JlLoadFn add, void *ctx) {
  contact_loads(e, m, x, 1, add, ctx);
}
