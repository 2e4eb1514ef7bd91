/* The orbit camera: look-at and perspective matrices through cglm, projection
 * of world points to pixels, picking rays, and the default framing.
 *
 * The camera is stored as target + yaw/pitch/distance (an orbit camera), so
 * mouse orbit, pan and zoom are simple edits. Matrices are float (cglm);
 * world coordinates are converted from double here. The default view looks
 * at the bounding box of all bodies from 35 degrees around and 24 degrees
 * above, far enough that the box's bounding sphere fits the narrower of the
 * two fields of view and every surface vertex lies inside the image.
 *
 * Following (jl_camera_follow, used by `jelly render`, the viewer until the
 * user moves the camera): each frame the camera eases its target towards the
 * centre of the bodies' box (time constant TAU_TARGET) and its distance
 * towards that framing's distance (TAU_ZOOM), so it recentres and zooms in
 * slowly; then, if some surface vertex would come closer to the image border
 * than LIMIT of the half width or height, it moves back at once to the
 * distance where none does. That limit is a continuous function of the
 * positions, so the camera never jumps, and the bodies never leave the
 * picture. Everything is double arithmetic on the state: the same run gives
 * the same cameras. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"

static const double PI = 3.14159265358979323846;

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

void jl_camera_eye(const JlCamera *c, double eye[3]) {
  double cp = cos(c->pitch), sp = sin(c->pitch);
  eye[0] = c->target[0] + c->distance * cp * sin(c->yaw);
  eye[1] = c->target[1] + c->distance * sp;
  eye[2] = c->target[2] + c->distance * cp * cos(c->yaw);
}

void jl_camera_basis(const JlCamera *c, double right[3], double up[3], double fwd[3]) {
  double eye[3];
  jl_camera_eye(c, eye);
  for (int k = 0; k < 3; k++) fwd[k] = (c->target[k] - eye[k]) / c->distance;
  /* right = fwd x Y, normalized (pitch is clamped away from the poles) */
  right[0] = -fwd[2];
  right[1] = 0;
  right[2] = fwd[0];
  double n = sqrt(right[0] * right[0] + right[2] * right[2]);
  right[0] /= n, right[2] /= n;
  /* up = right x fwd */
  up[0] = right[1] * fwd[2] - right[2] * fwd[1];
  up[1] = right[2] * fwd[0] - right[0] * fwd[2];
  up[2] = right[0] * fwd[1] - right[1] * fwd[0];
}

void jl_camera_matrix(const JlCamera *c, int width, int height, mat4 vp) {
  double eye[3];
  jl_camera_eye(c, eye);
  vec3 e = {(float)eye[0], (float)eye[1], (float)eye[2]};
  vec3 t = {(float)c->target[0], (float)c->target[1], (float)c->target[2]};
  vec3 up = {0, 1, 0};
  mat4 view, proj;
  glm_lookat(e, t, up, view);
  float aspect = (float)width / (float)(height > 0 ? height : 1);
  float znear = (float)(c->distance * 0.01), zfar = (float)(c->distance * 100.0);
  glm_perspective(glm_rad((float)c->fov_deg), aspect, znear, zfar, proj);
  glm_mat4_mul(proj, view, vp);
}

int jl_camera_project(const JlCamera *c, int width, int height, const double p[3], double out[3]) {
  mat4 vp;
  jl_camera_matrix(c, width, height, vp);
  vec4 in = {(float)p[0], (float)p[1], (float)p[2], 1.0f}, clip;
  glm_mat4_mulv(vp, in, clip);
  out[0] = (clip[0] / clip[3] + 1.0) * 0.5 * width;
  out[1] = (1.0 - clip[1] / clip[3]) * 0.5 * height;
  out[2] = clip[3]; /* w = depth along the view direction */
  return clip[3] > c->distance * 0.01;
}

void jl_camera_ray(const JlCamera *c, int width, int height, double px, double py, double origin[3], double dir[3]) {
  double right[3], up[3], fwd[3];
  jl_camera_basis(c, right, up, fwd);
  jl_camera_eye(c, origin);
  double th = tan(0.5 * c->fov_deg * PI / 180.0), aspect = (double)width / height;
  double nx = (2.0 * px / width - 1.0) * th * aspect, ny = (1.0 - 2.0 * py / height) * th;
  double n = 0;
  for (int k = 0; k < 3; k++) {
    dir[k] = fwd[k] + nx * right[k] + ny * up[k];
    n += dir[k] * dir[k];
  }
  n = sqrt(n);
  for (int k = 0; k < 3; k++) dir[k] /= n;
}

void jl_camera_look(JlCamera *c, const double eye[3], const double target[3]) {
  double v[3] = {eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]};
  double d = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  memcpy(c->target, target, sizeof c->target);
  if (!(d > 0)) d = 1, v[2] = 1;
  c->distance = d;
  c->pitch = clampd(asin(clampd(v[1] / d, -1, 1)), -1.55, 1.55);
  c->yaw = atan2(v[0], v[2]);
  if (!(c->fov_deg > 1 && c->fov_deg < 170)) c->fov_deg = 40;
}

