/* Guarded child processes (child.h): fork, limits, deadline, memory watch.
 *
 * Method. The child closes every descriptor but its answer pipe (another
 * thread's pipe must not stay open in it), sets PR_SET_PDEATHSIG(SIGKILL)
 * (and leaves at once if the parent is already gone), RLIMIT_AS to the
 * memory limit, RLIMIT_CPU to the timeout, points stdout/stderr at /dev/null, turns allocation failures
 * into _exit(JL_CHILD_EXIT_NOMEM) and runs the body. The parent reads the
 * answer with poll() in slices of at most 25 ms; between slices it checks the
 * wall-clock deadline and the child's resident size (/proc/PID/statm), and
 * SIGKILLs the child when either is exceeded. SIGKILL also ends a stopped
 * (SIGSTOP) child, so nothing can block the parent past the deadline.
 *
 * AddressSanitizer and ThreadSanitizer reserve terabytes of shadow address
 * space, so under either RLIMIT_AS is not set (JL_ASAN); the resident-memory watch (which the parent always
 * runs) and the deadline are the limits then. The watch alone would let a
 * child touch memory faster than the 25 ms slices for a moment; RLIMIT_AS in
 * normal builds makes the limit exact. */
#define _GNU_SOURCE
#include "mesh/child.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define JL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define JL_ASAN 1
#endif
#endif
#ifndef JL_ASAN
#define JL_ASAN 0
#endif

/* The process-wide limits (child.h), one atomic per field: a program
 * setting (the --mesh-* flags) that threads loading meshes at the same time
 * read while nobody writes. Atomics make those reads race-free without a
 * lock, which a child forked while another thread held it could never take.
 * A load that runs while the limits are being set may see some fields old and
 * some new; each value is one that was set. */
static _Atomic double g_timeout = 60.0, g_memory_mb = 8192.0, g_file_mb = 1024.0;

JlMeshLimits jl_default_mesh_limits(void) {
  JlMeshLimits l = {60.0, 8192.0, 1024.0};
  return l;
}

JlMeshLimits jl_mesh_limits(void) {
  JlMeshLimits l = {g_timeout, g_memory_mb, g_file_mb};
  return l;
}

void jl_mesh_set_limits(const JlMeshLimits *limits) {
  JL_ASSERT(limits, "jl_mesh_set_limits needs limits (start from jl_default_mesh_limits)");
  JL_ASSERT(isfinite(limits->timeout) && limits->timeout > 0 && isfinite(limits->memory_mb) && limits->memory_mb > 0 &&
                isfinite(limits->file_mb) && limits->file_mb > 0,
            "mesh limits must be finite and > 0");
  g_timeout = limits->timeout;
  g_memory_mb = limits->memory_mb;
  g_file_mb = limits->file_mb;
}

int jl_child_write(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    p += w;
    n -= (size_t)w;
  }
  return 1;
}

/* child side: limits, silence, parent-death signal */
static void child_setup(pid_t parent, const JlMeshLimits *l) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1); /* the parent died before prctl */
  signal(SIGPIPE, SIG_DFL);
  int devnull = open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    dup2(devnull, STDIN_FILENO);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    if (devnull > STDERR_FILENO) close(devnull);
  }
  struct rlimit r;
  double cpu = ceil(l->timeout) + 1.0;
  r.rlim_cur = (rlim_t)cpu;
  r.rlim_max = (rlim_t)cpu + 2;
  setrlimit(RLIMIT_CPU, &r);
  if (!JL_ASAN) {
    double bytes = l->memory_mb * 1048576.0;
    r.rlim_cur = r.rlim_max = bytes < 9.0e18 ? (rlim_t)bytes : RLIM_INFINITY;
    setrlimit(RLIMIT_AS, &r);
  }
  jl_set_nomem_exit(JL_CHILD_EXIT_NOMEM);
  jl_child_new_handler_exit();
}

/* child side: closes every descriptor above stderr but keep. Another
 * thread's child start may be between its pipe() and closing the pipe's
 * write end in the parent when this child is forked; a child that kept that
 * write end open would hold back the other parent's end of file, so a crash
 * of the other child would look like a timeout (tests/test_threads.c). */
static void close_other_fds(int keep) {
  if (keep > 3 && close_range(3, (unsigned)keep - 1, 0) == 0 && close_range((unsigned)keep + 1, ~0u, 0) == 0) return;
  if (keep == 3 && close_range(4, ~0u, 0) == 0) return;
  /* close_range missing (kernel before 5.9): one by one up to the limit */
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 1048576) max = 1048576;
  for (long f = 3; f < max; f++)
    if (f != keep) close((int)f);
}

int jl_child_start(JlChild *c, const char *what, JlChildFn fn, void *ctx) {
  JL_ASSERT(c && what && fn, "jl_child_start needs a JlChild, a name and a body");
  memset(c, 0, sizeof *c);
  c->pid = -1;
  c->fd = -1;
  c->what = what;
  c->limits = jl_mesh_limits();
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fd[0]);
    close(fd[1]);
    errno = e;
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    close_other_fds(fd[1]);
    child_setup(parent, &c->limits);
    fn(fd[1], ctx);
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  c->pid = (int)pid;
  c->fd = fd[0];
  c->deadline = jl_seconds() + c->limits.timeout;
  return 0;
}

