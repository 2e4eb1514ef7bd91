/* The viewer's --script file (docs/viewer.md): timed keys, drags, orbits,
 * zooms and screenshots, parsed once and replayed frame by frame in the
 * scripted mode tests and batch jobs use (src/cli/viewer_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/viewer_internal.h"

typedef struct KeyName {
  const char *name;
  SDL_Keycode key;
} KeyName;

static const KeyName key_names[] = {
    {"space", SDLK_SPACE}, {"escape", SDLK_ESCAPE}, {"esc", SDLK_ESCAPE}, {"plus", SDLK_PLUS},
    {"+", SDLK_PLUS},      {"minus", SDLK_MINUS},   {"-", SDLK_MINUS},    {"left", SDLK_LEFT},
    {"right", SDLK_RIGHT}, {"home", SDLK_HOME},     {"end", SDLK_END},
};

static SDL_Keycode parse_key(const char *s) {
  for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
    if (strcmp(s, key_names[i].name) == 0) return key_names[i].key;
  if (strlen(s) == 1 && (isalnum((unsigned char)s[0]))) return (SDL_Keycode)tolower((unsigned char)s[0]);
  return SDLK_UNKNOWN;
}

/* one event per line: "frame F key NAME" | "frame F drag X0 Y0 X1 Y1 N" |
 * "frame F orbit DYAW DPITCH" | "frame F zoom FACTOR" | "frame F screenshot FILE";
 * '#' starts a comment */
int jl_viewer_load_script(const char *path, Event **out, int *nout) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "jelly view: cannot read script '%s'\n", path);
    return 0;
  }
  Event *ev = NULL;
  int n = 0, cap = 0, lineno = 0, ok = 1;
  char line[2048];
  while (ok && fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char word[5][1024] = {{0}};
    double num[5] = {0};
    char cmd[64] = "", kw[16] = "";
    int frame = 0, used = 0;
    if (sscanf(line, " %15s", kw) != 1) continue; /* blank or comment */
    if (sscanf(line, " %15s %d %63s %n", kw, &frame, cmd, &used) < 3 || strcmp(kw, "frame") != 0 || frame < 0) {
      fprintf(stderr, "%s:%d: expected 'frame F ACTION ...'\n", path, lineno);
      ok = 0;
      break;
    }
    const char *rest = line + used;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      ev = jl_realloc(ev, (size_t)cap, sizeof *ev);
    }
    Event *e = &ev[n];
    memset(e, 0, sizeof *e);
    e->frame = frame;
    int extra = 0;
    if (strcmp(cmd, "key") == 0) {
      e->type = EV_KEY;
      if (sscanf(rest, "%1023s %n", word[0], &extra) != 1 || (e->key = parse_key(word[0])) == SDLK_UNKNOWN) {
        fprintf(stderr,
                "%s:%d: unknown key '%s' (a letter, a digit, space, escape, plus, minus, left, right, home, end)\n",
                path, lineno, word[0]);
        ok = 0;
      }
    } else if (strcmp(cmd, "drag") == 0) {
      e->type = EV_DRAG;
      if (sscanf(rest, "%lf %lf %lf %lf %lf %n", &num[0], &num[1], &num[2], &num[3], &num[4], &extra) != 5 ||
          num[4] < 1 || num[4] > 1e6 || num[4] != floor(num[4])) {
        fprintf(stderr, "%s:%d: drag expects X0 Y0 X1 Y1 N (pixels, N >= 1 frames)\n", path, lineno);
        ok = 0;
      }
      memcpy(e->a, num, sizeof num);
    } else if (strcmp(cmd, "orbit") == 0) {
      e->type = EV_ORBIT;
      if (sscanf(rest, "%lf %lf %n", &e->a[0], &e->a[1], &extra) != 2) {
        fprintf(stderr, "%s:%d: orbit expects DYAW DPITCH (degrees)\n", path, lineno);
        ok = 0;
      }
    } else if (strcmp(cmd, "zoom") == 0) {
      e->type = EV_ZOOM;
      if (sscanf(rest, "%lf %n", &e->a[0], &extra) != 1 || !(e->a[0] > 0)) {
        fprintf(stderr, "%s:%d: zoom expects a factor > 0\n", path, lineno);
        ok = 0;
      }
    } else if (strcmp(cmd, "screenshot") == 0) {
      e->type = EV_SCREENSHOT;
      if (sscanf(rest, "%1023s %n", e->file, &extra) != 1) {
        fprintf(stderr, "%s:%d: screenshot expects a file name\n", path, lineno);
        ok = 0;
      }
    } else if (strcmp(cmd, "drop") == 0) {
      e->type = EV_DROP;
      if (sscanf(rest, "%1023s %n", e->file, &extra) != 1) {
        fprintf(stderr, "%s:%d: drop expects a file name (a scene or a mesh)\n", path, lineno);
        ok = 0;
      }
    } else {
      fprintf(stderr, "%s:%d: unknown action '%s' (key, drag, orbit, zoom, screenshot, drop)\n", path, lineno, cmd);
      ok = 0;
    }
    if (ok && rest[extra] != '\0' && rest[extra] != '\n') {
      fprintf(stderr, "%s:%d: unexpected text after the %s event: '%s'\n", path, lineno, cmd, rest + extra);
      ok = 0;
    }
    if (ok) n++;
  }
  fclose(f);
  if (!ok) {
    free(ev);
    return 0;
  }
  *out = ev;
  *nout = n;
  return 1;
}

