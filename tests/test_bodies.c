/* Bodies: lumped masses, pins, input validation and a hanging bar settled
 * under gravity (pin reaction equals the weight; the stretch matches
 * rho g L^2 / (2 E) when the springs come from a Young's modulus). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/world.h"
#include "tests/harness.h"
#include "tests/lattice.h"


static void test_lumped_mass(void) {
  double lo[3] = {-0.3, 0.1, 0.2}, hi[3] = {0.5, 0.4, 0.45};
  JlTetMesh t;
  lattice_box(&t, lo, hi, 4, 3, 2);
  /* jitter interior nodes so tets have different volumes */
  for (int i = 0; i < t.nnode; i++) {
    double *x = t.node + 3 * i;
    int interior = 1;
    for (int k = 0; k < 3; k++) interior &= x[k] > lo[k] + 1e-9 && x[k] < hi[k] - 1e-9;
    if (interior)
      for (int k = 0; k < 3; k++) x[k] += 0.01 * sin(17.0 * i + 3.0 * k);
  }
  JlBodyDef def = jl_default_body_def();
  def.density = 737.5;
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  char err[256];
  ENSURE(jl_model_build(&m, 1, &t, NULL, &def, &wd, err, sizeof err) == JL_OK);
  double volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]), sum = 0, tv = 0;
  for (int i = 0; i < m.nnode; i++) {
    ENSURE(m.mass[i] > 0);
    sum += m.mass[i];
  }
  for (int e = 0; e < m.ntet; e++) tv += m.tet_volume[e];
  ENSURE_REL(tv, volume, 1e-12);
  ENSURE_REL(sum, def.density * volume, 1e-12);
  ENSURE_REL(m.body[0].mass, def.density * volume, 1e-12);
  /* springs are the unique edges; every node appears in the adjacency */
  ENSURE(m.nspring == t.nedge);
  for (int i = 0; i < m.nnode; i++) {
    ENSURE(m.adj_start[i + 1] > m.adj_start[i]);
    for (int p = m.adj_start[i] + 1; p < m.adj_start[i + 1]; p++) ENSURE(m.adj[p - 1] < m.adj[p]);
  }
  ENSURE(m.nface == t.nface && m.nface == 2 * 2 * (4 * 3 + 3 * 2 + 4 * 2));
  ENSURE_NEAR(m.body[0].size, sqrt(0.8 * 0.8 + 0.3 * 0.3 + 0.25 * 0.25), 1e-12);
  jl_model_free(&m);
  jl_tetmesh_free(&t);
}

static void test_pins(void) {
  double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.3, 0.2};
  JlTetMesh t;
  lattice_box(&t, lo, hi, 4, 3, 2);
  JlBodyDef def = jl_default_body_def();
  def.has_pin_box = 1;
  double blo[3] = {0.15, -1, 0.05}, bhi[3] = {0.35, 0.1, 1};
  memcpy(def.pin_box[0], blo, sizeof blo);
  memcpy(def.pin_box[1], bhi, sizeof bhi);
  int list[2] = {0, 7};
  def.npin = 2;
  def.pin = list;
  def.velocity[2] = 2.0;
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  char err[256];
  /* two bodies: the second (unpinned) shifts the global numbering */
  JlTetMesh both[2] = {t, t};
  JlBodyDef defs[2] = {jl_default_body_def(), def};
  ENSURE(jl_model_build(&m, 2, both, NULL, defs, &wd, err, sizeof err) == JL_OK);
  int off = m.body[1].node_begin, expected = 0, got = 0;
  ENSURE(off == t.nnode);
  for (int i = 0; i < t.nnode; i++) {
    const double *x = t.node + 3 * i;
    /* inside the box: x in [0.15, 0.35] -> i = 2, 3; y <= 0.1 -> j = 0, 1; z >= 0.05 -> k = 1, 2 */
    int in = x[0] >= 0.15 && x[0] <= 0.35 && x[1] <= 0.1 && x[2] >= 0.05;
    int want = in || i == 0 || i == 7;
    expected += want;
    got += m.pinned[off + i];
    ENSURE_MSG(m.pinned[off + i] == want, "node %d: pinned %d, expected %d", i, m.pinned[off + i], want);
    ENSURE(!m.pinned[i]); /* body 0 has no pins */
    /* pinned nodes start at rest, the others with the body's velocity */
    ENSURE(m.v0[3 * (off + i) + 2] == (want ? 0.0 : 2.0));
  }
  ENSURE(expected == 2 * 2 * 2 + 2 && got == expected);
  ENSURE(m.body[1].spring_begin == m.body[0].spring_count && m.body[1].tet_begin == t.ntet);
  ENSURE(m.spring_node[2 * m.body[1].spring_begin] >= off);
  jl_model_free(&m);
  jl_tetmesh_free(&t);
}

