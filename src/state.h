/* A world's simulation state as a value: copy it to another world of the
 * same model, or save it to a checkpoint file and load it back.
 *
 * The state is everything that changes results (docs/architecture.md, "Model
 * and state"): t, x, v, the CG warm start dv, the world's pin mask
 * (jl_world_pin), the adaptive step fields
 * (h_adaptive, good_steps), the warnings, and each force element's history
 * (JlForce.history_*: the contacts' last contact set, slack and friction
 * anchors, the body detection's last contacts, the ground's anchors and
 * slack). Stepping two worlds that hold the same state gives bitwise equal
 * results. Step settings (JlStepDef) are not state: the world that receives
 * a state keeps its own.
 *
 * Checkpoint file (docs/architecture.md, "Checkpoint files"): magic
 * "JELLYCKP", format version, the byte order, the model's fingerprint
 * (jl_model_fingerprint of the world's base model, with the pins it was
 * built with), counts, the state's arrays and pin mask, the elements' history
 * and an FNV-1a checksum of all of it. Numbers are stored in this machine's
 * layout, so a file is for the same build on the same kind of machine; the
 * header refuses anything else. Every count is checked against the model
 * and the file's size before anything is allocated or read: a truncated,
 * corrupted or hostile file is an error (JL_ERR_INPUT) naming the file and
 * the reason, never a crash or a huge allocation. */
#ifndef JL_SRC_STATE_H
#define JL_SRC_STATE_H

#include <stdint.h>

#include "src/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JL_CHECKPOINT_MAGIC "JELLYCKP"
/* 2: the world's pin mask follows x, v, dv (pins are state since worlds share a model) */
#define JL_CHECKPOINT_VERSION 2

/* FNV-1a (64 bit) over what the model's physics reads: counts, masses, pins,
 * rest and initial positions and velocities, springs, tets and their
 * stiffnesses, faces, bodies' ranges and kinds, the world settings and the
 * obstacles. Two models built from the same scene and meshes by the same
 * build have the same fingerprint. */
uint64_t jl_model_fingerprint(const JlModel *m);

/* dst's state := src's (t, x, v, dv, pin mask, adaptive fields, warnings,
 * every element's history). Both worlds must be of the same model (the same
 * base pointer, or base models with equal fingerprints) with the same force elements
 * in the same order; otherwise JL_ERR_INPUT with the reason and dst is left
 * as it was. src and dst must not be stepped meanwhile (by other threads). */
JlResult jl_state_copy(JlWorld *dst, const JlWorld *src, char *err, size_t errsz);

/* Writes w's state to path (replaced if it exists). JL_ERR_SYSTEM when the
 * file cannot be written. */
JlResult jl_checkpoint_save(const JlWorld *w, const char *path, char *err, size_t errsz);

/* Reads a checkpoint written by jl_checkpoint_save into w, whose model must
 * be the one the checkpoint was saved from (same fingerprint) with the same
 * force elements. JL_ERR_INPUT (w unchanged) for a file that is not a
 * checkpoint, of another format version, build or model, truncated or
 * corrupted; JL_ERR_SYSTEM when it cannot be opened. */
JlResult jl_checkpoint_load(JlWorld *w, const char *path, char *err, size_t errsz);

/* A world's whole state in memory (JlState and every element's history), as
 * a checkpoint holds it but without a file: for rewinding (the viewer's
 * timeline). Restoring it into a world of the same model and elements gives
 * that world bitwise the results the world it was taken from would have had. */
typedef struct JlSnapshot JlSnapshot;
/* Takes w's state into *snap, reusing its buffers when it was taken before
 * (*snap NULL: allocates one). */
void jl_snapshot_take(const JlWorld *w, JlSnapshot **snap);
/* w's state := the snapshot's. JL_ERR_INPUT (w unchanged) when w is of
 * another node count or force elements, or an element refuses the history. */
JlResult jl_snapshot_restore(JlWorld *w, const JlSnapshot *snap, char *err, size_t errsz);
double jl_snapshot_time(const JlSnapshot *snap);  /* s, the state's t */
size_t jl_snapshot_bytes(const JlSnapshot *snap); /* memory it holds */
void jl_snapshot_free(JlSnapshot *snap);
/* FNV-1a (64 bit) over t and the state's arrays: equal states hash equal (reports, tests) */
uint64_t jl_state_hash(const JlState *s);

#ifdef __cplusplus
}
#endif
#endif
