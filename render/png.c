/* PNG writer with its own deflate encoder, so render/ needs no zlib or
 * SDL2_image.
 *
 * Format: PNG 1.2 (W3C/ISO 15948) 8-bit RGB, one IDAT chunk holding a zlib
 * stream (RFC 1950) of one fixed-Huffman deflate block (RFC 1951, sec. 3.2.6)
 * produced by greedy LZ77 with hash chains over a 32 KiB window. Each row is
 * filtered with whichever of None/Sub/Up/Paeth gives the smallest sum of
 * absolute filtered bytes (the PNG specification's suggested heuristic).
 * Rendered frames are mostly flat colour, so this lands within a small factor
 * of zlib at level 6 at a fraction of the code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

/* ---- checksums ----------------------------------------------------------------- */

/* CRC-32 (PNG spec, annex D) four bits at a time: the 16-entry table is a
 * constant, where the spec's 256-entry one filled on first use was shared
 * mutable state that two threads writing PNGs would race on. Entry n is n
 * run through four steps of the reflected polynomial 0xedb88320. */
static const unsigned long crc_nibble[16] = {
    0x00000000UL, 0x1db71064UL, 0x3b6e20c8UL, 0x26d930acUL, 0x76dc4190UL, 0x6b6b51f4UL,
    0x4db26158UL, 0x5005713cUL, 0xedb88320UL, 0xf00f9344UL, 0xd6d6a3e8UL, 0xcb61b38cUL,
    0x9b64c2b0UL, 0x86d3d2d4UL, 0xa00ae278UL, 0xbdbdf21cUL};

static unsigned long crc_update(unsigned long crc, const unsigned char *p, size_t n) {
  unsigned long c = crc ^ 0xffffffffUL;
  for (size_t i = 0; i < n; i++) {
    c = crc_nibble[(c ^ p[i]) & 0xf] ^ (c >> 4);
    c = crc_nibble[(c ^ (p[i] >> 4)) & 0xf] ^ (c >> 4);
  }
  return c ^ 0xffffffffUL;
}

static unsigned long adler32(const unsigned char *p, size_t n) {
  unsigned long a = 1, b = 0;
  for (size_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521UL;
    b = (b + a) % 65521UL;
  }
  return (b << 16) | a;
}

/* ---- bit writer ---------------------------------------------------------------------- */

typedef struct Bits {
  unsigned char *buf;
  size_t len, cap;
  unsigned long acc;
  int nacc;
} Bits;

static void put_byte(Bits *b, unsigned char c) {
  if (b->len == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 65536;
    b->buf = jl_realloc(b->buf, b->cap, 1);
  }
  b->buf[b->len++] = c;
}

/* value's low n bits, least significant first (deflate's bit order) */
static void put_bits(Bits *b, unsigned long value, int n) {
  b->acc |= value << b->nacc;
  b->nacc += n;
  while (b->nacc >= 8) {
    put_byte(b, (unsigned char)(b->acc & 0xff));
    b->acc >>= 8;
    b->nacc -= 8;
  }
}

/* a Huffman code of n bits, most significant bit first */
static void put_code(Bits *b, unsigned code, int n) {
  unsigned rev = 0;
  for (int i = 0; i < n; i++) rev |= ((code >> i) & 1u) << (n - 1 - i);
  put_bits(b, rev, n);
}

/* fixed literal/length code (RFC 1951, 3.2.6) */
static void put_litlen(Bits *b, int sym) {
  if (sym < 144) put_code(b, 0x30u + (unsigned)sym, 8);
  else if (sym < 256) put_code(b, 0x190u + (unsigned)(sym - 144), 9);
  else if (sym < 280) put_code(b, (unsigned)(sym - 256), 7);
  else put_code(b, 0xc0u + (unsigned)(sym - 280), 8);
}

static const int len_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27,
                                 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const int len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const int dist_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                  193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
                                  6145, 8193, 12289, 16385, 24577};
static const int dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                   6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static void put_match(Bits *b, int len, int dist) {
  int i = 28;
  while (len_base[i] > len) i--;
  put_litlen(b, 257 + i);
  if (len_extra[i]) put_bits(b, (unsigned long)(len - len_base[i]), len_extra[i]);
  int d = 29;
  while (dist_base[d] > dist) d--;
  put_code(b, (unsigned)d, 5);
  if (dist_extra[d]) put_bits(b, (unsigned long)(dist - dist_base[d]), dist_extra[d]);
}