static void test_invalid_defs(void) {
  double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.2, 0.2};
  JlTetMesh t;
  lattice_box(&t, lo, hi, 2, 2, 2);
  JlWorldDef wd = jl_default_world_def();
  int bad_pin = 27;
  for (int c = 0; c < 9; c++) {
    JlBodyDef def = jl_default_body_def();
    snprintf(def.name, sizeof def.name, "jelly42");
    const char *what = "";
    switch (c) {
      case 0:
        def.density = 0, what = "density";
        break;
      case 1:
        def.density = -5, what = "density";
        break;
      case 2:
        def.density = NAN, what = "density";
        break;
      case 3:
        def.stiffness = -1, what = "stiffness";
        break;
      case 4:
        def.damping = -0.1, what = "damping";
        break;
      case 5:
        def.young_modulus = INFINITY, what = "young_modulus";
        break;
      case 6:
        def.velocity[1] = NAN, what = "velocity";
        break;
      case 7:
        def.npin = 1, def.pin = &bad_pin, what = "27";
        break;
      case 8:
        def.has_pin_box = 1, def.pin_box[0][0] = 1, def.pin_box[1][0] = 0, what = "pin box";
        break;
    }
    JlModel m;
    char err[256] = "";
    JlResult r = jl_model_build(&m, 1, &t, NULL, &def, &wd, err, sizeof err);
    ENSURE_MSG(r == JL_ERR_INPUT, "case %d accepted", c);
    ENSURE_MSG(strstr(err, "'jelly42'") && strstr(err, what), "case %d message: %s", c, err);
    ENSURE(m.nnode == 0 && m.mass == NULL); /* nothing left allocated */
  }
  /* a default name when the def has none; world values are checked too */
  JlBodyDef defs[2] = {jl_default_body_def(), jl_default_body_def()};
  defs[1].density = 0;
  JlTetMesh both[2] = {t, t};
  JlModel m;
  char err[256] = "";
  ENSURE(jl_model_build(&m, 2, both, NULL, defs, &wd, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "'body1'") != NULL, "%s", err);
  wd.ground_friction = -1;
  ENSURE(jl_model_build(&m, 1, &t, NULL, defs, &wd, err, sizeof err) == JL_ERR_INPUT);
  ENSURE(strstr(err, "friction") != NULL);
  /* a step def with a bad tolerance is rejected by jl_world_create, which frees the model */
  wd = jl_default_world_def();
  ENSURE(jl_model_build(&m, 1, &t, NULL, defs, &wd, err, sizeof err) == JL_OK);
  JlStepDef sd = jl_default_step_def();
  sd.tolerance = 0;
  JlWorld w;
  ENSURE(jl_world_create(&w, &m, &sd, err, sizeof err) == JL_ERR_INPUT);
  ENSURE(m.nnode == 0 && strstr(err, "tolerance"));
  jl_tetmesh_free(&t);
}

