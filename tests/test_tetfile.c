/* Tet-mesh import (mesh/tetfile.h): the same small tet mesh
 * written by this test in every variant the readers take (TetGen 0- and
 * 1-based with attributes and markers; Gmsh 2.2 and 4.1, ASCII and binary,
 * sparse node tags, other elements mixed in; VTK legacy ASCII and BINARY in
 * the 4.2 and 5.1 cell layouts; .vtu ascii, base64 with the header encoded
 * apart (VTK) and together (meshio), appended raw and base64, zlib in
 * several blocks, UInt32 and UInt64 headers; Jelly's own .vtu writer), and
 * the files VTK itself wrote (tests/data/tetfile/, made with python3-vtk's
 * writers, and TetGen's, see its README.md) must all load to exactly the same nodes, tets,
 * volume and boundary. Then orientation, the validation errors, and a scene
 * whose body is a .msh. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "jelly/jelly.h"
#include "mesh/embed.h"
#include "mesh/tetfile.h"
#include "src/output.h"
#include "tests/harness.h"
#include "tests/scene_world.h"

/* ---- the mesh: 2 x 2 x 2 cells of 0.5 m, 6 Kuhn tets each (mixed
 * orientation), 27 nodes, plus one node no tet uses ---------------------- */

#define NN 28
#define NT 48
static double g_node[NN * 3];
static int g_tet[NT * 4];

static void make_mesh(void) {
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) {
        int n = i + 3 * j + 9 * k;
        g_node[3 * n] = 0.5 * i + 0.25;
        g_node[3 * n + 1] = 0.5 * j - 1.0;
        g_node[3 * n + 2] = 0.5 * k + 3.0;
      }
  g_node[3 * 27] = 5, g_node[3 * 27 + 1] = 5, g_node[3 * 27 + 2] = 5;
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int t = 0;
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 2; i++)
        for (int p = 0; p < 6; p++) {
          int c[3] = {i, j, k};
          g_tet[4 * t] = c[0] + 3 * c[1] + 9 * c[2];
          for (int s = 0; s < 3; s++) {
            c[perm[p][s]]++;
            g_tet[4 * t + 1 + s] = c[0] + 3 * c[1] + 9 * c[2];
          }
          t++;
        }
}

/* ---- byte buffers -------------------------------------------------------------- */

typedef struct Buf {
  unsigned char *b;
  size_t n, cap;
} Buf;

static void put(Buf *o, const void *p, size_t n) {
  if (o->n + n > o->cap) {
    o->cap = (o->n + n) * 2 + 1024;
    o->b = realloc(o->b, o->cap);
  }
  memcpy(o->b + o->n, p, n);
  o->n += n;
}
static void pf(Buf *o, const char *fmt, ...) {
  char s[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(s, sizeof s, fmt, ap);
  va_end(ap);
  put(o, s, (size_t)n);
}
static void le(Buf *o, uint64_t v, int size) {
  for (int k = 0; k < size; k++) {
    unsigned char c = (unsigned char)(v >> (8 * k));
    put(o, &c, 1);
  }
}
static void be(Buf *o, uint64_t v, int size) {
  for (int k = size - 1; k >= 0; k--) {
    unsigned char c = (unsigned char)(v >> (8 * k));
    put(o, &c, 1);
  }
}
static uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static void b64(Buf *o, const unsigned char *p, size_t n) {
  static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char q[4] = {abc[v >> 18 & 63], abc[v >> 12 & 63], i + 1 < n ? abc[v >> 6 & 63] : '=',
                 i + 2 < n ? abc[v & 63] : '='};
    put(o, q, 4);
  }
}

static const char *dir(void) {
  static const char *d;
  if (!d) d = jl_test_tmpdir("tetfile");
  return d;
}
static const char *save(const char *name, const Buf *o) {
  static char paths[4][600];
  static int k;
  char *p = paths[k++ % 4];
  snprintf(p, 600, "%s/%s", dir(), name);
  FILE *f = fopen(p, "wb");
  if (f) {
    fwrite(o->b, 1, o->n, f);
    fclose(f);
  }
  return p;
}
static const char *save_text(const char *name, const char *text) {
  Buf o = {0};
  put(&o, text, strlen(text));
  const char *p = save(name, &o);
  free(o.b);
  return p;
}

/* ---- writers ------------------------------------------------------------------------ */

