/* The thread count a world steps with on a shared machine (src/tune.h). */
#define _DEFAULT_SOURCE
#include "src/tune.h"

#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* the process's involuntary context switches so far, -1 when unknown */
static long involuntary_switches(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
  return ru.ru_nivcsw;
}

/* idle cores on average since the last look (from /proc/stat's busy and
 * total jiffies of all CPUs); -1 when unknown (no /proc/stat), -2 when the
 * window is still too short to say (the window then goes on) */
static double proc_idle_cores(JlThreadTune *t) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return -1.0;
  char line[512];
  double busy = -1.0, total = 0.0;
  int ncpu = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "cpu ", 4) == 0) {
      unsigned long long v[8] = {0};
      if (sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                 &v[7]) < 4)
        break;
      for (int k = 0; k < 8; k++) total += (double)v[k];
      busy = total - (double)v[3] - (double)v[4]; /* less idle and iowait */
    } else if (strncmp(line, "cpu", 3) == 0) {
      ncpu++;
    } else if (busy >= 0.0) {
      break;
    }
  }
  fclose(f);
  if (busy < 0.0 || ncpu < 1) return -1.0;
  double db = busy - t->busy0, dt = total - t->total0;
  if (t->total0 > 0.0 && dt < 5.0 * ncpu) return -2.0; /* under five jiffies per CPU: nothing to say yet */
  int first = t->total0 <= 0.0;
  t->busy0 = busy, t->total0 = total;
  return first ? -2.0 : ncpu * (1.0 - db / dt);
}

/* seconds the team's other threads spent waiting on a run queue (the
 * second field of /proc/self/task/TID/schedstat, ns); -1 when unknown */
static double proc_delay(JlThreadTune *t) {
  if (t->ntid < 1) return -1.0;
  double sum = 0.0;
  for (int k = 0; k < t->ntid; k++) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", t->tid[k]);
    FILE *f = fopen(path, "r");
    if (!f) return -1.0;
    unsigned long long run, wait;
    int ok = fscanf(f, "%llu %llu", &run, &wait) == 2;
    fclose(f);
    if (!ok) return -1.0;
    sum += 1e-9 * (double)wait;
  }
  return sum;
}

/* runnable threads of other processes: /proc/loadavg's running count less
 * this process's threads in state R; -1 when unknown */
static double proc_others_running(JlThreadTune *t) {
  (void)t;
  FILE *f = fopen("/proc/loadavg", "r");
  if (!f) return -1.0;
  double l1, l5, l15;
  int running = 0, total = 0;
  int ok = fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) == 5;
  fclose(f);
  if (!ok) return -1.0;
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1.0;
  int own = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
    char path[96], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", de->d_name);
    FILE *g = fopen(path, "r");
    if (!g) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, g);
    fclose(g);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')'); /* the state follows the command name in parentheses */
    if (close && close[1] == ' ' && close[2] == 'R') own++;
  }
  closedir(d);
  return running > own ? (double)(running - own) : 0.0;
}

static double monotonic_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the kernel thread ids of the OpenMP team's threads other than the
 * caller (libgomp keeps its pool, so the next regions run on them) */
static void team_ids(JlThreadTune *t) {
  t->ntid = 0;
#ifdef _OPENMP
  int tid[JL_TUNE_MAX_TIDS + 1] = {0}, n = t->full < JL_TUNE_MAX_TIDS + 1 ? t->full : JL_TUNE_MAX_TIDS + 1;
#pragma omp parallel num_threads(n)
  {
    int me = omp_get_thread_num();
    if (me < n) tid[me] = (int)syscall(SYS_gettid);
  }
  for (int k = 1; k < n; k++)
    if (tid[k] > 0 && tid[k] != tid[0]) t->tid[t->ntid++] = tid[k];
#endif
}

/* starts the idle window at this moment */
static void idle_restart(JlThreadTune *t) {
  t->total0 = 0.0;
  t->idle_cores(t);
}

void jl_tune_init(JlThreadTune *t, int full, int nnode) {
  (void)nnode;
  memset(t, 0, sizeof *t);
#ifdef _OPENMP
  if (full <= 0) full = omp_get_max_threads();
#else
  full = 1;
#endif
  t->full = t->now = full > 1 ? full : 1;
  t->interval = 4;
  t->rate = -1.0;
  t->csw = -1;
  t->running = t->full;
  t->delay0 = -1.0;
  t->switches_now = involuntary_switches;
  t->idle_cores = proc_idle_cores;
  t->delay_now = proc_delay;
  t->seconds_now = monotonic_seconds;
  t->others_running = proc_others_running;
  long nc = sysconf(_SC_NPROCESSORS_ONLN);
  t->ncpu = nc > 0 && nc < 1 << 20 ? (int)nc : t->full;
  if (t->full > 1) {
    idle_restart(t);
    team_ids(t);
  }
}

