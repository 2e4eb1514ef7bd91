/* Gmsh .msh reader (mesh/tetfile.h): format 2.2 and 4.1, ASCII and binary.
 *
 * Format: Gmsh reference manual, "MSH file format" (sec. 10.1 for 4.1,
 * "Legacy formats" for 2.2). Sections are "$Name" ... "$EndName"; only
 * $MeshFormat, $Nodes and $Elements are read, every other section is
 * skipped to its $End line. 4-node tets (element type 4) are kept; other
 * elements are skipped and counted in a note (in binary files their sizes
 * come from the node-count table below, an unknown type is an error there).
 * Node tags may be sparse and in any order: they are mapped to indices
 * (JlTagMap), and a tet naming a tag that $Nodes did not define is an error
 * with the element's tag and line. Binary files are read in the byte order
 * their $MeshFormat's integer 1 shows; 4.1's counts and tags are size_t of
 * the declared data-size (8). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/tetfile_internal.h"

/* nodes of Gmsh element types 1..31 (manual, "MSH file format"), 0 = unknown */
static int type_nodes(long long type) {
  static const int n[32] = {0, 2,  3,  4,  4, 8,  6,  5,  3,  6,  9, 10, 27, 18, 14, 1,
                            8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5,  6,  20, 35, 56};
  if (type >= 1 && type < 32) return n[type];
  if (type == 92) return 64;
  if (type == 93) return 125;
  return 0;
}

typedef struct Msh {
  JlTetCursor *c;
  int binary, big, v4;
  int dsize; /* size_t bytes in 4.1 binary */
  /* nodes */
  int nnode;
  long long *tag; /* nnode */
  double *x;      /* nnode x 3 */
  int have_nodes;
  /* tets as node tags, with their element tags and lines for messages */
  int ntet, cap;
  long long *ttag; /* ntet x 4 */
  long long *etag; /* ntet */
  int *eline;      /* ntet; text line, or -(byte offset + 1) in binary files */
  long long nskip;
  long long skip_type[4];
  long long skip_count[4];
} Msh;

static size_t off(const Msh *m) { return (size_t)(m->c->p - m->c->data); }
static size_t left(const Msh *m) { return (size_t)(m->c->end - m->c->p); }

/* what a binary 4.1 file's odd numbers may come from: its $MeshFormat data
 * size (the bytes of a size_t) is read as given, and a file declaring 4 whose
 * sizes are 8 bytes (or the reverse) reads as nonsense from the first size on */
static const char *size_hint(const Msh *m) {
  if (!m->binary || !m->v4 || m->dsize == 8) return "";
  return " (read with the data size 4 that $MeshFormat declares: Gmsh writes 8 on 64-bit machines; if the file's "
         "sizes are 8 bytes, its header is wrong)";
}

static JlResult need(Msh *m, size_t n, const char *what) {
  if (left(m) < n) return jl_tetfile_fail_at(m->c, off(m), "file ends inside %s", what);
  return JL_OK;
}
static long long bin_int(Msh *m) {
  int32_t v = (int32_t)jl_tetfile_u32(m->c->p, m->big);
  m->c->p += 4;
  return v;
}
static long long bin_size(Msh *m) {
  uint64_t v = m->dsize == 8 ? jl_tetfile_u64(m->c->p, m->big) : jl_tetfile_u32(m->c->p, m->big);
  m->c->p += m->dsize;
  return v > (uint64_t)LLONG_MAX ? -1 : (long long)v;
}
static double bin_double(Msh *m) {
  uint64_t u = jl_tetfile_u64(m->c->p, m->big);
  double d;
  memcpy(&d, &u, sizeof d);
  m->c->p += 8;
  return d;
}

/* the end of a binary block: newline(s) before the $End line */
static void skip_newlines(Msh *m) { jl_tetfile_skip(m->c); }

static void add_skip(Msh *m, long long type, long long count) {
  m->nskip += count;
  for (int k = 0; k < 4; k++) {
    if (m->skip_type[k] == type || m->skip_count[k] == 0) {
      m->skip_type[k] = type;
      m->skip_count[k] += count;
      return;
    }
  }
}

