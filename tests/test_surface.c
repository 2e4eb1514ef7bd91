/* Surface import (mesh/surface.c), validation (mesh/validate.c) and the
 * `jelly check` command: every loader form on small handwritten fixtures
 * (tests/data/meshes), the shared real models, each invalid class with the
 * finding it must produce, and end-to-end runs of the program on valid,
 * invalid and random-garbage files. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh/shapes.h"
#include "mesh/surface.h"
#include "tests/harness.h"

#define MESHES JL_SOURCE_DIR "/tests/data/meshes/"

/* ---- helpers ------------------------------------------------------------------- */

/* Finding of the given severity whose text contains `needle`, or NULL. */
static const JlFinding *find(const JlMeshReport *r, JlSeverity sev, const char *needle) {
  for (int i = 0; i < r->nfinding; i++)
    if (r->finding[i].severity == sev && strstr(r->finding[i].text, needle)) return &r->finding[i];
  return NULL;
}

/* Loads and validates; returns 0 (and fails the case) when loading fails. */
static int load_check(const char *path, JlSurface *s, JlMeshReport *r) {
  char err[512] = "";
  if (jl_surface_load(path, s, err, sizeof err) != JL_OK) {
    jl_test_fail(__FILE__, __LINE__, "load %s: %s", path, err);
    return 0;
  }
  jl_surface_validate(s, path, r);
  return 1;
}

/* Expects loading to fail with a message naming the file and containing `needle`. */
static int load_fails(const char *path, const char *needle) {
  char err[512] = "";
  JlSurface s;
  JlResult res = jl_surface_load(path, &s, err, sizeof err);
  if (res == JL_OK) {
    jl_surface_free(&s);
    jl_test_fail(__FILE__, __LINE__, "load %s succeeded, expected failure", path);
    return 0;
  }
  if (res != JL_ERR_INPUT || !strstr(err, path) || !strstr(err, needle)) {
    jl_test_fail(__FILE__, __LINE__, "load %s: code %d, message '%s' (wanted '%s')", path, res, err, needle);
    return 0;
  }
  return 1;
}

/* Appends an axis-aligned box [o, o+e] with outward (or inward) triangles. */
static void add_box(JlSurface *s, const double o[3], double e, int inward) {
  static const int quad[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  static const double corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                      {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  int v0 = s->nvert;
  s->vert = realloc(s->vert, sizeof(double) * 3 * (size_t)(s->nvert + 8));
  s->tri = realloc(s->tri, sizeof(int) * 3 * (size_t)(s->ntri + 12));
  for (int i = 0; i < 8; i++)
    for (int k = 0; k < 3; k++) s->vert[3 * (v0 + i) + k] = o[k] + e * corner[i][k];
  for (int q = 0; q < 6; q++)
    for (int h = 0; h < 2; h++) {
      int *f = s->tri + 3 * s->ntri++;
      int a = quad[q][0], b = quad[q][1 + h], c = quad[q][2 + h];
      f[0] = v0 + a;
      f[1] = v0 + (inward ? c : b);
      f[2] = v0 + (inward ? b : c);
    }
  s->nvert += 8;
}

/* Torus (R, r) as an nu x nv grid, outward; closed by index wrap-around. */
static void make_torus(JlSurface *s, int nu, int nv, double R, double r) {
  s->nvert = nu * nv;
  s->ntri = 2 * nu * nv;
  s->vert = jl_calloc((size_t)s->nvert * 3, sizeof(double));
  s->tri = jl_calloc((size_t)s->ntri * 3, sizeof(int));
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < nu; i++)
    for (int j = 0; j < nv; j++) {
      double u = 2 * pi * i / nu, v = 2 * pi * j / nv;
      double *x = s->vert + 3 * (i * nv + j);
      x[0] = (R + r * cos(v)) * cos(u);
      x[1] = (R + r * cos(v)) * sin(u);
      x[2] = r * sin(v);
    }
  int t = 0;
  for (int i = 0; i < nu; i++)
    for (int j = 0; j < nv; j++) {
      int a = i * nv + j, b = ((i + 1) % nu) * nv + j, c = ((i + 1) % nu) * nv + (j + 1) % nv,
          d = i * nv + (j + 1) % nv;
      int *f = s->tri + 3 * t;
      f[0] = a, f[1] = b, f[2] = c;
      f[3] = a, f[4] = c, f[5] = d;
      t += 2;
    }
}


/* ---- loaders: valid files --------------------------------------------------------- */

/* Every loader form of the unit cube gives 8 welded vertices, 12 triangles,
 * volume 1, closed and ok. */
static void expect_unit_cube(const char *path) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(path, &s, &r)) return;
  ENSURE_MSG(s.nvert == 8 && s.ntri == 12, "%s: %d vertices, %d triangles", path, s.nvert, s.ntri);
  ENSURE_NEAR(r.volume, 1.0, 1e-12);
  ENSURE_MSG(r.ok && r.nfinding == 0, "%s: ok %d, %d findings, first '%s'", path, r.ok, r.nfinding,
             r.nfinding ? r.finding[0].text : "");
  ENSURE(r.ncomponent == 1);
  for (int k = 0; k < 3; k++) {
    ENSURE_NEAR(r.bbox_lo[k], 0.0, 0.0);
    ENSURE_NEAR(r.bbox_hi[k], 1.0, 0.0);
  }
  jl_surface_free(&s);
}

