/* TetGen bridge: the only C++ in Jelly. Exposes jl_tetgen_raw() (mesh/tetmesh.h)
 * as a plain C function over TetGen 1.5's library API (Si 2015, "TetGen, a
 * Delaunay-based quality tetrahedral mesh generator", ACM TOMS 41(2)).
 *
 * TetGen runs in a forked child process that sends its result back through a
 * pipe. That isolation is needed, not decoration, with Debian's libtet 1.5.0:
 *  - its error path is broken: terminatetetgen() frees the mesh and throws an
 *    int, then the unwinding destructor of tetrahedralize()'s local mesh frees
 *    the same pools again (freememory() does not reset its pointers), so
 *    catching the int in-process ends in a double free / segfault;
 *  - the library is built with assert() enabled (e.g. exactinit() asserts on
 *    flat input), and an assert aborts the process;
 *  - some paths printf even under -Q.
 * In the child, stdout and stderr go to /dev/null; a caught int (1 out of
 * memory, 2 internal error, 3 self-intersection, 4 tiny feature, 5 close
 * facets, 10 bad input) is sent as a code; a crash or exit without an answer
 * is read from the child's wait status. For a PLC that fails, a second child
 * runs TetGen's -d (detect self-intersections) to say where the surface
 * crosses itself, since the crash usually hides code 3.
 *
 * The input is copied into a tetgenio with new[] (its destructor frees it);
 * the parent copies the answer into malloc'd C arrays owned by the caller.
 * Cost: one fork per call (about a millisecond; copy-on-write). */
#include <tetgen.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <new>

#include "mesh/tetmesh.h"

namespace {

/* what a child sends before its payload */
struct Header {
  int32_t code; /* 0 success, else the TetGen error code (or -1: no tets) */
  int32_t a, b; /* success: nnode, ntet; -d run: number of triangles listed */
};

int write_all(int fd, const void *data, size_t n) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    p += w;
    n -= (size_t)w;
  }
  return 1;
}

int read_all(int fd, void *data, size_t n) {
  char *p = static_cast<char *>(data);
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    p += r;
    n -= (size_t)r;
  }
  return 1;
}

/* copies points and (for a PLC) one single-polygon facet per triangle into
 * `in`, allocated with new[] so that the tetgenio destructor frees them */
void fill_input(tetgenio &in, int npoint, const double *point, int ntri, const int *tri) {
  in.firstnumber = 0;
  in.numberofpoints = npoint;
  in.pointlist = new REAL[3 * (size_t)npoint];
  memcpy(in.pointlist, point, sizeof(double) * 3 * (size_t)npoint);
  if (ntri == 0) return;
  in.facetlist = new tetgenio::facet[ntri];
  in.numberoffacets = ntri;
  for (int t = 0; t < ntri; t++) {
    tetgenio::facet *f = &in.facetlist[t];
    tetgenio::init(f);
    f->polygonlist = new tetgenio::polygon[1];
    f->numberofpolygons = 1;
    tetgenio::init(&f->polygonlist[0]);
    f->polygonlist[0].vertexlist = new int[3];
    f->polygonlist[0].numberofvertices = 3;
    for (int k = 0; k < 3; k++) f->polygonlist[0].vertexlist[k] = tri[3 * t + k];
  }
}

/* child side: run TetGen and send a Header, then for a mesh nnode x 3
 * doubles and ntet x 4 ints (0-based), for -d the listed triangles x 3 ints */
