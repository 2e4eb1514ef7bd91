/* A world built from scene text the way `jelly run` builds it (jl_scene_parse,
 * jl_scene_build, jl_world_create), for tests that describe their set-up as
 * a scene. Returns 1 on success; otherwise prints why and returns 0. `name`
 * stands for the file name in error messages. */
#ifndef JL_TESTS_SCENE_WORLD_H
#define JL_TESTS_SCENE_WORLD_H

#include <stdio.h>

#include "src/scene.h"
#include "src/world.h"

static inline int jl_test_scene_world(JlWorld *w, const char *text, const char *name) {
  char err[1024];
  JlScene sc;
  if (jl_scene_parse(text, name, &sc, err, sizeof err) != JL_OK) {
    printf("  scene: %s\n", err);
    return 0;
  }
  JlModel m;
  JlResult r = jl_scene_build(&sc, &m, NULL, err, sizeof err);
  if (r == JL_OK) r = jl_world_create(w, &m, &sc.step, err, sizeof err);
  if (r != JL_OK) printf("  build: %s\n", err);
  jl_scene_free(&sc);
  return r == JL_OK;
}

#endif
