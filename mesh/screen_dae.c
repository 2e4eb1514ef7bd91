/* Collada screen (screen.h): the XML streamed through a small tag scanner
 * (no XML library), following what assimp 5.2.5's ColladaParser and
 * ColladaLoader read and allocate.
 *
 * Method. The scanner reads the file as pugixml does for assimp
 * (load_string: up to the first NUL; comments, CDATA, processing
 * instructions and DOCTYPE skipped; entities decoded in attribute values and
 * text; whitespace in attribute values as spaces) and keeps a stack of the
 * open elements' roles (1 byte of meaning each, JL_XML_MAX_DEPTH levels).
 * A file pugixml would refuse (an unclosed element, a malformed tag) is left
 * to the importer, which refuses it too. It collects:
 *  - the node graph: <visual_scene>s and <node>s, as ReadSceneNode does
 *    (direct <node> children of a scene, a node or <library_nodes>), their
 *    ids and names (as 64-bit hashes; a collision can only make the screen
 *    disagree with assimp, which the child's limits then cover), child
 *    edges, and references: <instance_node url="#id"> (resolved as
 *    ResolveNodeInstances does: the node library, the last scene or
 *    top-level library node with that id, else the first node of the scene
 *    tree whose name or id it is), <instance_geometry> and
 *    <instance_controller> (a geometry, first of its id, or a controller,
 *    last of its id, and its skin's or morph's source), <instance_light>
 *    and <instance_camera> (copied per node instance: one more instance each);
 *  - the scene: the first <instance_visual_scene>, resolved where it stands;
 *  - sizes: count attributes of <float_array>, <IDREF_array>, <Name_array>,
 *    of primitives (<triangles>, <polylist> ...) and of <vertex_weights>,
 *    and the sum of a <vertex_weights>' <vcount> (which assimp resizes
 *    arrays to): within JL_MAX_MESH_ELEMENTS and the bytes left in the file
 *    at 2 per element; and every primitive's <p> indices, which give its
 *    triangles (indices / inputs per vertex, / 3 for <triangles>) and must
 *    be integers: any other character makes assimp's index loop push zeros
 *    forever (one letter in a 1 KB file filled 8 GB).
 * Then the expansion from the scene (screen.c: jl_graph_expand): no node its
 * own ancestor (assimp recurses into it until its stack overflows), at most
 * JL_MAX_NODE_DEPTH levels of <node> nesting and of instancing, and node
 * instances and mesh-instance triangles within jl_screen_expansion's caps.
 * Memory: about 150 bytes per node or reference, at most JL_DAE_MAX_ITEMS;
 * time linear in the file (ids are looked up in sorted arrays). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/child.h"
#include "mesh/screen.h"

/* ---- pugixml's string_to_integer, fed one decoded character at a time ---- */

typedef struct IntParse {
  int state; /* 0 spaces, 1 after sign, 2 after "0", 3 hex digits, 4 decimal digits, 5 done */
  int neg, hex;
  unsigned digits;
  uint64_t value; /* saturates */
} IntParse;

static void int_feed(IntParse *p, int c) {
  for (;;) switch (p->state) {
      case 0:
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') return;
        p->state = 1;
        if (c == '-' || c == '+') {
          p->neg = c == '-';
          return;
        }
        continue;
      case 1: /* "0x" prefix? */
        if (c == '0') {
          p->state = 2;
          return;
        }
        p->state = 4;
        continue;
      case 2:
        if ((c | ' ') == 'x') {
          p->hex = 1, p->state = 3;
          return;
        }
        p->state = 4;
        continue;
      case 3:
      case 4: {
        int d = -1;
        if (c >= '0' && c <= '9')
          d = c - '0';
        else if (p->state == 3 && (c | ' ') >= 'a' && (c | ' ') <= 'f')
          d = (c | ' ') - 'a' + 10;
        if (d < 0) {
          p->state = 5;
          return;
        }
        if (p->value == 0 && d == 0) return; /* leading zeros are not digits */
        p->digits++;
        if (p->value < (1ull << 40)) p->value = p->value * (p->state == 3 ? 16 : 10) + (uint64_t)d;
        return;
      }
      default:
        return;
    }
}
/* as_uint (signed 0: unsigned, clamped to [0, UINT_MAX]) or as_int
 * ([INT_MIN, INT_MAX]); returned in a double */
static double int_value(const IntParse *p, int is_signed) {
  int over = p->hex ? p->digits > 8 : p->digits > 10;
  double v = over ? 1e300 : (double)p->value;
  if (!is_signed) return p->neg ? 0 : fmin(v, 4294967295.0);
  if (p->neg) return v > 2147483648.0 ? -2147483648.0 : -v;
  return fmin(v, 2147483647.0);
}

/* ---- the collection ---------------------------------------------------------- */

