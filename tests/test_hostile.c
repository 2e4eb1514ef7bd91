/* Hostile files and values (the file-import side): the reproducers
 * that crashed, hung or blew up `jelly check`, `jelly mesh` and `jelly run`,
 * written by this test into a temporary folder. Each run of the program is
 * bounded: `timeout -s KILL` (a hang becomes exit 137) and, outside ASan,
 * `prlimit --as` (a blow-up becomes an allocation failure); each must end
 * with exit 2 and a message naming the file and the reason. The guarded
 * child machinery (mesh/child.h) is tested directly: stopped, crashing,
 * memory-hungry and orphaned children. The format screens
 * (glTF 2.0, Collada, binary STL, binary .x: mesh/screen.h) get their
 * hostile files here too, each next to a valid file of the same format that
 * must still load. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
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
    jl_test_fail(__FILE__, __LINE__, "%s: exit %d after %.1f s (want 2 within %g s, '%s'):\n%s", path, rc, t, limit,
                 needle, out);
    return 0;
  }
  return 1;
}

/* ---- inline meshes in scenes ------------------------------------------------------ */

/* `jelly run` on a scene whose body gives a bad surface inline: exit 2 with
 * the key path of the bad element, before anything is built or written */
static void test_inline_mesh_run(void) {
  static const char *const cases[][2] = {
      {"{\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,7]]}",
       "bodies[0].mesh.triangles[3][2]: vertex index 7 out of range 0..3"},
      {"{\"vertices\": [[0,0,0],[1,0,0],[0,-1e400,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}",
       "bodies[0].mesh.vertices[2][1]: expected a finite number"},
      {"{\"vertices\": [0,0,0,1,0,0,0,1,0,0,0,1], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}",
       "bodies[0].mesh.vertices[0]: expected [x, y, z]"},
      {"{\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1]]}",
       "bodies[0].mesh.triangles: 1 triangles; a closed surface needs 4 to"},
      {"{\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"triangles\": [[0,2,1],[0,1,3],[0,3,2],[0,2,1]]}",
       "cannot tetrahedralize"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024], name[64], args[1600], out[8192];
    snprintf(text, sizeof text, "{\"duration\": 0.02, \"bodies\": [{\"name\": \"inl\", \"mesh\": %s}]}", cases[i][0]);
    snprintf(name, sizeof name, "inline%zu.json", i);
    const char *p = put(name, text, strlen(text));
    snprintf(args, sizeof args, "run '%s' --out '%s/inline_out%zu' --quiet", p, dir(), i);
    double t;
    int rc = run(args, out, sizeof out, &t);
    ENSURE_MSG(rc == 2 && strstr(out, p) && strstr(out, cases[i][1]), "case %zu: exit %d (want 2, '%s'):\n%s", i, rc,
               cases[i][1], out);
  }
}

/* ---- crashes inside assimp --------------------------------------------------------- */

static void test_ply_binary_header_20_bytes(void) {
  /* SIGSEGV in assimp's PLY stream before: now screened (no end_header) */
  const char *p = PUT("bin20.ply", "ply\nformat binary_\0\0");
  ENSURE(check_rejects(p, "end_header", 10));
}

static void test_collada_self_instance(void) {
  /* unbounded recursion in assimp (SIGSEGV after ~6600 frames, then a crash
   * in the child): refused before the child starts */
  const char *p = PUT("loop.dae",
                      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                      "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
                      "<library_nodes><node id=\"loop\" name=\"loop\"><instance_node url=\"#loop\"/></node>"
                      "</library_nodes>\n<library_visual_scenes><visual_scene id=\"S\"><node id=\"r\">"
                      "<instance_node url=\"#loop\"/></node></visual_scene></library_visual_scenes>\n"
                      "<scene><instance_visual_scene url=\"#S\"/></scene>\n</COLLADA>\n");
  ENSURE(check_rejects(p, "node 'loop' is its own ancestor", 10));
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
  const char *obj =
      PUT("fifo_mtl.obj", "mtllib pipe\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
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
  ENSURE(check_rejects(p, "Mesh promises 500000000 vertices", 10));
}

static void test_sparse_9_gib(void) {
  /* 9 GiB, 4 KB on disk: the size cap rejects it without reading it */
  const char *p = PUT("sparse.off", "OFF\n3 1 0\n");
  int fd = open(p, O_WRONLY);
  ENSURE(fd >= 0);
  ENSURE(ftruncate(fd, 9LL << 30) == 0);
  close(fd);
  ENSURE(check_rejects(p, "over the 1024 MB of the mesh limit max_file_mb", 5));
  /* the cap is settable */
  char args[900], out[4096];
  double t;
  snprintf(args, sizeof args, "check --mesh-max-file 0.001 '%s/bunny.obj'", JL_MODELS_DIR);
  ENSURE(run(args, out, sizeof out, &t) == 2 && strstr(out, "over the 0.001 MB of the mesh limit max_file_mb"));
  unlink(p);
}

/* ---- screens of the node-graph and binary formats (mesh/screen.h) ---------------------- */

/* `jelly check FILE` must accept the file (exit 0) */
static int check_accepts(const char *path) {
  char args[800], out[8192];
  double t;
  snprintf(args, sizeof args, "check '%s'", path);
  int rc = run(args, out, sizeof out, &t);
  if (rc != 0 || !strstr(out, "ok: can be tetrahedralized")) {
    jl_test_fail(__FILE__, __LINE__, "%s: exit %d after %.1f s (want 0):\n%s", path, rc, t, out);
    return 0;
  }
  return 1;
}

static char g_big[1 << 20]; /* generated files (the largest, 20000 nested nodes, is ~420 KB) */

/* a tetrahedron: 4 float positions, 12 uint16 indices (72 bytes) */
#define TET_B64 "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAACAAEAAAABAAMAAAADAAIAAQACAAMA"
static const float tet_pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const unsigned short tet_idx[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
#define TET_ACCESSORS                                                                        \
  "[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[0,0,0]," \
  "\"max\":[1,1,1]},{\"bufferView\":1,\"componentType\":5123,\"count\":12,\"type\":\"SCALAR\"}]"

/* a glTF 2.0 document with the tetrahedron as mesh 0 (buffer: `buffer`) */
static const char *gltf_doc(const char *nodes, const char *roots, const char *accessors, const char *buffer) {
  snprintf(g_big, sizeof g_big,
           "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":%s}],\"nodes\":%s,"
           "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
           "\"buffers\":[%s],\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},"
           "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":24}],\"accessors\":%s}",
           roots, nodes,
           buffer ? buffer : "{\"byteLength\":72,\"uri\":\"data:application/octet-stream;base64," TET_B64 "\"}",
           accessors ? accessors : TET_ACCESSORS);
  return g_big;
}
static const char *put_str(const char *name, const char *text) { return put(name, text, strlen(text)); }

/* nodes 0..levels-1 each with children [i+1, i+1], the last one the mesh:
 * 2^levels instances from a 1 KB file */
static const char *gltf_dag_nodes(int levels) {
  static char nodes[65536];
  size_t n = 0;
  n += (size_t)snprintf(nodes + n, sizeof nodes - n, "[");
  for (int i = 0; i < levels; i++)
    n += (size_t)snprintf(nodes + n, sizeof nodes - n, "{\"children\":[%d,%d]},", i + 1, i + 1);
  snprintf(nodes + n, sizeof nodes - n, "{\"mesh\":0}]");
  return nodes;
}

