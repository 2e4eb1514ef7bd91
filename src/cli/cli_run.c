/* `jelly run`: simulate a scene headlessly and write what happened.
 *
 *   jelly run [SCENE] [--out DIR] [--frames N] [--dt S] [--fps F]
 *             [--integrator NAME] [--threads N] [--obj] [--vtk-ascii] [--quiet]
 *             [--no-preview] [--strict] [--checkpoint-every N] [--resume FILE]
 *             [--mesh-timeout S] [--mesh-memory MB] [--mesh-max-file MB]
 *
 * Output in DIR (default out/<scene name>): stats.csv (one row per output
 * frame, frame 0 being the initial state), scene.pvd + frame_NNNN.vtu (one
 * grid per frame for ParaView: volumes' tets, cloth triangles and rope
 * segments as cells, with velocity and strain fields), scene_all.pvd +
 * frame_NNNN.vtm (per frame a multiblock of that grid and, per body with a
 * surface, frame_NNNN_<body>.vtp: a volume's embedded surface or a cloth's
 * triangles with normals, a rope's polyline; what the viewer draws), VTK
 * files as appended binary with zlib or, with --vtk-ascii, ASCII (the .vtu
 * and scene.pvd then byte-identical to Jelly before binary output) and,
 * with --obj,
 * <body>_NNNN.obj (volumes' embedded surfaces, cloth with both sides, ropes
 * as polylines; for Blender), and preview.png, a contact sheet of six evenly
 * spaced frames drawn headless by render/ (not with --no-preview), and
 * jelly_manifest.txt, the names of every file the run wrote. Each
 * frame of 1/fps seconds is split into equal steps no longer than dt; a dt
 * longer than a frame is bad input (exit 2). Divergence
 * stops the run with exit 1 naming body, frame and likely cause. Steps whose
 * linear solver stopped at its iteration cap are counted per frame
 * (stats.csv cg_failed) and summed up in one warning; with --strict they make
 * the run exit 1 once the outputs are written. Bodies that start inside each
 * other, below the ground or inside an obstacle are warned about
 * (src/overlap.h); the run goes on. Numerical trouble the world counted
 * (JlWarnings: contacts at the push-out limit, NaN/Inf in rejected steps)
 * is summed up in one warning per kind at the end.
 *
 * Checkpoints (src/state.h): --checkpoint-every N writes
 * DIR/checkpoint_NNNN.jlck after every N-th frame; --resume FILE loads one
 * into the freshly built world and goes on with the frame after it, so the
 * rest of the run is bitwise what the uninterrupted run computes. The frame
 * is found by replaying the run's frame times (t is summed step by step, so
 * a checkpoint from another --dt or --fps matches no frame: exit 2, as for
 * any bad checkpoint). stats.csv keeps the rows up to that frame if DIR has
 * them and continues after it; scene.pvd lists every frame; frames up to the
 * checkpoint's are not rewritten and preview.png is not drawn (it needs the
 * whole run).
 *
 * Never two runs in one folder: a run into DIR first deletes exactly the
 * files DIR/jelly_manifest.txt lists (a resumed run keeps those of frames up
 * to its checkpoint, stats.csv and the checkpoint it resumes from), lists
 * every file it may write there before writing any (so a killed run is
 * cleaned up too) and at the end lists what it wrote. A folder with frames
 * or scene .pvd files but no manifest (an older Jelly's run, someone else's
 * files), or a manifest naming anything but files a run writes in DIR, is
 * refused (exit 2) before anything is built or deleted. `jelly render` keeps
 * the same manifest (src/cli/cli_run_manifest.c): a run deletes the PNG
 * frames and movie.mp4 a render listed, and a folder with PNG frames or
 * movie.mp4 but no manifest is refused too.
 *
 * Ctrl-C or SIGTERM (src/cli/cli_signal.c) stops the run before its next
 * step: the frame in progress is dropped (no row, no files), and stats.csv,
 * scene.pvd, scene_all.pvd, preview.png (the tiles captured so far) and the
 * manifest are written for the frames already on disk; the run says so on
 * stderr and exits 130. A second signal exits 130 at once. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/render.h"
#include "src/cli/cli.h"
#include "src/cli/cli_run_internal.h"
#include "src/contact.h"
#include "src/model_cloth.h"
#include "src/output.h"
#include "src/overlap.h"
#include "src/scene.h"
#include "src/state.h"
#include "src/stats.h"
#include "src/volume.h"

#define DEFAULT_SCENE "models/scenes/default.json"

/* the most output frames of one jelly run: every frame's files are planned
 * (and listed in the manifest) before the run starts */