static const char *write_tetgen(int base) {
  Buf n = {0}, e = {0};
  pf(&n, "# made by test_tetfile\n%d 3 1 1\n", NN);
  for (int i = 0; i < NN; i++)
    pf(&n, "%d %.17g %.17g %.17g 0.5 %d # c\n", i + base, g_node[3 * i], g_node[3 * i + 1], g_node[3 * i + 2], i % 2);
  pf(&e, "%d 4 1\n", NT);
  for (int t = 0; t < NT; t++)
    pf(&e, "%d %d %d %d %d 7\n", t + base, g_tet[4 * t] + base, g_tet[4 * t + 1] + base, g_tet[4 * t + 2] + base,
       g_tet[4 * t + 3] + base);
  char name[32];
  snprintf(name, sizeof name, "tg%d.ele", base);
  save(name, &e);
  snprintf(name, sizeof name, "tg%d.node", base);
  const char *p = save(name, &n);
  JL_FREE_ALL(n.b, e.b);
  return p;
}

static long long tag_of(int i) { return 10LL * i + 7; } /* sparse, in file order */

static const char *write_msh22(int binary) {
  Buf o = {0};
  pf(&o, "$MeshFormat\n2.2 %d 8\n", binary);
  if (binary) {
    le(&o, 1, 4);
    pf(&o, "\n");
  }
  pf(&o, "$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"body\"\n$EndPhysicalNames\n$Nodes\n%d\n", NN);
  for (int i = 0; i < NN; i++) {
    if (binary) {
      le(&o, (uint64_t)tag_of(i), 4);
      for (int k = 0; k < 3; k++) le(&o, dbits(g_node[3 * i + k]), 8);
    } else {
      pf(&o, "%lld %.17g %.17g %.17g\n", tag_of(i), g_node[3 * i], g_node[3 * i + 1], g_node[3 * i + 2]);
    }
  }
  pf(&o, "%s$EndNodes\n$Elements\n%d\n", binary ? "\n" : "", NT + 2);
  if (binary) {
    le(&o, 15, 4), le(&o, 1, 4), le(&o, 2, 4); /* a point */
    le(&o, 1, 4), le(&o, 0, 4), le(&o, 1, 4), le(&o, (uint64_t)tag_of(0), 4);
    le(&o, 4, 4), le(&o, NT, 4), le(&o, 2, 4);
    for (int t = 0; t < NT; t++) {
      le(&o, (uint64_t)t + 2, 4), le(&o, 1, 4), le(&o, 1, 4);
      for (int k = 0; k < 4; k++) le(&o, (uint64_t)tag_of(g_tet[4 * t + k]), 4);
    }
    le(&o, 2, 4), le(&o, 1, 4), le(&o, 2, 4); /* a triangle */
    le(&o, 99, 4), le(&o, 0, 4), le(&o, 1, 4);
    for (int k = 0; k < 3; k++) le(&o, (uint64_t)tag_of(k), 4);
    pf(&o, "\n");
  } else {
    pf(&o, "1 15 2 0 1 %lld\n", tag_of(0));
    for (int t = 0; t < NT; t++)
      pf(&o, "%d 4 2 1 1 %lld %lld %lld %lld\n", t + 2, tag_of(g_tet[4 * t]), tag_of(g_tet[4 * t + 1]),
         tag_of(g_tet[4 * t + 2]), tag_of(g_tet[4 * t + 3]));
    pf(&o, "99 2 2 0 1 %lld %lld %lld\n", tag_of(0), tag_of(1), tag_of(2));
  }
  pf(&o, "$EndElements\n");
  const char *p = save(binary ? "m22b.msh" : "m22a.msh", &o);
  free(o.b);
  return p;
}

static void sz(Buf *o, uint64_t v) { le(o, v, 8); }

