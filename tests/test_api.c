/* The public API as an embedding program sees it: this file includes only
 * <jelly/jelly.h> and the harness, is compiled with src/include as the only
 * Jelly include folder and links the shared library, whose only exported
 * symbols are the JELLY_API functions (CMakeLists.txt), so reaching for an
 * internal function fails to link.
 *
 * Physics checks use cases with exact answers for implicit Euler: a free
 * body under uniform gravity does not deform, so its mean height after n
 * steps of h is y0 - g h^2 n (n + 1) / 2, within g t h of g t^2 / 2; springs
 * conserve momentum, so a constant force F on one node changes the total
 * momentum by F t. Bad arguments must come back as error codes with text.
 *
 * Model and state: worlds of one model share its built bodies (the same
 * triangle array) and keep their own pins; a copied, saved and loaded
 * state steps on bitwise like the original, and two worlds of one model on
 * two threads end bitwise where sequential runs do. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jelly/jelly.h>

#include "harness.h"

/* a unit cube centred at the origin, triangles counter-clockwise from outside */
static const double CUBE_V[8 * 3] = {-0.5, -0.5, -0.5, 0.5, -0.5, -0.5, 0.5, 0.5, -0.5, -0.5, 0.5, -0.5,
                                     -0.5, -0.5, 0.5,  0.5, -0.5, 0.5,  0.5, 0.5, 0.5,  -0.5, 0.5, 0.5};
static const int CUBE_T[12 * 3] = {0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                   3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};

/* a model of one cube (conforming tets, at most 0.01 m^3 each) with the given gravity, that the
 * caller frees */
static JellyModel *cube_model(double gy, double dt) {
  char err[512];
  JellyModelDef md = jelly_default_model_def();
  md.gravity[1] = gy;
  md.dt = dt;
  JellyModel *m = NULL;
  if (jelly_model_new(&md, &m, err, sizeof err)) return NULL;
  JellyBodyDef bd = jelly_default_body_def();
  bd.name = "cube";
  bd.young_modulus = 1e5;
  bd.poisson_ratio = 0.3;
  bd.max_volume = 0.01;
  bd.translate[1] = 2.0;
  if (jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err)) {
    printf("  cube: %s\n", err);
    jelly_model_free(m);
    return NULL;
  }
  return m;
}

/* a world of cube_model's cube */
static JellyWorld *cube_world(double gy, double dt) {
  char err[512];
  JellyModel *m = cube_model(gy, dt);
  JellyWorld *w = NULL;
  if (m && jelly_world_new(m, &w, err, sizeof err)) printf("  cube: %s\n", err);
  jelly_model_free(m); /* the world keeps its model alive */
  return w;
}

/* mass-weighted mean of coordinate k of positions (k < 3) or velocities (k >= 3) */
static double mean(const JellyWorld *w, int k, double *total_mass) {
  const double *a = k < 3 ? jelly_world_positions(w) : jelly_world_velocities(w);
  double sm = 0, s = 0;
  for (int i = 0; i < jelly_world_node_count(w); i++) {
    double mi = 0;
    jelly_world_node_mass(w, i, &mi, NULL, 0);
    sm += mi;
    s += mi * a[3 * i + k % 3];
  }
  if (total_mass) *total_mass = sm;
  return s / sm;
}

static void test_version(void) {
  ENSURE(strcmp(jelly_version(), JELLY_VERSION) == 0);
  char v[32];
  snprintf(v, sizeof v, "%d.%d.%d", JELLY_VERSION_MAJOR, JELLY_VERSION_MINOR, JELLY_VERSION_PATCH);
  ENSURE(strcmp(v, JELLY_VERSION) == 0);
  ENSURE(JELLY_VERSION_NUMBER == JELLY_VERSION_MAJOR * 10000 + JELLY_VERSION_MINOR * 100 + JELLY_VERSION_PATCH);
}

static void test_scene_steps(void) {
  char err[1024];
  JellyModel *m = NULL;
  JellyResult r = jelly_model_load(JL_MODELS_DIR "/scenes/default.json", &m, err, sizeof err);
  ENSURE_MSG(r == JELLY_OK, "load: %s", err);
  ENSURE(jelly_model_body_count(m) == 2);
  JellyWorld *w = NULL;
  r = jelly_world_new(m, &w, err, sizeof err);
  jelly_model_free(m);
  ENSURE_MSG(r == JELLY_OK, "world: %s", err);
  int n = jelly_world_node_count(w);
  ENSURE(n > 0 && jelly_world_body_count(w) == 2);
  JellyBodyInfo bi;
  ENSURE(jelly_world_body_info(w, 0, &bi, err, sizeof err) == JELLY_OK);
  ENSURE(strcmp(bi.name, "bunny") == 0 && bi.first_node == 0 && bi.node_count > 0 && bi.mass > 0);
  double y0 = jelly_world_positions(w)[3 * 0 + 1];
  r = jelly_world_step(w, 1.0 / 30.0, err, sizeof err);
  ENSURE_MSG(r == JELLY_OK, "step: %s", err);
  ENSURE_NEAR(jelly_world_time(w), 1.0 / 30.0, 1e-12);
  ENSURE(jelly_world_positions(w)[1] < y0); /* the bunny falls */
  const double *sv;
  const int *st;
  int nv, nt;
  ENSURE(jelly_world_body_surface(w, 0, &sv, &nv, &st, &nt, err, sizeof err) == JELLY_OK);
  ENSURE(nv == bi.vertex_count && nt == bi.triangle_count && nt > 0);
  for (int i = 0; i < 3 * nv; i++) ENSURE(isfinite(sv[i]));
  JellyWarnings wr;
  ENSURE(jelly_world_warnings(w, &wr, err, sizeof err) == JELLY_OK);
  ENSURE(wr.steps >= 2 && wr.diverged == 0);
  jelly_world_free(w);
}

