/* libFuzzer target: scene files (src/scene.c), the path of `jelly run
 * SCENE` up to the model.
 *
 * Input: the scene text. Like jl_scene_load, text with a NUL byte is
 * refused before parsing. The scene is anchored at models/scenes/ so that
 * seeds' relative "mesh" paths (../bunny.obj) resolve; a hull obstacle's mesh
 * is loaded at parse time through the guarded importer child under the small
 * limits of fuzz_common.h.
 *
 * What is built after a successful parse, kept cheap so a run makes
 * thousands of inputs a minute:
 *  - a scene whose bodies are all generated cloth grids or rope chains, at
 *    most 20 000 cells in all, goes through jl_scene_build (model, pins,
 *    obstacles), since that builds in well under a millisecond;
 *  - a volume body with a generated shape of at most 20 000 triangles has
 *    its surface generated, transformed and validated as jl_scene_build
 *    would, but is never tetrahedralized: TetGen runs in a child and can take
 *    seconds, and its request cap is tested by tests/test_hostile.c;
 *  - a body with a "mesh" file is not built (surface import has its own
 *    target, fuzz_surface). */
#include <stdlib.h>
#include <string.h>

#include "mesh/shapes.h"
#include "src/scene.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_CELLS 20000.0

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_setup();
  return 0;
}

/* generate, transform and validate a volume body's shape when it is small */
static void check_shape(const JlSceneBody *b) {
  double ntri;
  switch (b->shape) {
    case JL_SHAPE_BOX:
      ntri = jl_shape_box_triangles(b->size, b->shape_resolution);
      break;
    case JL_SHAPE_SPHERE:
      ntri = jl_shape_sphere_triangles(b->radius, b->shape_resolution);
      break;
    case JL_SHAPE_TORUS:
      ntri = jl_shape_torus_triangles(b->major, b->minor, b->shape_resolution);
      break;
    default:
      return;
  }
  if (!(ntri <= FUZZ_MAX_CELLS)) return;
  JlSurface s;
  switch (b->shape) {
    case JL_SHAPE_BOX:
      jl_shape_box(b->size, b->shape_resolution, &s);
      break;
    case JL_SHAPE_SPHERE:
      jl_shape_sphere(b->radius, b->shape_resolution, &s);
      break;
    default:
      jl_shape_torus(b->major, b->minor, b->shape_resolution, &s);
      break;
  }
  jl_transform_points(s.vert, s.nvert, b->scale, b->rotate_deg, b->translate);
  JlMeshReport rep;
  jl_surface_validate(&s, b->def.name, &rep);
  jl_surface_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  if (strlen(text) != size) {
    free(text);
    return 0;
  }
  JlScene sc;
  char err[4096];
  JlResult r = jl_scene_parse(text, JL_MODELS_DIR "/scenes/fuzz.json", &sc, err, sizeof err);
  free(text);
  if (r != JL_OK) return 0;

  int buildable = 1;
  double cells = 0;
  for (int i = 0; i < sc.nbody; i++) {
    const JlSceneBody *b = &sc.body[i];
    if (b->kind == JL_BODY_VOLUME) {
      buildable = 0;
      check_shape(b);
    } else if (b->shape == JL_SHAPE_GRID) {
      cells += (double)b->grid_cells[0] * b->grid_cells[1];
    } else if (b->shape == JL_SHAPE_CHAIN) {
      cells += b->chain_segments;
    } else {
      buildable = 0;
    }
  }
  if (buildable && sc.nbody > 0 && cells <= FUZZ_MAX_CELLS) {
    JlModel m;
    if (jl_scene_build(&sc, &m, NULL, err, sizeof err) == JL_OK) jl_model_free(&m);
  }
  jl_scene_free(&sc);
  return 0;
}
