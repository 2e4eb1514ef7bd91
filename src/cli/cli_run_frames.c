/* `jelly run`'s frame files (src/cli/cli_run_internal.h): the .vtu grid of every body's cells with node and
 * cell strain, the .vtp surface per body, the .vtm multiblock, the .pvd indexes and --obj's files. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/cli_run_internal.h"
#include "src/model_cloth.h"

/* area of the triangle abc */
static double tri_area(const double *a, const double *b, const double *c) {
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* a rope's segments are its stretch springs (jl_cloth_chain: n to n + 1, in
 * order); spring_kind is NULL only when every spring is a stretch spring */
static int is_segment(const JlModel *m, const JlBody *body, int s) {
  return body->kind == JL_BODY_ROPE && (!m->spring_kind || m->spring_kind[s] == JL_SPRING_STRETCH);
}

/* the cells of the .vtu grid: every tet (VTK_TETRA), every cloth triangle
 * (VTK_TRIANGLE, rest area from the initial positions, which are the cloth's
 * rest shape) and every rope segment (VTK_LINE, rest length of its spring) */
void run_build_cells(const JlModel *m, Outputs *o) {
  int ncell = m->ntet, nconn = 4 * m->ntet;
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    if (body->kind == JL_BODY_CLOTH) ncell += body->surface.ntri, nconn += 3 * body->surface.ntri;
    for (int s = body->spring_begin; s < body->spring_begin + body->spring_count; s++)
      if (is_segment(m, body, s)) ncell++, nconn += 2;
  }
  o->ncell = ncell;
  o->cell_offset = jl_calloc((size_t)ncell + 1, sizeof(int));
  o->cell_conn = jl_calloc((size_t)nconn + 1, sizeof(int));
  o->cell_type = jl_calloc((size_t)ncell + 1, 1);
  o->cell_rest = jl_calloc((size_t)ncell + 1, sizeof(double));
  o->cell_body = jl_calloc((size_t)ncell + 1, sizeof(double));
  o->cell_strain = jl_calloc((size_t)ncell + 1, sizeof(double));
  o->body_cell = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  o->body_cell[m->nbody] = ncell;
  int c = 0, k = 0;
  /* tets, cell t = tet t */
  for (int t = 0; t < m->ntet; t++, c++) {
    for (int j = 0; j < 4; j++) o->cell_conn[k++] = m->tet[4 * t + j];
    o->cell_type[c] = JL_VTK_TETRA;
    o->cell_offset[c + 1] = k;
  }
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *body = &m->body[b];
    for (int t = 0; t < body->tet_count; t++) o->cell_body[body->tet_begin + t] = b;
    o->body_cell[b] = c;
    /* cloth triangles: surface vertex i is the body's node i */
    if (body->kind == JL_BODY_CLOTH)
      for (int t = 0; t < body->surface.ntri; t++, c++) {
        int n[3];
        for (int j = 0; j < 3; j++) {
          JL_ASSERT(body->surface.tri[3 * t + j] < body->node_count, "cloth triangle vertex beyond the body's nodes");
          n[j] = body->node_begin + body->surface.tri[3 * t + j];
          o->cell_conn[k++] = n[j];
        }
        o->cell_type[c] = JL_VTK_TRIANGLE;
        o->cell_rest[c] = tri_area(&m->x0[3 * n[0]], &m->x0[3 * n[1]], &m->x0[3 * n[2]]);
        o->cell_body[c] = b;
        o->cell_offset[c + 1] = k;
      }
    /* rope segments */
    for (int s = body->spring_begin; s < body->spring_begin + body->spring_count; s++) {
      if (!is_segment(m, body, s)) continue;
      o->cell_conn[k++] = m->spring_node[2 * s];
      o->cell_conn[k++] = m->spring_node[2 * s + 1];
      o->cell_type[c] = JL_VTK_LINE;
      o->cell_rest[c] = m->spring_rest[s];
      o->cell_body[c] = b;
      o->cell_offset[c + 1] = k;
      c++;
    }
  }
  JL_ASSERT(c == ncell && k == nconn, "build_cells: cell count mismatch");
}

