/* Generated closed surfaces for scenes and tests, centred on the origin,
 * outward-oriented, watertight. Sizes in metres. `resolution` is a target
 * edge length (m); 0 chooses a sensible default. */
#ifndef JL_MESH_SHAPES_H
#define JL_MESH_SHAPES_H

#include "mesh/surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest generated surface the scene loader accepts (triangles). The
 * validator (mesh/validate.c) checks a surface this size in a few seconds and
 * a few hundred MB; TetGen turns it into millions of tets. docs/scenes.md,
 * "Limits on scene values". */
#define JL_SHAPE_MAX_TRIANGLES 1000000

/* Triangle counts the generators below would produce for the same arguments,
 * as doubles so that absurd requests (resolution 1e-9) do not overflow; the
 * scene loader compares them with JL_SHAPE_MAX_TRIANGLES before generating. */
double jl_shape_box_triangles(const double size[3], double resolution);
double jl_shape_sphere_triangles(double radius, double resolution);
double jl_shape_torus_triangles(double major, double minor, double resolution);

/* Axis-aligned box size[0] x size[1] x size[2], faces split into a grid.
 * Memory is proportional to the surface, not to the enclosed grid. */
void jl_shape_box(const double size[3], double resolution, JlSurface *out);
/* Geodesic (subdivided icosahedron) sphere. */
void jl_shape_sphere(double radius, double resolution, JlSurface *out);
/* Torus around the Y axis (lying in the XZ plane). */
void jl_shape_torus(double major, double minor, double resolution, JlSurface *out);

#ifdef __cplusplus
}
#endif
#endif
