/* `jelly check FILE`: loads a surface mesh (mesh/surface.c), validates and
 * repairs it (mesh/validate.c) and prints a summary. Exit 0 when TetGen may
 * tetrahedralize the (repaired) surface, 2 for bad input: usage errors,
 * unreadable files and surfaces with error findings, one line per problem on
 * stderr. A tet mesh (.node/.ele, .msh, .vtk, .vtu: mesh/tetfile.h) is
 * loaded and validated as a scene would use it: counts, quality and the
 * reader's notes; exit 0 when it loads, 2 with the reason when it does not. */
#include <stdio.h>
#include <string.h>

#include "mesh/surface.h"
#include "mesh/tetfile.h"
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
          "A tet mesh (TetGen .node/.ele, Gmsh .msh 2.2/4.1, VTK .vtk/.vtu) is loaded as\n"
          "a scene body would load it: indices, repeated nodes, degenerate and inverted\n"
          "tets are checked, and its counts and quality are printed.\n"
          "\n"
          "options:\n" JL_CLI_MESH_LIMITS_HELP
          "\n"
          "Exit 0 when the mesh can be tetrahedralized, 2 when it cannot (one line per\n"
          "problem on stderr).\n" JL_CLI_EXIT_HELP);
}

/* a tet mesh file: load (validation included), counts, quality, notes */
static int check_tets(const char *path) {
  char err[1024];
  JlTetMesh t;
  JlTetFileReport rep;
  double t0 = jl_seconds();
  JlResult lr = jl_tetfile_load(path, &t, &rep, err, sizeof err);
  double secs = jl_seconds() - t0;
  if (lr != JL_OK) {
    fprintf(stderr, "jelly check: %s\n", jl_cli_msg(err));
    printf("not ok: cannot be used as a tet mesh\n");
    return lr;
  }
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  /* the bounding box, and plausibility as a body (below) */
  JlTetPlausibility pl;
  jl_tetmesh_plausibility(&t, &pl);
  const double *lo = pl.lo, *hi = pl.hi;
  printf("tet mesh: %s\n", path);
  printf("  nodes        %d (%d in the file)\n", t.nnode, rep.nnode_file);
  printf("  tets         %d\n", t.ntet);
  printf("  springs      %d\n", t.nedge);
  printf("  boundary     %d faces\n", t.nface);
  printf("  volume       %.6g (units of the file), smallest tet %.3g\n", q.volume_sum, q.min_volume);
  printf("  dihedral     min %.2f deg, max %.2f deg\n", q.min_dihedral_deg, q.max_dihedral_deg);
  printf("  bbox         [%.4g, %.4g, %.4g] .. [%.4g, %.4g, %.4g]\n", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
  printf("  read in      %.3f s\n", secs);
  /* plausibility: overlapping tets and a size no choice of units makes a body are errors; a size
   * outside 1e-4 to 1e4 (as metres) a warning, since a scene may scale the mesh */
  char found[3][400];
  int nfound = 0, bad = 0;
  if (pl.noverlap > 0) {
    snprintf(found[nfound++], sizeof found[0],
             "error: %d tets overlap others (the centre of tet %d lies inside tet "
             "%d): their volume and mass would count twice",
             pl.noverlap, pl.first_overlap, pl.other);
    fprintf(stderr, "jelly check: %s: %d tets overlap others\n", path, pl.noverlap);
    bad = 1;
  }
  if (!(pl.extent >= 1e-3 * JL_PLAUSIBLE_MIN_EXTENT && pl.extent <= 1e3 * JL_PLAUSIBLE_MAX_EXTENT)) {
    snprintf(found[nfound++], sizeof found[0],
             "error: the mesh is %.3g units across: no choice of units (mm to "
             "km) makes it a body of %g to %g m (a binary file read in the wrong byte order?)",
             pl.extent, JL_PLAUSIBLE_MIN_EXTENT, JL_PLAUSIBLE_MAX_EXTENT);
    fprintf(stderr, "jelly check: %s: %.3g units across, an implausible size\n", path, pl.extent);
    bad = 1;
  } else if (!(pl.extent >= JL_PLAUSIBLE_MIN_EXTENT && pl.extent <= JL_PLAUSIBLE_MAX_EXTENT)) {
    snprintf(found[nfound++], sizeof found[0],
             "warning: the mesh is %.3g units across: as metres outside %g to %g "
             "m (a scene can set \"units\" or \"scale\")",
             pl.extent, JL_PLAUSIBLE_MIN_EXTENT, JL_PLAUSIBLE_MAX_EXTENT);
  }
  if (rep.nnote + nfound == 0)
    printf("  findings     none\n");
  else
    printf("  findings     %d\n", rep.nnote + nfound);
  for (int k = 0; k < nfound; k++) printf("    %s\n", found[k]);
  for (int k = 0; k < rep.nnote; k++) printf("    note: %s\n", rep.note[k]);
  jl_tetmesh_free(&t);
  if (bad) {
    printf("not ok: not a plausible body\n");
    return 2;
  }
  printf("ok: a tet mesh Jelly can simulate\n");
  return 0;
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

  if (jl_tetfile_is_volume(path)) return check_tets(path);

  /* load */
  char err[1024];
  JlSurface s;
  JlResult lr = jl_surface_load(path, &s, err, sizeof err);
  if (lr != JL_OK) {
    fprintf(stderr, "jelly check: %s\n", jl_cli_msg(err));
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
  printf("  bbox         [%.4g, %.4g, %.4g] .. [%.4g, %.4g, %.4g]\n", r.bbox_lo[0], r.bbox_lo[1], r.bbox_lo[2],
         r.bbox_hi[0], r.bbox_hi[1], r.bbox_hi[2]);
  if (r.nfinding == 0)
    printf("  findings     none\n");
  else
    printf("  findings     %d\n", r.nfinding);
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
  if (r.embeddable)
    printf(
        "not ok: cannot be tetrahedralized in conforming mode; embedded mode (\"tetgen\": {\"mode\": "
        "\"embedded\"}, jelly mesh --mode embedded) accepts it, deciding inside/outside by the generalized "
        "winding number\n");
  else
    printf("not ok: cannot be tetrahedralized\n");
  return 2;
}
