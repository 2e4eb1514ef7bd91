/* `jelly mesh FILE`: loads a surface (mesh/surface.c), validates and repairs it
 * (mesh/validate.c), tetrahedralizes it (mesh/tetmesh.c, conforming or
 * embedded mode), embeds the surface (mesh/embed.c) and reports the counts the
 * simulation will see: nodes (point masses), tets, springs (unique tet edges),
 * embedded surface vertices, the dihedral-angle range and how well the tet
 * volumes add up to the surface's. `--shape` meshes a generated body instead
 * of a file. `--out FILE.vtu` writes the tets for ParaView (appended binary
 * with zlib, or ASCII with --vtk-ascii; src/output.h). A conforming mesh
 * is measured against its bounds (jl_tetmesh_check): the largest tet volume
 * and radius-edge ratio are printed with the number of tets above each bound,
 * and a miss worth knowing (any tet above --max-volume, or above the quality
 * bound and 2) is also a warning on stderr. Flags of the other mode are
 * errors, not silently ignored: --max-volume and --quality belong to
 * conforming mode, --resolution to embedded mode (and to --shape's edges).
 * A tet mesh FILE (.node/.ele, .msh, .vtk, .vtu: mesh/tetfile.h) is loaded
 * instead of tetrahedralized (load_tets) and its boundary is the surface
 * embedded; the meshing flags are errors then.
 * Exit 0 on success, 2 for bad flags, unreadable or invalid surfaces and
 * TetGen failures, 3 when the .vtu cannot be written (reason on stderr). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/embed.h"
#include "mesh/shapes.h"
#include "mesh/tetfile.h"
#include "mesh/tetmesh.h"
#include "src/cli/cli.h"
#include "src/output.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: jelly mesh FILE [options]\n"
          "       jelly mesh --shape box|sphere|torus [options]\n"
          "\n"
          "Tetrahedralizes a closed surface mesh with TetGen and reports nodes, tets,\n"
          "springs, embedded surface vertices, dihedral angles and volumes. A tet mesh\n"
          "FILE (TetGen .node/.ele, Gmsh .msh, VTK .vtk/.vtu) is loaded as it is and\n"
          "reported the same way (its boundary is the embedded surface).\n"
          "\n"
          "options:\n"
          "  --mode conforming|embedded  conforming (default): surface vertices become\n"
          "                              tet nodes; embedded: a jittered lattice fills the\n"
          "                              body and the surface rides in the tets\n"
          "  --max-volume M3             largest tet volume (conforming only), 0 = no bound\n"
          "  --quality RATIO             radius-edge ratio bound, >= 1.1 or 0 = off\n"
          "                              (default 1.5, conforming only)\n"
          "  --keep-surface              keep the surface's vertices and triangles as the\n"
          "                              mesh's boundary (TetGen -Y; conforming only): no\n"
          "                              points added on it, bounds met inside only\n"
          "  --resolution METERS         lattice spacing (embedded), 0 = bbox diagonal/12;\n"
          "                              with --shape also the shape's edge length\n"
          "                              (either mode)\n"
          "  --shape box|sphere|torus    a generated 1 m box, 0.5 m sphere or torus\n"
          "                              (0.5 m / 0.2 m) instead of FILE\n"
          "  --out FILE.vtu              write the tet mesh (VTK unstructured grid,\n"
          "                              binary with zlib)\n"
          "  --vtk-ascii                 write FILE.vtu as ASCII text instead\n" JL_CLI_MESH_LIMITS_HELP
          "\n" JL_CLI_EXIT_HELP);
}

/* the flags' values, and which flags were given for the check that each
 * belongs to the chosen mode */
typedef struct MeshArgs {
  JlTetgenDef def;
  const char *shape, *out_path;
  const char *conforming_flag, *resolution_flag;
  int vtk_ascii;    /* --vtk-ascii */
  int keep_surface; /* --keep-surface */
} MeshArgs;

/* a finite number >= 0 */
static int parse_bound(const char *flag, const char *text, double *out) {
  if (!jl_cli_parse_double("mesh", flag, text, out)) return 0;
  if (*out < 0.0) {
    fprintf(stderr, "jelly mesh: %s must be >= 0, got '%s'\n", flag, text);
    return 0;
  }
  return 1;
}

/* --mode conforming|embedded */
static int mode_flag(const char *cmd, const char *flag, const char *v, void *dst) {
  (void)cmd, (void)flag;
  MeshArgs *a = dst;
  if (strcmp(v, "conforming") == 0)
    a->def.mode = JL_TETGEN_CONFORMING;
  else if (strcmp(v, "embedded") == 0)
    a->def.mode = JL_TETGEN_EMBEDDED;
  else {
    fprintf(stderr, "jelly mesh: --mode expects conforming or embedded, got '%s'\n", v);
    return 0;
  }
  return 1;
}