typedef struct DNode {
  uint64_t id, name;
  long long at; /* file offset of the id attribute's value (-1: none), for messages */
  int parent;   /* graph parent (-1: a scene or a library node) */
  int end;      /* one past the last node of its subtree */
  int extra;    /* lights and cameras copied per instance */
  int lib;      /* in the node library (a scene or a top-level library node) */
} DNode;
typedef struct Ref {
  int node;
  uint64_t key;
} Ref;
typedef struct Geom {
  uint64_t id;
  int order;
  double tri;
} Geom;
typedef struct Ctrl {
  uint64_t id, mesh;
  int order;
} Ctrl;
typedef struct Key {
  uint64_t key;
  int node;
} Key;

enum {
  R_OTHER,
  R_COLLADA,
  R_LIBNODES,
  R_LIBVS,
  R_LIBGEOM,
  R_LIBCTRL,
  R_SCENE,
  R_GNODE,
  R_GEOM,
  R_MESH,
  R_PRIM,
  R_P,
  R_CTRL,
  R_VW,
  R_VCOUNT
};

typedef struct Frame {
  unsigned char role;
  int node; /* R_GNODE: its graph node */
} Frame;

typedef struct Dae {
  const char *path;
  char *err;
  size_t errsz;
  JlReader *r;
  unsigned long long size;
  JlResult res;
  int stop; /* 1: refused (res set), 2: assimp refuses the file: nothing more to screen */
  /* the element stack, and how many open elements have each role */
  Frame *stack;
  int depth, collada_seen, open[R_VCOUNT + 1];
  /* the open geometry and controller (-1: none); open <node> levels and their maximum */
  int cur_geom, cur_ctrl, node_depth, max_node_depth;
  /* the primitive being read */
  int prim_type; /* 0 triangles, 1 lines/linestrips (no triangles), 2 polygon kinds */
  double prim_count, prim_offsets;
  /* text of a <p> or <vcount>: 0 none yet, 1 in it, 2 done */
  int text_state;
  double items;
  int item_prev; /* 0 separator, 1 sign, 2 digits */
  uint32_t vc_value;
  double vc_sum, vc_left; /* vcount: values still to read */
  int vc_stuck;
  /* collections */
  DNode *node;
  int nnode, capnode;
  Ref *inst, *geomref;
  int ninst, capinst, ngeomref, capgeomref;
  Geom *geom;
  int ngeom, capgeom;
  Ctrl *ctrl;
  int nctrl, capctrl;
  int root, scene_seen;
  long long items_total;
} Dae;

#define GROW(arr, n, cap)                                      \
  do {                                                         \
    if ((n) == (cap)) {                                        \
      (cap) = (cap) ? 2 * (cap) : 256;                         \
      (arr) = jl_realloc((arr), (size_t)(cap), sizeof *(arr)); \
    }                                                          \
  } while (0)

static int too_many(Dae *d) {
  if (++d->items_total <= JL_DAE_MAX_ITEMS) return 0;
  d->res =
      jl_fail(d->err, d->errsz, JL_ERR_INPUT,
              "%s: Collada file has more than %d nodes and references, too many to check", d->path, JL_DAE_MAX_ITEMS);
  d->stop = 1;
  return 1;
}

static unsigned long long left(const Dae *d) { return d->size - d->r->consumed; }

/* count attribute check: within the element cap and 2 bytes per element */
static void check_count(Dae *d, const char *elem, double count, const char *what) {
  if (d->stop || count <= 0) return;
  if (count > JL_MAX_MESH_ELEMENTS)
    d->res =
        jl_fail(d->err, d->errsz, JL_ERR_INPUT, "%s: Collada <%s> promises %.0f %s, more than the %d element limit",
                d->path, elem, count, what, JL_MAX_MESH_ELEMENTS);
  else if (2.0 * count > (double)left(d) + 1)
    d->res = jl_fail(d->err, d->errsz, JL_ERR_INPUT,
                     "%s: Collada <%s> promises %.0f %s, more than the %llu bytes left in the file hold (2 bytes each "
                     "at least)",
                     d->path, elem, count, what, left(d));
  else
    return;
  d->stop = 1;
}

/* ---- text of <p> and <vcount> -------------------------------------------------- */

