/* Cloth and rope bodies as JlModels, and concatenation of models.
 *
 * Masses. A node carries the cloth area (or rope length) of mesh/cloth.c's
 * `measure` times the areal (linear) density: a quarter of each grid cell,
 * a third of each triangle, half of each rope segment (Kauppila sec. 1.1
 * gives equal masses; areal masses are the same for uniform meshes and
 * correct for graded ones).
 *
 * Springs. Rest length from the initial positions, stiffness by kind
 * (structural/stretch, shear, flexion/bend: Provot 1995),
 * damping along the axis as for volumes (src/springs.c). The kinds are kept
 * in model->spring_kind for the Provot correction (src/provot.c).
 *
 * Render surface. The cloth's own triangles on its own nodes; the embedding
 * is empty and jl_world_surface copies node positions for bodies whose kind
 * is not JL_BODY_VOLUME. Cloth contributes no boundary faces: it has no
 * inside, so other bodies cannot be "in" it (docs/collision.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/csr.h"
#include "src/model_cloth.h"

JlClothDef jl_default_cloth_def(void) {
  JlClothDef d;
  memset(&d, 0, sizeof d);
  d.kind = JL_BODY_CLOTH;
  d.stretch = 800.0;
  d.shear = 800.0;
  d.bend = 80.0;
  d.stretch_limit = 0.0;
  d.radius = JL_CLOTH_RADIUS;
  return d;
}

static int finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

/* node -> incident springs (signed, see model.h) and node adjacency (sorted,
 * without duplicates), both CSR, as src/model.c builds them for volumes (mesh/csr.h) */
static void build_csr(JlModel *m) {
  jl_csr_edges(m->nnode, m->nspring, m->spring_node, &m->node_spring_start, &m->node_spring, &m->adj_start, &m->adj);
}

