/* Jelly's renderer library: camera, shaded surfaces, debug layers, PNG frames,
 * picking and the contact sheet. The interactive viewer application is
 * src/cli/viewer.c, the mouse-drag force element src/drag.h.
 *
 * Everything is drawn through SDL2's SDL_Renderer with SDL_RenderGeometry:
 * hardware accelerated in a window where a GPU exists, SDL's software
 * renderer into an SDL_Surface when headless (no display and no video driver
 * needed). render/ reads a const view of the world (JlWorld, JlModel,
 * JlState), converts double to float only here and never changes
 * simulation state. This header uses neither SDL nor cglm types, so the
 * command-line files include it without those headers. */
#ifndef JL_RENDER_RENDER_H
#define JL_RENDER_RENDER_H

#include <stdio.h>

#include "src/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- camera --------------------------------------------------------------- */

/* An orbit camera: the eye sits `distance` metres from `target`, at azimuth
 * `yaw` (radians about +Y, 0 = looking along -Z) and elevation `pitch`
 * (radians, positive = looking down). */
typedef struct JlCamera {
  double target[3]; /* m */
  double yaw;       /* rad */
  double pitch;     /* rad, clamped to (-1.55, 1.55) */
  double distance;  /* m, > 0 */
  double fov_deg;   /* vertical field of view, degrees; default 40 */
} JlCamera;

/* Frames the box [lo, hi] from the default 3/4 elevated view (yaw 35
 * degrees, pitch 24 degrees) so that it fills most of an image of the given
 * aspect ratio (width / height). */
void jl_camera_frame(JlCamera *c, const double lo[3], const double hi[3], double aspect);
/* Bounding box of all bodies' embedded surfaces in the current state,
 * extended down to the ground plane when the scene has one (bodies fall
 * there). Returns 0 when the world has no surface vertices. */
int jl_camera_world_box(const JlWorld *w, double lo[3], double hi[3]);
/* The smallest distance from c's target, along c's current direction, at
 * which all n points p (x, y, z) project inside `margin` (a fraction, e.g.
 * 0.9) of the image's half width and half height around its centre. */
double jl_camera_fit_distance(const JlCamera *c, double aspect, const double *p, int n, double margin);
/* Every point the world draws that the camera should keep in view: all
 * bodies' surface vertices in the current state and the corners of the
 * bounded obstacles' boxes. malloc'd (free it), count in *n. */
double *jl_camera_world_points(const JlWorld *w, int *n);
/* jl_camera_frame of the box, moved back when needed so that the points p
 * (n of them) are inside 85 % of the image's half extents. */
void jl_camera_frame_points(JlCamera *c, const double lo[3], const double hi[3], const double *p, int n, double aspect);
/* The default view of the world now: jl_camera_frame_points of
 * jl_camera_world_box and jl_camera_world_points. */
void jl_camera_frame_world(JlCamera *c, const JlWorld *w, double aspect);
/* One frame (dt seconds) of a camera that follows the bodies, keeping its
 * yaw, pitch and field of view: the target eases towards the centre of
 * jl_camera_world_box (time constant 0.5 s) and the distance towards the
 * framing distance (1 s), so it recentres and zooms in slowly; when a
 * surface vertex would come within 8 % of the image's half extent of its
 * border, the distance grows at once to keep it inside. No jumps: the result
 * changes continuously with the positions. Deterministic. */
void jl_camera_follow(JlCamera *c, const JlWorld *w, double aspect, double dt);
/* Places the camera at `eye` looking at `target` (they must differ). */
void jl_camera_look(JlCamera *c, const double eye[3], const double target[3]);
void jl_camera_eye(const JlCamera *c, double eye[3]);
/* Screen position (pixels, y down) of world point p in a width x height
 * image, and its distance along the view direction in out[2]. Returns 0 when
 * p is behind the near plane. */
int jl_camera_project(const JlCamera *c, int width, int height, const double p[3], double out[3]);
/* The ray through pixel (px, py): origin = eye, dir = unit vector. */
void jl_camera_ray(const JlCamera *c, int width, int height, double px, double py, double origin[3], double dir[3]);
/* Mouse helpers: orbit by angles (rad), pan by a pixel offset, zoom by a
 * factor (< 1 moves closer). */
void jl_camera_orbit(JlCamera *c, double dyaw, double dpitch);
void jl_camera_pan(JlCamera *c, int height, double dx_px, double dy_px);
void jl_camera_zoom(JlCamera *c, double factor);

/* ---- drawing ---------------------------------------------------------------- */