static void text_char(Dae *d, int c) {
  if (d->stop || d->text_state == 2) return;
  Frame *top = &d->stack[d->depth - 1];
  if (top->role != R_P && top->role != R_VCOUNT) return;
  if (c == 0) { /* an entity decoded to NUL: assimp's C string ends here */
    d->text_state = 2;
    return;
  }
  int ws = c == ' ' || c == '\t' || c == '\r' || c == '\n';
  if (!ws) d->text_state = 1; /* pugixml keeps no text node of blanks only */
  if (top->role == R_P) {
    /* ColladaParser::ReadPrimitives: strtol10 then SkipSpacesAndLineEnd, one index per turn */
    if (ws)
      d->item_prev = 0;
    else if (c == '-' || c == '+')
      d->items++, d->item_prev = 1;
    else if (c >= '0' && c <= '9') {
      if (d->item_prev == 0) d->items++;
      d->item_prev = 2;
    } else {
      d->res = jl_fail(d->err, d->errsz, JL_ERR_INPUT,
                       "%s: Collada <p> indices contain '%c' (byte %d): assimp would read zeros forever", d->path,
                       c >= 32 && c < 127 ? c : '?', c & 255);
      d->stop = 1;
    }
    return;
  }
  /* <vcount> of <vertex_weights>: the first `count` numbers (strtoul10, 32-bit) */
  if (d->vc_stuck || d->vc_left <= 0) return;
  if (c >= '0' && c <= '9') {
    d->vc_value = d->vc_value * 10u + (uint32_t)(c - '0');
    d->item_prev = 2;
  } else if (ws) {
    if (d->item_prev == 2) d->vc_sum += d->vc_value, d->vc_left--;
    d->vc_value = 0;
    d->item_prev = 0;
  } else
    d->vc_stuck = 1; /* assimp reads zeros from here on */
}

/* the end of a text run (markup follows): the first text node of the
 * element is complete once it had content */
static void text_break(Dae *d) {
  if (d->text_state == 1) d->text_state = 2;
}

static void text_end(Dae *d) {
  /* closing a <p> or <vcount> */
  Frame *top = &d->stack[d->depth - 1];
  if (top->role == R_P) {
    double per = d->prim_offsets > 0 ? d->prim_offsets : 1;
    double t = d->prim_type == 0 ? floor(d->items / (3 * per)) : d->prim_type == 1 ? 0 : floor(d->items / per);
    if (d->cur_geom >= 0) d->geom[d->cur_geom].tri += t;
  } else if (top->role == R_VCOUNT && !d->stop) {
    if (d->item_prev == 2 && d->vc_left > 0 && !d->vc_stuck) d->vc_sum += d->vc_value;
    check_count(d, "vcount", d->vc_sum, "vertex weights (the sum of its counts)");
  }
}

/* ---- attributes ----------------------------------------------------------------- */

typedef struct Attr {
  int present;
  uint64_t hash, hash1; /* of the decoded value; of it without its first byte */
  size_t len;
  char pre[40];
  long long at;
  IntParse num;
} Attr;

enum { A_ID, A_NAME, A_URL, A_SOURCE, A_COUNT, A_OFFSET, A_SEMANTIC, A_N };
static const char *const attr_names[A_N] = {"id", "name", "url", "source", "count", "offset", "semantic"};

static void attr_byte(Attr *a, int c) {
  if (!a) return;
  a->hash = jl_hash_byte(a->hash, (unsigned char)c);
  if (a->len > 0) a->hash1 = jl_hash_byte(a->hash1, (unsigned char)c);
  if (a->len + 1 < sizeof a->pre) a->pre[a->len] = (char)c, a->pre[a->len + 1] = '\0';
  a->len++;
  int_feed(&a->num, c);
}

/* an entity after '&' (pugixml strconv_escape); emits the decoded bytes, or
 * the '&' itself when it is none */
static void decode_entity(Dae *d, void (*emit)(Dae *, void *, int), void *ctx) {
  JlReader *r = d->r;
  static const struct {
    const char *name;
    char c;
  } named[] = {{"amp;", '&'}, {"apos;", '\''}, {"gt;", '>'}, {"lt;", '<'}, {"quot;", '"'}};
  for (size_t k = 0; k < 5; k++) {
    size_t n = strlen(named[k].name), i = 0;
    while (i < n && jl_rd_peek_at(r, i) == (unsigned char)named[k].name[i]) i++;
    if (i == n) {
      for (i = 0; i < n; i++) jl_rd_getc(r);
      emit(d, ctx, named[k].c);
      return;
    }
  }
  if (jl_rd_peek_at(r, 0) == '#') {
    int hex = jl_rd_peek_at(r, 1) == 'x';
    size_t i = hex ? 2 : 1;
    uint32_t ucs = 0;
    int c;
    for (; i < 60; i++) {
      c = jl_rd_peek_at(r, i);
      if (c >= '0' && c <= '9')
        ucs = ucs * (hex ? 16u : 10u) + (uint32_t)(c - '0');
      else if (hex && (c | ' ') >= 'a' && (c | ' ') <= 'f')
        ucs = ucs * 16u + (uint32_t)((c | ' ') - 'a' + 10);
      else
        break;
    }
    if (i < 60 && c == ';') {
      for (size_t k = 0; k <= i; k++) jl_rd_getc(r);
      /* UTF-8, as pugixml writes it */
      if (ucs < 0x80)
        emit(d, ctx, (int)ucs);
      else if (ucs < 0x800)
        emit(d, ctx, (int)(0xC0 | (ucs >> 6))), emit(d, ctx, (int)(0x80 | (ucs & 0x3F)));
      else if (ucs < 0x10000)
        emit(d, ctx, (int)(0xE0 | (ucs >> 12))), emit(d, ctx, (int)(0x80 | ((ucs >> 6) & 0x3F))),
            emit(d, ctx, (int)(0x80 | (ucs & 0x3F)));
      else
        emit(d, ctx, (int)(0xF0 | ((ucs >> 18) & 0x07))), emit(d, ctx, (int)(0x80 | ((ucs >> 12) & 0x3F))),
            emit(d, ctx, (int)(0x80 | ((ucs >> 6) & 0x3F))), emit(d, ctx, (int)(0x80 | (ucs & 0x3F)));
      return;
    }
  }
  emit(d, ctx, '&');
}

