/* Outputs readable outside Jelly (issues 10 and 14): `jelly run` on shipped
 * scenes with cloth and ropes, and on a scene mixing a volume, a cloth and a
 * rope. The VTK files are decoded here independently of src/output.c: ASCII
 * arrays as text, appended binary ones by VTK's layout (UInt64 header
 * [nblocks, block size, last partial block size, compressed sizes], each
 * block zlib's uncompress). The .vtu frames are parsed as a VTK reader would
 * take them (cells
 * counted by type against tets + cloth triangles + rope segments, offsets
 * against each type's node count, every node id < NumberOfPoints, one value
 * per cell in each cell array); the --obj files are loaded with assimp,
 * which must find line primitives for a rope and two-sided triangles for a
 * cloth. */
#define _POSIX_C_SOURCE 200809L
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "src/output.h"
#include "tests/harness.h"

#define JELLY  JL_JELLY_EXE
#define SCENES JL_SOURCE_DIR "/models/scenes/"

static char g_out[1 << 16];

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* a failed check of appended_array: NULL after the test failure */
#define BAD(...) (jl_test_fail(__FILE__, __LINE__, __VA_ARGS__), (double *)NULL)

/* the values of an appended array of vtk_type at offset off after the '_'
 * of the file's AppendedData (len bytes in all): NULL (and a test failure)
 * when the block layout or zlib data is broken */
static double *appended_array(const char *vtk, size_t len, const char *vtk_type, size_t off, int *n) {
  const char *app = strstr(vtk, "<AppendedData encoding=\"raw\">");
  const char *u = app ? strchr(app, '_') : NULL;
  if (!u || !strstr(vtk, "header_type=\"UInt64\"") || !strstr(vtk, "compressor=\"vtkZLibDataCompressor\""))
    return BAD("appended data without raw encoding, UInt64 headers or zlib");
  const unsigned char *base = (const unsigned char *)u + 1, *end = (const unsigned char *)vtk + len;
  if (base + off + 24 > end) return BAD("array offset %zu beyond the file", off);
  const unsigned char *h = base + off;
  uint64_t nblock = get_u64(h), bs = get_u64(h + 8), last = get_u64(h + 16);
  if (bs == 0 || last >= bs || h + 24 + 8 * nblock > end)
    return BAD("bad block header: %llu blocks of %llu, last %llu", (unsigned long long)nblock, (unsigned long long)bs,
               (unsigned long long)last);
  size_t total = nblock ? (size_t)((nblock - 1) * bs + (last ? last : bs)) : 0;
  unsigned char *raw = malloc(total + 1);
  const unsigned char *c = h + 24 + 8 * nblock;
  size_t at = 0;
  for (uint64_t b = 0; b < nblock; b++) {
    uLongf want = b + 1 < nblock || !last ? (uLongf)bs : (uLongf)last, got = want;
    uint64_t csize = get_u64(h + 24 + 8 * b);
    int z = c + csize <= end ? uncompress(raw + at, &got, c, (uLong)csize) : Z_DATA_ERROR;
    if (z != Z_OK || got != want) {
      free(raw);
      jl_test_fail(__FILE__, __LINE__, "block %llu: zlib %d, %lu of %lu bytes", (unsigned long long)b, z,
                   (unsigned long)got, (unsigned long)want);
      return NULL;
    }
    c += csize;
    at += want;
  }
  int width = strcmp(vtk_type, "Float64") == 0 ? 8 : strcmp(vtk_type, "Int32") == 0 ? 4 : 1;
  *n = (int)(total / (size_t)width);
  double *v = malloc(sizeof(double) * (size_t)*n + 1);
  for (int i = 0; i < *n; i++) {
    const unsigned char *q = raw + (size_t)i * (size_t)width;
    uint64_t bits = 0;
    for (int k = width - 1; k >= 0; k--) bits = bits << 8 | q[k];
    if (width == 8)
      memcpy(&v[i], &bits, 8);
    else if (width == 4)
      v[i] = (int32_t)(uint32_t)bits;
    else
      v[i] = (double)bits;
  }
  free(raw);
  return v;
}

