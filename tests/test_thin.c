/* Cloth and ropes that collide like cloth and ropes: the acceptance
 * measurements.
 *
 * Each case loads a scene from models/scenes/ through the library with
 * tests/sim.h (as tests/test_contact.c does), overrides its time step, steps
 * it frame by frame at 60 fps and prints one line per scene and step with
 * each metric next to its limit; criteria the engine does not meet yet are in
 * gaps[] below, printed as GAP (JL_TEST_GAPS=1 makes them fail). Every new
 * scene also keeps the energy rule of test_contact (total mechanical energy
 * never rising between consecutive frames by more than 1 % of its scale;
 * metric energy_rise_rel). Under JL_TEST_QUICK (sanitizer runs) every run
 * stops at 0.5 s; criteria "at rest" are then printed but not asserted (n/a).
 *
 * The criteria, as measured here (the issue leaves the details open):
 *  - rope_bridge (rope_bridge.json, also at a true dt of 1/15 s, fps 15):
 *    keg_rise_rel: kinetic + elastic + gravity energy (JlEnergy), after
 *    every step, never above its initial value by more than 1 % of |E(0)|;
 *    the penalty part is printed beside it (pen_at_max, pen_max).
 *    seg_stretch_max: the longest rope segment (consecutive rope nodes) over
 *    its rest length, after every step, at most 1.2. At the end the box rests
 *    on the ropes: its centre of mass above the ropes' lowest node and
 *    between the posts (|x| < 1.5 m), and its kinetic energy at most
 *    1/2 M (5 cm/s)^2.
 *  - cloth_ball_24, cloth_ball_8 (thin_cloth_ball_24/8.json), over the
 *    frames of the last 0.5 s (at rest):
 *    ball_above_cloth_m: how far a surface vertex of the ball stands out of
 *    the cloth. For each vertex p of the ball's render surface
 *    (jl_world_surface) above the ball's centre of mass c, the cloth sheet at
 *    p is the cloth triangle crossed by the ray from c through p (the segment
 *    c -> 2p - c, jl_segment_triangle) nearest to p; p's height above the
 *    cloth is d = n . (p - a), a a corner of that triangle and n its unit
 *    normal pointing away from c (for a vertex on top of the ball: the
 *    height above the cloth's mid-surface, directly above it). Vertices whose
 *    ray meets no cloth triangle are outside the cloth's footprint and not
 *    measured. Limit: d <= thickness + 1 mm. The cloth must cover at least
 *    half of these vertices in every frame of the window (covered_min), or
 *    it slid off and there is nothing to measure.
 *    cloth_in_ball_m: for every cloth node inside the ball's closed render
 *    surface (generalized winding number > 1/2), its distance to the nearest
 *    surface triangle. Limit 2 mm.
 *  - cloth_on_box, rope_on_box (thin_cloth_on_box.json,
 *    thin_rope_on_box.json): the deepest node inside the box obstacle
 *    (jl_obstacle_query: the distance to its nearest face) over the frames
 *    of the last 0.5 s, at most 2 mm (depth_rest_m); the deepest over the
 *    whole run is printed. The thickness kept: the cloth's sheet (thickness
 *    / 2 from its nodes) or the rope's tube (radius) reaches at most 2 mm
 *    into the box (skin_depth_rest_m = max of half-thickness or radius minus
 *    the node's distance outside the box). At least 3 nodes must touch the box
 *    (surface within 5 mm) at the end (touching_end), or the body fell off.
 *  - rope_ends (thin_rope_ends.json): after every step, the smallest
 *    distance between two rope segments more than 3 segments apart along
 *    the rope (segments i, j with |i - j| >= 4) stays >= 2 radius - 1 mm;
 *    that distance must also come below 3 cm at some step, or the scene did
 *    not bring the ends together (ends_met).
 *  - curtain_fold (thin_curtain_fold.json): after every step, every cloth
 *    edge is tested against every triangle of the same cloth that does not
 *    share a vertex with it (jl_segment_triangle, a uniform grid over the
 *    triangles' boxes as broad phase); no crossing may exist at any step
 *    (crossings_max, crossing_steps). The curtain must also fold onto itself:
 *    two nodes at least 4 grid cells apart in the rest shape come within
 *    2 cm at some step (fold_gap_min_m). */
#define _POSIX_C_SOURCE 200809L
#include "collision/narrow.h"
#include "collision/obstacle.h"
#include "tests/sim.h"

#define DT15        (1.0 / 15.0)
#define REST_WINDOW 0.5 /* s: "at rest" = the frames of the run's last REST_WINDOW */

