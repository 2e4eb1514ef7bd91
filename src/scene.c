/* Scene loading and model building (src/scene.h).
 *
 * Validation is strict and complete before anything heavy runs: each object
 * is checked against the list of keys it may hold, each value against its
 * type and range, and the first problem is reported as
 *   "<file>: <key path>: <reason>"
 * (e.g. "drop.json: bodies[0].density: must be > 0, got -5"). JSON syntax
 * errors name the line and column. */
#define _POSIX_C_SOURCE 200809L
#include "src/scene.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mesh/shapes.h"

#define SCENE_MAX_BYTES (16 * 1024 * 1024)
#define SCENE_MAX_BODIES 4096
/* Limits on values that size allocations (docs/scenes.md, "Limits on scene
 * values"), chosen so that a scene at every limit still fits a 24 GiB
 * machine; each is checked in double arithmetic before anything is built. */
#define SCENE_MAX_CLOTH_CELLS 1000000   /* nx * ny of one cloth grid */
#define SCENE_MAX_ROPE_SEGMENTS 1000000 /* segments of one chain */
#define SCENE_MAX_ELEMENTS 4000000      /* all generated triangles, cloth triangles and rope segments */
#define SCENE_MAX_TETS 10000000         /* tets a conforming max_volume asks for, per body */

/* parsing context: file name for messages and the error buffer */
typedef struct Ctx {
  const char *file;
  char *err;
  size_t errsz;
} Ctx;

static JlResult bad(const Ctx *c, const char *key, const char *fmt, double v) {
  char reason[256];
  snprintf(reason, sizeof reason, fmt, v);
  return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: %s", c->file, key, reason);
}

/* checks that every key of obj is in the NULL-terminated list `allowed` */
static JlResult check_keys(const Ctx *c, const cJSON *obj, const char *path,
                           const char *const *allowed) {
  for (const cJSON *it = obj->child; it; it = it->next) {
    int known = 0;
    for (const char *const *a = allowed; *a; a++)
      if (it->string && strcmp(it->string, *a) == 0) known = 1;
    if (!known) {
      char list[512] = "";
      for (const char *const *a = allowed; *a; a++) {
        strncat(list, *a, sizeof list - strlen(list) - 1);
        if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
      }
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s%s%s: unknown key (allowed: %s)",
                     c->file, path, *path ? "." : "", it->string ? it->string : "?", list);
    }
    for (const cJSON *o = it->next; o; o = o->next)
      if (o->string && it->string && strcmp(o->string, it->string) == 0)
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s%s%s: key given twice", c->file,
                       path, *path ? "." : "", it->string);
  }
  return JL_OK;
}

static void key_path(char *out, size_t n, const char *path, const char *key) {
  snprintf(out, n, "%s%s%s", path, *path ? "." : "", key);
}

/* reads an optional finite number; lo/hi bounds, lo_open: value must be > lo */
static JlResult get_num(const Ctx *c, const cJSON *obj, const char *path, const char *key,
                        double *out, double lo, int lo_open, double hi) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsNumber(v)) return bad(c, kp, "expected a number", 0);
  double d = v->valuedouble;
  if (!isfinite(d)) return bad(c, kp, "must be a finite number", 0);
  if (lo_open ? !(d > lo) : !(d >= lo)) {
    char fmt[64];
    snprintf(fmt, sizeof fmt, "must be %s %g, got %%g", lo_open ? ">" : ">=", lo);
    return bad(c, kp, fmt, d);
  }
  if (d > hi) {
    char fmt[64];
    snprintf(fmt, sizeof fmt, "must be <= %g, got %%g", hi);
    return bad(c, kp, fmt, d);
  }
  *out = d;
  return JL_OK;
}

static JlResult get_int(const Ctx *c, const cJSON *obj, const char *path, const char *key,
                        int *out, int lo, int hi) {
  double d = *out;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  JlResult r = get_num(c, obj, path, key, &d, lo, 0, hi);
  if (r) return r;
  if (d != floor(d)) {
    char kp[512];
    key_path(kp, sizeof kp, path, key);
    return bad(c, kp, "must be a whole number, got %g", d);
  }
  *out = (int)d;
  return JL_OK;
}

static JlResult get_bool(const Ctx *c, const cJSON *obj, const char *path, const char *key, int *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsBool(v)) return bad(c, kp, "expected true or false", 0);
  *out = cJSON_IsTrue(v);
  return JL_OK;
}

/* reads an optional array of exactly n finite numbers */
static JlResult get_vec(const Ctx *c, const cJSON *obj, const char *path, const char *key,
                        double *out, int n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
    return bad(c, kp, n == 3 ? "expected an array of 3 numbers [x, y, z]" : "expected an array of numbers", 0);
  int i = 0;
  for (const cJSON *e = v->child; e; e = e->next, i++) {
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
      return bad(c, kp, "expected finite numbers", 0);
    out[i] = e->valuedouble;
  }
  return JL_OK;
}

static JlResult get_str(const Ctx *c, const cJSON *obj, const char *path, const char *key,
                        const char **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsString(v) || !v->valuestring) return bad(c, kp, "expected a string", 0);
  *out = v->valuestring;
  return JL_OK;
}

static JlResult get_obj(const Ctx *c, const cJSON *obj, const char *path, const char *key,
                        const cJSON **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = NULL;
  if (!v) return JL_OK;
  char kp[512];
  key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsObject(v)) return bad(c, kp, "expected an object { ... }", 0);
  *out = v;
  return JL_OK;
}

#define TRY(expr)                \
  do {                           \
    JlResult r_ = (expr);        \
    if (r_ != JL_OK) return r_;  \
  } while (0)

/* elements a body's generated shape will have: surface triangles of a box,
 * sphere or torus, triangles of a cloth grid, segments of a chain; 0 for
 * mesh files (their size is capped on import) */
