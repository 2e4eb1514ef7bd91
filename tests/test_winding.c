/* Imperfect scans (mesh/winding.c, embedded mode): the generalized winding number against its
 * exact sum and ray parity; embedded mode building a sphere with a missing
 * triangle and two overlapping boxes to the intended solid's mass, with a
 * warning naming each defect, while conforming mode refuses them pointing
 * to embedded mode; "units"; the size and float32-precision hints; `jelly
 * check` and `jelly mesh` on such a surface. */
#define _DEFAULT_SOURCE /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/shapes.h"
#include "mesh/tetmesh.h"
#include "mesh/winding.h"
#include "src/scene.h"
#include "tests/harness.h"

#define PI 3.14159265358979323846

/* ---- helpers ------------------------------------------------------------------------------ */

/* appends s's vertices and triangles, moved by dx along x, to dst */
static void append_surface(JlSurface *dst, const JlSurface *s, double dx) {
  dst->vert = realloc(dst->vert, sizeof(double) * 3 * (size_t)(dst->nvert + s->nvert));
  dst->tri = realloc(dst->tri, sizeof(int) * 3 * (size_t)(dst->ntri + s->ntri));
  for (int i = 0; i < s->nvert; i++)
    for (int k = 0; k < 3; k++) dst->vert[3 * (dst->nvert + i) + k] = s->vert[3 * i + k] + (k == 0 ? dx : 0.0);
  for (int i = 0; i < 3 * s->ntri; i++) dst->tri[3 * dst->ntri + i] = s->tri[i] + dst->nvert;
  dst->nvert += s->nvert;
  dst->ntri += s->ntri;
}

/* a scene with one body: the surface inline with `extra` keys */
static char *scene_text(const JlSurface *s, const char *extra) {
  size_t cap = 4096 + 80 * (size_t)s->nvert + 40 * (size_t)s->ntri, n = 0;
  char *t = malloc(cap);
  n += (size_t)snprintf(t + n, cap - n, "{\"bodies\": [{\"name\": \"scan\", %s, \"mesh\": {\"vertices\": [", extra);
  for (int i = 0; i < s->nvert; i++)
    n += (size_t)snprintf(t + n, cap - n, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", s->vert[3 * i], s->vert[3 * i + 1],
                          s->vert[3 * i + 2]);
  n += (size_t)snprintf(t + n, cap - n, "], \"triangles\": [");
  for (int i = 0; i < s->ntri; i++)
    n += (size_t)snprintf(t + n, cap - n, "%s[%d, %d, %d]", i ? ", " : "", s->tri[3 * i], s->tri[3 * i + 1],
                          s->tri[3 * i + 2]);
  snprintf(t + n, cap - n, "]}}]}");
  return t;
}

/* parses and builds text (a scene in tests/), the log into logbuf */
static JlResult build(const char *text, JlModel *m, char *logbuf, size_t logsz, char *err, size_t errsz) {
  JlScene sc;
  JlResult r = jl_scene_parse(text, JL_SOURCE_DIR "/tests/scan.json", &sc, err, errsz);
  if (r) return r;
  FILE *log = tmpfile();
  r = jl_scene_build(&sc, m, log, err, errsz);
  size_t n = 0;
  if (log) {
    rewind(log);
    n = fread(logbuf, 1, logsz - 1, log);
    fclose(log);
  }
  logbuf[n] = '\0';
  jl_scene_free(&sc);
  return r;
}

/* the test's temporary folder as an absolute path (scenes resolve relative
 * mesh paths against their own folder) */
static const char *abs_tmpdir(void) {
  static char path[PATH_MAX];
  if (!path[0] && !realpath(jl_test_tmpdir("scan"), path)) snprintf(path, sizeof path, "%s", jl_test_tmpdir("scan"));
  return path;
}

static void write_obj(const char *path, const JlSurface *s, double mul, double dx) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  for (int i = 0; i < s->nvert; i++)
    fprintf(f, "v %.9g %.9g %.9g\n", mul * s->vert[3 * i] + dx, mul * s->vert[3 * i + 1], mul * s->vert[3 * i + 2]);
  for (int i = 0; i < s->ntri; i++)
    fprintf(f, "f %d %d %d\n", s->tri[3 * i] + 1, s->tri[3 * i + 1] + 1, s->tri[3 * i + 2] + 1);
  fclose(f);
}

/* ---- the winding number ------------------------------------------------------------------- */

