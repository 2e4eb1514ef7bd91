/* VTK readers (mesh/tetfile.h): legacy .vtk and XML .vtu unstructured grids.
 *
 * Format: "VTK File Formats" (VTK User's Guide, ch. 19, and the VTK 9
 * documentation of the 5.1 legacy layout). Legacy files: a version line, a
 * title, ASCII or BINARY (big-endian), DATASET UNSTRUCTURED_GRID, then
 * POINTS, CELLS and CELL_TYPES; CELLS is "CELLS n size" with a count before
 * each cell's ids up to version 4.2, and "CELLS nOffsets nConnectivity"
 * followed by OFFSETS and CONNECTIVITY arrays from 5.0 on. METADATA blocks
 * (to the next empty line) and FIELD arrays are skipped; POINT_DATA and
 * CELL_DATA end the part Jelly reads.
 *
 * .vtu: a minimal XML scanner for this subset, not a general XML parser:
 * tags are read up to <AppendedData> (after which raw bytes follow), the one
 * Piece's NumberOfPoints/NumberOfCells, the first DataArray in <Points> and
 * the connectivity, offsets and types arrays in <Cells>. Each array may be
 * ascii, binary (base64 of a UInt32 or UInt64 byte-count header and the
 * data, which VTK encodes separately and meshio together: the decoder takes
 * 4-character groups, so both read the same) or appended (raw or base64, at
 * its offset after the '_'), with or without vtkZLibDataCompressor (a header
 * of block count, block size, last block size and the compressed sizes,
 * then one zlib stream per block). Every declared size is checked against
 * the bytes there are and the count expected before allocating; a
 * compressed block may not claim more than zlib's largest ratio (1032:1)
 * allows, so a few bytes cannot ask for gigabytes.
 *
 * VTK cell type 10 (tetra) is kept; other cells are skipped with a note. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mesh/tetfile_internal.h"

#define VTK_TETRA 10

/* cells (offsets + connectivity + types) -> tets; nodes must be set */
static JlResult cells_to_tets(JlTetCursor *c, JlTetRaw *raw, long long ncell, const long long *offs, long long nconn,
                              const long long *conn, const long long *types, JlTetFileReport *rep) {
  long long ntet = 0;
  for (long long i = 0; i < ncell; i++) ntet += types[i] == VTK_TETRA;
  raw->tet = jl_calloc((size_t)ntet * 4 + 1, sizeof(int));
  long long skipped = 0, first_type = -1, t = 0;
  for (long long i = 0; i < ncell; i++) {
    long long a = offs[i], b = offs[i + 1];
    if (a < 0 || b < a || b > nconn)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT,
                     "%s: cell %lld: offsets %lld..%lld outside the %lld connectivity entries", c->name, i, a, b,
                     nconn);
    if (types[i] != VTK_TETRA) {
      if (skipped++ == 0) first_type = types[i];
      continue;
    }
    if (b - a != 4)
      return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: cell %lld is a tetra (type 10) with %lld points, not 4",
                     c->name, i, b - a);
    for (int k = 0; k < 4; k++) {
      long long v = conn[a + k];
      if (v < 0 || v >= raw->nnode)
        return jl_fail(c->err, c->errsz, JL_ERR_INPUT, "%s: cell %lld has point id %lld, out of range 0..%d", c->name,
                       i, v, raw->nnode - 1);
      raw->tet[4 * t + k] = (int)v;
    }
    t++;
  }
  raw->ntet = (int)ntet;
  if (skipped) {
    if (rep) rep->nskipped = (int)skipped;
    jl_tetfile_note(rep, "%lld cells that are not tetra (VTK type 10) were skipped (the first of type %lld)", skipped,
                    first_type);
  }
  return JL_OK;
}

/* ---- legacy .vtk --------------------------------------------------------------- */

typedef struct VType {
  const char *name;
  int size, is_float, is_signed;
} VType;

static const VType *vtype(const char *name) {
  static const VType t[] = {
      {"float", 4, 1, 1},          {"double", 8, 1, 1},        {"int", 4, 0, 1},           {"unsigned_int", 4, 0, 0},
      {"long", 8, 0, 1},           {"unsigned_long", 8, 0, 0}, {"short", 2, 0, 1},         {"unsigned_short", 2, 0, 0},
      {"char", 1, 0, 1},           {"unsigned_char", 1, 0, 0}, {"bit", 1, 0, 0},           {"vtktypeint64", 8, 0, 1},
      {"vtktypeint32", 4, 0, 1},   {"vtkIdType", 4, 0, 1},     {"vtktypeuint64", 8, 0, 0}, {"vtktypeuint32", 4, 0, 0},
      {"vtktypeint8", 1, 0, 1},    {"vtktypeuint8", 1, 0, 0},  {"vtktypeint16", 2, 0, 1},  {"vtktypeuint16", 2, 0, 0},
      {"vtktypefloat32", 4, 1, 1}, {"vtktypefloat64", 8, 1, 1}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp(t[i].name, name) == 0) return &t[i];
  return NULL;
}

