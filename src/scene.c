/* Scene loading: parsing and validating a scene file into a JlScene
 * (src/scene.h); the typed value readers are in src/scene_json.c, the
 * model building in src/scene_build.c.
 *
 * Validation is strict and complete before anything heavy runs: each object
 * is checked against the list of keys it may hold, each value against its
 * type and range, and the first problem is reported as
 *   "<file>: <key path>: <reason>"
 * (e.g. "drop.json: bodies[0].density: must be > 0, got -5"). JSON syntax
 * errors name the line and column. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "src/scene_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "mesh/shapes.h"
#include "mesh/tetfile.h"
#include "src/precond.h"

/* elements a body's generated shape will have: surface triangles of a box,
 * sphere or torus, triangles of a cloth grid, segments of a chain; 0 for
 * mesh files (their size is capped on import) */
static double shape_triangles(const JlSceneBody *b) {
  switch (b->shape) {
    case JL_SHAPE_BOX:
      return jl_shape_box_triangles(b->size, b->shape_resolution);
    case JL_SHAPE_SPHERE:
      return jl_shape_sphere_triangles(b->radius, b->shape_resolution);
    case JL_SHAPE_TORUS:
      return jl_shape_torus_triangles(b->major, b->minor, b->shape_resolution);
    case JL_SHAPE_GRID:
      return 2.0 * b->grid_cells[0] * b->grid_cells[1];
    case JL_SHAPE_CHAIN:
      return b->chain_segments;
    default:
      return 0.0;
  }
}

/* The keys of each scene object besides the settings tables' (src/settings.h: the "ground" and "contact"
 * sections, a body's material, the solver's); docs/scenes.md has a row for each (tests/test_scene.c
 * keys_documented). */
static const char *const SHAPE_KEYS[] = {"type",       "size",  "radius", "major",    "minor",
                                         "resolution", "cells", "length", "segments", NULL};
static const char *const PIN_KEYS[] = {"box", "nodes", NULL};
static const char *const TETGEN_KEYS[] = {"mode", "max_volume", "quality", "keep_surface", "resolution", "seed", NULL};
static const char *const MESH_KEYS[] = {"vertices", "triangles", NULL};
static const char *const BODY_KEYS[] = {"name",
                                        "kind",
                                        "mesh",
                                        "shape",
                                        "tetgen",
                                        "shear_stiffness",
                                        "bend_stiffness",
                                        "stretch_limit",
                                        "translate",
                                        "rotate_deg",
                                        "scale",
                                        "units",
                                        "velocity",
                                        "angular_velocity",
                                        "pin",
                                        "thickness",
                                        "radius",
                                        "surface",
                                        "plausibility_check",
                                        NULL};
static const char *const OBSTACLE_KEYS[] = {"type",       "size", "radius", "length", "translate",
                                            "rotate_deg", "mesh", "scale",  NULL};
static const char *const TOP_KEYS[] = {"description", "duration", "fps",    "dt",     "integrator",
                                       "gravity",     "solver",   "ground", "bodies", "contact",
                                       "obstacles",   "wind",     NULL};
static const char *const SOLVER_KEYS[] = {"preconditioner", NULL};
static const char *const WIND_KEYS[] = {"velocity", "gust", "period", "drag", NULL};

static const JlSceneKeys SCENE_KEYS[] = {
    {"", TOP_KEYS},        {"solver", SOLVER_KEYS}, {"wind", WIND_KEYS},     {"", OBSTACLE_KEYS}, {"", BODY_KEYS},
    {"shape", SHAPE_KEYS}, {"pin", PIN_KEYS},       {"tetgen", TETGEN_KEYS}, {"mesh", MESH_KEYS},
};

const JlSceneKeys *jl_scene_keys(int *n) {
  *n = (int)(sizeof SCENE_KEYS / sizeof SCENE_KEYS[0]);
  return SCENE_KEYS;
}