/* the tree's winding number against the exact sum, and w >= 0.5 against
 * ray parity (the embedded build's kept tets with either test) on closed
 * meshes */
static void test_winding_agrees(void) {
  const char *file = JL_SOURCE_DIR "/models/bunny.obj";
  JlSurface bunny, sphere;
  char err[1024] = "";
  ENSURE_MSG(jl_surface_load(file, &bunny, err, sizeof err) == JL_OK, "%s", err);
  jl_shape_sphere(0.5, 0.08, &sphere);
  const JlSurface *meshes[2] = {&sphere, &bunny};
  for (int m = 0; m < 2; m++) {
    const JlSurface *s = meshes[m];
    JlWinding w;
    jl_winding_build(&w, s);
    double lo[3], hi[3];
    jl_surface_bbox(s, lo, hi);
    unsigned long long rng = 7;
    double maxerr = 0.0;
    int wrong = 0, n = 2000;
    for (int i = 0; i < n; i++) {
      double p[3];
      for (int k = 0; k < 3; k++) {
        double e = 0.2 * (hi[k] - lo[k]);
        p[k] = lo[k] - e + (hi[k] - lo[k] + 2 * e) * jl_test_rnd(&rng);
      }
      double fast = jl_winding_number(&w, p), exact = jl_winding_number_exact(s, p);
      maxerr = fmax(maxerr, fabs(fast - exact));
      wrong += (fabs(fast) >= 0.5) != (fabs(exact) >= 0.5);
    }
    printf("  %s (%d triangles): max |w_tree - w_exact| = %.2e over %d points, %d inside/outside flips\n",
           m ? "bunny" : "sphere", s->ntri, maxerr, n, wrong);
    ENSURE(maxerr < 0.04);
    ENSURE(wrong == 0);
    jl_winding_free(&w);

    /* embedded build: the same tets kept with ray parity and the winding number */
    JlTetgenDef def = jl_default_tetgen_def();
    def.mode = JL_TETGEN_EMBEDDED;
    JlTetMesh t[2];
    for (int k = 0; k < 2; k++) {
      def.winding = k;
      ENSURE_MSG(jl_tetgen_build(s, &def, &t[k], err, sizeof err) == JL_OK, "%s", err);
    }
    ENSURE(t[0].ntet == t[1].ntet && t[0].nnode == t[1].nnode);
    ENSURE(t[0].ntet == t[1].ntet && memcmp(t[0].tet, t[1].tet, sizeof(int) * 4 * (size_t)t[0].ntet) == 0);
    int full0 = 0, full1 = 0;
    for (int i = 0; i < t[0].ntet && t[0].ntet == t[1].ntet; i++) {
      full0 += t[0].fill[i] == 1.0;
      full1 += t[1].fill[i] == 1.0;
    }
    ENSURE(full0 == full1);
    jl_tetmesh_free(&t[0]);
    jl_tetmesh_free(&t[1]);
  }
  jl_surface_free(&sphere);
  jl_surface_free(&bunny);
}

/* the cost on about 100k triangles (printed, loosely bounded): the tree's
 * queries against the exact sum, and the embedded build with either test */
static void test_winding_speed(void) {
  JlSurface s;
  jl_shape_box((const double[3]){1, 1, 1}, 0.0109, &s);
  double t0 = jl_seconds();
  JlWinding w;
  jl_winding_build(&w, &s);
  double tb = jl_seconds() - t0;
  int n = 100000, nexact = 200;
  unsigned long long rng = 3;
  double *p = malloc(sizeof(double) * 3 * (size_t)n), sum = 0.0, maxerr = 0.0;
  for (int i = 0; i < 3 * n; i++) p[i] = -0.7 + 1.4 * jl_test_rnd(&rng);
  t0 = jl_seconds();
  for (int i = 0; i < n; i++) sum += jl_winding_number(&w, p + 3 * i);
  double tq = jl_seconds() - t0;
  t0 = jl_seconds();
  for (int i = 0; i < nexact; i++)
    maxerr = fmax(maxerr, fabs(jl_winding_number_exact(&s, p + 3 * i) - jl_winding_number(&w, p + 3 * i)));
  double te = (jl_seconds() - t0) / nexact;
  printf(
      "  %d triangles: tree built in %.3f s; %d queries in %.3f s (%.2f us each); exact sum %.0f us each "
      "(%.0fx slower); max error %.1e over %d points (mean w %.3f)\n",
      s.ntri, tb, n, tq, 1e6 * tq / n, 1e6 * te, te / (tq / n), maxerr, nexact, sum / n);
  ENSURE(s.ntri >= 100000);
  ENSURE(maxerr < 0.04);
  ENSURE(tq / n < 0.1 * te);
  free(p);
  jl_winding_free(&w);
  /* the whole embedded build (resolution 0.05 m: about 20k lattice points;
   * JL_TEST_SCAN_RES overrides it for the figures in docs/robustness.md) */
  JlTetgenDef def = jl_default_tetgen_def();
  def.mode = JL_TETGEN_EMBEDDED;
  def.resolution = getenv("JL_TEST_SCAN_RES") ? atof(getenv("JL_TEST_SCAN_RES")) : 0.05;
  double tt[2];
  int ntet[2];
  for (int k = 0; k < 2; k++) {
    char err[1024] = "";
    JlTetMesh t;
    def.winding = k;
    t0 = jl_seconds();
    ENSURE_MSG(jl_tetgen_build(&s, &def, &t, err, sizeof err) == JL_OK, "%s", err);
    tt[k] = jl_seconds() - t0;
    ntet[k] = t.ntet;
    jl_tetmesh_free(&t);
  }
  printf("  embedded build at %g m, %d tets: ray parity %.2f s, winding number %.2f s\n", def.resolution, ntet[1],
         tt[0], tt[1]);
  ENSURE(ntet[0] == ntet[1]);
  jl_surface_free(&s);
}

