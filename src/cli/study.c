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
 * Zhu, Zhou & Yu (sec. 3; docs/references.md) compared forward Euler, Verlet
 * and RK3 on this cloth by eye and found Verlet worst; docs/integrators.md gives what this study measures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/model_cloth.h"
#include "src/cli/study.h"

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

JlStudyDef jl_quick_study_def(void) {
  JlStudyDef d = jl_default_study_def(0);
  d.ndt = 4; /* 1/30, 1/60, 1/120, 1/240 s */
  for (int i = d.ndt; i < JL_STUDY_MAX_DT; i++) d.dt[i] = 0;
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
  if (x_end) memcpy(x_end, w.state.x, 3 * (size_t)w.model->nnode * sizeof(double));
  if (ke_peak) *ke_peak = peak;
  jl_world_destroy(&w);
  return JL_OK;
}

/* v with "%.3g" into buf, or "-" when v is not a number (a value the run could not measure) */
static const char *num3(char *buf, size_t n, double v, int sign) {
  if (!isfinite(v)) return "-";
  snprintf(buf, n, sign ? "%+.3g" : "%.3g", v);
  return buf;
}

/* one line of the progress table; a diverged run says when it diverged and shows "-" for what it
 * could not measure (no NaN in the table) */
static void log_row(FILE *log, const JlStudyRow *row) {
  char e[32], w[32], d[32];
  fprintf(log, "  %-10s dt %-10.4g %s  error %-10s  wall/sim-s %-8s  energy drift ",
          jl_integrator_name(row->integrator), row->dt, row->stable ? "stable  " : "DIVERGED",
          num3(e, sizeof e, row->error_max, 0), num3(w, sizeof w, row->wall_per_sim_s, 0));
  if (row->stable)
    fprintf(log, "%s\n", num3(d, sizeof d, row->energy_drift, 1));
  else if (row->steps == 0)
    fprintf(log, "%-10s  (diverged in its first step: no time simulated)\n", num3(d, sizeof d, row->energy_drift, 1));
  else
    fprintf(log, "%-10s  (diverged in step %d, after t = %.3g s)\n", num3(d, sizeof d, row->energy_drift, 1),
            row->steps + 1, row->t_end);
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
  if (!r && !ref.stable)
    r = jl_fail(err, errsz, JL_ERR_RUNTIME,
                "the RK4 reference diverged at t = %g s: the scene is too stiff for it at the smallest step",
                ref.t_end);
  if (r) {
    free(xref), free(x);
    return r;
  }
  double escale = ke_peak > 0 ? ke_peak : 1.0;
  int unmeasured = 0;

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
      if (log) log_row(log, row), fflush(log);
      unmeasured += !row->stable;
    }
  }
  if (log && unmeasured)
    fprintf(log,
            "  (- = not measured: a diverged run has no end state to compare with the reference, and a run that\n"
            "   diverged in its first step simulated no time to divide its wall time by)\n");
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

/* ",v" with the given precision, or "," alone when v is NaN/Inf: an empty field is a value the run
 * could not measure (pandas and spreadsheets read it as missing) */
static void csv_num(FILE *f, double v, int digits) {
  if (isfinite(v))
    fprintf(f, ",%.*g", digits, v);
  else
    fputc(',', f);
}

JlResult jl_study_write_csv(const char *path, const JlStudyRow *rows, int nrow, char *err, size_t errsz) {
  FILE *f = fopen(path, "w");
  if (!f) return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot write %s", path);
  fprintf(f,
          "integrator,dt,steps,stable,t_end,largest_stable_dt,error_max,error_rms,wall_per_sim_s,"
          "energy_start,energy_end,energy_drift\n");
  for (int k = 0; k < nrow; k++) {
    const JlStudyRow *r = &rows[k];
    fprintf(f, "%s,%.9g,%d,%d", jl_integrator_name(r->integrator), r->dt, r->steps, r->stable);
    csv_num(f, r->t_end, 9);
    csv_num(f, jl_study_largest_stable(rows, nrow, r->integrator), 9);
    csv_num(f, r->error_max, 6);
    csv_num(f, r->error_rms, 6);
    csv_num(f, r->wall_per_sim_s, 6);
    csv_num(f, r->energy_start, 9);
    csv_num(f, r->energy_end, 9);
    csv_num(f, r->energy_drift, 6);
    fputc('\n', f);
  }
  if (fclose(f) != 0) return jl_fail(err, errsz, JL_ERR_SYSTEM, "write failed: %s", path);
  return JL_OK;
}

