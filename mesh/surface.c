/* Surface import through assimp, plus the basic geometry of a JlSurface
 * (copy, free, signed volume, bounding box).
 *
 * Method. jl_surface_load guards the file before assimp sees it: it exists,
 * is a regular readable non-empty file within the size limit (--mesh-max-file,
 * mesh/child.h), and passes the streaming screen of its format (mesh/screen.h:
 * format sniffed as assimp picks its importer; header counts of OFF, PLY,
 * binary STL and .x within JL_MAX_MESH_ELEMENTS and the file; glTF 2.0 and
 * Collada node graphs without cycles and within the instance caps): assimp
 * 5.2 allocates whatever a file promises ("OFF 999999999 ..." costs it 24 GB,
 * a 1 KB glTF node DAG 8 GB), silently clamps out-of-range OFF face indices
 * and loops forever on a PLY header without end_header.
 *
 * assimp then runs in a guarded child process (mesh/child.h: address-space
 * and CPU limits, a wall-clock deadline, dies with its parent), because
 * hostile files crash it (heap over-reads, ai_assert aborts, unbounded
 * recursion on self-instancing Collada nodes) or make it allocate gigabytes.
 * Every file it opens goes through our aiFileIO: regular files within the
 * size limit only (a FIFO named by an OBJ mtllib or a glTF buffer uri would
 * block), never material libraries (Jelly needs no materials). The child
 * calls aiImportFileExWithProperties with
 *   aiProcess_Triangulate           polygons -> triangles (ear clipping),
 *   aiProcess_ValidateDataStructure rejects out-of-range indices etc.,
 * and deliberately nothing else: aiProcess_FindDegenerates would turn
 * zero-area triangles into lines and aiProcess_FindInvalidData deletes meshes
 * with NaN positions, both of which would hide findings that
 * jl_surface_validate must report; aiProcess_JoinIdenticalVertices is not
 * needed because we weld ourselves. The scene graph is walked iteratively,
 * each node's mesh instances are transformed by the accumulated node matrix
 * (in double) and appended; a mirroring transform (negative determinant)
 * reverses the winding so outward stays outward. Points and lines are
 * skipped. Finally vertices with bitwise-equal positions are welded (assimp
 * splits them at normal/UV seams, so without this every OBJ with normals
 * looks open) by sorting the triangle corners by position. The child sends
 * the welded vertices and triangles (or an error message) through a pipe;
 * the parent checks the counts against the caps before allocating and every
 * index before accepting them.
 *
 * Assimp stores positions as float (ai_real), so coordinates arrive rounded
 * to single precision. Assimp logs nothing unless a logger is attached; we
 * attach none. */
#define _POSIX_C_SOURCE 200809L
#include "mesh/surface.h"

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/child.h"
#include "mesh/screen.h"

void jl_surface_free(JlSurface *s) {
  if (!s) return;
  free(s->vert);
  free(s->tri);
  memset(s, 0, sizeof *s);
}

void jl_surface_copy(JlSurface *dst, const JlSurface *src) {
  JL_ASSERT(dst && src, "jl_surface_copy needs two non-NULL surfaces");
  int nv = src->nvert > 0 ? src->nvert : 0, nt = src->ntri > 0 ? src->ntri : 0;
  dst->nvert = nv;
  dst->ntri = nt;
  dst->vert = jl_calloc((size_t)nv * 3, sizeof(double));
  dst->tri = jl_calloc((size_t)nt * 3, sizeof(int));
  if (nv) memcpy(dst->vert, src->vert, (size_t)nv * 3 * sizeof(double));
  if (nt) memcpy(dst->tri, src->tri, (size_t)nt * 3 * sizeof(int));
}

