/* Tet-mesh files (mesh/tetfile.h): reading a file whole within the size
 * limit, the text cursor the readers share, TetGen's .node/.ele, the
 * validation every format goes through and the boundary surface. Gmsh is in
 * tetfile_msh.c, VTK in tetfile_vtk.c; tetfile_internal.h is what they share.
 *
 * Method. A reader turns the bytes into file-order nodes and 0-based tets
 * (JlTetRaw); it checks each count it is about to allocate for against the bytes
 * left (an ASCII number takes at least 2 bytes, a binary one its size) and
 * against JL_TETFILE_MAX_*, so a 100-byte file claiming 2e9 nodes fails
 * before any allocation. finish() then checks what does not depend on the
 * format: indices in range, four distinct nodes per tet, finite referenced
 * coordinates, no tet whose volume is below 1e-10 of its longest edge cubed
 * (a regular tet has 0.118; such a tet has no stiffness against collapse and
 * its inverse shape matrix blows up), no tet twice and no face shared by
 * more than two tets (overlapping tets: their springs would count twice), and
 * normalizes orientation (a file's
 * tets may come in either order: Gmsh's and VTK's convention differ from
 * TetGen's, and meshes converted between them mix both), dropping unused
 * nodes. The mesh is then finished as jl_tetgen_build finishes its own:
 * Hilbert reordering and topology. */
#define _POSIX_C_SOURCE 200809L
#include "mesh/tetfile_internal.h"
#include "mesh/grid.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/child.h"
#include "mesh/screen.h"

/* ---- messages and notes ----------------------------------------------------- */

JlResult jl_tetfile_fail(JlTetCursor *c, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: line %d: %s", c->name, c->line, msg);
}

JlResult jl_tetfile_fail_at(JlTetCursor *c, size_t off, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: byte %zu: %s", c->name, off, msg);
}

void jl_tetfile_note(JlTetFileReport *rep, const char *fmt, ...) {
  if (!rep || rep->nnote >= JL_TETFILE_MAX_NOTES) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rep->note[rep->nnote++], sizeof rep->note[0], fmt, ap);
  va_end(ap);
}

/* ---- text cursor ------------------------------------------------------------- */

