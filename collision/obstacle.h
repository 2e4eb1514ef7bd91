/* Static obstacles: convex shapes fixed in the world (scene "obstacles").
 *
 * A plane (the half-space below it), a box, a sphere, a capsule, or the
 * convex hull of a point cloud (e.g. an OBJ's vertices). Each is given in its
 * own frame and placed by a rotation and a translation. Nodes of soft bodies
 * are tested against obstacles; the contact force element (src/contact.c)
 * turns the answers into penalty forces. Three queries:
 *  - jl_obstacle_penetration: is a point inside, how deep, which way is out
 *    (a box: through its nearest face);
 *  - jl_obstacle_query: signed distance to a chosen feature, also for points
 *    up to a margin outside; a box can be told which face to measure against
 *    (the face a node came in through), so a node that entered through the
 *    top keeps being pushed up even where a side face is nearer;
 *  - jl_obstacle_sweep: the first entry of a node's straight path over a
 *    step, for speculative contacts (fast nodes and thin obstacles).
 * Plane, box, sphere and capsule are exact closed forms (Ericson, Real-Time
 * Collision Detection, ch. 5). Hulls: inside points and swept paths use
 * libccd's MPR (collision/ccd_wrap.h), paths exact to
 * JL_OBSTACLE_HULL_TOLERANCE; points outside use GJK's closest point. */
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
/* The support function: the largest n . y over the obstacle's points y
 * (world; n any length): the obstacle lies behind the plane n . y = h with
 * normal n. INFINITY for a plane unless n is its normal times a length >= 0,
 * and for a non-finite n. */
double jl_obstacle_support(const JlObstacle *o, const double n[3]);
/* m: the obstacle's extent along direction n (world, any length): the
 * distance between its two support planes normal to n (a box's thickness
 * across the face with normal n, a sphere's diameter); INFINITY for a plane
 * (a half-space) and for a zero or non-finite n. */
double jl_obstacle_width(const JlObstacle *o, const double n[3]);
/* Returns 1 when p (m) is inside the obstacle; then *depth (m, >= 0) is how
 * far p must move along dir (unit, world) to reach the surface. Points on the
 * surface are outside. */
int jl_obstacle_penetration(const JlObstacle *o, const double p[3], double *depth, double dir[3]);

/* The faces of a box, numbered as JlObstacleHit.feature: the outward normal
 * of each in the box's own frame. */
typedef enum JlBoxFace {
  JL_BOX_FACE_POS_X, /* local +x */
  JL_BOX_FACE_NEG_X, /* local -x */
  JL_BOX_FACE_POS_Y, /* local +y (a box's top when unrotated) */
  JL_BOX_FACE_NEG_Y, /* local -y */
  JL_BOX_FACE_POS_Z, /* local +z */
  JL_BOX_FACE_NEG_Z, /* local -z */
  JL_BOX_FACE_COUNT
} JlBoxFace;

/* m: a hull sweep's entry point is exact to within this (bisection on
 * libccd's MPR overlap answers, themselves exact to 1e-9 m). */
#define JL_OBSTACLE_HULL_TOLERANCE 1e-8

/* What jl_obstacle_query and jl_obstacle_sweep found. In both,
 * dist = n . (p - point), with p the queried point or the path's start. */
typedef struct JlObstacleHit {
  double dist;     /* m, signed distance of p from the feature along n: < 0 inside (depth = -dist), > 0 outside */
  double n[3];     /* unit outward normal of the feature (world): the direction that pushes p out */
  double point[3]; /* m, world: query: the surface point p is measured against, p - dist n;
                      sweep: the point where the path enters the obstacle */
  int feature;     /* box: the JlBoxFace used; plane, sphere, capsule, hull: 0 */
} JlObstacleHit;

/* Signed distance query of point p (m, world). Returns 1, filling *hit, when
 * p is inside the obstacle, on its surface or at most margin (m, >= 0) outside
 * it; 0 otherwise, and when p or margin is NaN or infinite (*hit untouched).
 * feature_hint = -1: the obstacle chooses. Inside a box, its nearest face (as
 * jl_obstacle_penetration, ties to the lower face number). Outside, the
 * closest surface point: n points from it to p, so near a box's edge or corner
 * n is the edge or corner direction, and feature is the face whose plane p is
 * farthest outside of. Sphere and capsule: radially from the centre or the
 * axis (n = local +y at the centre itself); plane: its normal.
 * feature_hint = 0..5 (JlBoxFace, boxes only; ignored by other types):
 * measure against that face's plane, dist = signed distance to the plane and
 * n = the face normal, when p is inside the box (or on it), or outside on the
 * face's side of its plane and within margin of the face rectangle. Any
 * other p falls back to -1; hit->feature says which face was used.
 * Hulls: inside, MPR's depth and direction as jl_obstacle_penetration (the
 * face hit by the ray from the hull's centre through p, not always the
 * nearest); outside, the exact closest point by GJK on the hull's points.
 * o, p and hit must not be NULL; feature_hint must be -1..5 for every type. */
int jl_obstacle_query(const JlObstacle *o, const double p[3], double margin, int feature_hint, JlObstacleHit *hit);

/* Hull only: the hull point (local frame) with the largest projection on the
 * local direction d (its support point); o must have npoint >= 1. */
const double *jl_obstacle_hull_support(const JlObstacle *o, const double d[3]);

/* Continuous test of a node's straight path from a to b (m, world) over a
 * step. Returns 1 when a is outside the obstacle (not on its surface) and
 * some point of the segment is inside or on the surface (touching counts);
 * then *t_hit in (0, 1] is the first entry, a + t_hit (b - a) =
 * hit->point, hit->n the outward normal there, hit->dist = n . (a - point)
 * >= 0 how far a is from the entry feature's (tangent) plane, and for boxes
 * hit->feature the face entered (entering exactly through an edge or corner:
 * the face with the lowest number among those hit at t_hit).
 * Returns 0 when a is inside or on the surface (use jl_obstacle_query), when
 * the segment misses, when a == b, and for NaN or infinite input.
 * Plane, box (slab clipping), sphere and capsule (ray-sphere, ray-cylinder)
 * are exact. Hulls: exact to JL_OBSTACLE_HULL_TOLERANCE along the segment by
 * bisection on MPR overlap tests of the segment's prefix [a, a + t (b - a)]
 * (never sampled, so a thin hull cannot be stepped over); n is MPR's normal
 * of the face containing the entry point.
 * o, a, b, t_hit and hit must not be NULL. */
int jl_obstacle_sweep(const JlObstacle *o, const double a[3], const double b[3], double *t_hit, JlObstacleHit *hit);

#ifdef __cplusplus
}
#endif
#endif