double jl_surface_volume(const JlSurface *s) {
  JL_ASSERT(s, "jl_surface_volume needs a surface");
  if (s->nvert <= 0 || s->ntri <= 0) return 0.0;
  /* divergence theorem, sum of signed tets (o, a, b, c) / 6 with o the first
   * vertex (a nearby origin keeps the cancellation small) */
  const double *o = s->vert;
  double vol = 0.0;
  for (int t = 0; t < s->ntri; t++) {
    const int *f = s->tri + 3 * t;
    if (f[0] < 0 || f[1] < 0 || f[2] < 0 || f[0] >= s->nvert || f[1] >= s->nvert || f[2] >= s->nvert) continue;
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
      a[k] = s->vert[3 * f[0] + k] - o[k];
      b[k] = s->vert[3 * f[1] + k] - o[k];
      c[k] = s->vert[3 * f[2] + k] - o[k];
    }
    vol += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return vol / 6.0;
}

void jl_surface_bbox(const JlSurface *s, double lo[3], double hi[3]) {
  JL_ASSERT(s && lo && hi, "jl_surface_bbox needs a surface and two 3-vectors");
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = 0.0;
  for (int i = 0; i < s->nvert; i++)
    for (int k = 0; k < 3; k++) {
      double x = s->vert[3 * i + k];
      if (i == 0 || x < lo[k]) lo[k] = x;
      if (i == 0 || x > hi[k]) hi[k] = x;
    }
}

/* ---- guards before assimp ------------------------------------------------ */

/* Exists, regular, readable, not empty, within the size limit; then the
 * screen of its format, streaming (mesh/screen.h). */
static JlResult check_file(const char *path, char *err, size_t errsz) {
  struct stat st;
  if (stat(path, &st) != 0) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode)) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: is a directory", path);
  if (!S_ISREG(st.st_mode)) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: is not a regular file", path);
  if (st.st_size == 0) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: file is empty (0 bytes)", path);
  JlMeshLimits lim = jl_mesh_limits();
  if ((double)st.st_size > lim.file_mb * 1048576.0)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: file is %.0f MB, over the %g MB of the mesh limit max_file_mb", path,
                   (double)st.st_size / 1048576.0, lim.file_mb);
  return jl_mesh_screen(path, (unsigned long long)st.st_size, err, errsz);
}

/* ---- assimp's file access: regular files only, no materials ------------- */

/* Every file assimp opens (the mesh and whatever it references: glTF
 * buffers, OBJ material libraries ...) goes through these callbacks
 * (aiFileIO). A file is opened only if it is a regular file within the size
 * limit (a FIFO or a device would block or never end), read-only, and not a
 * material library (.mtl): Jelly needs no materials, and the OBJ reader
 * goes on without one. */
