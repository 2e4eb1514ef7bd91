/* Building a scene's model (jl_scene_build, src/scene.h): each body's
 * surface (a generated shape, a mesh file or an inline mesh, placed by jl_transform_points
 * and validated), tetrahedralized with TetGen in a child process (conforming
 * or embedded), or a tet mesh file loaded as it is (body_tet_mesh), or a cloth grid or rope chain built directly; then one
 * JlModel of all bodies (jl_model_build, jl_model_concat for cloth and
 * ropes) with the scene's world settings and obstacles. The scene was
 * validated by src/scene.c; what only shows now (a surface that is not
 * closed, a max_volume asking for too many tets, TetGen's refusal) is
 * reported naming the body. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/shapes.h"
#include "mesh/tetfile.h"
#include "src/scene_internal.h"

void jl_transform_points(double *p, int n, double scale, const double rotate_deg[3], const double translate[3]) {
  /* R = Rz * Ry * Rx: rotate about world x first, then y, then z */
  const double d2r = acos(-1.0) / 180.0;
  double cx = cos(rotate_deg[0] * d2r), sx = sin(rotate_deg[0] * d2r);
  double cy = cos(rotate_deg[1] * d2r), sy = sin(rotate_deg[1] * d2r);
  double cz = cos(rotate_deg[2] * d2r), sz = sin(rotate_deg[2] * d2r);
  double R[3][3] = {{cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
                    {sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
                    {-sy, cy * sx, cy * cx}};
  for (int i = 0; i < n; i++) {
    double q[3] = {p[3 * i] * scale, p[3 * i + 1] * scale, p[3 * i + 2] * scale};
    for (int r = 0; r < 3; r++) p[3 * i + r] = R[r][0] * q[0] + R[r][1] * q[1] + R[r][2] * q[2] + translate[r];
  }
}

/* metres per unit of the body's mesh: "units" times "scale" */
static double body_scale(const JlSceneBody *b) { return b->scale * (b->units > 0 ? b->units : 1.0); }

/* a dropped body's shift (JlSceneBody.dropped) from its placed points p (n x 3); zero otherwise */
static void drop_shift(const JlSceneBody *b, const double *p, int n, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  if (!b->dropped || n <= 0) return;
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = p[k];
  for (int i = 1; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = p[3 * i + k] < lo[k] ? p[3 * i + k] : lo[k];
      hi[k] = p[3 * i + k] > hi[k] ? p[3 * i + k] : hi[k];
    }
  out[0] = b->drop_at[0] - 0.5 * (lo[0] + hi[0]);
  out[1] = b->drop_at[1] + 0.25 * (hi[1] - lo[1]) - lo[1];
  out[2] = b->drop_at[2] - 0.5 * (lo[2] + hi[2]);
}

static void shift_points(double *p, int n, const double d[3]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) p[3 * i + k] += d[k];
}

/* Size and precision hints for a body given as a mesh (file or inline),
 * from its vertices as read (p, n points) and the metres per unit f:
 * - a bounding-box diagonal above 50 m or below 1 mm is more likely a unit
 *   mix-up than an intended body;
 * - assimp imports float32, whose spacing at distance |c| from the origin
 *   is about 2^-23 |c|; above 1e-4 of the mesh's size the file's
 *   coordinates were rounded visibly on import (a sphere 1e6 m out comes in
 *   with holes and self-intersections). Inline meshes are double and exact.
 * float32: the points came through assimp (a surface file); tet-mesh
 * files are read in double. Returns 1 when the precision warning applies
 * (validation errors then name it as the likely cause). */
