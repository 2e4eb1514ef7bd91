/* Scene files: every documented key parses into the right field; every kind
 * of bad input is rejected with a message naming the file, key path and
 * reason; every shipped scene builds, its meshes within their bounds. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/precond.h"
#include "src/scene.h"
#include "src/suggest.h"
#include "mesh/shapes.h"
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
      "      \"tetgen\": { \"mode\": \"conforming\", \"max_volume\": 1e-4, \"quality\": 1.5 },\n"
      "      \"density\": 1000, \"stiffness\": 5000, \"young_modulus\": 1e5, \"damping\": 0.5,\n"
      "      \"translate\": [0, 1, 0], \"rotate_deg\": [0, 0, 0], \"scale\": 1.0, \"velocity\": [0, 0, 0],\n"
      "      \"pin\": { \"box\": [[-1, -1, -1], [1, 1, 1]] }\n"
      "  }, { \"shape\": { \"type\": \"box\", \"size\": [1, 0.1, 0.1] },\n"
      "       \"tetgen\": { \"mode\": \"embedded\", \"resolution\": 0.05, \"seed\": 7 } },\n"
      "     { \"shape\": { \"type\": \"sphere\", \"radius\": 0.3 } },\n"
      "     { \"shape\": { \"type\": \"torus\", \"major\": 0.5, \"minor\": 0.1 }, \"pin\": { \"nodes\": [0, 3] } } ] }\n";
  JlScene sc;
  char err[1024] = "";
  JlResult r = parse(text, &sc, err, sizeof err);
  ENSURE_MSG(r == JL_OK, "%s", err);
  ENSURE_NEAR(sc.duration, 2.0, 0);
  ENSURE_NEAR(sc.fps, 60, 0);
  ENSURE_NEAR(sc.dt, 0.004, 0);
  ENSURE(sc.dt_set == 1);
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
  ENSURE_NEAR(b->tetgen.resolution, 0, 0);
  ENSURE(sc.body[1].tetgen.mode == JL_TETGEN_EMBEDDED);
  ENSURE_NEAR(sc.body[1].tetgen.resolution, 0.05, 0);
  ENSURE(sc.body[1].tetgen.seed == 7);
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
  ENSURE(sc.step.preconditioner == JL_PRECOND_DEFAULT);
  ENSURE_NEAR(sc.step.velocity_tolerance, JL_VELOCITY_TOLERANCE, 0);
  jl_scene_free(&sc);
  /* the solver keys: preconditioner and velocity_tolerance */
  ENSURE(parse("{\"solver\": {\"preconditioner\": \"jacobi\", \"velocity_tolerance\": 0},"
               " \"bodies\": [{\"shape\": {\"type\": \"sphere\"}}]}",
               &sc, err, sizeof err) == JL_OK);
  ENSURE(sc.step.preconditioner == JL_PRECOND_JACOBI);
  ENSURE(sc.step.velocity_tolerance == 0.0);
  jl_scene_free(&sc);
  ENSURE(parse("{\"solver\": {\"preconditioner\": \"two_level\", \"velocity_tolerance\": 1e-7},"
               " \"bodies\": [{\"shape\": {\"type\": \"sphere\"}}]}",
               &sc, err, sizeof err) == JL_OK);
  ENSURE(sc.step.preconditioner == JL_PRECOND_TWO_LEVEL);
  ENSURE_NEAR(sc.step.velocity_tolerance, 1e-7, 0);
  jl_scene_free(&sc);
  /* the relative tolerance alone keeps its meaning: CG stops there */
  ENSURE(parse("{\"solver\": {\"tolerance\": 1e-8}, \"bodies\": [{\"shape\": {\"type\": \"sphere\"}}]}", &sc, err,
               sizeof err) == JL_OK);
  ENSURE(sc.step.velocity_tolerance == 0.0);
  ENSURE_NEAR(sc.step.tolerance, 1e-8, 0);
  jl_scene_free(&sc);
}

/* each bad scene must fail with exit code 2 and a message containing all the given fragments */
typedef struct BadCase {
  const char *text;
  const char *want1, *want2;
} BadCase;

/* scene text of one volume body whose "mesh" is surface s inline (%.17g,
 * exact), or the file `file` when s is NULL; the same placement for both */
static char *inline_scene(const JlSurface *s, const char *file) {
  size_t cap = 4096 + (s ? 80 * (size_t)s->nvert + 40 * (size_t)s->ntri : 0), n = 0;
  char *t = malloc(cap);
  n += (size_t)snprintf(t + n, cap - n,
                        "{\"bodies\": [{\"name\": \"b\", \"scale\": 0.3, \"rotate_deg\": [10, 20, 30],"
                        " \"translate\": [0.1, 0.7, -0.2], \"tetgen\": {\"max_volume\": 0.0005}, \"mesh\": ");
  if (!s) {
    n += (size_t)snprintf(t + n, cap - n, "\"%s\"}]}", file);
    return t;
  }
  n += (size_t)snprintf(t + n, cap - n, "{\"vertices\": [");
  for (int i = 0; i < s->nvert; i++)
    n += (size_t)snprintf(t + n, cap - n, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", s->vert[3 * i], s->vert[3 * i + 1],
                          s->vert[3 * i + 2]);
  n += (size_t)snprintf(t + n, cap - n, "], \"triangles\": [");
  for (int i = 0; i < s->ntri; i++)
    n += (size_t)snprintf(t + n, cap - n, "%s[%d, %d, %d]", i ? ", " : "", s->tri[3 * i], s->tri[3 * i + 1],
                          s->tri[3 * i + 2]);
  snprintf(t + n, cap - n, "]}}]}");
  return t;
}