/* Framing margins, as fractions of the image's half width and half height
 * measured from the centre: the framing puts the bodies within FILL, the
 * follow limit keeps them within LIMIT (never on the border). */
#define FILL  0.85
#define LIMIT 0.92
/* time constants (s) of the recentring and of the zoom towards the framing */
#define TAU_TARGET 0.5
#define TAU_ZOOM   1.0

double jl_camera_fit_distance(const JlCamera *c, double aspect, const double *p, int n, double margin) {
  double right[3], up[3], fwd[3];
  JlCamera unit = *c;
  unit.distance = 1; /* the basis depends on the direction only */
  jl_camera_basis(&unit, right, up, fwd);
  double fov = c->fov_deg > 1 && c->fov_deg < 170 ? c->fov_deg : 40;
  double tv = tan(0.5 * fov * PI / 180.0) * margin, th = tv * (aspect > 0 ? aspect : 1);
  double d = 0;
  for (int i = 0; i < n; i++) {
    double o[3] = {p[3 * i] - c->target[0], p[3 * i + 1] - c->target[1], p[3 * i + 2] - c->target[2]};
    if (!isfinite(o[0]) || !isfinite(o[1]) || !isfinite(o[2])) continue;
    double x = o[0] * right[0] + o[1] * right[1] + o[2] * right[2];
    double y = o[0] * up[0] + o[1] * up[1] + o[2] * up[2];
    double z = o[0] * fwd[0] + o[1] * fwd[1] + o[2] * fwd[2];
    /* in the image: |x| <= th (d + z), |y| <= tv (d + z); well in front: d + z >= d / 20 */
    double need = fmax(fabs(x) / th, fabs(y) / tv) - z;
    if (-z / 0.95 > need) need = -z / 0.95;
    if (need > d) d = need;
  }
  return d;
}

double *jl_camera_world_points(const JlWorld *w, int *n) {
  const JlModel *m = w->model;
  int total = 0;
  for (int b = 0; b < m->nbody; b++) total += m->body[b].surface.nvert;
  total += 8 * m->nobstacle;
  double *x = jl_calloc(3 * (size_t)total + 3, sizeof(double));
  int k = 0;
  for (int b = 0; b < m->nbody; b++) {
    int nv = m->body[b].surface.nvert;
    if (nv <= 0 || (m->body[b].kind == JL_BODY_VOLUME && m->body[b].embed.nvert != nv)) continue;
    jl_world_surface(w, b, x + 3 * (size_t)k);
    k += nv;
  }
  for (int o = 0; o < m->nobstacle; o++) {
    double olo[3], ohi[3];
    jl_obstacle_aabb(&m->obstacle[o], olo, ohi);
    if (!(ohi[0] - olo[0] < 1e3 && ohi[1] - olo[1] < 1e3 && ohi[2] - olo[2] < 1e3)) continue;
    for (int corner = 0; corner < 8; corner++, k++)
      for (int d = 0; d < 3; d++) x[3 * k + d] = (corner >> d & 1) ? ohi[d] : olo[d];
  }
  *n = k;
  return x;
}

/* the distance at which the box's bounding sphere fits (a little overfilled:
 * boxes are emptier than their spheres) */
static double sphere_distance(const JlCamera *c, const double lo[3], const double hi[3], double aspect) {
  double r = 0;
  for (int k = 0; k < 3; k++) r += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  r = 0.5 * sqrt(r);
  if (!(r > 1e-6)) r = 1;
  double half_v = 0.5 * c->fov_deg * PI / 180.0;
  double half_h = atan(tan(half_v) * (aspect > 0 ? aspect : 1));
  double half = half_v < half_h ? half_v : half_h;
  return 0.92 * r / sin(half);
}

void jl_camera_frame(JlCamera *c, const double lo[3], const double hi[3], double aspect) {
  for (int k = 0; k < 3; k++) c->target[k] = 0.5 * (lo[k] + hi[k]);
  if (!(c->fov_deg > 1 && c->fov_deg < 170)) c->fov_deg = 40;
  c->distance = sphere_distance(c, lo, hi, aspect);
  c->yaw = 35.0 * PI / 180.0;
  c->pitch = 24.0 * PI / 180.0;
}

void jl_camera_frame_points(JlCamera *c, const double lo[3], const double hi[3], const double *p, int n,
                            double aspect) {
  jl_camera_frame(c, lo, hi, aspect);
  double d = jl_camera_fit_distance(c, aspect, p, n, FILL);
  if (d > c->distance) c->distance = d;
}

void jl_camera_frame_world(JlCamera *c, const JlWorld *w, double aspect) {
  double lo[3], hi[3];
  int n = 0;
  jl_camera_world_box(w, lo, hi);
  double *p = jl_camera_world_points(w, &n);
  jl_camera_frame_points(c, lo, hi, p, n, aspect);
  free(p);
}

