/* Streaming screens of mesh files: what jl_surface_load checks in its own
 * process before the importer child starts (docs/robustness.md, "Before the
 * importer: screens").
 *
 * assimp 5.2 allocates whatever a file promises: element counts in headers
 * (OFF, PLY, .x, Collada arrays), chunk lengths (.glb), and node graphs whose
 * shared nodes it copies once per path (glTF, Collada instance_node): a few
 * KB can cost the importer child gigabytes before its memory limit ends it,
 * and a node that is its own ancestor or nests thousands of levels deep
 * crashes it. The screens find those promises in the file, streaming it
 * (a 64 KB window; a glTF JSON is read whole up to JL_GLTF_MAX_JSON_MB), and
 * refuse the file with JL_ERR_INPUT and a message naming it, the element and
 * the limit. They decide the format the way assimp does (mesh/screen.c,
 * sniff) and never allocate in proportion to a count a file claims, only to
 * what it holds (nodes, references), itself capped. */
#ifndef JL_MESH_SCREEN_H
#define JL_MESH_SCREEN_H

#include <stdint.h>
#include <stdio.h>

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Node instances a glTF or Collada node graph may expand to: assimp builds a
 * tree, copying a node reached through several parents once per path (with
 * its per-instance metadata, bones, lights and cameras, each counted as one
 * more instance), about 1 KB each. */
#define JL_MAX_NODE_INSTANCES 1000000
/* Levels of node nesting (glTF children, Collada <node> elements and
 * instance_node chains): assimp recurses once per level and crashed between
 * 5 000 and 20 000 levels. */
#define JL_MAX_NODE_DEPTH 1000
/* Mesh-instance triangles a node graph may expand to beyond what its meshes
 * hold (each mesh counted once): the child merges and welds every instance
 * and the parent validates them, about 1.6 us and 130 bytes per triangle
 * (13 million: 21 s, 1.7 GB), and no surface of that size is worth
 * tetrahedralizing. */
#define JL_MAX_INSTANCE_TRIANGLES 10000000
/* Least importer memory per mesh-instance triangle: the child merges every
 * instance into one soup (72 bytes of corner positions) and welds it (36
 * bytes of indices) before anything else; so instanced triangles x this must
 * fit --mesh-memory, besides JL_MAX_MESH_ELEMENTS. */
#define JL_SCREEN_TRIANGLE_BYTES 108
/* glTF: the JSON (a .gltf file, a .glb JSON chunk) is read whole and parsed
 * with cJSON, so it is capped in size and in values (each costs cJSON about
 * 64 bytes). */
#define JL_GLTF_MAX_JSON_MB     64
#define JL_GLTF_MAX_JSON_VALUES 4000000
/* glTF: an accessor without a bufferView that assimp fills with zeros (a
 * sparse accessor) may hold at most this many bytes. */
#define JL_GLTF_MAX_ZERO_MB 256
/* Collada: element nesting the XML scanner follows, and nodes plus node,
 * geometry and controller references it keeps (about 150 bytes each with
 * the lookups of the evaluation). */
#define JL_XML_MAX_DEPTH 10000
#define JL_DAE_MAX_ITEMS 2000000

/* Screens `path` (a regular file of `size` bytes, already within the file
 * size limit): sniffs its format as assimp would and runs that format's
 * screen. JL_OK, or JL_ERR_INPUT with a message in err. */
JlResult jl_mesh_screen(const char *path, unsigned long long size, char *err, size_t errsz);

/* 1 when s ends with suffix, ASCII case-insensitive (file extensions) */
int jl_ends_with_ci(const char *s, const char *suffix);

/* ---- shared by mesh/screen*.c ------------------------------------------------ */

/* Streaming reader: a 64 KB window over the file; counts the bytes consumed. */
typedef struct JlReader {
  FILE *f;
  size_t pos, len;
  unsigned long long consumed;
  unsigned char buf[65536];
} JlReader;

int jl_rd_getc(JlReader *r);
/* the byte k ahead (k < 64) without consuming anything (EOF past the end) */
int jl_rd_peek_at(JlReader *r, size_t k);
int jl_rd_peek(JlReader *r);

/* 64-bit FNV-1a, for ids compared by hash (docs/robustness.md) */
#define JL_HASH_INIT 1469598103934665603ull
static inline uint64_t jl_hash_byte(uint64_t h, unsigned char c) { return (h ^ c) * 1099511628211ull; }

/* A node graph to expand: n nodes, edges from[k] -> to[k] (parent to child,
 * repeated edges counted as often as they appear), per node its own cost in
 * instances (>= 1) and triangles. */
typedef struct JlGraph {
  int n, nedge;
  const int *from, *to;
  const double *own_inst, *own_tri;
} JlGraph;

typedef struct JlExpansion {
  double *inst; /* n: instances of the subtree below each node, as assimp copies it */
  double *tri;  /* n: mesh-instance triangles of that subtree */
  int *depth;   /* n: levels from the node down to its deepest descendant (1 for a leaf) */
  int cycle;    /* a node that is its own ancestor, or -1 */
  int visited;  /* nodes reached */
} JlExpansion;

/* Memoized expansion of the subgraphs reached from the given start nodes
 * (all nodes when nstart < 0), iteratively (no recursion on hostile depth),
 * in time and memory linear in nodes + edges. Counts saturate at 1e30.
 * Stops at the first cycle (ex->cycle). Free with jl_expansion_free. */
void jl_graph_expand(const JlGraph *g, const int *start, int nstart, JlExpansion *ex);
void jl_expansion_free(JlExpansion *ex);

/* Refuses instances / triangles beyond the caps (message "<path>: <what>
 * expands to ..."); `held` is the triangles of the file's meshes, each once
 * (instancing may not go beyond max(held, JL_MAX_INSTANCE_TRIANGLES)). */
JlResult jl_screen_expansion(const char *path, const char *what, double instances, double triangles, double held,
                             char *err, size_t errsz);

/* Format screens (mesh/screen_gltf.c, mesh/screen_dae.c). */
typedef enum JlGltfKind { JL_GLTF_NOT, JL_GLTF_1, JL_GLTF_2 } JlGltfKind;
/* glTF 2.0 (binary: a .glb). Sets *kind to what assimp's glTF importers
 * would make of the file (JL_GLTF_NOT: neither reads it; JL_GLTF_1: the
 * glTF 1.0 importer, not screened further) and screens a glTF 2.0 file. */
JlResult jl_screen_gltf(const char *path, FILE *f, unsigned long long size, int binary, JlGltfKind *kind, char *err,
                        size_t errsz);
/* Collada XML (.dae). */
JlResult jl_screen_dae(const char *path, FILE *f, unsigned long long size, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
