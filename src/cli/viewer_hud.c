/* What the viewer draws over the scene (src/cli/viewer_internal.h): the HUD
 * (frame rate, time, step, solver, counts, pacing), errors and messages, the
 * help panel, and the drag spring; every text is wrapped to the window. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "src/drag.h"

#include "src/cli/viewer_internal.h"

static void panel(JlRenderer *r, int x, int y, int w, int h) {
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_BLEND);
  SDL_SetRenderDrawColor(r->sdl, 10, 12, 16, 170);
  SDL_Rect q = {x, y, w, h};
  SDL_RenderFillRect(r->sdl, &q);
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_NONE);
}

static int contacts(const JlWorld *w) {
  const JlModel *m = w->model;
  if (!m->world.has_ground) return 0;
  int n = 0;
  for (int i = 0; i < m->nnode; i++) n += w->state.x[3 * i + 1] < m->world.ground_y;
  return n;
}

/* wrapped text in a panel at (8, y), at most the window's width; returns the
 * y below it */
static int text_panel(Viewer *v, int y, int scale, const unsigned char rgba[4], const char *text) {
  char buf[2400];
  int lines = jl_font_wrap(text, v->r->width - 8 - 14 - 4, scale, buf, sizeof buf);
  int h = lines * JL_FONT_LINE_H(scale) + 12;
  panel(v->r, 8, y, jl_font_text_width(buf, scale) + 12, h);
  jl_render_text(v->r, 14, y + 6, scale, rgba, buf);
  return y + h + 6;
}

void jl_viewer_draw_hud(Viewer *v) {
  const JlWorld *w = v->shown;
  const JlModel *m = w->model;
  char buf[1200], pace[80];
  if (v->def.frames > 0)
    snprintf(pace, sizeof pace, "scripted (%d frames)", v->def.frames);
  else if (v->paused)
    snprintf(pace, sizeof pace, "PAUSED");
  else if (v->slowdown > 99.0)
    snprintf(pace, sizeof pace, "over 99x slower than real time");
  else if (v->slowdown > 1.05)
    snprintf(pace, sizeof pace, "%.1fx slower than real time", v->slowdown);
  else
    snprintf(pace, sizeof pace, "real time");
  snprintf(buf, sizeof buf,
           "FPS %.0f   t %.3f s   %s\n"
           "step %.2f ms   dt %.3g ms   CG %d it\n"
           "nodes %d  tets %d  springs %d  contacts %d\n"
           "%s   gravity %s%s\n"
           "H: keys",
           v->fps, w->state.t, pace, v->ms_step, 1e3 * v->h, v->cg_last, m->nnode, m->ntet, m->nspring, contacts(w),
           jl_integrator_name(w->def.integrator), v->gravity_off ? "off" : "on",
           v->paused && v->def.frames > 0 ? "   PAUSED" : "");
  int scale = v->r->height >= 600 ? 2 : 1;
  static const unsigned char white[4] = {235, 238, 242, 255}, red[4] = {255, 110, 100, 255},
                             yellow[4] = {255, 220, 120, 255};
  /* every text is broken at spaces to fit the window's width */
  int y = text_panel(v, 8, scale, white, buf);
  if (v->error[0]) {
    char e[sizeof v->error + 32];
    snprintf(e, sizeof e, "%s\npress R to reset", v->error);
    y = text_panel(v, y, scale, red, e);
  }
  if (v->meshing) {
    char line[160];
    snprintf(line, sizeof line, "meshing %s ...", v->spawn_body.def.name);
    y = text_panel(v, y, scale, yellow, line);
  }
  if (v->rec.on) {
    char line[600];
    snprintf(line, sizeof line, "REC %d frames to %s/   M stops", v->rec.frames, v->rec.dir);
    y = text_panel(v, y, scale, red, line);
  }
  if (m->nbody == 0 && !v->meshing)
    y = text_panel(v, y, scale, yellow,
                   "an empty world: keys 1-5 spawn a body; drop a mesh or scene file on the window to add it");
  if (v->note[0] && jl_seconds() < v->note_until) text_panel(v, y, scale, yellow, v->note);
  if (v->help) {
    const char *help =
        "mouse   right-drag orbit   middle/shift-drag pan   wheel zoom\n"
        "        left-drag a body to pull it; release to throw\n"
        "space   pause / resume        N  single step\n"
        "left/right  rewind / forward a frame (shift: 1 s)\n"
        "home/end    oldest / newest state; click the bar\n"
        "R       reset scene           F  frame all bodies\n"
        "1-5     spawn box, sphere, torus, bunny, random\n"
        "        (or drop a mesh or scene file on the window)\n"
        "G       gravity on/off        +/-  time step x2 / x0.5\n"
        "I       cycle integrator      P  save PNG screenshot\n"
        "M       record / stop (PNG frames, mp4)\n"
        "L       live plots            K  strain colours\n"
        "W T S   wireframe, tets, springs (strain colours)\n"
        "C X O V contacts, pinned nodes, obstacles, velocities\n"
        "H       this help             Esc  quit";
    /* one key per line when the two columns do not fit the window */
    const char *narrow =
        "mouse   right-drag orbit\n"
        "        middle/shift-drag pan\n"
        "        wheel zoom\n"
        "        left-drag a body to pull it;\n"
        "        release to throw\n"
        "space   pause / resume\n"
        "N       single step\n"
        "left/right  rewind / forward\n"
        "home/end    oldest / newest\n"
        "R       reset scene\n"
        "F       frame all bodies\n"
        "1-5     spawn box, sphere, torus,\n"
        "        bunny, random\n"
        "G       gravity on/off\n"
        "+/-     time step x2 / x0.5\n"
        "I       cycle integrator\n"
        "P       save PNG screenshot\n"
        "M       record / stop\n"
        "L       live plots\n"
        "K       strain colours\n"
        "W T S   wireframe, tets, springs\n"
        "C X O V contacts, pins, obstacles,\n"
        "        velocities\n"
        "H       this help\n"
        "Esc     quit";
    int room = v->r->width - 16 - 24;
    if (jl_font_text_width(help, scale) > room) help = narrow;
    char wrapped[2400];
    int lines = jl_font_wrap(help, room, scale, wrapped, sizeof wrapped);
    int hw = jl_font_text_width(wrapped, scale) + 24, hh = lines * JL_FONT_LINE_H(scale) + 24;
    int x = (v->r->width - hw) / 2, yy = (v->r->height - hh) / 2;
    if (yy < 0) yy = 0;
    panel(v->r, x, yy, hw, hh);
    jl_render_text(v->r, x + 12, yy + 12, scale, white, wrapped);
  }
}