static size_t io_read(struct aiFile *f, char *buf, size_t size, size_t count) {
  return fread(buf, size, count, (FILE *)f->UserData);
}
static size_t io_write(struct aiFile *f, const char *buf, size_t size, size_t count) {
  (void)f, (void)buf, (void)size, (void)count;
  return 0;
}
static size_t io_tell(struct aiFile *f) {
  long p = ftell((FILE *)f->UserData);
  return p < 0 ? 0 : (size_t)p;
}
static size_t io_size(struct aiFile *f) {
  struct stat st;
  return fstat(fileno((FILE *)f->UserData), &st) == 0 ? (size_t)st.st_size : 0;
}
static enum aiReturn io_seek(struct aiFile *f, size_t off, enum aiOrigin origin) {
  int whence = origin == aiOrigin_CUR ? SEEK_CUR : origin == aiOrigin_END ? SEEK_END : SEEK_SET;
  if (off > (size_t)LONG_MAX) return aiReturn_FAILURE;
  return fseek((FILE *)f->UserData, (long)off, whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
}
static void io_flush(struct aiFile *f) { (void)f; }

static struct aiFile *io_open(struct aiFileIO *io, const char *path, const char *mode) {
  (void)io;
  if (!path || !mode || strpbrk(mode, "wa+")) return NULL;
  if (jl_ends_with_ci(path, ".mtl")) return NULL;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (double)st.st_size > jl_mesh_limits().file_mb * 1048576.0) {
    close(fd);
    return NULL;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FILE *fp = fdopen(fd, "rb");
  if (!fp) {
    close(fd);
    return NULL;
  }
  struct aiFile *f = calloc(1, sizeof *f);
  if (!f) {
    fclose(fp);
    return NULL;
  }
  f->ReadProc = io_read;
  f->WriteProc = io_write;
  f->TellProc = io_tell;
  f->FileSizeProc = io_size;
  f->SeekProc = io_seek;
  f->FlushProc = io_flush;
  f->UserData = (aiUserData)fp;
  return f;
}

static void io_close(struct aiFileIO *io, struct aiFile *f) {
  (void)io;
  if (!f) return;
  fclose((FILE *)f->UserData);
  free(f);
}

/* ---- scene graph -> one triangle soup ------------------------------------ */

typedef struct Soup {
  size_t ncorner, cap; /* corners = 3 x triangles */
  double *pos;         /* cap x 3: one position per triangle corner */
} Soup;

/* Appends the triangles of mesh m transformed by the 3x4 matrix T (row
 * major, double). Returns 0 and sets err on an index beyond the mesh. */
static int append_mesh(Soup *soup, const struct aiMesh *m, const double T[12], const char *path, char *err,
                       size_t errsz) {
  double det =
      T[0] * (T[5] * T[10] - T[6] * T[9]) - T[1] * (T[4] * T[10] - T[6] * T[8]) + T[2] * (T[4] * T[9] - T[5] * T[8]);
  for (unsigned f = 0; f < m->mNumFaces; f++) {
    const struct aiFace *face = &m->mFaces[f];
    if (face->mNumIndices != 3 || !face->mIndices) continue; /* points, lines */
    if (soup->ncorner + 3 > (size_t)INT_MAX) {
      jl_fail(err, errsz, JL_ERR_INPUT, "%s: more than %d triangle corners, too large", path, INT_MAX);
      return 0;
    }
    if (soup->ncorner + 3 > soup->cap) {
      soup->cap = soup->cap ? 2 * soup->cap : 3 * 1024;
      soup->pos = jl_realloc(soup->pos, soup->cap * 3, sizeof(double));
    }
    for (int k = 0; k < 3; k++) {
      /* a mirroring transform reverses the winding */
      unsigned idx = face->mIndices[det < 0 ? 2 - k : k];
      if (idx >= m->mNumVertices) {
        jl_fail(err, errsz, JL_ERR_INPUT, "%s: mesh '%s' face %u has vertex index %u of %u", path, m->mName.data, f,
                idx, m->mNumVertices);
        return 0;
      }
      double x = m->mVertices[idx].x, y = m->mVertices[idx].y, z = m->mVertices[idx].z;
      double *out = soup->pos + 3 * soup->ncorner;
      /* zero coefficients are skipped so an Inf coordinate stays in its own
       * axis instead of becoming NaN through 0 * Inf */
      double in[3] = {x, y, z};
      for (int r = 0; r < 3; r++) {
        out[r] = T[4 * r + 3];
        for (int c = 0; c < 3; c++)
          if (T[4 * r + c] != 0.0) out[r] += T[4 * r + c] * in[c];
      }
      soup->ncorner++;
    }
  }
  return 1;
}

/* Walks the node tree iteratively (hostile files may nest deeply), composing
 * world = parent * local, and appends every mesh instance. */
static int gather_scene(Soup *soup, const struct aiScene *sc, const char *path, char *err, size_t errsz) {
  static const double identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  if (!sc->mRootNode) {
    for (unsigned i = 0; i < sc->mNumMeshes; i++)
      if (!append_mesh(soup, sc->mMeshes[i], identity, path, err, errsz)) return 0;
    return 1;
  }
  typedef struct Item {
    const struct aiNode *node;
    double T[12];
  } Item;
  size_t cap = 64, n = 0, visits = 0;
  Item *stack = jl_calloc(cap, sizeof(Item));
  stack[n].node = sc->mRootNode;
  memcpy(stack[n].T, identity, sizeof identity);
  n++;
  int ok = 1;
  while (n > 0 && ok) {
    Item it = stack[--n];
    if (++visits > 10000000) {
      ok = 0;
      jl_fail(err, errsz, JL_ERR_INPUT, "%s: scene graph has too many nodes (cyclic?)", path);
      break;
    }
    /* world transform of this node */
    const struct aiMatrix4x4 *L = &it.node->mTransformation;
    double l[12] = {L->a1, L->a2, L->a3, L->a4, L->b1, L->b2, L->b3, L->b4, L->c1, L->c2, L->c3, L->c4};
    double W[12];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 4; c++)
        W[4 * r + c] = it.T[4 * r] * l[c] + it.T[4 * r + 1] * l[4 + c] + it.T[4 * r + 2] * l[8 + c] +
                       (c == 3 ? it.T[4 * r + 3] : 0.0);
    for (unsigned i = 0; i < it.node->mNumMeshes && ok; i++) {
      unsigned mi = it.node->mMeshes[i];
      if (mi >= sc->mNumMeshes) {
        jl_fail(err, errsz, JL_ERR_INPUT, "%s: node refers to mesh %u of %u", path, mi, sc->mNumMeshes);
        ok = 0;
        break;
      }
      ok = append_mesh(soup, sc->mMeshes[mi], W, path, err, errsz);
    }
    /* children */
    for (unsigned c = 0; c < it.node->mNumChildren && ok; c++) {
      if (!it.node->mChildren[c]) continue;
      if (n == cap) {
        cap *= 2;
        stack = jl_realloc(stack, cap, sizeof(Item));
      }
      stack[n].node = it.node->mChildren[c];
      memcpy(stack[n].T, W, sizeof W);
      n++;
    }
  }
  free(stack);
  return ok;
}