/* a body's "mesh" given inline: the same model as the file when the arrays
 * hold the file's (float32) values in the importer's order, and the
 * double-precision vertices kept exactly where a file would round them */
static void test_inline_mesh(void) {
  const char *file = JL_SOURCE_DIR "/models/icosphere_320.obj";
  JlSurface s;
  char err[2048] = "";
  ENSURE_MSG(jl_surface_load(file, &s, err, sizeof err) == JL_OK, "%s", err);
  JlModel m[2];
  for (int k = 0; k < 2; k++) {
    char *text = inline_scene(k ? &s : NULL, file);
    JlScene sc;
    ENSURE_MSG(parse(text, &sc, err, sizeof err) == JL_OK, "%s", err);
    free(text);
    ENSURE(k ? sc.body[0].mesh_inline.nvert == s.nvert && !sc.body[0].mesh_path[0] : sc.body[0].mesh_inline.nvert == 0);
    ENSURE_MSG(jl_scene_build(&sc, &m[k], NULL, err, sizeof err) == JL_OK, "%s", err);
    jl_scene_free(&sc);
  }
  /* same TetGen input, so the same model, bit for bit */
  ENSURE(m[0].nnode == m[1].nnode && m[0].nspring == m[1].nspring);
  ENSURE(memcmp(m[0].x0, m[1].x0, 3 * (size_t)m[0].nnode * sizeof(double)) == 0);
  ENSURE(memcmp(m[0].mass, m[1].mass, (size_t)m[0].nnode * sizeof(double)) == 0);
  ENSURE(m[0].body[0].mass == m[1].body[0].mass);
  ENSURE(m[0].body[0].surface.nvert == m[1].body[0].surface.nvert);
  ENSURE(memcmp(m[0].body[0].surface.vert, m[1].body[0].surface.vert,
                3 * (size_t)m[0].body[0].surface.nvert * sizeof(double)) == 0);
  jl_model_free(&m[0]);
  jl_model_free(&m[1]);

  /* vertices no float holds: placed exactly as jl_transform_points places them */
  for (int i = 0; i < 3 * s.nvert; i++) s.vert[i] += 1e-12 * (i % 7);
  char *text = inline_scene(&s, file);
  JlScene sc;
  ENSURE_MSG(parse(text, &sc, err, sizeof err) == JL_OK, "%s", err);
  free(text);
  ENSURE(memcmp(sc.body[0].mesh_inline.vert, s.vert, 3 * (size_t)s.nvert * sizeof(double)) == 0);
  JlModel mm;
  ENSURE_MSG(jl_scene_build(&sc, &mm, NULL, err, sizeof err) == JL_OK, "%s", err);
  jl_transform_points(s.vert, s.nvert, sc.body[0].scale, sc.body[0].rotate_deg, sc.body[0].translate);
  ENSURE(mm.body[0].surface.nvert == s.nvert);
  ENSURE(memcmp(mm.body[0].surface.vert, s.vert, 3 * (size_t)s.nvert * sizeof(double)) == 0);
  jl_model_free(&mm);
  jl_scene_free(&sc);
  jl_surface_free(&s);

  /* an open inline surface is refused as a file's would be, naming the body */
  JlModel bad;
  ENSURE(parse("{\"bodies\": [{\"name\": \"open\", \"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]],"
               " \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[0,2,1]]}}]}",
               &sc, err, sizeof err) == JL_OK);
  ENSURE(jl_scene_build(&sc, &bad, NULL, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "body 'open'") && strstr(err, "cannot tetrahedralize"), "%s", err);
  jl_scene_free(&sc);

  /* cloth takes an inline mesh too (open is fine there) */
  ENSURE_MSG(parse("{\"bodies\": [{\"kind\": \"cloth\", \"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[1,0,1],[0,0,1],"
                   "[0.5,0,0.5]], \"triangles\": [[0,4,1],[1,4,2],[2,4,3],[3,4,0]]}}]}",
                   &sc, err, sizeof err) == JL_OK,
             "%s", err);
  ENSURE_MSG(jl_scene_build(&sc, &bad, NULL, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(bad.nnode == 5);
  jl_model_free(&bad);
  jl_scene_free(&sc);
}

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
      {"{\"solver\": {\"max_iterations\": 2.5}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "solver.max_iterations", "whole"},
      {"{\"solver\": {\"tol\": 1}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "solver.tol", "unknown key"},
      {"{\"solver\": {\"preconditioner\": \"ilu\"}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "solver.preconditioner", "unknown preconditioner 'ilu' (jacobi, two_level)"},
      {"{\"solver\": {\"preconditioner\": 1}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "solver.preconditioner",
       "string"},
      {"{\"solver\": {\"velocity_tolerance\": -1e-5}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "solver.velocity_tolerance", ">= 0"},
      {"{\"solver\": {\"velocity_tolerance\": \"fine\"}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "solver.velocity_tolerance", "number"},
      {"{\"ground\": {\"friction\": -1}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "ground.friction", ">= 0"},
      {"{\"ground\": 0, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "ground", "object"},
      {"{\"bodies\": [{\"density\": 1000}]}", "bodies[0]", "mesh"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"density\": -5}]}", "bodies[0].density", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"stiffness\": -1}]}", "bodies[0].stiffness", ">= 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"stiffness\": 0}]}", "bodies[0].stiffness", "young_modulus"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\"}, \"stiffness\": 0}]}",
       "bodies[0].stiffness", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"damping\": -1}]}", "bodies[0].damping", ">= 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"scale\": 0}]}", "bodies[0].scale", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"translate\": [0, \"a\", 0]}]}", "bodies[0].translate",
       "finite"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"colour\": 1}]}", "bodies[0].colour", "unknown key"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"cone\"}}]}", "bodies[0].shape.type", "cone"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\", \"size\": [1, 0, 1]}}]}", "bodies[0].shape.size", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": -1}}]}", "bodies[0].shape.radius", "> 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"torus\", \"major\": 0.1, \"minor\": 0.2}}]}", "bodies[0].shape",
       "minor"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"mesh\": \"../bunny.obj\"}]}", "bodies[0]", "not both"},
      {"{\"bodies\": [{\"mesh\": \"no_such_file.obj\"}]}", "bodies[0].mesh", "no_such_file.obj"},
      {"{\"bodies\": [{\"mesh\": \".\"}]}", "bodies[0].mesh", "not a file"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"mode\": \"fancy\"}}]}", "bodies[0].tetgen.mode",
       "fancy"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"quality\": 0.5}}]}", "bodies[0].tetgen.quality",
       ">= 1.1"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"max_volume\": -1}}]}",
       "bodies[0].tetgen.max_volume", ">= 0"},
      /* a key of the other meshing mode is an error, not silently ignored */
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"resolution\": 0.1}}]}",
       "bodies[0].tetgen.resolution",
       "applies to mode \"embedded\" only; this body is meshed in mode \"conforming\" (the default)"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}},\n"
       " {\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"mode\": \"conforming\", \"seed\": 2}}]}",
       "bodies[1].tetgen.seed", "applies to mode \"embedded\" only; this body is meshed in mode \"conforming\""},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"mode\": \"embedded\", \"keep_surface\": true}}]}",
       "bodies[0].tetgen.keep_surface",
       "applies to mode \"conforming\" only; this body is meshed in mode \"embedded\""},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"keep_surface\": 1}}]}",
       "bodies[0].tetgen.keep_surface", "true or false"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"max_volume\": 1e-3, \"mode\": \"embedded\"}}]}",
       "bodies[0].tetgen.max_volume", "applies to mode \"conforming\" only; this body is meshed in mode \"embedded\""},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"tetgen\": {\"mode\": \"embedded\", \"quality\": 2}}]}",
       "bodies[0].tetgen.quality", "applies to mode \"conforming\" only; this body is meshed in mode \"embedded\""},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"pin\": {\"box\": [[1, 1, 1], [0, 0, 0]]}}]}",
       "bodies[0].pin.box", "minimum"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"pin\": {\"box\": [1, 2]}}]}", "bodies[0].pin.box", "xmin"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"pin\": {\"nodes\": [-1]}}]}", "bodies[0].pin.nodes", ">= 0"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"name\": \"a/b\"}]}", "bodies[0].name", "'/'"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"name\": \"a\"}, {\"shape\": {\"type\": \"box\"}, \"name\": \"a\"}]}",
       "bodies[1].name", "already"},
      {"{\"dt\": 1, \"dt\": 2, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "twice"},
      /* time settings a run can honour: dt within one frame, at most 1e7 steps per frame and 1e8 frames */
      {"{\"dt\": 0.05, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt",
       "longer than one output frame (1/fps = 0.0166666667 s)"},
      {"{\"fps\": 30, \"dt\": 0.04, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "1/fps = 0.0333333333 s"},
      {"{\"dt\": 1e-12, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "steps per output frame"},
      {"{\"fps\": 1e-9, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "(the default)"},
      {"{\"duration\": 1e7, \"fps\": 1000, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "duration, fps", "1e8"},
      /* values that size allocations (docs/scenes.md "Limits on scene values") */
      {"{\"duration\": 1e7, \"fps\": 1e6, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "duration, fps",
       "at most 1e8"},
      {"{\"fps\": 1e-3, \"dt\": 1e-7, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "dt", "at most 1e7"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\", \"resolution\": 1e-4}}]}", "bodies[0].shape.resolution",
       "2.01e+08 triangles (at most 1000000 per generated shape)"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"torus\", \"resolution\": 1e-3}}]}", "bodies[0].shape.resolution",
       "(at most 1000000 per generated shape)"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\", \"size\": [1e6, 1, 1], \"resolution\": 1e-6}}]}",
       "bodies[0].shape.resolution", "at most 1000000"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"cells\": [2000, 2000]}}]}",
       "bodies[0].shape.cells", "4e+06 cells (at most 1000000 per cloth)"},
      {"{\"bodies\": [{\"kind\": \"rope\", \"shape\": {\"type\": \"chain\", \"segments\": 2e6}}]}",
       "bodies[0].shape.segments", "<= 1e+06"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"cells\": [1000, 1000]}},"
       " {\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"cells\": [1000, 1000]}},"
       " {\"kind\": \"rope\", \"shape\": {\"type\": \"chain\", \"segments\": 1}}]}",
       "bodies[2].shape", "4e+06 triangles and segments (at most 4000000 per scene)"},
      /* cloth, ropes and wind */
      {"{\"bodies\": [{\"kind\": \"jelly\", \"shape\": {\"type\": \"box\"}}]}", "bodies[0].kind", "jelly"},
      {"{\"bodies\": [{\"kind\": 1, \"shape\": {\"type\": \"box\"}}]}", "bodies[0].kind", "string"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"box\"}}]}", "bodies[0].shape.type", "grid"},
      {"{\"bodies\": [{\"kind\": \"rope\", \"shape\": {\"type\": \"grid\"}}]}", "bodies[0].shape.type", "chain"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"grid\"}}]}", "bodies[0].shape.type", "kind"},
      {"{\"bodies\": [{\"kind\": \"rope\", \"mesh\": \"../bunny.obj\"}]}", "bodies[0]", "chain"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"size\": [1, 0]}}]}",
       "bodies[0].shape.size", "(0, 1e6]"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"size\": [1, 1, 1]}}]}",
       "bodies[0].shape.size", "[width, height]"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"cells\": [0, 4]}}]}",
       "bodies[0].shape.cells", "whole"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"cells\": [2.5, 4]}}]}",
       "bodies[0].shape.cells", "whole"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"radius\": 1}}]}",
       "bodies[0].shape.radius", "unknown key"},
      {"{\"bodies\": [{\"kind\": \"rope\", \"shape\": {\"type\": \"chain\", \"length\": -1}}]}",
       "bodies[0].shape.length", "> 0"},
      {"{\"bodies\": [{\"kind\": \"rope\", \"shape\": {\"type\": \"chain\", \"segments\": 0}}]}",
       "bodies[0].shape.segments", ">= 1"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\", \"segments\": 3}}]}", "bodies[0].shape", "chain"},
      {"{\"bodies\": [{\"kind\": \"rope\", \"shape\": {\"type\": \"chain\"}, \"shear_stiffness\": 5}]}",
       "bodies[0].shear_stiffness", "no shear"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\"}, \"bend_stiffness\": -1}]}",
       "bodies[0].bend_stiffness", ">= 0"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\"}, \"stretch_limit\": -0.1}]}",
       "bodies[0].stretch_limit", ">= 0"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\"}, \"density\": 0}]}", "bodies[0].density",
       "> 0"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\"}, \"young_modulus\": 1e5}]}",
       "bodies[0].young_modulus", "only volume"},
      {"{\"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\"}, \"tetgen\": {}}]}", "bodies[0].tetgen",
       "only volume"},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"stretch_limit\": 0.1}]}", "bodies[0].stretch_limit",
       "only cloth and rope"},
      {"{\"wind\": {\"speed\": 3}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "wind.speed", "unknown key"},
      {"{\"wind\": {\"velocity\": [1, 0]}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "wind.velocity",
       "3 numbers"},
      {"{\"wind\": {\"period\": 0}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "wind.period", "> 0"},
      {"{\"wind\": {\"drag\": -1}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "wind.drag", ">= 0"},
      {"{\"wind\": [1, 2, 3], \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "wind", "object"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,9]]}}]}",
       "bodies[0].mesh.triangles[3][2]", "vertex index 9 out of range 0..3"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,-1,3]]}}]}",
       "bodies[0].mesh.triangles[3][1]", "vertex index -1 out of range 0..3"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2.5,3]]}}]}",
       "bodies[0].mesh.triangles[3][1]", "whole number"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2]]}}]}",
       "bodies[0].mesh.triangles[3]", "[a, b, c]"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2]]}}]}",
       "bodies[0].mesh.triangles", "3 triangles"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": {}}}]}",
       "bodies[0].mesh.triangles", "array"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1e999,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}}]}",
       "bodies[0].mesh.vertices[2][1]", "finite"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,\"1\"]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}}]}",
       "bodies[0].mesh.vertices[3][2]", "finite"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}}]}",
       "bodies[0].mesh.vertices[3]", "[x, y, z]"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}}]}",
       "bodies[0].mesh.vertices", "3 vertices"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}}]}", "bodies[0].mesh", "triangles"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]], \"normals\": []}}]}",
       "bodies[0].mesh.normals", "unknown key"},
      {"{\"bodies\": [{\"mesh\": 3}]}", "bodies[0].mesh", "file path or"},
      {"{\"bodies\": [{\"kind\": \"rope\", \"mesh\": {\"vertices\": [], \"triangles\": []}}]}", "bodies[0]", "rope"},
      {"{\"bodies\": [{\"mesh\": {\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}, \"shape\": {\"type\": \"box\"}}]}",
       "bodies[0]", "not both"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    JlScene sc;
    char err[1024] = "";
    JlResult r = parse(cases[i].text, &sc, err, sizeof err);
    ENSURE_MSG(r == JL_ERR_INPUT, "case %zu accepted: %s", i, cases[i].text);
    ENSURE_MSG(strstr(err, cases[i].want1) && strstr(err, cases[i].want2), "case %zu: message '%s' lacks '%s' / '%s'",
               i, err, cases[i].want1, cases[i].want2);
  }
}