static void test_gltf_node_dag(void) {
  /* the reproducer: a glTF node DAG of 1 KB that expands to 8 GB (20 s, then the child's memory limit) */
  const char *doc = gltf_doc(gltf_dag_nodes(40), "[0]", NULL, NULL);
  const char *p = put_str("dag.gltf", doc);
  ENSURE(check_rejects(p, "the glTF node graph expands to 2.199e+12 node instances", 10));
  /* any extension: assimp finds glTF by parsing the JSON */
  p = put_str("dag.json", doc);
  ENSURE(check_rejects(p, "node instances", 10));
  /* below the node cap, too many triangles: a mesh of 100 primitives (400 triangles) instanced
   * 2^18 times (1.05e8 triangles) is beyond the element cap, 2^17 times (5.2e7: 85 s in the
   * child) beyond the instanced-triangle cap, and 2^14 times (6.6e6) beyond what the importer
   * can merge in 500 MB */
  static char prims[8192], doc2[65536];
  size_t n = 0;
  for (int i = 0; i < 100; i++)
    n += (size_t)snprintf(prims + n, sizeof prims - n, "%s{\"attributes\":{\"POSITION\":0},\"indices\":1}",
                          i ? "," : "");
  static const int levels[3] = {18, 17, 14};
  static const char *const names[3] = {"dag_tri.gltf", "dag_inst.gltf", "dag_mem.gltf"};
  static const char *const needles[3] = {
      "expands to 1.049e+08 mesh-instance triangles, more than the 100000000",
      "expands to 52428800 mesh-instance triangles from the 400 its meshes "
      "hold, more than the 10000000 instanced-triangle limit",
      "6553600 mesh-instance triangles, which need at least 675 MB in the "
      "importer (108 bytes each), more than the 500 MB of the mesh limit memory_mb (--mesh-memory)"};
  for (int k = 0; k < 3; k++) {
    snprintf(doc2, sizeof doc2, "%s", gltf_doc(gltf_dag_nodes(levels[k]), "[0]", NULL, NULL));
    char *m = strstr(doc2, "\"primitives\":["), *e = m ? strstr(m, "]}]") : NULL;
    ENSURE(m && e);
    char tail[4096];
    snprintf(tail, sizeof tail, "%s", e);
    snprintf(m + 14, sizeof doc2 - (size_t)(m + 14 - doc2), "%s%s", prims, tail);
    p = put_str(names[k], doc2);
    char args[800], out[8192];
    double t;
    snprintf(args, sizeof args, "check %s'%s'", k == 2 ? "--mesh-memory 500 " : "", p);
    int rc = run(args, out, sizeof out, &t);
    ENSURE_MSG(rc == 2 && strstr(out, needles[k]) && t < 10, "%s: exit %d after %.1f s:\n%s", p, rc, t, out);
  }
}

static void test_gltf_cycle_depth(void) {
  const char *p = put_str("cycle.gltf", gltf_doc("[{\"children\":[1]},{\"children\":[2],\"name\":\"b\"},"
                                                 "{\"children\":[1],\"mesh\":0}]",
                                                 "[0]", NULL, NULL));
  ENSURE(check_rejects(p, "glTF node 1 ('b') is its own ancestor", 10));
  /* 20000 levels: crashed assimp (stack overflow in the child) */
  static char nodes[20000 * 24 + 64];
  size_t n = 0;
  n += (size_t)snprintf(nodes + n, sizeof nodes - n, "[");
  for (int i = 0; i < 20000; i++) n += (size_t)snprintf(nodes + n, sizeof nodes - n, "{\"children\":[%d]},", i + 1);
  snprintf(nodes + n, sizeof nodes - n, "{\"mesh\":0}]");
  p = put_str("deep.gltf", gltf_doc(nodes, "[0]", NULL, NULL));
  ENSURE(check_rejects(p, "glTF nodes nest 20001 levels deep", 10));
}

static void test_gltf_accessors(void) {
  /* a count beyond the element cap, and one beyond its bufferView */
  const char *p = put_str("count.gltf", gltf_doc("[{\"mesh\":0}]", "[0]",
                                                 "[{\"bufferView\":0,\"componentType\":5126,\"count\":4000000000,"
                                                 "\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5123,"
                                                 "\"count\":12,\"type\":\"SCALAR\"}]",
                                                 NULL));
  ENSURE(check_rejects(p, "glTF accessor 0 promises 4000000000 elements, more than the 100000000", 10));
  p = put_str("view.gltf", gltf_doc("[{\"mesh\":0}]", "[0]",
                                    "[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\"},"
                                    "{\"bufferView\":1,\"componentType\":5123,\"count\":12,\"type\":\"SCALAR\"}]",
                                    NULL));
  ENSURE(check_rejects(p, "glTF accessor 0 needs 60 bytes", 10));
  /* a sparse accessor without a bufferView: assimp zero-fills count x 12 bytes (2.4 GB peak) */
  p = put_str("sparse.gltf", gltf_doc("[{\"mesh\":0}]", "[0]",
                                      "[{\"componentType\":5126,\"count\":100000000,\"type\":\"VEC3\",\"sparse\":"
                                      "{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5123},"
                                      "\"values\":{\"bufferView\":0}}},{\"bufferView\":1,\"componentType\":5123,"
                                      "\"count\":12,\"type\":\"SCALAR\"}]",
                                      NULL));
  ENSURE(check_rejects(p, "bytes of zeros", 10));
}

/* a .glb: 12-byte header, JSON chunk, BIN chunk with the tetrahedron */
static const char *put_glb(const char *name, const char *json, unsigned json_claim) {
  static unsigned char glb[8192];
  size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, n = 0;
  unsigned total = (unsigned)(12 + 8 + jp + 8 + 72);
  unsigned v[5] = {0x46546C67u /* glTF */, 2, total, json_claim ? json_claim : (unsigned)jp, 0x4E4F534Au};
  for (int k = 0; k < 5; k++)
    for (int b = 0; b < 4; b++) glb[n++] = (unsigned char)(v[k] >> (8 * b));
  memcpy(glb + n, json, jl);
  memset(glb + n + jl, ' ', jp - jl);
  n += jp;
  unsigned c[2] = {72, 0x004E4942u};
  for (int k = 0; k < 2; k++)
    for (int b = 0; b < 4; b++) glb[n++] = (unsigned char)(c[k] >> (8 * b));
  memcpy(glb + n, tet_pos, 48);
  memcpy(glb + n + 48, tet_idx, 24);
  n += 72;
  return put(name, glb, n);
}

static void test_glb_json_chunk(void) {
  /* 28 bytes claiming a 4 GB JSON chunk: assimp allocated and zeroed 4 GB */
  static const unsigned char glb[28] = {'g',  'l',  'T', 'F', 2,   0,   0,   0,   28,  0,   0,   0,   0xF0, 0xFF,
                                        0xFF, 0xFF, 'J', 'S', 'O', 'N', '{', '}', ' ', ' ', ' ', ' ', ' ',  ' '};
  const char *p = put("chunk.glb", glb, sizeof glb);
  ENSURE(check_rejects(p, "glb JSON chunk promises 4294967280 bytes", 10));
  const char *json = gltf_doc("[{\"mesh\":0}]", "[0]", NULL, "{\"byteLength\":72}");
  p = put_glb("chunk2.glb", json, 1u << 30);
  ENSURE(check_rejects(p, "glb JSON chunk promises 1073741824 bytes", 10));
}