/* "shape": { "type": "box"|"sphere"|"torus"|"grid"|"chain", ... } */
static JlResult parse_shape(const JlSceneCtx *c, const cJSON *o, const char *path, JlSceneBody *b) {
  static const char *const grid_keys[] = {"type", "size", "cells", NULL};
  static const char *const chain_keys[] = {"type", "length", "segments", NULL};
  TRY(jl_scene_check_keys(c, o, path, SHAPE_KEYS));
  const char *type = NULL;
  TRY(jl_scene_get_str(c, o, path, "type", &type));
  char kp[512];
  jl_scene_key_path(kp, sizeof kp, path, "type");
  if (!type) return jl_scene_bad(c, kp, "missing (box, sphere, torus, grid or chain)", 0);
  int volume = strcmp(type, "box") == 0 || strcmp(type, "sphere") == 0 || strcmp(type, "torus") == 0;
  if (volume && (cJSON_GetObjectItemCaseSensitive(o, "cells") || cJSON_GetObjectItemCaseSensitive(o, "length") ||
                 cJSON_GetObjectItemCaseSensitive(o, "segments")))
    return jl_scene_bad(c, path, "cells/length/segments belong to the cloth \"grid\" and rope \"chain\" shapes", 0);
  TRY(jl_scene_get_num(c, o, path, "resolution", &b->shape_resolution, 0, 1, 1e6));
  if (strcmp(type, "box") == 0) {
    b->shape = JL_SHAPE_BOX;
    b->size[0] = b->size[1] = b->size[2] = 1;
    TRY(jl_scene_get_vec(c, o, path, "size", b->size, 3));
    for (int i = 0; i < 3; i++) {
      jl_scene_key_path(kp, sizeof kp, path, "size");
      if (!(b->size[i] > 0)) return jl_scene_bad(c, kp, "every size must be > 0, got %g", b->size[i]);
    }
    if (cJSON_GetObjectItemCaseSensitive(o, "radius") || cJSON_GetObjectItemCaseSensitive(o, "major"))
      return jl_scene_bad(c, path, "a box takes \"size\", not radius/major/minor", 0);
  } else if (strcmp(type, "sphere") == 0) {
    b->shape = JL_SHAPE_SPHERE;
    b->radius = 0.5;
    TRY(jl_scene_get_num(c, o, path, "radius", &b->radius, 0, 1, 1e6));
    if (cJSON_GetObjectItemCaseSensitive(o, "size") || cJSON_GetObjectItemCaseSensitive(o, "major"))
      return jl_scene_bad(c, path, "a sphere takes \"radius\", not size/major/minor", 0);
  } else if (strcmp(type, "torus") == 0) {
    b->shape = JL_SHAPE_TORUS;
    b->major = 0.5;
    b->minor = 0.2;
    TRY(jl_scene_get_num(c, o, path, "major", &b->major, 0, 1, 1e6));
    TRY(jl_scene_get_num(c, o, path, "minor", &b->minor, 0, 1, 1e6));
    if (!(b->minor < b->major)) return jl_scene_bad(c, path, "minor must be smaller than major", 0);
    if (cJSON_GetObjectItemCaseSensitive(o, "size") || cJSON_GetObjectItemCaseSensitive(o, "radius"))
      return jl_scene_bad(c, path, "a torus takes \"major\" and \"minor\", not size/radius", 0);
  } else if (strcmp(type, "grid") == 0) {
    /* cloth sheet: "size": [w, h] (m), "cells": [nx, ny] */
    TRY(jl_scene_check_keys(c, o, path, grid_keys));
    b->shape = JL_SHAPE_GRID;
    b->grid_size[0] = b->grid_size[1] = 1;
    b->grid_cells[0] = b->grid_cells[1] = 10;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "size");
    jl_scene_key_path(kp, sizeof kp, path, "size");
    if (v && (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2))
      return jl_scene_bad(c, kp, "expected [width, height] (m)", 0);
    TRY(jl_scene_get_vec(c, o, path, "size", b->grid_size, 2));
    for (int i = 0; i < 2; i++)
      if (!(b->grid_size[i] > 0) || b->grid_size[i] > 1e6)
        return jl_scene_bad(c, kp, "width and height must be in (0, 1e6], got %g", b->grid_size[i]);
    v = cJSON_GetObjectItemCaseSensitive(o, "cells");
    jl_scene_key_path(kp, sizeof kp, path, "cells");
    if (v) {
      if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return jl_scene_bad(c, kp, "expected [nx, ny] (whole numbers >= 1)", 0);
      for (int i = 0; i < 2; i++) {
        const cJSON *e = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 1) || e->valuedouble > 2000 ||
            e->valuedouble != floor(e->valuedouble))
          return jl_scene_bad(c, kp, "cell counts must be whole numbers in [1, 2000]", 0);
        b->grid_cells[i] = (int)e->valuedouble;
      }
      double cells = (double)b->grid_cells[0] * b->grid_cells[1];
      if (cells > SCENE_MAX_CLOTH_CELLS)
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                       "%s: %s: %d x %d is %.3g cells (at most %d per cloth); use fewer cells", c->file, kp,
                       b->grid_cells[0], b->grid_cells[1], cells, SCENE_MAX_CLOTH_CELLS);
    }
  } else if (strcmp(type, "chain") == 0) {
    /* rope or hair strand: "length" (m), "segments" */
    TRY(jl_scene_check_keys(c, o, path, chain_keys));
    b->shape = JL_SHAPE_CHAIN;
    b->chain_length = 1;
    b->chain_segments = 20;
    TRY(jl_scene_get_num(c, o, path, "length", &b->chain_length, 0, 1, 1e6));
    TRY(jl_scene_get_int(c, o, path, "segments", &b->chain_segments, 1, SCENE_MAX_ROPE_SEGMENTS));
  } else {
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: unknown shape '%s' (box, sphere, torus, grid or chain)",
                   c->file, kp, type);
  }
  /* generated surfaces: the triangle count is known before anything is made */
  if (volume) {
    double ntri = shape_triangles(b);
    if (ntri > JL_SHAPE_MAX_TRIANGLES) {
      jl_scene_key_path(kp, sizeof kp, path, "resolution");
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: %s: %g m makes a %s of %.3g triangles (at most %d per generated shape); "
                     "use a coarser resolution",
                     c->file, kp, b->shape_resolution, type, ntri, JL_SHAPE_MAX_TRIANGLES);
    }
  }
  return JL_OK;
}

/* "pin": { "box": [[x0,y0,z0],[x1,y1,z1]], "nodes": [i, ...] } */
static JlResult parse_pin(const JlSceneCtx *c, const cJSON *o, const char *path, JlSceneBody *b) {
  TRY(jl_scene_check_keys(c, o, path, PIN_KEYS));
  char kp[512];
  const cJSON *box = cJSON_GetObjectItemCaseSensitive(o, "box");
  if (box) {
    jl_scene_key_path(kp, sizeof kp, path, "box");
    if (!cJSON_IsArray(box) || cJSON_GetArraySize(box) != 2)
      return jl_scene_bad(c, kp, "expected [[xmin, ymin, zmin], [xmax, ymax, zmax]]", 0);
    for (int k = 0; k < 2; k++) {
      const cJSON *corner = cJSON_GetArrayItem(box, k);
      if (!cJSON_IsArray(corner) || cJSON_GetArraySize(corner) != 3)
        return jl_scene_bad(c, kp, "expected [[xmin, ymin, zmin], [xmax, ymax, zmax]]", 0);
      for (int i = 0; i < 3; i++) {
        const cJSON *e = cJSON_GetArrayItem(corner, i);
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return jl_scene_bad(c, kp, "expected finite numbers", 0);
        b->def.pin_box[k][i] = e->valuedouble;
      }
    }
    for (int i = 0; i < 3; i++)
      if (b->def.pin_box[0][i] > b->def.pin_box[1][i])
        return jl_scene_bad(c, kp, "the first corner must be the minimum (xmin <= xmax, ...)", 0);
    b->def.has_pin_box = 1;
  }
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(o, "nodes");
  if (nodes) {
    jl_scene_key_path(kp, sizeof kp, path, "nodes");
    if (!cJSON_IsArray(nodes)) return jl_scene_bad(c, kp, "expected an array of node indices", 0);
    int n = cJSON_GetArraySize(nodes);
    b->pin_nodes = jl_calloc((size_t)n, sizeof(int));
    int i = 0;
    for (const cJSON *e = nodes->child; e; e = e->next, i++) {
      if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > 2e9 || e->valuedouble != floor(e->valuedouble))
        return jl_scene_bad(c, kp, "node indices must be whole numbers >= 0", 0);
      b->pin_nodes[i] = (int)e->valuedouble;
    }
    b->def.npin = n;
    b->def.pin = b->pin_nodes;
  }
  return JL_OK;
}

/* "tetgen": { "mode", "max_volume", "quality", "keep_surface", "resolution", "seed" };
 * max_volume, quality and keep_surface belong to conforming mode, resolution and seed to
 * embedded mode: a key of the other mode is an error, not silently ignored */
