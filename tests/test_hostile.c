/* Hostile files and values (issue 11, file-import side): the reproducers
 * that crashed, hung or blew up `jelly check`, `jelly mesh` and `jelly run`,
 * written by this test into a temporary folder. Each run of the program is
 * bounded: `timeout -s KILL` (a hang becomes exit 137) and, outside ASan,
 * `prlimit --as` (a blow-up becomes an allocation failure); each must end
 * with exit 2 and a message naming the file and the reason. The guarded
 * child machinery (mesh/child.h) is tested directly: stopped, crashing,
 * memory-hungry and orphaned children. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mesh/child.h"
#include "mesh/common.h"
#include "mesh/surface.h"
#include "tests/harness.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif


static const char *dir(void) {
  static const char *d;
  if (!d) d = jl_test_tmpdir("hostile");
  return d;
}

/* writes n bytes (NUL bytes allowed) to dir()/name; returns the path */
static const char *put(const char *name, const void *data, size_t n) {
  static char paths[8][600];
  static int k;
  char *p = paths[k++ % 8];
  snprintf(p, 600, "%s/%s", dir(), name);
  FILE *f = fopen(p, "wb");
  if (!f) return p;
  fwrite(data, 1, n, f);
  fclose(f);
  return p;
}
#define PUT(name, lit) put(name, lit, sizeof(lit) - 1)

/* runs `jelly ARGS` bounded in time and memory; returns the exit code, the
 * output in out and the wall time in *secs. JL_TEST_JELLY overrides the
 * program (to show that an older build fails these tests). */
static int run(const char *args, char *out, size_t outsz, double *secs) {
  char cmd[2048];
  const char *exe = getenv("JL_TEST_JELLY");
  snprintf(cmd, sizeof cmd, "timeout -s KILL 30 %s%s %s", ASAN ? "" : "prlimit --as=4294967296 ",
           exe && *exe ? exe : JL_JELLY_EXE, args);
  double t0 = jl_seconds();
  int rc = jl_test_run(cmd, out, outsz);
  *secs = jl_seconds() - t0;
  return rc;
}

/* `jelly check FILE` must exit 2 within `limit` seconds with a message
 * containing the file name and `needle` */
static int check_rejects(const char *path, const char *needle, double limit) {
  char args[800], out[8192];
  double t;
  snprintf(args, sizeof args, "check '%s'", path);
  int rc = run(args, out, sizeof out, &t);
  if (rc != 2 || !strstr(out, path) || !strstr(out, needle) || t > limit) {
    jl_test_fail(__FILE__, __LINE__, "%s: exit %d after %.1f s (want 2 within %g s, '%s'):\n%s", path, rc, t,
                 limit, needle, out);
    return 0;
  }
  return 1;
}

/* ---- crashes inside assimp --------------------------------------------------------- */

static void test_ply_binary_header_20_bytes(void) {
  /* SIGSEGV in assimp's PLY stream before: now screened (no end_header) */
  const char *p = PUT("bin20.ply", "ply\nformat binary_\0\0");
  ENSURE(check_rejects(p, "end_header", 10));
}

static void test_collada_self_instance(void) {
  /* unbounded recursion in assimp (SIGSEGV after ~6600 frames): the child
   * crashes, the parent reports it */
  const char *p = PUT("loop.dae",
                      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                      "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
                      "<library_nodes><node id=\"loop\" name=\"loop\"><instance_node url=\"#loop\"/></node>"
                      "</library_nodes>\n<library_visual_scenes><visual_scene id=\"S\"><node id=\"r\">"
                      "<instance_node url=\"#loop\"/></node></visual_scene></library_visual_scenes>\n"
                      "<scene><instance_visual_scene url=\"#S\"/></scene>\n</COLLADA>\n");
  ENSURE(check_rejects(p, "crashed in the importer", 20));
}

static void test_ply_short_faces(void) {
  /* faces of 1 and 2 indices (an ai_assert in TriangulateProcess on some
   * assimp builds): whatever assimp does, exit 0 or 2 and quickly */
  const char *p = PUT("short_faces.ply",
                      "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                      "property float z\nelement face 3\nproperty list uchar int vertex_indices\nend_header\n"
                      "0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 0\n2 1 2\n2 0 3\n");
  char args[800], out[8192];
  double t;
  snprintf(args, sizeof args, "check '%s'", p);
  int rc = run(args, out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && t < 10, "exit %d after %.1f s:\n%s", rc, t, out);
}

/* ---- hangs ----------------------------------------------------------------------- */