/* Known gaps: acceptance criteria the engine does not meet yet (tests/sim.h
 * says how the table works; docs/collision.md, "Cloth and ropes"). None
 * now; closed:
 *  - cloth_on_box at dt 1/60 (energy +1.09 % in one frame), by the energy
 *    guard (src/world.c);
 *  - rope_ends at dt 1/60 (the ends whip into each other head-on at 8.6 m/s,
 *    14 cm a step, and their segments turned within the step and crossed
 *    between the closest points of its start), by the edge-edge pairs'
 *    linearization where the segments meet and the crossing split (src/contact.c,
 *    src/world.c). rope_ends also runs at dt 1/30 (rope_ends_dt30), where
 *    the step is split. */
const Gap gaps[] = {
    {"", 0, ""}, /* no gap: a placeholder, never matches a case */
};
const size_t ngaps = sizeof gaps / sizeof gaps[0];

/* ---------------------------------------------------------------------------
 * small geometry */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void sub3(const double a[3], const double b[3], double out[3]) {
  for (int k = 0; k < 3; k++) out[k] = a[k] - b[k];
}

static void cross3(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* squared distance between segments p1-q1 and p2-q2 (Ericson, Real-Time
 * Collision Detection, sec. 5.1.9) */
static double seg_seg_dist2(const double p1[3], const double q1[3], const double p2[3], const double q2[3]) {
  double d1[3], d2[3], r[3];
  sub3(q1, p1, d1);
  sub3(q2, p2, d2);
  sub3(p1, p2, r);
  double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r), s, t;
  if (a <= 1e-30 && e <= 1e-30) {
    s = t = 0;
  } else if (a <= 1e-30) {
    s = 0, t = fmin(fmax(f / e, 0), 1);
  } else {
    double c = dot3(d1, r);
    if (e <= 1e-30) {
      t = 0, s = fmin(fmax(-c / a, 0), 1);
    } else {
      double b = dot3(d1, d2), den = a * e - b * b;
      s = den > 0 ? fmin(fmax((b * f - c * e) / den, 0), 1) : 0;
      t = (b * s + f) / e;
      if (t < 0)
        t = 0, s = fmin(fmax(-c / a, 0), 1);
      else if (t > 1)
        t = 1, s = fmin(fmax((b - c) / a, 0), 1);
    }
  }
  double c1[3], c2[3], d[3];
  for (int k = 0; k < 3; k++) c1[k] = p1[k] + s * d1[k], c2[k] = p2[k] + t * d2[k];
  sub3(c1, c2, d);
  return dot3(d, d);
}

/* solid angle of triangle abc seen from p, over 4 pi (van Oosterom &
 * Strackee 1983); summed over a closed outward surface: 1 inside, 0 outside */
static double winding(const double p[3], const double *a, const double *b, const double *c) {
  double u[3], v[3], w[3], vw[3];
  sub3(a, p, u);
  sub3(b, p, v);
  sub3(c, p, w);
  double lu = sqrt(dot3(u, u)), lv = sqrt(dot3(v, v)), lw = sqrt(dot3(w, w));
  cross3(v, w, vw);
  double num = dot3(u, vw);
  double den = lu * lv * lw + dot3(u, v) * lw + dot3(v, w) * lu + dot3(w, u) * lv;
  return atan2(num, den) / (2.0 * PI);
}

/* the scene's body of a kind (the first one) */
static int body_of_kind(const Sim *s, JlBodyKind kind) {
  for (int b = 0; b < s->w.model->nbody; b++)
    if (s->w.model->body[b].kind == kind) return b;
  return -1;
}

static int check_kind(const Sim *s, int b, const char *what) {
  if (b >= 0) return 1;
  jl_test_fail(__FILE__, __LINE__, "%s: no %s body", s->scene, what);
  return 0;
}

/* opens scene `file` and returns its body of kind `kind` (`what` names it in
 * the failure); -1, with the sim closed or never opened, when either fails */
static int open_with_body(Sim *s, const char *file, double dt, JlBodyKind kind, const char *what) {
  if (!sim_open(s, file, dt, 0, 0)) return -1;
  int b = body_of_kind(s, kind);
  if (!check_kind(s, b, what)) {
    sim_close(s);
    return -1;
  }
  return b;
}

/* ---------------------------------------------------------------------------
 * rope_bridge.json: energy bounded, segments not overstretched, the box stays
 * on the ropes */

typedef struct Bridge {
  int rope[2], box;
  double *rest;    /* rest length of each rope's segments, per rope node (last unused) */
  double e0;       /* J, kinetic + elastic + gravity at t = 0 */
  double rise_max; /* J, largest (K + E + G) - e0 after a step */
  double rise_t, pen_at_max, pen_max;
  double stretch_max; /* largest segment length / rest length */
  double stretch_t;
} Bridge;

