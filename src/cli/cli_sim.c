/* What the simulating commands (run, render, view) share: the flags that
 * override a scene's timing, integrator and threads, the checks of the time
 * step against the output frame, and the explicit integrators' default step
 * (src/cli.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/cli.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* what the engine names, and the same with the flag that sets it on the command line */
static const struct {
  const char *name, *with_flag;
} CLI_NAMES[] = {
    {"mesh limit timeout_s", "mesh limit timeout_s (--mesh-timeout)"},
    {"mesh limit memory_mb", "mesh limit memory_mb (--mesh-memory)"},
    {"mesh limit max_file_mb", "mesh limit max_file_mb (--mesh-max-file)"},
    {"a smaller \"dt\"", "a smaller \"dt\" (--dt)"},
    {"(\"integrator\": \"implicit\")", "(\"integrator\": \"implicit\", --integrator implicit)"},
};

const char *jl_cli_msg(const char *msg) {
  static _Thread_local char out[4096];
  size_t n = 0;
  for (const char *p = msg; *p && n + 1 < sizeof out;) {
    int hit = -1;
    for (int k = 0; k < (int)(sizeof CLI_NAMES / sizeof CLI_NAMES[0]) && hit < 0; k++)
      if (strncmp(p, CLI_NAMES[k].name, strlen(CLI_NAMES[k].name)) == 0) hit = k;
    if (hit < 0) {
      out[n++] = *p++;
      continue;
    }
    int w = snprintf(out + n, sizeof out - n, "%s", CLI_NAMES[hit].with_flag);
    if (w < 0 || (size_t)w >= sizeof out - n) break;
    n += (size_t)w, p += strlen(CLI_NAMES[hit].name);
  }
  out[n < sizeof out ? n : sizeof out - 1] = '\0';
  return out;
}

void jl_cli_sim_init(JlCliSim *o) {
  memset(o, 0, sizeof *o);
  o->threads = -1;
  o->frames = -1;
  o->max_frames = 100000000;
}

/* --dt S: the largest step */
static int dt_flag(const char *cmd, const char *flag, const char *val, void *dst) {
  double *dt = dst;
  if (!jl_cli_parse_double(cmd, flag, val, dt)) return 0;
  if (!(*dt > 0)) {
    fprintf(stderr, "jelly %s: --dt must be > 0 seconds, got '%s'\n", cmd, val);
    return 0;
  }
  return 1;
}

/* --fps F: output frames per second */
static int fps_flag(const char *cmd, const char *flag, const char *val, void *dst) {
  double *fps = dst;
  if (!jl_cli_parse_double(cmd, flag, val, fps)) return 0;
  if (!(*fps > 0) || *fps > 1e6) {
    fprintf(stderr, "jelly %s: --fps must be > 0 and at most 1e6 frames per second, got '%s'\n", cmd, val);
    return 0;
  }
  return 1;
}

/* --integrator NAME */
static int integrator_flag(const char *cmd, const char *flag, const char *val, void *dst) {
  (void)flag;
  if (jl_integrator_parse(val) == JL_INTEGRATOR_COUNT) {
    fprintf(
        stderr,
        "jelly %s: unknown integrator '%s' (implicit, symplectic, euler, midpoint, rk4, verlet, implicit_midpoint)\n",
        cmd, val);
    return 0;
  }
  *(const char **)dst = val;
  return 1;
}

void jl_cli_sim_flags(JlCliSim *o, JlCliFlag out[JL_CLI_SIM_NFLAG]) {
  const JlCliFlag rows[JL_CLI_SIM_NFLAG] = {
      JL_CLI_FLAG_CALL("--dt", &o->dt, dt_flag),
      JL_CLI_FLAG_CALL("--fps", &o->fps, fps_flag),
      JL_CLI_FLAG_CALL("--integrator", &o->integrator, integrator_flag),
      JL_CLI_FLAG_INT("--threads", &o->threads, 1, JL_MAX_THREADS),
  };
  memcpy(out, rows, sizeof rows);
}

/* more threads than processors: allowed (results do not depend on the
 * count), but slower, so said once */
static void warn_threads(const char *cmd, int threads) {
#ifdef _OPENMP
  int procs = omp_get_num_procs();
  if (threads > procs)
    fprintf(stderr, "jelly %s: warning: %d threads on %d processor%s: the results are the same, only slower\n", cmd,
            threads, procs, procs == 1 ? "" : "s");
#else
  if (threads > 1) fprintf(stderr, "jelly %s: warning: built without OpenMP: %d threads asked, 1 used\n", cmd, threads);
#endif
}