#define JL_RUN_MAX_FRAMES 1000000

typedef struct RunArgs {
  const char *scene;
  const char *out;
  JlCliSim sim; /* --dt, --fps, --frames, --integrator, --threads */
  int obj;
  int vtk_ascii; /* ASCII VTK files instead of appended binary with zlib */
  int quiet;
  int no_preview;
  int strict;           /* exit 1 when any step's linear solver hit its iteration cap */
  int checkpoint_every; /* frames between checkpoints, 0 = none */
  const char *resume;   /* checkpoint to continue from, or NULL */
} RunArgs;

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: jelly run [SCENE] [--out DIR] [--frames N] [--dt S] [--fps F]\n"
          "                 [--integrator implicit|symplectic|euler|midpoint|rk4|verlet|\n"
          "                               implicit_midpoint]\n"
          "                 [--threads N] [--obj] [--vtk-ascii] [--quiet] [--no-preview]\n"
          "                 [--strict] [--checkpoint-every N] [--resume FILE]\n"
          "                 [--mesh-timeout S] [--mesh-memory MB] [--mesh-max-file MB]\n"
          "\n"
          "Simulates SCENE (default " DEFAULT_SCENE
          "; a mesh runs as one\n"
          "body dropped on the ground) and writes DIR/stats.csv,\n"
          "DIR/scene.pvd with one frame_NNNN.vtu per frame (the simulation grid),\n"
          "DIR/scene_all.pvd with one frame_NNNN.vtm per frame (the grid and each body's\n"
          "surface as frame_NNNN_<body>.vtp: open it in ParaView to see what the viewer\n"
          "shows), DIR/preview.png (a contact sheet of six frames; not with --no-preview),\n"
          "with --obj DIR/<body>_NNNN.obj, and DIR/" MANIFEST
          ", the files written.\n"
          "DIR defaults to out/<scene name>. A run first deletes the files of the run\n"
          "DIR's manifest lists; it refuses a DIR with frames but no manifest.\n"
          "\n"
          "  --out DIR    output folder\n"
          "  --frames N   output frames after frame 0, at most 1000000 (default: the\n"
          "               scene's duration x fps)\n" JL_CLI_SIM_HELP
          "  --obj        also write each body's surface per frame as .obj\n"
          "  --vtk-ascii  VTK files as ASCII text (default: appended binary, zlib)\n"
          "  --quiet      print nothing on success (warnings and errors still go to stderr)\n"
          "  --no-preview no preview.png\n"
          "  --strict     exit 1 if the linear solver hit its iteration cap in any step\n"
          "               (otherwise a warning), after writing the outputs\n"
          "  --checkpoint-every N\n"
          "               write DIR/checkpoint_NNNN.jlck after every N-th frame\n"
          "  --resume FILE\n"
          "               continue from a checkpoint of this scene (same --dt, --fps):\n"
          "               frames after it; stats.csv keeps DIR's rows up to it; no\n"
          "               preview.png\n" JL_CLI_MESH_LIMITS_HELP
          "\n"
          "Warns about bodies that start inside each other, below the ground or inside an\n"
          "obstacle.\n" JL_CLI_EXIT_HELP);
}

/* the flags of run besides the shared ones (JL_CLI_SIM_HELP, the mesh
 * limits): JL_CLI_GO, 0 after --help or 2 after an error (src/cli/cli.h) */