/* ---- imperfect surfaces in a scene ------------------------------------------------------- */

#define EMBED   "\"density\": 1000, \"tetgen\": {\"mode\": \"embedded\", \"resolution\": 0.05}"
#define CONFORM "\"density\": 1000"

/* a sphere with one triangle missing: embedded mode fills the sphere (mass
 * within 2% of the closed sphere's) and names the hole; conforming refuses */
static void test_sphere_with_hole(void) {
  JlSurface s;
  jl_shape_sphere(0.5, 0.1, &s);
  double vol = jl_surface_volume(&s);
  char err[4096] = "", log[8192];
  JlModel closed, open;
  char *text = scene_text(&s, EMBED);
  ENSURE_MSG(build(text, &closed, log, sizeof log, err, sizeof err) == JL_OK, "%s", err);
  free(text);
  ENSURE_REL(closed.body[0].mass, 1000 * vol, 1e-4); /* ray parity rescales the fill to the exact volume */
  ENSURE(!strstr(log, "winding"));
  s.ntri--; /* drop the last triangle */
  text = scene_text(&s, EMBED);
  ENSURE_MSG(build(text, &open, log, sizeof log, err, sizeof err) == JL_OK, "%s", err);
  free(text);
  printf("  sphere with a hole: mass %.4f kg, closed %.4f kg (%+.2f%%)\n", open.body[0].mass, 1000 * vol,
         100 * (open.body[0].mass / (1000 * vol) - 1));
  ENSURE_REL(open.body[0].mass, 1000 * vol, 0.02);
  ENSURE_MSG(strstr(log, "body 'scan': open surface: 3 boundary edges in 1 hole") &&
                 strstr(log, "embedded mode decides inside/outside by the generalized winding number"),
             "%s", log);
  jl_model_free(&open);
  /* a hole 0.6 m across facing +x (every triangle with x > 0.4 gone): ray
   * parity along +x would lose the cylinder behind it (about half the
   * sphere); the winding number caps it about flat, short of the spherical
   * cap of 1.47e-2 m^3 (2.8%) */
  JlSurface cap = s;
  cap.tri = malloc(sizeof(int) * 3 * (size_t)s.ntri);
  cap.ntri = 0;
  for (int t = 0; t < s.ntri; t++) {
    const int *f = s.tri + 3 * t;
    if (s.vert[3 * f[0]] > 0.4 && s.vert[3 * f[1]] > 0.4 && s.vert[3 * f[2]] > 0.4) continue;
    memcpy(cap.tri + 3 * cap.ntri++, f, sizeof(int) * 3);
  }
  text = scene_text(&cap, EMBED);
  free(cap.tri);
  ENSURE_MSG(build(text, &open, log, sizeof log, err, sizeof err) == JL_OK, "%s", err);
  free(text);
  printf("  sphere with a 0.6 m hole: mass %.4f kg, closed %.4f kg (%+.2f%%); %s\n", open.body[0].mass,
         closed.body[0].mass, 100 * (open.body[0].mass / closed.body[0].mass - 1), log);
  ENSURE(open.body[0].mass > 0.965 * closed.body[0].mass && open.body[0].mass < 0.99 * closed.body[0].mass);
  jl_model_free(&closed);
  jl_model_free(&open);
  /* conforming: refused, pointing to embedded mode */
  text = scene_text(&s, CONFORM);
  JlModel bad;
  ENSURE(build(text, &bad, log, sizeof log, err, sizeof err) == JL_ERR_INPUT);
  free(text);
  ENSURE_MSG(strstr(err, "open surface: 3 boundary edges in 1 hole") && strstr(err, "cannot tetrahedralize") &&
                 strstr(err, "embedded mode (\"tetgen\": {\"mode\": \"embedded\"}) accepts"),
             "%s", err);
  jl_surface_free(&s);
}

