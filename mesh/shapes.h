/* Generated closed surfaces for scenes and tests, centred on the origin,
 * outward-oriented, watertight. Sizes in metres. `resolution` is a target
 * edge length (m); 0 chooses a sensible default. */
#ifndef JL_MESH_SHAPES_H
#define JL_MESH_SHAPES_H

#include "mesh/surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Axis-aligned box size[0] x size[1] x size[2], faces split into a grid. */
void jl_shape_box(const double size[3], double resolution, JlSurface *out);
/* Geodesic (subdivided icosahedron) sphere. */
void jl_shape_sphere(double radius, double resolution, JlSurface *out);
/* Torus around the Y axis (lying in the XZ plane). */
void jl_shape_torus(double major, double minor, double resolution, JlSurface *out);

#ifdef __cplusplus
}
#endif
#endif