/* "did you mean" (src/suggest.h): the close name or nothing, for any input */
static void test_suggest(void) {
  static const char *const cmds[] = {"run", "view", "render", "check", "mesh", "bench", "study", "help", NULL};
  static const char *const keys[] = {"name", "stiffness", "density", "damping", "young_modulus", NULL};
  static const char *const flags[] = {"--out", "--frames", "--fps", "--dt", "--help", NULL};
  /* distances: Levenshtein's, and a swap of neighbours counts 1 */
  ENSURE(jl_suggest_distance("kitten", "sitting") == 3);
  ENSURE(jl_suggest_distance("", "abc") == 3 && jl_suggest_distance("abc", "") == 3);
  ENSURE(jl_suggest_distance("mseh", "mesh") == 1 && jl_suggest_distance("ab", "ba") == 1);
  ENSURE(jl_suggest_distance("Density", "density") == 0);
  ENSURE(jl_suggest_distance(NULL, "a") == -1 && jl_suggest_distance("a", NULL) == -1);
  /* exact, the very pointer of the list */
  ENSURE(jl_suggest("run", cmds) == cmds[0]);
  ENSURE(jl_suggest("density", keys) == keys[2]);
  /* one typo: a letter missing, added, changed */
  ENSURE(jl_suggest("rn", cmds) == cmds[0]);
  ENSURE(jl_suggest("densty", keys) == keys[2]);
  ENSURE(jl_suggest("--frmes", flags) == flags[1]);
  ENSURE(jl_suggest("--framess", flags) == flags[1]);
  ENSURE(jl_suggest("chack", cmds) == cmds[3]);
  ENSURE(jl_suggest("young_modulos", keys) == keys[4]);
  /* case */
  ENSURE(jl_suggest("Density", keys) == keys[2] && jl_suggest("RUN", cmds) == cmds[0]);
  /* two neighbours swapped: one edit, where plain Levenshtein counts two (beyond 4/3) */
  ENSURE(jl_suggest("veiw", cmds) == cmds[1]);
  ENSURE(jl_suggest("mseh", cmds) == cmds[4]);
  ENSURE(jl_suggest("--fsp", flags) == flags[2]);
  /* a unique prefix; an ambiguous one says too little */
  ENSURE(jl_suggest("stiff", keys) == keys[1]);
  ENSURE(jl_suggest("--fra", flags) == flags[1]);
  ENSURE(jl_suggest("young", keys) == keys[4]);
  ENSURE(jl_suggest("d", keys) == NULL && jl_suggest("--", flags) == NULL && jl_suggest("--f", flags) == NULL);
  /* far off, or nothing in common */
  ENSURE(jl_suggest("frobnicate", cmds) == NULL);
  ENSURE(jl_suggest("zzz", keys) == NULL);
  ENSURE(jl_suggest("--bogus", flags) == NULL);
  ENSURE(jl_suggest("x", (const char *const[]){"y", NULL}) == NULL);
  /* ties: the first of the list */
  ENSURE(strcmp(jl_suggest("abx", (const char *const[]){"abc", "abd", NULL}), "abc") == 0);
  /* empty and absent inputs */
  ENSURE(jl_suggest("", cmds) == NULL);
  ENSURE(jl_suggest(NULL, cmds) == NULL);
  ENSURE(jl_suggest("run", NULL) == NULL);
  ENSURE(jl_suggest("run", (const char *const[]){NULL}) == NULL);
  ENSURE(jl_suggest("run", (const char *const[]){"", NULL}) == NULL);
  /* long strings: up to JL_SUGGEST_MAX bytes compared, beyond that never suggested nor matched */
  static char huge[10241], at_max[JL_SUGGEST_MAX + 1], over[JL_SUGGEST_MAX + 2];
  memset(huge, 'a', sizeof huge - 1);
  memcpy(huge, "run", 3);
  memset(at_max, 'b', sizeof at_max - 1);
  memset(over, 'b', sizeof over - 1);
  ENSURE(jl_suggest(huge, cmds) == NULL);
  ENSURE(jl_suggest_distance(huge, "run") == -1 && jl_suggest_distance("run", huge) == -1);
  const char *const with_huge[] = {huge, "run", NULL};
  ENSURE(jl_suggest("rn", with_huge) == with_huge[1]);
  ENSURE(jl_suggest("r", with_huge) == with_huge[1]); /* the huge one is no prefix candidate */
  const char *const long_names[] = {at_max, over, NULL};
  ENSURE(jl_suggest(at_max, long_names) == long_names[0]);
  ENSURE(jl_suggest(over, long_names) == NULL);
  ENSURE(jl_suggest_distance(at_max, at_max) == 0 && jl_suggest_distance(over, over) == -1);
  /* bytes beyond ASCII compare as they are: no crash, no folding */
  ENSURE(jl_suggest("r\xffn", cmds) == cmds[0]);
  ENSURE(jl_suggest("\xc3\xa9\xc3\xa9\xc3\xa9", cmds) == NULL);
  ENSURE(jl_suggest("\xff\xfe\x80\x81", keys) == NULL);
  ENSURE(jl_suggest("d\xc3\xa9nsity", keys) == keys[2]);
  ENSURE(jl_suggest_distance("\xc3\xa9", "\xc3\x89") == 1); /* \xc3\xa9 is not \xc3\x89 folded */
}