static void test_ply_without_end_header(void) {
  const char *p = PUT("noend.ply", "ply\nformat ascii 1.0\nelement vertex 4\n");
  ENSURE(check_rejects(p, "end_header", 10));
}

static void test_referenced_fifo(void) {
  /* an OBJ whose mtllib and a glTF whose buffer uri name a FIFO: never
   * opened (materials are not loaded at all, buffers only when regular) */
  char fifo[700], out[8192], args[800];
  double t;
  snprintf(fifo, sizeof fifo, "%s/pipe", dir());
  unlink(fifo);
  ENSURE(mkfifo(fifo, 0600) == 0);
  const char *obj = PUT("fifo_mtl.obj",
                        "mtllib pipe\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  snprintf(args, sizeof args, "check '%s'", obj);
  int rc = run(args, out, sizeof out, &t);
  ENSURE_MSG(rc == 0 && t < 10, "obj: exit %d after %.1f s:\n%s", rc, t, out);
  const char *gltf = PUT("fifo_buffer.gltf",
                         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"pipe\",\"byteLength\":48}],"
                         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48}],\"accessors\":[{\"bufferView\":0,"
                         "\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,1]}],"
                         "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
                         "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}\n");
  ENSURE(check_rejects(gltf, "\"pipe\"", 10));
  unlink(fifo);
}

/* ---- blow-ups from small files ------------------------------------------------------- */

static void test_ply_magic_bypasses(void) {
  /* upper-case magic, "ply " and a NUL in a comment used to skip the screen */
  const char *a = PUT("upper.ply",
                      "PLY\nformat ascii 1.0\nelement vertex 900000000\nproperty float x\nproperty float y\n"
                      "property float z\nend_header\n0 0 0\n");
  const char *b = PUT("space.ply",
                      "ply \nformat ascii 1.0\nelement vertex 900000000\nproperty float x\nproperty float y\n"
                      "property float z\nend_header\n0 0 0\n");
  const char *c = PUT("nul.ply",
                      "ply\ncomment a\0b\nformat ascii 1.0\nelement vertex 90000000\nproperty float x\n"
                      "property float y\nproperty float z\nend_header\n0 0 0\n");
  const char *d = PUT("no_extension",
                      "ply\ncomment a\0b\nformat ascii 1.0\nelement vertex 90000000\nproperty float x\n"
                      "property float y\nproperty float z\nend_header\n0 0 0\n");
  ENSURE(check_rejects(a, "PLY header promises", 10));
  ENSURE(check_rejects(b, "PLY header promises", 10));
  ENSURE(check_rejects(c, "PLY header promises", 10));
  ENSURE(check_rejects(d, "PLY header promises", 10));
}

static void test_off_hash_header(void) {
  /* "OFF#": assimp reads it as OFF plus a comment, whatever the extension */
  const char *p = PUT("model.dat", "OFF# comment\n900000000 900000000 0\n0 0 0\n");
  ENSURE(check_rejects(p, "OFF header promises 900000000 vertices", 10));
  const char *q = PUT("small.dat", "OFF\n90000000 1 0\n0 0 0\n");
  ENSURE(check_rejects(q, "the file is only", 10));
}

static void test_x_huge_count(void) {
  const char *p = PUT("big.x", "xof 0303txt 0032\nMesh m {\n 500000000;\n 0.0;0.0;0.0;,\n 1;\n 3;0,0,0;;\n}\n");
  ENSURE(check_rejects(p, "promises 500000000 elements", 10));
}

static void test_sparse_9_gib(void) {
  /* 9 GiB, 4 KB on disk: the size cap rejects it without reading it */
  const char *p = PUT("sparse.off", "OFF\n3 1 0\n");
  int fd = open(p, O_WRONLY);
  ENSURE(fd >= 0);
  ENSURE(ftruncate(fd, 9LL << 30) == 0);
  close(fd);
  ENSURE(check_rejects(p, "larger than the 1024 MB limit", 5));
  /* the cap is settable */
  char args[900], out[4096];
  double t;
  snprintf(args, sizeof args, "check --mesh-max-file 0.001 '%s/bunny.obj'", JL_MODELS_DIR);
  ENSURE(run(args, out, sizeof out, &t) == 2 && strstr(out, "larger than the 0.001 MB limit"));
  unlink(p);
}

/* ---- TetGen: estimate, limits ---------------------------------------------------------- */

