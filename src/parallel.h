/* Threads without nondeterminism (engine-internal; not part of the public API).
 *
 * - JL_OMP(...) emits an OpenMP pragma only when OpenMP is enabled, so the
 *   code compiles warning-free without it.
 * - Deterministic reductions: every sum over many elements is split into
 *   fixed blocks of JL_BLOCK elements; each block is summed sequentially
 *   (possibly on different threads) and the block partials are then added
 *   in block order by one thread. The result is therefore bitwise the same
 *   for any thread count and schedule.
 *
 * Hot loops call no function pointers per element: force elements are
 * called once per pass, and each loops over its own elements. */
#ifndef JL_SRC_PARALLEL_H
#define JL_SRC_PARALLEL_H

#ifdef _OPENMP
#define JL_OMP_STR_(x) #x
#define JL_OMP(x)      _Pragma(JL_OMP_STR_(x))
#else
#define JL_OMP(x)
#endif

/* loops shorter than this run on one thread (a parallel region costs a few us) */
#define JL_PAR_MIN 2048

/* light per-node passes (vector updates, mass, gravity, ground) over fewer
 * nodes than this run on one thread: there a pass takes about as long as
 * waking a second thread (and much longer when that thread's core is busy:
 * the tuner then steps on one thread, src/tune.h) */
#define JL_PAR_MIN_LIGHT 2048

/* elements per block of a deterministic reduction */
#define JL_BLOCK 1024

/* The thread count of a num_threads clause: t (JlStepDef.threads through
 * JlForce.threads or JlCg.threads), or OpenMP's default for 0. A clause per
 * parallel region, never omp_set_num_threads: a host's other worlds and its
 * own OpenMP code keep their counts. */
#ifdef _OPENMP
#include <omp.h>
static inline int jl_omp_threads(int t) { return t > 0 ? t : omp_get_max_threads(); }
#endif

static inline int jl_nblock(int n) { return n > 0 ? (n + JL_BLOCK - 1) / JL_BLOCK : 0; }
/* one past the last element of block blk of n: block blk is [blk JL_BLOCK, jl_block_end) */
static inline int jl_block_end(int blk, int n) { return blk * JL_BLOCK + JL_BLOCK < n ? blk * JL_BLOCK + JL_BLOCK : n; }

/* sums block partials in block order (the only place partials are combined) */
static inline double jl_sum_partials(int nblock, const double *partial) {
  double s = 0.0;
  for (int b = 0; b < nblock; b++) s += partial[b];
  return s;
}

#endif