/* one binary value of type t at p (big- or little-endian) */
static void load_value(const unsigned char *p, const VType *t, int big, double *d, long long *i) {
  uint64_t u = 0;
  switch (t->size) {
    case 1:
      u = p[0];
      break;
    case 2:
      u = big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
      break;
    case 4:
      u = jl_tetfile_u32(p, big);
      break;
    default:
      u = jl_tetfile_u64(p, big);
      break;
  }
  if (t->is_float) {
    double v;
    if (t->size == 4) {
      uint32_t w = (uint32_t)u;
      float f;
      memcpy(&f, &w, 4);
      v = f;
    } else {
      memcpy(&v, &u, 8);
    }
    if (d) *d = v;
    if (i) *i = v >= -9e18 && v <= 9e18 ? (long long)v : LLONG_MIN;
    return;
  }
  long long s;
  if (!t->is_signed)
    s = u > (uint64_t)LLONG_MAX ? LLONG_MIN : (long long)u;
  else if (t->size == 1)
    s = (int8_t)u;
  else if (t->size == 2)
    s = (int16_t)u;
  else if (t->size == 4)
    s = (int32_t)u;
  else
    s = (int64_t)u;
  if (d) *d = (double)s;
  if (i) *i = s;
}

/* n values of legacy type `tname` into d (doubles) or i (integers) */
static JlResult legacy_values(JlTetCursor *c, int binary, long long n, const char *tname, double *d, long long *i,
                              const char *what) {
  const VType *t = vtype(tname);
  if (!t) return jl_tetfile_fail(c, "%s: unknown data type '%.30s'", what, tname);
  JlResult r;
  if (binary) {
    jl_tetfile_next_line(c);
    size_t bytes = (size_t)n * (size_t)t->size;
    if ((size_t)(c->end - c->p) < bytes)
      return jl_tetfile_fail_at(c, (size_t)(c->p - c->data),
                                "%s: %lld values of %d bytes promised, only %zu bytes left", what, n, t->size,
                                (size_t)(c->end - c->p));
    for (long long k = 0; k < n; k++)
      load_value(c->p + (size_t)k * (size_t)t->size, t, 1, d ? d + k : NULL, i ? i + k : NULL);
    c->p += bytes;
    return JL_OK;
  }
  for (long long k = 0; k < n; k++) {
    if (d) {
      if ((r = jl_tetfile_double(c, what, d + k))) return r;
    } else if ((r = jl_tetfile_int(c, LLONG_MIN + 1, LLONG_MAX, what, i + k))) {
      return r;
    }
  }
  return JL_OK;
}

/* the smallest bytes a value takes in the file */
static double min_bytes(int binary, const char *tname) {
  const VType *t = vtype(tname);
  return binary ? (t ? t->size : 1) : 2.0;
}