static void test_surface_embedding(void) {
  /* two bodies, the second one's surface is tracked: its tets and nodes are offset */
  double lo0[3] = {0, 0, 0}, hi0[3] = {0.3, 0.2, 0.2}, lo1[3] = {1, 0, 0}, hi1[3] = {1.2, 0.4, 0.2};
  JlTetMesh t[2];
  lattice_box(&t[0], lo0, hi0, 3, 2, 2);
  lattice_box(&t[1], lo1, hi1, 2, 4, 2);
  double pts[5][3] = {{1.05, 0.05, 0.05}, {1.15, 0.33, 0.1}, {1.0, 0.0, 0.0}, {1.2, 0.4, 0.2}, {1.11, 0.21, 0.17}};
  JlSurface surf[2];
  memset(surf, 0, sizeof surf);
  surf[1].nvert = 5;
  surf[1].vert = &pts[0][0];
  JlBodyDef defs[2] = {jl_default_body_def(), jl_default_body_def()};
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  char err[256];
  ENSURE_MSG(jl_model_build(&m, 2, t, surf, defs, &wd, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(m.body[0].embed.nvert == 0 && m.body[1].embed.nvert == 5 && m.body[1].surface.nvert == 5);
  JlStepDef sd = jl_default_step_def();
  JlWorld w;
  ENSURE(jl_world_create(&w, &m, &sd, err, sizeof err) == JL_OK);
  double out[5][3];
  jl_world_surface(&w, 1, &out[0][0]);
  for (int v = 0; v < 5; v++)
    for (int k = 0; k < 3; k++) ENSURE_NEAR(out[v][k], pts[v][k], 1e-12);
  /* move body 1 rigidly (translate and stretch along y): the surface follows */
  for (int i = w.model->body[1].node_begin; i < w.state.nnode; i++) {
    w.state.x[3 * i] += 0.5;
    w.state.x[3 * i + 1] *= 2.0;
  }
  jl_world_surface(&w, 1, &out[0][0]);
  for (int v = 0; v < 5; v++) {
    ENSURE_NEAR(out[v][0], pts[v][0] + 0.5, 1e-12);
    ENSURE_NEAR(out[v][1], 2.0 * pts[v][1], 1e-12);
    ENSURE_NEAR(out[v][2], pts[v][2], 1e-12);
  }
  jl_world_destroy(&w);
  jl_tetmesh_free(&t[0]);
  jl_tetmesh_free(&t[1]);
}

/* A vertical bar of cross-section a x a and length L hanging from its pinned
 * top face (y = L), settled with implicit Euler. Returns the downward
 * displacement of the bottom face's centre and the pin reaction. */
typedef struct Bar {
  double stretch;  /* m */
  double reaction; /* N, upward */
  double weight;   /* N */
  double max_strain;
  double kinetic;
} Bar;

static int hang_bar(int n_side, int n_len, double young, double stiffness, Bar *out) {
  const double a = 0.2, L = 1.0;
  double lo[3] = {0, 0, 0}, hi[3] = {a, L, a};
  JlBodyDef def = jl_default_body_def();
  snprintf(def.name, sizeof def.name, "bar");
  def.density = 1000;
  def.young_modulus = young;
  def.stiffness = stiffness;
  def.damping = 5.0;
  def.has_pin_box = 1;
  double blo[3] = {-1, L - 1e-9, -1}, bhi[3] = {2, 2, 2};
  memcpy(def.pin_box[0], blo, sizeof blo);
  memcpy(def.pin_box[1], bhi, sizeof bhi);
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  char err[256];
  if (lattice_model(&m, lo, hi, n_side, n_len, n_side, &def, &wd, err, sizeof err) != JL_OK) return 0;
  JlStepDef sd = jl_default_step_def();
  sd.tolerance = 1e-9;
  sd.max_iterations = 5000;
  JlWorld w;
  if (jl_world_create(&w, &m, &sd, err, sizeof err) != JL_OK) return 0;
  const JlModel *mm = w.model;
  JlEnergy e;
  for (int s = 0; s < 600; s++) {
    JlStepReport rep;
    if (jl_world_step(&w, 1.0 / 60.0, &rep) != JL_OK) return 0;
    jl_world_energy(&w, &e);
    if (s > 50 && e.kinetic < 1e-14) break;
  }
  /* reaction = -(sum of all forces on the pinned nodes) */
  double *f = jl_calloc(3 * (size_t)mm->nnode, sizeof(double));
  jl_world_forces(&w, w.state.x, w.state.v, f, NULL);
  double ry = 0, disp = 0;
  int nbottom = 0;
  for (int i = 0; i < mm->nnode; i++) {
    if (mm->pinned[i]) ry -= f[3 * i + 1];
    if (mm->x0[3 * i + 1] == 0.0) {
      disp += mm->x0[3 * i + 1] - w.state.x[3 * i + 1];
      nbottom++;
    }
  }
  out->stretch = disp / nbottom;
  out->reaction = ry;
  out->weight = mm->body[0].mass * 9.81;
  out->max_strain = jl_world_max_strain(&w);
  out->kinetic = e.kinetic;
  free(f);
  jl_world_destroy(&w);
  return 1;
}

static void test_hanging_bar_reaction(void) {
  Bar bar;
  ENSURE(hang_bar(2, jl_test_quick() ? 6 : 10, 0.0, 2e4, &bar));
  printf("  reaction %.6f N, weight %.6f N, kinetic %.3g J\n", bar.reaction, bar.weight, bar.kinetic);
  ENSURE_REL(bar.reaction, bar.weight, 1e-3);
  ENSURE(bar.stretch > 1e-4); /* it did sag */
}

static void test_hanging_bar_stretch(void) {
  const double rho = 1000, g = 9.81, L = 1.0, E = 2.5e5;
  const double expect = rho * g * L * L / (2 * E);
  int res[2][2] = {{2, 8}, {3, 12}};
  if (!jl_test_quick()) res[1][0] = 4, res[1][1] = 16;
  for (int r = 0; r < 2; r++) {
    Bar bar;
    ENSURE(hang_bar(res[r][0], res[r][1], E, 0.0, &bar));
    printf("  %dx%dx%d: stretch %.5f m, rho g L^2/(2E) = %.5f m (ratio %.3f), max strain %.3f\n", res[r][0], res[r][1],
           res[r][0], bar.stretch, expect, bar.stretch / expect, bar.max_strain);
    ENSURE(bar.max_strain < 0.05);
    ENSURE_MSG(fabs(bar.stretch / expect - 1) < 0.3, "stretch %.5f vs %.5f", bar.stretch, expect);
    ENSURE_REL(bar.reaction, bar.weight, 1e-3);
  }
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"lumped_mass", test_lumped_mass}, {"pins", test_pins}, {"invalid_defs", test_invalid_defs},
             {"surface_embedding", test_surface_embedding},
             {"hanging_bar_reaction", test_hanging_bar_reaction, JL_SCENE | JL_SHORT},
             {"hanging_bar_stretch", test_hanging_bar_stretch, JL_SCENE | JL_SHORT})