static void test_gltf_valid(void) {
  ENSURE(check_accepts(put_str("tet.gltf", gltf_doc("[{\"mesh\":0}]", "[0]", NULL, NULL))));
  ENSURE(check_accepts(put_glb("tet.glb", gltf_doc("[{\"mesh\":0}]", "[0]", NULL, "{\"byteLength\":72}"), 0)));
  /* instancing is fine within the caps: node 3 reached through two parents */
  ENSURE(check_accepts(
      put_str("instanced.gltf", gltf_doc("[{\"children\":[1,2]},{\"translation\":[-2,0,0],\"children\":[3]},"
                                         "{\"translation\":[2,0,0],\"children\":[3]},{\"mesh\":0}]",
                                         "[0]", NULL, NULL))));
}

/* ---- Collada ---- */

#define DAE_HEAD                                                                                 \
  "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/" \
  "COLLADASchema\" version=\"1.4.1\">\n"
#define DAE_TET                                                                                   \
  "<library_geometries><geometry id=\"tet\"><mesh><source id=\"p\"><float_array id=\"pa\" "       \
  "count=\"12\">0 0 0 1 0 0 0 1 0 0 0 1</float_array><technique_common><accessor source=\"#pa\" " \
  "count=\"4\" stride=\"3\"><param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>" \
  "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source><vertices id=\"v\">"  \
  "<input semantic=\"POSITION\" source=\"#p\"/></vertices><triangles count=\"4\"><input "         \
  "semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/><p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>"    \
  "</mesh></geometry></library_geometries>\n"

static const char *dae_doc(const char *libs, const char *lib_nodes, const char *scene_nodes) {
  snprintf(g_big, sizeof g_big,
           DAE_HEAD DAE_TET
           "%s<library_nodes>%s</library_nodes>\n<library_visual_scenes><visual_scene id=\"S\">"
           "%s</visual_scene></library_visual_scenes>\n<scene><instance_visual_scene url=\"#S\"/>"
           "</scene>\n</COLLADA>\n",
           libs, lib_nodes, scene_nodes);
  return g_big;
}

static void test_dae_nested_instances(void) {
  /* the reproducer: nested Collada instances of 3.9 KB that expand to 8 GB */
  static char lib[8192];
  size_t n = (size_t)snprintf(lib, sizeof lib, "<node id=\"n0\"><instance_geometry url=\"#tet\"/></node>");
  for (int i = 1; i < 40; i++)
    n += (size_t)snprintf(lib + n, sizeof lib - n,
                          "<node id=\"n%d\"><instance_node url=\"#n%d\"/><instance_node url=\"#n%d\"/></node>", i,
                          i - 1, i - 1);
  const char *doc = dae_doc("", lib, "<node id=\"r\"><instance_node url=\"#n39\"/></node>");
  const char *p = put_str("nest.dae", doc);
  ENSURE(check_rejects(p, "the Collada scene expands to 1.1e+12 node instances", 10));
  /* .xml and no extension: assimp finds Collada by "<collada" */
  ENSURE(check_rejects(put_str("nest.xml", doc), "node instances", 10));
  ENSURE(check_rejects(put_str("nest_dae", doc), "node instances", 10));
  /* instanced through the scene tree by name (ResolveNodeInstances' fallback), in a cycle */
  p = put_str("name_cycle.dae", dae_doc("", "",
                                        "<node id=\"a\" name=\"A\"><node id=\"b\"><instance_node "
                                        "url=\"#A\"/></node></node>"));
  ENSURE(check_rejects(p, "node 'a' is its own ancestor", 10));
}

static void test_dae_depth(void) {
  /* 20000 nested <node>s, and a 10000-long instance_node chain: assimp recursed until it crashed
   * (from 8000 levels on; the cap is 1000) */
  size_t n = 0;
  for (int i = 0; i < 20000; i++) n += (size_t)snprintf(g_big + n, sizeof g_big - n, "<node>");
  n += (size_t)snprintf(g_big + n, sizeof g_big - n, "<instance_geometry url=\"#tet\"/>");
  for (int i = 0; i < 20000; i++) n += (size_t)snprintf(g_big + n, sizeof g_big - n, "</node>");
  static char doc[2 << 20];
  snprintf(doc, sizeof doc,
           DAE_HEAD DAE_TET
           "<library_visual_scenes><visual_scene id=\"S\">%s</visual_scene></library_visual_scenes>"
           "<scene><instance_visual_scene url=\"#S\"/></scene></COLLADA>\n",
           g_big);
  ENSURE(check_rejects(put_str("deep.dae", doc), "<node> elements nest more than 1000 levels", 10));
  static char lib[700000];
  n = (size_t)snprintf(lib, sizeof lib, "<node id=\"n0\"><instance_geometry url=\"#tet\"/></node>");
  for (int i = 1; i < 10000; i++)
    n += (size_t)snprintf(lib + n, sizeof lib - n, "<node id=\"n%d\"><instance_node url=\"#n%d\"/></node>", i, i - 1);
  ENSURE(check_rejects(put_str("chain.dae", dae_doc("", lib, "<node id=\"r\"><instance_node url=\"#n9999\"/></node>")),
                       "Collada nodes nest 10002 levels deep", 10));
}

static void test_dae_counts(void) {
  const char *scene = "<node id=\"r\"><instance_geometry url=\"#tet\"/></node>";
  /* float_array: reserve() of 7.6 GB */
  const char *p = put_str("floats.dae", dae_doc("<library_geometries><geometry id=\"g\"><mesh><source id=\"q\">"
                                                "<float_array id=\"qa\" count=\"1900000000\">0 0 0</float_array>"
                                                "</source></mesh></geometry></library_geometries>",
                                                "", scene));
  ENSURE(check_rejects(p, "<float_array> promises 1900000000 values, more than the 100000000", 10));
  /* primitives beyond what the file holds */
  p = put_str("tris.dae", dae_doc("<library_geometries><geometry id=\"g\"><mesh><triangles count=\"50000000\">"
                                  "<input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/><p>0 0 0</p></triangles>"
                                  "</mesh></geometry></library_geometries>",
                                  "", scene));
  ENSURE(check_rejects(p, "<triangles> promises 50000000 primitives, more than the", 10));
  /* vertex_weights: resize() of 900M entries (7 GB peak; the file then loaded) */
  p = put_str("weights.dae", dae_doc("<library_controllers><controller id=\"c\"><skin source=\"#tet\">"
                                     "<vertex_weights count=\"900000000\"><input semantic=\"JOINT\" source=\"#j\" "
                                     "offset=\"0\"/></vertex_weights></skin></controller></library_controllers>",
                                     "", scene));
  ENSURE(check_rejects(p, "<vertex_weights> promises 900000000 vertices", 10));
  /* vcount: weights resized to the sum of its values (2.4 GB for 150M) */
  p = put_str("vcount.dae", dae_doc("<library_controllers><controller id=\"c\"><skin source=\"#tet\">"
                                    "<vertex_weights count=\"2\"><input semantic=\"JOINT\" source=\"#j\" offset=\"0\"/>"
                                    "<vcount>45000000 45000000</vcount><v>0 0</v></vertex_weights></skin></controller>"
                                    "</library_controllers>",
                                    "", scene));
  ENSURE(check_rejects(p, "<vcount> promises 90000000 vertex weights (the sum of its counts), more than the", 10));
  /* one letter among the indices: assimp pushed zeros until its memory limit (3.1 GB, 6.6 s) */
  static char doc[8192];
  snprintf(doc, sizeof doc, "%s", dae_doc("", "", scene));
  char *q = strstr(doc, "1 2 3</p>");
  ENSURE(q);
  q[4] = 'x';
  ENSURE(check_rejects(put_str("letter.dae", doc), "<p> indices contain 'x'", 10));
  /* entities are decoded as pugixml does: &#120; is an 'x' too */
  snprintf(doc, sizeof doc, "%s", dae_doc("", "", scene));
  q = strstr(doc, "1 2 3</p>");
  memmove(q + 10, q + 4, strlen(q + 4) + 1);
  memcpy(q + 4, "&#120;", 6);
  ENSURE(check_rejects(put_str("entity.dae", doc), "<p> indices contain 'x'", 10));
}