JlResult jl_tetfile_read_vtk(JlTetCursor *c, JlTetRaw *raw, JlTetFileReport *rep) {
  /* header: version, title, ASCII|BINARY, DATASET UNSTRUCTURED_GRID */
  int major = 0, minor = 0;
  if (c->end - c->p < 22 || memcmp(c->p, "# vtk DataFile Version", 22) != 0)
    return jl_tetfile_fail(c, "not a legacy VTK file: it does not start with '# vtk DataFile Version'");
  if (sscanf((const char *)c->p + 22, "%d.%d", &major, &minor) < 1) return jl_tetfile_fail(c, "no version number");
  jl_tetfile_next_line(c);
  jl_tetfile_next_line(c); /* title */
  char w[64], ty[64];
  if (!jl_tetfile_word(c, w, sizeof w)) return jl_tetfile_fail(c, "file ends before ASCII or BINARY");
  int binary = strcmp(w, "BINARY") == 0;
  if (!binary && strcmp(w, "ASCII") != 0) return jl_tetfile_fail(c, "expected ASCII or BINARY, got '%.30s'", w);
  if (!jl_tetfile_word(c, w, sizeof w) || strcmp(w, "DATASET") != 0 || !jl_tetfile_word(c, ty, sizeof ty))
    return jl_tetfile_fail(c, "expected DATASET UNSTRUCTURED_GRID");
  if (strcmp(ty, "UNSTRUCTURED_GRID") != 0)
    return jl_tetfile_fail(c, "DATASET %.30s: a tet mesh is an UNSTRUCTURED_GRID", ty);

  long long npt = -1, ncell = -1, nconn = -1, ntype = -1;
  long long *offs = NULL, *conn = NULL, *types = NULL;
  JlResult r = JL_OK;
  while (!r && jl_tetfile_word(c, w, sizeof w)) {
    if (strcmp(w, "POINTS") == 0) {
      long long n;
      if (npt >= 0)
        r = jl_tetfile_fail(c, "a second POINTS");
      else if (!(r = jl_tetfile_int(c, 0, LLONG_MAX, "the number of points", &n)) && !jl_tetfile_word(c, ty, sizeof ty))
        r = jl_tetfile_fail(c, "POINTS needs a data type");
      else if (!r && !(r = jl_tetfile_check_count(c, n, JL_TETFILE_MAX_NODES, 3 * min_bytes(binary, ty), "POINTS"))) {
        npt = n;
        raw->nnode = (int)n;
        raw->node = jl_calloc((size_t)n * 3 + 1, sizeof(double));
        r = legacy_values(c, binary, 3 * n, ty, raw->node, NULL, "a point coordinate");
      }
    } else if (strcmp(w, "CELLS") == 0) {
      long long a, b;
      if (offs)
        r = jl_tetfile_fail(c, "a second CELLS");
      else if (!(r = jl_tetfile_int(c, 0, LLONG_MAX, "the number of cells", &a)) &&
               !(r = jl_tetfile_int(c, 0, LLONG_MAX, "the size of the cell list", &b))) {
        if (major >= 5) {
          /* OFFSETS type (a values), CONNECTIVITY type (b values) */
          if (a < 1)
            r = jl_tetfile_fail(c, "CELLS %lld %lld: the 5.x layout has at least one offset", a, b);
          else if (!jl_tetfile_word(c, w, sizeof w) || strcmp(w, "OFFSETS") != 0 || !jl_tetfile_word(c, ty, sizeof ty))
            r = jl_tetfile_fail(c, "expected OFFSETS and a data type after CELLS (version %d.%d layout)", major, minor);
          else if (!(r = jl_tetfile_check_count(c, a, JL_TETFILE_MAX_CELLS + 1LL, min_bytes(binary, ty), "OFFSETS"))) {
            offs = jl_calloc((size_t)a + 1, sizeof(long long));
            r = legacy_values(c, binary, a, ty, NULL, offs, "an offset");
            if (!r && (!jl_tetfile_word(c, w, sizeof w) || strcmp(w, "CONNECTIVITY") != 0 ||
                       !jl_tetfile_word(c, ty, sizeof ty)))
              r = jl_tetfile_fail(c, "expected CONNECTIVITY and a data type after the offsets");
            if (!r && !(r = jl_tetfile_check_count(c, b, 8LL * JL_TETFILE_MAX_CELLS, min_bytes(binary, ty),
                                                   "CONNECTIVITY"))) {
              conn = jl_calloc((size_t)b + 1, sizeof(long long));
              r = legacy_values(c, binary, b, ty, NULL, conn, "a point id");
            }
            ncell = a - 1;
            nconn = b;
            if (!r && offs[0] != 0) r = jl_tetfile_fail(c, "OFFSETS start at %lld, not 0", offs[0]);
          }
        } else if (!(r = jl_tetfile_check_count(c, a, JL_TETFILE_MAX_CELLS, 2 * min_bytes(binary, "int"), "CELLS")) &&
                   !(r = jl_tetfile_check_count(c, b, 9LL * JL_TETFILE_MAX_CELLS, min_bytes(binary, "int"),
                                                "CELLS size"))) {
          /* count, ids, count, ids ... -> offsets + connectivity */
          long long *list = jl_calloc((size_t)b + 1, sizeof(long long));
          r = legacy_values(c, binary, b, "int", NULL, list, "a cell entry");
          offs = jl_calloc((size_t)a + 2, sizeof(long long));
          conn = list;
          long long at = 0, out = 0;
          for (long long i = 0; i < a && !r; i++) {
            long long k = at < b ? list[at] : -1;
            if (k < 0 || k > b - at - 1)
              r = jl_tetfile_fail(c, "cell %lld: %lld points where the CELLS list has %lld entries left", i, k,
                                  b - at - 1);
            else {
              offs[i] = out;
              memmove(list + out, list + at + 1, (size_t)k * sizeof(long long));
              out += k;
              at += k + 1;
            }
          }
          if (!r && at != b)
            r = jl_tetfile_fail(c, "CELLS: %lld cells use %lld of the %lld entries declared", a, at, b);
          offs[a] = out;
          ncell = a;
          nconn = out;
        }
      }
    } else if (strcmp(w, "CELL_TYPES") == 0) {
      long long n;
      if (types)
        r = jl_tetfile_fail(c, "a second CELL_TYPES");
      else if (!(r = jl_tetfile_int(c, 0, LLONG_MAX, "the number of cell types", &n)) &&
               !(r = jl_tetfile_check_count(c, n, JL_TETFILE_MAX_CELLS, min_bytes(binary, "int"), "CELL_TYPES"))) {
        ntype = n;
        types = jl_calloc((size_t)n + 1, sizeof(long long));
        r = legacy_values(c, binary, n, "int", NULL, types, "a cell type");
      }
    } else if (strcmp(w, "METADATA") == 0) {
      /* to the next empty line */
      jl_tetfile_next_line(c);
      while (c->p < c->end && !jl_tetfile_line_empty(c)) jl_tetfile_next_line(c);
    } else if (strcmp(w, "FIELD") == 0) {
      long long narr;
      if (!jl_tetfile_word(c, w, sizeof w))
        r = jl_tetfile_fail(c, "FIELD needs a name");
      else if (!(r = jl_tetfile_int(c, 0, 100000, "the number of field arrays", &narr)))
        for (long long k = 0; k < narr && !r; k++) {
          long long nc, nt;
          if (!jl_tetfile_word(c, w, sizeof w))
            r = jl_tetfile_fail(c, "file ends in FIELD data");
          else if (!(r = jl_tetfile_int(c, 0, INT_MAX, "components", &nc)) &&
                   !(r = jl_tetfile_int(c, 0, LLONG_MAX, "tuples", &nt))) {
            if (!jl_tetfile_word(c, ty, sizeof ty))
              r = jl_tetfile_fail(c, "a FIELD array needs a data type");
            else if (!vtype(ty))
              r = jl_tetfile_fail(c, "FIELD array '%.30s': unknown data type '%.30s'", w, ty);
            else if ((double)nc * (double)nt * min_bytes(binary, ty) > (double)(c->end - c->p))
              r = jl_tetfile_fail(c, "FIELD array '%.30s' is larger than the rest of the file", w);
            else if (binary) {
              jl_tetfile_next_line(c);
              c->p += (size_t)(nc * nt) * (size_t)vtype(ty)->size;
            } else {
              for (long long v = 0; v < nc * nt && !r; v++) {
                double skip;
                r = jl_tetfile_double(c, "a FIELD value", &skip);
              }
            }
          }
        }
    } else if (strcmp(w, "POINT_DATA") == 0 || strcmp(w, "CELL_DATA") == 0) {
      break;
    } else {
      r = jl_tetfile_fail(c, "unexpected '%.30s' (a tet mesh has POINTS, CELLS and CELL_TYPES)", w);
    }
  }
  if (!r && (npt < 0 || !offs || !types))
    r = jl_tetfile_fail(c, "missing %s", npt < 0 ? "POINTS" : !offs ? "CELLS" : "CELL_TYPES");
  if (!r && ntype != ncell) r = jl_tetfile_fail(c, "CELL_TYPES has %lld entries for %lld cells", ntype, ncell);
  if (!r) r = cells_to_tets(c, raw, ncell, offs, nconn, conn, types, rep);
  JL_FREE_ALL(offs, conn, types);
  return r;
}

