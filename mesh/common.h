/* Cross-cutting basics shared by every layer of Jelly: result codes, the
 * error-message convention, contract assertions and checked allocation.
 *
 * Errors travel through three channels (docs/architecture.md):
 *  1. bad input: a function returns a JlResult and writes a message naming the
 *     file, line or key and the reason into a caller's buffer (err, errsz);
 *  2. broken contracts (NULL, out-of-range index): JL_ASSERT, which aborts with
 *     a message saying what to do instead;
 *  3. numerical trouble: counted in the simulation state and reported by the
 *     step (src/). */
#ifndef JL_MESH_COMMON_H
#define JL_MESH_COMMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Also the process exit codes of the `jelly` program (docs/cli.md, "Exit codes"; `jelly --help`). */
typedef enum JlResult {
  JL_OK = 0,
  JL_ERR_RUNTIME = 1, /* the simulation diverged, or a result cannot be trusted (--strict) */
  JL_ERR_INPUT = 2,   /* bad file, scene, flag or mesh, a value out of range */
  JL_ERR_SYSTEM = 3,  /* the system refused: no display, an output that cannot be written,
                         out of memory, a process or thread that cannot be started */
  JL_RESULT_COUNT
} JlResult;

/* Writes a printf-style message into err (if err != NULL and errsz > 0) and
 * returns `code`, so callers can `return jl_fail(err, errsz, JL_ERR_INPUT, ...)`. */
JlResult jl_fail(char *err, size_t errsz, JlResult code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Contract failure: calls the assert handler if one is set (see below), then
 * prints "jelly: internal error at file:line: msg (expr)" and aborts. */
void jl_assert_fail(const char *file, int line, const char *expr, const char *msg);

/* A host application's hook for broken contracts (JL_ASSERT), so a bad call
 * into the library need not end the host. The handler is called with the
 * source file, line, the failed expression and the message, and is expected
 * not to return: it may longjmp to a recovery point of the host (a
 * thread-local jmp_buf set around its calls into Jelly) or end the process
 * its own way. If it returns, jl_assert_fail prints the message and aborts as
 * without a handler: the library never continues past a broken contract,
 * because the object it was working on may be half updated. After a longjmp
 * the objects the failed call was using (a world, a model) may only be
 * destroyed; memory the call had allocated leaks. One handler per process
 * (set atomically; the library's threads and the host's see the same);
 * NULL restores the default. Returns the previous handler. */
typedef void (*JlAssertHandler)(const char *file, int line, const char *expr, const char *msg);
JlAssertHandler jl_set_assert_handler(JlAssertHandler handler);
#define JL_ASSERT(cond, msg) ((cond) ? (void)0 : jl_assert_fail(__FILE__, __LINE__, #cond, (msg)))

/* calloc/realloc that abort with a message when memory is exhausted; sizes
 * are checked for overflow. jl_calloc(0, x) returns a valid pointer. */
void *jl_calloc(size_t count, size_t size);
void *jl_realloc(void *p, size_t count, size_t size);
/* Makes a failed jl_calloc/jl_realloc end the process with _exit(code)
 * instead of aborting; guarded child processes (mesh/child.h) set it so the
 * parent can tell "out of memory" from a crash. 0 restores aborting. */
void jl_set_nomem_exit(int code);
/* Union-find over parent (parent[i] = i initially) with path halving; the
 * root of a set is its lowest index, so the result does not depend on the
 * order of the unions. */
int jl_uf_find(int *parent, int i);
void jl_uf_union(int *parent, int a, int b);

/* The index of name in names[0..n) (strcmp), or n when name is NULL or not
 * there: the parse half of an enum's name table. */
int jl_name_index(const char *const *names, int n, const char *name);

/* Sorts the n records of `size` bytes at base by the int at byte offset key
 * of each (offsetof), ascending and stable: an insertion sort, for the few
 * records of one node or primitive (collision/proximity.c, collision/thin.c). */
void jl_sort_by_int(void *base, int n, size_t size, size_t key);

/* Grows *p (an array of elem-byte elements with room for *cap) to hold need,
 * doubling from 256, so a buffer that fits stops being reallocated
 * (collision detection's lists, the contact set). */
void jl_grow(void **p, int *cap, int need, size_t elem);

/* free() on each of n pointers (any may be NULL); JL_FREE_ALL(a, b, ...)
 * frees a list of arrays of any types in one line. */
void jl_free_all(void *const *p, size_t n);
#define JL_FREE_ALL(...) \
  jl_free_all((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/* Wall-clock seconds from a monotonic clock (for reports, never for physics). */
double jl_seconds(void);

#ifdef __cplusplus
}
#endif
#endif
