/* Subcommands of the `jelly` program (src/cli/main.c dispatches). Each takes
 * argv[0] = the subcommand's name and argv[1..argc) its arguments (main's
 * convention, which getopt_long expects) and returns the process exit code, the
 * JlResult values (mesh/common.h): 0 success, 1 the simulation diverged or a
 * result cannot be trusted under --strict, 2 bad input, 3 the system refused
 * (no display, an output that cannot be written, out of memory). */
#ifndef JL_SRC_CLI_H
#define JL_SRC_CLI_H

#include <stddef.h>

#include "mesh/tetmesh.h"
#include "src/model.h"
#include "src/scene.h"
#include "src/world.h"

int jl_cli_check(int argc, char **argv);
int jl_cli_mesh(int argc, char **argv);
int jl_cli_run(int argc, char **argv);
int jl_cli_bench(int argc, char **argv);
int jl_cli_view(int argc, char **argv);   /* src/cli/cli_view.c */
int jl_cli_render(int argc, char **argv); /* src/cli/cli_render.c */
int jl_cli_study(int argc, char **argv);  /* src/cli/cli_study.c: integrator study */

/* src/cli/cli_render.c: the default scene (jl_cli_data_file's scenes/default.json); "WxH" image sizes (16 to
 * 16384); comma-separated debug layer names into a JlLayer bit mask. The
 * parsers print "jelly <cmd>: ..." and return 0 on failure. */
const char *jl_cli_default_scene(char *buf, size_t n);
/* A file Jelly ships, by its path under models/ ("scenes/default.json", "bunny.obj"): in the working
 * directory's models/, next to the program (a build folder, or an installed share/jelly/models), or
 * in the configured prefix's share/jelly/models. 1 when found (out holds its path), else 0 (out holds
 * "models/REL"). src/cli/cli_data.c */
int jl_cli_data_file(const char *rel, char *out, size_t n);
int jl_cli_parse_size(const char *cmd, const char *text, int *width, int *height);
int jl_cli_parse_layers(const char *cmd, const char *text, unsigned *layers);
/* the two as JL_CLI_CALL flags (src/cli/cli.h): dst an int[2] {width, height}, an unsigned mask */
int jl_cli_size_flag(const char *cmd, const char *flag, const char *value, void *dst);
int jl_cli_layers_flag(const char *cmd, const char *flag, const char *value, void *dst);
/* src/cli/cli_bench_render.c: prints the render row(s) of `jelly bench`; returns 0 on success */
int jl_cli_bench_render(int json, const char *cpu);
int jl_cli_bench_thin(int json, int quick, const char *cpu);   /* src/cli/cli_bench_thin.c */
int jl_cli_bench_volume(int json, int quick, const char *cpu); /* src/cli/cli_bench_volume.c */
int jl_cli_bench_solver(int json, int quick, const char *cpu); /* src/cli/cli_bench_solver.c */
int jl_cli_bench_scenes(int json, int nstep, const char *cpu); /* src/cli/cli_bench_scenes.c */
/* what the bench rows that step whole scenes share (src/cli/cli_bench_scenes.c): */
typedef struct JlBenchTally {
  int steps, cg_max, capped, energy_splits, crossing_splits; /* capped: steps whose CG stopped at its cap */
  long cg;                                                   /* CG iterations */
  double wall_s, simulated_s;                                /* stepping only */
} JlBenchTally;
/* the world of scene sc (freed here) on `threads` threads, its dt; 0, or 1 with err set */
int jl_cli_bench_world(JlScene *sc, int threads, JlWorld *w, double *dt, char *err, size_t errsz);
/* n steps of h added to *t; 0, or 1 with err set */
int jl_cli_bench_steps(JlWorld *w, double h, int n, JlBenchTally *t, char *err, size_t errsz);
int jl_cli_bench_tets(const JlModel *m); /* tets of all bodies */
/* src/cli/cli_bench.c: a TetGen sphere of radius 0.5 m with about `target` tets, and its body (E 1e6 Pa,
 * density 1000, hanging from a pinned cap) */
JlBodyDef jl_cli_bench_sphere_def(void);
JlResult jl_cli_bench_sphere(int target, JlSurface *s, JlTetMesh *t, double *tetgen_ms, char *err, size_t errsz);
/* the findings of a mesh report, one "    <severity> <text>" line each on
 * stdout, as check and mesh print them (src/cli/cli_util.c) */
void jl_cli_print_findings(const JlMeshReport *r);
/* median of v[0..n) (sorts v); 0 for n <= 0 (src/cli/cli_util.c) */
double jl_cli_median(double *v, int n);