/* ---- .vtu ------------------------------------------------------------------------ */

typedef struct Tag {
  const unsigned char *start, *end; /* '<' .. '>' inclusive */
  char name[32];
  int closing, self_closing;
} Tag;

/* next tag at or after p (comments and <? ?> skipped); 0 at the end */
static int next_tag(const unsigned char *p, const unsigned char *end, Tag *t) {
  for (;;) {
    p = memchr(p, '<', (size_t)(end - p));
    if (!p) return 0;
    if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
      const unsigned char *q = p + 4;
      while (q + 3 <= end && memcmp(q, "-->", 3) != 0) q++;
      if (q + 3 > end) return 0;
      p = q + 3;
      continue;
    }
    const unsigned char *q = p + 1;
    char quote = 0;
    while (q < end && (quote || *q != '>')) {
      if (quote && *q == quote)
        quote = 0;
      else if (!quote && (*q == '"' || *q == '\''))
        quote = (char)*q;
      q++;
    }
    if (q >= end) return 0;
    t->start = p;
    t->end = q;
    const unsigned char *n = p + 1;
    t->closing = *n == '/';
    if (t->closing) n++;
    size_t k = 0;
    while (n < q && *n != ' ' && *n != '\t' && *n != '\n' && *n != '\r' && *n != '/' && k + 1 < sizeof t->name)
      t->name[k++] = (char)*n++;
    t->name[k] = 0;
    t->self_closing = q[-1] == '/';
    if (p[1] == '?' || p[1] == '!') {
      p = q + 1;
      continue;
    }
    return 1;
  }
}

