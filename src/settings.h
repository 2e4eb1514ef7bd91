/* The world's numeric contact settings, each written once (engine-internal).
 *
 * One row per setting: X(field of JlWorldDef, scene section, scene key, default, lo, lo_open, hi). The
 * table gives the defaults (jl_default_world_def, src/model.c), the scene keys of the "ground" and
 * "contact" sections with their ranges (src/scene.c), the model check of a JlWorldDef built through
 * the API (src/model.c: the same ranges, so a scene and the API accept the same values) and the
 * checkpoint fingerprint (src/state.c). A value must be finite, >= lo (> lo when lo_open) and
 * <= hi. docs/scenes.md has a row for each key (tests/test_scene.c `keys_documented`).
 *
 * Adding one: a JlWorldDef field, a row here, its use, its docs/scenes.md row. */
#ifndef JL_SRC_SETTINGS_H
#define JL_SRC_SETTINGS_H

#include <stddef.h>

#include "src/model.h"

#define JL_WORLD_SETTINGS(X)                                                                 \
  X(ground_y, "ground", "y", 0.0, -1e9, 0, 1e9)                                              \
  X(ground_friction, "ground", "friction", 0.5, 0.0, 0, 1e3)                                 \
  X(ground_stiffness, "ground", "stiffness", 1e6, 0.0, 1, 1e15)                              \
  X(ground_damping, "ground", "damping", 50.0, 0.0, 0, 1e15)                                 \
  X(ground_spring_scale, "ground", "spring_scale", 1.0, 0.0, 0, 1e6)                         \
  X(ground_rolling, "ground", "rolling_resistance", 0.05, 0.0, 0, 1e3)                       \
  X(ground_restitution, "ground", "restitution", JL_RESTITUTION, 0.0, 0, 1.0)                \
  X(ground_restitution_speed, "ground", "restitution_speed", JL_RESTITUTION_SPEED, 0.0, 0, 1e6) \
  X(contact_stiffness, "contact", "stiffness", 1e5, 0.0, 1, 1e15)                            \
  X(contact_damping, "contact", "damping", 10.0, 0.0, 0, 1e15)                               \
  X(contact_friction, "contact", "friction", 0.3, 0.0, 0, 1e3)                               \
  X(contact_cell, "contact", "cell_size", 0.0, 0.0, 1, 1e6)                                  \
  X(contact_spring_scale, "contact", "spring_scale", 1.0, 0.0, 0, 1e6)                       \
  X(contact_push_out, "contact", "push_out_speed", 0.5, 0.0, 1, 1e6)                         \
  X(contact_rolling, "contact", "rolling_resistance", 0.05, 0.0, 0, 1e3)                     \
  X(contact_restitution, "contact", "restitution", JL_RESTITUTION, 0.0, 0, 1.0)              \
  X(contact_restitution_speed, "contact", "restitution_speed", JL_RESTITUTION_SPEED, 0.0, 0, 1e6)


/* the table as data: JL_WORLD_SETTING[0 .. JL_WORLD_SETTING_COUNT) (src/settings.c); a section has at
 * most JL_SETTINGS_MAX keys */
#define JL_SETTINGS_MAX 32
typedef struct JlSetting {
  const char *section, *key, *field; /* scene section and key; the JlWorldDef field's name */
  size_t offset;                     /* of the field (a double) in JlWorldDef */
  double def, lo;
  int lo_open;
  double hi;
} JlSetting;
extern const JlSetting JL_WORLD_SETTING[];
extern const int JL_WORLD_SETTING_COUNT;

/* the field of setting s in d */
static inline double *jl_setting_field(JlWorldDef *d, const JlSetting *s) {
  return (double *)((char *)d + s->offset);
}
static inline double jl_setting_value(const JlWorldDef *d, const JlSetting *s) {
  return *(const double *)((const char *)d + s->offset);
}
/* 1 when v is in s's range (its default always is) */
static inline int jl_setting_ok(const JlSetting *s, double v) {
  return v == s->def || ((s->lo_open ? v > s->lo : v >= s->lo) && v <= s->hi);
}

#endif
