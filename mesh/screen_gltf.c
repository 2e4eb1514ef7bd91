/* glTF 2.0 screen (screen.h): .gltf JSON and .glb (12-byte header, JSON
 * chunk, optional BIN chunk), before assimp's glTF2 importer sees them.
 *
 * Method. The JSON (at most JL_GLTF_MAX_JSON_MB, JL_GLTF_MAX_JSON_VALUES
 * values, 1000 levels: counted in one pass over the bytes before cJSON
 * parses it) is read whole; a .glb's JSON chunk length must fit the file
 * (assimp allocates and zero-fills it before reading: 20 bytes claiming
 * 4 GB cost it 4 GB). Which importer takes the file follows assimp's
 * CanRead: the glTF 1.0 importer an asset version starting with '1', the
 * glTF 2.0 one a version string starting with '2' (a .glb: version 2 in the
 * header); anything else is neither (JL_GLTF_NOT), and assimp then asks all
 * importers. For glTF 2.0 the screen checks, as assimp reads them:
 *  - buffers: their length (a .glb's buffer 0 is its BIN chunk); views must
 *    lie within their buffer;
 *  - accessors: count within JL_MAX_MESH_ELEMENTS, count x element size
 *    within the bufferView after the accessor's offset; without a bufferView
 *    (assimp allocates count x element size of zeros for a sparse accessor)
 *    at most JL_GLTF_MAX_ZERO_MB; sparse indices and values within their
 *    views;
 *  - the node graph: no node its own ancestor, at most JL_MAX_NODE_DEPTH
 *    levels, and the scene's expansion (assimp copies a node once per path
 *    from the scene's roots, with its extras and extensions as metadata and,
 *    for a skinned mesh, one bone per joint and primitive) within the caps
 *    of jl_screen_expansion, computed by memoized sums over the node DAG
 *    (jl_graph_expand), never by walking paths. A primitive's triangles
 *    come from its index (or position) count and mode.
 * Members are read as rapidjson's FindUInt and MemberOrDefault do (a member
 * of the wrong type is absent). Accessors are checked where assimp reads
 * them (it reads lazily): those of meshes that nodes use, of skins and of
 * animations; the node graph is checked whole. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/child.h"
#include "mesh/screen.h"

#define GLB_JSON 0x4E4F534Au
#define GLB_BIN  0x004E4942u

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* rapidjson FindUInt: a number that is a whole value in [0, 2^32) */
static int get_uint(const cJSON *o, const char *key, double *v) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(m)) return 0;
  double d = m->valuedouble;
  if (!(d >= 0 && d < 4294967296.0) || d != floor(d)) return 0;
  *v = d;
  return 1;
}
static int item_uint(const cJSON *m, double *v) {
  if (!cJSON_IsNumber(m)) return 0;
  double d = m->valuedouble;
  if (!(d >= 0 && d < 4294967296.0) || d != floor(d)) return 0;
  *v = d;
  return 1;
}
/* MemberOrDefault<size_t> */
static double get_size(const cJSON *o, const char *key, double def) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(m)) return def;
  double d = m->valuedouble;
  return (d >= 0 && d == floor(d)) ? d : def;
}
static const cJSON *get_array(const cJSON *o, const char *key) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsArray(m) ? m : NULL;
}
static const cJSON *get_object(const cJSON *o, const char *key) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsObject(m) ? m : NULL;
}
/* values in a subtree, the item itself included (recursion: cJSON nests at
 * most 1000 levels) */
static double count_values(const cJSON *m) {
  double n = 1;
  for (const cJSON *c = m->child; c; c = c->next) n += count_values(c);
  return n;
}

static const char *node_name(const cJSON *node) {
  const cJSON *nm = cJSON_GetObjectItemCaseSensitive(node, "name");
  return cJSON_IsString(nm) && nm->valuestring ? nm->valuestring : "";
}

/* One pass over the JSON bytes: the first non-blank byte must open an
 * object (else not glTF: *is_object = 0); counts values and the deepest
 * nesting. */
