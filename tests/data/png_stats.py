#!/usr/bin/env python3
"""Decodes an 8-bit RGB PNG with only the standard library (zlib) and prints
   WIDTH HEIGHT DISTINCT_COLOURS NON_BACKGROUND_FRACTION BYTE_SUM
where the background is the colour of the top-left pixel. Used by
tests/test_render.c and tests/test_viewer.c to check PNGs independently of
render/png.c. Exit 1 with a message for anything it cannot decode."""
import struct, sys, zlib

def main(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png_stats: %s: bad signature" % path)
    pos, idat, width = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            sys.exit("png_stats: %s: bad CRC in %s" % (path, kind))
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype != 2:
                sys.exit("png_stats: only 8-bit RGB")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    row = 3 * width
    if len(raw) != (row + 1) * height:
        sys.exit("png_stats: %s: wrong decompressed size" % path)
    px, prev = bytearray(), bytearray(row)
    for y in range(height):
        f, line = raw[y * (row + 1)], bytearray(raw[y * (row + 1) + 1:(y + 1) * (row + 1)])
        for i in range(row):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0: sys.exit("png_stats: bad filter %d" % f)
        px += line
        prev = line
    cols = {bytes(px[i:i + 3]) for i in range(0, len(px), 3)}
    bg = bytes(px[0:3])
    nonbg = sum(1 for i in range(0, len(px), 3) if bytes(px[i:i + 3]) != bg)
    print(width, height, len(cols), "%.6f" % (nonbg / (width * height)), sum(px))

if __name__ == "__main__":
    main(sys.argv[1])