static void test_tetgen_too_fine(void) {
  /* max_volume 1e-9 on a 1 m box: 1e9 tets, refused before TetGen starts */
  const char *scene = PUT("fine.json",
                          "{\"duration\": 0.1, \"fps\": 10, \"bodies\": [{\"name\": \"box\", "
                          "\"shape\": {\"type\": \"box\", \"size\": [1, 1, 1]}, "
                          "\"tetgen\": {\"max_volume\": 1e-9}}]}\n");
  char args[900], out[8192];
  double t;
  snprintf(args, sizeof args, "run '%s' --out '%s/fine_out' --quiet --no-preview", scene, dir());
  int rc = run(args, out, sizeof out, &t);
  /* a scene meets the scene's own tet cap first (it names the key); jelly mesh the memory estimate */
  ENSURE_MSG(rc == 2 && (strstr(out, "too fine for the limit") || strstr(out, "tetgen.max_volume")) && t < 10,
             "exit %d after %.1f s:\n%s", rc, t, out);
  /* the same through jelly mesh, and against a small memory limit */
  rc = run("mesh --shape box --max-volume 1e-9", out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "too fine for the limit") && t < 10, "exit %d after %.1f s:\n%s", rc, t, out);
  rc = run("mesh --shape box --max-volume 1e-6 --mesh-memory 100", out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "too fine for the limit") && strstr(out, "--mesh-memory 100 MB"),
             "exit %d:\n%s", rc, out);
}

static void test_tetgen_limits(void) {
  char out[8192];
  double t;
  /* passes the estimate, then runs out of its 80 MB: a limit, not bad input */
  int rc = run("mesh --shape box --max-volume 2e-6 --mesh-memory 80", out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "needed more than 80 MB") && !strstr(out, "degenerate"), "exit %d:\n%s",
             rc, out);
  /* takes about 5 s: killed at the deadline */
  rc = run("mesh --shape box --max-volume 1e-6 --mesh-timeout 0.5", out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "took longer than 0.5 s") && t < 5, "exit %d after %.1f s:\n%s", rc, t, out);
  /* bad values */
  ENSURE(run("mesh --shape box --mesh-timeout 0", out, sizeof out, &t) == 2 && strstr(out, "--mesh-timeout"));
  ENSURE(run("check --mesh-memory nan x.obj", out, sizeof out, &t) == 2 && strstr(out, "--mesh-memory"));
  ENSURE(run("run --mesh-max-file", out, sizeof out, &t) == 2 && strstr(out, "needs a value"));
}

/* ---- the guarded child itself -------------------------------------------------------- */

static void body_stop(int fd, void *ctx) {
  (void)fd, (void)ctx;
  raise(SIGSTOP);
}
static void body_segv(int fd, void *ctx) {
  (void)fd, (void)ctx;
  raise(SIGSEGV);
}
static void body_killed(int fd, void *ctx) {
  (void)fd, (void)ctx;
  raise(SIGKILL); /* what the kernel's OOM killer does */
}
static void body_hog(int fd, void *ctx) {
  (void)fd, (void)ctx;
  for (int i = 0; i < 256; i++) {
    char *p = jl_calloc(16u << 20, 1);
    memset(p, i + 1, 16u << 20);
  }
}
static void body_answer(int fd, void *ctx) {
  int v = *(int *)ctx;
  jl_child_write(fd, &v, sizeof v);
}
static void body_pid_then_sleep(int fd, void *ctx) {
  (void)ctx;
  int pid = (int)getpid();
  jl_child_write(fd, &pid, sizeof pid);
  for (;;) pause();
}

static JlChildEnd run_body(JlChildFn fn, void *ctx, char *why, size_t whysz, double *secs) {
  JlChild c;
  double t0 = jl_seconds();
  if (jl_child_start(&c, "the test body", fn, ctx) != 0) return JL_CHILD_END_COUNT;
  int v;
  jl_child_read(&c, &v, sizeof v);
  JlChildEnd e = jl_child_finish(&c, why, whysz);
  *secs = jl_seconds() - t0;
  return e;
}

