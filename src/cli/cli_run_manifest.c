/* The output folder's manifest of `jelly run` and `jelly render` (src/cli/cli_run_internal.h): which files in the
 * output folder the last run or render wrote, so that the next one deletes exactly those and no one else's. The two
 * commands share the file and its rules: either deletes the files the other listed (a folder holds the output of
 * one command at a time), and both refuse a folder with run-looking files (frames, scene .pvd, movie.mp4) but no
 * manifest. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/common.h"
#include "src/cli/cli_run_internal.h"

void run_names_add(Names *l, const char *name) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->name = jl_realloc(l->name, (size_t)l->cap, sizeof(char *));
  }
  l->name[l->n++] = strdup(name);
}

void run_names_free(Names *l) {
  for (int i = 0; i < l->n; i++) free(l->name[i]);
  free(l->name);
  memset(l, 0, sizeof *l);
}


/* a manifest entry Jelly may act on: a plain file name in DIR (no '/', not
 * "." or "..", no control characters) */
static int plain_name(const char *s) {
  if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return 0;
  for (const char *p = s; *p; p++)
    if (*p == '/' || *p == '\\' || (unsigned char)*p < 32) return 0;
  return 1;
}

/* a name jelly render writes: frame_*.png, movie.mp4 */
static int render_file(const char *name) {
  size_t n = strlen(name);
  if (strcmp(name, "movie.mp4") == 0) return 1;
  return strncmp(name, "frame_", 6) == 0 && n > 10 && strcmp(name + n - 4, ".png") == 0;
}

/* a name Jelly's runs and renders write that ParaView or ffmpeg would pick up:
 * frame_*.vt[ump], scene.pvd, scene_all.pvd, frame_*.png, movie.mp4 */
static int run_file(const char *name) {
  size_t n = strlen(name);
  if (strcmp(name, "scene.pvd") == 0 || strcmp(name, "scene_all.pvd") == 0 || render_file(name)) return 1;
  return strncmp(name, "frame_", 6) == 0 && n > 10 &&
         (strcmp(name + n - 4, ".vtu") == 0 || strcmp(name + n - 4, ".vtm") == 0 || strcmp(name + n - 4, ".vtp") == 0);
}

int run_names_other(const Names *l, const char *cmd) {
  int render = strcmp(cmd, "render") == 0, n = 0;
  for (int i = 0; i < l->n; i++) n += render_file(l->name[i]) != render;
  return n;
}

/* the frame a file of a run belongs to (frame_NNNN*, <body>_NNNN.obj,
 * checkpoint_NNNN.jlck), -1 for the run's other files */
static int entry_frame(const char *name) {
  const char *p = strncmp(name, "frame_", 6) == 0 ? name + 6 : NULL;
  if (!p) {
    const char *u = strrchr(name, '_'), *dot = strrchr(name, '.');
    if (!u || !dot || dot < u) return -1;
    p = u + 1;
  }
  char *end;
  long f = strtol(p, &end, 10);
  if (end - p < 4 || (*end != '.' && *end != '_') || f < 0 || f > 100000000) return -1;
  return (int)f;
}

/* a name jelly run or jelly render writes: the frames' files, stats.csv,
 * preview.png, <body>_NNNN.obj, checkpoint_NNNN.jlck, movie.mp4. A manifest
 * naming anything else was edited or not written by Jelly: nothing is
 * deleted. */
static int jelly_name(const char *s) {
  if (!plain_name(s)) return 0;
  if (run_file(s) || strcmp(s, "stats.csv") == 0 || strcmp(s, "preview.png") == 0) return 1;
  size_t n = strlen(s);
  return entry_frame(s) >= 0 && n > 4 && (strcmp(s + n - 4, ".obj") == 0 || strcmp(s + n - 5, ".jlck") == 0);
}

/* DIR/jelly_manifest.txt into *l: 1 when there is one, 0 when there is
 * none, -1 (message printed, "jelly <cmd>: ...") when it cannot be read or
 * names anything but files jelly run or jelly render writes in DIR */
