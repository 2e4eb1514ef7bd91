/* Streaming screens before the importer (screen.h): the reader, format
 * sniffing, the screens of the formats with counts in headers (OFF, PLY,
 * binary STL, text and binary .x), and the node-graph expansion shared by
 * the glTF (screen_gltf.c) and Collada (screen_dae.c) screens.
 *
 * Method. sniff() picks the importer assimp 5.2.5 would pick: by a known
 * extension (one importer claims it; .gltf/.glb and .xml are claimed by
 * several, which then test the content in registry order), else by content,
 * asking every importer's CanRead in registry order: magic numbers, or tokens
 * searched in the first 200 bytes lower-cased with NUL bytes squeezed out
 * (BaseImporter::SearchFileHeaderForToken), or, for glTF, a parse of the
 * whole file as JSON. Each screen reads its format the way assimp's reader
 * does where assimp allocates from it: OFF and PLY header counts; the binary
 * STL triangle count, which must match the file size; for .x the counts that
 * size arrays (Mesh and MeshNormals vertices and faces, SkinWeights weights)
 * and, in binary files, where reads past the end return zeros instead of
 * failing, every face's index count. A screen never reads a file whole (a
 * glTF JSON excepted, capped) and never allocates in proportion to a count
 * it reads. */
#define _POSIX_C_SOURCE 200809L
#include "mesh/screen.h"

#include <assimp/cimport.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/child.h"

/* ---- reader -------------------------------------------------------------- */

int jl_rd_getc(JlReader *r) {
  if (r->pos == r->len) {
    r->len = fread(r->buf, 1, sizeof r->buf, r->f);
    r->pos = 0;
    if (r->len == 0) return EOF;
  }
  r->consumed++;
  return r->buf[r->pos++];
}

int jl_rd_peek_at(JlReader *r, size_t k) {
  if (r->len - r->pos <= k) {
    /* move what is left to the front and top the window up */
    size_t have = r->len - r->pos;
    memmove(r->buf, r->buf + r->pos, have);
    r->pos = 0;
    r->len = have;
    while (r->len <= k) {
      size_t got = fread(r->buf + r->len, 1, sizeof r->buf - r->len, r->f);
      if (got == 0) break;
      r->len += got;
    }
    if (r->len <= k) return EOF;
  }
  return r->buf[r->pos + k];
}

int jl_rd_peek(JlReader *r) { return jl_rd_peek_at(r, 0); }

/* skips n bytes (fewer at the end of the file); returns the bytes skipped */
static unsigned long long rd_skip(JlReader *r, unsigned long long n) {
  unsigned long long done = 0;
  while (done < n) {
    if (r->pos == r->len) {
      r->len = fread(r->buf, 1, sizeof r->buf, r->f);
      r->pos = 0;
      if (r->len == 0) break;
    }
    size_t k = r->len - r->pos;
    if ((unsigned long long)k > n - done) k = (size_t)(n - done);
    r->pos += k;
    r->consumed += k;
    done += k;
  }
  return done;
}

/* Next line (without its '\n') into line, at most cap - 1 bytes kept, the
 * rest of a longer line skipped. NUL bytes become 0x01, so C string
 * functions see the whole line and a NUL never makes a token look valid.
 * Returns 0 at the end of the file. */
static int rd_line(JlReader *r, char *line, size_t cap) {
  size_t n = 0;
  int c = jl_rd_getc(r);
  if (c == EOF) return 0;
  while (c != EOF && c != '\n') {
    if (n + 1 < cap) line[n++] = c ? (char)c : '\x01';
    c = jl_rd_getc(r);
  }
  line[n] = '\0';
  return 1;
}

/* Next line that is neither blank nor a '#' comment; returns its first
 * non-blank character or NULL at the end. */
static char *rd_content_line(JlReader *r, char *line, size_t cap) {
  while (rd_line(r, line, cap)) {
    char *q = line;
    while (*q && isspace((unsigned char)*q)) q++;
    if (*q && *q != '#') return q;
  }
  return NULL;
}

/* Next whole decimal number, reading further content lines when the current
 * one (*cur) is used up; -1 when there is none or it is not a number. */
static long long rd_count(JlReader *r, char *line, size_t cap, char **cur) {
  for (;;) {
    while (**cur && isspace((unsigned char)**cur)) (*cur)++;
    if (**cur && **cur != '#') break;
    if (!(*cur = rd_content_line(r, line, cap))) return -1;
  }
  char *s = *cur, *e = s;
  long long v = 0;
  while (isdigit((unsigned char)*e) && v <= 1000000000000LL) v = 10 * v + (*e++ - '0');
  if (e == s || (*e && !isspace((unsigned char)*e) && *e != '#')) return -1;
  *cur = e;
  return v;
}

/* ---- node graphs ------------------------------------------------------------ */

#define SAT 1e30

