/* render/: headless pixels, picking, PNG files, the drag force's Jacobian,
 * and the `jelly render` / `jelly run` preview command lines.
 *
 * The fixed scene: two spheres of radius 0.3 m seen from (0, 0.3, 3) looking
 * along -Z; sphere A (body 0, coral) at (0, 0.3, 0), sphere B (body 1, teal)
 * at (0.3, 0.3, -1), behind A and partly hidden by it. No ground, so every
 * pixel outside the spheres is background (test_ground_and_default_camera
 * adds a ground plane at y = 0).
 *
 * The command-line tests check PNGs by their pixels with
 * tests/data/png_pixels.py: body pixels are the saturated ones (the ground,
 * its fade, shadows, background and text are grey or grey-blue). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/shapes.h"
#include "render/render.h"
#include "src/drag.h"
#include "tests/fixtures.h"
#include "tests/harness.h"

#define JELLY      JL_JELLY_EXE
#define PNG_STATS  "python3 " JL_SOURCE_DIR "/tests/data/png_stats.py"
#define PNG_PIXELS "python3 " JL_SOURCE_DIR "/tests/data/png_pixels.py"
#define SCENES     JL_SOURCE_DIR "/models/scenes"
#define HEADLESS   "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy "

static const double center_a[3] = {0, 0.3, 0}, center_b[3] = {0.3, 0.3, -1};

/* two tetrahedralized spheres in one world, with a ground plane at y = 0 or none */
static int two_spheres(JlWorld *w, int ground) {
  JlSurface s[2] = {{0}};
  JlTetMesh t[2] = {{0}};
  JlBodyDef def[2];
  const double *c[2] = {center_a, center_b};
  char err[512];
  for (int b = 0; b < 2; b++) {
    jl_shape_sphere(0.3, 0.05, &s[b]);
    for (int i = 0; i < s[b].nvert; i++)
      for (int k = 0; k < 3; k++) s[b].vert[3 * i + k] += c[b][k];
    JlMeshReport rep;
    jl_surface_validate(&s[b], "sphere", &rep);
    JlTetgenDef td = jl_default_tetgen_def();
    td.max_volume = 0.002;
    if (jl_tetgen_build(&s[b], &td, &t[b], err, sizeof err)) return 0;
    def[b] = jl_default_body_def();
    snprintf(def[b].name, sizeof def[b].name, "sphere%d", b);
  }
  JlWorldDef wd = jl_default_world_def();
  wd.has_ground = ground;
  JlModel m;
  JlResult r = jl_model_build(&m, 2, t, s, def, &wd, err, sizeof err);
  for (int b = 0; b < 2; b++) jl_surface_free(&s[b]), jl_tetmesh_free(&t[b]);
  if (r) return 0;
  JlStepDef sd = jl_default_step_def();
  return jl_world_create(w, &m, &sd, err, sizeof err) == JL_OK;
}

static void camera(JlCamera *c) {
  double eye[3] = {0, 0.3, 3}, target[3] = {0, 0.3, 0};
  memset(c, 0, sizeof *c);
  c->fov_deg = 40;
  jl_camera_look(c, eye, target);
}

static const unsigned char *pixel(const unsigned char *rgb, int width, double x, double y) {
  return rgb + 3 * ((size_t)(int)y * width + (size_t)(int)x);
}

static int is_background(const unsigned char *p) {
  return p[0] == jl_render_background[0] && p[1] == jl_render_background[1] && p[2] == jl_render_background[2];
}

/* pixels of the ground's two checkerboard colours (render/raster.c tile_rgb) */
static int count_tiles(const unsigned char *rgb, int npix) {
  static const unsigned char tile[2][3] = {{64, 72, 88}, {74, 83, 100}};
  int n = 0;
  for (int i = 0; i < npix; i++) n += memcmp(rgb + 3 * i, tile[0], 3) == 0 || memcmp(rgb + 3 * i, tile[1], 3) == 0;
  return n;
}

/* shaded body colour: same hue as the base colour, brighter channel order kept */
static int looks_like_body(const unsigned char *p, int b) {
  unsigned char base[3];
  jl_render_body_color(b, base);
  /* the pixel is base * diffuse + white * highlight: compare channel ratios */
  double k = (double)p[0] / base[0];
  return fabs(p[1] - k * base[1]) < 30 && fabs(p[2] - k * base[2]) < 30 && k > 0.3;
}