/* ---- exact weld ------------------------------------------------------------ */

/* Total order on corners a and b of positions pos: by x, y, z (NaN after
 * everything), then by index, so equal positions form runs headed by their
 * lowest corner. A total order: any correct sort gives the same result. */
static int cmp_corner(const double *pos, int a, int b) {
  const double *x = pos + 3 * (size_t)a, *y = pos + 3 * (size_t)b;
  for (int k = 0; k < 3; k++) {
    int nx = isnan(x[k]), ny = isnan(y[k]);
    if (nx != ny) return nx - ny;
    if (!nx && x[k] < y[k]) return -1;
    if (!nx && x[k] > y[k]) return 1;
  }
  return (a > b) - (a < b);
}

/* Sorts the corner ids order[0 .. n) by cmp_corner: a bottom-up merge sort
 * with tmp (n ints) as scratch. Not qsort, because qsort's comparator has no
 * context argument in C11 and a file-level positions pointer would be a data
 * race between threads loading meshes; glibc's qsort takes the same n ints of
 * scratch for its own merge sort. */
static void sort_corners(const double *pos, int *order, int *tmp, int n) {
  int *src = order, *dst = tmp;
  size_t nn = (size_t)n;
  for (size_t w = 1; w < nn; w *= 2) {
    for (size_t lo = 0; lo < nn; lo += 2 * w) {
      size_t mid = lo + w < nn ? lo + w : nn, hi = lo + 2 * w < nn ? lo + 2 * w : nn;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = cmp_corner(pos, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int *t = src;
    src = dst, dst = t;
  }
  if (src != order) memcpy(order, src, nn * sizeof(int));
}

/* Equal positions; non-finite ones only when bitwise identical (so the one
 * NaN vertex of a file stays one vertex). */
static int same_pos(const double *x, const double *y) {
  if (isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])) return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
  return memcmp(x, y, 3 * sizeof(double)) == 0;
}

/* Welds corners with identical positions; vertices are numbered in
 * order of their first corner. */