/* Debug layers (bit i of JlRenderOptions.layers is layer i). */
typedef enum JlLayer {
  JL_LAYER_WIREFRAME, /* surface triangle edges */
  JL_LAYER_TETS,      /* tetrahedra, shrunk towards their centroids */
  JL_LAYER_SPRINGS,   /* springs coloured by strain: blue compressed, white, red stretched */
  JL_LAYER_CONTACTS,  /* contact points with depth arrows (ground contacts) */
  JL_LAYER_PINS,      /* pinned nodes */
  JL_LAYER_OBSTACLES, /* static obstacle shapes (the ground plane outline) */
  JL_LAYER_VELOCITY,  /* node velocities (0.05 s of motion) */
  JL_LAYER_STRAIN,    /* surfaces coloured by the strain of the springs around them, with a colour bar */
  JL_LAYER_COUNT
} JlLayer;

typedef struct JlRenderOptions {
  unsigned layers; /* bit mask of (1u << JlLayer); default 0 */
  int ground;      /* draw the ground grid (scenes with a ground only); default 1 */
  int shadows;     /* soft shadow under each body; default 1 */
  int gravity_off; /* the viewer has switched gravity off (shadows stay); default 0 */
} JlRenderOptions;

JlRenderOptions jl_default_render_options(void);

/* Background colour (RGB) that fills every pixel nothing else covers. */
extern const unsigned char jl_render_background[3];
/* Base colour (RGB) of body b before shading; distinct for the first 8. */
void jl_render_body_color(int b, unsigned char rgb[3]);

typedef struct JlRenderer JlRenderer;

/* A renderer drawing into a width x height RGB image in memory through SDL's
 * software renderer. Needs no display and no video driver. */
JlResult jl_renderer_create_headless(JlRenderer **out, int width, int height, char *err, size_t errsz);
void jl_renderer_destroy(JlRenderer *r);
int jl_renderer_width(const JlRenderer *r);
int jl_renderer_height(const JlRenderer *r);

/* Clears and draws the world: ground grid and shadows, shaded surfaces in
 * painter's order with back faces culled, then the enabled debug layers.
 * Returns the number of surface triangles drawn. */
int jl_render_world(JlRenderer *r, const JlWorld *w, const JlCamera *c, const JlRenderOptions *o);
/* Text with the built-in 5x7 font, `scale` pixels per font pixel; '\n'
 * starts a new line. rgba is the text colour. */
void jl_render_text(JlRenderer *r, int x, int y, int scale, const unsigned char rgba[4], const char *text);
/* Copies the current image into rgb (width x height x 3, rows top down). */
JlResult jl_renderer_read(JlRenderer *r, unsigned char *rgb, char *err, size_t errsz);
/* Writes the current image as a PNG file. */
JlResult jl_renderer_write_png(JlRenderer *r, const char *path, char *err, size_t errsz);

/* ---- PNG ------------------------------------------------------------------------ */

/* Writes an 8-bit RGB PNG (rows top down, 3 bytes per pixel, no padding),
 * deflate-compressed by render/png.c itself (no zlib needed). */
JlResult jl_png_write(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t errsz);

/* ---- picking ---------------------------------------------------------------------- */

typedef struct JlPick {
  int body;        /* body index */
  int tri;         /* triangle of the body's surface */
  double bary[3];  /* barycentric weights of the hit on that triangle's vertices */
  double point[3]; /* m, hit point */
  double t;        /* m, distance along the ray */
} JlPick;

/* Nearest hit of the ray (origin, unit dir) with any body's embedded surface
 * in the current state (Moller & Trumbore 1997). Returns 1 and fills *hit, or
 * 0 when the ray misses every body. */
int jl_pick_ray(const JlWorld *w, const double origin[3], const double dir[3], JlPick *hit);

/* ---- contact sheet (jelly run's preview.png) ------------------------------------- */

typedef struct JlPreview JlPreview;
/* Prepares a sheet of up to 6 evenly spaced frames out of 0..nframes (the
 * drawing, which can fail, happens in jl_preview_write). */
JlPreview *jl_preview_create(int nframes);
/* Called once per output frame; keeps a copy of the node positions when
 * `frame` is one of the chosen frames. The world must stay alive (same
 * model) until jl_preview_write. */
void jl_preview_frame(JlPreview *p, const JlWorld *w, int frame);
/* Draws the frames captured so far with one camera that frames all of them
 * (so motion between tiles shows and no tile loses its bodies) and writes
 * the sheet as a PNG. */
JlResult jl_preview_write(JlPreview *p, const char *path, char *err, size_t errsz);
void jl_preview_destroy(JlPreview *p);

/* ---- benchmark ---------------------------------------------------------------------- */

typedef struct JlRenderBench {
  int width, height;
  int triangles; /* surface triangles in the scene */
  int frames;
  double ms_per_frame;    /* clear, shade, sort, draw (software renderer) */
  double triangles_per_s; /* triangles / (ms_per_frame / 1000) */
} JlRenderBench;
/* Renders the world `frames` times at width x height headless (default
 * camera, no debug layers) and measures. */
JlResult jl_render_bench(const JlWorld *w, int width, int height, int frames, JlRenderBench *out, char *err,
                         size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
