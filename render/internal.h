/* Private to render/: the renderer struct and helpers shared by its files.
 * SDL and cglm types are allowed here, never in render/render.h. */
#ifndef JL_RENDER_INTERNAL_H
#define JL_RENDER_INTERNAL_H

#include <SDL2/SDL.h>
#include <cglm/cglm.h>

#include "render/render.h"

struct JlRenderer {
  SDL_Renderer *sdl;
  SDL_Surface *surface; /* headless target, NULL when drawing into a window */
  int width, height;
  SDL_Texture *font;   /* glyph atlas, built on first text */
  SDL_Texture *shadow; /* radial shadow blob, built on first use */
  SDL_Texture *ground; /* cached ground image for the camera in ground_key */
#define JL_GROUND_KEY 10
  double ground_key[JL_GROUND_KEY];
  int ground_w, ground_h;
  /* per-frame scratch, grown as needed, never shrunk */
  int cap_vert, cap_tri, cap_out;
  double *xd, *nd;       /* cap_vert x 3: surface positions and normals (double) */
  float *sx;             /* cap_vert x 3: screen x, y, view depth */
  unsigned char *ok;     /* cap_vert: in front of the near plane */
  SDL_Color *col;        /* cap_vert: shaded colour */
  struct JlSortKey *key; /* cap_tri */
  SDL_Vertex *out;       /* cap_out */
  /* the strain layer's scratch (render/strain.c): node values, 3-vector fields for the embedding
   * (nnode + the largest surface, x 3), each vertex's value */
  double *node_val, *field3, *vval;
  size_t cap_node, cap_field, cap_vval;
  /* statistics of the last jl_render_world */
  int last_triangles;
  double strain_range; /* the strain layer's range (0 when off) */
};

typedef struct JlSortKey {
  float depth;
  int body, tri;
} JlSortKey;

/* view-projection matrix for a width x height image */
void jl_camera_matrix(const JlCamera *c, int width, int height, mat4 vp);
/* orthonormal basis: right, up, forward (eye -> target) */
void jl_camera_basis(const JlCamera *c, double right[3], double up[3], double fwd[3]);

/* wraps an existing SDL renderer (the viewer's window) */
JlRenderer *jl_renderer_wrap(SDL_Renderer *sdl, int width, int height);
/* grows r->out to hold n vertices */
void jl_renderer_reserve_out(JlRenderer *r, int n);
/* render/obstacle_mesh.c: world-space surface of a bounded obstacle (box,
 * sphere, capsule) for drawing; out is empty for planes and hulls. */
void jl_obstacle_mesh(const JlObstacle *o, JlSurface *out);

/* render/overlay.c: debug layers over the shaded surfaces */
void jl_overlay_draw(JlRenderer *r, const JlWorld *w, const JlCamera *c, unsigned layers);
/* a line `width` pixels wide with square caps (two triangles), in any
 * colour; from (x0, y0) to (x1, y1), a square of that size when they meet */
void jl_draw_thick_line(JlRenderer *r, float x0, float y0, float x1, float y1, float width,
                        const unsigned char rgba[4]);

/* render/font.c: 5x7 glyphs; width in pixels of a string at scale s */
int jl_font_text_width(const char *text, int scale);
/* Copies text into out (outsz bytes, NUL-terminated), breaking lines at
 * spaces so that none is wider than max_width pixels at scale s (a word
 * longer than a line is cut); existing '\n' stay. Returns the line count. */
int jl_font_wrap(const char *text, int max_width, int scale, char *out, size_t outsz);
/* line height in pixels at scale s */
#define JL_FONT_LINE_H(s) (10 * (s))

/* the strain layer (render/strain.c) */
void jl_strain_colour(double e, unsigned char rgb[3]);     /* e in [-1, 1]: blue, white, red */
void jl_render_node_strain(const JlWorld *w, double *out); /* each node's mean spring strain (nnode) */
/* body b's surface vertex values of node values (field3: 3 x (nnode + its vertices) scratch) */
void jl_render_surface_values(const JlWorld *w, int b, const double *node_val, double *field3, double *out);
double jl_strain_range(double largest); /* the colour range shown for the largest |strain| */
void jl_render_strain_bar(JlRenderer *r, double range);
void jl_font_destroy(JlRenderer *r);

#endif