/* The drag spring from the grabbed point to the point under the cursor: a
 * cyan band 3 px wide (4 px from 1000 px) with a dark rim, so it shows on
 * bodies, ground and background alike, and squares at both ends. The spring
 * is stiff, so the grabbed point trails the cursor by only a few pixels
 * unless the mouse moves fast: the ends' squares keep the grab visible. */
void jl_viewer_draw_drag(Viewer *v) {
  double p[3], q[3], a[3], b[3];
  if (!v->dragging || !jl_drag_point(v->drag, v->shown->state.x, p)) return;
  jl_viewer_mouse_target(v, q);
  if (!jl_camera_project(&v->cam, v->r->width, v->r->height, p, a) ||
      !jl_camera_project(&v->cam, v->r->width, v->r->height, q, b))
    return;
  static const unsigned char dark[4] = {10, 12, 16, 255}, cyan[4] = {0, 235, 255, 255};
  float w = v->r->width >= 1000 ? 4.0f : 3.0f;
  float ax = (float)a[0], ay = (float)a[1], bx = (float)b[0], by = (float)b[1];
  jl_draw_thick_line(v->r, ax, ay, bx, by, w + 2, dark);
  jl_draw_thick_line(v->r, ax, ay, ax, ay, w + 6, dark);
  jl_draw_thick_line(v->r, bx, by, bx, by, w + 6, dark);
  jl_draw_thick_line(v->r, ax, ay, bx, by, w, cyan);
  jl_draw_thick_line(v->r, ax, ay, ax, ay, w + 4, cyan);
  jl_draw_thick_line(v->r, bx, by, bx, by, w + 4, cyan);
}