static double shape_triangles(const JlSceneBody *b) {
  switch (b->shape) {
    case JL_SHAPE_BOX: return jl_shape_box_triangles(b->size, b->shape_resolution);
    case JL_SHAPE_SPHERE: return jl_shape_sphere_triangles(b->radius, b->shape_resolution);
    case JL_SHAPE_TORUS: return jl_shape_torus_triangles(b->major, b->minor, b->shape_resolution);
    case JL_SHAPE_GRID: return 2.0 * b->grid_cells[0] * b->grid_cells[1];
    case JL_SHAPE_CHAIN: return b->chain_segments;
    default: return 0.0;
  }
}

/* "shape": { "type": "box"|"sphere"|"torus"|"grid"|"chain", ... } */
static JlResult parse_shape(const Ctx *c, const cJSON *o, const char *path, JlSceneBody *b) {
  static const char *const keys[] = {"type", "size", "radius", "major", "minor", "resolution",
                                     "cells", "length", "segments", NULL};
  static const char *const grid_keys[] = {"type", "size", "cells", NULL};
  static const char *const chain_keys[] = {"type", "length", "segments", NULL};
  TRY(check_keys(c, o, path, keys));
  const char *type = NULL;
  TRY(get_str(c, o, path, "type", &type));
  char kp[512];
  key_path(kp, sizeof kp, path, "type");
  if (!type) return bad(c, kp, "missing (box, sphere, torus, grid or chain)", 0);
  int volume = strcmp(type, "box") == 0 || strcmp(type, "sphere") == 0 || strcmp(type, "torus") == 0;
  if (volume && (cJSON_GetObjectItemCaseSensitive(o, "cells") || cJSON_GetObjectItemCaseSensitive(o, "length") ||
                 cJSON_GetObjectItemCaseSensitive(o, "segments")))
    return bad(c, path, "cells/length/segments belong to the cloth \"grid\" and rope \"chain\" shapes", 0);
  TRY(get_num(c, o, path, "resolution", &b->shape_resolution, 0, 1, 1e6));
  if (strcmp(type, "box") == 0) {
    b->shape = JL_SHAPE_BOX;
    b->size[0] = b->size[1] = b->size[2] = 1;
    TRY(get_vec(c, o, path, "size", b->size, 3));
    for (int i = 0; i < 3; i++) {
      key_path(kp, sizeof kp, path, "size");
      if (!(b->size[i] > 0)) return bad(c, kp, "every size must be > 0, got %g", b->size[i]);
    }
    if (cJSON_GetObjectItemCaseSensitive(o, "radius") || cJSON_GetObjectItemCaseSensitive(o, "major"))
      return bad(c, path, "a box takes \"size\", not radius/major/minor", 0);
  } else if (strcmp(type, "sphere") == 0) {
    b->shape = JL_SHAPE_SPHERE;
    b->radius = 0.5;
    TRY(get_num(c, o, path, "radius", &b->radius, 0, 1, 1e6));
    if (cJSON_GetObjectItemCaseSensitive(o, "size") || cJSON_GetObjectItemCaseSensitive(o, "major"))
      return bad(c, path, "a sphere takes \"radius\", not size/major/minor", 0);
  } else if (strcmp(type, "torus") == 0) {
    b->shape = JL_SHAPE_TORUS;
    b->major = 0.5;
    b->minor = 0.2;
    TRY(get_num(c, o, path, "major", &b->major, 0, 1, 1e6));
    TRY(get_num(c, o, path, "minor", &b->minor, 0, 1, 1e6));
    if (!(b->minor < b->major)) return bad(c, path, "minor must be smaller than major", 0);
    if (cJSON_GetObjectItemCaseSensitive(o, "size") || cJSON_GetObjectItemCaseSensitive(o, "radius"))
      return bad(c, path, "a torus takes \"major\" and \"minor\", not size/radius", 0);
  } else if (strcmp(type, "grid") == 0) {
    /* cloth sheet: "size": [w, h] (m), "cells": [nx, ny] */
    TRY(check_keys(c, o, path, grid_keys));
    b->shape = JL_SHAPE_GRID;
    b->grid_size[0] = b->grid_size[1] = 1;
    b->grid_cells[0] = b->grid_cells[1] = 10;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "size");
    key_path(kp, sizeof kp, path, "size");
    if (v && (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2))
      return bad(c, kp, "expected [width, height] (m)", 0);
    TRY(get_vec(c, o, path, "size", b->grid_size, 2));
    for (int i = 0; i < 2; i++)
      if (!(b->grid_size[i] > 0) || b->grid_size[i] > 1e6)
        return bad(c, kp, "width and height must be in (0, 1e6], got %g", b->grid_size[i]);
    v = cJSON_GetObjectItemCaseSensitive(o, "cells");
    key_path(kp, sizeof kp, path, "cells");
    if (v) {
      if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2) return bad(c, kp, "expected [nx, ny] (whole numbers >= 1)", 0);
      for (int i = 0; i < 2; i++) {
        const cJSON *e = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 1) || e->valuedouble > 2000 ||
            e->valuedouble != floor(e->valuedouble))
          return bad(c, kp, "cell counts must be whole numbers in [1, 2000]", 0);
        b->grid_cells[i] = (int)e->valuedouble;
      }
      double cells = (double)b->grid_cells[0] * b->grid_cells[1];
      if (cells > SCENE_MAX_CLOTH_CELLS)
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: %d x %d is %.3g cells (at most %d per cloth); use fewer cells",
                       c->file, kp, b->grid_cells[0], b->grid_cells[1], cells, SCENE_MAX_CLOTH_CELLS);
    }
  } else if (strcmp(type, "chain") == 0) {
    /* rope or hair strand: "length" (m), "segments" */
    TRY(check_keys(c, o, path, chain_keys));
    b->shape = JL_SHAPE_CHAIN;
    b->chain_length = 1;
    b->chain_segments = 20;
    TRY(get_num(c, o, path, "length", &b->chain_length, 0, 1, 1e6));
    TRY(get_int(c, o, path, "segments", &b->chain_segments, 1, SCENE_MAX_ROPE_SEGMENTS));
  } else {
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: %s: unknown shape '%s' (box, sphere, torus, grid or chain)", c->file, kp, type);
  }
  /* generated surfaces: the triangle count is known before anything is made */
  if (volume) {
    double ntri = shape_triangles(b);
    if (ntri > JL_SHAPE_MAX_TRIANGLES) {
      key_path(kp, sizeof kp, path, "resolution");
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: %s: %g m makes a %s of %.3g triangles (at most %d per generated shape); "
                     "use a coarser resolution", c->file, kp, b->shape_resolution, type, ntri, JL_SHAPE_MAX_TRIANGLES);
    }
  }
  return JL_OK;
}