static JlResult parse_tetgen(const JlSceneCtx *c, const cJSON *o, const char *path, JlTetgenDef *t) {
  static const char *const mode_keys[JL_TETGEN_MODE_COUNT][4] = {{"max_volume", "quality", "keep_surface", NULL},
                                                                 {"resolution", "seed", NULL, NULL}};
  static const char *const mode_name[JL_TETGEN_MODE_COUNT] = {"conforming", "embedded"};
  TRY(jl_scene_check_keys(c, o, path, TETGEN_KEYS));
  const char *mode = NULL;
  TRY(jl_scene_get_str(c, o, path, "mode", &mode));
  if (mode) {
    if (strcmp(mode, "conforming") == 0)
      t->mode = JL_TETGEN_CONFORMING;
    else if (strcmp(mode, "embedded") == 0)
      t->mode = JL_TETGEN_EMBEDDED;
    else
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.mode: unknown mode '%s' (conforming or embedded)", c->file,
                     path, mode);
  }
  int other = t->mode == JL_TETGEN_CONFORMING ? JL_TETGEN_EMBEDDED : JL_TETGEN_CONFORMING;
  for (const char *const *k = mode_keys[other]; *k; k++)
    if (cJSON_GetObjectItemCaseSensitive(o, *k)) {
      char kp[512];
      jl_scene_key_path(kp, sizeof kp, path, *k);
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: %s applies to mode \"%s\" only; this body is meshed in mode \"%s\"%s", c->file, kp,
                     mode_name[other], mode_name[t->mode], mode ? "" : " (the default)");
    }
  TRY(jl_scene_get_num(c, o, path, "max_volume", &t->max_volume, 0, 0, 1e30));
  TRY(jl_scene_get_num(c, o, path, "quality", &t->quality, 1.1, 0, 100));
  TRY(jl_scene_get_bool(c, o, path, "keep_surface", &t->keep_surface));
  TRY(jl_scene_get_num(c, o, path, "resolution", &t->resolution, 0, 1, 1e6));
  int seed = (int)t->seed;
  TRY(jl_scene_get_int(c, o, path, "seed", &seed, 0, 2147483647));
  t->seed = (unsigned)seed;
  return JL_OK;
}

/* directory part of a path ("" for a bare file name) */
static void dir_of(const char *path, char *out, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(out, n, ".");
    return;
  }
  size_t len = (size_t)(slash - path);
  if (len == 0) len = 1; /* "/file" */
  if (len >= n) len = n - 1;
  memcpy(out, path, len);
  out[len] = '\0';
}

/* An inline "mesh": {"vertices": [[x, y, z], ...], "triangles": [[a, b, c],
 * ...]} into b->mesh_inline, exactly as written (cJSON reads numbers with
 * strtod, so 17 significant digits give back the double). Checked here as
 * jelly_model_add_body checks its arrays (4 to JL_SURFACE_MAX_* elements,
 * finite coordinates within 1e100 m, indices in range); the surface itself
 * (closed, manifold, oriented) is validated after placement as a file's. */
static JlResult parse_inline_mesh(const JlSceneCtx *c, const cJSON *m, const char *path, JlSceneBody *b) {
  TRY(jl_scene_check_keys(c, m, path, MESH_KEYS));
  const cJSON *va = cJSON_GetObjectItemCaseSensitive(m, "vertices");
  const cJSON *ta = cJSON_GetObjectItemCaseSensitive(m, "triangles");
  char kp[512], ep[600];
  for (int k = 0; k < 2; k++) {
    const cJSON *a = k ? ta : va;
    jl_scene_key_path(kp, sizeof kp, path, k ? "triangles" : "vertices");
    if (!a)
      return jl_scene_bad(c, path, k ? "needs \"triangles\": [[a, b, c], ...]" : "needs \"vertices\": [[x, y, z], ...]",
                          0);
    if (!cJSON_IsArray(a))
      return jl_scene_bad(c, kp, k ? "expected an array of [a, b, c] vertex indices" : "expected an array of [x, y, z]",
                          0);
  }
  /* counts first, so nothing is allocated for an oversized array */
  int nv = 0, nt = 0;
  for (const cJSON *e = va->child; e && nv <= JL_SURFACE_MAX_VERTICES; e = e->next) nv++;
  for (const cJSON *e = ta->child; e && nt <= JL_SURFACE_MAX_TRIANGLES; e = e->next) nt++;
  jl_scene_key_path(kp, sizeof kp, path, "vertices");
  if (nv < 4 || nv > JL_SURFACE_MAX_VERTICES)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: %s%d vertices; a closed surface needs 4 to %d", c->file, kp,
                   nv > JL_SURFACE_MAX_VERTICES ? "more than " : "", nv > JL_SURFACE_MAX_VERTICES ? nv - 1 : nv,
                   JL_SURFACE_MAX_VERTICES);
  jl_scene_key_path(kp, sizeof kp, path, "triangles");
  if (nt < 4 || nt > JL_SURFACE_MAX_TRIANGLES)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: %s%d triangles; a closed surface needs 4 to %d", c->file,
                   kp, nt > JL_SURFACE_MAX_TRIANGLES ? "more than " : "", nt > JL_SURFACE_MAX_TRIANGLES ? nt - 1 : nt,
                   JL_SURFACE_MAX_TRIANGLES);
  JlSurface *s = &b->mesh_inline;
  s->vert = jl_calloc(3 * (size_t)nv, sizeof(double));
  s->tri = jl_calloc(3 * (size_t)nt, sizeof(int));
  s->nvert = nv;
  s->ntri = nt;
  /* vertices: [x, y, z] of finite numbers within 1e100 m */
  jl_scene_key_path(kp, sizeof kp, path, "vertices");
  int i = 0;
  for (const cJSON *e = va->child; e; e = e->next, i++) {
    snprintf(ep, sizeof ep, "%s[%d]", kp, i);
    if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3) return jl_scene_bad(c, ep, "expected [x, y, z]", 0);
    int j = 0;
    for (const cJSON *x = e->child; x; x = x->next, j++) {
      if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > 1e100) {
        snprintf(ep, sizeof ep, "%s[%d][%d]", kp, i, j);
        return jl_scene_bad(c, ep, "expected a finite number within 1e100 m", 0);
      }
      s->vert[3 * i + j] = x->valuedouble;
    }
  }
  /* triangles: [a, b, c] of whole numbers in 0..nv-1 */
  jl_scene_key_path(kp, sizeof kp, path, "triangles");
  i = 0;
  for (const cJSON *e = ta->child; e; e = e->next, i++) {
    snprintf(ep, sizeof ep, "%s[%d]", kp, i);
    if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3) return jl_scene_bad(c, ep, "expected [a, b, c]", 0);
    int j = 0;
    for (const cJSON *x = e->child; x; x = x->next, j++) {
      snprintf(ep, sizeof ep, "%s[%d][%d]", kp, i, j);
      if (!cJSON_IsNumber(x) || x->valuedouble != floor(x->valuedouble))
        return jl_scene_bad(c, ep, "expected a whole number (a vertex index)", 0);
      if (!(x->valuedouble >= 0 && x->valuedouble < nv))
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: vertex index %.17g out of range 0..%d", c->file, ep,
                       x->valuedouble, nv - 1);
      s->tri[3 * i + j] = (int)x->valuedouble;
    }
  }
  return JL_OK;
}