/* two unit boxes overlapping by half: one solid of 1.5 m^3 (ray parity would
 * leave the overlap out: 1 m^3) */
static void test_overlapping_boxes(void) {
  JlSurface box, two = {0};
  jl_shape_box((const double[3]){1, 1, 1}, 0.25, &box);
  append_surface(&two, &box, 0.0);
  append_surface(&two, &box, 0.5);
  char err[4096] = "", log[8192];
  JlModel m;
  char *text = scene_text(&two, EMBED);
  ENSURE_MSG(build(text, &m, log, sizeof log, err, sizeof err) == JL_OK, "%s", err);
  free(text);
  printf("  two boxes overlapping: mass %.2f kg (union 1500 kg, %+.2f%%)\n", m.body[0].mass,
         100 * (m.body[0].mass / 1500 - 1));
  ENSURE_REL(m.body[0].mass, 1500.0, 0.02);
  ENSURE_MSG(strstr(log, "body 'scan': self-intersecting:") && strstr(log, "generalized winding number"), "%s", log);
  jl_model_free(&m);
  text = scene_text(&two, CONFORM);
  ENSURE(build(text, &m, log, sizeof log, err, sizeof err) == JL_ERR_INPUT);
  free(text);
  ENSURE_MSG(strstr(err, "self-intersecting") && strstr(err, "embedded mode"), "%s", err);
  jl_surface_free(&box);
  jl_surface_free(&two);
}

/* two unit boxes touching along one edge (welded: 4 triangles per edge
 * there): non-manifold, still two solids of 1 m^3 each */
static void test_boxes_sharing_an_edge(void) {
  JlSurface box, two = {0};
  jl_shape_box((const double[3]){1, 1, 1}, 0.25, &box);
  append_surface(&two, &box, 0.0);
  for (int i = 0; i < box.nvert; i++) box.vert[3 * i + 1] += 1.0;
  append_surface(&two, &box, 1.0);
  char err[4096] = "", log[8192];
  JlModel m;
  char *text = scene_text(&two, EMBED);
  ENSURE_MSG(build(text, &m, log, sizeof log, err, sizeof err) == JL_OK, "%s", err);
  free(text);
  printf("  two boxes sharing an edge: mass %.2f kg (2000 kg, %+.2f%%)\n", m.body[0].mass,
         100 * (m.body[0].mass / 2000 - 1));
  ENSURE_REL(m.body[0].mass, 2000.0, 0.02);
  ENSURE_MSG(strstr(log, "body 'scan': non-manifold: 4 edges shared by more than two triangles") &&
                 strstr(log, "generalized winding number"),
             "%s", log);
  jl_model_free(&m);
  text = scene_text(&two, CONFORM);
  ENSURE(build(text, &m, log, sizeof log, err, sizeof err) == JL_ERR_INPUT);
  free(text);
  ENSURE_MSG(strstr(err, "non-manifold") && strstr(err, "embedded mode"), "%s", err);
  jl_surface_free(&box);
  jl_surface_free(&two);
}

/* an open sheet encloses nothing: an error in embedded mode too */
static void test_open_sheet(void) {
  JlSurface box, sheet = {0};
  jl_shape_box((const double[3]){1, 1, 1}, 0.25, &box);
  /* keep the triangles of the bottom face only */
  sheet.vert = malloc(sizeof(double) * 3 * (size_t)box.nvert);
  memcpy(sheet.vert, box.vert, sizeof(double) * 3 * (size_t)box.nvert);
  sheet.nvert = box.nvert;
  sheet.tri = malloc(sizeof(int) * 3 * (size_t)box.ntri);
  for (int t = 0; t < box.ntri; t++) {
    const int *f = box.tri + 3 * t;
    if (box.vert[3 * f[0] + 2] < -0.49 && box.vert[3 * f[1] + 2] < -0.49 && box.vert[3 * f[2] + 2] < -0.49)
      memcpy(sheet.tri + 3 * sheet.ntri++, f, sizeof(int) * 3);
  }
  ENSURE(sheet.ntri >= 4);
  char err[4096] = "", log[8192];
  JlModel m;
  char *text = scene_text(&sheet, EMBED);
  ENSURE(build(text, &m, log, sizeof log, err, sizeof err) == JL_ERR_INPUT);
  free(text);
  ENSURE_MSG(strstr(err, "encloses no volume"), "%s", err);
  jl_surface_free(&box);
  jl_surface_free(&sheet);
}