static void test_obj_normals_seams_welded(void) {
  /* v//vn: assimp gives 24 corners with distinct normals; welded back to 8 */
  expect_unit_cube(MESHES "cube_vn.obj");
}
static void test_obj_negative_indices_crlf(void) { expect_unit_cube(MESHES "cube_neg_crlf.obj"); }
static void test_off(void) { expect_unit_cube(MESHES "cube.off"); }
static void test_ply_quads(void) { expect_unit_cube(MESHES "cube.ply"); }
static void test_stl_ascii(void) { expect_unit_cube(MESHES "cube_ascii.stl"); }
static void test_near_duplicate_file(void) {
  /* 1e-12 is below float resolution: assimp rounds it onto vertex 7 */
  expect_unit_cube(MESHES "near_duplicate.obj");
}

static void test_obj_polygons_triangulated(void) {
  /* regular hexagonal prism, side 1, height 1: 2 hexagons (4 triangles each)
   * + 6 quads = 20 triangles, volume 3 sqrt(3) / 2 */
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "hexprism_poly.obj", &s, &r)) return;
  ENSURE(s.nvert == 12 && s.ntri == 20);
  ENSURE(r.ok && r.nfinding == 0);
  ENSURE_NEAR(r.volume, 1.5 * sqrt(3.0), 1e-6); /* float coordinates */
  jl_surface_free(&s);
}

static void test_stl_binary(void) {
  /* the unit cube written as binary STL (no welding in the file format) */
  static const int tri[12][3] = {{0, 3, 2}, {0, 2, 1}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                 {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  static const float v[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  char path[600];
  snprintf(path, sizeof path, "%s/cube_binary.stl", jl_test_tmpdir("surface_stl"));
  FILE *f = fopen(path, "wb");
  ENSURE(f);
  char header[80] = "binary cube for test_surface";
  uint32_t n = 12;
  fwrite(header, 1, 80, f);
  fwrite(&n, 4, 1, f);
  for (int t = 0; t < 12; t++) {
    float normal[3] = {0, 0, 0};
    uint16_t attr = 0;
    fwrite(normal, 4, 3, f);
    for (int k = 0; k < 3; k++) fwrite(v[tri[t][k]], 4, 3, f);
    fwrite(&attr, 2, 1, f);
  }
  fclose(f);
  expect_unit_cube(path);
}

static void test_gltf_node_transforms(void) {
  /* embedded buffer; parent node scales by 2, child translates x by 10 (in
   * the parent's frame): volume 8, box [20, 0, 0] .. [22, 2, 2] */
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "cube_scaled.gltf", &s, &r)) return;
  ENSURE(s.nvert == 8 && s.ntri == 12);
  ENSURE(r.ok);
  ENSURE_NEAR(r.volume, 8.0, 1e-12);
  ENSURE_NEAR(r.bbox_lo[0], 20.0, 0.0);
  ENSURE_NEAR(r.bbox_hi[0], 22.0, 0.0);
  ENSURE_NEAR(r.bbox_hi[1], 2.0, 0.0);
  jl_surface_free(&s);
}

static void test_shared_models(void) {
  static const struct {
    const char *file;
    int nv, nt;
    double vol, tol;
  } m[] = {{"bunny.obj", 1839, 3674, 194.29, 0.01},
           {"torus.obj", 2048, 4096, 1.2238, 1e-4},
           {"sphere_uv.obj", 614, 1224, 4.1359, 1e-4},
           {"icosphere_1280.obj", 642, 1280, 4.1527, 1e-4},
           {"icosphere_320.obj", 162, 320, 4.0470, 1e-4}};
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", JL_MODELS_DIR, m[i].file);
    JlSurface s;
    JlMeshReport r;
    if (!load_check(path, &s, &r)) return;
    ENSURE_MSG(r.nvert == m[i].nv && r.ntri == m[i].nt, "%s: %d v %d t", m[i].file, r.nvert, r.ntri);
    ENSURE_MSG(r.ok && r.nfinding == 0, "%s: %d findings, first '%s'", m[i].file, r.nfinding,
               r.nfinding ? r.finding[0].text : "");
    ENSURE(r.ncomponent == 1);
    ENSURE_NEAR(r.volume, m[i].vol, m[i].tol);
    ENSURE_NEAR(jl_surface_volume(&s), r.volume, 0.0);
    jl_surface_free(&s);
  }
  /* bunny box from SOURCES.md */
  JlSurface s;
  JlMeshReport r;
  if (!load_check(JL_MODELS_DIR "/bunny.obj", &s, &r)) return;
  ENSURE_NEAR(r.bbox_lo[0], -4.958, 1e-3);
  ENSURE_NEAR(r.bbox_hi[1], 9.655, 1e-3);
  ENSURE_NEAR(r.bbox_hi[2], 3.811, 1e-3);
  jl_surface_free(&s);
}