int jl_cli_timing(const char *cmd, const JlCliSim *o, JlScene *sc, const char *path, JlCliTiming *t) {
  memset(t, 0, sizeof *t);
  if (o->integrator) sc->step.integrator = jl_integrator_parse(o->integrator);
  if (o->threads > 0) sc->step.threads = o->threads;
  if (sc->step.threads > 1) warn_threads(cmd, sc->step.threads);
  if (o->fps > 0) sc->fps = o->fps;
  if (o->dt > 0) sc->dt = o->dt;
  double frame = 1.0 / sc->fps;
  /* explicit integrators without a given dt: jl_cli_timing_world sets it */
  t->auto_dt = !jl_integrator_is_implicit(sc->step.integrator) && !(o->dt > 0) && !sc->dt_set;
  if (t->auto_dt) sc->dt = frame;
  if (jl_dt_too_long(sc->dt, frame)) {
    if (o->dt > 0) {
      fprintf(stderr,
              "jelly %s: --dt %.9g s is longer than one output frame (1/fps = %.9g s); lower --dt or raise %s\n", cmd,
              o->dt, frame, o->fps > 0 ? "--fps" : "fps (--fps)");
      return 0;
    }
    if (sc->dt_set) {
      fprintf(stderr, "jelly %s: %s: dt: %.9g s is longer than one output frame (1/fps = %.9g s%s); %s\n", cmd, path,
              sc->dt, frame, o->fps > 0 ? " with --fps" : "",
              o->fps > 0 ? "give a smaller --dt or a lower --fps" : "lower dt (or --dt) or raise fps (or --fps)");
      return 0;
    }
    sc->dt = frame; /* the implicit default, 1/60 s, cut to one frame */
  }
  double per_frame = frame / sc->dt;
  if (per_frame > 1e7) {
    if (o->dt > 0)
      fprintf(stderr,
              "jelly %s: --dt %g s would need %.3g steps per output frame of 1/fps = %g s (at most 1e7); "
              "raise --dt or --fps\n",
              cmd, o->dt, per_frame, frame);
    else
      fprintf(stderr,
              "jelly %s: %s: dt: %g s%s would need %.3g steps per output frame of 1/fps = %g s%s (at most "
              "1e7); raise dt (or --dt) or fps\n",
              cmd, path, sc->dt, sc->dt_set ? "" : " (the default)", per_frame, frame, o->fps > 0 ? " with --fps" : "");
    return 0;
  }
  JlStepPlan plan = jl_world_step_plan(NULL, sc->step.integrator, frame, sc->dt, 0, 0.0);
  t->steps = (int)plan.steps;
  t->h = plan.h;
  if (o->frames >= 0) {
    if (o->frames > o->max_frames) {
      fprintf(stderr,
              "jelly %s: --frames %d: at most %d output frames (each is a set of files, listed in the "
              "output folder's manifest before the run starts)\n",
              cmd, o->frames, o->max_frames);
      return 0;
    }
    t->nframes = o->frames;
  } else {
    double nf = ceil(sc->duration * sc->fps - 1e-9);
    if (nf > o->max_frames) {
      fprintf(stderr,
              "jelly %s: %s: duration %g s at %g frames per second%s is %.3g output frames (at most %d); "
              "shorten duration, lower fps or give --frames N\n",
              cmd, path, sc->duration, sc->fps, o->fps > 0 ? " (--fps)" : "", nf, o->max_frames);
      return 0;
    }
    t->nframes = (int)nf;
  }
  return 1;
}

int jl_cli_timing_world(const char *cmd, JlScene *sc, JlWorld *w, JlCliTiming *t) {
  if (jl_integrator_is_implicit(sc->step.integrator)) return 1;
  double frame = 1.0 / sc->fps, duration = t->nframes > 0 ? t->nframes * frame : sc->duration;
  if (!t->auto_dt) {
    t->stable = jl_world_stable_dt(w, sc->step.integrator, frame, duration);
    /* a given dt: used as given, but said when it is beyond the estimate */
    if (t->h > 2.0 * t->stable.dt && !t->stable.bounded_growth)
      fprintf(stderr,
              "jelly %s: warning: dt %.3g s is beyond the '%s' integrator's estimated stability limit of "
              "%.3g s here (fastest mode %.3g rad/s) and will likely diverge; give a smaller --dt, or leave "
              "dt out of the scene for a stable default\n",
              cmd, t->h, jl_integrator_name(sc->step.integrator), 2.0 * t->stable.dt, t->stable.omega);
    return 1;
  }
  JlStepPlan plan = jl_world_step_plan(w, sc->step.integrator, frame, frame, 1, duration);
  t->stable = plan.stable;
  double per_frame = frame / plan.dt;
  if (!(per_frame <= 1e7)) {
    fprintf(stderr,
            "jelly %s: the '%s' integrator needs dt <= %.3g s to stay stable here (fastest mode %.3g rad/s), "
            "%.3g steps per output frame (at most 1e7); use the implicit integrator (--integrator implicit) "
            "or give a dt (or --dt) and accept the risk\n",
            cmd, jl_integrator_name(sc->step.integrator), t->stable.dt, t->stable.omega, per_frame);
    return 0;
  }
  sc->dt = plan.dt;
  t->steps = (int)plan.steps;
  t->h = plan.h;
  return 1;
}

