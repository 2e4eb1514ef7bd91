/* The render row of `jelly bench`: ms per frame to shade, sort and draw the
 * default scene's surfaces at 1280x720 with SDL's software renderer (the
 * headless path; a window with a GPU is faster), and triangles per second.
 * The scene is built once and drawn in its initial state, ground and shadows
 * included, no debug layers; the figure excludes PNG encoding. */
#include <stdio.h>

#include "render/render.h"
#include "src/cli/cli.h"
#include "src/scene.h"

int jl_cli_bench_render(int json, const char *cpu) {
  char buf[4200], err[4096];
  const char *path = jl_cli_default_scene(buf, sizeof buf);
  JlScene sc;
  if (jl_scene_load(path, &sc, err, sizeof err)) {
    fprintf(stderr, "jelly bench: render row: %s\n", jl_cli_msg(err));
    return 1;
  }
  JlModel m;
  JlResult r = jl_scene_build(&sc, &m, NULL, err, sizeof err);
  jl_scene_free(&sc);
  if (r) {
    fprintf(stderr, "jelly bench: render row: %s\n", jl_cli_msg(err));
    return 1;
  }
  JlWorld w;
  JlStepDef sd = jl_default_step_def();
  if (jl_world_create(&w, &m, &sd, err, sizeof err)) {
    fprintf(stderr, "jelly bench: render row: %s\n", jl_cli_msg(err));
    jl_model_free(&m);
    return 1;
  }
  JlRenderBench b;
  r = jl_render_bench(&w, 1280, 720, 60, &b, err, sizeof err);
  jl_world_destroy(&w);
  if (r) {
    fprintf(stderr, "jelly bench: render row: %s\n", jl_cli_msg(err));
    return 1;
  }
  if (json)
    printf(
        "{\"name\": \"render_default\", \"width\": %d, \"height\": %d, \"triangles\": %d, "
        "\"frames\": %d, \"ms_per_frame\": %.4f, \"fps\": %.1f, \"triangles_per_s\": %.4g, "
        "\"renderer\": \"software\", \"cpu\": \"%s\"}\n",
        b.width, b.height, b.triangles, b.frames, b.ms_per_frame, b.ms_per_frame > 0 ? 1e3 / b.ms_per_frame : 0.0,
        b.triangles_per_s, cpu);
  else
    printf("\n%-14s %9s %9s %9s %6s %12s\n%-14s %9d %4dx%-4d %9.2f %6.0f %12.3g\n", "render", "triangles", "size",
           "ms/frame", "fps", "triangles/s", "default_sw", b.triangles, b.width, b.height, b.ms_per_frame,
           b.ms_per_frame > 0 ? 1e3 / b.ms_per_frame : 0.0, b.triangles_per_s);
  fflush(stdout);
  return 0;
}