/* "units": "m" | "cm" | "mm", the length unit of a mesh's numbers (a file's
 * or an inline mesh's); a generated shape is sized in metres and refuses it */
static JlResult parse_units(const JlSceneCtx *c, const cJSON *o, const char *path, int is_shape, JlSceneBody *b) {
  static const char *const name[] = {"m", "cm", "mm"};
  static const double metres[] = {1.0, 0.01, 0.001};
  const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "units");
  b->units = 1.0;
  if (!u) return JL_OK;
  char kp[512];
  jl_scene_key_path(kp, sizeof kp, path, "units");
  if (is_shape) return jl_scene_bad(c, kp, "applies to a \"mesh\"; a \"shape\" is sized in metres", 0);
  if (!cJSON_IsString(u) || !u->valuestring) return jl_scene_bad(c, kp, "expected \"m\", \"cm\" or \"mm\"", 0);
  for (int i = 0; i < 3; i++)
    if (strcmp(u->valuestring, name[i]) == 0) {
      b->units = metres[i];
      return JL_OK;
    }
  return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: unknown unit '%.32s' (\"m\", \"cm\" or \"mm\")", c->file, kp,
                 u->valuestring);
}

/* A volume body whose "mesh" is a tet mesh (mesh/tetfile.h: its extension
 * says so) is loaded as it is: "tetgen" has nothing to do there, and an
 * optional "surface" file is the render surface embedded in its tets
 * (default: the tet mesh's boundary). "surface" on any other body is an
 * error. */
static JlResult parse_tet_mesh_keys(const JlSceneCtx *c, const cJSON *o, const char *path, const char *scene_dir,
                                    JlSceneBody *b) {
  char kp[512];
  b->mesh_is_tets = b->mesh_path[0] && jl_tetfile_is_volume(b->mesh_path);
  const char *surface = NULL;
  TRY(jl_scene_get_str(c, o, path, "surface", &surface));
  b->plausibility_check = 1;
  TRY(jl_scene_get_bool(c, o, path, "plausibility_check", &b->plausibility_check));
  if (!b->mesh_is_tets && cJSON_GetObjectItemCaseSensitive(o, "plausibility_check")) {
    jl_scene_key_path(kp, sizeof kp, path, "plausibility_check");
    return jl_scene_bad(c, kp, "only a body whose \"mesh\" is a tet mesh (.node/.ele, .msh, .vtk, .vtu) takes it", 0);
  }
  if (b->mesh_is_tets && b->kind != JL_BODY_VOLUME)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.mesh: '%s' is a tet mesh; only volume bodies take one",
                   c->file, path, b->mesh_path);
  if (b->mesh_is_tets && cJSON_GetObjectItemCaseSensitive(o, "tetgen")) {
    jl_scene_key_path(kp, sizeof kp, path, "tetgen");
    return jl_scene_bad(
        c, kp, "the mesh is already a tet mesh (.node/.ele, .msh, .vtk or .vtu): nothing to tetrahedralize", 0);
  }
  if (!surface) return JL_OK;
  jl_scene_key_path(kp, sizeof kp, path, "surface");
  if (!b->mesh_is_tets)
    return jl_scene_bad(
        c, kp, "only a body whose \"mesh\" is a tet mesh (.node/.ele, .msh, .vtk, .vtu) takes a separate surface", 0);
  if (!*surface) return jl_scene_bad(c, kp, "is empty", 0);
  if (jl_tetfile_is_volume(surface))
    return jl_scene_bad(c, kp, "must be a surface mesh (OBJ, STL, PLY, ...), not a tet mesh", 0);
  int len = surface[0] == '/' ? snprintf(b->surface_path, sizeof b->surface_path, "%s", surface)
                              : snprintf(b->surface_path, sizeof b->surface_path, "%s/%s", scene_dir, surface);
  if (len < 0 || (size_t)len >= sizeof b->surface_path) return jl_scene_bad(c, kp, "path too long", 0);
  struct stat st;
  if (stat(b->surface_path, &st) != 0 || !S_ISREG(st.st_mode))
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: cannot open '%s'%s", c->file, kp, b->surface_path,
                   stat(b->surface_path, &st) == 0 ? " (not a file)" : "");
  return JL_OK;
}

