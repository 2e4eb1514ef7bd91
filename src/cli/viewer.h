/* The interactive viewer application of `jelly view` (src/cli/viewer.c,
 * docs/viewer.md): an SDL2 window over the renderer library render/. */
#ifndef JL_SRC_CLI_VIEWER_H
#define JL_SRC_CLI_VIEWER_H

#include "render/render.h"

typedef struct JlViewerDef {
  const char *scene;      /* what to open: a scene or mesh file (jl_scene_open); NULL: an empty world */
  int width, height;      /* window size, default 1280 x 720 */
  int frames;             /* > 0: run this many frames without waiting for input, then quit
                             (fixed 1/fps of simulated time per frame); default 0 (interactive) */
  const char *screenshot; /* PNG written after the last frame, or NULL */
  const char *script;     /* timed input events (docs/viewer.md), or NULL */
  const char *report;     /* text report: per body centre of mass at start/end, drags */
  const char *integrator; /* override, or NULL */
  double dt;              /* override (s), or 0 */
  unsigned layers;        /* initial debug layers */
  double fps;             /* override of the scene's fps (1/s), or 0 */
  int threads;            /* override of the scene's threads, or 0 */
  int seconds;            /* > 0: interactive (real-time pacing) for this many seconds of wall time, then
                             quit; --script events replay by displayed frame, the report gets the frame
                             rate and pace (a measurement of the interactive viewer) */
  double history;         /* s of recent states kept for rewinding (the timeline); default 10, 0: none */
  int plots;              /* 1: the live plots panel starts shown (L toggles it); default 0 */
} JlViewerDef;

JlViewerDef jl_default_viewer_def(void);
/* Runs the viewer; returns a process exit code (0 ok, 1 diverged in a
 * scripted run, 2 bad input, 3 no display). Messages go to stderr. */
int jl_viewer_run(const JlViewerDef *def);

#endif