JlResult jl_model_build_cloth(JlModel *m, const JlClothMesh *c, const JlBodyDef *def, const JlClothDef *cd,
                              const JlWorldDef *world, char *err, size_t errsz) {
  JL_ASSERT(m && c && def && cd && world, "jl_model_build_cloth: model, mesh, defs and world must not be NULL");
  memset(m, 0, sizeof *m);
  char name[JL_NAME_MAX];
  snprintf(name, sizeof name, "%s", def->name[0] ? def->name : "cloth");
  const char *unit = cd->kind == JL_BODY_ROPE ? "kg/m" : "kg/m^2";

  /* validate the defs and the mesh */
  if (cd->kind != JL_BODY_CLOTH && cd->kind != JL_BODY_ROPE)
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': kind must be cloth or rope", name);
  if (!(def->density > 0.0) || !isfinite(def->density))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': density must be > 0 %s, got %g", name, unit, def->density);
  const double ks[JL_SPRING_KIND_COUNT] = {cd->stretch, cd->shear, cd->bend};
  static const char *const kname[JL_SPRING_KIND_COUNT] = {"stretch", "shear", "bend"};
  for (int k = 0; k < JL_SPRING_KIND_COUNT; k++)
    if (!(ks[k] >= 0.0) || !isfinite(ks[k]))
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': %s stiffness must be >= 0 N/m, got %g", name, kname[k],
                     ks[k]);
  if (!(cd->stretch_limit >= 0.0) || !isfinite(cd->stretch_limit))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': stretch_limit must be >= 0, got %g", name, cd->stretch_limit);
  if (!(def->damping >= 0.0) || !isfinite(def->damping))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': damping must be >= 0 N s/m, got %g", name, def->damping);
  if (!(cd->radius >= 0.0) || !isfinite(cd->radius))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': %s must be >= 0 m, got %g", name,
                   cd->kind == JL_BODY_ROPE ? "radius" : "thickness",
                   cd->kind == JL_BODY_ROPE ? cd->radius : 2 * cd->radius);
  if (!finite3(def->velocity) || !finite3(def->angular_velocity))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': velocity and angular_velocity must be finite", name);
  if (c->nnode < 2 || !c->node || !c->measure || c->nspring < 1 || !c->spring || !c->kind)
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': empty cloth (%d nodes, %d springs)", name, c->nnode,
                   c->nspring);
  for (int i = 0; i < c->nnode; i++) {
    if (!finite3(c->node + 3 * i))
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': node %d has a non-finite coordinate", name, i);
    if (!(c->measure[i] > 0.0))
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': node %d belongs to no triangle or segment (no mass)", name,
                     i);
  }
  if (def->npin < 0 || (def->npin > 0 && !def->pin))
    return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': pin list has %d entries but no data", name, def->npin);
  for (int p = 0; p < def->npin; p++)
    if (def->pin[p] < 0 || def->pin[p] >= c->nnode)
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': pinned node %d is out of range (the body has %d nodes)",
                     name, def->pin[p], c->nnode);

  /* nodes, masses, pins */
  int n = c->nnode, ns = c->nspring;
  m->nnode = n;
  m->nbody = 1;
  m->world = *world;
  jl_model_alloc_nodes(m, world->obstacle, world->nobstacle > 0 ? world->nobstacle : 0, n);
  m->body = jl_calloc(1, sizeof(JlBody));
  JlBody *body = &m->body[0];
  snprintf(body->name, JL_NAME_MAX, "%s", name);
  body->kind = cd->kind;
  body->stretch_limit = cd->stretch_limit;
  body->radius = cd->radius;
  body->node_count = n;
  body->spring_count = ns;
  body->self_collision = def->self_collision != 0;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < n; i++) {
    m->mass[i] = def->density * c->measure[i];
    body->mass += m->mass[i];
    for (int k = 0; k < 3; k++) {
      double xk = c->node[3 * i + k];
      m->x0[3 * i + k] = xk;
      m->v0[3 * i + k] = def->velocity[k];
      lo[k] = fmin(lo[k], xk);
      hi[k] = fmax(hi[k], xk);
    }
  }
  body->size =
      sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
  for (int p = 0; p < def->npin; p++) m->pinned[def->pin[p]] = 1;
  if (def->has_pin_box) {
    int held = 0;
    for (int i = 0; i < n; i++) {
      int in = 1;
      for (int k = 0; k < 3; k++)
        in &= c->node[3 * i + k] >= def->pin_box[0][k] && c->node[3 * i + k] <= def->pin_box[1][k];
      if (in) m->pinned[i] = 1;
      held += in;
    }
    /* a box that misses the body is a mistake (it used to leave the body free) */
    if (held == 0) {
      const double(*box)[3] = def->pin_box;
      jl_model_free(m);
      return jl_fail(err, errsz, JL_ERR_INPUT,
                     "body '%s': pin.box [[%g, %g, %g], [%g, %g, %g]] holds none of its %d nodes (they span "
                     "[[%g, %g, %g], [%g, %g, %g]], world coordinates after the transform); move or widen the box",
                     name, box[0][0], box[0][1], box[0][2], box[1][0], box[1][1], box[1][2], n, lo[0], lo[1], lo[2],
                     hi[0], hi[1], hi[2]);
    }
  }
  jl_model_spin(m, 0, def->angular_velocity);
  for (int i = 0; i < n; i++)
    if (m->pinned[i]) m->v0[3 * i] = m->v0[3 * i + 1] = m->v0[3 * i + 2] = 0.0;

  /* springs by kind */
  m->nspring = ns;
  m->spring_node = jl_calloc(2 * (size_t)ns, sizeof(int));
  m->spring_rest = jl_calloc((size_t)ns, sizeof(double));
  m->spring_k = jl_calloc((size_t)ns, sizeof(double));
  m->spring_kd = jl_calloc((size_t)ns, sizeof(double));
  m->spring_kind = jl_calloc((size_t)ns, 1);
  for (int s = 0; s < ns; s++) {
    int a = c->spring[2 * s], b = c->spring[2 * s + 1], kind = c->kind[s];
    if (a < 0 || b < 0 || a >= n || b >= n || a == b || kind >= JL_SPRING_KIND_COUNT) {
      jl_model_free(m);
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': spring %d (%d-%d) is invalid", name, s, a, b);
    }
    const double *xa = c->node + 3 * a, *xb = c->node + 3 * b;
    double L =
        sqrt((xa[0] - xb[0]) * (xa[0] - xb[0]) + (xa[1] - xb[1]) * (xa[1] - xb[1]) + (xa[2] - xb[2]) * (xa[2] - xb[2]));
    if (!(L > 0.0)) {
      jl_model_free(m);
      return jl_fail(err, errsz, JL_ERR_INPUT, "body '%s': nodes %d and %d coincide (zero-length spring)", name, a, b);
    }
    m->spring_node[2 * s] = a;
    m->spring_node[2 * s + 1] = b;
    m->spring_rest[s] = L;
    m->spring_k[s] = ks[kind];
    m->spring_kd[s] = def->damping;
    m->spring_kind[s] = (unsigned char)kind;
  }

  /* render surface: the cloth itself (a rope has vertices only) */
  body->surface.nvert = n;
  body->surface.vert = jl_calloc(3 * (size_t)n, sizeof(double));
  memcpy(body->surface.vert, c->node, 3 * (size_t)n * sizeof(double));
  body->surface.ntri = cd->kind == JL_BODY_CLOTH ? c->ntri : 0;
  body->surface.tri = jl_calloc(3 * (size_t)body->surface.ntri + 1, sizeof(int));
  if (body->surface.ntri) memcpy(body->surface.tri, c->tri, 3 * (size_t)c->ntri * sizeof(int));
  m->face = jl_calloc(1, sizeof(int));
  m->tet = jl_calloc(1, sizeof(int));
  m->tet_volume = jl_calloc(1, sizeof(double));
  m->tet_kvol = jl_calloc(1, sizeof(double));
  m->tet_kbar = jl_calloc(1, sizeof(double));
  build_csr(m);
  jl_model_sync_geom(m);
  return JL_OK;
}