static int parse_args(int argc, char **argv, RunArgs *a) {
  memset(a, 0, sizeof *a);
  jl_cli_sim_init(&a->sim);
  /* every frame's files are planned (and listed in the manifest) before the run: about 250 bytes of
   * memory and a manifest line per file, so a million frames at most */
  a->sim.max_frames = JL_RUN_MAX_FRAMES;
  const JlCliFlag flags[] = {
      JL_CLI_FLAG_TEXT("--out", &a->out, "folder name"),
      JL_CLI_FLAG_INT("--frames", &a->sim.frames, 0, 100000000),
      JL_CLI_FLAG_SWITCH("--obj", &a->obj),
      JL_CLI_FLAG_SWITCH("--vtk-ascii", &a->vtk_ascii),
      JL_CLI_FLAG_SWITCH("--quiet", &a->quiet),
      JL_CLI_FLAG_SWITCH("--no-preview", &a->no_preview),
      JL_CLI_FLAG_SWITCH("--strict", &a->strict),
      JL_CLI_FLAG_INT("--checkpoint-every", &a->checkpoint_every, 1, 100000000),
      JL_CLI_FLAG_TEXT("--resume", &a->resume, "checkpoint file"),
  };
  JlCliSpec spec = {"run", flags, (int)(sizeof flags / sizeof flags[0]), &a->sim, &a->scene, "scene", run_usage};
  return jl_cli_parse(&spec, argc, argv);
}

/* Frame times as the run computes them (jl_world_step sets t = t_start + h,
 * step by step), so a checkpoint's t names its frame exactly. time has
 * nframes + 1 entries. */
static void frame_times(int nframes, int steps, double h, double *time) {
  double t = 0.0;
  time[0] = t;
  for (int f = 1; f <= nframes; f++) {
    for (int k = 0; k < steps; k++) t = t + h;
    time[f] = t;
  }
}

/* stats.csv of a resumed run: the header and the rows of frames 0 .. last
 * that DIR's stats.csv already has (none when there is none), opened for
 * the rows that follow; NULL when it cannot be written */
static FILE *resume_stats(const char *path, int last) {
  FILE *old = fopen(path, "r");
  char *keep = NULL;
  size_t nkeep = 0;
  if (old) {
    size_t cap = 1 << 16;
    keep = jl_calloc(cap, 1);
    char line[4096];
    int header = 1;
    while (fgets(line, sizeof line, old)) {
      size_t len = strlen(line);
      if (!header) {
        char *end = NULL;
        long frame = strtol(line, &end, 10);
        if (end == line || *end != ',' || frame > last) break;
      }
      header = 0;
      if (nkeep + len + 1 > cap) {
        cap = 2 * (nkeep + len + 1);
        keep = jl_realloc(keep, cap, 1);
      }
      memcpy(keep + nkeep, line, len);
      nkeep += len;
    }
    fclose(old);
  }
  FILE *f = fopen(path, "w");
  if (f && nkeep) fwrite(keep, 1, nkeep, f);
  free(keep);
  return f;
}

/* a length in the unit that reads best */
static void format_length(double d, char *out, size_t n) {
  if (d >= 1.0)
    snprintf(out, n, "%.3g m", d);
  else if (d >= 0.01)
    snprintf(out, n, "%.3g cm", 100.0 * d);
  else
    snprintf(out, n, "%.3g mm", 1000.0 * d);
}

/* one warning per pair of bodies, body and ground, body and obstacle that
 * overlap at the start (src/overlap.h); the run goes on */
