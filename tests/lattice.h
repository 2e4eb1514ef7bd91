/* Test-only builders: tet lattices of boxes and hand-made spring models.
 *
 * lattice_box() fills a JlTetMesh for the axis-aligned box [lo, hi] split
 * into nx x ny x nz cubes, each cube split into the 6 tets of the Kuhn
 * (Freudenthal) triangulation: the tets along the 6 monotone paths from the
 * cube's lowest corner to its highest, all sharing that main diagonal. The
 * split is the same in every cube, so neighbouring cubes share face
 * diagonals and the mesh is conforming. Tets are oriented positively;
 * topology comes from jl_tetmesh_topology. Node (i, j, k) has id
 * i + (nx + 1) (j + (ny + 1) k).
 *
 * spring_model() builds a JlModel by hand from nodes and springs (no tets),
 * for single-spring and chain tests. */
#ifndef JL_TESTS_LATTICE_H
#define JL_TESTS_LATTICE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/tetmesh.h"
#include "src/model.h"

static inline int lattice_node(int nx, int ny, int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); }

static inline void lattice_box(JlTetMesh *t, const double lo[3], const double hi[3], int nx, int ny, int nz) {
  memset(t, 0, sizeof *t);
  t->nnode = (nx + 1) * (ny + 1) * (nz + 1);
  t->ntet = 6 * nx * ny * nz;
  t->node = jl_calloc(3 * (size_t)t->nnode, sizeof(double));
  t->tet = jl_calloc(4 * (size_t)t->ntet, sizeof(int));
  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++) {
        double *x = t->node + 3 * lattice_node(nx, ny, i, j, k);
        x[0] = lo[0] + (hi[0] - lo[0]) * i / nx;
        x[1] = lo[1] + (hi[1] - lo[1]) * j / ny;
        x[2] = lo[2] + (hi[2] - lo[2]) * k / nz;
      }
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int e = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++)
        for (int p = 0; p < 6; p++) {
          int c[3] = {i, j, k}, *tt = t->tet + 4 * e++;
          tt[0] = lattice_node(nx, ny, c[0], c[1], c[2]);
          for (int s = 0; s < 3; s++) {
            c[perm[p][s]]++;
            tt[s + 1] = lattice_node(nx, ny, c[0], c[1], c[2]);
          }
          const double *n = t->node;
          if (jl_tet_volume(n + 3 * tt[0], n + 3 * tt[1], n + 3 * tt[2], n + 3 * tt[3]) < 0) {
            int sw = tt[2];
            tt[2] = tt[3];
            tt[3] = sw;
          }
        }
  jl_tetmesh_topology(t);
}

/* A model of nnode point masses joined by springs (pairs nspring x 2, rest
 * lengths from x), one body named `name`, gravity off, no ground. k and kd
 * are per spring; pinned may be NULL. */
static inline void spring_model(JlModel *m, const char *name, int nnode, const double *x, const double *mass,
                                int nspring, const int *pairs, const double *k, const double *kd,
                                const unsigned char *pinned) {
  memset(m, 0, sizeof *m);
  m->nnode = nnode;
  m->mass = jl_calloc((size_t)nnode, sizeof(double));
  m->pinned = jl_calloc((size_t)nnode, 1);
  m->x0 = jl_calloc(3 * (size_t)nnode, sizeof(double));
  m->v0 = jl_calloc(3 * (size_t)nnode, sizeof(double));
  m->node_body = jl_calloc((size_t)nnode, sizeof(int));
  memcpy(m->mass, mass, (size_t)nnode * sizeof(double));
  memcpy(m->x0, x, 3 * (size_t)nnode * sizeof(double));
  if (pinned) memcpy(m->pinned, pinned, (size_t)nnode);
  m->nspring = nspring;
  m->spring_node = jl_calloc(2 * (size_t)nspring, sizeof(int));
  m->spring_rest = jl_calloc((size_t)nspring, sizeof(double));
  m->spring_k = jl_calloc((size_t)nspring, sizeof(double));
  m->spring_kd = jl_calloc((size_t)nspring, sizeof(double));
  m->node_spring_start = jl_calloc((size_t)nnode + 1, sizeof(int));
  m->node_spring = jl_calloc(2 * (size_t)nspring, sizeof(int));
  for (int s = 0; s < nspring; s++) {
    int i = pairs[2 * s], j = pairs[2 * s + 1];
    m->spring_node[2 * s] = i;
    m->spring_node[2 * s + 1] = j;
    double d0 = x[3 * i] - x[3 * j], d1 = x[3 * i + 1] - x[3 * j + 1], d2 = x[3 * i + 2] - x[3 * j + 2];
    m->spring_rest[s] = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
    m->spring_k[s] = k[s];
    m->spring_kd[s] = kd[s];
    m->node_spring_start[i + 1]++;
    m->node_spring_start[j + 1]++;
  }
  for (int i = 0; i < nnode; i++) m->node_spring_start[i + 1] += m->node_spring_start[i];
  int *fill = jl_calloc((size_t)nnode, sizeof(int));
  for (int s = 0; s < nspring; s++) {
    int i = pairs[2 * s], j = pairs[2 * s + 1];
    m->node_spring[m->node_spring_start[i] + fill[i]++] = s + 1;
    m->node_spring[m->node_spring_start[j] + fill[j]++] = -(s + 1);
  }
  free(fill);
  m->nbody = 1;
  m->body = jl_calloc(1, sizeof(JlBody));
  snprintf(m->body[0].name, JL_NAME_MAX, "%s", name);
  m->body[0].node_count = nnode;
  m->body[0].spring_count = nspring;
  for (int i = 0; i < nnode; i++) m->body[0].mass += mass[i];
  m->world = jl_default_world_def();
  m->world.gravity[1] = 0.0;
  jl_model_sync_geom(m); /* collision/'s view of the hand-built model (src/model.h) */
}

/* One lattice body [lo, hi] with nx x ny x nz cubes built through
 * jl_model_build (no render surface). */
static inline JlResult lattice_model(JlModel *m, const double lo[3], const double hi[3], int nx, int ny, int nz,
                                     const JlBodyDef *def, const JlWorldDef *wd, char *err, size_t errsz) {
  JlTetMesh t;
  lattice_box(&t, lo, hi, nx, ny, nz);
  JlResult r = jl_model_build(m, 1, &t, NULL, def, wd, err, errsz);
  jl_tetmesh_free(&t);
  return r;
}

#endif
