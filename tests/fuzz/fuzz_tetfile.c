/* libFuzzer target: the tet-mesh readers (mesh/tetfile.h), the path of a
 * scene body, `jelly check` and `jelly mesh` whose file is a .msh, .vtk,
 * .vtu or TetGen .node/.ele.
 *
 * Input: byte 0 picks the format (msh, vtk, vtu, ele, node); the rest is the
 * file's bytes, parsed in memory by jl_tetfile_parse (no child process: the
 * readers run in-process, so this is where a crash would show). For ele and
 * node the other half of the TetGen pair is a fixed 5-node, 2-tet file
 * written at start-up. A loaded mesh also gets its boundary surface. Every
 * outcome is fine except a crash, a sanitizer report, a leak, a hang or an
 * allocation above libFuzzer's -malloc_limit_mb. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh/tetfile.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[256];

static void write_text(const char *name, const char *text) {
  char path[400];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  fputs(text, f);
  fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_setup();
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/jelly_fuzz_tetfile_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    perror("fuzz_tetfile: mkdtemp");
    abort();
  }
  /* the fixed halves of the TetGen pairs */
  write_text("in.node", "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n");
  write_text("in2.ele", "2 4 0\n0 0 1 2 3\n1 1 2 3 4\n");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const name[] = {"in.msh", "in.vtk", "in.vtu", "in.ele", "in2.node"};
  if (size < 1) return 0;
  char path[400];
  snprintf(path, sizeof path, "%s/%s", g_dir, name[data[0] % 5]);
  JlTetMesh t;
  JlTetFileReport rep;
  char err[1024];
  if (jl_tetfile_parse(path, data + 1, size - 1, &t, &rep, err, sizeof err) == JL_OK) {
    JlSurface s;
    jl_tetmesh_boundary_surface(&t, &s);
    jl_surface_free(&s);
    jl_tetmesh_free(&t);
  }
  return 0;
}