/* ---- invalid inputs: findings ------------------------------------------------------ */

static void test_open_cube(void) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "open_cube.obj", &s, &r)) return;
  const JlFinding *f = find(&r, JL_SEV_ERROR, "1 hole (sizes 4)");
  ENSURE_MSG(f, "no hole finding; first '%s'", r.nfinding ? r.finding[0].text : "");
  ENSURE(f->count == 4);
  ENSURE(!r.ok);
  char err[1024];
  jl_report_errors(&r, "open_cube.obj", err, sizeof err);
  ENSURE(strstr(err, "open_cube.obj: open surface: 4 boundary edges in 1 hole") != NULL);
  jl_surface_free(&s);
}

static void test_nonmanifold_edge(void) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "nonmanifold.obj", &s, &r)) return;
  const JlFinding *f = find(&r, JL_SEV_ERROR, "non-manifold");
  ENSURE(f && f->count == 1 && strstr(f->text, "(3 triangles)"));
  ENSURE(!r.ok);
  jl_surface_free(&s);
}

static void test_inconsistent_orientation(void) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "inconsistent.obj", &s, &r)) return;
  const JlFinding *f = find(&r, JL_SEV_ERROR, "inconsistent orientation");
  ENSURE(f && f->count == 3); /* the reversed triangle's three edges */
  ENSURE(!r.ok);
  ENSURE(!find(&r, JL_SEV_WARNING, "inside-out")); /* no flip on a broken surface */
  jl_surface_free(&s);
}

static void test_inside_out_flipped(void) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "inside_out.obj", &s, &r)) return;
  const JlFinding *f = find(&r, JL_SEV_WARNING, "inside-out");
  ENSURE(f && f->count == 1);
  ENSURE(r.ok);
  ENSURE_NEAR(r.volume, 1.0, 1e-12);
  ENSURE_NEAR(jl_surface_volume(&s), 1.0, 1e-12); /* the surface itself was flipped */
  jl_surface_free(&s);
}

static void test_self_intersecting(void) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "overlapping_cubes.obj", &s, &r)) return;
  const JlFinding *f = find(&r, JL_SEV_ERROR, "self-intersecting");
  ENSURE(f && f->count > 0);
  ENSURE(!r.ok);
  ENSURE(r.ncomponent == 2);
  jl_surface_free(&s);
}

static void test_degenerate_removed(void) {
  /* a repeated-vertex triangle is removed; the cube stays closed: ok */
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "degenerate.obj", &s, &r)) return;
  const JlFinding *f = find(&r, JL_SEV_WARNING, "degenerate");
  ENSURE(f && f->count == 1 && strstr(f->text, "triangle 12"));
  ENSURE(r.ok && r.ntri == 12);
  jl_surface_free(&s);

  /* a T-junction closed by a zero-area sliver: edge 0-1 split at its
   * midpoint 8 on one side only, the sliver (0, 1, 8) closes the gap.
   * Removing the sliver is right, but it leaves a 3-edge hole: error */
  JlSurface c = {0, 0, NULL, NULL};
  add_box(&c, (const double[3]){0, 0, 0}, 1.0, 0);
  c.vert = realloc(c.vert, sizeof(double) * 3 * 9);
  c.tri = realloc(c.tri, sizeof(int) * 3 * 14);
  c.vert[24] = 0.5, c.vert[25] = 0.0, c.vert[26] = 0.0;
  ENSURE(c.tri[12] == 0 && c.tri[13] == 1 && c.tri[14] == 5);
  c.tri[13] = 8;                               /* (0, 8, 5) */
  c.tri[36] = 8, c.tri[37] = 1, c.tri[38] = 5; /* (8, 1, 5) */
  c.tri[39] = 0, c.tri[40] = 1, c.tri[41] = 8; /* the sliver */
  c.nvert = 9;
  c.ntri = 14;
  jl_surface_validate(&c, "sliver", &r);
  ENSURE(find(&r, JL_SEV_WARNING, "1 degenerate"));
  ENSURE(find(&r, JL_SEV_ERROR, "1 hole (sizes 3)"));
  ENSURE(!r.ok);
  jl_surface_free(&c);
}

