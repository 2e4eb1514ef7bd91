/* Outputs readable outside Jelly (issue 10): `jelly run` on shipped scenes
 * with cloth and ropes, and on a scene mixing a volume, a cloth and a rope.
 * The .vtu frames are parsed here as a VTK reader would take them (cells
 * counted by type against tets + cloth triangles + rope segments, offsets
 * against each type's node count, every node id < NumberOfPoints, one value
 * per cell in each cell array); the --obj files are loaded with assimp,
 * which must find line primitives for a rope and two-sided triangles for a
 * cloth. */
#define _POSIX_C_SOURCE 200809L
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"

#define JELLY JL_JELLY_EXE
#define SCENES JL_SOURCE_DIR "/models/scenes/"

static char g_out[1 << 16];

/* the numbers of the DataArray named `name` (malloc'd, NULL if absent); *n
 * their count */
static double *vtu_array(const char *vtu, const char *name, int *n) {
  char key[128];
  snprintf(key, sizeof key, "Name=\"%s\"", name);
  const char *p = strstr(vtu, key);
  *n = 0;
  if (!p || !(p = strchr(p, '>'))) return NULL;
  p++;
  int cap = 1024;
  double *v = malloc(sizeof(double) * (size_t)cap);
  for (;;) {
    char *end;
    double d = strtod(p, &end);
    if (end == p) break; /* "</DataArray>" */
    if (*n == cap) v = realloc(v, sizeof(double) * (size_t)(cap *= 2));
    v[(*n)++] = d;
    p = end;
  }
  return v;
}

/* tets summed over the "body ... nodes ... tets" lines `jelly run` prints */
static int printed_tets(const char *out) {
  int sum = 0;
  for (const char *p = out; (p = strstr(p, "body       ")) != NULL; p++) {
    int nodes, tets;
    char name[128];
    if (sscanf(p, "body %127s %d nodes %d tets", name, &nodes, &tets) == 3) sum += tets;
  }
  return sum;
}

/* nodes of a VTK cell type (0 for types Jelly does not write) */
static int type_nodes(int type) { return type == 10 ? 4 : type == 5 ? 3 : type == 3 ? 2 : 0; }

/* Parses path as an unstructured grid and checks it: ntet VTK_TETRA, ntri
 * VTK_TRIANGLE and nline VTK_LINE cells and nothing else, offsets that end
 * each cell after its type's node count, connectivity of exactly that
 * length with every id in [0, NumberOfPoints) and no repeated node within a
 * cell, point arrays with one tuple per point and cell arrays with one value
 * per cell. The "body" and "volume_strain" cell arrays go to *body and
 * *strain (malloc'd, ncell each) when those are not NULL. */
static void check_grid(const char *path, int ntet, int ntri, int nline, double **body, double **strain) {
  char *vtu = jl_test_read_file(path, NULL);
  ENSURE_MSG(vtu, "missing %s", path);
  int npts = -1, ncell = -1;
  const char *piece = strstr(vtu, "NumberOfPoints=");
  ENSURE(piece && sscanf(piece, "NumberOfPoints=\"%d\" NumberOfCells=\"%d\"", &npts, &ncell) == 2);
  ENSURE_MSG(ncell == ntet + ntri + nline, "%s: %d cells, expected %d tets + %d triangles + %d segments", path,
             ncell, ntet, ntri, nline);
  int nconn, noff, ntype;
  double *conn = vtu_array(vtu, "connectivity", &nconn);
  double *off = vtu_array(vtu, "offsets", &noff);
  double *type = vtu_array(vtu, "types", &ntype);
  ENSURE(conn && off && type);
  ENSURE_MSG(noff == ncell && ntype == ncell, "%d offsets, %d types for %d cells", noff, ntype, ncell);

  /* cells by type; offsets advance by each type's node count */
  int count[16] = {0}, prev = 0;
  for (int c = 0; c < ncell; c++) {
    int t = (int)type[c];
    ENSURE_MSG(type_nodes(t) > 0, "cell %d has VTK type %d", c, t);
    count[t]++;
    ENSURE_MSG((int)off[c] - prev == type_nodes(t), "cell %d (type %d) spans %d nodes", c, t, (int)off[c] - prev);
    /* distinct nodes in range */
    for (int i = prev; i < (int)off[c]; i++) {
      ENSURE_MSG(conn[i] >= 0 && conn[i] < npts, "cell %d: node %g not in [0, %d)", c, conn[i], npts);
      for (int j = prev; j < i; j++) ENSURE_MSG(conn[i] != conn[j], "cell %d repeats node %g", c, conn[i]);
    }
    prev = (int)off[c];
  }
  ENSURE_MSG(count[10] == ntet && count[5] == ntri && count[3] == nline,
             "%s: %d tets, %d triangles, %d lines; expected %d, %d, %d", path, count[10], count[5], count[3], ntet,
             ntri, nline);
  ENSURE_MSG(nconn == prev, "connectivity has %d ids, offsets end at %d", nconn, prev);

  /* data arrays: one tuple per point or per cell */
  static const struct {
    const char *name;
    int per_cell, ncomp;
  } arrays[] = {{"velocity", 0, 3}, {"strain", 0, 1}, {"position", 0, 3}, {"volume_strain", 1, 1}, {"body", 1, 1}};
  for (int a = 0; a < 5; a++) {
    int n;
    double *v = vtu_array(vtu, arrays[a].name, &n);
    int want = arrays[a].ncomp * (arrays[a].per_cell ? ncell : npts);
    ENSURE_MSG(v && n == want, "array %s: %d values, expected %d", arrays[a].name, n, want);
    for (int i = 0; i < n; i++) ENSURE_MSG(isfinite(v[i]), "array %s: value %d is %g", arrays[a].name, i, v[i]);
    if (body && strcmp(arrays[a].name, "body") == 0) *body = v, v = NULL;
    if (strain && strcmp(arrays[a].name, "volume_strain") == 0) *strain = v, v = NULL;
    free(v);
  }
  free(conn);
  free(off);
  free(type);
  free(vtu);
}

