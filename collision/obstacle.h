/* Static obstacles: convex shapes fixed in the world (scene "obstacles").
 *
 * A plane (the half-space below it), a box, a sphere, a capsule, or the
 * convex hull of a point cloud (e.g. an OBJ's vertices). Each is given in its
 * own frame and placed by a rotation and a translation. jl_obstacle_penetration
 * says whether a point is inside and, if so, how deep and which way is out:
 * exact closed forms for plane, box, sphere and capsule, libccd's MPR for
 * hulls (collision/ccd_wrap.h). Nodes of soft bodies are tested against
 * obstacles; the contact force element (src/contact.c) turns the answer into
 * a penalty force. */
#ifndef JL_COLLISION_OBSTACLE_H
#define JL_COLLISION_OBSTACLE_H

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum JlObstacleType {
  JL_OBSTACLE_PLANE,   /* "plane": local y = 0, solid below, normal +y */
  JL_OBSTACLE_BOX,     /* "box": size[3] edge lengths, centred on the origin */
  JL_OBSTACLE_SPHERE,  /* "sphere": radius */
  JL_OBSTACLE_CAPSULE, /* "capsule": radius, length between the cap centres along local y */
  JL_OBSTACLE_HULL,    /* "hull": convex hull of npoint local points */
  JL_OBSTACLE_COUNT
} JlObstacleType;

typedef struct JlObstacle {
  JlObstacleType type;
  double size[3];      /* m, box edge lengths; default 1 */
  double radius;       /* m, sphere and capsule; default 0.5 */
  double length;       /* m, capsule: distance between its two cap centres; default 1 */
  double translate[3]; /* m, position of the local origin in the world */
  double rot[9];       /* local-to-world rotation, row-major; identity by default */
  int npoint;          /* hull: number of points */
  double *point;       /* hull: npoint x 3 local points (after scale); owner frees (jl_obstacle_free) */
} JlObstacle;

/* A unit box at the origin. */
JlObstacle jl_default_obstacle(void);
/* "plane", "box", ...; NULL when out of range. */
const char *jl_obstacle_type_name(JlObstacleType t);
/* JL_OBSTACLE_COUNT for an unknown name. */
JlObstacleType jl_obstacle_type_parse(const char *name);
/* rot (row-major) from XYZ Euler angles in degrees: about world x first,
 * then y, then z (the convention of the scene's bodies). */
void jl_obstacle_set_rotation(JlObstacle *o, const double rotate_deg[3]);
/* Deep copy (hull points duplicated) and free of the owned points. */
void jl_obstacle_copy(JlObstacle *dst, const JlObstacle *src);
void jl_obstacle_free(JlObstacle *o);
/* World-space bounding box; planes give +-1e30 on unbounded axes. */
void jl_obstacle_aabb(const JlObstacle *o, double lo[3], double hi[3]);
/* Returns 1 when p (m) is inside the obstacle; then *depth (m, >= 0) is how
 * far p must move along dir (unit, world) to reach the surface. */
int jl_obstacle_penetration(const JlObstacle *o, const double p[3], double *depth, double dir[3]);

#ifdef __cplusplus
}
#endif
#endif