static void test_dae_valid(void) {
  const char *scene = "<node id=\"r\"><instance_geometry url=\"#tet\"/></node>";
  ENSURE(check_accepts(put_str("tet.dae", dae_doc("", "", scene))));
  /* a library node instanced twice, translated apart; comments, CDATA and entities */
  ENSURE(check_accepts(
      put_str("instanced.dae",
              dae_doc("", "<node id=\"t\"><!-- a <node> in a comment --><instance_geometry url=\"#tet\"/></node>",
                      "<node id=\"a\"><translate>-2 0 0</translate><instance_node url=\"#t\"/></node>"
                      "<node id=\"b\" name=\"&lt;b&gt;\"><translate><![CDATA[2 0 0]]></translate>"
                      "<instance_node url=\"&#35;t\"/></node>"))));
}

/* ---- binary STL ---- */

static void test_stl_binary(void) {
  /* a valid tetrahedron: 84 + 4 x 50 bytes */
  static unsigned char stl[84 + 50 * 4];
  memset(stl, 0, sizeof stl);
  memcpy(stl, "solid but binary", 16); /* assimp tests the size first: binary despite "solid" */
  stl[80] = 4;
  for (int t = 0; t < 4; t++)
    for (int k = 0; k < 3; k++) memcpy(stl + 84 + 50 * t + 12 + 12 * k, tet_pos + 3 * tet_idx[3 * t + k], 12);
  ENSURE(check_accepts(put("tet.stl", stl, sizeof stl)));
  /* a count matching the size only modulo 2^32: 138 bytes "holding" 85899347 triangles */
  static unsigned char wrap[138];
  memset(wrap, 0, sizeof wrap);
  unsigned n = 85899347u;
  for (int b = 0; b < 4; b++) wrap[80 + b] = (unsigned char)(n >> (8 * b));
  ENSURE(check_rejects(put("wrap.stl", wrap, sizeof wrap), "binary STL header promises 85899347 triangles", 10));
  /* neither: no "solid", and a count that does not fit the size */
  stl[80] = 5;
  memcpy(stl, "binary!", 7);
  ENSURE(check_rejects(put("short.stl", stl, sizeof stl), "not an ASCII STL", 10));
}

/* ---- binary .x ---- */

static size_t xb_name(unsigned char *b, const char *s) {
  size_t n = strlen(s);
  b[0] = 1, b[1] = 0;
  for (int k = 0; k < 4; k++) b[2 + k] = (unsigned char)(n >> (8 * k));
  memcpy(b + 6, s, n);
  return 6 + n;
}
static size_t xb_list(unsigned char *b, int code, const unsigned *v, int n) {
  b[0] = (unsigned char)code, b[1] = 0;
  for (int k = 0; k < 4; k++) b[2 + k] = (unsigned char)((unsigned)n >> (8 * k));
  memcpy(b + 6, v, 4 * (size_t)n);
  return 6 + 4 * (size_t)n;
}
static size_t xb_tok(unsigned char *b, int code) {
  b[0] = (unsigned char)code, b[1] = 0;
  return 2;
}
/* xof 0302bin 0032, Mesh { [nv] [positions] [faces...] <extra> } */
static const char *put_xbin(const char *name, unsigned nv, const unsigned *faces, int nfaces_words, int skin) {
  static unsigned char x[4096];
  size_t n = 0;
  memcpy(x, "xof 0302bin 0032", 16), n = 16;
  n += xb_name(x + n, "Mesh");
  n += xb_tok(x + n, 0x0a);
  n += xb_list(x + n, 6, &nv, 1);
  unsigned fl[12];
  memcpy(fl, tet_pos, 48);
  n += xb_list(x + n, 7, fl, 12);
  n += xb_list(x + n, 6, faces, nfaces_words);
  if (skin) {
    n += xb_name(x + n, "SkinWeights");
    n += xb_tok(x + n, 0x0a);
    n += xb_name(x + n, "bone");
    unsigned w = 400000000u;
    n += xb_list(x + n, 6, &w, 1);
    n += xb_tok(x + n, 0x0b);
  }
  n += xb_tok(x + n, 0x0b);
  return put(name, x, n);
}

static void test_x_binary(void) {
  static const unsigned tet_faces[17] = {4, 3, 0, 2, 1, 3, 0, 1, 3, 3, 0, 3, 2, 3, 1, 2, 3};
  ENSURE(check_accepts(put_xbin("tet_bin.x", 4, tet_faces, 17, 0)));
  /* 500M vertices (5.9 GB before) */
  ENSURE(check_rejects(put_xbin("verts_bin.x", 500000000u, tet_faces, 17, 0), "Mesh promises 500000000 vertices", 10));
  /* 30M faces in 200 bytes (assimp resizes its face array first) */
  unsigned faces[5] = {30000000u, 3, 0, 1, 2};
  ENSURE(check_rejects(put_xbin("faces_bin.x", 4, faces, 5, 0), "Mesh promises 30000000 faces, more than the", 10));
  /* a face of 50M indices: past the end assimp reads zeros, pushing each one */
  unsigned face[2] = {1, 50000000u};
  ENSURE(check_rejects(put_xbin("face_bin.x", 4, face, 2, 0), "Mesh promises 50000000 indices in a face", 10));
  /* SkinWeights: 400M weights (3.1 GB before) */
  ENSURE(check_rejects(put_xbin("skin_bin.x", 4, tet_faces, 17, 1), "SkinWeights promises 400000000 weights", 10));
}