/* a rope's .obj through assimp: one mesh of nseg line primitives over
 * nseg + 1 vertices, each line starting where the previous one ended */
static void check_rope_obj(const char *path, int nseg) {
  const struct aiScene *s = aiImportFile(path, aiProcess_ValidateDataStructure | aiProcess_JoinIdenticalVertices);
  ENSURE_MSG(s, "assimp: %s: %s", path, aiGetErrorString());
  int ok = s->mNumMeshes == 1;
  const struct aiMesh *me = ok ? s->mMeshes[0] : NULL;
  if (ok) ok = me->mPrimitiveTypes == aiPrimitiveType_LINE && (int)me->mNumFaces == nseg &&
               (int)me->mNumVertices == nseg + 1;
  for (unsigned f = 0; ok && f < me->mNumFaces; f++) {
    ok = me->mFaces[f].mNumIndices == 2;
    if (ok && f > 0) ok = me->mFaces[f].mIndices[0] == me->mFaces[f - 1].mIndices[1];
  }
  if (!ok)
    jl_test_fail(__FILE__, __LINE__, "%s: %u meshes, first with primitive types %u, %u faces, %u vertices; "
                 "expected %d lines in a chain of %d vertices", path, s->mNumMeshes,
                 s->mNumMeshes ? s->mMeshes[0]->mPrimitiveTypes : 0, s->mNumMeshes ? s->mMeshes[0]->mNumFaces : 0,
                 s->mNumMeshes ? s->mMeshes[0]->mNumVertices : 0, nseg, nseg + 1);
  aiReleaseImport(s);
}

/* unnormalised normal of triangle f of mesh me (its winding) */
static void face_normal(const struct aiMesh *me, unsigned f, double *n) {
  const unsigned *i = me->mFaces[f].mIndices;
  const struct aiVector3D *a = &me->mVertices[i[0]], *b = &me->mVertices[i[1]], *c = &me->mVertices[i[2]];
  double u[3] = {b->x - a->x, b->y - a->y, b->z - a->z}, v[3] = {c->x - a->x, c->y - a->y, c->z - a->z};
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
}

/* a cloth's .obj through assimp: ntri triangles for the front, then the
 * same ntri again as the back (opposite winding), on nvert + nvert vertices
 * (the sides do not share vertices), and every face's vertex normals on the
 * side its winding faces */
