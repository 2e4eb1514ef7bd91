/* The world settings table as data (src/settings.h). */
#include "src/settings.h"

#define JL_SETTING_ROW(field, section, key, def, lo, lo_open, hi) \
  {section, key, #field, offsetof(JlWorldDef, field), def, lo, lo_open, hi},
const JlSetting JL_WORLD_SETTING[] = {JL_WORLD_SETTINGS(JL_SETTING_ROW)};
const int JL_WORLD_SETTING_COUNT = (int)(sizeof JL_WORLD_SETTING / sizeof JL_WORLD_SETTING[0]);