static void test_near_duplicates_welded(void) {
  /* in double (no float rounding): vertex 6 copied and moved by 1e-12 */
  JlSurface s = {0, 0, NULL, NULL};
  add_box(&s, (const double[3]){0, 0, 0}, 1.0, 0);
  s.vert = realloc(s.vert, sizeof(double) * 3 * 9);
  s.vert[24] = 1.0 + 1e-12, s.vert[25] = 1.0, s.vert[26] = 1.0;
  s.nvert = 9;
  for (int c = 0; c < 18; c++)
    if (s.tri[c + 18] == 6) s.tri[c + 18] = 8; /* triangles 6..11 use the copy */
  JlMeshReport r;
  jl_surface_validate(&s, "near", &r);
  const JlFinding *f = find(&r, JL_SEV_INFO, "welded");
  ENSURE(f && f->count == 1);
  ENSURE(r.ok && r.nvert == 8 && s.nvert == 8);
  ENSURE_NEAR(r.volume, 1.0, 1e-11);
  jl_surface_free(&s);

  /* but 1e-6 apart (far above 1e-9 x diagonal) is not welded: open */
  JlSurface t = {0, 0, NULL, NULL};
  add_box(&t, (const double[3]){0, 0, 0}, 1.0, 0);
  t.vert = realloc(t.vert, sizeof(double) * 3 * 9);
  t.vert[24] = 1.0 + 1e-6, t.vert[25] = 1.0, t.vert[26] = 1.0;
  t.nvert = 9;
  for (int c = 0; c < 18; c++)
    if (t.tri[c + 18] == 6) t.tri[c + 18] = 8;
  jl_surface_validate(&t, "apart", &r);
  ENSURE(!find(&r, JL_SEV_INFO, "welded"));
  ENSURE(find(&r, JL_SEV_ERROR, "open surface"));
  jl_surface_free(&t);
}

static void test_two_components(void) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "two_cubes.obj", &s, &r)) return;
  ENSURE(r.ncomponent == 2);
  ENSURE(find(&r, JL_SEV_INFO, "2 separate components"));
  ENSURE(r.ok);
  ENSURE_NEAR(r.volume, 2.0, 1e-12);
  jl_surface_free(&s);
}

static void test_cavity_kept_stray_flipped(void) {
  /* hollow box: outer outward, inner inward (a cavity) -> no flip, volume 1 - 1/8 */
  JlSurface s = {0, 0, NULL, NULL};
  add_box(&s, (const double[3]){0, 0, 0}, 1.0, 0);
  add_box(&s, (const double[3]){0.25, 0.25, 0.25}, 0.5, 1);
  JlMeshReport r;
  jl_surface_validate(&s, "hollow", &r);
  ENSURE(r.ok && r.ncomponent == 2);
  ENSURE(!find(&r, JL_SEV_WARNING, "inside-out"));
  ENSURE_NEAR(r.volume, 0.875, 1e-12);
  jl_surface_free(&s);

  /* cavity written outward: flipped to inward */
  JlSurface t = {0, 0, NULL, NULL};
  add_box(&t, (const double[3]){0, 0, 0}, 1.0, 0);
  add_box(&t, (const double[3]){0.25, 0.25, 0.25}, 0.5, 0);
  jl_surface_validate(&t, "cavity-outward", &r);
  const JlFinding *f = find(&r, JL_SEV_WARNING, "inside-out");
  ENSURE(f && f->count == 1);
  ENSURE_NEAR(r.volume, 0.875, 1e-12);
  jl_surface_free(&t);

  /* separate box written inward, next to an outward one: flipped to outward */
  JlSurface u = {0, 0, NULL, NULL};
  add_box(&u, (const double[3]){0, 0, 0}, 1.0, 0);
  add_box(&u, (const double[3]){2, 0, 0}, 1.0, 1);
  jl_surface_validate(&u, "stray", &r);
  ENSURE(find(&r, JL_SEV_WARNING, "inside-out"));
  ENSURE(r.ok);
  ENSURE_NEAR(r.volume, 2.0, 1e-12);
  jl_surface_free(&u);
}