static double keg(const JlWorld *w, double *penalty) {
  JlEnergy e;
  jl_world_energy(w, &e);
  if (penalty) *penalty = e.ground;
  return e.kinetic + e.elastic + e.gravity;
}

static void bridge_check(Sim *s, void *ctx) {
  Bridge *br = ctx;
  double pen, e = keg(&s->w, &pen);
  if (!(e - br->e0 <= br->rise_max)) br->rise_max = e - br->e0, br->rise_t = sim_t(s), br->pen_at_max = pen;
  br->pen_max = fmax(br->pen_max, pen);
  const double *x = s->w.state.x;
  for (int r = 0; r < 2; r++) {
    const JlBody *b = &s->w.model->body[br->rope[r]];
    for (int i = b->node_begin; i + 1 < b->node_begin + b->node_count; i++) {
      double ratio = dist3(&x[3 * i], &x[3 * i + 3]) / br->rest[i];
      if (!(ratio <= br->stretch_max)) br->stretch_max = ratio, br->stretch_t = sim_t(s);
    }
  }
}

static void rope_bridge(double dt) {
  Sim s;
  /* dt longer than a frame of 60 fps: a true step, fps = 1/dt */
  if (!sim_open(&s, "rope_bridge.json", dt, dt > DT60 + 1e-12 ? 1.0 / dt : 60.0, 0)) return;
  const JlModel *m = s.w.model;
  Bridge br;
  memset(&br, 0, sizeof br);
  br.rope[0] = body_index(&s, "rope_front"), br.rope[1] = body_index(&s, "rope_back");
  br.box = body_index(&s, "box");
  br.rest = calloc((size_t)m->nnode, sizeof(double));
  for (int r = 0; r < 2; r++) {
    const JlBody *b = &m->body[br.rope[r]];
    for (int i = b->node_begin; i + 1 < b->node_begin + b->node_count; i++)
      br.rest[i] = dist3(&m->x0[3 * i], &m->x0[3 * i + 3]);
  }
  br.e0 = keg(&s.w, &br.pen_max);
  br.rise_max = -INFINITY;
  /* resting on the ropes: through the last REST_WINDOW the box's centre stays
   * above the ropes' lowest node, between the posts, and over both ropes
   * and has not crept sideways (|z| < 3 cm; the ropes run at z = +-0.12 under a
   * 0.4 m deep box). The
   * box may still bob on the elastic ropes (their dashpots, 1 N s/m a segment,
   * damp that slowly; implicit Euler at dt 1/60 much faster), so its kinetic
   * energy at the end is reported, not bounded. */
  int supported = 1;
  double c[3] = {0, 0, 0}, lo = INFINITY, unused;
  while (sim_frame(&s, bridge_check, &br)) {
    if (sim_t(&s) < s.t_end - REST_WINDOW - 1e-9) continue;
    body_com(&s.w, br.box, c);
    lo = INFINITY;
    for (int r = 0; r < 2; r++) {
      double rl;
      body_y_range(&s.w, br.rope[r], &rl, &unused);
      lo = fmin(lo, rl);
    }
    supported &= c[1] > lo && fabs(c[0]) < 1.5 && fabs(c[2]) < 0.03;
  }
  double mass = body_mass(&s.w, br.box), ke = body_ke(&s.w, br.box);
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, "rope_bridge", &s);
  rep_metric(&r, "keg_rise_rel", br.rise_max / fabs(br.e0), LE, 0.01, 1);
  rep_add(&r, "  (E0 %.4g J, max at t=%.3f, pen_at_max %.3g J, pen_max %.3g J)", br.e0, br.rise_t, br.pen_at_max,
          br.pen_max);
  rep_metric(&r, "seg_stretch_max", br.stretch_max, LE, 1.2, 1);
  rep_info(&r, "stretch_t", br.stretch_t);
  rep_metric(&r, "box_on_ropes_end", supported, GE, 1, full);
  rep_info(&r, "box_ke_end", ke);
  rep_info(&r, "box_speed_end", sqrt(2.0 * ke / mass));
  rep_info(&r, "box_z_end", c[2]);
  rep_info(&r, "box_y_end", c[1]);
  rep_info(&r, "rope_lowest_y_end", lo);
  rep_finish(&r, &s);
  free(br.rest);
  sim_close(&s);
}
TWO_DT(rope_bridge)
static void rope_bridge_dt15(void) { rope_bridge(DT15); }

/* ---------------------------------------------------------------------------
 * cloth dropped on a soft ball: the ball stays under the cloth, the cloth
 * outside the ball */

