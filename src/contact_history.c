/* The contact element's history (src/contact_internal.h). */
#include "src/contact_internal.h"

#include <stdlib.h>
#include <string.h>


/* What carries from one step to the next (JlForce.history_*): the contacts
 * of the last begin_step (the energy between steps is theirs; the energy
 * guard starts from it), their memory (slack, friction anchors) and the body
 * detection's last contacts (collision/depth.c takes unreached points'
 * directions from them). Contact and Memory are stored as they are in
 * memory (both are zeroed before they are filled, so their padding is too):
 * the header holds their sizes, and another build's layout is refused. The
 * detection's points are written field by field (JlContactPoint has padding
 * that nothing clears): 4 ints and 8 doubles each. */
enum { HIST_HEADER = 8, POINT_BYTES = 4 * sizeof(int) + 8 * sizeof(double) };

static void point_put(unsigned char *out, const JlContactPoint *c) {
  int i[4] = {c->node, c->body, c->tet, (int)c->kind};
  double d[8] = {c->w[0], c->w[1], c->w[2], c->w[3], c->depth, c->dir[0], c->dir[1], c->dir[2]};
  memcpy(out, i, sizeof i);
  memcpy(out + sizeof i, d, sizeof d);
}

static void point_get(const unsigned char *in, JlContactPoint *c) {
  int i[4];
  double d[8];
  memcpy(i, in, sizeof i);
  memcpy(d, in + sizeof i, sizeof d);
  memset(c, 0, sizeof *c);
  c->node = i[0], c->body = i[1], c->tet = i[2], c->kind = (JlContactKind)i[3];
  for (int k = 0; k < 4; k++) c->w[k] = d[k];
  c->depth = d[4];
  for (int k = 0; k < 3; k++) c->dir[k] = d[5 + k];
}

static void hist_counts(const ContactElem *ce, int out[HIST_HEADER]) {
  int ncol = 0;
  if (ce->col) jl_collision_contacts(ce->col, &ncol);
  out[0] = (int)sizeof(Contact);
  out[1] = (int)sizeof(Memory);
  out[2] = (int)POINT_BYTES;
  out[3] = ce->ncontact;
  out[4] = ce->nbody_contacts;
  out[5] = ce->use_set;
  out[6] = ce->nmem;
  out[7] = ncol;
}

size_t jl_contact_history_size(const JlForce *e) {
  int h[HIST_HEADER];
  hist_counts(e->self, h);
  return sizeof h + (size_t)h[3] * sizeof(Contact) + (size_t)h[6] * sizeof(Memory) + (size_t)h[7] * POINT_BYTES;
}

void jl_contact_history_save(const JlForce *e, unsigned char *out) {
  const ContactElem *ce = e->self;
  int h[HIST_HEADER], ncol = 0;
  hist_counts(ce, h);
  const JlContactPoint *cp = ce->col ? jl_collision_contacts(ce->col, &ncol) : NULL;
  memcpy(out, h, sizeof h);
  out += sizeof h;
  if (h[3]) memcpy(out, ce->contact, (size_t)h[3] * sizeof(Contact));
  out += (size_t)h[3] * sizeof(Contact);
  if (h[6]) memcpy(out, ce->mem, (size_t)h[6] * sizeof(Memory));
  out += (size_t)h[6] * sizeof(Memory);
  for (int i = 0; i < ncol; i++) point_put(out + (size_t)i * POINT_BYTES, &cp[i]);
}

static int node_ok(const JlModel *m, int i) { return i >= 0 && i < m->nnode; }

/* node, other-side and feature indices of a saved contact (hostile files) */
static int contact_ok(const JlModel *m, const Contact *ct) {
  if (ct->n < 1 || ct->n > JL_CONTACT_NODES || ct->na < 1 || ct->na > ct->n) return 0;
  for (int k = 0; k < ct->n; k++)
    if (!node_ok(m, ct->node[k])) return 0;
  return ct->other >= 0 && ct->other < m->nbody + m->nobstacle && ct->tet >= -1 && ct->tet < m->ntet &&
         ct->feature >= -1 && ct->feature < JL_BOX_FACE_COUNT && ct->friction >= FRICTION_NONE &&
         ct->friction <= FRICTION_SLIDE;
}