static void weld_exact(const Soup *soup, JlSurface *out) {
  int nc = (int)soup->ncorner;
  int *order = jl_calloc((size_t)nc, sizeof(int));
  int *rep = jl_calloc((size_t)nc, sizeof(int));
  int *id = jl_calloc((size_t)nc, sizeof(int));
  for (int i = 0; i < nc; i++) order[i] = i;
  int *tmp = jl_calloc((size_t)nc, sizeof(int));
  sort_corners(soup->pos, order, tmp, nc);
  free(tmp);
  for (int i = 0; i < nc; i++) {
    int c = order[i];
    int head =
        (i > 0 && same_pos(soup->pos + 3 * (size_t)order[i - 1], soup->pos + 3 * (size_t)c)) ? rep[order[i - 1]] : c;
    rep[c] = head;
  }
  int nv = 0;
  for (int c = 0; c < nc; c++) id[c] = (rep[c] == c) ? nv++ : -1;
  out->nvert = nv;
  out->ntri = nc / 3;
  out->vert = jl_calloc((size_t)nv * 3, sizeof(double));
  out->tri = jl_calloc((size_t)nc, sizeof(int));
  for (int c = 0; c < nc; c++) {
    int v = id[rep[c]];
    out->tri[c] = v;
    if (rep[c] == c) memcpy(out->vert + 3 * (size_t)v, soup->pos + 3 * (size_t)c, 3 * sizeof(double));
  }
  JL_FREE_ALL(order, rep, id);
}

/* ---- the importer child ------------------------------------------------------ */

/* the child's answer: a header, then for an error a length-prefixed message,
 * for success nvert x 3 doubles and ntri x 3 int32 */
typedef struct SoupHeader {
  int32_t magic; /* SOUP_MAGIC */
  int32_t code;  /* 0 success, 1 error message follows */
  int32_t nvert, ntri;
} SoupHeader;
#define SOUP_MAGIC       0x4A4C5346 /* "JLSF" */
#define SOUP_MAX_MESSAGE 1024

/* child body: import, gather, weld, send */
static void import_child(int fd, void *ctx) {
  const char *path = ctx;
  char msg[SOUP_MAX_MESSAGE] = "";
  SoupHeader h = {SOUP_MAGIC, 1, 0, 0};
  JlSurface out = {0, 0, NULL, NULL};

  /* triangulate and validate only (top of this file); no materials */
  struct aiFileIO io = {io_open, io_close, NULL};
  struct aiPropertyStore *props = aiCreatePropertyStore();
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_MATERIALS, 0);
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_TEXTURES, 0);
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_CAMERAS, 0);
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_LIGHTS, 0);
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_READ_ANIMATIONS, 0);
  const struct aiScene *sc =
      aiImportFileExWithProperties(path, aiProcess_Triangulate | aiProcess_ValidateDataStructure, &io, props);
  aiReleasePropertyStore(props);
  if (!sc) {
    const char *why = aiGetErrorString();
    snprintf(msg, sizeof msg, "%s: assimp cannot read it: %s", path, why && *why ? why : "unknown error");
  } else if (sc->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
    snprintf(msg, sizeof msg, "%s: assimp read an incomplete scene (no usable meshes)", path);
  } else {
    /* merge all mesh instances into one soup, then weld */
    Soup soup = {0, 0, NULL};
    if (gather_scene(&soup, sc, path, msg, sizeof msg)) {
      if (soup.ncorner == 0)
        snprintf(msg, sizeof msg, "%s: contains no triangles", path);
      else
        weld_exact(&soup, &out), h.code = 0;
    }
    free(soup.pos);
  }
  if (sc) aiReleaseImport(sc);

  if (h.code != 0) {
    uint32_t len = (uint32_t)strlen(msg);
    if (jl_child_write(fd, &h, sizeof h) && jl_child_write(fd, &len, sizeof len)) jl_child_write(fd, msg, len);
    return;
  }
  h.nvert = out.nvert;
  h.ntri = out.ntri;
  if (jl_child_write(fd, &h, sizeof h) && jl_child_write(fd, out.vert, sizeof(double) * 3 * (size_t)out.nvert)) {
    for (size_t i = 0; i < 3 * (size_t)out.ntri; i++) {
      int32_t v = out.tri[i];
      if (!jl_child_write(fd, &v, sizeof v)) break;
    }
  }
  jl_surface_free(&out);
}

