/* Building the simulation model from tet meshes: lumped masses, edge
 * springs, pins, the global numbering of all bodies and the surface
 * embeddings.
 *
 * Masses. Each tet gives density x volume / 4 to each of its four nodes
 * (lumped mass matrix), so a body's mass is exactly density x tet volume.
 *
 * Springs. One spring per unique tet edge, rest length from the initial
 * mesh. The stiffness is either the body's `stiffness` (N/m, the same for
 * every spring) or derived from a Young's modulus E (Pa):
 *
 *     k_e = JL_YOUNG_FACTOR * E * (sum over tets T containing e of V_T) / L_e^2
 *
 * This is the form of Van Gelder 1998 ("Approximate simulation of elastic
 * membranes by triangulated spring meshes", J. Graphics Tools 3(2)), written
 * for tets. Why it approximates an elastic solid: under a uniform small
 * strain eps, an edge of length L and direction n stretches by
 * L n^T eps n, so its energy is 1/2 k_e L^2 (n^T eps n)^2; giving every tet
 * T a share k = c E V_T / L^2 of each of its 6 edges, the energy of T is
 *     1/2 c E V_T sum_{6 edges} (n^T eps n)^2.
 * For edge directions spread isotropically, the mean of (n^T eps n)^2 over
 * the sphere is (2 eps:eps + (tr eps)^2) / 15, so the energy density is
 *     W = (c E / 5) (2 eps:eps + (tr eps)^2) = mu eps:eps + lambda/2 (tr eps)^2
 * with mu = lambda = 2 c E / 5: an isotropic solid with Poisson ratio 1/4
 * and Young's modulus mu (3 lambda + 2 mu) / (lambda + mu) = c E.
 * So c = 1 is the isotropic answer (a spring network with central forces
 * always has Poisson ratio 1/4 in this limit, the Cauchy relation).
 * Real meshes are not isotropic, so this was measured: a bar 0.2 x 1 x 0.2 m,
 * rho = 1000 kg/m^3, E = 2.5e5 Pa, hanging from its pinned top face, settled
 * with implicit Euler; bottom-face displacement / (rho g L^2 / (2E)):
 *   6-tets-per-cube lattice (tests/test_bodies.c): 0.903 (2x8x2 cubes),
 *     0.909 (4x16x4): slightly stiff, and independent of the resolution;
 *   TetGen, conforming, quality 1.4: 1.24 (485 tets), 1.11 (2089 tets),
 *     1.04 (4816 tets): coarse meshes are soft (few springs per boundary
 *     node) and approach 1 under refinement.
 * Both are within the 30 % the tests allow, and the TetGen meshes that real
 * scenes use converge to the isotropic value, so JL_YOUNG_FACTOR stays 1
 * (the pinned top face also stiffens the bar by a few percent, since it
 * prevents the lateral contraction there).
 *
 * Pins. A body's pin list (local node ids) and pin box (world coordinates,
 * inclusive) mark nodes in model->pinned; the steppers hold them with the
 * constraint filter (dv = 0, v = 0), never with infinite masses.
 *
 * Numbering. Bodies are concatenated: body b owns global nodes
 * [node_begin, node_begin + node_count), springs and tets likewise.
 * model->tet holds global node ids; JlBody.embed.tet indexes the body's own
 * tets, i.e. model->tet + 4 * tet_begin, whose node ids are already global,
 * so jl_embed_apply is called with node_offset 0 (see jl_world_surface).
 *
 * Topology. jl_model_build reads the caller's edges (t->edge, from
 * jl_tetmesh_topology, which jl_tetgen_build runs) and boundary faces
 * (t->face); node adjacency (model->adj) is derived from the springs, which
 * in a tet mesh are exactly the node neighbours. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/csr.h"
#include "src/model.h"
#include "src/calibrate.h"

/* Calibration of the Young's-modulus stiffness (see the comment above). */
#define JL_YOUNG_FACTOR 1.0

/* the settings tables (model.h, JL_WORLD_SETTINGS and JL_BODY_SETTINGS) as data */
#define WORLD_ROW(...) JL_SETTING_ROW_OF(JlWorldDef, __VA_ARGS__)
#define BODY_ROW(...)  JL_SETTING_ROW_OF(JlBodyDef, __VA_ARGS__)
static const JlSetting world_rows[] = {JL_WORLD_SETTINGS(WORLD_ROW)};
static const JlSetting body_rows[] = {JL_BODY_SETTINGS(BODY_ROW)};
const JlSettingTable JL_WORLD_TABLE = {"world", world_rows, (int)(sizeof world_rows / sizeof world_rows[0])};
const JlSettingTable JL_BODY_TABLE = {"body", body_rows, (int)(sizeof body_rows / sizeof body_rows[0])};

