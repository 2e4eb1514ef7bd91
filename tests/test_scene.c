/* Scene files: every documented key parses into the right field; every kind
 * of bad input is rejected with a message naming the file, key path and
 * reason. */
#include <stdio.h>
#include <string.h>

#include "src/scene.h"
#include "tests/harness.h"

/* parses text as a scene file located in models/scenes/ */
static JlResult parse(const char *text, JlScene *sc, char *err, size_t errsz) {
  return jl_scene_parse(text, JL_SOURCE_DIR "/models/scenes/test.json", sc, err, errsz);
}

static void test_full_example(void) {
  /* the key set of the issue, verbatim apart from comments */
  const char *text =
      "{ \"duration\": 2.0, \"fps\": 60, \"dt\": 0.004, \"integrator\": \"implicit\",\n"
      "  \"gravity\": [0, -9.81, 0],\n"
      "  \"solver\": { \"tolerance\": 1e-6, \"max_iterations\": 500 },\n"
      "  \"adaptive\": false,\n"
      "  \"ground\": { \"y\": 0.0, \"friction\": 0.5 },\n"
      "  \"bodies\": [ {\n"
      "      \"name\": \"bunny\",\n"
      "      \"mesh\": \"../bunny.obj\",\n"
      "      \"tetgen\": { \"mode\": \"conforming\", \"max_volume\": 1e-4, \"quality\": 1.5, \"resolution\": 0.05 },\n"
      "      \"density\": 1000, \"stiffness\": 5000, \"young_modulus\": 1e5, \"damping\": 0.5,\n"
      "      \"translate\": [0, 1, 0], \"rotate_deg\": [0, 0, 0], \"scale\": 1.0, \"velocity\": [0, 0, 0],\n"
      "      \"pin\": { \"box\": [[-1, -1, -1], [1, 1, 1]] }\n"
      "  }, { \"shape\": { \"type\": \"box\", \"size\": [1, 0.1, 0.1] } },\n"
      "     { \"shape\": { \"type\": \"sphere\", \"radius\": 0.3 } },\n"
      "     { \"shape\": { \"type\": \"torus\", \"major\": 0.5, \"minor\": 0.1 }, \"pin\": { \"nodes\": [0, 3] } } ] }\n";
  JlScene sc;
  char err[1024] = "";
  JlResult r = parse(text, &sc, err, sizeof err);
  ENSURE_MSG(r == JL_OK, "%s", err);
  ENSURE_NEAR(sc.duration, 2.0, 0);
  ENSURE_NEAR(sc.fps, 60, 0);
  ENSURE_NEAR(sc.dt, 0.004, 0);
  ENSURE(sc.step.integrator == JL_INTEGRATOR_IMPLICIT);
  ENSURE_NEAR(sc.world.gravity[1], -9.81, 0);
  ENSURE_NEAR(sc.step.tolerance, 1e-6, 0);
  ENSURE(sc.step.max_iterations == 500);
  ENSURE(sc.step.adaptive == 0);
  ENSURE(sc.world.has_ground == 1);
  ENSURE_NEAR(sc.world.ground_friction, 0.5, 0);
  ENSURE(sc.nbody == 4);
  const JlSceneBody *b = &sc.body[0];
  ENSURE(strcmp(b->def.name, "bunny") == 0);
  ENSURE(strstr(b->mesh_path, "models/scenes/../bunny.obj") != NULL);
  ENSURE(b->tetgen.mode == JL_TETGEN_CONFORMING);
  ENSURE_NEAR(b->tetgen.max_volume, 1e-4, 0);
  ENSURE_NEAR(b->tetgen.quality, 1.5, 0);
  ENSURE_NEAR(b->tetgen.resolution, 0.05, 0);
  ENSURE_NEAR(b->def.density, 1000, 0);
  ENSURE_NEAR(b->def.stiffness, 5000, 0);
  ENSURE_NEAR(b->def.young_modulus, 1e5, 0);
  ENSURE_NEAR(b->def.damping, 0.5, 0);
  ENSURE_NEAR(b->translate[1], 1, 0);
  ENSURE(b->def.has_pin_box);
  ENSURE_NEAR(b->def.pin_box[1][2], 1, 0);
  ENSURE(sc.body[1].shape == JL_SHAPE_BOX && sc.body[1].size[0] == 1 && sc.body[1].size[2] == 0.1);
  ENSURE(strcmp(sc.body[1].def.name, "body1") == 0);
  ENSURE(sc.body[2].shape == JL_SHAPE_SPHERE && sc.body[2].radius == 0.3);
  ENSURE(sc.body[3].shape == JL_SHAPE_TORUS && sc.body[3].major == 0.5 && sc.body[3].minor == 0.1);
  ENSURE(sc.body[3].def.npin == 2 && sc.body[3].def.pin[1] == 3);
  jl_scene_free(&sc);
}

