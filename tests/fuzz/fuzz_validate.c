/* libFuzzer target: the surface validator (mesh/validate.c) in process, on
 * a raw vertex/triangle soup -- the parent's check of whatever the importer
 * child or a generator hands over.
 *
 * Input: byte 0 is the vertex count n (0-255); then 3n coordinate bytes,
 * each a small grid value (b - 128) / 8 m, except 255 = NaN, 254 = +Inf,
 * 253 = 1e300 and 252 = 1e-300, so degenerate, coincident, intersecting and
 * non-finite geometry are all a byte away; then triangles of 3 bytes each,
 * index = b mod (n + 2) - 1, so -1 and n (out of range) occur too. At most
 * 4096 triangles. The validator must neither crash nor leak, whatever it
 * reports. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/surface.h"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double coord(uint8_t b) {
  switch (b) {
    case 255:
      return NAN;
    case 254:
      return INFINITY;
    case 253:
      return 1e300;
    case 252:
      return 1e-300;
    default:
      return ((double)b - 128.0) / 8.0;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int n = data[0];
  size_t p = 1;
  if (size < p + 3 * (size_t)n) return 0;
  JlSurface s;
  memset(&s, 0, sizeof s);
  s.nvert = n;
  s.vert = malloc(3 * (size_t)n * sizeof(double) + 1);
  for (int i = 0; i < 3 * n; i++) s.vert[i] = coord(data[p++]);
  size_t ntri = (size - p) / 3;
  if (ntri > 4096) ntri = 4096;
  s.ntri = (int)ntri;
  s.tri = malloc(3 * ntri * sizeof(int) + 1);
  for (size_t t = 0; t < 3 * ntri; t++) s.tri[t] = (int)(data[p++] % (n + 2)) - 1;

  JlMeshReport rep;
  jl_surface_validate(&s, "soup", &rep);
  char msg[2048];
  jl_report_errors(&rep, "soup", msg, sizeof msg);
  if (rep.ok) {
    /* what the scene builder does next with an accepted surface */
    double lo[3], hi[3];
    jl_surface_bbox(&s, lo, hi);
    (void)jl_surface_volume(&s);
  }
  jl_surface_free(&s);
  return 0;
}