JlBodyDef jl_default_body_def(void) {
  JlBodyDef d;
  memset(&d, 0, sizeof d);
  jl_settings_default(&d, &JL_BODY_TABLE);
  return d;
}

JlWorldDef jl_default_world_def(void) {
  JlWorldDef d;
  memset(&d, 0, sizeof d);
  d.gravity[1] = -9.81;
  d.has_ground = 0;
  jl_settings_default(&d, &JL_WORLD_TABLE);
  d.wind_gust_period = 2.0;
  d.nobstacle = 0;
  d.obstacle = NULL;
  return d;
}

void jl_model_free(JlModel *m) {
  if (!m) return;
  JL_FREE_ALL(m->mass, m->pinned, m->x0, m->v0, m->node_body, m->spring_node, m->spring_rest, m->spring_k, m->spring_kd,
              m->node_spring_start, m->node_spring, m->spring_kind, m->tet, m->tet_volume, m->tet_kvol, m->tet_kbar,
              m->face, m->adj_start, m->adj);
  for (int b = 0; b < m->nbody && m->body; b++) {
    free(m->body[b].surface.vert);
    free(m->body[b].surface.tri);
    jl_embed_free(&m->body[b].embed);
  }
  free(m->body);
  for (int o = 0; o < m->nobstacle && m->obstacle; o++) jl_obstacle_free(&m->obstacle[o]);
  free(m->obstacle);
  free(m->geom_body);
  memset(m, 0, sizeof *m);
}

static int finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

/* the signed volume of tet t of a node array (mesh/tetmesh.h) */
static double tet_volume(const double *node, const int *t) {
  return jl_tet_volume(node + 3 * t[0], node + 3 * t[1], node + 3 * t[2], node + 3 * t[3]);
}

static JlResult check_world(const JlWorldDef *w, char *err, size_t errsz) {
  if (!finite3(w->gravity)) return jl_fail(err, errsz, JL_ERR_INPUT, "world: gravity must be finite");
  /* the settings of the table (src/settings.h), in the ranges a scene accepts */
  const JlSetting *st = jl_settings_bad(w, &JL_WORLD_TABLE);
  if (st) {
    char range[96];
    jl_setting_range(st, range, sizeof range);
    return jl_fail(err, errsz, JL_ERR_INPUT, "world: %s (scene key %s.%s) must be %s, got %g", st->field, st->section,
                   st->key, range, jl_setting_get(w, st));
  }
  if (w->nobstacle < 0 || (w->nobstacle > 0 && !w->obstacle))
    return jl_fail(err, errsz, JL_ERR_INPUT, "world: %d obstacles but no data", w->nobstacle);
  for (int o = 0; o < w->nobstacle; o++) {
    const JlObstacle *ob = &w->obstacle[o];
    if (ob->type < 0 || ob->type >= JL_OBSTACLE_COUNT)
      return jl_fail(err, errsz, JL_ERR_INPUT, "obstacle %d: unknown type %d", o, (int)ob->type);
    if (!finite3(ob->translate) || !finite3(ob->size) || !(ob->size[0] > 0 && ob->size[1] > 0 && ob->size[2] > 0))
      return jl_fail(err, errsz, JL_ERR_INPUT, "obstacle %d: size must be > 0 and position finite", o);
    if (!(ob->radius > 0) || !isfinite(ob->radius) || !(ob->length >= 0) || !isfinite(ob->length))
      return jl_fail(err, errsz, JL_ERR_INPUT, "obstacle %d: radius must be > 0 and length >= 0", o);
    if (ob->type == JL_OBSTACLE_HULL && (ob->npoint < 4 || !ob->point))
      return jl_fail(err, errsz, JL_ERR_INPUT, "obstacle %d: a hull needs at least 4 points", o);
    /* one NaN or Inf point makes every support query NaN: the hull would
     * silently stop colliding */
    for (int i = 0; ob->type == JL_OBSTACLE_HULL && i < ob->npoint; i++)
      if (!finite3(ob->point + 3 * (size_t)i))
        return jl_fail(err, errsz, JL_ERR_INPUT, "obstacle %d: hull point %d is not finite (%g %g %g)", o, i,
                       ob->point[3 * (size_t)i], ob->point[3 * (size_t)i + 1], ob->point[3 * (size_t)i + 2]);
  }
  return JL_OK;
}

