/* The files Jelly ships (models/: the scenes and meshes), found wherever the
 * program runs from: a checkout, a build folder or an installed prefix
 * (`cmake --install` copies models/ to share/jelly/models). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/cli/cli.h"

#ifndef JL_DATA_DIR
#define JL_DATA_DIR "/usr/local/share/jelly"
#endif

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int jl_cli_data_file(const char *rel, char *out, size_t n) {
  /* the working directory (a checkout) */
  if ((size_t)snprintf(out, n, "models/%s", rel) < n && is_file(out)) return 1;
  /* next to the program: a build folder in a checkout, or an installed bin/ */
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      if ((size_t)snprintf(out, n, "%s/../models/%s", exe, rel) < n && is_file(out)) return 1;
      if ((size_t)snprintf(out, n, "%s/../share/jelly/models/%s", exe, rel) < n && is_file(out)) return 1;
    }
  }
  /* the prefix the program was configured for */
  if ((size_t)snprintf(out, n, "%s/models/%s", JL_DATA_DIR, rel) < n && is_file(out)) return 1;
  snprintf(out, n, "models/%s", rel);
  return 0;
}