JlResult jl_model_concat(JlModel *dst, int nmodel, const JlModel *parts, char *err, size_t errsz) {
  JL_ASSERT(dst && (parts || nmodel <= 0), "jl_model_concat: dst and parts must not be NULL");
  memset(dst, 0, sizeof *dst);
  if (nmodel < 1) return jl_fail(err, errsz, JL_ERR_INPUT, "the scene has no bodies");

  /* totals */
  long nn = 0, ns = 0, nt = 0, nf = 0, nb = 0;
  int kinds = 0;
  for (int p = 0; p < nmodel; p++) {
    nn += parts[p].nnode, ns += parts[p].nspring, nt += parts[p].ntet, nf += parts[p].nface, nb += parts[p].nbody;
    kinds |= parts[p].spring_kind != NULL;
  }
  if (nn > 200000000 || ns > 300000000 || nt > 200000000)
    return jl_fail(err, errsz, JL_ERR_INPUT, "the scene is too large (%ld nodes, %ld springs)", nn, ns);
  JlModel *m = dst;
  m->nnode = (int)nn, m->nspring = (int)ns, m->ntet = (int)nt, m->nface = (int)nf, m->nbody = (int)nb;
  m->world = parts[0].world;
  jl_model_alloc_nodes(m, parts[0].obstacle, parts[0].nobstacle, (int)nn);
  m->world.nobstacle = m->nobstacle;
  m->spring_node = jl_calloc(2 * (size_t)ns + 1, sizeof(int));
  m->spring_rest = jl_calloc((size_t)ns + 1, sizeof(double));
  m->spring_k = jl_calloc((size_t)ns + 1, sizeof(double));
  m->spring_kd = jl_calloc((size_t)ns + 1, sizeof(double));
  m->spring_kind = kinds ? jl_calloc((size_t)ns + 1, 1) : NULL;
  m->tet = jl_calloc(4 * (size_t)nt + 1, sizeof(int));
  m->tet_volume = jl_calloc((size_t)nt + 1, sizeof(double));
  m->tet_kvol = jl_calloc((size_t)nt + 1, sizeof(double));
  m->tet_kbar = jl_calloc((size_t)nt + 1, sizeof(double));
  m->face = jl_calloc(3 * (size_t)nf + 1, sizeof(int));
  m->body = jl_calloc((size_t)nb, sizeof(JlBody));

  /* copy each part with its offsets */
  int n0 = 0, s0 = 0, t0 = 0, f0 = 0, b0 = 0;
  for (int p = 0; p < nmodel; p++) {
    const JlModel *q = &parts[p];
    size_t qn = (size_t)q->nnode, qs = (size_t)q->nspring;
    memcpy(m->mass + n0, q->mass, qn * sizeof(double));
    memcpy(m->pinned + n0, q->pinned, qn);
    memcpy(m->x0 + 3 * (size_t)n0, q->x0, 3 * qn * sizeof(double));
    memcpy(m->v0 + 3 * (size_t)n0, q->v0, 3 * qn * sizeof(double));
    for (size_t i = 0; i < qn; i++) m->node_body[n0 + i] = q->node_body[i] + b0;
    for (size_t s = 0; s < 2 * qs; s++) m->spring_node[2 * (size_t)s0 + s] = q->spring_node[s] + n0;
    memcpy(m->spring_rest + s0, q->spring_rest, qs * sizeof(double));
    memcpy(m->spring_k + s0, q->spring_k, qs * sizeof(double));
    memcpy(m->spring_kd + s0, q->spring_kd, qs * sizeof(double));
    if (kinds && q->spring_kind) memcpy(m->spring_kind + s0, q->spring_kind, qs);
    for (size_t t = 0; t < 4 * (size_t)q->ntet; t++) m->tet[4 * (size_t)t0 + t] = q->tet[t] + n0;
    memcpy(m->tet_volume + t0, q->tet_volume, (size_t)q->ntet * sizeof(double));
    memcpy(m->tet_kvol + t0, q->tet_kvol, (size_t)q->ntet * sizeof(double));
    memcpy(m->tet_kbar + t0, q->tet_kbar, (size_t)q->ntet * sizeof(double));
    for (size_t f = 0; f < 3 * (size_t)q->nface; f++) m->face[3 * (size_t)f0 + f] = q->face[f] + n0;
    for (int b = 0; b < q->nbody; b++) {
      const JlBody *src = &q->body[b];
      JlBody *d = &m->body[b0 + b];
      *d = *src;
      d->node_begin += n0, d->spring_begin += s0, d->tet_begin += t0;
      jl_surface_copy(&d->surface, &src->surface);
      memset(&d->embed, 0, sizeof d->embed);
      if (src->embed.nvert > 0) {
        d->embed.nvert = src->embed.nvert;
        d->embed.tet = jl_calloc((size_t)src->embed.nvert, sizeof(int));
        d->embed.weight = jl_calloc(4 * (size_t)src->embed.nvert, sizeof(double));
        memcpy(d->embed.tet, src->embed.tet, (size_t)src->embed.nvert * sizeof(int));
        memcpy(d->embed.weight, src->embed.weight, 4 * (size_t)src->embed.nvert * sizeof(double));
      }
    }
    n0 += q->nnode, s0 += q->nspring, t0 += q->ntet, f0 += q->nface, b0 += q->nbody;
  }
  build_csr(m);
  jl_model_sync_geom(m);
  return JL_OK;
}