/* material, velocity and pins of one body */
static JlResult check_def(const JlBodyDef *d, const char *name, int nnode, char *err, size_t errsz) {
  /* the material of the table (src/settings.h), in the ranges a scene accepts */
  const JlSetting *st = jl_settings_bad(d, &JL_BODY_TABLE);
  if (st) {
    char range[96];
    jl_setting_range(st, range, sizeof range);
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': %s must be %s, got %g", name, st->key, range,
                   jl_setting_get(d, st));
  }
  if (!(d->poisson_ratio < 0.5))
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "body '%s': poisson_ratio must be < 0.5 (0.5 is an incompressible solid, which springs cannot "
                   "model), got %g",
                   name, d->poisson_ratio);
  if (d->stiffness == 0.0 && d->young_modulus == 0.0)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "body '%s': stiffness 0 without young_modulus leaves the body without springs; give stiffness > 0 "
                   "N/m or young_modulus > 0 Pa",
                   name);
  if (d->young_modulus == 0.0 && d->poisson_ratio != 0.25)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "body '%s': poisson_ratio %g needs young_modulus (with a uniform spring stiffness set "
                   "volume_stiffness instead)",
                   name, d->poisson_ratio);
  if (!finite3(d->velocity)) return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': velocity must be finite", name);
  if (!finite3(d->angular_velocity))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': angular_velocity must be finite", name);
  if (d->npin < 0 || (d->npin > 0 && !d->pin))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': pin list has %d entries but no data", name, d->npin);
  for (int p = 0; p < d->npin; p++)
    if (d->pin[p] < 0 || d->pin[p] >= nnode)
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': pinned node %d is out of range (the body has %d nodes)",
                     name, d->pin[p], nnode);
  if (d->has_pin_box) {
    if (!finite3(d->pin_box[0]) || !finite3(d->pin_box[1]))
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': pin box must be finite", name);
    for (int k = 0; k < 3; k++)
      if (d->pin_box[0][k] > d->pin_box[1][k])
        return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': pin box lower corner exceeds the upper one on axis %c",
                       name, "xyz"[k]);
  }
  return JL_OK;
}

/* the error for a pin box that holds none of a body's n nodes, which span [lo, hi] */
static JlResult empty_pin_box(const char *name, const double box[2][3], int n, const double lo[3], const double hi[3],
                              char *err, size_t errsz) {
  return jl_fail(err, errsz, JL_ERR_INPUT,
                 "body '%s': pin.box [[%g, %g, %g], [%g, %g, %g]] holds none of its %d nodes (they span "
                 "[[%g, %g, %g], [%g, %g, %g]], world coordinates after the transform); move or widen the box",
                 name, box[0][0], box[0][1], box[0][2], box[1][0], box[1][1], box[1][2], n, lo[0], lo[1], lo[2], hi[0],
                 hi[1], hi[2]);
}

/* nodes, tets and edges of one body's tet mesh */
static JlResult check_mesh(const JlTetMesh *t, const char *name, char *err, size_t errsz) {
  if (t->nnode <= 0 || t->ntet <= 0 || !t->node || !t->tet)
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': empty tet mesh (%d nodes, %d tets)", name, t->nnode, t->ntet);
  for (int i = 0; i < t->nnode; i++)
    if (!finite3(t->node + 3 * i))
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': node %d has a non-finite coordinate", name, i);
  for (int e = 0; e < t->ntet; e++) {
    for (int k = 0; k < 4; k++)
      if (t->tet[4 * e + k] < 0 || t->tet[4 * e + k] >= t->nnode)
        return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': tet %d refers to node %d (of %d)", name, e,
                       t->tet[4 * e + k], t->nnode);
    if (!(tet_volume(t->node, t->tet + 4 * e) > 0.0))
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': tet %d has non-positive volume %g", name, e,
                     tet_volume(t->node, t->tet + 4 * e));
  }
  if (t->nedge <= 0 || !t->edge)
    return jl_fail(err, errsz, JL_ERR_INPUT,
                   "body '%s': tet mesh has no edges (call jl_tetmesh_topology before jl_model_build)", name);
  for (int e = 0; e < t->nedge; e++) {
    int a = t->edge[2 * e], b = t->edge[2 * e + 1];
    if (a < 0 || b < 0 || a >= t->nnode || b >= t->nnode || a == b)
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': edge %d (%d-%d) is invalid", name, e, a, b);
  }
  for (int f = 0; f < t->nface && t->face; f++)
    for (int k = 0; k < 3; k++)
      if (t->face[3 * f + k] < 0 || t->face[3 * f + k] >= t->nnode)
        return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': boundary face %d refers to node %d", name, f,
                       t->face[3 * f + k]);
  return JL_OK;
}