void child_run(int fd, const char *switches, int detect, int npoint, const double *point, int ntri,
               const int *tri) {
  Header h = {0, 0, 0};
  try {
    tetgenio in, out;
    fill_input(in, npoint, point, ntri, tri);
    char sw[256];
    snprintf(sw, sizeof sw, "%s", switches);
    tetrahedralize(sw, &in, &out);
    int base = out.firstnumber;
    if (detect) {
      h.a = out.trifacelist ? out.numberoftrifaces : 0;
      write_all(fd, &h, sizeof h);
      for (int i = 0; i < 3 * h.a; i++) {
        int32_t v = out.trifacelist[i] - base;
        write_all(fd, &v, sizeof v);
      }
      return;
    }
    if (out.numberoftetrahedra <= 0 || out.numberofcorners < 4) {
      h.code = -1;
      write_all(fd, &h, sizeof h);
      return;
    }
    h.a = out.numberofpoints;
    h.b = out.numberoftetrahedra;
    if (!write_all(fd, &h, sizeof h)) return;
    if (!write_all(fd, out.pointlist, sizeof(double) * 3 * (size_t)h.a)) return;
    int stride = out.numberofcorners;
    for (int t = 0; t < h.b; t++) {
      int32_t v[4];
      for (int k = 0; k < 4; k++) v[k] = out.tetrahedronlist[stride * t + k] - base;
      if (!write_all(fd, v, sizeof v)) return;
    }
    return;
  } catch (int c) {
    h.code = c > 0 ? c : 2;
  } catch (std::bad_alloc &) {
    h.code = 1;
  } catch (...) {
    h.code = 2;
  }
  write_all(fd, &h, sizeof h);
}

/* Forks a child running TetGen; returns its pid (-1 if it cannot start) and
 * in *fd_out the read end of the pipe carrying its answer. The caller reads
 * the answer, then calls finish_child. */
pid_t start_child(const char *switches, int detect, int npoint, const double *point, int ntri,
                  const int *tri, int *fd_out) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    /* child: silence, run, leave without atexit handlers or leak checks */
    close(fd[0]);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, STDOUT_FILENO);
      dup2(devnull, STDERR_FILENO);
      close(devnull);
    }
    child_run(fd[1], switches, detect, npoint, point, ntri, tri);
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  *fd_out = fd[0];
  return pid;
}

/* closes the pipe, reaps the child and describes an abnormal end in why */
void finish_child(pid_t pid, int fd, char *why, size_t whysz) {
  close(fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!why || whysz == 0) return;
  why[0] = '\0';
  if (WIFSIGNALED(status))
    snprintf(why, whysz, "TetGen crashed (signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    snprintf(why, whysz, "TetGen exited with status %d", WEXITSTATUS(status));
  else
    snprintf(why, whysz, "TetGen stopped without an answer");
}

/* After a failed PLC run, reruns TetGen with -d, which lists the triangles
 * involved in self-intersections instead of meshing, and describes the first:
 * "12 triangles intersect others; first: triangle 4 (vertices 4 5 7) near
 * (x, y, z)". Empty when it finds none or cannot tell. */
void describe_self_intersection(int npoint, const double *point, int ntri, const int *tri, char *out,
                                size_t outsz) {
  out[0] = '\0';
  int fd = -1;
  pid_t pid = start_child("pdQ", 1, npoint, point, ntri, tri, &fd);
  if (pid < 0) return;
  Header h;
  int32_t v[3];
  if (read_all(fd, &h, sizeof h) && h.code == 0 && h.a > 0 && read_all(fd, v, sizeof v)) {
    /* which input triangle has these three vertices */
    int which = -1;
    for (int t = 0; t < ntri && which < 0; t++) {
      int match = 0;
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) match += tri[3 * t + a] == v[b];
      if (match == 3) which = t;
    }
    double c[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
      for (int d = 0; d < 3; d++)
        if (v[k] >= 0 && v[k] < npoint) c[d] += point[3 * v[k] + d] / 3.0;
    snprintf(out, outsz,
             "%d triangles intersect others; first: triangle %d (vertices %d %d %d) near (%.6g, %.6g, %.6g)",
             h.a, which, v[0], v[1], v[2], c[0], c[1], c[2]);
  }
  finish_child(pid, fd, NULL, 0);
}

const char *code_message(int code) {
  switch (code) {
    case 1: return "out of memory";
    case 2: return "internal error in TetGen";
    case 3: return "the surface self-intersects";
    case 4: return "a very small input feature was found (input too fine for the tolerance)";
    case 5: return "two very close input facets were found (input too fine for the tolerance)";
    case 10: return "the input has duplicated vertices or is otherwise invalid";
    default: return "unknown TetGen error";
  }
}

}  // namespace