/* "pin": { "box": [[x0,y0,z0],[x1,y1,z1]], "nodes": [i, ...] } */
static JlResult parse_pin(const Ctx *c, const cJSON *o, const char *path, JlSceneBody *b) {
  static const char *const keys[] = {"box", "nodes", NULL};
  TRY(check_keys(c, o, path, keys));
  char kp[512];
  const cJSON *box = cJSON_GetObjectItemCaseSensitive(o, "box");
  if (box) {
    key_path(kp, sizeof kp, path, "box");
    if (!cJSON_IsArray(box) || cJSON_GetArraySize(box) != 2)
      return bad(c, kp, "expected [[xmin, ymin, zmin], [xmax, ymax, zmax]]", 0);
    for (int k = 0; k < 2; k++) {
      const cJSON *corner = cJSON_GetArrayItem(box, k);
      if (!cJSON_IsArray(corner) || cJSON_GetArraySize(corner) != 3)
        return bad(c, kp, "expected [[xmin, ymin, zmin], [xmax, ymax, zmax]]", 0);
      for (int i = 0; i < 3; i++) {
        const cJSON *e = cJSON_GetArrayItem(corner, i);
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
          return bad(c, kp, "expected finite numbers", 0);
        b->def.pin_box[k][i] = e->valuedouble;
      }
    }
    for (int i = 0; i < 3; i++)
      if (b->def.pin_box[0][i] > b->def.pin_box[1][i])
        return bad(c, kp, "the first corner must be the minimum (xmin <= xmax, ...)", 0);
    b->def.has_pin_box = 1;
  }
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(o, "nodes");
  if (nodes) {
    key_path(kp, sizeof kp, path, "nodes");
    if (!cJSON_IsArray(nodes)) return bad(c, kp, "expected an array of node indices", 0);
    int n = cJSON_GetArraySize(nodes);
    b->pin_nodes = jl_calloc((size_t)n, sizeof(int));
    int i = 0;
    for (const cJSON *e = nodes->child; e; e = e->next, i++) {
      if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > 2e9 ||
          e->valuedouble != floor(e->valuedouble))
        return bad(c, kp, "node indices must be whole numbers >= 0", 0);
      b->pin_nodes[i] = (int)e->valuedouble;
    }
    b->def.npin = n;
    b->def.pin = b->pin_nodes;
  }
  return JL_OK;
}

/* "tetgen": { "mode", "max_volume", "quality", "resolution", "seed" };
 * max_volume and quality belong to conforming mode, resolution and seed to
 * embedded mode: a key of the other mode is an error, not silently ignored */
static JlResult parse_tetgen(const Ctx *c, const cJSON *o, const char *path, JlTetgenDef *t) {
  static const char *const keys[] = {"mode", "max_volume", "quality", "resolution", "seed", NULL};
  static const char *const mode_keys[JL_TETGEN_MODE_COUNT][3] = {{"max_volume", "quality", NULL},
                                                                 {"resolution", "seed", NULL}};
  static const char *const mode_name[JL_TETGEN_MODE_COUNT] = {"conforming", "embedded"};
  TRY(check_keys(c, o, path, keys));
  const char *mode = NULL;
  TRY(get_str(c, o, path, "mode", &mode));
  if (mode) {
    if (strcmp(mode, "conforming") == 0)
      t->mode = JL_TETGEN_CONFORMING;
    else if (strcmp(mode, "embedded") == 0)
      t->mode = JL_TETGEN_EMBEDDED;
    else
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: %s.mode: unknown mode '%s' (conforming or embedded)", c->file, path, mode);
  }
  int other = t->mode == JL_TETGEN_CONFORMING ? JL_TETGEN_EMBEDDED : JL_TETGEN_CONFORMING;
  for (const char *const *k = mode_keys[other]; *k; k++)
    if (cJSON_GetObjectItemCaseSensitive(o, *k)) {
      char kp[512];
      key_path(kp, sizeof kp, path, *k);
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: %s applies to mode \"%s\" only; this body is meshed in mode \"%s\"%s", c->file, kp,
                     mode_name[other], mode_name[t->mode], mode ? "" : " (the default)");
    }
  TRY(get_num(c, o, path, "max_volume", &t->max_volume, 0, 0, 1e30));
  TRY(get_num(c, o, path, "quality", &t->quality, 1.1, 0, 100));
  TRY(get_num(c, o, path, "resolution", &t->resolution, 0, 1, 1e6));
  int seed = (int)t->seed;
  TRY(get_int(c, o, path, "seed", &seed, 0, 2147483647));
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

