/* The integrator study (`jelly study`, docs/integrators.md): every
 * integrator over a sweep of time steps on one model, against a reference
 * solution (RK4 at a tiny step), measuring stability, accuracy, cost and
 * energy drift. */
#ifndef JL_SRC_STUDY_H
#define JL_SRC_STUDY_H

#include <stdio.h>

#include "src/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JL_STUDY_MAX_DT 24

typedef struct JlStudyDef {
  double duration;            /* s simulated per run; default 1 */
  int ndt;                    /* time steps in the sweep; default 8 */
  double dt[JL_STUDY_MAX_DT]; /* s, largest first; default 1/30 ... 1/3840 halving */
  double ref_dt;              /* s, step of the RK4 reference; default dt[ndt - 1] / 4 */
  double max_strain;          /* divergence bound on spring strain; default 2 */
  double tolerance;           /* CG tolerance of the implicit runs; default 1e-8 */
} JlStudyDef;

/* The default sweep; full = 1 halves by sqrt(2) instead of 2 and goes one
 * octave further (`jelly study --full`). */
JlStudyDef jl_default_study_def(int full);
/* The quick sweep (`jelly study --quick`): the default's four largest steps,
 * 1/30 to 1/240 s, and the reference at a quarter of the smallest, 1/960 s;
 * about 15 times cheaper than the default, for checking that a scene runs. */
JlStudyDef jl_quick_study_def(void);

/* One run: one integrator at one dt. */
typedef struct JlStudyRow {
  JlIntegrator integrator;
  double dt;             /* s, as run (duration / steps) */
  int steps;             /* steps taken (fewer when diverged) */
  int stable;            /* 1: reached the end without divergence */
  double t_end;          /* s, simulated time reached */
  double error_max;      /* m, max node distance to the reference at the end (NAN when unstable) */
  double error_rms;      /* m, RMS node distance to the reference at the end (NAN when unstable) */
  double wall_per_sim_s; /* s of wall time per simulated second (NAN when the run diverged in its first
                            step: no simulated time) */
  double energy_start;   /* J, kinetic + elastic + gravity at t = 0 */
  double energy_end;     /* J, at the end (NAN when unstable) */
  double energy_drift;   /* (E_end - E_end of the reference) / peak kinetic energy of the reference */
} JlStudyRow;

/* The model of Zhu, Zhou & Yu, sec. 3 (docs/references.md): a 40 x 40 cell cloth grid (41 x 41 nodes), 20 m x
 * 20 m, 1 kg/m^2, every spring (structural, shear, flexion) 800 N/m, no
 * damping, the two top corners pinned, flat and at rest in the x-y plane,
 * released under gravity (no ground). */
JlResult jl_study_default_model(JlModel *m, char *err, size_t errsz);

/* Runs the reference and every integrator at every dt of def on copies of
 * m; rows has room for JL_INTEGRATOR_COUNT x def->ndt entries, *nrow is
 * set. Progress lines go to `log` (may be NULL): one per run, "-" for what a
 * diverged run could not measure, and when it diverged. */
JlResult jl_study_run(const JlModel *m, const JlStudyDef *def, JlStudyRow *rows, int *nrow, FILE *log, char *err,
                      size_t errsz);

/* The largest dt of integrator i among rows such that it and every smaller
 * dt run were stable; 0 when none. */
double jl_study_largest_stable(const JlStudyRow *rows, int nrow, JlIntegrator i);

/* study.csv: one row per run (docs/integrators.md lists the columns); a value the run could not
 * measure (NAN in the row: a diverged run's error and end energy, the wall time per simulated
 * second of a run that diverged in its first step) is an empty field, never "nan". */
JlResult jl_study_write_csv(const char *path, const JlStudyRow *rows, int nrow, char *err, size_t errsz);
/* study.svg: log-log error vs dt per integrator, with axes, labels, legend. */
JlResult jl_study_write_svg(const char *path, const JlStudyRow *rows, int nrow, const char *title, char *err,
                            size_t errsz);

/* The dynamics rows (src/cli/study_dynamics.c): every integrator at dt 1/60, 1/240, 1/1000 and 1/4000 s
 * (quick: the first two) on a ball dropped 1 m onto the ground (ground.restitution 0.5; e measured) and
 * a free bar spinning at 4.9 rad/s (the angular momentum kept after 1 s). One line per integrator and dt
 * to `log` (may be NULL); dynamics.csv at csv_path (docs/integrators.md lists its columns). */
JlResult jl_study_dynamics(int quick, FILE *log, const char *csv_path, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