static const char *const colors[JL_INTEGRATOR_COUNT] = {"#1f77b4", "#9467bd", "#d62728", "#ff7f0e",
                                                        "#2ca02c", "#17becf", "#8c564b"};

/* Estimated width of a text in the SVG: characters (UTF-8 code points) x SVG_CHAR_EM x font size.
 * 0.62 em is above the average advance of sans-serif fonts for lowercase letters and digits
 * (DejaVu Sans: digits 0.64 em, lowercase about 0.6 em, spaces and punctuation 0.3 to 0.4 em), so
 * the layout below leaves room for any text it places. tests/test_study.c checks with the same
 * estimate. */
#define SVG_CHAR_EM 0.62
static double text_width(const char *s, double font_size) {
  int n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n * SVG_CHAR_EM * font_size;
}

/* s as XML character data (a scene path may hold & or <) */
static void xml_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '&')
      fputs("&amp;", f);
    else if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '>')
      fputs("&gt;", f);
    else
      fputc(*s, f);
  }
}

/* the legend line of integrator i: its name and how far it stayed stable */
static void legend_label(const JlStudyRow *rows, int nrow, JlIntegrator i, char *out, size_t n) {
  double big = jl_study_largest_stable(rows, nrow, i), dt_max = 0;
  int any_stable = 0;
  for (int k = 0; k < nrow; k++)
    if (rows[k].integrator == i) dt_max = fmax(dt_max, rows[k].dt), any_stable |= rows[k].stable;
  const char *name = jl_integrator_name(i);
  if (!any_stable)
    snprintf(out, n, "%s (diverged at every dt)", name);
  else if (!(big > 0))
    snprintf(out, n, "%s (diverged at the smallest dt)", name);
  else if (big >= dt_max)
    snprintf(out, n, "%s (stable at every dt)", name);
  else
    snprintf(out, n, "%s (stable up to %.2g s)", name, big);
}