static JlResult parse_body(const JlSceneCtx *c, const cJSON *o, int index, const char *scene_dir, JlSceneBody *b) {
  static const char *const volume_only[] = {"tetgen",           "young_modulus",      "poisson_ratio",
                                            "volume_stiffness", "calibrate",          "surface",
                                            "material_damping", "plausibility_check", NULL};
  static const char *const cloth_only[] = {"shear_stiffness", "bend_stiffness", "stretch_limit",
                                           "thickness",       "radius",         NULL};
  char path[64];
  snprintf(path, sizeof path, "bodies[%d]", index);
  if (!cJSON_IsObject(o)) return jl_scene_bad(c, path, "expected an object { ... }", 0);
  const char *keys[64];
  jl_scene_table_keys(BODY_KEYS, &JL_BODY_TABLE, "body", keys, 64);
  TRY(jl_scene_check_keys(c, o, path, keys));

  b->def = jl_default_body_def();
  b->tetgen = jl_default_tetgen_def();
  b->scale = 1.0;
  b->cloth = jl_default_cloth_def();
  snprintf(b->def.name, sizeof b->def.name, "body%d", index);

  /* "kind" first: it decides which keys, shapes and units apply */
  const char *kind = NULL;
  char kp[512];
  TRY(jl_scene_get_str(c, o, path, "kind", &kind));
  b->kind = JL_BODY_VOLUME;
  if (kind) {
    if (strcmp(kind, "cloth") == 0)
      b->kind = JL_BODY_CLOTH;
    else if (strcmp(kind, "rope") == 0)
      b->kind = JL_BODY_ROPE;
    else if (strcmp(kind, "volume") != 0)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.kind: unknown kind '%s' (volume, cloth or rope)", c->file,
                     path, kind);
  }
  const char *const *forbidden = b->kind == JL_BODY_VOLUME ? cloth_only : volume_only;
  for (const char *const *k = forbidden; *k; k++)
    if (cJSON_GetObjectItemCaseSensitive(o, *k)) {
      jl_scene_key_path(kp, sizeof kp, path, *k);
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: only %s bodies take this key (this one is %s)", c->file,
                     kp, b->kind == JL_BODY_VOLUME ? "cloth and rope" : "volume",
                     b->kind == JL_BODY_VOLUME  ? "a volume"
                     : b->kind == JL_BODY_CLOTH ? "cloth"
                                                : "a rope");
    }
  if (b->kind != JL_BODY_VOLUME) {
    b->cloth.kind = b->kind;
    /* areal (kg/m^2) or linear (kg/m) density of thin fabric and string */
    b->def.density = b->kind == JL_BODY_CLOTH ? 0.2 : 0.05;
  }

  const char *name = NULL, *mesh = NULL;
  TRY(jl_scene_get_str(c, o, path, "name", &name));
  if (name) {
    jl_scene_key_path(kp, sizeof kp, path, "name");
    if (!*name || strlen(name) >= JL_NAME_MAX) return jl_scene_bad(c, kp, "must have 1 to 63 characters", 0);
    for (const char *p = name; *p; p++)
      if (*p == '/' || *p == '\\' || (unsigned char)*p < 32)
        return jl_scene_bad(c, kp, "must not contain '/', '\\' or control characters (it names output files)", 0);
    snprintf(b->def.name, sizeof b->def.name, "%s", name);
  }

  /* "mesh": a file path, or the surface inline as arrays */
  const cJSON *mesh_obj = cJSON_GetObjectItemCaseSensitive(o, "mesh");
  if (mesh_obj && !cJSON_IsObject(mesh_obj)) {
    jl_scene_key_path(kp, sizeof kp, path, "mesh");
    if (!cJSON_IsString(mesh_obj) || !mesh_obj->valuestring)
      return jl_scene_bad(c, kp, "expected a file path or {\"vertices\": [...], \"triangles\": [...]}", 0);
    mesh = mesh_obj->valuestring;
    mesh_obj = NULL;
  }
  const cJSON *shape = NULL, *tetgen = NULL, *pin = NULL;
  TRY(jl_scene_get_obj(c, o, path, "shape", &shape));
  if ((mesh || mesh_obj) && shape) return jl_scene_bad(c, path, "give either \"mesh\" or \"shape\", not both", 0);
  if (!mesh && !mesh_obj && !shape) return jl_scene_bad(c, path, "needs a \"mesh\" file or a \"shape\"", 0);
  if ((mesh || mesh_obj) && b->kind == JL_BODY_ROPE)
    return jl_scene_bad(c, path, "a rope takes a \"shape\" of type \"chain\", not a \"mesh\"", 0);
  if (mesh_obj) {
    jl_scene_key_path(kp, sizeof kp, path, "mesh");
    TRY(parse_inline_mesh(c, mesh_obj, kp, b));
  } else if (mesh) {
    if (!*mesh) return jl_scene_bad(c, path, "\"mesh\" is empty", 0);
    int len = mesh[0] == '/' ? snprintf(b->mesh_path, sizeof b->mesh_path, "%s", mesh)
                             : snprintf(b->mesh_path, sizeof b->mesh_path, "%s/%s", scene_dir, mesh);
    if (len < 0 || (size_t)len >= sizeof b->mesh_path) return jl_scene_bad(c, path, "\"mesh\" path too long", 0);
    struct stat st;
    if (stat(b->mesh_path, &st) != 0 || !S_ISREG(st.st_mode))
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.mesh: cannot open '%s'%s", c->file, path, b->mesh_path,
                     stat(b->mesh_path, &st) == 0 ? " (not a file)" : "");
  } else {
    char sp[96];
    snprintf(sp, sizeof sp, "%s.shape", path);
    TRY(parse_shape(c, shape, sp, b));
    static const char *const want[JL_BODY_KIND_COUNT] = {"box, sphere or torus", "grid", "chain"};
    int ok = b->kind == JL_BODY_VOLUME
                 ? b->shape == JL_SHAPE_BOX || b->shape == JL_SHAPE_SPHERE || b->shape == JL_SHAPE_TORUS
             : b->kind == JL_BODY_CLOTH ? b->shape == JL_SHAPE_GRID
                                        : b->shape == JL_SHAPE_CHAIN;
    if (!ok) {
      jl_scene_key_path(kp, sizeof kp, sp, "type");
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: a %s body takes a %s shape%s", c->file, kp,
                     b->kind == JL_BODY_VOLUME  ? "volume"
                     : b->kind == JL_BODY_CLOTH ? "cloth"
                                                : "rope",
                     want[b->kind], b->kind == JL_BODY_VOLUME ? " (set \"kind\" for cloth or ropes)" : "");
    }
  }

  TRY(parse_tet_mesh_keys(c, o, path, scene_dir, b));
  TRY(jl_scene_get_obj(c, o, path, "tetgen", &tetgen));
  if (tetgen) {
    char tp[96];
    snprintf(tp, sizeof tp, "%s.tetgen", path);
    TRY(parse_tetgen(c, tetgen, tp, &b->tetgen));
  }
  /* the material (src/model.h, JL_BODY_SETTINGS); cloth and ropes read "stiffness" into their stretch springs */
  TRY(jl_scene_get_settings(c, o, path, &JL_BODY_TABLE, "body", b->kind == JL_BODY_VOLUME ? NULL : "stiffness",
                            &b->def));
  if (b->kind == JL_BODY_VOLUME && b->def.stiffness == 0.0 && !cJSON_GetObjectItemCaseSensitive(o, "young_modulus")) {
    jl_scene_key_path(kp, sizeof kp, path, "stiffness");
    return jl_scene_bad(c, kp, "0 leaves the body without springs; give stiffness > 0 (N/m) or young_modulus (Pa)", 0);
  }
  if (b->kind != JL_BODY_VOLUME) {
    TRY(jl_scene_get_num(c, o, path, "stiffness", &b->cloth.stretch, 0, 1, 1e15));
    if (b->kind == JL_BODY_ROPE && cJSON_GetObjectItemCaseSensitive(o, "shear_stiffness")) {
      jl_scene_key_path(kp, sizeof kp, path, "shear_stiffness");
      return jl_scene_bad(c, kp, "a rope has no shear springs (only stiffness and bend_stiffness)", 0);
    }
    TRY(jl_scene_get_num(c, o, path, "shear_stiffness", &b->cloth.shear, 0, 0, 1e15));
    TRY(jl_scene_get_num(c, o, path, "bend_stiffness", &b->cloth.bend, 0, 0, 1e15));
    TRY(jl_scene_get_num(c, o, path, "stretch_limit", &b->cloth.stretch_limit, 0, 0, 10));
    /* contact thickness: cloth "thickness" (full, m), rope "radius" (m) */
    const char *own = b->kind == JL_BODY_CLOTH ? "thickness" : "radius",
               *other = b->kind == JL_BODY_CLOTH ? "radius" : "thickness";
    if (cJSON_GetObjectItemCaseSensitive(o, other)) {
      jl_scene_key_path(kp, sizeof kp, path, other);
      return jl_scene_bad(c, kp,
                          b->kind == JL_BODY_CLOTH ? "cloth takes \"thickness\" (m), not \"radius\""
                                                   : "a rope takes \"radius\" (m), not \"thickness\"",
                          0);
    }
    double th = b->kind == JL_BODY_CLOTH ? 2.0 * JL_CLOTH_RADIUS : JL_ROPE_RADIUS;
    TRY(jl_scene_get_num(c, o, path, own, &th, 0, 0, 1e3));
    b->cloth.radius = b->kind == JL_BODY_CLOTH ? 0.5 * th : th;
  }
  if (cJSON_GetObjectItemCaseSensitive(o, "poisson_ratio")) {
    char nkp[96];
    jl_scene_key_path(nkp, sizeof nkp, path, "poisson_ratio");
    if (!(b->def.poisson_ratio < 0.5))
      return jl_scene_bad(c, nkp, "must be < 0.5 (0.5 is an incompressible solid, which springs cannot model), got %g",
                          b->def.poisson_ratio);
    if (!cJSON_GetObjectItemCaseSensitive(o, "young_modulus"))
      return jl_scene_bad(c, nkp, "needs young_modulus (with a uniform stiffness, set volume_stiffness in Pa instead)",
                          0);
  }
  TRY(jl_scene_get_vec(c, o, path, "translate", b->translate, 3));
  TRY(jl_scene_get_vec(c, o, path, "rotate_deg", b->rotate_deg, 3));
  TRY(jl_scene_get_num(c, o, path, "scale", &b->scale, 0, 1, 1e9));
  TRY(parse_units(c, o, path, shape != NULL, b));
  TRY(jl_scene_get_vec(c, o, path, "velocity", b->def.velocity, 3));
  TRY(jl_scene_get_vec(c, o, path, "angular_velocity", b->def.angular_velocity, 3));
  TRY(jl_scene_get_obj(c, o, path, "pin", &pin));
  if (pin) {
    char pp[96];
    snprintf(pp, sizeof pp, "%s.pin", path);
    TRY(parse_pin(c, pin, pp, b));
  }
  return JL_OK;
}

