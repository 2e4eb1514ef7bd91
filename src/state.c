/* State copies and checkpoint files (src/state.h).
 *
 * A state copy goes through the same bytes as a checkpoint: the elements'
 * history (JlForce.history_save) into a JlHistory, then history_load into
 * the other world, so the copy, the undo of a rejected step and the file all
 * exercise one path. The checkpoint reader trusts nothing: the node count
 * must be the model's, every other count must fit in the bytes left in the
 * file before anything is allocated, each element's history_load checks its
 * own indices, and a checksum over the whole file catches the corruption
 * that would still parse. The world is changed only after all of that
 * passed (the elements' history is taken back if one of them refuses).
 *
 * The file is written to "<path>.tmp" and renamed, so an interrupted write
 * never leaves a half checkpoint under the real name. */
#define _POSIX_C_SOURCE 200809L
#include "src/state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/world_internal.h"

/* ---------------------------------------------------------------- hashing */

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME  1099511628211ull

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= FNV_PRIME;
  }
  return h;
}

static uint64_t fnv_int(uint64_t h, long long v) { return fnv(h, &v, sizeof v); }
static uint64_t fnv_doubles(uint64_t h, const double *a, size_t n) { return a && n ? fnv(h, a, n * sizeof *a) : h; }
static uint64_t fnv_ints(uint64_t h, const int *a, size_t n) { return a && n ? fnv(h, a, n * sizeof *a) : h; }

uint64_t jl_model_fingerprint(const JlModel *m) {
  JL_ASSERT(m, "jl_model_fingerprint: model must not be NULL");
  uint64_t h = FNV_OFFSET;
  size_t n = (size_t)m->nnode, ns = (size_t)m->nspring, nt = (size_t)m->ntet;
  long long counts[] = {m->nnode, m->nspring, m->ntet, m->nface, m->nbody, m->nobstacle};
  h = fnv(h, counts, sizeof counts);
  h = fnv_doubles(h, m->mass, n);
  if (m->pinned && n) h = fnv(h, m->pinned, n);
  h = fnv_doubles(h, m->x0, 3 * n);
  h = fnv_doubles(h, m->v0, 3 * n);
  h = fnv_ints(h, m->node_body, n);
  h = fnv_ints(h, m->spring_node, 2 * ns);
  h = fnv_doubles(h, m->spring_rest, ns);
  h = fnv_doubles(h, m->spring_k, ns);
  h = fnv_doubles(h, m->spring_kd, ns);
  if (m->spring_kind && ns) h = fnv(h, m->spring_kind, ns);
  h = fnv_ints(h, m->tet, 4 * nt);
  h = fnv_doubles(h, m->tet_volume, nt);
  h = fnv_doubles(h, m->tet_kvol, nt);
  h = fnv_doubles(h, m->tet_kbar, nt);
  h = fnv_ints(h, m->face, 3 * (size_t)m->nface);
  for (int b = 0; b < m->nbody; b++) {
    const JlBody *B = &m->body[b];
    int r[] = {B->node_begin, B->node_count, B->spring_begin,   B->spring_count,
               B->tet_begin,  B->tet_count,  B->self_collision, (int)B->kind};
    double d[] = {B->mass, B->stretch_limit, B->radius};
    h = fnv_ints(h, r, sizeof r / sizeof r[0]);
    h = fnv_doubles(h, d, sizeof d / sizeof d[0]);
  }
  /* world settings field by field (the struct has padding and a pointer) */
  const JlWorldDef *w = &m->world;
  double wd[] = {w->gravity[0], w->gravity[1], w->gravity[2],       w->wind[0],  w->wind[1],
                 w->wind[2],    w->wind_gust,  w->wind_gust_period, w->wind_drag};
  h = fnv_doubles(h, wd, sizeof wd / sizeof wd[0]);
  for (int k = 0; k < JL_WORLD_TABLE.n; k++) { /* the contact settings (src/model.h, JL_WORLD_SETTINGS) */
    double v = jl_setting_get(w, &JL_WORLD_TABLE.row[k]);
    h = fnv_doubles(h, &v, 1);
  }
  h = fnv_int(h, w->has_ground);
  for (int o = 0; o < m->nobstacle; o++) {
    const JlObstacle *ob = &m->obstacle[o];
    double d[] = {ob->size[0], ob->size[1],      ob->size[2],      ob->radius,
                  ob->length,  ob->translate[0], ob->translate[1], ob->translate[2]};
    h = fnv_int(h, (long long)ob->type);
    h = fnv_doubles(h, d, sizeof d / sizeof d[0]);
    h = fnv_doubles(h, ob->rot, 9);
    h = fnv_int(h, ob->npoint);
    h = fnv_doubles(h, ob->point, 3 * (size_t)(ob->npoint > 0 ? ob->npoint : 0));
  }
  return h;
}