static const char *write_msh41(int binary) {
  Buf o = {0};
  pf(&o, "$MeshFormat\n4.1 %d 8\n", binary);
  if (binary) {
    le(&o, 1, 4);
    pf(&o, "\n");
  }
  pf(&o, "$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n$EndEntities\n$Nodes\n");
  /* two blocks: 14 nodes each; the second parametric on a volume (u v w) */
  if (binary) {
    sz(&o, 2), sz(&o, NN), sz(&o, (uint64_t)tag_of(0)), sz(&o, (uint64_t)tag_of(NN - 1));
  } else {
    pf(&o, "2 %d %lld %lld\n", NN, tag_of(0), tag_of(NN - 1));
  }
  for (int b = 0; b < 2; b++) {
    int param = b;
    if (binary) {
      le(&o, 3, 4), le(&o, 1, 4), le(&o, (uint64_t)param, 4), sz(&o, NN / 2);
      for (int i = b * NN / 2; i < (b + 1) * NN / 2; i++) sz(&o, (uint64_t)tag_of(i));
      for (int i = b * NN / 2; i < (b + 1) * NN / 2; i++)
        for (int k = 0; k < 3 + 3 * param; k++) le(&o, dbits(k < 3 ? g_node[3 * i + k] : 0.125), 8);
    } else {
      pf(&o, "3 1 %d %d\n", param, NN / 2);
      for (int i = b * NN / 2; i < (b + 1) * NN / 2; i++) pf(&o, "%lld\n", tag_of(i));
      for (int i = b * NN / 2; i < (b + 1) * NN / 2; i++)
        pf(&o, "%.17g %.17g %.17g%s\n", g_node[3 * i], g_node[3 * i + 1], g_node[3 * i + 2],
           param ? " 0.1 0.2 0.3" : "");
    }
  }
  pf(&o, "%s$EndNodes\n$Elements\n", binary ? "\n" : "");
  if (binary) {
    sz(&o, 2), sz(&o, NT + 1), sz(&o, 1), sz(&o, NT + 1);
    le(&o, 2, 4), le(&o, 1, 4), le(&o, 2, 4), sz(&o, 1);
    sz(&o, 1), sz(&o, (uint64_t)tag_of(0)), sz(&o, (uint64_t)tag_of(1)), sz(&o, (uint64_t)tag_of(2));
    le(&o, 3, 4), le(&o, 1, 4), le(&o, 4, 4), sz(&o, NT);
    for (int t = 0; t < NT; t++) {
      sz(&o, (uint64_t)t + 2);
      for (int k = 0; k < 4; k++) sz(&o, (uint64_t)tag_of(g_tet[4 * t + k]));
    }
    pf(&o, "\n");
  } else {
    pf(&o, "2 %d 1 %d\n2 1 2 1\n1 %lld %lld %lld\n3 1 4 %d\n", NT + 1, NT + 1, tag_of(0), tag_of(1), tag_of(2), NT);
    for (int t = 0; t < NT; t++)
      pf(&o, "%d %lld %lld %lld %lld\n", t + 2, tag_of(g_tet[4 * t]), tag_of(g_tet[4 * t + 1]),
         tag_of(g_tet[4 * t + 2]), tag_of(g_tet[4 * t + 3]));
  }
  pf(&o, "$EndElements\n$NodeData\n1\n\"x\"\n$EndNodeData\n");
  const char *p = save(binary ? "m41b.msh" : "m41a.msh", &o);
  free(o.b);
  return p;
}

/* legacy VTK: version 4.2 ("CELLS n size") or 5.1 (OFFSETS/CONNECTIVITY),
 * ASCII or BINARY; one triangle cell besides the tets */
static const char *write_vtk(int v5, int binary) {
  Buf o = {0};
  pf(&o, "# vtk DataFile Version %s\ntest mesh\n%s\nDATASET UNSTRUCTURED_GRID\nPOINTS %d double\n", v5 ? "5.1" : "4.2",
     binary ? "BINARY" : "ASCII", NN);
  for (int i = 0; i < 3 * NN; i++) {
    if (binary)
      be(&o, dbits(g_node[i]), 8);
    else
      pf(&o, "%.17g\n", g_node[i]);
  }
  pf(&o, "\nMETADATA\nINFORMATION 0\n\n");
  int ncell = NT + 1;
  if (v5) {
    pf(&o, "CELLS %d %d\nOFFSETS vtktypeint64\n", ncell + 1, 4 * NT + 3);
    for (int c = 0; c <= ncell; c++) {
      uint64_t off = c <= NT ? 4 * (uint64_t)c : 4 * NT + 3;
      if (binary)
        be(&o, off, 8);
      else
        pf(&o, "%llu ", (unsigned long long)off);
    }
    pf(&o, "\nCONNECTIVITY vtktypeint64\n");
    for (int i = 0; i < 4 * NT + 3; i++) {
      int v = i < 4 * NT ? g_tet[i] : i - 4 * NT;
      if (binary)
        be(&o, (uint64_t)v, 8);
      else
        pf(&o, "%d ", v);
    }
  } else {
    pf(&o, "CELLS %d %d\n", ncell, 5 * NT + 4);
    for (int t = 0; t < NT; t++) {
      if (binary) {
        be(&o, 4, 4);
        for (int k = 0; k < 4; k++) be(&o, (uint64_t)g_tet[4 * t + k], 4);
      } else {
        pf(&o, "4 %d %d %d %d\n", g_tet[4 * t], g_tet[4 * t + 1], g_tet[4 * t + 2], g_tet[4 * t + 3]);
      }
    }
    if (binary)
      be(&o, 3, 4), be(&o, 0, 4), be(&o, 1, 4), be(&o, 2, 4);
    else
      pf(&o, "3 0 1 2\n");
  }
  pf(&o, "\nCELL_TYPES %d\n", ncell);
  for (int c = 0; c < ncell; c++) {
    if (binary)
      be(&o, c < NT ? 10 : 5, 4);
    else
      pf(&o, "%d\n", c < NT ? 10 : 5);
  }
  pf(&o, "\nCELL_DATA %d\nSCALARS id int 1\nLOOKUP_TABLE default\n", ncell);
  char name[32];
  snprintf(name, sizeof name, "l%d%c.vtk", v5 ? 5 : 4, binary ? 'b' : 'a');
  const char *p = save(name, &o);
  free(o.b);
  return p;
}