/* line and column of byte offset `pos` in text */
static void line_col(const char *text, const char *pos, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (const char *p = text; p < pos && *p; p++) {
    if (*p == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

/* a section of the world settings table (src/model.h, JL_WORLD_SETTINGS): its keys, each read within its range */
static JlResult section_settings(const JlSceneCtx *c, const cJSON *obj, const char *section, JlWorldDef *w) {
  const char *keys[JL_SETTINGS_MAX + 1];
  jl_scene_table_keys(NULL, &JL_WORLD_TABLE, section, keys, JL_SETTINGS_MAX + 1);
  TRY(jl_scene_check_keys(c, obj, section, keys));
  return jl_scene_get_settings(c, obj, section, &JL_WORLD_TABLE, section, NULL, w);
}

/* "obstacles": [ { "type": "box"|"plane"|"sphere"|"capsule"|"hull", ... } ] */
static JlResult parse_obstacle(const JlSceneCtx *c, const cJSON *o, int index, const char *scene_dir, JlObstacle *ob) {
  char path[64], kp[512];
  snprintf(path, sizeof path, "obstacles[%d]", index);
  if (!cJSON_IsObject(o)) return jl_scene_bad(c, path, "expected an object { ... }", 0);
  TRY(jl_scene_check_keys(c, o, path, OBSTACLE_KEYS));
  *ob = jl_default_obstacle();
  const char *type = NULL, *mesh = NULL;
  TRY(jl_scene_get_str(c, o, path, "type", &type));
  jl_scene_key_path(kp, sizeof kp, path, "type");
  if (!type) return jl_scene_bad(c, kp, "missing (plane, box, sphere, capsule or hull)", 0);
  ob->type = jl_obstacle_type_parse(type);
  if (ob->type == JL_OBSTACLE_COUNT)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: %s: unknown obstacle type '%s' (plane, box, sphere, capsule, hull)", c->file, kp, type);
  TRY(jl_scene_get_vec(c, o, path, "size", ob->size, 3));
  for (int i = 0; i < 3; i++) {
    jl_scene_key_path(kp, sizeof kp, path, "size");
    if (!(ob->size[i] > 0)) return jl_scene_bad(c, kp, "every size must be > 0, got %g", ob->size[i]);
  }
  TRY(jl_scene_get_num(c, o, path, "radius", &ob->radius, 0, 1, 1e9));
  TRY(jl_scene_get_num(c, o, path, "length", &ob->length, 0, 0, 1e9));
  TRY(jl_scene_get_vec(c, o, path, "translate", ob->translate, 3));
  double rot[3] = {0, 0, 0}, scale = 1.0;
  TRY(jl_scene_get_vec(c, o, path, "rotate_deg", rot, 3));
  jl_obstacle_set_rotation(ob, rot);
  TRY(jl_scene_get_num(c, o, path, "scale", &scale, 0, 1, 1e9));
  TRY(jl_scene_get_str(c, o, path, "mesh", &mesh));
  if (ob->type == JL_OBSTACLE_HULL) {
    if (!mesh || !*mesh)
      return jl_scene_bad(c, path, "a hull needs a \"mesh\" file (its vertices' convex hull is the obstacle)", 0);
    char file[4096];
    int len = mesh[0] == '/' ? snprintf(file, sizeof file, "%s", mesh)
                             : snprintf(file, sizeof file, "%s/%s", scene_dir, mesh);
    if (len < 0 || (size_t)len >= sizeof file) return jl_scene_bad(c, path, "\"mesh\" path too long", 0);
    JlSurface surf;
    char msg[1024];
    if (jl_surface_load(file, &surf, msg, sizeof msg) != JL_OK)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.mesh: %s", c->file, path, msg);
    if (surf.nvert < 4) {
      jl_surface_free(&surf);
      return jl_scene_bad(c, path, "the hull's mesh needs at least 4 vertices", 0);
    }
    ob->npoint = surf.nvert;
    ob->point = jl_calloc(3 * (size_t)surf.nvert, sizeof(double));
    for (int i = 0; i < 3 * surf.nvert; i++) ob->point[i] = scale * surf.vert[i];
    /* a NaN or Inf vertex (in the file, or from scale) would make the hull
     * silently stop colliding */
    for (int i = 0; i < surf.nvert; i++) {
      const double *x = ob->point + 3 * (size_t)i;
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2])) {
        const double *v = surf.vert + 3 * (size_t)i;
        jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                "%s: %s.mesh: '%s' vertex %d is not finite (%g %g %g%s); a hull needs finite points", c->file, path,
                mesh, i, v[0], v[1], v[2], isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) ? ", after scale" : "");
        jl_surface_free(&surf);
        return JL_ERR_INPUT;
      }
    }
    jl_surface_free(&surf);
  } else if (mesh) {
    return jl_scene_bad(c, path, "only a \"hull\" takes a \"mesh\"", 0);
  }
  return JL_OK;
}

