/* What the parts of collision/depth.h's pipeline share, private to them: the
 * JlCollision object, its records, small box and buffer helpers and the
 * functions one part calls in another.
 *   depth.c           the object (creation, tet adjacency) and the driver
 *                     jl_collision_detect;
 *   depth_broad.c     broad phase and phase 1 (point in tet);
 *   depth_normals.c   crease-aware face and corner normals;
 *   depth_crossing.c  phase 2: border edges' first crossings of Q's surface;
 *   depth_propagate.c phases 3-4 per (P, Q) group, history and nearest-point
 *                     fallbacks.
 * Not installed, not included outside these files. */
#ifndef JL_COLLISION_DEPTH_INTERNAL_H
#define JL_COLLISION_DEPTH_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "collision/depth.h"
#include "collision/hash.h"
#include "mesh/vec3.h"

/* an unreached contact (idx) and its distance d to Q's surface: the nearest-point fallback
 * starts from the closest of a region (depth_propagate.c) */
typedef struct Near {
  double d;
  int idx;
} Near;

/* a tet's frame for barycentric coordinates (see tet_inv, depth_crossing.c) */
typedef struct TetInv {
  double v0[3], r[3][3], det;
} TetInv;

/* what a walk step needs of a tet, in one 32-byte record (one cache line) */
typedef struct TetRec {
  int link[4];     /* across the face opposite corner k: the neighbour tet (>= 0), or
                      -2 - f for boundary face f (geo->face index), or -1 */
  unsigned stamp;  /* detection that computed the tet's frame */
  int slot;        /* the frame's index in tinv */
  unsigned wstamp; /* last group whose face gathering reached the tet */
  int pad;
} TetRec;

typedef struct Hit {
  int pbody, node, body, tet;
  double w[4], minw;
} Hit;

struct JlCollision {
  JlCollisionDef def;
  unsigned char *self; /* nbody */
  int nbody, nnode;
  int *face_begin, *face_count; /* nbody: boundary faces per body (faces are body-contiguous) */
  double *box;                  /* nbody x 6: lo, hi */
  double *qbox;                 /* nbody x 6: region where others can touch the body */
  unsigned char *active;        /* nbody */
  JlHash nodes, faces;
  int *face_mark; /* nface: last segment query that saw the face */
  int query;
  /* tet adjacency, for gathering the candidate faces of a group */
  TetRec *trec;         /* ntet, aligned to 32 bytes: links, frame slot, stamps */
  void *trec_mem;       /* the allocation holding trec */
  unsigned *face_stamp; /* nface: last group that collected the face */
  unsigned *fn_stamp;   /* nface: last detection that computed the face's area normal */
  unsigned *fc_stamp;   /* nface: last detection that computed the face's corner normals */
  double *fbox;         /* nface x 6: box of a collected face */
  double *fn;           /* nface x 4: area normal (twice the area, outward) and its length */
  double *fc;           /* nface x 12: unit normal and the three crease-aware corner normals */
  unsigned wstamp;      /* walk / face-collection stamp of the current group */
  unsigned dstamp;      /* stamp of the current detection (normals, tet frames) */
  TetInv *tinv;         /* ntinv of tinv_cap: frames of the tets walked in this detection */
  int ntinv, tinv_cap;
  int *walk; /* walk_cap: tets queued in the group's walk */
  int walk_cap;
  int gathered;       /* the face hash holds the current group's faces */
  int *vf_start, *vf; /* nnode + 1 / 3 nface: boundary faces around each node (CSR) */
  /* crease-aware corner normals, creases found once on the rest shape */
  unsigned char *vsmooth; /* nnode: no crease at the node, its corner normal is shared by its faces */
  int *cl_start, *cl;     /* 3 nface + 1 / ...: faces a creased corner 3 f + k averages (CSR) */
  unsigned *vn_stamp;     /* nnode: last detection that computed the node's shared normal */
  double *vn;             /* nnode x 4: shared unit normal, [3] = 1 if it exists */
  /* hits and contacts */
  int nhit, hit_cap;
  Hit *hit;
  int ncontact, contact_cap;
  JlContactPoint *contact;
  int nprev, prev_cap;
  JlContactPoint *prev;
  int *prev_head, *prev_next; /* nnode / prev_cap: contacts of the previous call by node */
  unsigned *prev_stamp;       /* nnode */
  unsigned pstamp;
  /* per-node marks of the current (P, Q) group */
  unsigned *in_stamp; /* nnode */
  int *in_idx;        /* nnode: contact index in the group */
  unsigned gstamp;
  int *level;              /* contact_cap: BFS level, -1 = unassigned */
  int *queue, *next_queue; /* contact_cap */
  Near *order;             /* scratch_cap: unreached points by distance to Q's surface */
  int scratch_cap;         /* size of level, queue, next_queue, order */
  int prev_next_cap;
  JlCollisionStats stats;
};

/* ---- small helpers shared by the parts ---- */

/* a /= |a|; 0 (a unchanged) when |a| is 0 or not finite */
static inline int normalize3(double *a) {
  double l = sqrt(jl_vec3_dot(a, a));
  if (!(l > 0.0) || !isfinite(l)) return 0;
  a[0] /= l, a[1] /= l, a[2] /= l;
  return 1;
}

/* boxes are 6-vectors lo, hi; touching counts as overlap */
static inline int boxes_overlap(const double *a, const double *b) {
  for (int k = 0; k < 3; k++)
    if (a[k] > b[3 + k] || b[k] > a[3 + k]) return 0;
  return 1;
}

static inline int in_box(const double *box, const double *p) {
  return p[0] >= box[0] && p[1] >= box[1] && p[2] >= box[2] && p[0] <= box[3] && p[1] <= box[4] && p[2] <= box[5];
}

/* out = box clipped to clip (6-vectors); 0 when empty */
static inline int clip_box(const double *box, const double *clip, double *out) {
  for (int k = 0; k < 3; k++) {
    out[k] = box[k] > clip[k] ? box[k] : clip[k];
    out[3 + k] = box[3 + k] < clip[3 + k] ? box[3 + k] : clip[3 + k];
    if (!(out[k] <= out[3 + k])) return 0;
  }
  return 1;
}

/* ---- functions of one part called from another ---- */

/* depth_broad.c: body boxes, the node hash, exact point-in-tet on the
 * candidates, one contact per (node, Q) sorted by (P, Q, node) */
void jl_depth_broad_phase(JlCollision *c, const JlGeom *geo, const double *x);
/* b = {min xyz, max xyz} of the n nodes node[0..n) at positions x (depth_crossing.c) */
void jl_depth_node_box(const double *x, const int *node, int n, double b[6]);
/* depth_normals.c: creases of the rest shape (vsmooth, cl_start, cl) */
void jl_depth_rest_creases(JlCollision *c, const JlGeom *geo);
/* depth_normals.c: crease-aware normal n at weights bary of boundary face f; 0 for a degenerate face */
int jl_depth_face_normal(JlCollision *c, const JlGeom *geo, const double *x, int f, const double bary[3], double n[3]);
/* depth_crossing.c: first crossing xi and normal ni of border edge p-n (p in tet t) with Q's surface */
int jl_depth_edge_crossing(JlCollision *c, const JlGeom *geo, const double *x, int t, int p, int n, int g0, int g1,
                           double xi[3], double ni[3]);
/* depth_propagate.c: depth and direction of the contacts g0..g1 of one (P, Q) group */
void jl_depth_group(JlCollision *c, const JlGeom *geo, const double *x, int g0, int g1);

#endif
