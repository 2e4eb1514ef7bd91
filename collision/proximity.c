/* Speculative contacts between soft bodies (collision/proximity.h). */
#include "collision/proximity.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "collision/hash.h"
#include "collision/narrow.h"
#include "mesh/vec3.h"

struct JlProximityFinder {
  JlHash hash;
  double edge; /* m, mean boundary edge length at rest */
  int nbnode;
  int *bnode;          /* boundary nodes (and cloth/rope nodes), ascending */
  int *face_body;      /* nface */
  double *fbox;        /* nface x 6: swept box of each face in this call */
  unsigned *face_seen; /* nface: stamp of the last node that tested the face */
  unsigned seen;
  double *bbox;          /* nbody x 6: swept box of each body's boundary */
  unsigned char *active; /* nbody: its box overlaps another body's */
  /* per node: best face per body */
  int *touched; /* bodies touched by the current node */
  int ntouched;
  int *best;          /* nbody: index into cand of the face met first, -1 */
  int ncand, candcap; /* the current node's faces met, every body */
  JlProximity *cand;
  int nout, cap;
  JlProximity *out;
};

JlProximityFinder *jl_proximity_create(const JlGeom *geo) {
  JlProximityFinder *f = jl_calloc(1, sizeof *f);
  unsigned char *mark = jl_calloc((size_t)geo->nnode + 1, 1);
  double sum = 0.0;
  for (int k = 0; k < geo->nface; k++) {
    const int *fv = geo->face + 3 * k;
    for (int a = 0; a < 3; a++) {
      mark[fv[a]] = 1;
      double d[3];
      jl_vec3_sub(geo->x0 + 3 * fv[a], geo->x0 + 3 * fv[(a + 1) % 3], d);
      sum += sqrt(jl_vec3_dot(d, d));
    }
  }
  for (int b = 0; b < geo->nbody; b++)
    if (geo->body[b].kind != JL_BODY_VOLUME)
      for (int i = geo->body[b].node_begin; i < geo->body[b].node_begin + geo->body[b].node_count; i++) mark[i] = 1;
  f->edge = geo->nface > 0 ? sum / (3.0 * geo->nface) : 0.0;
  for (int i = 0; i < geo->nnode; i++) f->nbnode += mark[i];
  f->bnode = jl_calloc((size_t)f->nbnode + 1, sizeof(int));
  for (int i = 0, n = 0; i < geo->nnode; i++)
    if (mark[i]) f->bnode[n++] = i;
  free(mark);
  f->face_body = jl_calloc((size_t)geo->nface + 1, sizeof(int));
  for (int k = 0; k < geo->nface; k++) f->face_body[k] = geo->node_body[geo->face[3 * k]];
  f->fbox = jl_calloc(6 * ((size_t)geo->nface + 1), sizeof(double));
  f->face_seen = jl_calloc((size_t)geo->nface + 1, sizeof(unsigned));
  f->bbox = jl_calloc(6 * ((size_t)geo->nbody + 1), sizeof(double));
  f->active = jl_calloc((size_t)geo->nbody + 1, 1);
  f->touched = jl_calloc((size_t)geo->nbody + 1, sizeof(int));
  f->best = jl_calloc((size_t)geo->nbody + 1, sizeof(int));
  for (int b = 0; b < geo->nbody; b++) f->best[b] = -1;
  jl_hash_init(&f->hash, 2 * geo->nface + 1024, f->edge > 0.0 ? f->edge : 1.0);
  return f;
}

void jl_proximity_destroy(JlProximityFinder *f) {
  if (!f) return;
  jl_hash_free(&f->hash);
  free(f->bnode), free(f->face_body), free(f->fbox), free(f->face_seen);
  free(f->bbox), free(f->active), free(f->touched), free(f->best), free(f->cand), free(f->out);
  free(f);
}