/* --max-volume M3, --quality RATIO (conforming mode), --resolution METERS */
static int bound_flag(const char *cmd, const char *flag, const char *v, void *dst) {
  (void)cmd;
  MeshArgs *a = dst;
  if (strcmp(flag, "--resolution") == 0) {
    a->resolution_flag = flag;
    return parse_bound(flag, v, &a->def.resolution);
  }
  a->conforming_flag = flag;
  if (strcmp(flag, "--max-volume") == 0) return parse_bound(flag, v, &a->def.max_volume);
  if (!parse_bound(flag, v, &a->def.quality)) return 0;
  if (a->def.quality != 0.0 && a->def.quality < 1.1) {
    fprintf(stderr, "jelly mesh: --quality must be 0 (off) or >= 1.1 (TetGen may not terminate below), got '%s'\n", v);
    return 0;
  }
  return 1;
}

/* --shape box|sphere|torus */
static int shape_flag(const char *cmd, const char *flag, const char *v, void *dst) {
  (void)cmd, (void)flag;
  if (strcmp(v, "box") != 0 && strcmp(v, "sphere") != 0 && strcmp(v, "torus") != 0) {
    fprintf(stderr, "jelly mesh: --shape expects box, sphere or torus, got '%s'\n", v);
    return 0;
  }
  *(const char **)dst = v;
  return 1;
}

/* FILE is a tet mesh: its tets as they are (no meshing flags apply), its
 * boundary as the surface; the reader's notes are printed. 0 or the exit code. */
static int load_tets(const char *path, const char *flag, JlTetMesh *t, JlSurface *s, double *secs) {
  if (flag) {
    fprintf(stderr, "jelly mesh: %s does not apply: %s is already a tet mesh\n", flag, path);
    return 2;
  }
  char err[1024];
  JlTetFileReport rep;
  double t0 = jl_seconds();
  JlResult r = jl_tetfile_load(path, t, &rep, err, sizeof err);
  *secs = jl_seconds() - t0;
  if (r != JL_OK) {
    fprintf(stderr, "jelly mesh: %s\n", jl_cli_msg(err));
    return (int)r;
  }
  jl_tetmesh_boundary_surface(t, s);
  printf("mesh: %s\n", path);
  printf("  tet mesh     read as it is (%d nodes, %d tets in the file)\n", rep.nnode_file, rep.ntet_file);
  for (int k = 0; k < rep.nnote; k++) printf("    note: %s\n", rep.note[k]);
  return 0;
}

