/* Typed reads of scene JSON values (src/scene_internal.h): each reader
 * takes an object, a key path for messages and a range, leaves the output
 * alone when the key is absent and otherwise answers a value of the wrong
 * type or range with "<file>: <key path>: <reason>" (JL_ERR_INPUT), e.g.
 * "drop.json: bodies[0].density: must be > 0, got -5". Keys are
 * case-sensitive; unknown and repeated keys are errors (jl_scene_check_keys),
 * so a typo never silently falls back to a default; an unknown key close to an
 * allowed one is told which ("did you mean 'density'?", src/suggest.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/scene_internal.h"
#include "src/suggest.h"

JlResult jl_scene_bad(const JlSceneCtx *c, const char *key, const char *fmt, double v) {
  char reason[256];
  snprintf(reason, sizeof reason, fmt, v);
  return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s: %s", c->file, key, reason);
}

/* checks that every key of obj is in the NULL-terminated list `allowed` */
JlResult jl_scene_check_keys(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *const *allowed) {
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
      /* the allowed key the typed one is closest to (src/suggest.h), when one is close */
      const char *nearest = it->string ? jl_suggest(it->string, allowed) : NULL;
      char hint[JL_SUGGEST_MAX + 24] = "";
      if (nearest) snprintf(hint, sizeof hint, "did you mean '%s'? ", nearest);
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s%s%s: unknown key (%sallowed: %s)", c->file, path,
                     *path ? "." : "", it->string ? it->string : "?", hint, list);
    }
    for (const cJSON *o = it->next; o; o = o->next)
      if (o->string && it->string && strcmp(o->string, it->string) == 0)
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: %s%s%s: key given twice", c->file, path, *path ? "." : "",
                       it->string);
  }
  return JL_OK;
}

void jl_scene_key_path(char *out, size_t n, const char *path, const char *key) {
  snprintf(out, n, "%s%s%s", path, *path ? "." : "", key);
}

/* reads an optional finite number; lo/hi bounds, lo_open: value must be > lo */
JlResult jl_scene_get_num(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, double *out,
                          double lo, int lo_open, double hi) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  jl_scene_key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsNumber(v)) return jl_scene_bad(c, kp, "expected a number", 0);
  double d = v->valuedouble;
  if (!isfinite(d)) return jl_scene_bad(c, kp, "must be a finite number", 0);
  if (lo_open ? !(d > lo) : !(d >= lo)) {
    char fmt[64];
    snprintf(fmt, sizeof fmt, "must be %s %g, got %%g", lo_open ? ">" : ">=", lo);
    return jl_scene_bad(c, kp, fmt, d);
  }
  if (d > hi) {
    char fmt[64];
    snprintf(fmt, sizeof fmt, "must be <= %g, got %%g", hi);
    return jl_scene_bad(c, kp, fmt, d);
  }
  *out = d;
  return JL_OK;
}

JlResult jl_scene_get_int(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, int *out, int lo,
                          int hi) {
  double d = *out;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  JlResult r = jl_scene_get_num(c, obj, path, key, &d, lo, 0, hi);
  if (r) return r;
  if (d != floor(d)) {
    char kp[512];
    jl_scene_key_path(kp, sizeof kp, path, key);
    return jl_scene_bad(c, kp, "must be a whole number, got %g", d);
  }
  *out = (int)d;
  return JL_OK;
}

JlResult jl_scene_get_bool(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, int *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  jl_scene_key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsBool(v)) return jl_scene_bad(c, kp, "expected true or false", 0);
  *out = cJSON_IsTrue(v);
  return JL_OK;
}

JlResult jl_scene_get_setting(const JlSceneCtx *c, const cJSON *obj, const char *path, const JlSetting *s, void *dst) {
  if (s->type == JL_SETTING_BOOL) {
    int b = (int)jl_setting_get(dst, s);
    TRY(jl_scene_get_bool(c, obj, path, s->key, &b));
    jl_setting_set(dst, s, b);
    return JL_OK;
  }
  double v = jl_setting_get(dst, s);
  TRY(jl_scene_get_num(c, obj, path, s->key, &v, s->lo, s->lo_open, s->hi));
  if (s->type == JL_SETTING_INT && v != floor(v)) {
    char kp[512];
    jl_scene_key_path(kp, sizeof kp, path, s->key);
    return jl_scene_bad(c, kp, "must be a whole number, got %g", v);
  }
  jl_setting_set(dst, s, v);
  return JL_OK;
}

int jl_scene_table_keys(const char *const *own, const JlSettingTable *t, const char *section, const char **out,
                        int cap) {
  int n = 0;
  for (; own && *own && n < cap - 1; own++) out[n++] = *own;
  for (int k = 0; k < t->n && n < cap - 1; k++)
    if (strcmp(t->row[k].section, section) == 0) out[n++] = t->row[k].key;
  out[n] = NULL;
  return n;
}

JlResult jl_scene_get_settings(const JlSceneCtx *c, const cJSON *obj, const char *path, const JlSettingTable *t,
                               const char *section, const char *skip, void *dst) {
  for (int k = 0; k < t->n; k++)
    if (strcmp(t->row[k].section, section) == 0 && !(skip && strcmp(t->row[k].key, skip) == 0))
      TRY(jl_scene_get_setting(c, obj, path, &t->row[k], dst));
  return JL_OK;
}

/* reads an optional array of exactly n finite numbers */
JlResult jl_scene_get_vec(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, double *out,
                          int n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  jl_scene_key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
    return jl_scene_bad(c, kp, n == 3 ? "expected an array of 3 numbers [x, y, z]" : "expected an array of numbers", 0);
  int i = 0;
  for (const cJSON *e = v->child; e; e = e->next, i++) {
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return jl_scene_bad(c, kp, "expected finite numbers", 0);
    out[i] = e->valuedouble;
  }
  return JL_OK;
}

JlResult jl_scene_get_str(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, const char **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return JL_OK;
  char kp[512];
  jl_scene_key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsString(v) || !v->valuestring) return jl_scene_bad(c, kp, "expected a string", 0);
  *out = v->valuestring;
  return JL_OK;
}

JlResult jl_scene_get_obj(const JlSceneCtx *c, const cJSON *obj, const char *path, const char *key, const cJSON **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = NULL;
  if (!v) return JL_OK;
  char kp[512];
  jl_scene_key_path(kp, sizeof kp, path, key);
  if (!cJSON_IsObject(v)) return jl_scene_bad(c, kp, "expected an object { ... }", 0);
  *out = v;
  return JL_OK;
}
