/* Collision detection between soft bodies and consistent penetration depth.
 *
 * jl_collision_detect runs the whole pipeline on positions x:
 *   broad phase   spatial hash of the nodes in the regions where bodies'
 *                 boxes overlap, then each tet's box cells (Teschner et al.
 *                 2003), candidates = (node, tet) pairs of different bodies
 *                 (or of one body with self-collision, minus the tet's own
 *                 nodes and their neighbours);
 *   phase 1       exact point in tet: the penetrating nodes of P in Q, one
 *                 contact per (node, Q), its tet and barycentric weights;
 *   phase 2       edges of P from an inside to an outside node crossing Q's
 *                 boundary faces: intersection points x_i and normals n_i
 *                 interpolated from the struck face's corner normals (vertex
 *                 normals that leave out faces beyond a 60 degree crease
 *                 of the rest shape);
 *   phase 3       border points: depth d = sum w_i (x_i - p).n_i / sum w_i,
 *                 direction r = normalized sum w_i n_i, w_i = 1/|x_i - p|^2;
 *   phase 4       breadth-first propagation through P's node adjacency:
 *                 d(p) = sum mu_i ((x_i - p).r_i + d_i) / sum mu_i,
 *                 r(p) = normalized sum mu_i r_i, mu_i = 1/|x_i - p|^2, over
 *                 already visited neighbours (Heidelberger et al. 2004, sec. 4).
 * Points no border point reaches (a small body entirely inside another, a
 * deep fast hit) would get no depth in the paper. Here they take, first, the
 * direction of their own contact of the previous call (history) with the
 * depth that contact's linear gap has now; the rest, the nearest point of Q's
 * surface for the one point of each unreached region closest to that
 * surface, then propagation from it. See docs/collision.md.
 *
 * Nothing allocates during detection once the buffers have grown to the
 * scene's contact count. */
#ifndef JL_COLLISION_DEPTH_H
#define JL_COLLISION_DEPTH_H

#include "collision/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum JlContactKind {
  JL_CONTACT_BORDER,  /* phase 3: incident to an edge crossing Q's surface */
  JL_CONTACT_INNER,   /* phase 4: propagated breadth-first */
  JL_CONTACT_HISTORY, /* no border point reached it: previous contact's direction */
  JL_CONTACT_NEAREST, /* no border point, no history: nearest surface point (+ propagation) */
  JL_CONTACT_KIND_COUNT
} JlContactKind;

typedef struct JlContactPoint {
  int node;      /* penetrating node p of body P (global id) */
  int body;      /* body Q it penetrates */
  int tet;       /* Q's tet containing p (global tet id) */
  double w[4];   /* barycentric weights of p in that tet, in geo->tet order; sum 1 */
  double depth;  /* m, >= 0 */
  double dir[3]; /* unit direction of the penalty force on p (out of Q) */
  JlContactKind kind;
} JlContactPoint;

typedef struct JlCollisionDef {
  double cell_size;                    /* m, hash cell edge; 0 = average rest edge length (default 0) */
  const unsigned char *self_collision; /* nbody flags (copied), NULL = no self-collision (default NULL) */
  int use_history;                     /* 1: unreached points keep their previous direction (default 1) */
} JlCollisionDef;

JlCollisionDef jl_default_collision_def(void);

/* What the last jl_collision_detect did. */
typedef struct JlCollisionStats {
  int hashed_nodes;                    /* nodes inserted in pass 1 */
  int queried_tets;                    /* tets whose cells were visited in pass 2 */
  int candidates;                      /* (node, tet) pairs of different bodies with the node in the tet's box */
  int penetrating;                     /* contacts = penetrating (node, body) pairs */
  int border, inner, history, nearest; /* contacts by kind */
  int segment_tests;                   /* exact segment-triangle tests in phase 2 (the face-hash fallback) */
  int border_edges;                    /* edges of P from a penetrating node to a node outside Q (phase 2) */
  int hashed_edges;                    /* border edges the tet walk left to the face hash */
  int walked_tets;                     /* tets of Q visited while gathering the faces for those edges */
  int gathered_faces;                  /* boundary faces of Q hashed for them */
  double detect_s;                     /* s, hashing + point-in-tet (Teschner's "collision detection") */
  double depth_s;                      /* s, phases 2-4 (edge intersections, border points, propagation) */
} JlCollisionStats;

typedef struct JlCollision JlCollision;

/* Sized for geometry geo (whose arrays must outlive it). */
JlCollision *jl_collision_create(const JlGeom *geo, const JlCollisionDef *def);
void jl_collision_destroy(JlCollision *c);
/* Detects contacts at positions x (nnode x 3); returns their number. The
 * previous call's contacts are the history used for unreached points. */
int jl_collision_detect(JlCollision *c, const JlGeom *geo, const double *x);
/* The contacts of the last detection, sorted by (P, Q, node); valid until the next call. */
const JlContactPoint *jl_collision_contacts(const JlCollision *c, int *n);
const JlCollisionStats *jl_collision_stats(const JlCollision *c);
/* Forgets the history (e.g. after the state was reset). */
void jl_collision_reset(JlCollision *c);
/* Replaces the last detection's contacts, which the next call uses as its
 * history: restoring a saved state (src/contact.c's JlForce.history_load).
 * Nodes must be in range (JL_ASSERT); bodies and tets are the caller's to check. */
void jl_collision_set_contacts(JlCollision *c, const JlContactPoint *cp, int n);
/* Hash cell edge in use, m. */
double jl_collision_cell_size(const JlCollision *c);

#ifdef __cplusplus
}
#endif
#endif