/* Sum of the volumes of the tets around each edge (edge_vol, nedge) and the
 * six edge ids of each tet (tet_edge, 6 ntet), using a per-node list of the
 * edges whose smaller end is that node. Fails when a tet
 * edge is missing from the edge list. */
static int edge_tet_volumes(const JlTetMesh *t, const double *vol, double *edge_vol, int *tet_edge) {
  int n = t->nnode, ne = t->nedge;
  int *start = jl_calloc((size_t)n + 1, sizeof(int));
  int *list = jl_calloc((size_t)ne + 1, sizeof(int));
  int *key = jl_calloc((size_t)ne + 1, sizeof(int)); /* each edge's smaller end */
  for (int e = 0; e < ne; e++) {
    int a = t->edge[2 * e], b = t->edge[2 * e + 1];
    key[e] = a < b ? a : b;
  }
  jl_csr_by_key(n, ne, key, start, list);
  static const int pair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  int ok = 1;
  for (int tt = 0; tt < t->ntet && ok; tt++) {
    for (int p = 0; p < 6; p++) {
      int a = t->tet[4 * tt + pair[p][0]], b = t->tet[4 * tt + pair[p][1]];
      int lo = a < b ? a : b, hi = a < b ? b : a, found = -1;
      for (int q = start[lo]; q < start[lo + 1]; q++) {
        int e = list[q];
        if (t->edge[2 * e] + t->edge[2 * e + 1] - lo == hi) {
          found = e;
          break;
        }
      }
      if (found < 0) {
        ok = 0;
        break;
      }
      edge_vol[found] += vol[tt];
      tet_edge[6 * tt + p] = found;
    }
  }
  JL_FREE_ALL(start, list, key);
  return ok;
}

/* node -> incident springs (signed, see model.h) and node adjacency, both CSR (mesh/csr.h) */
static void build_node_springs(JlModel *m) {
  jl_csr_edges(m->nnode, m->nspring, m->spring_node, &m->node_spring_start, &m->node_spring, &m->adj_start, &m->adj);
}

/* What a body's (E, nu) or stiffness gives the springs and the volume force
 * (docs/physics.md, "Volume"). The springs alone are an isotropic solid with
 * mu = lambda = 2 E_s / 5 (the comment at the top); they are given the
 * material's shear modulus, E_s = 5 mu / 2, and the volume force supplies the
 * rest of lambda: kv = lambda - mu = E (4 nu - 1) / (2 (1 + nu)(1 - 2 nu)),
 * negative below nu = 1/4. nu = 1/4 gives E_s = E and kv = 0 (the spring
 * network of earlier versions). */
typedef struct Material {
  double spring_young; /* Pa, E_s of the springs; 0 = uniform stiffness */
  double kv;           /* Pa, volume stiffness */
} Material;

static Material material(const JlBodyDef *d) {
  Material mt = {0.0, 0.0};
  double E = d->young_modulus, nu = d->poisson_ratio;
  if (E > 0.0) {
    double mu = E / (2.0 * (1.0 + nu)), lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    mt.spring_young = JL_YOUNG_FACTOR * 2.5 * mu;
    mt.kv = lambda - mu;
  }
  if (d->volume_stiffness >= 0.0) mt.kv = d->volume_stiffness;
  return mt;
}