static void test_child_ends(void) {
  JlMeshLimits saved = jl_mesh_limits(), l = saved;
  l.timeout = 1.0;
  l.memory_mb = 256;
  jl_mesh_set_limits(&l);
  char why[240];
  double t;
  int answer = 42;
  ENSURE(run_body(body_answer, &answer, why, sizeof why, &t) == JL_CHILD_DONE);
  /* a stopped child cannot block the parent past the deadline */
  JlChildEnd e = run_body(body_stop, NULL, why, sizeof why, &t);
  ENSURE_MSG(e == JL_CHILD_TIMEOUT && strstr(why, "took longer than 1 s") && t < 3, "%d %.2f s %s", e, t, why);
  e = run_body(body_segv, NULL, why, sizeof why, &t);
  ENSURE_MSG(e == JL_CHILD_CRASHED && strstr(why, "crashed in the test body"), "%d %s", e, why);
  /* the OOM killer is the system refusing memory (exit 3), not the input's fault */
  e = run_body(body_killed, NULL, why, sizeof why, &t);
  ENSURE_MSG(e == JL_CHILD_SYSTEM && strstr(why, "out-of-memory"), "%d %s", e, why);
  e = run_body(body_hog, NULL, why, sizeof why, &t);
  ENSURE_MSG(e == JL_CHILD_MEMORY && strstr(why, "needed more than 256 MB"), "%d %.2f s %s", e, t, why);
#if !defined(__SANITIZE_ADDRESS__)
  /* started with an address-space limit below the memory limit: the system's, not the input's */
  struct rlimit as;
  ENSURE(getrlimit(RLIMIT_AS, &as) == 0);
  struct rlimit low = as;
  low.rlim_cur = (rlim_t)192 << 20;
  if (as.rlim_max == RLIM_INFINITY || as.rlim_max > low.rlim_cur) {
    ENSURE(setrlimit(RLIMIT_AS, &low) == 0);
    e = run_body(body_hog, NULL, why, sizeof why, &t);
    ENSURE(setrlimit(RLIMIT_AS, &as) == 0);
    ENSURE_MSG(e == JL_CHILD_SYSTEM && strstr(why, "(ulimit -v), less than the 256 MB limit"), "%d %s", e, why);
  }
#endif
  jl_mesh_set_limits(&saved);
}

static void test_child_dies_with_parent(void) {
  /* a middle process starts a guarded child and dies without reaping it:
   * the child must go too (PR_SET_PDEATHSIG) */
  int p[2];
  ENSURE(pipe(p) == 0);
  pid_t mid = fork();
  ENSURE(mid >= 0);
  if (mid == 0) {
    close(p[0]);
    JlChild c;
    int pid = -1;
    if (jl_child_start(&c, "sleeper", body_pid_then_sleep, NULL) == 0) jl_child_read(&c, &pid, sizeof pid);
    if (write(p[1], &pid, sizeof pid) != sizeof pid) _exit(1);
    _exit(0);
  }
  close(p[1]);
  int pid = -1;
  ENSURE(read(p[0], &pid, sizeof pid) == sizeof pid && pid > 0);
  close(p[0]);
  waitpid(mid, NULL, 0);
  int gone = 0;
  for (int i = 0; i < 200 && !gone; i++) {
    /* gone, or a zombie waiting for its new parent to reap it */
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) gone = 1;
    else {
      if (fgets(stat, sizeof stat, f)) {
        char *rp = strrchr(stat, ')');
        gone = rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
      }
      fclose(f);
    }
    if (!gone) usleep(10000);
  }
  if (!gone) kill(pid, SIGKILL);
  ENSURE_MSG(gone, "child %d outlived its parent", pid);
}

static void test_library_load_limits(void) {
  /* the library call reports the child's end with the file name */
  JlSurface s;
  char err[1024];
  const char *p = PUT("lib_loop.dae",
                      "<?xml version=\"1.0\"?><COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
                      "version=\"1.4.1\"><library_nodes><node id=\"n\"><instance_node url=\"#n\"/></node>"
                      "</library_nodes><library_visual_scenes><visual_scene id=\"S\"><node id=\"r\">"
                      "<instance_node url=\"#n\"/></node></visual_scene></library_visual_scenes>"
                      "<scene><instance_visual_scene url=\"#S\"/></scene></COLLADA>");
  ENSURE(jl_surface_load(p, &s, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, p) && strstr(err, "crashed in the importer"), "%s", err);
  /* a normal file still loads through the child */
  ENSURE_MSG(jl_surface_load(JL_MODELS_DIR "/bunny.obj", &s, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(s.nvert == 1839 && s.ntri == 3674);
  jl_surface_free(&s);
}

JL_TEST_MAIN({"ply_binary_header_20_bytes", test_ply_binary_header_20_bytes},
             {"collada_self_instance", test_collada_self_instance},
             {"ply_short_faces", test_ply_short_faces},
             {"ply_without_end_header", test_ply_without_end_header},
             {"referenced_fifo", test_referenced_fifo},
             {"ply_magic_bypasses", test_ply_magic_bypasses},
             {"off_hash_header", test_off_hash_header},
             {"x_huge_count", test_x_huge_count},
             {"sparse_9_gib", test_sparse_9_gib},
             {"tetgen_too_fine", test_tetgen_too_fine},
             {"tetgen_limits", test_tetgen_limits},
             {"child_ends", test_child_ends},
             {"child_dies_with_parent", test_child_dies_with_parent},
             {"library_load_limits", test_library_load_limits})