/* ---- units, size and precision ---------------------------------------------------------------- */

/* a file in millimetres with "units": "mm" is the body of the same file in metres */
static void test_units(void) {
  JlSurface s;
  jl_shape_sphere(0.5, 0.15, &s);
  const char *d = abs_tmpdir();
  char pm[PATH_MAX + 32], pmm[PATH_MAX + 32], text[3 * PATH_MAX], err[4096] = "", log[8192];
  snprintf(pm, sizeof pm, "%s/sphere_m.obj", d);
  snprintf(pmm, sizeof pmm, "%s/sphere_mm.obj", d);
  write_obj(pm, &s, 1.0, 0.0);
  write_obj(pmm, &s, 1000.0, 0.0);
  JlModel m[2];
  for (int k = 0; k < 2; k++) {
    snprintf(text, sizeof text,
             "{\"bodies\": [{\"name\": \"u\", \"mesh\": \"%s\"%s, \"translate\": [0, 1, 0], \"rotate_deg\": [0, 0, 30],"
             " \"tetgen\": {\"mode\": \"embedded\", \"resolution\": 0.1}}]}",
             k ? pmm : pm, k ? ", \"units\": \"mm\"" : "");
    ENSURE_MSG(build(text, &m[k], log, sizeof log, err, sizeof err) == JL_OK, "%s", err);
    ENSURE_MSG(!strstr(log, "across"), "%s", log);
  }
  ENSURE_REL(m[1].body[0].mass, m[0].body[0].mass, 1e-6);
  ENSURE(m[0].nnode == m[1].nnode);
  double maxd = 0.0;
  for (int i = 0; i < 3 * m[0].nnode && m[0].nnode == m[1].nnode; i++) maxd = fmax(maxd, fabs(m[0].x0[i] - m[1].x0[i]));
  ENSURE(maxd < 1e-6);
  jl_model_free(&m[0]);
  jl_model_free(&m[1]);
  /* without "units" the same file is a 1.7 km body: the hint says so */
  snprintf(text, sizeof text,
           "{\"bodies\": [{\"name\": \"u\", \"mesh\": \"%s\", \"tetgen\": {\"mode\": \"embedded\"}}]}", pmm);
  ENSURE_MSG(build(text, &m[0], log, sizeof log, err, sizeof err) == JL_OK, "%s", err);
  ENSURE_MSG(strstr(log, "is the mesh in millimetres or centimetres? set \"units\": \"mm\""), "%s", log);
  jl_model_free(&m[0]);
  /* "units" on a generated shape, or an unknown unit: refused naming the key */
  JlScene sc;
  ENSURE(jl_scene_parse("{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"units\": \"mm\"}]}",
                        JL_SOURCE_DIR "/tests/x.json", &sc, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "bodies[0].units: applies to a \"mesh\""), "%s", err);
  snprintf(text, sizeof text, "{\"bodies\": [{\"mesh\": \"%s\", \"units\": \"inch\"}]}", pm);
  ENSURE(jl_scene_parse(text, JL_SOURCE_DIR "/tests/x.json", &sc, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "bodies[0].units: unknown unit 'inch'"), "%s", err);
  jl_surface_free(&s);
}