static void copy_surface(JlSurface *dst, const JlSurface *src) {
  memset(dst, 0, sizeof *dst);
  if (!src || src->nvert <= 0) return;
  dst->nvert = src->nvert;
  dst->ntri = src->ntri > 0 ? src->ntri : 0;
  dst->vert = jl_calloc(3 * (size_t)dst->nvert, sizeof(double));
  memcpy(dst->vert, src->vert, 3 * (size_t)dst->nvert * sizeof(double));
  dst->tri = jl_calloc(3 * (size_t)dst->ntri, sizeof(int));
  if (dst->ntri) memcpy(dst->tri, src->tri, 3 * (size_t)dst->ntri * sizeof(int));
}

/* A given contact cell size within JL_CELL_RANGE of the bodies' mean rest
 * edge: the spatial hash's cells (collision/hash.h) are sized for boxes of a
 * few edges; far smaller cells make every query scan all entries, far larger
 * ones put every node in one cell (the same cost), either way a step costs
 * tets x nodes. */
#define JL_CELL_RANGE 100.0
static JlResult check_cell_size(const JlModel *m, char *err, size_t errsz) {
  double cell = m->world.contact_cell, sum = 0.0;
  if (!(cell > 0.0) || m->nspring <= 0) return JL_OK;
  for (int s = 0; s < m->nspring; s++) sum += m->spring_rest[s];
  double edge = sum / m->nspring;
  if (!(edge > 0.0) || (cell >= edge / JL_CELL_RANGE && cell <= edge * JL_CELL_RANGE)) return JL_OK;
  return jl_fail(err, errsz, JL_ERR_INPUT,
                 "world: contact cell size (contact.cell_size) %.6g m is outside %g to %g times the bodies' mean "
                 "rest edge length %.6g m: give a value from %.6g to %.6g m (without one: the mean edge)",
                 cell, 1.0 / JL_CELL_RANGE, JL_CELL_RANGE, edge, edge / JL_CELL_RANGE, edge * JL_CELL_RANGE);
}