void jl_graph_expand(const JlGraph *g, const int *start, int nstart, JlExpansion *ex) {
  int n = g->n;
  ex->inst = jl_calloc((size_t)n + 1, sizeof(double));
  ex->tri = jl_calloc((size_t)n + 1, sizeof(double));
  ex->depth = jl_calloc((size_t)n + 1, sizeof(int));
  ex->cycle = -1;
  ex->visited = 0;
  /* edges grouped by parent (CSR), in file order */
  int *first = jl_calloc((size_t)n + 1, sizeof(int));
  int *adj = jl_calloc((size_t)g->nedge + 1, sizeof(int));
  for (int k = 0; k < g->nedge; k++) first[g->from[k] + 1]++;
  for (int v = 0; v < n; v++) first[v + 1] += first[v];
  int *fill = jl_calloc((size_t)n + 1, sizeof(int));
  for (int k = 0; k < g->nedge; k++) adj[first[g->from[k]] + fill[g->from[k]]++] = g->to[k];
  free(fill);
  /* iterative depth-first search; state 0 new, 1 on the path, 2 done */
  unsigned char *state = jl_calloc((size_t)n + 1, 1);
  int *stack = jl_calloc((size_t)n + 1, sizeof(int)), *next = jl_calloc((size_t)n + 1, sizeof(int));
  int ns = nstart < 0 ? n : nstart;
  for (int s = 0; s < ns && ex->cycle < 0; s++) {
    int root = nstart < 0 ? s : start[s];
    if (root < 0 || root >= n || state[root]) continue;
    int top = 0;
    stack[top++] = root;
    state[root] = 1;
    next[root] = first[root];
    ex->visited++;
    while (top > 0) {
      int v = stack[top - 1];
      if (next[v] < first[v + 1]) {
        int c = adj[next[v]++];
        if (state[c] == 1) { /* c is an ancestor of v (or v itself) */
          ex->cycle = c;
          break;
        }
        if (state[c] == 0) {
          state[c] = 1;
          next[c] = first[c];
          stack[top++] = c;
          ex->visited++;
        }
        continue;
      }
      /* all children done: sum them (each edge as often as it appears) */
      double inst = g->own_inst[v], tri = g->own_tri[v];
      int depth = 0;
      for (int k = first[v]; k < first[v + 1]; k++) {
        int c = adj[k];
        inst = fmin(inst + ex->inst[c], SAT);
        tri = fmin(tri + ex->tri[c], SAT);
        if (ex->depth[c] > depth) depth = ex->depth[c];
      }
      ex->inst[v] = inst;
      ex->tri[v] = tri;
      ex->depth[v] = depth + 1;
      state[v] = 2;
      top--;
    }
  }
  JL_FREE_ALL(state, stack, next, first, adj);
}

void jl_expansion_free(JlExpansion *ex) {
  JL_FREE_ALL(ex->inst, ex->tri, ex->depth);
  memset(ex, 0, sizeof *ex);
}

JlResult jl_screen_expansion(const char *path, const char *what, double instances, double triangles, double held,
                             char *err, size_t errsz) {
  if (instances > JL_MAX_NODE_INSTANCES)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: %s expands to %.4g node instances (a node is copied once per path to it), more than the "
                   "%d limit",
                   path, what, instances, JL_MAX_NODE_INSTANCES);
  if (triangles > JL_MAX_MESH_ELEMENTS)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: %s expands to %.4g mesh-instance triangles, more than the %d element limit", path, what,
                   triangles, JL_MAX_MESH_ELEMENTS);
  if (triangles > JL_MAX_INSTANCE_TRIANGLES && triangles > held)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: %s expands to %.0f mesh-instance triangles from the %.0f its meshes hold, more than the %d "
                   "instanced-triangle limit",
                   path, what, triangles, held, JL_MAX_INSTANCE_TRIANGLES);
  JlMeshLimits lim = jl_mesh_limits();
  double need = triangles * JL_SCREEN_TRIANGLE_BYTES;
  if (need > lim.memory_mb * 1048576.0)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: %s expands to %.0f mesh-instance triangles, which need at least %.0f MB in the importer "
                   "(%d bytes each), more than the %g MB of the mesh limit memory_mb",
                   path, what, triangles, need / 1048576.0, JL_SCREEN_TRIANGLE_BYTES, lim.memory_mb);
  return JL_OK;
}

/* ---- OFF, PLY ----------------------------------------------------------------- */

/* OFF (assimp 5.2's reader): an optional header token [ST][C][N][4][n]OFF,
 * a '#' starts a comment; then vertex, face (and edge) counts, which must be
 * within the element cap, fit the file's size, and be matched by its lines;
 * every face index must name a vertex. A screen, not a reader: assimp still
 * parses the file. (assimp reads OFF through TextFileToBuffer, which drops a
 * UTF-8 byte-order mark; so does this screen.) */