static void test_nan_and_inf(void) {
  JlSurface s;
  JlMeshReport r;
  if (!load_check(MESHES "nan.obj", &s, &r)) return;
  const JlFinding *f = find(&r, JL_SEV_ERROR, "NaN/Inf");
  ENSURE(f && f->count == 1 && strstr(f->text, "nan"));
  ENSURE(!r.ok);
  jl_surface_free(&s);
  if (!load_check(MESHES "huge_coordinate.obj", &s, &r)) return; /* 1e999 -> inf */
  f = find(&r, JL_SEV_ERROR, "NaN/Inf");
  ENSURE(f && f->count == 1 && strstr(f->text, "inf"));
  ENSURE(!r.ok);
  jl_surface_free(&s);
}

static void test_out_of_range_and_empty_surface(void) {
  /* a surface built in memory with a bad index: triangle dropped, error */
  JlSurface s = {0, 0, NULL, NULL};
  add_box(&s, (const double[3]){0, 0, 0}, 1.0, 0);
  s.tri[5] = 42;
  JlMeshReport r;
  jl_surface_validate(&s, "bad index", &r);
  const JlFinding *f = find(&r, JL_SEV_ERROR, "out of range");
  ENSURE(f && f->count == 1 && strstr(f->text, "triangle 1 (index 42)"));
  ENSURE(!r.ok && s.ntri == 11);
  jl_surface_free(&s);
  /* nothing at all */
  JlSurface e = {0, 0, NULL, NULL};
  jl_surface_validate(&e, "nothing", &r);
  ENSURE(find(&r, JL_SEV_ERROR, "empty") && !r.ok);
}

static void test_load_rejects(void) {
  ENSURE(load_fails(MESHES "empty.obj", "empty"));
  ENSURE(load_fails(MESHES "does_not_exist.obj", "cannot open"));
  ENSURE(load_fails(MESHES, "directory"));
  ENSURE(load_fails(MESHES "gigantic_index.obj", "index out of range"));
  ENSURE(load_fails(MESHES "truncated.obj", "assimp"));
  ENSURE(load_fails(MESHES "huge_count.off", "promises 999999999 vertices"));
  /* binary garbage, fixed seed */
  char path[600];
  snprintf(path, sizeof path, "%s/garbage.bin", jl_test_tmpdir("surface_garbage"));
  FILE *f = fopen(path, "wb");
  ENSURE(f);
  uint32_t x = 12345;
  for (int i = 0; i < 4096; i++) {
    x = x * 1664525u + 1013904223u;
    fputc((int)(x >> 24), f);
  }
  fclose(f);
  ENSURE(load_fails(path, "assimp cannot read it"));
}

static void test_large_mesh(void) {
  /* ~100k-triangle torus (R 1, r 0.25): closed, ok, volume near 2 pi^2 R r^2 */
  int nu = jl_test_quick() ? 100 : 320, nv = jl_test_quick() ? 50 : 160;
  JlSurface s;
  make_torus(&s, nu, nv, 1.0, 0.25);
  JlMeshReport r;
  jl_surface_validate(&s, "torus", &r);
  ENSURE_MSG(r.ok && r.nfinding == 0, "%d findings, first '%s'", r.nfinding, r.nfinding ? r.finding[0].text : "");
  ENSURE(r.ntri == 2 * nu * nv);
  /* inscribed polygons lose about (2/3)((pi/nu)^2 + (pi/nv)^2) of the volume */
  const double pi = 3.14159265358979323846;
  ENSURE_REL(r.volume, 2 * pi * pi * 0.0625, pi * pi / (nu * nu) + pi * pi / (nv * nv));
  /* push one vertex through the opposite wall: must now self-intersect */
  s.vert[2] = -0.5; /* vertex 0 at z = -0.5, outside the tube downward */
  s.vert[0] = 1.0;
  jl_surface_validate(&s, "torus-dented", &r);
  ENSURE(find(&r, JL_SEV_ERROR, "self-intersecting"));
  jl_surface_free(&s);
}