static int warn_size_precision(const JlSceneBody *b, const double *p, int n, double f, int float32, FILE *log) {
  if (n <= 0) return 0;
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = p[k];
  for (int i = 1; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], p[3 * i + k]);
      hi[k] = fmax(hi[k], p[3 * i + k]);
    }
  double diag =
      sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
  double cx = 0.5 * (lo[0] + hi[0]), cy = 0.5 * (lo[1] + hi[1]), cz = 0.5 * (lo[2] + hi[2]);
  double dist = sqrt(cx * cx + cy * cy + cz * cz);
  if (!isfinite(diag) || !isfinite(dist)) return 0; /* validation reports it */
  double size = diag * f;
  if (log && size > 50.0)
    fprintf(log,
            "jelly: warning: body '%s': %.3g m across (bounding-box diagonal): is the mesh in millimetres or "
            "centimetres? set \"units\": \"mm\" or \"cm\" (or \"scale\")\n",
            b->def.name, size);
  else if (log && size > 0.0 && size < 1e-3)
    fprintf(log,
            "jelly: warning: body '%s': %.3g m across (bounding-box diagonal): the mesh's numbers are taken as %s; "
            "check \"units\" and \"scale\"\n",
            b->def.name, size,
            b->units == 0.01    ? "centimetres"
            : b->units == 0.001 ? "millimetres"
                                : "metres");
  int imprecise = float32 && 0x1p-23 * dist > 1e-4 * diag;
  if (log && imprecise)
    fprintf(log,
            "jelly: warning: body '%s': the mesh is %.3g across but %.3g from the origin in its file; the importer "
            "reads float32, whose coordinates are %.2g apart there (%.2g%% of the size), so the surface loses "
            "precision: centre the mesh in the file and place it with \"translate\"\n",
            b->def.name, diag, dist, 0x1p-23 * dist, 100.0 * 0x1p-23 * dist / fmax(diag, 1e-300));
  return imprecise;
}

/* Surface of one body in world coordinates, validated. An imperfect surface
 * (holes, overlapping parts, non-manifold spots: JlMeshReport.embeddable)
 * passes in embedded mode with one warning per defect and *winding = 1 (the
 * embedded mode then tells inside by the generalized winding number);
 * conforming mode refuses it and names embedded mode. */
static JlResult body_surface(const JlSceneBody *b, JlSurface *s, FILE *log, int *winding, char *err, size_t errsz) {
  int from_mesh = 1;
  *winding = 0;
  switch (b->shape) {
    case JL_SHAPE_BOX:
      jl_shape_box(b->size, b->shape_resolution, s);
      from_mesh = 0;
      break;
    case JL_SHAPE_SPHERE:
      jl_shape_sphere(b->radius, b->shape_resolution, s);
      from_mesh = 0;
      break;
    case JL_SHAPE_TORUS:
      jl_shape_torus(b->major, b->minor, b->shape_resolution, s);
      from_mesh = 0;
      break;
    default: {
      /* an inline mesh is a copy of its arrays; a file goes through the importer */
      if (b->mesh_inline.nvert > 0) {
        jl_surface_copy(s, &b->mesh_inline);
        break;
      }
      char msg[1024];
      JlResult r = jl_surface_load(b->mesh_path, s, msg, sizeof msg);
      if (r) return jl_fail(err, errsz, r, "body '%s': %s", b->def.name, msg);
    }
  }
  int imprecise = from_mesh ? warn_size_precision(b, s->vert, s->nvert, body_scale(b), b->mesh_path[0] != 0, log) : 0;
  jl_transform_points(s->vert, s->nvert, body_scale(b), b->rotate_deg, b->translate);
  double drop[3];
  drop_shift(b, s->vert, s->nvert, drop);
  shift_points(s->vert, s->nvert, drop);
  JlMeshReport rep;
  const char *name = b->mesh_path[0] ? b->mesh_path : b->def.name;
  jl_surface_validate(s, name, &rep);
  int embedded = b->tetgen.mode == JL_TETGEN_EMBEDDED;
  if (!rep.ok && !(embedded && rep.embeddable)) {
    char msg[2048];
    jl_report_errors(&rep, name, msg, sizeof msg);
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': cannot tetrahedralize:\n%s%s%s", b->def.name, msg,
                   rep.embeddable ? "\nembedded mode (\"tetgen\": {\"mode\": \"embedded\"}) accepts holes, "
                                    "overlapping parts and non-manifold spots"
                                  : "",
                   imprecise ? "\nthe mesh lies far from the origin for its size: float32 rounding on import is the "
                               "likely cause; centre it in the file"
                             : "");
  }
  for (int k = 0; k < rep.nfinding && log; k++)
    if (rep.finding[k].severity == JL_SEV_WARNING)
      fprintf(log, "jelly: warning: body '%s': %s\n", b->def.name, rep.finding[k].text);
  if (!rep.ok) {
    /* embedded mode with an imperfect surface: say what it works around */
    *winding = 1;
    for (int k = 0; k < rep.nfinding && log; k++)
      if (rep.finding[k].imperfect)
        fprintf(log,
                "jelly: warning: body '%s': %s; embedded mode decides inside/outside by the generalized winding "
                "number%s\n",
                b->def.name, rep.finding[k].text, imprecise ? " (float32 rounding on import is the likely cause)" : "");
  }
  return JL_OK;
}

