/* The interactive viewer behind `jelly view`: an SDL2 window, orbit camera,
 * mouse drag of bodies, keys for pause/step/reset/spawn/gravity/time
 * step/integrator/debug layers/screenshots, a HUD, real-time pacing, and a
 * scripted mode for tests.
 *
 * Pacing: interactive runs step on a worker thread (viewer_stepper.c); each
 * displayed frame grants it the wall-clock time since the previous one
 * (capped at 0.1 s) as simulated time, what it cannot step within 0.1 s is
 * dropped, and the HUD shows the ratio of wall-clock to simulated time. The
 * window draws the state of the last finished step and holds the world for
 * what reads or changes it. Without the thread the frame itself takes steps
 * while the budget lasts and it has spent less than 30 ms stepping. With
 * --frames the viewer runs unpaced instead, on the window's thread: exactly
 * one output frame (1/fps s, split into steps like `jelly run`) per displayed
 * frame, so scripted runs are reproducible.
 *
 * The camera frames all bodies at the start and follows them
 * (jl_camera_follow: slow recentring and zooming in, an immediate step back
 * when a body would leave the picture) until the user orbits, pans or zooms;
 * it holds still during a drag, and F frames the bodies and follows again.
 *
 * The world is only changed through the public API: the drag force element
 * (src/drag.c), removing and re-adding the gravity element of the force
 * table, the integrator and time-step settings, and rebuilding the world
 * from the scene for reset and spawning (spawned bodies are appended to the
 * in-memory scene; the state of the existing nodes is carried over).
 * A diverging explicit integrator (jl_world_step returns JL_ERR_RUNTIME and
 * leaves the state as it was) pauses the viewer with the message in the HUD
 * until `R` resets.
 *
 * The viewer's parts: src/cli/viewer_internal.h. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/cli.h"
#include "src/cli/viewer_internal.h"
#include "src/state.h"

/* the frame rate of an interactive run while the solver is behind real time */
#define JL_VIEW_BEHIND_FPS 33.0

JlViewerDef jl_default_viewer_def(void) {
  JlViewerDef d;
  memset(&d, 0, sizeof d);
  d.width = 1280;
  d.height = 720;
  d.history = 10.0;
  return d;
}

static void write_report(Viewer *v, const char *status) {
  if (!v->def.report) return;
  FILE *f = fopen(v->def.report, "w");
  if (!f) {
    fprintf(stderr, "jelly view: cannot write report '%s'\n", v->def.report);
    return;
  }
  double right[3], up[3], fwd[3];
  jl_camera_basis(&v->cam, right, up, fwd);
  fprintf(f, "scene %s\nframes %d\nstatus %s\ntime %.9g\n", v->scene.path, v->frame, status, v->world.state.t);
  if (v->script_error[0]) fprintf(f, "error %s\n", v->script_error);
  /* the state at the end, bitwise (tests compare runs by it) */
  fprintf(f, "state_hash %016llx\n", (unsigned long long)jl_state_hash(&v->world.state));
  TimelineSpan span;
  jl_timeline_span(&v->tl, &span);
  fprintf(f, "history_frames %d\nhistory_seconds %.9g\nhistory_bytes %zu\n", span.count, span.t1 - span.t0, span.bytes);
  if (v->def.seconds > 0) {
    /* the interactive run's pace: displayed frames per wall second, wall seconds per simulated second
     * while running (1 = real time) */
    double wall = jl_seconds() - v->t_start;
    fprintf(f, "frames_per_second %.4g\nwall_per_simulated_second %.4g\nbodies %d\nsteps_per_second %.4g\n",
            wall > 0 ? v->frame / wall : 0.0, v->sim_total > 0 ? v->wall_total / v->sim_total : 0.0,
            v->world.model->nbody, wall > 0 ? v->steps_total / wall : 0.0);
  }
  fprintf(f, "camera_right %.9g %.9g %.9g\ncamera_up %.9g %.9g %.9g\n", right[0], right[1], right[2], up[0], up[1],
          up[2]);
  for (int b = 0; b < v->world.model->nbody; b++) {
    double c1[3];
    jl_viewer_body_com(&v->world, b, c1);
    const double *c0 = b < v->nbody0 ? v->com0[b] : c1;
    fprintf(f, "body %d %s com_start %.9g %.9g %.9g com_end %.9g %.9g %.9g\n", b, v->world.model->body[b].name, c0[0],
            c0[1], c0[2], c1[0], c1[1], c1[2]);
  }
  if (v->drag_body >= 0)
    fprintf(f, "drag body %d from_frame %d to_frame %d\n", v->drag_body, v->drag_from,
            v->drag_to >= 0 ? v->drag_to : v->frame);
  fclose(f);
}

