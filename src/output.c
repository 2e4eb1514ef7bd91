/* Output writers (src/output.h): VTK XML unstructured grids (.vtu), polygon
 * surfaces (.vtp), multiblock frames (.vtm), ParaView collections (.pvd) and
 * OBJ surfaces and polylines.
 *
 * A grid may mix cell types in one piece (tets of volumes, triangles of
 * cloth, line segments of ropes), as VTK's own unstructured grids do:
 * connectivity lists each cell's nodes, offsets where each cell ends, types
 * its VTK cell type.
 *
 * Two encodings of the same arrays. JL_VTK_BINARY (the default of `jelly
 * run`): VTK's appended format, raw bytes, UInt64 headers, every array
 * compressed with zlib in blocks as vtkZLibDataCompressor does (VTK file
 * formats, "Appended data" and "Compressed data"): per array the header
 * [nblocks, block size, size of the last partial block (0: full), compressed
 * size of each block] then the blocks, each compress2() of up to BLOCK
 * bytes. A 111k-tet frame goes from 16.1 MB ASCII to about a seventh
 * (docs/performance.md). JL_VTK_ASCII: %.17g text, every double exact, the
 * bytes Jelly wrote before binary output. Both are byte-identical between
 * identical runs (compress2 at a fixed level is deterministic, nothing
 * carries a time). Files are written to "<path>.tmp" and renamed so a
 * reader never sees half a frame. */
#include "src/output.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* uncompressed bytes per zlib block (VTK's default) and the level: 1 packs
 * a frame's doubles within a few per cent of level 6 in a third of the time
 * (docs/performance.md) */
#define BLOCK  32768
#define ZLEVEL 1

/* opens path.tmp for writing */
static FILE *open_tmp(const char *path, char *tmp, size_t tmpsz, char *err, size_t errsz) {
  if ((size_t)snprintf(tmp, tmpsz, "%s.tmp", path) >= tmpsz) {
    jl_fail(err, errsz, JL_ERR_INPUT, "%s: path too long", path);
    return NULL;
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) jl_fail(err, errsz, JL_ERR_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

/* open_tmp, then the XML header of a VTK file of type `type` (UnstructuredGrid, Collection) and its element */
static FILE *open_vtk(const char *path, const char *type, char *tmp, size_t tmpsz, char *err, size_t errsz) {
  FILE *f = open_tmp(path, tmp, tmpsz, err, errsz);
  if (f)
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <%s>\n",
            type, type);
  return f;
}

/* flushes, closes and renames path.tmp to path */
static JlResult close_tmp(FILE *f, const char *tmp, const char *path, char *err, size_t errsz) {
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "%s: write failed: %s", path, strerror(errno));
  }
  return JL_OK;
}

static void write_array(FILE *f, const char *name, int ncomp, const double *data, long n) {
  fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n", name,
          ncomp);
  for (long i = 0; i < n; i++) {
    fputs("          ", f);
    for (int c = 0; c < ncomp; c++) fprintf(f, c ? " %.17g" : "%.17g", data[i * ncomp + c]);
    fputc('\n', f);
  }
  fputs("        </DataArray>\n", f);
}

/* the grid in ASCII: cells given by offset/conn/type, or every cell a tet
 * (offset == NULL, conn = ncell x 4) */