static void warn_overlaps(const JlModel *m, const double *x) {
  enum { SHOWN = 10 };
  JlOverlap ov[SHOWN];
  int n = jl_initial_overlaps(m, x, ov, SHOWN);
  for (int i = 0; i < n && i < SHOWN; i++) {
    char depth[64];
    format_length(ov[i].depth, depth, sizeof depth);
    const char *name = m->body[ov[i].a].name;
    if (ov[i].b >= 0) {
      fprintf(stderr,
              "jelly run: warning: bodies '%s' and '%s' overlap by %s at the start; contacts will push "
              "them apart\n",
              name, m->body[ov[i].b].name, depth);
    } else if (ov[i].b == JL_OVERLAP_GROUND) {
      fprintf(stderr,
              "jelly run: warning: body '%s' starts %s below the ground plane (y = %g m); the ground will "
              "push it up\n",
              name, depth, m->world.ground_y);
    } else {
      int o = -2 - ov[i].b;
      fprintf(stderr,
              "jelly run: warning: body '%s' starts %s inside obstacles[%d] (%s); contacts will push it "
              "out\n",
              name, depth, o, jl_obstacle_type_name(m->obstacle[o].type));
    }
  }
  if (n > SHOWN) fprintf(stderr, "jelly run: warning: and %d more overlaps at the start\n", n - SHOWN);
}

/* every file a run from frame `first` to nframes may write (besides kept) */
static void planned_files(const JlModel *m, const RunArgs *a, int first, int nframes, Names *l) {
  char name[256];
  run_names_add(l, "stats.csv");
  run_names_add(l, "scene.pvd");
  run_names_add(l, "scene_all.pvd");
#ifdef JELLY_RENDER
  if (!a->no_preview) run_names_add(l, "preview.png");
#endif
  for (int f = a->resume ? first + 1 : 0; f <= nframes; f++) {
    snprintf(name, sizeof name, "frame_%04d.vtu", f);
    run_names_add(l, name);
    snprintf(name, sizeof name, "frame_%04d.vtm", f);
    run_names_add(l, name);
    for (int b = 0; b < m->nbody; b++) {
      if (m->body[b].surface.nvert == 0) continue;
      snprintf(name, sizeof name, "frame_%04d_%s.vtp", f, m->body[b].name);
      run_names_add(l, name);
      if (a->obj) {
        snprintf(name, sizeof name, "%s_%04d.obj", m->body[b].name, f);
        run_names_add(l, name);
      }
    }
    if (a->checkpoint_every > 0 && f > 0 && f % a->checkpoint_every == 0) {
      snprintf(name, sizeof name, "checkpoint_%04d.jlck", f);
      run_names_add(l, name);
    }
  }
}

