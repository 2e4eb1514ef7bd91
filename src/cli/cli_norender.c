/* The drawing commands of a `jelly` built without render/ (-DJELLY_RENDER=OFF,
 * no SDL2 or cglm): `jelly view`, `jelly render` and the render row of
 * `jelly bench` say so and exit 3 (the system cannot do it), and `jelly run`
 * gets no preview.png (jl_preview_create returns NULL, the "no preview" of
 * --no-preview; src/cli/cli_run.c prints a note). CMake compiles this file
 * instead of cli_view.c, viewer.c, cli_render.c and cli_bench_render.c. */
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "src/cli/cli.h"

#define NORENDER "built without rendering (JELLY_RENDER=OFF)"

static int refuse(const char *cmd, int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: jelly %s ...\n\nThis jelly was " NORENDER
             ":\nrebuild with SDL2 and cglm "
             "installed (scripts/setup.sh) to use `jelly %s`.\n\n" JL_CLI_EXIT_HELP,
             cmd, cmd);
      return 0;
    }
  fprintf(stderr, "jelly %s: " NORENDER "; rebuild with SDL2 and cglm (scripts/setup.sh)\n", cmd);
  return JL_ERR_SYSTEM;
}

int jl_cli_view(int argc, char **argv) { return refuse("view", argc, argv); }

int jl_cli_render(int argc, char **argv) { return refuse("render", argc, argv); }

int jl_cli_bench_render(int json, const char *cpu) {
  (void)json, (void)cpu;
  /* stderr: --json output stays one object per line */
  fprintf(stderr, "jelly bench: render row skipped: " NORENDER "\n");
  return 0;
}

JlPreview *jl_preview_create(int nframes) {
  (void)nframes;
  return NULL;
}

void jl_preview_frame(JlPreview *p, const JlWorld *w, int frame) { (void)p, (void)w, (void)frame; }

JlResult jl_preview_write(JlPreview *p, const char *path, char *err, size_t errsz) {
  (void)p, (void)path;
  return jl_fail(err, errsz, JL_ERR_SYSTEM, NORENDER ": no preview");
}

void jl_preview_destroy(JlPreview *p) { (void)p; }
