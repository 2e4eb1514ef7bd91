/* Output writers (src/output.h): ASCII VTK XML unstructured grids (.vtu),
 * ParaView collections (.pvd) and OBJ surfaces and polylines.
 *
 * A grid may mix cell types in one piece (tets of volumes, triangles of
 * cloth, line segments of ropes), as VTK's own unstructured grids do:
 * connectivity lists each cell's nodes, offsets where each cell ends, types
 * its VTK cell type.
 *
 * ASCII with %.17g keeps every double exactly and makes files byte-identical
 * between identical runs; the price is size, acceptable for the mesh sizes
 * Jelly animates. Files are written to "<path>.tmp" and renamed so a reader
 * never sees half a frame. */
#include "src/output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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
  fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
          name, ncomp);
  for (long i = 0; i < n; i++) {
    fputs("          ", f);
    for (int c = 0; c < ncomp; c++)
      fprintf(f, c ? " %.17g" : "%.17g", data[i * ncomp + c]);
    fputc('\n', f);
  }
  fputs("        </DataArray>\n", f);
}

/* the grid: cells given by offset/conn/type, or every cell a tet (offset ==
 * NULL, conn = ncell x 4) */
static JlResult write_grid(const char *path, int nnode, const double *x, int ncell, const int *offset,
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
      if (field[k].on_cells == pass)
        write_array(f, field[k].name, field[k].ncomp, field[k].data, pass ? ncell : nnode);
    fputs(pass ? "      </CellData>\n" : "      </PointData>\n", f);
  }

  /* points, then cells: one line of node ids per cell, end offsets, types */
  fputs("      <Points>\n", f);
  write_array(f, "position", 3, x, nnode);
  fputs("      </Points>\n      <Cells>\n"
        "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n", f);
  for (int c = 0; c < ncell; c++) {
    int lo = offset ? offset[c] : 4 * c, hi = offset ? offset[c + 1] : 4 * (c + 1);
    fputs("         ", f);
    for (int k = lo; k < hi; k++) fprintf(f, " %d", conn[k]);
    fputc('\n', f);
  }
  fputs("        </DataArray>\n"
        "        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n", f);
  for (int c = 0; c < ncell; c++) fprintf(f, "          %d\n", offset ? offset[c + 1] : 4 * (c + 1));
  fputs("        </DataArray>\n"
        "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n", f);
  for (int c = 0; c < ncell; c++) fprintf(f, "          %d\n", type ? type[c] : JL_VTK_TETRA);
  fputs("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  return close_tmp(f, tmp, path, err, errsz);
}

JlResult jl_vtu_write(const char *path, int nnode, const double *x, int ntet,
                      const int *tet, int nfield, const JlVtuField *field,
                      char *err, size_t errsz) {
  JL_ASSERT(ntet == 0 || tet, "jl_vtu_write: tet must not be NULL when ntet > 0");
  return write_grid(path, nnode, x, ntet, NULL, tet, NULL, nfield, field, err, errsz);
}

JlResult jl_vtu_write_cells(const char *path, int nnode, const double *x, const JlVtuCells *cells,
                            int nfield, const JlVtuField *field, char *err, size_t errsz) {
  JL_ASSERT(cells && cells->ncell >= 0, "jl_vtu_write_cells: cells must not be NULL");
  JL_ASSERT(cells->ncell == 0 || (cells->offset && cells->conn && cells->type),
            "jl_vtu_write_cells: offset, conn and type must not be NULL when ncell > 0");
  JL_ASSERT(cells->ncell == 0 || cells->offset[0] == 0, "jl_vtu_write_cells: offset[0] must be 0");
  for (int c = 0; c < cells->ncell; c++)
    JL_ASSERT(cells->offset[c + 1] > cells->offset[c], "jl_vtu_write_cells: offsets must increase");
  for (int k = 0; cells->ncell > 0 && k < cells->offset[cells->ncell]; k++)
    JL_ASSERT(cells->conn[k] >= 0 && cells->conn[k] < nnode, "jl_vtu_write_cells: node id out of range");
  return write_grid(path, nnode, x, cells->ncell, cells->offset, cells->conn, cells->type, nfield, field, err,
                    errsz);
}

JlResult jl_pvd_write(const char *path, int nfile, const double *time,
                      const char *const *file, char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_vtk(path, "Collection", tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  for (int i = 0; i < nfile; i++)
    fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n", time[i], file[i]);
  fputs("  </Collection>\n</VTKFile>\n", f);
  return close_tmp(f, tmp, path, err, errsz);
}

JlResult jl_obj_write(const char *path, int nvert, const double *x,
                      const double *normal, int ntri, const int *tri,
                      int two_sided, char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  fputs("# written by jelly\n", f);
  int sides = two_sided ? 2 : 1;
  /* vertices (and for two sides their copy), then normals, negated on the copy */
  for (int side = 0; side < sides; side++)
    for (int i = 0; i < nvert; i++)
      fprintf(f, "v %.17g %.17g %.17g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  if (normal)
    for (int side = 0; side < sides; side++) {
      double sign = side ? -1.0 : 1.0;
      for (int i = 0; i < nvert; i++)
        fprintf(f, "vn %.9g %.9g %.9g\n", sign * normal[3 * i], sign * normal[3 * i + 1],
                sign * normal[3 * i + 2]);
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

JlResult jl_obj_write_lines(const char *path, int nvert, const double *x, int nseg, const int *seg,
                            char *err, size_t errsz) {
  JL_ASSERT(nseg == 0 || seg, "jl_obj_write_lines: seg must not be NULL when nseg > 0");
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_SYSTEM;
  fputs("# written by jelly\n", f);
  for (int i = 0; i < nvert; i++)
    fprintf(f, "v %.17g %.17g %.17g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  /* one "l" per run of segments that continue each other */
  for (int s = 0; s < nseg; s++) {
    if (s == 0 || seg[2 * s] != seg[2 * s - 1]) fprintf(f, s ? "\nl %d" : "l %d", seg[2 * s] + 1);
    fprintf(f, " %d", seg[2 * s + 1] + 1);
  }
  if (nseg > 0) fputc('\n', f);
  return close_tmp(f, tmp, path, err, errsz);
}