JlResult jl_model_build(JlModel *m, int nbody, const JlTetMesh *tets, const JlSurface *surfaces, const JlBodyDef *defs,
                        const JlWorldDef *world, char *err, size_t errsz) {
  JL_ASSERT(m && tets && defs && world, "jl_model_build: model, tets, defs and world must not be NULL");
  memset(m, 0, sizeof *m);
  if (nbody < 0) return jl_fail(err, errsz, JL_ERR_INPUT, "the scene has no bodies");
  JlResult r = check_world(world, err, errsz);
  if (r) return r;

  /* validate every body and count the totals */
  char(*names)[JL_NAME_MAX] = jl_calloc((size_t)nbody, sizeof *names);
  long nnode = 0, nspring = 0, ntet = 0, nface = 0;
  for (int b = 0; b < nbody; b++) {
    if (defs[b].name[0])
      snprintf(names[b], JL_NAME_MAX, "%s", defs[b].name);
    else
      snprintf(names[b], JL_NAME_MAX, "body%d", b);
    r = check_mesh(&tets[b], names[b], err, errsz);
    if (!r) r = check_def(&defs[b], names[b], tets[b].nnode, err, errsz);
    if (r) {
      free(names);
      return r;
    }
    nnode += tets[b].nnode;
    nspring += tets[b].nedge;
    ntet += tets[b].ntet;
    nface += tets[b].face ? tets[b].nface : 0;
  }
  if (nnode > 200000000 || nspring > 300000000 || ntet > 200000000) {
    free(names);
    return jl_fail(err, errsz, JL_ERR_INPUT, "the scene is too large (%ld nodes, %ld tets)", nnode, ntet);
  }

  /* allocate the global arrays */
  m->nnode = (int)nnode;
  m->nspring = (int)nspring;
  m->ntet = (int)ntet;
  m->nface = (int)nface;
  m->nbody = nbody;
  m->world = *world;
  jl_model_alloc_nodes(m, world->obstacle, world->nobstacle, (int)nnode);
  m->spring_node = jl_calloc(2 * (size_t)nspring, sizeof(int));
  m->spring_rest = jl_calloc((size_t)nspring, sizeof(double));
  m->spring_k = jl_calloc((size_t)nspring, sizeof(double));
  m->spring_kd = jl_calloc((size_t)nspring, sizeof(double));
  m->tet = jl_calloc(4 * (size_t)ntet, sizeof(int));
  m->tet_volume = jl_calloc((size_t)ntet, sizeof(double));
  m->tet_kvol = jl_calloc((size_t)ntet, sizeof(double));
  m->tet_kbar = jl_calloc((size_t)ntet, sizeof(double));
  m->face = jl_calloc(3 * (size_t)nface, sizeof(int));
  m->body = jl_calloc((size_t)nbody, sizeof(JlBody));

  int node0 = 0, spring0 = 0, tet0 = 0, face0 = 0;
  for (int b = 0; b < nbody && !r; b++) {
    const JlTetMesh *t = &tets[b];
    const JlBodyDef *d = &defs[b];
    JlBody *body = &m->body[b];
    snprintf(body->name, JL_NAME_MAX, "%s", names[b]);
    body->self_collision = d->self_collision != 0;
    body->node_begin = node0;
    body->node_count = t->nnode;
    body->spring_begin = spring0;
    body->spring_count = t->nedge;
    body->tet_begin = tet0;
    body->tet_count = t->ntet;
    body->calibration = 1.0;

    /* nodes: positions, initial velocity, body index */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < t->nnode; i++) {
      int g = node0 + i;
      for (int k = 0; k < 3; k++) {
        double xk = t->node[3 * i + k];
        m->x0[3 * g + k] = xk;
        m->v0[3 * g + k] = d->velocity[k];
        lo[k] = xk < lo[k] ? xk : lo[k];
        hi[k] = xk > hi[k] ? xk : hi[k];
      }
      m->node_body[g] = b;
    }
    body->size =
        sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));

    /* tets and lumped masses: density x volume / 4 to each node, times the
     * tet's share inside the surface (embedded mode, t->fill) */
    double *material_vol = jl_calloc((size_t)t->ntet + 1, sizeof(double));
    for (int e = 0; e < t->ntet; e++) {
      double vol = tet_volume(t->node, t->tet + 4 * e);
      m->tet_volume[tet0 + e] = vol;
      material_vol[e] = vol * (t->fill ? t->fill[e] : 1.0);
      for (int k = 0; k < 4; k++) {
        m->tet[4 * (tet0 + e) + k] = node0 + t->tet[4 * e + k];
        m->mass[node0 + t->tet[4 * e + k]] += 0.25 * d->density * material_vol[e];
      }
    }
    for (int i = 0; i < t->nnode; i++) body->mass += m->mass[node0 + i];

    /* springs along the edges: stiffness given, or from the shear modulus
     * (Young's modulus and Poisson's ratio); then the volume force per tet */
    double *edge_vol = jl_calloc((size_t)t->nedge + 1, sizeof(double));
    int *tet_edge = jl_calloc(6 * (size_t)t->ntet + 1, sizeof(int));
    Material mat = material(d);
    if (!edge_tet_volumes(t, material_vol, edge_vol, tet_edge))
      r = jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': a tet edge is missing from the edge list (stale topology)",
                  names[b]);
    for (int e = 0; e < t->nedge && !r; e++) {
      int a = t->edge[2 * e], c = t->edge[2 * e + 1], s = spring0 + e;
      const double *xa = t->node + 3 * a, *xc = t->node + 3 * c;
      double L = sqrt((xa[0] - xc[0]) * (xa[0] - xc[0]) + (xa[1] - xc[1]) * (xa[1] - xc[1]) +
                      (xa[2] - xc[2]) * (xa[2] - xc[2]));
      if (!(L > 0.0)) {
        r = jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': nodes %d and %d coincide (zero-length edge)", names[b], a, c);
        break;
      }
      m->spring_node[2 * s] = node0 + a;
      m->spring_node[2 * s + 1] = node0 + c;
      m->spring_rest[s] = L;
      m->spring_k[s] = mat.spring_young > 0.0 ? mat.spring_young * edge_vol[e] / (L * L) : d->stiffness;
      m->spring_kd[s] = d->damping;
    }
    /* the relaxed network's shear modulus, measured on the mesh, corrects
     * the springs (src/calibrate.c) */
    if (!r && mat.spring_young > 0.0 && d->calibrate) {
      double *kv_tet = jl_calloc((size_t)t->ntet + 1, sizeof(double));
      for (int e = 0; e < t->ntet; e++) kv_tet[e] = (t->fill ? t->fill[e] : 1.0) * mat.kv;
      JlCalibration cal;
      double factor = jl_calibrate_shear(t, material_vol, edge_vol, tet_edge, m->spring_k + spring0, kv_tet,
                                         mat.spring_young / 2.5, &cal);
      for (int e = 0; e < t->nedge; e++) m->spring_k[spring0 + e] *= factor;
      body->calibration = factor;
      free(kv_tet);
    }
    /* Kelvin-Voigt material damping: a dashpot of material_damping x k on
     * every spring (stiffness-proportional Rayleigh damping, C = beta K), at
     * most critical for the spring's two nodes, so the finest mesh modes
     * stay underdamped and explicit steps keep their stable length */
    for (int e = 0; e < t->nedge && !r && d->material_damping > 0.0; e++) {
      int s = spring0 + e, i = m->spring_node[2 * s], j = m->spring_node[2 * s + 1];
      double mi = m->mass[i], mj = m->mass[j], k = m->spring_k[s], kd = d->material_damping * k;
      double mr = mi + mj > 0.0 ? mi * mj / (mi + mj) : 0.0, crit = 2.0 * sqrt(k * mr);
      m->spring_kd[s] += kd < crit ? kd : crit;
    }
    /* the spring network's own modulus per tet, sum k L^2 / V_e over its
     * edges / 6 (= the springs' Young's modulus with young_modulus, an
     * equivalent one with a uniform stiffness), sets the barrier */
    for (int e = 0; e < t->ntet && !r; e++) {
      double es = 0.0;
      for (int p = 0; p < 6; p++) {
        int q = tet_edge[6 * e + p];
        double L = m->spring_rest[spring0 + q];
        es += m->spring_k[spring0 + q] * L * L / edge_vol[q];
      }
      double share = t->fill ? t->fill[e] : 1.0;
      m->tet_kvol[tet0 + e] = share * mat.kv;
      m->tet_kbar[tet0 + e] = share * JL_BARRIER_FACTOR * fmax(2.0 / 3.0 * es / 6.0 + mat.kv, 0.0);
    }
    JL_FREE_ALL(material_vol, edge_vol, tet_edge);
    if (r) break;

    /* boundary faces in global ids */
    if (t->face)
      for (int f = 0; f < t->nface; f++)
        for (int k = 0; k < 3; k++) m->face[3 * (face0 + f) + k] = node0 + t->face[3 * f + k];

    /* pins: listed nodes and nodes inside the box; pinned nodes start at rest */
    for (int p = 0; p < d->npin; p++) m->pinned[node0 + d->pin[p]] = 1;
    if (d->has_pin_box) {
      int held = 0;
      for (int i = 0; i < t->nnode; i++) {
        const double *x = t->node + 3 * i;
        int in = 1;
        for (int k = 0; k < 3; k++) in &= x[k] >= d->pin_box[0][k] && x[k] <= d->pin_box[1][k];
        if (in) m->pinned[node0 + i] = 1;
        held += in;
      }
      /* a box that misses the body is a mistake (it used to leave the body free) */
      if (held == 0) {
        r = empty_pin_box(names[b], d->pin_box, t->nnode, lo, hi, err, errsz);
        break;
      }
    }
    jl_model_spin(m, b, d->angular_velocity);
    for (int i = 0; i < t->nnode; i++)
      if (m->pinned[node0 + i]) m->v0[3 * (node0 + i)] = m->v0[3 * (node0 + i) + 1] = m->v0[3 * (node0 + i) + 2] = 0.0;

    /* render surface and its embedding in the body's own tets */
    if (surfaces && surfaces[b].nvert > 0) {
      copy_surface(&body->surface, &surfaces[b]);
      char msg[200];
      msg[0] = '\0';
      if (jl_embed_build(t, body->surface.vert, body->surface.nvert, &body->embed, msg, sizeof msg) != JL_OK)
        r = jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': cannot embed the surface: %s", names[b], msg);
    }

    node0 += t->nnode;
    spring0 += t->nedge;
    tet0 += t->ntet;
    face0 += t->face ? t->nface : 0;
  }
  free(names);
  if (!r) r = check_cell_size(m, err, errsz);
  if (r) {
    jl_model_free(m);
    return r;
  }
  build_node_springs(m);
  jl_model_sync_geom(m);
  return JL_OK;
}

