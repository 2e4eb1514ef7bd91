/* Output writers (src/output.h): ASCII VTK XML unstructured grids (.vtu),
 * ParaView collections (.pvd) and OBJ surfaces.
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
  if (!f) jl_fail(err, errsz, JL_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

/* flushes, closes and renames path.tmp to path */
static JlResult close_tmp(FILE *f, const char *tmp, const char *path, char *err, size_t errsz) {
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    return jl_fail(err, errsz, JL_ERR_RUNTIME, "%s: write failed: %s", path, strerror(errno));
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

JlResult jl_vtu_write(const char *path, int nnode, const double *x, int ntet,
                      const int *tet, int nfield, const JlVtuField *field,
                      char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_RUNTIME;
  fputs("<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        "  <UnstructuredGrid>\n", f);
  fprintf(f, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", nnode, ntet);

  /* point data, then cell data */
  for (int pass = 0; pass < 2; pass++) {
    fputs(pass ? "      <CellData>\n" : "      <PointData>\n", f);
    for (int k = 0; k < nfield; k++)
      if (field[k].on_cells == pass)
        write_array(f, field[k].name, field[k].ncomp, field[k].data, pass ? ntet : nnode);
    fputs(pass ? "      </CellData>\n" : "      </PointData>\n", f);
  }

  fputs("      <Points>\n", f);
  write_array(f, "position", 3, x, nnode);
  fputs("      </Points>\n      <Cells>\n"
        "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n", f);
  for (int t = 0; t < ntet; t++)
    fprintf(f, "          %d %d %d %d\n", tet[4 * t], tet[4 * t + 1], tet[4 * t + 2], tet[4 * t + 3]);
  fputs("        </DataArray>\n"
        "        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n", f);
  for (int t = 0; t < ntet; t++) fprintf(f, "          %d\n", 4 * (t + 1));
  fputs("        </DataArray>\n"
        "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n", f);
  for (int t = 0; t < ntet; t++) fputs("          10\n", f); /* VTK_TETRA */
  fputs("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  return close_tmp(f, tmp, path, err, errsz);
}

JlResult jl_pvd_write(const char *path, int nfile, const double *time,
                      const char *const *file, char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_RUNTIME;
  fputs("<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        "  <Collection>\n", f);
  for (int i = 0; i < nfile; i++)
    fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n", time[i], file[i]);
  fputs("  </Collection>\n</VTKFile>\n", f);
  return close_tmp(f, tmp, path, err, errsz);
}

JlResult jl_obj_write(const char *path, int nvert, const double *x,
                      const double *normal, int ntri, const int *tri,
                      char *err, size_t errsz) {
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp, err, errsz);
  if (!f) return JL_ERR_RUNTIME;
  fputs("# written by jelly\n", f);
  for (int i = 0; i < nvert; i++)
    fprintf(f, "v %.17g %.17g %.17g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  if (normal)
    for (int i = 0; i < nvert; i++)
      fprintf(f, "vn %.9g %.9g %.9g\n", normal[3 * i], normal[3 * i + 1], normal[3 * i + 2]);
  for (int t = 0; t < ntri; t++) {
    int a = tri[3 * t] + 1, b = tri[3 * t + 1] + 1, c = tri[3 * t + 2] + 1;
    if (normal)
      fprintf(f, "f %d//%d %d//%d %d//%d\n", a, a, b, b, c, c);
    else
      fprintf(f, "f %d %d %d\n", a, b, c);
  }
  return close_tmp(f, tmp, path, err, errsz);
}