static void emit_attr(Dae *d, void *ctx, int c) {
  (void)d;
  attr_byte(ctx, c);
}
static void emit_text(Dae *d, void *ctx, int c) {
  (void)ctx;
  text_char(d, c);
}

static int is_name_start(int c) { return isalpha(c) || c == '_' || c == ':' || c >= 0x80; }
static int is_name_char(int c) { return is_name_start(c) || isdigit(c) || c == '-' || c == '.'; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* skips up to and including the terminator `end` (2 or 3 bytes); 0 at EOF/NUL */
static int skip_until(JlReader *r, const char *end) {
  size_t n = strlen(end), m = 0;
  int c;
  while ((c = jl_rd_getc(r)) != EOF && c != 0) {
    if (c == (unsigned char)end[m]) {
      if (++m == n) return 1;
    } else
      m = c == (unsigned char)end[0] ? 1 : 0;
  }
  return 0;
}

/* ---- elements -------------------------------------------------------------------- */

static int new_node(Dae *d, const Attr *a, int parent, int lib, int scene) {
  if (too_many(d)) return -1;
  GROW(d->node, d->nnode, d->capnode);
  DNode *n = &d->node[d->nnode];
  static const char scene_name[] = "Scene";
  uint64_t h = JL_HASH_INIT;
  n->id = a[A_ID].present ? a[A_ID].hash : JL_HASH_INIT;
  if (a[A_NAME].present)
    n->name = a[A_NAME].hash;
  else {
    if (scene)
      for (const char *s = scene_name; *s; s++) h = jl_hash_byte(h, (unsigned char)*s);
    n->name = h;
  }
  n->at = a[A_ID].present ? a[A_ID].at : -1;
  n->parent = parent;
  n->end = d->nnode + 1;
  n->extra = 0;
  n->lib = lib;
  return d->nnode++;
}

static void add_ref(Dae *d, Ref **arr, int *n, int *cap, int node, uint64_t key) {
  if (too_many(d)) return;
  GROW(*arr, *n, *cap);
  (*arr)[*n].node = node;
  (*arr)[(*n)++].key = key;
}

/* the latest library node (scene or top-level library node) with that id
 * among the first `limit` nodes; -1 */
static int lib_lookup(const Dae *d, uint64_t key, int limit) {
  int best = -1;
  for (int v = 0; v < limit && v < d->nnode; v++)
    if (d->node[v].lib && d->node[v].id == key) best = v;
  return best;
}

static void end_element(Dae *d);

static void start_element(Dae *d, const char *name, Attr *a, int empty) {
  Frame *parent = d->depth > 0 ? &d->stack[d->depth - 1] : NULL;
  int prole = parent ? parent->role : -1;
  Frame f = {R_OTHER, -1};
  int in_prim = d->open[R_PRIM] > 0, in_ctrl = d->open[R_CTRL] > 0, in_mesh = d->open[R_MESH] > 0;
  if (d->depth == 0) {
    if (strcmp(name, "COLLADA") == 0 && !d->collada_seen) f.role = R_COLLADA, d->collada_seen = 1;
  } else if (prole == R_COLLADA) {
    if (strcmp(name, "library_nodes") == 0)
      f.role = R_LIBNODES;
    else if (strcmp(name, "library_visual_scenes") == 0)
      f.role = R_LIBVS;
    else if (strcmp(name, "library_geometries") == 0)
      f.role = R_LIBGEOM;
    else if (strcmp(name, "library_controllers") == 0)
      f.role = R_LIBCTRL;
    else if (strcmp(name, "scene") == 0)
      f.role = R_SCENE;
  } else if (prole == R_LIBVS && strcmp(name, "visual_scene") == 0) {
    f.role = R_GNODE, f.node = new_node(d, a, -1, 1, 1);
  } else if ((prole == R_LIBNODES || prole == R_GNODE) && strcmp(name, "node") == 0) {
    f.role = R_GNODE;
    f.node = new_node(d, a, prole == R_GNODE ? parent->node : -1, prole == R_LIBNODES, 0);
  } else if (prole == R_GNODE && parent->node >= 0) {
    int v = parent->node;
    if (strcmp(name, "instance_node") == 0) {
      if (a[A_URL].present && a[A_URL].pre[0] == '#') add_ref(d, &d->inst, &d->ninst, &d->capinst, v, a[A_URL].hash1);
    } else if (strcmp(name, "instance_geometry") == 0 || strcmp(name, "instance_controller") == 0) {
      if (!a[A_URL].present || a[A_URL].pre[0] != '#')
        d->stop = 2; /* assimp throws */
      else
        add_ref(d, &d->geomref, &d->ngeomref, &d->capgeomref, v, a[A_URL].hash1);
    } else if (strcmp(name, "instance_light") == 0 || strcmp(name, "instance_camera") == 0) {
      if (a[A_URL].present) d->node[v].extra++;
    }
  } else if (prole == R_SCENE && strcmp(name, "instance_visual_scene") == 0) {
    if (d->scene_seen || !a[A_URL].present || a[A_URL].pre[0] != '#')
      d->stop = 2; /* assimp throws */
    else {
      d->scene_seen = 1;
      d->root = lib_lookup(d, a[A_URL].hash1, d->nnode);
      if (d->root < 0) d->stop = 2; /* "Unable to resolve visual_scene reference" */
    }
  } else if (prole == R_LIBGEOM && strcmp(name, "geometry") == 0) {
    if (!too_many(d)) {
      GROW(d->geom, d->ngeom, d->capgeom);
      d->geom[d->ngeom].id = a[A_ID].present ? a[A_ID].hash : JL_HASH_INIT;
      d->geom[d->ngeom].order = d->ngeom;
      d->geom[d->ngeom].tri = 0;
      f.role = R_GEOM;
      d->cur_geom = d->ngeom++;
    }
  } else if (prole == R_GEOM && strcmp(name, "mesh") == 0) {
    f.role = R_MESH;
  } else if (prole == R_LIBCTRL && strcmp(name, "controller") == 0) {
    if (a[A_ID].present && !too_many(d)) {
      GROW(d->ctrl, d->nctrl, d->capctrl);
      d->ctrl[d->nctrl].id = a[A_ID].hash;
      d->ctrl[d->nctrl].mesh = 0;
      d->ctrl[d->nctrl].order = d->nctrl;
      f.role = R_CTRL;
      d->cur_ctrl = d->nctrl++;
    }
  }
  if (d->stop) return;

  /* anywhere: sizes */
  if (strcmp(name, "float_array") == 0 || strcmp(name, "IDREF_array") == 0 || strcmp(name, "Name_array") == 0)
    check_count(d, name, a[A_COUNT].present ? int_value(&a[A_COUNT].num, 0) : 0, "values");
  if (f.role == R_OTHER && in_mesh) {
    static const char *const prims[] = {"triangles", "lines",   "linestrips", "polygons",
                                        "polylist",  "trifans", "tristrips"};
    for (int k = 0; k < 7; k++)
      if (strcmp(name, prims[k]) == 0) {
        f.role = R_PRIM;
        d->prim_type = k == 0 ? 0 : k <= 2 ? 1 : 2;
        d->prim_count = a[A_COUNT].present ? int_value(&a[A_COUNT].num, 0) : 0;
        d->prim_offsets = 1;
        check_count(d, name, d->prim_count, "primitives");
      }
  }
  if (f.role == R_OTHER && in_prim && strcmp(name, "input") == 0) {
    static const char *const sem[] = {"POSITION", "TEXCOORD",    "NORMAL",  "COLOR",     "VERTEX",
                                      "BINORMAL", "TEXBINORMAL", "TANGENT", "TEXTANGENT"};
    int valid = 0;
    for (int k = 0; k < 9; k++)
      if (a[A_SEMANTIC].present && a[A_SEMANTIC].len < sizeof a[A_SEMANTIC].pre &&
          strcmp(a[A_SEMANTIC].pre, sem[k]) == 0)
        valid = 1;
    if (valid && a[A_OFFSET].present) {
      double off = int_value(&a[A_OFFSET].num, 0);
      if (off + 1 > d->prim_offsets) d->prim_offsets = off + 1;
    }
  }
  if (f.role == R_OTHER && in_prim && strcmp(name, "p") == 0 && d->prim_count > 0) {
    f.role = R_P;
    d->text_state = 0, d->items = 0, d->item_prev = 0;
  }
  if (f.role == R_OTHER && in_ctrl) {
    Ctrl *c = &d->ctrl[d->cur_ctrl];
    if (strcmp(name, "skin") == 0 && a[A_SOURCE].present)
      c->mesh = a[A_SOURCE].hash1;
    else if (strcmp(name, "morph") == 0)
      c->mesh = a[A_SOURCE].present ? a[A_SOURCE].hash : JL_HASH_INIT;
    else if (strcmp(name, "vertex_weights") == 0) {
      f.role = R_VW;
      d->vc_left = a[A_COUNT].present ? int_value(&a[A_COUNT].num, 1) : 0;
      check_count(d, name, d->vc_left, "vertices");
    }
  }
  if (f.role == R_OTHER && prole == R_VW && strcmp(name, "vcount") == 0 && d->vc_left > 0) {
    f.role = R_VCOUNT;
    d->text_state = 0, d->item_prev = 0, d->vc_value = 0, d->vc_sum = 0, d->vc_stuck = 0;
  }
  if (d->stop) return;

  if (d->depth >= JL_XML_MAX_DEPTH) {
    d->res = jl_fail(d->err, d->errsz, JL_ERR_INPUT, "%s: Collada XML nests more than %d elements deep", d->path,
                     JL_XML_MAX_DEPTH);
    d->stop = 1;
    return;
  }
  d->stack[d->depth++] = f;
  d->open[f.role]++;
  if (f.role == R_GNODE && f.node >= 0 && ++d->node_depth > d->max_node_depth) {
    d->max_node_depth = d->node_depth;
    if (d->node_depth > JL_MAX_NODE_DEPTH) {
      /* ReadSceneNode recurses once per level, wherever the nodes are */
      d->res =
          jl_fail(d->err, d->errsz, JL_ERR_INPUT,
                  "%s: Collada <node> elements nest more than %d levels deep (the limit)", d->path, JL_MAX_NODE_DEPTH);
      d->stop = 1;
      return;
    }
  }
  if (empty) end_element(d); /* <x/> */
}

static void end_element(Dae *d) {
  if (d->depth == 0) {
    d->stop = 2; /* an end tag with nothing open: pugixml refuses the file */
    return;
  }
  Frame *f = &d->stack[d->depth - 1];
  if (f->role == R_P || f->role == R_VCOUNT) text_end(d);
  if (f->role == R_GNODE && f->node >= 0) {
    d->node[f->node].end = d->nnode;
    d->node_depth--;
  }
  if (f->role == R_GEOM) d->cur_geom = -1;
  if (f->role == R_CTRL) d->cur_ctrl = -1;
  d->open[f->role]--;
  d->depth--;
}

/* a start tag after '<' and its first name byte c */
static void read_start_tag(Dae *d, int c) {
  JlReader *r = d->r;
  char name[64];
  size_t n = 0;
  while (c != EOF && is_name_char(c)) {
    if (n + 1 < sizeof name) name[n++] = (char)c;
    c = jl_rd_getc(r);
  }
  name[n] = '\0';
  Attr a[A_N];
  memset(a, 0, sizeof a);
  int empty = 0;
  for (;;) {
    while (c != EOF && is_space(c)) c = jl_rd_getc(r);
    if (c == '>') break;
    if (c == '/') {
      if (jl_rd_getc(r) != '>') {
        d->stop = 2;
        return;
      }
      empty = 1;
      break;
    }
    if (c == EOF || c == 0 || !is_name_start(c)) {
      d->stop = 2;
      return;
    }
    char an[16];
    size_t m = 0;
    while (c != EOF && is_name_char(c)) {
      if (m + 1 < sizeof an)
        an[m++] = (char)c;
      else
        m = sizeof an; /* too long for any attribute we read */
      c = jl_rd_getc(r);
    }
    an[m < sizeof an ? m : 0] = '\0';
    while (c != EOF && is_space(c)) c = jl_rd_getc(r);
    if (c != '=') {
      d->stop = 2;
      return;
    }
    c = jl_rd_getc(r);
    while (c != EOF && is_space(c)) c = jl_rd_getc(r);
    if (c != '"' && c != '\'') {
      d->stop = 2;
      return;
    }
    int quote = c;
    Attr *t = NULL;
    for (int k = 0; k < A_N; k++)
      if (strcmp(an, attr_names[k]) == 0 && !a[k].present) t = &a[k];
    if (t) {
      t->present = 1, t->hash = t->hash1 = JL_HASH_INIT, t->at = (long long)r->consumed;
    }
    for (;;) {
      c = jl_rd_getc(r);
      if (c == EOF || c == 0) {
        d->stop = 2;
        return;
      }
      if (c == quote) break;
      if (c == '&')
        decode_entity(d, emit_attr, t);
      else if (c == '\r') { /* wconv: \r\n as one space */
        if (jl_rd_peek(r) == '\n') jl_rd_getc(r);
        attr_byte(t, ' ');
      } else
        attr_byte(t, (c == '\t' || c == '\n') ? ' ' : c);
    }
    c = jl_rd_getc(r);
    if (c != EOF && !is_space(c) && c != '/' && c != '>') {
      d->stop = 2;
      return;
    }
  }
  text_break(d);
  start_element(d, name, a, empty);
}

static void scan(Dae *d) {
  JlReader *r = d->r;
  int c;
  while (!d->stop && (c = jl_rd_getc(r)) != EOF && c != 0) {
    if (c != '<') {
      if (d->depth > 0) {
        if (c == '&')
          decode_entity(d, emit_text, NULL);
        else
          text_char(d, c);
      }
      continue;
    }
    c = jl_rd_getc(r);
    if (c == '!') {
      if (jl_rd_peek_at(r, 0) == '-' && jl_rd_peek_at(r, 1) == '-') {
        jl_rd_getc(r), jl_rd_getc(r);
        text_break(d);
        if (!skip_until(r, "-->")) d->stop = 2;
      } else if (jl_rd_peek_at(r, 0) == '[') {
        static const char cdata[] = "[CDATA[";
        for (size_t k = 0; k < 7; k++)
          if (jl_rd_getc(r) != cdata[k]) {
            d->stop = 2;
            break;
          }
        if (d->stop) break;
        /* CDATA is a text node of its own (even empty), taken literally */
        text_break(d);
        int mine = d->depth > 0 && (d->stack[d->depth - 1].role == R_P || d->stack[d->depth - 1].role == R_VCOUNT);
        if (mine && d->text_state == 0) d->text_state = 1;
        size_t m = 0;
        while (!d->stop && (c = jl_rd_getc(r)) != EOF && c != 0) {
          if (c == ']' && jl_rd_peek_at(r, 0) == ']' && jl_rd_peek_at(r, 1) == '>') {
            jl_rd_getc(r), jl_rd_getc(r);
            m = 1;
            break;
          }
          if (mine) text_char(d, c);
        }
        if (!m) d->stop = 2;
        if (mine) text_break(d);
      } else {
        /* DOCTYPE or another declaration: to its '>' outside brackets and quotes */
        int depth = 0, q = 0;
        while ((c = jl_rd_getc(r)) != EOF && c != 0) {
          if (q) {
            if (c == q) q = 0;
          } else if (c == '"' || c == '\'')
            q = c;
          else if (c == '[')
            depth++;
          else if (c == ']')
            depth--;
          else if (c == '>' && depth <= 0)
            break;
        }
        if (c != '>') d->stop = 2;
        text_break(d);
      }
    } else if (c == '?') {
      text_break(d);
      if (!skip_until(r, "?>")) d->stop = 2;
    } else if (c == '/') {
      while ((c = jl_rd_getc(r)) != EOF && c != 0 && c != '>') {
      }
      text_break(d);
      if (c != '>')
        d->stop = 2;
      else
        end_element(d);
    } else if (c != EOF && is_name_start(c)) {
      read_start_tag(d, c);
    } else
      d->stop = 2;
  }
  if (!d->stop && d->depth > 0) d->stop = 2; /* unclosed: pugixml refuses the file */
}

/* ---- the graph --------------------------------------------------------------------- */

static int cmp_key(const void *pa, const void *pb) {
  const Key *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->node > b->node) - (a->node < b->node);
}