/* attribute `name` of tag t into out; 0 when absent */
static int attr(const Tag *t, const char *name, char *out, size_t cap) {
  size_t len = strlen(name);
  const unsigned char *p = t->start + 1;
  while (p + len + 2 < t->end) {
    if ((p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '\r') && memcmp(p, name, len) == 0) {
      const unsigned char *q = p + len;
      while (q < t->end && (*q == ' ' || *q == '\t')) q++;
      if (q < t->end && *q == '=') {
        q++;
        while (q < t->end && (*q == ' ' || *q == '\t')) q++;
        if (q < t->end && (*q == '"' || *q == '\'')) {
          char quote = (char)*q++;
          size_t k = 0;
          while (q < t->end && *q != quote) {
            if (k + 1 < cap) out[k++] = (char)*q;
            q++;
          }
          out[k] = 0;
          return 1;
        }
      }
    }
    p++;
  }
  return 0;
}

static long long attr_ll(const Tag *t, const char *name, long long dflt) {
  char v[40];
  if (!attr(t, name, v, sizeof v)) return dflt;
  char *e;
  long long x = strtoll(v, &e, 10);
  return e != v && *e == 0 ? x : LLONG_MIN;
}

typedef struct Arr {
  int present;
  char type[16], format[16];
  long long ncomp, offset;
  const unsigned char *text, *text_end; /* inline content */
  size_t at;                            /* byte offset of the tag, for messages */
} Arr;

typedef struct Vtu {
  JlTetCursor *c;
  int big, h64, zlib;
  const unsigned char *app, *app_end; /* appended data after '_' */
  int app_base64;
} Vtu;

static const VType *xml_type(const char *name) {
  static const VType t[] = {{"Int8", 1, 0, 1},    {"UInt8", 1, 0, 0},  {"Int16", 2, 0, 1}, {"UInt16", 2, 0, 0},
                            {"Int32", 4, 0, 1},   {"UInt32", 4, 0, 0}, {"Int64", 8, 0, 1}, {"UInt64", 8, 0, 0},
                            {"Float32", 4, 1, 1}, {"Float64", 8, 1, 1}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp(t[i].name, name) == 0) return &t[i];
  return NULL;
}

/* base64 in 4-character groups, whitespace skipped, '=' padding allowed at
 * the end of any group (VTK encodes header and data separately); stops at
 * the first character that is neither (or at end). out holds 3/4 of the
 * characters. Returns the bytes written, or -1 with *bad at a bad group. */
static long long b64_decode(const unsigned char *p, const unsigned char *end, unsigned char *out,
                            const unsigned char **bad) {
  /* the table per call: loads may run on several threads at once */
  signed char val[256];
  memset(val, -1, sizeof val);
  const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 64; i++) val[(unsigned char)abc[i]] = (signed char)i;
  long long n = 0;
  int q[4], k = 0, pad = 0;
  const unsigned char *gstart = p;
  for (; p < end; p++) {
    unsigned ch = *p;
    if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') continue;
    if (ch == '=') {
      if (k < 2) {
        *bad = p;
        return -1;
      }
      pad++;
      q[k++] = 0;
    } else if (val[ch] >= 0) {
      if (pad) {
        *bad = p;
        return -1;
      }
      if (k == 0) gstart = p;
      q[k++] = val[ch];
    } else {
      break;
    }
    if (k == 4) {
      unsigned v = (unsigned)q[0] << 18 | (unsigned)q[1] << 12 | (unsigned)q[2] << 6 | (unsigned)q[3];
      out[n++] = (unsigned char)(v >> 16);
      if (pad < 2) out[n++] = (unsigned char)(v >> 8);
      if (pad < 1) out[n++] = (unsigned char)v;
      k = 0;
      pad = 0;
    }
  }
  if (k != 0) {
    *bad = gstart;
    return -1;
  }
  return n;
}

/* Decodes array a into want values (want < 0: as many as the data holds, up
 * to cap) as doubles (d) or integers (i, malloc'd by this function either
 * way in *vals). */
