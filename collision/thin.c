/* Proximity contacts of thin bodies (collision/thin.h). */
#include "collision/thin.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "collision/hash.h"
#include "collision/narrow.h"
#include "mesh/cloth.h"
#include "mesh/vec3.h"

struct JlThinFinder {
  JlHash hash;
  /* points: each volume's render-surface vertices (embedded: up to 4 tet nodes
   * and weights; a volume without an embedding, its boundary nodes), then
   * every cloth and rope node */
  int npt, *pt_n, *pt_node, *pt_body; /* pt_node: 4 per point */
  double *pt_w;                       /* 4 per point */
  int ntri, *tri, *tri_body;          /* cloth triangles (global node ids) */
  int nedge, *edge, *edge_body;       /* rope segments and cloth edges, (lower, higher) node */
  unsigned char *edge_rope;           /* 1: a rope segment */
  double edge_len;                    /* m, mean rest length of the edges */
  double *body_len;                   /* nbody: m, mean rest edge length of each thin body */
  double *box;                        /* (ntri + nedge) x 6: swept boxes of this call */
  unsigned *seen, stamp;              /* per item: the last query that tested it */
  int *best, *touched, ntouched;      /* per body: index into out of the current primitive's pair, -1 */
  int nout, cap;
  JlThinPair *out;
};

double jl_closest_segments(const double *p0, const double *p1, const double *q0, const double *q1, double *s,
                           double *t) {
  double d1[3], d2[3], r[3];
  jl_vec3_sub(p1, p0, d1);
  jl_vec3_sub(q1, q0, d2);
  jl_vec3_sub(p0, q0, r);
  double a = jl_vec3_dot(d1, d1), e = jl_vec3_dot(d2, d2), f = jl_vec3_dot(d2, r);
  double ss = 0.0, tt = 0.0;
  if (!(a > 0.0) && !(e > 0.0)) {
    ss = tt = 0.0;
  } else if (!(a > 0.0)) {
    tt = f / e;
    tt = tt < 0.0 ? 0.0 : tt > 1.0 ? 1.0 : tt;
  } else {
    double c = jl_vec3_dot(d1, r);
    if (!(e > 0.0)) {
      ss = -c / a;
      ss = ss < 0.0 ? 0.0 : ss > 1.0 ? 1.0 : ss;
    } else {
      double b = jl_vec3_dot(d1, d2), den = a * e - b * b;
      ss = den > 0.0 ? (b * f - c * e) / den : 0.0;
      ss = ss < 0.0 ? 0.0 : ss > 1.0 ? 1.0 : ss;
      tt = (b * ss + f) / e;
      if (tt < 0.0) {
        tt = 0.0;
        ss = -c / a;
        ss = ss < 0.0 ? 0.0 : ss > 1.0 ? 1.0 : ss;
      } else if (tt > 1.0) {
        tt = 1.0;
        ss = (b - c) / a;
        ss = ss < 0.0 ? 0.0 : ss > 1.0 ? 1.0 : ss;
      }
    }
  }
  *s = ss, *t = tt;
  double d[3];
  for (int k = 0; k < 3; k++) d[k] = p0[k] + ss * d1[k] - q0[k] - tt * d2[k];
  return jl_vec3_dot(d, d);
}

double jl_segments_first_within(const double *const p[4], const double *const dp[4], double target, double *s,
                                double *t) {
  double L = 0.0, ss, tt;
  for (int i = 0; i < 2; i++)
    for (int j = 2; j < 4; j++) {
      double d[3] = {dp[i][0] - dp[j][0], dp[i][1] - dp[j][1], dp[i][2] - dp[j][2]};
      L = fmax(L, sqrt(jl_vec3_dot(d, d)));
    }
  double tau = 0.0;
  for (int it = 0; it < 64; it++) {
    double q[4][3];
    for (int k = 0; k < 4; k++)
      for (int a = 0; a < 3; a++) q[k][a] = p[k][a] + tau * dp[k][a];
    double d = sqrt(jl_closest_segments(q[0], q[1], q[2], q[3], &ss, &tt));
    if (d <= target) {
      if (s) *s = ss;
      if (t) *t = tt;
      return tau;
    }
    if (tau >= 1.0 || !(L > 0.0) || !isfinite(d)) return -1.0;
    double step = (d - target) / L;
    tau += step > 1.0 / 256.0 ? step : 1.0 / 256.0;
    if (tau > 1.0) tau = 1.0;
  }
  return -1.0;
}