static int is_blank(int ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v'; }

int jl_tetfile_skip(JlTetCursor *c) {
  while (c->p < c->end) {
    int ch = *c->p;
    if (ch == '\n') {
      c->line++;
      c->p++;
    } else if (is_blank(ch)) {
      c->p++;
    } else if (ch == '#' && c->hash_comments) {
      while (c->p < c->end && *c->p != '\n') c->p++;
    } else {
      return 1;
    }
  }
  return 0;
}

void jl_tetfile_next_line(JlTetCursor *c) {
  while (c->p < c->end && *c->p != '\n') c->p++;
  if (c->p < c->end) {
    c->p++;
    c->line++;
  }
}

int jl_tetfile_line_empty(JlTetCursor *c) {
  const unsigned char *q = c->p;
  while (q < c->end && is_blank(*q)) q++;
  return q >= c->end || *q == '\n' || (*q == '#' && c->hash_comments);
}

int jl_tetfile_word(JlTetCursor *c, char *buf, size_t cap) {
  if (!jl_tetfile_skip(c)) return 0;
  size_t n = 0;
  while (c->p < c->end && !is_blank(*c->p) && *c->p != '\n') {
    if (n + 1 < cap) buf[n++] = (char)*c->p;
    c->p++;
  }
  if (cap) buf[n] = 0;
  return 1;
}

JlResult jl_tetfile_int(JlTetCursor *c, long long lo, long long hi, const char *what, long long *out) {
  if (!jl_tetfile_skip(c)) return jl_tetfile_fail(c, "file ends where %s was expected", what);
  const unsigned char *q = c->p;
  int neg = 0;
  if (*q == '-' || *q == '+') neg = *q++ == '-';
  if (q >= c->end || *q < '0' || *q > '9') return jl_tetfile_fail(c, "expected %s (a whole number)", what);
  unsigned long long v = 0;
  int over = 0;
  while (q < c->end && *q >= '0' && *q <= '9') {
    if (v > (ULLONG_MAX - 9) / 10)
      over = 1;
    else
      v = v * 10 + (unsigned)(*q - '0');
    q++;
  }
  if (q < c->end && !is_blank(*q) && *q != '\n' && !(*q == '#' && c->hash_comments))
    return jl_tetfile_fail(c, "expected %s (a whole number), got a token with '%c' in it", what, *q);
  c->p = q;
  if (over || v > (unsigned long long)LLONG_MAX) return jl_tetfile_fail(c, "%s is too large", what);
  long long s = neg ? -(long long)v : (long long)v;
  if (s < lo || s > hi) return jl_tetfile_fail(c, "%s %lld is out of range %lld..%lld", what, s, lo, hi);
  *out = s;
  return JL_OK;
}

JlResult jl_tetfile_double(JlTetCursor *c, const char *what, double *out) {
  if (!jl_tetfile_skip(c)) return jl_tetfile_fail(c, "file ends where %s was expected", what);
  /* strtod stops at the NUL after the data at the latest */
  char tok[64];
  size_t n = 0;
  const unsigned char *q = c->p;
  while (q < c->end && !is_blank(*q) && *q != '\n' && n + 1 < sizeof tok) tok[n++] = (char)*q++;
  tok[n] = 0;
  if (q < c->end && !is_blank(*q) && *q != '\n')
    return jl_tetfile_fail(c, "expected %s (a number), got a token of more than %zu characters", what, sizeof tok - 1);
  char *endp;
  errno = 0;
  double v = strtod(tok, &endp);
  if (endp == tok || *endp) return jl_tetfile_fail(c, "expected %s (a number), got '%.20s'", what, tok);
  c->p = q;
  *out = v;
  return JL_OK;
}

JlResult jl_tetfile_check_count(JlTetCursor *c, long long n, long long cap, double min_bytes, const char *what) {
  double left = (double)(c->end - c->p);
  if (n < 0) return jl_tetfile_fail(c, "%s: negative count %lld", what, n);
  if (n > cap) return jl_tetfile_fail(c, "%s: %lld is more than the limit of %lld", what, n, cap);
  /* the last item may lack its separator */
  if ((double)n * min_bytes - 1.0 > left)
    return jl_tetfile_fail(c, "%s: %lld promised but only %.0f bytes are left in the file (file truncated?)", what, n,
                           left);
  return JL_OK;
}

/* ---- tag maps ------------------------------------------------------------------- */

static int cmp_pair(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

JlResult jl_tetfile_tagmap_build(JlTetCursor *c, JlTagMap *m, const long long *tags, int n) {
  memset(m, 0, sizeof *m);
  m->n = n;
  if (n == 0) return JL_OK;
  long long lo = tags[0], hi = tags[0];
  for (int i = 1; i < n; i++) {
    if (tags[i] < lo) lo = tags[i];
    if (tags[i] > hi) hi = tags[i];
  }
  m->min_tag = lo;
  /* dense when the tags span at most 4 x their count (Gmsh's usual 1..n) */
  if ((double)hi - (double)lo < 4.0 * n + 64) {
    size_t span = (size_t)(hi - lo) + 1;
    m->dense = 1;
    m->span = (long long)span;
    m->index = jl_calloc(span, sizeof(int));
    for (size_t i = 0; i < span; i++) m->index[i] = -1;
    for (int i = 0; i < n; i++) {
      int *slot = &m->index[tags[i] - lo];
      if (*slot >= 0) return jl_tetfile_fail(c, "node tag %lld appears twice", tags[i]);
      *slot = i;
    }
    return JL_OK;
  }
  m->pairs = jl_calloc((size_t)n * 2, sizeof(long long));
  for (int i = 0; i < n; i++) {
    m->pairs[2 * i] = tags[i];
    m->pairs[2 * i + 1] = i;
  }
  qsort(m->pairs, (size_t)n, 2 * sizeof(long long), cmp_pair);
  for (int i = 1; i < n; i++)
    if (m->pairs[2 * i] == m->pairs[2 * i - 2])
      return jl_tetfile_fail(c, "node tag %lld appears twice", m->pairs[2 * i]);
  return JL_OK;
}

int jl_tetfile_tagmap_find(const JlTagMap *m, long long tag) {
  if (m->n == 0 || tag < m->min_tag) return -1;
  if (m->dense) {
    long long k = tag - m->min_tag;
    return k < m->span ? m->index[k] : -1;
  }
  int lo = 0, hi = m->n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    long long t = m->pairs[2 * mid];
    if (t == tag) return (int)m->pairs[2 * mid + 1];
    if (t < tag)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

void jl_tetfile_tagmap_free(JlTagMap *m) {
  JL_FREE_ALL(m->index, m->pairs);
  memset(m, 0, sizeof *m);
}

/* ---- files ---------------------------------------------------------------------- */

/* Reads a regular file within the size limit whole, NUL-terminated. */
static JlResult read_file(const char *path, unsigned char **data, size_t *size, char *err, size_t errsz) {
  *data = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  JlResult r = JL_OK;
  if (fstat(fd, &st) != 0)
    r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: cannot stat: %s", path, strerror(errno));
  else if (S_ISDIR(st.st_mode))
    r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: is a directory", path);
  else if (!S_ISREG(st.st_mode))
    r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: is not a regular file", path);
  else if (st.st_size == 0)
    r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: file is empty (0 bytes)", path);
  else if ((double)st.st_size > jl_mesh_limits().file_mb * 1048576.0)
    r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: file is %.0f MB, over the %g MB of the mesh limit max_file_mb", path,
                (double)st.st_size / 1048576.0, jl_mesh_limits().file_mb);
  if (r) {
    close(fd);
    return r;
  }
  size_t n = (size_t)st.st_size;
  unsigned char *buf = jl_calloc(n + 1, 1);
  size_t got = 0;
  while (got < n) {
    ssize_t k = read(fd, buf + got, n - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd);
  if (got != n) {
    free(buf);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: could read only %zu of %zu bytes", path, got, n);
  }
  *data = buf;
  *size = n;
  return JL_OK;
}

int jl_tetfile_is_volume(const char *path) {
  if (!path) return 0;
  return jl_ends_with_ci(path, ".node") || jl_ends_with_ci(path, ".ele") || jl_ends_with_ci(path, ".msh") ||
         jl_ends_with_ci(path, ".vtk") || jl_ends_with_ci(path, ".vtu");
}

/* ---- TetGen .node / .ele ----------------------------------------------------------- */

/* .node: "<#points> <dim=3> <#attributes> <#markers 0|1>", then
 * "<index> x y z [attributes] [marker]"; the first index sets the base */
static JlResult read_node(JlTetCursor *c, JlTetRaw *raw, int *base) {
  long long n, dim, nattr, nmark;
  JlResult r;
  if ((r = jl_tetfile_int(c, 0, LLONG_MAX, "the number of points", &n)) ||
      (r = jl_tetfile_int(c, 3, 3, "the dimension", &dim)) ||
      (r = jl_tetfile_int(c, 0, 1000, "the number of attributes", &nattr)) ||
      (r = jl_tetfile_int(c, 0, 1, "the number of boundary markers", &nmark)))
    return r;
  if ((r = jl_tetfile_check_count(c, n, JL_TETFILE_MAX_NODES, 8.0 + 2.0 * (double)(nattr + nmark), "points"))) return r;
  raw->nnode = (int)n;
  raw->node = jl_calloc((size_t)n * 3 + 1, sizeof(double));
  for (long long i = 0; i < n; i++) {
    long long id;
    if ((r = jl_tetfile_int(c, INT_MIN, INT_MAX, "a point index", &id))) return r;
    if (i == 0) {
      if (id != 0 && id != 1)
        return jl_tetfile_fail(c, "the first point has index %lld; TetGen files start at 0 or 1", id);
      *base = (int)id;
    } else if (id != *base + i) {
      return jl_tetfile_fail(c, "point index %lld where %lld was expected (indices must be consecutive)", id,
                             *base + i);
    }
    for (int k = 0; k < 3; k++)
      if ((r = jl_tetfile_double(c, "a coordinate", &raw->node[3 * i + k]))) return r;
    for (long long a = 0; a < nattr + nmark; a++) {
      double skip;
      if ((r = jl_tetfile_double(c, "an attribute or marker", &skip))) return r;
    }
    if (!jl_tetfile_line_empty(c)) return jl_tetfile_fail(c, "point %lld has more values than the header says", id);
  }
  return JL_OK;
}

/* .ele: "<#tets> <nodes per tet 4|10> <#attributes>", then
 * "<index> n1 n2 n3 n4 [n5..n10] [attributes]" */
static JlResult read_ele(JlTetCursor *c, JlTetRaw *raw, int base, JlTetFileReport *rep) {
  long long n, per, nattr;
  JlResult r;
  if ((r = jl_tetfile_int(c, 0, LLONG_MAX, "the number of tets", &n)) ||
      (r = jl_tetfile_int(c, 4, 10, "the number of nodes per tet", &per)) ||
      (r = jl_tetfile_int(c, 0, 1000, "the number of attributes", &nattr)))
    return r;
  if (per != 4 && per != 10) return jl_tetfile_fail(c, "tets with %lld nodes; TetGen writes 4 or 10", per);
  if ((r = jl_tetfile_check_count(c, n, JL_TETFILE_MAX_CELLS, 2.0 * (double)(1 + per + nattr), "tets"))) return r;
  raw->ntet = (int)n;
  raw->tet = jl_calloc((size_t)n * 4 + 1, sizeof(int));
  for (long long i = 0; i < n; i++) {
    long long id, v;
    if ((r = jl_tetfile_int(c, INT_MIN, INT_MAX, "a tet index", &id))) return r;
    for (int k = 0; k < per; k++) {
      if ((r = jl_tetfile_int(c, INT_MIN, INT_MAX, "a node index", &v))) return r;
      if (k < 4) {
        if (v - base < 0 || v - base >= raw->nnode)
          return jl_tetfile_fail(c, "tet %lld has node %lld, not in the .node file (%d points from %d)", id, v,
                                 raw->nnode, base);
        raw->tet[4 * i + k] = (int)(v - base);
      }
    }
    for (long long a = 0; a < nattr; a++) {
      double skip;
      if ((r = jl_tetfile_double(c, "an attribute", &skip))) return r;
    }
    if (!jl_tetfile_line_empty(c)) return jl_tetfile_fail(c, "tet %lld has more values than the header says", id);
  }
  if (per == 10) jl_tetfile_note(rep, "%lld quadratic (10-node) tets: only their corners are used", n);
  return JL_OK;
}

/* stem of a .node or .ele path with the other extension */
static int sibling(const char *path, const char *ext, char *out, size_t n) {
  const char *dot = strrchr(path, '.');
  size_t stem = dot ? (size_t)(dot - path) : strlen(path);
  int len = snprintf(out, n, "%.*s%s", (int)stem, path, ext);
  return len >= 0 && (size_t)len < n;
}

static JlResult read_tetgen(const char *name, const unsigned char *data, size_t size, JlTetRaw *raw,
                            JlTetFileReport *rep, char *err, size_t errsz) {
  int is_node = jl_ends_with_ci(name, ".node");
  char other[4200];
  if (!sibling(name, is_node ? ".ele" : ".node", other, sizeof other))
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: path too long", name);
  unsigned char *odata = NULL;
  size_t osize = 0;
  char msg[600];
  if (read_file(other, &odata, &osize, msg, sizeof msg) != JL_OK)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: a TetGen mesh needs its %s file beside it: %s", name,
                   is_node ? ".ele" : ".node", msg);
  JlTetCursor cn = {is_node ? name : other, is_node ? data : odata, NULL, NULL, 1, 1, err, errsz};
  cn.p = cn.data;
  cn.end = cn.data + (is_node ? size : osize);
  JlTetCursor ce = {is_node ? other : name, is_node ? odata : data, NULL, NULL, 1, 1, err, errsz};
  ce.p = ce.data;
  ce.end = ce.data + (is_node ? osize : size);
  int base = 0;
  JlResult r = read_node(&cn, raw, &base);
  if (!r) r = read_ele(&ce, raw, base, rep);
  free(odata);
  return r;
}

/* ---- validation ------------------------------------------------------------------ */

static int cmp_tri(const void *a, const void *b) {
  const int *x = a, *y = b;
  for (int k = 0; k < 3; k++)
    if (x[k] != y[k]) return (x[k] > y[k]) - (x[k] < y[k]);
  return 0;
}

static int cmp_quad(const void *a, const void *b) {
  const int *x = a, *y = b;
  for (int k = 0; k < 5; k++)
    if (x[k] != y[k]) return (x[k] > y[k]) - (x[k] < y[k]);
  return 0;
}

/* Tets with the same four nodes as an earlier one: how many; the first pair
 * (file order) in pair[2]. */
static int duplicate_tets(const int *tet, int ntet, int pair[2]) {
  int *q = jl_calloc((size_t)ntet * 5 + 1, sizeof(int)); /* sorted nodes, tet index */
  for (int t = 0; t < ntet; t++) {
    int *r = q + 5 * (size_t)t;
    memcpy(r, tet + 4 * (size_t)t, 4 * sizeof(int));
    for (int i = 1; i < 4; i++)
      for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
        int x = r[j];
        r[j] = r[j - 1];
        r[j - 1] = x;
      }
    r[4] = t;
  }
  qsort(q, (size_t)ntet, 5 * sizeof(int), cmp_quad);
  int dup = 0;
  for (size_t i = 1; i < (size_t)ntet; i++)
    if (memcmp(q + 5 * i, q + 5 * (i - 1), 4 * sizeof(int)) == 0 && dup++ == 0) {
      pair[0] = q[5 * (i - 1) + 4];
      pair[1] = q[5 * i + 4];
    }
  free(q);
  return dup;
}

/* Faces (sorted node triples) of more than two tets: duplicated or
 * overlapping tets, which a conforming mesh never has. Returns how many
 * faces, the first in first[3]. */
static int overshared_faces(const int *tet, int ntet, int first[3]) {
  static const int corner[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  int *f = jl_calloc((size_t)ntet * 12 + 1, sizeof(int));
  for (int t = 0; t < ntet; t++)
    for (int k = 0; k < 4; k++) {
      int *q = f + 12 * (size_t)t + 3 * k;
      for (int j = 0; j < 3; j++) q[j] = tet[4 * t + corner[k][j]];
      /* three-element sort */
      if (q[0] > q[1]) {
        int x = q[0];
        q[0] = q[1];
        q[1] = x;
      }
      if (q[1] > q[2]) {
        int x = q[1];
        q[1] = q[2];
        q[2] = x;
      }
      if (q[0] > q[1]) {
        int x = q[0];
        q[0] = q[1];
        q[1] = x;
      }
    }
  qsort(f, (size_t)ntet * 4, 3 * sizeof(int), cmp_tri);
  int bad = 0;
  for (size_t i = 2; i < (size_t)ntet * 4; i++)
    if (cmp_tri(f + 3 * i, f + 3 * (i - 2)) == 0 && (i < 3 || cmp_tri(f + 3 * i, f + 3 * (i - 3)) != 0)) {
      if (bad++ == 0) memcpy(first, f + 3 * i, 3 * sizeof(int));
    }
  free(f);
  return bad;
}

static JlResult finish(const char *name, JlTetRaw *raw, JlTetMesh *out, JlTetFileReport *rep, char *err, size_t errsz) {
  int nnode = raw->nnode, ntet = raw->ntet;
  if (rep) {
    rep->nnode_file = nnode;
    rep->ntet_file = ntet;
  }
  if (ntet == 0)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: no tets (%d nodes%s)", name, nnode,
                   rep && rep->nskipped ? ", other elements only" : "");
  /* indices, repeated nodes, finite referenced nodes */
  unsigned char *used = jl_calloc((size_t)nnode + 1, 1);
  JlResult r = JL_OK;
  for (int t = 0; t < ntet && !r; t++) {
    const int *v = raw->tet + 4 * t;
    for (int k = 0; k < 4 && !r; k++) {
      if (v[k] < 0 || v[k] >= nnode)
        r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: tet %d has node index %d, out of range 0..%d", name, t, v[k],
                    nnode - 1);
      for (int j = 0; j < k && !r; j++)
        if (v[j] == v[k])
          r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: tet %d (nodes %d %d %d %d) has node %d twice", name, t, v[0], v[1],
                      v[2], v[3], v[k]);
    }
    for (int k = 0; k < 4 && !r; k++) {
      const double *x = raw->node + 3 * v[k];
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: node %d (of tet %d) has a non-finite coordinate (%g %g %g)", name,
                    v[k], t, x[0], x[1], x[2]);
      else if (fabs(x[0]) > 1e100 || fabs(x[1]) > 1e100 || fabs(x[2]) > 1e100)
        r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: node %d (of tet %d) has a coordinate beyond 1e100 (%g %g %g)", name,
                    v[k], t, x[0], x[1], x[2]);
      used[v[k]] = 1;
    }
  }
  if (r) {
    free(used);
    return r;
  }
  /* degenerate tets (error) and orientation (flip) */
  int ndegen = 0, first_degen = -1, nflip = 0;
  double first_ratio = 0;
  for (int t = 0; t < ntet; t++) {
    int *v = raw->tet + 4 * t;
    const double *x[4] = {raw->node + 3 * v[0], raw->node + 3 * v[1], raw->node + 3 * v[2], raw->node + 3 * v[3]};
    double lmax = 0;
    for (int a = 0; a < 4; a++)
      for (int b = a + 1; b < 4; b++) {
        double d[3] = {x[a][0] - x[b][0], x[a][1] - x[b][1], x[a][2] - x[b][2]};
        lmax = fmax(lmax, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      }
    double vol = jl_tet_volume(x[0], x[1], x[2], x[3]);
    if (!(fabs(vol) > 1e-10 * lmax * lmax * lmax)) {
      if (ndegen++ == 0) {
        first_degen = t;
        first_ratio = lmax > 0 ? fabs(vol) / (lmax * lmax * lmax) : 0;
      }
      continue;
    }
    if (vol < 0) {
      int tmp = v[2];
      v[2] = v[3];
      v[3] = tmp;
      nflip++;
    }
  }
  if (ndegen) {
    const int *v = raw->tet + 4 * first_degen;
    free(used);
    return jl_fail(
        err, errsz, JL_ERR_INPUT,
        "%s: %d degenerate tet%s (zero or near-zero volume); first tet %d (nodes %d %d %d %d), volume %.3g x "
        "its longest edge cubed (at least 1e-10 needed)",
        name, ndegen, ndegen == 1 ? "" : "s", first_degen, v[0], v[1], v[2], v[3], first_ratio);
  }
  int pair[2] = {0, 0};
  int ndup = duplicate_tets(raw->tet, ntet, pair);
  if (ndup) {
    free(used);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: %d duplicated tet%s; first: tets %d and %d have the same nodes", name,
                   ndup, ndup == 1 ? "" : "s", pair[0], pair[1]);
  }
  int face[3] = {0, 0, 0};
  int nshared = overshared_faces(raw->tet, ntet, face);
  if (nshared) {
    free(used);
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "%s: %d face%s shared by more than two tets (overlapping tets); first face nodes %d %d "
                   "%d",
                   name, nshared, nshared == 1 ? " is" : "s are", face[0], face[1], face[2]);
  }
  if (nflip) jl_tetfile_note(rep, "%d of %d tets had negative volume and were reoriented", nflip, ntet);
  /* unused nodes dropped */
  int *remap = jl_calloc((size_t)nnode + 1, sizeof(int));
  int kept = 0;
  for (int i = 0; i < nnode; i++) {
    if (!used[i]) {
      remap[i] = -1;
      continue;
    }
    if (kept != i) memcpy(raw->node + 3 * kept, raw->node + 3 * i, 3 * sizeof(double));
    remap[i] = kept++;
  }
  for (int i = 0; i < 4 * ntet; i++) raw->tet[i] = remap[raw->tet[i]];
  free(remap);
  free(used);
  if (kept < nnode) jl_tetfile_note(rep, "%d of %d nodes are in no tet and were dropped", nnode - kept, nnode);
  if (rep) {
    rep->nflipped = nflip;
    rep->nunused = nnode - kept;
  }
  /* the finished mesh, as jl_tetgen_build leaves it */
  memset(out, 0, sizeof *out);
  out->nnode = kept;
  out->node = jl_realloc(raw->node, (size_t)kept * 3 + 1, sizeof(double));
  out->ntet = ntet;
  out->tet = raw->tet;
  raw->node = NULL;
  raw->tet = NULL;
  jl_tetmesh_reorder(out);
  jl_tetmesh_topology(out);
  return JL_OK;
}