/* node p against face k: the crossing of the face's plane within the step, if on the face */
static int test_face(const JlGeom *geo, const double *x, const double *v, double h, double margin, double tol, int p,
                     int k, JlProximity *r) {
  const int *fv = geo->face + 3 * k;
  const double *xa = x + 3 * fv[0], *xb = x + 3 * fv[1], *xc = x + 3 * fv[2], *xp = x + 3 * p;
  double e1[3], e2[3], n[3];
  jl_vec3_sub(xb, xa, e1);
  jl_vec3_sub(xc, xa, e2);
  jl_vec3_cross(e1, e2, n);
  double len = sqrt(jl_vec3_dot(n, n));
  if (!(len > 0.0)) return 0;
  for (int a = 0; a < 3; a++) n[a] /= len;
  double dp[3];
  jl_vec3_sub(xp, xa, dp);
  double d0 = jl_vec3_dot(n, dp);
  if (!(d0 >= 0.0)) return 0; /* behind the face: inside, the depth estimate's case */
  /* the point of the face nearest p now, and the gap along n at the end of the step */
  double q[3], w0[3];
  jl_closest_point_triangle(xp, xa, xb, xc, q, w0);
  double rel_end = d0, vpn = 0.0, vfn = 0.0;
  for (int a = 0; a < 3; a++) {
    double vf = w0[0] * v[3 * fv[0] + a] + w0[1] * v[3 * fv[1] + a] + w0[2] * v[3 * fv[2] + a];
    rel_end += h * n[a] * (v[3 * p + a] - vf);
    vpn += n[a] * v[3 * p + a];
    vfn += n[a] * vf;
  }
  /* one side stopped within the step: bodies falling together, the lower
   * one landing on what is below it, close their gap at the other's speed
   * (a stack dropped with gaps: each interface closes the step after the
   * one below stops), which their common velocity does not predict. The
   * path of the side that keeps moving against the other where it stands
   * decides; the meeting point follows that motion. Volume bodies only: a
   * cloth or rope node is moved by its sheet more than by its velocity (the
   * cloth case below), and with this test the cloth draped over a ball in
   * drape.json at dt 1/15 kept about 100 contacts switching at rest. */
  double sp = 1.0, sf = 1.0;
  if (!(rel_end < margin) && geo->body[geo->node_body[p]].kind == JL_BODY_VOLUME &&
      geo->body[geo->node_body[fv[0]]].kind == JL_BODY_VOLUME) {
    double node_on = d0 + h * vpn, face_on = d0 - h * vfn;
    if (node_on < margin && !(face_on < node_on))
      sf = 0.0, rel_end = node_on;
    else if (face_on < margin)
      sp = 0.0, rel_end = face_on;
  }
  /* near and leaving, cloth nodes: a light node that left the face
   * by more than the margin in the last step (a contact popping it out) may
   * be pulled back as far by its taut sheet within this one, which its
   * velocity does not predict (measured: cloth nodes on a ball found 7.5 mm
   * deep every third step, treated as an overlap each time); it stays a
   * candidate while its gap is within that distance (measured on the face
   * now). Volume nodes keep the plain test: their springs do not whip them
   * back, and the extra candidates changed stacked boxes' impacts. Rope
   * nodes too, for now: with them the box on rope_bridge.json's elastic
   * ropes (a chaotic bounce that then creeps sideways) ended off the ropes. */
  int leaving = !(rel_end < margin);
  if (leaving && (geo->body[geo->node_body[p]].kind != JL_BODY_CLOTH || !(d0 < margin + (rel_end - d0)))) return 0;
  double t = leaving ? 0.0 : (rel_end < d0 ? d0 / (d0 - rel_end) : 1.0);
  if (t > 1.0) t = 1.0;
  /* where p meets the plane, on the face as it is then */
  double pt[3], fa[3], fb[3], fc[3];
  for (int a = 0; a < 3; a++) {
    pt[a] = xp[a] + sp * t * h * v[3 * p + a];
    fa[a] = xa[a] + sf * t * h * v[3 * fv[0] + a];
    fb[a] = xb[a] + sf * t * h * v[3 * fv[1] + a];
    fc[a] = xc[a] + sf * t * h * v[3 * fv[2] + a];
  }
  double w[3];
  double d2 = jl_closest_point_triangle(pt, fa, fb, fc, q, w);
  /* off the face (beside it, not above or below) by more than the tolerance:
   * a neighbouring face takes it */
  double dq[3];
  jl_vec3_sub(pt, q, dq);
  double along = jl_vec3_dot(dq, n), off2 = d2 - along * along;
  if (!(off2 <= tol * tol)) return 0;
  r->node = p;
  r->body = geo->node_body[fv[0]];
  r->face = k;
  memcpy(r->w, w, sizeof w);
  memcpy(r->n, n, sizeof n);
  r->dist = d0;
  r->t = t;
  double rel[3];
  for (int a = 0; a < 3; a++) {
    double vf = w[0] * v[3 * fv[0] + a] + w[1] * v[3 * fv[1] + a] + w[2] * v[3 * fv[2] + a];
    rel[a] = sp * v[3 * p + a] - sf * vf;
  }
  r->path = h * sqrt(jl_vec3_dot(rel, rel));
  return 1;
}