void jl_cli_print_timing(FILE *f, const JlScene *sc, const JlCliTiming *t) {
  fprintf(f, "integrator %s, dt %.6g s (%d steps per frame), %d frames at %g fps\n",
          jl_integrator_name(sc->step.integrator), t->h, t->steps, t->nframes, sc->fps);
  if (t->auto_dt) {
    if (t->stable.bounded_growth)
      fprintf(f,
              "           dt: the explicit default; no step is stable for undamped springs with '%s', this one "
              "lets energy grow by at most 0.1 %% over the run (fastest mode %.3g rad/s)\n",
              jl_integrator_name(sc->step.integrator), t->stable.omega);
    else
      fprintf(f,
              "           dt: the explicit default, half the stability limit of the fastest mode (%.3g rad/s, "
              "damping %.3g 1/s; docs/integrators.md)\n",
              t->stable.omega, t->stable.gamma);
  }
}

void jl_cli_print_header(FILE *f, const char *scene_path, const JlScene *sc, const JlModel *m, const JlCliTiming *t) {
  fprintf(f, "scene      %s\n", scene_path);
  for (int b = 0; b < m->nbody; b++) {
    fprintf(f, "body       %-12s %6d nodes %7d tets %7d springs %6d surface vertices  %.4g kg", m->body[b].name,
            m->body[b].node_count, m->body[b].tet_count, m->body[b].spring_count, m->body[b].surface.nvert,
            m->body[b].mass);
    /* the spring calibration against the body's mesh (docs/physics.md) */
    if (m->body[b].calibration != 1.0 && m->body[b].calibration > 0.0)
      fprintf(f, ", springs x%.3g", m->body[b].calibration);
    fprintf(f, "\n");
  }
  jl_cli_print_timing(f, sc, t);
}

void jl_cli_progress(int frame, int nframes, double sim_t, double wall) {
  int width = 30, filled = nframes ? (int)((double)width * frame / nframes) : width;
  double ratio = wall > 0 ? sim_t / wall : 0;
  double eta = frame > 0 ? wall * (nframes - frame) / frame : 0;
  fprintf(stderr, "\r  [%.*s%*s] frame %d/%d  %.2fx real time  ETA %.0f s   ", filled, "##############################",
          width - filled, "", frame, nframes, ratio, eta);
  fflush(stderr);
}

void jl_cli_print_simulated(FILE *f, double t, double wall, long steps, long cg) {
  fprintf(f, "simulated  %.4g s in %.3g s wall (%.3gx real time), %ld steps, %ld CG iterations\n", t, wall,
          wall > 0 ? t / wall : 0.0, steps, cg);
}

void jl_cli_out_dir(const char *scene_path, const char *out, char *buf, size_t n) {
  if (out) {
    snprintf(buf, n, "%s", out);
    return;
  }
  /* out/<scene file name without folder and extension> */
  const char *base = strrchr(scene_path, '/');
  base = base ? base + 1 : scene_path;
  const char *dot = strrchr(base, '.');
  int len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
  snprintf(buf, n, "out/%.*s", len, base);
}

int jl_cli_start(const char *cmd, const char *path, int named, const JlCliSim *o, const char *outdir, int quiet,
                 JlScene *sc, JlWorld *w, JlCliTiming *t) {
  char err[4096];
  if (jl_scene_open(path, sc, err, sizeof err)) {
    fprintf(stderr, "jelly %s: %s\n", cmd, jl_cli_msg(err));
    if (!named) fprintf(stderr, "jelly %s: (run from the repository root, or name a scene file)\n", cmd);
    return JL_ERR_INPUT;
  }
  if (!jl_cli_timing(cmd, o, sc, path, t)) {
    jl_scene_free(sc);
    return JL_ERR_INPUT;
  }
  /* before the build, which may take long: an output folder we cannot make is the system's refusal */
  if (outdir && jl_cli_make_dirs(outdir) != 0) {
    fprintf(stderr, "jelly %s: cannot create output folder '%s': %s\n", cmd, outdir, strerror(errno));
    jl_scene_free(sc);
    return JL_ERR_SYSTEM;
  }
  int tty = isatty(STDERR_FILENO) && !quiet;
  double t0 = jl_seconds();
  if (tty) fprintf(stderr, "jelly: building %s ...", path), fflush(stderr);
  JlModel model;
  JlResult r = jl_scene_build(sc, &model, quiet ? NULL : stderr, err, sizeof err);
  if (tty) fprintf(stderr, "\r\033[K");
  if (!r) {
    r = jl_world_create(w, &model, &sc->step, err, sizeof err);
    if (r) jl_model_free(&model);
  }
  if (r) {
    fprintf(stderr, "jelly %s: %s\n", cmd, jl_cli_msg(err));
    jl_scene_free(sc);
    return r;
  }
  double build_s = jl_seconds() - t0;
  if (!jl_cli_timing_world(cmd, sc, w, t)) {
    jl_world_destroy(w);
    jl_scene_free(sc);
    return JL_ERR_INPUT;
  }
  if (!quiet) {
    jl_cli_print_header(stdout, path, sc, w->model, t);
    printf("built in   %.2f s\n", build_s);
    fflush(stdout);
  }
  return JL_OK;
}