static JlResult screen_off(const char *path, JlReader *r, unsigned long long size, char *err, size_t errsz) {
  char line[4096];
  if (jl_rd_peek_at(r, 0) == 0xEF && jl_rd_peek_at(r, 1) == 0xBB && jl_rd_peek_at(r, 2) == 0xBF)
    rd_skip(r, 3); /* UTF-8 BOM */
  char *q = rd_content_line(r, line, sizeof line), *cur = q;
  long long nv = -1, nf = -1;
  if (q) {
    const char *t = q;
    int dim = 0;
    if (t[0] == 'S' && t[1] == 'T') t += 2;
    if (*t == 'C') t++;
    if (*t == 'N') t++;
    if (*t == '4') t++;
    if (*t == 'n') t++, dim = 1;
    if (strncmp(t, "OFF", 3) == 0) {
      cur = (char *)t + 3;
      if (dim && rd_count(r, line, sizeof line, &cur) < 0) cur = NULL;
    }
    if (cur) {
      nv = rd_count(r, line, sizeof line, &cur);
      nf = nv >= 0 ? rd_count(r, line, sizeof line, &cur) : -1;
    }
  }
  if (nv < 0 || nf < 0) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: OFF header has no vertex and face counts", path);
  if (nv > JL_MAX_MESH_ELEMENTS || nf > JL_MAX_MESH_ELEMENTS)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: OFF header promises %lld vertices and %lld faces, more than the %d element limit", path, nv, nf,
                   JL_MAX_MESH_ELEMENTS);
  /* a vertex line has at least 6 bytes ("0 0 0\n"), a face line 2 */
  if ((double)nv * 6.0 + (double)nf * 2.0 > (double)(size - r->consumed))
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: OFF header promises %lld vertices and %lld faces, the file is only %llu bytes", path, nv, nf,
                   size);
  for (long long i = 0; i < nv; i++)
    if (!rd_content_line(r, line, sizeof line))
      return jl_fail(err, errsz, JL_ERR_INPUT, "%s: OFF header promises %lld vertices, the file has only %lld", path,
                     nv, i);
  for (long long i = 0; i < nf; i++) {
    char *f = rd_content_line(r, line, sizeof line);
    if (!f)
      return jl_fail(err, errsz, JL_ERR_INPUT, "%s: OFF header promises %lld faces, the file has only %lld", path, nf,
                     i);
    char *e = NULL;
    long n = strtol(f, &e, 10);
    for (long k = 0; k < n && e; k++) {
      char *s = e;
      long long idx = strtoll(s, &e, 10);
      if (e == s) break; /* malformed (or a line longer than the window): assimp reports it */
      if (idx < 0 || idx >= nv)
        return jl_fail(err, errsz, JL_ERR_INPUT, "%s: OFF face %lld has vertex index %lld, out of range 0..%lld", path,
                       i, idx, nv - 1);
    }
  }
  return JL_OK;
}

/* PLY: the magic (any case) was checked by the caller. The header must end
 * with end_header within 1 MB and 10000 lines (assimp loops forever
 * without it), every element count must be within the element cap, and the
 * counts times the smallest size of one element (2 bytes per ascii number,
 * the binary sizes otherwise) must fit in what follows the header. */
static JlResult screen_ply(const char *path, JlReader *r, unsigned long long size, char *err, size_t errsz) {
  char line[4096];
  int ascii = 1, ended = 0;
  double need = 0.0, count = 0.0, elem = 0.0;
  rd_line(r, line, sizeof line); /* the magic */
  for (int n = 0; n < 10000 && r->consumed <= 1048576 && rd_line(r, line, sizeof line); n++) {
    char w1[32] = "", w2[32] = "", w3[32] = "";
    if (sscanf(line, "%31s %31s %31s", w1, w2, w3) < 1) continue;
    if (strcmp(w1, "format") == 0) {
      ascii = strcmp(w2, "ascii") == 0;
    } else if (strcmp(w1, "element") == 0) {
      need += count * elem;
      char *e = NULL;
      count = strtod(w3, &e);
      if (e == w3 || !(count >= 0.0)) count = 0.0;
      if (count > JL_MAX_MESH_ELEMENTS)
        return jl_fail(err, errsz, JL_ERR_INPUT,
                       "%s: PLY header promises %.0f %s elements, more than the %d element limit", path, count, w2,
                       JL_MAX_MESH_ELEMENTS);
      elem = 0.0;
    } else if (strcmp(w1, "property") == 0) {
      const char *type = strcmp(w2, "list") == 0 ? w3 : w2;
      int bytes = 4;
      if (strstr(type, "char"))
        bytes = 1;
      else if (strstr(type, "short"))
        bytes = 2;
      else if (strstr(type, "double") || strstr(type, "64"))
        bytes = 8;
      else if (strstr(type, "8"))
        bytes = 1;
      else if (strstr(type, "16"))
        bytes = 2;
      elem += ascii ? 2.0 : (double)bytes;
    } else if (strcmp(w1, "end_header") == 0) {
      ended = 1;
      break;
    }
  }
  if (!ended) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: PLY header has no end_header line (within 1 MB)", path);
  need += count * elem;
  unsigned long long body = size - r->consumed;
  if (need > (double)body)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: PLY header promises at least %.0f bytes of elements, the file has %llu", path, need, body);
  return JL_OK;
}

/* ---- STL ------------------------------------------------------------------------- */

