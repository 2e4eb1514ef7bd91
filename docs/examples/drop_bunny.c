/* Drops the Stanford bunny onto the ground and prints its lowest point: Jelly
 * embedded through <jelly/jelly.h> alone (docs/api.md). Usage: drop_bunny [BUNNY.obj] */
#include <stdio.h>

#include <jelly/jelly.h>

int main(int argc, char **argv) {
  char err[1024];
  JellyModelDef md = jelly_default_model_def();
  md.has_ground = 1; /* the plane y = 0 */
  JellyModel *model = NULL;
  JellyWorld *world = NULL;
  JellyBodyDef bunny = jelly_default_body_def();
  bunny.scale = 0.05;        /* the file is in 20 cm units */
  bunny.translate[1] = 0.5;  /* m above the ground */
  bunny.embedded = 1;        /* a coarse tet lattice carries the fine surface */
  bunny.resolution = 0.05;   /* m */
  bunny.young_modulus = 2e5; /* Pa: a soft jelly */
  if (jelly_model_new(&md, &model, err, sizeof err) ||
      jelly_model_add_mesh(model, argc > 1 ? argv[1] : "models/bunny.obj", &bunny, err, sizeof err) ||
      jelly_world_new(model, &world, err, sizeof err)) {
    fprintf(stderr, "drop_bunny: %s\n", err);
    return 1;
  }
  jelly_model_free(model); /* the world keeps what it needs */
  for (int frame = 1; frame <= 10; frame++) {
    if (jelly_world_step(world, 0.1, err, sizeof err)) {
      fprintf(stderr, "drop_bunny: %s\n", err);
      return 1;
    }
    /* the bunny's surface as it is now: its lattice reaches below it, so at rest it stays about 15 mm
     * above the ground (docs/physics.md, "Embedded surfaces rest a little above the ground") */
    const double *v;
    int nv;
    jelly_world_body_surface(world, 0, &v, &nv, NULL, NULL, err, sizeof err);
    double lowest = v[1];
    for (int i = 1; i < nv; i++)
      if (v[3 * i + 1] < lowest) lowest = v[3 * i + 1];
    printf("t = %.1f s  lowest point y = %.4f m\n", jelly_world_time(world), lowest);
  }
  jelly_world_free(world);
  printf("jelly %s\n", jelly_version());
  return 0;
}
