/* The integrator study: stability, accuracy, cost and energy drift of every
 * integrator on one model over a sweep of time steps.
 *
 * Method. A reference run with RK4 at ref_dt (4 times below the smallest
 * swept step by default) gives the node positions at t = duration; every
 * integrator then runs at every dt = duration / N from the same initial
 * state and is compared at the same time. A run is unstable when the world
 * reports divergence (NaN/Inf, or a spring strain above max_strain) before
 * the end; the largest stable dt of an integrator is the largest dt below
 * which every run was stable. Cost is wall time per simulated second (one
 * thread). Energy is kinetic + elastic + gravitational; its drift is
 * measured against the reference at the end and scaled by the reference's
 * peak kinetic energy, so 0 is exact and -1 means the motion's whole energy
 * was lost (or +1 gained).
 *
 * Seed 004 compared forward Euler, Verlet and RK3 on this cloth by eye and
 * found Verlet worst; docs/integrators.md gives what this study measures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/model_cloth.h"
#include "src/study.h"

JlStudyDef jl_default_study_def(int full) {
  JlStudyDef d;
  memset(&d, 0, sizeof d);
  d.duration = 1.0;
  d.max_strain = 2.0;
  d.tolerance = 1e-8;
  double dt = 1.0 / 30.0, f = full ? sqrt(0.5) : 0.5;
  d.ndt = full ? 17 : 8;
  for (int i = 0; i < d.ndt; i++, dt *= f) d.dt[i] = dt;
  d.ref_dt = d.dt[d.ndt - 1] / 4.0;
  return d;
}

JlResult jl_study_default_model(JlModel *m, char *err, size_t errsz) {
  JlClothMesh c;
  JlResult r = jl_cloth_grid(&c, 20.0, 20.0, 40, 40, err, errsz);
  if (r) return r;
  JlBodyDef d = jl_default_body_def();
  snprintf(d.name, sizeof d.name, "cloth");
  d.density = 1.0;
  d.damping = 0.0;
  int pins[2] = {40 * 41, 41 * 41 - 1}; /* top corners */
  d.npin = 2;
  d.pin = pins;
  JlClothDef cd = jl_default_cloth_def();
  cd.stretch = cd.shear = cd.bend = 800.0;
  JlWorldDef wd = jl_default_world_def();
  r = jl_model_build_cloth(m, &c, &d, &cd, &wd, err, errsz);
  jl_cloth_free(&c);
  return r;
}

static double total_energy(const JlWorld *w) {
  JlEnergy e;
  jl_world_energy(w, &e);
  return e.kinetic + e.elastic + e.gravity + e.ground;
}

/* one run; x_end (nnode x 3) receives the final positions; *ke_peak the peak kinetic energy */
static JlResult run_one(const JlModel *m, const JlStudyDef *def, JlIntegrator integ, double dt, JlStudyRow *row,
                        double *x_end, double *ke_peak, char *err, size_t errsz) {
  JlModel copy;
  JlResult r = jl_model_concat(&copy, 1, m, err, errsz);
  if (r) return r;
  JlStepDef sd = jl_default_step_def();
  sd.integrator = integ;
  sd.tolerance = def->tolerance;
  sd.max_iterations = 2000;
  sd.max_strain = def->max_strain;
  JlWorld w;
  r = jl_world_create(&w, &copy, &sd, err, errsz);
  if (r) return r;
  int n = (int)ceil(def->duration / dt - 1e-9);
  double h = def->duration / n;
  memset(row, 0, sizeof *row);
  row->integrator = integ;
  row->dt = h;
  row->energy_start = total_energy(&w);
  row->stable = 1;
  double peak = 0, t0 = jl_seconds();
  for (int s = 0; s < n; s++) {
    if (jl_world_step(&w, h, NULL) != JL_OK) {
      row->stable = 0;
      break;
    }
    row->steps++;
    if (ke_peak) {
      JlEnergy e;
      jl_world_energy(&w, &e);
      peak = fmax(peak, e.kinetic);
    }
  }
  double wall = jl_seconds() - t0;
  row->t_end = w.state.t;
  row->wall_per_sim_s = w.state.t > 0 ? wall / w.state.t : NAN;
  row->energy_end = row->stable ? total_energy(&w) : NAN;
  if (x_end) memcpy(x_end, w.state.x, 3 * (size_t)w.model.nnode * sizeof(double));
  if (ke_peak) *ke_peak = peak;
  jl_world_destroy(&w);
  return JL_OK;
}