static JlResult parse_body(const Ctx *c, const cJSON *o, int index, const char *scene_dir,
                           JlSceneBody *b) {
  static const char *const keys[] = {
      "name", "kind", "mesh", "shape", "tetgen", "density", "stiffness", "young_modulus", "damping",
      "shear_stiffness", "bend_stiffness", "stretch_limit", "translate", "rotate_deg", "scale",
      "velocity", "pin", "self_collision", "thickness", "radius", "poisson_ratio", "volume_stiffness", "calibrate", NULL};
  static const char *const volume_only[] = {"tetgen", "young_modulus", "poisson_ratio", "volume_stiffness", "calibrate",
                                            NULL};
  static const char *const cloth_only[] = {"shear_stiffness", "bend_stiffness", "stretch_limit", "thickness", "radius", NULL};
  char path[64];
  snprintf(path, sizeof path, "bodies[%d]", index);
  if (!cJSON_IsObject(o)) return bad(c, path, "expected an object { ... }", 0);
  TRY(check_keys(c, o, path, keys));

  b->def = jl_default_body_def();
  b->tetgen = jl_default_tetgen_def();
  b->scale = 1.0;
  b->cloth = jl_default_cloth_def();
  snprintf(b->def.name, sizeof b->def.name, "body%d", index);

  /* "kind" first: it decides which keys, shapes and units apply */
  const char *kind = NULL;
  char kp[512];
  TRY(get_str(c, o, path, "kind", &kind));
  b->kind = JL_BODY_VOLUME;
  if (kind) {
    if (strcmp(kind, "cloth") == 0)
      b->kind = JL_BODY_CLOTH;
    else if (strcmp(kind, "rope") == 0)
      b->kind = JL_BODY_ROPE;
    else if (strcmp(kind, "volume") != 0)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.kind: unknown kind '%s' (volume, cloth or rope)",
                     c->file, path, kind);
  }
  const char *const *forbidden = b->kind == JL_BODY_VOLUME ? cloth_only : volume_only;
  for (const char *const *k = forbidden; *k; k++)
    if (cJSON_GetObjectItemCaseSensitive(o, *k)) {
      key_path(kp, sizeof kp, path, *k);
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: only %s bodies take this key (this one is %s)",
                     c->file, kp, b->kind == JL_BODY_VOLUME ? "cloth and rope" : "volume",
                     b->kind == JL_BODY_VOLUME ? "a volume" : b->kind == JL_BODY_CLOTH ? "cloth" : "a rope");
    }
  if (b->kind != JL_BODY_VOLUME) {
    b->cloth.kind = b->kind;
    /* areal (kg/m^2) or linear (kg/m) density of thin fabric and string */
    b->def.density = b->kind == JL_BODY_CLOTH ? 0.2 : 0.05;
  }

  const char *name = NULL, *mesh = NULL;
  TRY(get_str(c, o, path, "name", &name));
  if (name) {
    key_path(kp, sizeof kp, path, "name");
    if (!*name || strlen(name) >= JL_NAME_MAX) return bad(c, kp, "must have 1 to 63 characters", 0);
    for (const char *p = name; *p; p++)
      if (*p == '/' || *p == '\\' || (unsigned char)*p < 32)
        return bad(c, kp, "must not contain '/', '\\' or control characters (it names output files)", 0);
    snprintf(b->def.name, sizeof b->def.name, "%s", name);
  }

  TRY(get_str(c, o, path, "mesh", &mesh));
  const cJSON *shape = NULL, *tetgen = NULL, *pin = NULL;
  TRY(get_obj(c, o, path, "shape", &shape));
  if (mesh && shape) return bad(c, path, "give either \"mesh\" or \"shape\", not both", 0);
  if (!mesh && !shape) return bad(c, path, "needs a \"mesh\" file or a \"shape\"", 0);
  if (mesh && b->kind == JL_BODY_ROPE)
    return bad(c, path, "a rope takes a \"shape\" of type \"chain\", not a \"mesh\"", 0);
  if (mesh) {
    if (!*mesh) return bad(c, path, "\"mesh\" is empty", 0);
    int len = mesh[0] == '/'
                  ? snprintf(b->mesh_path, sizeof b->mesh_path, "%s", mesh)
                  : snprintf(b->mesh_path, sizeof b->mesh_path, "%s/%s", scene_dir, mesh);
    if (len < 0 || (size_t)len >= sizeof b->mesh_path) return bad(c, path, "\"mesh\" path too long", 0);
    struct stat st;
    if (stat(b->mesh_path, &st) != 0 || !S_ISREG(st.st_mode))
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.mesh: cannot open '%s'%s", c->file,
                     path, b->mesh_path, stat(b->mesh_path, &st) == 0 ? " (not a file)" : "");
  } else {
    char sp[96];
    snprintf(sp, sizeof sp, "%s.shape", path);
    TRY(parse_shape(c, shape, sp, b));
    static const char *const want[JL_BODY_KIND_COUNT] = {"box, sphere or torus", "grid", "chain"};
    int ok = b->kind == JL_BODY_VOLUME ? b->shape == JL_SHAPE_BOX || b->shape == JL_SHAPE_SPHERE || b->shape == JL_SHAPE_TORUS
             : b->kind == JL_BODY_CLOTH ? b->shape == JL_SHAPE_GRID
                                        : b->shape == JL_SHAPE_CHAIN;
    if (!ok) {
      key_path(kp, sizeof kp, sp, "type");
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: a %s body takes a %s shape%s", c->file, kp,
                     b->kind == JL_BODY_VOLUME ? "volume" : b->kind == JL_BODY_CLOTH ? "cloth" : "rope", want[b->kind],
                     b->kind == JL_BODY_VOLUME ? " (set \"kind\" for cloth or ropes)" : "");
    }
  }

  TRY(get_obj(c, o, path, "tetgen", &tetgen));
  if (tetgen) {
    char tp[96];
    snprintf(tp, sizeof tp, "%s.tetgen", path);
    TRY(parse_tetgen(c, tetgen, tp, &b->tetgen));
  }
  TRY(get_num(c, o, path, "density", &b->def.density, 0, 1, 1e9));
  if (b->kind == JL_BODY_VOLUME) {
    TRY(get_num(c, o, path, "stiffness", &b->def.stiffness, 0, 1, 1e15));
  } else {
    TRY(get_num(c, o, path, "stiffness", &b->cloth.stretch, 0, 1, 1e15));
    if (b->kind == JL_BODY_ROPE && cJSON_GetObjectItemCaseSensitive(o, "shear_stiffness")) {
      key_path(kp, sizeof kp, path, "shear_stiffness");
      return bad(c, kp, "a rope has no shear springs (only stiffness and bend_stiffness)", 0);
    }
    TRY(get_num(c, o, path, "shear_stiffness", &b->cloth.shear, 0, 0, 1e15));
    TRY(get_num(c, o, path, "bend_stiffness", &b->cloth.bend, 0, 0, 1e15));
    TRY(get_num(c, o, path, "stretch_limit", &b->cloth.stretch_limit, 0, 0, 10));
    /* contact thickness: cloth "thickness" (full, m), rope "radius" (m) */
    const char *own = b->kind == JL_BODY_CLOTH ? "thickness" : "radius", *other = b->kind == JL_BODY_CLOTH ? "radius" : "thickness";
    if (cJSON_GetObjectItemCaseSensitive(o, other)) {
      key_path(kp, sizeof kp, path, other);
      return bad(c, kp, b->kind == JL_BODY_CLOTH ? "cloth takes \"thickness\" (m), not \"radius\""
                                                 : "a rope takes \"radius\" (m), not \"thickness\"", 0);
    }
    double th = b->kind == JL_BODY_CLOTH ? 2.0 * JL_CLOTH_RADIUS : JL_ROPE_RADIUS;
    TRY(get_num(c, o, path, own, &th, 0, 0, 1e3));
    b->cloth.radius = b->kind == JL_BODY_CLOTH ? 0.5 * th : th;
  }
  TRY(get_num(c, o, path, "young_modulus", &b->def.young_modulus, 0, 1, 1e15));
  TRY(get_num(c, o, path, "poisson_ratio", &b->def.poisson_ratio, 0, 0, 0.5));
  if (cJSON_GetObjectItemCaseSensitive(o, "poisson_ratio")) {
    char nkp[96];
    key_path(nkp, sizeof nkp, path, "poisson_ratio");
    if (!(b->def.poisson_ratio < 0.5))
      return bad(c, nkp, "must be < 0.5 (0.5 is an incompressible solid, which springs cannot model), got %g",
                 b->def.poisson_ratio);
    if (!cJSON_GetObjectItemCaseSensitive(o, "young_modulus"))
      return bad(c, nkp, "needs young_modulus (with a uniform stiffness, set volume_stiffness in Pa instead)", 0);
  }
  TRY(get_num(c, o, path, "volume_stiffness", &b->def.volume_stiffness, 0, 0, 1e15));
  TRY(get_bool(c, o, path, "calibrate", &b->def.calibrate));
  TRY(get_num(c, o, path, "damping", &b->def.damping, 0, 0, 1e15));
  TRY(get_vec(c, o, path, "translate", b->translate, 3));
  TRY(get_vec(c, o, path, "rotate_deg", b->rotate_deg, 3));
  TRY(get_num(c, o, path, "scale", &b->scale, 0, 1, 1e9));
  TRY(get_vec(c, o, path, "velocity", b->def.velocity, 3));
  TRY(get_bool(c, o, path, "self_collision", &b->def.self_collision));
  TRY(get_obj(c, o, path, "pin", &pin));
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