/* ---------------------------------------------------------------- copies */

static void history_free(JlHistory *h) {
  free(h->buf);
  memset(h, 0, sizeof *h);
}

/* same model and elements, or a message saying what differs */
static JlResult same_layout(const JlWorld *a, const JlModel *bm, int nforce, const JlForceKind *kinds, char *err,
                            size_t errsz) {
  const JlModel *am = jl_world_base_model(a);
  if (am != bm && jl_model_fingerprint(am) != jl_model_fingerprint(bm))
    return jl_fail(err, errsz, JL_ERR_INPUT, "the state belongs to another model (other scene, mesh or settings)");
  if (a->nforce != nforce)
    return jl_fail(err, errsz, JL_ERR_INPUT, "the worlds have %d and %d force elements", a->nforce, nforce);
  for (int e = 0; e < nforce; e++)
    if (a->force[e]->kind != kinds[e])
      return jl_fail(err, errsz, JL_ERR_INPUT, "force element %d differs ('%s' against kind %d)", e, a->force[e]->name,
                     (int)kinds[e]);
  return JL_OK;
}

/* the elements' history h into w; on refusal w's own history is put back */
static int load_history_or_keep(JlWorld *w, const JlHistory *h) {
  JlHistory keep;
  memset(&keep, 0, sizeof keep);
  jl_world_history_save(w, &keep);
  int ok = jl_world_history_load(w, h);
  if (!ok) jl_world_history_load(w, &keep);
  history_free(&keep);
  return ok;
}

JlResult jl_state_copy(JlWorld *dst, const JlWorld *src, char *err, size_t errsz) {
  JL_ASSERT(dst && src && dst->work && src->work, "jl_state_copy: both worlds must be created (jl_world_create)");
  if (dst == src) return JL_OK;
  JlForceKind kinds[JL_MAX_FORCES];
  for (int e = 0; e < src->nforce; e++) kinds[e] = src->force[e]->kind;
  JlResult r = same_layout(dst, jl_world_base_model(src), src->nforce, kinds, err, errsz);
  if (r) return r;
  JlHistory h;
  memset(&h, 0, sizeof h);
  jl_world_history_save(src, &h);
  int ok = load_history_or_keep(dst, &h);
  history_free(&h);
  if (!ok) return jl_fail(err, errsz, JL_ERR_INPUT, "a force element refused the other world's history");
  jl_state_assign(&dst->state, &src->state);
  return JL_OK;
}

/* ---------------------------------------------------------------- files */

#define BYTE_ORDER_MARK 0x01020304u

typedef struct Writer {
  FILE *f;
  uint64_t hash;
  int failed;
} Writer;

static void put(Writer *o, const void *p, size_t n) {
  if (!n || o->failed) return;
  o->hash = fnv(o->hash, p, n);
  if (fwrite(p, 1, n, o->f) != n) o->failed = 1;
}

static void put_u32(Writer *o, uint32_t v) { put(o, &v, sizeof v); }
static void put_u64(Writer *o, uint64_t v) { put(o, &v, sizeof v); }

/* header fields that say the file is for this build: sizes of the numbers and of the warnings */
static void layout_words(uint32_t out[5]) {
  out[0] = BYTE_ORDER_MARK;
  out[1] = (uint32_t)sizeof(double);
  out[2] = (uint32_t)JL_WARN_COUNT;
  out[3] = (uint32_t)sizeof(((JlWarnings *)0)->first[0]);
  out[4] = (uint32_t)JL_MAX_FORCES;
}

