/* Static convex obstacles (collision/obstacle.h).
 *
 * Points are mapped into the obstacle's frame (q = R^T (p - t)) and tested
 * in closed form: plane (depth -q_y, direction the plane normal), box (the
 * nearest face: depth min_i (h_i - |q_i|)), sphere and capsule (radius minus
 * the distance to the centre point / axis segment, direction away from it).
 * Hulls go through libccd's Minkowski Portal Refinement (collision/ccd_wrap.c),
 * which needs only the hull's support function, so the hull's faces are never
 * built. */
#include "collision/obstacle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/ccd_wrap.h"

static const char *const type_names[JL_OBSTACLE_COUNT] = {"plane", "box", "sphere", "capsule", "hull"};

const char *jl_obstacle_type_name(JlObstacleType t) {
  return (t >= 0 && t < JL_OBSTACLE_COUNT) ? type_names[t] : NULL;
}

JlObstacleType jl_obstacle_type_parse(const char *name) {
  for (int i = 0; name && i < JL_OBSTACLE_COUNT; i++)
    if (strcmp(name, type_names[i]) == 0) return (JlObstacleType)i;
  return JL_OBSTACLE_COUNT;
}

JlObstacle jl_default_obstacle(void) {
  JlObstacle o;
  memset(&o, 0, sizeof o);
  o.type = JL_OBSTACLE_BOX;
  o.size[0] = o.size[1] = o.size[2] = 1.0;
  o.radius = 0.5;
  o.length = 1.0;
  o.rot[0] = o.rot[4] = o.rot[8] = 1.0;
  return o;
}

void jl_obstacle_set_rotation(JlObstacle *o, const double rotate_deg[3]) {
  /* R = Rz Ry Rx, as jl_transform_points */
  const double d2r = acos(-1.0) / 180.0;
  double cx = cos(rotate_deg[0] * d2r), sx = sin(rotate_deg[0] * d2r);
  double cy = cos(rotate_deg[1] * d2r), sy = sin(rotate_deg[1] * d2r);
  double cz = cos(rotate_deg[2] * d2r), sz = sin(rotate_deg[2] * d2r);
  double R[9] = {cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
                 sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
                 -sy,     cy * sx,                cy * cx};
  memcpy(o->rot, R, sizeof R);
}

void jl_obstacle_copy(JlObstacle *dst, const JlObstacle *src) {
  *dst = *src;
  dst->point = NULL;
  if (src->npoint > 0 && src->point) {
    dst->point = jl_calloc(3 * (size_t)src->npoint, sizeof(double));
    memcpy(dst->point, src->point, 3 * (size_t)src->npoint * sizeof(double));
  } else {
    dst->npoint = 0;
  }
}

void jl_obstacle_free(JlObstacle *o) {
  if (!o) return;
  free(o->point);
  o->point = NULL;
  o->npoint = 0;
}

/* world = R q + t and q = R^T (p - t) */
static void to_world_dir(const JlObstacle *o, const double *q, double *p) {
  for (int r = 0; r < 3; r++) p[r] = o->rot[3 * r] * q[0] + o->rot[3 * r + 1] * q[1] + o->rot[3 * r + 2] * q[2];
}

static void to_local(const JlObstacle *o, const double *p, double *q) {
  double d[3] = {p[0] - o->translate[0], p[1] - o->translate[1], p[2] - o->translate[2]};
  for (int c = 0; c < 3; c++) q[c] = o->rot[c] * d[0] + o->rot[3 + c] * d[1] + o->rot[6 + c] * d[2];
}

void jl_obstacle_aabb(const JlObstacle *o, double lo[3], double hi[3]) {
  double ext[3] = {0, 0, 0};
  switch (o->type) {
    case JL_OBSTACLE_PLANE: {
      /* the half-space below the plane: bounded only along axes where the normal is exactly +-axis */
      double n[3], e[3] = {0, 1, 0};
      to_world_dir(o, e, n);
      for (int k = 0; k < 3; k++) {
        lo[k] = -1e30;
        hi[k] = 1e30;
      }
      for (int k = 0; k < 3; k++)
        if (fabs(n[k]) > 1.0 - 1e-12) {
          if (n[k] > 0) hi[k] = o->translate[k];
          else lo[k] = o->translate[k];
        }
      return;
    }
    case JL_OBSTACLE_BOX:
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) ext[r] += fabs(o->rot[3 * r + c]) * 0.5 * o->size[c];
      break;
    case JL_OBSTACLE_SPHERE:
      ext[0] = ext[1] = ext[2] = o->radius;
      break;
    case JL_OBSTACLE_CAPSULE:
      for (int r = 0; r < 3; r++) ext[r] = fabs(o->rot[3 * r + 1]) * 0.5 * o->length + o->radius;
      break;
    case JL_OBSTACLE_HULL: {
      for (int k = 0; k < 3; k++) {
        lo[k] = 1e30;
        hi[k] = -1e30;
      }
      for (int i = 0; i < o->npoint; i++) {
        double w[3];
        to_world_dir(o, o->point + 3 * i, w);
        for (int k = 0; k < 3; k++) {
          double v = w[k] + o->translate[k];
          lo[k] = v < lo[k] ? v : lo[k];
          hi[k] = v > hi[k] ? v : hi[k];
        }
      }
      return;
    }
    default:
      break;
  }
  for (int k = 0; k < 3; k++) {
    lo[k] = o->translate[k] - ext[k];
    hi[k] = o->translate[k] + ext[k];
  }
}

/* depth and outward direction from the distance to a centre point c (local) */
static int round_shape(const JlObstacle *o, const double *q, const double *c, double *depth, double *dir) {
  double d[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(len < o->radius)) return 0;
  double n[3] = {0, 1, 0};
  if (len > 0) n[0] = d[0] / len, n[1] = d[1] / len, n[2] = d[2] / len;
  *depth = o->radius - len;
  to_world_dir(o, n, dir);
  return 1;
}

int jl_obstacle_penetration(const JlObstacle *o, const double p[3], double *depth, double dir[3]) {
  double q[3];
  to_local(o, p, q);
  switch (o->type) {
    case JL_OBSTACLE_PLANE: {
      if (!(q[1] < 0.0)) return 0;
      double n[3] = {0, 1, 0};
      *depth = -q[1];
      to_world_dir(o, n, dir);
      return 1;
    }
    case JL_OBSTACLE_BOX: {
      int axis = -1;
      double best = INFINITY;
      for (int k = 0; k < 3; k++) {
        double gap = 0.5 * o->size[k] - fabs(q[k]);
        if (!(gap > 0.0)) return 0;
        if (gap < best) best = gap, axis = k;
      }
      double n[3] = {0, 0, 0};
      n[axis] = q[axis] >= 0 ? 1.0 : -1.0;
      *depth = best;
      to_world_dir(o, n, dir);
      return 1;
    }
    case JL_OBSTACLE_SPHERE: {
      double c[3] = {0, 0, 0};
      return round_shape(o, q, c, depth, dir);
    }
    case JL_OBSTACLE_CAPSULE: {
      double half = 0.5 * o->length, y = q[1] < -half ? -half : q[1] > half ? half : q[1];
      double c[3] = {0, y, 0};
      return round_shape(o, q, c, depth, dir);
    }
    case JL_OBSTACLE_HULL:
      return jl_ccd_point_penetration(o, p, depth, dir);
    default:
      return 0;
  }
}
