/* What the parts of the scene loader share (src/scene.c parses and
 * validates, src/scene_json.c reads typed JSON values with messages,
 * src/scene_build.c builds the model): the limits on scene values, the
 * parsing context and the value readers. Private to those three files. */
#ifndef JL_SRC_SCENE_INTERNAL_H
#define JL_SRC_SCENE_INTERNAL_H

#include <cjson/cJSON.h>

#include "src/scene.h"

#define SCENE_MAX_BYTES  (16 * 1024 * 1024)
#define SCENE_MAX_BODIES 4096
/* Limits on values that size allocations (docs/scenes.md, "Limits on scene
 * values"), chosen so that a scene at every limit still fits a 24 GiB
 * machine; each is checked in double arithmetic before anything is built. */
#define SCENE_MAX_CLOTH_CELLS   1000000  /* nx * ny of one cloth grid */
#define SCENE_MAX_ROPE_SEGMENTS 1000000  /* segments of one chain */
#define SCENE_MAX_ELEMENTS      4000000  /* all generated triangles, cloth triangles and rope segments */
#define SCENE_MAX_TETS          10000000 /* tets a conforming max_volume asks for, per body */

/* parsing context: file name for messages and the error buffer */
typedef struct JlSceneCtx {
  const char *file;
  char *err;
  size_t errsz;
} JlSceneCtx;

/* "<file>: <key>: <reason>" with fmt's one %g (or none) formatted from v; JL_ERR_INPUT */
JlResult jl_scene_bad(const JlSceneCtx *c, const char *key, const char *fmt, double v);
/* checks that every key of obj is in the NULL-terminated list `allowed`, and none is given twice */
JlResult jl_scene_check_keys(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *const *allowed);
/* "path.key" (or "key" at the root) into out */
void jl_scene_key_path(char *out, size_t n, const char *path, const char *key);
/* Optional values of obj: an absent key leaves *out as it is. A present one
 * must have the type (and range) asked for, else JL_ERR_INPUT naming it. */
/* a finite number in [lo, hi] (lo_open: > lo) */
JlResult jl_scene_get_num(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, double *out,
                          double lo, int lo_open, double hi);
/* a whole number in [lo, hi] */
JlResult jl_scene_get_int(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, int *out, int lo,
                          int hi);
JlResult jl_scene_get_bool(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, int *out);
/* reads setting s (src/settings.h) of obj into struct dst, by its type and within its range */
JlResult jl_scene_get_setting(const JlSceneCtx *c, const cJSON *obj, const char *path, const JlSetting *s, void *dst);
/* every row of table t in `section` (but the key `skip`, may be NULL) */
JlResult jl_scene_get_settings(const JlSceneCtx *c, const cJSON *obj, const char *path, const JlSettingTable *t,
                               const char *section, const char *skip, void *dst);
/* out := own keys (NULL-terminated, may be NULL) + the keys of t's rows in `section`, NULL-terminated
 * (at most cap - 1 keys); returns the count */
int jl_scene_table_keys(const char *const *own, const JlSettingTable *t, const char *section, const char **out,
                        int cap);
/* an array of exactly n finite numbers */
JlResult jl_scene_get_vec(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, double *out, int n);
/* a string (pointing into obj) */
JlResult jl_scene_get_str(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, const char **out);
/* an object ({ ... }); *out = NULL when absent */
JlResult jl_scene_get_obj(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, const cJSON **out);

/* returns from the calling function with expr's result when it is not JL_OK */
#define TRY(expr)               \
  do {                          \
    JlResult r_ = (expr);       \
    if (r_ != JL_OK) return r_; \
  } while (0)

#endif