/* assimp 5.2.5 (STLImporter::InternReadFile) reads a file as binary STL when
 * its triangle count n (uint32 at byte 80) gives 84 + 50 n == the file size
 * in 32-bit arithmetic, as ASCII when it starts (after blanks) with "solid",
 * and refuses anything else. Its buffer has a UTF-8 byte-order mark removed,
 * so with one the count is read at byte 83. A count that matches only modulo
 * 2^32 is refused here, as is a file that is neither: its header names the
 * size it should have. ASCII STL has no counts. */
static JlResult screen_stl(const char *path, const unsigned char *head, size_t n, unsigned long long size, char *err,
                           size_t errsz) {
  if (size < 8) return JL_OK; /* assimp refuses it ("File is too small") */
  int bom = n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF;
  size_t at = bom ? 83 : 80;
  uint32_t count = 0;
  int has_count = size >= 84 && n >= at + 4;
  if (has_count)
    count =
        (uint32_t)head[at] | (uint32_t)head[at + 1] << 8 | (uint32_t)head[at + 2] << 16 | (uint32_t)head[at + 3] << 24;
  unsigned long long want = 84ull + 50ull * count;
  if (has_count && (uint32_t)(count * 50u + 84u) == (uint32_t)size && (size >> 32) == 0) {
    if (want != size)
      return jl_fail(err, errsz, JL_ERR_INPUT,
                     "%s: binary STL header promises %u triangles (84 + 50 x %u = %llu bytes), the file has %llu", path,
                     count, count, want, size);
    if (count > JL_MAX_MESH_ELEMENTS)
      return jl_fail(err, errsz, JL_ERR_INPUT,
                     "%s: binary STL header promises %u triangles, more than the %d element limit", path, count,
                     JL_MAX_MESH_ELEMENTS);
    return JL_OK;
  }
  /* ASCII: "solid" after spaces and tabs, with more bytes after it */
  size_t i = bom ? 3 : 0;
  while (i < n && (head[i] == ' ' || head[i] == '\t')) i++;
  if (i + 5 <= n && memcmp(head + i, "solid", 5) == 0 && (i - (bom ? 3 : 0)) + 5 < size) return JL_OK;
  if (!has_count)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: not an ASCII STL (no \"solid\" at the start) and only %llu bytes, less than the 84 of a "
                   "binary STL header",
                   path, size);
  return jl_fail(err, errsz, JL_ERR_INPUT,
                 "%s: not an ASCII STL (no \"solid\" at the start), and as binary STL its header promises %u "
                 "triangles (84 + 50 x %u = %llu bytes), the file has %llu",
                 path, count, count, want, size);
}

/* ---- DirectX .x --------------------------------------------------------------------- */

/* The .x screen follows assimp's XFileParser token by token: text tokens
 * are words and the delimiters ; , { } (comments // and # to the end of a
 * line); binary tokens are 16-bit codes (names, strings, integer and float
 * lists, braces ...). Where assimp parses a data object that sizes arrays
 * from the file, the screen reads it as assimp does (ReadInt, ReadFloat:
 * in binary files through the shared count of the current integer or float
 * list) and checks each count: Mesh and MeshNormals (vertices, faces), and
 * SkinWeights (weights): within the element cap and the bytes left in the
 * file (2 per element in text, 4 in binary). In binary files assimp reads
 * zeros past the end instead of failing, so a face's index count is checked
 * too. Everything else is skipped by its token structure (templates whole).
 * A .x compressed with MSZIP ("tzip", "bzip") is left to the child's
 * limits. */

typedef struct XTok {
  int kind; /* 0 end, 1 word, 2 delimiter or punctuation, 3 integer or float list (binary) */
  char text[40];
} XTok;

typedef struct XState {
  JlReader *r;
  unsigned long long size;
  int bin, fsize;
  uint32_t cnt; /* XFileParser::mBinaryNumCount */
  const char *path;
  char *err;
  size_t errsz;
  JlResult res;
} XState;

static unsigned long long x_left(const XState *x) { return x->size - x->r->consumed; }

static uint32_t x_u16(XState *x) {
  int a = jl_rd_getc(x->r), b = jl_rd_getc(x->r);
  return (uint32_t)(a & 255) | (uint32_t)(b & 255) << 8;
}
static uint32_t x_u32(XState *x) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) v |= (uint32_t)(jl_rd_getc(x->r) & 255) << (8 * k);
  return v;
}

/* text: FindNextNoneWhiteSpace (comments: // and # to the end of the line) */
static void x_skip_space(XState *x) {
  for (;;) {
    int c = jl_rd_peek(x->r);
    if (c == EOF) return;
    if (isspace(c)) {
      jl_rd_getc(x->r);
      continue;
    }
    if (c == '#' || (c == '/' && jl_rd_peek_at(x->r, 1) == '/')) {
      int d;
      while ((d = jl_rd_getc(x->r)) != EOF && d != '\n' && d != '\r') {
      }
      continue;
    }
    return;
  }
}