/* Two closed boxes touching at one corner (a bowtie vertex): each edge has two
 * triangles, but the vertex joins two separate fans; it used to pass. */
static void test_bowtie_vertex(void) {
  JlSurface s = {0, 0, NULL, NULL};
  add_box(&s, (const double[3]){0, 0, 0}, 1.0, 0);
  add_box(&s, (const double[3]){1, 1, 1}, 1.0, 0);
  JlMeshReport r;
  jl_surface_validate(&s, "bowtie", &r);
  const JlFinding *f = find(&r, JL_SEV_ERROR, "touch at a single point");
  ENSURE_MSG(f && f->count == 1 && strstr(f->text, "non-manifold: 1 vertices") && strstr(f->text, "(2 fans"), "%s",
             f ? f->text : "no finding");
  ENSURE(!r.ok && !find(&r, JL_SEV_ERROR, "edges shared"));
  jl_surface_free(&s);
  /* apart, the same two boxes are fine */
  JlSurface t = {0, 0, NULL, NULL};
  add_box(&t, (const double[3]){0, 0, 0}, 1.0, 0);
  add_box(&t, (const double[3]){1.5, 1.5, 1.5}, 1.0, 0);
  jl_surface_validate(&t, "apart", &r);
  ENSURE(r.ok && !find(&r, JL_SEV_ERROR, "non-manifold"));
  jl_surface_free(&t);
  /* an open bowtie: two triangles sharing only a vertex */
  JlSurface u = {0, 0, NULL, NULL};
  u.nvert = 5;
  u.ntri = 2;
  u.vert = jl_calloc(15, sizeof(double));
  u.tri = jl_calloc(6, sizeof(int));
  const double v[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0};
  const int tr[6] = {0, 1, 2, 0, 3, 4};
  memcpy(u.vert, v, sizeof v);
  memcpy(u.tri, tr, sizeof tr);
  jl_surface_validate(&u, "open bowtie", &r);
  ENSURE(find(&r, JL_SEV_ERROR, "touch at a single point") && find(&r, JL_SEV_ERROR, "open surface"));
  jl_surface_free(&u);
}

/* Coordinates whose range overflows: the weld tolerance became inf and the
 * weld's cell index NaN, converted to an integer (undefined; UBSan). Now a
 * clear error before any arithmetic on the range. */
static void test_huge_coordinates(void) {
  static const double scale[] = {1e300, 1e200, 1e101};
  for (int i = 0; i < 3; i++) {
    JlSurface s = {0, 0, NULL, NULL};
    add_box(&s, (const double[3]){-scale[i], 0, 0}, 1.0, 0);
    for (int v = 0; v < 8; v++) s.vert[3 * v] *= s.vert[3 * v] < -1.0 ? 1.0 : -1.0; /* x in {-scale, +scale} */
    JlMeshReport r;
    jl_surface_validate(&s, "huge", &r);
    const JlFinding *f = find(&r, JL_SEV_ERROR, "coordinates too large");
    ENSURE_MSG(f && strstr(f->text, "at most 1e+100"), "scale %g: %s", scale[i], r.nfinding ? r.finding[0].text : "ok");
    ENSURE(!r.ok);
    jl_surface_free(&s);
  }
  /* 1e99 is still fine */
  JlSurface s = {0, 0, NULL, NULL};
  add_box(&s, (const double[3]){0, 0, 0}, 1e99, 0);
  JlMeshReport r;
  jl_surface_validate(&s, "big", &r);
  ENSURE_MSG(r.ok, "%s", r.nfinding ? r.finding[0].text : "");
  jl_surface_free(&s);
}

/* Seconds of wall time since `t0` (CLOCK_MONOTONIC). */
static double seconds_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* Two fine spheres far apart (a valid two-component surface): the dense grid
 * of the self-intersection check was sized by the bounding box, put each
 * sphere into one cell and gave up with "heavily overlapping triangles". The
 * hashed grid keeps cells at the triangles' size. */