int jl_viewer_run(const JlViewerDef *def) {
  Viewer v;
  memset(&v, 0, sizeof v);
  v.def = *def;
  if (v.def.width <= 0) v.def.width = 1280;
  if (v.def.height <= 0) v.def.height = 720;
  v.drag_body = -1;
  v.drag_to = -1;
  v.rng = 12345u;
  v.opt = jl_default_render_options();
  v.opt.layers = def->layers;
  if (def->script && !jl_viewer_load_script(def->script, &v.ev, &v.nev)) return 2;

  /* the scene file first (bad input exits 2), then a display: without one
   * the window loop would run unseen (SDL falls back to its offscreen or
   * dummy driver), so say so at once, before the world is built. Only
   * scripted runs (--frames), which show nothing to anyone, may run there. */
  char err[4096];
  int status = 0;
  if (jl_scene_open(def->scene, &v.scene, err, sizeof err)) {
    fprintf(stderr, "jelly view: %s\n", jl_cli_msg(err));
    free(v.ev);
    return 2;
  }
  /* no display in the environment: an interactive run stops here, before SDL (whose video drivers
   * would print their own complaints, e.g. about XDG_RUNTIME_DIR, ahead of this message); a scripted
   * run takes SDL's windowless drivers unless the user chose one */
  const char *display = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY"),
             *driver_env = getenv("SDL_VIDEODRIVER");
  if (!(display && display[0]) && !(wayland && wayland[0]) && !(driver_env && driver_env[0])) {
    if (def->frames <= 0) {
      fprintf(stderr,
              "jelly view: no display: use `jelly render` for headless PNG frames (neither DISPLAY nor "
              "WAYLAND_DISPLAY is set; run under xvfb-run, or give --frames N for a scripted run)\n");
      jl_scene_free(&v.scene);
      free(v.ev);
      return JL_ERR_SYSTEM;
    }
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen,dummy");
  }
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    fprintf(stderr,
            "jelly view: no display: use `jelly render` for headless PNG frames (%s; set DISPLAY or "
            "WAYLAND_DISPLAY, or run under xvfb-run)\n",
            SDL_GetError());
    SDL_Quit();
    jl_scene_free(&v.scene);
    free(v.ev);
    return JL_ERR_SYSTEM;
  }
  const char *driver = SDL_GetCurrentVideoDriver();
  if (def->frames <= 0 &&
      (!driver || strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0 || strcmp(driver, "evdev") == 0)) {
    fprintf(stderr,
            "jelly view: no display: use `jelly render` for headless PNG frames (SDL's video driver "
            "'%s' shows no window; set DISPLAY or WAYLAND_DISPLAY, or run under xvfb-run)\n",
            driver ? driver : "none");
    SDL_Quit();
    jl_scene_free(&v.scene);
    free(v.ev);
    return JL_ERR_SYSTEM;
  }

  /* the world: a mesh that cannot be built exits 2 before any window opens */
  if (def->integrator) v.scene.step.integrator = jl_integrator_parse(def->integrator);
  if (def->threads > 0) v.scene.step.threads = def->threads;
  if (def->fps > 0) v.scene.fps = def->fps;
  v.frame_dt = 1.0 / v.scene.fps;
  jl_timeline_init(&v.tl, def->history, v.frame_dt);
  pthread_mutex_init(&v.plots.lock, NULL);
  atomic_store(&v.plots.on, def->plots != 0);
  /* the checks `jelly run` makes (src/cli/cli_sim.c): a given step no longer than a frame, at most 1e7 per frame */
  if ((def->dt > 0 || v.scene.dt_set) && jl_dt_too_long(def->dt > 0 ? def->dt : v.scene.dt, v.frame_dt)) {
    fprintf(stderr, "jelly view: %s %.9g s is longer than one frame (1/fps = %.9g s); %s or raise fps (--fps)\n",
            def->dt > 0 ? "--dt" : "the scene's dt", def->dt > 0 ? def->dt : v.scene.dt, v.frame_dt,
            def->dt > 0 ? "lower --dt" : "lower dt (or give --dt)");
    status = 2;
    goto done;
  }
  if (def->dt > 0 && v.frame_dt / def->dt > 1e7) {
    fprintf(stderr, "jelly view: --dt %g s would need %.3g steps per frame (at most 1e7); raise --dt\n", def->dt,
            v.frame_dt / def->dt);
    status = 2;
    goto done;
  }
  v.h = jl_world_step_plan(NULL, v.scene.step.integrator, v.frame_dt, def->dt > 0 ? def->dt : v.scene.dt, 0, 0.0).h;
  if (!jl_viewer_build_world(&v, NULL)) {
    status = 2;
    goto done;
  }
  /* explicit integrators without a dt: the stable default (as `jelly run`) */
  v.h_given = def->dt > 0 || v.scene.dt_set;
  if (!v.h_given) v.h = jl_viewer_default_step(&v, v.scene.step.integrator);

  v.win = SDL_CreateWindow("jelly", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, v.def.width, v.def.height,
                           SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  if (!v.win) {
    fprintf(stderr,
            "jelly view: no display: cannot open a window (%s); use `jelly render` for headless PNG "
            "frames\n",
            SDL_GetError());
    status = JL_ERR_SYSTEM;
    goto done;
  }
  Uint32 flags = def->frames > 0 ? 0 : SDL_RENDERER_PRESENTVSYNC;
  v.sdl = SDL_CreateRenderer(v.win, -1, flags);
  if (!v.sdl) v.sdl = SDL_CreateRenderer(v.win, -1, SDL_RENDERER_SOFTWARE);
  if (!v.sdl) {
    fprintf(stderr, "jelly view: cannot create a renderer: %s\n", SDL_GetError());
    status = JL_ERR_SYSTEM;
    goto done;
  }
  int ow = v.def.width, oh = v.def.height;
  if (SDL_GetRendererOutputSize(v.sdl, &ow, &oh) != 0 || ow <= 0 || oh <= 0) ow = v.def.width, oh = v.def.height;
  v.r = jl_renderer_wrap(v.sdl, ow, oh);
  v.cam.fov_deg = 40;
  jl_viewer_frame_camera(&v);

  /* centres of mass at the start, for the report */
  v.nbody0 = v.world.model->nbody;
  v.com0 = jl_calloc((size_t)v.nbody0 + 1, sizeof *v.com0);
  for (int b = 0; b < v.nbody0; b++) jl_viewer_body_com(&v.world, b, v.com0[b]);

  double last = jl_seconds(), budget = 0, fps_t0 = last, sim_acc = 0, wall_acc = 0;
  int fps_frames = 0;
  v.t_start = last;
  /* interactive runs step on a worker thread (viewer_stepper.c); without
   * one, or scripted, the steps are taken here between frames */
  v.shown = &v.world;
  if (def->frames <= 0 && !jl_viewer_stepper_start(&v))
    fprintf(stderr, "jelly view: no stepping thread; stepping between frames\n");
  const unsigned contacts_layer = 1u << JL_LAYER_CONTACTS;
  while (!v.quit) {
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
      /* scripted runs take no input but the script's (its drops arrive as SDL_DROPFILE) */
      if (def->frames > 0 && e.type != SDL_QUIT && e.type != SDL_WINDOWEVENT && e.type != SDL_DROPFILE) continue;
      if (jl_viewer_event_needs_world(&v, &e)) jl_viewer_hold(&v);
      jl_viewer_handle_event(&v, &e);
    }
    if (v.quit) break;
    double now = jl_seconds(), wall = now - last, wall_true = wall;
    last = now;
    if (wall > 0.1) wall = 0.1; /* the simulated time a frame may ask for; the HUD's pace uses wall_true */
    if (v.meshing && atomic_load(&v.mesh_done)) jl_viewer_hold(&v);
    jl_viewer_spawn_poll(&v, 0); /* a spawned body whose mesh is ready joins the world */

    if (def->frames > 0) {
      /* scripted: one output frame of simulated time per displayed frame */
      jl_viewer_run_script(&v);
      if (v.quit) break;
      jl_viewer_drag_update(&v, v.frame_dt);
      int n = (int)floor(v.frame_dt / v.h + 0.5);
      if (n < 1) n = 1;
      if (!v.paused)
        for (int k = 0; k < n && jl_viewer_step(&v); k++) {
        }
      else if (v.step_once)
        jl_viewer_step(&v);
    } else if (v.stepper.running) {
      /* interactive: the worker follows the wall clock while the solver keeps
       * up; the window holds the world only for what reads or changes it */
      if (jl_viewer_script_due(&v)) {
        jl_viewer_hold(&v);
        jl_viewer_run_script(&v); /* --seconds: events by displayed frame */
      }
      if (v.quit) break;
      if (v.dragging) {
        jl_viewer_hold(&v);
        jl_viewer_drag_update(&v, wall);
      }
      if (v.opt.layers & contacts_layer) jl_viewer_hold(&v); /* drawn from the contact element itself */
      double simulated = jl_viewer_stepper_frame(&v, wall);
      if (!v.paused) {
        sim_acc += simulated;
        wall_acc += wall_true;
        v.sim_total += simulated;
        v.wall_total += wall_true;
      }
      if (!(v.opt.layers & contacts_layer)) jl_viewer_release(&v);
    } else {
      /* interactive without the worker: follow the wall clock while the solver keeps up */
      if (v.nev > 0) jl_viewer_run_script(&v); /* --seconds: events by displayed frame */
      if (v.quit) break;
      jl_viewer_drag_update(&v, wall);
      double t0 = jl_seconds(), simulated = 0;
      if (!v.paused) {
        budget += wall;
        while (budget >= v.h && jl_seconds() - t0 < 0.030) {
          if (!jl_viewer_step(&v)) break;
          budget -= v.h;
          simulated += v.h;
        }
        if (budget > v.h) budget = 0; /* could not keep up: drop the debt */
        sim_acc += simulated;
        wall_acc += wall_true;
        v.sim_total += simulated;
        v.wall_total += wall_true;
      } else {
        budget = 0;
        if (v.step_once) jl_viewer_step(&v);
      }
    }
    v.step_once = 0;

    /* the camera follows the bodies until the user moves it; not while a
     * drag holds a point under the cursor */
    if (v.follow && !v.dragging)
      jl_camera_follow(&v.cam, v.shown, (double)v.r->width / v.r->height, def->frames > 0 ? v.frame_dt : wall);
    jl_render_world(v.r, v.shown, &v.cam, &v.opt);
    jl_viewer_draw_drag(&v);
    jl_viewer_draw_hud(&v);
    jl_viewer_draw_plots(&v);
    jl_viewer_draw_timeline(&v);
    jl_viewer_release(&v);
    jl_viewer_record_frame(&v);
    for (int i = 0; i < v.nev; i++)
      if (v.ev[i].type == EV_SCREENSHOT && v.ev[i].frame == v.frame) jl_viewer_screenshot(&v, v.ev[i].file);
    v.frame++;
    if (def->seconds > 0 && now - v.t_start >= def->seconds) v.quit = 1;
    if (def->frames > 0 && v.frame >= def->frames) {
      if (def->screenshot) jl_viewer_screenshot(&v, def->screenshot);
      v.quit = 1;
    }
    SDL_RenderPresent(v.sdl);
    /* while the solver is behind real time, at most JL_VIEW_BEHIND_FPS frames a second: drawing
     * takes a share of the cores that stepping needs more (default.json on two cores: 2.3 times
     * slower than real time at 34 frames per second, 2.7 at 58) */
    if (v.stepper.running && !v.paused && v.slowdown > 1.05) {
      double spent = jl_seconds() - now, frame = 1.0 / JL_VIEW_BEHIND_FPS;
      if (spent < frame) SDL_Delay((Uint32)(1e3 * (frame - spent)));
    }

    fps_frames++;
    if (now - fps_t0 >= 0.5) {
      v.fps = fps_frames / (now - fps_t0);
      v.slowdown = sim_acc > 0 ? wall_acc / sim_acc : (wall_acc > 0 && !v.paused ? 99 : 1);
      fps_frames = 0;
      fps_t0 = now;
      sim_acc = wall_acc = 0;
    }
  }
  jl_viewer_stepper_stop(&v); /* the world is this thread's again */
  jl_viewer_spawn_cancel(&v);
  if (v.rec.on) jl_viewer_record_toggle(&v); /* a recording under way ends with the run */
  if (v.quit == 2) status = 2;
  if (v.dragging) jl_viewer_drag_release(&v);
  write_report(&v, v.script_error[0] ? "script_error" : v.error[0] ? "diverged" : "ok");
  if (def->frames > 0 && v.error[0] && status == 0) status = 1;
  /* a script that did not do what it says is bad input: its run proves nothing */
  if (v.script_error[0]) {
    fprintf(stderr, "jelly view: %s\n", v.script_error);
    status = 2;
  }

done:
  if (v.r) {
    jl_font_destroy(v.r);
    jl_renderer_destroy(v.r);
  }
  if (v.sdl) SDL_DestroyRenderer(v.sdl);
  if (v.win) SDL_DestroyWindow(v.win);
  SDL_Quit();
  if (v.gravity) jl_force_free(v.gravity);
  if (v.has_world) jl_world_destroy(&v.world);
  jl_scene_free(&v.scene);
  jl_timeline_free(&v.tl);
  pthread_mutex_destroy(&v.plots.lock);
  free(v.com0);
  free(v.ev);
  return status;
}