/* collision/'s view (collision/geom.h): pointers to the model's heap arrays only,
 * so moving the JlModel struct by value keeps it valid. */
void jl_model_sync_geom(JlModel *m) {
  free(m->geom_body);
  m->geom_body = jl_calloc((size_t)m->nbody + 1, sizeof(JlGeomBody));
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *s = &m->body[b];
    JlGeomBody *g = &m->geom_body[b];
    g->node_begin = s->node_begin, g->node_count = s->node_count;
    g->spring_begin = s->spring_begin, g->spring_count = s->spring_count;
    g->tet_begin = s->tet_begin, g->tet_count = s->tet_count;
    g->kind = s->kind;
    g->radius = s->radius;
    g->self_collision = s->self_collision;
    g->ntri = s->surface.ntri, g->tri = s->surface.tri;
    g->nembed = s->embed.nvert, g->embed_tet = s->embed.tet, g->embed_weight = s->embed.weight;
  }
  JlGeom *g = &m->geom;
  g->nnode = m->nnode, g->x0 = m->x0, g->node_body = m->node_body;
  g->ntet = m->ntet, g->tet = m->tet;
  g->nface = m->nface, g->face = m->face;
  g->adj_start = m->adj_start, g->adj = m->adj;
  g->nspring = m->nspring, g->spring_node = m->spring_node, g->spring_rest = m->spring_rest;
  g->spring_kind = m->spring_kind;
  memcpy(g->gravity, m->world.gravity, sizeof g->gravity);
  g->nbody = m->nbody, g->body = m->geom_body;
}