static void test_pixels(void) {
  JlWorld w;
  ENSURE(two_spheres(&w, 0));
  const int W = 320, H = 240;
  JlRenderer *r;
  char err[256];
  ENSURE(jl_renderer_create_headless(&r, W, H, err, sizeof err) == JL_OK);
  ENSURE(jl_renderer_width(r) == W && jl_renderer_height(r) == H);
  JlCamera c;
  camera(&c);
  JlRenderOptions o = jl_default_render_options();
  o.ground = 0;
  int ntri = jl_render_world(r, &w, &c, &o);
  int total = w.model->body[0].surface.ntri + w.model->body[1].surface.ntri;
  /* back-face culling keeps roughly half of each closed surface */
  ENSURE_MSG(ntri > total / 4 && ntri < 3 * total / 4, "%d of %d triangles drawn", ntri, total);
  unsigned char *rgb = calloc((size_t)W * H * 3, 1), *rgb2 = calloc((size_t)W * H * 3, 1);
  ENSURE(jl_renderer_read(r, rgb, err, sizeof err) == JL_OK);

  /* background at the four corners */
  ENSURE(is_background(pixel(rgb, W, 0, 0)) && is_background(pixel(rgb, W, W - 1, 0)));
  ENSURE(is_background(pixel(rgb, W, 0, H - 1)) && is_background(pixel(rgb, W, W - 1, H - 1)));

  /* A's colour at A's projected centre; the centre projects to the image centre */
  double pa[3], pb[3], pbo[3];
  ENSURE(jl_camera_project(&c, W, H, center_a, pa));
  ENSURE_NEAR(pa[0], W / 2.0, 0.5);
  ENSURE_NEAR(pa[1], H / 2.0, 0.5);
  const unsigned char *p = pixel(rgb, W, pa[0], pa[1]);
  ENSURE_MSG(looks_like_body(p, 0), "centre of A is (%d %d %d)", p[0], p[1], p[2]);
  ENSURE_MSG(p[0] > p[1] + 60, "A should be coral: (%d %d %d)", p[0], p[1], p[2]);

  /* occlusion: B's centre lies inside A's disc and shows A; a point of B
   * outside A's disc shows B */
  ENSURE(jl_camera_project(&c, W, H, center_b, pb));
  p = pixel(rgb, W, pb[0], pb[1]);
  ENSURE_MSG(looks_like_body(p, 0), "A must hide B's centre: (%d %d %d)", p[0], p[1], p[2]);
  double b_only[3] = {center_b[0] + 0.15, center_b[1], center_b[2]};
  ENSURE(jl_camera_project(&c, W, H, b_only, pbo));
  p = pixel(rgb, W, pbo[0], pbo[1]);
  ENSURE_MSG(looks_like_body(p, 1) && p[1] > p[0] + 40, "B visible beside A: (%d %d %d)", p[0], p[1], p[2]);

  /* the wireframe layer changes pixels (on the bodies only) */
  o.layers = 1u << JL_LAYER_WIREFRAME;
  jl_render_world(r, &w, &c, &o);
  ENSURE(jl_renderer_read(r, rgb2, err, sizeof err) == JL_OK);
  int changed = 0, changed_bg = 0;
  for (int i = 0; i < W * H; i++)
    if (memcmp(rgb + 3 * i, rgb2 + 3 * i, 3) != 0) {
      changed++;
      changed_bg += is_background(rgb + 3 * i);
    }
  ENSURE_MSG(changed > 500, "wireframe changed only %d pixels", changed);
  ENSURE_MSG(changed_bg < changed / 10, "wireframe drew %d pixels outside the bodies", changed_bg);

  /* a different size gives that size */
  JlRenderer *r2;
  ENSURE(jl_renderer_create_headless(&r2, 100, 60, err, sizeof err) == JL_OK);
  ENSURE(jl_renderer_width(r2) == 100 && jl_renderer_height(r2) == 60);
  jl_renderer_destroy(r2);
  ENSURE(jl_renderer_create_headless(&r2, 8, 8, err, sizeof err) == JL_ERR_INPUT);

  free(rgb), free(rgb2);
  jl_renderer_destroy(r);
  jl_world_destroy(&w);
}

static void test_ground_and_default_camera(void) {
  JlWorld w;
  ENSURE(two_spheres(&w, 1));
  const int W = 320, H = 180;
  JlRenderer *r;
  char err[256];
  ENSURE(jl_renderer_create_headless(&r, W, H, err, sizeof err) == JL_OK);
  JlCamera c = {{0, 0, 0}, 0, 0, 1, 40};
  double lo[3], hi[3];
  ENSURE(jl_camera_world_box(&w, lo, hi));
  ENSURE_NEAR(lo[1], 0.0, 0.01);
  ENSURE_NEAR(hi[2], 0.3, 0.01);
  jl_camera_frame(&c, lo, hi, (double)W / H);
  /* both centres are inside the image and the view looks down */
  double p[3];
  for (int b = 0; b < 2; b++) {
    ENSURE(jl_camera_project(&c, W, H, b ? center_b : center_a, p));
    ENSURE(p[0] > 0 && p[0] < W && p[1] > 0 && p[1] < H);
  }
  ENSURE(c.pitch > 0.2);
  JlRenderOptions o = jl_default_render_options();
  jl_render_world(r, &w, &c, &o);
  unsigned char *rgb = calloc((size_t)W * H * 3, 1);
  ENSURE(jl_renderer_read(r, rgb, err, sizeof err) == JL_OK);
  /* the top corners are sky (background), the bottom centre is ground grid */
  ENSURE(is_background(pixel(rgb, W, 0, 0)) && is_background(pixel(rgb, W, W - 1, 0)));
  ENSURE(!is_background(pixel(rgb, W, W / 2, H - 2)));
  ENSURE(count_tiles(rgb, W * H) > W * H / 10);
  jl_world_destroy(&w);
  /* the same spheres without a ground plane: no floor at all (a floor
   * under the lowest point would make hanging bodies look as if lying on it) */
  ENSURE(two_spheres(&w, 0));
  jl_render_world(r, &w, &c, &o);
  ENSURE(jl_renderer_read(r, rgb, err, sizeof err) == JL_OK);
  ENSURE(is_background(pixel(rgb, W, W / 2, H - 2)));
  ENSURE_MSG(count_tiles(rgb, W * H) == 0, "%d floor tile pixels without a ground", count_tiles(rgb, W * H));
  free(rgb);
  jl_renderer_destroy(r);
  jl_world_destroy(&w);
}