static void add_tet(Msh *m, long long etag, const long long *v, int line) {
  if (m->ntet == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 256;
    m->ttag = jl_realloc(m->ttag, (size_t)m->cap * 4, sizeof(long long));
    m->etag = jl_realloc(m->etag, (size_t)m->cap, sizeof(long long));
    m->eline = jl_realloc(m->eline, (size_t)m->cap, sizeof(int));
  }
  memcpy(m->ttag + 4 * (size_t)m->ntet, v, 4 * sizeof(long long));
  m->etag[m->ntet] = etag;
  m->eline[m->ntet] = line;
  m->ntet++;
}

/* skips to the line after "$End<name>" */
static JlResult skip_section(Msh *m, const char *name) {
  char endtag[96];
  snprintf(endtag, sizeof endtag, "$End%.80s", name);
  size_t len = strlen(endtag);
  const unsigned char *q = m->c->p;
  while (q + len <= m->c->end) {
    const unsigned char *h = memchr(q, '$', (size_t)(m->c->end - q));
    if (!h || h + len > m->c->end) break;
    if (memcmp(h, endtag, len) == 0) {
      for (const unsigned char *s = m->c->p; s < h; s++) m->c->line += *s == '\n';
      m->c->p = h + len;
      return JL_OK;
    }
    q = h + 1;
  }
  return jl_tetfile_fail(m->c, "section $%s has no %s line", name, endtag);
}

/* expects "$End<name>" as the next token */
static JlResult expect_end(Msh *m, const char *name) {
  char w[80], want[96];
  snprintf(want, sizeof want, "$End%.80s", name);
  if (!jl_tetfile_word(m->c, w, sizeof w)) return jl_tetfile_fail(m->c, "file ends before %s", want);
  if (strcmp(w, want) != 0)
    return jl_tetfile_fail(m->c, "expected %s, got '%.40s' (more data than the counts say?)", want, w);
  return JL_OK;
}

/* ---- nodes --------------------------------------------------------------------- */

static JlResult alloc_nodes(Msh *m, long long n) {
  JlResult r = jl_tetfile_check_count(m->c, n, JL_TETFILE_MAX_NODES, m->binary ? (m->v4 ? 32.0 : 28.0) : 8.0, "$Nodes");
  if (r) return r;
  m->nnode = (int)n;
  m->tag = jl_calloc((size_t)n + 1, sizeof(long long));
  m->x = jl_calloc((size_t)n * 3 + 1, sizeof(double));
  return JL_OK;
}

static JlResult nodes_v2(Msh *m) {
  long long n;
  JlResult r = jl_tetfile_int(m->c, 0, LLONG_MAX, "the number of nodes", &n);
  if (r || (r = alloc_nodes(m, n))) return r;
  if (m->binary) {
    jl_tetfile_next_line(m->c);
    if ((r = need(m, (size_t)n * 28, "$Nodes"))) return r;
    for (long long i = 0; i < n; i++) {
      m->tag[i] = bin_int(m);
      for (int k = 0; k < 3; k++) m->x[3 * i + k] = bin_double(m);
    }
    skip_newlines(m);
  } else {
    for (long long i = 0; i < n; i++) {
      if ((r = jl_tetfile_int(m->c, 1, LLONG_MAX, "a node tag", &m->tag[i]))) return r;
      for (int k = 0; k < 3; k++)
        if ((r = jl_tetfile_double(m->c, "a coordinate", &m->x[3 * i + k]))) return r;
    }
  }
  return expect_end(m, "Nodes");
}

/* the 4.1 section header "numEntityBlocks numX minTag maxTag" of $Nodes or
 * $Elements (`what`: "node" or "element"); the tag range is not needed */
