/* Calibration of a body's springs against its own mesh (src/calibrate.c):
 * the factor that gives the relaxed spring network the material's shear
 * modulus. Internal to the engine (src/model.c). */
#ifndef JL_SRC_CALIBRATE_H
#define JL_SRC_CALIBRATE_H

#include "mesh/tetmesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JlCalibration {
  int nodes, relaxed, tets; /* the measured region; relaxed = nodes off the affine map */
  double before, after;     /* network shear modulus / target, before and after scaling */
  double factor;            /* what the springs were multiplied by (1 = not measured) */
  int traction;             /* 1: whole body under uniform surface tractions, else affine region boundary */
} JlCalibration;

/* t: the body's mesh with topology (faces, adjacency); per tet its material
 * volume (m^3), its six edge ids and its volume stiffness kv (Pa, already
 * times its share); per edge the spring stiffness (N/m) and the material
 * volume around it. mu: the target shear modulus (Pa). Returns the factor. */
double jl_calibrate_shear(const JlTetMesh *t, const double *material_vol, const double *edge_vol, const int *tet_edge,
                          const double *k_edge, const double *kv_tet, double mu, JlCalibration *out);

#ifdef __cplusplus
}
#endif
#endif