static void test_defaults(void) {
  JlScene sc;
  char err[1024] = "";
  ENSURE(parse("{\"bodies\": [{\"shape\": {\"type\": \"sphere\"}}]}", &sc, err, sizeof err) == JL_OK);
  ENSURE_NEAR(sc.duration, 2.0, 0);
  ENSURE_NEAR(sc.fps, 60, 0);
  ENSURE_NEAR(sc.world.gravity[1], -9.81, 0);
  ENSURE(sc.world.has_ground == 0); /* omitting ground means no ground */
  ENSURE(sc.step.integrator == JL_INTEGRATOR_IMPLICIT);
  ENSURE(sc.body[0].scale == 1.0);
  ENSURE(sc.body[0].def.density > 0);
  jl_scene_free(&sc);
}

/* each bad scene must fail with exit code 2 and a message containing all the given fragments */
typedef struct BadCase {
  const char *text;
  const char *want1, *want2;
} BadCase;

static void test_bad_scenes(void) {
  static const BadCase cases[] = {
      {"", "test.json:1:1", "invalid JSON"},
      {"{\"bodies\": [", "test.json:1:", "invalid JSON"},
      {"[1, 2]", "test.json", "JSON object"},
      {"{}", "bodies", "missing"},
      {"{\"bodies\": []}", "bodies", "at least one"},
      {"{\"bodies\": {}}", "bodies", "array"},
      {"{\"durration\": 1, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "durration", "unknown key"},
      {"{\"dt\": 0, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "> 0"},
      {"{\"dt\": -1, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "> 0"},
      {"{\"dt\": \"fast\", \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "expected a number"},
      {"{\"fps\": 0, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "fps", "> 0"},
      {"{\"duration\": 1e999, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "duration", "finite"},
      {"{\"integrator\": \"leapfrog\", \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "integrator", "leapfrog"},
      {"{\"gravity\": [0, -9.81], \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "gravity", "3 numbers"},
      {"{\"adaptive\": 1, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "adaptive", "true or false"},
      {"{\"solver\": {\"tolerance\": 0}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "solver.tolerance", "> 0"},
      {"{\"solver\": {\"max_iterations\": 2.5}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "solver.max_iterations", "whole"},
      {"{\"solver\": {\"tol\": 1}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "solver.tol", "unknown key"},
      {"{\"ground\": {\"friction\": -1}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "ground.friction", ">= 0"},
      {"{\"ground\": 0, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "ground", "object"},
      {"{\"bodies\": [{\"density\": 1000}]}", "bodies[0]", "mesh"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"density\": -5}]}", "bodies[0].density", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"stiffness\": -1}]}", "bodies[0].stiffness", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"damping\": -1}]}", "bodies[0].damping", ">= 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"scale\": 0}]}", "bodies[0].scale", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"translate\": [0, \"a\", 0]}]}", "bodies[0].translate", "finite"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"colour\": 1}]}", "bodies[0].colour", "unknown key"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"cone\"}}]}", "bodies[0].shape.type", "cone"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\", \"size\": [1, 0, 1]}}]}", "bodies[0].shape.size", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": -1}}]}", "bodies[0].shape.radius", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"torus\", \"major\": 0.1, \"minor\": 0.2}}]}", "bodies[0].shape", "minor"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"mesh\": \"../bunny.obj\"}]}", "bodies[0]", "not both"},
      {"{\"bodies\": [{\"mesh\": \"no_such_file.obj\"}]}", "bodies[0].mesh", "no_such_file.obj"},
      {"{\"bodies\": [{\"mesh\": \".\"}]}", "bodies[0].mesh", "not a file"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"mode\": \"fancy\"}}]}", "bodies[0].tetgen.mode", "fancy"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"quality\": 0.5}}]}", "bodies[0].tetgen.quality", ">= 1.1"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"max_volume\": -1}}]}", "bodies[0].tetgen.max_volume", ">= 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"pin\": {\"box\": [[1, 1, 1], [0, 0, 0]]}}]}", "bodies[0].pin.box", "minimum"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"pin\": {\"box\": [1, 2]}}]}", "bodies[0].pin.box", "xmin"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"pin\": {\"nodes\": [-1]}}]}", "bodies[0].pin.nodes", ">= 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"name\": \"a/b\"}]}", "bodies[0].name", "'/'"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"name\": \"a\"}, {\"shape\": {\"type\": \"box\"}, \"name\": \"a\"}]}", "bodies[1].name", "already"},
      {"{\"dt\": 1, \"dt\": 2, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    JlScene sc;
    char err[1024] = "";
    JlResult r = parse(cases[i].text, &sc, err, sizeof err);
    ENSURE_MSG(r == JL_ERR_INPUT, "case %zu accepted: %s", i, cases[i].text);
    ENSURE_MSG(strstr(err, cases[i].want1) && strstr(err, cases[i].want2),
               "case %zu: message '%s' lacks '%s' / '%s'", i, err, cases[i].want1, cases[i].want2);
  }
}

static void test_transform(void) {
  /* scale 2, rotate 90 deg about z, translate (1, 0, 0): (1, 0, 0) -> (2,0,0) -> (0,2,0) -> (1,2,0) */
  double p[3] = {1, 0, 0};
  double rot[3] = {0, 0, 90}, tr[3] = {1, 0, 0};
  jl_transform_points(p, 1, 2.0, rot, tr);
  ENSURE_NEAR(p[0], 1, 1e-15);
  ENSURE_NEAR(p[1], 2, 1e-15);
  ENSURE_NEAR(p[2], 0, 1e-15);
  /* XYZ order: x first then y. (0,1,0) -x90-> (0,0,1) -y90-> (1,0,0) */
  double q[3] = {0, 1, 0};
  double rot2[3] = {90, 90, 0}, zero[3] = {0, 0, 0};
  jl_transform_points(q, 1, 1.0, rot2, zero);
  ENSURE_NEAR(q[0], 1, 1e-15);
  ENSURE_NEAR(q[1], 0, 1e-15);
  ENSURE_NEAR(q[2], 0, 1e-15);
}

static void test_shipped_scenes_parse(void) {
  static const char *names[] = {"default", "hanging_bar", "drop", "stiff"};
  for (int i = 0; i < 4; i++) {
    char path[1024], err[1024] = "";
    snprintf(path, sizeof path, JL_SOURCE_DIR "/models/scenes/%s.json", names[i]);
    JlScene sc;
    ENSURE_MSG(jl_scene_load(path, &sc, err, sizeof err) == JL_OK, "%s", err);
    jl_scene_free(&sc);
  }
}

JL_TEST_MAIN({"full_example", test_full_example}, {"defaults", test_defaults},
             {"bad_scenes", test_bad_scenes}, {"transform", test_transform},
             {"shipped_scenes_parse", test_shipped_scenes_parse})