/* jl_camera_follow on bodies that fly off and stop: every surface vertex
 * stays inside the image, the camera never jumps (its distance and target
 * change smoothly frame to frame), it recentres on the bodies once they
 * rest, and it stands still (bitwise) on resting bodies. */
static void test_camera_follow(void) {
  JlWorld w;
  ENSURE(two_spheres(&w, 1));
  const int W = 320, H = 180;
  const double aspect = (double)W / H, dt = 1.0 / 60;
  JlCamera c = {{0, 0, 0}, 0, 0, 1, 40};
  jl_camera_frame_world(&c, &w, aspect);
  int n3 = 3 * w.model->nnode;
  double *x0 = malloc(sizeof(double) * n3);
  memcpy(x0, w.state.x, sizeof(double) * n3);
  double max_zoom_in = 0, max_zoom_out = 0, max_move = 0, min_margin = 1e9;
  for (int f = 1; f <= 360; f++) {
    /* 2 s along +x and up at 1.5 m/s, then 4 s at rest */
    double s = (f < 120 ? f : 120) * dt * 1.5;
    for (int i = 0; i < w.model->nnode; i++) {
      w.state.x[3 * i] = x0[3 * i] + s;
      w.state.x[3 * i + 1] = x0[3 * i + 1] + 0.5 * s;
    }
    JlCamera prev = c;
    jl_camera_follow(&c, &w, aspect, dt);
    double ratio = c.distance / prev.distance, move = 0;
    for (int k = 0; k < 3; k++) move += (c.target[k] - prev.target[k]) * (c.target[k] - prev.target[k]);
    move = sqrt(move) / prev.distance;
    if (1 - ratio > max_zoom_in) max_zoom_in = 1 - ratio;
    if (ratio - 1 > max_zoom_out) max_zoom_out = ratio - 1;
    if (move > max_move) max_move = move;
    ENSURE(c.yaw == prev.yaw && c.pitch == prev.pitch);
    /* every vertex inside the image, not on its border */
    int n = 0;
    double *p = jl_camera_world_points(&w, &n);
    for (int i = 0; i < n; i++) {
      double q[3];
      ENSURE(jl_camera_project(&c, W, H, p + 3 * i, q));
      double m = fmin(fmin(q[0], W - q[0]), fmin(q[1], H - q[1]));
      if (m < min_margin) min_margin = m;
    }
    free(p);
  }
  printf(
      "  follow: closest vertex %.1f px from the border; per frame at most %.2f %% zoom in, %.2f %% "
      "zoom out, target %.2f %% of the distance\n",
      min_margin, 100 * max_zoom_in, 100 * max_zoom_out, 100 * max_move);
  ENSURE_MSG(min_margin >= 3, "a vertex came %.1f px close to the border", min_margin);
  ENSURE_MSG(max_zoom_in < 0.02 && max_zoom_out < 0.05 && max_move < 0.05,
             "camera jumped: zoom in %.3g, out %.3g, target %.3g per frame", max_zoom_in, max_zoom_out, max_move);
  /* recentred: the bodies' box centre is near the image centre again */
  double lo[3], hi[3], centre[3], q[3];
  jl_camera_world_box(&w, lo, hi);
  for (int k = 0; k < 3; k++) centre[k] = 0.5 * (lo[k] + hi[k]);
  ENSURE(jl_camera_project(&c, W, H, centre, q));
  ENSURE_MSG(fabs(q[0] - W / 2.0) < 0.05 * W && fabs(q[1] - H / 2.0) < 0.05 * H, "box centre at (%.1f, %.1f)", q[0],
             q[1]);
  /* resting bodies with sub-micrometre noise: the camera stays exactly where it is */
  JlCamera rest = c;
  unsigned long long seed = 5;
  for (int f = 0; f < 30; f++) {
    for (int i = 0; i < n3; i++) w.state.x[i] += 1e-7 * jl_test_rnd(&seed);
    jl_camera_follow(&c, &w, aspect, dt);
  }
  ENSURE(memcmp(&rest, &c, sizeof c) == 0);
  free(x0);
  jl_world_destroy(&w);
}