/* ---- deflate: greedy LZ77 with hash chains, one fixed-Huffman block ------------------- */

enum { WINDOW = 32768, HASH_BITS = 15, MAX_CHAIN = 24, MIN_MATCH = 3, MAX_MATCH = 258 };

static unsigned hash3(const unsigned char *p) {
  return ((unsigned)p[0] * 506832829u ^ (unsigned)p[1] * 2654435761u ^ (unsigned)p[2] * 40503u) >>
         (32 - HASH_BITS) & ((1u << HASH_BITS) - 1);
}

static void zlib_compress(const unsigned char *in, size_t n, Bits *out) {
  put_byte(out, 0x78);
  put_byte(out, 0x01);
  put_bits(out, 1, 1); /* BFINAL */
  put_bits(out, 1, 2); /* BTYPE = 01, fixed Huffman */
  int *head = jl_calloc((size_t)1 << HASH_BITS, sizeof(int));
  int *prev = jl_calloc(WINDOW, sizeof(int));
  for (int i = 0; i < (1 << HASH_BITS); i++) head[i] = -1;
  size_t i = 0;
  while (i < n) {
    int best = 0, best_d = 0;
    if (i + MIN_MATCH <= n) {
      unsigned h = hash3(in + i);
      int cand = head[h], chain = 0;
      size_t maxlen = n - i < MAX_MATCH ? n - i : MAX_MATCH;
      while (cand >= 0 && i - (size_t)cand <= WINDOW - 1 && chain++ < MAX_CHAIN) {
        const unsigned char *a = in + cand, *b = in + i;
        size_t l = 0;
        while (l < maxlen && a[l] == b[l]) l++;
        if ((int)l > best) {
          best = (int)l;
          best_d = (int)(i - (size_t)cand);
          if (l == maxlen) break;
        }
        int nxt = prev[cand % WINDOW];
        if (nxt >= cand) break;
        cand = nxt;
      }
      prev[i % WINDOW] = head[h];
      head[h] = (int)i;
    }
    if (best >= MIN_MATCH) {
      put_match(out, best, best_d);
      /* insert the skipped positions into the chains */
      for (size_t k = i + 1; k < i + (size_t)best && k + MIN_MATCH <= n; k++) {
        unsigned h = hash3(in + k);
        prev[k % WINDOW] = head[h];
        head[h] = (int)k;
      }
      i += (size_t)best;
    } else {
      put_litlen(out, in[i]);
      i++;
    }
  }
  put_litlen(out, 256);
  if (out->nacc) put_bits(out, 0, 8 - out->nacc);
  unsigned long ad = adler32(in, n);
  for (int s = 24; s >= 0; s -= 8) put_byte(out, (unsigned char)(ad >> s));
  free(head);
  free(prev);
}

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
  unsigned long crc = crc_update(0, hdr + 4, 4);
  crc = crc_update(crc, data, n);
  unsigned char tail[4];
  put_be32(tail, crc);
  return fwrite(hdr, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
         fwrite(tail, 1, 4, f) == 4;
}

JlResult jl_png_write(const char *path, int width, int height, const unsigned char *rgb,
                      char *err, size_t errsz) {
  if (width <= 0 || height <= 0)
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: image size %dx%d is empty", path, width, height);
  size_t flen;
  unsigned char *filtered = filter_rows(width, height, rgb, &flen);
  Bits z = {0};
  zlib_compress(filtered, flen, &z);
  free(filtered);
  /* write to a temporary name, then rename: readers never see half a file */
  char tmp[4200];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
    free(z.buf);
    return jl_fail(err, errsz, JL_ERR_INPUT, "%s: path too long", path);
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    free(z.buf);
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
  int ok = fwrite(sig, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
           write_chunk(f, "IDAT", z.buf, z.len) && write_chunk(f, "IEND", NULL, 0);
  free(z.buf);
  if (fclose(f) != 0) ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    remove(tmp);
    return jl_fail(err, errsz, JL_ERR_INPUT, "cannot write %s: %s", path, strerror(errno));
  }
  return JL_OK;
}