JlResult jl_checkpoint_save(const JlWorld *w, const char *path, char *err, size_t errsz) {
  JL_ASSERT(w && w->work && path, "jl_checkpoint_save: world (created) and path must not be NULL");
  size_t len = strlen(path);
  char *tmp = jl_calloc(len + 5, 1);
  memcpy(tmp, path, len);
  memcpy(tmp + len, ".tmp", 4);
  Writer o = {fopen(tmp, "wb"), FNV_OFFSET, 0};
  if (!o.f) {
    JlResult r = jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot write checkpoint '%s': %s", tmp, strerror(errno));
    free(tmp);
    return r;
  }
  uint32_t layout[5];
  layout_words(layout);
  put(&o, JL_CHECKPOINT_MAGIC, 8);
  put_u32(&o, JL_CHECKPOINT_VERSION);
  put(&o, layout, sizeof layout);
  put_u64(&o, jl_model_fingerprint(jl_world_base_model(w)));
  const JlState *st = &w->state;
  put_u64(&o, (uint64_t)st->nnode);
  double d[] = {st->t, st->h_adaptive};
  put(&o, d, sizeof d);
  put_u64(&o, (uint64_t)(int64_t)st->good_steps);
  put(&o, &st->warnings.count, sizeof st->warnings.count);
  put(&o, &st->warnings.first_t, sizeof st->warnings.first_t);
  put(&o, &st->warnings.first, sizeof st->warnings.first);
#define PUT(f, T, per) put(&o, st->f, (size_t)(per) * (size_t)st->nnode * sizeof(T));
  JL_STATE_ARRAYS(PUT)
#undef PUT
  JlHistory h;
  memset(&h, 0, sizeof h);
  jl_world_history_save(w, &h);
  put_u32(&o, (uint32_t)w->nforce);
  for (int e = 0; e < w->nforce; e++) {
    put_u32(&o, (uint32_t)h.kind[e]);
    put_u64(&o, (uint64_t)h.len[e]);
    put(&o, h.buf + h.off[e], h.len[e]);
  }
  history_free(&h);
  uint64_t sum = o.hash;
  put_u64(&o, sum);
  int failed = o.failed | (fclose(o.f) != 0);
  if (!failed && rename(tmp, path) != 0) failed = 1;
  JlResult r = JL_OK;
  if (failed) {
    r = jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot write checkpoint '%s': %s", path, strerror(errno));
    remove(tmp);
  }
  free(tmp);
  return r;
}

typedef struct Reader {
  FILE *f;
  uint64_t hash;
  uint64_t left; /* bytes not read yet */
} Reader;

/* n bytes into p; 0 when the file ends first */
static int get(Reader *in, void *p, size_t n) {
  if (!n) return 1;
  if (n > in->left || fread(p, 1, n, in->f) != n) return 0;
  in->left -= n;
  in->hash = fnv(in->hash, p, n);
  return 1;
}

/* max |l - L| / L over the springs at positions x (NaN stays NaN) */
static double state_strain(const JlModel *m, const double *x) {
  double worst = 0.0;
  for (int s = 0; s < m->nspring; s++) {
    const double *a = x + 3 * m->spring_node[2 * s], *b = x + 3 * m->spring_node[2 * s + 1];
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    double e = fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - m->spring_rest[s]) / m->spring_rest[s];
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

JlResult jl_checkpoint_load(JlWorld *w, const char *path, char *err, size_t errsz) {
  JL_ASSERT(w && w->work && path, "jl_checkpoint_load: world (created) and path must not be NULL");
  /* opened without blocking and checked to be a regular file before any read
   * (a FIFO would block in fopen until a writer came; a directory or device
   * would be read as data) */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot open checkpoint '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' is not a regular file", path);
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot open checkpoint '%s': %s", path, strerror(errno));
  }
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' is not a regular file", path);
  }
  Reader in = {f, FNV_OFFSET, (uint64_t)size};
  JlResult r = JL_OK;
  const char *why = NULL;
  size_t n3 = 3 * (size_t)w->state.nnode;
  JlState got;
  memset(&got, 0, sizeof got);
  JlHistory h;
  memset(&h, 0, sizeof h);
  char magic[8];
  uint32_t version = 0, layout[5], want[5];
  uint64_t fingerprint = 0, nnode = 0, good = 0, nforce32 = 0, sum = 0;
  double d[2];
  layout_words(want);
  if (!get(&in, magic, 8) || memcmp(magic, JL_CHECKPOINT_MAGIC, 8) != 0) {
    why = "is not a Jelly checkpoint (no JELLYCKP magic)";
    goto fail;
  }
  if (!get(&in, &version, sizeof version)) goto truncated;
  if (version != JL_CHECKPOINT_VERSION) {
    r = jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' has format version %u; this build reads version %d", path,
                (unsigned)version, JL_CHECKPOINT_VERSION);
    goto out;
  }
  if (!get(&in, layout, sizeof layout)) goto truncated;
  if (memcmp(layout, want, sizeof want) != 0) {
    why = "was written by another build or kind of machine (number layout differs)";
    goto fail;
  }
  if (!get(&in, &fingerprint, sizeof fingerprint)) goto truncated;
  if (fingerprint != jl_model_fingerprint(jl_world_base_model(w))) {
    why = "was saved from another model (another scene, mesh or settings: the model fingerprint differs)";
    goto fail;
  }
  if (!get(&in, &nnode, sizeof nnode)) goto truncated;
  if (nnode != (uint64_t)w->state.nnode) {
    r = jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' has %llu nodes, the model %d", path,
                (unsigned long long)nnode, w->state.nnode);
    goto out;
  }
  if (!get(&in, d, sizeof d) || !get(&in, &good, sizeof good)) goto truncated;
  if (!(isfinite(d[0]) && d[0] >= 0.0 && isfinite(d[1]) && d[1] >= 0.0) || good > (uint64_t)INT_MAX) {
    why = "has an impossible time, adaptive step or step count";
    goto fail;
  }
  jl_state_alloc(&got, w->state.nnode);
  got.t = d[0];
  got.h_adaptive = d[1];
  got.good_steps = (int)(int64_t)good;
  JlWarnings *warn = &got.warnings;
  if (!get(&in, &warn->count, sizeof warn->count) || !get(&in, &warn->first_t, sizeof warn->first_t) ||
      !get(&in, &warn->first, sizeof warn->first))
    goto truncated;
  for (int k = 0; k < JL_WARN_COUNT; k++) {
    warn->first[k][sizeof warn->first[k] - 1] = '\0';
    if (warn->count[k] < 0) {
      why = "has a negative warning count";
      goto fail;
    }
  }
  /* the arrays (JL_STATE_ARRAYS): sized by the model, each after checking that the file holds it */