static void test_x_text_counts(void) {
  /* the face count (7 GB in 17 s before), a negative count (-4000000000 is 294967296 in 32 bits),
   * and a UTF-8 byte-order mark, which the old screen did not see past */
  const char *p = PUT("faces.x",
                      "xof 0303txt 0032\nMesh m {\n 3;\n 0.0;0.0;0.0;,\n 1.0;0.0;0.0;,\n 0.0;1.0;0.0;;\n"
                      " 300000000;\n 3;0,1,2;;\n}\n");
  ENSURE(check_rejects(p, "Mesh promises 300000000 faces", 10));
  p = PUT("negative.x", "xof 0303txt 0032\nMesh m {\n -4000000000;\n 0.0;0.0;0.0;;\n 1;\n 3;0,0,0;;\n}\n");
  ENSURE(check_rejects(p, "Mesh promises 294967296 vertices", 10));
  p = PUT("bom.x", "\xef\xbb\xbfxof 0303txt 0032\nMesh m {\n 50000000;\n 0.0;0.0;0.0;,\n 1;\n 3;0,0,0;;\n}\n");
  ENSURE(check_rejects(p, "Mesh promises 50000000 vertices, more than the", 10));
  /* an AnimTicksPerSecond of 4800 in a small file is no count (the old screen refused it) */
  p = PUT("ticks.x",
          "xof 0303txt 0032\nAnimTicksPerSecond {\n 4800;\n}\nMesh tet {\n 4;\n 0.0;0.0;0.0;,\n"
          " 1.0;0.0;0.0;,\n 0.0;1.0;0.0;,\n 0.0;0.0;1.0;;\n 4;\n 3;0,2,1;,\n 3;0,1,3;,\n 3;0,3,2;,\n"
          " 3;1,2,3;;\n}\n");
  ENSURE(check_accepts(p));
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
  ENSURE_MSG(rc == 2 && strstr(out, "too fine for the limit") &&
                 strstr(out, "the 100 MB of the mesh limit memory_mb (--mesh-memory)"),
             "exit %d:\n%s", rc, out);
}

static void test_tetgen_limits(void) {
  char out[8192];
  double t;
  /* passes the estimate, then runs out of its 80 MB: a limit, not bad input */
  int rc = run("mesh --shape box --max-volume 2e-6 --mesh-memory 80", out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "needed more than 80 MB") && !strstr(out, "degenerate"), "exit %d:\n%s", rc, out);
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
    ENSURE_MSG(e == JL_CHILD_SYSTEM && strstr(why, "(ulimit -v), less than the 256 MB of the mesh limit memory_mb"),
               "%d %s", e, why);
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
    if (!f)
      gone = 1;
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
  /* the library call reports a screen's refusal and the child's end with the file name */
  JlSurface s;
  char err[1024];
  const char *p = PUT("lib_loop.dae",
                      "<?xml version=\"1.0\"?><COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
                      "version=\"1.4.1\"><library_nodes><node id=\"n\"><instance_node url=\"#n\"/></node>"
                      "</library_nodes><library_visual_scenes><visual_scene id=\"S\"><node id=\"r\">"
                      "<instance_node url=\"#n\"/></node></visual_scene></library_visual_scenes>"
                      "<scene><instance_visual_scene url=\"#S\"/></scene></COLLADA>");
  ENSURE(jl_surface_load(p, &s, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, p) && strstr(err, "its own ancestor"), "%s", err);
  /* a sparse accessor whose indices have no bufferView: assimp dereferences
   * NULL (the screens leave it to the child, which crashes safely) */
  p = PUT(
      "lib_sparse_crash.gltf",
      "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],\"buffers\":[{"
      "\"byteLength\":72,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"
      "AAAAAAAAAAAAAIA/AAACAAEAAAABAAMAAAADAAIAAQACAAMA\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},"
      "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":"
      "5126,\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":1,\"indices\":{\"componentType\":5123},"
      "\"values\":{\"bufferView\":0}}},{\"bufferView\":1,\"componentType\":5123,\"count\":12,\"type\":"
      "\"SCALAR\"}]}");
  ENSURE(jl_surface_load(p, &s, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, p) && strstr(err, "crashed in the importer"), "%s", err);
  /* a normal file still loads through the child */
  ENSURE_MSG(jl_surface_load(JL_MODELS_DIR "/bunny.obj", &s, err, sizeof err) == JL_OK, "%s", err);
  ENSURE(s.nvert == 1839 && s.ntri == 3674);
  jl_surface_free(&s);
}

/* ---- imperfect scans and "units" ----------------------------------------------------- */

/* `jelly run` on scenes with a bad "units" or an embedded surface that
 * encloses nothing: exit 2 naming the key path or the reason, no crash */
static void test_scan_scene_inputs(void) {
  static const char *const sheet =
      "{\"vertices\": [[0,0,0],[1,0,0],[1,1,0],[0,1,0],[0.5,0.5,0]], "
      "\"triangles\": [[0,1,4],[1,2,4],[2,3,4],[3,0,4]]}";
  static const char *const book =
      "{\"vertices\": [[0,0,0],[0,0,1],[1,0,0.5],[0,1,0.5],[-1,0,0.5],[0,-1,0.5]], "
      "\"triangles\": [[0,1,2],[0,1,3],[0,1,4],[0,1,5]]}";
  static const char *const tet =
      "{\"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "
      "\"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}";
  char cases[6][2][512];
  snprintf(cases[0][0], 512, "\"mesh\": %s, \"units\": \"inch\"", tet);
  snprintf(cases[0][1], 512, "bodies[0].units: unknown unit 'inch'");
  snprintf(cases[1][0], 512, "\"mesh\": %s, \"units\": 0.001", tet);
  snprintf(cases[1][1], 512, "bodies[0].units: expected \"m\", \"cm\" or \"mm\"");
  snprintf(cases[2][0], 512, "\"shape\": {\"type\": \"box\"}, \"units\": \"mm\"");
  snprintf(cases[2][1], 512, "bodies[0].units: applies to a \"mesh\"");
  snprintf(cases[3][0], 512, "\"mesh\": %s, \"tetgen\": {\"mode\": \"embedded\"}", sheet);
  snprintf(cases[3][1], 512, "encloses no volume");
  snprintf(cases[4][0], 512, "\"mesh\": %s, \"tetgen\": {\"mode\": \"embedded\"}", book);
  snprintf(cases[4][1], 512, "encloses no volume");
  char longunit[301];
  memset(longunit, 'm', 300);
  longunit[300] = '\0';
  snprintf(cases[5][0], 512, "\"mesh\": %s, \"units\": \"%s\"", tet, longunit);
  snprintf(cases[5][1], 512, "bodies[0].units: unknown unit 'mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm' (");
  for (int i = 0; i < 6; i++) {
    char text[6400], name[64], args[1600], out[8192];
    snprintf(text, sizeof text, "{\"duration\": 0.02, \"bodies\": [{\"name\": \"scan\", %s}]}", cases[i][0]);
    snprintf(name, sizeof name, "scan%d.json", i);
    const char *p = put(name, text, strlen(text));
    snprintf(args, sizeof args, "run '%s' --out '%s/scan_out%d' --quiet", p, dir(), i);
    double t;
    int rc = run(args, out, sizeof out, &t);
    ENSURE_MSG(rc == 2 && strstr(out, p) && strstr(out, cases[i][1]), "case %d: exit %d (want 2, '%s'):\n%s", i, rc,
               cases[i][1], out);
  }
}

/* ---- tet-mesh readers (mesh/tetfile.h) ------------------------------------------- */