static JlResult header_v4(Msh *m, const char *section, const char *what, long long *nblock, long long *n) {
  JlResult r;
  if (m->binary) {
    jl_tetfile_next_line(m->c);
    char msg[64];
    snprintf(msg, sizeof msg, "the $%s header", section);
    if ((r = need(m, 4 * (size_t)m->dsize, msg))) return r;
    *nblock = bin_size(m), *n = bin_size(m);
    (void)bin_size(m), (void)bin_size(m);
    if (*nblock < 0 || *n < 0) return jl_tetfile_fail_at(m->c, off(m), "$%s header has a count beyond 2^63", section);
    return JL_OK;
  }
  char d[4][48];
  snprintf(d[0], sizeof d[0], "the number of %s blocks", what);
  snprintf(d[1], sizeof d[1], "the number of %ss", what);
  snprintf(d[2], sizeof d[2], "the smallest %s tag", what);
  snprintf(d[3], sizeof d[3], "the largest %s tag", what);
  long long tag;
  if ((r = jl_tetfile_int(m->c, 0, LLONG_MAX, d[0], nblock)) || (r = jl_tetfile_int(m->c, 0, LLONG_MAX, d[1], n)) ||
      (r = jl_tetfile_int(m->c, 0, LLONG_MAX, d[2], &tag)) || (r = jl_tetfile_int(m->c, 0, LLONG_MAX, d[3], &tag)))
    return r;
  return JL_OK;
}

static JlResult nodes_v4(Msh *m) {
  long long nblock, n;
  JlResult r;
  if ((r = header_v4(m, "Nodes", "node", &nblock, &n))) return r;
  if ((r = alloc_nodes(m, n))) return r;
  if (nblock > n + 1000 || (double)nblock * (m->binary ? 20 : 8) > (double)left(m))
    return jl_tetfile_fail(m->c, "$Nodes: %lld entity blocks for %lld nodes in a file of %zu bytes", nblock, n,
                           (size_t)(m->c->end - m->c->data));
  long long done = 0;
  for (long long b = 0; b < nblock; b++) {
    long long dim, ent, param, k;
    if (m->binary) {
      if ((r = need(m, 12 + (size_t)m->dsize, "a node block header"))) return r;
      dim = bin_int(m), ent = bin_int(m), param = bin_int(m), k = bin_size(m);
      if (dim < 0 || dim > 3 || param < 0 || param > 1)
        return jl_tetfile_fail_at(m->c, off(m), "node block %lld: dimension %lld, parametric %lld%s", b, dim, param,
                                  size_hint(m));
    } else if ((r = jl_tetfile_int(m->c, 0, 3, "a node block's dimension", &dim)) ||
               (r = jl_tetfile_int(m->c, INT_MIN, INT_MAX, "a node block's entity tag", &ent)) ||
               (r = jl_tetfile_int(m->c, 0, 1, "a node block's parametric flag", &param)) ||
               (r = jl_tetfile_int(m->c, 0, LLONG_MAX, "a node block's size", &k))) {
      return r;
    }
    (void)ent;
    if (k < 0 || k > n - done)
      return jl_tetfile_fail(m->c, "node block %lld has %lld nodes, more than the %lld the header has left", b, k,
                             n - done);
    int ncoord = 3 + (param ? (int)dim : 0);
    if (m->binary) {
      if ((r = need(m, (size_t)k * ((size_t)m->dsize + 8 * (size_t)ncoord), "a node block"))) return r;
      for (long long i = 0; i < k; i++) {
        m->tag[done + i] = bin_size(m);
        if (m->tag[done + i] < 1) return jl_tetfile_fail_at(m->c, off(m), "node tag beyond 2^63 or 0");
      }
      for (long long i = 0; i < k; i++)
        for (int j = 0; j < ncoord; j++) {
          double v = bin_double(m);
          if (j < 3) m->x[3 * (done + i) + j] = v;
        }
    } else {
      for (long long i = 0; i < k; i++)
        if ((r = jl_tetfile_int(m->c, 1, LLONG_MAX, "a node tag", &m->tag[done + i]))) return r;
      for (long long i = 0; i < k; i++)
        for (int j = 0; j < ncoord; j++) {
          double v;
          if ((r = jl_tetfile_double(m->c, "a coordinate", &v))) return r;
          if (j < 3) m->x[3 * (done + i) + j] = v;
        }
    }
    done += k;
  }
  if (done != n) return jl_tetfile_fail(m->c, "$Nodes: the blocks hold %lld nodes, the header says %lld", done, n);
  if (m->binary) skip_newlines(m);
  return expect_end(m, "Nodes");
}

