/* `jelly check FILE`: loads a surface mesh (mesh/surface.c), validates and
 * repairs it (mesh/validate.c) and prints a summary. Exit 0 when TetGen may
 * tetrahedralize the (repaired) surface, 2 for bad input: usage errors,
 * unreadable files and surfaces with error findings, one line per problem on
 * stderr. */
#include <stdio.h>
#include <string.h>

#include "mesh/surface.h"
#include "src/cli/cli.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: jelly check FILE [--mesh-timeout S] [--mesh-memory MB]\n"
          "                        [--mesh-max-file MB]\n"
          "\n"
          "Loads a surface mesh (OBJ, OFF, STL, PLY, glTF and the other formats assimp\n"
          "reads), welds duplicate vertices, removes degenerate triangles, flips an\n"
          "inside-out surface and reports holes, non-manifold edges, inconsistent\n"
          "orientation, self-intersections and components.\n"
          "\n"
          "options:\n" JL_CLI_MESH_LIMITS_HELP
          "\n"
          "Exit 0 when the mesh can be tetrahedralized, 2 when it cannot (one line per\n"
          "problem on stderr).\n" JL_CLI_EXIT_HELP);
}

int jl_cli_check(int argc, char **argv) {
  /* arguments: exactly one file, or --help */
  const char *path = NULL;
  JlCliSpec spec = {"check", NULL, 0, NULL, &path, "FILE", usage};
  int rc = jl_cli_parse(&spec, argc, argv);
  if (rc != JL_CLI_GO) return rc;
  if (!path) {
    fprintf(stderr, "jelly check: no mesh FILE given\n");
    usage(stderr);
    return 2;
  }

  /* load */
  char err[1024];
  JlSurface s;
  JlResult lr = jl_surface_load(path, &s, err, sizeof err);
  if (lr != JL_OK) {
    fprintf(stderr, "jelly check: %s\n", err);
    return lr; /* 2 bad file, 3 the system refused (memory, processes) */
  }

  /* validate and print the summary */
  JlMeshReport r;
  jl_surface_validate(&s, path, &r);
  printf("mesh: %s\n", path);
  printf("  vertices     %d\n", r.nvert);
  printf("  triangles    %d\n", r.ntri);
  printf("  components   %d\n", r.ncomponent);
  printf("  volume       %.6g (units of the file)\n", r.volume);
  printf("  bbox         [%.4g, %.4g, %.4g] .. [%.4g, %.4g, %.4g]\n", r.bbox_lo[0], r.bbox_lo[1],
         r.bbox_lo[2], r.bbox_hi[0], r.bbox_hi[1], r.bbox_hi[2]);
  if (r.nfinding == 0) printf("  findings     none\n");
  else printf("  findings     %d\n", r.nfinding);
  jl_cli_print_findings(&r);
  jl_surface_free(&s);

  if (r.ok) {
    printf("ok: can be tetrahedralized\n");
    return 0;
  }
  /* one line per problem */
  char lines[JL_MAX_FINDINGS * 300];
  jl_report_errors(&r, path, lines, sizeof lines);
  fflush(stdout);
  fprintf(stderr, "%s\n", lines);
  printf("not ok: cannot be tetrahedralized\n");
  return 2;
}