static void json_prepass(const char *s, size_t n, int *is_object, double *values, int *depth) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  *is_object = i < n && s[i] == '{';
  *values = 0;
  *depth = 0;
  if (!*is_object) return;
  /* containers on a bit stack (1 array); deeper than 4096 is reported as such */
  unsigned char kind[4096];
  int d = 0, first = 0; /* first: an array was just opened, its first value not yet seen */
  double v = 1;         /* the root */
  for (; i < n; i++) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (first && c != ']') v++;
    first = 0;
    if (c == '"') {
      for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\') i++;
      continue;
    }
    if (c == '{' || c == '[') {
      if (d < 4096) kind[d] = c == '[';
      d++;
      if (d > *depth) *depth = d;
      if (c == '[') first = 1;
    } else if (c == '}' || c == ']') {
      if (d > 0) d--;
    } else if (c == ':') {
      v++;
    } else if (c == ',') {
      if (d > 0 && d <= 4096 && kind[d - 1]) v++;
    }
  }
  *values = v;
}

JlResult jl_screen_gltf(const char *path, FILE *f, unsigned long long size, int binary, JlGltfKind *kind, char *err,
                        size_t errsz) {
  *kind = JL_GLTF_NOT;
  const double maxjson = (double)JL_GLTF_MAX_JSON_MB * 1048576.0;
  unsigned long long json_at = 0, json_len = size;
  double bin_len = 0; /* a .glb's BIN chunk: buffer 0 */
  if (binary) {
    unsigned char h[28];
    size_t got = fread(h, 1, sizeof h, f);
    if (got < 20 || memcmp(h, "glTF", 4) != 0) return JL_OK;
    uint32_t version = le32(h + 4);
    if (version == 1) return *kind = JL_GLTF_1, JL_OK;
    if (version != 2 || le32(h + 16) != GLB_JSON) return JL_OK; /* assimp's glTF importers refuse it */
    uint32_t clen = le32(h + 12), total = le32(h + 8);
    if ((unsigned long long)clen > size - 20)
      return jl_fail(err, errsz, JL_ERR_INPUT,
                     "%s: glb JSON chunk promises %u bytes, the file has only %llu after its 20-byte header "
                     "(assimp would allocate them all)",
                     path, clen, size - 20);
    json_at = 20;
    json_len = clen;
    unsigned long long pad = ((clen + 3ull) & ~3ull) - clen, body = 20ull + clen + pad + 8;
    if ((unsigned long long)total >= body) {
      unsigned char c[8];
      if (fseek(f, (long)(20 + clen + pad), SEEK_SET) != 0 || fread(c, 1, 8, f) != 8 || le32(c + 4) != GLB_BIN)
        return JL_OK; /* assimp refuses it (no BIN chunk where the header says) */
      bin_len = le32(c);
    }
  }
  if ((double)json_len > maxjson)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: glTF JSON is %.0f MB, more than the %d MB limit", path,
                   (double)json_len / 1048576.0, JL_GLTF_MAX_JSON_MB);
  char *buf = jl_calloc((size_t)json_len + 1, 1);
  if (fseek(f, (long)json_at, SEEK_SET) != 0 || fread(buf, 1, (size_t)json_len, f) != json_len) {
    free(buf);
    return JL_OK; /* assimp cannot read it either */
  }
  size_t len = strlen(buf); /* assimp parses in place up to the first NUL */
  int is_object, depth;
  double values;
  json_prepass(buf, len, &is_object, &values, &depth);
  JlResult res = JL_OK;
  cJSON *doc = NULL;
  if (!is_object) goto done;
  if (depth > 1000) {
    res = jl_fail(err, errsz, JL_ERR_INPUT, "%s: glTF JSON nests %d levels deep, more than the 1000 level limit", path,
                  depth);
    goto done;
  }
  if (values > JL_GLTF_MAX_JSON_VALUES) {
    res = jl_fail(err, errsz, JL_ERR_INPUT, "%s: glTF JSON has %.0f values, more than the %d value limit", path, values,
                  JL_GLTF_MAX_JSON_VALUES);
    goto done;
  }
  const char *end = NULL;
  doc = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
  if (!doc || !cJSON_IsObject(doc)) goto done; /* rapidjson refuses it too: not glTF */
  /* nothing but blanks may follow the root (rapidjson's default) */
  for (const char *p = end; p && p < buf + len; p++)
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') goto done;
  free(buf);
  buf = NULL;

  /* which importer: glTF 1.0 (a version "1...", or a number 1.x) before 2.0 */
  const cJSON *asset = get_object(doc, "asset");
  const cJSON *ver = asset ? cJSON_GetObjectItemCaseSensitive(asset, "version") : NULL;
  if (cJSON_IsString(ver) && ver->valuestring && ver->valuestring[0] == '1' && !binary) {
    *kind = JL_GLTF_1;
    goto done;
  }
  if (cJSON_IsNumber(ver) && !binary) {
    char v[32];
    snprintf(v, sizeof v, "%.1f", ver->valuedouble);
    if (v[0] == '1') *kind = JL_GLTF_1;
    goto done;
  }
  if (!cJSON_IsString(ver) || !ver->valuestring || ver->valuestring[0] != '2') goto done;
  *kind = JL_GLTF_2;

  /* ---- buffers, views, accessors ---- */
  const cJSON *buffers = get_array(doc, "buffers"), *views = get_array(doc, "bufferViews");
  const cJSON *accessors = get_array(doc, "accessors");
  int nbuf = cJSON_GetArraySize(buffers), nview = cJSON_GetArraySize(views), nacc = cJSON_GetArraySize(accessors);
  double *blen = jl_calloc((size_t)nbuf + 1, sizeof(double));
  const cJSON **view = jl_calloc((size_t)nview + 1, sizeof *view);
  nview = 0;
  for (const cJSON *v = views ? views->child : NULL; v; v = v->next) view[nview++] = v;
  double *acount = jl_calloc((size_t)nacc + 1, sizeof(double)); /* -1: unusable */
  int i = 0;
  for (const cJSON *b = buffers ? buffers->child : NULL; b; b = b->next, i++) {
    if (binary && i == 0) {
      blen[i] = bin_len;
      continue;
    }
    double stated = get_size(b, "byteLength", 0);
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
    if (!cJSON_IsString(uri) || !uri->valuestring)
      blen[i] = 0;
    else if (strncmp(uri->valuestring, "data:", 5) == 0) {
      const char *comma = strchr(uri->valuestring, ',');
      const char *b64 = strstr(uri->valuestring, ";base64");
      double dlen = comma ? (double)strlen(comma + 1) : 0;
      if (b64 && comma && b64 < comma)
        blen[i] = stated > 0 ? stated : floor(dlen * 3 / 4);
      else
        blen[i] = dlen;
    } else
      blen[i] = stated; /* an external file: assimp reads byteLength bytes of it, or fails */
  }