typedef struct ClothBall {
  int ball, cloth;
  double *surf;       /* ball surface vertices, nvert x 3 */
  int f_rest;         /* first frame of the rest window */
  double above_max;   /* m, ball_above_cloth over the rest window */
  int above_count;    /* vertices above the limit in the worst frame */
  int covered;        /* vertices measured in that frame */
  double covered_min; /* smallest fraction of the upper vertices covered, over the rest window */
  double inside_max;  /* m, cloth_in_ball over the rest window */
  int inside_count;   /* cloth nodes inside the ball in the worst frame */
  double limit;       /* m, thickness + 1 mm */
} ClothBall;

/* largest height of a ball surface vertex above the cloth (comment at the
 * top); *n_over = vertices above `limit`, *n_cov = vertices measured (covered
 * by the cloth), *n_up = vertices above the ball's centre */
static double ball_above_cloth(const Sim *s, ClothBall *cb, double limit, int *n_over, int *n_cov, int *n_up) {
  const JlModel *m = s->w.model;
  const JlBody *ball = &m->body[cb->ball], *cloth = &m->body[cb->cloth];
  const double *x = s->w.state.x + 3 * (size_t)cloth->node_begin;
  double c[3], worst = -INFINITY;
  body_com(&s->w, cb->ball, c);
  jl_world_surface(&s->w, cb->ball, cb->surf);
  *n_over = *n_cov = *n_up = 0;
  for (int v = 0; v < ball->surface.nvert; v++) {
    const double *p = &cb->surf[3 * v];
    if (p[1] <= c[1]) continue;
    (*n_up)++;
    /* the cloth sheet at p: the crossing of the ray c -> 2p - c nearest to p */
    double far[3], best = INFINITY, best_d = 0;
    for (int k = 0; k < 3; k++) far[k] = 2.0 * p[k] - c[k];
    for (int t = 0; t < cloth->surface.ntri; t++) {
      const int *tri = &cloth->surface.tri[3 * t];
      const double *a = &x[3 * tri[0]], *b = &x[3 * tri[1]], *q = &x[3 * tri[2]];
      double sp, bary[3];
      if (!jl_segment_triangle(c, far, a, b, q, &sp, bary) || fabs(sp - 0.5) >= best) continue;
      /* p's height above the sheet along its normal, taken away from c */
      double e1[3], e2[3], n[3], ap[3], ac[3];
      sub3(b, a, e1);
      sub3(q, a, e2);
      cross3(e1, e2, n);
      sub3(p, a, ap);
      sub3(a, c, ac);
      double ln = sqrt(dot3(n, n));
      if (!(ln > 0)) continue;
      if (dot3(n, ac) < 0) ln = -ln;
      best = fabs(sp - 0.5);
      best_d = dot3(n, ap) / ln;
    }
    if (best == INFINITY) continue;
    (*n_cov)++;
    if (best_d > limit) (*n_over)++;
    worst = fmax(worst, best_d);
  }
  return worst;
}

/* deepest cloth node inside the ball's closed surface (m; 0 when none);
 * *n_in = nodes inside */
static double cloth_in_ball(const Sim *s, ClothBall *cb, int *n_in) {
  const JlModel *m = s->w.model;
  const JlBody *ball = &m->body[cb->ball], *cloth = &m->body[cb->cloth];
  const JlSurface *sf = &ball->surface;
  jl_world_surface(&s->w, cb->ball, cb->surf);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < sf->nvert; v++)
    for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], cb->surf[3 * v + k]), hi[k] = fmax(hi[k], cb->surf[3 * v + k]);
  double worst = 0;
  *n_in = 0;
  for (int i = cloth->node_begin; i < cloth->node_begin + cloth->node_count; i++) {
    const double *p = &s->w.state.x[3 * i];
    if (p[0] < lo[0] || p[0] > hi[0] || p[1] < lo[1] || p[1] > hi[1] || p[2] < lo[2] || p[2] > hi[2]) continue;
    double wn = 0, d2 = INFINITY;
    for (int t = 0; t < sf->ntri; t++) {
      const double *a = &cb->surf[3 * sf->tri[3 * t]], *b = &cb->surf[3 * sf->tri[3 * t + 1]],
                   *c = &cb->surf[3 * sf->tri[3 * t + 2]];
      wn += winding(p, a, b, c);
      double q[3], bary[3];
      d2 = fmin(d2, jl_closest_point_triangle(p, a, b, c, q, bary));
    }
    if (wn > 0.5) {
      (*n_in)++;
      worst = fmax(worst, sqrt(d2));
    }
  }
  return worst;
}