/* an unknown key close to an allowed one is told which, before the allowed list; a far one is not */
static void test_unknown_key_suggestion(void) {
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"densty\": 1000}]}",
       "test.json: bodies[0].densty: unknown key (did you mean 'density'? allowed: name, "},
      {"{\"solver\": {\"tolerence\": 1e-6}, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "solver.tolerence: unknown key (did you mean 'tolerance'? allowed: "},
      {"{\"Duration\": 1, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
       "test.json: Duration: unknown key (did you mean 'duration'? allowed: description, "},
      {"{\"bodies\": [{\"shape\": {\"type\": \"box\", \"sise\": [1, 1, 1]}}]}",
       "bodies[0].shape.sise: unknown key (did you mean 'size'? allowed: "},
      {"{\"zzz\": 1, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}", "test.json: zzz: unknown key (allowed: "},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    JlScene sc;
    char err[1024] = "";
    JlResult r = parse(cases[i].text, &sc, err, sizeof err);
    ENSURE_MSG(r == JL_ERR_INPUT, "case %zu accepted: %s", i, cases[i].text);
    ENSURE_MSG(strstr(err, cases[i].want), "case %zu: message '%s' lacks '%s'", i, err, cases[i].want);
  }
  /* a 10 KB key and one of bytes beyond ASCII: the message, no crash */
  static char text[16384], err[16384];
  int n = snprintf(text, sizeof text, "{\"");
  for (int k = 0; k < 10240; k++) text[n++] = 'x';
  snprintf(text + n, sizeof text - (size_t)n, "\": 1, \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}");
  JlScene sc;
  ENSURE(parse(text, &sc, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "xxx: unknown key (allowed: description, "), "%.200s", err);
  ENSURE(parse("{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"d\xc3\xa9nsity\": 1}]}", &sc, err, sizeof err) ==
         JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "bodies[0].d\xc3\xa9nsity: unknown key (did you mean 'density'? allowed: "), "%s", err);
}