static void test_pick(void) {
  JlWorld w;
  ENSURE(two_spheres(&w, 0));
  const int W = 320, H = 240;
  JlCamera c;
  camera(&c);
  double pa[3], o[3], d[3];
  ENSURE(jl_camera_project(&c, W, H, center_a, pa));
  jl_camera_ray(&c, W, H, pa[0], pa[1], o, d);
  JlPick hit;
  ENSURE(jl_pick_ray(&w, o, d, &hit));
  ENSURE(hit.body == 0);
  /* the front pole of A, within the tessellation's sagitta */
  ENSURE_NEAR(hit.point[0], 0.0, 1e-3);
  ENSURE_NEAR(hit.point[1], 0.3, 1e-3);
  ENSURE_NEAR(hit.point[2], 0.3, 0.01);
  ENSURE_NEAR(hit.t, 2.7, 0.01);
  ENSURE_NEAR(hit.bary[0] + hit.bary[1] + hit.bary[2], 1.0, 1e-12);
  /* a point of B beside A picks B */
  double b_only[3] = {center_b[0] + 0.15, center_b[1], center_b[2]}, pb[3];
  ENSURE(jl_camera_project(&c, W, H, b_only, pb));
  jl_camera_ray(&c, W, H, pb[0], pb[1], o, d);
  ENSURE(jl_pick_ray(&w, o, d, &hit));
  ENSURE(hit.body == 1);
  ENSURE(hit.point[2] > -1.0 && hit.point[2] < -0.7);
  /* a corner ray misses */
  jl_camera_ray(&c, W, H, 1, 1, o, d);
  ENSURE(!jl_pick_ray(&w, o, d, &hit));
  jl_world_destroy(&w);
}

static unsigned long be32(const unsigned char *p) {
  return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

/* signature and IHDR size of a PNG file; 1 on success */
static int png_size(const char *path, int *w, int *h) {
  size_t len = 0;
  char *data = jl_test_read_file(path, &len);
  static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  int ok = data && len > 33 && memcmp(data, sig, 8) == 0 && memcmp(data + 12, "IHDR", 4) == 0;
  if (ok) {
    *w = (int)be32((unsigned char *)data + 16);
    *h = (int)be32((unsigned char *)data + 20);
  }
  free(data);
  return ok;
}

static void test_png(void) {
  /* a synthetic image with gradients, flat areas and noise */
  const int W = 123, H = 77;
  unsigned char *rgb = malloc((size_t)W * H * 3);
  unsigned long sum = 0, seed = 7;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      unsigned char *p = rgb + 3 * (y * W + x);
      seed = seed * 1103515245ul + 12345ul;
      p[0] = (unsigned char)(x * 2);
      p[1] = (unsigned char)(y < 40 ? 200 : (seed >> 16) & 255);
      p[2] = (unsigned char)((x ^ y) & 0xf0);
      sum += p[0] + p[1] + p[2];
    }
  const char *dir = jl_test_tmpdir("render_png");
  char path[1024], cmd[2048], out[4096], err[256];
  snprintf(path, sizeof path, "%s/synthetic.png", dir);
  ENSURE(jl_png_write(path, W, H, rgb, err, sizeof err) == JL_OK);
  int w = 0, h = 0;
  ENSURE(png_size(path, &w, &h));
  ENSURE(w == W && h == H);
  /* decoded independently (python zlib): same pixels */
  snprintf(cmd, sizeof cmd, PNG_STATS " %s", path);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0, "png_stats failed (python3 is installed by scripts/setup.sh --test-deps): %s", out);
  int dw, dh, ncol;
  double frac;
  unsigned long dsum;
  ENSURE_MSG(sscanf(out, "%d %d %d %lf %lu", &dw, &dh, &ncol, &frac, &dsum) == 5, "%s", out);
  ENSURE(dw == W && dh == H);
  ENSURE_MSG(dsum == sum, "decoded byte sum %lu, written %lu", dsum, sum);
  /* unwritable path: an error, not a crash */
  ENSURE(jl_png_write("/nonexistent-dir/x.png", W, H, rgb, err, sizeof err) == JL_ERR_INPUT);
  ENSURE(strstr(err, "/nonexistent-dir/x.png") != NULL);
  free(rgb);
}