/* XFileParser::GetNextToken */
static void x_token(XState *x, XTok *t) {
  t->kind = 0;
  t->text[0] = '\0';
  if (x->bin) {
    if (x_left(x) < 2) return;
    uint32_t tok = x_u16(x), len;
    switch (tok) {
      case 1:
      case 2:
        if (x_left(x) < 4) return;
        len = x_u32(x);
        if (tok == 1 && (int32_t)len < 0) return;
        if (x_left(x) < (unsigned long long)len && (tok == 1 || (int32_t)len >= 0)) return;
        {
          size_t k = 0;
          for (; k < len && k + 1 < sizeof t->text; k++) t->text[k] = (char)jl_rd_getc(x->r);
          t->text[k] = '\0';
          rd_skip(x->r, (unsigned long long)len - k + (tok == 2 ? 2 : 0));
        }
        t->kind = 1;
        return;
      case 3:
        rd_skip(x->r, 4), t->kind = 1, strcpy(t->text, "<integer>");
        return;
      case 5:
        rd_skip(x->r, 16), t->kind = 1, strcpy(t->text, "<guid>");
        return;
      case 6:
      case 7:
        if (x_left(x) < 4) return;
        len = x_u32(x);
        /* 32-bit arithmetic, as assimp's pointer step */
        rd_skip(x->r, (uint32_t)(len * (tok == 6 ? 4u : (uint32_t)x->fsize)));
        x->cnt = 0; /* read through ReadInt/ReadFloat, a list ends with the count at 0 */
        t->kind = 3;
        return;
      case 0x0a:
        t->kind = 2, strcpy(t->text, "{");
        return;
      case 0x0b:
        t->kind = 2, strcpy(t->text, "}");
        return;
      case 0x1f:
        t->kind = 1, strcpy(t->text, "template");
        return;
      default:
        if ((tok >= 0x0c && tok <= 0x14) || (tok >= 0x28 && tok <= 0x34)) {
          t->kind = tok <= 0x14 ? 2 : 1;
          strcpy(t->text, tok == 0x13 ? "," : tok == 0x14 ? ";" : "?");
          return;
        }
        return; /* an unknown code: assimp's GetNextToken returns "" (end) */
    }
  }
  x_skip_space(x);
  size_t k = 0;
  int c;
  while ((c = jl_rd_peek(x->r)) != EOF && !isspace(c)) {
    if (c == ';' || c == '}' || c == '{' || c == ',') {
      if (k == 0) {
        jl_rd_getc(x->r);
        t->text[k++] = (char)c;
        t->kind = 2;
      }
      break;
    }
    jl_rd_getc(x->r);
    if (k + 1 < sizeof t->text) t->text[k++] = c ? (char)c : '\x01';
    t->kind = 1;
  }
  t->text[k] = '\0';
}

/* XFileParser::ReadInt; *ok = 0 where assimp would throw (text) */
static uint32_t x_int(XState *x, int *ok) {
  *ok = 1;
  if (x->bin) {
    if (x->cnt == 0 && x_left(x) >= 2) {
      uint32_t w = x_u16(x);
      x->cnt = (w == 6 && x_left(x) >= 4) ? x_u32(x) : 1;
    }
    x->cnt--;
    if (x_left(x) >= 4) return x_u32(x);
    rd_skip(x->r, x_left(x));
    return 0;
  }
  x_skip_space(x);
  int neg = 0, c = jl_rd_peek(x->r);
  if (c == '-') neg = 1, jl_rd_getc(x->r), c = jl_rd_peek(x->r);
  if (c == EOF || !isdigit(c)) return *ok = 0, 0;
  uint32_t v = 0;
  while ((c = jl_rd_peek(x->r)) != EOF && isdigit(c)) v = v * 10u + (uint32_t)(jl_rd_getc(x->r) - '0');
  XTok t;
  x_token(x, &t); /* CheckForSeparator */
  if (t.kind != 2 || (t.text[0] != ',' && t.text[0] != ';')) *ok = 0;
  return neg ? 0u - v : v;
}

/* n reads of ReadInt (list code 6, size 4) or ReadFloat (code 7) in binary,
 * in bulk: each list header consumed at most once. */
static void x_bin_skip(XState *x, uint64_t n, uint32_t code, unsigned size) {
  while (n > 0) {
    if (x->cnt == 0) {
      if (x_left(x) < 2) { /* no header: every further read decrements the count and gives 0 */
        x->cnt -= (uint32_t)n;
        rd_skip(x->r, x_left(x));
        return;
      }
      uint32_t w = x_u16(x);
      x->cnt = (w == code && x_left(x) >= 4) ? x_u32(x) : 1;
    }
    uint64_t m = x->cnt == 0 ? 1 : (x->cnt < n ? x->cnt : n); /* a list of 0: one read, the count wraps */
    x->cnt -= (uint32_t)m;
    n -= m;
    uint64_t bytes = m * size;
    if (bytes >= x_left(x)) {
      x->cnt -= (uint32_t)n;
      rd_skip(x->r, x_left(x));
      return;
    }
    rd_skip(x->r, bytes);
  }
}

