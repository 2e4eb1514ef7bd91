/* Jelly's test harness: one small set of macros, registered with CTest.
 *
 * A test file says which tier its cases belong to, then lists them:
 *
 *     #define JL_TEST_TIER JL_UNIT
 *     ...
 *     JL_TEST_MAIN({"name", fn}, {"other", fn2, JL_SCENE | JL_SHORT}, ...)
 *
 * A case without a tier of its own takes the file's. The tiers are CTest
 * labels (docs/testing.md): unit, scene, program, robustness; JL_SHORT marks
 * a scene case that is also run under the sanitizers (label "short"). Each
 * case is a void function; ENSURE* macros report the failing expression with
 * file and line and leave the case; SKIP says why a case cannot run here and
 * leaves it.
 *
 * Command line (tests/discover.cmake registers one CTest test per case):
 *     test_x              every case
 *     test_x NAME         the cases whose name contains NAME
 *     test_x --case=NAME  exactly the case NAME (exit 77 when it skipped)
 *     test_x --tier=TIER  the cases of a tier (unit, scene, program, robustness, short)
 *     test_x --list       "NAME LABELS" per case, LABELS separated by ','
 * The run ends with the line "N passed, N failed, N skipped". */
#ifndef JL_TESTS_HARNESS_H
#define JL_TESTS_HARNESS_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* tiers (CTest labels); a case's tier 0 means the file's JL_TEST_TIER */
enum { JL_UNIT = 1, JL_SCENE = 2, JL_PROGRAM = 3, JL_ROBUSTNESS = 4, JL_TIER_MASK = 7 };
/* a scene case also run under the sanitizers: the same code paths on a short run */
#define JL_SHORT 8

typedef struct JlTestCase {
  const char *name;
  void (*fn)(void);
  int tier; /* JL_UNIT ... | JL_SHORT; 0: the file's tier */
} JlTestCase;

int jl_test_main(int argc, char **argv, const JlTestCase *cases, int ncase, int file_tier);
void jl_test_fail(const char *file, int line, const char *fmt, ...);
int jl_test_failed(void);
/* marks the running case skipped and prints "  SKIP <case>: <reason>" */
void jl_test_skip(const char *fmt, ...);

/* Runs a shell command, returns its exit status (or -1); its combined
 * stdout+stderr goes into out (NUL-terminated, truncated to outsz). */
int jl_test_run(const char *cmd, char *out, size_t outsz);
/* A fresh empty directory under the build tree for this case
 * (tmp_tests/<program>.<case>/<tag>, so cases running side by side never
 * share one); returns a path valid until the program exits. */
const char *jl_test_tmpdir(const char *tag);
/* Reads a whole file into a malloc'd NUL-terminated buffer (NULL on error). */
char *jl_test_read_file(const char *path, size_t *len);
/* Writes text to path (replacing it); 1 when all of it was written and the file closed. */
int jl_test_write_file(const char *path, const char *text);

/* JL_TEST_QUICK set: the reduced sizes of scripts/test.sh's sanitizer run. */
static inline int jl_test_quick(void) { return getenv("JL_TEST_QUICK") != NULL; }

/* Deterministic xorshift64 numbers in [-1, 1) from *state (nonzero), for
 * tests that need reproducible random inputs. */
static inline double jl_test_rnd(unsigned long long *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return (double)(*state >> 11) / (double)(1ull << 52) - 1.0;
}

/* Knuth's MMIX linear congruential step (64-bit state): the fixed sequences
 * of tests that shuffle or jitter (take the high bits); returns the new state. */
static inline unsigned long long jl_test_lcg(unsigned long long *state) {
  return *state = *state * 6364136223846793005ull + 1442695040888963407ull;
}

#define ENSURE(cond)                                         \
  do {                                                       \
    if (!(cond)) {                                           \
      jl_test_fail(__FILE__, __LINE__, "ENSURE(%s)", #cond); \
      return;                                                \
    }                                                        \
  } while (0)

#define ENSURE_MSG(cond, ...)                        \
  do {                                               \
    if (!(cond)) {                                   \
      jl_test_fail(__FILE__, __LINE__, __VA_ARGS__); \
      return;                                        \
    }                                                \
  } while (0)

/* |a - b| <= tol (rel 0) or <= tol * max(|a|, |b|) (rel 1), neither NaN;
 * otherwise fails the case with "<what>: a vs b (diff or rel ...)" and
 * returns 0. The check behind ENSURE_NEAR and ENSURE_REL. */
int jl_test_close(const char *file, int line, const char *what, double a, double b, double tol, int rel);

/* |a - b| <= tol, and neither is NaN. */
#define ENSURE_NEAR(a, b, tol)                                                                                   \
  do {                                                                                                           \
    if (!jl_test_close(__FILE__, __LINE__, "ENSURE_NEAR(" #a ", " #b ", " #tol ")", (a), (b), (tol), 0)) return; \
  } while (0)

/* |a - b| <= rel * max(|a|, |b|). */
#define ENSURE_REL(a, b, rel)                                                                                   \
  do {                                                                                                          \
    if (!jl_test_close(__FILE__, __LINE__, "ENSURE_REL(" #a ", " #b ", " #rel ")", (a), (b), (rel), 1)) return; \
  } while (0)

/* leaves the case as skipped, saying why (printf-style) */
#define SKIP(...)              \
  do {                         \
    jl_test_skip(__VA_ARGS__); \
    return;                    \
  } while (0)

/* the file must define JL_TEST_TIER (the tier of its cases without one);
 * a case written {"name", fn} leaves its tier 0 on purpose */
#define JL_TEST_MAIN(...)                                                                                     \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"") int main( \
      int argc, char **argv) {                                                                                \
    static const JlTestCase cases_[] = {__VA_ARGS__};                                                         \
    return jl_test_main(argc, argv, cases_, (int)(sizeof cases_ / sizeof cases_[0]), JL_TEST_TIER);           \
  }                                                                                                           \
  _Pragma("GCC diagnostic pop")

#endif