JlResult jl_study_run(const JlModel *m, const JlStudyDef *def, JlStudyRow *rows, int *nrow, FILE *log, char *err,
                      size_t errsz) {
  JL_ASSERT(m && def && rows && nrow, "jl_study_run: model, def, rows and nrow must not be NULL");
  *nrow = 0;
  if (!(def->duration > 0) || def->ndt < 1 || def->ndt > JL_STUDY_MAX_DT || !(def->ref_dt > 0))
    return jl_fail(err, errsz, JL_ERR_INPUT, "study: duration, sweep and reference step must be positive");
  size_t n3 = 3 * (size_t)m->nnode;
  double *xref = jl_calloc(n3, sizeof(double)), *x = jl_calloc(n3, sizeof(double));

  /* reference: RK4 at a tiny step */
  JlStudyRow ref;
  double ke_peak = 0;
  if (log) fprintf(log, "reference: rk4 at dt %.3g s over %g s ...\n", def->ref_dt, def->duration), fflush(log);
  JlResult r = run_one(m, def, JL_INTEGRATOR_RK4, def->ref_dt, &ref, xref, &ke_peak, err, errsz);
  if (!r && !ref.stable) r = jl_fail(err, errsz, JL_ERR_RUNTIME, "study: the RK4 reference diverged at t = %g s", ref.t_end);
  if (r) {
    free(xref), free(x);
    return r;
  }
  double escale = ke_peak > 0 ? ke_peak : 1.0;

  /* every integrator at every dt */
  for (int i = 0; i < JL_INTEGRATOR_COUNT && !r; i++) {
    for (int k = 0; k < def->ndt && !r; k++) {
      JlStudyRow *row = &rows[*nrow];
      r = run_one(m, def, (JlIntegrator)i, def->dt[k], row, x, NULL, err, errsz);
      if (r) break;
      (*nrow)++;
      if (row->stable) {
        double emax = 0, esum = 0;
        for (int p = 0; p < m->nnode; p++) {
          double d0 = x[3 * p] - xref[3 * p], d1 = x[3 * p + 1] - xref[3 * p + 1], d2 = x[3 * p + 2] - xref[3 * p + 2];
          double d = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
          emax = fmax(emax, d);
          esum += d * d;
        }
        row->error_max = emax;
        row->error_rms = sqrt(esum / (m->nnode > 0 ? m->nnode : 1));
        row->energy_drift = (row->energy_end - ref.energy_end) / escale;
      } else {
        row->error_max = row->error_rms = row->energy_drift = NAN;
      }
      if (log)
        fprintf(log, "  %-10s dt %-10.4g %s  error %-10.3g  wall/sim-s %-8.3g  energy drift %+.3g\n",
                jl_integrator_name((JlIntegrator)i), row->dt, row->stable ? "stable  " : "DIVERGED", row->error_max,
                row->wall_per_sim_s, row->energy_drift),
            fflush(log);
    }
  }
  free(xref), free(x);
  return r;
}

double jl_study_largest_stable(const JlStudyRow *rows, int nrow, JlIntegrator i) {
  /* walk from the smallest dt up while runs stay stable */
  double best = 0;
  int order[JL_STUDY_MAX_DT * JL_INTEGRATOR_COUNT], n = 0;
  for (int k = 0; k < nrow && n < (int)(sizeof order / sizeof order[0]); k++)
    if (rows[k].integrator == i) order[n++] = k;
  /* sort by dt ascending (few rows: insertion sort) */
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && rows[order[b]].dt < rows[order[b - 1]].dt; b--) {
      int t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  for (int k = 0; k < n; k++) {
    if (!rows[order[k]].stable) break;
    best = rows[order[k]].dt;
  }
  return best;
}

JlResult jl_study_write_csv(const char *path, const JlStudyRow *rows, int nrow, char *err, size_t errsz) {
  FILE *f = fopen(path, "w");
  if (!f) return jl_fail(err, errsz, JL_ERR_RUNTIME, "cannot write %s", path);
  fprintf(f, "integrator,dt,steps,stable,t_end,largest_stable_dt,error_max,error_rms,wall_per_sim_s,"
             "energy_start,energy_end,energy_drift\n");
  for (int k = 0; k < nrow; k++) {
    const JlStudyRow *r = &rows[k];
    fprintf(f, "%s,%.9g,%d,%d,%.9g,%.9g,%.6g,%.6g,%.6g,%.9g,%.9g,%.6g\n", jl_integrator_name(r->integrator), r->dt,
            r->steps, r->stable, r->t_end, jl_study_largest_stable(rows, nrow, r->integrator), r->error_max,
            r->error_rms, r->wall_per_sim_s, r->energy_start, r->energy_end, r->energy_drift);
  }
  if (fclose(f) != 0) return jl_fail(err, errsz, JL_ERR_RUNTIME, "write failed: %s", path);
  return JL_OK;
}