/* .vtu modes */
enum { VTU_ASCII, VTU_BINARY, VTU_BINARY_JOINT, VTU_APPENDED_RAW, VTU_APPENDED_B64 };

/* the encoded bytes of one array (header + data, compressed or not) */
static void vtu_encode(Buf *out, const unsigned char *data, size_t n, int h64, int zlib, int mode) {
  Buf head = {0}, body = {0};
  int hs = h64 ? 8 : 4;
  if (!zlib) {
    le(&head, n, hs);
    put(&body, data, n);
  } else {
    size_t bs = 64, nb = (n + bs - 1) / bs;
    le(&head, nb, hs), le(&head, bs, hs), le(&head, n - (nb - 1) * bs, hs);
    for (size_t k = 0; k < nb; k++) {
      size_t len = k + 1 == nb ? n - k * bs : bs;
      uLongf cl = compressBound(len);
      unsigned char *z = malloc(cl);
      compress(z, &cl, data + k * bs, len);
      le(&head, cl, hs);
      put(&body, z, cl);
      free(z);
    }
  }
  if (mode == VTU_APPENDED_RAW) {
    put(out, head.b, head.n);
    put(out, body.b, body.n);
  } else if (mode == VTU_BINARY_JOINT) {
    Buf all = {0};
    put(&all, head.b, head.n);
    put(&all, body.b, body.n);
    b64(out, all.b, all.n);
    free(all.b);
  } else {
    b64(out, head.b, head.n);
    b64(out, body.b, body.n);
  }
  JL_FREE_ALL(head.b, body.b);
}

static const char *write_vtu(int mode, int h64, int zlib, const char *name) {
  /* the arrays' bytes: Float64 points, Int64 connectivity and offsets, UInt8 types */
  int ncell = NT + 1;
  Buf pts = {0}, con = {0}, off = {0}, typ = {0};
  for (int i = 0; i < 3 * NN; i++) le(&pts, dbits(g_node[i]), 8);
  for (int i = 0; i < 4 * NT; i++) le(&con, (uint64_t)g_tet[i], 8);
  le(&con, 0, 8), le(&con, 1, 8), le(&con, 2, 8);
  for (int c = 1; c <= ncell; c++) le(&off, c <= NT ? 4 * (uint64_t)c : 4 * NT + 3, 8);
  for (int c = 0; c < ncell; c++) le(&typ, c < NT ? 10 : 5, 1);
  Buf *arr[4] = {&pts, &con, &off, &typ};
  static const char *const decl[4][2] = {{"Float64", "Name=\"Points\" NumberOfComponents=\"3\""},
                                         {"Int64", "Name=\"connectivity\""},
                                         {"Int64", "Name=\"offsets\""},
                                         {"UInt8", "Name=\"types\""}};
  Buf o = {0}, app = {0};
  pf(&o,
     "<?xml version=\"1.0\"?>\n<!-- a comment <Piece> -->\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
     "byte_order=\"LittleEndian\" header_type=\"%s\"%s>\n<UnstructuredGrid>\n<Piece NumberOfPoints=\"%d\" "
     "NumberOfCells=\"%d\">\n<PointData>\n</PointData>\n",
     h64 ? "UInt64" : "UInt32", zlib ? " compressor=\"vtkZLibDataCompressor\"" : "", NN, ncell);
  for (int a = 0; a < 4; a++) {
    if (a == 0) pf(&o, "<Points>\n");
    if (a == 1) pf(&o, "</Points>\n<Cells>\n");
    const char *fmt = mode == VTU_ASCII ? "ascii" : mode <= VTU_BINARY_JOINT ? "binary" : "appended";
    pf(&o, "<DataArray type=\"%s\" %s format=\"%s\"", decl[a][0], decl[a][1], fmt);
    if (mode >= VTU_APPENDED_RAW) {
      pf(&o, " offset=\"%zu\"/>\n", app.n);
      vtu_encode(&app, arr[a]->b, arr[a]->n, h64, zlib, mode);
      continue;
    }
    pf(&o, ">\n");
    if (mode == VTU_ASCII) {
      if (a == 0)
        for (int i = 0; i < 3 * NN; i++) pf(&o, "%.17g ", g_node[i]);
      else
        for (size_t i = 0; i < arr[a]->n / (a == 3 ? 1 : 8); i++)
          pf(&o, "%llu ",
             a == 3 ? (unsigned long long)arr[a]->b[i] : (unsigned long long)((uint64_t *)(void *)arr[a]->b)[i]);
    } else {
      vtu_encode(&o, arr[a]->b, arr[a]->n, h64, zlib, mode);
    }
    pf(&o, "\n<InformationKey name=\"x\"><Value index=\"0\">1</Value></InformationKey>\n</DataArray>\n");
  }
  pf(&o, "</Cells>\n</Piece>\n</UnstructuredGrid>\n");
  if (mode >= VTU_APPENDED_RAW) {
    pf(&o, "<AppendedData encoding=\"%s\">\n   _", mode == VTU_APPENDED_RAW ? "raw" : "base64");
    put(&o, app.b, app.n);
    pf(&o, "\n</AppendedData>\n");
  }
  pf(&o, "</VTKFile>\n");
  const char *p = save(name, &o);
  JL_FREE_ALL(o.b, app.b, pts.b, con.b, off.b, typ.b);
  return p;
}

