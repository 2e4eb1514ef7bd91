/* jl_initial_overlaps (src/overlap.h): bodies that start inside each other,
 * below the ground or inside a static obstacle, with the depth of the
 * deepest node, on lattice boxes whose overlaps are known exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/overlap.h"
#include "tests/harness.h"
#include "tests/lattice.h"

/* nb axis-aligned lattice boxes lo[b]..hi[b], box 0 with 4 cubes along each
 * axis, the others with one */
static JlResult boxes(JlModel *m, int nb, const double (*lo)[3], const double (*hi)[3], const JlWorldDef *wd) {
  JlTetMesh t[4];
  JlBodyDef defs[4];
  memset(t, 0, sizeof t);
  memset(defs, 0, sizeof defs);
  for (int b = 0; b < nb && b < 4; b++) {
    int n = b == 0 ? 4 : 1;
    lattice_box(&t[b], lo[b], hi[b], n, n, n);
    defs[b] = jl_default_body_def();
    snprintf(defs[b].name, sizeof defs[b].name, "box%d", b);
  }
  char err[512];
  JlResult r = jl_model_build(m, nb, t, NULL, defs, wd, err, sizeof err);
  if (r) fprintf(stderr, "boxes: %s\n", err);
  for (int b = 0; b < nb; b++) jl_tetmesh_free(&t[b]);
  return r;
}

/* The unit cube and a larger box (one lattice cube, all its nodes outside the
 * first) reaching 5 cm into it along x. Every edge from a penetrating node to
 * the outside crosses the same face 5 cm away, so the consistent depth
 * estimate is exact here; in general it is a weighted mean over such
 * crossings (collision/depth.h), not the exact distance to the surface. */
static const double g_lo[2][3] = {{0, 0, 0}, {0.95, -0.45, -0.45}}, g_hi[2][3] = {{1, 1, 1}, {1.95, 1.55, 1.55}};

static void test_two_boxes_overlap_by_5cm(void) {
  const double(*lo)[3] = g_lo, (*hi)[3] = g_hi;
  JlWorldDef wd = jl_default_world_def();
  JlModel m;
  ENSURE(boxes(&m, 2, lo, hi, &wd) == JL_OK);
  JlOverlap ov[4];
  int n = jl_initial_overlaps(&m, m.x0, ov, 4);
  ENSURE_MSG(n == 1, "%d overlaps, want 1", n);
  ENSURE(ov[0].a == 0 && ov[0].b == 1);
  ENSURE_NEAR(ov[0].depth, 0.05, 1e-9);
  jl_model_free(&m);
}

/* apart or touching face to face: nothing to report */
static void test_apart_and_touching(void) {
  JlWorldDef wd = jl_default_world_def();
  wd.has_ground = 1; /* the cubes stand on y = 0 */
  for (int k = 0; k < 2; k++) {
    double x0 = k == 0 ? 1.5 : 1.0;
    const double lo[2][3] = {{0, 0, 0}, {x0, 0, 0}}, hi[2][3] = {{1, 1, 1}, {x0 + 1, 1, 1}};
    JlModel m;
    ENSURE(boxes(&m, 2, lo, hi, &wd) == JL_OK);
    JlOverlap ov[4];
    int n = jl_initial_overlaps(&m, m.x0, ov, 4);
    ENSURE_MSG(n == 0, "%s: %d overlaps (first %d-%d, %g m)", k == 0 ? "apart" : "touching", n, ov[0].a, ov[0].b,
               ov[0].depth);
    jl_model_free(&m);
  }
}

/* ground and obstacles, in the documented order, and max smaller than the count */
static void test_ground_obstacles_and_order(void) {
  JlObstacle obs[2] = {jl_default_obstacle(), jl_default_obstacle()};
  obs[0].type = JL_OBSTACLE_SPHERE; /* far away: touches nothing */
  obs[0].radius = 0.3;
  obs[0].translate[0] = 10.0;
  obs[1].type = JL_OBSTACLE_BOX; /* [-0.9, 0.1] x [0, 1] x [0, 1]: 10 cm into box0 */
  obs[1].translate[0] = -0.4, obs[1].translate[1] = 0.5, obs[1].translate[2] = 0.5;
  JlWorldDef wd = jl_default_world_def();
  wd.has_ground = 1;
  wd.ground_y = 0.2; /* box0 20 cm below, box1 65 cm below */
  wd.nobstacle = 2;
  wd.obstacle = obs;
  const double(*lo)[3] = g_lo, (*hi)[3] = g_hi;
  JlModel m;
  ENSURE(boxes(&m, 2, lo, hi, &wd) == JL_OK);
  JlOverlap ov[8];
  int n = jl_initial_overlaps(&m, m.x0, ov, 8);
  ENSURE_MSG(n == 4, "%d overlaps, want 4", n);
  const JlOverlap want[4] = {
      {0, 1, 0.05}, {0, JL_OVERLAP_GROUND, 0.2}, {0, JL_OVERLAP_OBSTACLE(1), 0.1}, {1, JL_OVERLAP_GROUND, 0.65}};
  for (int i = 0; i < 4; i++) {
    ENSURE_MSG(ov[i].a == want[i].a && ov[i].b == want[i].b, "entry %d is (%d, %d), want (%d, %d)", i, ov[i].a, ov[i].b,
               want[i].a, want[i].b);
    ENSURE_NEAR(ov[i].depth, want[i].depth, 1e-9);
  }
  /* fewer slots than overlaps: the first ones, same count */
  JlOverlap two[2];
  ENSURE(jl_initial_overlaps(&m, m.x0, two, 2) == 4);
  ENSURE(memcmp(two, ov, sizeof two) == 0);
  ENSURE(jl_initial_overlaps(&m, m.x0, NULL, 0) == 4);
  /* the positions given count, not the model's rest positions */
  double *x = jl_calloc(3 * (size_t)m.nnode, sizeof(double));
  for (int i = 0; i < m.nnode; i++) {
    x[3 * i] = m.x0[3 * i] + 3.0 * (m.node_body[i] == 1); /* box1 3 m away along x */
    x[3 * i + 1] = m.x0[3 * i + 1] + 1.5;                 /* both lifted 1.5 m: clear of all */
    x[3 * i + 2] = m.x0[3 * i + 2];
  }
  n = jl_initial_overlaps(&m, x, ov, 8);
  ENSURE_MSG(n == 0, "%d overlaps after moving apart", n);
  free(x);
  jl_model_free(&m);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"two_boxes_overlap_by_5cm", test_two_boxes_overlap_by_5cm},
             {"apart_and_touching", test_apart_and_touching},
             {"ground_obstacles_and_order", test_ground_obstacles_and_order})