#define GET(f, T, per)                                              \
  {                                                                 \
    size_t bytes = (size_t)(per) * (size_t)got.nnode * sizeof(T);   \
    if (bytes > in.left || !get(&in, got.f, bytes)) goto truncated; \
  }
  JL_STATE_ARRAYS(GET)
#undef GET
  /* a state with NaN/Inf cannot be stepped (collision detection hashes positions) */
  const double *arr[3] = {got.x, got.v, got.dv};
  for (int a = 0; a < 3; a++)
    for (size_t i = 0; i < n3; i++)
      if (!isfinite(arr[a][i])) {
        r = jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' has a non-finite %s at node %zu", path,
                    a == 0   ? "position"
                    : a == 1 ? "velocity"
                             : "velocity change",
                    i / 3);
        goto out;
      }
  /* the check every step's result passes (src/world.c): spring strain within
   * max_strain; a state far beyond it is no run's and can stall collision
   * detection (faces spanning billions of hash cells) */
  double strain = state_strain(w->model, got.x);
  if (!(strain <= w->def.max_strain)) {
    r = jl_fail(err, errsz, JL_ERR_INPUT,
                "checkpoint '%s' holds a diverged state (spring strain %.3g, above "
                "max_strain %g)",
                path, strain, w->def.max_strain);
    goto out;
  }
  /* the pin mask: one byte per node, each 0 or 1 */
  for (int i = 0; i < got.nnode; i++)
    if (got.pinned[i] > 1) {
      r = jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' has pin value %d at node %d (0 or 1)", path,
                  (int)got.pinned[i], i);
      goto out;
    }
  uint32_t nf = 0;
  if (!get(&in, &nf, sizeof nf)) goto truncated;
  nforce32 = nf;
  if (nforce32 != (uint64_t)w->nforce) {
    r = jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' has %llu force elements, the world %d", path,
                (unsigned long long)nforce32, w->nforce);
    goto out;
  }
  /* the elements' history: each length fits in what is left of the file */
  h.nforce = w->nforce;
  size_t total = 0;
  long pos = ftell(f);
  uint64_t hash_at = in.hash;
  for (int e = 0; e < w->nforce; e++) {
    uint32_t kind;
    uint64_t len;
    if (!get(&in, &kind, sizeof kind) || !get(&in, &len, sizeof len)) goto truncated;
    if (kind != (uint32_t)w->force[e]->kind) {
      r = jl_fail(err, errsz, JL_ERR_INPUT,
                  "checkpoint '%s': force element %d is of kind %u, the world's '%s' "
                  "of kind %d",
                  path, e, (unsigned)kind, w->force[e]->name, (int)w->force[e]->kind);
      goto out;
    }
    if (len > in.left) goto truncated;
    h.kind[e] = (JlForceKind)kind;
    h.len[e] = (size_t)len;
    h.off[e] = total;
    total += ((size_t)len + 15) & ~(size_t)15;
    /* skip for now: lengths first, then one allocation */
    if (fseek(f, (long)len, SEEK_CUR) != 0) goto truncated;
    in.left -= len;
  }
  /* second pass over the histories, now into the buffer (hashing in file order) */
  if (fseek(f, pos, SEEK_SET) != 0) goto truncated;
  in.left = (uint64_t)size - (uint64_t)pos;
  in.hash = hash_at;
  h.cap = total;
  h.buf = jl_calloc(total + 1, 1);
  for (int e = 0; e < w->nforce; e++) {
    uint32_t kind;
    uint64_t len;
    if (!get(&in, &kind, sizeof kind) || !get(&in, &len, sizeof len) || !get(&in, h.buf + h.off[e], h.len[e]))
      goto truncated;
  }
  uint64_t expect = in.hash;
  if (!get(&in, &sum, sizeof sum)) goto truncated;
  if (in.left != 0) {
    why = "has bytes after its end";
    goto fail;
  }
  if (sum != expect) {
    why = "is corrupted (checksum mismatch)";
    goto fail;
  }
  if (!load_history_or_keep(w, &h)) {
    why =
        "holds force-element history that does not fit the model (written by another build of jelly, "
        "or indices out of range)";
    goto fail;
  }
  jl_state_assign(&w->state, &got);
  goto out;
