/* Subcommands of the `jelly` program (src/main.c dispatches). Each takes the
 * arguments after the subcommand name and returns the process exit code:
 * 0 success, 1 runtime failure (divergence), 2 bad input. */
#ifndef JL_SRC_CLI_H
#define JL_SRC_CLI_H

#include <stddef.h>

#include "mesh/tetmesh.h"
#include "src/model.h"

int jl_cli_check(int argc, char **argv);
int jl_cli_mesh(int argc, char **argv);
int jl_cli_run(int argc, char **argv);
int jl_cli_bench(int argc, char **argv);
int jl_cli_view(int argc, char **argv);   /* src/cli_view.c */
int jl_cli_render(int argc, char **argv); /* src/cli_render.c */
int jl_cli_study(int argc, char **argv);  /* src/cli_study.c: integrator study */

/* src/cli_render.c: the default scene (models/scenes/default.json relative to
 * the working directory, else to the executable); "WxH" image sizes (16 to
 * 16384); comma-separated debug layer names into a JlLayer bit mask. The
 * parsers print "jelly <cmd>: ..." and return 0 on failure. */
const char *jl_cli_default_scene(char *buf, size_t n);
int jl_cli_parse_size(const char *cmd, const char *text, int *width, int *height);
int jl_cli_parse_layers(const char *cmd, const char *text, unsigned *layers);
/* src/cli_bench_render.c: prints the render row(s) of `jelly bench`; returns 0 on success */
int jl_cli_bench_render(int json, const char *cpu);
int jl_cli_bench_thin(int json, int quick, const char *cpu); /* src/cli_bench_thin.c */
int jl_cli_bench_volume(int json, int quick, const char *cpu); /* src/cli_bench_volume.c */
/* src/cli_bench.c: a TetGen sphere of radius 0.5 m with about `target` tets, and its body (E 1e6 Pa,
 * density 1000, hanging from a pinned cap) */
JlBodyDef jl_cli_bench_sphere_def(void);
JlResult jl_cli_bench_sphere(int target, JlSurface *s, JlTetMesh *t, double *tetgen_ms, char *err, size_t errsz);
/* median of v[0..n) (sorts v); 0 for n <= 0 (src/cli_util.c) */
double jl_cli_median(double *v, int n);

/* Parses a strictly positive/any finite double or an int flag value; prints
 * "jelly <cmd>: --flag expects ..., got '...'" and returns 0 on failure. */
int jl_cli_parse_double(const char *cmd, const char *flag, const char *text, double *out);
/* mkdir -p: 0 when path is (now) a directory, -1 otherwise (errno set) */
int jl_cli_make_dirs(const char *path);
/* The mesh limits shared by run, check and mesh (mesh/child.h,
 * docs/robustness.md): when argv[*i] is --mesh-timeout S, --mesh-memory MB
 * or --mesh-max-file MB, consumes its value, sets the limit and returns 1;
 * returns 0 for any other argument, -1 (message printed) for a bad value. */
int jl_cli_mesh_limit_flag(const char *cmd, int argc, char **argv, int *i);
#define JL_CLI_MESH_LIMITS_HELP                                                       \
  "  --mesh-timeout S   wall-clock (and CPU) seconds for one mesh import or TetGen\n" \
  "                     run (default 60)\n"                                            \
  "  --mesh-memory MB   memory for one mesh import or TetGen run (default 8192)\n"    \
  "  --mesh-max-file MB largest mesh file read (default 1024)\n"
int jl_cli_parse_int(const char *cmd, const char *flag, const char *text, long lo, long hi, int *out);

#endif