static void test_far_apart_components(void) {
  JlSurface a, b;
  jl_shape_sphere(1.0, jl_test_quick() ? 0.1 : 0.02, &a); /* level 5 or 6: 20480 or 81920 triangles */
  jl_shape_sphere(1.0, jl_test_quick() ? 0.1 : 0.02, &b);
  JlSurface s;
  s.nvert = a.nvert + b.nvert;
  s.ntri = a.ntri + b.ntri;
  s.vert = jl_calloc(3 * (size_t)s.nvert, sizeof(double));
  s.tri = jl_calloc(3 * (size_t)s.ntri, sizeof(int));
  memcpy(s.vert, a.vert, 3 * (size_t)a.nvert * sizeof(double));
  for (int i = 0; i < 3 * b.nvert; i++) s.vert[3 * (size_t)a.nvert + i] = b.vert[i] + (i % 3 == 0 ? 1e6 : 0.0);
  memcpy(s.tri, a.tri, 3 * (size_t)a.ntri * sizeof(int));
  for (int i = 0; i < 3 * b.ntri; i++) s.tri[3 * (size_t)a.ntri + i] = b.tri[i] + a.nvert;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  JlMeshReport r;
  jl_surface_validate(&s, "two spheres", &r);
  double sec = seconds_since(&t0);
  ENSURE_MSG(r.ok && r.ncomponent == 2, "%s", r.nfinding ? r.finding[0].text : "");
  ENSURE_MSG(sec < 30.0, "%.1f s", sec);
  jl_surface_free(&a);
  jl_surface_free(&b);
  jl_surface_free(&s);
}

/* The largest generated shapes the scene accepts (JL_SHAPE_MAX_TRIANGLES)
 * validate cleanly in bounded time: the shape cap and the validator's budget
 * agree. A finer torus used to take 31 s and 3.2 GB to be called
 * self-intersecting; the scene loader now rejects it up front. */
static void test_generated_shapes_at_cap(void) {
  double box_size[3] = {1, 1, 1};
  struct {
    const char *name;
    double res;
  } c[] = {{"box", 0.003473}, {"torus", 0.0034}, {"sphere", 1e-9}};
  for (int i = 0; i < 3; i++) {
    if (jl_test_quick() && i < 2) continue;
    double ntri = i == 0   ? jl_shape_box_triangles(box_size, c[i].res)
                  : i == 1 ? jl_shape_torus_triangles(0.5, 0.2, c[i].res)
                           : jl_shape_sphere_triangles(0.5, c[i].res);
    ENSURE_MSG(ntri <= JL_SHAPE_MAX_TRIANGLES && ntri > 0.3 * JL_SHAPE_MAX_TRIANGLES, "%s: %g", c[i].name, ntri);
    JlSurface s;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (i == 0)
      jl_shape_box(box_size, c[i].res, &s);
    else if (i == 1)
      jl_shape_torus(0.5, 0.2, c[i].res, &s);
    else
      jl_shape_sphere(0.5, c[i].res, &s);
    JlMeshReport r;
    jl_surface_validate(&s, c[i].name, &r);
    double sec = seconds_since(&t0);
    ENSURE_MSG(r.ok && r.nfinding == 0 && r.ntri == (int)ntri, "%s: %s", c[i].name,
               r.nfinding ? r.finding[0].text : "");
    ENSURE_MSG(sec < 60.0, "%s: %.1f s", c[i].name, sec);
    jl_surface_free(&s);
  }
}

/* ---- jelly check end to end ---------------------------------------------------------- */

static void test_cli_check(void) {
  static char out[16384];
  int rc = jl_test_run(JL_JELLY_EXE " check " JL_MODELS_DIR "/bunny.obj", out, sizeof out);
  ENSURE_MSG(rc == 0, "bunny: exit %d\n%s", rc, out);
  ENSURE(strstr(out, "vertices     1839") && strstr(out, "triangles    3674"));
  ENSURE(strstr(out, "components   1") && strstr(out, "volume       194.2"));
  ENSURE(strstr(out, "findings     none") && strstr(out, "ok: can be tetrahedralized"));

  rc = jl_test_run(JL_JELLY_EXE " check " MESHES "open_cube.obj", out, sizeof out);
  ENSURE_MSG(rc == 2, "open cube: exit %d\n%s", rc, out);
  ENSURE(strstr(out, "open_cube.obj: open surface: 4 boundary edges in 1 hole (sizes 4)"));

  rc = jl_test_run(JL_JELLY_EXE " check " MESHES "empty.obj", out, sizeof out);
  ENSURE(rc == 2 && strstr(out, "empty"));
  rc = jl_test_run(JL_JELLY_EXE " check " MESHES "inside_out.obj", out, sizeof out);
  ENSURE(rc == 0 && strstr(out, "warning") && strstr(out, "inside-out"));

  /* usage */
  ENSURE(jl_test_run(JL_JELLY_EXE " check", out, sizeof out) == 2);
  ENSURE(jl_test_run(JL_JELLY_EXE " check a.obj b.obj", out, sizeof out) == 2);
  ENSURE(jl_test_run(JL_JELLY_EXE " check --frobnicate " MESHES "cube.off", out, sizeof out) == 2);
  ENSURE(strstr(out, "unknown option"));
  ENSURE(jl_test_run(JL_JELLY_EXE " check --help", out, sizeof out) == 0);
  ENSURE(strstr(out, "usage: jelly check FILE"));
}