/* first node >= lo with this key in a sorted array; -1 */
static int key_first(const Key *k, int n, uint64_t key, int lo) {
  int a = 0, b = n;
  while (a < b) {
    int m = a + (b - a) / 2;
    if (k[m].key < key || (k[m].key == key && k[m].node < lo))
      a = m + 1;
    else
      b = m;
  }
  return a < n && k[a].key == key ? k[a].node : -1;
}
/* last node with this key in a sorted array; -1 */
static int key_last(const Key *k, int n, uint64_t key) {
  int a = 0, b = n;
  while (a < b) {
    int m = a + (b - a) / 2;
    if (k[m].key <= key)
      a = m + 1;
    else
      b = m;
  }
  return a > 0 && k[a - 1].key == key ? k[a - 1].node : -1;
}

/* a node's id for messages: read back from the file */
static void node_label(const Dae *d, FILE *f, int v, char *out, size_t outsz) {
  snprintf(out, outsz, "#%d", v);
  if (v < 0 || v >= d->nnode || d->node[v].at < 0 || fseek(f, (long)d->node[v].at, SEEK_SET) != 0) return;
  char buf[65];
  size_t n = fread(buf, 1, 64, f), k = 0;
  while (k < n && buf[k] != '"' && buf[k] != '\'' && (unsigned char)buf[k] >= 32) k++;
  buf[k] = '\0';
  snprintf(out, outsz, "'%s'", buf);
}

