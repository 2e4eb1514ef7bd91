/* The thread count a world steps with on a shared machine (src/tune.c;
 * docs/performance.md, "Two cores, and a busy core").
 *
 * JlStepDef.threads is an upper bound. A parallel region ends at a barrier,
 * so when another process holds one of the cores, the thread that shares it
 * stalls every region of the step and two threads run slower than one
 * (sphere_10k: 16.9 ms per step on 2 threads against 8.1 on 1 with a busy
 * loop on the other core). The tuner watches for that and steps on one
 * thread while it lasts. Results never depend on the thread count (every
 * reduction has a fixed order), so switching changes the wall time only.
 *
 * Signals, read once per step (a few microseconds):
 * - the process's involuntary context switches (getrusage): threads that
 *   are preempted mid-step at a busy core's rate (JL_TUNE_PREEMPT_RATE per
 *   second) say another process wants their core; only then is one thread
 *   tried;
 * - the machine's idle time (/proc/stat): while on one thread, more threads
 *   are tried again only once the other cores were idle;
 * - the measured wall time per unit of work (a step's wall time over 1 + its
 *   CG iterations) of each count: a try is kept when it is 5 % faster.
 * Where these counters do not exist (not Linux), tries are timed only, at
 * intervals that grow fourfold after every try that lost. */
#ifndef JL_SRC_TUNE_H
#define JL_SRC_TUNE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlThreadTune {
  int full;        /* the world's thread count (JlStepDef.threads, 0 resolved) */
  int now;         /* the count of the steps between tries */
  int trying;      /* this step tries the other count */
  int wait;        /* steps before the next try may start */
  int interval;    /* the wait after a try that lost (grows fourfold, at most JL_TUNE_MAX_WAIT) */
  double rate;     /* wall seconds per unit of work of the last step at `now`, < 0 unknown */
  long csw;        /* involuntary context switches at the start of the step */
  double csw_acc;  /* those during the recent steps at `full` (since the last try, a window of about 1/4 s) */
  double wall_acc; /* and those steps' wall seconds */
  double busy0, total0; /* /proc/stat busy and total jiffies at the last look */
  int steps;       /* steps taken (statistics: `switches`, `tries`) */
  int tries, switches;
  /* the signals (tests replace them): the process's involuntary context
   * switches so far (-1 unknown) and the idle cores since the last look
   * (-1 unknown, -2 window too short; a look restarts the window) */
  long (*switches_now)(void);
  double (*idle_cores)(struct JlThreadTune *t);
} JlThreadTune;

#define JL_TUNE_MAX_WAIT 1024
/* involuntary context switches per second of stepping that say a core is busy */
#define JL_TUNE_PREEMPT_RATE 120.0

/* full: the world's thread count (0: OpenMP's default); nnode: its nodes
 * (below JL_PAR_MIN_LIGHT every loop runs on one thread, so there is
 * nothing to tune) */
void jl_tune_init(JlThreadTune *t, int full, int nnode);
/* the thread count of the next step */
int jl_tune_begin(JlThreadTune *t);
/* after the step: its wall seconds and CG iterations */
void jl_tune_end(JlThreadTune *t, double seconds, int cg_iterations);

#ifdef __cplusplus
}
#endif
#endif