static void check_cloth_obj(const char *path, int nvert, int ntri) {
  const struct aiScene *s = aiImportFile(path, aiProcess_ValidateDataStructure | aiProcess_JoinIdenticalVertices);
  ENSURE_MSG(s, "assimp: %s: %s", path, aiGetErrorString());
  const struct aiMesh *me = s->mNumMeshes == 1 ? s->mMeshes[0] : NULL;
  int ok = me && me->mPrimitiveTypes == aiPrimitiveType_TRIANGLE && me->mNormals &&
           (int)me->mNumFaces == 2 * ntri && (int)me->mNumVertices == 2 * nvert;
  if (!ok) {
    jl_test_fail(__FILE__, __LINE__, "%s: %u meshes, first with primitive types %u, %u faces, %u vertices%s; "
                 "expected %d triangles (both sides) on %d vertices with normals", path, s->mNumMeshes,
                 me ? me->mPrimitiveTypes : 0, me ? me->mNumFaces : 0, me ? me->mNumVertices : 0,
                 me && me->mNormals ? "" : ", no normals", 2 * ntri, 2 * nvert);
    aiReleaseImport(s);
    return;
  }
  int bad_pair = -1, bad_normal = -1;
  for (unsigned f = 0; f < me->mNumFaces; f++) {
    double g[3], vn[3] = {0, 0, 0};
    face_normal(me, f, g);
    for (int k = 0; k < 3; k++) {
      const struct aiVector3D *n = &me->mNormals[me->mFaces[f].mIndices[k]];
      vn[0] += n->x, vn[1] += n->y, vn[2] += n->z;
    }
    if (g[0] * vn[0] + g[1] * vn[1] + g[2] * vn[2] <= 0 && bad_normal < 0) bad_normal = (int)f;
    /* face f + ntri is face f seen from the other side */
    if ((int)f < ntri) {
      double h[3];
      face_normal(me, f + (unsigned)ntri, h);
      double gg = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
      if (!(fabs(g[0] * h[0] + g[1] * h[1] + g[2] * h[2] + gg) <= 1e-6 * gg) && bad_pair < 0) bad_pair = (int)f;
    }
  }
  if (bad_normal >= 0 || bad_pair >= 0)
    jl_test_fail(__FILE__, __LINE__, "%s: face %d's vertex normals point away from its winding; face %d and its "
                 "back face %d are not opposite (-1: none)", path, bad_normal, bad_pair, bad_pair + ntri);
  aiReleaseImport(s);
}

/* runs `jelly run SCENE --frames 2 --obj` into dir/run */
static int run_scene(const char *scene, const char *dir) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '%s' --frames 2 --obj --no-preview --out '%s/run'", scene, dir);
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  if (rc != 0) jl_test_fail(__FILE__, __LINE__, "exit %d: %s", rc, g_out);
  return rc == 0;
}

/* runs scene into the fresh temporary folder `name` (*dir): the tets the
 * run printed, or -1 when it failed (its output in g_out) */
static int run_scene_tets(const char *scene, const char *name, const char **dir) {
  *dir = jl_test_tmpdir(name);
  return run_scene(scene, *dir) ? printed_tets(g_out) : -1;
}

/* drape.json: the ball's tets and the 24 x 24 cloth's 1152 triangles */
static void test_cloth_vtu(void) {
  const char *dir;
  int ntet = run_scene_tets(SCENES "drape.json", "output_cloth_vtu", &dir); /* -1: the run failed */
  ENSURE_MSG(ntet > 100, "tets: %d in %s", ntet, g_out);
  char path[2048];
  for (int f = 0; f <= 2; f += 2) {
    snprintf(path, sizeof path, "%s/run/frame_%04d.vtu", dir, f);
    check_grid(path, ntet, 24 * 24 * 2, 0, NULL, NULL);
    if (jl_test_failed()) return;
  }
}

/* drape.json --obj: the cloth from both sides */
static void test_cloth_obj(void) {
  const char *dir = jl_test_tmpdir("output_cloth_obj");
  ENSURE(run_scene(SCENES "drape.json", dir));
  char path[2048];
  snprintf(path, sizeof path, "%s/run/cloth_0002.obj", dir);
  check_cloth_obj(path, 25 * 25, 24 * 24 * 2);
}

/* rope_bridge.json: two 40-segment ropes as lines next to the box's tets */
static void test_rope_vtu(void) {
  const char *dir;
  int ntet = run_scene_tets(SCENES "rope_bridge.json", "output_rope_vtu", &dir); /* -1: the run failed */
  ENSURE_MSG(ntet > 100, "tets: %d in %s", ntet, g_out);
  char path[2048];
  snprintf(path, sizeof path, "%s/run/frame_0002.vtu", dir);
  check_grid(path, ntet, 0, 80, NULL, NULL);
}

/* rope_bridge.json --obj: each rope a chain of 40 lines */
static void test_rope_obj(void) {
  const char *dir = jl_test_tmpdir("output_rope_obj");
  ENSURE(run_scene(SCENES "rope_bridge.json", dir));
  char path[2048];
  static const char *const ropes[] = {"rope_front", "rope_back"};
  for (int r = 0; r < 2; r++) {
    snprintf(path, sizeof path, "%s/run/%s_0002.obj", dir, ropes[r]);
    check_rope_obj(path, 40);
    if (jl_test_failed()) return;
  }
}