truncated:
  why = "is truncated";
fail:
  r = jl_fail(err, errsz, JL_ERR_INPUT, "checkpoint '%s' %s", path, why);
out:
  fclose(f);
  jl_state_free(&got);
  history_free(&h);
  return r;
}

/* ---------------------------------------------------------------- snapshots */

struct JlSnapshot {
  JlState state;
  JlHistory hist;
  int nforce;
  JlForceKind kind[JL_MAX_FORCES];
};

void jl_snapshot_take(const JlWorld *w, JlSnapshot **snap) {
  JL_ASSERT(w && w->work && snap, "jl_snapshot_take: world (created) and snap must not be NULL");
  JlSnapshot *s = *snap;
  if (s && s->state.nnode != w->state.nnode) {
    jl_snapshot_free(s);
    s = NULL;
  }
  if (!s) {
    s = jl_calloc(1, sizeof *s);
    jl_state_alloc(&s->state, w->state.nnode);
  }
  jl_state_assign(&s->state, &w->state);
  jl_world_history_save(w, &s->hist);
  s->nforce = w->nforce;
  for (int e = 0; e < w->nforce; e++) s->kind[e] = w->force[e]->kind;
  *snap = s;
}

JlResult jl_snapshot_restore(JlWorld *w, const JlSnapshot *snap, char *err, size_t errsz) {
  JL_ASSERT(w && w->work && snap, "jl_snapshot_restore: world (created) and snapshot must not be NULL");
  if (snap->state.nnode != w->state.nnode)
    return jl_fail(err, errsz, JL_ERR_INPUT, "the snapshot has %d nodes, the world %d", snap->state.nnode,
                   w->state.nnode);
  JlResult r = same_layout(w, jl_world_base_model(w), snap->nforce, snap->kind, err, errsz);
  if (r) return r;
  if (!load_history_or_keep(w, &snap->hist))
    return jl_fail(err, errsz, JL_ERR_INPUT, "a force element refused the snapshot's history");
  jl_state_assign(&w->state, &snap->state);
  return JL_OK;
}

double jl_snapshot_time(const JlSnapshot *snap) { return snap ? snap->state.t : 0.0; }

size_t jl_snapshot_bytes(const JlSnapshot *snap) {
  if (!snap) return 0;
  size_t n = sizeof *snap + snap->hist.cap;
#define BYTES(f, T, per) n += (size_t)(per) * (size_t)snap->state.nnode * sizeof(T);
  JL_STATE_ARRAYS(BYTES)
#undef BYTES
  return n;
}

void jl_snapshot_free(JlSnapshot *snap) {
  if (!snap) return;
  jl_state_free(&snap->state);
  history_free(&snap->hist);
  free(snap);
}

uint64_t jl_state_hash(const JlState *s) {
  uint64_t h = fnv(FNV_OFFSET, &s->t, sizeof s->t);
#define HASH(f, T, per) h = fnv(h, s->f, (size_t)(per) * (size_t)s->nnode * sizeof(T));
  JL_STATE_ARRAYS(HASH)
#undef HASH
  return h;
}