/* text: skips n ReadFloat (each a value and a separator) grouped by `per`
 * into vectors, each followed by an optional separator (TestForSeparator);
 * 0 where assimp would throw */
static int x_txt_skip_floats(XState *x, uint32_t nvec, int per) {
  for (uint32_t i = 0; i < nvec; i++) {
    for (int k = 0; k < per; k++) {
      XTok t;
      x_token(x, &t);
      if (t.kind != 1) return 0;
      x_token(x, &t);
      if (t.kind != 2 || (t.text[0] != ',' && t.text[0] != ';')) return 0;
    }
    x_skip_space(x);
    int c = jl_rd_peek(x->r);
    if (c == ';' || c == ',') jl_rd_getc(x->r);
  }
  return 1;
}

static int x_check(XState *x, const char *obj, const char *what, uint32_t v) {
  int per = x->bin ? 4 : 2;
  if (v > JL_MAX_MESH_ELEMENTS) {
    x->res = jl_fail(x->err, x->errsz, JL_ERR_INPUT, "%s: .x %s promises %u %s, more than the %d element limit",
                     x->path, obj, v, what, JL_MAX_MESH_ELEMENTS);
    return 0;
  }
  if ((double)v * per > (double)x_left(x)) {
    x->res = jl_fail(x->err, x->errsz, JL_ERR_INPUT,
                     "%s: .x %s promises %u %s, more than the %llu bytes left in the file hold (%d bytes each at "
                     "least)",
                     x->path, obj, v, what, x_left(x), per);
    return 0;
  }
  return 1;
}

/* Mesh and MeshNormals: count, 3 x count floats, face count, faces */
static int x_mesh(XState *x, const char *obj, const char *elems) {
  int ok;
  uint32_t nv = x_int(x, &ok);
  if (!ok) return 1; /* assimp throws */
  if (!x_check(x, obj, elems, nv)) return 0;
  if (x->bin)
    x_bin_skip(x, 3ull * nv, 7, (unsigned)x->fsize);
  else if (!x_txt_skip_floats(x, nv, 3))
    return 1;
  uint32_t nf = x_int(x, &ok);
  if (!ok) return 1;
  if (!x_check(x, obj, "faces", nf)) return 0;
  if (!x->bin) return 1; /* text: reading past the end throws, faces cost what they hold */
  for (uint32_t f = 0; f < nf && x_left(x) >= 4; f++) {
    uint32_t k = x_int(x, &ok);
    if (!x_check(x, obj, "indices in a face", k)) return 0;
    x_bin_skip(x, k, 6, 4);
  }
  return 1;
}

static JlResult screen_x(const char *path, JlReader *r, const unsigned char *head, size_t n, unsigned long long size,
                         char *err, size_t errsz) {
  XState x = {r, size, 0, 4, 0, path, err, errsz, JL_OK};
  size_t at = (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) ? 3 : 0; /* ConvertToUTF8 */
  if (size < 16 || n < at + 16 || memcmp(head + at, "xof ", 4) != 0) return JL_OK;       /* assimp refuses it */
  const unsigned char *h = head + at;
  if (memcmp(h + 8, "bin ", 4) == 0)
    x.bin = 1;
  else if (memcmp(h + 8, "txt ", 4) != 0)
    return JL_OK; /* tzip, bzip: the child's limits; else refused */
  int fbits = (h[12] - 48) * 1000 + (h[13] - 48) * 100 + (h[14] - 48) * 10 + (h[15] - 48);
  if (fbits != 32 && fbits != 64) return JL_OK; /* assimp refuses it */
  x.fsize = fbits / 8;
  rd_skip(r, at + 16);
  if (!x.bin) { /* ReadUntilEndOfLine */
    int c;
    while ((c = jl_rd_getc(r)) != EOF && c != '\n' && c != '\r') {
    }
  }
  XTok t, t1 = {2, ""}, t2 = {2, ""};
  for (;;) {
    x_token(&x, &t);
    if (t.kind == 0) break;
    if (t.kind == 1 && strcmp(t.text, "template") == 0) {
      /* a template: its name, '{', then anything up to '}' */
      do x_token(&x, &t);
      while (t.kind != 0 && !(t.kind == 2 && t.text[0] == '}'));
      t1.kind = t2.kind = 2;
      continue;
    }
    if (t.kind == 2 && t.text[0] == '{') {
      /* the data object's type: "Type {" or "Type name {" */
      const char *type = t1.kind == 1 ? (t2.kind == 1 ? t2.text : t1.text) : "";
      int go = 1;
      if (strcmp(type, "Mesh") == 0)
        go = x_mesh(&x, "Mesh", "vertices");
      else if (strcmp(type, "MeshNormals") == 0)
        go = x_mesh(&x, "MeshNormals", "normals");
      else if (strcmp(type, "SkinWeights") == 0) {
        /* GetNextTokenAsString: the bone name ("name"; in text), then the count */
        int ok = 1;
        if (x.bin)
          x_token(&x, &t);
        else {
          x_skip_space(&x);
          if (jl_rd_getc(r) != '"') ok = 0;
          int c;
          while (ok && (c = jl_rd_getc(r)) != EOF && c != '"') {
          }
          if (ok && jl_rd_getc(r) != ';') ok = 0;
        }
        if (ok) {
          uint32_t nw = x_int(&x, &ok);
          if (ok) go = x_check(&x, "SkinWeights", "weights", nw);
        }
      }
      if (!go) return x.res;
      t1.kind = t2.kind = 2;
      continue;
    }
    t2 = t1;
    t1 = t;
  }
  return JL_OK;
}