static int is_thin(const JlGeom *geo, int b) { return geo->body[b].kind != JL_BODY_VOLUME; }

static int edge_cmp(const void *a, const void *b) {
  const int *p = a, *q = b;
  if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
  return (p[1] > q[1]) - (p[1] < q[1]);
}

JlThinFinder *jl_thin_create(const JlGeom *geo) {
  /* a cloth or rope with another body to meet, or with itself */
  int any = 0;
  for (int b = 0; b < geo->nbody; b++) any |= is_thin(geo, b) && (geo->nbody > 1 || geo->body[b].self_collision);
  if (!any) return NULL;
  JlThinFinder *f = jl_calloc(1, sizeof *f);
  /* points */
  unsigned char *mark = jl_calloc((size_t)geo->nnode + 1, 1);
  for (int k = 0; k < 3 * geo->nface; k++) mark[geo->face[k]] = 1;
  int cap = 0;
  for (int b = 0; b < geo->nbody; b++) {
    const JlGeomBody *bd = &geo->body[b];
    cap += bd->kind == JL_BODY_VOLUME && bd->nembed > 0 ? bd->nembed : bd->node_count;
  }
  f->pt_n = jl_calloc((size_t)cap + 1, sizeof(int));
  f->pt_body = jl_calloc((size_t)cap + 1, sizeof(int));
  f->pt_node = jl_calloc(4 * (size_t)cap + 4, sizeof(int));
  f->pt_w = jl_calloc(4 * (size_t)cap + 4, sizeof(double));
  for (int b = 0; b < geo->nbody; b++) {
    const JlGeomBody *bd = &geo->body[b];
    if (bd->kind == JL_BODY_VOLUME && bd->nembed > 0) {
      for (int vtx = 0; vtx < bd->nembed; vtx++) {
        const int *tn = geo->tet + 4 * ((size_t)bd->tet_begin + (size_t)bd->embed_tet[vtx]);
        const double *w = bd->embed_weight + 4 * (size_t)vtx;
        int j = f->npt++, n = 0;
        for (int k = 0; k < 4; k++)
          if (fabs(w[k]) > 1e-12) f->pt_node[4 * j + n] = tn[k], f->pt_w[4 * j + n] = w[k], n++;
        f->pt_n[j] = n;
        f->pt_body[j] = b;
      }
    } else {
      for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
        if (bd->kind == JL_BODY_VOLUME && !mark[i]) continue;
        int j = f->npt++;
        f->pt_n[j] = 1, f->pt_node[4 * j] = i, f->pt_w[4 * j] = 1.0, f->pt_body[j] = b;
      }
    }
  }
  free(mark);
  /* cloth triangles and edges, rope segments */
  int ntri = 0, nedge_max = 0;
  for (int b = 0; b < geo->nbody; b++) {
    if (geo->body[b].kind == JL_BODY_CLOTH) ntri += geo->body[b].ntri;
    if (is_thin(geo, b)) nedge_max += geo->body[b].spring_count;
  }
  nedge_max += 3 * ntri;
  f->tri = jl_calloc(3 * (size_t)ntri + 1, sizeof(int));
  f->tri_body = jl_calloc((size_t)ntri + 1, sizeof(int));
  int *edges = jl_calloc(2 * (size_t)nedge_max + 2, sizeof(int));
  int ne = 0;
  for (int b = 0; b < geo->nbody; b++) {
    const JlGeomBody *bd = &geo->body[b];
    if (bd->kind == JL_BODY_CLOTH) {
      for (int t = 0; t < bd->ntri; t++) {
        int *tv = f->tri + 3 * f->ntri;
        for (int a = 0; a < 3; a++) tv[a] = bd->node_begin + bd->tri[3 * t + a];
        f->tri_body[f->ntri++] = b;
        for (int a = 0; a < 3; a++) {
          int u = tv[a], w = tv[(a + 1) % 3];
          edges[2 * ne] = u < w ? u : w;
          edges[2 * ne + 1] = u < w ? w : u;
          ne++;
        }
      }
    } else if (bd->kind == JL_BODY_ROPE) {
      for (int s = bd->spring_begin; s < bd->spring_begin + bd->spring_count; s++) {
        if (geo->spring_kind && geo->spring_kind[s] != JL_SPRING_STRETCH) continue;
        int u = geo->spring_node[2 * s], w = geo->spring_node[2 * s + 1];
        edges[2 * ne] = u < w ? u : w;
        edges[2 * ne + 1] = u < w ? w : u;
        ne++;
      }
    }
  }
  if (ne > 1) qsort(edges, (size_t)ne, 2 * sizeof(int), edge_cmp);
  f->edge = jl_calloc(2 * (size_t)ne + 2, sizeof(int));
  f->edge_body = jl_calloc((size_t)ne + 1, sizeof(int));
  f->edge_rope = jl_calloc((size_t)ne + 1, 1);
  f->body_len = jl_calloc((size_t)geo->nbody + 1, sizeof(double));
  int *body_ne = jl_calloc((size_t)geo->nbody + 1, sizeof(int));
  double sum = 0.0;
  for (int k = 0; k < ne; k++) {
    if (k > 0 && edges[2 * k] == edges[2 * k - 2] && edges[2 * k + 1] == edges[2 * k - 1]) continue;
    int u = edges[2 * k], w = edges[2 * k + 1], b = geo->node_body[u];
    f->edge[2 * f->nedge] = u;
    f->edge[2 * f->nedge + 1] = w;
    f->edge_body[f->nedge] = b;
    f->edge_rope[f->nedge] = geo->body[b].kind == JL_BODY_ROPE;
    double d[3];
    jl_vec3_sub(geo->x0 + 3 * u, geo->x0 + 3 * w, d);
    double len = sqrt(jl_vec3_dot(d, d));
    sum += len;
    f->body_len[b] += len;
    body_ne[b]++;
    f->nedge++;
  }
  free(edges);
  for (int b = 0; b < geo->nbody; b++)
    if (body_ne[b] > 0) f->body_len[b] /= body_ne[b];
  free(body_ne);
  f->edge_len = f->nedge > 0 ? sum / f->nedge : 0.0;
  int nitem = f->ntri + f->nedge;
  f->box = jl_calloc(6 * ((size_t)nitem + 1), sizeof(double));
  f->seen = jl_calloc((size_t)nitem + 1, sizeof(unsigned));
  f->best = jl_calloc((size_t)geo->nbody + 1, sizeof(int));
  f->touched = jl_calloc((size_t)geo->nbody + 1, sizeof(int));
  for (int b = 0; b < geo->nbody; b++) f->best[b] = -1;
  jl_hash_init(&f->hash, 2 * nitem + 1024, f->edge_len > 0.0 ? f->edge_len : 1.0);
  return f;
}