/* A body whose "mesh" is a tet mesh (mesh/tetfile.h): its tets as they are,
 * placed like a surface ("units" and "scale", rotation, translation of the nodes; a proper
 * rotation and a positive scale keep every tet positive), and the surface to
 * embed: the tets' boundary (its vertices are nodes, so the embedding is
 * exact), or the body's "surface" file placed the same way and validated
 * (warnings logged; errors block, as for a surface to tetrahedralize). The
 * reader's notes (tets reoriented, nodes dropped, elements skipped) go to
 * the log. */
static JlResult body_tet_mesh(const JlSceneBody *b, JlTetMesh *t, JlSurface *s, FILE *log, char *err, size_t errsz) {
  char msg[2048];
  JlTetFileReport rep;
  JlResult r = jl_tetfile_load(b->mesh_path, t, &rep, msg, sizeof msg);
  if (r) return jl_fail(err, errsz, r, "body '%s': %s", b->def.name, msg);
  for (int k = 0; k < rep.nnote && log; k++)
    fprintf(log, "jelly: note: body '%s': %s: %s\n", b->def.name, b->mesh_path, rep.note[k]);
  warn_size_precision(b, t->node, t->nnode, body_scale(b), 0, log);
  jl_transform_points(t->node, t->nnode, body_scale(b), b->rotate_deg, b->translate);
  double drop[3];
  drop_shift(b, t->node, t->nnode, drop);
  shift_points(t->node, t->nnode, drop);
  /* a mesh of implausible size (a binary file read in the wrong byte order is 1e-41 m wide) or
   * with tets overlapping others (counted twice in volume and mass) is refused unless intended */
  if (b->plausibility_check) {
    JlTetPlausibility pl;
    jl_tetmesh_plausibility(t, &pl);
    if (!(pl.extent >= JL_PLAUSIBLE_MIN_EXTENT && pl.extent <= JL_PLAUSIBLE_MAX_EXTENT))
      return jl_fail(err, errsz, JL_ERR_INPUT,
                     "body '%s': %s: the placed mesh is %.3g m across, outside %g to %g m (a binary file read in "
                     "the wrong byte order, or other units: set \"units\" or \"scale\"; "
                     "\"plausibility_check\": false if it is intended)",
                     b->def.name, b->mesh_path, pl.extent, JL_PLAUSIBLE_MIN_EXTENT, JL_PLAUSIBLE_MAX_EXTENT);
    if (pl.noverlap > 0)
      return jl_fail(err, errsz, JL_ERR_INPUT,
                     "body '%s': %s: %d tets overlap others (the centre of tet %d lies inside tet %d), so their "
                     "volume and mass count twice (\"plausibility_check\": false if it is intended)",
                     b->def.name, b->mesh_path, pl.noverlap, pl.first_overlap, pl.other);
  }
  if (!b->surface_path[0]) {
    jl_tetmesh_boundary_surface(t, s);
    return JL_OK;
  }
  r = jl_surface_load(b->surface_path, s, msg, sizeof msg);
  if (r) return jl_fail(err, errsz, r, "body '%s': surface: %s", b->def.name, msg);
  jl_transform_points(s->vert, s->nvert, body_scale(b), b->rotate_deg, b->translate);
  shift_points(s->vert, s->nvert, drop);
  JlMeshReport mr;
  jl_surface_validate(s, b->surface_path, &mr);
  if (!mr.ok) {
    jl_report_errors(&mr, b->surface_path, msg, sizeof msg);
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': cannot embed its surface:\n%s", b->def.name, msg);
  }
  for (int k = 0; k < mr.nfinding && log; k++)
    if (mr.finding[k].severity == JL_SEV_WARNING)
      fprintf(log, "jelly: warning: body '%s': %s\n", b->def.name, mr.finding[k].text);
  return JL_OK;
}