/* the numbers of the DataArray named `name` (the first after the text
 * `after` when that is not NULL) in a VTK file of len bytes, ASCII or
 * appended (malloc'd, NULL if absent); *n their count */
static double *vtk_array(const char *vtk, size_t len, const char *after, const char *name, int *n) {
  char key[128];
  snprintf(key, sizeof key, "Name=\"%s\"", name);
  const char *p = after ? strstr(vtk, after) : vtk;
  p = p ? strstr(p, key) : NULL;
  *n = 0;
  if (!p || !(p = strchr(p, '>'))) return NULL;
  /* format="appended" offset="N" in this tag */
  const char *tag = p;
  while (tag > vtk && *tag != '<') tag--;
  const char *fmt = strstr(tag, "format=\"appended\"");
  if (fmt && fmt < p) {
    char type[16] = "";
    const char *t = strstr(tag, "type=\""), *o = strstr(tag, "offset=\"");
    if (!t || !o || t > p || o > p || sscanf(t, "type=\"%15[^\"]", type) != 1) return NULL;
    return appended_array(vtk, len, type, (size_t)strtoull(o + 8, NULL, 10), n);
  }
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

/* a .vtu array by name, either encoding */
static double *vtu_array(const char *vtu, size_t len, const char *name, int *n) {
  return vtk_array(vtu, len, NULL, name, n);
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
  size_t len = 0;
  char *vtu = jl_test_read_file(path, &len);
  ENSURE_MSG(vtu, "missing %s", path);
  int npts = -1, ncell = -1;
  const char *piece = strstr(vtu, "NumberOfPoints=");
  ENSURE(piece && sscanf(piece, "NumberOfPoints=\"%d\" NumberOfCells=\"%d\"", &npts, &ncell) == 2);
  ENSURE_MSG(ncell == ntet + ntri + nline, "%s: %d cells, expected %d tets + %d triangles + %d segments", path, ncell,
             ntet, ntri, nline);
  int nconn, noff, ntype;
  double *conn = vtu_array(vtu, len, "connectivity", &nconn);
  double *off = vtu_array(vtu, len, "offsets", &noff);
  double *type = vtu_array(vtu, len, "types", &ntype);
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
    double *v = vtu_array(vtu, len, arrays[a].name, &n);
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
  if (ok)
    ok = me->mPrimitiveTypes == aiPrimitiveType_LINE && (int)me->mNumFaces == nseg && (int)me->mNumVertices == nseg + 1;
  for (unsigned f = 0; ok && f < me->mNumFaces; f++) {
    ok = me->mFaces[f].mNumIndices == 2;
    if (ok && f > 0) ok = me->mFaces[f].mIndices[0] == me->mFaces[f - 1].mIndices[1];
  }
  if (!ok)
    jl_test_fail(__FILE__, __LINE__,
                 "%s: %u meshes, first with primitive types %u, %u faces, %u vertices; "
                 "expected %d lines in a chain of %d vertices",
                 path, s->mNumMeshes, s->mNumMeshes ? s->mMeshes[0]->mPrimitiveTypes : 0,
                 s->mNumMeshes ? s->mMeshes[0]->mNumFaces : 0, s->mNumMeshes ? s->mMeshes[0]->mNumVertices : 0, nseg,
                 nseg + 1);
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
  int ok = me && me->mPrimitiveTypes == aiPrimitiveType_TRIANGLE && me->mNormals && (int)me->mNumFaces == 2 * ntri &&
           (int)me->mNumVertices == 2 * nvert;
  if (!ok) {
    jl_test_fail(__FILE__, __LINE__,
                 "%s: %u meshes, first with primitive types %u, %u faces, %u vertices%s; "
                 "expected %d triangles (both sides) on %d vertices with normals",
                 path, s->mNumMeshes, me ? me->mPrimitiveTypes : 0, me ? me->mNumFaces : 0, me ? me->mNumVertices : 0,
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
    jl_test_fail(__FILE__, __LINE__,
                 "%s: face %d's vertex normals point away from its winding; face %d and its "
                 "back face %d are not opposite (-1: none)",
                 path, bad_normal, bad_pair, bad_pair + ntri);
  aiReleaseImport(s);
}

/* runs `jelly run SCENE --frames 2 --obj` into dir/run (dir/ascii with
 * --vtk-ascii when ascii) */
static int run_scene_as(const char *scene, const char *dir, int ascii) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'" JELLY "' run '%s' --frames 2 --obj --no-preview --out '%s/%s'%s", scene, dir,
           ascii ? "ascii" : "run", ascii ? " --vtk-ascii" : "");
  int rc = jl_test_run(cmd, g_out, sizeof g_out);
  if (rc != 0) jl_test_fail(__FILE__, __LINE__, "exit %d: %s", rc, g_out);
  return rc == 0;
}

static int run_scene(const char *scene, const char *dir) { return run_scene_as(scene, dir, 0); }

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

/* the array `name` (after `after`) of dir/sub/file; NULL after a test
 * failure when the file or the array is missing */
static double *file_array(const char *dir, const char *sub, const char *file, const char *after, const char *name,
                          int *n) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
  size_t len = 0;
  char *text = jl_test_read_file(path, &len);
  double *v = text ? vtk_array(text, len, after, name, n) : NULL;
  free(text);
  if (!v && !jl_test_failed()) jl_test_fail(__FILE__, __LINE__, "%s: no array %s", path, name);
  return v;
}

