/* Model and state: a world's state as a value.
 *
 * - copy_restore: step N, copy, step M, restore, step M gives bitwise the
 *   same state, and a second world of the same model given the copy does
 *   too; copying only x, v, dv and t (no contact history) does not, so the
 *   scene exercises the history the copy must carry.
 * - copy_scenes: the same for cloth with wind, ropes, obstacles, thin
 *   contacts, hair and a stack of eight.
 * - adaptive_rejection: a rejected adaptive step restores the contact and
 *   friction history with x, v, dv: the world that tried the full step and
 *   halved ends bitwise where a copy that went straight to half steps ends.
 * - checkpoint_file: save, load into a world of a freshly built model, step:
 *   bitwise the uninterrupted run.
 * - checkpoint_hostile: truncated files, wrong magic, another format version,
 *   another model, huge counts, flipped bytes, NaN or far-away positions and
 *   history with indices out of range (checksum recomputed) are errors that
 *   leave the world as it was.
 * - two_threads: two worlds of one model stepped on two threads (one with two
 *   OpenMP threads) match a single-threaded run. POSIX threads rather than
 *   C11 <threads.h>: ThreadSanitizer (gcc 12) intercepts pthread_create only.
 *   Under ThreadSanitizer the TetGen child gets an unbounded address space.
 * - threads_per_world: stepping a world with 2 threads leaves the host's
 *   OpenMP thread count (omp_set_num_threads(3)) as it was.
 * - library_matches_scene: an embedded ball built through jl_tetgen_build and
 *   jl_model_build is bitwise the model a scene file builds, with the
 *   ball's mass (the embedded-mesh density weighting is the builder's).
 * - warnings: a solver capped at one iteration is counted by kind with the
 *   first occurrence's text.
 * - world_pins: two worlds of one model; a node pinned in one (jl_world_pin)
 *   stays put there and falls in the other, whose pins and the shared
 *   model's are unchanged; jl_state_copy and a checkpoint carry the pin
 *   mask, and the fingerprint is the base model's whatever the pins.
 * - world_api: jl_world_find_force / remove_force / set_integrator.
 * - assert_handler: a host's handler gets a broken contract's message and
 *   longjmps back instead of the process aborting.
 * - program_resume: `jelly run --checkpoint-every` then `--resume` in a new
 *   process ends bitwise like the uninterrupted run (.vtu, stats.csv but for
 *   wall_ms); a bad checkpoint or one from another --fps exits 2.
 *
 * The scene is contact_cube_on_cube.json: a cube dropped 5 mm onto another
 * resting on the ground, so body contacts, ground contacts and friction
 * anchors are all in play. */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "mesh/child.h"
#include "mesh/shapes.h"
#include "src/impact.h"
#include "src/scene.h"
#include "src/state.h"
#include "tests/harness.h"

#define SCENES JL_SOURCE_DIR "/models/scenes/"
#define CUBES  SCENES "contact_cube_on_cube.json"
#define H      (1.0 / 60.0)

/* ThreadSanitizer reserves terabytes of address space, which the TetGen
 * child's address-space limit (mesh/child.h) would refuse */
#if defined(__SANITIZE_THREAD__)
#define JL_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define JL_TEST_TSAN 1
#endif
#endif

static JlModel *load_model(const char *path, JlStepDef *step) {
  char err[2048];
#ifdef JL_TEST_TSAN
  JlMeshLimits lim = jl_mesh_limits();
  lim.memory_mb = 1 << 30;
  jl_mesh_set_limits(&lim);
#endif
  JlScene sc;
  if (jl_scene_load(path, &sc, err, sizeof err)) {
    printf("  %s\n", err);
    return NULL;
  }
  JlModel *m = calloc(1, sizeof *m);
  JlResult r = jl_scene_build(&sc, m, NULL, err, sizeof err);
  if (step) *step = sc.step;
  jl_scene_free(&sc);
  if (r) {
    printf("  %s\n", err);
    free(m);
    return NULL;
  }
  return m;
}

static void free_model(JlModel *m) {
  if (m) jl_model_free(m);
  free(m);
}

static int make(JlWorld *w, const JlModel *m, const JlStepDef *def) {
  char err[512];
  if (jl_world_create_shared(w, m, def, err, sizeof err)) {
    printf("  %s\n", err);
    return 0;
  }
  return 1;
}

/* w on the cubes scene with its own step settings; the model (free_model
 * after jl_world_destroy), or NULL when either fails */
static JlModel *cubes_world(JlWorld *w) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  if (m && !make(w, m, &def)) {
    free_model(m);
    return NULL;
  }
  return m;
}

static int steps(JlWorld *w, int n) {
  for (int i = 0; i < n; i++)
    if (jl_world_step(w, H, NULL)) return 0;
  return 1;
}

/* bitwise equal x, v, dv and t */
static int same_state(const JlWorld *a, const JlWorld *b) {
  size_t n = 3 * (size_t)a->state.nnode * sizeof(double);
  return a->state.nnode == b->state.nnode && memcmp(&a->state.t, &b->state.t, sizeof(double)) == 0 &&
         memcmp(a->state.x, b->state.x, n) == 0 && memcmp(a->state.v, b->state.v, n) == 0 &&
         memcmp(a->state.dv, b->state.dv, n) == 0;
}