const JlGeom *jl_model_geom(const JlModel *m) {
  const JlGeom *g = &m->geom;
  JL_ASSERT(g->nnode == m->nnode && g->x0 == m->x0 && g->node_body == m->node_body && g->ntet == m->ntet &&
                g->tet == m->tet && g->nface == m->nface && g->face == m->face && g->adj == m->adj &&
                g->nspring == m->nspring && g->spring_node == m->spring_node && g->nbody == m->nbody &&
                g->body == m->geom_body && memcmp(g->gravity, m->world.gravity, sizeof g->gravity) == 0,
            "jl_model_geom: the model changed after jl_model_sync_geom filled its view for collision/ (call it again)");
  return g;
}

void jl_model_alloc_nodes(JlModel *m, const JlObstacle *obstacle, int nobstacle, int nnode) {
  m->nobstacle = nobstacle;
  m->obstacle = jl_calloc((size_t)nobstacle + 1, sizeof(JlObstacle));
  for (int o = 0; o < nobstacle; o++) jl_obstacle_copy(&m->obstacle[o], &obstacle[o]);
  m->world.obstacle = m->obstacle;
  m->mass = jl_calloc((size_t)nnode, sizeof(double));
  m->pinned = jl_calloc((size_t)nnode, 1);
  m->x0 = jl_calloc(3 * (size_t)nnode, sizeof(double));
  m->v0 = jl_calloc(3 * (size_t)nnode, sizeof(double));
  m->node_body = jl_calloc((size_t)nnode, sizeof(int));
}

void jl_model_body_com(const JlModel *m, const double *x, int b, double com[3]) {
  const JlBody *body = &m->body[b];
  double mass = 0;
  com[0] = com[1] = com[2] = 0;
  for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
    for (int k = 0; k < 3; k++) com[k] += m->mass[i] * x[3 * i + k];
    mass += m->mass[i];
  }
  if (mass > 0)
    for (int k = 0; k < 3; k++) com[k] /= mass;
}

void jl_model_spin(JlModel *m, int b, const double w[3]) {
  if (!(w[0] != 0.0 || w[1] != 0.0 || w[2] != 0.0)) return;
  const JlBody *body = &m->body[b];
  double c[3];
  jl_model_body_com(m, m->x0, b, c);
  for (int i = body->node_begin; i < body->node_begin + body->node_count; i++) {
    if (m->pinned[i]) continue;
    const double *x = m->x0 + 3 * i;
    double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]}, *v = m->v0 + 3 * i;
    v[0] += w[1] * r[2] - w[2] * r[1];
    v[1] += w[2] * r[0] - w[0] * r[2];
    v[2] += w[0] * r[1] - w[1] * r[0];
  }
}

void jl_model_node_stiffness(const JlModel *m, double *out) {
  for (int i = 0; i < m->nnode; i++) out[i] = 0.0;
  for (int s = 0; s < m->nspring; s++) {
    out[m->spring_node[2 * s]] += m->spring_k[s];
    out[m->spring_node[2 * s + 1]] += m->spring_k[s];
  }
}