/* a volume, a cloth and a rope */
static const char g_mixed[] =
      "{\"fps\": 30, \"ground\": {\"y\": 0},\n"
      " \"bodies\": [\n"
      "  {\"name\": \"block\", \"shape\": {\"type\": \"box\", \"size\": [0.3, 0.3, 0.3]},\n"
      "   \"translate\": [0, 0.5, 0]},\n"
      "  {\"name\": \"sheet\", \"kind\": \"cloth\",\n"
      "   \"shape\": {\"type\": \"grid\", \"size\": [1, 1], \"cells\": [4, 3]},\n"
      "   \"rotate_deg\": [90, 0, 0], \"translate\": [0, 1.2, 0]},\n"
      "  {\"name\": \"strand\", \"kind\": \"rope\",\n"
      "   \"shape\": {\"type\": \"chain\", \"length\": 0.5, \"segments\": 7},\n"
      "   \"translate\": [1, 1.5, 0]}]}\n";

/* writes g_mixed to dir/mixed.json and runs it */
static int run_mixed(const char *dir) {
  char path[2048];
  snprintf(path, sizeof path, "%s/mixed.json", dir);
  int ok = jl_test_write_file(path, g_mixed);
  if (!ok) jl_test_fail(__FILE__, __LINE__, "cannot write %s", path);
  return ok && run_scene(path, dir);
}

/* the mixed scene in one grid: each cell's "body" is its body, and at frame
 * 0 (the rest shape) every cell's volume_strain (volume, area or length
 * change) is zero */
static void test_mixed_vtu(void) {
  const char *dir = jl_test_tmpdir("output_mixed_vtu");
  char path[2048];
  ENSURE(run_mixed(dir));
  int ntet = printed_tets(g_out);
  ENSURE_MSG(ntet > 0, "tets: %d in %s", ntet, g_out);
  for (int fr = 0; fr <= 2; fr += 2) {
    double *body = NULL, *strain = NULL;
    snprintf(path, sizeof path, "%s/run/frame_%04d.vtu", dir, fr);
    check_grid(path, ntet, 4 * 3 * 2, 7, &body, &strain);
    int ncell = ntet + 24 + 7, bad = -1;
    /* cells in order: the block's tets, the sheet's triangles, the strand's segments */
    for (int c = 0; !jl_test_failed() && c < ncell && bad < 0; c++) {
      double want = c < ntet ? 0 : c < ntet + 24 ? 1 : 2;
      if (body[c] != want || (fr == 0 && !(fabs(strain[c]) <= 1e-12))) bad = c;
    }
    int failed = jl_test_failed();
    double b = bad >= 0 ? body[bad] : 0, e = bad >= 0 ? strain[bad] : 0;
    free(body);
    free(strain);
    if (failed) return;
    ENSURE_MSG(bad < 0, "frame %d cell %d: body %g, volume_strain %g", fr, bad, b, e);
  }
}

/* the mixed scene --obj: rope lines, two-sided cloth, one-sided volume */
static void test_mixed_obj(void) {
  const char *dir = jl_test_tmpdir("output_mixed_obj");
  char path[2048];
  ENSURE(run_mixed(dir));
  snprintf(path, sizeof path, "%s/run/strand_0002.obj", dir);
  check_rope_obj(path, 7);
  if (jl_test_failed()) return;
  snprintf(path, sizeof path, "%s/run/sheet_0002.obj", dir);
  check_cloth_obj(path, 5 * 4, 24);
  if (jl_test_failed()) return;
  /* a volume keeps its one-sided surface: triangles on the surface's own vertices */
  const char *line = strstr(g_out, "body       block");
  int nodes, tets, springs, nvert = 0;
  ENSURE(line &&
         sscanf(line, "body block %d nodes %d tets %d springs %d surface", &nodes, &tets, &springs, &nvert) == 4);
  snprintf(path, sizeof path, "%s/run/block_0002.obj", dir);
  const struct aiScene *s = aiImportFile(path, aiProcess_ValidateDataStructure | aiProcess_JoinIdenticalVertices);
  ENSURE_MSG(s, "assimp: %s: %s", path, aiGetErrorString());
  int one_sided = s->mNumMeshes == 1 && s->mMeshes[0]->mPrimitiveTypes == aiPrimitiveType_TRIANGLE &&
                  (int)s->mMeshes[0]->mNumVertices == nvert;
  aiReleaseImport(s);
  ENSURE_MSG(one_sided, "%s: not a triangle surface on its %d vertices", path, nvert);
}

JL_TEST_MAIN({"cloth_vtu", test_cloth_vtu}, {"cloth_obj", test_cloth_obj}, {"rope_vtu", test_rope_vtu},
             {"rope_obj", test_rope_obj}, {"mixed_vtu", test_mixed_vtu}, {"mixed_obj", test_mixed_obj})