static void cloth_ball(const char *scene, const char *label, double dt) {
  Sim s;
  if (!sim_open(&s, scene, dt, 0, 0)) return;
  ClothBall cb;
  memset(&cb, 0, sizeof cb);
  cb.ball = body_of_kind(&s, JL_BODY_VOLUME), cb.cloth = body_of_kind(&s, JL_BODY_CLOTH);
  if (!check_kind(&s, cb.ball, "volume") || !check_kind(&s, cb.cloth, "cloth")) {
    sim_close(&s);
    return;
  }
  const JlBody *cloth = &s.w.model->body[cb.cloth];
  cb.limit = 2.0 * cloth->radius + 1e-3;
  cb.surf = malloc(3 * sizeof(double) * (size_t)s.w.model->body[cb.ball].surface.nvert);
  cb.f_rest = s.nframe - frame_at(&s, REST_WINDOW);
  cb.above_max = -INFINITY;
  cb.covered_min = 1.0;
  while (sim_frame(&s, NULL, NULL)) {
    if (s.frame < cb.f_rest) continue;
    int n_over, n_cov, n_up, n_in;
    double above = ball_above_cloth(&s, &cb, cb.limit, &n_over, &n_cov, &n_up);
    cb.covered_min = fmin(cb.covered_min, n_up > 0 ? (double)n_cov / n_up : 0.0);
    if (!(above <= cb.above_max)) cb.above_max = above, cb.above_count = n_over, cb.covered = n_cov;
    double inside = cloth_in_ball(&s, &cb, &n_in);
    if (inside >= cb.inside_max) cb.inside_max = inside, cb.inside_count = n_in;
  }
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, label, &s);
  rep_metric(&r, "ball_above_cloth_m", cb.above_max, LE, cb.limit, full);
  rep_add(&r, "  (%d of %d covered vertices above the limit)", cb.above_count, cb.covered);
  rep_metric(&r, "cloth_in_ball_m", cb.inside_max, LE, 2e-3, full);
  rep_add(&r, "  (%d nodes inside)", cb.inside_count);
  rep_metric(&r, "covered_min", cb.covered_min, GE, 0.5, full);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  free(cb.surf);
  sim_close(&s);
}

static void cloth_ball_24(double dt) { cloth_ball("thin_cloth_ball_24.json", "cloth_ball_24", dt); }
static void cloth_ball_8(double dt) { cloth_ball("thin_cloth_ball_8.json", "cloth_ball_8", dt); }
TWO_DT(cloth_ball_24)
TWO_DT(cloth_ball_8)

/* ---------------------------------------------------------------------------
 * cloth and rope draped over a box obstacle: no node sinks into the box */

/* deepest node of body b inside any box obstacle (m; 0 when none) and, in
 * *skin, how far its surface (thickness / 2 or radius from the node) reaches
 * into a box (m; 0 when none); *touching = nodes whose surface is within
 * 5 mm of a box */
static double box_depth(const Sim *s, int b, double *skin, int *touching) {
  const JlModel *m = s->w.model;
  const JlBody *bd = &m->body[b];
  double worst = 0;
  *skin = 0;
  *touching = 0;
  for (int k = 0; k < m->nobstacle; k++) {
    if (m->obstacle[k].type != JL_OBSTACLE_BOX) continue;
    for (int i = bd->node_begin; i < bd->node_begin + bd->node_count; i++) {
      JlObstacleHit hit;
      if (!jl_obstacle_query(&m->obstacle[k], &s->w.state.x[3 * i], bd->radius + 5e-3, -1, &hit)) continue;
      (*touching)++;
      worst = fmax(worst, -hit.dist);
      *skin = fmax(*skin, bd->radius - hit.dist);
    }
  }
  return worst;
}

static void on_box(const char *scene, const char *label, JlBodyKind kind, double dt) {
  Sim s;
  if (!sim_open(&s, scene, dt, 0, 0)) return;
  int b = body_of_kind(&s, kind), f_rest = s.nframe - frame_at(&s, REST_WINDOW);
  if (!check_kind(&s, b, kind == JL_BODY_ROPE ? "rope" : "cloth")) {
    sim_close(&s);
    return;
  }
  double rest = 0, run = 0, skin_rest = 0;
  int touching = 0;
  while (sim_frame(&s, NULL, NULL)) {
    double skin, d = box_depth(&s, b, &skin, &touching);
    run = fmax(run, d);
    if (s.frame >= f_rest) rest = fmax(rest, d), skin_rest = fmax(skin_rest, skin);
  }
  Report r;
  rep_start(&r, label, &s);
  rep_metric(&r, "depth_rest_m", rest, LE, 2e-3, !jl_test_quick());
  rep_info(&r, "depth_run_m", run);
  rep_metric(&r, "skin_depth_rest_m", skin_rest, LE, 2e-3, !jl_test_quick());
  rep_metric(&r, "touching_end", touching, GE, 3, 1);
  rep_info(&r, "ke_end", body_ke(&s.w, b));
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}