/* the size hint at 60 m and 0.5 mm (bounding-box diagonals), not at 1 m */
static void test_size_hints(void) {
  JlSurface s;
  double a = 1.0 / sqrt(3.0); /* a cube of diagonal 1 */
  jl_shape_box((const double[3]){a, a, a}, 0.0, &s);
  static const double scale[3] = {60.0, 0.0005, 1.0};
  for (int k = 0; k < 3; k++) {
    char extra[128], err[4096] = "", log[8192];
    snprintf(extra, sizeof extra, "\"scale\": %g", scale[k]);
    char *text = scene_text(&s, extra);
    JlModel m;
    JlResult r = build(text, &m, log, sizeof log, err, sizeof err);
    free(text);
    ENSURE_MSG(r == JL_OK, "%s", err);
    if (r == JL_OK) jl_model_free(&m);
    if (k == 0)
      ENSURE_MSG(strstr(log, "body 'scan': 60 m across (bounding-box diagonal): is the mesh in millimetres"), "%s",
                 log);
    if (k == 1)
      ENSURE_MSG(
          strstr(log, "body 'scan': 0.0005 m across (bounding-box diagonal): the mesh's numbers are taken as metres"),
          "%s", log);
    if (k == 2) ENSURE_MSG(!strstr(log, "across"), "%s", log);
  }
  jl_surface_free(&s);
}

/* a 1 m sphere 1e6 m from the origin in an OBJ file: the float32 hint, and
 * the validation error names precision as the likely cause; centred, silent */
static void test_precision_hint(void) {
  JlSurface s;
  jl_shape_sphere(0.5, 0.03, &s);
  const char *d = abs_tmpdir();
  char far[PATH_MAX + 32], text[3 * PATH_MAX], err[4096] = "", log[8192];
  snprintf(far, sizeof far, "%s/sphere_far.obj", d);
  for (int k = 0; k < 2; k++) {
    write_obj(far, &s, 1.0, k ? 0.0 : 1e6);
    snprintf(text, sizeof text, "{\"bodies\": [{\"name\": \"far\", \"mesh\": \"%s\"}]}", far);
    JlModel m;
    JlResult r = build(text, &m, log, sizeof log, err, sizeof err);
    if (r == JL_OK) jl_model_free(&m);
    if (k == 0) {
      ENSURE_MSG(strstr(log, "body 'far': the mesh is 1.73 across but 1e+06 from the origin in its file") &&
                     strstr(log, "centre the mesh in the file and place it with \"translate\""),
                 "%s", log);
      printf("  sphere 1e6 m out: %s\n", r == JL_OK ? "built" : err);
      if (r != JL_OK) ENSURE_MSG(strstr(err, "float32 rounding on import is the likely cause"), "%s", err);
    } else {
      ENSURE_MSG(r == JL_OK, "%s", err);
      ENSURE_MSG(!strstr(log, "origin"), "%s", log);
    }
  }
  jl_surface_free(&s);
}

/* the commands: `jelly check` on a sphere with a missing triangle says
 * embedded mode accepts it (exit 2: conforming is the default);
 * `jelly mesh --mode embedded` builds it with the winding-number warning,
 * `jelly mesh` (conforming) refuses it naming --mode embedded */
static void test_commands(void) {
  JlSurface s;
  jl_shape_sphere(0.5, 0.1, &s);
  s.ntri--;
  char path[PATH_MAX + 32], cmd[2 * PATH_MAX + 128], out[1 << 15];
  snprintf(path, sizeof path, "%s/holed.obj", abs_tmpdir());
  write_obj(path, &s, 1.0, 0.0);
  jl_surface_free(&s);
  snprintf(cmd, sizeof cmd, "'%s' check '%s' 2>&1", JL_JELLY_EXE, path);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "open surface") && strstr(out, "embedded mode") &&
                 strstr(out, "generalized winding number"),
             "check: exit %d\n%s", rc, out);
  snprintf(cmd, sizeof cmd, "'%s' mesh '%s' --mode embedded 2>&1", JL_JELLY_EXE, path);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0 && strstr(out, "warning") && strstr(out, "generalized winding number") && strstr(out, "tets"),
             "mesh --mode embedded: exit %d\n%s", rc, out);
  snprintf(cmd, sizeof cmd, "'%s' mesh '%s' 2>&1", JL_JELLY_EXE, path);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "cannot tetrahedralize") && strstr(out, "--mode embedded accepts"),
             "mesh: exit %d\n%s", rc, out);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"winding_agrees", test_winding_agrees}, {"winding_speed", test_winding_speed, JL_SCENE},
             {"sphere_with_hole", test_sphere_with_hole, JL_ROBUSTNESS},
             {"overlapping_boxes", test_overlapping_boxes, JL_ROBUSTNESS},
             {"boxes_sharing_an_edge", test_boxes_sharing_an_edge, JL_ROBUSTNESS}, {"open_sheet", test_open_sheet},
             {"units", test_units}, {"size_hints", test_size_hints}, {"precision_hint", test_precision_hint},
             {"commands", test_commands, JL_PROGRAM})