/* one cloth or rope body as a one-body model: generated or loaded topology,
 * transformed to world coordinates */
static JlResult build_cloth_body(const JlSceneBody *b, const JlWorldDef *wd, JlModel *m, FILE *log, char *err,
                                 size_t errsz) {
  JlClothMesh cm;
  char msg[2048];
  JlResult r;
  if (b->shape == JL_SHAPE_GRID) {
    r = jl_cloth_grid(&cm, b->grid_size[0], b->grid_size[1], b->grid_cells[0], b->grid_cells[1], msg, sizeof msg);
  } else if (b->shape == JL_SHAPE_CHAIN) {
    r = jl_cloth_chain(&cm, b->chain_length, b->chain_segments, msg, sizeof msg);
  } else {
    JlSurface s;
    if (b->mesh_inline.nvert > 0) {
      jl_surface_copy(&s, &b->mesh_inline);
      r = JL_OK;
    } else {
      r = jl_surface_load(b->mesh_path, &s, msg, sizeof msg);
    }
    if (!r) {
      (void)warn_size_precision(b, s.vert, s.nvert, body_scale(b), b->mesh_path[0] != 0, log);
      r = jl_cloth_from_surface(&cm, &s, b->mesh_path[0] ? b->mesh_path : b->def.name, msg, sizeof msg);
      jl_surface_free(&s);
    }
  }
  if (r) return jl_fail(err, errsz, r, "body '%s': %s", b->def.name, msg);
  jl_transform_points(cm.node, cm.nnode, body_scale(b), b->rotate_deg, b->translate);
  /* rope lengths and cloth areas scale with the body */
  double f = b->kind == JL_BODY_ROPE ? body_scale(b) : body_scale(b) * body_scale(b);
  for (int i = 0; i < cm.nnode; i++) cm.measure[i] *= f;
  r = jl_model_build_cloth(m, &cm, &b->def, &b->cloth, wd, err, errsz);
  jl_cloth_free(&cm);
  return r;
}

/* Warns about the bounds a conforming body's mesh misses (jl_tetmesh_check):
 * tets above max_volume (only if bisection hit its limits), or tets above the
 * radius-edge bound and above 2, what Delaunay refinement guarantees (a
 * sphere asked for 1.5 gets a few tets at up to 1.76, not worth a warning on
 * every run). The mesh is still usable; the user should know. */
static void log_mesh_bounds(FILE *log, const JlSceneBody *b, int index, const JlTetMesh *t) {
  JlTetCheck c;
  jl_tetmesh_check(t, &b->tetgen, &c);
  if (c.over_volume > 0)
    fprintf(log,
            "jelly: warning: body '%s': bodies[%d].tetgen.max_volume %g m^3 not met: %d of %d tets are larger "
            "(largest %.3g m^3, %.3gx)\n",
            b->def.name, index, b->tetgen.max_volume, c.over_volume, t->ntet, c.largest_volume,
            c.largest_volume / b->tetgen.max_volume);
  if (c.over_guarantee > 0)
    fprintf(log,
            "jelly: warning: body '%s': bodies[%d].tetgen.quality %g not met: %d of %d tets have a larger "
            "radius-edge ratio, %d of them above %g (largest %.3g); TetGen leaves such tets next to small angles "
            "of the surface\n",
            b->def.name, index, b->tetgen.quality, c.over_quality, t->ntet, c.over_guarantee,
            fmax(b->tetgen.quality, JL_TET_RATIO_GUARANTEE), c.largest_ratio);
}

