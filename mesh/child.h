/* Guarded child processes for the code Jelly cannot trust with hostile input:
 * the assimp importer (mesh/surface.c) and TetGen (mesh/tetgen_bridge.cpp).
 *
 * A child is forked with limits on its address space (RLIMIT_AS) and CPU
 * time (RLIMIT_CPU), dies with its parent (PR_SET_PDEATHSIG), and answers
 * through a pipe that the parent reads with a wall-clock deadline while it
 * watches the child's resident memory. A crash, abort, timeout or memory
 * limit in the child becomes a JlChildEnd and a sentence for the message
 * ("crashed in the importer (signal 11, Segmentation fault)", "took longer
 * than 60 s", "needed more than 8192 MB"); the caller adds the file name.
 * Limits and their defaults: docs/robustness.md. */
#ifndef JL_MESH_CHILD_H
#define JL_MESH_CHILD_H

#include <stddef.h>

#include "mesh/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Process-wide limits of every mesh import and TetGen run. Set once at
 * start-up (the `jelly` flags --mesh-timeout, --mesh-memory, --mesh-max-file).
 * Reading and setting them is thread-safe (atomics); a load running while
 * they are set may see a mix of old and new fields. */
typedef struct JlMeshLimits {
  double timeout;   /* s, wall clock of one importer or TetGen child, also its CPU-time limit;
                       > 0. default 60 */
  double memory_mb; /* MB (2^20 bytes), address space of one child; > 0. default 8192 */
  double file_mb;   /* MB, largest mesh file (and each file it references); > 0. default 1024 */
} JlMeshLimits;

JlMeshLimits jl_default_mesh_limits(void);
/* The limits in force (the defaults until jl_mesh_set_limits). */
JlMeshLimits jl_mesh_limits(void);
/* Asserts that every field is finite and > 0. */
void jl_mesh_set_limits(const JlMeshLimits *limits);

/* Largest element count (vertices, faces, tets) that any header or child
 * answer may claim before anything is allocated for it. */
#define JL_MAX_MESH_ELEMENTS 100000000

typedef enum JlChildEnd {
  JL_CHILD_DONE,    /* exited normally (status 0) */
  JL_CHILD_TIMEOUT, /* wall-clock deadline or CPU limit: killed */
  JL_CHILD_MEMORY,  /* over the memory limit (--mesh-memory): address space or resident size */
  JL_CHILD_SYSTEM,  /* the system refused memory below that limit: the out-of-memory killer,
                       or the process's own address-space limit (ulimit -v) is smaller */
  JL_CHILD_CRASHED, /* signal or non-zero exit */
  JL_CHILD_END_COUNT
} JlChildEnd;

typedef struct JlChild {
  int pid;             /* -1 when not running */
  int fd;              /* read end of the answer pipe */
  const char *what;    /* "the importer", "TetGen": for messages */
  JlMeshLimits limits; /* copied at start */
  double deadline;     /* jl_seconds() after which the child is killed */
  int timed_out;       /* the parent killed it at the deadline */
  int over_memory;     /* the parent killed it for its resident size */
} JlChild;

/* Child body: writes its answer to fd (jl_child_write) and returns; the
 * child then leaves with _exit(0). */
typedef void (*JlChildFn)(int fd, void *ctx);

/* Forks a child running fn(fd, ctx) with stdout/stderr on /dev/null and the
 * limits in force. Returns 0, or -1 with errno set when it cannot start. */
int jl_child_start(JlChild *c, const char *what, JlChildFn fn, void *ctx);
/* Reads exactly n bytes of the answer. Returns 1, or 0 at end of file, at
 * the deadline or over the memory limit (the child is killed then). */
int jl_child_read(JlChild *c, void *buf, size_t n);
/* Child side: writes all n bytes; 0 when the parent stopped listening. */
int jl_child_write(int fd, const void *buf, size_t n);
/* Closes the pipe, reaps the child (killing it if it does not leave within
 * the deadline) and classifies its end; for anything but JL_CHILD_DONE, why
 * gets the reason, e.g. "took longer than 60 s (mesh limit timeout_s)". */
JlChildEnd jl_child_finish(JlChild *c, char *why, size_t whysz);

/* Exit status of a child whose allocation failed (jl_set_nomem_exit and, for
 * C++ code, the new-handler installed by jl_child_start). */
#define JL_CHILD_EXIT_NOMEM 97

/* mesh/tetgen_bridge.cpp: makes operator new end the process with
 * _exit(JL_CHILD_EXIT_NOMEM) instead of throwing (called in children). */
void jl_child_new_handler_exit(void);

#ifdef __cplusplus
}
#endif
#endif
