/* Pictures of a world, for hosts built with Jelly's renderer (render/, SDL2 and cglm): the Python
 * module's World.render. It is not part of libjelly.so, which needs no SDL; it lives in the
 * renderer library the program and the Python module link (render/render_api.c), and it is not
 * installed with <jelly/jelly.h>. */
#ifndef JELLY_JELLY_RENDER_H
#define JELLY_JELLY_RENDER_H

#include <jelly/jelly.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layer bits of jelly_world_render, as `jelly render --layers` names them. */
enum {
  JELLY_LAYER_WIREFRAME = 1 << 0,
  JELLY_LAYER_TETS = 1 << 1,
  JELLY_LAYER_SPRINGS = 1 << 2,
  JELLY_LAYER_CONTACTS = 1 << 3,
  JELLY_LAYER_PINS = 1 << 4,
  JELLY_LAYER_OBSTACLES = 1 << 5,
  JELLY_LAYER_VELOCITY = 1 << 6,
  JELLY_LAYER_STRAIN = 1 << 7
};

/* The world now as width x height (16 to 16384) RGB bytes into rgb (rows top down), drawn headless
 * (no display) by `jelly render`'s renderer with the JELLY_LAYER_* bits in layers. camera: eye (x, y,
 * z) then target (x, y, z), m, as `jelly render --camera`; NULL frames every body as `jelly render`'s
 * first frame does. JELLY_ERR_INPUT for bad arguments, JELLY_ERR_SYSTEM when SDL cannot draw. */
JELLY_API JellyResult jelly_world_render(JellyWorld *world, int width, int height, const double *camera,
                                         unsigned layers, unsigned char *rgb, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