static JlResult write_grid_ascii(const char *path, int nnode, const double *x, int ncell, const int *offset,
                                 const int *conn, const unsigned char *type, int nfield, const JlVtuField *field,
                                 char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_vtk(path, "UnstructuredGrid", tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  fprintf(f, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", nnode, ncell);

  /* point data, then cell data */
  for (int pass = 0; pass < 2; pass++) {
    fputs(pass ? "      <CellData>\n" : "      <PointData>\n", f);
    for (int k = 0; k < nfield; k++)
      if (field[k].on_cells == pass) write_array(f, field[k].name, field[k].ncomp, field[k].data, pass ? ncell : nnode);
    fputs(pass ? "      </CellData>\n" : "      </PointData>\n", f);
  }

  /* points, then cells: one line of node ids per cell, end offsets, types */
  fputs("      <Points>\n", f);
  write_array(f, "position", 3, x, nnode);
  fputs(
      "      </Points>\n      <Cells>\n"
      "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n",
      f);
  for (int c = 0; c < ncell; c++) {
    int lo = offset ? offset[c] : 4 * c, hi = offset ? offset[c + 1] : 4 * (c + 1);
    fputs("         ", f);
    for (int k = lo; k < hi; k++) fprintf(f, " %d", conn[k]);
    fputc('\n', f);
  }
  fputs(
      "        </DataArray>\n"
      "        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n",
      f);
  for (int c = 0; c < ncell; c++) fprintf(f, "          %d\n", offset ? offset[c + 1] : 4 * (c + 1));
  fputs(
      "        </DataArray>\n"
      "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n",
      f);
  for (int c = 0; c < ncell; c++) fprintf(f, "          %d\n", type ? type[c] : JL_VTK_TETRA);
  fputs("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  return close_tmp(f, tmp, path, err, errsz);
}


/* ---- appended raw binary with zlib ---------------------------------------------- */

_Static_assert(sizeof(int) == 4, "Int32 arrays are written from int");
_Static_assert(sizeof(double) == 8, "Float64 arrays are written from double");

/* the arrays a file sequence wrote, in file order: entry k is the k-th
 * array of the last file (its raw bytes and their compressed form) */
typedef struct CacheEntry {
  unsigned char *raw, *packed;
  size_t nraw, npacked;
} CacheEntry;

struct JlVtkCache {
  CacheEntry *entry;
  int n;
};

JlVtkCache *jl_vtk_cache_new(void) { return jl_calloc(1, sizeof(JlVtkCache)); }

void jl_vtk_cache_free(JlVtkCache *c) {
  if (!c) return;
  for (int k = 0; k < c->n; k++) JL_FREE_ALL(c->entry[k].raw, c->entry[k].packed);
  free(c->entry);
  free(c);
}

/* the appended-data section being built: the arrays' compressed bytes one
 * after another, each array's offset into it named in its DataArray */
typedef struct Appended {
  unsigned char *data;
  size_t n, cap;
  int failed;        /* compress2 refused (out of memory) */
  JlVtkCache *cache; /* may be NULL */
  int index;         /* arrays appended so far: the cache entry of the next */
} Appended;

static int little_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* count values of width bytes as little-endian bytes: src itself on a
 * little-endian host, else a swapped copy in *tmp (freed by the caller) */
static const unsigned char *le_bytes(const void *src, size_t count, int width, unsigned char **tmp) {
  *tmp = NULL;
  if (width == 1 || little_endian()) return src;
  const unsigned char *s = src;
  unsigned char *d = jl_calloc(count * (size_t)width + 1, 1);
  for (size_t i = 0; i < count; i++)
    for (int k = 0; k < width; k++) d[i * width + k] = s[i * width + width - 1 - k];
  *tmp = d;
  return d;
}

/* appends nbytes of raw as VTK's compressed block layout; its offset. With
 * a cache, the same bytes as the last file's array at this place are copied
 * from there. */
static size_t append_array(Appended *a, const unsigned char *raw, size_t nbytes) {
  size_t nblock = (nbytes + BLOCK - 1) / BLOCK, head = 8 * (3 + nblock);
  CacheEntry *ce = NULL;
  if (a->cache) {
    JlVtkCache *c = a->cache;
    if (a->index >= c->n) {
      c->entry = jl_realloc(c->entry, (size_t)a->index + 1, sizeof *c->entry);
      memset(c->entry + c->n, 0, ((size_t)a->index + 1 - (size_t)c->n) * sizeof *c->entry);
      c->n = a->index + 1;
    }
    ce = &c->entry[a->index++];
  }
  int hit = ce && ce->packed && ce->nraw == nbytes && memcmp(ce->raw, raw, nbytes) == 0;
  size_t need = a->n + (hit ? ce->npacked : head + nblock * (size_t)compressBound(BLOCK));
  if (need > a->cap) {
    a->cap = need + need / 2;
    a->data = jl_realloc(a->data, a->cap, 1);
  }
  size_t off = a->n;
  if (hit) {
    memcpy(a->data + off, ce->packed, ce->npacked);
    a->n += ce->npacked;
    return off;
  }
  unsigned char *h = a->data + off, *dst = h + head;
  put_u64(h, nblock);
  put_u64(h + 8, BLOCK);
  put_u64(h + 16, nbytes % BLOCK);
  int failed = 0;
  for (size_t b = 0; b < nblock; b++) {
    size_t len = b + 1 < nblock || nbytes % BLOCK == 0 ? BLOCK : nbytes % BLOCK;
    uLongf dlen = compressBound(BLOCK);
    if (compress2(dst, &dlen, raw + b * BLOCK, (uLong)len, ZLEVEL) != Z_OK) failed = 1;
    put_u64(h + 8 * (3 + b), dlen);
    dst += dlen;
  }
  a->failed |= failed;
  a->n = (size_t)(dst - a->data);
  if (ce) {
    /* this array for the next file */
    JL_FREE_ALL(ce->raw, ce->packed);
    ce->nraw = ce->npacked = 0;
    if (!failed) {
      ce->nraw = nbytes;
      ce->npacked = a->n - off;
      ce->raw = jl_calloc(nbytes + 1, 1);
      ce->packed = jl_calloc(ce->npacked + 1, 1);
      memcpy(ce->raw, raw, nbytes);
      memcpy(ce->packed, a->data + off, ce->npacked);
    }
  }
  return off;
}

/* A file being written in one encoding: DataArrays go inline (ASCII) or to
 * the appended section (binary). */
typedef struct Vtk {
  FILE *f;
  JlVtkEncoding enc;
  Appended app;
  char tmp[4096];
} Vtk;

/* opens path.tmp and writes the VTKFile element of `type` and its child */
static int vtk_open(Vtk *v, const char *path, const char *type, JlVtkEncoding enc, JlVtkCache *cache, char *err,
                    size_t errsz) {
  memset(v, 0, sizeof *v);
  v->enc = enc;
  v->app.cache = cache;
  v->f = open_tmp(path, v->tmp, sizeof v->tmp, err, errsz);
  if (!v->f) return 0;
  if (enc == JL_VTK_BINARY)
    fprintf(v->f,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"LittleEndian\" "
            "header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\">\n  <%s>\n",
            type, type);
  else
    fprintf(v->f,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <%s>\n",
            type, type);
  return 1;
}

/* a DataArray of n tuples of ncomp values: vtk_type Float64 (data double),
 * Int32 (int) or UInt8 (unsigned char) */
static void vtk_array(Vtk *v, const char *vtk_type, const char *name, int ncomp, const void *data, long n) {
  int width = vtk_type[0] == 'F' ? 8 : vtk_type[0] == 'I' ? 4 : 1;
  size_t count = (size_t)n * (size_t)ncomp;
  fprintf(v->f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" ", vtk_type, name, ncomp);
  if (v->enc == JL_VTK_BINARY) {
    unsigned char *tmp;
    const unsigned char *raw = le_bytes(data, count, width, &tmp);
    fprintf(v->f, "format=\"appended\" offset=\"%zu\"/>\n", append_array(&v->app, raw, count * (size_t)width));
    free(tmp);
    return;
  }
  fputs("format=\"ascii\">\n", v->f);
  for (long i = 0; i < n; i++) {
    fputs("          ", v->f);
    for (int c = 0; c < ncomp; c++) {
      size_t k = (size_t)i * (size_t)ncomp + (size_t)c;
      if (width == 8)
        fprintf(v->f, c ? " %.17g" : "%.17g", ((const double *)data)[k]);
      else if (width == 4)
        fprintf(v->f, c ? " %d" : "%d", ((const int *)data)[k]);
      else
        fprintf(v->f, c ? " %d" : "%d", ((const unsigned char *)data)[k]);
    }
    fputc('\n', v->f);
  }
  fputs("        </DataArray>\n", v->f);
}

/* closes the child of VTKFile, writes the appended section, renames */
static JlResult vtk_close(Vtk *v, const char *type, const char *path, char *err, size_t errsz) {
  fprintf(v->f, "  </%s>\n", type);
  if (v->enc == JL_VTK_BINARY) {
    fputs("  <AppendedData encoding=\"raw\">\n   _", v->f);
    if (v->app.n) fwrite(v->app.data, 1, v->app.n, v->f);
    fputs("\n  </AppendedData>\n", v->f);
  }
  fputs("</VTKFile>\n", v->f);
  int failed = v->app.failed;
  free(v->app.data);
  if (failed) {
    fclose(v->f);
    remove(v->tmp);
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "%s: zlib could not compress (out of memory)", path);
  }
  return close_tmp(v->f, v->tmp, path, err, errsz);
}

/* the grid in binary: the ASCII writer's arrays in the same order */
static JlResult write_grid_binary(const char *path, int nnode, const double *x, int ncell, const int *offset,
                                  const int *conn, const unsigned char *type, int nfield, const JlVtuField *field,
                                  JlVtkCache *cache, char *err, size_t errsz) {
  Vtk v;
  if (!vtk_open(&v, path, "UnstructuredGrid", JL_VTK_BINARY, cache, err, errsz)) return JL_ERR_SYSTEM;
  fprintf(v.f, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", nnode, ncell);
  for (int pass = 0; pass < 2; pass++) {
    fputs(pass ? "      <CellData>\n" : "      <PointData>\n", v.f);
    for (int k = 0; k < nfield; k++)
      if (field[k].on_cells == pass)
        vtk_array(&v, "Float64", field[k].name, field[k].ncomp, field[k].data, pass ? ncell : nnode);
    fputs(pass ? "      </CellData>\n" : "      </PointData>\n", v.f);
  }
  fputs("      <Points>\n", v.f);
  vtk_array(&v, "Float64", "position", 3, x, nnode);
  fputs("      </Points>\n      <Cells>\n", v.f);
  /* tets only: offsets and types made here */
  int *off = NULL;
  unsigned char *ty = NULL;
  if (!offset) {
    off = jl_calloc((size_t)ncell + 1, sizeof(int));
    ty = jl_calloc((size_t)ncell + 1, 1);
    for (int c = 0; c <= ncell; c++) off[c] = 4 * c;
    memset(ty, JL_VTK_TETRA, (size_t)ncell);
  }
  const int *o = offset ? offset : off;
  vtk_array(&v, "Int32", "connectivity", 1, conn, o[ncell]);
  vtk_array(&v, "Int32", "offsets", 1, o + 1, ncell);
  vtk_array(&v, "UInt8", "types", 1, type ? type : ty, ncell);
  free(off);
  free(ty);
  fputs("      </Cells>\n    </Piece>\n", v.f);
  return vtk_close(&v, "UnstructuredGrid", path, err, errsz);
}

static JlResult write_grid(const char *path, JlVtkEncoding enc, int nnode, const double *x, int ncell,
                           const int *offset, const int *conn, const unsigned char *type, int nfield,
                           const JlVtuField *field, JlVtkCache *cache, char *err, size_t errsz) {
  JL_ASSERT(enc >= 0 && enc < JL_VTK_ENCODING_COUNT, "VTK writers: enc must be JL_VTK_BINARY or JL_VTK_ASCII");
  if (enc == JL_VTK_ASCII)
    return write_grid_ascii(path, nnode, x, ncell, offset, conn, type, nfield, field, err, errsz);
  return write_grid_binary(path, nnode, x, ncell, offset, conn, type, nfield, field, cache, err, errsz);
}

JlResult jl_vtu_write(const char *path, JlVtkEncoding enc, int nnode, const double *x, int ntet, const int *tet,
                      int nfield, const JlVtuField *field, char *err, size_t errsz) {
  JL_ASSERT(ntet == 0 || tet, "jl_vtu_write: tet must not be NULL when ntet > 0");
  return write_grid(path, enc, nnode, x, ntet, NULL, tet, NULL, nfield, field, NULL, err, errsz);
}

JlResult jl_vtu_write_cells(const char *path, JlVtkEncoding enc, int nnode, const double *x, const JlVtuCells *cells,
                            int nfield, const JlVtuField *field, JlVtkCache *cache, char *err, size_t errsz) {
  JL_ASSERT(cells && cells->ncell >= 0, "jl_vtu_write_cells: cells must not be NULL");
  JL_ASSERT(cells->ncell == 0 || (cells->offset && cells->conn && cells->type),
            "jl_vtu_write_cells: offset, conn and type must not be NULL when ncell > 0");
  JL_ASSERT(cells->ncell == 0 || cells->offset[0] == 0, "jl_vtu_write_cells: offset[0] must be 0");
  for (int c = 0; c < cells->ncell; c++)
    JL_ASSERT(cells->offset[c + 1] > cells->offset[c], "jl_vtu_write_cells: offsets must increase");
  for (int k = 0; cells->ncell > 0 && k < cells->offset[cells->ncell]; k++)
    JL_ASSERT(cells->conn[k] >= 0 && cells->conn[k] < nnode, "jl_vtu_write_cells: node id out of range");
  return write_grid(path, enc, nnode, x, cells->ncell, cells->offset, cells->conn, cells->type, nfield, field, cache,
                    err, errsz);
}

/* runs of segments that continue each other, as polylines: the number of
 * runs; when conn/offset are not NULL, each run's vertices (the first
 * segment's start, then every segment's end) and the runs' end offsets */
static int polylines(int nseg, const int *seg, int *conn, int *offset) {
  int nrun = 0, k = 0;
  for (int s = 0; s < nseg; s++) {
    if (s == 0 || seg[2 * s] != seg[2 * s - 1]) {
      if (nrun > 0 && offset) offset[nrun - 1] = k;
      nrun++;
      if (conn) conn[k] = seg[2 * s];
      k++;
    }
    if (conn) conn[k] = seg[2 * s + 1];
    k++;
  }
  if (nrun > 0 && offset) offset[nrun - 1] = k;
  return nrun;
}

JlResult jl_vtp_write(const char *path, JlVtkEncoding enc, int nvert, const double *x, const double *normal, int ntri,
                      const int *tri, int nseg, const int *seg, JlVtkCache *cache, char *err, size_t errsz) {
  JL_ASSERT(enc >= 0 && enc < JL_VTK_ENCODING_COUNT, "jl_vtp_write: enc must be JL_VTK_BINARY or JL_VTK_ASCII");
  JL_ASSERT(ntri == 0 || tri, "jl_vtp_write: tri must not be NULL when ntri > 0");
  JL_ASSERT(nseg == 0 || seg, "jl_vtp_write: seg must not be NULL when nseg > 0");
  int nrun = polylines(nseg, seg, NULL, NULL);
  int *line_conn = jl_calloc((size_t)(nseg + nrun) + 1, sizeof(int));
  int *line_off = jl_calloc((size_t)nrun + 1, sizeof(int));
  int *tri_off = jl_calloc((size_t)ntri + 1, sizeof(int));
  polylines(nseg, seg, line_conn, line_off);
  for (int t = 0; t < ntri; t++) tri_off[t] = 3 * (t + 1);
  Vtk v;
  if (!vtk_open(&v, path, "PolyData", enc, cache, err, errsz)) {
    JL_FREE_ALL(line_conn, line_off, tri_off);
    return JL_ERR_SYSTEM;
  }
  fprintf(v.f,
          "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"%d\" NumberOfStrips=\"0\" "
          "NumberOfPolys=\"%d\">\n",
          nvert, nrun, ntri);
  if (normal) {
    fputs("      <PointData Normals=\"Normals\">\n", v.f);
    vtk_array(&v, "Float64", "Normals", 3, normal, nvert);
    fputs("      </PointData>\n", v.f);
  }
  fputs("      <Points>\n", v.f);
  vtk_array(&v, "Float64", "position", 3, x, nvert);
  fputs("      </Points>\n", v.f);
  if (nrun > 0) {
    fputs("      <Lines>\n", v.f);
    vtk_array(&v, "Int32", "connectivity", 1, line_conn, nseg + nrun);
    vtk_array(&v, "Int32", "offsets", 1, line_off, nrun);
    fputs("      </Lines>\n", v.f);
  }
  if (ntri > 0) {
    fputs("      <Polys>\n", v.f);
    vtk_array(&v, "Int32", "connectivity", 1, tri, 3L * ntri);
    vtk_array(&v, "Int32", "offsets", 1, tri_off, ntri);
    fputs("      </Polys>\n", v.f);
  }
  fputs("    </Piece>\n", v.f);
  JL_FREE_ALL(line_conn, line_off, tri_off);
  return vtk_close(&v, "PolyData", path, err, errsz);
}

/* s with XML's special characters as entities, for an attribute value */
static void put_xml(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '&':
        fputs("&amp;", f);
        break;
      case '<':
        fputs("&lt;", f);
        break;
      case '>':
        fputs("&gt;", f);
        break;
      case '"':
        fputs("&quot;", f);
        break;
      default:
        fputc(*s, f);
    }
  }
}

JlResult jl_vtm_write(const char *path, const char *grid, int nbody, const char *const *name, const char *const *file,
                      char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  fputs(
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"vtkMultiBlockDataSet\" version=\"1.0\" "
      "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <vtkMultiBlockDataSet>\n"
      "    <DataSet index=\"0\" name=\"grid\" file=\"",
      f);
  put_xml(f, grid);
  fputs("\"/>\n    <Block index=\"1\" name=\"bodies\">\n", f);
  for (int b = 0; b < nbody; b++) {
    fprintf(f, "      <DataSet index=\"%d\" name=\"", b);
    put_xml(f, name[b]);
    fputs("\" file=\"", f);
    put_xml(f, file[b]);
    fputs("\"/>\n", f);
  }
  fputs("    </Block>\n  </vtkMultiBlockDataSet>\n</VTKFile>\n", f);
  return close_tmp(f, tmp, path, err, errsz);
}

JlResult jl_pvd_write(const char *path, int nfile, const double *time, const char *const *file, char *err,
                      size_t errsz) {
  char tmp[4096];
  FILE *f = open_vtk(path, "Collection", tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  for (int i = 0; i < nfile; i++)
    fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n", time[i], file[i]);
  fputs("  </Collection>\n</VTKFile>\n", f);
  return close_tmp(f, tmp, path, err, errsz);
}

JlResult jl_obj_write(const char *path, int nvert, const double *x, const double *normal, int ntri, const int *tri,
                      int two_sided, char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  fputs("# written by jelly\n", f);
  int sides = two_sided ? 2 : 1;
  /* vertices (and for two sides their copy), then normals, negated on the copy */
  for (int side = 0; side < sides; side++)
    for (int i = 0; i < nvert; i++) fprintf(f, "v %.17g %.17g %.17g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  if (normal)
    for (int side = 0; side < sides; side++) {
      double sign = side ? -1.0 : 1.0;
      for (int i = 0; i < nvert; i++)
        fprintf(f, "vn %.9g %.9g %.9g\n", sign * normal[3 * i], sign * normal[3 * i + 1], sign * normal[3 * i + 2]);
    }
  /* front faces; the back faces on the copy, wound the other way round */
  for (int side = 0; side < sides; side++)
    for (int t = 0; t < ntri; t++) {
      int base = side * nvert + 1;
      int a = tri[3 * t] + base, b = tri[3 * t + 1] + base, c = tri[3 * t + 2] + base;
      if (side) {
        int s = b;
        b = c;
        c = s;
      }
      if (normal)
        fprintf(f, "f %d//%d %d//%d %d//%d\n", a, a, b, b, c, c);
      else
        fprintf(f, "f %d %d %d\n", a, b, c);
    }
  return close_tmp(f, tmp, path, err, errsz);
}

JlResult jl_obj_write_lines(const char *path, int nvert, const double *x, int nseg, const int *seg, char *err,
                            size_t errsz) {
  JL_ASSERT(nseg == 0 || seg, "jl_obj_write_lines: seg must not be NULL when nseg > 0");
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  fputs("# written by jelly\n", f);
  for (int i = 0; i < nvert; i++) fprintf(f, "v %.17g %.17g %.17g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  /* one "l" per run of segments that continue each other */
  for (int s = 0; s < nseg; s++) {
    if (s == 0 || seg[2 * s] != seg[2 * s - 1]) fprintf(f, s ? "\nl %d" : "l %d", seg[2 * s] + 1);
    fprintf(f, " %d", seg[2 * s + 1] + 1);
  }
  if (nseg > 0) fputc('\n', f);
  return close_tmp(f, tmp, path, err, errsz);
}