/* the mixed scene's frame 2 bodies as PolyData: the block's embedded
 * surface and the sheet's 24 triangles as Polys with unit point Normals,
 * the strand's 7 segments as one polyline over its 8 nodes; the .vtm names
 * the grid and the three surfaces */
static void test_mixed_vtp(void) {
  const char *dir = jl_test_tmpdir("output_mixed_vtp");
  ENSURE(run_mixed(dir));
  const char *line = strstr(g_out, "body       block");
  int nodes, tets, springs, nvert = 0;
  ENSURE(line &&
         sscanf(line, "body block %d nodes %d tets %d springs %d surface", &nodes, &tets, &springs, &nvert) == 4);
  static const struct {
    const char *body;
    int polys, lines;
  } want[3] = {{"block", -1, 0}, {"sheet", 24, 0}, {"strand", 0, 1}};
  for (int k = 0; k < 3; k++) {
    char file[128], path[2048];
    snprintf(file, sizeof file, "frame_0002_%s.vtp", want[k].body);
    snprintf(path, sizeof path, "%s/run/%s", dir, file);
    char *text = jl_test_read_file(path, NULL);
    int npts = -1, nlines = -1, npolys = -1;
    const char *piece = text ? strstr(text, "NumberOfPoints=") : NULL;
    int parsed = piece && sscanf(piece,
                                 "NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"%d\" "
                                 "NumberOfStrips=\"0\" NumberOfPolys=\"%d\"",
                                 &npts, &nlines, &npolys) == 3;
    free(text);
    ENSURE_MSG(parsed, "%s: no PolyData piece", path);
    int expect_pts = k == 0 ? nvert : k == 1 ? 20 : 8;
    ENSURE_MSG(
        npts == expect_pts && nlines == want[k].lines && (want[k].polys < 0 ? npolys > 0 : npolys == want[k].polys),
        "%s: %d points, %d lines, %d polys", path, npts, nlines, npolys);
    int n;
    double *pos = file_array(dir, "run", file, NULL, "position", &n);
    ENSURE(pos);
    free(pos);
    ENSURE_MSG(n == 3 * npts, "%s: %d coordinates for %d points", path, n, npts);
    if (npolys > 0) {
      double *conn = file_array(dir, "run", file, "<Polys>", "connectivity", &n), *nrm;
      ENSURE(conn);
      int bad = n != 3 * npolys;
      for (int i = 0; i < n && !bad; i++) bad = conn[i] < 0 || conn[i] >= npts;
      free(conn);
      ENSURE_MSG(!bad, "%s: Polys connectivity of %d ids is not %d triangles on %d points", path, n, npolys, npts);
      nrm = file_array(dir, "run", file, NULL, "Normals", &n);
      ENSURE(nrm);
      for (int i = 0; i < npts && !bad && n == 3 * npts; i++)
        bad = !(fabs(sqrt(nrm[3 * i] * nrm[3 * i] + nrm[3 * i + 1] * nrm[3 * i + 1] + nrm[3 * i + 2] * nrm[3 * i + 2]) -
                     1.0) < 1e-9);
      free(nrm);
      ENSURE_MSG(n == 3 * npts && !bad, "%s: Normals are not one unit vector per point", path);
    } else {
      double *conn = file_array(dir, "run", file, "<Lines>", "connectivity", &n);
      ENSURE(conn);
      int chain = n == 8;
      for (int i = 0; i < n && chain; i++) chain = conn[i] == i;
      free(conn);
      ENSURE_MSG(chain, "%s: the polyline is not the rope's 8 nodes in order", path);
    }
  }
  char path[2048];
  snprintf(path, sizeof path, "%s/run/frame_0002.vtm", dir);
  char *vtm = jl_test_read_file(path, NULL);
  int ok = vtm && strstr(vtm, "file=\"frame_0002.vtu\"") && strstr(vtm, "file=\"frame_0002_block.vtp\"") &&
           strstr(vtm, "file=\"frame_0002_sheet.vtp\"") && strstr(vtm, "file=\"frame_0002_strand.vtp\"");
  free(vtm);
  ENSURE_MSG(ok, "%s does not name the grid and the three surfaces", path);
}