/* parent side: reads and checks the child's answer into out (counts within
 * the caps before anything is allocated, indices in range); 1 on success,
 * 0 with msg set (possibly empty: no usable answer) otherwise */
static int read_soup(JlChild *c, JlSurface *out, int *answered, char *msg, size_t msgsz) {
  SoupHeader h;
  msg[0] = '\0';
  *answered = 0;
  if (!jl_child_read(c, &h, sizeof h) || h.magic != SOUP_MAGIC) return 0;
  if (h.code != 0) {
    uint32_t len = 0;
    char text[SOUP_MAX_MESSAGE + 1];
    if (!jl_child_read(c, &len, sizeof len) || len > SOUP_MAX_MESSAGE || !jl_child_read(c, text, len)) return 0;
    text[len] = '\0';
    snprintf(msg, msgsz, "%s", text);
    *answered = 1;
    return 0;
  }
  double bytes = 24.0 * h.nvert + 12.0 * h.ntri;
  if (h.nvert <= 0 || h.ntri <= 0 || h.nvert > JL_MAX_MESH_ELEMENTS || h.ntri > JL_MAX_MESH_ELEMENTS ||
      bytes > c->limits.memory_mb * 1048576.0)
    return 0;
  out->vert = jl_calloc((size_t)h.nvert * 3, sizeof(double));
  out->tri = jl_calloc((size_t)h.ntri * 3, sizeof(int));
  int ok = jl_child_read(c, out->vert, sizeof(double) * 3 * (size_t)h.nvert) &&
           jl_child_read(c, out->tri, sizeof(int32_t) * 3 * (size_t)h.ntri);
  for (size_t i = 0; ok && i < 3 * (size_t)h.ntri; i++) ok = out->tri[i] >= 0 && out->tri[i] < h.nvert;
  if (!ok) {
    jl_surface_free(out);
    return 0;
  }
  out->nvert = h.nvert;
  out->ntri = h.ntri;
  *answered = 1;
  return 1;
}

JlResult jl_surface_load(const char *path, JlSurface *out, char *err, size_t errsz) {
  JL_ASSERT(out, "jl_surface_load needs an output surface");
  memset(out, 0, sizeof *out);
  if (!path || !*path) return jl_fail(err, errsz, JL_ERR_INPUT, "no mesh file given");
  JlResult res = check_file(path, err, errsz);
  if (res != JL_OK) return res;

  /* assimp in a guarded child (mesh/child.h) */
  JlChild c;
  if (jl_child_start(&c, "the importer", import_child, (void *)path) != 0)
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "%s: cannot start the importer: %s", path, strerror(errno));
  char msg[SOUP_MAX_MESSAGE + 1];
  int answered = 0;
  int ok = read_soup(&c, out, &answered, msg, sizeof msg);
  char why[240];
  JlChildEnd end = jl_child_finish(&c, why, sizeof why);
  if (ok && end == JL_CHILD_DONE) return JL_OK;
  jl_surface_free(out);
  if (end == JL_CHILD_TIMEOUT || end == JL_CHILD_MEMORY || end == JL_CHILD_SYSTEM)
    return jl_fail(err, errsz, end == JL_CHILD_SYSTEM ? JL_ERR_SYSTEM : JL_ERR_INPUT, "%s: the importer %s", path, why);
  if (end == JL_CHILD_CRASHED) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: %s", path, why);
  if (answered && msg[0]) return jl_fail(err, errsz, JL_ERR_INPUT, "%s", msg);
  return jl_fail(err, errsz, JL_ERR_INPUT, "%s: the importer stopped without a usable answer", path);
}