static JlResult vtu_array(Vtu *v, const Arr *a, const char *what, long long want, long long cap, int as_double,
                          void **vals, long long *count) {
  JlTetCursor *c = v->c;
  *vals = NULL;
  const VType *t = xml_type(a->type);
  if (!t) return jl_tetfile_fail_at(c, a->at, "%s: unknown DataArray type '%s'", what, a->type);
  size_t es = as_double ? sizeof(double) : sizeof(long long);
  /* ascii: the numbers of the inline text */
  if (strcmp(a->format, "ascii") == 0) {
    JlTetCursor tc = *c;
    tc.p = a->text;
    tc.end = a->text_end;
    tc.line = 1;
    for (const unsigned char *s = c->data; s < a->text; s++) tc.line += *s == '\n';
    long long n = 0;
    if (want < 0) {
      /* count the tokens first */
      JlTetCursor cc = tc;
      char tok[4];
      while (jl_tetfile_word(&cc, tok, sizeof tok)) n++;
      if (n > cap) return jl_tetfile_fail(&tc, "%s: %lld values, more than the limit of %lld", what, n, cap);
    } else {
      n = want;
      JlResult r = jl_tetfile_check_count(&tc, n, cap, 2.0, what);
      if (r) return r;
    }
    void *out = jl_calloc((size_t)n + 1, es);
    for (long long k = 0; k < n; k++) {
      JlResult r = as_double ? jl_tetfile_double(&tc, what, (double *)out + k)
                             : jl_tetfile_int(&tc, LLONG_MIN + 1, LLONG_MAX, what, (long long *)out + k);
      if (r) {
        free(out);
        return r;
      }
    }
    if (jl_tetfile_skip(&tc)) {
      free(out);
      return jl_tetfile_fail(&tc, "%s: more values than the %lld expected", what, n);
    }
    *vals = out;
    *count = n;
    return JL_OK;
  }
  /* binary or appended: the encoded bytes */
  unsigned char *dec = NULL;
  const unsigned char *b, *bend;
  if (strcmp(a->format, "binary") == 0 || (strcmp(a->format, "appended") == 0 && v->app_base64)) {
    const unsigned char *s = a->text, *se = a->text_end;
    if (strcmp(a->format, "appended") == 0) {
      if (!v->app) return jl_tetfile_fail_at(c, a->at, "%s: format=\"appended\" but no <AppendedData>", what);
      if (a->offset < 0 || a->offset > v->app_end - v->app)
        return jl_tetfile_fail_at(c, a->at, "%s: offset %lld outside the appended data", what, a->offset);
      s = v->app + a->offset;
      se = v->app_end;
    }
    dec = jl_calloc((size_t)(se - s) / 4 * 3 + 4, 1);
    const unsigned char *badp = NULL;
    long long n = b64_decode(s, se, dec, &badp);
    if (n < 0) {
      free(dec);
      return jl_tetfile_fail_at(c, (size_t)(badp - c->data), "%s: bad base64", what);
    }
    b = dec;
    bend = dec + n;
  } else if (strcmp(a->format, "appended") == 0) {
    if (!v->app) return jl_tetfile_fail_at(c, a->at, "%s: format=\"appended\" but no <AppendedData>", what);
    if (a->offset < 0 || a->offset > v->app_end - v->app)
      return jl_tetfile_fail_at(c, a->at, "%s: offset %lld outside the appended data", what, a->offset);
    b = v->app + a->offset;
    bend = v->app_end;
  } else {
    return jl_tetfile_fail_at(c, a->at, "%s: unknown format '%s' (ascii, binary or appended)", what, a->format);
  }
  size_t hs = v->h64 ? 8 : 4;
  JlResult r = JL_OK;
  unsigned char *plain = NULL;
  const unsigned char *data = NULL;
  uint64_t nbytes = 0;
#define HDR(k) (v->h64 ? jl_tetfile_u64(b + (k)*hs, v->big) : jl_tetfile_u32(b + (k)*hs, v->big))
  if (!v->zlib) {
    if ((size_t)(bend - b) < hs)
      r = jl_tetfile_fail_at(c, a->at, "%s: data ends in its header", what);
    else {
      nbytes = HDR(0);
      if (nbytes > (uint64_t)(bend - b) - hs)
        r = jl_tetfile_fail_at(c, a->at, "%s: header says %llu bytes, only %zu are there", what,
                               (unsigned long long)nbytes, (size_t)(bend - b) - hs);
      data = b + hs;
    }
  } else {
    /* nblocks, block size, last block size, compressed sizes */
    if ((size_t)(bend - b) < 3 * hs)
      r = jl_tetfile_fail_at(c, a->at, "%s: data ends in its compression header", what);
    else {
      uint64_t nb = HDR(0), bs = HDR(1), last = HDR(2);
      if (nb > ((uint64_t)(bend - b) - 3 * hs) / hs)
        r = jl_tetfile_fail_at(c, a->at, "%s: %llu compressed blocks, more than the data can hold", what,
                               (unsigned long long)nb);
      else {
        uint64_t csum = 0;
        for (uint64_t k = 0; k < nb; k++) csum += HDR(3 + k);
        const unsigned char *cz = b + (3 + nb) * hs;
        if (last == 0) last = bs;
        uint64_t total = nb ? (nb - 1) * bs + last : 0;
        if (nb && (bs > (uint64_t)1 << 40 || last > bs))
          r = jl_tetfile_fail_at(c, a->at, "%s: block size %llu, last block %llu", what, (unsigned long long)bs,
                                 (unsigned long long)last);
        else if (csum > (uint64_t)(bend - cz))
          r = jl_tetfile_fail_at(c, a->at, "%s: compressed sizes add up to %llu bytes, only %zu are there", what,
                                 (unsigned long long)csum, (size_t)(bend - cz));
        else if ((double)total > 1032.0 * (double)csum + 64.0 * (double)nb || (double)total > 8.0 * (double)cap + 64)
          r = jl_tetfile_fail_at(
              c, a->at, "%s: %llu compressed bytes claim to hold %llu (more than zlib can pack, or than the limit)",
              what, (unsigned long long)csum, (unsigned long long)total);
        else {
          plain = jl_calloc((size_t)total + 1, 1);
          size_t at = 0;
          for (uint64_t k = 0; k < nb && !r; k++) {
            uLongf got = (uLongf)(k + 1 == nb ? last : bs);
            uLong cs = (uLong)HDR(3 + k);
            int zr = uncompress(plain + at, &got, cz, cs);
            if (zr != Z_OK || got != (k + 1 == nb ? last : bs))
              r = jl_tetfile_fail_at(c, a->at, "%s: zlib block %llu does not inflate to its %llu bytes (%s)", what,
                                     (unsigned long long)k, (unsigned long long)(k + 1 == nb ? last : bs),
                                     zr == Z_OK           ? "size differs"
                                     : zr == Z_DATA_ERROR ? "corrupt data"
                                                          : "buffer error");
            at += got;
            cz += cs;
          }
          nbytes = total;
          data = plain;
        }
      }
    }
  }
#undef HDR
  if (!r) {
    long long n = (long long)(nbytes / (uint64_t)t->size);
    if (nbytes % (uint64_t)t->size)
      r = jl_tetfile_fail_at(c, a->at, "%s: %llu bytes is not a whole number of %s values", what,
                             (unsigned long long)nbytes, a->type);
    else if (want >= 0 && n != want)
      r = jl_tetfile_fail_at(c, a->at, "%s: %lld values where %lld are expected", what, n, want);
    else if (n > cap)
      r = jl_tetfile_fail_at(c, a->at, "%s: %lld values, more than the limit of %lld", what, n, cap);
    else {
      void *out = jl_calloc((size_t)n + 1, es);
      for (long long k = 0; k < n; k++)
        load_value(data + (size_t)k * (size_t)t->size, t, v->big, as_double ? (double *)out + k : NULL,
                   as_double ? NULL : (long long *)out + k);
      *vals = out;
      *count = n;
    }
  }
  JL_FREE_ALL(dec, plain);
  return r;
}