static void cloth_on_box(double dt) { on_box("thin_cloth_on_box.json", "cloth_on_box", JL_BODY_CLOTH, dt); }
static void rope_on_box(double dt) { on_box("thin_rope_on_box.json", "rope_on_box", JL_BODY_ROPE, dt); }
TWO_DT(cloth_on_box)
TWO_DT(rope_on_box)

/* ---------------------------------------------------------------------------
 * a rope's two ends swinging into each other never cross */

typedef struct Ends {
  int rope;
  double min_dist; /* m, smallest distance of segments >= 4 apart */
  double min_t;
  int min_i, min_j; /* the segments */
  int bad_steps;    /* steps below the limit */
  double limit;     /* m, 2 radius - 1 mm */
} Ends;

static void ends_check(Sim *s, void *ctx) {
  Ends *e = ctx;
  const JlBody *b = &s->w.model->body[e->rope];
  const double *x = s->w.state.x + 3 * (size_t)b->node_begin;
  int nseg = b->node_count - 1, bad = 0;
  for (int i = 0; i < nseg; i++)
    for (int j = i + 4; j < nseg; j++) {
      double d = sqrt(seg_seg_dist2(&x[3 * i], &x[3 * i + 3], &x[3 * j], &x[3 * j + 3]));
      if (d < e->limit) bad = 1;
      if (!(d >= e->min_dist)) e->min_dist = d, e->min_t = sim_t(s), e->min_i = i, e->min_j = j;
    }
  e->bad_steps += bad;
}

static void rope_ends(double dt) {
  Sim s;
  int rope = open_with_body(&s, "thin_rope_ends.json", dt, JL_BODY_ROPE, "rope");
  if (rope < 0) return;
  Ends e = {.rope = rope};
  e.limit = 2.0 * s.w.model->body[e.rope].radius - 1e-3;
  e.min_dist = INFINITY;
  while (sim_frame(&s, ends_check, &e)) {
  }
  Report r;
  rep_start(&r, "rope_ends", &s);
  rep_metric(&r, "seg_dist_min_m", e.min_dist, GE, e.limit, 1);
  rep_add(&r, "  (segments %d and %d at t=%.3f, %d steps below; %ld steps split for crossing)", e.min_i, e.min_j,
          e.min_t, e.bad_steps, s.crossing_splits);
  rep_metric(&r, "ends_met", e.min_dist, LE, 0.03, !jl_test_quick());
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
TWO_DT(rope_ends)
static void rope_ends_dt30(void) { rope_ends(1.0 / 30.0); }

/* ---------------------------------------------------------------------------
 * a curtain folding onto itself never passes through itself */

typedef struct Fold {
  int cloth;
  const double *x0; /* the cloth's rest positions, node_count x 3 */
  double apart;     /* m, rest distance of nodes 4 grid cells apart (4 x the shortest edge) */
  int nedge, *edge; /* nedge x 2, local node ids */
  int ntri;
  const int *tri; /* ntri x 3, local node ids */
  /* uniform grid over the triangles' boxes: cell edge `cell`, nbucket hashed buckets */
  double cell;
  int nbucket, *start, *item, nitem_cap, *stamp;
  int crossings_max, crossing_steps;
  double first_t;
  double fold_gap; /* m, smallest distance of two nodes at least `apart` apart at rest */
  int wind;
} Fold;

static int cell_of(double v, double cell) { return (int)floor(v / cell); }

static unsigned bucket_of(int i, int j, int k, int nbucket) {
  return ((unsigned)i * 73856093u ^ (unsigned)j * 19349663u ^ (unsigned)k * 83492791u) % (unsigned)nbucket;
}

static void tri_box(const double *x, const int *t, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    lo[k] = fmin(fmin(x[3 * t[0] + k], x[3 * t[1] + k]), x[3 * t[2] + k]);
    hi[k] = fmax(fmax(x[3 * t[0] + k], x[3 * t[1] + k]), x[3 * t[2] + k]);
  }
}