/* (a dF/dx + b dF/dv) u by the element vs central differences */
static void test_drag_jacobian(void) {
  JlWorld w;
  ENSURE(two_spheres(&w, 0));
  const JlModel *m = w.model;
  int n3 = 3 * m->nnode;
  JlForce *e = jl_drag_create(m);
  ENSURE(!jl_drag_active(e));
  double bary[3] = {0.2, 0.3, 0.5};
  jl_drag_attach(e, m, 1, 7, bary, 800.0, 15.0);
  ENSURE(jl_drag_active(e) && jl_drag_body(e) == 1);
  double target[3] = {0.5, 1.0, -0.8}, vt[3] = {1.0, -2.0, 0.5};
  jl_drag_set_target(e, target, vt);
  double *x = malloc(sizeof(double) * n3), *v = malloc(sizeof(double) * n3);
  double *u = malloc(sizeof(double) * n3), *f = calloc(n3, sizeof(double));
  unsigned long long s = 99;
  for (int i = 0; i < n3; i++) {
    double r1 = (double)(jl_test_lcg(&s) >> 11) / 9007199254740992.0 - 0.5;
    double r2 = (double)(jl_test_lcg(&s) >> 11) / 9007199254740992.0 - 0.5;
    x[i] = m->x0[i] + 0.01 * r1;
    v[i] = r2;
    u[i] = r1 - r2;
  }
  /* the attached point is the barycentric combination of the triangle's embedded vertices */
  double p[3];
  ENSURE(jl_drag_point(e, m->x0, p));
  const int *tri = m->body[1].surface.tri + 3 * 7;
  for (int k = 0; k < 3; k++) {
    double q = 0;
    for (int j = 0; j < 3; j++) q += bary[j] * m->body[1].surface.vert[3 * tri[j] + k];
    ENSURE_NEAR(p[k], q, 1e-9);
  }
  /* total force equals the spring force (weights sum to 1) */
  double energy = 0, pv[3] = {0, 0, 0};
  e->ops->force(e, m, x, v, f, &energy);
  ENSURE(jl_drag_point(e, x, p));
  double fsum[3] = {0, 0, 0};
  for (int i = 0; i < m->nnode; i++)
    for (int k = 0; k < 3; k++) fsum[k] += f[3 * i + k];
  /* p' from v: the point's velocity is the same combination */
  ENSURE(jl_drag_point(e, v, pv));
  for (int k = 0; k < 3; k++) ENSURE_NEAR(fsum[k], 800.0 * (target[k] - p[k]) + 15.0 * (vt[k] - pv[k]), 1e-9);
  ENSURE(energy > 0);
  for (int pass = 0; pass < 2; pass++) {
    double a = pass == 0 ? 1.0 : 0.0, b = pass == 0 ? 0.0 : 1.0;
    double err = jl_test_fd_error(e, m, x, v, a, b, JL_LIN_EXACT, u, 1e-6, JL_TEST_FD_L2_OF_FD);
    ENSURE_MSG(err < 1e-6, "pass %d: relative FD error %.3g", pass, err);
  }
  /* diagonal blocks: sum over nodes of the trace equals -3 k sum w_i^2 < 0 */
  double *diag = calloc(9 * (size_t)m->nnode, sizeof(double));
  e->ops->linearize(e, m, x, v, 1.0, 0.0, 0, diag);
  double tr = 0;
  for (int i = 0; i < m->nnode; i++) tr += diag[9 * i] + diag[9 * i + 4] + diag[9 * i + 8];
  ENSURE(tr < 0 && tr > -3 * 800.0);
  /* released: no force */
  jl_drag_release(e);
  memset(f, 0, sizeof(double) * n3);
  e->ops->force(e, m, x, v, f, NULL);
  for (int i = 0; i < n3; i++) ENSURE(f[i] == 0);
  /* in a world step the drag pulls the body towards the target */
  jl_drag_attach(e, m, 0, 0, bary, 0, 0);
  ENSURE(jl_world_add_force(&w, e));
  double above[3];
  ENSURE(jl_drag_point(e, w.state.x, above));
  above[1] += 0.3;
  jl_drag_set_target(e, above, NULL);
  double y0 = 0, y1 = 0, mass = 0;
  for (int i = m->body[0].node_begin; i < m->body[0].node_begin + m->body[0].node_count; i++)
    y0 += m->mass[i] * w.state.x[3 * i + 1], mass += m->mass[i];
  JlStepReport rep;
  for (int k = 0; k < 10; k++) ENSURE(jl_world_step(&w, 1.0 / 60, &rep) == JL_OK);
  for (int i = m->body[0].node_begin; i < m->body[0].node_begin + m->body[0].node_count; i++)
    y1 += m->mass[i] * w.state.x[3 * i + 1];
  ENSURE_MSG(y1 / mass > y0 / mass + 0.05, "body rose %.3g m", (y1 - y0) / mass);
  free(x), free(v), free(u), free(f), free(diag);
  jl_world_destroy(&w);
}

/* a tiny scene for the command-line tests */
static int write_scene(const char *path) {
  return jl_test_write_file(
      path,
      "{ \"duration\": 0.1, \"fps\": 30, \"ground\": { \"y\": 0 },\n"
      "  \"bodies\": [ { \"name\": \"ball\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.2 },\n"
      "    \"translate\": [0, 0.4, 0], \"tetgen\": { \"max_volume\": 0.001 } } ] }\n");
}