/* Time settings that a run can honour: a given dt no longer than one output
 * frame (a longer one used to be cut to 1/fps silently; the default is still
 * cut, see docs/scenes.md), at most 1e7 steps per frame and 1e8 frames, so
 * that the step and frame counts are sane ints. */
static JlResult check_timing(const JlSceneCtx *c, const JlScene *sc) {
  double frame = 1.0 / sc->fps;
  if (sc->dt_set && jl_dt_too_long(sc->dt, frame))
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: dt: %.9g s is longer than one output frame (1/fps = %.9g s); lower dt or raise fps", c->file,
                   sc->dt, frame);
  if (frame / sc->dt > 1e7)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: dt: %g s%s would need %.3g steps per output frame of 1/fps = %g s (at most 1e7); "
                   "raise dt or fps",
                   c->file, sc->dt, sc->dt_set ? "" : " (the default)", frame / sc->dt, frame);
  if (sc->duration * sc->fps > 1e8)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: duration, fps: %g s at %g frames per second is %.3g output frames (at most 1e8); "
                   "shorten duration or lower fps",
                   c->file, sc->duration, sc->fps, sc->duration * sc->fps);
  return JL_OK;
}

static JlResult parse_root(const JlSceneCtx *c, const cJSON *root, JlScene *sc) {
  if (!cJSON_IsObject(root))
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: the scene must be a JSON object { ... }", c->file);
  const char *keys[JL_SETTINGS_MAX + 16];
  jl_scene_table_keys(TOP_KEYS, &JL_STEP_TABLE, "", keys, JL_SETTINGS_MAX + 16);
  TRY(jl_scene_check_keys(c, root, "", keys));

  const char *desc = NULL, *integ = NULL;
  TRY(jl_scene_get_str(c, root, "", "description", &desc));
  TRY(jl_scene_get_num(c, root, "", "duration", &sc->duration, 0, 1, 1e7));
  TRY(jl_scene_get_num(c, root, "", "fps", &sc->fps, 0, 1, 1e6));
  TRY(jl_scene_get_str(c, root, "", "integrator", &integ));
  if (integ) {
    sc->step.integrator = jl_integrator_parse(integ);
    if (sc->step.integrator == JL_INTEGRATOR_COUNT)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: integrator: unknown integrator '%s' (implicit, symplectic, euler, "
                     "midpoint, rk4, verlet, implicit_midpoint)",
                     c->file, integ);
  }
  sc->dt = 1.0 / 60.0; /* explicit integrators without dt: jl_world_stable_dt at run time */
  TRY(jl_scene_get_num(c, root, "", "dt", &sc->dt, 0, 1, 1e6));
  sc->dt_set = cJSON_GetObjectItemCaseSensitive(root, "dt") != NULL;
  TRY(check_timing(c, sc));
  TRY(jl_scene_get_vec(c, root, "", "gravity", sc->world.gravity, 3));
  TRY(jl_scene_get_settings(c, root, "", &JL_STEP_TABLE, "", NULL, &sc->step));

  const cJSON *solver = NULL, *ground = NULL;
  TRY(jl_scene_get_obj(c, root, "", "solver", &solver));
  if (solver) {
    const char *solver_keys[JL_SETTINGS_MAX + 2];
    jl_scene_table_keys(SOLVER_KEYS, &JL_STEP_TABLE, "solver", solver_keys, JL_SETTINGS_MAX + 2);
    TRY(jl_scene_check_keys(c, solver, "solver", solver_keys));
    const char *pre = NULL;
    TRY(jl_scene_get_str(c, solver, "solver", "preconditioner", &pre));
    if (pre) {
      int k = 0;
      while (k < JL_PRECOND_COUNT && strcmp(jl_precond_names[k], pre) != 0) k++;
      if (k == JL_PRECOND_COUNT)
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                       "%s: solver.preconditioner: unknown preconditioner '%s' (jacobi, "
                       "two_level)",
                       c->file, pre);
      sc->step.preconditioner = k;
    }
    /* a scene that gives the relative tolerance alone keeps its old meaning:
     * CG stops there (docs/scenes.md, solver.velocity_tolerance) */
    if (cJSON_GetObjectItemCaseSensitive(solver, "tolerance") &&
        !cJSON_GetObjectItemCaseSensitive(solver, "velocity_tolerance"))
      sc->step.velocity_tolerance = 0.0;
    TRY(jl_scene_get_settings(c, solver, "solver", &JL_STEP_TABLE, "solver", NULL, &sc->step));
  }
  TRY(jl_scene_get_obj(c, root, "", "ground", &ground));
  if (ground) {
    TRY(section_settings(c, ground, "ground", &sc->world));
    sc->world.has_ground = 1;
  }

  const cJSON *contact = NULL;
  TRY(jl_scene_get_obj(c, root, "", "contact", &contact));
  if (contact) TRY(section_settings(c, contact, "contact", &sc->world));
  /* "wind": air moving past cloth (src/wind.h); its presence turns air drag on */
  const cJSON *wind = NULL;
  TRY(jl_scene_get_obj(c, root, "", "wind", &wind));
  if (wind) {
    TRY(jl_scene_check_keys(c, wind, "wind", WIND_KEYS));
    sc->world.wind_drag = 1.2;
    TRY(jl_scene_get_vec(c, wind, "wind", "velocity", sc->world.wind, 3));
    TRY(jl_scene_get_num(c, wind, "wind", "gust", &sc->world.wind_gust, 0, 0, 100));
    TRY(jl_scene_get_num(c, wind, "wind", "period", &sc->world.wind_gust_period, 0, 1, 1e6));
    TRY(jl_scene_get_num(c, wind, "wind", "drag", &sc->world.wind_drag, 0, 0, 1e6));
  }
  const cJSON *obstacles = cJSON_GetObjectItemCaseSensitive(root, "obstacles");
  if (obstacles) {
    if (!cJSON_IsArray(obstacles)) return jl_scene_bad(c, "obstacles", "expected an array [ {...}, ... ]", 0);
    int no = cJSON_GetArraySize(obstacles);
    if (no > SCENE_MAX_BODIES) return jl_scene_bad(c, "obstacles", "at most %g obstacles", SCENE_MAX_BODIES);
    sc->obstacle = jl_calloc((size_t)no + 1, sizeof *sc->obstacle);
    char odir[4096];
    dir_of(c->file, odir, sizeof odir);
    int oi = 0;
    for (const cJSON *e = obstacles->child; e; e = e->next, oi++) {
      sc->nobstacle = oi + 1;
      TRY(parse_obstacle(c, e, oi, odir, &sc->obstacle[oi]));
    }
  }

  const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
  if (!bodies)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: bodies: missing (a scene needs at least one body)", c->file);
  if (!cJSON_IsArray(bodies)) return jl_scene_bad(c, "bodies", "expected an array [ {...}, ... ]", 0);
  int n = cJSON_GetArraySize(bodies);
  if (n < 1) return jl_scene_bad(c, "bodies", "needs at least one body", 0);
  if (n > SCENE_MAX_BODIES) return jl_scene_bad(c, "bodies", "at most %g bodies", SCENE_MAX_BODIES);
  sc->body = jl_calloc((size_t)n, sizeof *sc->body);
  char dir[4096];
  dir_of(c->file, dir, sizeof dir);
  int i = 0;
  double nelem = 0.0;
  for (const cJSON *e = bodies->child; e; e = e->next, i++) {
    sc->nbody = i + 1;
    TRY(parse_body(c, e, i, dir, &sc->body[i]));
    /* all generated shapes together: each is capped, so their sum is too */
    nelem += shape_triangles(&sc->body[i]);
    if (nelem > SCENE_MAX_ELEMENTS)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: bodies[%d].shape: the generated shapes of bodies[0..%d] add up to %.3g triangles and "
                     "segments (at most %d per scene); use fewer or coarser shapes",
                     c->file, i, i, nelem, SCENE_MAX_ELEMENTS);
    for (int k = 0; k < i; k++)
      if (strcmp(sc->body[k].def.name, sc->body[i].def.name) == 0)
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: bodies[%d].name: '%s' is already the name of bodies[%d]",
                       c->file, i, sc->body[i].def.name, k);
  }
  return JL_OK;
}

