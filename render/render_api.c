/* jelly_world_render (<jelly/jelly_render.h>, the Python module's World.render): the
 * headless renderer of `jelly render` drawing a JellyWorld into an RGB array,
 * with the same camera conventions (render/render.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jelly/jelly_render.h"
#include "render/render.h"
#include "src/api_internal.h"

/* the public layer bits are the renderer's (render/render.h, JlLayer) */
_Static_assert(JELLY_LAYER_WIREFRAME == 1 << JL_LAYER_WIREFRAME && JELLY_LAYER_STRAIN == 1 << JL_LAYER_STRAIN &&
                   JELLY_LAYER_VELOCITY == 1 << JL_LAYER_VELOCITY && JL_LAYER_COUNT == 8,
               "JELLY_LAYER_* must mirror JlLayer");

JellyResult jelly_world_render(JellyWorld *world, int width, int height, const double *camera, unsigned layers,
                               unsigned char *rgb, char *err, size_t errsz) {
  if (!world || !rgb) return (JellyResult)jl_fail(err, errsz, JL_ERR_INPUT, "render: world and image must not be NULL");
  if (width < 16 || width > 16384 || height < 16 || height > 16384)
    return (JellyResult)jl_fail(err, errsz, JL_ERR_INPUT,
                                "render: width and height must be from 16 to 16384 pixels, got %dx%d", width, height);
  if (layers >> JL_LAYER_COUNT)
    return (JellyResult)jl_fail(err, errsz, JL_ERR_INPUT, "render: unknown layer bits 0x%x", layers);
  JlCamera cam = {{0, 0, 0}, 0, 0, 1, 40};
  if (camera) {
    for (int k = 0; k < 6; k++)
      if (!isfinite(camera[k]) || fabs(camera[k]) > 1e9)
        return (JellyResult)jl_fail(err, errsz, JL_ERR_INPUT, "render: the camera's eye and target must be finite");
    double d =
        sqrt((camera[0] - camera[3]) * (camera[0] - camera[3]) + (camera[1] - camera[4]) * (camera[1] - camera[4]) +
             (camera[2] - camera[5]) * (camera[2] - camera[5]));
    if (!(d > 1e-9))
      return (JellyResult)jl_fail(err, errsz, JL_ERR_INPUT, "render: the camera's eye and target must differ");
    jl_camera_look(&cam, camera, camera + 3);
  } else {
    /* jelly render's first frame: every body framed from 35 degrees around and 24 above */
    jl_camera_frame_world(&cam, &world->w, (double)width / height);
  }
  JlRenderer *r = NULL;
  JlResult res = jl_renderer_create_headless(&r, width, height, err, errsz);
  if (res) return (JellyResult)res;
  JlRenderOptions o = jl_default_render_options();
  o.layers = layers;
  jl_render_world(r, &world->w, &cam, &o);
  res = jl_renderer_read(r, rgb, err, errsz);
  jl_renderer_destroy(r);
  return (JellyResult)res;
}