/* per-node max |strain| over incident springs; per cell the relative change
 * of its measure: volume (tets), area (cloth triangles), length (rope
 * segments), current / rest - 1 */
static void strain_fields(const JlWorld *w, const Outputs *o, double *node_strain, double *cell_strain) {
  const JlModel *m = w->model;
  const double *x = w->state.x;
  memset(node_strain, 0, sizeof(double) * (size_t)m->nnode);
  for (int s = 0; s < m->nspring; s++) {
    int i = m->spring_node[2 * s], j = m->spring_node[2 * s + 1];
    double d[3] = {x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1], x[3 * i + 2] - x[3 * j + 2]};
    double e = fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / m->spring_rest[s] - 1.0);
    if (e > node_strain[i]) node_strain[i] = e;
    if (e > node_strain[j]) node_strain[j] = e;
  }
  for (int c = 0; c < o->ncell; c++) {
    const int *n = &o->cell_conn[o->cell_offset[c]];
    if (o->cell_type[c] == JL_VTK_TETRA) {
      double v = jl_tet_volume(&x[3 * n[0]], &x[3 * n[1]], &x[3 * n[2]], &x[3 * n[3]]);
      cell_strain[c] = v / m->tet_volume[c] - 1.0;
    } else if (o->cell_type[c] == JL_VTK_TRIANGLE) {
      cell_strain[c] = tri_area(&x[3 * n[0]], &x[3 * n[1]], &x[3 * n[2]]) / o->cell_rest[c] - 1.0;
    } else {
      const double *a = &x[3 * n[0]], *b = &x[3 * n[1]];
      double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
      cell_strain[c] = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / o->cell_rest[c] - 1.0;
    }
  }
}

/* body b's surface now, as the viewer draws it: o->surf_x (the embedded
 * surface's vertices, a cloth's or rope's nodes) and, for a rope, its
 * segments in o->seg (local node ids; the count returned), else the vertex
 * normals in o->surf_n (0 returned) */
static int body_surface(Outputs *o, const JlWorld *w, int b) {
  const JlModel *m = w->model;
  const JlBody *body = &m->body[b];
  jl_world_surface(w, b, o->surf_x);
  if (body->kind == JL_BODY_ROPE) {
    /* the body's line cells, in local node ids */
    int nseg = o->body_cell[b + 1] - o->body_cell[b];
    for (int k = 0; k < nseg; k++) {
      const int *n = &o->cell_conn[o->cell_offset[o->body_cell[b] + k]];
      o->seg[2 * k] = n[0] - body->node_begin;
      o->seg[2 * k + 1] = n[1] - body->node_begin;
    }
    return nseg;
  }
  jl_surface_normals(body->surface.nvert, o->surf_x, body->surface.ntri, body->surface.tri, o->surf_n);
  return 0;
}

/* <body>_NNNN.obj: a volume's embedded surface, a cloth with both sides, a
 * rope as polylines */
static JlResult write_obj(Outputs *o, const JlWorld *w, int b, int frame, char *err, size_t errsz) {
  const JlBody *body = &w->model->body[b];
  char path[4600], name[128];
  snprintf(name, sizeof name, "%s_%04d.obj", body->name, frame);
  snprintf(path, sizeof path, "%s/%s", o->dir, name);
  int nseg = body_surface(o, w, b);
  JlResult r = body->kind == JL_BODY_ROPE
                   ? jl_obj_write_lines(path, body->surface.nvert, o->surf_x, nseg, o->seg, err, errsz)
                   : jl_obj_write(path, body->surface.nvert, o->surf_x, o->surf_n, body->surface.ntri,
                                  body->surface.tri, body->kind == JL_BODY_CLOTH, err, errsz);
  if (!r) run_names_add(&o->written, name);
  return r;
}

/* frame_NNNN_<body>.vtp: the same surface as PolyData, normals on triangles
 * (one-sided: ParaView lights both sides), a rope's segments as polylines */