/* ---- sniffing ------------------------------------------------------------------------ */

int jl_ends_with_ci(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (m > n) return 0;
  for (size_t i = 0; i < m; i++)
    if (tolower((unsigned char)s[n - m + i]) != tolower((unsigned char)suffix[i])) return 0;
  return 1;
}

typedef enum Format { FMT_OTHER, FMT_OFF, FMT_PLY, FMT_X, FMT_OBJ, FMT_STL, FMT_DAE, FMT_GLTF } Format;

/* SearchFileHeaderForToken over the first `bytes` (200 by default) */
typedef struct Head {
  const unsigned char *raw;
  size_t n;
  char low[201]; /* the first 200 bytes lower-cased, NUL bytes squeezed out */
} Head;

static void head_low(Head *h, size_t bytes, char *out) {
  size_t m = 0;
  for (size_t i = 0; i < h->n && i < bytes; i++)
    if (h->raw[i]) out[m++] = (char)tolower(h->raw[i]);
  out[m] = '\0';
}
static int has_token(const Head *h, const char *tok) { return strstr(h->low, tok) != NULL; }
static int has_token_in(Head *h, const char *tok, size_t bytes) {
  char low[201];
  head_low(h, bytes, low);
  return strstr(low, tok) != NULL;
}
/* CheckMagicToken: 2 or 4 bytes at offset, either byte order */
static int has_magic(const Head *h, size_t off, const char *magic, size_t size) {
  if (h->n < off + size) return 0;
  if (memcmp(h->raw + off, magic, size) == 0) return 1;
  for (size_t i = 0; i < size; i++)
    if (h->raw[off + i] != (unsigned char)magic[size - 1 - i]) return 0;
  return 1;
}

/* What assimp 5.2.5 does with a file whose extension no importer claims (or
 * whose claimants all declined): every importer's CanRead in registry order
 * (the importer list of Debian's assimp 5.2.5 build), up to the first that
 * accepts. Importers that go by extension only are left out. glTF (1.0 and
 * 2.0) parse the whole file as JSON: FMT_GLTF means "a JSON object, for the
 * glTF importers to decide" (with_gltf 0: they already declined). */
static Format sniff_content(Head *h, int with_gltf) {
  static const char *const obj_tokens[] = {"mtllib", "usemtl", "v ", "vt ", "vn ", "o ", "g ", "s ", "f "};
  if (has_magic(h, 0, "xof ", 4)) return FMT_X;
  for (size_t k = 0; k < sizeof obj_tokens / sizeof *obj_tokens; k++) {
    /* noAlphaBeforeTokens: the first hit only, as assimp's strstr */
    const char *hit = strstr(h->low, obj_tokens[k]);
    if (hit && (hit == h->low || !isalpha((unsigned char)hit[-1]))) return FMT_OBJ;
  }
  if (has_token(h, "<amf")) return FMT_OTHER;
  if (has_magic(h, 0, "MM", 2) || has_magic(h, 0, "\xc2\x3d", 2)) return FMT_OTHER; /* 3DS */
  if (has_magic(h, 0, "IDP3", 4) || has_magic(h, 0, "IDP2", 4)) return FMT_OTHER;   /* MD3, MD2 */
  if (has_token(h, "ply")) return FMT_PLY;
  static const char *const mdl[] = {"IDST", "IDSQ", "MDL7", "MDL5", "MDL4", "MDL3", "MDL2", "IDPO"};
  for (size_t k = 0; k < 8; k++)
    if (has_magic(h, 0, mdl[k], 4)) return FMT_OTHER;
  if (has_token(h, "*3dsmax_asciiexport")) return FMT_OTHER;
  if (has_magic(h, 0, "HMP4", 4) || has_magic(h, 0, "HMP5", 4) || has_magic(h, 0, "HMP7", 4)) return FMT_OTHER;
  if (has_magic(h, 0, "IDPC", 4) || has_token(h, "md5version")) return FMT_OTHER; /* MDC, MD5 */
  if (has_token(h, "stl") || has_token(h, "solid")) return FMT_STL;
  if (has_magic(h, 8, "LWOB", 4) || has_magic(h, 8, "LWO2", 4) || has_magic(h, 8, "LXOB", 4)) return FMT_OTHER;
  {
    static const char *const dxf[] = {"section", "header", "endsec", "blocks"};
    for (size_t k = 0; k < 4; k++)
      if (has_token_in(h, dxf[k], 32)) return FMT_OTHER;
  }
  if (has_token_in(h, "off", 3)) return FMT_OFF;
  if (has_magic(h, 0, "AC3D", 4) || has_token(h, "hierarchy") || has_token(h, "irrmesh") || has_token(h, "irr_scene") ||
      has_token(h, "quick3do") || has_token(h, "quick3ds"))
    return FMT_OTHER;
  if (has_token(h, "<collada")) return FMT_DAE; /* (a zip with a .dae inside: .zae, not screened) */
  if (has_token(h, "terragen") || has_token(h, "$filename") || has_magic(h, 0, "LWSC", 4) ||
      has_magic(h, 0, "LWMO", 4) || has_token(h, "metric") || has_token(h, "geometrynode") ||
      has_token(h, "vertexarray (attrib") || has_token(h, "indexarray") || has_token(h, "ms3d000000") ||
      has_token(h, "caligary") || has_token(h, "<blender") || has_token(h, "blender") || has_token_in(h, "nendo", 5) ||
      has_token(h, "iso-10303-21") || has_token(h, "<world>") || has_token(h, "fbx") ||
      (h->n >= 19 && memcmp(h->raw, "ASSIMP.binary-dump.", 19) == 0))
    return FMT_OTHER;
  if (with_gltf) {
    size_t i = 0;
    while (i < h->n && (h->raw[i] == ' ' || h->raw[i] == '\t' || h->raw[i] == '\n' || h->raw[i] == '\r')) i++;
    if (i < h->n && h->raw[i] == '{') return FMT_GLTF;
  }
  return FMT_OTHER;
}

