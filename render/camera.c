/* The orbit camera: look-at and perspective matrices through cglm, projection
 * of world points to pixels, picking rays, and the default framing.
 *
 * The camera is stored as target + yaw/pitch/distance (an orbit camera), so
 * mouse orbit, pan and zoom are simple edits. Matrices are float (cglm);
 * world coordinates are converted from double here. The default view looks
 * at the bounding box of all bodies from 35 degrees around and 24 degrees
 * above, far enough that the box's bounding sphere fits the narrower of the
 * two fields of view. */
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

void jl_camera_ray(const JlCamera *c, int width, int height, double px, double py,
                   double origin[3], double dir[3]) {
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

void jl_camera_frame(JlCamera *c, const double lo[3], const double hi[3], double aspect) {
  double r = 0;
  for (int k = 0; k < 3; k++) {
    c->target[k] = 0.5 * (lo[k] + hi[k]);
    r += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  }
  r = 0.5 * sqrt(r);
  if (!(r > 1e-6)) r = 1;
  if (!(c->fov_deg > 1 && c->fov_deg < 170)) c->fov_deg = 40;
  double half_v = 0.5 * c->fov_deg * PI / 180.0;
  double half_h = atan(tan(half_v) * (aspect > 0 ? aspect : 1));
  double half = half_v < half_h ? half_v : half_h;
  c->distance = 0.92 * r / sin(half);
  c->yaw = 35.0 * PI / 180.0;
  c->pitch = 24.0 * PI / 180.0;
}

int jl_camera_world_box(const JlWorld *w, double lo[3], double hi[3]) {
  const JlModel *m = &w->model;
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
  if (!any) {
    for (int k = 0; k < 3; k++) lo[k] = -0.5, hi[k] = 0.5;
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