extern "C" JlResult jl_tetgen_raw(const char *switches, int npoint, const double *point, int ntri, const int *tri,
                                  int *out_nnode, double **out_node, int *out_ntet, int **out_tet, char *err,
                                  size_t errsz) {
  JL_ASSERT(switches && point && out_nnode && out_node && out_ntet && out_tet,
            "jl_tetgen_raw needs switches, points and output pointers");
  JL_ASSERT(ntri == 0 || tri, "jl_tetgen_raw: ntri > 0 needs a triangle array");
  *out_nnode = *out_ntet = 0;
  *out_node = NULL;
  *out_tet = NULL;

  /* checks that would otherwise trip TetGen's asserts */
  if (npoint < 4) return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen needs at least 4 points, got %d", npoint);
  for (int t = 0; t < 3 * ntri; t++)
    if (tri[t] < 0 || tri[t] >= npoint)
      return jl_fail(err, errsz, JL_ERR_INPUT, "triangle %d refers to vertex %d of %d", t / 3, tri[t], npoint);
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = point[k];
  for (int i = 0; i < 3 * npoint; i++) {
    if (!std::isfinite(point[i]))
      return jl_fail(err, errsz, JL_ERR_INPUT, "point %d has a non-finite coordinate", i / 3);
    lo[i % 3] = point[i] < lo[i % 3] ? point[i] : lo[i % 3];
    hi[i % 3] = point[i] > hi[i % 3] ? point[i] : hi[i % 3];
  }
  for (int k = 0; k < 3; k++)
    if (!(hi[k] > lo[k]))
      return jl_fail(err, errsz, JL_ERR_INPUT, "the %d points are flat (no extent along %c): nothing to fill",
                     npoint, "xyz"[k]);

  /* switches: always quiet */
  char sw[256];
  int swlen = snprintf(sw, sizeof sw, "%s%s", switches, strchr(switches, 'Q') ? "" : "Q");
  if (swlen < 0 || (size_t)swlen >= sizeof sw)
    return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen switch string too long: '%s'", switches);

  /* run TetGen in a child and read its answer */
  int fd = -1;
  pid_t pid = start_child(sw, 0, npoint, point, ntri, tri, &fd);
  if (pid < 0) return jl_fail(err, errsz, JL_ERR_RUNTIME, "cannot start TetGen: %s", strerror(errno));
  Header h = {0, 0, 0};
  int answered = read_all(fd, &h, sizeof h);
  int ok = answered && h.code == 0 && h.a > 0 && h.b > 0;
  if (ok) {
    double *node = static_cast<double *>(jl_calloc((size_t)h.a * 3, sizeof(double)));
    int *tet = static_cast<int *>(jl_calloc((size_t)h.b * 4, sizeof(int)));
    ok = read_all(fd, node, sizeof(double) * 3 * (size_t)h.a) &&
         read_all(fd, tet, sizeof(int) * 4 * (size_t)h.b);
    for (int i = 0; ok && i < 4 * h.b; i++) ok = tet[i] >= 0 && tet[i] < h.a;
    if (ok) {
      *out_nnode = h.a;
      *out_node = node;
      *out_ntet = h.b;
      *out_tet = tet;
    } else {
      free(node);
      free(tet);
      answered = 0;
    }
  }
  char why[160];
  finish_child(pid, fd, why, sizeof why);
  if (ok) return JL_OK;
  if (answered && h.code == -1)
    return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen produced no tetrahedra from %d points (are they coplanar?)",
                   npoint);

  /* failure: find out where a PLC intersects itself, if it does */
  char detail[400] = "";
  if (ntri > 0 && (!answered || h.code == 3)) describe_self_intersection(npoint, point, ntri, tri, detail, sizeof detail);
  if (detail[0])
    return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen failed: %s: %s", code_message(3), detail);
  if (answered)
    return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen failed (code %d): %s", h.code, code_message(h.code));
  return jl_fail(err, errsz, JL_ERR_INPUT,
                 "%s: the input is degenerate, self-intersecting or too fine for TetGen's tolerance", why);
}
