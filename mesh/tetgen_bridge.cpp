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
 * The child is a guarded one (mesh/child.h): limits on address space and
 * CPU time, a wall-clock deadline, dies with its parent; hitting a limit is
 * reported as such ("took longer than 60 s", "needed more than 8192 MB"),
 * never as bad input. In the child, stdout and stderr go to /dev/null; a
 * caught int (1 out of memory, 2 internal error, 3 self-intersection, 4 tiny
 * feature, 5 close facets, 10 bad input) is sent as a code; a crash or exit
 * without an answer is read from the child's wait status. For a PLC that fails, a second child
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

#include "mesh/child.h"
#include "mesh/tetmesh.h"

namespace {

/* what a child sends before its payload */
struct Header {
  int32_t code; /* 0 success, else the TetGen error code (or -1: no tets) */
  int32_t a, b; /* success: nnode, ntet; -d run: number of triangles listed */
};

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
void child_run(int fd, const char *switches, int detect, int npoint, const double *point, int ntri, const int *tri) {
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
      jl_child_write(fd, &h, sizeof h);
      for (int i = 0; i < 3 * h.a; i++) {
        int32_t v = out.trifacelist[i] - base;
        jl_child_write(fd, &v, sizeof v);
      }
      return;
    }
    if (out.numberoftetrahedra <= 0 || out.numberofcorners < 4) {
      h.code = -1;
      jl_child_write(fd, &h, sizeof h);
      return;
    }
    h.a = out.numberofpoints;
    h.b = out.numberoftetrahedra;
    if (!jl_child_write(fd, &h, sizeof h)) return;
    if (!jl_child_write(fd, out.pointlist, sizeof(double) * 3 * (size_t)h.a)) return;
    int stride = out.numberofcorners;
    for (int t = 0; t < h.b; t++) {
      int32_t v[4];
      for (int k = 0; k < 4; k++) v[k] = out.tetrahedronlist[stride * t + k] - base;
      if (!jl_child_write(fd, v, sizeof v)) return;
    }
    return;
  } catch (int c) {
    h.code = c > 0 ? c : 2;
  } catch (std::bad_alloc &) {
    h.code = 1;
  } catch (...) {
    h.code = 2;
  }
  jl_child_write(fd, &h, sizeof h);
}

/* what a TetGen child needs: the switches and the input PLC */
struct Job {
  const char *switches;
  int detect, npoint, ntri;
  const double *point;
  const int *tri;
};

void job_run(int fd, void *ctx) {
  const Job *j = static_cast<const Job *>(ctx);
  child_run(fd, j->switches, j->detect, j->npoint, j->point, j->ntri, j->tri);
}

/* Starts a guarded child running TetGen (mesh/child.h: memory and time
 * limits, parent-death signal); returns 0 or -1 with errno. The caller reads
 * the answer with jl_child_read, then calls jl_child_finish. */
int start_child(JlChild *c, Job *job) { return jl_child_start(c, "TetGen", job_run, job); }

/* After a failed PLC run, reruns TetGen with -d, which lists the triangles
 * involved in self-intersections instead of meshing, and describes the first:
 * "12 triangles intersect others; first: triangle 4 (vertices 4 5 7) near
 * (x, y, z)". Empty when it finds none or cannot tell. */
void describe_self_intersection(int npoint, const double *point, int ntri, const int *tri, char *out, size_t outsz) {
  out[0] = '\0';
  Job job = {"pdQ", 1, npoint, ntri, point, tri};
  JlChild child;
  if (start_child(&child, &job) != 0) return;
  Header h;
  int32_t v[3];
  if (jl_child_read(&child, &h, sizeof h) && h.code == 0 && h.a > 0 && jl_child_read(&child, v, sizeof v)) {
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
             "%d triangles intersect others; first: triangle %d (vertices %d %d %d) near (%.6g, %.6g, %.6g)", h.a,
             which, v[0], v[1], v[2], c[0], c[1], c[2]);
  }
  jl_child_finish(&child, NULL, 0);
}