/* Parses a strictly positive/any finite double or an int flag value; prints
 * "jelly <cmd>: --flag expects ..., got '...'" and returns 0 on failure. */
int jl_cli_parse_double(const char *cmd, const char *flag, const char *text, double *out);
/* An engine message for the command line (src/cli/cli_sim.c): the engine names scene keys and API
 * settings (a smaller "dt", the mesh limit memory_mb); this adds the flag that sets each. Returns a
 * thread-local copy, valid until the thread's next call. */
const char *jl_cli_msg(const char *msg);
/* mkdir -p: 0 when path is (now) a directory, -1 otherwise (errno set) */
int jl_cli_make_dirs(const char *path);

/* ---- flags: one table per command, parsed by getopt_long (src/cli/cli_util.c) ----
 * A flag is "--name VALUE" or "--name=VALUE"; names are matched whole (no
 * abbreviations); "--" ends the flags. Adding a flag to a command is one row
 * of its table (and a line of its --help). */
typedef enum JlCliKind {
  JL_CLI_SWITCH, /* no value: *(int *)dst = 1 */
  JL_CLI_TEXT,   /* *(const char **)dst = the value; with noun, an empty value is "FLAG needs a <noun>" */
  JL_CLI_INT,    /* *(int *)dst = a whole number from lo to hi */
  JL_CLI_CALL,   /* call(cmd, flag, value, dst): checks and stores the value, 0 after printing why not */
} JlCliKind;
typedef struct JlCliFlag {
  const char *name; /* "--frames" */
  JlCliKind kind;
  void *dst;
  long lo, hi;      /* JL_CLI_INT: the range */
  const char *noun; /* JL_CLI_TEXT: what an empty value lacks ("folder name"); NULL: "" is accepted */
  int (*call)(const char *cmd, const char *flag, const char *value, void *dst); /* JL_CLI_CALL */
} JlCliFlag;
/* the rows of a table, one per kind */
#define JL_CLI_FLAG_SWITCH(name, dst) \
  { name, JL_CLI_SWITCH, dst, 0, 0, NULL, NULL }
#define JL_CLI_FLAG_TEXT(name, dst, noun) \
  { name, JL_CLI_TEXT, dst, 0, 0, noun, NULL }
#define JL_CLI_FLAG_INT(name, dst, lo, hi) \
  { name, JL_CLI_INT, dst, lo, hi, NULL, NULL }
#define JL_CLI_FLAG_CALL(name, dst, call) \
  { name, JL_CLI_CALL, dst, 0, 0, NULL, call }
typedef struct JlCliSim JlCliSim; /* below */
/* what one command accepts */
typedef struct JlCliSpec {
  const char *cmd;       /* "run": messages read "jelly run: ..." */
  const JlCliFlag *flag; /* the command's own flags, nflag of them */
  int nflag;
  JlCliSim *sim;          /* non-NULL: also --dt, --fps, --integrator, --threads (src/cli/cli_sim.c) */
  const char **arg;       /* the one positional argument (SCENE, FILE); NULL: none is accepted */
  const char *arg_name;   /* "scene", "FILE": "more than one scene given ('a' and 'b')" */
  void (*usage)(FILE *f); /* --help / -h: printed on stdout */
} JlCliSpec;
/* Parses argv[1..argc) against the spec's flags, the mesh limits (every
 * command: --mesh-timeout S, --mesh-memory MB, --mesh-max-file MB; mesh/child.h,
 * docs/robustness.md) and --help/-h. Returns JL_CLI_GO when the arguments are
 * good, 0 after printing the usage for --help, 2 after printing what is wrong
 * ("jelly run: unknown option '-q' (see jelly run --help)"). */
#define JL_CLI_GO (-1)
int jl_cli_parse(const JlCliSpec *spec, int argc, char **argv);
/* the rows of the flags run, render and view share (JL_CLI_SIM_HELP): 4 of them */
enum { JL_CLI_SIM_NFLAG = 4 };
void jl_cli_sim_flags(JlCliSim *o, JlCliFlag out[JL_CLI_SIM_NFLAG]);
#define JL_CLI_MESH_LIMITS_HELP                                                       \
  "  --mesh-timeout S   wall-clock (and CPU) seconds for one mesh import or TetGen\n" \
  "                     run (default 60)\n"                                           \
  "  --mesh-memory MB   memory for one mesh import or TetGen run (default 8192)\n"    \
  "  --mesh-max-file MB largest mesh file read (default 1024)\n"
