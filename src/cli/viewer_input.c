/* The viewer's mouse and keys (src/cli/viewer_internal.h, the keys in
 * docs/viewer.md): right-drag orbits, middle- or shift-drag pans, the wheel
 * zooms, left-drag pulls a body through the drag force element (src/drag.c)
 * on a plane facing the camera, and the keys act on the world, the camera,
 * the debug layers and screenshots. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/drag.h"

#include "src/cli/cli.h"
#include "src/cli/viewer_internal.h"

void jl_viewer_mouse_target(Viewer *v, double out[3]) {
  double o[3], d[3];
  jl_camera_ray(&v->cam, v->r->width, v->r->height, v->mx, v->my, o, d);
  double dn = d[0] * v->plane_n[0] + d[1] * v->plane_n[1] + d[2] * v->plane_n[2];
  double t = 0;
  if (fabs(dn) > 1e-9)
    t = ((v->plane_p[0] - o[0]) * v->plane_n[0] + (v->plane_p[1] - o[1]) * v->plane_n[1] +
         (v->plane_p[2] - o[2]) * v->plane_n[2]) /
        dn;
  if (!(t > 0)) t = 0;
  for (int k = 0; k < 3; k++) out[k] = o[k] + t * d[k];
}

void jl_viewer_drag_press(Viewer *v) {
  double o[3], d[3];
  jl_camera_ray(&v->cam, v->r->width, v->r->height, v->mx, v->my, o, d);
  JlPick hit;
  if (!jl_pick_ray(&v->world, o, d, &hit)) return;
  jl_drag_attach(v->drag, v->world.model, hit.body, hit.tri, hit.bary, 0, 0);
  double right[3], up[3], fwd[3];
  jl_camera_basis(&v->cam, right, up, fwd);
  for (int k = 0; k < 3; k++) {
    v->plane_p[k] = hit.point[k];
    v->plane_n[k] = -fwd[k];
    v->last_target[k] = hit.point[k];
    v->vel[k] = 0;
  }
  jl_drag_set_target(v->drag, hit.point, NULL);
  v->dragging = 1;
  v->have_last = 1;
  if (v->drag_body < 0) {
    v->drag_body = hit.body;
    v->drag_from = v->frame;
  }
}

void jl_viewer_drag_release(Viewer *v) {
  if (!v->dragging) return;
  jl_drag_release(v->drag);
  v->dragging = 0;
  v->drag_to = v->frame;
}

/* moves the drag target under the mouse; the target's velocity (smoothed) is
 * what the body is thrown with on release */
void jl_viewer_drag_update(Viewer *v, double dt) {
  if (!v->dragging) return;
  double t[3];
  jl_viewer_mouse_target(v, t);
  for (int k = 0; k < 3; k++) {
    double vk = dt > 0 ? (t[k] - v->last_target[k]) / dt : 0;
    v->vel[k] = 0.5 * v->vel[k] + 0.5 * vk;
    v->last_target[k] = t[k];
  }
  /* keep the target within half a body size of the grabbed point, so a far
   * mouse pulls hard but cannot tear the body apart */
  double p[3], d2 = 0;
  int b = jl_drag_body(v->drag);
  if (b >= 0 && jl_drag_point(v->drag, v->world.state.x, p)) {
    double lim = 0.5 * v->world.model->body[b].size;
    for (int k = 0; k < 3; k++) d2 += (t[k] - p[k]) * (t[k] - p[k]);
    if (d2 > lim * lim)
      for (int k = 0; k < 3; k++) t[k] = p[k] + (t[k] - p[k]) * lim / sqrt(d2);
  }
  jl_drag_set_target(v->drag, t, v->vel);
}

void jl_viewer_screenshot(Viewer *v, const char *path) {
  char err[1024], name[64];
  if (!path) {
    snprintf(name, sizeof name, "jelly_%03d.png", v->shots++);
    path = name;
  }
  if (jl_renderer_write_png(v->r, path, err, sizeof err))
    fprintf(stderr, "jelly view: %s\n", jl_cli_msg(err));
  else
    jl_viewer_note(v, "saved %.180s", path);
}

static void toggle_layer(Viewer *v, JlLayer l) { v->opt.layers ^= 1u << l; }