/* the cloth, rope and wind keys parse into JlSceneBody / JlWorldDef, and
 * jl_scene_build mixes volumes, cloth and ropes in scene order */
static void test_cloth_rope_wind(void) {
  const char *text =
      "{ \"wind\": { \"velocity\": [3, 0, 1], \"gust\": 0.5, \"period\": 1.5, \"drag\": 0.8 },\n"
      "  \"bodies\": [\n"
      "    { \"name\": \"sheet\", \"kind\": \"cloth\", \"shape\": { \"type\": \"grid\", \"size\": [2, 1], \"cells\": [4, 2] },\n"
      "      \"density\": 0.5, \"stiffness\": 900, \"shear_stiffness\": 300, \"bend_stiffness\": 7,\n"
      "      \"stretch_limit\": 0.1, \"scale\": 2, \"rotate_deg\": [-90, 0, 0], \"translate\": [0, 1, 0],\n"
      "      \"pin\": { \"nodes\": [10, 14] } },\n"
      "    { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.2 }, \"tetgen\": { \"max_volume\": 1e-3 } },\n"
      "    { \"name\": \"string\", \"kind\": \"rope\", \"shape\": { \"type\": \"chain\", \"length\": 1.5, \"segments\": 5 },\n"
      "      \"density\": 0.1, \"stiffness\": 400, \"bend_stiffness\": 3, \"translate\": [1, 2, 0],\n"
      "      \"pin\": { \"box\": [[0.9, 1.9, -0.1], [1.1, 2.1, 0.1]] } } ] }\n";
  JlScene sc;
  char err[1024] = "";
  JlResult r = parse(text, &sc, err, sizeof err);
  ENSURE_MSG(r == JL_OK, "%s", err);
  if (r) return;
  ENSURE_NEAR(sc.world.wind[0], 3, 0);
  ENSURE_NEAR(sc.world.wind[2], 1, 0);
  ENSURE_NEAR(sc.world.wind_gust, 0.5, 0);
  ENSURE_NEAR(sc.world.wind_gust_period, 1.5, 0);
  ENSURE_NEAR(sc.world.wind_drag, 0.8, 0);
  ENSURE(sc.dt_set == 0); /* no "dt": the integrator's default */
  const JlSceneBody *c = &sc.body[0], *v = &sc.body[1], *s = &sc.body[2];
  ENSURE(c->kind == JL_BODY_CLOTH && c->cloth.kind == JL_BODY_CLOTH && c->shape == JL_SHAPE_GRID);
  ENSURE(c->grid_size[0] == 2 && c->grid_size[1] == 1 && c->grid_cells[0] == 4 && c->grid_cells[1] == 2);
  ENSURE_NEAR(c->def.density, 0.5, 0);
  ENSURE_NEAR(c->cloth.stretch, 900, 0);
  ENSURE_NEAR(c->cloth.shear, 300, 0);
  ENSURE_NEAR(c->cloth.bend, 7, 0);
  ENSURE_NEAR(c->cloth.stretch_limit, 0.1, 0);
  ENSURE(v->kind == JL_BODY_VOLUME && v->def.density == 1000);
  ENSURE(s->kind == JL_BODY_ROPE && s->shape == JL_SHAPE_CHAIN && s->chain_segments == 5);
  ENSURE_NEAR(s->chain_length, 1.5, 0);
  ENSURE_NEAR(s->cloth.stretch, 400, 0);

  JlModel m;
  r = jl_scene_build(&sc, &m, NULL, err, sizeof err);
  ENSURE_MSG(r == JL_OK, "%s", err);
  if (r == JL_OK) {
    ENSURE(m.nbody == 3);
    ENSURE(m.body[0].kind == JL_BODY_CLOTH && m.body[1].kind == JL_BODY_VOLUME && m.body[2].kind == JL_BODY_ROPE);
    ENSURE(m.body[0].node_count == 15 && m.body[2].node_count == 6);
    ENSURE(m.body[1].node_begin == 15 && m.body[2].node_begin == 15 + m.body[1].node_count);
    /* cloth: area 2 x 1 scaled by 2 -> 8 m^2 at 0.5 kg/m^2; rope 1.5 m at 0.1 kg/m */
    ENSURE_NEAR(m.body[0].mass, 4.0, 1e-12);
    ENSURE_NEAR(m.body[2].mass, 0.15, 1e-12);
    ENSURE_NEAR(m.body[0].stretch_limit, 0.1, 0);
    /* grid in x-y (4 m x 2 m after scale), rotated -90 about x: flat at y = 1, top row (j = ny) at z = -1 */
    for (int i = 0; i < 15; i++) ENSURE_NEAR(m.x0[3 * i + 1], 1.0, 1e-12);
    ENSURE_NEAR(m.x0[3 * 10 + 0], -2.0, 1e-12);
    ENSURE_NEAR(m.x0[3 * 10 + 2], -1.0, 1e-12);
    ENSURE(m.pinned[10] && m.pinned[14] && !m.pinned[0]);
    /* rope root at the translate, tip 1.5 m below; the pin box holds the root only */
    int r0 = m.body[2].node_begin;
    ENSURE_NEAR(m.x0[3 * r0 + 1], 2.0, 1e-12);
    ENSURE_NEAR(m.x0[3 * (r0 + 5) + 1], 0.5, 1e-12);
    ENSURE(m.pinned[r0] && !m.pinned[r0 + 1]);
    /* stiffness by kind: the cloth's springs carry 900/300/7, the rope's 400/3 */
    int seen[3] = {0, 0, 0};
    for (int k = 0; k < m.body[0].spring_count; k++) {
      int sp = m.body[0].spring_begin + k, kind = m.spring_kind[sp];
      double want = kind == JL_SPRING_STRETCH ? 900 : kind == JL_SPRING_SHEAR ? 300 : 7;
      ENSURE_NEAR(m.spring_k[sp], want, 0);
      seen[kind] = 1;
    }
    ENSURE(seen[0] && seen[1] && seen[2]);
    for (int k = 0; k < m.body[2].spring_count; k++) {
      int sp = m.body[2].spring_begin + k;
      ENSURE_NEAR(m.spring_k[sp], m.spring_kind[sp] == JL_SPRING_STRETCH ? 400 : 3, 0);
    }
    ENSURE(m.world.wind_drag == 0.8);
    jl_model_free(&m);
  }
  jl_scene_free(&sc);

  /* defaults: "wind" present turns drag on at 1.2 kg/m^3; cloth/rope densities per kind */
  ENSURE(parse("{\"wind\": {}, \"bodies\": [{\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\"}},"
               " {\"kind\": \"rope\", \"shape\": {\"type\": \"chain\"}}]}",
               &sc, err, sizeof err) == JL_OK);
  ENSURE_NEAR(sc.world.wind_drag, 1.2, 0);
  ENSURE_NEAR(sc.body[0].def.density, 0.2, 0);
  ENSURE_NEAR(sc.body[1].def.density, 0.05, 0);
  ENSURE_NEAR(sc.body[0].cloth.stretch, 800, 0);
  jl_scene_free(&sc);
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
  static const char *names[] = {"default", "hanging_bar", "drop", "stiff",      "curtain",
                                "flag",    "drape",       "hair", "rope_bridge"};
  for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
    char path[1024], err[1024] = "";
    snprintf(path, sizeof path, JL_SOURCE_DIR "/models/scenes/%s.json", names[i]);
    JlScene sc;
    ENSURE_MSG(jl_scene_load(path, &sc, err, sizeof err) == JL_OK, "%s", err);
    jl_scene_free(&sc);
  }
}

