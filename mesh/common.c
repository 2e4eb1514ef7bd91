/* Result messages, contract assertions (with the host's handler hook) and
 * checked allocation (common.h). */
#define _POSIX_C_SOURCE 200809L
#include "mesh/common.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* exit code of a guarded child process (mesh/child.c) when an allocation
 * fails; 0 in the parent, which prints a message and exits with
 * JL_ERR_SYSTEM (the system refused the memory; the exit-code contract).
 * Process-wide, not per thread: it belongs to the process (a forked child
 * sets it for itself), and any thread's failed allocation ends that process.
 * Atomic so that threads allocating while it is set do not race. */
static _Atomic int g_nomem_exit;

static void out_of_memory(size_t count, size_t size) {
  int code = g_nomem_exit;
  if (code) _exit(code);
  fflush(stdout);
  fprintf(stderr, "jelly: out of memory: the system refused %.4g MB (%zu x %zu bytes)\n",
          (double)count * (double)size / 1e6, count, size);
  _exit(JL_ERR_SYSTEM);
}

void jl_set_nomem_exit(int code) { g_nomem_exit = code; }

JlResult jl_fail(char *err, size_t errsz, JlResult code, const char *fmt, ...) {
  if (err && errsz > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* the host's contract-failure hook (jl_set_assert_handler); atomic, so
 * setting it while other threads run is no data race */
static _Atomic(JlAssertHandler) g_assert_handler;

JlAssertHandler jl_set_assert_handler(JlAssertHandler handler) { return atomic_exchange(&g_assert_handler, handler); }

void jl_assert_fail(const char *file, int line, const char *expr, const char *msg) {
  JlAssertHandler h = atomic_load(&g_assert_handler);
  if (h) h(file, line, expr, msg); /* expected not to return (longjmp); if it does, abort as always */
  fprintf(stderr, "jelly: internal error at %s:%d: %s (%s)\n", file, line, msg, expr);
  abort();
}

int jl_uf_find(int *parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

void jl_uf_union(int *parent, int a, int b) {
  a = jl_uf_find(parent, a), b = jl_uf_find(parent, b);
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

int jl_name_index(const char *const *names, int n, const char *name) {
  for (int i = 0; name && i < n; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return n;
}

void jl_sort_by_int(void *base, int n, size_t size, size_t key) {
  unsigned char *p = base;
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0; b--) {
      unsigned char *hi = p + (size_t)b * size, *lo = hi - size;
      int khi, klo;
      memcpy(&khi, hi + key, sizeof khi);
      memcpy(&klo, lo + key, sizeof klo);
      if (!(khi < klo)) break;
      for (size_t i = 0; i < size; i++) {
        unsigned char t = hi[i];
        hi[i] = lo[i];
        lo[i] = t;
      }
    }
}

void jl_grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return;
  int n = *cap > 0 ? *cap : 256;
  while (n < need) n *= 2;
  *p = jl_realloc(*p, (size_t)n, elem);
  *cap = n;
}

void jl_free_all(void *const *p, size_t n) {
  for (size_t i = 0; i < n; i++) free(p[i]);
}

void *jl_calloc(size_t count, size_t size) {
  if (count == 0 || size == 0) count = size = 1;
  if (count > SIZE_MAX / size) jl_assert_fail(__FILE__, __LINE__, "count*size", "allocation size overflows");
  void *p = calloc(count, size);
  if (!p) out_of_memory(count, size);
  return p;
}

void *jl_realloc(void *p, size_t count, size_t size) {
  if (count == 0 || size == 0) count = size = 1;
  if (count > SIZE_MAX / size) jl_assert_fail(__FILE__, __LINE__, "count*size", "allocation size overflows");
  void *q = realloc(p, count * size);
  if (!q) out_of_memory(count, size);
  return q;
}

double jl_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
