/* Tetrahedralization of a closed surface: jl_tetgen_build (checks, the
 * conforming mode, tet orientation, unused nodes dropped). Embedded mode is
 * in tetmesh_embed.c, the bisection of tets above max_volume in
 * tetmesh_bisect.c, topology (edges = springs, boundary faces, node
 * adjacency) and quality figures in tetmesh_topology.c; tetmesh_internal.h
 * is what they share. TetGen itself is only reached through jl_tetgen_raw()
 * (mesh/tetgen_bridge.cpp).
 *
 * Conforming mode feeds the surface to TetGen as a PLC (-p), with quality
 * (-q, radius-edge ratio) and maximum-volume (-a) refinement. Steiner points
 * may go on the boundary (no -Y): a coarse surface such as a 12-triangle box
 * cannot meet a volume bound otherwise (with -Y TetGen kept the 1 m bar at 48
 * tets of up to 4.2x the bound it was given). Every surface vertex stays a tet
 * node (the embedding is exact: weight 1 on that node), and boundary Steiner
 * points are put on input edges and triangles, so the tet boundary is a
 * subdivision of the render surface and the tet volumes add up to the
 * surface's volume. TetGen merges adjacent triangles that are nearly coplanar
 * into one facet and re-triangulates it; its default (dihedral angle above
 * 179.9 degrees) flattens real detail (the bunny's base: boundary off the
 * surface by 1e-5 of the body's size, volume by 5e-8). "-p179.999" merges only
 * triangles within 1e-3 degrees of coplanar: the two halves of a box face, and
 * quads split in two whose corners were rounded to 6 digits in an OBJ file
 * (torus.obj, sphere_uv.obj). Tighter than that, every such quad keeps its
 * diagonal as a constraint and TetGen makes 2.6x the tets (torus.obj: 40430
 * instead of 15642), thousands of them above the quality bound; the price of
 * 1e-3 degrees is a tet boundary within 1.3e-8 of the body's size of those
 * two surfaces (tet volumes within 5e-9 of the surface's), and to rounding on
 * the bunny and the generated shapes (test_tetmesh). */
#include "mesh/tetmesh.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/child.h"
#include "mesh/tetmesh_internal.h"
#include "mesh/vec3.h"

JlTetgenDef jl_default_tetgen_def(void) {
  JlTetgenDef def;
  def.mode = JL_TETGEN_CONFORMING;
  def.max_volume = 0.0;
  def.quality = 1.5;
  def.keep_surface = 0;
  def.resolution = 0.0;
  def.seed = 1u;
  def.winding = 0;
  return def;
}

/* smallest radius-edge bound accepted: TetGen's refinement is proven to end
 * only above 2 and in practice hangs below about 1.1 */
#define MIN_QUALITY 1.1
/* TetGen's peak memory per output tet (about 190 bytes measured with libtet
 * 1.5 on a refined 1 m box, 1.1 M tets: 220 MB); a lower bound, so an
 * estimate above the limit is certainly too fine */
#define TETGEN_BYTES_PER_TET 150.0

/* Rejects a request whose tets cannot fit the element cap or the child's
 * memory limit (mesh/child.h) before TetGen starts: "too fine for the
 * limit", distinct from TetGen's own failures. what names the setting. */
JlResult jl_tetmesh_check_estimate(double ntet, const char *what, char *err, size_t errsz) {
  JlMeshLimits lim = jl_mesh_limits();
  double mb = ntet * TETGEN_BYTES_PER_TET / 1048576.0;
  if (ntet > JL_MAX_MESH_ELEMENTS)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s is too fine for the limit: at least %.3g tets, more than the %d element limit", what, ntet,
                   JL_MAX_MESH_ELEMENTS);
  if (mb > lim.memory_mb)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s is too fine for the limit: at least %.3g tets, about %.0f MB for TetGen, more than "
                   "the %g MB of the mesh limit memory_mb",
                   what, ntet, mb, lim.memory_mb);
  return JL_OK;
}

/* ---- geometry helpers (vectors: mesh/vec3.h) ----------------------------- */

double jl_tet_volume(const double *a, const double *b, const double *c, const double *d) {
  double u[3], v[3], w[3], n[3];
  jl_vec3_sub(b, a, u);
  jl_vec3_sub(c, a, v);
  jl_vec3_sub(d, a, w);
  jl_vec3_cross(v, w, n);
  return jl_vec3_dot(u, n) / 6.0;
}

/* ---- conforming mode ------------------------------------------------------- */

static JlResult build_conforming(const JlSurface *s, const JlTetgenDef *def, int *nnode, double **node, int *ntet,
                                 int **tet, char *err, size_t errsz) {
  /* -p PLC, facets merged only when coplanar to 1e-3 degrees (file comment),
   * -Y the surface kept as it is (keep_surface), -q radius-edge bound, -a
   * volume bound; %.9g keeps the bounds (TetGen's parser accepts exponents,
   * a1.5e-07) */
  char sw[96] = "p179.999Q";
  size_t len = strlen(sw);
  if (def->keep_surface) len += (size_t)snprintf(sw + len, sizeof sw - len, "Y");
  if (def->quality > 0) len += (size_t)snprintf(sw + len, sizeof sw - len, "q%.9g", def->quality);
  if (def->max_volume > 0) snprintf(sw + len, sizeof sw - len, "a%.9g", def->max_volume);
  return jl_tetgen_raw(sw, s->nvert, s->vert, s->ntri, s->tri, nnode, node, ntet, tet, err, errsz);
}

/* ---- build ------------------------------------------------------------------ */