/* a hull obstacle with one NaN or Inf vertex used to be accepted and then
 * never collide: the loader names the file and vertex, and
 * jl_model_build rejects such a hull given through the library */
/* Every shipped scene (every .json file in models/scenes) builds without a warning about
 * its meshes' bounds (src/scene.c log_mesh_bounds: a tet above max_volume, or
 * above the quality bound and 2); hanging_bar.json's bar meets its
 * max_volume 5e-5 m^3 tet by tet. */
static void test_shipped_scene_meshes(void) {
  DIR *dir = opendir(JL_SOURCE_DIR "/models/scenes");
  ENSURE(dir != NULL);
  if (!dir) return;
  int nscene = 0;
  for (struct dirent *d; (d = readdir(dir)) != NULL;) {
    size_t len = strlen(d->d_name);
    if (len < 6 || strcmp(d->d_name + len - 5, ".json") != 0) continue;
    char path[1024], err[2048] = "";
    snprintf(path, sizeof path, JL_SOURCE_DIR "/models/scenes/%s", d->d_name);
    JlScene sc;
    ENSURE_MSG(jl_scene_load(path, &sc, err, sizeof err) == JL_OK, "%s", err);
    FILE *log = tmpfile();
    JlModel m;
    JlResult r = jl_scene_build(&sc, &m, log, err, sizeof err);
    ENSURE_MSG(r == JL_OK, "%s", err);
    char text[4096] = "";
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = '\0';
    fclose(log);
    ENSURE_MSG(!strstr(text, "not met"), "%s: %s", d->d_name, text);
    if (r == JL_OK && strcmp(d->d_name, "hanging_bar.json") == 0) {
      const JlBody *bar = &m.body[0];
      double largest = 0.0;
      for (int t = bar->tet_begin; t < bar->tet_begin + bar->tet_count; t++) largest = fmax(largest, m.tet_volume[t]);
      printf("  hanging_bar.json: %d tets, largest %.4g m^3 (max_volume 5e-05)\n", bar->tet_count, largest);
      ENSURE(bar->tet_count >= 200 && largest <= 5e-5 * (1 + 1e-9));
    }
    if (r == JL_OK) jl_model_free(&m);
    jl_scene_free(&sc);
    nscene++;
  }
  closedir(dir);
  printf("  %d shipped scenes built\n", nscene);
  ENSURE(nscene >= 30);
}