static JlResult write_vtp(Outputs *o, const JlWorld *w, int b, const char *name, char *err, size_t errsz) {
  const JlBody *body = &w->model->body[b];
  char path[4600];
  snprintf(path, sizeof path, "%s/%s", o->dir, name);
  int nseg = body_surface(o, w, b);
  int rope = body->kind == JL_BODY_ROPE;
  JlResult r =
      jl_vtp_write(path, o->enc, body->surface.nvert, o->surf_x, rope ? NULL : o->surf_n, rope ? 0 : body->surface.ntri,
                   body->surface.tri, nseg, o->seg, o->body_cache[b], err, errsz);
  if (!r) run_names_add(&o->written, name);
  return r;
}

JlResult run_write_frame(Outputs *o, const JlWorld *w, int frame, int obj, char *err, size_t errsz) {
  const JlModel *m = w->model;
  char path[4600], name[64], vtm[64];
  snprintf(name, sizeof name, "frame_%04d.vtu", frame);
  snprintf(vtm, sizeof vtm, "frame_%04d.vtm", frame);
  snprintf(path, sizeof path, "%s/%s", o->dir, name);
  strain_fields(w, o, o->node_strain, o->cell_strain);
  JlVtuField fields[4] = {
      {"velocity", 3, 0, w->state.v},
      {"strain", 1, 0, o->node_strain},
      {"volume_strain", 1, 1, o->cell_strain},
      {"body", 1, 1, o->cell_body},
  };
  JlVtuCells cells = {o->ncell, o->cell_offset, o->cell_conn, o->cell_type};
  JlResult r = jl_vtu_write_cells(path, o->enc, m->nnode, w->state.x, &cells, 4, fields, o->grid_cache, err, errsz);
  if (r) return r;
  run_names_add(&o->written, name);
  /* each body's surface, then the multiblock of grid and surfaces */
  char **bname = jl_calloc((size_t)m->nbody + 1, sizeof(char *)),
       **bfile = jl_calloc((size_t)m->nbody + 1, sizeof(char *));
  int nb = 0;
  for (int b = 0; b < m->nbody && !r; b++) {
    if (m->body[b].surface.nvert == 0) continue;
    char vtp[128];
    snprintf(vtp, sizeof vtp, "frame_%04d_%s.vtp", frame, m->body[b].name);
    r = write_vtp(o, w, b, vtp, err, errsz);
    bname[nb] = (char *)m->body[b].name;
    bfile[nb++] = strdup(vtp);
  }
  if (!r) {
    snprintf(path, sizeof path, "%s/%s", o->dir, vtm);
    r = jl_vtm_write(path, name, nb, (const char *const *)bname, (const char *const *)bfile, err, errsz);
    if (!r) run_names_add(&o->written, vtm);
  }
  for (int k = 0; k < nb; k++) free(bfile[k]);
  free(bname);
  free(bfile);
  if (r) return r;
  o->time[o->nframe] = w->state.t;
  o->file[o->nframe] = strdup(name);
  o->vtm[o->nframe] = strdup(vtm);
  o->nframe++;
  if (obj) {
    for (int b = 0; b < m->nbody; b++) {
      if (m->body[b].surface.nvert == 0) continue;
      r = write_obj(o, w, b, frame, err, errsz);
      if (r) return r;
    }
  }
  return JL_OK;
}

/* scene.pvd (the .vtu grids) and scene_all.pvd (the .vtm frames) */
JlResult run_write_pvd(Outputs *o, char *err, size_t errsz) {
  char path[4600];
  snprintf(path, sizeof path, "%s/scene.pvd", o->dir);
  JlResult r = jl_pvd_write(path, o->nframe, o->time, (const char *const *)o->file, err, errsz);
  if (r) return r;
  run_names_add(&o->written, "scene.pvd");
  snprintf(path, sizeof path, "%s/scene_all.pvd", o->dir);
  r = jl_pvd_write(path, o->nframe, o->time, (const char *const *)o->vtm, err, errsz);
  if (!r) run_names_add(&o->written, "scene_all.pvd");
  return r;
}