int jl_cli_mesh(int argc, char **argv) {
  /* flags */
  MeshArgs a = {jl_default_tetgen_def(), NULL, NULL, NULL, NULL, 0, 0};
  const char *path = NULL;
  const JlCliFlag flags[] = {
      JL_CLI_FLAG_CALL("--mode", &a, mode_flag),         JL_CLI_FLAG_CALL("--max-volume", &a, bound_flag),
      JL_CLI_FLAG_CALL("--quality", &a, bound_flag),     JL_CLI_FLAG_CALL("--resolution", &a, bound_flag),
      JL_CLI_FLAG_CALL("--shape", &a.shape, shape_flag), JL_CLI_FLAG_TEXT("--out", &a.out_path, NULL),
      JL_CLI_FLAG_SWITCH("--vtk-ascii", &a.vtk_ascii),   JL_CLI_FLAG_SWITCH("--keep-surface", &a.keep_surface),
  };
  JlCliSpec spec = {"mesh", flags, (int)(sizeof flags / sizeof flags[0]), NULL, &path, "FILE", usage};
  int rc = jl_cli_parse(&spec, argc, argv);
  if (rc != JL_CLI_GO) return rc;
  JlTetgenDef def = a.def;
  def.keep_surface = a.keep_surface;
  if (a.keep_surface && !a.conforming_flag) a.conforming_flag = "--keep-surface";
  const char *shape = a.shape, *out_path = a.out_path;
  JlVtkEncoding enc = a.vtk_ascii ? JL_VTK_ASCII : JL_VTK_BINARY;
  const char *conforming_flag = a.conforming_flag, *resolution_flag = a.resolution_flag;
  if (!path == !shape) {
    fprintf(stderr, path ? "jelly mesh: give either FILE or --shape, not both\n"
                         : "jelly mesh: no mesh FILE (or --shape) given\n");
    usage(stderr);
    return 2;
  }
  if (def.mode == JL_TETGEN_EMBEDDED && conforming_flag) {
    fprintf(stderr, "jelly mesh: %s applies to --mode conforming only; this mesh is embedded\n", conforming_flag);
    return 2;
  }
  if (def.mode == JL_TETGEN_CONFORMING && resolution_flag && !shape) {
    fprintf(stderr,
            "jelly mesh: --resolution applies to --mode embedded (or to a --shape's edge length) only; this mesh "
            "is conforming\n");
    return 2;
  }

  /* load (or generate) and validate */
  char err[4096];
  JlSurface s;
  const char *name = path ? path : shape;
  JlTetMesh t;
  int is_tets = path && jl_tetfile_is_volume(path);
  double t0 = 0, t1 = 0;
  if (is_tets) {
    const char *flag = conforming_flag                  ? conforming_flag
                       : resolution_flag                ? resolution_flag
                       : def.mode == JL_TETGEN_EMBEDDED ? "--mode"
                                                        : NULL;
    rc = load_tets(path, flag, &t, &s, &t1);
    if (rc) return rc;
  } else if (path) {
    JlResult lr = jl_surface_load(path, &s, err, sizeof err);
    if (lr != JL_OK) {
      fprintf(stderr, "jelly mesh: %s\n", jl_cli_msg(err));
      return lr;
    }
  } else {
    /* the shape's triangle count is known before it is made (a box at
     * --resolution 1e-6 would be 6e12 triangles): the scene loader's limit */
    const double size[3] = {1.0, 1.0, 1.0};
    double ntri = strcmp(shape, "box") == 0      ? jl_shape_box_triangles(size, def.resolution)
                  : strcmp(shape, "sphere") == 0 ? jl_shape_sphere_triangles(0.5, def.resolution)
                                                 : jl_shape_torus_triangles(0.5, 0.2, def.resolution);
    if (ntri > JL_SHAPE_MAX_TRIANGLES) {
      fprintf(stderr,
              "jelly mesh: --resolution %g m makes a %s of %.3g triangles (at most %d per generated shape); use a "
              "coarser resolution\n",
              def.resolution, shape, ntri, JL_SHAPE_MAX_TRIANGLES);
      return 2;
    }
    if (strcmp(shape, "box") == 0)
      jl_shape_box(size, def.resolution, &s);
    else if (strcmp(shape, "sphere") == 0)
      jl_shape_sphere(0.5, def.resolution, &s);
    else
      jl_shape_torus(0.5, 0.2, def.resolution, &s);
  }
  JlMeshReport report;
  if (!is_tets) jl_surface_validate(&s, name, &report);
  /* holes, overlapping parts, non-manifold spots: embedded mode decides
   * inside/outside by the generalized winding number (as scenes do);
   * conforming mode (TetGen) refuses them and names embedded mode */
  int embedded = def.mode == JL_TETGEN_EMBEDDED;
  if (!is_tets && !report.ok && !(embedded && report.embeddable)) {
    jl_report_errors(&report, name, err, sizeof err);
    fprintf(stderr, "jelly mesh: cannot tetrahedralize %s:\n%s\n%s", name, jl_cli_msg(err),
            report.embeddable ? "--mode embedded accepts holes, overlapping parts and non-manifold spots\n" : "");
    jl_surface_free(&s);
    return 2;
  }
  if (!is_tets && !report.ok) {
    def.winding = 1;
    for (int k = 0; k < report.nfinding; k++)
      if (report.finding[k].imperfect)
        fprintf(stderr,
                "jelly mesh: warning: %s: %s; embedded mode decides inside/outside by the generalized winding "
                "number\n",
                name, report.finding[k].text);
  }
  if (!is_tets) {
    printf("mesh: %s\n", name);
    printf("  surface      %d vertices, %d triangles, volume %.6g\n", s.nvert, s.ntri, report.volume);
    jl_cli_print_findings(&report);
  } else {
    printf("  surface      its boundary: %d vertices, %d triangles\n", s.nvert, s.ntri);
  }
  char quality[32] = "off", bound[48] = "no volume bound", spacing[32] = "bbox diagonal / 12";
  if (def.quality > 0) snprintf(quality, sizeof quality, "%g", def.quality);
  if (def.max_volume > 0) snprintf(bound, sizeof bound, "max volume %g", def.max_volume);
  if (def.resolution > 0) snprintf(spacing, sizeof spacing, "%g", def.resolution);
  if (is_tets)
    def.quality = 0; /* no bound to measure an imported mesh against */
  else if (def.mode == JL_TETGEN_CONFORMING)
    printf("  mode         conforming (quality %s, %s)\n", quality, bound);
  else
    printf("  mode         embedded (resolution %s)\n", spacing);

  /* tetrahedralize (unless read) and embed */
  if (!is_tets) {
    t0 = jl_seconds();
    JlResult tr = jl_tetgen_build(&s, &def, &t, err, sizeof err);
    if (tr != JL_OK) {
      fflush(stdout);
      fprintf(stderr, "jelly mesh: cannot tetrahedralize %s: %s\n", name, jl_cli_msg(err));
      jl_surface_free(&s);
      return tr;
    }
    t1 = jl_seconds();
  } else {
    t0 = jl_seconds() - t1; /* the read's time */
    t1 = jl_seconds();
  }
  JlEmbedding e;
  if (jl_embed_build(&t, s.vert, s.nvert, &e, err, sizeof err) != JL_OK) {
    fflush(stdout);
    fprintf(stderr, "jelly mesh: cannot embed %s: %s\n", name, jl_cli_msg(err));
    jl_tetmesh_free(&t);
    jl_surface_free(&s);
    return 2;
  }
  double t2 = jl_seconds();

  /* report */
  int outside = 0;
  for (int i = 0; i < e.nvert; i++) {
    const double *w = e.weight + 4 * i;
    outside += fmin(fmin(w[0], w[1]), fmin(w[2], w[3])) < -1e-12;
  }
  JlTetQuality q;
  jl_tetmesh_quality(&t, &q);
  JlTetCheck check;
  jl_tetmesh_check(&t, &def, &check);
  double vs = jl_surface_volume(&s);
  printf("  nodes        %d\n", t.nnode);
  printf("  tets         %d\n", t.ntet);
  printf("  springs      %d\n", t.nedge);
  printf("  boundary     %d faces\n", t.nface);
  printf("  embedded     %d surface vertices (%d outside the tets)\n", e.nvert, outside);
  printf("  dihedral     min %.2f deg, max %.2f deg\n", q.min_dihedral_deg, q.max_dihedral_deg);
  printf("  volume       tets %.9g, surface %.9g, relative difference %.3g\n", q.volume_sum, vs,
         vs != 0 ? (q.volume_sum - vs) / fabs(vs) : 0.0);
  /* bounds: the figures always, a warning when a miss is worth knowing */
  if (def.mode == JL_TETGEN_CONFORMING && def.max_volume > 0) {
    printf("  max volume   largest tet %.4g (bound %g): %s", check.largest_volume, def.max_volume,
           check.over_volume ? "not met" : "met");
    if (check.over_volume) printf(", %d tets above", check.over_volume);
    if (t.nbisect) printf(" (%d edges bisected after TetGen)", t.nbisect);
    printf("\n");
  }
  if (def.mode == JL_TETGEN_CONFORMING && def.quality > 0) {
    printf("  quality      radius-edge ratio largest %.3f (bound %g): %s", check.largest_ratio, def.quality,
           check.over_quality ? "not met" : "met");
    if (check.over_quality) printf(", %d tets above", check.over_quality);
    printf("\n");
  } else {
    printf("  quality      radius-edge ratio largest %.3f\n", check.largest_ratio);
  }
  printf("  time         %s %.3f s, embed %.3f s\n", is_tets ? "read" : "tetrahedralize", t1 - t0, t2 - t1);
  fflush(stdout);
  if (check.over_volume)
    fprintf(stderr, "jelly mesh: warning: --max-volume %g not met: %d of %d tets are larger (largest %.3g, %.3gx)\n",
            def.max_volume, check.over_volume, t.ntet, check.largest_volume, check.largest_volume / def.max_volume);
  if (check.over_guarantee)
    fprintf(stderr,
            "jelly mesh: warning: --quality %g not met: %d of %d tets have a larger radius-edge ratio, %d of them "
            "above %g (largest %.3g); TetGen leaves such tets next to small angles of the surface\n",
            def.quality, check.over_quality, t.ntet, check.over_guarantee, fmax(def.quality, JL_TET_RATIO_GUARANTEE),
            check.largest_ratio);

  /* optional .vtu with each tet's volume */
  rc = 0;
  if (out_path) {
    double *vol = jl_calloc((size_t)t.ntet, sizeof(double));
    for (int k = 0; k < t.ntet; k++) {
      const int *v = t.tet + 4 * k;
      vol[k] = jl_tet_volume(t.node + 3 * v[0], t.node + 3 * v[1], t.node + 3 * v[2], t.node + 3 * v[3]);
    }
    JlVtuField field = {"volume", 1, 1, vol};
    JlResult w = jl_vtu_write(out_path, enc, t.nnode, t.node, t.ntet, t.tet, 1, &field, err, sizeof err);
    if (w != JL_OK) {
      fflush(stdout);
      fprintf(stderr, "jelly mesh: %s\n", jl_cli_msg(err));
      rc = (int)w;
    } else {
      printf("  wrote        %s\n", out_path);
    }
    free(vol);
  }
  jl_embed_free(&e);
  jl_tetmesh_free(&t);
  jl_surface_free(&s);
  return rc;
}