/* "obstacles": [ { "type": "box"|"plane"|"sphere"|"capsule"|"hull", ... } ] */
static JlResult parse_obstacle(const Ctx *c, const cJSON *o, int index, const char *scene_dir, JlObstacle *ob) {
  static const char *const keys[] = {"type", "size", "radius", "length", "translate", "rotate_deg",
                                     "mesh", "scale", NULL};
  char path[64], kp[512];
  snprintf(path, sizeof path, "obstacles[%d]", index);
  if (!cJSON_IsObject(o)) return bad(c, path, "expected an object { ... }", 0);
  TRY(check_keys(c, o, path, keys));
  *ob = jl_default_obstacle();
  const char *type = NULL, *mesh = NULL;
  TRY(get_str(c, o, path, "type", &type));
  key_path(kp, sizeof kp, path, "type");
  if (!type) return bad(c, kp, "missing (plane, box, sphere, capsule or hull)", 0);
  ob->type = jl_obstacle_type_parse(type);
  if (ob->type == JL_OBSTACLE_COUNT)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: unknown obstacle type '%s' (plane, box, sphere, capsule, hull)",
                   c->file, kp, type);
  TRY(get_vec(c, o, path, "size", ob->size, 3));
  for (int i = 0; i < 3; i++) {
    key_path(kp, sizeof kp, path, "size");
    if (!(ob->size[i] > 0)) return bad(c, kp, "every size must be > 0, got %g", ob->size[i]);
  }
  TRY(get_num(c, o, path, "radius", &ob->radius, 0, 1, 1e9));
  TRY(get_num(c, o, path, "length", &ob->length, 0, 0, 1e9));
  TRY(get_vec(c, o, path, "translate", ob->translate, 3));
  double rot[3] = {0, 0, 0}, scale = 1.0;
  TRY(get_vec(c, o, path, "rotate_deg", rot, 3));
  jl_obstacle_set_rotation(ob, rot);
  TRY(get_num(c, o, path, "scale", &scale, 0, 1, 1e9));
  TRY(get_str(c, o, path, "mesh", &mesh));
  if (ob->type == JL_OBSTACLE_HULL) {
    if (!mesh || !*mesh) return bad(c, path, "a hull needs a \"mesh\" file (its vertices' convex hull is the obstacle)", 0);
    char file[4096];
    int len = mesh[0] == '/' ? snprintf(file, sizeof file, "%s", mesh) : snprintf(file, sizeof file, "%s/%s", scene_dir, mesh);
    if (len < 0 || (size_t)len >= sizeof file) return bad(c, path, "\"mesh\" path too long", 0);
    JlSurface surf;
    char msg[1024];
    if (jl_surface_load(file, &surf, msg, sizeof msg) != JL_OK)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s.mesh: %s", c->file, path, msg);
    if (surf.nvert < 4) {
      jl_surface_free(&surf);
      return bad(c, path, "the hull's mesh needs at least 4 vertices", 0);
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
                "%s: %s.mesh: '%s' vertex %d is not finite (%g %g %g%s); a hull needs finite points", c->file,
                path, mesh, i, v[0], v[1], v[2], isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) ? ", after scale" : "");
        jl_surface_free(&surf);
        return JL_ERR_INPUT;
      }
    }
    jl_surface_free(&surf);
  } else if (mesh) {
    return bad(c, path, "only a \"hull\" takes a \"mesh\"", 0);
  }
  return JL_OK;
}