/* ---- comparison -------------------------------------------------------------------- */

static double tet_sum(const JlTetMesh *t) {
  double v = 0;
  for (int e = 0; e < t->ntet; e++) {
    const int *q = t->tet + 4 * e;
    v += jl_tet_volume(t->node + 3 * q[0], t->node + 3 * q[1], t->node + 3 * q[2], t->node + 3 * q[3]);
  }
  return v;
}

/* loads path and checks it against the reference (or makes it the reference) */
static void same_as(const char *path, JlTetMesh *ref, int want_skipped) {
  JlTetMesh t;
  JlTetFileReport rep;
  char err[1024];
  JlResult r = jl_tetfile_load(path, &t, &rep, err, sizeof err);
  ENSURE_MSG(r == JL_OK, "%s: %s", path, err);
  if (r) return;
  ENSURE_MSG(t.nnode == 27 && t.ntet == NT && t.nface == 48 && rep.nunused == 1 && rep.nnode_file == NN,
             "%s: %d nodes, %d tets, %d faces, %d unused", path, t.nnode, t.ntet, t.nface, rep.nunused);
  ENSURE_MSG(rep.nskipped == want_skipped, "%s: %d skipped (want %d)", path, rep.nskipped, want_skipped);
  ENSURE_NEAR(tet_sum(&t), 1.0, 1e-14);
  if (!ref->node) {
    *ref = t;
    return;
  }
  ENSURE_MSG(t.nnode == ref->nnode && t.ntet == ref->ntet &&
                 memcmp(t.node, ref->node, sizeof(double) * 3 * (size_t)t.nnode) == 0 &&
                 memcmp(t.tet, ref->tet, sizeof(int) * 4 * (size_t)t.ntet) == 0 &&
                 memcmp(t.face, ref->face, sizeof(int) * 3 * (size_t)t.nface) == 0,
             "%s differs from the reference", path);
  jl_tetmesh_free(&t);
}

static void test_formats_agree(void) {
  make_mesh();
  JlTetMesh ref;
  memset(&ref, 0, sizeof ref);
  same_as(write_tetgen(0), &ref, 0);
  same_as(write_tetgen(1), &ref, 0);
  /* a .ele names the same mesh as its .node */
  char ele[600];
  snprintf(ele, sizeof ele, "%s/tg1.ele", dir());
  same_as(ele, &ref, 0);
  same_as(write_msh22(0), &ref, 2);
  same_as(write_msh22(1), &ref, 2);
  same_as(write_msh41(0), &ref, 1);
  same_as(write_msh41(1), &ref, 1);
  for (int v5 = 0; v5 < 2; v5++)
    for (int bin = 0; bin < 2; bin++) same_as(write_vtk(v5, bin), &ref, 1);
  static const struct {
    int mode, h64, zlib;
    const char *name;
  } vtu[] = {
      {VTU_ASCII, 0, 0, "a.vtu"},           {VTU_BINARY, 0, 0, "b32.vtu"},        {VTU_BINARY, 1, 1, "b64z.vtu"},
      {VTU_BINARY_JOINT, 1, 0, "j64.vtu"},  {VTU_BINARY_JOINT, 0, 1, "j32z.vtu"}, {VTU_APPENDED_RAW, 0, 0, "r32.vtu"},
      {VTU_APPENDED_RAW, 1, 1, "r64z.vtu"}, {VTU_APPENDED_B64, 0, 1, "e32z.vtu"}, {VTU_APPENDED_B64, 1, 0, "e64.vtu"}};
  for (size_t i = 0; i < sizeof vtu / sizeof vtu[0]; i++)
    same_as(write_vtu(vtu[i].mode, vtu[i].h64, vtu[i].zlib, vtu[i].name), &ref, 1);
  /* files VTK 9.1 wrote (tests/data/tetfile/README) */
  static const char *const vtk_made[] = {"vtk_ascii.vtu",         "vtk_binary.vtu",          "vtk_binary_zlib.vtu",
                                         "vtk_appended.vtu",      "vtk_appended_zlib64.vtu", "vtk_legacy_ascii.vtk",
                                         "vtk_legacy_binary.vtk", "vtk_legacy42.vtk"};
  for (size_t i = 0; i < sizeof vtk_made / sizeof vtk_made[0]; i++) {
    char p[600];
    snprintf(p, sizeof p, "%s/tests/data/tetfile/%s", JL_SOURCE_DIR, vtk_made[i]);
    same_as(p, &ref, 1);
  }
  /* Jelly's own .vtu writer (what `jelly run` and `jelly mesh --out` write),
   * binary + zlib and --vtk-ascii: without the unused node, so compare counts
   * and volume */
  for (int enc = 0; enc < JL_VTK_ENCODING_COUNT; enc++) {
    char p[600];
    snprintf(p, sizeof p, "%s/jelly%d.vtu", dir(), enc);
    char err[1024];
    ENSURE(jl_vtu_write(p, (JlVtkEncoding)enc, ref.nnode, ref.node, ref.ntet, ref.tet, 0, NULL, err, sizeof err) ==
           JL_OK);
    JlTetMesh t;
    ENSURE_MSG(jl_tetfile_load(p, &t, NULL, err, sizeof err) == JL_OK, "%s", err);
    ENSURE(t.nnode == ref.nnode && t.ntet == ref.ntet && t.nface == ref.nface);
    ENSURE_NEAR(tet_sum(&t), 1.0, 1e-14);
    jl_tetmesh_free(&t);
  }
  jl_tetmesh_free(&ref);
}

