/* libFuzzer target: checkpoint files (src/state.c jl_checkpoint_load, the
 * force elements' history_load), the path of `jelly run --resume FILE`.
 *
 * A random file stops at the magic, so the input mutates a valid checkpoint
 * instead: at start-up two soft cubes on the ground (body, ground and
 * friction history all present) are stepped into contact and saved. Input:
 * byte 0 bit 0: recompute the trailing checksum after patching (so the
 * reader's deeper checks, the elements' own index checks, are reached);
 * bit 1: patch only the header and the elements' histories, not the node
 * arrays (x, v, dv, pins: nine tenths of the file, plain doubles that few
 * branches read), so the counts, kinds and lengths the loader checks are
 * hit; bytes 1-4: a length to cut the file to (little-endian, taken modulo
 * the size + 1; 0 = keep it whole); then 12-byte patches: a 4-byte offset
 * (modulo the size, or the patched region's; its top two bits choose how:
 * 0 writes the 8 bytes there, 1 and 2 add their first byte as a signed
 * delta to the u32 or u64 there, 3 writes their first 4 bytes as a u32, so
 * counts, lengths and indices one off their valid values come easily) and 8
 * bytes. The result goes to a file and is loaded into the world.
 *
 * A load that passes is not stepped: the loader accepts any finite state
 * within max_strain, and stepping a hostile one (velocities of 1e15 m/s on a
 * few nodes) is the engine's business, not the loader's (a step then takes
 * up to seconds of CG at its cap and energy-guard splits, too slow for a
 * fuzzer's input). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/scene.h"
#include "src/state.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static JlModel g_model;
static JlStepDef g_def;
static JlWorld g_world;
static unsigned char *g_good, *g_buf;
static size_t g_size;
static size_t g_arrays, g_tail; /* the node arrays start at g_arrays; the histories at g_tail */
static char g_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_setup();
  char err[1024];
  JlScene sc;
  if (jl_scene_load(JL_MODELS_DIR "/scenes/contact_cube_on_cube.json", &sc, err, sizeof err) ||
      jl_scene_build(&sc, &g_model, NULL, err, sizeof err)) {
    fprintf(stderr, "fuzz_checkpoint: %s\n", err);
    abort();
  }
  g_def = sc.step;
  jl_scene_free(&sc);
  JlWorld w;
  if (jl_world_create_shared(&w, &g_model, &g_def, err, sizeof err)) abort();
  for (int i = 0; i < 25; i++) jl_world_step(&w, 1.0 / 60.0, NULL);
  snprintf(g_path, sizeof g_path, "/tmp/fuzz_checkpoint.%d.jlck", (int)getpid());
  if (jl_checkpoint_save(&w, g_path, err, sizeof err)) abort();
  size_t nx = 3 * (size_t)w.state.nnode * sizeof(double);
  unsigned char *x = malloc(nx);
  memcpy(x, w.state.x, nx);
  size_t npin = (size_t)w.state.nnode;
  jl_world_destroy(&w);
  FILE *f = fopen(g_path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0) abort();
  g_size = (size_t)ftell(f);
  rewind(f);
  g_good = malloc(g_size);
  g_buf = malloc(g_size);
  if (fread(g_good, 1, g_size, f) != g_size) abort();
  fclose(f);
  /* the node arrays: x (found by its bytes), v, dv, then one pin byte per node */
  g_arrays = g_tail = 0;
  for (size_t o = 0; o + nx <= g_size; o++)
    if (memcmp(g_good + o, x, nx) == 0) {
      g_arrays = o;
      g_tail = o + 3 * nx + npin;
      break;
    }
  free(x);
  if (!g_arrays || g_tail >= g_size) abort();
  if (jl_world_create_shared(&g_world, &g_model, &g_def, err, sizeof err)) abort();
  return 0;
}

static uint64_t fnv(const unsigned char *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 5) return 0;
  memcpy(g_buf, g_good, g_size);
  uint32_t cut;
  memcpy(&cut, data + 1, 4);
  size_t n = cut % (g_size + 1);
  if (n == 0) n = g_size;
  for (size_t p = 5; p + 12 <= size; p += 12) {
    uint32_t off;
    memcpy(&off, data + p, 4);
    unsigned kind = off >> 30; /* 0: write the 8 bytes; 1, 2: add their low byte (signed) to the u32 or u64
                                  there; 3: write their low 4 bytes as a u32 (near-valid counts and indices) */
    off &= 0x3fffffffu;
    size_t o = off % g_size;
    if (data[0] & 2) { /* the header or the histories */
      o = off % (g_arrays + (g_size - g_tail));
      if (o >= g_arrays) o += g_tail - g_arrays;
    }
    size_t room = g_size - o;
    if (kind == 1 && room >= 4) {
      uint32_t u;
      memcpy(&u, g_buf + o, 4);
      u += (uint32_t)(int32_t)(int8_t)data[p + 4];
      memcpy(g_buf + o, &u, 4);
    } else if (kind == 2 && room >= 8) {
      uint64_t u;
      memcpy(&u, g_buf + o, 8);
      u += (uint64_t)(int64_t)(int8_t)data[p + 4];
      memcpy(g_buf + o, &u, 8);
    } else if (kind == 3 && room >= 4) {
      memcpy(g_buf + o, data + p + 4, 4);
    } else {
      memcpy(g_buf + o, data + p + 4, room < 8 ? room : 8);
    }
  }
  if ((data[0] & 1) && n >= 8) {
    uint64_t sum = fnv(g_buf, n - 8);
    memcpy(g_buf + n - 8, &sum, 8);
  }
  FILE *f = fopen(g_path, "wb");
  if (!f) return 0;
  fwrite(g_buf, 1, n, f);
  fclose(f);
  char err[1024];
  jl_checkpoint_load(&g_world, g_path, err, sizeof err);
  return 0;
}