void jl_camera_follow(JlCamera *c, const JlWorld *w, double aspect, double dt) {
  double lo[3], hi[3];
  int n = 0;
  if (!(c->fov_deg > 1 && c->fov_deg < 170)) c->fov_deg = 40;
  jl_camera_world_box(w, lo, hi);
  double *p = jl_camera_world_points(w, &n);
  /* where the framing wants the camera: the box's centre, seen from the
   * current direction, at the framing distance */
  JlCamera want = *c;
  for (int k = 0; k < 3; k++) want.target[k] = 0.5 * (lo[k] + hi[k]);
  want.distance = sphere_distance(&want, lo, hi, aspect);
  double fit = jl_camera_fit_distance(&want, aspect, p, n, FILL);
  if (fit > want.distance) want.distance = fit;
  /* ease towards it; a dead band of 0.1 % of the distance keeps a camera on
   * resting bodies still (and the cached ground valid) */
  double at = dt > 0 ? 1.0 - exp(-dt / TAU_TARGET) : 0, ad = dt > 0 ? 1.0 - exp(-dt / TAU_ZOOM) : 0;
  double dev = 0;
  for (int k = 0; k < 3; k++) dev += (want.target[k] - c->target[k]) * (want.target[k] - c->target[k]);
  if (sqrt(dev) > 1e-3 * c->distance)
    for (int k = 0; k < 3; k++) c->target[k] += at * (want.target[k] - c->target[k]);
  if (fabs(want.distance - c->distance) > 1e-3 * c->distance) c->distance += ad * (want.distance - c->distance);
  /* never closer than where every vertex is inside LIMIT of the image */
  double lim = jl_camera_fit_distance(c, aspect, p, n, LIMIT);
  if (lim > c->distance) c->distance = lim;
  if (!(c->distance > 1e-6)) c->distance = 1e-6;
  free(p);
}

int jl_camera_world_box(const JlWorld *w, double lo[3], double hi[3]) {
  const JlModel *m = w->model;
  int maxv = 0, any = 0;
  for (int b = 0; b < m->nbody; b++)
    if (m->body[b].surface.nvert > maxv) maxv = m->body[b].surface.nvert;
  for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
  double *x = maxv ? jl_calloc((size_t)maxv * 3, sizeof(double)) : NULL;
  for (int b = 0; b < m->nbody; b++) {
    /* cloth and ropes have no embedding: their surface is their nodes */
    int n = m->body[b].surface.nvert;
    if (m->body[b].kind == JL_BODY_VOLUME && m->body[b].embed.nvert != n) continue;
    if (n <= 0) continue;
    jl_world_surface(w, b, x);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < 3; k++) {
        double v = x[3 * i + k];
        if (!isfinite(v)) continue;
        if (v < lo[k]) lo[k] = v;
        if (v > hi[k]) hi[k] = v;
        any = 1;
      }
  }
  free(x);
  /* bounded obstacles are drawn too: keep them in view (planes are the ground) */
  for (int o = 0; o < m->nobstacle; o++) {
    double olo[3], ohi[3];
    jl_obstacle_aabb(&m->obstacle[o], olo, ohi);
    if (!(ohi[0] - olo[0] < 1e3 && ohi[1] - olo[1] < 1e3 && ohi[2] - olo[2] < 1e3)) continue;
    for (int k = 0; k < 3; k++) {
      if (olo[k] < lo[k]) lo[k] = olo[k];
      if (ohi[k] > hi[k]) hi[k] = ohi[k];
    }
    any = 1;
  }
  if (!any) { /* nothing to frame (an empty world): 3 m of ground, 1.5 m above it */
    double y = m->world.has_ground ? m->world.ground_y : 0.0;
    lo[0] = lo[2] = -1.5, hi[0] = hi[2] = 1.5;
    lo[1] = y, hi[1] = y + 1.5;
    return 0;
  }
  if (m->world.has_ground && m->world.ground_y < lo[1]) lo[1] = m->world.ground_y;
  return 1;
}

void jl_camera_orbit(JlCamera *c, double dyaw, double dpitch) {
  c->yaw += dyaw;
  c->pitch = clampd(c->pitch + dpitch, -1.55, 1.55);
}

void jl_camera_pan(JlCamera *c, int height, double dx_px, double dy_px) {
  double right[3], up[3], fwd[3];
  jl_camera_basis(c, right, up, fwd);
  double s = 2.0 * c->distance * tan(0.5 * c->fov_deg * PI / 180.0) / (height > 0 ? height : 1);
  for (int k = 0; k < 3; k++) c->target[k] += (-dx_px * right[k] + dy_px * up[k]) * s;
}

void jl_camera_zoom(JlCamera *c, double factor) {
  if (factor > 0 && isfinite(factor)) c->distance = clampd(c->distance * factor, 1e-3, 1e6);
}