/* appends n bytes at p to buf (at *len) */
static void cat(unsigned char *buf, size_t *len, const void *p, size_t n) {
  memcpy(buf + *len, p, n);
  *len += n;
}

/* Every reader on truncated files, counts far beyond the file or the caps,
 * garbage, negative and overflowing indices, bad base64 and zlib: `jelly
 * check` exits 2 within 5 s (under the 4 GiB address-space limit of run())
 * naming the file and the reason; a 100-byte file claiming 2e9 nodes fails
 * before allocating. */
static void test_tetfile_hostile(void) {
  static const struct {
    const char *name, *text, *needle;
  } cases[] = {
      /* Gmsh */
      {"huge.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2000000000\n1 0 0 0\n$EndNodes\n",
       "$Nodes: 2000000000 is more than the limit"},
      {"big.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n19000000\n1 0 0 0\n$EndNodes\n",
       "19000000 promised but only"},
      {"elems.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n0 0 0 0\n$EndNodes\n$Elements\n1 49000000 1 2\n",
       "$Elements: 49000000 promised"},
      {"trunc.msh",
       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n2\n"
       "1 4 0 1 2 3 4\n2 4 0 1 2",
       "line 14: file ends where a node tag was expected"},
      {"blocks.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 2\n3 1 0 5\n1\n2\n0 0 0\n0 0 0\n",
       "node block 0 has 5 nodes, more than the 2"},
      {"garbage.msh", "\x7f\x45LF\x02\x01\x01garbage\xff\xfe", "not a Gmsh file"},
      {"over.msh",
       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n"
       "1 4 0 1 2 3 99999999999999999999\n$EndElements\n",
       "a node tag is too large"},
      {"negtag.msh",
       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n"
       "1 4 0 1 2 3 -4\n$EndElements\n",
       "element 1 has node tag -4 which is not in $Nodes"},
      {"noend.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Comments\nno end\n",
       "section $Comments has no $EndComments"},
      /* TetGen */
      {"huge.node", "2000000000 3 0 0\n1 0 0 0\n", "points: 2000000000 is more than the limit"},
      {"trunc.node", "4 3 0 0\n0 0.000 0.000 0.000\n1 1.000 0 0\n2 0 1.000 0\n3 0.5 0.5",
       "line 5: file ends where a coordinate was expected"},
      /* legacy VTK */
      {"huge.vtk", "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 2000000000 float\n0 0 0\n",
       "POINTS: 2000000000 is more than the limit"},
      {"cells.vtk",
       "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\n"
       "CELLS 1 40000000\n4 0 1 2 3\n",
       "CELLS size: 40000000 promised"},
      {"neg.vtk",
       "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\n"
       "CELLS 1 5\n4 0 1 2 -1\nCELL_TYPES 1\n10\n",
       "cell 0 has point id -1, out of range"},
      {"count.vtk",
       "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\n"
       "CELLS 1 5\n2000000000 0 1 2 3\nCELL_TYPES 1\n10\n",
       "cell 0: 2000000000 points where the CELLS list has 4"},
      {"bin.vtk", "# vtk DataFile Version 3.0\nx\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n\x3f\xf0\0\0",
       "POINTS: 4 promised but only"},
      {"garbage.vtk", "\x89PNG\r\n\x1a\n", "not a legacy VTK file"},
      /* .vtu */
      {"huge.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"2000000000\" NumberOfCells=\"1\">",
       "NumberOfPoints 2000000000"},
      {"b64.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"1\" NumberOfCells=\"0\"><Points>"
       "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"binary\">GAAAAA@@@@</DataArray></Points><Cells>"
       "<DataArray type=\"Int32\" Name=\"connectivity\"></DataArray><DataArray type=\"Int32\" Name=\"offsets\">"
       "</DataArray><DataArray type=\"UInt8\" Name=\"types\"></DataArray></Cells></Piece></UnstructuredGrid></VTKFile>",
       "Points: bad base64"},
      {"claim.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"1\" NumberOfCells=\"0\"><Points>"
       "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"binary\">/////w==</DataArray></Points><Cells>"
       "<DataArray type=\"Int32\" Name=\"connectivity\"></DataArray><DataArray type=\"Int32\" Name=\"offsets\">"
       "</DataArray><DataArray type=\"UInt8\" Name=\"types\"></DataArray></Cells></Piece></UnstructuredGrid></VTKFile>",
       "header says 4294967295 bytes"},
      {"offset.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"1\" NumberOfCells=\"0\"><Points>"
       "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"appended\" offset=\"99999\"/></Points><Cells>"
       "<DataArray type=\"Int32\" Name=\"connectivity\"></DataArray><DataArray type=\"Int32\" Name=\"offsets\">"
       "</DataArray><DataArray type=\"UInt8\" Name=\"types\"></DataArray></Cells></Piece></UnstructuredGrid>"
       "<AppendedData encoding=\"raw\">_\x18\0\0\0</AppendedData></VTKFile>",
       "offset 99999 outside the appended data"},
      {"garbage.vtu", "\0\0\0\0garbage<<<>>>", "no <VTKFile> element"},
  };
  PUT("huge.ele", "1 4 0\n0 0 1 2 3\n");
  PUT("trunc.ele", "1 4 0\n0 0 1 2 3\n");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    /* the literals may hold NUL bytes: sizes from the table below */
    const char *p = put(cases[i].name, cases[i].text, strlen(cases[i].text));
    if (strcmp(cases[i].name, "garbage.vtu") == 0) p = put(cases[i].name, "\0\0\0\0garbage<<<>>>", 18);
    if (strcmp(cases[i].name, "bin.vtk") == 0)
      p = put(cases[i].name, cases[i].text,
              strlen("# vtk DataFile Version 3.0\nx\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n") + 4);
    if (strcmp(cases[i].name, "offset.vtu") == 0) p = put(cases[i].name, cases[i].text, strlen(cases[i].text) + 3 + 23);
    check_rejects(p, cases[i].needle, 5.0);
  }
  /* binary Gmsh 4.1 whose $Nodes header claims 2^64 - 1 nodes, and a .vtu
   * whose one zlib block claims 512 GB from 10 bytes, or does not inflate */
  unsigned char b[512];
  size_t n = 0;
  const char *head = "$MeshFormat\n4.1 1 8\n";
  cat(b, &n, head, strlen(head));
  const unsigned char one[4] = {1, 0, 0, 0}, ff[8] = {255, 255, 255, 255, 255, 255, 255, 255}, z8[8] = {0};
  cat(b, &n, one, 4);
  cat(b, &n, "\n$EndMeshFormat\n$Nodes\n", 23);
  cat(b, &n, z8, 8);
  cat(b, &n, ff, 8);
  cat(b, &n, z8, 8);
  cat(b, &n, z8, 8);
  check_rejects(put("size_t.msh", b, n), "count beyond 2^63", 5.0);
  /* UInt64 header: 1 block of 2^39 bytes, last 0, compressed size 10 */
  static const char *const zvtu[2][2] = {
      {"AQAAAAAAAAAAAAAAgAAAAAAAAAAAAAAACgAAAAAAAAA=eJxLTEoGAAJNASc=", "more than zlib can pack"},
      {"AQAAAAAAAAAYAAAAAAAAAAAAAAAAAAAACgAAAAAAAAA=AAAAAAAAAAAAAA==", "does not inflate"}};
  for (int k = 0; k < 2; k++) {
    char text[1200];
    snprintf(
        text, sizeof text,
        "<VTKFile type=\"UnstructuredGrid\" header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\">"
        "<UnstructuredGrid><Piece NumberOfPoints=\"1\" NumberOfCells=\"0\"><Points><DataArray type=\"Float64\" "
        "NumberOfComponents=\"3\" format=\"binary\">%s</DataArray></Points><Cells><DataArray type=\"Int32\" "
        "Name=\"connectivity\" format=\"ascii\"></DataArray><DataArray type=\"Int32\" Name=\"offsets\"></DataArray>"
        "<DataArray type=\"UInt8\" Name=\"types\"></DataArray></Cells></Piece></UnstructuredGrid></VTKFile>",
        zvtu[k][0]);
    check_rejects(put(k ? "zbad.vtu" : "zbomb.vtu", text, strlen(text)), zvtu[k][1], 5.0);
  }
  /* a scene naming a hostile tet mesh: exit 2 from `jelly run` too */
  char scene[800], args[1600], out[8192];
  snprintf(scene, sizeof scene, "{\"duration\": 0.02, \"bodies\": [{\"mesh\": \"huge.msh\"}]}");
  const char *sp = put("tetscene.json", scene, strlen(scene));
  snprintf(args, sizeof args, "run '%s' --out '%s/tetscene_out' --quiet", sp, dir());
  double t;
  int rc = run(args, out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "huge.msh") && strstr(out, "more than the limit"), "exit %d:\n%s", rc, out);
}