static void test_cli_render(void) {
  const char *dir = jl_test_tmpdir("cli_render");
  char scene[1024], cmd[4096], out[8192], path[1200];
  snprintf(scene, sizeof scene, "%s/ball.json", dir);
  ENSURE(write_scene(scene));
  /* no display at all */
  snprintf(
      cmd, sizeof cmd,
      "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy %s render %s --out %s/frames --size 200x120 --frames 2 --no-movie",
      JELLY, scene, dir);
  int rc = jl_test_run(cmd, out, sizeof out);
  ENSURE_MSG(rc == 0, "%s", out);
  for (int f = 0; f <= 2; f++) {
    snprintf(path, sizeof path, "%s/frames/frame_%04d.png", dir, f);
    int w = 0, h = 0;
    ENSURE_MSG(png_size(path, &w, &h), "missing %s", path);
    ENSURE(w == 200 && h == 120);
  }
  snprintf(path, sizeof path, "%s/frames/frame_0003.png", dir);
  FILE *extra = fopen(path, "rb");
  ENSURE(extra == NULL);
  /* the frame is not blank: the ball and the grid are there */
  snprintf(cmd, sizeof cmd, PNG_STATS " %s/frames/frame_0000.png", dir);
  ENSURE(jl_test_run(cmd, out, sizeof out) == 0);
  int w, h, ncol;
  double frac;
  ENSURE(sscanf(out, "%d %d %d %lf", &w, &h, &ncol, &frac) == 4);
  ENSURE_MSG(ncol > 50 && frac > 0.2, "%s", out);
  /* movie.mp4 when ffmpeg is on PATH (CI does not install it: checked where it is present) */
  if (system("command -v ffprobe >/dev/null 2>&1") == 0) {
    snprintf(cmd, sizeof cmd, "%s render %s --out %s/movie --size 99x60 --frames 3", JELLY, scene, dir);
    ENSURE(jl_test_run(cmd, out, sizeof out) == 0 && strstr(out, "movie.mp4"));
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -count_frames -show_entries stream=nb_read_frames,width,height -of csv=p=0 "
             "%s/movie/movie.mp4",
             dir);
    ENSURE(jl_test_run(cmd, out, sizeof out) == 0);
    int mw = 0, mh = 0, mf = 0;
    ENSURE_MSG(sscanf(out, "%d,%d,%d", &mw, &mh, &mf) == 3, "%s", out);
    printf("  movie.mp4: %dx%d, %d frames\n", mw, mh, mf);
    ENSURE(mw == 100 && mh == 60 && mf == 4); /* odd width padded to even for yuv420p */
  } else {
    printf("  movie.mp4 not checked: no ffmpeg/ffprobe on PATH\n");
  }
  /* an explicit camera */
  snprintf(cmd, sizeof cmd, "%s render %s --out %s/cam --size 64x48 --frames 0 --camera 0,1,2,0,0.4,0", JELLY, scene,
           dir);
  ENSURE(jl_test_run(cmd, out, sizeof out) == 0);
  snprintf(path, sizeof path, "%s/cam/frame_0000.png", dir);
  ENSURE(png_size(path, &w, &h) && w == 64 && h == 48);
  /* bad values: exit 2 with a message naming the flag */
  static const char *const bad[][2] = {
      {"--size 12x", "--size"},
      {"--size 0x100", "--size"},
      {"--size banana", "--size"},
      {"--camera 1,2,3", "--camera"},
      {"--camera 1,2,3,1,2,3", "--camera"},
      {"--camera 1,2,3,4,5,x", "--camera"},
      {"--frames -1", "--frames"},
      {"--layers nope", "nope"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    snprintf(cmd, sizeof cmd, "%s render %s --out %s/bad %s", JELLY, scene, dir, bad[k][0]);
    rc = jl_test_run(cmd, out, sizeof out);
    ENSURE_MSG(rc == 2, "'%s' exited %d: %s", bad[k][0], rc, out);
    ENSURE_MSG(strstr(out, bad[k][1]) != NULL, "'%s': %s", bad[k][0], out);
  }
}