/* ---- entry points ------------------------------------------------------------------ */

JlResult jl_tetfile_parse(const char *name, const unsigned char *data, size_t size, JlTetMesh *out,
                          JlTetFileReport *rep, char *err, size_t errsz) {
  JL_ASSERT(name && (data || !size) && out, "jl_tetfile_parse needs a name, the bytes and an output");
  memset(out, 0, sizeof *out);
  if (rep) memset(rep, 0, sizeof *rep);
  if (size == 0) return jl_fail(err, errsz, JL_ERR_INPUT, "%s: file is empty (0 bytes)", name);
  /* the readers rely on a NUL after the data (strtod, strstr) */
  unsigned char *buf = jl_calloc(size + 1, 1);
  memcpy(buf, data, size);
  JlTetRaw raw = {0, 0, NULL, NULL};
  JlTetCursor c = {name, buf, buf, buf + size, 1, 0, err, errsz};
  JlResult r;
  if (jl_ends_with_ci(name, ".node") || jl_ends_with_ci(name, ".ele"))
    r = read_tetgen(name, buf, size, &raw, rep, err, errsz);
  else if (jl_ends_with_ci(name, ".msh"))
    r = jl_tetfile_read_msh(&c, &raw, rep);
  else if (jl_ends_with_ci(name, ".vtk"))
    r = jl_tetfile_read_vtk(&c, &raw, rep);
  else if (jl_ends_with_ci(name, ".vtu"))
    r = jl_tetfile_read_vtu(&c, &raw, rep);
  else
    r = jl_fail(err, errsz, JL_ERR_INPUT, "%s: not a tet-mesh file (.node/.ele, .msh, .vtk or .vtu)", name);
  free(buf);
  if (!r) r = finish(name, &raw, out, rep, err, errsz);
  JL_FREE_ALL(raw.node, raw.tet);
  if (r) jl_tetmesh_free(out);
  return r;
}