/* resident size of the child in MB, or 0 when unknown */
static double resident_mb(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/statm", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0.0;
  unsigned long size = 0, resident = 0;
  int n = fscanf(f, "%lu %lu", &size, &resident);
  fclose(f);
  if (n != 2) return 0.0;
  return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

static void kill_child(JlChild *c) {
  if (c->pid > 0) kill(c->pid, SIGKILL);
}

int jl_child_read(JlChild *c, void *buf, size_t n) {
  JL_ASSERT(c && (buf || n == 0), "jl_child_read needs a started child and a buffer");
  char *p = buf;
  while (n > 0) {
    if (c->pid <= 0 || c->timed_out || c->over_memory) return 0;
    /* deadline and memory watch between slices of at most 25 ms */
    double left = c->deadline - jl_seconds();
    if (left <= 0) {
      c->timed_out = 1;
      kill_child(c);
      return 0;
    }
    if (resident_mb(c->pid) > c->limits.memory_mb) {
      c->over_memory = 1;
      kill_child(c);
      return 0;
    }
    struct pollfd pfd = {c->fd, POLLIN, 0};
    int ms = left < 0.025 ? (int)(left * 1000.0) + 1 : 25;
    int r = poll(&pfd, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return 0;
    if (r == 0) continue;
    ssize_t got = read(c->fd, p, n);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return 0;
    p += got;
    n -= (size_t)got;
  }
  return 1;
}

JlChildEnd jl_child_finish(JlChild *c, char *why, size_t whysz) {
  JL_ASSERT(c, "jl_child_finish needs a child");
  if (why && whysz) why[0] = '\0';
  if (c->fd >= 0) close(c->fd);
  c->fd = -1;
  if (c->pid <= 0) return JL_CHILD_CRASHED;

  /* reap: wait until the deadline (the answer is in, it should leave at
   * once), then kill; a killed child, even a stopped one, always ends */
  int status = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  for (;;) {
    pid_t r = wait4(c->pid, &status, WNOHANG, &ru);
    if (r == c->pid) break;
    if (r < 0 && errno != EINTR) {
      c->pid = -1;
      if (why) snprintf(why, whysz, "%s vanished", c->what);
      return JL_CHILD_CRASHED;
    }
    if (r == 0) {
      if (jl_seconds() > c->deadline) {
        if (!c->over_memory) c->timed_out = 1;
        kill_child(c);
        while (wait4(c->pid, &status, 0, &ru) < 0 && errno == EINTR) {
        }
        break;
      }
      if (!c->over_memory && resident_mb(c->pid) > c->limits.memory_mb) {
        c->over_memory = 1;
        kill_child(c);
        continue;
      }
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, NULL);
    }
  }
  c->pid = -1;

  /* classify */
  const JlMeshLimits *l = &c->limits;
  if (c->timed_out) {
    if (why) snprintf(why, whysz, "took longer than %g s (mesh limit timeout_s)", l->timeout);
    return JL_CHILD_TIMEOUT;
  }
  if (c->over_memory) {
    if (why) snprintf(why, whysz, "needed more than %g MB (mesh limit memory_mb)", l->memory_mb);
    return JL_CHILD_MEMORY;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return JL_CHILD_DONE;
  if (WIFEXITED(status) && WEXITSTATUS(status) == JL_CHILD_EXIT_NOMEM) {
    /* our limit, or a smaller one the process was started with */
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
        (double)as.rlim_cur / 1048576.0 < l->memory_mb) {
      if (why)
        snprintf(why, whysz,
                 "ran out of memory: the system allows this process %.0f MB (ulimit -v), less than the "
                 "%g MB of the mesh limit memory_mb",
                 (double)as.rlim_cur / 1048576.0, l->memory_mb);
      return JL_CHILD_SYSTEM;
    }
    if (why) snprintf(why, whysz, "needed more than %g MB (mesh limit memory_mb)", l->memory_mb);
    return JL_CHILD_MEMORY;
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGXCPU || sig == SIGKILL) {
      /* SIGXCPU: the CPU limit; SIGKILL that we did not send: the hard CPU
       * limit or the kernel's out-of-memory killer */
      double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec;
      if (sig == SIGXCPU || cpu >= ceil(l->timeout)) {
        if (why) snprintf(why, whysz, "took longer than %g s of CPU time (mesh limit timeout_s)", l->timeout);
        return JL_CHILD_TIMEOUT;
      }
      if (why)
        snprintf(why, whysz,
                 "needed more than the machine's memory (killed by signal 9, most likely the "
                 "out-of-memory killer; mesh limit memory_mb %g MB)",
                 l->memory_mb);
      return JL_CHILD_SYSTEM;
    }
    if (why) snprintf(why, whysz, "crashed in %s (signal %d, %s)", c->what, sig, strsignal(sig));
    return JL_CHILD_CRASHED;
  }
  if (why && WIFEXITED(status)) snprintf(why, whysz, "crashed in %s (exit status %d)", c->what, WEXITSTATUS(status));
  return JL_CHILD_CRASHED;
}