/* the binary files (appended, zlib) and the --vtk-ascii ones carry the
 * same numbers, bit for bit: every array of the frame's grid and surfaces */
static void test_binary_matches_ascii(void) {
  const char *dir = jl_test_tmpdir("output_binary_ascii");
  char path[2048];
  snprintf(path, sizeof path, "%s/mixed.json", dir);
  ENSURE(jl_test_write_file(path, g_mixed));
  ENSURE(run_scene_as(path, dir, 0) && run_scene_as(path, dir, 1));
  static const struct {
    const char *file, *after, *name;
  } arr[] = {{"frame_0002.vtu", NULL, "velocity"},
             {"frame_0002.vtu", NULL, "strain"},
             {"frame_0002.vtu", NULL, "volume_strain"},
             {"frame_0002.vtu", NULL, "body"},
             {"frame_0002.vtu", NULL, "position"},
             {"frame_0002.vtu", NULL, "connectivity"},
             {"frame_0002.vtu", NULL, "offsets"},
             {"frame_0002.vtu", NULL, "types"},
             {"frame_0002_block.vtp", NULL, "position"},
             {"frame_0002_block.vtp", NULL, "Normals"},
             {"frame_0002_block.vtp", "<Polys>", "connectivity"},
             {"frame_0002_block.vtp", "<Polys>", "offsets"},
             {"frame_0002_sheet.vtp", NULL, "Normals"},
             {"frame_0002_strand.vtp", "<Lines>", "connectivity"},
             {"frame_0002_strand.vtp", "<Lines>", "offsets"}};
  for (int k = 0; k < (int)(sizeof arr / sizeof arr[0]); k++) {
    int nb = 0, na = 0;
    double *b = file_array(dir, "run", arr[k].file, arr[k].after, arr[k].name, &nb);
    double *a = file_array(dir, "ascii", arr[k].file, arr[k].after, arr[k].name, &na);
    int same = a && b && na == nb && nb > 0 && memcmp(a, b, sizeof(double) * (size_t)nb) == 0;
    free(a);
    free(b);
    if (jl_test_failed()) return;
    ENSURE_MSG(same, "%s %s: binary has %d values, ASCII %d, or they differ", arr[k].file, arr[k].name, nb, na);
  }
  /* the binary frame is smaller */
  size_t lb = 0, la = 0;
  snprintf(path, sizeof path, "%s/run/frame_0002.vtu", dir);
  char *b = jl_test_read_file(path, &lb);
  snprintf(path, sizeof path, "%s/ascii/frame_0002.vtu", dir);
  char *a = jl_test_read_file(path, &la);
  int ascii = a && strstr(a, "format=\"ascii\"") && !strstr(a, "AppendedData");
  free(a);
  free(b);
  ENSURE_MSG(ascii && lb < la, "--vtk-ascii frame is not ASCII, or binary (%zu bytes) not smaller than ASCII (%zu)", lb,
             la);
}

