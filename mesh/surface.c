/* Surface import through assimp, plus the basic geometry of a JlSurface
 * (copy, free, signed volume, bounding box).
 *
 * Method. jl_surface_load guards the file before assimp sees it (exists, is
 * a regular readable non-empty file, and for the two formats whose headers
 * carry element counts, OFF and PLY, the counts fit the file: assimp 5.2
 * allocates whatever a header promises, so "OFF 999999999 ..." costs it
 * 24 GB, and it silently clamps out-of-range OFF face indices). It then calls
 * aiImportFile with
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
 * looks open) by sorting the triangle corners by position.
 *
 * Assimp stores positions as float (ai_real), so coordinates arrive rounded
 * to single precision. Assimp logs nothing unless a logger is attached; we
 * attach none. */
#define _POSIX_C_SOURCE 200809L
#include "mesh/surface.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    if (f[0] < 0 || f[1] < 0 || f[2] < 0 || f[0] >= s->nvert || f[1] >= s->nvert ||
        f[2] >= s->nvert)
      continue;
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
      a[k] = s->vert[3 * f[0] + k] - o[k];
      b[k] = s->vert[3 * f[1] + k] - o[k];
      c[k] = s->vert[3 * f[2] + k] - o[k];
    }
    vol += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
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

static int ends_with_ci(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (m > n) return 0;
  for (size_t i = 0; i < m; i++)
    if (tolower((unsigned char)s[n - m + i]) != tolower((unsigned char)suffix[i])) return 0;
  return 1;
}