/* A known extension decides when one importer claims it (the whole name's
 * end compared, any case); .gltf/.glb (glTF 1.0 and 2.0) and .xml (Irrlicht
 * mesh and scene, Collada, Ogre for .mesh.xml) are claimed by several, which
 * test the content in registry order; when none accepts, sniff_content.
 * *glb is set for a .glb (assimp reads it as binary glTF). */
static Format sniff(const char *path, Head *h, int *glb) {
  *glb = 0;
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (dot && (!slash || dot > slash) && dot[1] && aiIsExtensionSupported(dot)) {
    if (jl_ends_with_ci(path, ".gltf")) return FMT_GLTF;
    if (jl_ends_with_ci(path, ".glb")) return *glb = 1, FMT_GLTF;
    if (jl_ends_with_ci(path, ".xml")) {
      if (has_token(h, "irrmesh") || has_token(h, "irr_scene")) return FMT_OTHER;
      if (has_token(h, "<collada")) return FMT_DAE;
      if (jl_ends_with_ci(path, ".mesh.xml") && has_token(h, "<mesh>")) return FMT_OTHER;
      return sniff_content(h, 1);
    }
    if (jl_ends_with_ci(path, ".off")) return FMT_OFF;
    if (jl_ends_with_ci(path, ".ply")) return FMT_PLY;
    if (jl_ends_with_ci(path, ".x")) return FMT_X;
    if (jl_ends_with_ci(path, ".stl")) return FMT_STL;
    if (jl_ends_with_ci(path, ".dae") || jl_ends_with_ci(path, ".zae")) return FMT_DAE;
    if (jl_ends_with_ci(path, ".obj")) return FMT_OBJ;
    return FMT_OTHER;
  }
  return sniff_content(h, 1);
}

JlResult jl_mesh_screen(const char *path, unsigned long long size, char *err, size_t errsz) {
  FILE *f = fopen(path, "rb");
  if (!f) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  JlReader *r = jl_calloc(1, sizeof *r);
  r->f = f;
  Head h;
  unsigned char head[256];
  h.raw = head;
  h.n = fread(head, 1, sizeof head, f);
  head_low(&h, 200, h.low);
  rewind(f);
  JlResult res = JL_OK;
  int glb = 0;
  Format fmt = sniff(path, &h, &glb);
  for (int pass = 0; pass < 2; pass++) {
    switch (fmt) {
      case FMT_OFF:
        res = screen_off(path, r, size, err, errsz);
        break;
      case FMT_PLY:
        /* assimp itself refuses a first line not starting with "ply" (any case) */
        if (h.n >= 3 && tolower(head[0]) == 'p' && tolower(head[1]) == 'l' && tolower(head[2]) == 'y')
          res = screen_ply(path, r, size, err, errsz);
        break;
      case FMT_X:
        res = screen_x(path, r, head, h.n, size, err, errsz);
        break;
      case FMT_STL:
        res = screen_stl(path, head, h.n, size, err, errsz);
        break;
      case FMT_DAE:
        res = jl_screen_dae(path, f, size, err, errsz);
        break;
      case FMT_GLTF: {
        JlGltfKind kind = JL_GLTF_NOT;
        res = jl_screen_gltf(path, f, size, glb, &kind, err, errsz);
        if (res == JL_OK && kind == JL_GLTF_NOT && pass == 0) {
          /* neither glTF importer takes it: assimp asks all importers */
          rewind(f);
          fmt = sniff_content(&h, 0);
          continue;
        }
        break;
      }
      default:
        break;
    }
    break;
  }
  fclose(f);
  free(r);
  return res;
}