/* Volumes only: one jl_model_build over all bodies. With cloth or ropes:
 * each run of consecutive volume bodies is one jl_model_build, each cloth or
 * rope body one jl_model_build_cloth, joined in scene order by
 * jl_model_concat (same JlWorldDef for all). */
JlResult jl_scene_build(const JlScene *sc, JlModel *m, FILE *log, char *err, size_t errsz) {
  int n = sc->nbody;
  JlSurface *surf = jl_calloc((size_t)n, sizeof *surf);
  JlTetMesh *tets = jl_calloc((size_t)n, sizeof *tets);
  JlBodyDef *defs = jl_calloc((size_t)n, sizeof *defs);
  JlModel *parts = jl_calloc((size_t)n, sizeof *parts);
  int nparts = 0, all_volume = 1;
  for (int i = 0; i < n; i++) all_volume &= sc->body[i].kind == JL_BODY_VOLUME;
  JlWorldDef wd = sc->world;
  wd.nobstacle = sc->nobstacle;
  wd.obstacle = sc->obstacle;
  JlResult r = JL_OK;
  for (int i = 0; i < n && r == JL_OK; i++) {
    const JlSceneBody *b = &sc->body[i];
    defs[i] = b->def;
    char msg[3072];
    if (b->kind != JL_BODY_VOLUME) {
      r = build_cloth_body(b, &wd, &parts[nparts], log, msg, sizeof msg);
      if (r) {
        r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
        break;
      }
      nparts++;
      continue;
    }
    JlTetgenDef td = b->tetgen;
    td.winding = 0;
    r = b->mesh_is_tets ? body_tet_mesh(b, &tets[i], &surf[i], log, msg, sizeof msg)
                        : body_surface(b, &surf[i], log, &td.winding, msg, sizeof msg);
    if (r) {
      r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
      break;
    }
    /* every tet is at most max_volume, so volume / max_volume tets at least
     * (a tet mesh file's tets are counted by its reader) */
    if (!b->mesh_is_tets && b->tetgen.mode == JL_TETGEN_CONFORMING && b->tetgen.max_volume > 0) {
      double want = jl_surface_volume(&surf[i]) / b->tetgen.max_volume;
      if (want > SCENE_MAX_TETS) {
        r = jl_fail(err, errsz, JL_ERR_INPUT,
                    "%s: bodies[%d].tetgen.max_volume: %g m^3 in body '%s' of %g m^3 asks for at least %.3g tets "
                    "(at most %d per body); raise max_volume",
                    sc->path, i, b->tetgen.max_volume, b->def.name, jl_surface_volume(&surf[i]), want, SCENE_MAX_TETS);
        break;
      }
    }
    if (!b->mesh_is_tets) {
      r = jl_tetgen_build(&surf[i], &td, &tets[i], msg, sizeof msg);
      if (r) {
        r = jl_fail(err, errsz, r, "%s: body '%s': %s", sc->path, b->def.name, msg);
        break;
      }
      if (log) log_mesh_bounds(log, b, i, &tets[i]);
    }
    /* the end of a run of volume bodies: build them together */
    if (!all_volume && (i + 1 == n || sc->body[i + 1].kind != JL_BODY_VOLUME)) {
      int first = i;
      while (first > 0 && sc->body[first - 1].kind == JL_BODY_VOLUME) first--;
      r = jl_model_build(&parts[nparts], i + 1 - first, tets + first, surf + first, defs + first, &wd, msg, sizeof msg);
      if (r) {
        r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
        break;
      }
      nparts++;
    }
  }
  if (r == JL_OK) {
    char msg[1024];
    r = all_volume ? jl_model_build(m, n, tets, surf, defs, &wd, msg, sizeof msg)
                   : jl_model_concat(m, nparts, parts, msg, sizeof msg);
    if (r) r = jl_fail(err, errsz, r, "%s: %s", sc->path, msg);
  }
  for (int i = 0; i < n; i++) {
    jl_surface_free(&surf[i]);
    jl_tetmesh_free(&tets[i]);
  }
  for (int p = 0; p < nparts; p++) jl_model_free(&parts[p]);
  free(parts);
  free(surf);
  free(tets);
  free(defs);
  return r;
}