/* what the tetgen program wrote (tests/data/tetfile/README.md): a unit cube */
static void test_tetgen_made(void) {
  JlTetMesh t;
  JlTetFileReport rep;
  char err[1024];
  ENSURE_MSG(jl_tetfile_load(JL_SOURCE_DIR "/tests/data/tetfile/tetgen_cube.1.ele", &t, &rep, err, sizeof err) == JL_OK,
             "%s", err);
  ENSURE(t.nnode == 75 && t.ntet == 153 && rep.nflipped == 0 && rep.nunused == 0 && rep.nnote == 0);
  ENSURE_NEAR(tet_sum(&t), 1.0, 1e-12);
  JlSurface s;
  jl_tetmesh_boundary_surface(&t, &s);
  ENSURE_NEAR(jl_surface_volume(&s), 1.0, 1e-12);
  jl_surface_free(&s);
  jl_tetmesh_free(&t);
}

/* every tet positive after loading, and the count of reoriented tets is the
 * count of negative ones in the file */
static void test_orientation(void) {
  make_mesh();
  int neg = 0;
  for (int t = 0; t < NT; t++) {
    const int *v = g_tet + 4 * t;
    neg += jl_tet_volume(g_node + 3 * v[0], g_node + 3 * v[1], g_node + 3 * v[2], g_node + 3 * v[3]) < 0;
  }
  ENSURE(neg > 0 && neg < NT); /* Kuhn tets come in both orientations */
  JlTetMesh t;
  JlTetFileReport rep;
  char err[1024];
  ENSURE_MSG(jl_tetfile_load(write_msh22(0), &t, &rep, err, sizeof err) == JL_OK, "%s", err);
  ENSURE_MSG(rep.nflipped == neg, "%d flipped, %d negative", rep.nflipped, neg);
  for (int e = 0; e < t.ntet; e++) {
    const int *v = t.tet + 4 * e;
    ENSURE(jl_tet_volume(t.node + 3 * v[0], t.node + 3 * v[1], t.node + 3 * v[2], t.node + 3 * v[3]) > 0);
  }
  int noted = 0;
  for (int k = 0; k < rep.nnote; k++) noted |= strstr(rep.note[k], "reoriented") != NULL;
  ENSURE(noted);
  /* the boundary surface is closed, outward, of the tets' volume, and embeds
   * with weight 1 on its nodes */
  JlSurface s;
  jl_tetmesh_boundary_surface(&t, &s);
  ENSURE(s.nvert == 26 && s.ntri == 48);
  ENSURE_NEAR(jl_surface_volume(&s), 1.0, 1e-14);
  JlEmbedding e;
  ENSURE(jl_embed_build(&t, s.vert, s.nvert, &e, err, sizeof err) == JL_OK);
  double *back = calloc((size_t)s.nvert * 3, sizeof(double));
  jl_embed_apply(&e, t.tet, 0, t.node, back);
  for (int i = 0; i < 3 * s.nvert; i++) ENSURE_NEAR(back[i], s.vert[i], 1e-14);
  free(back);
  jl_embed_free(&e);
  jl_surface_free(&s);
  jl_tetmesh_free(&t);
}

/* text must fail to load as `name` with a message containing each needle */
static void rejects(const char *name, const char *text, const char *n1, const char *n2) {
  const char *p = save_text(name, text);
  JlTetMesh t;
  char err[1024];
  JlResult r = jl_tetfile_load(p, &t, NULL, err, sizeof err);
  ENSURE_MSG(r == JL_ERR_INPUT && strstr(err, p) && strstr(err, n1) && (!n2 || strstr(err, n2)),
             "%s: result %d, '%s' (want '%s' '%s')", name, r, r ? err : "", n1, n2 ? n2 : "");
  ENSURE(t.node == NULL && t.tet == NULL);
}

