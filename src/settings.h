/* Settings as data (engine-internal): each setting of a def struct is one row
 * of a table, and the table drives everything a setting needs.
 *
 * Three tables: the world's contact and ground settings (JlWorldDef,
 * src/model.h JL_WORLD_SETTINGS), a body's material (JlBodyDef,
 * src/model.h JL_BODY_SETTINGS) and the step's solver settings (JlStepDef,
 * src/world.h JL_STEP_SETTINGS). One row per setting:
 *
 *   X(field, scene section, scene key, type, default, lo, lo_open, hi)
 *
 * A row gives the field's default (jl_default_*_def), its scene key and range
 * (src/scene.c reads every row of a section), the engine's check of a def
 * built through the API (the same range, so a scene and the API accept the
 * same values; the default always passes), the public API's access by name
 * (jelly_model_setting) and, for the world, the checkpoint fingerprint
 * (src/state.c). docs/scenes.md has a row for each key (tests/test_scene.c
 * `keys_documented`).
 *
 * Adding a setting: the struct field, a row, its use, its docs/scenes.md row. */
#ifndef JL_SRC_SETTINGS_H
#define JL_SRC_SETTINGS_H

#include <math.h>
#include <stddef.h>

typedef enum JlSettingType {
  JL_SETTING_DOUBLE,
  JL_SETTING_INT, /* an int field; the scene value must be a whole number */
  JL_SETTING_BOOL /* an int field, 0 or 1; a scene gives true or false */
} JlSettingType;

typedef struct JlSetting {
  const char *section, *key, *field; /* scene section ("" top level, "body" a bodies[] entry) and key; field name */
  size_t offset;                     /* of the field in its struct */
  JlSettingType type;
  double def, lo;
  int lo_open; /* 1: the value must be > lo, 0: >= lo */
  double hi;
} JlSetting;

typedef struct JlSettingTable {
  const char *name; /* of the struct in messages: "world", "body", "step" */
  const JlSetting *row;
  int n;
} JlSettingTable;

/* the row macro of the tables' X-macros: a JlSetting of struct S */
#define JL_SETTING_ROW_OF(S, field, section, key, type, def, lo, lo_open, hi) \
  {section, key, #field, offsetof(S, field), type, def, lo, lo_open, hi},

/* at most this many rows of one section (scene key lists are built on the stack) */
#define JL_SETTINGS_MAX 32

/* the value of setting s in struct d */
static inline double jl_setting_get(const void *d, const JlSetting *s) {
  const char *p = (const char *)d + s->offset;
  return s->type == JL_SETTING_DOUBLE ? *(const double *)p : (double)*(const int *)p;
}
/* sets it (a whole number for int and bool settings) */
static inline void jl_setting_set(void *d, const JlSetting *s, double v) {
  char *p = (char *)d + s->offset;
  if (s->type == JL_SETTING_DOUBLE)
    *(double *)p = v;
  else
    *(int *)p = (int)v;
}
/* 1 when v is a value of s: finite, in its range (its default always is), whole for int and bool */
static inline int jl_setting_ok(const JlSetting *s, double v) {
  if (!isfinite(v)) return 0;
  if (s->type != JL_SETTING_DOUBLE && v != floor(v)) return 0;
  return v == s->def || ((s->lo_open ? v > s->lo : v >= s->lo) && v <= s->hi);
}
/* every row's default into d */
static inline void jl_settings_default(void *d, const JlSettingTable *t) {
  for (int k = 0; k < t->n; k++) jl_setting_set(d, &t->row[k], t->row[k].def);
}
/* the first row whose value in d is not ok, or NULL */
static inline const JlSetting *jl_settings_bad(const void *d, const JlSettingTable *t) {
  for (int k = 0; k < t->n; k++)
    if (!jl_setting_ok(&t->row[k], jl_setting_get(d, &t->row[k]))) return &t->row[k];
  return NULL;
}
/* the row of section.key (section "" for the top level), or NULL */
const JlSetting *jl_setting_find(const JlSettingTable *t, const char *section, const char *key);
/* "must be >= 0 and <= 1e6" (or "true or false") for messages */
void jl_setting_range(const JlSetting *s, char *buf, size_t n);

#endif