JlResult jl_tetfile_load(const char *path, JlTetMesh *out, JlTetFileReport *rep, char *err, size_t errsz) {
  JL_ASSERT(path && out, "jl_tetfile_load needs a path and an output");
  memset(out, 0, sizeof *out);
  if (rep) memset(rep, 0, sizeof *rep);
  unsigned char *data;
  size_t size;
  JlResult r = read_file(path, &data, &size, err, errsz);
  if (r) return r;
  r = jl_tetfile_parse(path, data, size, out, rep, err, errsz);
  free(data);
  return r;
}

void jl_tetmesh_boundary_surface(const JlTetMesh *t, JlSurface *s) {
  JL_ASSERT(t && s, "jl_tetmesh_boundary_surface needs a tet mesh with topology and an output");
  int *map = jl_calloc((size_t)t->nnode + 1, sizeof(int));
  for (int i = 0; i < 3 * t->nface; i++) map[t->face[i]] = 1;
  int nv = 0;
  for (int i = 0; i < t->nnode; i++) map[i] = map[i] ? nv++ : -1;
  s->nvert = nv;
  s->ntri = t->nface;
  s->vert = jl_calloc((size_t)nv * 3 + 1, sizeof(double));
  s->tri = jl_calloc((size_t)t->nface * 3 + 1, sizeof(int));
  for (int i = 0; i < t->nnode; i++)
    if (map[i] >= 0) memcpy(s->vert + 3 * map[i], t->node + 3 * i, 3 * sizeof(double));
  for (int i = 0; i < 3 * t->nface; i++) s->tri[i] = map[t->face[i]];
  free(map);
}