int jl_viewer_script_due(const Viewer *v) {
  if (v->sdrag_active) return 1;
  for (int i = 0; i < v->nev; i++)
    if (v->ev[i].frame == v->frame) return 1;
  return 0;
}

/* scripted input for this frame (before stepping) */
void jl_viewer_run_script(Viewer *v) {
  /* an active scripted drag: move, or release one frame after reaching B */
  if (v->sdrag_active) {
    const Event *e = v->sdrag;
    int k = v->frame - e->frame, n = (int)e->a[4];
    if (k > n) {
      jl_viewer_drag_release(v);
      v->sdrag_active = 0;
    } else {
      double s = (double)k / n;
      v->mx = e->a[0] + s * (e->a[2] - e->a[0]);
      v->my = e->a[1] + s * (e->a[3] - e->a[1]);
    }
  }
  for (int i = 0; i < v->nev; i++) {
    const Event *e = &v->ev[i];
    if (e->frame != v->frame) continue;
    switch (e->type) {
      case EV_KEY:
        jl_viewer_handle_key(v, e->key, 1);
        break;
      case EV_DRAG:
        jl_viewer_drag_release(v);
        v->mx = e->a[0], v->my = e->a[1];
        jl_viewer_drag_press(v);
        if (!v->dragging && !v->script_error[0])
          snprintf(v->script_error, sizeof v->script_error,
                   "scripted drag at frame %d grabbed nothing: no body under (%g, %g)", e->frame, e->a[0], e->a[1]);
        v->sdrag = e;
        v->sdrag_active = 1;
        break;
      case EV_ORBIT:
        jl_camera_orbit(&v->cam, e->a[0] * 3.14159265358979 / 180, e->a[1] * 3.14159265358979 / 180);
        v->follow = 0;
        break;
      case EV_ZOOM:
        jl_camera_zoom(&v->cam, e->a[0]);
        v->follow = 0;
        break;
      case EV_DROP: {
        /* as the window system delivers a dropped file: an SDL_DROPFILE event, handled next frame */
        SDL_Event d;
        memset(&d, 0, sizeof d);
        d.type = SDL_DROPFILE;
        d.drop.file = SDL_strdup(e->file);
        d.drop.windowID = SDL_GetWindowID(v->win);
        if (SDL_PushEvent(&d) != 1) SDL_free(d.drop.file);
        break;
      }
      default:
        break;
    }
  }
}