static void scene_defaults(JlScene *sc) {
  memset(sc, 0, sizeof *sc);
  sc->duration = 2.0;
  sc->fps = 60.0;
  sc->step = jl_default_step_def();
  sc->world = jl_default_world_def();
  sc->dt = 1.0 / 60.0;
}

int jl_scene_is_scene_file(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}

JlResult jl_scene_open(const char *path, JlScene *sc, char *err, size_t errsz) {
  if (!path) {
    scene_defaults(sc);
    snprintf(sc->path, sizeof sc->path, "%s", "(empty world)");
    sc->world.has_ground = 1;
    return JL_OK;
  }
  if (jl_scene_is_scene_file(path)) return jl_scene_load(path, sc, err, errsz);
  /* a mesh: one body in a default world, its path made absolute so that the scene's folder does not matter */
  struct stat st;
  if (stat(path, &st) != 0) return jl_fail(err, errsz, JL_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return jl_fail(err, errsz, JL_ERR_INPUT, "'%s' is not a file", path);
  char *abs = realpath(path, NULL);
  if (!abs) return jl_fail(err, errsz, JL_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
  const char *base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
  char name[JL_NAME_MAX];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(base, "."), base);
  if (!name[0]) snprintf(name, sizeof name, "%s", "mesh");
  cJSON *root = cJSON_CreateObject(), *bodies = cJSON_AddArrayToObject(root, "bodies"), *b = cJSON_CreateObject();
  cJSON_AddItemToObject(root, "ground", cJSON_CreateObject());
  cJSON_AddStringToObject(b, "name", name);
  cJSON_AddStringToObject(b, "mesh", abs);
  /* a material that does not depend on how finely the mesh is cut (docs/physics.md) */
  cJSON_AddNumberToObject(b, "young_modulus", JL_OPEN_YOUNG_MODULUS);
  cJSON_AddItemToArray(bodies, b);
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  char scene_path[4200];
  snprintf(scene_path, sizeof scene_path, "%s", abs);
  free(abs);
  JlResult r = text ? jl_scene_parse(text, scene_path, sc, err, errsz)
                    : jl_fail(err, errsz, JL_ERR_SYSTEM, "out of memory describing '%s'", path);
  free(text);
  if (r) return r;
  sc->body[0].dropped = 1;
  sc->body[0].drop_at[1] = sc->world.ground_y;
  return JL_OK;
}

JlResult jl_scene_parse(const char *text, const char *path, JlScene *sc, char *err, size_t errsz) {
  scene_defaults(sc);
  snprintf(sc->path, sizeof sc->path, "%s", path);
  JlSceneCtx c = {path, err, errsz};
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root) {
    int line, col;
    line_col(text, end ? end : text, &line, &col);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s:%d:%d: invalid JSON near here", path, line, col);
  }
  JlResult r = parse_root(&c, root, sc);
  cJSON_Delete(root);
  if (r != JL_OK) jl_scene_free(sc);
  return r;
}

JlResult jl_scene_load(const char *path, JlScene *sc, char *err, size_t errsz) {
  scene_defaults(sc);
  struct stat st;
  if (stat(path, &st) != 0)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot open scene: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: not a file", path);
  if (st.st_size > SCENE_MAX_BYTES) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: scene file larger than 16 MiB", path);
  FILE *f = fopen(path, "rb");
  if (!f) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot open scene: %s", path, strerror(errno));
  char *text = jl_calloc((size_t)st.st_size + 1, 1);
  size_t n = fread(text, 1, (size_t)st.st_size, f);
  fclose(f);
  text[n] = '\0';
  if (strlen(text) != n) {
    free(text);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: not a text file (contains NUL bytes)", path);
  }
  JlResult r = jl_scene_parse(text, path, sc, err, errsz);
  free(text);
  return r;
}

void jl_scene_free(JlScene *sc) {
  for (int i = 0; i < sc->nobstacle && sc->obstacle; i++) jl_obstacle_free(&sc->obstacle[i]);
  free(sc->obstacle);
  sc->obstacle = NULL;
  sc->nobstacle = 0;
  for (int i = 0; i < sc->nbody; i++) {
    free(sc->body[i].pin_nodes);
    jl_surface_free(&sc->body[i].mesh_inline);
  }
  free(sc->body);
  sc->body = NULL;
  sc->nbody = 0;
}