const char *code_message(int code) {
  switch (code) {
    case 1:
      return "out of memory";
    case 2:
      return "internal error in TetGen";
    case 3:
      return "the surface self-intersects";
    case 4:
      return "a very small input feature was found (input too fine for the tolerance)";
    case 5:
      return "two very close input facets were found (input too fine for the tolerance)";
    case 10:
      return "the input has duplicated vertices or is otherwise invalid";
    default:
      return "unknown TetGen error";
  }
}

} // namespace

/* any failed operator new in a guarded child ends it with the "out of
 * memory" status (mesh/child.h), whoever would have caught bad_alloc */
static void new_handler_exit() { _exit(JL_CHILD_EXIT_NOMEM); }

extern "C" void jl_child_new_handler_exit(void) { std::set_new_handler(new_handler_exit); }

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
      return jl_fail(err, errsz, JL_ERR_INPUT, "the %d points are flat (no extent along %c): nothing to fill", npoint,
                     "xyz"[k]);

  /* switches: always quiet */
  char sw[256];
  int swlen = snprintf(sw, sizeof sw, "%s%s", switches, strchr(switches, 'Q') ? "" : "Q");
  if (swlen < 0 || (size_t)swlen >= sizeof sw)
    return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen switch string too long: '%s'", switches);

  /* run TetGen in a guarded child and read its answer; counts are checked
   * against the element cap and the memory limit before allocating */
  Job job = {sw, 0, npoint, ntri, point, tri};
  JlChild c;
  if (start_child(&c, &job) != 0) return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot start TetGen: %s", strerror(errno));
  Header h = {0, 0, 0};
  int answered = jl_child_read(&c, &h, sizeof h);
  double bytes = 24.0 * h.a + 16.0 * h.b;
  int sane = h.a > 0 && h.b > 0 && h.a <= JL_MAX_MESH_ELEMENTS && h.b <= JL_MAX_MESH_ELEMENTS &&
             bytes <= c.limits.memory_mb * 1048576.0;
  if (answered && h.code == 0 && !sane && (h.a != 0 || h.b != 0)) answered = 0; /* garbage */
  int ok = answered && h.code == 0 && sane;
  if (ok) {
    double *node = static_cast<double *>(jl_calloc((size_t)h.a * 3, sizeof(double)));
    int *tet = static_cast<int *>(jl_calloc((size_t)h.b * 4, sizeof(int)));
    ok = jl_child_read(&c, node, sizeof(double) * 3 * (size_t)h.a) &&
         jl_child_read(&c, tet, sizeof(int) * 4 * (size_t)h.b);
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
  char why[240];
  JlChildEnd end = jl_child_finish(&c, why, sizeof why);
  if (ok && end == JL_CHILD_DONE) return JL_OK;
  if (ok) { /* an answer, then a bad end: do not trust it */
    free(*out_node);
    free(*out_tet);
    *out_node = NULL;
    *out_tet = NULL;
    *out_nnode = *out_ntet = 0;
  }
  /* limits: not the input's fault, say which limit */
  if (end == JL_CHILD_TIMEOUT || end == JL_CHILD_MEMORY || end == JL_CHILD_SYSTEM)
    return jl_fail(err, errsz, end == JL_CHILD_SYSTEM ? JL_ERR_SYSTEM : JL_ERR_INPUT,
                   "TetGen %s on %d points and %d triangles", why, npoint, ntri);
  if (answered && h.code == 1)
    return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen needed more than %g MB (mesh limit memory_mb)",
                   c.limits.memory_mb);
  if (answered && h.code == -1)
    return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen produced no tetrahedra from %d points (are they coplanar?)",
                   npoint);
  if (!why[0]) snprintf(why, sizeof why, "TetGen stopped without an answer");

  /* failure: find out where a PLC intersects itself, if it does */
  char detail[400] = "";
  if (ntri > 0 && (!answered || h.code == 3))
    describe_self_intersection(npoint, point, ntri, tri, detail, sizeof detail);
  if (detail[0]) return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen failed: %s: %s", code_message(3), detail);
  if (answered) return jl_fail(err, errsz, JL_ERR_INPUT, "TetGen failed (code %d): %s", h.code, code_message(h.code));
  return jl_fail(err, errsz, JL_ERR_INPUT,
                 "%s: the input is degenerate, self-intersecting or too fine for TetGen's tolerance", why);
}