/* edge-triangle crossings of the cloth's current state */
static int fold_crossings(Fold *f, const double *x) {
  /* bucket the triangles: count, prefix sums, fill */
  memset(f->start, 0, sizeof(int) * (size_t)(f->nbucket + 1));
  for (int pass = 0; pass < 2; pass++) {
    for (int t = 0; t < f->ntri; t++) {
      double lo[3], hi[3];
      tri_box(x, &f->tri[3 * t], lo, hi);
      for (int i = cell_of(lo[0], f->cell); i <= cell_of(hi[0], f->cell); i++)
        for (int j = cell_of(lo[1], f->cell); j <= cell_of(hi[1], f->cell); j++)
          for (int k = cell_of(lo[2], f->cell); k <= cell_of(hi[2], f->cell); k++) {
            unsigned bk = bucket_of(i, j, k, f->nbucket);
            if (pass == 0)
              f->start[bk + 1]++;
            else
              f->item[f->start[bk]++] = t;
          }
    }
    if (pass == 0) {
      for (int b = 0; b < f->nbucket; b++) f->start[b + 1] += f->start[b];
      if (f->start[f->nbucket] > f->nitem_cap) {
        f->nitem_cap = 2 * f->start[f->nbucket];
        f->item = realloc(f->item, sizeof(int) * (size_t)f->nitem_cap);
      }
    } else {
      for (int b = f->nbucket; b > 0; b--) f->start[b] = f->start[b - 1];
      f->start[0] = 0;
    }
  }
  /* each edge against the triangles in its box's cells */
  int n = 0;
  for (int t = 0; t < f->ntri; t++) f->stamp[t] = -1;
  for (int e = 0; e < f->nedge; e++) {
    int a = f->edge[2 * e], b = f->edge[2 * e + 1];
    const double *p = &x[3 * a], *q = &x[3 * b];
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = fmin(p[k], q[k]), hi[k] = fmax(p[k], q[k]);
    for (int i = cell_of(lo[0], f->cell); i <= cell_of(hi[0], f->cell); i++)
      for (int j = cell_of(lo[1], f->cell); j <= cell_of(hi[1], f->cell); j++)
        for (int k = cell_of(lo[2], f->cell); k <= cell_of(hi[2], f->cell); k++) {
          unsigned bk = bucket_of(i, j, k, f->nbucket);
          for (int it = f->start[bk]; it < f->start[bk + 1]; it++) {
            int t = f->item[it];
            if (f->stamp[t] == e) continue;
            f->stamp[t] = e;
            const int *tr = &f->tri[3 * t];
            if (tr[0] == a || tr[1] == a || tr[2] == a || tr[0] == b || tr[1] == b || tr[2] == b) continue;
            double tlo[3], thi[3], sp, bary[3];
            tri_box(x, tr, tlo, thi);
            if (tlo[0] > hi[0] || thi[0] < lo[0] || tlo[1] > hi[1] || thi[1] < lo[1] || tlo[2] > hi[2] ||
                thi[2] < lo[2])
              continue;
            n += jl_segment_triangle(p, q, &x[3 * tr[0]], &x[3 * tr[1]], &x[3 * tr[2]], &sp, bary);
          }
        }
  }
  return n;
}

static void fold_check(Sim *s, void *ctx) {
  Fold *f = ctx;
  const JlBody *b = &s->w.model->body[f->cloth];
  const double *x = s->w.state.x + 3 * (size_t)b->node_begin;
  int n = fold_crossings(f, x);
  if (n > 0 && f->crossing_steps++ == 0) f->first_t = sim_t(s);
  if (n > f->crossings_max) f->crossings_max = n;
  /* nodes 4 grid cells or more apart in the rest shape */
  int nn = b->node_count;
  for (int u = 0; u < nn; u++)
    for (int v = u + 1; v < nn; v++) {
      if (dist3(&f->x0[3 * u], &f->x0[3 * v]) < f->apart) continue;
      double d = dist3(&x[3 * u], &x[3 * v]);
      if (d < f->fold_gap) f->fold_gap = d;
    }
}