/* a view: [offset, offset + length) within its buffer; -1 length when unusable */
#define VIEW(k, off, vlen)                                                                                      \
  do {                                                                                                          \
    const cJSON *v_ = view[(k)];                                                                                \
    double b_;                                                                                                  \
    (off) = get_size(v_, "byteOffset", 0), (vlen) = get_size(v_, "byteLength", 0);                              \
    if (!v_ || !get_uint(v_, "buffer", &b_) || b_ >= nbuf)                                                      \
      (vlen) = -1;                                                                                              \
    else if ((off) + (vlen) > blen[(int)b_]) {                                                                  \
      res = jl_fail(err, errsz, JL_ERR_INPUT,                                                                   \
                    "%s: glTF bufferView %d (bytes %.0f to %.0f) lies beyond its buffer %d (%.0f bytes)", path, \
                    (int)(k), (off), (off) + (vlen), (int)b_, blen[(int)b_]);                                   \
      goto screened;                                                                                            \
    }                                                                                                           \
  } while (0)
  /* the accessors assimp reads (it reads lazily): those of meshes that nodes
   * use, of skins and of animations */
  unsigned char *used = jl_calloc((size_t)nacc + 1, 1);
  {
    const cJSON *meshes = get_array(doc, "meshes"), *nodes = get_array(doc, "nodes");
    int nmesh = cJSON_GetArraySize(meshes);
    unsigned char *mused = jl_calloc((size_t)nmesh + 1, 1);
    double v;
    for (const cJSON *nd = nodes ? nodes->child : NULL; nd; nd = nd->next)
      if (get_uint(nd, "mesh", &v) && v < nmesh) mused[(int)v] = 1;
#define USE(obj, key) \
  if ((obj) && get_uint((obj), (key), &v) && v < nacc) used[(int)v] = 1
    i = 0;
    for (const cJSON *m = meshes ? meshes->child : NULL; m; m = m->next, i++) {
      if (!mused[i]) continue;
      const cJSON *prims = get_array(m, "primitives");
      for (const cJSON *p = prims ? prims->child : NULL; p; p = p->next) {
        USE(p, "indices");
        const cJSON *attr = get_object(p, "attributes"), *targets = get_array(p, "targets");
        for (const cJSON *k = attr ? attr->child : NULL; k; k = k->next)
          if (item_uint(k, &v) && v < nacc) used[(int)v] = 1;
        for (const cJSON *t = targets ? targets->child : NULL; t; t = t->next)
          for (const cJSON *k = t->child; k; k = k->next)
            if (item_uint(k, &v) && v < nacc) used[(int)v] = 1;
      }
    }
    const cJSON *skins = get_array(doc, "skins"), *anims = get_array(doc, "animations");
    for (const cJSON *sk = skins ? skins->child : NULL; sk; sk = sk->next) USE(sk, "inverseBindMatrices");
    for (const cJSON *an = anims ? anims->child : NULL; an; an = an->next) {
      const cJSON *samplers = get_array(an, "samplers");
      for (const cJSON *sm = samplers ? samplers->child : NULL; sm; sm = sm->next) {
        USE(sm, "input");
        USE(sm, "output");
      }
    }
#undef USE
    free(mused);
  }
  i = 0;
  for (const cJSON *a = accessors ? accessors->child : NULL; a; a = a->next, i++) {
    double count, bv, ct = 5120, off, vlen;
    acount[i] = -1;
    if (!get_uint(a, "count", &count)) continue; /* assimp refuses it when used */
    acount[i] = count;
    if (!used[i]) continue;
    if (count > JL_MAX_MESH_ELEMENTS) {
      res = jl_fail(err, errsz, JL_ERR_INPUT,
                    "%s: glTF accessor %d promises %.0f elements, more than the %d element limit", path, i, count,
                    JL_MAX_MESH_ELEMENTS);
      goto screened;
    }
    const cJSON *ctj = cJSON_GetObjectItemCaseSensitive(a, "componentType");
    if (cJSON_IsNumber(ctj)) ct = ctj->valuedouble;
    int csize = (ct == 5120 || ct == 5121) ? 1 : (ct == 5122 || ct == 5123) ? 2 : (ct == 5125 || ct == 5126) ? 4 : 0;
    if (!csize) continue; /* assimp refuses it when it sizes it */
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(a, "type");
    static const char *const tname[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    static const int tcomp[] = {1, 2, 3, 4, 4, 9, 16};
    int ncomp = 1;
    for (int k = 0; k < 7; k++)
      if (cJSON_IsString(ty) && ty->valuestring && strcmp(ty->valuestring, tname[k]) == 0) ncomp = tcomp[k];
    double elem = (double)ncomp * csize, aoff = get_size(a, "byteOffset", 0);
    if (get_uint(a, "bufferView", &bv) && bv < nview) {
      VIEW((int)bv, off, vlen);
      if (vlen >= 0 && aoff + count * elem > vlen) {
        res = jl_fail(err, errsz, JL_ERR_INPUT,
                      "%s: glTF accessor %d needs %.0f bytes (%.0f elements of %.0f bytes from byte %.0f) of "
                      "bufferView %d, which has %.0f",
                      path, i, aoff + count * elem, count, elem, aoff, (int)bv, vlen);
        goto screened;
      }
    }
    const cJSON *sparse = get_object(a, "sparse");
    if (!sparse) continue;
    if (!get_uint(a, "bufferView", &bv) && count * elem > (double)JL_GLTF_MAX_ZERO_MB * 1048576.0) {
      res = jl_fail(err, errsz, JL_ERR_INPUT,
                    "%s: glTF sparse accessor %d has no bufferView: %.0f bytes of zeros (%.0f x %.0f), more than "
                    "the %d MB limit",
                    path, i, count * elem, count, elem, JL_GLTF_MAX_ZERO_MB);
      goto screened;
    }
    double sc = get_size(sparse, "count", 0);
    if (sc > JL_MAX_MESH_ELEMENTS) {
      res = jl_fail(err, errsz, JL_ERR_INPUT,
                    "%s: glTF sparse accessor %d promises %.0f elements, more than the %d element limit", path, i, sc,
                    JL_MAX_MESH_ELEMENTS);
      goto screened;
    }
    const cJSON *part[2] = {get_object(sparse, "indices"), get_object(sparse, "values")};
    for (int k = 0; k < 2; k++) {
      if (!part[k] || !get_uint(part[k], "bufferView", &bv) || bv >= nview) continue;
      double ict = 5120, pe = elem;
      if (k == 0) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(part[k], "componentType");
        if (cJSON_IsNumber(c)) ict = c->valuedouble;
        pe = (ict == 5121 || ict == 5120) ? 1 : (ict == 5123 || ict == 5122) ? 2 : 4;
      }
      double poff = get_size(part[k], "byteOffset", 0);
      VIEW((int)bv, off, vlen);
      if (vlen >= 0 && poff + sc * pe > vlen) {
        res = jl_fail(err, errsz, JL_ERR_INPUT,
                      "%s: glTF sparse accessor %d needs %.0f bytes of %s from bufferView %d, which has %.0f", path, i,
                      poff + sc * pe, k == 0 ? "indices" : "values", (int)bv, vlen);
        goto screened;
      }
    }
  }
