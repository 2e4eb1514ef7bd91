/* `jelly study`: the integrator study (src/cli/study.c, docs/integrators.md).
 *
 *   jelly study [SCENE] [--full | --quick] [--out DIR]
 *
 * Without SCENE the model is the cloth of Zhu, Zhou & Yu, sec. 3
 * (docs/references.md): 40 x 40 cells (41 x 41
 * nodes), 20 m x 20 m, springs 800 N/m, no damping, hanging from its two top
 * corners and released under gravity; with SCENE the scene's bodies are used
 * (its integrator and dt are ignored: all are swept). Writes DIR/study.csv
 * (one row per integrator and dt) and DIR/study.svg (error vs dt, log-log);
 * DIR defaults to out/study. Exit 0 on success, 1 when the reference
 * diverged, 2 on bad input, 3 when an output cannot be written. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/cli/cli.h"
#include "src/scene.h"
#include "src/cli/study.h"

static void study_usage(FILE *f) {
  fprintf(f,
          "usage: jelly study [SCENE] [--full | --quick] [--out DIR]\n"
          "                   [--mesh-timeout S] [--mesh-memory MB] [--mesh-max-file MB]\n"
          "\n"
          "Runs every integrator (implicit, symplectic, euler, midpoint, rk4, verlet,\n"
          "implicit_midpoint) for 1 s of simulated time at each time step of a sweep and\n"
          "compares each run with\n"
          "RK4 at a quarter of the smallest step: how large a step each integrator\n"
          "survives, how accurate it is, what it costs and how much energy it gains or\n"
          "loses.\n"
          "\n"
          "Time steps: 1/30 s halving to 1/3840 s (8 steps, about 20 s on the default\n"
          "scene); --full: steps of sqrt(2) down to 1/7680 s (17 steps, about 1 minute);\n"
          "--quick: 1/30 to 1/240 s only (4 steps, about 1 s), to check that a scene runs.\n"
          "\n"
          "SCENE: a scene file whose bodies are simulated (its integrator and dt are\n"
          "ignored). Without SCENE: a square cloth, 20 m x 20 m, made of 40 x 40 cells\n"
          "(41 x 41 nodes, 1 kg/m^2, every spring 800 N/m, no damping), flat and at rest\n"
          "in a vertical plane, pinned at its two top corners and falling under gravity\n"
          "(no ground): it sags and swings between the two pins.\n"
          "\n"
          "Prints one line per run (\"-\" for what a diverged run could not measure) and\n"
          "writes to DIR (default out/study):\n"
          "  study.csv  one row per integrator and time step: stable or not, error\n"
          "             against the reference, wall time per simulated second, energy\n"
          "             drift (columns in docs/integrators.md; unmeasured values empty)\n"
          "  study.svg  error vs time step (log-log) per integrator; diverged runs as\n"
          "             crosses along the top; the largest stable step in the legend\n"
          "  dynamics.csv  without SCENE: per integrator and time step (1/60, 1/240,\n"
          "             1/1000, 1/4000 s; --quick: the first two), the rebound of a ball\n"
          "             dropped 1 m (restitution 0.5) and the angular momentum a free\n"
          "             spinning bar keeps over 1 s, next to their targets\n"
          "\n"
          "options:\n"
          "  --full       the finer sweep above\n"
          "  --quick      the short sweep above\n"
          "  --out DIR    output folder (default out/study)\n" JL_CLI_MESH_LIMITS_HELP
          "\n"
          "The study's own exit 1: the RK4 reference diverged (no result to trust).\n" JL_CLI_EXIT_HELP);
}

int jl_cli_study(int argc, char **argv) {
  const char *scene = NULL, *out = "out/study";
  int full = 0, quick = 0;
  const JlCliFlag flags[] = {
      JL_CLI_FLAG_SWITCH("--full", &full),
      JL_CLI_FLAG_SWITCH("--quick", &quick),
      JL_CLI_FLAG_TEXT("--out", &out, "folder name"),
  };
  JlCliSpec spec = {"study", flags, (int)(sizeof flags / sizeof flags[0]), NULL, &scene, "scene", study_usage};
  int rc = jl_cli_parse(&spec, argc, argv);
  if (rc != JL_CLI_GO) return rc;

  if (full && quick) {
    fprintf(stderr, "jelly study: --full and --quick exclude each other\n");
    return 2;
  }

  /* the model: Zhu, Zhou & Yu's cloth or the scene's bodies */
  char err[4096];
  JlModel m;
  JlResult r;
  if (scene) {
    JlScene sc;
    r = jl_scene_load(scene, &sc, err, sizeof err);
    if (!r) {
      r = jl_scene_build(&sc, &m, stderr, err, sizeof err);
      jl_scene_free(&sc);
    }
  } else {
    r = jl_study_default_model(&m, err, sizeof err);
  }
  if (r) {
    fprintf(stderr, "jelly study: %s\n", jl_cli_msg(err));
    return r;
  }
  if (jl_cli_make_dirs(out) != 0) {
    fprintf(stderr, "jelly study: cannot create output folder '%s': %s\n", out, strerror(errno));
    jl_model_free(&m);
    return JL_ERR_SYSTEM;
  }

  JlStudyDef def = quick ? jl_quick_study_def() : jl_default_study_def(full);
  JlStudyRow *rows = jl_calloc((size_t)JL_INTEGRATOR_COUNT * JL_STUDY_MAX_DT, sizeof *rows);
  int nrow = 0;
  printf("study      %s, %d nodes, %d springs, %g s per run, %d time steps per integrator\n",
         scene ? scene : "hanging cloth (40 x 40 cells, 20 m x 20 m, springs 800 N/m, pinned at its top corners)",
         m.nnode, m.nspring, def.duration, def.ndt);
  fflush(stdout);
  double t0 = jl_seconds();
  r = jl_study_run(&m, &def, rows, &nrow, stdout, err, sizeof err);
  int status = 0;
  if (r) {
    fprintf(stderr, "jelly study: %s\n", jl_cli_msg(err));
    status = r;
  } else {
    char csv[4200], svg[4200];
    snprintf(csv, sizeof csv, "%s/study.csv", out);
    snprintf(svg, sizeof svg, "%s/study.svg", out);
    char title[256];
    snprintf(title, sizeof title, "%s: error after %g s vs time step", scene ? scene : "hanging cloth 40 x 40",
             def.duration);
    r = jl_study_write_csv(csv, rows, nrow, err, sizeof err);
    if (!r) r = jl_study_write_svg(svg, rows, nrow, title, err, sizeof err);
    if (r) {
      fprintf(stderr, "jelly study: %s\n", jl_cli_msg(err));
      status = r; /* JL_ERR_SYSTEM: the file cannot be written */
    } else {
      printf("\nlargest stable dt (s):");
      for (int i = 0; i < JL_INTEGRATOR_COUNT; i++) {
        double big = jl_study_largest_stable(rows, nrow, (JlIntegrator)i);
        if (big > 0)
          printf("  %s %.3g", jl_integrator_name((JlIntegrator)i), big);
        else
          printf("  %s none", jl_integrator_name((JlIntegrator)i)); /* even the smallest dt diverged */
      }
      printf("\nwrote      %s, %s in %.1f s\n", csv, svg, jl_seconds() - t0);
      if (!scene) {
        /* what each integrator keeps of a bounce and a spin */
        char dyn[4200];
        snprintf(dyn, sizeof dyn, "%s/dynamics.csv", out);
        double t1 = jl_seconds();
        r = jl_study_dynamics(quick, stdout, dyn, err, sizeof err);
        if (r) {
          fprintf(stderr, "jelly study: %s\n", jl_cli_msg(err));
          status = r;
        } else {
          printf("wrote      %s in %.1f s\n", dyn, jl_seconds() - t1);
        }
      }
    }
  }
  free(rows);
  jl_model_free(&m);
  return status;
}