/* The contact of node p with the face met first, cand[best], among the
 * faces of the same body that p's path meets (cand[0..n)). Where a volume
 * node's path meets the other surface at an edge or a vertex, the faces
 * around it are met at the same moment, and which one counts as "first"
 * was decided by rounding: two bodies that are mirror images of each other
 * got normals up to 10 degrees apart at the same meeting (head-on balls
 * left with 0.17 % transverse momentum instead of 1e-7), and a hit at a
 * facet edge could flip between its two faces with the solver's tolerance
 * (docs/collision.md, "Pipeline" and "Open"). Faces whose planes the path
 * meets within tol of the first one (measured along the path relative to
 * the face) are met at its edge or vertex; the contact then acts along the
 * mean of their normals (the feature's pseudo-normal, Baerentzen and Aanaes
 * 2005, faces weighted equally), against the plane through the meeting
 * point with that normal. Nodes that do not meet a plane within the step
 * (t = 0 or 1: resting or leaving) keep the face picked, and so do cloth
 * and rope nodes, whose contact distance already rounds a crease
 * (test_face). Without these two exclusions rope_bridge.json's box
 * bounced off its ropes at dt 0.002 and an embedded ball sank 2.2 mm into
 * a coarse cloth (tests/test_thin*.c); either one alone kept both. */
static JlProximity met_feature(const JlGeom *geo, const double *x, const JlProximity *cand, int n, int best,
                               double tol) {
  JlProximity r = cand[best];
  if (!(r.t > 0.0 && r.t < 1.0) || geo->body[geo->node_body[r.node]].kind != JL_BODY_VOLUME) return r;
  double sum[3] = {0.0, 0.0, 0.0};
  int tied = 0;
  for (int i = 0; i < n; i++) {
    const JlProximity *c = &cand[i];
    double len = c->path > r.path ? c->path : r.path;
    if (c->body != r.body || !(fabs(c->t - r.t) * len <= tol)) continue;
    for (int a = 0; a < 3; a++) sum[a] += c->n[a];
    tied++;
  }
  if (tied < 2) return r;
  double len = sqrt(jl_vec3_dot(sum, sum));
  if (!(len > 1e-6 * tied)) return r;
  const int *fv = geo->face + 3 * r.face;
  double nb[3], d[3];
  for (int a = 0; a < 3; a++) {
    nb[a] = sum[a] / len;
    d[a] = x[3 * r.node + a] - (r.w[0] * x[3 * fv[0] + a] + r.w[1] * x[3 * fv[1] + a] + r.w[2] * x[3 * fv[2] + a]);
  }
  double dist = jl_vec3_dot(nb, d);
  if (!(dist >= 0.0)) return r; /* the node is behind that plane: keep the face's own */
  memcpy(r.n, nb, sizeof nb);
  r.dist = dist;
  return r;
}

/* box overlaps the swept box of a body other than self: only then can what
 * it bounds (a node's path, a face's swept box) meet that body (each body's
 * box holds its boundary nodes' paths and its faces' boxes) */
static int near_other(const JlProximityFinder *f, int nbody, const double *box, int self) {
  for (int c = 0; c < nbody; c++)
    if (c != self && jl_boxes_overlap(box, f->bbox + 6 * c)) return 1;
  return 0;
}