int run_manifest_read(const char *dir, Names *l, const char *cmd) {
  char path[4200], line[4200];
  snprintf(path, sizeof path, "%s/" MANIFEST, dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    if (errno == ENOENT) return 0;
    fprintf(stderr, "jelly %s: cannot read %s: %s\n", cmd, path, strerror(errno));
    return -1;
  }
  int lineno = 0, bad = 0;
  while (!bad && fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\n')
      line[--len] = 0;
    else if (!feof(f))
      bad = 1; /* longer than any name Jelly writes */
    if (bad || line[0] == '#' || len == 0) continue;
    if (!jelly_name(line))
      bad = 1;
    else
      run_names_add(l, line);
  }
  fclose(f);
  if (bad) {
    fprintf(stderr,
            "jelly %s: %s line %d is not the name of a file jelly %s writes in that folder; this manifest "
            "was not written by jelly run or jelly render, so nothing in '%s' is deleted or written: fix or "
            "remove the manifest, or choose another --out folder\n",
            cmd, path, lineno, cmd, dir);
    run_names_free(l);
    return -1;
  }
  return 1;
}

/* 0 when DIR (which has no manifest) holds no run files; else 1 after a
 * message naming some of them */
int run_foreign_files(const char *dir, const char *cmd) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  Names found = {0};
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (run_file(e->d_name)) run_names_add(&found, e->d_name);
  closedir(d);
  if (found.n == 0) return 0;
  char list[1024] = "";
  for (int i = 0; i < found.n && i < 4; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", found.name[i]);
  fprintf(stderr,
          "jelly %s: '%s' holds the frames of another run (%s%s, %d files) but no " MANIFEST
          ", so Jelly cannot tell which files are that run's and will not mix runs: remove those files "
          "or choose another --out folder\n",
          cmd, dir, list, found.n > 4 ? ", ..." : "", found.n);
  run_names_free(&found);
  return 1;
}

/* deletes the files of old (and a partial write's .tmp of each), except on
 * a resume from frame `first` (>= 0) the ones that run keeps: those of
 * frames up to first (not a render's PNG frames), stats.csv and the
 * checkpoint being resumed (keep_ck, NULL when none); the kept names go to
 * *kept. 0, or -1 after a message. */
int run_manifest_clean(const char *dir, const Names *old, int first, const char *keep_ck, Names *kept,
                       const char *cmd) {
  struct stat ck;
  int have_ck = keep_ck && stat(keep_ck, &ck) == 0;
  for (int i = 0; i < old->n; i++) {
    const char *name = old->name[i];
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int f = entry_frame(name);
    struct stat st;
    int is_ck = have_ck && stat(path, &st) == 0 && st.st_dev == ck.st_dev && st.st_ino == ck.st_ino;
    if (first >= 0 && strcmp(name, "stats.csv") == 0) continue; /* rewritten from its kept rows, listed anew */
    if (first >= 0 && ((f >= 0 && f <= first && !render_file(name)) || is_ck)) {
      run_names_add(kept, name);
      continue;
    }
    if (is_ck) continue; /* never the checkpoint this run reads */
    if (unlink(path) != 0 && errno != ENOENT) {
      fprintf(stderr, "jelly %s: cannot delete %s of the earlier run in this folder: %s\n", cmd, path, strerror(errno));
      return -1;
    }
    char tmp[4500];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    unlink(tmp);
  }
  return 0;
}

/* DIR/jelly_manifest.txt listing a and b, written to a .tmp and renamed */
int run_manifest_write(const char *dir, const Names *a, const Names *b, const char *cmd) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/" MANIFEST, dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "jelly %s: cannot write %s: %s\n", cmd, tmp, strerror(errno));
    return -1;
  }
  fprintf(f,
          "# files jelly %s wrote in this folder, one per line; the next jelly run or jelly render here deletes "
          "them first\n",
          cmd);
  for (int k = 0; k < 2; k++) {
    const Names *l = k ? b : a;
    for (int i = 0; i < l->n; i++) fprintf(f, "%s\n", l->name[i]);
  }
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    fprintf(stderr, "jelly %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    remove(tmp);
    return -1;
  }
  return 0;
}