int jl_cli_parse_int(const char *cmd, const char *flag, const char *text, long lo, long hi, int *out);


/* src/cli/cli_sim.c: the options run, render and view share. */
struct JlCliSim {
  double dt, fps;         /* s, 1/s; 0: the scene's */
  int frames;             /* output frames after frame 0; -1: duration x fps */
  const char *integrator; /* NULL: the scene's */
  int threads;            /* -1: the scene's */
  int max_frames;         /* the most output frames the command takes (jl_cli_sim_init: 1e8) */
};
void jl_cli_sim_init(JlCliSim *o);
#define JL_CLI_SIM_HELP                                                           \
  "  --dt S       largest time step in seconds, at most 1/fps (overrides the\n"   \
  "               scene's dt). Without one: 1/60 s (implicit) or, for explicit\n" \
  "               integrators, half the stability limit of the scene's fastest\n" \
  "               mode\n"                                                         \
  "  --fps F      output frames per second (overrides the scene's fps)\n"         \
  "  --integrator implicit|symplectic|euler|midpoint|rk4|verlet (overrides the\n" \
  "               scene's)\n"                                                     \
  "  --threads N  OpenMP threads, 1 to " JL_MAX_THREADS_TEXT " (results do not depend on it)\n"
typedef struct JlCliTiming {
  int nframes;       /* output frames after frame 0 */
  int steps;         /* steps per frame */
  double h;          /* s, the step: 1/fps / steps */
  int auto_dt;       /* 1: an explicit integrator's default step (jl_world_stable_dt) */
  JlStableDt stable; /* with auto_dt, after jl_cli_timing_world */
} JlCliTiming;
/* Before the build: applies the flags to the scene and checks the timing
 * (a dt longer than a frame, more than 1e7 steps per frame or 1e8 frames);
 * messages name the flag or the scene file and key. 0 after printing. */
int jl_cli_timing(const char *cmd, const JlCliSim *o, JlScene *sc, const char *path, JlCliTiming *t);
/* After the world exists: the explicit default step. 0 after printing. */
int jl_cli_timing_world(const char *cmd, JlScene *sc, JlWorld *w, JlCliTiming *t);
/* the run header's "integrator ..." line(s) */
void jl_cli_print_timing(FILE *f, const JlScene *sc, const JlCliTiming *t);
/* the run header: scene, one line per body, the integrator lines */
void jl_cli_print_header(FILE *f, const char *scene_path, const JlScene *sc, const JlModel *m, const JlCliTiming *t);
/* DIR for a run's outputs: `out` when given, else out/<scene file name without extension> */
void jl_cli_out_dir(const char *scene_path, const char *out, char *buf, size_t n);
/* The start run and render share: loads the scene (named = 0: the default
 * one, with a hint), applies the flags and checks the timing, makes outdir
 * (NULL: none), builds the model and the world (a "building" line on a
 * terminal), settles the step and, unless quiet, prints the header and the
 * build time. JL_OK with *sc and *w to free; otherwise the exit code, the
 * message printed and nothing left to free. */
int jl_cli_start(const char *cmd, const char *path, int named, const JlCliSim *o, const char *outdir, int quiet,
                 JlScene *sc, JlWorld *w, JlCliTiming *t);
/* the progress bar on stderr (callers show it only on a terminal) */
void jl_cli_progress(int frame, int nframes, double sim_t, double wall);
/* "simulated  ..." */
void jl_cli_print_simulated(FILE *f, double t, double wall, long steps, long cg);
/* the exit-code contract, as every command's --help states it */
#define JL_CLI_EXIT_HELP                                                            \
  "Exit codes: 0 success, 1 the simulation diverged (or, with --strict, a result\n" \
  "cannot be trusted), 2 bad input (file, scene key, flag, value out of range),\n"  \
  "3 the system refused (no display, an output that cannot be written, out of\n"    \
  "memory), 130 interrupted (Ctrl-C; run and render write what they finished).\n"

/* src/cli/cli_signal.c: Ctrl-C and SIGTERM for run and render. Installs a handler that only sets a flag (a second
 * signal exits 130 at once); call it after the world is built, so that mesh child processes keep the default. */
void jl_cli_catch_interrupts(void);
/* 1 once SIGINT or SIGTERM arrived: stop at the next step, write what the frames on disk need, exit 130 */
int jl_cli_interrupted(void);
/* the exit code of an interrupted run (128 + SIGINT, as a shell reports Ctrl-C) */
#define JL_CLI_INTERRUPTED 130

#endif