static void test_cli_run_preview(void) {
  const char *dir = jl_test_tmpdir("cli_preview");
  char scene[1024], cmd[4096], out[8192], path[1200];
  snprintf(scene, sizeof scene, "%s/ball.json", dir);
  ENSURE(write_scene(scene));
  snprintf(cmd, sizeof cmd, "env -u DISPLAY SDL_VIDEODRIVER=dummy %s run %s --out %s/a --quiet", JELLY, scene, dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  snprintf(path, sizeof path, "%s/a/preview.png", dir);
  int w = 0, h = 0;
  ENSURE_MSG(png_size(path, &w, &h), "no %s", path);
  /* 3 frames (0..3 at 30 fps over 0.1 s) -> 4 tiles: 3 columns, 2 rows of 480x300 */
  ENSURE_MSG(w == 3 * 480 + 4 * 4 && h == 2 * 300 + 3 * 4, "preview is %dx%d", w, h);
  snprintf(cmd, sizeof cmd, PNG_STATS " %s", path);
  ENSURE(jl_test_run(cmd, out, sizeof out) == 0);
  int ncol;
  double frac;
  ENSURE(sscanf(out, "%d %d %d %lf", &w, &h, &ncol, &frac) == 4 && ncol > 100);
  snprintf(cmd, sizeof cmd, "%s run %s --out %s/b --quiet --no-preview", JELLY, scene, dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  snprintf(path, sizeof path, "%s/b/preview.png", dir);
  FILE *f = fopen(path, "rb");
  ENSURE_MSG(f == NULL, "--no-preview still wrote %s", path);
  snprintf(path, sizeof path, "%s/b/stats.csv", dir);
  f = fopen(path, "rb");
  ENSURE(f != NULL);
  fclose(f);
}

/* Body pixels of PNG images (or of a contact sheet's tiles) by png_pixels.py
 * "bodies": per image count, bounding box, image size. Returns how many. */
typedef struct BodyBox {
  int count, x0, y0, x1, y1, w, h;
} BodyBox;

static int body_boxes(const char *args, BodyBox *box, int max) {
  char cmd[8192], *out = malloc(1 << 16);
  snprintf(cmd, sizeof cmd, PNG_PIXELS " bodies %s", args);
  int n = 0;
  if (jl_test_run(cmd, out, 1 << 16) == 0) {
    const char *p = out;
    int used = 0;
    while (n < max && sscanf(p, "%d %d %d %d %d %d %d %n", &box[n].count, &box[n].x0, &box[n].y0, &box[n].x1,
                             &box[n].y1, &box[n].w, &box[n].h, &used) == 7) {
      p += used;
      n++;
    }
  } else {
    fprintf(stderr, "%s\n", out);
  }
  free(out);
  return n;
}

/* at least `margin` pixels between the body pixels and every border */
static int inside(const BodyBox *b, int margin) {
  return b->count > 0 && b->x0 >= margin && b->y0 >= margin && b->x1 < b->w - margin && b->y1 < b->h - margin;
}

/* drop.json: the ball falls from 1 m and rolls away at 0.5 m/s. Every frame
 * of `jelly render` keeps it in the picture (the camera follows; it used to
 * roll out of the fixed first-frame view by frame 120) and ends with it in
 * the middle of the picture (the camera recentres), and rendering is
 * deterministic. With --camera the view stays fixed: aimed at the ball's
 * start, it loses the ball once it has fallen. */
static void test_render_camera_follows(void) {
  const char *dir = jl_test_tmpdir("render_follow");
  char cmd[4096], out[8192], args[4096];
  snprintf(cmd, sizeof cmd, HEADLESS "%s render " SCENES "/drop.json --out %s/a --size 160x96 --no-movie", JELLY, dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  enum { N = 121 };
  BodyBox *b = calloc(N, sizeof *b);
  snprintf(args, sizeof args, "%s/a/frame_*.png", dir);
  ENSURE(body_boxes(args, b, N) == N);
  int worst = 1000, worst_f = 0;
  for (int f = 0; f < N; f++) {
    ENSURE_MSG(inside(&b[f], 2), "frame %d: ball pixels %d in x %d..%d, y %d..%d of %dx%d", f, b[f].count, b[f].x0,
               b[f].x1, b[f].y0, b[f].y1, b[f].w, b[f].h);
    int m = b[f].x0;
    m = m < b[f].y0 ? m : b[f].y0;
    m = m < b[f].w - 1 - b[f].x1 ? m : b[f].w - 1 - b[f].x1;
    m = m < b[f].h - 1 - b[f].y1 ? m : b[f].h - 1 - b[f].y1;
    if (m < worst) worst = m, worst_f = f;
  }
  printf("  drop.json at 160x96: ball %d px from the border at its closest (frame %d)\n", worst, worst_f);
  /* and it recentres: at rest in the end the ball is in the middle half of the picture */
  double cx = 0.5 * (b[N - 1].x0 + b[N - 1].x1), cy = 0.5 * (b[N - 1].y0 + b[N - 1].y1);
  ENSURE_MSG(cx > 40 && cx < 120 && cy > 24 && cy < 72, "last frame: ball centre at (%.0f, %.0f) of 160x96", cx, cy);
  /* same input, same bytes */
  snprintf(cmd, sizeof cmd, HEADLESS "%s render " SCENES "/drop.json --out %s/b --size 160x96 --frames 30 --no-movie",
           JELLY, dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  for (int f = 0; f <= 30; f += 10) {
    char pa[1200], pb[1200];
    size_t la = 0, lb = 0;
    snprintf(pa, sizeof pa, "%s/a/frame_%04d.png", dir, f);
    snprintf(pb, sizeof pb, "%s/b/frame_%04d.png", dir, f);
    char *da = jl_test_read_file(pa, &la), *db = jl_test_read_file(pb, &lb);
    ENSURE(da && db);
    ENSURE_MSG(la == lb && memcmp(da, db, la) == 0, "frame %d differs between identical runs", f);
    free(da), free(db);
  }
  /* --camera: fixed on the ball's start, the fallen ball leaves the view */
  snprintf(cmd, sizeof cmd,
           HEADLESS "%s render " SCENES
                    "/drop.json --out %s/c --size 160x96 --frames 40 --no-movie "
                    "--camera 0,1,1,0,1,0",
           JELLY, dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  snprintf(args, sizeof args, "%s/c/frame_0000.png %s/c/frame_0040.png", dir, dir);
  ENSURE(body_boxes(args, b, 2) == 2);
  ENSURE_MSG(b[0].count > 500, "--camera aimed at the ball shows %d ball pixels", b[0].count);
  ENSURE_MSG(b[1].count == 0, "--camera moved with the ball: %d ball pixels in frame 40", b[1].count);
  free(b);
}

/* drop.json's preview.png: every tile shows the whole ball (tiles 4-6 used
 * to cut it off), and the tiles share one camera, so the ball's motion
 * between them shows (it ends far right of where it starts). */
static void test_preview_frames_bodies(void) {
  const char *dir = jl_test_tmpdir("preview_follow");
  char cmd[4096], out[8192], args[4096];
  snprintf(cmd, sizeof cmd, HEADLESS "%s run " SCENES "/drop.json --out %s --quiet", JELLY, dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  BodyBox b[6];
  snprintf(args, sizeof args, "%s/preview.png --tiles 3 2 480 300 4", dir);
  ENSURE(body_boxes(args, b, 6) == 6);
  for (int k = 0; k < 6; k++)
    ENSURE_MSG(inside(&b[k], 4), "tile %d: ball pixels %d in x %d..%d, y %d..%d", k + 1, b[k].count, b[k].x0, b[k].x1,
               b[k].y0, b[k].y1);
  double c0 = 0.5 * (b[0].x0 + b[0].x1), c5 = 0.5 * (b[5].x0 + b[5].x1);
  printf("  preview: the ball's centre moves from x = %.0f to %.0f px between tiles 1 and 6\n", c0, c5);
  /* a camera per tile would keep the ball in each tile's middle; the ball rolls ~40 px (less since rolling
   * resistance, src/rolling.c) */
  ENSURE_MSG(c5 - c0 > 20, "ball at x %.0f in tile 1 and %.0f in tile 6: no common camera?", c0, c5);
}

/* Floors: none in a scene without a ground (hanging_bar.json used to look
 * like a bar lying on a floor), in `jelly render` frames and in
 * preview.png; and the checkerboard's tiles follow the bodies' size: a bead
 * of 4 mm on the ground spans several tiles (it used to sit on one huge
 * tile), as the 0.4 m ball of drop.json does. */
static void test_floor(void) {
  const char *dir = jl_test_tmpdir("floor");
  char cmd[4096], out[8192];
  int count = -1, changes = -1;
  /* no ground: no tile pixels, the bar is there */
  snprintf(cmd, sizeof cmd,
           HEADLESS "%s render " SCENES "/hanging_bar.json --out %s/bar --size 160x96 --frames 2 --no-movie", JELLY,
           dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  snprintf(cmd, sizeof cmd, PNG_PIXELS " floor %s/bar/frame_0002.png", dir);
  ENSURE(jl_test_run(cmd, out, sizeof out) == 0 && sscanf(out, "%d %d", &count, &changes) == 2);
  ENSURE_MSG(count == 0, "hanging_bar.json (no ground) frame shows %d floor pixels", count);
  char args[2048];
  BodyBox b[6];
  snprintf(args, sizeof args, "%s/bar/frame_0002.png", dir);
  ENSURE(body_boxes(args, b, 1) == 1 && inside(&b[0], 2));
  snprintf(cmd, sizeof cmd, HEADLESS "%s run " SCENES "/hanging_bar.json --out %s/barrun --frames 2 --quiet", JELLY,
           dir);
  ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
  snprintf(cmd, sizeof cmd, PNG_PIXELS " floor %s/barrun/preview.png", dir);
  ENSURE(jl_test_run(cmd, out, sizeof out) == 0 && sscanf(out, "%d %d", &count, &changes) == 2);
  ENSURE_MSG(count == 0, "hanging_bar.json preview shows %d floor pixels", count);
  /* a 4 mm bead resting on the ground */
  char scene[1200];
  snprintf(scene, sizeof scene, "%s/bead.json", dir);
  ENSURE(jl_test_write_file(
      scene,
      "{ \"duration\": 0.1, \"fps\": 30, \"ground\": { \"y\": 0 },\n"
      "  \"bodies\": [ { \"name\": \"bead\", \"shape\": { \"type\": \"sphere\", \"radius\": 0.002 },\n"
      "    \"translate\": [0, 0.0021, 0], \"tetgen\": { \"max_volume\": 2e-10 } } ] }\n"));
  static const char *const scenes[2][2] = {{"bead", NULL}, {"drop", SCENES "/drop.json"}};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, HEADLESS "%s render %s --out %s/%s --size 160x96 --frames 0 --no-movie", JELLY,
             scenes[k][1] ? scenes[k][1] : scene, dir, scenes[k][0]);
    ENSURE_MSG(jl_test_run(cmd, out, sizeof out) == 0, "%s", out);
    snprintf(cmd, sizeof cmd, PNG_PIXELS " floor %s/%s/frame_0000.png", dir, scenes[k][0]);
    ENSURE(jl_test_run(cmd, out, sizeof out) == 0 && sscanf(out, "%d %d", &count, &changes) == 2);
    printf("  %s: %d floor pixels, up to %d tile changes along a row\n", scenes[k][0], count, changes);
    ENSURE_MSG(changes >= 6, "%s: only %d changes between the floor's tile colours along any row", scenes[k][0],
               changes);
  }
}

#define JL_TEST_TIER JL_PROGRAM /* cases without a tier of their own (tests/harness.h) */
JL_TEST_MAIN({"pixels", test_pixels}, {"ground_and_default_camera", test_ground_and_default_camera},
             {"camera_follow", test_camera_follow}, {"pick", test_pick}, {"png", test_png},
             {"drag_jacobian", test_drag_jacobian, JL_UNIT}, {"cli_render", test_cli_render},
             {"cli_run_preview", test_cli_run_preview}, {"render_camera_follows", test_render_camera_follows},
             {"preview_frames_bodies", test_preview_frames_bodies}, {"floor", test_floor})