static void test_free_fall(void) {
  const double g = 9.81, h = 1.0 / 60.0;
  const int n = 30;
  JellyWorld *w = cube_world(-g, h);
  ENSURE(w);
  double y0 = mean(w, 1, NULL);
  ENSURE_NEAR(y0, 2.0, 1e-9);
  char err[256];
  ENSURE_MSG(jelly_world_step(w, n * h, err, sizeof err) == JELLY_OK, "%s", err);
  double t = jelly_world_time(w), drop = y0 - mean(w, 1, NULL);
  /* implicit Euler's exact discrete drop, and the continuous one within g t h */
  ENSURE_REL(drop, g * h * h * n * (n + 1) / 2.0, 1e-4);
  ENSURE_NEAR(drop, 0.5 * g * t * t, g * t * h);
  ENSURE_REL(mean(w, 4, NULL), -g * t, 1e-4);
  /* the embedded surface fell with the nodes */
  const double *sv;
  int nv;
  ENSURE(jelly_world_body_surface(w, 0, &sv, &nv, NULL, NULL, err, sizeof err) == JELLY_OK);
  ENSURE(nv == 8);
  for (int i = 0; i < nv; i++) ENSURE_NEAR(sv[3 * i + 1], CUBE_V[3 * i + 1] + 2.0 - drop, 1e-3);
  jelly_world_free(w);
}

