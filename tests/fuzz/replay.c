/* Replays a fuzz target's corpus without libFuzzer: the robustness tier
 * (CTest tests fuzz.<target>, docs/testing.md) links each tests/fuzz/fuzz_*.c
 * with this main in the ordinary builds, so the committed seeds and every
 * reproducer added to tests/fuzz/corpus/ run on each test run, under ASan +
 * UBSan in the sanitizer stage. A crash or sanitizer report fails the test;
 * the file being replayed is printed before it runs.
 *
 * Usage: replay_fuzz_X DIR_OR_FILE...  (prints "N passed, 0 failed") */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_BYTES (16u << 20) /* a corpus file is small; larger is a mistake */

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* runs one file; 0 when it could not be read */
static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 0;
  }
  uint8_t *buf = malloc(REPLAY_MAX_BYTES + 1);
  size_t n = buf ? fread(buf, 1, REPLAY_MAX_BYTES + 1, f) : 0;
  fclose(f);
  if (!buf || n > REPLAY_MAX_BYTES) {
    fprintf(stderr, "replay: %s: %s\n", path, buf ? "larger than 16 MiB" : "out of memory");
    free(buf);
    return 0;
  }
  printf("- %s (%zu bytes)\n", path, n);
  fflush(stdout);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int passed = 0, bad = 0;
  for (int a = 1; a < argc; a++) {
    struct stat st;
    if (stat(argv[a], &st) != 0) {
      fprintf(stderr, "replay: no such file or folder: %s\n", argv[a]);
      bad++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (replay_file(argv[a]))
        passed++;
      else
        bad++;
      continue;
    }
    DIR *d = opendir(argv[a]);
    if (!d) {
      fprintf(stderr, "replay: cannot read %s\n", argv[a]);
      bad++;
      continue;
    }
    char **names = NULL;
    size_t nname = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
      if (e->d_name[0] == '.') continue;
      if (nname == cap) {
        cap = cap ? 2 * cap : 64;
        char **nn = realloc(names, cap * sizeof *nn);
        if (!nn) break;
        names = nn;
      }
      names[nname] = strdup(e->d_name);
      if (names[nname]) nname++;
    }
    closedir(d);
    qsort(names, nname, sizeof *names, cmp_names); /* the same order on every machine */
    for (size_t i = 0; i < nname; i++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[a], names[i]);
      if (replay_file(path))
        passed++;
      else
        bad++;
      free(names[i]);
    }
    free(names);
  }
  printf("%d passed, %d failed\n", passed, bad);
  return bad ? 1 : 0;
}