JlResult jl_tetfile_read_vtu(JlTetCursor *c, JlTetRaw *raw, JlTetFileReport *rep) {
  Vtu v;
  memset(&v, 0, sizeof v);
  v.c = c;
  const unsigned char *end = c->end;
  /* the XML part ends at <AppendedData ...> */
  Tag t;
  const unsigned char *p = c->data;
  while (next_tag(p, end, &t)) {
    if (!t.closing && strcmp(t.name, "AppendedData") == 0) {
      char enc[16] = "raw";
      attr(&t, "encoding", enc, sizeof enc);
      v.app_base64 = strcmp(enc, "base64") == 0;
      if (!v.app_base64 && strcmp(enc, "raw") != 0)
        return jl_tetfile_fail_at(c, (size_t)(t.start - c->data), "AppendedData encoding '%s' (raw or base64)", enc);
      const unsigned char *u = memchr(t.end, '_', (size_t)(end - t.end));
      if (!u) return jl_tetfile_fail_at(c, (size_t)(t.end - c->data), "AppendedData without the '_' that starts it");
      v.app = u + 1;
      v.app_end = end;
      end = t.start;
      break;
    }
    p = t.end + 1;
  }
  /* VTKFile, Piece, Points and Cells arrays */
  Arr pts, con, off, typ;
  memset(&pts, 0, sizeof pts);
  memset(&con, 0, sizeof con);
  memset(&off, 0, sizeof off);
  memset(&typ, 0, sizeof typ);
  int seen_file = 0, npiece = 0, in_points = 0, in_cells = 0;
  long long npt = -1, ncell = -1;
  p = c->data;
  while (next_tag(p, end, &t)) {
    p = t.end + 1;
    size_t at = (size_t)(t.start - c->data);
    if (strcmp(t.name, "VTKFile") == 0 && !t.closing) {
      char ty[40] = "", bo[20] = "LittleEndian", ht[20] = "UInt32", comp[40] = "";
      attr(&t, "type", ty, sizeof ty);
      if (strcmp(ty, "UnstructuredGrid") != 0)
        return jl_tetfile_fail_at(c, at, "VTKFile type '%s': a tet mesh is an UnstructuredGrid (.vtu)", ty);
      attr(&t, "byte_order", bo, sizeof bo);
      attr(&t, "header_type", ht, sizeof ht);
      attr(&t, "compressor", comp, sizeof comp);
      v.big = strcmp(bo, "BigEndian") == 0;
      if (!v.big && strcmp(bo, "LittleEndian") != 0) return jl_tetfile_fail_at(c, at, "byte_order '%s'", bo);
      v.h64 = strcmp(ht, "UInt64") == 0;
      if (!v.h64 && strcmp(ht, "UInt32") != 0)
        return jl_tetfile_fail_at(c, at, "header_type '%s' (UInt32 or UInt64)", ht);
      v.zlib = strcmp(comp, "vtkZLibDataCompressor") == 0;
      if (comp[0] && !v.zlib)
        return jl_tetfile_fail_at(c, at, "compressor '%s': Jelly reads vtkZLibDataCompressor or none", comp);
      seen_file = 1;
    } else if (strcmp(t.name, "Piece") == 0 && !t.closing) {
      if (++npiece > 1) return jl_tetfile_fail_at(c, at, "more than one Piece; Jelly reads one");
      npt = attr_ll(&t, "NumberOfPoints", -1);
      ncell = attr_ll(&t, "NumberOfCells", -1);
      if (npt < 0 || npt > JL_TETFILE_MAX_NODES || ncell < 0 || ncell > JL_TETFILE_MAX_CELLS)
        return jl_tetfile_fail_at(c, at, "Piece: NumberOfPoints %lld and NumberOfCells %lld (at most %d and %d)", npt,
                                  ncell, JL_TETFILE_MAX_NODES, JL_TETFILE_MAX_CELLS);
    } else if (strcmp(t.name, "Points") == 0) {
      in_points = !t.closing && !t.self_closing;
    } else if (strcmp(t.name, "Cells") == 0) {
      in_cells = !t.closing && !t.self_closing;
    } else if (strcmp(t.name, "DataArray") == 0 && !t.closing && (in_points || in_cells)) {
      Arr a;
      memset(&a, 0, sizeof a);
      a.present = 1;
      a.at = at;
      attr(&t, "type", a.type, sizeof a.type);
      snprintf(a.format, sizeof a.format, "ascii");
      attr(&t, "format", a.format, sizeof a.format);
      a.ncomp = attr_ll(&t, "NumberOfComponents", 1);
      a.offset = attr_ll(&t, "offset", -1);
      a.text = t.end + 1;
      const unsigned char *lt = t.self_closing ? a.text : memchr(a.text, '<', (size_t)(end - a.text));
      a.text_end = lt ? lt : end;
      char name[40] = "";
      attr(&t, "Name", name, sizeof name);
      if (in_points && !pts.present)
        pts = a;
      else if (in_cells && strcmp(name, "connectivity") == 0)
        con = a;
      else if (in_cells && strcmp(name, "offsets") == 0)
        off = a;
      else if (in_cells && strcmp(name, "types") == 0)
        typ = a;
    }
  }
  if (!seen_file) return jl_tetfile_fail_at(c, 0, "not a VTK XML file: no <VTKFile> element");
  if (!npiece) return jl_tetfile_fail_at(c, 0, "no <Piece>");
  if (!pts.present || !con.present || !off.present || !typ.present)
    return jl_tetfile_fail_at(c, 0, "the Piece lacks %s",
                              !pts.present   ? "its Points DataArray"
                              : !con.present ? "the Cells connectivity array"
                              : !off.present ? "the Cells offsets array"
                                             : "the Cells types array");
  if (pts.ncomp != 3) return jl_tetfile_fail_at(c, pts.at, "Points have %lld components, not 3", pts.ncomp);
  /* the arrays */
  void *x = NULL, *o = NULL, *cn = NULL, *ty = NULL;
  long long n;
  JlResult r = vtu_array(&v, &pts, "Points", 3 * npt, 3LL * JL_TETFILE_MAX_NODES, 1, &x, &n);
  if (!r) r = vtu_array(&v, &off, "offsets", ncell, JL_TETFILE_MAX_CELLS, 0, &o, &n);
  if (!r) r = vtu_array(&v, &typ, "types", ncell, JL_TETFILE_MAX_CELLS, 0, &ty, &n);
  long long nconn = 0;
  if (!r) r = vtu_array(&v, &con, "connectivity", -1, 8LL * JL_TETFILE_MAX_CELLS, 0, &cn, &nconn);
  if (!r) {
    /* XML offsets are cell ends; make them starts + a final end */
    long long *offs = jl_calloc((size_t)ncell + 2, sizeof(long long));
    for (long long i = 0; i < ncell; i++) offs[i + 1] = ((long long *)o)[i];
    raw->nnode = (int)npt;
    raw->node = x;
    x = NULL;
    r = cells_to_tets(c, raw, ncell, offs, nconn, cn, ty, rep);
    free(offs);
  }
  JL_FREE_ALL(x, o, cn, ty);
  return r;
}
