/* Contact that holds up: the acceptance measurements of the contact issue.
 *
 * Each case loads a scene from models/scenes/ through the library
 * (jl_scene_load, jl_scene_build, jl_world_create, as `jelly run` does),
 * overrides its time step, steps it frame by frame (output cadence 60 fps
 * unless noted) and prints one line per scene and step:
 *
 *     case dt=... h=... metric=value (limit ...) ok|FAIL ... [wall s]
 *
 * "dt" is the largest step asked for; each frame of 1/fps is split into
 * ceil((1/fps)/dt) equal steps of length h (as `jelly run`), so dt = 0.002 at
 * 60 fps runs h = 1/540 s. Every run also tracks the energy rule of criterion 8
 * (total mechanical energy never rising between consecutive frames by more than
 * 1 % of its scale), asserted by each case on its own run (metric
 * energy_rise_rel).
 *
 * With JL_TEST_QUICK set (sanitizer runs) every run stops at QUICK_T
 * simulated seconds; criteria whose measurement window lies beyond that are
 * printed but not asserted ("n/a"), the large-step cases are skipped.
 *
 * Choices documented here (the issue leaves them open):
 *  - ball_thrown: the drift window starts at the first frame after t = 0 at
 *    which the ball touches the box (contact count > 0) with kinetic energy
 *    below 1e-2 J, and at 1.5 s at the latest.
 *  - rest_friction: drift is the 3-D distance of each body's centre of mass
 *    from its position at the settle time 1 s, maximum over 1 s..4 s.
 *  - incline_stick: creep = |s(3 s) - s(1 s)| / 2 s, s the centre of mass
 *    along the slope direction.
 *  - incline_slide: s(t) fitted by least squares with s0 + v0 t + a t^2 / 2
 *    over frames from 0.25 s (landing and onset done) until the block's lower
 *    edge is 5 cm from the incline's end (or the scene's end).
 *  - tunnelling: checked after every step; a ball node is "through" when its
 *    x, z lie within the slab's current x-z extent and its y is more than
 *    TUNNEL_TOL below the lowest slab node within TUNNEL_R horizontally (the
 *    slab's local bottom, so a bending, moving slab is followed).
 *  - stack8: order kept = every cube's centre above the one below at every
 *    frame, and at 4 s each centre within half a cube (0.1 m) horizontally of
 *    the one below; the top cube's drift is measured from its start; at
 *    dt 1/60 no step in which contacts pushed cubes out of each other
 *    (JL_WARN_PUSH_OUT).
 *  - energy: E = kinetic + elastic + gravity + penalty (JlEnergy fields, the
 *    penalty being ground + contacts); the scale is |E(0)|, or KE(0) +
 *    |gravity(0)| when |E(0)| is below 1 % of that (E(0) ~ 0 by cancellation);
 *    each line names the largest rise and the change of each part there.
 *    Scenes with wind are skipped (external work). contact_overlap_start
 *    starts the rule at its first frame without contacts: before the first
 *    detection the contact element reports no penalty energy, so E(0) misses
 *    the overlap's energy (the push-out itself is criterion 9).
 *  - push-out (overlap_start, half_below_ground): the limit applies to the
 *    largest total kinetic energy of the run after t = 0.
 *  - resting depth: maximum over the last 0.5 s of the run; the small ball's
 *    depth is the obstacle's top minus its lowest node, the cubes' the
 *    deepest contact (jl_contact_max_depth).
 *  - edge_entry: from 0.5 s on, no node inside the box's footprint more than
 *    2 mm below its top, no node beyond the side face (x > side + 0.5 mm)
 *    lower than 2 mm below the top, and the cube's centre still over the box
 *    at the end.
 *  - large steps: true steps of 1/30 and 1/15 s (fps = 1/dt); the vertical
 *    order is checked for stack.json, squeeze.json and the contact stacks
 *    (bodies sorted by their initial centre height must stay sorted at every
 *    frame). contact_stack8.json at 1/15 s rose by 1.1 % in one frame before
 *    the active-set passes could outlast four while they only switch contacts
 *    on (src/implicit.c): its upper cubes were pushed out of the ones below
 *    them, which one step had let them fall into. */
#define _POSIX_C_SOURCE 200809L
#include "tests/sim.h"

#include "mesh/shapes.h"
#include "mesh/tetmesh.h"
#include "src/output.h"

#define TUNNEL_TOL 1e-3 /* m */
#define TUNNEL_R   0.05 /* m, horizontal radius of the slab's local bottom */

/* Known gaps: criteria of the contact issue the engine does not meet yet
 * (docs/collision.md, "Open"); tests/sim.h says how the table works. */
const Gap gaps[] = {
    {"", 0, ""}, /* no gap: a placeholder, never matches a case */
                 /* closed by rolling resistance and material damping (src/rolling.c, docs/physics.md): ball_on_box,
     * ball_thrown, rest_friction (the ball) and stack8 (kinetic energy at 4 s) at both time steps */
                 /* momentum_drift_rel at dt 1/60 (7e-5 of the momentum, the solver's residual) closed by the implicit
     * step's momentum restoration (src/implicit.c): 5e-16 */
    /* half_below_ground ke_max (1.83 J, 2.51 J) closed by the push-out ramp (src/penalty.h jl_push_out_step);
     * edge_entry at dt 0.002: its cube tips over the edge (physics), its exits counted apart */
    /* closed by the implicit step's energy guard (src/world.c): large_step stack.json and drape.json
     * at 1/15 s (2.9 % and 7.3 % before, 0.87 % and < 0 after) */
    /* head_on's transverse momentum: an asserted bound of 0.6 % (see head_on) */
};
const size_t ngaps = sizeof gaps / sizeof gaps[0];

/* ---------------------------------------------------------------------------
 * 1, 2: a ball landing on a soft box comes to rest and stays */