int jl_cli_run(int argc, char **argv) {
  RunArgs a;
  int rc = parse_args(argc, argv, &a);
  if (rc != JL_CLI_GO) return rc;
  char default_buf[4200];
  const char *scene_path = a.scene ? a.scene : jl_cli_default_scene(default_buf, sizeof default_buf);
  char err[4096], outdir[4096];
  jl_cli_out_dir(scene_path, a.out, outdir, sizeof outdir);
  /* an earlier run in DIR: its manifest, or a refusal before anything is built */
  Names old = {0};
  int has_manifest = run_manifest_read(outdir, &old, "run");
  if (has_manifest < 0 || (has_manifest == 0 && run_foreign_files(outdir, "run"))) return JL_ERR_INPUT;
  JlScene sc;
  JlWorld w;
  JlCliTiming tm;
  JlResult r = jl_cli_start("run", scene_path, a.scene != NULL, &a.sim, outdir, a.quiet, &sc, &w, &tm);
  if (r) {
    run_names_free(&old);
    return r;
  }
  /* from here on Ctrl-C and SIGTERM end the run at the next step, with its files written */
  jl_cli_catch_interrupts();
  int nframes = tm.nframes, steps_per_frame = tm.steps;
  double h = tm.h;
  int tty = isatty(STDERR_FILENO) && !a.quiet;
  const JlModel *m = w.model;
  double *ftime = jl_calloc((size_t)nframes + 1, sizeof(double));
  frame_times(nframes, steps_per_frame, h, ftime);
  int first = 0; /* the frame the run starts from: 0, or the checkpoint's */
  if (a.resume) {
    r = jl_checkpoint_load(&w, a.resume, err, sizeof err);
    if (r) {
      fprintf(stderr, "jelly run: %s\n", jl_cli_msg(err));
      run_names_free(&old);
      free(ftime);
      jl_world_destroy(&w);
      jl_scene_free(&sc);
      return JL_ERR_INPUT;
    }
    first = -1;
    for (int f = 0; f <= nframes && first < 0; f++)
      if (ftime[f] == w.state.t) first = f;
    if (first < 0) {
      fprintf(stderr,
              "jelly run: checkpoint '%s' is at t = %.9g s, which is no frame of this run (%d frames of "
              "%d steps of %.6g s): resume with the --dt, --fps and --frames it was written with\n",
              a.resume, w.state.t, nframes, steps_per_frame, h);
      run_names_free(&old);
      free(ftime);
      jl_world_destroy(&w);
      jl_scene_free(&sc);
      return JL_ERR_INPUT;
    }
    if (!a.quiet) printf("resumed    from %s at frame %d (t = %.4g s)\n", a.resume, first, w.state.t);
    a.no_preview = 1;
  } else {
    warn_overlaps(m, w.state.x);
  }

  /* the earlier run's files go (a resume keeps its frames up to the
   * checkpoint); the manifest lists what this run may write before it
   * writes anything */
  Names kept = {0}, planned = {0};
  int status = 0;
  int other = run_names_other(&old, "run");
  if (other > 0 && !a.quiet)
    fprintf(stderr, "jelly run: note: deleting the %d files (PNG frames, movie) of the jelly render in '%s' first\n",
            other, outdir);
  if (run_manifest_clean(outdir, &old, a.resume ? first : -1, a.resume, &kept, "run") != 0) status = JL_ERR_SYSTEM;
  planned_files(m, &a, first, nframes, &planned);
  if (!status && run_manifest_write(outdir, &kept, &planned, "run") != 0) status = JL_ERR_SYSTEM;
  run_names_free(&old);
  run_names_free(&planned);

  /* output buffers */
  Outputs o = {0};
  o.dir = outdir;
  o.enc = a.vtk_ascii ? JL_VTK_ASCII : JL_VTK_BINARY;
  o.time = jl_calloc((size_t)nframes + 1, sizeof(double));
  o.file = jl_calloc((size_t)nframes + 1, sizeof(char *));
  o.vtm = jl_calloc((size_t)nframes + 1, sizeof(char *));
  o.node_strain = jl_calloc((size_t)m->nnode, sizeof(double));
  run_build_cells(m, &o);
  int maxv = 1, maxs = 1;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body[b].surface.nvert > maxv) maxv = m->body[b].surface.nvert;
    if (m->body[b].spring_count > maxs) maxs = m->body[b].spring_count;
  }
  o.surf_x = jl_calloc((size_t)maxv * 3, sizeof(double));
  o.surf_n = jl_calloc((size_t)maxv * 3, sizeof(double));
  o.seg = jl_calloc((size_t)maxs * 2, sizeof(int));
  o.grid_cache = jl_vtk_cache_new();
  o.nbody = m->nbody;
  o.body_cache = jl_calloc((size_t)m->nbody + 1, sizeof *o.body_cache);
  for (int b = 0; b < m->nbody; b++) o.body_cache[b] = jl_vtk_cache_new();

  char stats_path[4200];
  snprintf(stats_path, sizeof stats_path, "%s/stats.csv", outdir);
  if (status) goto done;
  FILE *stats = a.resume ? resume_stats(stats_path, first) : fopen(stats_path, "w");
  if (!stats) {
    fprintf(stderr, "jelly run: cannot write %s: %s\n", stats_path, strerror(errno));
    status = JL_ERR_SYSTEM;
    goto done;
  }
  if (!a.resume || ftell(stats) == 0)
    fprintf(
        stats,
        "frame,time,wall_ms,steps,cg_iterations,kinetic_energy,elastic_energy,"
        "gravity_energy,max_strain,min_y,contacts,contact_energy,cg_failed,inverted_tets,energy_splits,crossing_splits\n");
  /* the frames up to a resumed run's checkpoint are in DIR already: listed in scene.pvd, not rewritten */
  run_names_add(&o.written, "stats.csv");
  for (int f = 0; a.resume && f <= first; f++) {
    char name[64];
    snprintf(name, sizeof name, "frame_%04d.vtu", f);
    o.time[o.nframe] = ftime[f];
    o.file[o.nframe] = strdup(name);
    snprintf(name, sizeof name, "frame_%04d.vtm", f);
    o.vtm[o.nframe++] = strdup(name);
  }

  /* preview.png: the chosen frames' positions kept as they pass, drawn at the end (no display needed) */
  JlPreview *preview = a.no_preview ? NULL : jl_preview_create(nframes);