void jl_thin_destroy(JlThinFinder *f) {
  if (!f) return;
  jl_hash_free(&f->hash);
  free(f->pt_n), free(f->pt_node), free(f->pt_w), free(f->pt_body), free(f->tri), free(f->tri_body), free(f->edge),
      free(f->edge_body), free(f->edge_rope);
  free(f->body_len), free(f->box), free(f->seen), free(f->best), free(f->touched), free(f->out);
  free(f);
}

/* sum_j coef_j y_j over the pair's nodes (y = x or v) */
static void combine(const JlThinPair *p, const double *y, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (int j = 0; j < p->n; j++)
    for (int a = 0; a < 3; a++) out[a] += p->coef[j] * y[3 * p->node[j] + a];
}

/* Completes pair p (nodes and coefs set): direction, distance, and whether
 * it is close now or closes within the step. fallback: the direction to use
 * when the closest points coincide (a face normal or edge cross product; its
 * sign is then chosen against the relative velocity: the side A came from). */
static int finish(JlThinPair *p, const double *x, const double *v, double h, double margin, const double *fallback) {
  double z[3], zd[3];
  combine(p, x, z);
  combine(p, v, zd);
  double d = sqrt(jl_vec3_dot(z, z));
  if (d > 1e-12 * (1.0 + p->radius)) {
    for (int a = 0; a < 3; a++) p->dir[a] = z[a] / d;
  } else {
    double len = fallback ? sqrt(jl_vec3_dot(fallback, fallback)) : 0.0;
    if (!(len > 0.0)) return 0;
    double s = jl_vec3_dot(fallback, zd) > 0.0 ? -1.0 : 1.0;
    for (int a = 0; a < 3; a++) p->dir[a] = s * fallback[a] / len;
    d = 0.0;
  }
  p->dist = d;
  double vn = jl_vec3_dot(p->dir, zd);
  double end = d + (vn < 0.0 ? h * vn : 0.0);
  return end < p->radius + margin;
}