static void test_cli_garbage_never_crashes(void) {
  /* random bytes under several extensions and random mutations of a valid
   * OBJ, fixed seed; any exit >= 128 would be a signal (crash) */
  static const char *ext[] = {"obj", "off", "stl", "ply", "gltf", "glb", "bin"};
  const char *dir = jl_test_tmpdir("surface_fuzz");
  size_t baselen = 0;
  char *base = jl_test_read_file(JL_MODELS_DIR "/icosphere_320.obj", &baselen);
  ENSURE(base && baselen > 100);
  static const char *inserts[] = {"-", "99999999999", "nan", "1e999", "/", "\n", "f ", "v ", " 0", "\r\n"};
  uint32_t x = 2024;
#define RND() (x = x * 1664525u + 1013904223u, x >> 8)
  int nfile = jl_test_quick() ? 16 : 50;
  for (int i = 0; i < nfile; i++) {
    char path[700], cmd[900], out[4096];
    int mutate = i % 2;
    snprintf(path, sizeof path, "%s/f%02d.%s", dir, i, mutate ? "obj" : ext[RND() % 7]);
    FILE *f = fopen(path, "wb");
    ENSURE(f);
    if (!mutate) {
      size_t n = 1 + RND() % 3000;
      for (size_t k = 0; k < n; k++) fputc((int)(RND() & 255), f);
    } else {
      /* copy with a few random edits, sometimes truncated */
      size_t len = (RND() % 3 == 0) ? RND() % baselen : baselen;
      size_t next_edit = RND() % (len / 8 + 1);
      for (size_t k = 0; k < len; k++) {
        if (k == next_edit) {
          int op = (int)(RND() % 3);
          if (op == 0)
            fputc((int)(RND() & 255), f);
          else if (op == 1)
            fputs(inserts[RND() % 10], f);
          else
            k += RND() % 40; /* delete a run */
          next_edit = k + 1 + RND() % (len / 8 + 1);
          continue;
        }
        fputc(base[k], f);
      }
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, JL_JELLY_EXE " check '%s'", path);
    int rc = jl_test_run(cmd, out, sizeof out);
    ENSURE_MSG(rc == 0 || rc == 2, "%s: exit %d\n%s", path, rc, out);
  }
#undef RND
  free(base);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"obj_normals_seams_welded", test_obj_normals_seams_welded},
             {"obj_negative_indices_crlf", test_obj_negative_indices_crlf},
             {"obj_polygons_triangulated", test_obj_polygons_triangulated}, {"off", test_off},
             {"ply_quads", test_ply_quads}, {"stl_ascii", test_stl_ascii}, {"stl_binary", test_stl_binary},
             {"gltf_node_transforms", test_gltf_node_transforms}, {"near_duplicate_file", test_near_duplicate_file},
             {"shared_models", test_shared_models}, {"open_cube", test_open_cube},
             {"nonmanifold_edge", test_nonmanifold_edge}, {"inconsistent_orientation", test_inconsistent_orientation},
             {"inside_out_flipped", test_inside_out_flipped}, {"self_intersecting", test_self_intersecting},
             {"degenerate_removed", test_degenerate_removed}, {"near_duplicates_welded", test_near_duplicates_welded},
             {"two_components", test_two_components}, {"cavity_kept_stray_flipped", test_cavity_kept_stray_flipped},
             {"nan_and_inf", test_nan_and_inf, JL_ROBUSTNESS},
             {"out_of_range_and_empty_surface", test_out_of_range_and_empty_surface},
             {"load_rejects", test_load_rejects, JL_ROBUSTNESS}, {"large_mesh", test_large_mesh},
             {"bowtie_vertex", test_bowtie_vertex}, {"huge_coordinates", test_huge_coordinates, JL_ROBUSTNESS},
             {"far_apart_components", test_far_apart_components},
             {"generated_shapes_at_cap", test_generated_shapes_at_cap, JL_ROBUSTNESS},
             {"cli_check", test_cli_check, JL_PROGRAM},
             {"cli_garbage_never_crashes", test_cli_garbage_never_crashes, JL_ROBUSTNESS})