void jl_viewer_handle_key(Viewer *v, SDL_Keycode key, int want_shot) {
  switch (key) {
    case SDLK_ESCAPE:
      v->quit = 1;
      break;
    case SDLK_SPACE:
      v->paused = !v->paused;
      if (!v->paused) jl_timeline_resume(&v->tl); /* from the state rewound to, if any */
      break;
    case SDLK_n:
      jl_timeline_resume(&v->tl);
      v->step_once = 1;
      v->paused = 1;
      break;
    case SDLK_LEFT:
      jl_viewer_rewind(v, (SDL_GetModState() & KMOD_SHIFT) ? -(int)lround(1.0 / v->frame_dt) : -1, 0);
      break;
    case SDLK_RIGHT:
      jl_viewer_rewind(v, (SDL_GetModState() & KMOD_SHIFT) ? (int)lround(1.0 / v->frame_dt) : 1, 0);
      break;
    case SDLK_l:
      atomic_store(&v->plots.on, !atomic_load(&v->plots.on));
      break;
    case SDLK_m:
      jl_viewer_record_toggle(v);
      break;
    case SDLK_k:
      toggle_layer(v, JL_LAYER_STRAIN);
      break;
    case SDLK_HOME:
      jl_viewer_rewind(v, 0, 0);
      break;
    case SDLK_END:
      jl_viewer_rewind(v, 0, INT_MAX);
      break;
    case SDLK_r:
      if (!jl_viewer_reset(v)) v->quit = 2;
      break;
    case SDLK_1:
    case SDLK_2:
    case SDLK_3:
    case SDLK_4:
    case SDLK_5:
      jl_viewer_spawn(v, (int)(key - SDLK_0));
      break;
    case SDLK_g:
      if (v->gravity_off) {
        if (v->gravity && jl_world_add_force(&v->world, v->gravity)) v->gravity = NULL;
        v->gravity_off = 0;
      } else {
        v->gravity_off = 1;
        jl_viewer_detach_gravity(v);
      }
      break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
      if (v->h * 2 <= 0.05) v->h *= 2;
      v->h_given = 1;
      break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
      if (v->h / 2 >= 1e-5) v->h /= 2;
      v->h_given = 1;
      break;
    case SDLK_i:
      jl_viewer_cycle_integrator(v);
      break;
    case SDLK_p:
      if (want_shot) jl_viewer_screenshot(v, NULL);
      break;
    case SDLK_h:
      v->help = !v->help;
      break;
    case SDLK_f:
      jl_viewer_frame_camera(v);
      break;
    case SDLK_w:
      toggle_layer(v, JL_LAYER_WIREFRAME);
      break;
    case SDLK_t:
      toggle_layer(v, JL_LAYER_TETS);
      break;
    case SDLK_s:
      toggle_layer(v, JL_LAYER_SPRINGS);
      break;
    case SDLK_c:
      toggle_layer(v, JL_LAYER_CONTACTS);
      break;
    case SDLK_x:
      toggle_layer(v, JL_LAYER_PINS);
      break;
    case SDLK_o:
      toggle_layer(v, JL_LAYER_OBSTACLES);
      break;
    case SDLK_v:
      toggle_layer(v, JL_LAYER_VELOCITY);
      break;
    default:
      break;
  }
}

void jl_viewer_rewind(Viewer *v, int delta, int index) {
  if (v->meshing) {
    jl_viewer_note(v, "still meshing %s", v->spawn_body.def.name);
    return;
  }
  if (v->dragging) jl_viewer_drag_release(v);
  if (v->def.history <= 0) {
    jl_viewer_note(v, "%s", "no history to rewind (--history 0)");
    return;
  }
  int i = delta != 0 ? jl_timeline_step_index(&v->tl, &v->world, delta) : index;
  char err[512] = "";
  if (!jl_timeline_seek(&v->tl, &v->world, i, err, sizeof err)) {
    if (err[0]) jl_viewer_note(v, "cannot rewind: %s", err);
    return;
  }
  v->paused = 1;
  v->error[0] = '\0'; /* a divergence after this state has not happened here */
}

/* the timeline bar: along the window's bottom (viewer_hud.c draws it) */
int jl_viewer_on_timeline(const Viewer *v, double x, double y, double *frac) {
  int bx, by, bw, bh;
  jl_viewer_timeline_rect(v, &bx, &by, &bw, &bh);
  double f = (x - bx) / (bw > 1 ? bw : 1);
  *frac = f < 0 ? 0 : f > 1 ? 1 : f;
  return x >= bx - 4 && x <= bx + bw + 4 && y >= by - 6 && y <= by + bh + 6;
}