#undef VIEW

  /* ---- meshes: triangles and primitives ---- */
  {
    const cJSON *meshes = get_array(doc, "meshes"), *skins = get_array(doc, "skins");
    const cJSON *nodes = get_array(doc, "nodes"), *scenes = get_array(doc, "scenes");
    int nmesh = cJSON_GetArraySize(meshes), nskin = cJSON_GetArraySize(skins), nnode = cJSON_GetArraySize(nodes);
    double *mtri = jl_calloc((size_t)nmesh + 1, sizeof(double)), *mprim = jl_calloc((size_t)nmesh + 1, sizeof(double));
    double *joints = jl_calloc((size_t)nskin + 1, sizeof(double));
    i = 0;
    for (const cJSON *m = meshes ? meshes->child : NULL; m; m = m->next, i++) {
      const cJSON *prims = get_array(m, "primitives");
      for (const cJSON *p = prims ? prims->child : NULL; p; p = p->next) {
        double mode = 4, ia, n = 0;
        const cJSON *mo = cJSON_GetObjectItemCaseSensitive(p, "mode");
        if (cJSON_IsNumber(mo)) mode = mo->valuedouble;
        const cJSON *attr = get_object(p, "attributes");
        if (get_uint(p, "indices", &ia) && ia < nacc && acount[(int)ia] >= 0)
          n = acount[(int)ia];
        else if (attr && get_uint(attr, "POSITION", &ia) && ia < nacc && acount[(int)ia] >= 0)
          n = acount[(int)ia];
        double t = mode == 4 ? floor(n / 3) : (mode == 5 || mode == 6) ? fmax(n - 2, 0) : 0;
        mtri[i] += t;
        mprim[i] += 1;
      }
    }
    i = 0;
    for (const cJSON *s = skins ? skins->child : NULL; s; s = s->next, i++) {
      const cJSON *j = get_array(s, "joints");
      double v;
      for (const cJSON *k = j ? j->child : NULL; k; k = k->next)
        if (item_uint(k, &v) && v < nnode) joints[i]++;
    }

    /* ---- the node graph ---- */
    int nedge = 0;
    for (const cJSON *nd = nodes ? nodes->child : NULL; nd; nd = nd->next)
      nedge += cJSON_GetArraySize(get_array(nd, "children"));
    int *from = jl_calloc((size_t)nedge + 1, sizeof(int)), *to = jl_calloc((size_t)nedge + 1, sizeof(int));
    double *own_inst = jl_calloc((size_t)nnode + 1, sizeof(double)),
           *own_tri = jl_calloc((size_t)nnode + 1, sizeof(double));
    int e = 0;
    i = 0;
    for (const cJSON *nd = nodes ? nodes->child : NULL; nd; nd = nd->next, i++) {
      double c, mi, si;
      const cJSON *ch = get_array(nd, "children");
      for (const cJSON *k = ch ? ch->child : NULL; k; k = k->next)
        if (item_uint(k, &c) && c < nnode) from[e] = i, to[e++] = (int)c;
      own_inst[i] = 1;
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(nd, "extras");
      if (x) own_inst[i] += count_values(x);
      x = cJSON_GetObjectItemCaseSensitive(nd, "extensions");
      if (cJSON_IsObject(x)) own_inst[i] += count_values(x);
      if (get_uint(nd, "mesh", &mi) && mi < nmesh) {
        own_tri[i] = mtri[(int)mi];
        if (get_uint(nd, "skin", &si) && si < nskin) own_inst[i] += joints[(int)si] * mprim[(int)mi];
      }
    }
    JlGraph g = {nnode, e, from, to, own_inst, own_tri};
    JlExpansion ex;
    jl_graph_expand(&g, NULL, -1, &ex);
    if (ex.cycle >= 0) {
      res =
          jl_fail(err, errsz, JL_ERR_INPUT, "%s: glTF node %d ('%.64s') is its own ancestor (a cycle through children)",
                  path, ex.cycle, node_name(cJSON_GetArrayItem(nodes, ex.cycle)));
    } else {
      int deepest = -1;
      for (int v = 0; v < nnode; v++)
        if (deepest < 0 || ex.depth[v] > ex.depth[deepest]) deepest = v;
      if (deepest >= 0 && ex.depth[deepest] > JL_MAX_NODE_DEPTH) {
        res = jl_fail(err, errsz, JL_ERR_INPUT,
                      "%s: glTF nodes nest %d levels deep below node %d ('%.64s'), more than the %d level limit", path,
                      ex.depth[deepest], deepest, node_name(cJSON_GetArrayItem(nodes, deepest)), JL_MAX_NODE_DEPTH);
      } else {
        /* the scene assimp imports: "scene" (default 0) if it exists; its root nodes, a fake root over several */
        double sc = 0, inst = 0, tri = 0, r;
        get_uint(doc, "scene", &sc);
        const cJSON *scene = sc < cJSON_GetArraySize(scenes) ? cJSON_GetArrayItem(scenes, (int)sc) : NULL;
        const cJSON *roots = scene ? get_array(scene, "nodes") : NULL;
        int nroot = 0;
        for (const cJSON *k = roots ? roots->child : NULL; k; k = k->next)
          if (item_uint(k, &r) && r < nnode) {
            inst = fmin(inst + ex.inst[(int)r], 1e30);
            tri = fmin(tri + ex.tri[(int)r], 1e30);
            nroot++;
          }
        if (nroot > 1) inst += 1;
        /* triangles the file holds: each mesh a node uses, once (their accessors were checked) */
        double held = 0, mi;
        unsigned char *counted = jl_calloc((size_t)nmesh + 1, 1);
        for (const cJSON *nd = nodes ? nodes->child : NULL; nd; nd = nd->next)
          if (get_uint(nd, "mesh", &mi) && mi < nmesh && !counted[(int)mi]) counted[(int)mi] = 1, held += mtri[(int)mi];
        free(counted);
        res = jl_screen_expansion(path, "the glTF node graph", inst, tri, held, err, errsz);
      }
    }
    jl_expansion_free(&ex);
    JL_FREE_ALL(from, to, own_inst, own_tri, mtri, mprim, joints);
  }
screened:
  JL_FREE_ALL(used, view, blen, acount);
done:
  free(buf);
  cJSON_Delete(doc);
  return res;
}