static const char *const colors[JL_INTEGRATOR_COUNT] = {"#1f77b4", "#9467bd", "#d62728",
                                                        "#ff7f0e", "#2ca02c", "#17becf"};

JlResult jl_study_write_svg(const char *path, const JlStudyRow *rows, int nrow, const char *title, char *err,
                            size_t errsz) {
  /* data range in decades */
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (int k = 0; k < nrow; k++) {
    xlo = fmin(xlo, log10(rows[k].dt)), xhi = fmax(xhi, log10(rows[k].dt));
    if (rows[k].stable && rows[k].error_max > 0)
      ylo = fmin(ylo, log10(rows[k].error_max)), yhi = fmax(yhi, log10(rows[k].error_max));
  }
  if (!(xhi >= xlo)) xlo = -3, xhi = -1;
  if (!(yhi >= ylo)) ylo = -6, yhi = 0;
  xlo = floor(xlo), xhi = ceil(xhi), ylo = floor(ylo), yhi = ceil(yhi);
  if (xhi == xlo) xhi += 1;
  if (yhi == ylo) yhi += 1;
  const double W = 860, H = 560, L = 90, R = 200, T = 50, B = 70;
  double pw = W - L - R, ph = H - T - B;
#define SX(v) (L + ((v) - xlo) / (xhi - xlo) * pw)
#define SY(v) (T + (yhi - (v)) / (yhi - ylo) * ph)
  FILE *f = fopen(path, "w");
  if (!f) return jl_fail(err, errsz, JL_ERR_RUNTIME, "cannot write %s", path);
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
             "font-size=\"13\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
  fprintf(f, "<text x=\"%.0f\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">%s</text>\n", L + pw / 2,
          title ? title : "integrator study");
  /* grid, ticks and labels at decades */
  for (double d = xlo; d <= xhi + 1e-9; d += 1) {
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", SX(d), T, SX(d), T + ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%d</text>\n", SX(d), T + ph + 20, (int)d);
  }
  for (double d = ylo; d <= yhi + 1e-9; d += 1) {
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, SY(d), L + pw, SY(d));
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", L - 8, SY(d) + 4, (int)d);
  }
  fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", L, T, pw,
          ph);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time step dt (s)</text>\n", L + pw / 2, H - 20);
  fprintf(f, "<text x=\"22\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 22 %.1f)\">max node error at "
             "the end vs RK4 reference (m)</text>\n", T + ph / 2, T + ph / 2);
  /* one polyline per integrator over its stable runs; diverged runs as crosses on the top edge */
  for (int i = 0; i < JL_INTEGRATOR_COUNT; i++) {
    int any = 0;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colors[i]);
    for (int k = 0; k < nrow; k++)
      if (rows[k].integrator == (JlIntegrator)i && rows[k].stable && rows[k].error_max > 0) {
        fprintf(f, "%s%.1f,%.1f", any ? " " : "", SX(log10(rows[k].dt)), SY(log10(rows[k].error_max)));
        any = 1;
      }
    fprintf(f, "\"/>\n");
    for (int k = 0; k < nrow; k++) {
      if (rows[k].integrator != (JlIntegrator)i) continue;
      double px = SX(log10(rows[k].dt));
      if (rows[k].stable && rows[k].error_max > 0) {
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", px, SY(log10(rows[k].error_max)),
                colors[i]);
      } else if (!rows[k].stable) {
        double py = T + 8 + 7 * i;
        fprintf(f, "<path d=\"M%.1f %.1fl6 6m0 -6l-6 6\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", px - 3, py - 3,
                colors[i]);
      }
    }
    /* legend */
    double ly = T + 20 + 24 * i, lx = L + pw + 20;
    double big = jl_study_largest_stable(rows, nrow, (JlIntegrator)i);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n", lx, ly,
            lx + 24, ly, colors[i]);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s (stable to %.2g s)</text>\n", lx + 30, ly + 4,
            jl_integrator_name((JlIntegrator)i), big);
  }
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">x at the top: diverged</text>\n", L + pw + 20,
          T + 20 + 24 * JL_INTEGRATOR_COUNT + 4);
  fprintf(f, "</svg>\n");
#undef SX
#undef SY
  if (fclose(f) != 0) return jl_fail(err, errsz, JL_ERR_RUNTIME, "write failed: %s", path);
  return JL_OK;
}