/* Reads the whole file (size bytes, already known) into a NUL-terminated buffer. */
static char *read_all(const char *path, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = jl_calloc(size + 1, 1);
  size_t n = fread(buf, 1, size, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

/* Next line that is neither blank nor a '#' comment; advances *p past it.
 * Returns the line start (NUL-terminated in place) or NULL at the end. */
static char *next_content_line(char **p) {
  while (**p) {
    char *line = *p;
    char *end = strchr(line, '\n');
    if (end) {
      *end = '\0';
      *p = end + 1;
    } else {
      *p = line + strlen(line);
    }
    char *q = line;
    while (*q && isspace((unsigned char)*q)) q++;
    if (*q && *q != '#') return q;
  }
  return NULL;
}

/* OFF: counts on the header must be matched by the lines of the file, and
 * every face index must name one of the vertices. This is a screen, not a
 * reader: assimp still parses the file. */
static JlResult screen_off(const char *path, size_t size, char *err, size_t errsz) {
  char *buf = read_all(path, size);
  if (!buf) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
  JlResult res = JL_OK;
  char *p = buf, *line = next_content_line(&p), *q = line;
  long long nv = -1, nf = -1;
  if (line) {
    /* optional header token (OFF, COFF, NOFF, STOFF, 4OFF ...), counts on the
     * same line or the next one */
    while (*q && !isspace((unsigned char)*q)) q++;
    char *tok_end = q;
    if (tok_end - line >= 3 && strncmp(tok_end - 3, "OFF", 3) == 0) {
      while (*q && isspace((unsigned char)*q)) q++;
      if (!*q) q = next_content_line(&p);
    } else {
      q = line;
    }
    if (q) {
      char *e1 = NULL, *e2 = NULL;
      nv = strtoll(q, &e1, 10);
      nf = (e1 != q) ? strtoll(e1, &e2, 10) : -1;
      if (e1 == q || e2 == e1) nv = nf = -1;
    }
  }
  if (nv < 0 || nf < 0) {
    res = jl_fail(err, errsz, JL_ERR_INPUT, "%s: OFF header has no vertex and face counts", path);
    goto done;
  }
  if (nv > INT_MAX || nf > INT_MAX) {
    res = jl_fail(err, errsz, JL_ERR_INPUT, "%s: OFF header promises %lld vertices and %lld faces, too many",
                  path, nv, nf);
    goto done;
  }
  for (long long i = 0; i < nv; i++)
    if (!next_content_line(&p)) {
      res = jl_fail(err, errsz, JL_ERR_INPUT,
                    "%s: OFF header promises %lld vertices, the file has only %lld", path, nv, i);
      goto done;
    }
  for (long long i = 0; i < nf; i++) {
    char *f = next_content_line(&p);
    if (!f) {
      res = jl_fail(err, errsz, JL_ERR_INPUT,
                    "%s: OFF header promises %lld faces, the file has only %lld", path, nf, i);
      goto done;
    }
    char *e = NULL;
    long n = strtol(f, &e, 10);
    for (long k = 0; k < n && e; k++) {
      char *s = e;
      long long idx = strtoll(s, &e, 10);
      if (e == s) break; /* malformed: let assimp report it */
      if (idx < 0 || idx >= nv) {
        res = jl_fail(err, errsz, JL_ERR_INPUT,
                      "%s: OFF face %lld has vertex index %lld, out of range 0..%lld", path, i, idx,
                      nv - 1);
        goto done;
      }
    }
  }
done:
  free(buf);
  return res;
}

/* PLY: the element counts of the header times the smallest size of one
 * element (2 bytes per ascii number, the binary sizes otherwise) must fit in
 * what follows the header. */
static JlResult screen_ply(const char *path, size_t size, char *err, size_t errsz) {
  char *buf = read_all(path, size);
  if (!buf) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
  JlResult res = JL_OK;
  char *p = buf, *line;
  int ascii = 1, ended = 0;
  double need = 0.0, count = 0.0, elem = 0.0;
  while ((line = next_content_line(&p)) != NULL) {
    char w1[32] = "", w2[32] = "", w3[32] = "";
    if (sscanf(line, "%31s %31s %31s", w1, w2, w3) < 1) continue;
    if (strcmp(w1, "format") == 0) {
      ascii = strcmp(w2, "ascii") == 0;
    } else if (strcmp(w1, "element") == 0) {
      need += count * elem;
      char *e = NULL;
      count = strtod(w3, &e);
      if (e == w3 || !(count >= 0.0)) count = 0.0;
      elem = 0.0;
    } else if (strcmp(w1, "property") == 0) {
      const char *type = strcmp(w2, "list") == 0 ? w3 : w2;
      int bytes = 4;
      if (strstr(type, "char")) bytes = 1;
      else if (strstr(type, "short")) bytes = 2;
      else if (strstr(type, "double") || strstr(type, "64")) bytes = 8;
      else if (strstr(type, "8")) bytes = 1;
      else if (strstr(type, "16")) bytes = 2;
      elem += ascii ? 2.0 : (double)bytes;
    } else if (strcmp(w1, "end_header") == 0) {
      ended = 1;
      break;
    }
  }
  need += count * elem;
  size_t body = ended ? size - (size_t)(p - buf) : 0;
  if (ended && need > (double)body)
    res = jl_fail(err, errsz, JL_ERR_INPUT,
                  "%s: PLY header promises at least %.0f bytes of elements, the file has %zu", path,
                  need, body);
  free(buf);
  return res;
}

/* Exists, regular, readable, not empty; then the header screens. */
static JlResult check_file(const char *path, char *err, size_t errsz) {
  struct stat st;
  if (stat(path, &st) != 0)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode)) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: is a directory", path);
  if (!S_ISREG(st.st_mode)) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: is not a regular file", path);
  if (st.st_size == 0) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: file is empty (0 bytes)", path);
  FILE *f = fopen(path, "rb");
  if (!f) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  char head[64] = {0};
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  size_t size = (size_t)st.st_size;

  /* first token of the file, for content-detected formats */
  const char *t = head;
  while (*t && isspace((unsigned char)*t)) t++;
  size_t tl = 0;
  while (t[tl] && !isspace((unsigned char)t[tl])) tl++;
  int off_token = tl >= 3 && tl <= 6 && strncmp(t + tl - 3, "OFF", 3) == 0;
  if (ends_with_ci(path, ".off") || off_token) return screen_off(path, size, err, errsz);
  if (strncmp(head, "ply", 3) == 0 && (head[3] == '\n' || head[3] == '\r'))
    return screen_ply(path, size, err, errsz);
  return JL_OK;
}

