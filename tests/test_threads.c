/* The library on several threads at once:
 * two threads each load, validate and tetrahedralize a different shipped
 * mesh, over and over, while the main thread reads and sets the mesh limits,
 * and each result must equal the single-threaded one bit for bit; two
 * threads write PNGs at once and each file must equal the one written alone
 * (with render/ only: JELLY_RENDER);
 * two threads step a world each (contacts included; built beforehand, as
 * jelly.h asks) and must end where one world stepped alone does. Under
 * AddressSanitizer the concurrent loads are skipped: gcc 12's ASan allocator
 * is not fork-safe (a child forked mid-malloc of the other thread hangs);
 * nor is its TSan allocator, whose run counts such a hang as a lost load. Run it under ThreadSanitizer (a build with
 * -DCMAKE_C_FLAGS=-fsanitize=thread) to see the races, not only their
 * results: the sorts' context pointers (mesh/surface.c weld, mesh/validate.c
 * orientation), the mesh limits (mesh/child.c), the out-of-memory exit code
 * (mesh/common.c) and the PNG checksum table (render/png.c, zlib's now) were shared
 * globals before. A guarded child must also not keep another thread's pipe
 * open (child_fds). POSIX
 * threads, not C11's <threads.h>: ThreadSanitizer does not see threads that
 * thrd_create starts (they crash under it); since glibc 2.34 pthreads are in
 * libc, so no link flag is needed. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mesh/child.h"
#include "mesh/surface.h"
#include "mesh/tetmesh.h"
#ifdef JL_TEST_RENDER
#include "render/render.h"
#endif
#include "tests/harness.h"
#include "tests/scene_world.h"

/* What one load gives: the welded surface, its findings, its tets. */
typedef struct Loaded {
  JlResult r;
  char err[512];
  JlSurface s;
  int nfinding, ok;
  JlTetMesh t;
} Loaded;

static void load(const char *path, Loaded *out) {
  memset(out, 0, sizeof *out);
  out->r = jl_surface_load(path, &out->s, out->err, sizeof out->err);
  if (out->r != JL_OK) return;
  JlMeshReport rep;
  jl_surface_validate(&out->s, path, &rep);
  out->nfinding = rep.nfinding, out->ok = rep.ok;
  if (!rep.ok) return;
  JlTetgenDef def = jl_default_tetgen_def();
  out->r = jl_tetgen_build(&out->s, &def, &out->t, out->err, sizeof out->err);
}

static void loaded_free(Loaded *l) {
  jl_surface_free(&l->s);
  if (l->r == JL_OK && l->ok) jl_tetmesh_free(&l->t);
}

/* bitwise equal: same vertices, triangles, findings, nodes and tets */
static int same(const Loaded *a, const Loaded *b) {
  if (a->r != b->r || strcmp(a->err, b->err) != 0) return 0;
  if (a->s.nvert != b->s.nvert || a->s.ntri != b->s.ntri || a->nfinding != b->nfinding || a->ok != b->ok) return 0;
  if (memcmp(a->s.vert, b->s.vert, 3 * (size_t)a->s.nvert * sizeof(double)) != 0) return 0;
  if (memcmp(a->s.tri, b->s.tri, 3 * (size_t)a->s.ntri * sizeof(int)) != 0) return 0;
  if (a->r != JL_OK || !a->ok) return 1;
  if (a->t.nnode != b->t.nnode || a->t.ntet != b->t.ntet || a->t.nface != b->t.nface) return 0;
  return memcmp(a->t.node, b->t.node, 3 * (size_t)a->t.nnode * sizeof(double)) == 0 &&
         memcmp(a->t.tet, b->t.tet, 4 * (size_t)a->t.ntet * sizeof(int)) == 0;
}

