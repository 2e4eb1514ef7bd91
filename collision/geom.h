/* The geometry collision/ reads: a read-only view of the bodies' rest shape
 * and topology, so collision/ depends on mesh/ only and never on the engine's
 * model (src/model.h). The layers are mesh/ <- collision/ <- src/
 * (docs/architecture.md, "Layers"; scripts/check_layers.sh).
 *
 * JlGeom holds sizes and pointers, nothing it owns. The engine's JlModel
 * keeps one filled in (src/model.h, jl_model_geom) whose pointers go only to
 * heap arrays the model owns, never into the JlModel struct itself, so a
 * model moved or copied by value still has a valid view. Anyone else can fill
 * one from their own arrays: every array is in the global node, tet, face and
 * spring numbering that JlModel uses. */
#ifndef JL_COLLISION_GEOM_H
#define JL_COLLISION_GEOM_H

#ifdef __cplusplus
extern "C" {
#endif

/* What a body is made of (scene "kind"; docs/scenes.md). Cloth and rope
 * bodies have no tets: their render surface is their nodes themselves
 * (src/model_cloth.h). Declared here rather than in src/model.h because
 * collision/ treats the kinds differently and may not include the engine. */
typedef enum JlBodyKind {
  JL_BODY_VOLUME, /* tet mesh, surface embedded barycentrically */
  JL_BODY_CLOTH,  /* triangle sheet: nodes = surface vertices */
  JL_BODY_ROPE,   /* chain of nodes: a rope or hair strand, drawn as a thick line */
  JL_BODY_KIND_COUNT
} JlBodyKind;

/* One body as collision/ sees it: ranges into the global numbering and the
 * few per-body settings and surfaces the finders read. */
typedef struct JlGeomBody {
  int node_begin, node_count;     /* global node range */
  int spring_begin, spring_count; /* global spring range */
  int tet_begin, tet_count;       /* global tet range */
  JlBodyKind kind;
  double radius;      /* m, contact half-thickness of cloth, rope radius; 0 for volumes */
  int self_collision; /* 1: the body collides with itself */
  /* the render surface's triangles, vertex ids local to the body (cloth: its
   * nodes; collision/thin.c reads them for cloth bodies only) */
  int ntri;
  const int *tri; /* ntri x 3 */
  /* a volume's render surface embedded in its tets (collision/thin.c): nembed
   * vertices, each in tet embed_tet[v] (local to the body) with barycentric
   * weights embed_weight[4 v .. 4 v + 3]; nembed 0 = no embedding */
  int nembed;
  const int *embed_tet;       /* nembed */
  const double *embed_weight; /* nembed x 4 */
} JlGeomBody;

typedef struct JlGeom {
  int nnode;
  const double *x0;     /* nnode x 3, m, rest (initial) positions */
  const int *node_body; /* nnode, body index */
  int ntet;
  const int *tet; /* ntet x 4, global node ids */
  int nface;
  const int *face;      /* nface x 3, boundary faces of all bodies, outward, body-contiguous */
  const int *adj_start; /* nnode + 1, node adjacency (CSR); NULL: no adjacency */
  const int *adj;       /* adj_start[nnode], global node ids */
  int nspring;
  const int *spring_node;           /* nspring x 2 */
  const double *spring_rest;        /* nspring, m */
  const unsigned char *spring_kind; /* nspring, JlSpringKind (mesh/cloth.h); NULL: all stretch springs */
  double gravity[3];                /* m/s^2: the finders' swept boxes allow for it over a step */
  int nbody;
  const JlGeomBody *body; /* nbody */
} JlGeom;

#ifdef __cplusplus
}
#endif
#endif