/* 1 when the two files hold the same bytes */
static int files_equal(const char *p, const char *q) {
  size_t lp = 0, lq = 0;
  char *a = jl_test_read_file(p, &lp), *b = jl_test_read_file(q, &lq);
  int same = a && b && lp == lq && memcmp(a, b, lp) == 0;
  free(a);
  free(b);
  return same;
}

/* A file sequence with a cache (the grid's, a surface's) writes the same
 * bytes as without one: arrays that come again unchanged are copied
 * compressed, a changed one (here the connectivity of the third file) is
 * compressed again, and a stale entry never leaks into a file. */
static void test_cache_same_bytes(void) {
  const char *dir = jl_test_tmpdir("output_cache");
  double x[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  int tet[2][8] = {{0, 1, 2, 3, 1, 2, 3, 4}, {0, 1, 2, 3, 4, 3, 2, 1}};
  int off[3] = {0, 4, 8};
  unsigned char type[2] = {JL_VTK_TETRA, JL_VTK_TETRA};
  int tri[6] = {0, 1, 2, 1, 2, 4};
  JlVtkCache *grid = jl_vtk_cache_new(), *surf = jl_vtk_cache_new();
  char err[512], a[2048], b[2048];
  for (int f = 0; f < 4; f++) {
    x[4][1] = 1.0 + 0.25 * f; /* a moving node */
    const int *conn = tet[f == 2];
    JlVtuCells cells = {2, off, conn, type};
    double strain[5] = {0.1 * f, 0, 0, 0, 0}, body[2] = {0, 0};
    JlVtuField field[2] = {{"strain", 1, 0, strain}, {"body", 1, 1, body}};
    for (int k = 0; k < 2; k++) {
      JlVtkCache *c = k ? grid : NULL;
      snprintf(k ? b : a, sizeof a, "%s/%s_%d.vtu", dir, k ? "cached" : "plain", f);
      ENSURE_MSG(
          jl_vtu_write_cells(k ? b : a, JL_VTK_BINARY, 5, &x[0][0], &cells, 2, field, c, err, sizeof err) == JL_OK,
          "%s", err);
    }
    ENSURE_MSG(files_equal(a, b), "frame %d: %s and %s differ", f, a, b);
    for (int k = 0; k < 2; k++) {
      JlVtkCache *c = k ? surf : NULL;
      snprintf(k ? b : a, sizeof a, "%s/%s_%d.vtp", dir, k ? "cached" : "plain", f);
      ENSURE_MSG(jl_vtp_write(k ? b : a, JL_VTK_BINARY, 5, &x[0][0], NULL, f == 3 ? 1 : 2, tri, 0, NULL, c, err,
                              sizeof err) == JL_OK,
                 "%s", err);
    }
    ENSURE_MSG(files_equal(a, b), "frame %d: %s and %s differ", f, a, b);
  }
  jl_vtk_cache_free(grid);
  jl_vtk_cache_free(surf);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"cloth_vtu", test_cloth_vtu}, {"cloth_obj", test_cloth_obj}, {"rope_vtu", test_rope_vtu},
             {"rope_obj", test_rope_obj}, {"mixed_vtu", test_mixed_vtu}, {"mixed_obj", test_mixed_obj},
             {"mixed_vtp", test_mixed_vtp}, {"binary_matches_ascii", test_binary_matches_ascii},
             {"cache_same_bytes", test_cache_same_bytes})