static void test_errors(void) {
  static const char *const nodes5 = "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 0\n";
  save_text("deg.node", nodes5);
  rejects("deg.ele", "2 4 0\n0 0 1 2 3\n1 0 1 2 4\n", "1 degenerate tet", "first tet 1 (nodes 0 1 2 4)");
  save_text("rep.node", nodes5);
  rejects("rep.ele", "1 4 0\n0 0 1 2 2\n", "tet 0 (nodes 0 1 2 2) has node 2 twice", NULL);
  save_text("dup.node", nodes5);
  rejects("dup.ele", "3 4 0\n0 0 1 2 3\n1 1 2 3 4\n2 3 2 1 0\n", "1 duplicated tet; first: tets 0 and 2", NULL);
  save_text("over.node", "6 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n5 0.2 0.2 0.2\n");
  rejects("over.ele", "3 4 0\n0 0 1 2 3\n1 1 2 3 4\n2 1 2 3 5\n", "1 face is shared by more than two tets",
          "first face nodes 1 2 3");
  save_text("oob.node", nodes5);
  rejects("oob.ele", "1 4 0\n0 0 1 2 5\n", "line 2: tet 0 has node 5, not in the .node file", NULL);
  save_text("nan.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 nan 0\n3 0 0 1\n");
  rejects("nan.ele", "1 4 0\n0 0 1 2 3\n", "node 2 (of tet 0) has a non-finite coordinate", NULL);
  rejects("tag.msh",
          "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
          "$Elements\n1\n7 4 0 1 2 3 99\n$EndElements\n",
          "line 13: element 7 has node tag 99 which is not in $Nodes", NULL);
  rejects("oob.vtk",
          "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\n"
          "CELLS 1 5\n4 0 1 2 99\nCELL_TYPES 1\n10\n",
          "cell 0 has point id 99, out of range 0..3", NULL);
  rejects("neg.vtu",
          "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"4\" NumberOfCells=\"1\">"
          "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">0 0 0 1 0 0 0 1 0 0 0 1"
          "</DataArray></Points><Cells><DataArray type=\"Int32\" Name=\"connectivity\">0 1 -2 3</DataArray>"
          "<DataArray type=\"Int32\" Name=\"offsets\">4</DataArray><DataArray type=\"UInt8\" Name=\"types\">10"
          "</DataArray></Cells></Piece></UnstructuredGrid></VTKFile>",
          "cell 0 has point id -2", NULL);
  rejects("only_tris.msh",
          "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n"
          "$Elements\n1\n1 2 0 1 2 3\n$EndElements\n",
          "no tets", NULL);
  rejects("v40.msh", "$MeshFormat\n4 0 8\n$EndMeshFormat\n", "MSH version 4", "2.2 and 4.1");
  /* a missing .ele beside a .node */
  rejects("alone.node", nodes5, "needs its .ele file beside it", NULL);
}

/* A binary 4.1 file whose $MeshFormat declares a data size of 4 while its
 * sizes are 8 bytes (as Gmsh writes them) read as "node block 0: dimension
 * 1, parametric 5": the message now names the declared data size. */
static void test_msh41_data_size(void) {
  make_mesh();
  size_t n = 0;
  char *data = jl_test_read_file(write_msh41(1), &n);
  ENSURE(data && n > 20);
  if (!data) return;
  char *h = strstr(data, "4.1 1 8");
  ENSURE(h);
  if (h) h[6] = '4';
  JlTetMesh t;
  char err[1024] = "";
  JlResult r = jl_tetfile_parse("size4.msh", (const unsigned char *)data, n, &t, NULL, err, sizeof err);
  free(data);
  ENSURE_MSG(r != JL_OK && strstr(err, "data size 4") && strstr(err, "size4.msh"), "result %d: %s", (int)r, err);
  if (r == JL_OK) jl_tetmesh_free(&t);
}

/* a scene body whose "mesh" is a .msh runs; "tetgen" on it and "surface" on
 * a surface body are errors naming why */