/* gcc 12's ThreadSanitizer, like its AddressSanitizer, takes no lock on its
 * allocator across fork(): a child forked while the other thread holds one of
 * the allocator's region locks waits for it forever (seen in about one run
 * of this case in 50: the importer child stuck in
 * __sanitizer::SizeClassAllocator64::GetFromAllocator under operator new,
 * ended by the --mesh-timeout deadline). glibc's malloc locks its arenas
 * around fork, so release builds cannot hang this way. Under
 * ThreadSanitizer a load ended by the deadline is counted as lost, not as a
 * mismatch (the races this case is for are in the parent's code, which the
 * other loads still run), and the deadline is shortened to keep the stage
 * short. */
#if defined(__SANITIZE_THREAD__)
#define FORK_MAY_HANG 1
#else
#define FORK_MAY_HANG 0
#endif

typedef struct Job {
  const char *path;
  const Loaded *expect;
  int rounds;
  int mismatches;
  int lost;        /* FORK_MAY_HANG: loads ended by the deadline */
  char first[640]; /* what the first mismatching load gave */
} Job;

static int ended_by_deadline(const Loaded *l) { return l->r != JL_OK && strstr(l->err, "(--mesh-timeout)") != NULL; }

static void *load_job(void *arg) {
  Job *j = arg;
  for (int k = 0; k < j->rounds; k++) {
    Loaded l;
    load(j->path, &l);
    if (FORK_MAY_HANG && ended_by_deadline(&l)) {
      j->lost++;
      loaded_free(&l);
      continue;
    }
    if (!same(&l, j->expect) && j->mismatches++ == 0)
      snprintf(j->first, sizeof j->first,
               "round %d: result %d, %d vertices, %d triangles, %d findings, %d nodes, %d tets (%s)", k, (int)l.r,
               l.s.nvert, l.s.ntri, l.nfinding, l.r == JL_OK && l.ok ? l.t.nnode : 0,
               l.r == JL_OK && l.ok ? l.t.ntet : 0, l.err);
    loaded_free(&l);
  }
  return NULL;
}

static int rounds(void) { return getenv("JL_TEST_QUICK") ? 3 : 8; }

static void test_two_meshes_at_once(void) {
#if defined(__SANITIZE_ADDRESS__)
  /* gcc 12's AddressSanitizer allocator takes no lock across fork(): a child
   * forked while the other thread is inside malloc waits forever for that
   * thread's allocator lock (seen: a TetGen child stuck in operator new, ended
   * by the --mesh-timeout deadline). glibc's malloc locks its arenas around
   * fork, so the release run keeps this case; the ThreadSanitizer run keeps
   * it too, counting such hangs as lost loads (FORK_MAY_HANG). */
  SKIP("under AddressSanitizer: its allocator is not fork-safe (gcc 12)");
#endif
  const char *paths[2] = {JL_MODELS_DIR "/icosphere_320.obj", JL_MODELS_DIR "/torus.obj"};
  JlMeshLimits saved = jl_mesh_limits(), limits = saved;
  if (FORK_MAY_HANG) {
    limits.timeout = 20.0; /* a load takes well under 1 s here under ThreadSanitizer */
    jl_mesh_set_limits(&limits);
  }
  Loaded expect[2];
  for (int i = 0; i < 2; i++) {
    load(paths[i], &expect[i]);
    ENSURE_MSG(expect[i].r == JL_OK && expect[i].ok && expect[i].t.ntet > 0, "%s: %s", paths[i], expect[i].err);
  }
  Job job[2] = {{paths[0], &expect[0], rounds(), 0, 0, ""}, {paths[1], &expect[1], rounds(), 0, 0, ""}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) ENSURE(pthread_create(&th[i], NULL, load_job, &job[i]) == 0);
  /* the program's setter and getter, meanwhile: the same values, so the loads' results cannot change */
  JlMeshLimits lim = jl_mesh_limits();
  for (int k = 0; k < 200; k++) {
    jl_mesh_set_limits(&lim);
    lim = jl_mesh_limits();
  }
  for (int i = 0; i < 2; i++) ENSURE(pthread_join(th[i], NULL) == 0);
  jl_mesh_set_limits(&saved);
  for (int i = 0; i < 2; i++) {
    if (job[i].lost > 0)
      printf("  %s: %d of %d loads hung in a child forked mid-malloc (ThreadSanitizer), not compared\n", paths[i],
             job[i].lost, job[i].rounds);
    ENSURE_MSG(job[i].lost < job[i].rounds, "%s: every threaded load hung", paths[i]);
    ENSURE_MSG(job[i].mismatches == 0,
               "%s: %d of %d threaded loads differ from the single-threaded one (%d nodes, %d tets); first: %s",
               paths[i], job[i].mismatches, job[i].rounds, expect[i].t.nnode, expect[i].t.ntet, job[i].first);
    loaded_free(&expect[i]);
  }
}