static void curtain_fold(double dt) {
  Sim s;
  int cloth = open_with_body(&s, "thin_curtain_fold.json", dt, JL_BODY_CLOTH, "cloth");
  if (cloth < 0) return;
  Fold f = {.cloth = cloth};
  const JlModel *m = s.w.model;
  const JlBody *b = &m->body[f.cloth];
  f.tri = b->surface.tri, f.ntri = b->surface.ntri;
  /* unique edges of the triangles */
  f.edge = malloc(sizeof(int) * 6 * (size_t)f.ntri);
  for (int t = 0; t < f.ntri; t++)
    for (int k = 0; k < 3; k++) {
      int a = f.tri[3 * t + k], c = f.tri[3 * t + (k + 1) % 3], lo = a < c ? a : c, hi = a < c ? c : a, dup = 0;
      for (int e = 0; e < f.nedge && !dup; e++) dup = f.edge[2 * e] == lo && f.edge[2 * e + 1] == hi;
      if (!dup) f.edge[2 * f.nedge] = lo, f.edge[2 * f.nedge + 1] = hi, f.nedge++;
    }
  double mean = 0;
  for (int e = 0; e < f.nedge; e++)
    mean += dist3(&m->x0[3 * (b->node_begin + f.edge[2 * e])], &m->x0[3 * (b->node_begin + f.edge[2 * e + 1])]);
  f.cell = 2.0 * mean / f.nedge;
  /* rest distance beyond which two nodes count as apart: 4 grid cells */
  f.apart = INFINITY;
  for (int e = 0; e < f.nedge; e++)
    f.apart = fmin(f.apart, 4.0 * dist3(&m->x0[3 * (b->node_begin + f.edge[2 * e])],
                                        &m->x0[3 * (b->node_begin + f.edge[2 * e + 1])]));
  f.x0 = m->x0 + 3 * (size_t)b->node_begin;
  f.nbucket = 4 * f.ntri + 1;
  f.start = malloc(sizeof(int) * (size_t)(f.nbucket + 1));
  f.stamp = malloc(sizeof(int) * (size_t)f.ntri);
  f.first_t = NAN;
  f.fold_gap = INFINITY;
  f.wind = m->world.wind_drag > 0;
  while (sim_frame(&s, fold_check, &f)) {
  }
  Report r;
  rep_start(&r, "curtain_fold", &s);
  rep_metric(&r, "crossings_max", f.crossings_max, LE, 0, 1);
  rep_metric(&r, "crossing_steps", f.crossing_steps, LE, 0, 1);
  rep_info(&r, "first_crossing_t", f.first_t);
  rep_metric(&r, "fold_gap_min_m", f.fold_gap, LE, 0.02, !jl_test_quick());
  if (f.wind)
    rep_add(&r, "  energy: skipped (wind)");
  else
    rep_energy(&r, &s);
  rep_finish(&r, &s);
  free(f.edge), free(f.start), free(f.item), free(f.stamp);
  sim_close(&s);
}
TWO_DT(curtain_fold)

/* ---------------------------------------------------------------------------
 * the measuring tools on known answers */

static void geometry(void) {
  /* segments: crossing, parallel 3 apart, skew 2 apart, end to end */
  const double a0[3] = {-1, 0, 0}, a1[3] = {1, 0, 0}, b0[3] = {0, -1, 0}, b1[3] = {0, 1, 0};
  const double c0[3] = {-1, 3, 0}, c1[3] = {1, 3, 0}, d0[3] = {0, -1, 2}, d1[3] = {0, 1, 2};
  const double e0[3] = {3, 0, 0}, e1[3] = {5, 0, 0};
  ENSURE_NEAR(seg_seg_dist2(a0, a1, b0, b1), 0.0, 1e-15);
  ENSURE_NEAR(seg_seg_dist2(a0, a1, c0, c1), 9.0, 1e-12);
  ENSURE_NEAR(seg_seg_dist2(a0, a1, d0, d1), 4.0, 1e-12);
  ENSURE_NEAR(seg_seg_dist2(a0, a1, e0, e1), 4.0, 1e-12);
  /* winding number of a closed outward tetrahedron: 1 inside, 0 outside */
  const double v[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const int f[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  const double in[3] = {0.1, 0.2, 0.3}, out[3] = {0.5, 0.5, 0.5};
  double w_in = 0, w_out = 0;
  for (int k = 0; k < 4; k++) {
    w_in += winding(in, v[f[k][0]], v[f[k][1]], v[f[k][2]]);
    w_out += winding(out, v[f[k][0]], v[f[k][1]], v[f[k][2]]);
  }
  ENSURE_NEAR(w_in, 1.0, 1e-12);
  ENSURE_NEAR(w_out, 0.0, 1e-12);
}

#define CASE2(fn) \
  {#fn "_dt60", fn##_dt60}, { #fn "_dt002", fn##_dt002 }
/* the same, its dt 1/60 run also in the sanitizer stage (JL_SHORT, tests/harness.h) */
#define CASE2S(fn) \
  {#fn "_dt60", fn##_dt60, JL_SCENE | JL_SHORT}, { #fn "_dt002", fn##_dt002 }

#define JL_TEST_TIER JL_SCENE /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"geometry", geometry, JL_UNIT}, CASE2S(rope_bridge), {"rope_bridge_dt15", rope_bridge_dt15},
             CASE2(cloth_ball_24), CASE2S(cloth_ball_8), CASE2S(cloth_on_box), CASE2S(rope_on_box), CASE2S(rope_ends),
             {"rope_ends_dt30", rope_ends_dt30}, CASE2S(curtain_fold))
