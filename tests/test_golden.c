/* Golden results: bitwise hashes of a few scenes' final states.
 *
 * Each row of `golden` below loads a shipped scene (tests/sim.h, as `jelly
 * run` does), sets its integrator, steps it `steps` times at step h (0: the
 * integrator's stable step, jl_world_stable_dt) on 1 and on 2 threads, and
 * hashes the final positions and velocities bit for bit (FNV-1a 64 over the
 * doubles' bytes). Both thread counts must give the row's hash: any change
 * of results, even 1e-16 in one node, fails it. The rows cover every
 * integrator and every contact kind (ground, obstacle, body against body with
 * patches and speculative contacts, cloth and rope against bodies and
 * obstacles, rope against rope).
 *
 * When a change is meant to change results, the failure prints the new hash:
 * put it in its row and say why in CHANGELOG.md. What the hashes guarantee
 * (same build flags, compiler and Debian packages) is in docs/testing.md. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>

#include "tests/sim.h"

typedef struct Golden {
  const char *scene;      /* models/scenes/ */
  const char *integrator; /* jl_integrator_parse */
  int steps;
  double h;      /* s; 0: jl_world_stable_dt */
  uint64_t hash; /* of x and v after the steps, at 1 and 2 threads */
} Golden;

/* tests/sim.h's table of known gaps: golden rows have none */
const Gap gaps[] = {{"", 0, ""}};
const size_t ngaps = 0;

/* one line a row: a deliberate change of results changes its hash here */
static const Golden golden[] = {
    {"contact_head_on.json", "implicit", 30, 1.0 / 60.0, 0x58148cb0bcc47778ull}, /* body-body: patches, speculative */
    {"contact_slab_obstacle.json", "implicit", 25, 1.0 / 60.0,
     0xe0ef7c1e6b845727ull}, /* fast ball onto an obstacle box */
    {"contact_half_below_ground.json", "implicit", 20, 1.0 / 60.0,
     0x87aaa894d588149eull},                                                       /* ground push-out, friction */
    {"thin_cloth_ball_8.json", "implicit", 30, 1.0 / 60.0, 0x0911c5cf39720487ull}, /* cloth on a body and the ground */
    {"thin_rope_on_box.json", "implicit", 20, 1.0 / 60.0, 0xe921a9c1a33128ddull},  /* rope on an obstacle box */
    {"hair.json", "implicit", 60, 1.0 / 120.0, 0xb075f449c6890007ull},             /* ropes on a body and each other */
    {"contact_half_below_ground.json", "symplectic", 150, 0, 0xd427c37577f465c5ull}, /* explicit integrators: ground */
    {"contact_half_below_ground.json", "euler", 150, 0, 0xd58014a64dba30e0ull},
    {"contact_half_below_ground.json", "midpoint", 150, 0, 0xfbb7f379a344dc3eull},
    {"contact_half_below_ground.json", "rk4", 150, 0, 0xb7537f2edc4c1ff3ull},
    {"contact_half_below_ground.json", "verlet", 150, 0, 0x61261bf5ec3359ecull},
};

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* runs row g on `threads` threads; returns 0 after reporting a failure */
static int golden_run(const Golden *g, int threads, uint64_t *hash, double *h_used, int *contacts) {
  Sim s;
  if (!sim_load(&s, g->scene, 0, 0, 0)) return 0;
  s.sc.step.integrator = jl_integrator_parse(g->integrator);
  s.sc.step.threads = threads;
  if (s.sc.step.integrator == JL_INTEGRATOR_COUNT) {
    jl_scene_free(&s.sc);
    jl_test_fail(__FILE__, __LINE__, "%s: unknown integrator", g->integrator);
    return 0;
  }
  if (!sim_build(&s)) return 0;
  double h = g->h;
  if (h <= 0) h = jl_world_stable_dt(&s.w, s.sc.step.integrator, 1.0 / 60.0, g->steps * 1.0 / 60.0).dt;
  *h_used = h;
  int ok = 1;
  *contacts = 0;
  for (int k = 0; k < g->steps && ok; k++) {
    JlStepReport rep;
    if (jl_world_step(&s.w, h, &rep) != JL_OK) {
      jl_test_fail(__FILE__, __LINE__, "%s (%s): step %d failed: %s", g->scene, g->integrator, k, rep.message);
      ok = 0;
    }
    if (contact_count(&s.w) > *contacts) *contacts = contact_count(&s.w);
  }
  size_t n = sizeof(double) * 3 * (size_t)s.w.state.nnode;
  *hash = fnv1a(fnv1a(0xcbf29ce484222325ull, s.w.state.x, n), s.w.state.v, n);
  sim_close(&s);
  return ok;
}

static void golden_case(int i) {
  const Golden *g = &golden[i];
  uint64_t h1 = 0, h2 = 0;
  double dt1 = 0, dt2 = 0;
  int c1 = 0, c2 = 0;
  if (!golden_run(g, 1, &h1, &dt1, &c1) || !golden_run(g, 2, &h2, &dt2, &c2)) return;
  printf("  %s %s: %d steps of %.6g s, up to %d body contacts: 0x%016" PRIx64 " (1 thread), 0x%016" PRIx64
         " (2 threads)\n",
         g->scene, g->integrator, g->steps, dt1, c1, h1, h2);
  fflush(stdout);
  ENSURE_MSG(h1 == h2, "%s (%s): 1 and 2 threads differ (0x%016" PRIx64 ", 0x%016" PRIx64 ")", g->scene, g->integrator,
             h1, h2);
  ENSURE_MSG(h1 == g->hash,
             "%s (%s): results changed: hash 0x%016" PRIx64 ", table 0x%016" PRIx64
             ". If the change is meant, put 0x%016" PRIx64
             "ull in its row of tests/test_golden.c and say why "
             "in CHANGELOG.md",
             g->scene, g->integrator, h1, g->hash, h1);
}

/* one case a row, named after the scene and integrator */
#define ROW(i) \
  static void golden_##i(void) { golden_case(i); }
ROW(0)
ROW(1)
ROW(2)
ROW(3)
ROW(4)
ROW(5)
ROW(6)
ROW(7)
ROW(8)
ROW(9)
ROW(10)

/* every row has its case */
_Static_assert(sizeof golden / sizeof golden[0] == 11, "a row of golden[] without its case in JL_TEST_MAIN");

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"head_on", golden_0}, {"slab_obstacle", golden_1}, {"half_below_ground", golden_2},
             {"cloth_ball", golden_3}, {"rope_on_box", golden_4}, {"hair", golden_5}, {"symplectic", golden_6},
             {"euler", golden_7}, {"midpoint", golden_8}, {"rk4", golden_9}, {"verlet", golden_10})