int jl_proximity_find(JlProximityFinder *f, const JlGeom *geo, const double *x, const double *v, double h,
                      const JlProximity **out) {
  f->nout = 0;
  *out = f->out;
  if (geo->nbody < 2 || geo->nface == 0 || !(h > 0.0)) return 0;
  const double *g = geo->gravity;
  double margin = h * h * sqrt(jl_vec3_dot(g, g)) + 1e-3 * f->edge + 1e-9, rmax = 0.0;
  /* cloth and rope nodes keep their half-thickness from the faces: they look that much further */
  for (int b = 0; b < geo->nbody; b++)
    if (geo->body[b].radius > rmax) rmax = geo->body[b].radius;
  double tol = 1e-3 * f->edge + 1e-12;
  /* swept boxes of the bodies' boundaries; bodies whose boxes overlap another's take part */
  for (int b = 0; b < geo->nbody; b++) jl_box_empty(f->bbox + 6 * b);
  double maxdisp = 0.0;
  for (int j = 0; j < f->nbnode; j++) {
    int i = f->bnode[j];
    jl_box_add_path(f->bbox + 6 * geo->node_body[i], x + 3 * i, v + 3 * i, h);
    double s = h * sqrt(jl_vec3_dot(v + 3 * i, v + 3 * i));
    if (s > maxdisp) maxdisp = s;
  }
  if (!isfinite(maxdisp)) return 0;
  for (int b = 0; b < geo->nbody; b++)
    for (int a = 0; a < 3; a++) f->bbox[6 * b + a] -= margin + rmax, f->bbox[6 * b + 3 + a] += margin + rmax;
  int any = 0;
  for (int b = 0; b < geo->nbody; b++) {
    f->active[b] = 0;
    for (int c = 0; c < geo->nbody; c++)
      if (c != b && jl_boxes_overlap(f->bbox + 6 * b, f->bbox + 6 * c)) f->active[b] = 1;
    any |= f->active[b];
  }
  if (!any) return 0;
  /* hash the swept faces; cells no smaller than half the largest step so a box spans few cells */
  double cell = f->edge > 0.5 * maxdisp ? f->edge : 0.5 * maxdisp;
  if (!(cell > 0.0)) cell = 1.0;
  f->hash.cell = cell;
  f->hash.inv_cell = 1.0 / cell;
  jl_hash_begin(&f->hash);
  for (int k = 0; k < geo->nface; k++) {
    if (!f->active[f->face_body[k]]) continue;
    double *b = f->fbox + 6 * k;
    jl_box_empty(b);
    for (int a = 0; a < 3; a++) jl_box_add_path(b, x + 3 * geo->face[3 * k + a], v + 3 * geo->face[3 * k + a], h);
    jl_box_grow(b, margin + rmax);
    if (near_other(f, geo->nbody, b, f->face_body[k])) jl_hash_insert_box(&f->hash, b, k);
  }
  /* each node's swept path against the faces of other bodies in its cells */
  for (int j = 0; j < f->nbnode; j++) {
    int p = f->bnode[j], P = geo->node_body[p];
    if (!f->active[P]) continue;
    double nb[6];
    jl_box_empty(nb);
    jl_box_add_path(nb, x + 3 * p, v + 3 * p, h);
    if (!near_other(f, geo->nbody, nb, P)) continue;
    if (++f->seen == 0) {
      memset(f->face_seen, 0, (size_t)geo->nface * sizeof(unsigned));
      f->seen = 1;
    }
    f->ntouched = 0;
    JlHashQuery hq;
    jl_hash_query(&f->hash, nb, &hq);
    for (int k; (k = jl_hash_query_next(&f->hash, &hq)) >= 0;) {
      int Q = f->face_body[k];
      if (Q == P || f->face_seen[k] == f->seen) continue;
      f->face_seen[k] = f->seen;
      if (!jl_boxes_overlap(nb, f->fbox + 6 * k)) continue;
      JlProximity r;
      /* a cloth or rope node stays its radius off the plane: beside a
       * convex crease it then projects just past both faces' edges */
      if (!test_face(geo, x, v, h, margin + geo->body[P].radius, tol + geo->body[P].radius, p, k, &r)) continue;
      jl_grow((void **)&f->cand, &f->candcap, f->ncand + 1, sizeof(JlProximity));
      f->cand[f->ncand++] = r;
      int bi = f->best[Q];
      if (bi < 0) {
        f->best[Q] = f->ncand - 1;
        f->touched[f->ntouched++] = Q;
      } else {
        const JlProximity *o = &f->cand[bi];
        /* the face met first; ties: the nearer plane, then the lower face id */
        if (r.t < o->t || (r.t == o->t && (r.dist < o->dist || (r.dist == o->dist && r.face < o->face))))
          f->best[Q] = f->ncand - 1;
      }
    }
    /* this node's entries in body order */
    if (f->ntouched > 1) jl_sort_by_int(f->touched, f->ntouched, sizeof(int), 0);
    for (int a = 0; a < f->ntouched; a++) {
      int Q = f->touched[a];
      jl_grow((void **)&f->out, &f->cap, f->nout + 1, sizeof(JlProximity));
      f->out[f->nout++] = met_feature(geo, x, f->cand, f->ncand, f->best[Q], tol);
      f->best[Q] = -1;
    }
    f->ncand = 0;
  }
  *out = f->out;
  return f->nout;
}
