/* What the contact element's files share (src/contact.c: the force, the element and its loads;
 * src/contact_setup.c: the contact set at a step's start; src/contact_refine.c: the set within a
 * step; src/contact_history.c: what carries to the next step). Engine-internal. */
#ifndef JL_SRC_CONTACT_INTERNAL_H
#define JL_SRC_CONTACT_INTERNAL_H

#include "collision/proximity.h"
#include "collision/thin.h"
#include "src/contact.h"

enum { FRICTION_NONE, FRICTION_STICK, FRICTION_SLIDE };

#define JL_OBSTACLE_GIVE 0.25 /* a new obstacle contact stops its node within this fraction of the obstacle's width */
#define JL_MISS_TOL      1e-4 /* m: a node found this much deeper in an obstacle than its approach explains was missed */
#define JL_CONTACT_NODES 7    /* a volume's embedded surface vertex (4 tet nodes) against a cloth triangle */

typedef struct Contact {
  int n;  /* nodes: 1 (obstacle), 5 (node + Q's tet), 4 (node + Q's face); thin pairs up to 7 */
  int na; /* of them, the penetrating side's (node[0..na)): 1, or a thin pair's point or edge */
  int node[JL_CONTACT_NODES];
  double coef[JL_CONTACT_NODES]; /* 1, -w_0 .. -w_3 (thin pairs: collision/thin.h) */
  int other;                     /* body index Q, or nbody + obstacle index */
  int tet;                       /* Q's tet (global id); -1 for obstacles */
  int feature;                   /* obstacle feature the node is measured against (box face it came in through); -1 */
  int tag;                       /* 0: node[0] against a body or obstacle; thin pairs (collision/thin.h): kind + key */
  int key2;                      /* thin pairs: JlThinPair.key2 (with node[0], other and tag, names the pair); else 0 */
  double reach;                  /* m, thin pairs: the contact distance (JlThinPair.radius); else 0 */
  int continued;   /* 1: z0 and d0 carried over from the last step's contact (thin_history): z0 is not z(x) */
  int pushing;     /* 1: works off slack it already had at the last step (an overlap being pushed apart) */
  double r[3];     /* unit normal: force direction on node[0] */
  double d0;       /* m, depth at detection */
  double slack;    /* m, push-out slack: the penalty acts on g - slack */
  double z0[3];    /* z at detection */
  double delta[3]; /* m, tangential offset from the node to its friction anchor at the step's start */
  double k, c;     /* N/m, N s/m */
  int friction;    /* FRICTION_NONE / STICK / SLIDE for this step */
  double st0;      /* m/s, tangential speed |P z'| at the step's start (> 0 when sliding) */
  double sv;       /* m/s, the speed sliding friction is lagged on (src/penalty.h jl_slide_lag_speed) */
  double hold[3];  /* sliding: unit direction of the force sticking would have needed */
  double eta_top;  /* N s/m: outside implicit solves (explicit steppers) the sliding viscosity
                     mu k g / st0 is held below m_reduced / (2h), so no explicit stage overshoots on it */
  int active;      /* on in the current linear solve (implicit) or g > 0 at the last linearize */
  double gpred;    /* m, g at the end of the step if z kept its velocity: the implicit solve's first guess */
  double D[9];     /* a dPhi/dz + b dPhi/dz' at the last linearize */
  double mshare;   /* kg, obstacle contacts: the body's mass over its contacts with that obstacle in this step */
} Contact;

/* what a contact leaves for the next step */
typedef struct Memory {
  int node, other, tag, key2;
  int feature;  /* obstacle: the box face the node came in through; -1 */
  double slack; /* m */
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
  JlCollision *col;        /* NULL when there is nothing to collide body against body */
  JlProximityFinder *prox; /* speculative body-body contacts; NULL with fewer than two bodies */
  JlThinFinder *thin;      /* cloth and rope proximity pairs; NULL without cloth or ropes */
  int ncontact, cap;
  Contact *contact;
  int nbody_contacts; /* of ncontact, from body-body detection */
  double mu;
  int use_set;                   /* 1: implicit solve with a fixed on/off set (refine) */
  const double *x_step, *v_step; /* the state begin_step read (refine re-linearizes edge-edge pairs on it) */
  double h_step;
  int implicit;  /* JlForce.implicit of this step: explicit steps keep raised stiffnesses below m / h^2 */
  double *vpath; /* nnode x 3, scratch of contact_crossed: the step's mean velocities */
  int nmem, memcap;
  Memory *mem;   /* previous step's contacts, sorted by (node, other) */
  double *knode; /* nnode: summed stiffness of each node's springs, N/m */
  int *bcount;   /* nbody, scratch of obstacle_contacts: contacts per body */
  unsigned
      *seen; /* nnode + 1, scratch of obstacle_missed: the node has a contact with the obstacle when = seen_stamp */
  unsigned seen_stamp;
  /* patch scratch */
  int *first, *next, *parent;
  double *patch; /* 3 per contact */
  int scratch_cap;
  JlContactPoint *load_cp; /* load_cap: the detection's points while history_load decodes them */
  int load_cap;
} ContactElem;

/* z = sum coef_j x_j over the contact's nodes */
static inline void contact_z(const Contact *ct, const double *x, double z[3]) {
  z[0] = z[1] = z[2] = 0.0;
  for (int j = 0; j < ct->n; j++) {
    const double *xj = x + 3 * ct->node[j];
    z[0] += ct->coef[j] * xj[0];
    z[1] += ct->coef[j] * xj[1];
    z[2] += ct->coef[j] * xj[2];
  }
}

/* the penetrating side's point, sum of coef_j x_j over node[0..na) */
static inline void side_a(const Contact *ct, const double *x, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (int j = 0; j < ct->na; j++)
    for (int a = 0; a < 3; a++) out[a] += ct->coef[j] * x[3 * ct->node[j] + a];
}

/* src/contact_setup.c */
void jl_contact_begin(JlForce *e, const JlModel *m, const double *x, const double *v, double h);
Memory *jl_contact_mem_find(const ContactElem *ce, int node, int other, int tag, int key2);
int jl_contact_mem_cmp(const void *a, const void *b);
int jl_contact_thin_friction(const JlModel *m, const Contact *ct);
void jl_contact_thin_mass(const ContactElem *ce, const JlModel *m, const Contact *ct, double *mp, double *kp);
double jl_contact_explained_depth(double k, double mp, double vn, double h);
/* src/contact_refine.c */
int jl_contact_crossed(const JlForce *e, const JlModel *m, const double *x0, const double *v0, const double *x1);
int jl_contact_refine(JlForce *e, const JlModel *m, const double *x1, const double *v1);
/* src/contact_history.c */
size_t jl_contact_history_size(const JlForce *e);
void jl_contact_history_save(const JlForce *e, unsigned char *out);
int jl_contact_history_load(JlForce *e, const JlModel *m, const unsigned char *in, size_t n);

#endif
