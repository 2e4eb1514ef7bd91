/* What `jelly run`'s files share (src/cli/cli_run.c: flags and the run loop; src/cli/cli_run_frames.c:
 * the frame files; src/cli/cli_run_manifest.c: the output folder's manifest, which `jelly render`,
 * src/cli/cli_render.c, keeps too). */
#ifndef JL_CLI_CLI_RUN_INTERNAL_H
#define JL_CLI_CLI_RUN_INTERNAL_H

#include "src/output.h"
#include "src/world.h"

#define MANIFEST "jelly_manifest.txt"

/* names of files in the output folder */
typedef struct Names {
  int n, cap;
  char **name;
} Names;

void run_names_add(Names *l, const char *name);
void run_names_free(Names *l);

/* what a run writes per frame, and the buffers it writes them from */
typedef struct Outputs {
  const char *dir;
  JlVtkEncoding enc;
  int nframe;
  double *time;
  char **file;   /* nframe .vtu names (scene.pvd) */
  char **vtm;    /* nframe .vtm names (scene_all.pvd) */
  Names written; /* every file written, for the manifest */
  /* the .vtu cells (fixed topology): the model's tets (cell t = tet t), then
   * per body in body order its cloth triangles or rope segments */
  int ncell;
  int *cell_offset;         /* ncell + 1 */
  int *cell_conn;           /* cell_offset[ncell], global node ids */
  unsigned char *cell_type; /* ncell, JL_VTK_* */
  double *cell_rest;        /* ncell: m^2 rest area of a triangle, m rest length of a segment (tets: unused) */
  double *cell_body;        /* ncell, body index */
  int *body_cell;           /* nbody + 1: the body's cloth/rope cells are body_cell[b] .. body_cell[b + 1] */
  double *node_strain, *cell_strain;
  double *surf_x, *surf_n;
  int *seg; /* longest rope's segments x 2, local node ids */
  /* the arrays of the last frame's files (the grid, each body's surface):
   * the fixed ones are copied compressed, not compressed again */
  JlVtkCache *grid_cache;
  JlVtkCache **body_cache; /* nbody */
  int nbody;
} Outputs;

/* src/cli/cli_run_frames.c */
void run_build_cells(const JlModel *m, Outputs *o);
JlResult run_write_frame(Outputs *o, const JlWorld *w, int frame, int obj, char *err, size_t errsz);
JlResult run_write_pvd(Outputs *o, char *err, size_t errsz);

/* src/cli/cli_run_manifest.c, shared by jelly run and jelly render (cmd "run" or "render" names the command in
 * messages and in the manifest's first line). run_manifest_read: 1 when DIR has a manifest (its names in *l), 0
 * when none, -1 when it cannot be used (the reason printed). run_foreign_files: 1 after a message when DIR, which
 * has no manifest, holds files that look like a run's or render's (frames, scene .pvd, movie.mp4), else 0.
 * run_manifest_clean: deletes the files old lists (a resume from frame `first` >= 0 keeps those up to it, in
 * *kept); 0 or -1 after a message. run_manifest_write: DIR's manifest listing a then b; 0 or -1 after a message.
 * run_names_other: how many of l's names are files the other command writes (PNG frames and movie.mp4 are
 * render's, the rest run's). */
int run_manifest_read(const char *dir, Names *l, const char *cmd);
int run_foreign_files(const char *dir, const char *cmd);
int run_manifest_clean(const char *dir, const Names *old, int first, const char *keep_ck, Names *kept, const char *cmd);
int run_manifest_write(const char *dir, const Names *a, const Names *b, const char *cmd);
int run_names_other(const Names *l, const char *cmd);

#endif
