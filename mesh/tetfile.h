/* Tet meshes made by other tools (TetGen, Gmsh, fTetWild, VTK, meshio,
 * ParaView) loaded as they are, without re-tetrahedralizing a surface.
 *
 * Formats, picked by the file's extension (jl_tetfile_is_volume):
 *   .node/.ele  TetGen: the .node and .ele of the same stem, 0- or 1-based
 *               (from the first index of the .node), attributes and boundary
 *               markers skipped, '#' comments; 10-node tets use their corners;
 *   .msh        Gmsh 2.2 and 4.1, ASCII and binary: 4-node tets (type 4),
 *               other elements skipped with a note; node tags may be sparse;
 *   .vtk        VTK legacy unstructured grid, ASCII or BINARY (big-endian),
 *               the "CELLS n size" layout and the 5.1 OFFSETS/CONNECTIVITY one;
 *   .vtu        VTK XML unstructured grid, ascii, binary (base64) or appended
 *               (raw or base64), UInt32 or UInt64 headers, with or without
 *               vtkZLibDataCompressor.
 * In VTK files tetra cells (type 10) are kept, others skipped with a note.
 *
 * The parsers are hand-written and run in this process (no library for these
 * formats is in Debian without pulling in a GUI toolkit, docs/robustness.md):
 * the file is read whole after the size check (--mesh-max-file), every count
 * is checked against the bytes left in the file and against the caps below
 * before anything is allocated for it, and every error names the file and a
 * line (text) or byte offset (binary). Then the tets are validated the same
 * way for every format: node indices in range, no node twice in a tet,
 * finite coordinates, no zero-volume tet (errors); tets of negative volume
 * are flipped and nodes no tet uses dropped (notes). */
#ifndef JL_MESH_TETFILE_H
#define JL_MESH_TETFILE_H

#include "mesh/tetmesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most nodes and tets (and other elements) a tet-mesh file may declare. */
#define JL_TETFILE_MAX_NODES 20000000
#define JL_TETFILE_MAX_CELLS 50000000

/* Notes about a loaded file: what was skipped or repaired. */
#define JL_TETFILE_MAX_NOTES 8
typedef struct JlTetFileReport {
  int nnode_file; /* nodes in the file */
  int ntet_file;  /* tets in the file */
  int nflipped;   /* tets of negative volume whose orientation was reversed */
  int nunused;    /* nodes no tet uses, dropped */
  int nskipped;   /* elements that are not 4-node tets, skipped */
  int nnote;
  char note[JL_TETFILE_MAX_NOTES][240]; /* one sentence each, e.g. "12 triangles skipped" */
} JlTetFileReport;

/* 1 when path's extension says it is a tet mesh: .node, .ele, .msh, .vtk,
 * .vtu (case-insensitive); 0 otherwise (a surface for jl_surface_load). */
int jl_tetfile_is_volume(const char *path);

/* Loads a tet mesh file into out (topology computed, nodes reordered along a
 * Hilbert curve, fill NULL; free with jl_tetmesh_free). rep may be NULL.
 * Fails with JL_ERR_INPUT and a message naming the file and the line or
 * byte offset ("m.msh: line 12: element 7 has node tag 99 which is not in
 * $Nodes"); out is then empty. Never crashes, hangs or allocates more than
 * the file's size and the caps above allow, whatever the file holds. */
JlResult jl_tetfile_load(const char *path, JlTetMesh *out, JlTetFileReport *rep, char *err, size_t errsz);

/* The same on a file's bytes in memory: name is used in messages and its
 * extension picks the format (a .node's .ele is read from the file system). */
JlResult jl_tetfile_parse(const char *name, const unsigned char *data, size_t size, JlTetMesh *out,
                          JlTetFileReport *rep, char *err, size_t errsz);

/* The boundary of t (t->face, outward) as a surface: the boundary nodes, in
 * node order, and the faces renumbered to them. Its vertices are tet nodes,
 * so it embeds exactly (weight 1 on its node). */
void jl_tetmesh_boundary_surface(const JlTetMesh *t, JlSurface *s);

/* Plausibility of a loaded tet mesh as a body (docs/robustness.md): its
 * extent (the bounding box's diagonal, in the file's units) and the tets
 * that overlap others. In a valid mesh a tet's centre lies in that tet only;
 * one whose centre lies strictly inside another tet belongs to a second copy
 * of a region (tets sharing no node with the first: nothing else catches
 * them), whose volume and mass would count twice. Tets are found through a
 * uniform grid (mesh/grid.h): about the cost of reading the file. */
typedef struct JlTetPlausibility {
  double lo[3], hi[3]; /* bounding box, units of the file */
  double extent;       /* its diagonal */
  int noverlap;        /* tets whose centre lies inside another tet */
  int first_overlap;   /* the first of them, or -1 */
  int other;           /* the tet its centre lies in, or -1 */
} JlTetPlausibility;
void jl_tetmesh_plausibility(const JlTetMesh *t, JlTetPlausibility *p);

/* the extent (m) of a body's placed mesh that scenes accept without
 * "plausibility_check": false */
#define JL_PLAUSIBLE_MIN_EXTENT 1e-4
#define JL_PLAUSIBLE_MAX_EXTENT 1e4

#ifdef __cplusplus
}
#endif
#endif