/* ---- worlds ------------------------------------------------------------------- */

/* two balls meeting head on: contacts (collision/ through the model's JlGeom
 * view), springs, volume force, implicit steps */
static const char *const k_balls =
    "{ \"gravity\": [0, -9.81, 0], \"ground\": {\"y\": -0.3},\n"
    "  \"bodies\": [\n"
    "   {\"name\": \"a\", \"shape\": {\"type\": \"sphere\", \"radius\": 0.15}, \"translate\": [-0.18, 0, 0],\n"
    "    \"velocity\": [3, 0, 0], \"tetgen\": {\"max_volume\": 1e-3}, \"young_modulus\": 2e5},\n"
    "   {\"name\": \"b\", \"shape\": {\"type\": \"sphere\", \"radius\": 0.15}, \"translate\": [0.18, 0, 0],\n"
    "    \"velocity\": [-3, 0, 0], \"tetgen\": {\"max_volume\": 1e-3}, \"young_modulus\": 2e5} ] }";

typedef struct WorldJob {
  JlWorld w; /* built before the thread starts (jelly.h: load from one thread at a time) */
  int steps;
  int ok;
} WorldJob;

static void *world_job(void *arg) {
  WorldJob *j = arg;
  for (int s = 0; s < j->steps && j->ok; s++) {
    JlStepReport rep;
    j->ok = jl_world_step(&j->w, 1.0 / 60.0, &rep) == JL_OK;
  }
  return NULL;
}

/* Two worlds stepped on two threads end where one world stepped alone does,
 * bit for bit: nothing in the engine is shared between worlds. The worlds
 * are built first, on this thread, as jelly.h asks (building forks TetGen
 * children); loading on two threads at once is two_meshes_at_once. */
static void test_two_worlds_at_once(void) {
  int steps = getenv("JL_TEST_QUICK") ? 10 : 30;
  WorldJob alone = {.steps = steps}, job[2] = {{.steps = steps}, {.steps = steps}};
  alone.ok = jl_test_scene_world(&alone.w, k_balls, "threads_balls.json");
  ENSURE(alone.ok);
  for (int i = 0; i < 2; i++) {
    job[i].ok = jl_test_scene_world(&job[i].w, k_balls, "threads_balls.json");
    ENSURE(job[i].ok);
  }
  world_job(&alone);
  ENSURE(alone.ok);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) ENSURE(pthread_create(&th[i], NULL, world_job, &job[i]) == 0);
  for (int i = 0; i < 2; i++) ENSURE(pthread_join(th[i], NULL) == 0);
  int n = alone.w.model->nnode, same[2];
  for (int i = 0; i < 2; i++)
    same[i] = job[i].ok && job[i].w.model->nnode == n &&
              memcmp(job[i].w.state.x, alone.w.state.x, 3 * (size_t)n * sizeof(double)) == 0;
  jl_world_destroy(&alone.w);
  for (int i = 0; i < 2; i++) jl_world_destroy(&job[i].w);
  ENSURE_MSG(same[0] && same[1], "threaded worlds differ from the one stepped alone (%d %d)", same[0], same[1]);
}

/* ---- guarded children hold no other descriptors ---------------------------------- */

