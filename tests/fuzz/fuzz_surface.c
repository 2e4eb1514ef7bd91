/* libFuzzer target: surface import (mesh/surface.c) and validation
 * (mesh/validate.c), the path of `jelly check FILE`.
 *
 * Input: byte 0 picks the file's extension (obj, off, ply, stl, gltf, dae, x,
 * dat, which leaves the format to content sniffing, or glb); the rest is the
 * file. It is written to a private temporary folder and loaded with
 * jl_surface_load under small limits (fuzz_common.h): the format screens run
 * in this process, assimp in a guarded child. A loaded surface goes through
 * jl_surface_validate and jl_report_errors. Every outcome is fine except a
 * crash, a sanitizer report, a leak or a hang in this process. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh/surface.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[256];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_setup();
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/jelly_fuzz_surface_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    perror("fuzz_surface: mkdtemp");
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* glb came last, so seeds written for 8 extensions keep theirs */
  static const char *const ext[] = {"obj", "off", "ply", "stl", "gltf", "dae", "x", "dat", "glb"};
  if (size < 1) return 0;
  char path[400];
  snprintf(path, sizeof path, "%s/in.%s", g_dir, ext[data[0] % 9]);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size > 1 && fwrite(data + 1, 1, size - 1, f) != size - 1) abort();
  fclose(f);

  JlSurface s;
  char err[1024];
  if (jl_surface_load(path, &s, err, sizeof err) == JL_OK) {
    JlMeshReport rep;
    jl_surface_validate(&s, path, &rep);
    char msg[2048];
    jl_report_errors(&rep, path, msg, sizeof msg);
    jl_surface_free(&s);
  }
  unlink(path);
  return 0;
}
