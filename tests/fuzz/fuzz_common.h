/* Shared set-up of the libFuzzer targets in tests/fuzz/ (docs/robustness.md,
 * "Fuzzing").
 *
 * The surface importer and TetGen run in forked children (mesh/child.c).
 * A child of a libFuzzer process inherits libFuzzer's crash handlers and
 * ASan's death callback, so an assimp crash in a child (expected: that is
 * what the child is for) would write a bogus crash-* reproducer. The fork
 * handler below gives every child the default signal dispositions and no
 * death callback: it then ends exactly as in a release build (killed by the
 * signal, or ASan's exit status 1), the parent reports "crashed in the
 * importer", and only the parent process -- the screens, the pipe protocol,
 * the validator, the scene code -- can produce a finding. */
#ifndef JL_TESTS_FUZZ_COMMON_H
#define JL_TESTS_FUZZ_COMMON_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mesh/child.h"

/* weak: tests/fuzz/replay.c links the targets into builds without a sanitizer */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void fuzz_child_after_fork(void) {
  static const int sigs[] = {SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,  SIGABRT, SIGALRM,
                             SIGINT,  SIGTERM, SIGUSR1, SIGUSR2, SIGXFSZ, SIGXCPU};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(NULL);
}

/* small mesh limits: a child may take 2 s and 1024 MB (resident, as ASan
 * builds cannot set RLIMIT_AS; the child's resident size starts with what it
 * shares with the fuzzer), files 1 MB */
static void fuzz_setup(void) {
  pthread_atfork(NULL, NULL, fuzz_child_after_fork);
  JlMeshLimits l = jl_default_mesh_limits();
  l.timeout = 2.0;
  l.memory_mb = 1024.0;
  l.file_mb = 1.0;
  jl_mesh_set_limits(&l);
}

#endif
