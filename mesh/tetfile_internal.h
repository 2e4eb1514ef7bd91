/* What the tet-mesh readers share (mesh/tetfile.h), private to them:
 *   tetfile.c      file reading, the text cursor, TetGen .node/.ele, the
 *                  validation every format goes through, boundary surface;
 *   tetfile_msh.c  Gmsh .msh 2.2 and 4.1;
 *   tetfile_vtk.c  VTK legacy .vtk and XML .vtu.
 * A reader fills a JlTetRaw (file-order nodes and tets, 0-based) and notes; the
 * checks that do not depend on the format run afterwards. */
#ifndef JL_MESH_TETFILE_INTERNAL_H
#define JL_MESH_TETFILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mesh/tetfile.h"

/* nodes and tets as read, before validation (malloc'd) */
typedef struct JlTetRaw {
  int nnode, ntet;
  double *node; /* nnode x 3 */
  int *tet;     /* ntet x 4, 0-based node indices, unchecked */
} JlTetRaw;

/* a cursor over a file's bytes; data[size] is a NUL byte */
typedef struct JlTetCursor {
  const char *name;
  const unsigned char *data, *p, *end;
  int line;           /* 1-based line of p (text parts) */
  char hash_comments; /* '#' starts a comment to the end of the line (TetGen) */
  char *err;
  size_t errsz;
} JlTetCursor;

/* "name: line L: ..." into c->err; JL_ERR_INPUT */
JlResult jl_tetfile_fail(JlTetCursor *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "name: byte B: ..." at offset off; JL_ERR_INPUT */
JlResult jl_tetfile_fail_at(JlTetCursor *c, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* skips blanks, newlines (counted) and comments; 1 if a token follows */
int jl_tetfile_skip(JlTetCursor *c);
/* skips to just after the next newline */
void jl_tetfile_next_line(JlTetCursor *c);
/* 1 when only blanks remain on the current line */
int jl_tetfile_line_empty(JlTetCursor *c);
/* next whitespace-delimited token into buf (truncated to cap - 1); 0 at the end */
int jl_tetfile_word(JlTetCursor *c, char *buf, size_t cap);
/* next token as an integer in [lo, hi]; what names it in the message */
JlResult jl_tetfile_int(JlTetCursor *c, long long lo, long long hi, const char *what, long long *out);
/* next token as a finite-or-not double (strtod syntax) */
JlResult jl_tetfile_double(JlTetCursor *c, const char *what, double *out);
/* count of items at least min_bytes long each: within cap and within the bytes left */
JlResult jl_tetfile_check_count(JlTetCursor *c, long long n, long long cap, double min_bytes, const char *what);

/* appends a note to rep (ignored when rep is NULL or full) */
void jl_tetfile_note(JlTetFileReport *rep, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* node-tag -> index map for sparse tags (Gmsh) */
typedef struct JlTagMap {
  long long min_tag;
  int dense;      /* 1: index[tag - min_tag] */
  long long span; /* dense: max_tag - min_tag + 1 */
  int n;
  int *index;       /* dense: span entries, -1 = none */
  long long *pairs; /* sparse: n x 2 (tag, index), sorted by tag */
} JlTagMap;
/* builds the map of n tags; fails (message via c) on a repeated tag */
JlResult jl_tetfile_tagmap_build(JlTetCursor *c, JlTagMap *m, const long long *tags, int n);
/* index of tag or -1 */
int jl_tetfile_tagmap_find(const JlTagMap *m, long long tag);
void jl_tetfile_tagmap_free(JlTagMap *m);

/* the format readers */
JlResult jl_tetfile_read_msh(JlTetCursor *c, JlTetRaw *raw, JlTetFileReport *rep);
JlResult jl_tetfile_read_vtk(JlTetCursor *c, JlTetRaw *raw, JlTetFileReport *rep);
JlResult jl_tetfile_read_vtu(JlTetCursor *c, JlTetRaw *raw, JlTetFileReport *rep);

/* little/big-endian loads */
static inline uint32_t jl_tetfile_u32(const unsigned char *p, int big) {
  return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
             : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static inline uint64_t jl_tetfile_u64(const unsigned char *p, int big) {
  uint64_t a = jl_tetfile_u32(p, big), b = jl_tetfile_u32(p + 4, big);
  return big ? a << 32 | b : b << 32 | a;
}

#endif