static JlResult evaluate(Dae *d, FILE *f) {
  int n = d->nnode;
  /* library entries, and every node's id and name for FindNode */
  Key *lib = jl_calloc((size_t)n + 1, sizeof(Key)), *find = jl_calloc(2 * (size_t)n + 1, sizeof(Key));
  int nlib = 0, nfind = 0;
  for (int v = 0; v < n; v++) {
    if (d->node[v].lib) lib[nlib].key = d->node[v].id, lib[nlib++].node = v;
    find[nfind].key = d->node[v].id, find[nfind++].node = v;
    if (d->node[v].name != d->node[v].id) find[nfind].key = d->node[v].name, find[nfind++].node = v;
  }
  qsort(lib, (size_t)nlib, sizeof(Key), cmp_key);
  qsort(find, (size_t)nfind, sizeof(Key), cmp_key);
  /* geometries: the first of an id; controllers: the last */
  Key *gk = jl_calloc((size_t)d->ngeom + 1, sizeof(Key)), *ck = jl_calloc((size_t)d->nctrl + 1, sizeof(Key));
  for (int k = 0; k < d->ngeom; k++) gk[k].key = d->geom[k].id, gk[k].node = k;
  for (int k = 0; k < d->nctrl; k++) ck[k].key = d->ctrl[k].id, ck[k].node = k;
  qsort(gk, (size_t)d->ngeom, sizeof(Key), cmp_key);
  qsort(ck, (size_t)d->nctrl, sizeof(Key), cmp_key);

  int nedge = 0;
  int *from = jl_calloc((size_t)n + (size_t)d->ninst + 1, sizeof(int));
  int *to = jl_calloc((size_t)n + (size_t)d->ninst + 1, sizeof(int));
  double *own_inst = jl_calloc((size_t)n + 1, sizeof(double)), *own_tri = jl_calloc((size_t)n + 1, sizeof(double));
  for (int v = 0; v < n; v++) {
    own_inst[v] = 1 + d->node[v].extra;
    if (d->node[v].parent >= 0) from[nedge] = d->node[v].parent, to[nedge++] = v;
  }
  int root = d->root, root_end = d->node[root].end;
  for (int k = 0; k < d->ninst; k++) {
    int t = key_last(lib, nlib, d->inst[k].key);
    if (t < 0) {
      t = key_first(find, nfind, d->inst[k].key, root);
      if (t >= root_end) t = -1;
    }
    if (t >= 0) from[nedge] = d->inst[k].node, to[nedge++] = t;
  }
  for (int k = 0; k < d->ngeomref; k++) {
    uint64_t key = d->geomref[k].key;
    int g = key_first(gk, d->ngeom, key, 0);
    if (g < 0) {
      int c = key_last(ck, d->nctrl, key);
      if (c >= 0) g = key_first(gk, d->ngeom, d->ctrl[c].mesh, 0);
    }
    if (g >= 0) own_tri[d->geomref[k].node] = fmin(own_tri[d->geomref[k].node] + d->geom[g].tri, 1e30);
  }
  JlGraph g = {n, nedge, from, to, own_inst, own_tri};
  JlExpansion ex;
  jl_graph_expand(&g, &root, 1, &ex);
  JlResult res = JL_OK;
  char label[96];
  if (ex.cycle >= 0) {
    node_label(d, f, ex.cycle, label, sizeof label);
    res = jl_fail(d->err, d->errsz, JL_ERR_INPUT,
                  "%s: Collada node %s is its own ancestor (it instances itself through <instance_node>); assimp "
                  "would recurse until it crashes",
                  d->path, label);
  } else if (d->max_node_depth > JL_MAX_NODE_DEPTH || ex.depth[root] > JL_MAX_NODE_DEPTH) {
    res = jl_fail(d->err, d->errsz, JL_ERR_INPUT,
                  "%s: Collada nodes nest %d levels deep (with instance_node), more than the %d level limit", d->path,
                  d->max_node_depth > ex.depth[root] ? d->max_node_depth : ex.depth[root], JL_MAX_NODE_DEPTH);
  } else {
    double held = 0; /* each geometry once (the first of its id) */
    for (int k = 0; k < d->ngeom; k++)
      if (key_first(gk, d->ngeom, d->geom[k].id, 0) == k) held += d->geom[k].tri;
    res = jl_screen_expansion(d->path, "the Collada scene", ex.inst[root], ex.tri[root], held, d->err, d->errsz);
  }
  jl_expansion_free(&ex);
  JL_FREE_ALL(lib, find, gk, ck, from, to, own_inst, own_tri);
  return res;
}

JlResult jl_screen_dae(const char *path, FILE *f, unsigned long long size, char *err, size_t errsz) {
  Dae *d = jl_calloc(1, sizeof *d);
  d->path = path, d->err = err, d->errsz = errsz, d->size = size, d->res = JL_OK;
  d->r = jl_calloc(1, sizeof *d->r);
  d->r->f = f;
  d->stack = jl_calloc(JL_XML_MAX_DEPTH, sizeof(Frame));
  d->cur_geom = d->cur_ctrl = d->root = -1;
  rewind(f);
  scan(d);
  JlResult res = d->res;
  if (!d->stop && d->root >= 0) res = evaluate(d, f);
  JL_FREE_ALL(d->stack, d->node, d->inst, d->geomref, d->geom, d->ctrl, d->r, d);
  return res;
}
