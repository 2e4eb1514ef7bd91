/* Rules shared by the penalty contacts (src/contact.c, src/ground.c) and the
 * rolling resistance (src/rolling.c): how fast overlaps are pushed apart and
 * how sliding friction is lagged (engine-internal). */
#ifndef JL_SRC_PENALTY_H
#define JL_SRC_PENALTY_H

/* Push-out of overlaps (src/contact.c, src/ground.c): the slack a contact
 * works off in a step of length h, at most push_out_speed h, and no more
 * than the contact already separates at (v_sep, m/s) plus the ramp's speed
 * gain over the step, push_out_speed h / JL_PUSH_RAMP: a body at rest in an
 * overlap is accelerated to the push-out speed over JL_PUSH_RAMP seconds
 * rather than kicked to it in one step, which made it overshoot the speed by
 * 10 % and ring (docs/collision.md, "Push-out slack"). */
#define JL_PUSH_RAMP 0.1 /* s */
static inline double jl_push_out_step(double push_out_speed, double v_sep, double h) {
  double v0 = v_sep > 0.0 ? v_sep : 0.0, f = h < JL_PUSH_RAMP ? h / JL_PUSH_RAMP : 1.0;
  if (v0 >= push_out_speed) return push_out_speed * h;
  return (v0 + (push_out_speed - v0) * f) * h;
}

/* Sliding friction (src/contact.c, src/ground.c, src/rolling.c) is a lagged
 * viscosity, F = -mu N v_t / sv: it can slow a slide down to zero within a
 * step but never reverse it. Implicit Euler applies it at the step's end
 * velocity, so it is mu N only if sv is the end speed; lagged on the start
 * speed s0, an accelerating slide was too slow by mu g cos(theta) h / v (a
 * block sliding down an incline at 1/60 s just above its friction angle,
 * 10-30 %) and a decelerating one too long (a block thrown along a flat box,
 * 12 %). sv is s0 extrapolated from the last step's start speed s_prev
 * (constant acceleration), 2 s0 - s_prev, within [s0 / 2, 2 s0], and at
 * least floor. */
static inline double jl_slide_lag_speed(double s0, double s_prev, double floor) {
  double e = s_prev >= 0.0 ? 2.0 * s0 - s_prev : s0;
  double s = e < 0.5 * s0 ? 0.5 * s0 : e > 2.0 * s0 ? 2.0 * s0 : e;
  return s > floor ? s : floor;
}
/* A contact that cannot stick slides only while it moves more than this
 * fraction of its friction cone's radius mu g per step (h s0 > JL_SLIDE_MIN
 * mu g); slower, it sticks to the anchor its slide dragged along, which
 * holds it with the kinetic friction force. (A node crawling at the cone
 * kept sliding with an ever smaller speed and an ever stiffer viscosity;
 * letting slides run until their extrapolated speed reached zero instead
 * cost 2.6 times the CG iterations of default.json at dt 1/15.) */
#define JL_SLIDE_MIN 0.05

#endif