/* ---- elements -------------------------------------------------------------------- */

static JlResult elements_v2(Msh *m) {
  long long n;
  JlResult r = jl_tetfile_int(m->c, 0, LLONG_MAX, "the number of elements", &n);
  if (r || (r = jl_tetfile_check_count(m->c, n, JL_TETFILE_MAX_CELLS, m->binary ? 12.0 : 8.0, "$Elements"))) return r;
  if (m->binary) {
    jl_tetfile_next_line(m->c);
    long long done = 0;
    while (done < n) {
      if ((r = need(m, 12, "an element block header"))) return r;
      long long type = bin_int(m), k = bin_int(m), ntag = bin_int(m);
      int nn = type_nodes(type);
      if (nn == 0) return jl_tetfile_fail_at(m->c, off(m) - 12, "element type %lld is not a Gmsh element type", type);
      if (k < 1 || k > n - done || ntag < 0 || ntag > 1000)
        return jl_tetfile_fail_at(m->c, off(m) - 12, "element block of %lld elements with %lld tags (%lld left)", k,
                                  ntag, n - done);
      size_t per = (size_t)(1 + ntag + nn) * 4;
      if ((r = need(m, (size_t)k * per, "an element block"))) return r;
      if (type != 4) {
        add_skip(m, type, k);
        m->c->p += (size_t)k * per;
      } else {
        for (long long i = 0; i < k; i++) {
          size_t at = off(m);
          long long id = bin_int(m), v[4];
          m->c->p += (size_t)ntag * 4;
          for (int j = 0; j < 4; j++) v[j] = bin_int(m);
          add_tet(m, id, v, -(int)(at < INT_MAX ? at : INT_MAX - 1) - 1);
        }
      }
      done += k;
    }
    skip_newlines(m);
  } else {
    for (long long i = 0; i < n; i++) {
      long long id, type, ntag, v[4], skip;
      if ((r = jl_tetfile_int(m->c, LLONG_MIN + 1, LLONG_MAX, "an element tag", &id)) ||
          (r = jl_tetfile_int(m->c, 1, INT_MAX, "an element type", &type)) ||
          (r = jl_tetfile_int(m->c, 0, 1000, "the number of tags", &ntag)))
        return r;
      for (long long t = 0; t < ntag; t++)
        if ((r = jl_tetfile_int(m->c, LLONG_MIN + 1, LLONG_MAX, "an element's tag", &skip))) return r;
      if (type != 4) {
        add_skip(m, type, 1);
        jl_tetfile_next_line(m->c);
        continue;
      }
      int line = m->c->line;
      for (int j = 0; j < 4; j++)
        if ((r = jl_tetfile_int(m->c, LLONG_MIN + 1, LLONG_MAX, "a node tag", &v[j]))) return r;
      if (!jl_tetfile_line_empty(m->c))
        return jl_tetfile_fail(m->c, "element %lld (a 4-node tet) has more than 4 nodes", id);
      add_tet(m, id, v, line);
    }
  }
  return expect_end(m, "Elements");
}