typedef struct Snapshot {
  double t, *x, *v, *dv;
  size_t n;
} Snapshot;

static void snap(Snapshot *s, const JlWorld *w) {
  s->n = 3 * (size_t)w->state.nnode;
  s->t = w->state.t;
  s->x = malloc(s->n * sizeof(double));
  s->v = malloc(s->n * sizeof(double));
  s->dv = malloc(s->n * sizeof(double));
  memcpy(s->x, w->state.x, s->n * sizeof(double));
  memcpy(s->v, w->state.v, s->n * sizeof(double));
  memcpy(s->dv, w->state.dv, s->n * sizeof(double));
}

static int snap_equal(const Snapshot *s, const JlWorld *w) {
  size_t b = s->n * sizeof(double);
  return memcmp(&s->t, &w->state.t, sizeof s->t) == 0 && memcmp(s->x, w->state.x, b) == 0 &&
         memcmp(s->v, w->state.v, b) == 0 && memcmp(s->dv, w->state.dv, b) == 0;
}

static void snap_free(Snapshot *s) {
  free(s->x);
  free(s->v);
  free(s->dv);
}

/* ---- copy and restore ------------------------------------------------------- */

static void test_copy_restore(void) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  ENSURE(m);
  JlWorld a, saved, b, bare;
  char err[512];
  ENSURE(make(&a, m, &def) && make(&saved, m, &def) && make(&b, m, &def) && make(&bare, m, &def));
  ENSURE(steps(&a, 20));
  ENSURE_MSG(jl_state_copy(&saved, &a, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(same_state(&saved, &a));
  ENSURE(steps(&a, 20));
  Snapshot ref;
  snap(&ref, &a);
  /* restore, step again: bitwise the same */
  ENSURE_MSG(jl_state_copy(&a, &saved, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(steps(&a, 20));
  int again = snap_equal(&ref, &a);
  /* another world of the same model, given the copy */
  ENSURE(jl_state_copy(&b, &saved, err, sizeof err) == JL_OK);
  ENSURE(steps(&b, 20));
  int other = snap_equal(&ref, &b);
  /* only x, v, dv, t: the contact and friction history is missing */
  size_t n = 3 * (size_t)m->nnode * sizeof(double);
  memcpy(bare.state.x, saved.state.x, n);
  memcpy(bare.state.v, saved.state.v, n);
  memcpy(bare.state.dv, saved.state.dv, n);
  bare.state.t = saved.state.t;
  ENSURE(steps(&bare, 20));
  int without = snap_equal(&ref, &bare);
  printf("  restored %s, second world %s, without history %s\n", again ? "bitwise" : "DIFFERS",
         other ? "bitwise" : "DIFFERS", without ? "bitwise (history unused?)" : "differs");
  snap_free(&ref);
  jl_world_destroy(&a);
  jl_world_destroy(&saved);
  jl_world_destroy(&b);
  jl_world_destroy(&bare);
  free_model(m);
  ENSURE(again);
  ENSURE(other);
  ENSURE_MSG(!without, "the scene does not depend on the contact history: the test has no teeth");
}

/* every kind of element's history: cloth with wind, ropes, obstacles, thin
 * contacts, self-collision, a stack; a world given the copy of another
 * mid-run goes on bitwise like it (all 33 shipped scenes also resume bitwise
 * through jelly run, checked by hand when this was written) */
static void test_copy_scenes(void) {
  static const char *const scenes[] = {
      "flag.json", "rope_bridge.json",   "contact_slab_obstacle.json", "thin_cloth_on_box.json",
      "hair.json", "contact_stack8.json"};
  for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
    char path[512], err[512];
    snprintf(path, sizeof path, "%s%s", SCENES, scenes[i]);
    JlStepDef def;
    JlModel *m = load_model(path, &def);
    ENSURE_MSG(m, "%s", scenes[i]);
    double h = H; /* every scene listed is implicit */
    JlWorld a, b;
    ENSURE(make(&a, m, &def) && make(&b, m, &def));
    int ok = 1;
    for (int k = 0; k < 8 && ok; k++) ok = jl_world_step(&a, h, NULL) == JL_OK;
    ENSURE_MSG(ok && jl_state_copy(&b, &a, err, sizeof err) == JL_OK, "%s: %s", scenes[i], err);
    for (int k = 0; k < 8 && ok; k++) ok = jl_world_step(&a, h, NULL) == JL_OK && jl_world_step(&b, h, NULL) == JL_OK;
    int same = ok && same_state(&a, &b);
    printf("  %-28s %d nodes, %d elements: %s\n", scenes[i], m->nnode, a.nforce, same ? "bitwise" : "DIFFERS");
    jl_world_destroy(&a);
    jl_world_destroy(&b);
    free_model(m);
    ENSURE_MSG(same, "%s: the copy went on differently", scenes[i]);
  }
}

/* the impact law's history (src/impact.c): a world given the copy of another in the middle of an
 * impact (energy held for the rebound) goes on bitwise like it; the ball on the ground and two free
 * balls head-on, the latter under implicit_midpoint */
static void test_copy_impacts(void) {
  static const struct {
    const char *scene;
    int steps;
    int midpoint;
  } cases[] = {{"bounce_ball.json", 27, 0}, {"bounce_head_on.json", 2, 0}, {"bounce_head_on.json", 2, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[512], err[512];
    snprintf(path, sizeof path, "%s%s", SCENES, cases[i].scene);
    JlStepDef def;
    JlModel *m = load_model(path, &def);
    ENSURE_MSG(m, "%s", cases[i].scene);
    if (cases[i].midpoint) def.integrator = JL_INTEGRATOR_IMPLICIT_MIDPOINT;
    JlWorld a, b;
    ENSURE(make(&a, m, &def) && make(&b, m, &def));
    int ok = 1;
    double held = 0.0;
    for (int k = 0; k < 40 && ok && !(held > 0.0); k++) {
      ok = jl_world_step(&a, H, NULL) == JL_OK;
      held = jl_impact_held(jl_world_find_force(&a, JL_FORCE_IMPACT));
    }
    ENSURE_MSG(ok && held > 0.0, "%s: no impact holds energy in the first 40 steps: the test has no teeth",
               cases[i].scene);
    ENSURE_MSG(jl_state_copy(&b, &a, err, sizeof err) == JL_OK, "%s: %s", cases[i].scene, err);
    for (int k = 0; k < 20 && ok; k++) ok = jl_world_step(&a, H, NULL) == JL_OK && jl_world_step(&b, H, NULL) == JL_OK;
    int same = ok && same_state(&a, &b);
    printf("  %-22s %s: copied holding %.3g J: %s\n", cases[i].scene, jl_integrator_name(def.integrator), held,
           same ? "bitwise" : "DIFFERS");
    jl_world_destroy(&a);
    jl_world_destroy(&b);
    free_model(m);
    ENSURE_MSG(same, "%s: the copy went on differently", cases[i].scene);
  }
}

/* worlds of different models or element tables refuse each other's state */
static void test_copy_mismatch(void) {
  JlStepDef def, def2;
  JlModel *m = load_model(CUBES, &def), *m2 = load_model(SCENES "contact_ball_on_box.json", &def2);
  ENSURE(m && m2);
  JlWorld a, c;
  char err[512] = "";
  ENSURE(make(&a, m, &def) && make(&c, m2, &def2));
  ENSURE(jl_state_copy(&a, &c, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "another model"), "message: %s", err);
  jl_world_destroy(&a);
  jl_world_destroy(&c);
  free_model(m);
  free_model(m2);
}

/* ---- adaptive rejection ------------------------------------------------------- */

static void test_adaptive_rejection(void) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  ENSURE(m);
  def.adaptive = 1;
  def.max_strain_change = 3e-3; /* rejects often while the cubes settle */
  JlWorld a, half;
  char err[512];
  ENSURE(make(&a, m, &def) && make(&half, m, &def));
  int tested = 0, equal = 0;
  for (int frame = 0; frame < 60 && tested < 5; frame++) {
    /* half: a copy that goes straight to the half step a rejection leads to */
    ENSURE(jl_state_copy(&half, &a, err, sizeof err) == JL_OK);
    double h_before = a.state.h_adaptive;
    JlStepReport rep;
    ENSURE(jl_world_step(&a, H, &rep) == JL_OK);
    if (h_before != 0.0 || rep.rejected != 1) continue;
    /* the sub-step a rejection halves is the time left, (t + H) - t, not H itself */
    half.state.h_adaptive = 0.5 * ((half.state.t + H) - half.state.t);
    half.state.good_steps = 0;
    JlStepReport rep2;
    ENSURE(jl_world_step(&half, H, &rep2) == JL_OK);
    ENSURE(rep2.rejected == 0);
    tested++;
    equal += memcmp(a.state.x, half.state.x, 3 * (size_t)m->nnode * sizeof(double)) == 0 &&
             memcmp(a.state.v, half.state.v, 3 * (size_t)m->nnode * sizeof(double)) == 0;
    /* carry on from the same state */
    ENSURE(jl_state_copy(&half, &a, err, sizeof err) == JL_OK);
  }
  printf("  %d frames with one rejection of the full step, %d bitwise equal to going straight to half steps\n", tested,
         equal);
  jl_world_destroy(&a);
  jl_world_destroy(&half);
  free_model(m);
  ENSURE_MSG(tested > 0, "no frame rejected exactly its full step: lower max_strain_change");
  ENSURE(equal == tested);
}

/* ---- checkpoint files --------------------------------------------------------- */

static void test_checkpoint_file(void) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def), *m2 = load_model(CUBES, NULL);
  ENSURE(m && m2);
  const char *dir = jl_test_tmpdir("state_file");
  char path[600], err[1024];
  snprintf(path, sizeof path, "%s/a.jlck", dir);
  JlWorld a, b;
  ENSURE(make(&a, m, &def) && make(&b, m2, &def));
  ENSURE(steps(&a, 25));
  ENSURE_MSG(jl_checkpoint_save(&a, path, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(steps(&a, 25));
  /* a world of a model built again from the same scene */
  ENSURE_MSG(jl_checkpoint_load(&b, path, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(steps(&b, 25));
  int same = same_state(&a, &b) && memcmp(&a.state.warnings, &b.state.warnings, sizeof a.state.warnings) == 0;
  jl_world_destroy(&a);
  jl_world_destroy(&b);
  free_model(m);
  free_model(m2);
  ENSURE_MSG(same, "the run resumed from the checkpoint differs from the uninterrupted run");
}

static void test_world_pins(void) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  ENSURE(m);
  const char *dir = jl_test_tmpdir("state_pins");
  char path[600], err[1024];
  snprintf(path, sizeof path, "%s/p.jlck", dir);
  JlWorld a, b, c;
  ENSURE(make(&a, m, &def) && make(&b, m, &def) && make(&c, m, &def));
  int node = m->body[1].node_begin; /* a node of the falling cube */
  ENSURE(!m->pinned[node]);
  uint64_t fp = jl_model_fingerprint(m);
  double x0[3];
  memcpy(x0, a.state.x + 3 * node, sizeof x0);
  jl_world_pin(&a, node, 1);
  ENSURE(a.model->pinned[node] == 1 && b.model->pinned[node] == 0 && m->pinned[node] == 0);
  /* the view shares every other array with the model */
  ENSURE(a.model->x0 == m->x0 && a.model->spring_node == m->spring_node && a.model->pinned != m->pinned);
  ENSURE(steps(&a, 10) && steps(&b, 10));
  ENSURE(memcmp(a.state.x + 3 * node, x0, sizeof x0) == 0);
  ENSURE(b.state.x[3 * node + 1] < x0[1]);
  ENSURE(jl_model_fingerprint(jl_world_base_model(&a)) == fp && jl_world_base_model(&a) == m);
  ENSURE(a.model->pinned == a.state.pinned); /* the pin mask the elements read is the state's */
  /* a copy carries the pins: c pinned like a, then equal after stepping */
  ENSURE_MSG(jl_state_copy(&c, &a, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(c.model->pinned[node] == 1);
  ENSURE(steps(&a, 5) && steps(&c, 5) && same_state(&a, &c));
  /* a checkpoint too: saved pinned, loaded into b which is not */
  ENSURE_MSG(jl_checkpoint_save(&a, path, err, sizeof err) == JL_OK, "%s", err);
  ENSURE_MSG(jl_checkpoint_load(&b, path, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(b.model->pinned[node] == 1);
  ENSURE(steps(&a, 5) && steps(&b, 5) && same_state(&a, &b));
  /* unpinned again, the node falls */
  jl_world_pin(&a, node, 0);
  ENSURE(steps(&a, 10) && a.state.x[3 * node + 1] < x0[1]);
  jl_world_destroy(&a);
  jl_world_destroy(&b);
  jl_world_destroy(&c);
  ENSURE(m->pinned[node] == 0);
  free_model(m);
}

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME  1099511628211ull

static uint64_t fnv(const unsigned char *p, size_t n) {
  uint64_t h = FNV_OFFSET;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * FNV_PRIME;
  return h;
}

static int write_bytes(const char *path, const unsigned char *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  size_t w = fwrite(p, 1, n, f);
  return (fclose(f) == 0) & (w == n);
}

/* loads path into w; returns the result, and whether w's state stayed as it was */
static JlResult try_load(JlWorld *w, const char *path, int *unchanged, char *err, size_t errsz) {
  Snapshot s;
  snap(&s, w);
  JlResult r = jl_checkpoint_load(w, path, err, errsz);
  *unchanged = snap_equal(&s, w);
  snap_free(&s);
  return r;
}

static void test_checkpoint_hostile(void) {
  JlStepDef def, def2;
  JlModel *m = load_model(CUBES, &def), *other = load_model(SCENES "contact_ball_on_box.json", &def2);
  ENSURE(m && other);
  const char *dir = jl_test_tmpdir("state_hostile");
  char good[600], bad[600], foreign[600], err[1024];
  snprintf(good, sizeof good, "%s/good.jlck", dir);
  snprintf(bad, sizeof bad, "%s/bad.jlck", dir);
  snprintf(foreign, sizeof foreign, "%s/foreign.jlck", dir);
  JlWorld a, w, o;
  ENSURE(make(&a, m, &def) && make(&w, m, &def) && make(&o, other, &def2));
  ENSURE(steps(&a, 20) && steps(&w, 3) && steps(&o, 5));
  ENSURE(jl_checkpoint_save(&a, good, err, sizeof err) == JL_OK);
  ENSURE(jl_checkpoint_save(&o, foreign, err, sizeof err) == JL_OK);
  size_t n = 0;
  unsigned char *file = (unsigned char *)jl_test_read_file(good, &n);
  ENSURE(file && n > 800);
  unsigned char *buf = malloc(n + 64);
  int unchanged = 0, cases = 0;

  /* no such file, another model */
  ENSURE(try_load(&w, "/nonexistent/x.jlck", &unchanged, err, sizeof err) != JL_OK && unchanged);
  ENSURE(try_load(&w, foreign, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  ENSURE_MSG(strstr(err, "another model"), "message: %s", err);
  /* truncated at every length up to the header's end and at a spread of lengths after it */
  for (size_t cut = 0; cut < n; cut += cut < 900 ? 1 : 997) {
    ENSURE(write_bytes(bad, file, cut));
    JlResult r = try_load(&w, bad, &unchanged, err, sizeof err);
    ENSURE_MSG(r == JL_ERR_INPUT && unchanged, "cut at %zu of %zu: result %d, unchanged %d: %s", cut, n, (int)r,
               unchanged, err);
    cases++;
  }
  ENSURE(write_bytes(bad, file, n - 1) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "truncated"), "message: %s", err);
  /* bytes after the end */
  memcpy(buf, file, n);
  buf[n] = 0;
  ENSURE(write_bytes(bad, buf, n + 1) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  /* wrong magic, another version */
  memcpy(buf, file, n);
  buf[0] = 'X';
  ENSURE(write_bytes(bad, buf, n) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  ENSURE_MSG(strstr(err, "not a Jelly checkpoint"), "message: %s", err);
  memcpy(buf, file, n);
  buf[8] = 99;
  ENSURE(write_bytes(bad, buf, n) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  ENSURE_MSG(strstr(err, "version"), "message: %s", err);
  /* a huge node count (offset: magic 8, version 4, layout 20, fingerprint 8) */
  memcpy(buf, file, n);
  uint64_t huge = (uint64_t)1 << 60;
  memcpy(buf + 40, &huge, sizeof huge);
  ENSURE(write_bytes(bad, buf, n) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  ENSURE_MSG(strstr(err, "nodes"), "message: %s", err);
  /* a huge history length: the first element's (after x, v, dv and the element count) */
  /* x starts after the header (48), t and h_adaptive, good_steps and the warnings */
  size_t xoff = 48 + 16 + 8 + sizeof(((JlWarnings *)0)->count) + sizeof(((JlWarnings *)0)->first_t) +
                sizeof(((JlWarnings *)0)->first);
  size_t hist = xoff + 9 * (size_t)m->nnode * sizeof(double) + (size_t)m->nnode + 4; /* x, v, dv, pin mask, n */
  memcpy(buf, file, n);
  memcpy(buf + hist + 4, &huge, sizeof huge);
  ENSURE(write_bytes(bad, buf, n) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  /* a flipped bit in x: the checksum */
  memcpy(buf, file, n);
  buf[800] ^= 0x10;
  ENSURE(write_bytes(bad, buf, n) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  ENSURE_MSG(strstr(err, "corrupted"), "message: %s", err);
  /* NaN and far-away positions with a valid checksum: states no step leaves */
  double bad_x[2] = {NAN, 1e6};
  const char *want[2] = {"non-finite position", "diverged state"};
  for (int k = 0; k < 2; k++) {
    memcpy(buf, file, n);
    memcpy(buf + xoff, &bad_x[k], sizeof(double)); /* x[0] */
    uint64_t sum = fnv(buf, n - 8);
    memcpy(buf + n - 8, &sum, 8);
    ENSURE(write_bytes(bad, buf, n) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
    ENSURE_MSG(strstr(err, want[k]), "message: %s", err);
  }
  /* a contact whose node count is out of range, checksum made valid: the element refuses it */
  size_t p = hist;
  int patched = 0;
  for (int e = 0; e < a.nforce; e++) {
    uint32_t kind;
    uint64_t len;
    memcpy(&kind, file + p, 4);
    memcpy(&len, file + p + 4, 8);
    p += 12;
    if (kind == JL_FORCE_CONTACTS) {
      int counts[8];
      memcpy(counts, file + p, sizeof counts);
      ENSURE_MSG(counts[3] > 0, "no contacts at the checkpoint");
      memcpy(buf, file, n);
      int bogus = 1 << 30;
      memcpy(buf + p + sizeof counts + sizeof(int), &bogus, sizeof bogus); /* Contact.node[0] */
      uint64_t sum = fnv(buf, n - 8);
      memcpy(buf + n - 8, &sum, 8);
      patched = 1;
    }
    p += (size_t)len;
  }
  ENSURE(patched && p + 8 == n);
  ENSURE(write_bytes(bad, buf, n) && try_load(&w, bad, &unchanged, err, sizeof err) == JL_ERR_INPUT && unchanged);
  ENSURE_MSG(strstr(err, "out of range"), "message: %s", err);
  /* after all that the world still steps like an untouched copy */
  JlWorld c;
  ENSURE(make(&c, m, &def));
  ENSURE(jl_state_copy(&c, &w, err, sizeof err) == JL_OK);
  ENSURE(steps(&w, 5) && steps(&c, 5) && same_state(&w, &c));
  /* and the good file loads */
  ENSURE_MSG(jl_checkpoint_load(&w, good, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(same_state(&w, &a));
  printf("  %d truncations and 11 corruptions refused\n", cases);
  free(buf);
  free(file);
  jl_world_destroy(&a);
  jl_world_destroy(&w);
  jl_world_destroy(&o);
  jl_world_destroy(&c);
  free_model(m);
  free_model(other);
}

/* ---- threads ------------------------------------------------------------------- */

typedef struct Job {
  JlWorld *w;
  int n, ok;
} Job;

static void *job_run(void *arg) {
  Job *j = arg;
  j->ok = steps(j->w, j->n);
  return NULL;
}

/* a world's thread count is its own: the host's OpenMP setting is untouched */
static void test_threads_per_world(void) {
#ifdef _OPENMP
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  ENSURE(m);
  omp_set_num_threads(3);
  def.threads = 2;
  JlWorld w;
  ENSURE(make(&w, m, &def));
  ENSURE(steps(&w, 2));
  int host = omp_get_max_threads();
  jl_world_destroy(&w);
  free_model(m);
  ENSURE_MSG(host == 3, "the host's OpenMP thread count became %d", host);
#else
  printf("  built without OpenMP\n");
#endif
}

static void test_two_threads(void) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  ENSURE(m);
  enum { N = 30 };
  JlWorld ref, a, b;
  JlStepDef two = def;
  two.threads = 2;
  ENSURE(make(&ref, m, &def) && make(&a, m, &def) && make(&b, m, &two));
  ENSURE(steps(&ref, N));
  Job ja = {&a, N, 0}, jb = {&b, N, 0};
  pthread_t ta, tb;
  ENSURE(pthread_create(&ta, NULL, job_run, &ja) == 0);
  ENSURE(pthread_create(&tb, NULL, job_run, &jb) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  ENSURE(ja.ok && jb.ok);
  int sa = same_state(&ref, &a), sb = same_state(&ref, &b);
  jl_world_destroy(&ref);
  jl_world_destroy(&a);
  jl_world_destroy(&b);
  free_model(m);
  ENSURE_MSG(sa, "world on thread 1 differs from the single-threaded run");
  ENSURE_MSG(sb, "world on thread 2 (2 OpenMP threads) differs from the single-threaded run");
}

/* ---- warnings and world API ---------------------------------------------------- */

static void test_warnings(void) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  ENSURE(m);
  def.max_iterations = 1;
  JlWorld w;
  ENSURE(make(&w, m, &def));
  long failed = 0;
  for (int i = 0; i < 5; i++) {
    JlStepReport rep;
    jl_world_step(&w, H, &rep);
    failed += rep.cg_failed;
  }
  long counted = w.state.warnings.count[JL_WARN_CG_CAP];
  int text = strstr(w.state.warnings.first[JL_WARN_CG_CAP], "cap of 1 iterations") != NULL;
  jl_world_destroy(&w);
  free_model(m);
  ENSURE(failed > 0);
  ENSURE_MSG(counted == failed, "counted %ld, reports %ld", counted, failed);
  ENSURE(text);
  ENSURE(strcmp(jl_warning_name(JL_WARN_CG_CAP), "cg_cap") == 0 && jl_warning_name(JL_WARN_COUNT) == NULL);
}

/* a node pinned at runtime is out of the ground's reach from the next step on:
 * the plane neither pushes it nor stores energy for it, however deep it is */
static void test_ground_runtime_pin(void) {
  JlStepDef def;
  JlModel *m = load_model(CUBES, &def);
  ENSURE(m);
  JlWorld a;
  ENSURE(make(&a, m, &def));
  /* the lowest node of the resting cube, on the plane */
  int node = -1;
  for (int i = m->body[0].node_begin; i < m->body[0].node_begin + m->body[0].node_count; i++)
    if (node < 0 || a.state.x[3 * i + 1] < a.state.x[3 * node + 1]) node = i;
  JlForce *g = jl_world_find_force(&a, JL_FORCE_GROUND);
  ENSURE(g && node >= 0);
  size_t n3 = 3 * (size_t)m->nnode;
  double *x = jl_calloc(n3, sizeof(double)), *f = jl_calloc(n3, sizeof(double));
  memcpy(x, a.state.x, n3 * sizeof(double));
  x[3 * node + 1] = m->world.ground_y - 0.01; /* 1 cm below the plane */
  g->ops->begin_step(g, a.model, x, a.state.v, H);
  double e0 = 0.0;
  g->ops->force(g, a.model, x, a.state.v, f, &e0);
  ENSURE(f[3 * node + 1] > 0.0 && e0 > 0.0); /* free: pushed up */
  jl_world_pin(&a, node, 1);
  JlStepReport rep;
  ENSURE(jl_world_step(&a, H, &rep) == JL_OK);
  memset(f, 0, n3 * sizeof(double));
  memcpy(x, a.state.x, n3 * sizeof(double));
  x[3 * node + 1] = m->world.ground_y - 0.01;
  g->ops->begin_step(g, a.model, x, a.state.v, H); /* the next step's start, as the world calls it */
  g->ops->force(g, a.model, x, a.state.v, f, NULL);
  ENSURE_MSG(f[3 * node + 1] == 0.0, "pinned node still pushed by the ground: %g N", f[3 * node + 1]);
  free(x);
  free(f);
  jl_world_destroy(&a);
  jl_model_free(m);
  free(m);
}

static void test_world_api(void) {
  JlWorld w;
  JlModel *m = cubes_world(&w);
  ENSURE(m);
  JlForce *g = jl_world_find_force(&w, JL_FORCE_GRAVITY);
  ENSURE(g && jl_world_find_force(&w, JL_FORCE_CONTACTS) && !jl_world_find_force(&w, JL_FORCE_WIND));
  int n = w.nforce;
  ENSURE(jl_world_remove_force(&w, g) && w.nforce == n - 1 && !jl_world_find_force(&w, JL_FORCE_GRAVITY));
  ENSURE(!jl_world_remove_force(&w, g));
  /* the upper cube floats 5 mm above the lower one: without gravity it stays at rest */
  ENSURE(steps(&w, 3));
  double vmax = 0;
  for (int i = 0; i < 3 * m->nnode; i++) vmax = fmax(vmax, fabs(w.state.v[i]));
  ENSURE(jl_world_add_force(&w, g) && w.nforce == n);
  jl_world_set_integrator(&w, JL_INTEGRATOR_SYMPLECTIC);
  ENSURE(w.def.integrator == JL_INTEGRATOR_SYMPLECTIC);
  jl_world_destroy(&w);
  free_model(m);
  ENSURE_MSG(vmax < 0.05, "max |v| %g m/s without gravity", vmax);
}

static jmp_buf g_jump;
static char g_assert_msg[256];

static void on_assert(const char *file, int line, const char *expr, const char *msg) {
  snprintf(g_assert_msg, sizeof g_assert_msg, "%s:%d: %s (%s)", file, line, msg, expr);
  longjmp(g_jump, 1);
}

static void test_assert_handler(void) {
  JlWorld w;
  JlModel *m = cubes_world(&w);
  ENSURE(m);
  g_assert_msg[0] = '\0';
  ENSURE(jl_set_assert_handler(on_assert) == NULL);
  volatile int caught = 0;
  if (setjmp(g_jump) == 0)
    jl_world_step(&w, -1.0, NULL); /* a negative step: a broken contract */
  else
    caught = 1;
  ENSURE(jl_set_assert_handler(NULL) == on_assert);
  jl_world_destroy(&w);
  free_model(m);
  ENSURE(caught);
  ENSURE_MSG(strstr(g_assert_msg, "the step h must be positive"), "message: %s", g_assert_msg);
}

/* ---- one body, two ways -------------------------------------------------------- */

/* An embedded body built through the library (shape, jl_tetgen_build,
 * jl_model_build) is the body a scene file builds: the embedded tets' share
 * inside the surface (JlTetMesh.fill) weights mass and stiffness inside
 * jl_model_build, not in the scene code. */
static void test_library_matches_scene(void) {
  static const char *text =
      "{ \"duration\": 1, \"bodies\": [ { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", "
      "\"radius\": 0.2, \"resolution\": 0.05 }, \"tetgen\": { \"mode\": \"embedded\", \"resolution\": 0.06 }, "
      "\"density\": 500, \"young_modulus\": 1e5, \"damping\": 0.5 } ] }";
  char err[1024];
  JlScene sc;
  ENSURE_MSG(jl_scene_parse(text, "ball.json", &sc, err, sizeof err) == JL_OK, "%s", err);
  JlModel a, b;
  JlResult r = jl_scene_build(&sc, &a, NULL, err, sizeof err);
  JlBodyDef def = sc.body[0].def;
  JlWorldDef wd = sc.world;
  jl_scene_free(&sc);
  ENSURE_MSG(r == JL_OK, "%s", err);
  /* the library path: the same surface and lattice, no scene code */
  JlSurface surf;
  jl_shape_sphere(0.2, 0.05, &surf);
  JlTetgenDef td = jl_default_tetgen_def();
  td.mode = JL_TETGEN_EMBEDDED;
  td.resolution = 0.06;
  JlTetMesh tm;
  ENSURE_MSG(jl_tetgen_build(&surf, &td, &tm, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(tm.fill != NULL);
  ENSURE_MSG(jl_model_build(&b, 1, &tm, &surf, &def, &wd, err, sizeof err) == JL_OK, "%s", err);
  jl_surface_free(&surf);
  jl_tetmesh_free(&tm);
  int same = a.nnode == b.nnode && a.nspring == b.nspring && a.ntet == b.ntet &&
             memcmp(a.mass, b.mass, (size_t)a.nnode * sizeof(double)) == 0 &&
             memcmp(a.spring_k, b.spring_k, (size_t)a.nspring * sizeof(double)) == 0 &&
             memcmp(a.tet_kvol, b.tet_kvol, (size_t)a.ntet * sizeof(double)) == 0 &&
             jl_model_fingerprint(&a) == jl_model_fingerprint(&b);
  /* and the mass is the ball's, not the lattice's */
  double mass = 0;
  for (int i = 0; i < a.nnode; i++) mass += a.mass[i];
  double ball = 500.0 * 4.0 / 3.0 * 3.14159265358979 * 0.2 * 0.2 * 0.2;
  printf("  scene %.6g kg, library %.6g kg (a ball of 0.2 m at 500 kg/m^3: %.6g kg, polyhedral)\n", mass,
         b.body[0].mass, ball);
  jl_model_free(&a);
  jl_model_free(&b);
  ENSURE_MSG(same, "the library's model differs from the scene's");
  ENSURE_REL(mass, ball, 0.05);
}

/* ---- the program ------------------------------------------------------------------ */

static char g_out[1 << 16];

/* stats.csv rows of frames > from, without the wall_ms column */
static char *rows_after(const char *path, int from) {
  size_t n;
  char *text = jl_test_read_file(path, &n);
  if (!text) return NULL;
  char *out = calloc(n + 1, 1), *o = out;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char *end;
    long frame = strtol(line, &end, 10);
    if (end == line || frame <= from) continue;
    /* frame,time,wall_ms,... -> frame,time,... */
    char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL, *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
    if (!c3) continue;
    o += sprintf(o, "%.*s%s\n", (int)(c2 - line), line, c3);
  }
  free(text);
  return out;
}

static void test_program_resume(void) {
  const char *full = jl_test_tmpdir("state_full"), *res = jl_test_tmpdir("state_resumed");
  char cmd[2048], a[600], b[600];
  snprintf(cmd, sizeof cmd, "%s run %s --frames 30 --checkpoint-every 10 --out %s --quiet --no-preview", JL_JELLY_EXE,
           CUBES, full);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "exit %d: %s", rc, g_out);
  snprintf(a, sizeof a, "%s/checkpoint_0010.jlck", full);
  snprintf(b, sizeof b, "%s/checkpoint_0030.jlck", full);
  size_t n;
  char *ck = jl_test_read_file(a, &n);
  ENSURE(ck && memcmp(ck, "JELLYCKP", 8) == 0);
  free(ck);
  /* a new process resumes from frame 10 into an empty folder */
  snprintf(cmd, sizeof cmd, "%s run %s --frames 30 --resume %s --out %s --quiet", JL_JELLY_EXE, CUBES, a, res);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 0, "resume: exit %d: %s", rc, g_out);
  char fa[700], fb[700];
  snprintf(fa, sizeof fa, "%s/frame_0030.vtu", full);
  snprintf(fb, sizeof fb, "%s/frame_0030.vtu", res);
  size_t na, nb;
  char *va = jl_test_read_file(fa, &na), *vb = jl_test_read_file(fb, &nb);
  int same_vtu = va && vb && na == nb && memcmp(va, vb, na) == 0;
  free(va);
  free(vb);
  ENSURE_MSG(same_vtu, "frame_0030.vtu of the resumed run differs");
  snprintf(fa, sizeof fa, "%s/stats.csv", full);
  snprintf(fb, sizeof fb, "%s/stats.csv", res);
  char *ra = rows_after(fa, 10), *rb = rows_after(fb, 10);
  int same_rows = ra && rb && strlen(ra) > 0 && strcmp(ra, rb) == 0;
  free(ra);
  free(rb);
  ENSURE_MSG(same_rows, "stats.csv rows after frame 10 differ");
  /* the last checkpoint is the same too */
  snprintf(fb, sizeof fb, "%s/checkpoint_0030.jlck", res);
  snprintf(cmd, sizeof cmd, "%s run %s --frames 30 --checkpoint-every 30 --resume %s --out %s --quiet", JL_JELLY_EXE,
           CUBES, a, res);
  ENSURE(jl_test_run(cmd, g_out, sizeof g_out) == 0);
  va = jl_test_read_file(b, &na);
  vb = jl_test_read_file(fb, &nb);
  int same_ck = va && vb && na == nb && memcmp(va, vb, na) == 0;
  free(va);
  free(vb);
  ENSURE_MSG(same_ck, "checkpoint_0030.jlck of the resumed run differs");
  /* bad checkpoints: exit 2 with the reason */
  snprintf(cmd, sizeof cmd, "%s run %s --frames 30 --resume %s --out %s --quiet", JL_JELLY_EXE, CUBES, CUBES, res);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "not a Jelly checkpoint"), "exit %d: %s", rc, g_out);
  snprintf(cmd, sizeof cmd, "%s run %s --frames 30 --fps 50 --resume %s --out %s --quiet", JL_JELLY_EXE, CUBES, a, res);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "no frame of this run"), "exit %d: %s", rc, g_out);
  snprintf(cmd, sizeof cmd, "%s run %s --frames 30 --resume %s --out %s --quiet", JL_JELLY_EXE,
           SCENES "contact_ball_on_box.json", a, res);
  rc = jl_test_run(cmd, g_out, sizeof g_out);
  ENSURE_MSG(rc == 2 && strstr(g_out, "another model"), "exit %d: %s", rc, g_out);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"copy_restore", test_copy_restore}, {"copy_scenes", test_copy_scenes},
             {"copy_impacts", test_copy_impacts}, {"copy_mismatch", test_copy_mismatch},
             {"adaptive_rejection", test_adaptive_rejection}, {"checkpoint_file", test_checkpoint_file},
             {"checkpoint_hostile", test_checkpoint_hostile, JL_ROBUSTNESS}, {"two_threads", test_two_threads},
             {"threads_per_world", test_threads_per_world}, {"library_matches_scene", test_library_matches_scene},
             {"warnings", test_warnings}, {"world_pins", test_world_pins},
             {"ground_runtime_pin", test_ground_runtime_pin}, {"world_api", test_world_api},
             {"assert_handler", test_assert_handler}, {"program_resume", test_program_resume, JL_PROGRAM})