JlResult jl_study_write_svg(const char *path, const JlStudyRow *rows, int nrow, const char *title, char *err,
                            size_t errsz) {
  /* data range in decades */
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (int k = 0; k < nrow; k++) {
    xlo = fmin(xlo, log10(rows[k].dt)), xhi = fmax(xhi, log10(rows[k].dt));
    if (rows[k].stable && rows[k].error_max > 0 && isfinite(rows[k].error_max))
      ylo = fmin(ylo, log10(rows[k].error_max)), yhi = fmax(yhi, log10(rows[k].error_max));
  }
  if (!(xhi >= xlo) || !isfinite(xlo) || !isfinite(xhi)) xlo = -3, xhi = -1;
  if (!(yhi >= ylo) || !isfinite(ylo) || !isfinite(yhi)) ylo = -6, yhi = 0;
  xlo = floor(xlo), xhi = ceil(xhi), ylo = floor(ylo), yhi = ceil(yhi);
  if (xhi == xlo) xhi += 1;
  if (yhi == ylo) yhi += 1;

  /* layout: the plot area (pw x ph at L, T), the legend box to its right as wide as its longest
   * line, the svg as wide as plot + legend (or the title, if longer) */
  const double L = 90, T = 50, B = 70, pw = 570, ph = 440, H = T + ph + B;
  const double font = 13, note_font = 11, pad = 10, swatch = 24, gap = 6, row_h = 24;
  const char *note = "x at the top: diverged";
  char label[JL_INTEGRATOR_COUNT][96];
  double label_w = text_width(note, note_font) - swatch - gap;
  for (int i = 0; i < JL_INTEGRATOR_COUNT; i++) {
    legend_label(rows, nrow, (JlIntegrator)i, label[i], sizeof label[i]);
    label_w = fmax(label_w, text_width(label[i], font));
  }
  double lx = L + pw + 16, ly = T, lw = pad + swatch + gap + label_w + pad;
  double lh = pad + 10 + row_h * JL_INTEGRATOR_COUNT + 2 + pad; /* rows, the note, padding */
  double W = lx + lw + 14;
  const char *ttl = title ? title : "integrator study";
  double title_font = 16, tw = text_width(ttl, title_font), tx = L + pw / 2;
  if (tx - tw / 2 < 8 || tx + tw / 2 > W - 8) W = fmax(W, tw + 16), tx = W / 2;
#define SX(v) (L + ((v)-xlo) / (xhi - xlo) * pw)
#define SY(v) (T + (yhi - (v)) / (yhi - ylo) * ph)
  FILE *f = fopen(path, "w");
  if (!f) return jl_fail(err, errsz, JL_ERR_SYSTEM, "cannot write %s", path);
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"sans-serif\" font-size=\"%.0f\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
          ceil(W), H, ceil(W), H, font);
  fprintf(f, "<text x=\"%.1f\" y=\"28\" font-size=\"%.0f\" text-anchor=\"middle\">", tx, title_font);
  xml_text(f, ttl);
  fprintf(f, "</text>\n");
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
  fprintf(f,
          "<text x=\"22\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 22 %.1f)\">max node error at "
          "the end vs RK4 reference (m)</text>\n",
          T + ph / 2, T + ph / 2);
  /* one polyline per integrator over its stable runs; diverged runs as crosses on the top edge */
  for (int i = 0; i < JL_INTEGRATOR_COUNT; i++) {
    int any = 0;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colors[i]);
    for (int k = 0; k < nrow; k++)
      if (rows[k].integrator == (JlIntegrator)i && rows[k].stable && rows[k].error_max > 0 &&
          isfinite(rows[k].error_max)) {
        fprintf(f, "%s%.1f,%.1f", any ? " " : "", SX(log10(rows[k].dt)), SY(log10(rows[k].error_max)));
        any = 1;
      }
    fprintf(f, "\"/>\n");
    for (int k = 0; k < nrow; k++) {
      if (rows[k].integrator != (JlIntegrator)i) continue;
      double px = SX(log10(rows[k].dt));
      if (rows[k].stable && rows[k].error_max > 0 && isfinite(rows[k].error_max)) {
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", px, SY(log10(rows[k].error_max)),
                colors[i]);
      } else if (!rows[k].stable) {
        double py = T + 8 + 7 * i;
        fprintf(f, "<path d=\"M%.1f %.1fl6 6m0 -6l-6 6\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", px - 3, py - 3,
                colors[i]);
      }
    }
  }
  /* legend: a framed box right of the plot, sized to its longest line */
  fprintf(f,
          "<g id=\"legend\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" "
          "stroke=\"#999\"/>\n",
          lx, ly, lw, lh);
  for (int i = 0; i < JL_INTEGRATOR_COUNT; i++) {
    double y = ly + pad + 10 + row_h * i, x = lx + pad;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n", x, y,
            x + swatch, y, colors[i]);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + swatch + gap, y + 4);
    xml_text(f, label[i]);
    fprintf(f, "</text>\n");
  }
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\">%s</text>\n</g>\n", lx + pad,
          ly + pad + 10 + row_h * JL_INTEGRATOR_COUNT + 2, note_font, note);
  fprintf(f, "</svg>\n");
#undef SX
#undef SY
  if (fclose(f) != 0) return jl_fail(err, errsz, JL_ERR_SYSTEM, "write failed: %s", path);
  return JL_OK;
}