/* ball on top: centre above the box's highest node, within its footprint */
static int ball_on_top(const JlWorld *w, int ball, int box, double half_x, double half_z) {
  double cb[3], cx[3], lo, hi;
  body_com(w, ball, cb);
  body_com(w, box, cx);
  body_y_range(w, box, &lo, &hi);
  return cb[1] > hi && fabs(cb[0] - cx[0]) < half_x && fabs(cb[2] - cx[2]) < half_z;
}

static void ball_on_box(double dt) {
  Sim s;
  if (!sim_open(&s, "contact_ball_on_box.json", dt, 0, 4.0)) return;
  int ball = body_index(&s, "ball"), box = body_index(&s, "box");
  int f0 = frame_at(&s, 0.5);
  double c0[3] = {0}, drift = 0;
  while (sim_frame(&s, NULL, NULL)) {
    double c[3];
    body_com(&s.w, ball, c);
    if (s.frame == f0) memcpy(c0, c, sizeof c0);
    if (s.frame >= f0) drift = fmax(drift, hdist(c, c0));
  }
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, "ball_on_box", &s);
  rep_metric(&r, "ball_ke_4s", body_ke(&s.w, ball), LE, 1e-3, full);
  rep_metric(&r, "drift_0.5_4s", drift, LE, 2e-3, full);
  rep_metric(&r, "on_top", ball_on_top(&s.w, ball, box, 0.3, 0.3), GE, 1, full);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
TWO_DT(ball_on_box)

static void ball_thrown(double dt) {
  Sim s;
  if (!sim_open(&s, "contact_ball_thrown.json", dt, 0, 4.0)) return;
  int ball = body_index(&s, "ball"), box = body_index(&s, "box");
  int settled = -1, fmax_settle = frame_at(&s, 1.5);
  double c0[3] = {0}, drift = 0;
  while (sim_frame(&s, NULL, NULL)) {
    double c[3];
    body_com(&s.w, ball, c);
    if (settled < 0 && s.frame > 0 &&
        ((contact_count(&s.w) > 0 && body_ke(&s.w, ball) < 1e-2) || s.frame >= fmax_settle)) {
      settled = s.frame;
      memcpy(c0, c, sizeof c0);
    }
    if (settled >= 0) drift = fmax(drift, hdist(c, c0));
  }
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, "ball_thrown", &s);
  rep_metric(&r, "ball_ke_4s", body_ke(&s.w, ball), LE, 1e-3, full);
  rep_metric(&r, "drift_settle_4s", drift, LE, 2e-3, full);
  rep_info(&r, "settle_t", settled >= 0 ? settled / s.fps : NAN);
  rep_metric(&r, "on_top", ball_on_top(&s.w, ball, box, 0.3, 0.3), GE, 1, full);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
TWO_DT(ball_thrown)

/* ---------------------------------------------------------------------------
 * 3: head-on collision in zero gravity: no sideways kick, momentum conserved */