static void body_slow(int fd, void *ctx) {
  (void)ctx;
  struct timespec ts = {1, 500000000L};
  nanosleep(&ts, NULL);
  int v = 1;
  jl_child_write(fd, &v, sizeof v);
}

/* A pipe another thread has just made for its own child (its write end still
 * open in the parent) must not stay open in a child started meanwhile: the
 * other parent would see no end of file when its own child dies, and report a
 * crash as a timeout. Single-threaded and deterministic: the pipe is open
 * while the slow child starts, then its write end is closed here, and end of
 * file must come at once, not when the slow child ends 1.5 s later. */
static void test_child_fds(void) {
  int p[2];
  ENSURE(pipe(p) == 0);
  JlChild c;
  ENSURE(jl_child_start(&c, "the test body", body_slow, NULL) == 0);
  close(p[1]);
  struct pollfd pfd = {p[0], POLLIN, 0};
  int r = poll(&pfd, 1, 500);
  char byte;
  int eof = r == 1 && read(p[0], &byte, 1) == 0;
  close(p[0]);
  int v = 0;
  int got = jl_child_read(&c, &v, sizeof v);
  char why[240];
  JlChildEnd e = jl_child_finish(&c, why, sizeof why);
  ENSURE_MSG(eof, "a child kept another pipe's write end open (poll %d)", r);
  ENSURE(got && v == 1 && e == JL_CHILD_DONE);
}

/* ---- PNG ------------------------------------------------------------------------ */

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */

#ifdef JL_TEST_RENDER /* render/png.c is built only with JELLY_RENDER */

typedef struct PngJob {
  char path[600];
  int seed;
  JlResult r;
} PngJob;

#define PNG_W 64
#define PNG_H 48

static void *png_job(void *arg) {
  PngJob *j = arg;
  unsigned char rgb[PNG_W * PNG_H * 3];
  for (int i = 0; i < PNG_W * PNG_H * 3; i++) rgb[i] = (unsigned char)((i * 7 + j->seed * 31) & 0xff);
  char err[256];
  j->r = jl_png_write(j->path, PNG_W, PNG_H, rgb, err, sizeof err);
  return NULL;
}

static void test_png_at_once(void) {
  const char *dir = jl_test_tmpdir("threads_png");
  PngJob job[4];
  for (int i = 0; i < 4; i++) {
    snprintf(job[i].path, sizeof job[i].path, "%s/%s%d.png", dir, i < 2 ? "together" : "alone", i % 2);
    job[i].seed = i % 2;
  }
  /* two at once (the first calls in this process: the checksum table is filled by one of them) */
  pthread_t th[2];
  for (int i = 0; i < 2; i++) ENSURE(pthread_create(&th[i], NULL, png_job, &job[i]) == 0);
  for (int i = 0; i < 2; i++) ENSURE(pthread_join(th[i], NULL) == 0);
  for (int i = 2; i < 4; i++) png_job(&job[i]);
  for (int i = 0; i < 2; i++) {
    ENSURE(job[i].r == JL_OK && job[i + 2].r == JL_OK);
    size_t na = 0, nb = 0;
    char *a = jl_test_read_file(job[i].path, &na), *b = jl_test_read_file(job[i + 2].path, &nb);
    int eq = a && b && na == nb && memcmp(a, b, na) == 0;
    free(a);
    free(b);
    ENSURE_MSG(eq, "%s differs from %s", job[i].path, job[i + 2].path);
  }
}

JL_TEST_MAIN({"child_fds", test_child_fds}, {"png_at_once", test_png_at_once},
             {"two_meshes_at_once", test_two_meshes_at_once}, {"two_worlds_at_once", test_two_worlds_at_once})
#else
JL_TEST_MAIN({"child_fds", test_child_fds}, {"two_meshes_at_once", test_two_meshes_at_once},
             {"two_worlds_at_once", test_two_worlds_at_once})
#endif