int jl_viewer_event_needs_world(const Viewer *v, const SDL_Event *e) {
  switch (e->type) {
    case SDL_KEYDOWN:
      return 1; /* keys act on the world (and are rare) */
    case SDL_MOUSEBUTTONDOWN:
      return e->button.button == SDL_BUTTON_LEFT; /* picks a body */
    case SDL_MOUSEBUTTONUP:
      return v->dragging; /* releases the drag */
    case SDL_MOUSEMOTION:
      return v->scrubbing; /* seeks along the timeline */
    case SDL_DROPFILE:
      return 1; /* a body joins, or a scene replaces the world */
    default:
      return 0; /* camera, window */
  }
}

void jl_viewer_handle_event(Viewer *v, const SDL_Event *e) {
  float sx = 1, sy = 1;
  int ww = 1, wh = 1;
  SDL_GetWindowSize(v->win, &ww, &wh);
  sx = (float)v->r->width / (float)ww;
  sy = (float)v->r->height / (float)wh;
  switch (e->type) {
    case SDL_QUIT:
      v->quit = 1;
      break;
    case SDL_KEYDOWN:
      if (!e->key.repeat || e->key.keysym.sym == SDLK_n) jl_viewer_handle_key(v, e->key.keysym.sym, 1);
      break;
    case SDL_MOUSEBUTTONDOWN: {
      v->mx = e->button.x * sx, v->my = e->button.y * sy;
      int shift = (SDL_GetModState() & KMOD_SHIFT) != 0;
      if (e->button.button == SDL_BUTTON_MIDDLE ||
          (shift && (e->button.button == SDL_BUTTON_LEFT || e->button.button == SDL_BUTTON_RIGHT)))
        v->panning = 1;
      else if (e->button.button == SDL_BUTTON_RIGHT)
        v->orbiting = 1;
      else if (e->button.button == SDL_BUTTON_LEFT) {
        double frac;
        if (jl_viewer_on_timeline(v, v->mx, v->my, &frac)) { /* scrub the timeline */
          v->scrubbing = 1;
          jl_viewer_rewind(v, 0, jl_timeline_index_at(&v->tl, frac));
        } else {
          jl_viewer_drag_press(v);
        }
      }
      break;
    }
    case SDL_MOUSEBUTTONUP:
      v->orbiting = v->panning = 0;
      if (e->button.button == SDL_BUTTON_LEFT) {
        v->scrubbing = 0;
        jl_viewer_drag_release(v);
      }
      break;
    case SDL_MOUSEMOTION: {
      double dx = e->motion.xrel * sx, dy = e->motion.yrel * sy;
      v->mx = e->motion.x * sx, v->my = e->motion.y * sy;
      if (v->scrubbing) {
        double frac; /* along the bar, wherever the mouse went since the press on it */
        jl_viewer_on_timeline(v, v->mx, v->my, &frac);
        jl_viewer_rewind(v, 0, jl_timeline_index_at(&v->tl, frac));
      }
      if (v->orbiting) jl_camera_orbit(&v->cam, -0.008 * dx, 0.008 * dy);
      if (v->panning) jl_camera_pan(&v->cam, v->r->height, dx, dy);
      if (v->orbiting || v->panning) v->follow = 0; /* the user's camera now */
      break;
    }
    case SDL_MOUSEWHEEL:
      jl_camera_zoom(&v->cam, pow(0.9, e->wheel.y));
      v->follow = 0;
      break;
    case SDL_DROPFILE:
      if (e->drop.file) {
        jl_viewer_drop_file(v, e->drop.file);
        SDL_free(e->drop.file);
      }
      break;
    case SDL_RENDER_TARGETS_RESET:
    case SDL_RENDER_DEVICE_RESET:
      v->r->ground_w = 0; /* redraw the cached ground */
      break;
    case SDL_WINDOWEVENT:
      if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
        int w, h;
        if (SDL_GetRendererOutputSize(v->sdl, &w, &h) == 0 && w > 0 && h > 0) {
          v->r->width = w;
          v->r->height = h;
        }
      }
      break;
    default:
      break;
  }
}