/* `jelly run --resume FIFO` blocked in fopen until a writer came (the
 * checkpoint loader opened before it looked at what the path was); now it
 * opens without blocking, sees no regular file and exits 2 */
static void test_resume_fifo(void) {
  char fifo[700], args[1600], out[8192];
  snprintf(fifo, sizeof fifo, "%s/checkpoint.fifo", dir());
  remove(fifo);
  ENSURE_MSG(mkfifo(fifo, 0600) == 0, "mkfifo %s failed", fifo);
  snprintf(args, sizeof args, "run %s/drop.json --resume '%s' --out '%s/resume_out' --quiet --no-preview",
           JL_SOURCE_DIR "/models/scenes", fifo, dir());
  double t;
  int rc = run(args, out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "not a regular file") && strstr(out, fifo), "exit %d after %.1f s:\n%s", rc, t,
             out);
  remove(fifo);
}

/* A dt as users write it: 0.0166667 with fps 60 was refused as "longer than
 * one output frame (1/fps = 0.0166667 s)", two equal numbers, 0.0083333
 * took three steps per frame and 0.0333 at 30 fps two. A dt within 1e-3 of a
 * whole fraction of the frame now counts as that fraction; a refused one
 * prints digits that differ. */
static void test_dt_as_written(void) {
  static const struct {
    const char *dt, *needle;
    int rc;
  } cases[] = {
      {"0.0166667", "(1 steps per frame)", 0},
      {"0.01667", "(1 steps per frame)", 0},
      {"0.0083333", "(2 steps per frame)", 0},
      {"0.0168", "dt: 0.0168 s is longer than one output frame (1/fps = 0.0166666667 s)", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024], name[64], args[1600], out[8192];
    snprintf(text, sizeof text,
             "{\"duration\": 0.05, \"fps\": 60, \"dt\": %s, \"ground\": {\"y\": 0}, \"bodies\": [{\"name\": "
             "\"b\", \"shape\": {\"type\": \"box\", \"size\": [0.2, 0.2, 0.2]}, \"translate\": [0, 0.3, 0], "
             "\"tetgen\": {\"max_volume\": 1e-3}, \"density\": 500, \"young_modulus\": 1e5}]}",
             cases[i].dt);
    snprintf(name, sizeof name, "dt%zu.json", i);
    const char *p = put_str(name, text);
    snprintf(args, sizeof args, "run '%s' --out '%s/dt_out%zu' --no-preview", p, dir(), i);
    double t;
    int rc = run(args, out, sizeof out, &t);
    ENSURE_MSG(rc == cases[i].rc && strstr(out, cases[i].needle), "dt %s: exit %d (want %d, '%s'):\n%s", cases[i].dt,
               rc, cases[i].rc, cases[i].needle, out);
  }
}

/* Tet meshes valid in form but not as a body: two tets on the same spot
 * with no node in common ("findings none", the volume counted twice), and a
 * legacy BINARY .vtk whose coordinates were written little-endian (read as a
 * mesh 4.6e-41 wide: "a tet mesh Jelly can simulate", and a scene with it
 * flew off). jelly check now says not ok, jelly run refuses them naming
 * "plausibility_check", and with that key false the overlap runs. */
static void test_implausible_tet_meshes(void) {
  char node[600], ele[600], vtk[600], args[1600], out[8192];
  snprintf(node, sizeof node, "%s/overlap.node", dir());
  snprintf(ele, sizeof ele, "%s/overlap.ele", dir());
  snprintf(vtk, sizeof vtk, "%s/le.vtk", dir());
  ENSURE(jl_test_write_file(node, "8 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 0 0 0\n5 1 0 0\n6 0 1 0\n7 0 0 1\n"));
  ENSURE(jl_test_write_file(ele, "2 4 0\n0 0 1 2 3\n1 4 5 6 7\n"));
  static const float pts[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  static const unsigned char cells[] = {0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3};
  static const unsigned char type[] = {0, 0, 0, 10};
  FILE *f = fopen(vtk, "wb");
  ENSURE(f);
  if (!f) return;
  fputs("# vtk DataFile Version 3.0\nlittle-endian floats\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n", f);
  for (int i = 0; i < 12; i++) { /* little-endian, where the format says big-endian */
    unsigned char b[4];
    uint32_t u;
    memcpy(&u, &pts[i], 4);
    for (int k = 0; k < 4; k++) b[k] = (unsigned char)(u >> (8 * k));
    fwrite(b, 1, 4, f);
  }
  fputs("\nCELLS 1 5\n", f);
  fwrite(cells, 1, sizeof cells, f);
  fputs("\nCELL_TYPES 1\n", f);
  fwrite(type, 1, sizeof type, f);
  fputs("\n", f);
  fclose(f);
  ENSURE(check_rejects(node, "overlap", 10.0));
  ENSURE(check_rejects(vtk, "implausible size", 10.0));
  const char *files[2] = {node, vtk}, *names[2] = {"overlap.node", "le.vtk"};
  const char *needles[2] = {"tets overlap others", "across, outside"};
  for (int k = 0; k < 2; k++)
    for (int allow = 0; allow < 2; allow++) {
      if (k == 1 && allow) continue; /* a 1e-41 m body stays meaningless */
      char text[1400], name[64];
      snprintf(text, sizeof text,
               "{\"duration\": 0.05, \"bodies\": [{\"name\": \"t\", \"mesh\": \"%s\", \"translate\": [0, 1, 0], "
               "\"density\": 500, \"young_modulus\": 1e5%s}]}",
               names[k], allow ? ", \"plausibility_check\": false" : "");
      snprintf(name, sizeof name, "plausible%d%d.json", k, allow);
      const char *p = put_str(name, text);
      snprintf(args, sizeof args, "run '%s' --out '%s/plausible_out%d%d' --quiet --no-preview", p, dir(), k, allow);
      double t;
      int rc = run(args, out, sizeof out, &t);
      if (allow)
        ENSURE_MSG(rc == 0, "%s with plausibility_check false: exit %d:\n%s", files[k], rc, out);
      else
        ENSURE_MSG(rc == 2 && strstr(out, needles[k]) && strstr(out, "plausibility_check"),
                   "%s: exit %d (want 2, '%s'):\n%s", files[k], rc, needles[k], out);
    }
}

/* `jelly run --frames 99999999` planned every frame's files (and their
 * times) before anything else: 7.3 GB and nothing written after 60 s. The
 * frames of one run are now at most 1e6 (about 140 MB planned), checked
 * before the scene is built. */
static void test_frames_bounded(void) {
  char args[1600], out[8192];
  snprintf(args, sizeof args, "run %s/drop.json --frames 99999999 --out '%s/frames_out' --quiet --no-preview",
           JL_SOURCE_DIR "/models/scenes", dir());
  double t;
  int rc = run(args, out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "--frames 99999999: at most 1000000 output frames"), "exit %d after %.1f s:\n%s",
             rc, t, out);
}