static void test_hull_points_finite(void) {
  const char *dir = jl_test_tmpdir("scene_hull");
  static const char *const coord[] = {"nan", "1e999", "-inf"};
  char obj[1024], scene[1024], text[1024], err[1024];
  for (int i = 0; i < 3; i++) {
    snprintf(obj, sizeof obj, "%s/hull%d.obj", dir, i);
    FILE *f = fopen(obj, "w");
    ENSURE(f);
    fprintf(f, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 %s\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", coord[i]);
    fclose(f);
    snprintf(scene, sizeof scene, "%s/hull%d.json", dir, i);
    snprintf(
        text, sizeof text,
        "{\"obstacles\": [{\"type\": \"hull\", \"mesh\": \"hull%d.obj\"}], \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
        i);
    JlScene sc;
    err[0] = '\0';
    ENSURE_MSG(jl_scene_parse(text, scene, &sc, err, sizeof err) == JL_ERR_INPUT, "%s accepted", coord[i]);
    ENSURE_MSG(strstr(err, "obstacles[0].mesh") && strstr(err, "vertex 3 is not finite"), "%s", err);
  }
  snprintf(obj, sizeof obj, "%s/ok.obj", dir);
  ENSURE(jl_test_write_file(obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
  snprintf(scene, sizeof scene, "%s/ok.json", dir);
  JlScene sc;
  /* through the library: a parsed hull with a point made NaN */
  ENSURE_MSG(jl_scene_parse("{\"obstacles\": [{\"type\": \"hull\", \"mesh\": \"ok.obj\", \"translate\": [5, 0, 0]}],"
                            " \"bodies\": [{\"shape\": {\"type\": \"box\"}}]}",
                            scene, &sc, err, sizeof err) == JL_OK,
             "%s", err);
  sc.obstacle[0].point[4] = NAN;
  JlModel m;
  ENSURE(jl_scene_build(&sc, &m, NULL, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "obstacle 0: hull point 1 is not finite"), "%s", err);
  jl_scene_free(&sc);
}

/* the largest generated shapes the limits allow still parse */
static void test_shape_limits(void) {
  JlScene sc;
  char err[1024] = "";
  /* 12 x 288^2 = 995328 triangles: just under JL_SHAPE_MAX_TRIANGLES */
  ENSURE_MSG(parse("{\"bodies\": [{\"shape\": {\"type\": \"box\", \"resolution\": 0.003473}},"
                   " {\"kind\": \"cloth\", \"shape\": {\"type\": \"grid\", \"cells\": [1000, 1000]}},"
                   " {\"kind\": \"rope\", \"shape\": {\"type\": \"chain\", \"segments\": 1000000}}]}",
                   &sc, err, sizeof err) == JL_OK,
             "%s", err);
  jl_scene_free(&sc);
  ENSURE(jl_shape_box_triangles((const double[3]){1, 1, 1}, 0.003473) == 995328.0);
  ENSURE(jl_shape_box_triangles((const double[3]){1, 1, 1}, 1e-300) == 12.0 * 4096 * 4096);
  /* the counts agree with the generators */
  JlSurface g;
  jl_shape_torus(0.5, 0.2, 0.0, &g);
  ENSURE(jl_shape_torus_triangles(0.5, 0.2, 0.0) == g.ntri);
  jl_surface_free(&g);
  jl_shape_box((const double[3]){1, 2, 3}, 0.1, &g);
  ENSURE(jl_shape_box_triangles((const double[3]){1, 2, 3}, 0.1) == g.ntri);
  jl_surface_free(&g);
  jl_shape_sphere(1.0, 0.1, &g);
  ENSURE(jl_shape_sphere_triangles(1.0, 0.1) == g.ntri);
  jl_surface_free(&g);
  ENSURE(jl_shape_sphere_triangles(1.0, 1e-9) == 20.0 * 16384);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
/* every key a scene takes has its row in docs/scenes.md: `section.key`, or `key` alone for the top
 * level, bodies and obstacles (the key lists the loader checks against, src/scene.c jl_scene_keys, and
 * the settings tables of src/settings.h) */
static int documented(const char *doc, const char *section, const char *key) {
  char want[160];
  if (section[0])
    snprintf(want, sizeof want, "`%s.%s`", section, key);
  else
    snprintf(want, sizeof want, "`%s`", key);
  return strstr(doc, want) != NULL;
}

static void test_keys_documented(void) {
  char *doc = jl_test_read_file(JL_SOURCE_DIR "/docs/scenes.md", NULL);
  ENSURE(doc);
  char missing[2048] = "";
  int n = 0, checked = 0;
  const JlSceneKeys *sets = jl_scene_keys(&n);
  for (int k = 0; k < n; k++)
    for (const char *const *key = sets[k].keys; *key; key++, checked++)
      if (!documented(doc, sets[k].doc, *key) && strlen(missing) < 1800)
        snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s%s%s", sets[k].doc,
                 sets[k].doc[0] ? "." : "", *key);
  /* the settings tables' keys: a body's are documented with the body keys (section ""), the step's top-level
   * ones at the top level */
  const JlSettingTable *tables[] = {&JL_WORLD_TABLE, &JL_BODY_TABLE, &JL_STEP_TABLE};
  for (int t = 0; t < 3; t++)
    for (int k = 0; k < tables[t]->n; k++, checked++) {
      const JlSetting *st = &tables[t]->row[k];
      const char *section = strcmp(st->section, "body") == 0 ? "" : st->section;
      if (!documented(doc, section, st->key) && strlen(missing) < 1800)
        snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s%s%s", section, section[0] ? "." : "",
                 st->key);
    }
  free(doc);
  ENSURE_MSG(checked > 80, "only %d keys checked", checked);
  ENSURE_MSG(missing[0] == '\0', "keys without a row in docs/scenes.md:%s", missing);
}

JL_TEST_MAIN({"full_example", test_full_example}, {"keys_documented", test_keys_documented},
             {"defaults", test_defaults}, {"hull_points_finite", test_hull_points_finite},
             {"shape_limits", test_shape_limits}, {"bad_scenes", test_bad_scenes}, {"suggest", test_suggest},
             {"unknown_key_suggestion", test_unknown_key_suggestion}, {"inline_mesh", test_inline_mesh},
             {"cloth_rope_wind", test_cloth_rope_wind}, {"transform", test_transform},
             {"shipped_scenes_parse", test_shipped_scenes_parse},
             {"shipped_scene_meshes", test_shipped_scene_meshes, JL_SCENE})
