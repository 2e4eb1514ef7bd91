/* Settings as data: the tables' shared lookups (src/settings.h). */
#include "src/settings.h"

#include <stdio.h>
#include <string.h>

const JlSetting *jl_setting_find(const JlSettingTable *t, const char *section, const char *key) {
  for (int k = 0; k < t->n; k++)
    if (strcmp(t->row[k].section, section) == 0 && strcmp(t->row[k].key, key) == 0) return &t->row[k];
  return NULL;
}

void jl_setting_range(const JlSetting *s, char *buf, size_t n) {
  if (s->type == JL_SETTING_BOOL)
    snprintf(buf, n, "0 or 1 (false or true)");
  else
    snprintf(buf, n, "%s%s %.9g and <= %.9g", s->type == JL_SETTING_INT ? "a whole number " : "",
             s->lo_open ? ">" : ">=", s->lo, s->hi);
}