static JlResult elements_v4(Msh *m) {
  long long nblock, n;
  JlResult r;
  if ((r = header_v4(m, "Elements", "element", &nblock, &n))) return r;
  if ((r = jl_tetfile_check_count(m->c, n, JL_TETFILE_MAX_CELLS, m->binary ? 16.0 : 4.0, "$Elements"))) return r;
  if (nblock > n + 1000 || (double)nblock * (m->binary ? 20 : 8) > (double)left(m))
    return jl_tetfile_fail(m->c, "$Elements: %lld entity blocks for %lld elements in a file of %zu bytes", nblock, n,
                           (size_t)(m->c->end - m->c->data));
  long long done = 0;
  for (long long b = 0; b < nblock; b++) {
    long long dim, ent, type, k;
    if (m->binary) {
      if ((r = need(m, 12 + (size_t)m->dsize, "an element block header"))) return r;
      dim = bin_int(m), ent = bin_int(m), type = bin_int(m), k = bin_size(m);
    } else if ((r = jl_tetfile_int(m->c, 0, 3, "an element block's dimension", &dim)) ||
               (r = jl_tetfile_int(m->c, INT_MIN, INT_MAX, "an element block's entity tag", &ent)) ||
               (r = jl_tetfile_int(m->c, 1, INT_MAX, "an element type", &type)) ||
               (r = jl_tetfile_int(m->c, 0, LLONG_MAX, "an element block's size", &k))) {
      return r;
    }
    (void)dim, (void)ent;
    if (k < 0 || k > n - done)
      return jl_tetfile_fail(m->c, "element block %lld has %lld elements, more than the %lld the header has left", b, k,
                             n - done);
    if (m->binary) {
      int nn = type_nodes(type);
      if (nn == 0)
        return jl_tetfile_fail_at(m->c, off(m), "element type %lld is not a Gmsh element type%s", type, size_hint(m));
      size_t per = (size_t)(1 + nn) * (size_t)m->dsize;
      if ((r = need(m, (size_t)k * per, "an element block"))) return r;
      if (type != 4) {
        add_skip(m, type, k);
        m->c->p += (size_t)k * per;
      } else {
        for (long long i = 0; i < k; i++) {
          size_t at = off(m);
          long long id = bin_size(m), v[4];
          for (int j = 0; j < 4; j++) v[j] = bin_size(m);
          add_tet(m, id, v, -(int)(at < INT_MAX ? at : INT_MAX - 1) - 1);
        }
      }
    } else {
      for (long long i = 0; i < k; i++) {
        if (type != 4) {
          if (!jl_tetfile_skip(m->c)) return jl_tetfile_fail(m->c, "file ends inside element block %lld", b);
          jl_tetfile_next_line(m->c);
          continue;
        }
        long long id, v[4];
        if ((r = jl_tetfile_int(m->c, LLONG_MIN + 1, LLONG_MAX, "an element tag", &id))) return r;
        int line = m->c->line;
        for (int j = 0; j < 4; j++)
          if ((r = jl_tetfile_int(m->c, LLONG_MIN + 1, LLONG_MAX, "a node tag", &v[j]))) return r;
        if (!jl_tetfile_line_empty(m->c))
          return jl_tetfile_fail(m->c, "element %lld (a 4-node tet) has more than 4 nodes", id);
        add_tet(m, id, v, line);
      }
      if (type != 4) add_skip(m, type, k);
    }
    done += k;
  }
  if (done != n)
    return jl_tetfile_fail(m->c, "$Elements: the blocks hold %lld elements, the header says %lld", done, n);
  if (m->binary) skip_newlines(m);
  return expect_end(m, "Elements");
}

/* ---- the file ---------------------------------------------------------------------- */

static JlResult mesh_format(Msh *m) {
  char w[64];
  JlResult r;
  if (!jl_tetfile_word(m->c, w, sizeof w) || strcmp(w, "$MeshFormat") != 0)
    return jl_tetfile_fail(m->c, "not a Gmsh file: it does not start with $MeshFormat");
  if (!jl_tetfile_word(m->c, w, sizeof w)) return jl_tetfile_fail(m->c, "file ends in $MeshFormat");
  long long ftype, dsize;
  if ((r = jl_tetfile_int(m->c, 0, 1, "the file type (0 ASCII, 1 binary)", &ftype)) ||
      (r = jl_tetfile_int(m->c, 1, 16, "the data size", &dsize)))
    return r;
  if (strcmp(w, "4.1") == 0)
    m->v4 = 1;
  else if (strcmp(w, "2.2") != 0 && strcmp(w, "2.1") != 0 && strcmp(w, "2") != 0 && strcmp(w, "2.0") != 0)
    return jl_tetfile_fail(
        m->c, "MSH version %.20s: Jelly reads 2.2 and 4.1 (in Gmsh: File > Export, or -format msh22/msh41)", w);
  m->binary = (int)ftype;
  m->dsize = (int)dsize;
  if (m->binary) {
    if (m->v4 && dsize != 8 && dsize != 4) return jl_tetfile_fail(m->c, "binary data size %lld; Gmsh writes 8", dsize);
    if (!m->v4 && dsize != 8)
      return jl_tetfile_fail(m->c, "binary data size %lld; 2.2 files have 8-byte doubles", dsize);
    jl_tetfile_next_line(m->c);
    if ((r = need(m, 4, "$MeshFormat"))) return r;
    uint32_t one = jl_tetfile_u32(m->c->p, 0);
    if (one == 1)
      m->big = 0;
    else if (one == 0x01000000u)
      m->big = 1;
    else
      return jl_tetfile_fail(m->c, "binary $MeshFormat: the integer 1 that gives the byte order reads %u", one);
    m->c->p += 4;
  }
  return expect_end(m, "MeshFormat");
}

