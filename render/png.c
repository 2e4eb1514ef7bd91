/* PNG writer: the image data compressed by zlib (already in the process
 * through assimp; Debian zlib1g-dev), so render/ needs no SDL2_image.
 *
 * Format: PNG 1.2 (W3C/ISO 15948) 8-bit RGB, one IDAT chunk holding the zlib
 * stream of the filtered scanlines (compress2 at zlib's default level 6,
 * deterministic for one zlib build). Each row is filtered with whichever of
 * None/Sub/Up/Paeth gives the smallest sum of absolute filtered bytes (the
 * PNG specification's suggested heuristic). Chunk checksums are zlib's
 * crc32. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "render/render.h"

/* ---- PNG ------------------------------------------------------------------------------ */

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* filtered scanlines: per row a filter byte then 3 * width bytes */
static unsigned char *filter_rows(int width, int height, const unsigned char *rgb, size_t *len) {
  size_t row = 3 * (size_t)width;
  unsigned char *out = jl_calloc((row + 1) * (size_t)height, 1);
  unsigned char *tmp = jl_calloc(row, 1);
  for (int y = 0; y < height; y++) {
    const unsigned char *cur = rgb + row * y, *up = y ? cur - row : NULL;
    unsigned char *dst = out + (row + 1) * y;
    long best_sum = -1;
    for (int f = 0; f < 5; f++) {
      if (f == 3) continue; /* Average: rarely wins on rendered frames */
      long sum = 0;
      for (size_t i = 0; i < row; i++) {
        int a = i >= 3 ? cur[i - 3] : 0, b = up ? up[i] : 0, c = (i >= 3 && up) ? up[i - 3] : 0;
        int pred = f == 0 ? 0 : f == 1 ? a : f == 2 ? b : paeth(a, b, c);
        unsigned char v = (unsigned char)(cur[i] - pred);
        tmp[i] = v;
        sum += v < 128 ? v : 256 - v;
      }
      if (best_sum < 0 || sum < best_sum) {
        best_sum = sum;
        dst[0] = (unsigned char)f;
        memcpy(dst + 1, tmp, row);
      }
    }
  }
  free(tmp);
  *len = (row + 1) * (size_t)height;
  return out;
}

static void put_be32(unsigned char *p, unsigned long v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static int write_chunk(FILE *f, const char *type, const unsigned char *data, size_t n) {
  unsigned char hdr[8];
  put_be32(hdr, (unsigned long)n);
  memcpy(hdr + 4, type, 4);
  uLong crc = crc32(0L, hdr + 4, 4);
  if (n > 0) crc = crc32(crc, data, (uInt)n);
  unsigned char tail[4];
  put_be32(tail, crc);
  return fwrite(hdr, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) && fwrite(tail, 1, 4, f) == 4;
}

JlResult jl_png_write(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t errsz) {
  if (width <= 0 || height <= 0)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: image size %dx%d is empty", path, width, height);
  size_t flen;
  unsigned char *filtered = filter_rows(width, height, rgb, &flen);
  uLongf zlen = compressBound((uLong)flen);
  unsigned char *z = jl_calloc(zlen, 1);
  int zr = compress2(z, &zlen, filtered, (uLong)flen, Z_DEFAULT_COMPRESSION);
  free(filtered);
  if (zr != Z_OK) {
    free(z);
    return jl_fail(err, errsz, JL_ERR_SYSTEM, "%s: zlib could not compress the image (%s)", path, zError(zr));
  }
  /* write to a temporary name, then rename: readers never see half a file */
  char tmp[4200];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
    free(z);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: path too long", path);
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    free(z);
    return jl_fail(err, errsz, JL_ERR_INPUT, "cannot write %s: %s", path, strerror(errno));
  }
  static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  unsigned char ihdr[13];
  put_be32(ihdr, (unsigned long)width);
  put_be32(ihdr + 4, (unsigned long)height);
  ihdr[8] = 8;  /* bit depth */
  ihdr[9] = 2;  /* colour type: RGB */
  ihdr[10] = 0; /* deflate */
  ihdr[11] = 0; /* adaptive filtering */
  ihdr[12] = 0; /* no interlace */
  int ok = fwrite(sig, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) && write_chunk(f, "IDAT", z, (size_t)zlen) &&
           write_chunk(f, "IEND", NULL, 0);
  free(z);
  if (fclose(f) != 0) ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    remove(tmp);
    return jl_fail(err, errsz, JL_ERR_INPUT, "cannot write %s: %s", path, strerror(errno));
  }
  return JL_OK;
}