#ifndef JELLY_RENDER
  if (!a.no_preview && !a.quiet)
    fprintf(stderr, "jelly run: note: built without rendering (JELLY_RENDER=OFF): no preview.png\n");
#endif

  double wall_total = 0, ke_max = 0, write_total = 0; /* s stepping, J, s writing frames */
  long steps_total = 0, cg_total = 0, cg_failed_total = 0;
  int cg_failed_first = -1; /* first frame with a step whose CG hit its iteration cap */
  /* per body: most inverted tets in a frame and the first frame with any */
  int *inv_max = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  int *inv_first = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  int *inv_now = jl_calloc((size_t)m->nbody + 1, sizeof(int));
  long splits_total = 0, rises_total = 0;
  /* the last frame whose row and files are written (frame 0 always is); the frame an interrupt dropped after
   * some of its steps (-1: none, or the interrupt came between frames) */
  int last = first, dropped = -1;
  for (int frame = first; frame <= nframes; frame++) {
    int steps = 0, cg = 0, cg_failed = 0, splits = 0, crossing = 0, stop = 0;
    double ms = 0;
    if (frame == first && a.resume) continue; /* its row and files are the checkpointed run's */
    if (frame > 0) {
      double f0 = jl_seconds();
      for (int k = 0; k < steps_per_frame; k++) {
        /* Ctrl-C: this frame is dropped (polled every step, so a long frame stops promptly too) */
        if (jl_cli_interrupted()) {
          stop = 1;
          if (k > 0) dropped = frame;
          break;
        }
        JlStepReport rep;
        r = jl_world_step(&w, h, &rep);
        steps += rep.substeps;
        cg += rep.cg_iterations;
        cg_failed += rep.cg_failed;
        splits += rep.energy_splits;
        crossing += rep.crossing_splits;
        rises_total += rep.energy_rises;
        if (r) {
          if (tty) fprintf(stderr, "\n");
          fprintf(stderr, "jelly run: diverged in frame %d: %s\n", frame, jl_cli_msg(rep.message));
          status = 1;
          break;
        }
      }
      ms = 1e3 * (jl_seconds() - f0);
      if (stop) break;
      wall_total += ms * 1e-3;
      steps_total += steps;
      cg_total += cg;
      cg_failed_total += cg_failed;
      splits_total += splits;
      if (cg_failed > 0 && cg_failed_first < 0) cg_failed_first = frame;
    }
    JlStateStats st;
    jl_state_stats(&w, &st, inv_now);
    const JlEnergy e = st.energy; /* e.ground: all penalty energy (ground plane, bodies, obstacles) */
    if (e.kinetic > ke_max) ke_max = e.kinetic;
    for (int b = 0; b < m->nbody; b++) {
      if (inv_now[b] > 0 && inv_max[b] == 0) inv_first[b] = frame;
      if (inv_now[b] > inv_max[b]) inv_max[b] = inv_now[b];
    }
    fprintf(stats, "%d,%.9g,%.3f,%d,%d,%.12g,%.12g,%.12g,%.9g,%.12g,%d,%.12g,%d,%d,%d,%d\n", frame, w.state.t, ms,
            steps, cg, e.kinetic, e.elastic, e.gravity, st.max_strain, st.min_y, st.contacts, e.ground, cg_failed,
            st.inverted_tets, splits, crossing);
    if (status) break;
    double w0 = jl_seconds();
    JlResult wr = run_write_frame(&o, &w, frame, a.obj, err, sizeof err);
    write_total += jl_seconds() - w0;
    if (wr) {
      if (tty) fprintf(stderr, "\n");
      fprintf(stderr, "jelly run: %s\n", jl_cli_msg(err));
      status = JL_ERR_SYSTEM;
      break;
    }
    jl_preview_frame(preview, &w, frame);
    if (a.checkpoint_every > 0 && frame > 0 && frame % a.checkpoint_every == 0) {
      char ck[4200];
      snprintf(ck, sizeof ck, "%s/checkpoint_%04d.jlck", outdir, frame);
      if (jl_checkpoint_save(&w, ck, err, sizeof err)) {
        if (tty) fprintf(stderr, "\n");
        fprintf(stderr, "jelly run: %s\n", jl_cli_msg(err));
        status = JL_ERR_SYSTEM;
        break;
      }
      run_names_add(&o.written, strrchr(ck, '/') + 1);
    }
    last = frame;
    if (tty) jl_cli_progress(frame, nframes, w.state.t, wall_total);
  }
  if (tty) fprintf(stderr, "\n");
  /* interrupted (also while the last frame was written): the outputs below cover frames 0 .. last, exit 130 */
  int interrupted = !status && jl_cli_interrupted();
  int stats_ok = fclose(stats) == 0;
  if (!stats_ok && status == 0) {
    fprintf(stderr, "jelly run: write failed: %s: %s\n", stats_path, strerror(errno));
    status = JL_ERR_SYSTEM;
  }
  int pvd_ok = o.nframe > 0 && run_write_pvd(&o, err, sizeof err) == JL_OK;
  if (o.nframe > 0 && !pvd_ok) {
    fprintf(stderr, "jelly run: %s\n", jl_cli_msg(err));
    if (!status) status = JL_ERR_SYSTEM;
  }
  int preview_ok = 0;
  if (preview) {
    char png[4200];
    snprintf(png, sizeof png, "%s/preview.png", outdir);
    if (jl_preview_write(preview, png, err, sizeof err)) {
      fprintf(stderr, "jelly run: %s\n", jl_cli_msg(err));
      if (!status) status = JL_ERR_SYSTEM;
    } else {
      preview_ok = 1;
      run_names_add(&o.written, "preview.png");
    }
    jl_preview_destroy(preview);
  }
  /* the summary: also after a divergence (what was written), never with --quiet */
  if (!a.quiet) {
    jl_cli_print_simulated(stdout, interrupted ? ftime[last] : w.state.t, wall_total, steps_total, cg_total);
    printf("wrote      %s/stats.csv, %s/scene.pvd + %d .vtu frames, scene_all.pvd + .vtm/.vtp%s%s%s\n", outdir, outdir,
           o.nframe, a.vtk_ascii ? " (ASCII)" : "", a.obj ? ", .obj surfaces" : "", preview_ok ? ", preview.png" : "");
    if (o.nframe > 0)
      printf(
          "           frames written in %.3g s (%.3g ms per frame)\n", write_total,
          1e3 * write_total / (o.nframe - (a.resume ? first + 1 : 0) > 0 ? o.nframe - (a.resume ? first + 1 : 0) : 1));
  }
  /* inverted tets: a result that cannot be trusted there, per body */
  for (int b = 0; b < m->nbody; b++)
    if (inv_max[b] > 0) {
      fflush(stdout);
      fprintf(stderr,
              "jelly run: warning: body '%s' had inverted tets: up to %d of %d (%.3g %%), first in frame %d; "
              "its material is too soft for the load or the step (raise young_modulus or poisson_ratio, or "
              "lower dt)\n",
              m->body[b].name, inv_max[b], m->body[b].tet_count, 100.0 * inv_max[b] / m->body[b].tet_count,
              inv_first[b]);
    }
  /* the world's warnings no other line reports (src/world.h JlWarnings) */
  const JlWarnings *wn = &w.state.warnings;
  if (wn->count[JL_WARN_PUSH_OUT] > 0) {
    fflush(stdout);
    fprintf(stderr,
            "jelly run: warning: contacts pushed overlapping bodies apart at the push-out speed limit in "
            "%ld steps, first at t = %.4g s (contacts found already deep: an overlap at the start, or an "
            "impact that one step jumped into; a smaller --dt finds impacts earlier)\n",
            wn->count[JL_WARN_PUSH_OUT], wn->first_t[JL_WARN_PUSH_OUT]);
  }
  if (wn->count[JL_WARN_NONFINITE] > 0) {
    fflush(stdout);
    fprintf(stderr, "jelly run: warning: %ld steps were undone after a NaN/Inf; first: %s\n",
            wn->count[JL_WARN_NONFINITE], wn->first[JL_WARN_NONFINITE]);
  }
  if (rises_total > 0) {
    fflush(stdout);
    fprintf(stderr, "jelly run: warning: %ld steps created energy even at 1/%d of the time step; lower dt\n",
            rises_total, 1 << (JL_GUARD_DEPTH - 1));
  }
  free(inv_max);
  free(inv_first);
  free(inv_now);
  /* steps whose linear solver stopped at its cap: one warning, or exit 1 with --strict */
  if (cg_failed_total > 0) {
    fflush(stdout);
    fprintf(stderr,
            "jelly run: warning: the linear solver hit its iteration cap (%d) in %ld of %ld steps, first in "
            "frame %d; results may be inaccurate (try a smaller --dt or a larger solver.max_iterations in "
            "the scene)\n",
            w.def.max_iterations, cg_failed_total, steps_total, cg_failed_first);
    if (a.strict && status == 0 && !interrupted) {
      fprintf(stderr, "jelly run: --strict: exit 1 because the linear solver did not converge in every step\n");
      status = 1;
    }
  }

  /* the manifest: what this run wrote (and a resume kept) */
  int manifest_ok = run_manifest_write(outdir, &kept, &o.written, "run") == 0;
  if (!manifest_ok && !status) status = JL_ERR_SYSTEM;
  /* an interrupt: what is on disk, even with --quiet; exit 130 unless an output failed (exit 3, said above) */
  if (interrupted) {
    fflush(stdout);
    char drop[96] = "";
    if (dropped >= 0) snprintf(drop, sizeof drop, "; frame %d, in progress, was dropped", dropped);
    fprintf(stderr, "jelly run: interrupted at frame %d of %d (t = %.4g s): wrote %s/%s%s with frames 0 to %d%s%s%s\n",
            last, nframes, ftime[last], outdir, pvd_ok ? "scene.pvd, scene_all.pvd, " : "",
            stats_ok ? "stats.csv" : "frames", last, preview_ok ? ", preview.png" : "",
            manifest_ok ? ", " MANIFEST : "", drop);
    if (!status) status = JL_CLI_INTERRUPTED;
  }

done:
  free(ftime);
  for (int i = 0; i < o.nframe; i++) free(o.file[i]), free(o.vtm[i]);
  run_names_free(&kept);
  run_names_free(&o.written);
  jl_vtk_cache_free(o.grid_cache);
  for (int b = 0; b < o.nbody; b++) jl_vtk_cache_free(o.body_cache[b]);
  free(o.body_cache);
  JL_FREE_ALL(o.vtm, o.time, o.file, o.node_strain, o.cell_offset, o.cell_conn, o.cell_type, o.cell_rest, o.cell_body,
              o.cell_strain, o.body_cell, o.seg, o.surf_x, o.surf_n);
  jl_world_destroy(&w);
  jl_scene_free(&sc);
  return status;
}