static void head_on_run(const char *name, const char *scene, double dt, double limit) {
  Sim s;
  if (!sim_open(&s, scene, dt, 0, 1.0)) return;
  int left = body_index(&s, "left"), right = body_index(&s, "right");
  double P0[3] = {0}, pscale = 0, drift = 0;
  while (sim_frame(&s, NULL, NULL)) {
    double pl[3], pr[3], P[3];
    body_momentum(&s.w, left, pl);
    body_momentum(&s.w, right, pr);
    for (int a = 0; a < 3; a++) P[a] = pl[a] + pr[a];
    if (s.frame == 0) {
      memcpy(P0, P, sizeof P0);
      pscale = norm3(pl) + norm3(pr);
    }
    drift = fmax(drift, dist3(P, P0) / pscale);
  }
  double pl[3], pr[3], vl[3], vr[3];
  body_momentum(&s.w, left, pl);
  body_momentum(&s.w, right, pr);
  double ml = body_mass(&s.w, left), mr = body_mass(&s.w, right);
  for (int a = 0; a < 3; a++) vl[a] = pl[a] / ml, vr[a] = pr[a] / mr;
  int separated = contact_count(&s.w) == 0 && vr[0] - vl[0] > 0;
  double tl = fmax(fabs(pl[1]), fabs(pl[2])) / fabs(pl[0]);
  double tr = fmax(fabs(pr[1]), fabs(pr[2])) / fabs(pr[0]);
  Report r;
  rep_start(&r, name, &s);
  rep_metric(&r, "separated", separated, GE, 1, 1);
  rep_metric(&r, "left_pt/px", tl, LE, limit, 1);
  rep_metric(&r, "right_pt/px", tr, LE, limit, 1);
  rep_metric(&r, "momentum_drift_rel", drift, LE, 1e-12, 1);
  rep_info(&r, "left_vx", vl[0]);
  rep_info(&r, "right_vx", vr[0]);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
/* the two balls are meshed independently: 0.42 % of transverse momentum measured
 * at both steps is the difference between the meshes (mirrored meshes keep
 * 1e-4, head_on_mirrored below; docs/collision.md), so the bound is 0.6 % */
static void head_on(double dt) { head_on_run("head_on", "contact_head_on.json", dt, 6e-3); }
TWO_DT(head_on)

/* head_on's balls with tet meshes that are exact mirror images of each other:
 * one TetGen mesh of the sphere, turned by a generic rotation (so it has no
 * symmetry of its own), for the left ball, and the same nodes with x negated
 * (and each tet's first two nodes swapped) for the right one. The physics is
 * then mirror-symmetric, so any transverse momentum comes from the engine
 * treating the two bodies differently (body order, node order, the patch
 * normal's orientation, friction anchors, which of several faces met at
 * once counts). Measured 3e-8 and 4e-7 of the axial momentum at dt 1/60 and
 * 0.002 (8e-4 and 1.2e-3 while ties between faces met at a vertex were
 * decided by rounding), so the limit is 1e-4, ten times tighter than
 * head_on's. head_on itself stays above
 * 0.1 % because two independently meshed balls are not mirror images
 * (docs/collision.md, "Open"). */
static void head_on_mirrored(double dt) {
  const char *dir = jl_test_tmpdir("contact_head_on_mirrored");
  char err[512], path[700];
  JlSurface surf;
  jl_shape_sphere(0.15, 0.0, &surf); /* the scene's sphere: default resolution */
  JlTetgenDef def = jl_default_tetgen_def();
  def.max_volume = 2e-4;
  JlTetMesh t;
  int built = jl_tetgen_build(&surf, &def, &t, err, sizeof err) == JL_OK;
  jl_surface_free(&surf);
  ENSURE_MSG(built, "tetgen: %s", err);
  if (!built) return;
  static const double turn[3] = {40.0, 25.0, 60.0}, none[3] = {0.0, 0.0, 0.0};
  jl_transform_points(t.node, t.nnode, 1.0, turn, none);
  /* left.vtu as it is, right.vtu mirrored in x (binary VTU keeps every bit) */
  int written = 1;
  for (int side = 0; side < 2 && written; side++) {
    if (side == 1) {
      for (int i = 0; i < t.nnode; i++) t.node[3 * i] = -t.node[3 * i];
      for (int e = 0; e < t.ntet; e++) {
        int a = t.tet[4 * e];
        t.tet[4 * e] = t.tet[4 * e + 1], t.tet[4 * e + 1] = a; /* a mirror reverses orientation */
      }
    }
    snprintf(path, sizeof path, "%s/%s.vtu", dir, side ? "right" : "left");
    written = jl_vtu_write(path, JL_VTK_BINARY, t.nnode, t.node, t.ntet, t.tet, 0, NULL, err, sizeof err) == JL_OK;
  }
  jl_tetmesh_free(&t);
  ENSURE_MSG(written, "%s", err);
  if (!written) return;
  /* contact_head_on.json with these meshes in place of the generated spheres */
  const char *scene =
      "{ \"duration\": 1.0, \"fps\": 60, \"dt\": 0.016666666666666666, \"gravity\": [0, 0, 0],"
      "  \"contact\": { \"stiffness\": 1e5, \"damping\": 10, \"friction\": 0.3 }, \"bodies\": ["
      "  { \"name\": \"left\", \"mesh\": \"left.vtu\", \"translate\": [-0.175, 0, 0], \"velocity\": [5, 0, 0],"
      "    \"density\": 1000, \"young_modulus\": 2e5, \"damping\": 0.5 },"
      "  { \"name\": \"right\", \"mesh\": \"right.vtu\", \"translate\": [0.175, 0, 0], \"velocity\": [-5, 0, 0],"
      "    \"density\": 1000, \"young_modulus\": 2e5, \"damping\": 0.5 } ] }";
  snprintf(path, sizeof path, "./%s/head_on_mirrored.json", dir);
  ENSURE(jl_test_write_file(path, scene));
  head_on_run("head_on_mirrored", path, dt, 1e-4);
}
TWO_DT(head_on_mirrored)

/* ---------------------------------------------------------------------------
 * 4: bodies resting on an obstacle and on another soft body stay put */

static void rest_friction(double dt) {
  static const char *const names[] = {"ball", "cube", "base", "top"};
  enum { NB = 4 };
  Sim s;
  if (!sim_open(&s, "contact_rest_friction.json", dt, 0, 4.0)) return;
  int b[NB], f0 = frame_at(&s, 1.0);
  double c0[NB][3], drift[NB] = {0};
  for (int i = 0; i < NB; i++) b[i] = body_index(&s, names[i]);
  while (sim_frame(&s, NULL, NULL)) {
    for (int i = 0; i < NB; i++) {
      double c[3];
      body_com(&s.w, b[i], c);
      if (s.frame == f0) memcpy(c0[i], c, sizeof c);
      if (s.frame >= f0) drift[i] = fmax(drift[i], dist3(c, c0[i]));
    }
  }
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, "rest_friction", &s);
  for (int i = 0; i < NB; i++) {
    char name[64];
    snprintf(name, sizeof name, "drift_%s_1_4s", names[i]);
    rep_metric(&r, name, drift[i], LE, 1e-3, full);
  }
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
TWO_DT(rest_friction)

/* ---------------------------------------------------------------------------
 * 5: a block on an incline sticks below the friction angle, slides with
 *    g (sin - mu cos) above it */

/* centre of mass along the slope direction (cos theta, sin theta, 0) */
static double slope_s(const JlWorld *w, int b, double theta) {
  double c[3];
  body_com(w, b, c);
  return c[0] * cos(theta) + c[1] * sin(theta);
}

static void incline_stick_run(const char *name, const char *scene, double theta_deg, double dt) {
  const double theta = theta_deg * PI / 180.0;
  Sim s;
  if (!sim_open(&s, scene, dt, 0, 3.0)) return;
  int b = body_index(&s, "block"), f0 = frame_at(&s, 1.0);
  double s0 = 0, s1 = 0;
  while (sim_frame(&s, NULL, NULL)) {
    if (s.frame == f0) s0 = slope_s(&s.w, b, theta);
    s1 = slope_s(&s.w, b, theta);
  }
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, name, &s);
  rep_metric(&r, "creep_1_3s_m/s", fabs(s1 - s0) / 2.0, LE, 1e-3, full);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
static void incline_stick(double dt) { incline_stick_run("incline_stick", "contact_incline_stick.json", 10.0, dt); }
TWO_DT(incline_stick)
/* near the friction angle (tan theta = 0.89 mu): the block crept 3.2 mm/s at
 * dt 0.002 and 0.37 mm/s at 1/60 while its nodes switched between sticking
 * to a fresh anchor and sliding every step (docs/collision.md, "Memory") */
static void incline_stick_near(double dt) {
  incline_stick_run("incline_stick_near", "contact_incline_stick_near.json", 15.0, dt);
}
TWO_DT(incline_stick_near)

static void incline_slide_run(const char *name, const char *scene, double theta_deg, double dt) {
  const double theta = theta_deg * PI / 180.0, mu = 0.3, g = 9.81;
  const double a_expect = g * (sin(theta) - mu * cos(theta));
  /* the incline runs 1.2 m either side of its centre (0, 1.2, 0) along the
   * slope; the window ends when the block's lower edge (0.1 m below its
   * centre) is 5 cm from the end. (An s_stop taken from the origin instead,
   * 0.6 m further down the slope at 30 degrees, lets the window run on while
   * the block slides off the end, and the fit comes out 1.2-1.4 % fast.) */
  const double s_stop = 1.2 * sin(theta) - 1.2 + 0.1 + 0.05;
  Sim s;
  if (!sim_open(&s, scene, dt, 0, 1.5)) return;
  int b = body_index(&s, "block"), f0 = frame_at(&s, 0.25), done = 0;
  /* normal equations of s(t) = c0 + c1 t + c2 t^2 */
  double S[5] = {0}, T[3] = {0};
  int n = 0;
  double s_start = NAN;
  while (sim_frame(&s, NULL, NULL)) {
    double sl = slope_s(&s.w, b, theta), t = sim_t(&s);
    if (s.frame == 0) s_start = sl;
    if (s.frame < f0 || done) continue;
    if (sl < s_stop) {
      done = 1;
      continue;
    }
    double tk = 1;
    for (int k = 0; k < 5; k++, tk *= t) S[k] += tk;
    tk = 1;
    for (int k = 0; k < 3; k++, tk *= t) T[k] += tk * sl;
    n++;
  }
  double a_fit = NAN;
  if (n >= 3) {
    /* solve [S0 S1 S2; S1 S2 S3; S2 S3 S4] c = T by Cramer's rule */
    double A[3][3] = {{S[0], S[1], S[2]}, {S[1], S[2], S[3]}, {S[2], S[3], S[4]}};
    double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                 A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    double det2 = A[0][0] * (A[1][1] * T[2] - T[1] * A[2][1]) - A[0][1] * (A[1][0] * T[2] - T[1] * A[2][0]) +
                  T[0] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    a_fit = -2.0 * det2 / det; /* downhill = decreasing s */
  }
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, name, &s);
  rep_metric(&r, "accel_rel_err", fabs(a_fit - a_expect) / a_expect, LE, 0.05, full);
  rep_info(&r, "accel", a_fit);
  rep_info(&r, "expected", a_expect);
  rep_info(&r, "fit_frames", n);
  rep_info(&r, "slid_m", s_start - slope_s(&s.w, b, theta));
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
static void incline_slide(double dt) { incline_slide_run("incline_slide", "contact_incline_slide.json", 30.0, dt); }
TWO_DT(incline_slide)
/* near the friction angle (tan theta = 1.21 mu): sliding friction lagged on
 * the step's start speed made the block 10 % slow at dt 1/60 (src/penalty.h,
 * jl_slide_lag_speed) */
static void incline_slide_near(double dt) {
  incline_slide_run("incline_slide_near", "contact_incline_slide_near.json", 20.0, dt);
}
TWO_DT(incline_slide_near)

/* ---------------------------------------------------------------------------
 * 6: eight soft cubes stacked: settle, stay aligned, keep their order */

static void stack8(double dt) {
  enum { NB = 8 };
  Sim s;
  if (!sim_open(&s, "contact_stack8.json", dt, 0, 4.0)) return;
  int b[NB];
  for (int i = 0; i < NB; i++) {
    char name[16];
    snprintf(name, sizeof name, "cube%d", i);
    b[i] = body_index(&s, name);
  }
  double top0[3] = {0}, min_dy = INFINITY, max_offset = 0;
  while (sim_frame(&s, NULL, NULL)) {
    double c[NB][3];
    for (int i = 0; i < NB; i++) body_com(&s.w, b[i], c[i]);
    if (s.frame == 0) memcpy(top0, c[NB - 1], sizeof top0);
    for (int i = 0; i + 1 < NB; i++) {
      min_dy = fmin(min_dy, c[i + 1][1] - c[i][1]);
      if (s.frame == s.nframe) max_offset = fmax(max_offset, hdist(c[i + 1], c[i]));
    }
  }
  double top[3];
  body_com(&s.w, b[NB - 1], top);
  JlEnergy e;
  total_energy(&s.w, &e);
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, "stack8", &s);
  rep_metric(&r, "top_drift_4s", hdist(top, top0), LE, 0.02, full);
  rep_metric(&r, "total_ke_4s", e.kinetic, LE, 1e-3, full);
  rep_metric(&r, "min_centre_dy", min_dy, GE, 0.0, 1);
  rep_metric(&r, "max_neighbour_offset_4s", max_offset, LE, 0.1, full);
  /* at dt 1/60 every interface is stopped as it closes, none found deep and
   * pushed out (8 push-out steps before the speculative contacts' stopped-side
   * test). At dt 0.002 the depth estimate of a few corner nodes jumps by about
   * 1 mm as their border edge changes, slack worked off at the push-out
   * speed (docs/collision.md, "Push-out slack"): reported, not asserted. */
  rep_metric(&r, "push_out_steps", (double)s.w.state.warnings.count[JL_WARN_PUSH_OUT], LE, 0, dt > 0.01);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
TWO_DT(stack8)
/* the stack at the steps between (it collapsed at dt 0.005 once: the top cube landed 1.5 m away) */
static void stack8_dt010(void) { stack8(0.01); }
static void stack8_dt005(void) { stack8(0.005); }
static void stack8_dt0033(void) { stack8(1.0 / 300.0); }

/* ---------------------------------------------------------------------------
 * 7: a ball at 10 m/s never gets through a thin slab (checked every step) */

typedef struct Tunnel {
  int ball, slab;      /* slab < 0: a static slab with fixed extent */
  double lo[2], hi[2]; /* static slab: x-z extent */
  double bottom;       /* static slab: y of its bottom face */
  double worst;        /* m, deepest node below the local bottom */
  int bad_steps;
  double first_bad_t;
} Tunnel;

static void tunnel_check(Sim *s, void *ctx) {
  Tunnel *tu = ctx;
  const JlModel *m = s->w.model;
  const double *x = s->w.state.x;
  const JlBody *ball = &m->body[tu->ball];
  double lo[2] = {tu->lo[0], tu->lo[1]}, hi[2] = {tu->hi[0], tu->hi[1]}, top = tu->bottom;
  const JlBody *slab = tu->slab >= 0 ? &m->body[tu->slab] : NULL;
  int nx = 0, nz = 0, *start = NULL, *node = NULL;
  if (slab) {
    /* the slab's current extent, and its nodes bucketed in TUNNEL_R cells */
    int j0 = slab->node_begin, nj = slab->node_count;
    lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = top = -INFINITY;
    for (int j = j0; j < j0 + nj; j++) {
      lo[0] = fmin(lo[0], x[3 * j]), hi[0] = fmax(hi[0], x[3 * j]);
      lo[1] = fmin(lo[1], x[3 * j + 2]), hi[1] = fmax(hi[1], x[3 * j + 2]);
      top = fmax(top, x[3 * j + 1]);
    }
    if (!(hi[0] - lo[0] < 100 * TUNNEL_R && hi[1] - lo[1] < 100 * TUNNEL_R)) return; /* blown up (or NaN) */
    nx = (int)((hi[0] - lo[0]) / TUNNEL_R) + 1, nz = (int)((hi[1] - lo[1]) / TUNNEL_R) + 1;
    start = calloc((size_t)(nx * nz + 1), sizeof(int));
    node = calloc((size_t)nj, sizeof(int));
    for (int j = j0; j < j0 + nj; j++) {
      int cx = (int)((x[3 * j] - lo[0]) / TUNNEL_R), cz = (int)((x[3 * j + 2] - lo[1]) / TUNNEL_R);
      start[cz * nx + cx + 1]++;
    }
    for (int c = 0; c < nx * nz; c++) start[c + 1] += start[c];
    for (int j = j0; j < j0 + nj; j++) {
      int cx = (int)((x[3 * j] - lo[0]) / TUNNEL_R), cz = (int)((x[3 * j + 2] - lo[1]) / TUNNEL_R);
      node[start[cz * nx + cx]++] = j;
    }
    for (int c = nx * nz; c > 0; c--) start[c] = start[c - 1];
    start[0] = 0;
  }
  int bad = 0;
  for (int i = ball->node_begin; i < ball->node_begin + ball->node_count; i++) {
    const double *p = &x[3 * i];
    if (p[0] < lo[0] || p[0] > hi[0] || p[2] < lo[1] || p[2] > hi[1]) continue;
    double bottom = tu->bottom;
    if (slab) {
      if (p[1] > top) continue; /* above every slab node: not through */
      /* the lowest slab node within TUNNEL_R horizontally */
      bottom = INFINITY;
      int cx = (int)((p[0] - lo[0]) / TUNNEL_R), cz = (int)((p[2] - lo[1]) / TUNNEL_R);
      for (int a = cz - 1; a <= cz + 1; a++)
        for (int b = cx - 1; b <= cx + 1; b++) {
          if (a < 0 || a >= nz || b < 0 || b >= nx) continue;
          for (int k = start[a * nx + b]; k < start[a * nx + b + 1]; k++) {
            const double *q = &x[3 * node[k]];
            double dx = q[0] - p[0], dz = q[2] - p[2];
            if (dx * dx + dz * dz < TUNNEL_R * TUNNEL_R && q[1] < bottom) bottom = q[1];
          }
        }
      if (bottom == INFINITY) continue;
    }
    double through = bottom - p[1];
    if (through > tu->worst) tu->worst = through;
    if (through > TUNNEL_TOL) bad = 1;
  }
  free(start);
  free(node);
  if (bad && tu->bad_steps++ == 0) tu->first_bad_t = sim_t(s);
}

static void tunnel(const char *scene, const char *label, double dt) {
  Sim s;
  if (!sim_open(&s, scene, dt, 0, 1.0)) return;
  Tunnel tu;
  memset(&tu, 0, sizeof tu);
  tu.ball = body_index(&s, "ball");
  tu.slab = -1;
  tu.worst = -INFINITY;
  tu.first_bad_t = NAN;
  const JlModel *m = s.w.model;
  for (int b = 0; b < m->nbody; b++)
    if (strcmp(m->body[b].name, "slab") == 0) tu.slab = b;
  if (tu.slab < 0) { /* the thin static box obstacle */
    const JlObstacle *o = NULL;
    for (int k = 0; k < m->nobstacle; k++)
      if (m->obstacle[k].type == JL_OBSTACLE_BOX && m->obstacle[k].size[1] < 0.05) o = &m->obstacle[k];
    if (!o) {
      jl_test_fail(__FILE__, __LINE__, "%s: no thin box obstacle", scene);
      sim_close(&s);
      return;
    }
    double blo[3], bhi[3];
    jl_obstacle_aabb(o, blo, bhi);
    tu.lo[0] = blo[0], tu.lo[1] = blo[2], tu.hi[0] = bhi[0], tu.hi[1] = bhi[2], tu.bottom = blo[1];
  }
  double ball_lo = INFINITY;
  while (sim_frame(&s, tunnel_check, &tu)) {
    double lo, hi;
    body_y_range(&s.w, tu.ball, &lo, &hi);
    ball_lo = fmin(ball_lo, lo);
  }
  Report r;
  rep_start(&r, label, &s);
  rep_metric(&r, "max_through_m", tu.worst, LE, TUNNEL_TOL, 1);
  rep_metric(&r, "bad_steps", tu.bad_steps, LE, 0, 1);
  rep_info(&r, "first_bad_t", tu.first_bad_t);
  rep_info(&r, "ball_lowest_y", ball_lo);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}

static void tunnel_slab_soft(double dt) { tunnel("contact_slab_soft.json", "tunnel_slab_soft", dt); }
static void tunnel_slab_stiff(double dt) { tunnel("contact_slab_stiff.json", "tunnel_slab_stiff", dt); }
static void tunnel_slab_obstacle(double dt) { tunnel("contact_slab_obstacle.json", "tunnel_slab_obstacle", dt); }
static void tunnel_fast_plate(double dt) { tunnel("contact_fast_plate.json", "tunnel_fast_plate", dt); }
TWO_DT(tunnel_slab_soft)
TWO_DT(tunnel_slab_stiff)
TWO_DT(tunnel_slab_obstacle)
TWO_DT(tunnel_fast_plate)

/* ---------------------------------------------------------------------------
 * 9: bodies that start interpenetrating are pushed apart gently */

static void push_out(const char *scene, const char *label, double dt) {
  Sim s;
  if (!sim_open(&s, scene, dt, 0, 0)) return;
  const JlModel *m = s.w.model;
  double mass = 0, ke_max = 0;
  for (int b = 0; b < m->nbody; b++) mass += body_mass(&s.w, b);
  while (sim_frame(&s, NULL, NULL)) {
    JlEnergy e;
    total_energy(&s.w, &e);
    if (s.frame > 0) ke_max = fmax(ke_max, e.kinetic);
  }
  JlEnergy e;
  total_energy(&s.w, &e);
  Report r;
  rep_start(&r, label, &s);
  /* the scene's contact.push_out_speed (m/s; default 0.5): bodies that start
   * interpenetrating separate at most that fast */
  double vp = m->world.contact_push_out;
  rep_metric(&r, "ke_max", ke_max, LE, 0.5 * mass * vp * vp, 1);
  rep_info(&r, "ke_end", e.kinetic);
  rep_info(&r, "speed_equiv", sqrt(2 * ke_max / mass));
  if (m->nbody >= 2) {
    rep_metric(&r, "separated_end", contact_count(&s.w) == 0, GE, 1, !jl_test_quick());
  } else {
    double lo, hi;
    body_y_range(&s.w, 0, &lo, &hi);
    rep_info(&r, "lowest_y_end", lo);
  }
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}

static void overlap_start(double dt) { push_out("contact_overlap_start.json", "overlap_start", dt); }
static void half_below_ground(double dt) { push_out("contact_half_below_ground.json", "half_below_ground", dt); }
TWO_DT(overlap_start)
TWO_DT(half_below_ground)

/* ---------------------------------------------------------------------------
 * 10: resting penetration below 2 % of the body's size */

static void rest_depth_small_ball(double dt) {
  const double top = 0.2, size = 0.1; /* obstacle top (m), ball diameter (m) */
  Sim s;
  if (!sim_open(&s, "contact_small_ball_obstacle.json", dt, 0, 3.0)) return;
  int ball = body_index(&s, "ball"), f0 = s.nframe - frame_at(&s, 0.5);
  double depth = 0;
  while (sim_frame(&s, NULL, NULL)) {
    double lo, hi;
    body_y_range(&s.w, ball, &lo, &hi);
    if (s.frame >= f0) depth = fmax(depth, top - lo);
  }
  Report r;
  rep_start(&r, "rest_depth_small_ball", &s);
  rep_metric(&r, "depth_last0.5s_m", depth, LE, 0.02 * size, !jl_test_quick());
  rep_info(&r, "ke_end", body_ke(&s.w, ball));
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
TWO_DT(rest_depth_small_ball)

static void rest_depth_cube_on_cube(double dt) {
  const double size = 0.3;
  Sim s;
  if (!sim_open(&s, "contact_cube_on_cube.json", dt, 0, 3.0)) return;
  int lower = body_index(&s, "lower"), upper = body_index(&s, "upper");
  int f0 = s.nframe - frame_at(&s, 0.5);
  const JlForce *c = contacts_of(&s.w);
  if (!c) {
    jl_test_fail(__FILE__, __LINE__, "contact_cube_on_cube.json: no contact element");
    sim_close(&s);
    return;
  }
  double depth = 0, geo = -INFINITY;
  while (sim_frame(&s, NULL, NULL)) {
    if (s.frame < f0) continue;
    depth = fmax(depth, jl_contact_max_depth(c));
    double llo, lhi, ulo, uhi;
    body_y_range(&s.w, lower, &llo, &lhi);
    body_y_range(&s.w, upper, &ulo, &uhi);
    geo = fmax(geo, lhi - ulo);
  }
  Report r;
  rep_start(&r, "rest_depth_cube_on_cube", &s);
  rep_metric(&r, "contact_depth_last0.5s_m", depth, LE, 0.02 * size, !jl_test_quick());
  rep_info(&r, "geo_overlap_m", geo);
  JlEnergy e;
  total_energy(&s.w, &e);
  rep_info(&r, "ke_end", e.kinetic);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
TWO_DT(rest_depth_cube_on_cube)

/* ---------------------------------------------------------------------------
 * 11: nodes entering a box obstacle's top near its side face go back up */

typedef struct Edge {
  int cube;
  double top, side, half_z; /* obstacle top y, +x side face, z half-extent */
  int f_land;               /* frame from which the depth criterion applies */
  double depth_run, depth_after;
  unsigned char *inside; /* per cube node: inside the box at the last frame */
  int side_exits, top_exits, falling_exits;
} Edge;

/* Depth of the cube's nodes inside the box, and the face through which
 * every node that was inside leaves it while the cube's centre of mass is
 * over the box: back out of the top (within 1 mm of its level), or out
 * through a side face, which the criterion forbids. Once the centre has
 * passed the side face the cube is falling off the box and takes its nodes
 * down along the side with it (at dt 0.002 the box's corner edge, which
 * meets the cube between its nodes, has then pushed a few of them up to
 * 2 cm in: docs/collision.md, "Limits"); those exits are counted apart. */
static void edge_check(Sim *s, Edge *e) {
  const JlBody *b = &s->w.model->body[e->cube];
  const double *x = s->w.state.x;
  int after = s->frame >= e->f_land;
  double c[3];
  body_com(&s->w, e->cube, c);
  int over = c[0] < e->side;
  for (int i = b->node_begin; i < b->node_begin + b->node_count; i++) {
    const double *p = &x[3 * i];
    int in = fabs(p[2]) < e->half_z && p[0] > -e->side && p[0] < e->side && p[1] < e->top;
    if (in) {
      double d = e->top - p[1];
      e->depth_run = fmax(e->depth_run, d);
      if (after) e->depth_after = fmax(e->depth_after, d);
    } else if (e->inside[i - b->node_begin]) {
      if (p[1] >= e->top - 1e-3)
        e->top_exits++;
      else if (over)
        e->side_exits++;
      else
        e->falling_exits++;
    }
    e->inside[i - b->node_begin] = (unsigned char)in;
  }
}

static void edge_entry(double dt) {
  Sim s;
  if (!sim_open(&s, "contact_edge_entry.json", dt, 0, 2.0)) return;
  Edge e = {body_index(&s, "cube"), 0.4, 0.2, 0.2, frame_at(&s, 0.5), 0, 0, NULL, 0, 0, 0};
  e.inside = calloc((size_t)s.w.model->body[e.cube].node_count, 1);
  while (sim_frame(&s, NULL, NULL)) edge_check(&s, &e);
  int full = !jl_test_quick();
  Report r;
  rep_start(&r, "edge_entry", &s);
  rep_metric(&r, "depth_after_0.5s_m", e.depth_after, LE, 2e-3, full);
  rep_metric(&r, "side_exits", e.side_exits, LE, 0, full);
  double c[3];
  body_com(&s.w, e.cube, c);
  /* At dt 1/60 the landing is dead (implicit Euler's damping) and the
   * cube stays on top; at dt 0.002 its unsupported 1 cm strip keeps
   * moving down as the rest stops and tips it over the edge (about
   * 3 rad/s after the hit), a physical outcome, not a node pushed out
   * through the side: that is side_exits at both steps. */
  rep_metric(&r, "on_box_end", c[0] < e.side && c[1] > e.top, GE, 1, full && dt > 0.01);
  rep_info(&r, "com_x_end", c[0]);
  rep_info(&r, "depth_max_run_m", e.depth_run);
  rep_info(&r, "top_exits", e.top_exits);
  rep_info(&r, "exits_falling_off", e.falling_exits);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  free(e.inside);
  sim_close(&s);
}
TWO_DT(edge_entry)

/* ---------------------------------------------------------------------------
 * 8: energy never rises by more than 1 % of its scale between frames: every
 *    criterion run above asserts it on its own run (rep_energy, metric
 *    energy_rise_rel), which covers every contact_*.json scene at both steps
 *    for its whole duration; the shipped scenes at their own dt here */

/* shipped scenes at their own dt; wind (flag.json) does external work */
static void energy_shipped(const char *scene) {
  Sim s;
  if (!sim_open(&s, scene, 0, 0, 0)) return;
  sim_run(&s);
  Report r;
  char label[160];
  snprintf(label, sizeof label, "energy own dt %s", scene);
  rep_start(&r, label, &s);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}
#define SHIPPED_ENERGY(stem) \
  static void energy_shipped_##stem(void) { energy_shipped(#stem ".json"); }
SHIPPED_ENERGY(default)
SHIPPED_ENERGY(drop)
SHIPPED_ENERGY(stack)
SHIPPED_ENERGY(squeeze)
SHIPPED_ENERGY(stairs)
SHIPPED_ENERGY(hanging_bar)
SHIPPED_ENERGY(stiff)
SHIPPED_ENERGY(curtain)
SHIPPED_ENERGY(drape)
SHIPPED_ENERGY(hair)
SHIPPED_ENERGY(rope_bridge)

/* ---------------------------------------------------------------------------
 * 12: shipped scenes at large true steps (fps = 1/dt): no divergence, stacks
 *     keep their vertical order, the energy rule */

static void large_step(const char *scene, double dt, int wind, int check_order) {
  if (jl_test_quick()) {
    SKIP("large_step %s dt=%.4g under JL_TEST_QUICK (the release run measures it)", scene, dt);
  }
  Sim s;
  if (!sim_open(&s, scene, dt, 1.0 / dt, 0)) return;
  const JlModel *m = s.w.model;
  enum { MAXB = 64 };
  int order[MAXB], nb = m->nbody < MAXB ? m->nbody : MAXB, order_broken = 0;
  double order_t = NAN;
  while (sim_frame(&s, NULL, NULL)) {
    if (!check_order) continue;
    double y[MAXB];
    for (int b = 0; b < nb; b++) {
      double c[3];
      body_com(&s.w, b, c);
      y[b] = c[1];
    }
    if (s.frame == 0) { /* bodies sorted by initial height */
      for (int b = 0; b < nb; b++) order[b] = b;
      for (int i = 1; i < nb; i++)
        for (int j = i; j > 0 && y[order[j]] < y[order[j - 1]]; j--) {
          int t = order[j];
          order[j] = order[j - 1], order[j - 1] = t;
        }
    }
    for (int i = 0; i + 1 < nb; i++)
      if (!(y[order[i + 1]] > y[order[i]])) {
        if (!order_broken) order_t = sim_t(&s);
        order_broken = 1;
      }
  }
  Report r;
  char label[160];
  snprintf(label, sizeof label, "large_step %s", scene);
  rep_start(&r, label, &s);
  rep_info(&r, "t_reached", sim_t(&s));
  if (check_order) {
    rep_metric(&r, "order_kept", !order_broken, GE, 1, 1);
    if (order_broken) rep_info(&r, "order_broken_t", order_t);
  }
  if (wind)
    rep_add(&r, "  energy: skipped (wind)");
  else
    rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}

#define LARGE(stem, wind, order)                                                                     \
  static void large_step_##stem##_dt30(void) { large_step(#stem ".json", 1.0 / 30.0, wind, order); } \
  static void large_step_##stem##_dt15(void) { large_step(#stem ".json", 1.0 / 15.0, wind, order); }
LARGE(default, 0, 0)
LARGE(drop, 0, 0)
LARGE(stack, 0, 1)
LARGE(squeeze, 0, 1)
LARGE(stairs, 0, 0)
LARGE(hanging_bar, 0, 0)
LARGE(stiff, 0, 0)
LARGE(curtain, 0, 0)
LARGE(flag, 1, 0)
LARGE(drape, 0, 0)
LARGE(hair, 0, 0)
LARGE(rope_bridge, 0, 0)
LARGE(contact_stack8, 0, 1)
LARGE(contact_cube_on_cube, 0, 1)

/* ---------------------------------------------------------------------------
 * pile.json: 24 soft bodies dropped into an open box of four walls settle
 * within its 3 s: every body ends inside the box (the walls' inner faces at
 * x, z = +-0.36 m) and above the ground, within 1 cm; at rest (no node faster
 * than 5 cm/s, kinetic energy below 1e-3 J); no solve at the CG cap; the
 * energy rule. At its own dt (1/60 s). */
static void pile_settles(void) {
  Sim s;
  if (!sim_open(&s, "pile.json", 0, 0, 0)) return;
  sim_run(&s);
  const JlModel *m = s.w.model;
  double out = 0.0, vmax = 0.0;
  for (int i = 0; i < m->nnode; i++) {
    const double *x = s.w.state.x + 3 * i, *v = s.w.state.v + 3 * i;
    double o = fmax(fmax(fabs(x[0]) - 0.36, fabs(x[2]) - 0.36), -x[1]);
    out = fmax(out, o);
    vmax = fmax(vmax, norm3(v));
  }
  JlEnergy e;
  jl_world_energy(&s.w, &e);
  Report r;
  rep_start(&r, "pile", &s);
  rep_metric(&r, "outside_m", out, LE, 0.01, 1);
  rep_metric(&r, "max_speed", vmax, LE, 0.05, 1);
  rep_metric(&r, "kinetic_J", e.kinetic, LE, 1e-3, 1);
  rep_metric(&r, "cg_capped", (double)s.w.state.warnings.count[JL_WARN_CG_CAP], LE, 0, 1);
  rep_energy(&r, &s);
  rep_finish(&r, &s);
  sim_close(&s);
}

#define CASE2(fn) \
  {#fn "_dt60", fn##_dt60}, { #fn "_dt002", fn##_dt002 }
/* the same, its dt 1/60 run also in the sanitizer stage (JL_SHORT, tests/harness.h) */
#define CASE2S(fn) \
  {#fn "_dt60", fn##_dt60, JL_SCENE | JL_SHORT}, { #fn "_dt002", fn##_dt002 }
#define CASE_LARGE(stem) \
  {"large_step_" #stem "_dt30", large_step_##stem##_dt30}, { "large_step_" #stem "_dt15", large_step_##stem##_dt15 }

#define JL_TEST_TIER JL_SCENE /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN(CASE2S(ball_on_box), CASE2(ball_thrown), CASE2S(head_on), CASE2(head_on_mirrored), CASE2(rest_friction),
             CASE2S(incline_stick), CASE2S(incline_slide), CASE2(incline_stick_near), CASE2(incline_slide_near),
             CASE2S(stack8), {"stack8_dt010", stack8_dt010}, {"stack8_dt005", stack8_dt005},
             {"stack8_dt0033", stack8_dt0033}, CASE2(tunnel_slab_soft), CASE2(tunnel_slab_stiff),
             CASE2S(tunnel_slab_obstacle), CASE2S(tunnel_fast_plate), CASE2S(overlap_start), CASE2S(half_below_ground),
             CASE2S(rest_depth_small_ball), CASE2(rest_depth_cube_on_cube), CASE2S(edge_entry),
             {"pile_settles", pile_settles}, {"energy_shipped_default", energy_shipped_default},
             {"energy_shipped_drop", energy_shipped_drop}, {"energy_shipped_stack", energy_shipped_stack},
             {"energy_shipped_squeeze", energy_shipped_squeeze},
             {"energy_shipped_stairs", energy_shipped_stairs, JL_SCENE | JL_SHORT},
             {"energy_shipped_hanging_bar", energy_shipped_hanging_bar}, {"energy_shipped_stiff", energy_shipped_stiff},
             {"energy_shipped_curtain", energy_shipped_curtain, JL_SCENE | JL_SHORT},
             {"energy_shipped_drape", energy_shipped_drape}, {"energy_shipped_hair", energy_shipped_hair},
             {"energy_shipped_rope_bridge", energy_shipped_rope_bridge, JL_SCENE | JL_SHORT}, CASE_LARGE(default),
             CASE_LARGE(drop), CASE_LARGE(stack), CASE_LARGE(squeeze), CASE_LARGE(stairs), CASE_LARGE(hanging_bar),
             CASE_LARGE(stiff), CASE_LARGE(curtain), CASE_LARGE(flag), CASE_LARGE(drape), CASE_LARGE(hair),
             CASE_LARGE(rope_bridge), CASE_LARGE(contact_stack8), CASE_LARGE(contact_cube_on_cube))
