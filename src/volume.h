/* The volume force element (src/volume.c): per-tet volume stiffness and an
 * inversion barrier, from model->tet_kvol and model->tet_kbar. */
#ifndef JL_SRC_VOLUME_H
#define JL_SRC_VOLUME_H

#include "src/force.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the barrier acts on tets squeezed below this fraction of their rest volume */
#define JL_VOLUME_ONSET 0.5

/* The element for all tets of the model; NULL when the model has no tets. */
JlForce *jl_volume_create(const JlModel *m);

/* psi(J), psi'(J), psi''(J) of the energy per unit rest volume (Pa) at volume
 * ratio J for volume stiffness kv and barrier modulus kb (docs/physics.md). */
void jl_volume_psi(double J, double kv, double kb, double out[3]);

/* Tets of body b with signed volume <= 0 at positions x. */
int jl_volume_inverted(const JlModel *m, const double *x, int b);
/* body b's signed volume at x (the sum over its tets, m^3) into *now and its
 * rest volume into *rest; returns its inverted tets, as jl_volume_inverted */
int jl_volume_body(const JlModel *m, const double *x, int b, double *now, double *rest);

#ifdef __cplusplus
}
#endif
#endif