/* keeps pair c as the current primitive's pair with body b if it is the first
 * or comes closer within the step; ties keep the earlier (lower id) */
static void keep(JlThinFinder *f, int b, const JlThinPair *c) {
  int bi = f->best[b];
  if (bi < 0) {
    jl_grow((void **)&f->out, &f->cap, f->nout + 1, sizeof(JlThinPair));
    f->best[b] = f->nout;
    f->out[f->nout++] = *c;
    f->touched[f->ntouched++] = b;
  } else if (c->dist < f->out[bi].dist) {
    f->out[bi] = *c;
  }
}

/* appends pair c (a rope segment's pair: every one is kept) */
static void keep_all(JlThinFinder *f, const JlThinPair *c) {
  jl_grow((void **)&f->out, &f->cap, f->nout + 1, sizeof(JlThinPair));
  f->out[f->nout++] = *c;
}

/* the current primitive's pairs (out[start..nout)) in body order (stable),
 * and the per-body slots freed */
static void close_primitive(JlThinFinder *f, int start) {
  if (f->nout - start > 1)
    jl_sort_by_int(f->out + start, f->nout - start, sizeof *f->out, offsetof(JlThinPair, body_b));
  for (int a = 0; a < f->ntouched; a++) f->best[f->touched[a]] = -1;
  f->ntouched = 0;
}

/* visits the items in the cells of box b (each once per query; bounded:
 * collision/hash.h) */
#define FOR_ITEMS(f, b, k)                                                             \
  if (++(f)->stamp == 0) {                                                             \
    memset((f)->seen, 0, ((size_t)(f)->ntri + (size_t)(f)->nedge) * sizeof(unsigned)); \
    (f)->stamp = 1;                                                                    \
  }                                                                                    \
  JlHashQuery q_;                                                                      \
  jl_hash_query(&(f)->hash, (b), &q_);                                                 \
  for (int k; (k = jl_hash_query_next(&(f)->hash, &q_)) >= 0;)                         \
    if ((f)->seen[k] != (f)->stamp && ((f)->seen[k] = (f)->stamp, 1))