/* Time settings that a run can honour: a given dt no longer than one output
 * frame (a longer one used to be cut to 1/fps silently; the default is still
 * cut, see docs/scenes.md), at most 1e7 steps per frame and 1e8 frames, so
 * that the step and frame counts are sane ints. */
static JlResult check_timing(const Ctx *c, const JlScene *sc) {
  double frame = 1.0 / sc->fps;
  if (sc->dt_set && sc->dt > frame * (1.0 + 1e-9))
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: dt: %g s is longer than one output frame (1/fps = %g s); lower dt or raise fps",
                   c->file, sc->dt, frame);
  if (frame / sc->dt > 1e7)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: dt: %g s%s would need %.3g steps per output frame of 1/fps = %g s (at most 1e7); "
                   "raise dt or fps", c->file, sc->dt, sc->dt_set ? "" : " (the default)", frame / sc->dt, frame);
  if (sc->duration * sc->fps > 1e8)
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                   "%s: duration, fps: %g s at %g frames per second is %.3g output frames (at most 1e8); "
                   "shorten duration or lower fps", c->file, sc->duration, sc->fps, sc->duration * sc->fps);
  return JL_OK;
}

static JlResult parse_root(const Ctx *c, const cJSON *root, JlScene *sc) {
  static const char *const keys[] = {"description", "duration", "fps", "dt", "integrator",
                                     "gravity", "solver", "adaptive", "ground", "bodies",
                                     "threads", "contact", "obstacles", "wind", NULL};
  if (!cJSON_IsObject(root))
    return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: the scene must be a JSON object { ... }", c->file);
  TRY(check_keys(c, root, "", keys));

  const char *desc = NULL, *integ = NULL;
  TRY(get_str(c, root, "", "description", &desc));
  TRY(get_num(c, root, "", "duration", &sc->duration, 0, 1, 1e7));
  TRY(get_num(c, root, "", "fps", &sc->fps, 0, 1, 1e6));
  TRY(get_str(c, root, "", "integrator", &integ));
  if (integ) {
    sc->step.integrator = jl_integrator_parse(integ);
    if (sc->step.integrator == JL_INTEGRATOR_COUNT)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: integrator: unknown integrator '%s' (implicit, symplectic, euler, "
                     "midpoint, rk4, verlet)", c->file, integ);
  }
  sc->dt = 1.0 / 60.0; /* explicit integrators without dt: jl_world_stable_dt at run time */
  TRY(get_num(c, root, "", "dt", &sc->dt, 0, 1, 1e6));
  sc->dt_set = cJSON_GetObjectItemCaseSensitive(root, "dt") != NULL;
  TRY(check_timing(c, sc));
  TRY(get_vec(c, root, "", "gravity", sc->world.gravity, 3));
  TRY(get_bool(c, root, "", "adaptive", &sc->step.adaptive));
  TRY(get_int(c, root, "", "threads", &sc->step.threads, 0, JL_MAX_THREADS));

  const cJSON *solver = NULL, *ground = NULL;
  TRY(get_obj(c, root, "", "solver", &solver));
  if (solver) {
    static const char *const skeys[] = {"tolerance", "max_iterations", "max_strain",
                                        "max_strain_change", NULL};
    TRY(check_keys(c, solver, "solver", skeys));
    TRY(get_num(c, solver, "solver", "tolerance", &sc->step.tolerance, 0, 1, 1));
    TRY(get_int(c, solver, "solver", "max_iterations", &sc->step.max_iterations, 1, 1000000));
    TRY(get_num(c, solver, "solver", "max_strain", &sc->step.max_strain, 0, 1, 1e6));
    TRY(get_num(c, solver, "solver", "max_strain_change", &sc->step.max_strain_change, 0, 1, 1e6));
  }
  TRY(get_obj(c, root, "", "ground", &ground));
  if (ground) {
    static const char *const gkeys[] = {"y", "friction", "stiffness", "damping", "spring_scale", NULL};
    TRY(check_keys(c, ground, "ground", gkeys));
    sc->world.has_ground = 1;
    TRY(get_num(c, ground, "ground", "y", &sc->world.ground_y, -1e9, 0, 1e9));
    TRY(get_num(c, ground, "ground", "friction", &sc->world.ground_friction, 0, 0, 1e3));
    TRY(get_num(c, ground, "ground", "stiffness", &sc->world.ground_stiffness, 0, 1, 1e15));
    TRY(get_num(c, ground, "ground", "damping", &sc->world.ground_damping, 0, 0, 1e15));
    TRY(get_num(c, ground, "ground", "spring_scale", &sc->world.ground_spring_scale, 0, 0, 1e6));
  }

  const cJSON *contact = NULL;
  TRY(get_obj(c, root, "", "contact", &contact));
  if (contact) {
    static const char *const ckeys[] = {"stiffness", "damping", "friction", "cell_size", "spring_scale",
                                        "push_out_speed", NULL};
    TRY(check_keys(c, contact, "contact", ckeys));
    TRY(get_num(c, contact, "contact", "stiffness", &sc->world.contact_stiffness, 0, 1, 1e15));
    TRY(get_num(c, contact, "contact", "damping", &sc->world.contact_damping, 0, 0, 1e15));
    TRY(get_num(c, contact, "contact", "friction", &sc->world.contact_friction, 0, 0, 1e3));
    TRY(get_num(c, contact, "contact", "cell_size", &sc->world.contact_cell, 0, 1, 1e6));
    TRY(get_num(c, contact, "contact", "spring_scale", &sc->world.contact_spring_scale, 0, 0, 1e6));
    TRY(get_num(c, contact, "contact", "push_out_speed", &sc->world.contact_push_out, 0, 1, 1e6));
  }
  /* "wind": air moving past cloth (src/wind.h); its presence turns air drag on */
  const cJSON *wind = NULL;
  TRY(get_obj(c, root, "", "wind", &wind));
  if (wind) {
    static const char *const wkeys[] = {"velocity", "gust", "period", "drag", NULL};
    TRY(check_keys(c, wind, "wind", wkeys));
    sc->world.wind_drag = 1.2;
    TRY(get_vec(c, wind, "wind", "velocity", sc->world.wind, 3));
    TRY(get_num(c, wind, "wind", "gust", &sc->world.wind_gust, 0, 0, 100));
    TRY(get_num(c, wind, "wind", "period", &sc->world.wind_gust_period, 0, 1, 1e6));
    TRY(get_num(c, wind, "wind", "drag", &sc->world.wind_drag, 0, 0, 1e6));
  }
  const cJSON *obstacles = cJSON_GetObjectItemCaseSensitive(root, "obstacles");
  if (obstacles) {
    if (!cJSON_IsArray(obstacles)) return bad(c, "obstacles", "expected an array [ {...}, ... ]", 0);
    int no = cJSON_GetArraySize(obstacles);
    if (no > SCENE_MAX_BODIES) return bad(c, "obstacles", "at most %g obstacles", SCENE_MAX_BODIES);
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
  if (!cJSON_IsArray(bodies)) return bad(c, "bodies", "expected an array [ {...}, ... ]", 0);
  int n = cJSON_GetArraySize(bodies);
  if (n < 1) return bad(c, "bodies", "needs at least one body", 0);
  if (n > SCENE_MAX_BODIES) return bad(c, "bodies", "at most %g bodies", SCENE_MAX_BODIES);
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
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                       "%s: bodies[%d].name: '%s' is already the name of bodies[%d]", c->file, i,
                       sc->body[i].def.name, k);
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

JlResult jl_scene_parse(const char *text, const char *path, JlScene *sc, char *err, size_t errsz) {
  scene_defaults(sc);
  snprintf(sc->path, sizeof sc->path, "%s", path);
  Ctx c = {path, err, errsz};
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
  if (st.st_size > SCENE_MAX_BYTES)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: scene file larger than 16 MiB", path);
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
  for (int i = 0; i < sc->nbody; i++) free(sc->body[i].pin_nodes);
  free(sc->body);
  sc->body = NULL;
  sc->nbody = 0;
}

void jl_transform_points(double *p, int n, double scale, const double rotate_deg[3],
                         const double translate[3]) {
  /* R = Rz * Ry * Rx: rotate about world x first, then y, then z */
  const double d2r = acos(-1.0) / 180.0;
  double cx = cos(rotate_deg[0] * d2r), sx = sin(rotate_deg[0] * d2r);
  double cy = cos(rotate_deg[1] * d2r), sy = sin(rotate_deg[1] * d2r);
  double cz = cos(rotate_deg[2] * d2r), sz = sin(rotate_deg[2] * d2r);
  double R[3][3] = {
      {cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
      {sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
      {-sy, cy * sx, cy * cx}};
  for (int i = 0; i < n; i++) {
    double q[3] = {p[3 * i] * scale, p[3 * i + 1] * scale, p[3 * i + 2] * scale};
    for (int r = 0; r < 3; r++)
      p[3 * i + r] = R[r][0] * q[0] + R[r][1] * q[1] + R[r][2] * q[2] + translate[r];
  }
}

/* surface of one body in world coordinates, validated */
static JlResult body_surface(const JlSceneBody *b, JlSurface *s, FILE *log, char *err, size_t errsz) {
  switch (b->shape) {
    case JL_SHAPE_BOX: jl_shape_box(b->size, b->shape_resolution, s); break;
    case JL_SHAPE_SPHERE: jl_shape_sphere(b->radius, b->shape_resolution, s); break;
    case JL_SHAPE_TORUS: jl_shape_torus(b->major, b->minor, b->shape_resolution, s); break;
    default: {
      char msg[1024];
      JlResult r = jl_surface_load(b->mesh_path, s, msg, sizeof msg);
      if (r) return jl_fail(err, errsz, r, "body '%s': %s", b->def.name, msg);
    }
  }
  jl_transform_points(s->vert, s->nvert, b->scale, b->rotate_deg, b->translate);
  JlMeshReport rep;
  jl_surface_validate(s, b->mesh_path[0] ? b->mesh_path : b->def.name, &rep);
  if (!rep.ok) {
    char msg[2048];
    jl_report_errors(&rep, b->mesh_path[0] ? b->mesh_path : b->def.name, msg, sizeof msg);
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': cannot tetrahedralize:\n%s", b->def.name, msg);
  }
  for (int k = 0; k < rep.nfinding && log; k++)
    if (rep.finding[k].severity == JL_SEV_WARNING)
      fprintf(log, "jelly: warning: body '%s': %s\n", b->def.name, rep.finding[k].text);
  return JL_OK;
}

/* one cloth or rope body as a one-body model: generated or loaded topology,
 * transformed to world coordinates */
static JlResult build_cloth_body(const JlSceneBody *b, const JlWorldDef *wd, JlModel *m, char *err, size_t errsz) {
  JlClothMesh cm;
  char msg[2048];
  JlResult r;
  if (b->shape == JL_SHAPE_GRID) {
    r = jl_cloth_grid(&cm, b->grid_size[0], b->grid_size[1], b->grid_cells[0], b->grid_cells[1], msg, sizeof msg);
  } else if (b->shape == JL_SHAPE_CHAIN) {
    r = jl_cloth_chain(&cm, b->chain_length, b->chain_segments, msg, sizeof msg);
  } else {
    JlSurface s;
    r = jl_surface_load(b->mesh_path, &s, msg, sizeof msg);
    if (!r) {
      r = jl_cloth_from_surface(&cm, &s, b->mesh_path, msg, sizeof msg);
      jl_surface_free(&s);
    }
  }
  if (r) return jl_fail(err, errsz, r, "body '%s': %s", b->def.name, msg);
  jl_transform_points(cm.node, cm.nnode, b->scale, b->rotate_deg, b->translate);
  /* rope lengths and cloth areas scale with the body */
  double f = b->kind == JL_BODY_ROPE ? b->scale : b->scale * b->scale;
  for (int i = 0; i < cm.nnode; i++) cm.measure[i] *= f;
  r = jl_model_build_cloth(m, &cm, &b->def, &b->cloth, wd, err, errsz);
  jl_cloth_free(&cm);
  return r;
}

/* Warns about the bounds a conforming body's mesh misses (jl_tetmesh_check):
 * tets above max_volume (only if bisection hit its limits), or tets above the
 * radius-edge bound and above 2, what Delaunay refinement guarantees (a
 * sphere asked for 1.5 gets a few tets at up to 1.76, not worth a warning on
 * every run). The mesh is still usable; the user should know. */
static void log_mesh_bounds(FILE *log, const JlSceneBody *b, int index, const JlTetMesh *t) {
  JlTetCheck c;
  jl_tetmesh_check(t, &b->tetgen, &c);
  if (c.over_volume > 0)
    fprintf(log,
            "jelly: warning: body '%s': bodies[%d].tetgen.max_volume %g m^3 not met: %d of %d tets are larger "
            "(largest %.3g m^3, %.3gx)\n",
            b->def.name, index, b->tetgen.max_volume, c.over_volume, t->ntet, c.largest_volume,
            c.largest_volume / b->tetgen.max_volume);
  if (c.over_guarantee > 0)
    fprintf(log,
            "jelly: warning: body '%s': bodies[%d].tetgen.quality %g not met: %d of %d tets have a larger "
            "radius-edge ratio, %d of them above %g (largest %.3g); TetGen leaves such tets next to small angles "
            "of the surface\n",
            b->def.name, index, b->tetgen.quality, c.over_quality, t->ntet, c.over_guarantee,
            fmax(b->tetgen.quality, JL_TET_RATIO_GUARANTEE), c.largest_ratio);
}

/* Volumes only: one jl_model_build over all bodies. With cloth or ropes:
 * each run of consecutive volume bodies is one jl_model_build, each cloth or
 * rope body one jl_model_build_cloth, joined in scene order by
 * jl_model_concat (same JlWorldDef for all). */
JlResult jl_scene_build(const JlScene *sc, JlModel *m, FILE *log, char *err, size_t errsz) {
  int n = sc->nbody;
  JlSurface *surf = jl_calloc((size_t)n, sizeof *surf);
  JlTetMesh *tets = jl_calloc((size_t)n, sizeof *tets);
  JlBodyDef *defs = jl_calloc((size_t)n, sizeof *defs);
  JlModel *parts = jl_calloc((size_t)n, sizeof *parts);
  int nparts = 0, all_volume = 1;
  for (int i = 0; i < n; i++) all_volume &= sc->body[i].kind == JL_BODY_VOLUME;
  JlWorldDef wd = sc->world;
  wd.nobstacle = sc->nobstacle;
  wd.obstacle = sc->obstacle;
  JlResult r = JL_OK;
  for (int i = 0; i < n && r == JL_OK; i++) {
    const JlSceneBody *b = &sc->body[i];
    defs[i] = b->def;
    char msg[3072];
    if (b->kind != JL_BODY_VOLUME) {
      r = build_cloth_body(b, &wd, &parts[nparts], msg, sizeof msg);
      if (r) {
        r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
        break;
      }
      nparts++;
      continue;
    }
    r = body_surface(b, &surf[i], log, msg, sizeof msg);
    if (r) {
      r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
      break;
    }
    /* every tet is at most max_volume, so volume / max_volume tets at least */
    if (b->tetgen.mode == JL_TETGEN_CONFORMING && b->tetgen.max_volume > 0) {
      double want = jl_surface_volume(&surf[i]) / b->tetgen.max_volume;
      if (want > SCENE_MAX_TETS) {
        r = jl_fail(err, errsz, JL_ERR_INPUT,
                    "%s: bodies[%d].tetgen.max_volume: %g m^3 in body '%s' of %g m^3 asks for at least %.3g tets "
                    "(at most %d per body); raise max_volume",
                    sc->path, i, b->tetgen.max_volume, b->def.name, jl_surface_volume(&surf[i]), want, SCENE_MAX_TETS);
        break;
      }
    }
    r = jl_tetgen_build(&surf[i], &b->tetgen, &tets[i], msg, sizeof msg);
    if (r) {
      r = jl_fail(err, errsz, r, "%s: body '%s': %s", sc->path, b->def.name, msg);
      break;
    }
    if (log) log_mesh_bounds(log, b, i, &tets[i]);
    /* the end of a run of volume bodies: build them together */
    if (!all_volume && (i + 1 == n || sc->body[i + 1].kind != JL_BODY_VOLUME)) {
      int first = i;
      while (first > 0 && sc->body[first - 1].kind == JL_BODY_VOLUME) first--;
      r = jl_model_build(&parts[nparts], i + 1 - first, tets + first, surf + first, defs + first, &wd, msg,
                         sizeof msg);
      if (r) {
        r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
        break;
      }
      nparts++;
    }
  }
  if (r == JL_OK) {
    char msg[1024];
    r = all_volume ? jl_model_build(m, n, tets, surf, defs, &wd, msg, sizeof msg)
                   : jl_model_concat(m, nparts, parts, msg, sizeof msg);
    if (r) r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
  }
  for (int i = 0; i < n; i++) {
    jl_surface_free(&surf[i]);
    jl_tetmesh_free(&tets[i]);
  }
  for (int p = 0; p < nparts; p++) jl_model_free(&parts[p]);
  free(parts);
  free(surf);
  free(tets);
  free(defs);
  return r;
}
