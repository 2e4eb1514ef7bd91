/* Ctrl-C (SIGINT) and SIGTERM for the commands that write a run's files
 * (`jelly run`, `jelly render`): the first signal only sets a flag, which the
 * run loop polls before every step, so the command stops at the next step,
 * drops the unfinished frame and writes its index files, stats and manifest
 * for the frames already on disk before it exits 130 (docs/cli.md,
 * "Interrupted runs"). A second signal exits 130 at once (_exit: no index
 * files; the manifest written before the run lists every file it may have
 * written, so the next run into the folder still cleans it up).
 *
 * The handler does only what is async-signal-safe (POSIX.1-2017, 2.4.3):
 * it stores to a volatile sig_atomic_t and, on the second signal, calls
 * write(2) and _exit(2). It is installed with SA_RESTART, so the reads and
 * writes of a frame in progress are restarted rather than failing with
 * EINTR. A signal the process started with ignored (nohup, a background job
 * of a non-interactive shell) stays ignored. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/cli.h"

/* the first signal caught (SIGINT or SIGTERM), 0 while none */
static volatile sig_atomic_t g_signal;

static void on_signal(int sig) {
  if (g_signal) {
    static const char msg[] = "\njelly: interrupted again: exit now, without the index files\n";
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
    _exit(130);
  }
  g_signal = sig;
}

void jl_cli_catch_interrupts(void) {
  static const int sigs[] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    struct sigaction old, sa;
    /* ignored at the start: left ignored */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sigs[i], &sa, NULL);
  }
}

int jl_cli_interrupted(void) { return g_signal != 0; }