/* jl_thin_find; points = 0: edge-edge pairs only (jl_thin_find_edges) */
static int find(JlThinFinder *f, const JlGeom *geo, const double *x, const double *v, double h, int points,
                const JlThinPair **out) {
  *out = NULL;
  if (!f) return 0;
  f->nout = 0;
  *out = f->out;
  if ((f->ntri == 0 && f->nedge == 0) || !(h > 0.0)) return 0;
  const double *g = geo->gravity;
  double margin = h * h * sqrt(jl_vec3_dot(g, g)) + 1e-3 * f->edge_len + 1e-9, rmax = 0.0, maxdisp = 0.0;
  for (int b = 0; b < geo->nbody; b++)
    if (geo->body[b].radius > rmax) rmax = geo->body[b].radius;
  for (int j = 0; j < f->npt; j++)
    for (int k = 0; k < f->pt_n[j]; k++) {
      const double *vk = v + 3 * f->pt_node[4 * j + k];
      double s = h * sqrt(jl_vec3_dot(vk, vk));
      if (s > maxdisp) maxdisp = s;
    }
  if (!isfinite(maxdisp)) return 0;
  /* cells: no smaller than an edge, half the largest step or a contact distance, so a box spans few cells */
  double cell = f->edge_len;
  if (cell < 0.5 * maxdisp) cell = 0.5 * maxdisp;
  if (cell < 2.0 * rmax + margin) cell = 2.0 * rmax + margin;
  f->hash.cell = cell;
  f->hash.inv_cell = 1.0 / cell;
  jl_hash_begin(&f->hash);
  for (int k = points ? 0 : f->ntri; k < f->ntri + f->nedge; k++) {
    double *b = f->box + 6 * k;
    jl_box_empty(b);
    const int *nv = k < f->ntri ? f->tri + 3 * k : f->edge + 2 * (k - f->ntri);
    int nn = k < f->ntri ? 3 : 2, body = k < f->ntri ? f->tri_body[k] : f->edge_body[k - f->ntri];
    for (int a = 0; a < nn; a++) jl_box_add_path(b, x + 3 * nv[a], v + 3 * nv[a], h);
    jl_box_grow(b, geo->body[body].radius + rmax + margin);
    jl_hash_insert_box(&f->hash, b, k);
  }
  /* points against cloth triangles and rope segments */
  for (int j = 0; j < (points ? f->npt : 0); j++) {
    int start = f->nout;
    int P = f->pt_body[j], na = f->pt_n[j], p = f->pt_node[4 * j];
    const int *pn = f->pt_node + 4 * j;
    const double *pw = f->pt_w + 4 * j;
    double xp[3] = {0, 0, 0}, vp[3] = {0, 0, 0};
    for (int k = 0; k < na; k++)
      for (int a = 0; a < 3; a++) xp[a] += pw[k] * x[3 * pn[k] + a], vp[a] += pw[k] * v[3 * pn[k] + a];
    double pb[6];
    jl_box_empty(pb);
    jl_box_add_path(pb, xp, vp, h);
    jl_box_grow(pb, margin);
    FOR_ITEMS(f, pb, k) {
      if (!jl_boxes_overlap(pb, f->box + 6 * k)) continue;
      JlThinPair c;
      memset(&c, 0, sizeof c);
      c.body_a = P;
      c.na = na;
      c.key = j;
      for (int a = 0; a < na; a++) c.node[a] = pn[a], c.coef[a] = pw[a];
      double fallback[3] = {0, 0, 0}, q[3], w[3];
      if (k < f->ntri) {
        const int *tv = f->tri + 3 * k;
        int T = f->tri_body[k];
        if (na == 1 && (tv[0] == p || tv[1] == p || tv[2] == p)) continue;
        if (T == P) {
          if (!geo->body[P].self_collision) continue;
          double rq[3], rw[3];
          if (jl_closest_point_triangle(geo->x0 + 3 * p, geo->x0 + 3 * tv[0], geo->x0 + 3 * tv[1], geo->x0 + 3 * tv[2],
                                        rq, rw) < pow(JL_THIN_SELF_EXCLUDE * f->body_len[P], 2))
            continue;
        }
        jl_closest_point_triangle(xp, x + 3 * tv[0], x + 3 * tv[1], x + 3 * tv[2], q, w);
        double e1[3], e2[3];
        jl_vec3_sub(x + 3 * tv[1], x + 3 * tv[0], e1);
        jl_vec3_sub(x + 3 * tv[2], x + 3 * tv[0], e2);
        jl_vec3_cross(e1, e2, fallback);
        c.kind = JL_THIN_POINT_TRIANGLE;
        c.n = na + 3;
        c.body_b = T;
        for (int a = 0; a < 3; a++) c.node[na + a] = tv[a], c.coef[na + a] = -w[a];
      } else {
        int e = k - f->ntri, E = f->edge_body[e];
        const int *ev = f->edge + 2 * e;
        /* a rope segment against volume and cloth nodes; ropes meet ropes edge to edge */
        if (!f->edge_rope[e] || E == P || geo->body[P].kind == JL_BODY_ROPE) continue;
        double s, t;
        jl_closest_segments(xp, xp, x + 3 * ev[0], x + 3 * ev[1], &s, &t);
        c.kind = JL_THIN_POINT_SEGMENT;
        c.n = na + 2;
        c.body_b = E;
        c.node[na] = ev[0], c.coef[na] = -(1.0 - t);
        c.node[na + 1] = ev[1], c.coef[na + 1] = -t;
      }
      c.radius = geo->body[P].radius + geo->body[c.body_b].radius;
      if (!finish(&c, x, v, h, margin, k < f->ntri ? fallback : NULL)) continue;
      keep(f, c.body_b, &c);
    }
    close_primitive(f, start);
  }
  /* edges against edges (each unordered pair once: the lower edge asks) */
  for (int e = 0; e < f->nedge; e++) {
    int start = f->nout;
    int A = f->edge_body[e];
    const int *ea = f->edge + 2 * e;
    double *eb = f->box + 6 * (f->ntri + e);
    FOR_ITEMS(f, eb, k) {
      if (k < f->ntri + e + 1 || !jl_boxes_overlap(eb, f->box + 6 * k)) continue;
      int o = k - f->ntri, B = f->edge_body[o];
      const int *ebv = f->edge + 2 * o;
      if (ea[0] == ebv[0] || ea[0] == ebv[1] || ea[1] == ebv[0] || ea[1] == ebv[1]) continue;
      if (A == B) {
        if (!geo->body[A].self_collision) continue;
        double rs, rt;
        if (jl_closest_segments(geo->x0 + 3 * ea[0], geo->x0 + 3 * ea[1], geo->x0 + 3 * ebv[0], geo->x0 + 3 * ebv[1],
                                &rs, &rt) < pow(JL_THIN_SELF_EXCLUDE * f->body_len[A], 2))
          continue;
      }
      double s, t;
      jl_closest_segments(x + 3 * ea[0], x + 3 * ea[1], x + 3 * ebv[0], x + 3 * ebv[1], &s, &t);
      JlThinPair c;
      memset(&c, 0, sizeof c);
      c.kind = JL_THIN_EDGE_EDGE;
      c.n = 4;
      c.body_a = A, c.body_b = B;
      c.key = ea[1];
      c.na = 2;
      c.node[0] = ea[0], c.coef[0] = 1.0 - s;
      c.node[1] = ea[1], c.coef[1] = s;
      c.node[2] = ebv[0], c.coef[2] = -(1.0 - t);
      c.node[3] = ebv[1], c.coef[3] = -t;
      c.radius = geo->body[A].radius + geo->body[B].radius;
      double da[3], db[3], fallback[3];
      jl_vec3_sub(x + 3 * ea[1], x + 3 * ea[0], da);
      jl_vec3_sub(x + 3 * ebv[1], x + 3 * ebv[0], db);
      jl_vec3_cross(da, db, fallback);
      /* close now or along the step: the closest points at the start
       * (finish), or the segments' own paths (they may turn within the step) */
      int near = finish(&c, x, v, h, margin, fallback);
      if (!near && jl_vec3_dot(c.dir, c.dir) > 0.0) {
        const double *pp[4] = {x + 3 * ea[0], x + 3 * ea[1], x + 3 * ebv[0], x + 3 * ebv[1]};
        double dpv[4][3];
        for (int q = 0; q < 4; q++)
          for (int a = 0; a < 3; a++) dpv[q][a] = h * v[3 * c.node[q] + a];
        const double *dp[4] = {dpv[0], dpv[1], dpv[2], dpv[3]};
        near = jl_segments_first_within(pp, dp, c.radius + margin, NULL, NULL) >= 0.0;
      }
      if (!near) continue;
      if (f->edge_rope[e] || f->edge_rope[o]) {
        c.key2 = o;
        keep_all(f, &c);
      } else {
        keep(f, B, &c);
      }
    }
    close_primitive(f, start);
  }
  *out = f->out;
  return f->nout;
}

int jl_thin_find(JlThinFinder *f, const JlGeom *geo, const double *x, const double *v, double h,
                 const JlThinPair **out) {
  return find(f, geo, x, v, h, 1, out);
}

int jl_thin_find_edges(JlThinFinder *f, const JlGeom *geo, const double *x, const double *v, double h,
                       const JlThinPair **out) {
  return find(f, geo, x, v, h, 0, out);
}