/* switches the steps between tries to count n */
static void switch_to(JlThreadTune *t, int n) {
  t->now = n;
  t->switches++;
  t->interval = 4;
  t->wait = 4;
  if (n != t->full) idle_restart(t);
}

/* a try of the other count lost: the next comes fourfold later */
static void try_lost(JlThreadTune *t) {
  t->interval = t->interval < JL_TUNE_MAX_WAIT / 4 ? 4 * t->interval : JL_TUNE_MAX_WAIT;
  t->wait = t->interval;
}

static int begin_count(JlThreadTune *t) {
  if (t->full <= 1) return 1;
  if (!t->started) {
    /* another process holds a core already (at each of a few looks 1/4 ms
     * apart, so a thread that just woke does not count): start on one thread */
    t->started = 1;
    int busy = 1;
    for (int k = 0; k < JL_TUNE_START_LOOKS && busy; k++) {
      if (k > 0) nanosleep(&(struct timespec){0, 250000}, NULL);
      double others = t->others_running(t);
      busy = others >= 1.0 && others > t->ncpu - t->full;
    }
    if (busy) {
      t->now = 1;
      t->wait = 4;
      idle_restart(t);
    }
  }
  t->csw = t->switches_now();
  if (t->wait > 0 || t->rate < 0.0) return t->now;
  if (t->now == t->full) {
    /* jl_tune_end set wait = 0 and trying = -1 when the last step was preempted */
    if (t->trying != -1) return t->now;
  } else {
    double idle = t->idle_cores(t);
    if (idle == -2.0 || (idle >= 0.0 && idle < 0.5)) { /* the other cores are still busy: look again later */
      t->wait = 4;
      return t->now;
    }
  }
  t->trying = 1;
  t->tries++;
  return t->now == t->full ? 1 : t->full;
}

int jl_tune_begin(JlThreadTune *t) {
  int n = begin_count(t);
  t->running = n;
  if (n > 1) {
    t->t0 = t->tpoll = t->seconds_now();
    t->delay0 = t->delay_now(t);
  }
  return n;
}

int jl_tune_poll(JlThreadTune *t) {
  if (t->running <= 1) return t->running;
  double now = t->seconds_now();
  if (now - t->tpoll < JL_TUNE_POLL_S || !(t->delay0 >= 0.0)) return t->running;
  t->tpoll = now;
  double d = t->delay_now(t);
  if (!(d >= 0.0)) return t->running;
  d -= t->delay0;
  if (d < JL_TUNE_DELAY_MIN_S || d < 0.25 * (now - t->t0)) return t->running;
  /* the other threads wait for a busy core: one thread from here */
  if (t->trying == 1 && t->now == 1) { /* a try of more threads */
    try_lost(t);
    idle_restart(t);
  } else {
    switch_to(t, 1);
  }
  t->trying = 0;
  t->running = 1;
  t->csw_acc = t->wall_acc = 0.0;
  return 1;
}

void jl_tune_end(JlThreadTune *t, double seconds, int cg_iterations) {
  if (t->full <= 1) return;
  t->steps++;
  double r = seconds / (1.0 + (cg_iterations > 0 ? cg_iterations : 0));
  if (!(r > 0.0)) return;
  if (t->trying == 1) {
    t->trying = 0;
    if (r < 0.95 * t->rate) { /* the other count is faster: keep it */
      switch_to(t, t->now == t->full ? 1 : t->full);
      t->rate = r;
    } else {
      try_lost(t);
    }
    return;
  }
  t->rate = r; /* the last step: contention starts from one step to the next */
  if (t->wait > 0) t->wait--;
  if (t->now != t->full) return;
  long c = t->switches_now();
  int counted = c >= 0 && t->csw >= 0; /* without the counter: timed tries only */
  /* a window of the last quarter second or so: halved as it grows past it */
  if (t->wall_acc > 0.25) t->wall_acc *= 0.5, t->csw_acc *= 0.5;
  t->wall_acc += seconds;
  if (counted) t->csw_acc += (double)(c - t->csw);
  /* preempted at the rate a busy core causes (its timeslices): try one
   * thread next. An idle machine preempts too, but some 50 times a second
   * (measured: 45-60/s; a busy loop on the other core: 200-240/s) */
  if (t->wait == 0 && (!counted || (t->csw_acc >= 2.0 && t->csw_acc >= JL_TUNE_PREEMPT_RATE * t->wall_acc))) {
    t->trying = -1;
    t->csw_acc = 0.0;
    t->wall_acc = 0.0;
  }
}