/* 6 x the signed volume of (a, b, c, d) */
static double vol6(const double *a, const double *b, const double *c, const double *d) {
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
  return u[0] * (v[1] * w[2] - v[2] * w[1]) + u[1] * (v[2] * w[0] - v[0] * w[2]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

/* 1 when p lies strictly inside tet v (every barycentric weight above a
 * 1e-9 relative margin; the tet's orientation does not matter) */
static int strictly_inside(const double *x, const int *v, const double p[3]) {
  const double *a = x + 3 * v[0], *b = x + 3 * v[1], *c = x + 3 * v[2], *d = x + 3 * v[3];
  double vol = vol6(a, b, c, d);
  if (vol == 0.0) return 0;
  double w[4] = {vol6(p, b, c, d), vol6(a, p, c, d), vol6(a, b, p, d), vol6(a, b, c, p)};
  for (int k = 0; k < 4; k++)
    if (!(w[k] / vol > 1e-9)) return 0;
  return 1;
}

void jl_tetmesh_plausibility(const JlTetMesh *t, JlTetPlausibility *p) {
  JL_ASSERT(t && p, "jl_tetmesh_plausibility needs a tet mesh and an output");
  memset(p, 0, sizeof *p);
  p->first_overlap = p->other = -1;
  if (t->nnode <= 0 || t->ntet <= 0) return;
  double *lo = p->lo, *hi = p->hi;
  memcpy(lo, t->node, sizeof p->lo);
  memcpy(hi, t->node, sizeof p->hi);
  for (int i = 0; i < t->nnode; i++)
    for (int k = 0; k < 3; k++) {
      double v = t->node[3 * i + k];
      if (v < lo[k]) lo[k] = v;
      if (v > hi[k]) hi[k] = v;
    }
  p->extent =
      sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
  if (!(p->extent > 0.0) || !isfinite(p->extent)) return;
  /* the tets in a grid by their boxes (cells about the mean tet's size); each tet's centre tested
   * against the tets of its cell: in a valid mesh it lies in its own tet only */
  size_t n = (size_t)t->ntet;
  double *blo = jl_calloc(3 * n + 3, sizeof(double)), *bhi = jl_calloc(3 * n + 3, sizeof(double));
  double mean = 0.0;
  for (size_t e = 0; e < n; e++) {
    const int *v = t->tet + 4 * e;
    for (int k = 0; k < 3; k++) {
      double a = t->node[3 * v[0] + k], b = a;
      for (int j = 1; j < 4; j++) {
        double c = t->node[3 * v[j] + k];
        a = c < a ? c : a;
        b = c > b ? c : b;
      }
      blo[3 * e + k] = a;
      bhi[3 * e + k] = b;
      mean += (b - a) / (3.0 * (double)n);
    }
  }
  double cell[3] = {mean, mean, mean};
  JlGrid g;
  jl_grid_build(&g, lo, hi, cell, t->ntet, blo, bhi);
  for (size_t e = 0; e < n; e++) {
    const int *v = t->tet + 4 * e;
    double c[3] = {0, 0, 0};
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++) c[k] += 0.25 * t->node[3 * v[j] + k];
    int i0[3], i1[3];
    jl_grid_cells(&g, c, c, i0, i1);
    int cellid = (i0[2] * g.n[1] + i0[1]) * g.n[0] + i0[0];
    for (int q = g.start[cellid]; q < g.start[cellid + 1]; q++) {
      int f = g.item[q];
      if ((size_t)f == e) continue;
      if (c[0] < blo[3 * f] || c[1] < blo[3 * f + 1] || c[2] < blo[3 * f + 2] || c[0] > bhi[3 * f] ||
          c[1] > bhi[3 * f + 1] || c[2] > bhi[3 * f + 2])
        continue;
      if (!strictly_inside(t->node, t->tet + 4 * f, c)) continue;
      if (p->noverlap++ == 0) p->first_overlap = (int)e, p->other = f;
      break;
    }
  }
  jl_grid_free(&g);
  free(blo);
  free(bhi);
}