JlResult jl_tetgen_build(const JlSurface *s, const JlTetgenDef *def, JlTetMesh *out, char *err, size_t errsz) {
  JL_ASSERT(s && def && out, "jl_tetgen_build needs a surface, a def (jl_default_tetgen_def) and an output");
  memset(out, 0, sizeof *out);

  /* check the def and the surface */
  if ((int)def->mode < 0 || (int)def->mode >= (int)JL_TETGEN_MODE_COUNT)
    return jl_fail(err, errsz, JL_ERR_INPUT, "unknown tetrahedralization mode %d", (int)def->mode);
  if (!(def->max_volume >= 0) || !isfinite(def->max_volume))
    return jl_fail(err, errsz, JL_ERR_INPUT, "maximum tet volume must be >= 0 m^3, got %g", def->max_volume);
  if (!(def->quality == 0 || def->quality >= MIN_QUALITY) || !isfinite(def->quality))
    return jl_fail(err, errsz, JL_ERR_INPUT, "tet quality (radius-edge ratio bound) must be 0 (off) or >= %.1f, got %g",
                   MIN_QUALITY, def->quality);
  if (def->keep_surface != 0 && (def->keep_surface != 1 || def->mode != JL_TETGEN_CONFORMING))
    return jl_fail(err, errsz, JL_ERR_INPUT, "keep_surface is 0 or 1 and applies to conforming mode only, got %d",
                   def->keep_surface);
  if (!(def->resolution >= 0) || !isfinite(def->resolution))
    return jl_fail(err, errsz, JL_ERR_INPUT, "embedded resolution must be >= 0 m, got %g", def->resolution);
  if (s->nvert < 4 || s->ntri < 4)
    return jl_fail(err, errsz, JL_ERR_INPUT, "surface too small to tetrahedralize (%d vertices, %d triangles)",
                   s->nvert, s->ntri);
  for (int i = 0; i < 3 * s->nvert; i++)
    if (!isfinite(s->vert[i])) return jl_fail(err, errsz, JL_ERR_INPUT, "vertex %d has a non-finite coordinate", i / 3);

  /* conforming with a volume bound: at least volume / max_volume tets */
  if (def->mode == JL_TETGEN_CONFORMING && def->max_volume > 0) {
    char what[96];
    snprintf(what, sizeof what, "max_volume %g m^3", def->max_volume);
    if (jl_tetmesh_check_estimate(fabs(jl_surface_volume(s)) / def->max_volume, what, err, errsz) != JL_OK)
      return JL_ERR_INPUT;
  }

  int nnode = 0, ntet = 0;
  double *node = NULL, *fill = NULL;
  int *tet = NULL;
  JlResult r = def->mode == JL_TETGEN_EMBEDDED
                   ? jl_tetmesh_build_embedded(s, def, &nnode, &node, &ntet, &tet, &fill, err, errsz)
                   : build_conforming(s, def, &nnode, &node, &ntet, &tet, err, errsz);
  if (r != JL_OK) return r;

  /* orientation: positive signed volume; a zero-volume tet is an error */
  double lo[3], hi[3];
  bbox_of(nnode, node, lo, hi);
  double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  for (int t = 0; t < ntet; t++) {
    int *v = tet + 4 * t;
    double vol = jl_tet_volume(node + 3 * v[0], node + 3 * v[1], node + 3 * v[2], node + 3 * v[3]);
    if (fabs(vol) <= 1e-15 * size * size * size) {
      r = jl_fail(err, errsz, JL_ERR_INPUT, "tet %d (nodes %d %d %d %d) has zero volume (%g m^3)", t, v[0], v[1], v[2],
                  v[3], vol);
      JL_FREE_ALL(node, tet, fill);
      return r;
    }
    if (vol < 0) {
      int tmp = v[2];
      v[2] = v[3];
      v[3] = tmp;
    }
  }

  /* conforming: bring tets TetGen's sliver removal left above max_volume
   * within it (jl_tetmesh_bisect_large); with keep_surface only interior
   * edges are cut, so no midpoint lands on the surface */
  int nbisect = 0;
  if (def->mode == JL_TETGEN_CONFORMING && def->max_volume > 0)
    nbisect = jl_tetmesh_bisect_large(&nnode, &node, &ntet, &tet, def->max_volume, def->keep_surface);

  /* drop nodes no tet uses (then jl_tetmesh_reorder numbers the rest along
   * a Hilbert curve, mesh/order.c) */
  int *remap = jl_calloc((size_t)nnode, sizeof(int));
  for (int i = 0; i < 4 * ntet; i++) remap[tet[i]] = 1;
  int used = 0;
  for (int i = 0; i < nnode; i++) {
    if (!remap[i]) {
      remap[i] = -1;
      continue;
    }
    if (used != i) memcpy(node + 3 * used, node + 3 * i, sizeof(double) * 3);
    remap[i] = used++;
  }
  for (int i = 0; i < 4 * ntet; i++) tet[i] = remap[tet[i]];
  free(remap);

  out->nnode = used;
  out->node = jl_realloc(node, (size_t)used * 3, sizeof(double));
  out->ntet = ntet;
  out->tet = jl_realloc(tet, (size_t)ntet * 4, sizeof(int));
  out->fill = fill;
  out->nbisect = nbisect;
  jl_tetmesh_reorder(out);
  jl_tetmesh_topology(out);
  return JL_OK;
}

void jl_tetmesh_free(JlTetMesh *t) {
  if (!t) return;
  JL_FREE_ALL(t->node, t->tet, t->fill, t->edge, t->face, t->adj_start, t->adj);
  memset(t, 0, sizeof *t);
}