/* ---- scene graph -> one triangle soup ------------------------------------ */

typedef struct Soup {
  size_t ncorner, cap; /* corners = 3 x triangles */
  double *pos;         /* cap x 3: one position per triangle corner */
} Soup;

/* Appends the triangles of mesh m transformed by the 3x4 matrix T (row
 * major, double). Returns 0 and sets err on an index beyond the mesh. */
static int append_mesh(Soup *soup, const struct aiMesh *m, const double T[12], const char *path,
                       char *err, size_t errsz) {
  double det = T[0] * (T[5] * T[10] - T[6] * T[9]) - T[1] * (T[4] * T[10] - T[6] * T[8]) +
               T[2] * (T[4] * T[9] - T[5] * T[8]);
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
        jl_fail(err, errsz, JL_ERR_INPUT, "%s: mesh '%s' face %u has vertex index %u of %u", path,
                m->mName.data, f, idx, m->mNumVertices);
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
static int gather_scene(Soup *soup, const struct aiScene *sc, const char *path, char *err,
                        size_t errsz) {
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

static const double *g_sort_pos; /* qsort has no context argument in C11 */

/* Total order on corners: by x, y, z (NaN after everything), then by index,
 * so equal positions form runs headed by their lowest corner. */
static int cmp_corner(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  const double *x = g_sort_pos + 3 * (size_t)a, *y = g_sort_pos + 3 * (size_t)b;
  for (int k = 0; k < 3; k++) {
    int nx = isnan(x[k]), ny = isnan(y[k]);
    if (nx != ny) return nx - ny;
    if (!nx && x[k] < y[k]) return -1;
    if (!nx && x[k] > y[k]) return 1;
  }
  return (a > b) - (a < b);
}

/* Equal positions; non-finite ones only when bitwise identical (so the one
 * NaN vertex of a file stays one vertex). */
static int same_pos(const double *x, const double *y) {
  if (isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]))
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
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
  g_sort_pos = soup->pos;
  qsort(order, (size_t)nc, sizeof(int), cmp_corner);
  g_sort_pos = NULL;
  for (int i = 0; i < nc; i++) {
    int c = order[i];
    int head = (i > 0 && same_pos(soup->pos + 3 * (size_t)order[i - 1], soup->pos + 3 * (size_t)c))
                   ? rep[order[i - 1]]
                   : c;
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
  free(order);
  free(rep);
  free(id);
}

JlResult jl_surface_load(const char *path, JlSurface *out, char *err, size_t errsz) {
  JL_ASSERT(out, "jl_surface_load needs an output surface");
  memset(out, 0, sizeof *out);
  if (!path || !*path) return jl_fail(err, errsz, JL_ERR_INPUT, "no mesh file given");
  JlResult res = check_file(path, err, errsz);
  if (res != JL_OK) return res;

  /* import: triangulate and validate only, see the top of this file */
  const struct aiScene *sc =
      aiImportFile(path, aiProcess_Triangulate | aiProcess_ValidateDataStructure);
  if (!sc) {
    const char *why = aiGetErrorString();
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: assimp cannot read it: %s", path,
                   why && *why ? why : "unknown error");
  }
  if (sc->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
    aiReleaseImport(sc);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: assimp read an incomplete scene (no usable meshes)", path);
  }

  /* merge all mesh instances into one soup, then weld */
  Soup soup = {0, 0, NULL};
  int ok = gather_scene(&soup, sc, path, err, errsz);
  aiReleaseImport(sc);
  if (!ok) {
    free(soup.pos);
    return JL_ERR_INPUT;
  }
  if (soup.ncorner == 0) {
    free(soup.pos);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: contains no triangles", path);
  }
  weld_exact(&soup, out);
  free(soup.pos);
  return JL_OK;
}