static void free_msh(Msh *m) { JL_FREE_ALL(m->tag, m->x, m->ttag, m->etag, m->eline); }

JlResult jl_tetfile_read_msh(JlTetCursor *c, JlTetRaw *raw, JlTetFileReport *rep) {
  Msh m;
  memset(&m, 0, sizeof m);
  m.c = c;
  JlResult r = mesh_format(&m);
  char w[80];
  while (!r && jl_tetfile_word(c, w, sizeof w)) {
    if (w[0] != '$') {
      r = jl_tetfile_fail(c, "expected a $Section, got '%.40s'", w);
    } else if (strcmp(w, "$Nodes") == 0) {
      if (m.have_nodes)
        r = jl_tetfile_fail(c, "a second $Nodes section");
      else
        r = m.v4 ? nodes_v4(&m) : nodes_v2(&m);
      m.have_nodes = 1;
    } else if (strcmp(w, "$Elements") == 0) {
      if (!m.have_nodes)
        r = jl_tetfile_fail(c, "$Elements before $Nodes");
      else
        r = m.v4 ? elements_v4(&m) : elements_v2(&m);
    } else {
      r = skip_section(&m, w + 1);
    }
  }
  if (!r && !m.have_nodes) r = jl_tetfile_fail(c, "no $Nodes section");
  /* node tags -> indices */
  JlTagMap map;
  memset(&map, 0, sizeof map);
  if (!r) r = jl_tetfile_tagmap_build(c, &map, m.tag, m.nnode);
  if (!r) {
    raw->tet = jl_calloc((size_t)m.ntet * 4 + 1, sizeof(int));
    for (int t = 0; t < m.ntet && !r; t++)
      for (int k = 0; k < 4 && !r; k++) {
        int i = jl_tetfile_tagmap_find(&map, m.ttag[4 * (size_t)t + k]);
        if (i < 0) {
          if (m.eline[t] > 0) c->line = m.eline[t];
          r = m.eline[t] > 0 ? jl_tetfile_fail(c, "element %lld has node tag %lld which is not in $Nodes", m.etag[t],
                                               m.ttag[4 * (size_t)t + k])
                             : jl_tetfile_fail_at(c, (size_t)(-(long long)m.eline[t] - 1),
                                                  "element %lld has node tag %lld which is not in $Nodes", m.etag[t],
                                                  m.ttag[4 * (size_t)t + k]);
        }
        raw->tet[4 * (size_t)t + k] = i;
      }
    raw->ntet = m.ntet;
    raw->nnode = m.nnode;
    raw->node = m.x;
    m.x = NULL;
  }
  if (!r && m.nskip && rep) {
    char types[160] = "";
    size_t len = 0;
    for (int k = 0; k < 4 && m.skip_count[k]; k++)
      len += (size_t)snprintf(types + len, sizeof types - len, "%s%lld of type %lld", k ? ", " : "", m.skip_count[k],
                              m.skip_type[k]);
    rep->nskipped = (int)(m.nskip < INT_MAX ? m.nskip : INT_MAX);
    jl_tetfile_note(rep, "%lld elements that are not 4-node tets were skipped (%s%s)", m.nskip, types,
                    m.skip_count[3] && m.nskip > m.skip_count[0] + m.skip_count[1] + m.skip_count[2] + m.skip_count[3]
                        ? ", ..."
                        : "");
  }
  jl_tetfile_tagmap_free(&map);
  free_msh(&m);
  return r;
}
