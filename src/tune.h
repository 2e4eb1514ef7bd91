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
 * intervals that grow fourfold after every try that lost.
 *
 * Before the first step, /proc/loadavg's count of runnable threads less this
 * process's own says whether another process already holds a core (at
 * JL_TUNE_START_LOOKS looks 1/4 ms apart: on an idle machine one look in 25
 * finds some thread that just woke, four in a row none in 3000): then the
 * world starts on one thread (and tries more once a core is idle).
 *
 * Within a step (jl_tune_poll, once per CG iteration, looking at most every
 * JL_TUNE_POLL_S): one step on two threads beside a busy loop took 90-150 ms
 * where one thread needs 4 (sphere_10k), so the first step of a contention
 * cost more than the tuner saved afterwards. The poll reads how long the
 * other threads of the team waited for a CPU since the step began
 * (/proc/self/task/TID/schedstat, the run-queue delay): at least
 * JL_TUNE_DELAY_MIN_S and a quarter of the step's wall time so far, and the
 * rest of the step runs on one thread, as if the step's end had decided it.
 * The thread ids are read once, in a parallel region at jl_tune_init: a
 * world stepped from another host thread than the one that created it has
 * another OpenMP team, whose waiting the poll does not see (only the wall
 * time is at stake: results never depend on the thread count). */
#ifndef JL_SRC_TUNE_H
#define JL_SRC_TUNE_H

#ifdef __cplusplus
extern "C" {
#endif

#define JL_TUNE_MAX_WAIT    1024
#define JL_TUNE_START_LOOKS 4    /* looks at the other processes' runnable threads before the first step */
#define JL_TUNE_MAX_TIDS    7    /* threads beyond the first whose waiting the poll reads */
#define JL_TUNE_POLL_S      2e-3 /* jl_tune_poll looks at most this often (a look costs 10 us) */
#define JL_TUNE_DELAY_MIN_S 8e-3 /* and switches once the other threads waited this long in the step */

typedef struct JlThreadTune {
  int full;             /* the world's thread count (JlStepDef.threads, 0 resolved) */
  int now;              /* the count of the steps between tries */
  int trying;           /* this step tries the other count */
  int wait;             /* steps before the next try may start */
  int interval;         /* the wait after a try that lost (grows fourfold, at most JL_TUNE_MAX_WAIT) */
  double rate;          /* wall seconds per unit of work of the last step at `now`, < 0 unknown */
  long csw;             /* involuntary context switches at the start of the step */
  double csw_acc;       /* those during the recent steps at `full` (since the last try, a window of about 1/4 s) */
  double wall_acc;      /* and those steps' wall seconds */
  double busy0, total0; /* /proc/stat busy and total jiffies at the last look */
  int running;          /* the count the current step runs on (jl_tune_begin's answer, or 1 after a poll) */
  double t0, tpoll;     /* s (seconds_now): the step's start, the last look of jl_tune_poll */
  double delay0;        /* s: the other threads' run-queue delay at the step's start, < 0 unknown */
  int ntid;             /* the OpenMP team's threads other than the first, by kernel thread id */
  int tid[JL_TUNE_MAX_TIDS];
  int steps; /* steps taken (statistics: `switches`, `tries`) */
  int tries, switches;
  /* the signals (tests replace them): the process's involuntary context
   * switches so far (-1 unknown) and the idle cores since the last look
   * (-1 unknown, -2 window too short; a look restarts the window) */
  long (*switches_now)(void);
  double (*idle_cores)(struct JlThreadTune *t);
  /* and the seconds the team's other threads waited for a CPU so far (-1
   * unknown), and a monotonic clock in seconds */
  double (*delay_now)(struct JlThreadTune *t);
  double (*seconds_now)(void);
  /* and, before the first step, the runnable threads of other processes
   * (-1 unknown), and the machine's online CPUs */
  double (*others_running)(struct JlThreadTune *t);
  int ncpu;
  int started; /* the first step began */
} JlThreadTune;

/* involuntary context switches per second of stepping that say a core is busy */
#define JL_TUNE_PREEMPT_RATE 120.0

/* full: the world's thread count (0: OpenMP's default); nnode: its nodes
 * (below JL_PAR_MIN_LIGHT every loop runs on one thread, so there is
 * nothing to tune) */
void jl_tune_init(JlThreadTune *t, int full, int nnode);
/* the thread count of the next step */
int jl_tune_begin(JlThreadTune *t);
/* during the step: the thread count for the rest of it (1 once the other
 * threads wait for a busy core) */
int jl_tune_poll(JlThreadTune *t);
/* after the step: its wall seconds and CG iterations */
void jl_tune_end(JlThreadTune *t, double seconds, int cg_iterations);

#ifdef __cplusplus
}
#endif
#endif