/* ---- scene values valid in form, extreme in size ---------------------------------- */

/* two small balls gap m apart, body a of density a_density with `a_extra` keys, the world `world_extra` */
static const char *two_balls(const char *name, const char *world_extra, const char *a_extra, double a_density,
                             double gap) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"duration\": 0.1, \"fps\": 60, \"dt\": 0.016666666666666666%s, \"bodies\": ["
           "{\"name\": \"a\", \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}, \"translate\": [0, 0.5, 0]%s,"
           " \"tetgen\": {\"max_volume\": 1e-4}, \"density\": %g, \"young_modulus\": 1e5},"
           "{\"name\": \"b\", \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}, \"translate\": [%g, 0.5, 0],"
           " \"tetgen\": {\"max_volume\": 1e-4}, \"density\": 500, \"young_modulus\": 1e5}]}",
           world_extra, a_extra, a_density, 0.2 + gap);
  return put_str(name, text);
}

/* A body thrown at 1e5 m/s into another stretched both tens of metres
 * across, and the collision hash then walked one tet's box over 3e7 cells
 * per step (over a minute); a contact.cell_size of 1e-9 m gave 1e21 cells.
 * Boxes of more than JL_HASH_BOX_CELLS cells are now listed apart or
 * scanned (collision/hash.h), and the cell size must lie within 0.01 to 100
 * times the mean rest edge: the first scene ends within seconds (here: the
 * bodies are crushed and the run says so, exit 1), the second is refused. */
static void test_extreme_speed_and_cells(void) {
  char args[1600], out[8192];
  double t;
  const char *p = two_balls("fast.json", "", ", \"velocity\": [100000, 0, 0]", 500, 0.3);
  snprintf(args, sizeof args, "run '%s' --out '%s/fast_out' --quiet --no-preview", p, dir());
  int rc = run(args, out, sizeof out, &t);
  ENSURE_MSG((rc == 0 || rc == 1) && t < 20.0, "1e5 m/s: exit %d after %.1f s (want 0 or 1 within 20 s):\n%s", rc, t,
             out);
  p = two_balls("cells.json", ", \"contact\": {\"cell_size\": 1e-9}", "", 500, -0.01);
  snprintf(args, sizeof args, "run '%s' --out '%s/cells_out' --quiet --no-preview", p, dir());
  rc = run(args, out, sizeof out, &t);
  ENSURE_MSG(rc == 2 && strstr(out, "contact.cell_size") && strstr(out, "1e-09") && t < 20.0,
             "cell_size 1e-9: exit %d after %.1f s (want 2 naming the key):\n%s", rc, t, out);
}

/* Velocities, gravity or densities so extreme that the state leaves the
 * doubles used to exit 0 with kinetic energy `inf` in stats.csv and a body
 * collapsed to a point. Now the step is undone and the run exits 1 naming
 * the body, the time and what diverged. */
static void test_diverged_forms(void) {
  static const struct {
    const char *world, *a;
    double density;
    const char *needle;
  } cases[] = {
      {"", ", \"velocity\": [1e300, 0, 0]", 500, "kinetic energy"},
      {", \"gravity\": [0, -1e300, 0]", "", 500, "kinetic energy"},
      {"", "", 1e-300, "diverged"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[64], args[1600], out[8192];
    snprintf(name, sizeof name, "diverge%zu.json", i);
    const char *p = two_balls(name, cases[i].world, cases[i].a, cases[i].density, 1.0);
    snprintf(args, sizeof args, "run '%s' --out '%s/diverge_out%zu' --quiet --no-preview", p, dir(), i);
    double t;
    int rc = run(args, out, sizeof out, &t);
    ENSURE_MSG(rc == 1 && strstr(out, "body 'a'") && strstr(out, "t = ") && strstr(out, cases[i].needle),
               "case %zu: exit %d (want 1 naming body 'a', the time and '%s'):\n%s", i, rc, cases[i].needle, out);
  }
}

#define JL_TEST_TIER JL_ROBUSTNESS /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"ply_binary_header_20_bytes", test_ply_binary_header_20_bytes},
             {"extreme_speed_and_cells", test_extreme_speed_and_cells}, {"resume_fifo", test_resume_fifo},
             {"dt_as_written", test_dt_as_written}, {"frames_bounded", test_frames_bounded},
             {"implausible_tet_meshes", test_implausible_tet_meshes}, {"diverged_forms", test_diverged_forms},
             {"collada_self_instance", test_collada_self_instance}, {"ply_short_faces", test_ply_short_faces},
             {"ply_without_end_header", test_ply_without_end_header}, {"referenced_fifo", test_referenced_fifo},
             {"ply_magic_bypasses", test_ply_magic_bypasses}, {"off_hash_header", test_off_hash_header},
             {"x_huge_count", test_x_huge_count}, {"sparse_9_gib", test_sparse_9_gib},
             {"gltf_node_dag", test_gltf_node_dag}, {"gltf_cycle_depth", test_gltf_cycle_depth},
             {"gltf_accessors", test_gltf_accessors}, {"glb_json_chunk", test_glb_json_chunk},
             {"gltf_valid", test_gltf_valid}, {"dae_nested_instances", test_dae_nested_instances},
             {"dae_depth", test_dae_depth}, {"dae_counts", test_dae_counts}, {"dae_valid", test_dae_valid},
             {"stl_binary", test_stl_binary}, {"x_binary", test_x_binary}, {"x_text_counts", test_x_text_counts},
             {"tetgen_too_fine", test_tetgen_too_fine}, {"tetgen_limits", test_tetgen_limits},
             {"child_ends", test_child_ends}, {"child_dies_with_parent", test_child_dies_with_parent},
             {"library_load_limits", test_library_load_limits}, {"inline_mesh_run", test_inline_mesh_run},
             {"scan_scene_inputs", test_scan_scene_inputs}, {"tetfile_hostile", test_tetfile_hostile})