static void test_scene(void) {
  make_mesh();
  const char *msh = write_msh41(1);
  char text[2048];
  snprintf(text, sizeof text,
           "{\"duration\": 0.05, \"bodies\": [{\"name\": \"cube\", \"mesh\": \"%s\", \"translate\": [0, 2, -3], "
           "\"rotate_deg\": [10, 20, 30], \"scale\": 0.5}]}",
           msh);
  JlWorld w;
  ENSURE(jl_test_scene_world(&w, text, "tet.json"));
  ENSURE(w.model->nnode == 27 && w.model->ntet == NT);
  for (int s = 0; s < 5; s++) ENSURE(jl_world_step(&w, 0.01, NULL) == JL_OK);
  for (int i = 0; i < 3 * w.model->nnode; i++) ENSURE(isfinite(w.state.x[i]));
  jl_world_destroy(&w);
  /* with a separate render surface */
  snprintf(
      text, sizeof text,
      "{\"duration\": 0.05, \"bodies\": [{\"mesh\": \"%s\", \"surface\": \"%s/icosphere_320.obj\", \"scale\": 0.5}]}",
      msh, JL_MODELS_DIR);
  ENSURE(jl_test_scene_world(&w, text, "tet.json"));
  ENSURE(jl_world_step(&w, 0.01, NULL) == JL_OK);
  jl_world_destroy(&w);
  /* errors */
  char err[1024];
  JlScene sc;
  snprintf(text, sizeof text, "{\"bodies\": [{\"mesh\": \"%s\", \"tetgen\": {\"quality\": 2}}]}", msh);
  ENSURE(jl_scene_parse(text, "tet.json", &sc, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "bodies[0].tetgen: the mesh is already a tet mesh"), "%s", err);
  snprintf(text, sizeof text, "{\"bodies\": [{\"mesh\": \"%s/icosphere_320.obj\", \"surface\": \"x.obj\"}]}",
           JL_MODELS_DIR);
  ENSURE(jl_scene_parse(text, "tet.json", &sc, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "bodies[0].surface: only a body whose \"mesh\" is a tet mesh"), "%s", err);
  snprintf(text, sizeof text, "{\"bodies\": [{\"kind\": \"cloth\", \"mesh\": \"%s\"}]}", msh);
  ENSURE(jl_scene_parse(text, "tet.json", &sc, err, sizeof err) == JL_ERR_INPUT);
  ENSURE_MSG(strstr(err, "is a tet mesh; only volume bodies take one"), "%s", err);
  /* the shipped example */
  char cmd[1200], out[8192];
  snprintf(cmd, sizeof cmd, "%s run %s/scenes/tetmesh_import.json --out %s/ex --frames 2 --quiet 2>&1", JL_JELLY_EXE,
           JL_MODELS_DIR, dir());
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0, "exit %d:\n%s", rc, out);
}

/* `jelly check` and `jelly mesh` on a tet mesh */
static void test_cli(void) {
  make_mesh();
  const char *p = write_vtk(1, 1);
  char cmd[1200], out[8192];
  snprintf(cmd, sizeof cmd, "%s check '%s' 2>&1", JL_JELLY_EXE, p);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0 && strstr(out, "tets         48") && strstr(out, "nodes        27 (28 in the file)") &&
                 strstr(out, "1 of 28 nodes are in no tet") && strstr(out, "ok: a tet mesh"),
             "exit %d:\n%s", rc, out);
  snprintf(cmd, sizeof cmd, "%s mesh '%s' --out '%s/cli.vtu' 2>&1", JL_JELLY_EXE, p, dir());
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0 && strstr(out, "tets         48") && strstr(out, "embedded     26 surface vertices (0 outside") &&
                 strstr(out, "volume       tets 1, surface 1,"),
             "exit %d:\n%s", rc, out);
  snprintf(cmd, sizeof cmd, "%s mesh '%s' --max-volume 0.1 2>&1", JL_JELLY_EXE, p);
  rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 2 && strstr(out, "--max-volume does not apply") && strstr(out, "already a tet mesh"), "exit %d:\n%s",
             rc, out);
}

/* the C API's jelly_model_add_mesh takes a tet mesh too */
static void test_api(void) {
  make_mesh();
  const char *p = write_vtu(VTU_APPENDED_RAW, 1, 1, "api.vtu");
  char err[1024];
  JellyModel *m = NULL;
  ENSURE_MSG(jelly_model_new(NULL, &m, err, sizeof err) == JELLY_OK, "%s", err);
  if (!m) return;
  JellyBodyDef d = jelly_default_body_def();
  d.translate[1] = 2.0;
  ENSURE_MSG(jelly_model_add_mesh(m, p, &d, err, sizeof err) == JELLY_OK, "%s", err);
  d.max_volume = 0.01;
  ENSURE(jelly_model_add_mesh(m, p, &d, err, sizeof err) == JELLY_ERR_INPUT);
  ENSURE_MSG(strstr(err, "already a tet mesh"), "%s", err);
  ENSURE(jelly_model_body_count(m) == 1);
  jelly_model_free(m);
}

#define JL_TEST_TIER JL_UNIT /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"msh41_data_size", test_msh41_data_size}, {"formats_agree", test_formats_agree},
             {"tetgen_made", test_tetgen_made}, {"orientation", test_orientation}, {"errors", test_errors},
             {"scene", test_scene}, {"cli", test_cli, JL_PROGRAM}, {"api", test_api, JL_PROGRAM})