static void test_pin(void) {
  JellyWorld *w = cube_world(-9.81, 1.0 / 60.0);
  ENSURE(w);
  char err[256];
  double p0[3];
  memcpy(p0, jelly_world_positions(w), sizeof p0);
  ENSURE(jelly_world_pin(w, 0, 1, err, sizeof err) == JELLY_OK);
  ENSURE_MSG(jelly_world_step(w, 0.25, err, sizeof err) == JELLY_OK, "%s", err);
  const double *x = jelly_world_positions(w), *v = jelly_world_velocities(w);
  for (int k = 0; k < 3; k++) ENSURE(x[k] == p0[k] && v[k] == 0.0);
  /* the rest hangs from it, below it: some node is well below */
  double lo = INFINITY;
  for (int i = 0; i < jelly_world_node_count(w); i++) lo = fmin(lo, x[3 * i + 1]);
  ENSURE(lo < p0[1] - 0.1);
  /* released, it falls */
  ENSURE(jelly_world_pin(w, 0, 0, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_step(w, 0.1, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_positions(w)[1] < p0[1]);
  jelly_world_free(w);
}

static void test_external_force(void) {
  JellyWorld *w = cube_world(0.0, 1.0 / 60.0);
  ENSURE(w);
  char err[256];
  const double F[3] = {3.0, 0.0, -1.5};
  int node = jelly_world_node_count(w) / 2;
  ENSURE(jelly_world_set_force(w, node, F, err, sizeof err) == JELLY_OK);
  ENSURE_MSG(jelly_world_step(w, 0.5, err, sizeof err) == JELLY_OK, "%s", err);
  double t = jelly_world_time(w), M;
  /* springs conserve momentum: the centre of mass accelerates as F / M */
  double vx = mean(w, 3, &M), vz = mean(w, 5, NULL);
  ENSURE_REL(M * vx, F[0] * t, 1e-4);
  ENSURE_REL(M * vz, F[2] * t, 1e-4);
  ENSURE_NEAR(mean(w, 4, NULL), 0.0, 1e-9);
  /* its potential energy -F.x, and the parts sum to the total */
  JellyEnergies e;
  ENSURE(jelly_world_energies(w, &e, err, sizeof err) == JELLY_OK);
  const double *x = jelly_world_positions(w) + 3 * node;
  ENSURE_NEAR(e.external, -(F[0] * x[0] + F[1] * x[1] + F[2] * x[2]), 1e-12);
  ENSURE_NEAR(e.total, e.kinetic + e.elastic + e.gravity + e.contact + e.external, 1e-12);
  ENSURE(e.kinetic > 0 && e.elastic >= 0 && e.contact == 0.0 && e.gravity == 0.0);
  /* a zero force removes it */
  const double zero[3] = {0, 0, 0};
  ENSURE(jelly_world_set_force(w, node, zero, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_energies(w, &e, err, sizeof err) == JELLY_OK);
  ENSURE(e.external == 0.0);
  jelly_world_free(w);
}

static void test_energies(void) {
  JellyWorld *w = cube_world(-9.81, 1.0 / 60.0);
  ENSURE(w);
  char err[256];
  ENSURE(jelly_world_step(w, 0.2, err, sizeof err) == JELLY_OK);
  JellyEnergies e;
  ENSURE(jelly_world_energies(w, &e, err, sizeof err) == JELLY_OK);
  double ke = 0, pe = 0;
  const double *x = jelly_world_positions(w), *v = jelly_world_velocities(w);
  for (int i = 0; i < jelly_world_node_count(w); i++) {
    double mi;
    jelly_world_node_mass(w, i, &mi, NULL, 0);
    ke += 0.5 * mi * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
    pe += mi * 9.81 * x[3 * i + 1];
  }
  ENSURE_REL(e.kinetic, ke, 1e-12);
  ENSURE_REL(e.gravity, pe, 1e-12);
  ENSURE_NEAR(e.total, e.kinetic + e.elastic + e.gravity + e.contact + e.external, 1e-12);
  jelly_world_free(w);
}

/* every failure: the code and a message; nothing crashes */
#define BAD(call, code)                                                  \
  do {                                                                   \
    err[0] = '\0';                                                       \
    JellyResult r_ = (call);                                             \
    ENSURE_MSG(r_ == (code), "%s returned %d: %s", #call, (int)r_, err); \
    ENSURE_MSG(err[0] != '\0', "%s: no message", #call);                 \
  } while (0)

static void test_bad_arguments(void) {
  char err[512];
  JellyModel *m = NULL;
  JellyWorld *w = NULL;
  BAD(jelly_model_load(NULL, &m, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_load("x.json", NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_load("/nonexistent/scene.json", &m, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE(m == NULL);
  JellyModelDef md = jelly_default_model_def();
  md.dt = -1;
  BAD(jelly_model_new(&md, &m, err, sizeof err), JELLY_ERR_INPUT);
  md = jelly_default_model_def();
  md.gravity[0] = NAN;
  BAD(jelly_model_new(&md, &m, err, sizeof err), JELLY_ERR_INPUT);
  md = jelly_default_model_def();
  ENSURE(md.ground_restitution == 0.5 && md.contact_restitution == 0.5);
  md.ground_restitution = 1.5;
  BAD(jelly_model_new(&md, &m, err, sizeof err), JELLY_ERR_INPUT);
  md = jelly_default_model_def();
  md.contact_restitution = NAN;
  BAD(jelly_model_new(&md, &m, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE(jelly_model_new(NULL, &m, err, sizeof err) == JELLY_OK);
  BAD(jelly_world_new(m, &w, err, sizeof err), JELLY_ERR_INPUT); /* no bodies */
  BAD(jelly_world_new(NULL, &w, err, sizeof err), JELLY_ERR_INPUT);
  /* surfaces */
  double v[8 * 3];
  memcpy(v, CUBE_V, sizeof v);
  v[4] = NAN;
  BAD(jelly_model_add_body(m, v, 8, CUBE_T, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE(strstr(err, "vertex 1"));
  v[4] = INFINITY;
  BAD(jelly_model_add_body(m, v, 8, CUBE_T, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_add_body(NULL, CUBE_V, 8, CUBE_T, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_add_body(m, NULL, 8, CUBE_T, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_add_body(m, CUBE_V, 8, NULL, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_add_body(m, CUBE_V, -8, CUBE_T, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 0, NULL, err, sizeof err), JELLY_ERR_INPUT);
  int t[12 * 3];
  memcpy(t, CUBE_T, sizeof t);
  t[5] = 8;
  BAD(jelly_model_add_body(m, CUBE_V, 8, t, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  t[5] = -1;
  BAD(jelly_model_add_body(m, CUBE_V, 8, t, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  /* an open surface: the cube without its last two triangles */
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 10, NULL, err, sizeof err), JELLY_ERR_INPUT);
  JellyBodyDef bd = jelly_default_body_def();
  bd.density = -1;
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err), JELLY_ERR_INPUT);
  bd = jelly_default_body_def();
  bd.scale = 0;
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err), JELLY_ERR_INPUT);
  bd = jelly_default_body_def();
  bd.translate[2] = NAN;
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err), JELLY_ERR_INPUT);
  bd = jelly_default_body_def();
  ENSURE(bd.material_damping == 0.005);
  bd.material_damping = NAN;
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err), JELLY_ERR_INPUT);
  bd.material_damping = -1;
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err), JELLY_ERR_INPUT);
  bd = jelly_default_body_def();
  bd.name = "a name that is much too long for a body: more than sixty-three bytes long";
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE(jelly_model_body_count(m) == 0);
  /* a good body, then the world's calls */
  ENSURE_MSG(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, NULL, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE_MSG(jelly_world_new(m, &w, err, sizeof err) == JELLY_OK, "%s", err);
  jelly_model_free(m);
  int n = jelly_world_node_count(w);
  BAD(jelly_world_step(w, -0.1, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_step(w, 0.0, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_step(w, NAN, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_step(w, INFINITY, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_step(NULL, 0.1, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_pin(w, n, 1, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_pin(w, -1, 1, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_pin(w, 0, 2, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_pin(NULL, 0, 1, err, sizeof err), JELLY_ERR_INPUT);
  const double f[3] = {1, 0, 0}, fnan[3] = {0, NAN, 0};
  BAD(jelly_world_set_force(w, n, f, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_set_force(w, 0, fnan, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_set_force(w, 0, NULL, err, sizeof err), JELLY_ERR_INPUT);
  double kg;
  BAD(jelly_world_node_mass(w, n, &kg, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_node_mass(w, 0, NULL, err, sizeof err), JELLY_ERR_INPUT);
  JellyBodyInfo bi;
  BAD(jelly_world_body_info(w, 1, &bi, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_body_info(w, 0, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_body_surface(w, -1, NULL, NULL, NULL, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_energies(w, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_energies(NULL, NULL, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_world_warnings(w, NULL, err, sizeof err), JELLY_ERR_INPUT);
  /* getters of a NULL world, frees of NULL, NULL error buffers */
  ENSURE(jelly_world_node_count(NULL) == 0 && jelly_world_positions(NULL) == NULL &&
         jelly_world_velocities(NULL) == NULL && jelly_world_time(NULL) == 0.0 && jelly_world_body_count(NULL) == 0 &&
         jelly_model_body_count(NULL) == 0);
  ENSURE(jelly_world_pin(w, n, 1, NULL, 0) == JELLY_ERR_INPUT);
  jelly_world_free(NULL);
  jelly_model_free(NULL);
  /* the world still works after all that */
  ENSURE(jelly_world_step(w, 0.05, err, sizeof err) == JELLY_OK);
  jelly_world_free(w);
  /* a scene model takes no array bodies */
  ENSURE(jelly_model_load(JL_MODELS_DIR "/scenes/drop.json", &m, err, sizeof err) == JELLY_OK);
  BAD(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, NULL, err, sizeof err), JELLY_ERR_INPUT);
  /* and makes several worlds (the second builds again), identical */
  JellyWorld *w1 = NULL, *w2 = NULL;
  ENSURE(jelly_world_new(m, &w1, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_new(m, &w2, err, sizeof err) == JELLY_OK);
  jelly_model_free(m);
  ENSURE(jelly_world_node_count(w1) == jelly_world_node_count(w2));
  ENSURE(jelly_world_step(w1, 0.05, err, sizeof err) == JELLY_OK &&
         jelly_world_step(w2, 0.05, err, sizeof err) == JELLY_OK);
  ENSURE(memcmp(jelly_world_positions(w1), jelly_world_positions(w2),
                3 * sizeof(double) * (size_t)jelly_world_node_count(w1)) == 0);
  jelly_world_free(w1);
  jelly_world_free(w2);
}

/* a body from a mesh file: the bunny, embedded in a coarse lattice, lands on the ground */
static void test_mesh_file(void) {
  char err[1024];
  JellyModelDef md = jelly_default_model_def();
  md.has_ground = 1;
  JellyModel *m = NULL;
  ENSURE(jelly_model_new(&md, &m, err, sizeof err) == JELLY_OK);
  JellyBodyDef bd = jelly_default_body_def();
  bd.name = "bunny";
  bd.scale = 0.05;
  bd.translate[1] = 0.3;
  bd.embedded = 1;
  bd.resolution = 0.05;
  bd.young_modulus = 2e5;
  BAD(jelly_model_add_mesh(m, JL_MODELS_DIR "/no_such_mesh.obj", &bd, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_add_mesh(m, NULL, &bd, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE_MSG(jelly_model_add_mesh(m, JL_MODELS_DIR "/bunny.obj", &bd, err, sizeof err) == JELLY_OK, "%s", err);
  JellyWorld *w = NULL;
  ENSURE_MSG(jelly_world_new(m, &w, err, sizeof err) == JELLY_OK, "%s", err);
  jelly_model_free(m);
  ENSURE_MSG(jelly_world_step(w, 1.0, err, sizeof err) == JELLY_OK, "%s", err);
  const double *v;
  int nv;
  ENSURE(jelly_world_body_surface(w, 0, &v, &nv, NULL, NULL, err, sizeof err) == JELLY_OK && nv > 1000);
  double lo = INFINITY;
  for (int i = 0; i < nv; i++) lo = fmin(lo, v[3 * i + 1]);
  ENSURE_MSG(lo > -0.01 && lo < 0.02, "the bunny's lowest point is at %g m after 1 s", lo);
  jelly_world_free(w);
}

/* the mesh limits through the API: set, read back, refused out of range (naming the field, the
 * limits unchanged), and a file over max_file_mb refused with a message that names the limit */
static void test_mesh_limits(void) {
  char err[1024];
  JellyMeshLimits d = jelly_default_mesh_limits(), now = jelly_mesh_limits();
  ENSURE(d.timeout_s == 60.0 && d.memory_mb == 8192.0 && d.max_file_mb == 1024.0);
  ENSURE(now.timeout_s == d.timeout_s && now.memory_mb == d.memory_mb && now.max_file_mb == d.max_file_mb);
  JellyMeshLimits l = d;
  l.max_file_mb = 0.001; /* 1 KiB: the bunny is larger */
  ENSURE_MSG(jelly_set_mesh_limits(&l, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE(jelly_mesh_limits().max_file_mb == 0.001);
  JellyMeshLimits bad = l;
  bad.memory_mb = NAN;
  BAD(jelly_set_mesh_limits(&bad, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "memory_mb"), "%s", err);
  bad = l;
  bad.timeout_s = 1e9;
  BAD(jelly_set_mesh_limits(&bad, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_set_mesh_limits(NULL, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE(jelly_mesh_limits().memory_mb == d.memory_mb && jelly_mesh_limits().timeout_s == d.timeout_s);
  JellyModelDef md = jelly_default_model_def();
  JellyModel *m = NULL;
  ENSURE(jelly_model_new(&md, &m, err, sizeof err) == JELLY_OK);
  JellyBodyDef bd = jelly_default_body_def();
  BAD(jelly_model_add_mesh(m, JL_MODELS_DIR "/bunny.obj", &bd, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "mesh limit max_file_mb") && !strstr(err, "--"), "%s", err);
  jelly_model_free(m);
  ENSURE(jelly_set_mesh_limits(&d, err, sizeof err) == JELLY_OK);
}

/* the model's settings by their scene names: each listed name reads back, a set value is checked against
 * the scene's range, a scene's value and a set one step the same, and a model with worlds refuses changes */
static void test_settings_by_name(void) {
  char err[1024];
  JellyModel *m = NULL;
  ENSURE(jelly_model_new(NULL, &m, err, sizeof err) == JELLY_OK);
  int n = 0;
  for (const char *name; (name = jelly_setting_name(n)) != NULL; n++) {
    double v = NAN;
    ENSURE_MSG(jelly_model_setting(m, name, &v, err, sizeof err) == JELLY_OK && isfinite(v), "%s: %s", name, err);
    /* its default is a value it accepts */
    ENSURE_MSG(jelly_model_set_setting(m, name, v, err, sizeof err) == JELLY_OK, "%s: %s", name, err);
  }
  ENSURE_MSG(n >= 24, "%d settings", n);
  ENSURE(jelly_setting_name(-1) == NULL);
  double v = 0;
  ENSURE(jelly_model_set_setting(m, "contact.friction", 0.1, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_model_setting(m, "contact.friction", &v, err, sizeof err) == JELLY_OK && v == 0.1);
  BAD(jelly_model_set_setting(m, "contact.friction", -1, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "contact.friction") && strstr(err, ">= 0"), "%s", err);
  BAD(jelly_model_set_setting(m, "solver.max_iterations", 2.5, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_set_setting(m, "contact.fiction", 0.1, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "unknown setting 'contact.fiction'"), "%s", err);
  BAD(jelly_model_set_setting(m, "threads", NAN, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_set_setting(NULL, "threads", 1, err, sizeof err), JELLY_ERR_INPUT);
  BAD(jelly_model_setting(m, NULL, &v, err, sizeof err), JELLY_ERR_INPUT);
  jelly_model_free(m);

  /* a scene's value reads back; setting it on a model from a scene without it steps bitwise the same */
  static const char with[] =
      "{\"dt\": 0.01, \"ground\": {\"friction\": 0.05}, \"solver\": {\"max_iterations\": 40}, \"bodies\": "
      "[{\"shape\": {\"type\": \"box\", \"size\": [0.2, 0.2, 0.2]}, \"translate\": [0, 0.2, 0], "
      "\"velocity\": [2, 0, 0]}]}";
  static const char without[] =
      "{\"dt\": 0.01, \"ground\": {}, \"bodies\": [{\"shape\": {\"type\": \"box\", \"size\": [0.2, 0.2, "
      "0.2]}, \"translate\": [0, 0.2, 0], \"velocity\": [2, 0, 0]}]}";
  JellyModel *a = NULL, *b = NULL;
  ENSURE_MSG(jelly_model_load_json(with, "with.json", &a, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE_MSG(jelly_model_load_json(without, "without.json", &b, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE(jelly_model_setting(a, "ground.friction", &v, err, sizeof err) == JELLY_OK && v == 0.05);
  ENSURE(jelly_model_setting(a, "solver.max_iterations", &v, err, sizeof err) == JELLY_OK && v == 40);
  ENSURE(jelly_model_set_setting(b, "ground.friction", 0.05, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_model_set_setting(b, "solver.max_iterations", 40, err, sizeof err) == JELLY_OK);
  JellyWorld *wa = NULL, *wb = NULL;
  ENSURE(jelly_world_new(a, &wa, err, sizeof err) == JELLY_OK && jelly_world_new(b, &wb, err, sizeof err) == JELLY_OK);
  BAD(jelly_model_set_setting(b, "ground.friction", 0.5, err, sizeof err), JELLY_ERR_INPUT);
  ENSURE(jelly_world_step(wa, 0.5, err, sizeof err) == JELLY_OK &&
         jelly_world_step(wb, 0.5, err, sizeof err) == JELLY_OK);
  int nn = jelly_world_node_count(wa);
  ENSURE(nn > 0 && nn == jelly_world_node_count(wb));
  ENSURE(memcmp(jelly_world_positions(wa), jelly_world_positions(wb), sizeof(double) * 3 * (size_t)nn) == 0);
  jelly_world_free(wa);
  jelly_world_free(wb);
  jelly_model_free(a);
  jelly_model_free(b);
}

/* distinct worlds on distinct threads are independent (jelly.h, "Threads"):
 * two worlds stepped at the same time end bitwise where one stepped alone does */
static void *step_half_second(void *world) {
  static const int ok = 1;
  return jelly_world_step(world, 0.5, NULL, 0) == JELLY_OK ? (void *)&ok : NULL;
}

static void test_threads(void) {
  /* built here: building forks TetGen children, which jelly.h asks to do from one thread */
  JellyWorld *ref = cube_world(-9.81, 1.0 / 60.0);
  JellyWorld *w[2] = {cube_world(-9.81, 1.0 / 60.0), cube_world(-9.81, 1.0 / 60.0)};
  ENSURE(ref && w[0] && w[1]);
  const double f[3] = {0.0, 0.0, 2.0};
  ENSURE(jelly_world_set_force(ref, 1, f, NULL, 0) == JELLY_OK);
  for (int k = 0; k < 2; k++) ENSURE(jelly_world_set_force(w[k], 1, f, NULL, 0) == JELLY_OK);
  ENSURE(step_half_second(ref) != NULL);
  pthread_t th[2];
  for (int k = 0; k < 2; k++) ENSURE(pthread_create(&th[k], NULL, step_half_second, w[k]) == 0);
  void *res[2];
  for (int k = 0; k < 2; k++) ENSURE(pthread_join(th[k], &res[k]) == 0);
  size_t bytes = 3 * sizeof(double) * (size_t)jelly_world_node_count(ref);
  for (int k = 0; k < 2; k++) {
    ENSURE(res[k] != NULL);
    ENSURE(memcmp(jelly_world_positions(w[k]), jelly_world_positions(ref), bytes) == 0);
    ENSURE(memcmp(jelly_world_velocities(w[k]), jelly_world_velocities(ref), bytes) == 0);
    jelly_world_free(w[k]);
  }
  jelly_world_free(ref);
}


static int same_world_state(const JellyWorld *a, const JellyWorld *b) {
  size_t bytes = 3 * sizeof(double) * (size_t)jelly_world_node_count(a);
  double ta = jelly_world_time(a), tb = jelly_world_time(b);
  return jelly_world_node_count(a) == jelly_world_node_count(b) && memcmp(&ta, &tb, sizeof ta) == 0 &&
         memcmp(jelly_world_positions(a), jelly_world_positions(b), bytes) == 0 &&
         memcmp(jelly_world_velocities(a), jelly_world_velocities(b), bytes) == 0;
}

static void test_shared_model(void) {
  char err[512];
  JellyModel *m = cube_model(-9.81, 1.0 / 60.0);
  ENSURE(m);
  JellyWorld *a = NULL, *b = NULL;
  ENSURE_MSG(jelly_world_new(m, &a, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE_MSG(jelly_world_new(m, &b, err, sizeof err) == JELLY_OK, "%s", err);
  /* one build shared: the same triangle array (TetGen and the model build ran once) */
  const int *ta = NULL, *tb = NULL;
  ENSURE(jelly_world_body_surface(a, 0, NULL, NULL, &ta, NULL, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_body_surface(b, 0, NULL, NULL, &tb, NULL, err, sizeof err) == JELLY_OK);
  ENSURE(ta && ta == tb);
  /* bodies cannot change under live worlds */
  ENSURE(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, NULL, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "worlds"), "message: %s", err);
  /* a pin in a stays in a */
  double p0[3];
  memcpy(p0, jelly_world_positions(a), sizeof p0);
  ENSURE(jelly_world_pin(a, 0, 1, err, sizeof err) == JELLY_OK);
  /* the model freed while its worlds live: they keep it, but it makes no more worlds */
  jelly_model_free(m);
  JellyWorld *d = NULL;
  ENSURE(jelly_world_new(m, &d, err, sizeof err) == JELLY_ERR_INPUT && d == NULL);
  ENSURE_MSG(strstr(err, "freed"), "message: %s", err);
  ENSURE(jelly_world_step(a, 0.25, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_step(b, 0.25, err, sizeof err) == JELLY_OK);
  for (int k = 0; k < 3; k++) ENSURE(jelly_world_positions(a)[k] == p0[k]);
  ENSURE(jelly_world_positions(b)[1] < p0[1] - 0.2); /* b falls freely */
  JellyWorld *c = cube_world(-9.81, 1.0 / 60.0);     /* a lone world: as b */
  ENSURE(c && jelly_world_step(c, 0.25, err, sizeof err) == JELLY_OK && same_world_state(b, c));
  jelly_world_free(c);
  jelly_world_free(a);
  ENSURE(jelly_world_step(b, 0.05, err, sizeof err) == JELLY_OK); /* the model lives on with b */
  jelly_world_free(b);                                            /* and goes with it (ASan: no leak) */
}

/* bodies added once every world is gone: the next world has them all */
static void test_add_after_worlds(void) {
  char err[512];
  JellyModel *m = cube_model(-9.81, 1.0 / 60.0);
  ENSURE(m);
  JellyWorld *a = NULL;
  ENSURE(jelly_world_new(m, &a, err, sizeof err) == JELLY_OK && jelly_world_body_count(a) == 1);
  int n1 = jelly_world_node_count(a);
  jelly_world_free(a);
  JellyBodyDef bd = jelly_default_body_def();
  bd.translate[0] = 3.0;
  ENSURE_MSG(jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE(jelly_world_new(m, &a, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_body_count(a) == 2 && jelly_world_node_count(a) > n1);
  jelly_world_free(a);
  jelly_model_free(m);
}

static void test_copy_state(void) {
  char err[512];
  JellyModel *m = cube_model(-9.81, 1.0 / 60.0);
  ENSURE(m);
  JellyWorld *a = NULL, *b = NULL;
  ENSURE(jelly_world_new(m, &a, err, sizeof err) == JELLY_OK && jelly_world_new(m, &b, err, sizeof err) == JELLY_OK);
  jelly_model_free(m);
  ENSURE(jelly_world_pin(a, 3, 1, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_step(a, 0.2, err, sizeof err) == JELLY_OK);
  ENSURE_MSG(jelly_world_copy_state(b, a, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE(same_world_state(a, b));
  ENSURE(jelly_world_step(a, 0.3, err, sizeof err) == JELLY_OK &&
         jelly_world_step(b, 0.3, err, sizeof err) == JELLY_OK);
  ENSURE(same_world_state(a, b)); /* the pin came along */
  /* worlds of another model: refused, dst unchanged */
  JellyWorld *s = NULL;
  JellyModel *sm = NULL;
  ENSURE(jelly_model_load(JL_MODELS_DIR "/scenes/default.json", &sm, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_new(sm, &s, err, sizeof err) == JELLY_OK);
  jelly_model_free(sm);
  ENSURE(jelly_world_copy_state(b, s, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "jelly_world_copy_state") && strstr(err, "model"), "message: %s", err);
  ENSURE(same_world_state(a, b));
  ENSURE(jelly_world_copy_state(NULL, a, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_copy_state(a, NULL, err, sizeof err) == JELLY_ERR_INPUT);
  jelly_world_free(s);
  jelly_world_free(a);
  jelly_world_free(b);
}

static void test_save_load(void) {
  char err[1200], path[600], junk[600];
  const char *dir = jl_test_tmpdir("api_save");
  snprintf(path, sizeof path, "%s/w.jlck", dir);
  snprintf(junk, sizeof junk, "%s/junk.jlck", dir);
  JellyModel *m = NULL;
  ENSURE(jelly_model_load(JL_MODELS_DIR "/scenes/default.json", &m, err, sizeof err) == JELLY_OK);
  JellyWorld *a = NULL, *b = NULL;
  ENSURE(jelly_world_new(m, &a, err, sizeof err) == JELLY_OK && jelly_world_new(m, &b, err, sizeof err) == JELLY_OK);
  jelly_model_free(m);
  /* quick runs (the sanitizer stage): the same calls on shorter runs */
  double t1 = jl_test_quick() ? 0.1 : 0.3, t2 = jl_test_quick() ? 0.05 : 0.2;
  ENSURE(jelly_world_step(a, t1, err, sizeof err) == JELLY_OK);
  ENSURE_MSG(jelly_world_save(a, path, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE_MSG(jelly_world_load(b, path, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE(same_world_state(a, b));
  ENSURE(jelly_world_step(a, t2, err, sizeof err) == JELLY_OK && jelly_world_step(b, t2, err, sizeof err) == JELLY_OK);
  ENSURE(same_world_state(a, b));
  /* garbage: an error naming the file, the world untouched */
  FILE *f = fopen(junk, "wb");
  ENSURE(f);
  fputs("not a checkpoint at all", f);
  fclose(f);
  ENSURE(jelly_world_load(b, junk, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "jelly_world_load") && strstr(err, "junk.jlck"), "message: %s", err);
  ENSURE(same_world_state(a, b));
  /* a cube world's checkpoint does not fit the scene's worlds */
  JellyWorld *c = cube_world(-9.81, 1.0 / 60.0);
  ENSURE(c && jelly_world_save(c, junk, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_load(b, junk, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_load(b, "/nonexistent/dir/x.jlck", err, sizeof err) == JELLY_ERR_SYSTEM);
  ENSURE(jelly_world_save(b, "/nonexistent/dir/x.jlck", err, sizeof err) == JELLY_ERR_SYSTEM);
  ENSURE(jelly_world_load(b, NULL, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_save(NULL, path, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(same_world_state(a, b));
  jelly_world_free(c);
  jelly_world_free(a);
  jelly_world_free(b);
}

/* two worlds of one model on two threads end where sequential runs end */
static void test_threads_shared(void) {
  JellyModel *m = cube_model(-9.81, 1.0 / 60.0);
  ENSURE(m);
  JellyWorld *ref = NULL, *w[2] = {NULL, NULL};
  ENSURE(jelly_world_new(m, &ref, NULL, 0) == JELLY_OK);
  for (int k = 0; k < 2; k++) ENSURE(jelly_world_new(m, &w[k], NULL, 0) == JELLY_OK);
  jelly_model_free(m);
  ENSURE(jelly_world_pin(w[0], 2, 1, NULL, 0) == JELLY_OK); /* pins differ between the worlds */
  ENSURE(jelly_world_pin(ref, 2, 1, NULL, 0) == JELLY_OK);
  JellyWorld *ref1 = NULL;
  JellyModel *m1 = cube_model(-9.81, 1.0 / 60.0);
  ENSURE(m1 && jelly_world_new(m1, &ref1, NULL, 0) == JELLY_OK);
  jelly_model_free(m1);
  ENSURE(step_half_second(ref) != NULL && step_half_second(ref1) != NULL);
  pthread_t th[2];
  for (int k = 0; k < 2; k++) ENSURE(pthread_create(&th[k], NULL, step_half_second, w[k]) == 0);
  void *res[2];
  for (int k = 0; k < 2; k++) ENSURE(pthread_join(th[k], &res[k]) == 0);
  ENSURE(res[0] && res[1]);
  ENSURE(same_world_state(w[0], ref) && same_world_state(w[1], ref1));
  for (int k = 0; k < 2; k++) jelly_world_free(w[k]);
  jelly_world_free(ref);
  jelly_world_free(ref1);
}

static void test_drag(void) {
  char err[512];
  JellyWorld *w = cube_world(0.0, 1.0 / 60.0); /* no gravity: only the drag moves it */
  ENSURE(w);
  double x0 = mean(w, 0, NULL);
  const double bary[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, target[3] = {3.0, 2.0, 0.0};
  /* triangle 10 lies on the +x face (vertices 1, 2, 6) */
  ENSURE_MSG(jelly_world_drag(w, 0, 10, bary, target, 1000, 100, err, sizeof err) == JELLY_OK, "%s", err);
  ENSURE_MSG(jelly_world_step(w, 0.5, err, sizeof err) == JELLY_OK, "%s", err);
  double x1 = mean(w, 0, NULL);
  ENSURE_MSG(x1 > x0 + 0.1, "the cube's centre moved from x = %g to %g towards x = 3", x0, x1);
  JellyEnergies e;
  ENSURE(jelly_world_energies(w, &e, err, sizeof err) == JELLY_OK && e.external > 0);
  /* the target moves; then let go: it drifts on with the velocity it has */
  const double t2[3] = {3.0, 4.0, 0.0}, vel[3] = {0.0, 1.0, 0.0};
  ENSURE(jelly_world_drag_move(w, t2, vel, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_step(w, 0.5, err, sizeof err) == JELLY_OK);
  ENSURE_MSG(mean(w, 1, NULL) > 2.05, "y = %g", mean(w, 1, NULL));
  ENSURE(jelly_world_drag_release(w, err, sizeof err) == JELLY_OK);
  double vx = mean(w, 3, NULL);
  ENSURE(jelly_world_step(w, 0.1, err, sizeof err) == JELLY_OK);
  ENSURE_NEAR(mean(w, 3, NULL), vx, 1e-6); /* free and weightless: momentum kept (to the solver tolerance) */
  ENSURE(jelly_world_energies(w, &e, err, sizeof err) == JELLY_OK && e.external == 0);
  /* bad arguments */
  ENSURE(jelly_world_drag_move(w, t2, NULL, err, sizeof err) == JELLY_ERR_INPUT); /* nothing dragged */
  ENSURE_MSG(strstr(err, "nothing is dragged"), "message: %s", err);
  const double bad_bary[3] = {0.5, 0.6, 0.0}, nan3[3] = {NAN, 0, 0};
  ENSURE(jelly_world_drag(w, 1, 0, bary, target, 0, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, 12, bary, target, 0, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, -1, bary, target, 0, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, 0, bad_bary, target, 0, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, 0, NULL, target, 0, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, 0, bary, nan3, 0, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, 0, bary, target, -1, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, 0, bary, target, 0, NAN, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(NULL, 0, 0, bary, target, 0, 0, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag(w, 0, 0, bary, target, 1e3, 10, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_drag_move(w, nan3, NULL, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag_move(w, t2, nan3, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_drag_release(NULL, err, sizeof err) == JELLY_ERR_INPUT);
  jelly_world_free(w);
}

static jmp_buf g_jump;
static void on_assert(const char *file, int line, const char *expr, const char *msg) {
  (void)file, (void)line, (void)expr, (void)msg;
  longjmp(g_jump, 1);
}

static void test_warnings_and_handler(void) {
  for (int k = 0; k < JELLY_WARN_COUNT; k++) ENSURE(jelly_warning_name((JellyWarningKind)k) != NULL);
  ENSURE(strcmp(jelly_warning_name(JELLY_WARN_SOLVER_CAP), "solver_cap") == 0);
  ENSURE(jelly_warning_name(JELLY_WARN_COUNT) == NULL && jelly_warning_name((JellyWarningKind)-1) == NULL);
  ENSURE(strcmp(jl_version(), jelly_version()) == 0);
  JellyWorld *w = cube_world(-9.81, 1.0 / 60.0);
  ENSURE(w);
  char err[256];
  ENSURE(jelly_world_step(w, 0.1, err, sizeof err) == JELLY_OK);
  JellyWarnings wr;
  ENSURE(jelly_world_warnings(w, &wr, err, sizeof err) == JELLY_OK);
  ENSURE(wr.steps == 6 && wr.diverged == 0 && wr.inverted_tets == 0);
  for (int k = 0; k < JELLY_WARN_COUNT; k++) ENSURE(wr.count[k] == 0 && wr.first[k][0] == '\0');
  jelly_world_free(w);
  /* the handler is installed and handed back (the API itself never asserts on bad input) */
  JellyAssertHandler old = jelly_set_assert_handler(on_assert);
  ENSURE(jelly_set_assert_handler(old) == on_assert);
}

/* jelly_model_load_json: a scene from text in memory builds the model the same
 * file would (bitwise the same steps), anchors relative mesh paths at the
 * folder of its name, and names the key path of a bad key. */
static void test_load_json(void) {
  char err[1024];
  static const char text[] =
      "{\"duration\": 1, \"dt\": 0.01, \"bodies\": [{\"name\": \"ball\", \"mesh\": \"../icosphere_320.obj\","
      " \"scale\": 0.1, \"translate\": [0, 0.5, 0], \"young_modulus\": 1e5}]}";
  JellyModel *m = NULL;
  JellyResult r = jelly_model_load_json(text, JL_MODELS_DIR "/scenes/inline.json", &m, err, sizeof err);
  ENSURE_MSG(r == JELLY_OK, "load_json: %s", err);
  ENSURE(jelly_model_body_count(m) == 1);
  JellyWorld *w = NULL, *w2 = NULL;
  ENSURE(jelly_world_new(m, &w, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_new(m, &w2, err, sizeof err) == JELLY_OK);
  jelly_model_free(m);
  ENSURE(jelly_world_step(w, 0.1, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_step(w2, 0.1, err, sizeof err) == JELLY_OK);
  int n = jelly_world_node_count(w);
  ENSURE(n > 0 && memcmp(jelly_world_positions(w), jelly_world_positions(w2), sizeof(double) * 3 * (size_t)n) == 0);
  jelly_world_free(w);
  jelly_world_free(w2);
  /* a bad key names its path and the name given */
  r = jelly_model_load_json("{\"bodies\": [{\"shape\": {\"type\": \"box\"}, \"young_modulus\": -1}]}", "mem.json", &m,
                            err, sizeof err);
  ENSURE(r == JELLY_ERR_INPUT && m == NULL);
  ENSURE_MSG(strstr(err, "mem.json") && strstr(err, "young_modulus"), "message: %s", err);
  ENSURE(jelly_model_load_json("{", "mem.json", &m, err, sizeof err) == JELLY_ERR_INPUT && m == NULL);
  ENSURE(jelly_model_load_json(NULL, "mem.json", &m, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_model_load_json("{}", NULL, &m, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_model_load_json("{}", "mem.json", NULL, err, sizeof err) == JELLY_ERR_INPUT);
}

/* jelly_world_stats: a stats.csv row; counters per frame (reset), the rest the
 * state now; jelly_world_dt is the model's step. */
static void test_stats(void) {
  char err[256];
  JellyWorld *w = cube_world(-9.81, 1.0 / 60.0);
  ENSURE(w);
  ENSURE_NEAR(jelly_world_dt(w), 1.0 / 60.0, 0.0);
  ENSURE(jelly_world_dt(NULL) == 0.0);
  JellyStats st;
  ENSURE(jelly_world_stats(w, 1, &st, err, sizeof err) == JELLY_OK);
  ENSURE(st.time == 0.0 && st.steps == 0 && st.cg_iterations == 0 && st.kinetic_energy == 0.0);
  ENSURE(jelly_world_step(w, 0.1, err, sizeof err) == JELLY_OK);
  ENSURE(jelly_world_stats(w, 0, &st, err, sizeof err) == JELLY_OK);
  ENSURE(st.steps == 6 && st.cg_iterations > 0 && st.cg_failed == 0 && st.kinetic_energy > 0);
  ENSURE(isfinite(st.max_strain) && st.max_strain >= 0 && isfinite(st.min_y) && st.inverted_tets == 0);
  JellyEnergies e;
  ENSURE(jelly_world_energies(w, &e, err, sizeof err) == JELLY_OK);
  ENSURE(st.kinetic_energy == e.kinetic && st.gravity_energy == e.gravity && st.contact_energy == e.contact);
  const double *x = jelly_world_positions(w);
  double lo = x[1];
  for (int i = 1; i < jelly_world_node_count(w); i++) lo = x[3 * i + 1] < lo ? x[3 * i + 1] : lo;
  ENSURE(st.min_y == lo);
  ENSURE(jelly_world_stats(w, 1, &st, err, sizeof err) == JELLY_OK && st.steps == 6); /* not reset before */
  ENSURE(jelly_world_stats(w, 0, &st, err, sizeof err) == JELLY_OK && st.steps == 0 && st.cg_iterations == 0);
  ENSURE(jelly_world_stats(NULL, 0, &st, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE(jelly_world_stats(w, 0, NULL, err, sizeof err) == JELLY_ERR_INPUT);
  jelly_world_free(w);
}

#define JL_TEST_TIER JL_PROGRAM /* cases without a tier of their own (tests/harness.h) */
/* JellyModelDef's ground_restitution reaches the engine: a cube dropped 1.5 m onto the ground rises
 * back to about e^2 of the fall with e = 0.8, and stays down with e = 0 */
static double cube_rebound(double e) {
  char err[512];
  JellyModelDef md = jelly_default_model_def();
  md.has_ground = 1;
  md.ground_restitution = e;
  JellyModel *m = NULL;
  if (jelly_model_new(&md, &m, err, sizeof err)) return NAN;
  JellyBodyDef bd = jelly_default_body_def();
  bd.young_modulus = 1e6;
  bd.max_volume = 0.0005; /* a few hundred tets: a coarser cube keeps more of the hit as vibration */
  bd.scale = 0.4;
  bd.translate[1] = 1.7; /* the lowest face 1.5 m above the ground */
  JellyWorld *w = NULL;
  if (jelly_model_add_body(m, CUBE_V, 8, CUBE_T, 12, &bd, err, sizeof err) || jelly_world_new(m, &w, err, sizeof err)) {
    jelly_model_free(m);
    return NAN;
  }
  int n = jelly_world_node_count(w), touched = 0;
  double top = -INFINITY;
  for (int s = 0; s < 90 && !jelly_world_step(w, 1.0 / 60.0, err, sizeof err); s++) {
    const double *x = jelly_world_positions(w);
    double lo = INFINITY;
    for (int i = 0; i < n; i++) lo = fmin(lo, x[3 * i + 1]);
    if (lo <= 0.0)
      touched = 1;
    else if (touched)
      top = fmax(top, lo);
  }
  jelly_world_free(w);
  jelly_model_free(m);
  return touched && top > 0 ? sqrt(top / 1.5) : 0.0;
}

static void test_restitution_def(void) {
  double e8 = cube_rebound(0.8), e0 = cube_rebound(0.0);
  printf("  cube dropped 1.5 m: e = %.3f with ground_restitution 0.8, %.3f with 0\n", e8, e0);
  ENSURE_MSG(e8 > 0.7 && e8 < 0.9, "e %.3f with restitution 0.8", e8);
  ENSURE_MSG(e0 < 0.1, "e %.3f with restitution 0", e0);
}

JL_TEST_MAIN({"version", test_version}, {"mesh_limits", test_mesh_limits}, {"settings_by_name", test_settings_by_name},
             {"restitution_def", test_restitution_def}, {"scene_steps", test_scene_steps},
             {"free_fall", test_free_fall}, {"pin", test_pin}, {"external_force", test_external_force},
             {"energies", test_energies}, {"bad_arguments", test_bad_arguments}, {"mesh_file", test_mesh_file},
             {"threads", test_threads}, {"shared_model", test_shared_model},
             {"add_after_worlds", test_add_after_worlds}, {"copy_state", test_copy_state},
             {"save_load", test_save_load}, {"threads_shared", test_threads_shared}, {"drag", test_drag},
             {"warnings_and_handler", test_warnings_and_handler}, {"load_json", test_load_json}, {"stats", test_stats})