static int memory_ok(const JlModel *m, const Memory *q) {
  if (!node_ok(m, q->node) || q->n < 1 || q->n > JL_CONTACT_NODES || q->na < 1 || q->na > q->n) return 0;
  for (int k = 0; k < q->n; k++)
    if (!node_ok(m, q->nodes[k])) return 0;
  if (q->anchor_n < 0 || q->anchor_n > 4) return 0;
  for (int k = 0; k < q->anchor_n; k++)
    if (!node_ok(m, q->anchor_node[k])) return 0;
  return q->other >= 0 && q->other < m->nbody + m->nobstacle && q->anchor_tet >= -1 && q->anchor_tet < m->ntet &&
         q->feature >= -1 && q->feature < JL_BOX_FACE_COUNT;
}

int jl_contact_history_load(JlForce *e, const JlModel *m, const unsigned char *in, size_t n) {
  ContactElem *ce = e->self;
  int h[HIST_HEADER];
  if (n < sizeof h) return 0;
  memcpy(h, in, sizeof h);
  if (h[0] != (int)sizeof(Contact) || h[1] != (int)sizeof(Memory) || h[2] != (int)POINT_BYTES) return 0;
  if (h[3] < 0 || h[4] < 0 || h[4] > h[3] || (h[5] != 0 && h[5] != 1) || h[6] < 0 || h[7] < 0) return 0;
  if (h[7] > 0 && !ce->col) return 0;
  /* the sizes first, so counts are never trusted beyond the bytes given */
  size_t body = n - sizeof h;
  if ((size_t)h[3] > body / sizeof(Contact)) return 0;
  body -= (size_t)h[3] * sizeof(Contact);
  if ((size_t)h[6] > body / sizeof(Memory)) return 0;
  body -= (size_t)h[6] * sizeof(Memory);
  if (body != (size_t)h[7] * POINT_BYTES) return 0;
  const unsigned char *pc = in + sizeof h, *pm = pc + (size_t)h[3] * sizeof(Contact),
                      *pp = pm + (size_t)h[6] * sizeof(Memory);
  /* check every index before anything changes */
  for (int i = 0; i < h[3]; i++) {
    Contact ct;
    memcpy(&ct, pc + (size_t)i * sizeof ct, sizeof ct);
    if (!contact_ok(m, &ct)) return 0;
  }
  for (int i = 0; i < h[6]; i++) {
    Memory q;
    memcpy(&q, pm + (size_t)i * sizeof q, sizeof q);
    if (!memory_ok(m, &q)) return 0;
  }
  for (int i = 0; i < h[7]; i++) {
    JlContactPoint c;
    point_get(pp + (size_t)i * POINT_BYTES, &c);
    if (!node_ok(m, c.node) || c.body < 0 || c.body >= m->nbody || c.tet < 0 || c.tet >= m->ntet || c.kind < 0 ||
        c.kind >= JL_CONTACT_KIND_COUNT)
      return 0;
  }
  if (h[3] > ce->cap) {
    ce->cap = h[3];
    ce->contact = jl_realloc(ce->contact, (size_t)ce->cap, sizeof(Contact));
  }
  if (h[6] > ce->memcap) {
    ce->memcap = h[6];
    free(ce->mem);
    ce->mem = jl_calloc((size_t)ce->memcap, sizeof(Memory));
  }
  if (h[3]) memcpy(ce->contact, pc, (size_t)h[3] * sizeof(Contact));
  if (h[6]) memcpy(ce->mem, pm, (size_t)h[6] * sizeof(Memory));
  ce->ncontact = h[3];
  ce->nbody_contacts = h[4];
  ce->use_set = h[5];
  ce->nmem = h[6];
  if (ce->col) {
    if (h[7] > ce->load_cap) { /* grown rarely: undoing a step loads history too */
      ce->load_cap = 2 * h[7];
      ce->load_cp = jl_realloc(ce->load_cp, (size_t)ce->load_cap, sizeof(JlContactPoint));
    }
    for (int i = 0; i < h[7]; i++) point_get(pp + (size_t)i * POINT_BYTES, &ce->load_cp[i]);
    jl_collision_set_contacts(ce->col, ce->load_cp, h[7]);
  }
  return 1;
}
