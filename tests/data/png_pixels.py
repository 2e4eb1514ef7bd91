#!/usr/bin/env python3
"""Pixel checks on 8-bit RGB PNGs written by jelly (standard library only),
for tests/test_render.c and tests/test_viewer.c. One line of numbers per
image on stdout; exit 1 with a message for anything it cannot decode.

  png_pixels.py bodies FILE... [--tiles COLS ROWS TW TH GAP]
      per image (or per tile of a contact sheet, row-major): the number of
      body pixels (chroma max-min > 32: the ground, the background, their
      fades and shadows are grey-blue with chroma <= 26, text is grey) and
      their bounding box: COUNT X0 Y0 X1 Y1 W H (-1s when there are none)
  png_pixels.py colour FILE R G B
      pixels of exactly that colour: COUNT X0 Y0 X1 Y1 W H MID, MID the
      most of them in one column of the middle fifth of their box (for a
      line that is not steep: its thickness)
  png_pixels.py near FILE R G B TOL [X0 Y0 X1 Y1]
      pixels within TOL of that colour in every channel (inside the box when
      given): COUNT X0 Y0 X1 Y1 W H
  png_pixels.py floor FILE
      pixels of the two ground tile colours (render/raster.c tile_rgb) and
      the most changes between them along one row: COUNT MAX_TRANSITIONS
"""
import struct, sys, zlib

TILE = ((64, 72, 88), (74, 83, 100))

def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png_pixels: %s: bad signature" % path)
    pos, idat, width = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype != 2:
                sys.exit("png_pixels: only 8-bit RGB")
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    row = 3 * width
    if len(raw) != (row + 1) * height:
        sys.exit("png_pixels: %s: wrong decompressed size" % path)
    rows, prev = [], bytearray(row)
    for y in range(height):
        f, line = raw[y * (row + 1)], bytearray(raw[y * (row + 1) + 1:(y + 1) * (row + 1)])
        if f == 1:
            for i in range(3, row): line[i] = (line[i] + line[i - 3]) & 255
        elif f == 2:
            for i in range(row): line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(row): line[i] = (line[i] + ((line[i - 3] if i >= 3 else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(row):
                a = line[i - 3] if i >= 3 else 0
                b = prev[i]
                c = prev[i - 3] if i >= 3 else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f != 0:
            sys.exit("png_pixels: bad filter %d" % f)
        rows.append(line)
        prev = line
    return width, height, rows

def box(points, w, h):
    if not points:
        return "0 -1 -1 -1 -1 %d %d" % (w, h)
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return "%d %d %d %d %d %d %d" % (len(points), min(xs), min(ys), max(xs), max(ys), w, h)

def bodies(rows, x0, y0, w, h):
    pts = []
    for y in range(y0, y0 + h):
        line = rows[y]
        for x in range(x0, x0 + w):
            r, g, b = line[3 * x], line[3 * x + 1], line[3 * x + 2]
            if max(r, g, b) - min(r, g, b) > 32:
                pts.append((x - x0, y - y0))
    return box(pts, w, h)

def main(argv):
    mode = argv[0]
    if mode == "bodies":
        files, tiles = [], None
        i = 1
        while i < len(argv):
            if argv[i] == "--tiles":
                tiles = [int(v) for v in argv[i + 1:i + 6]]
                i += 6
            else:
                files.append(argv[i])
                i += 1
        for path in files:
            width, height, rows = decode(path)
            if not tiles:
                print(bodies(rows, 0, 0, width, height))
                continue
            cols, nrow, tw, th, gap = tiles
            for r in range(nrow):
                for c in range(cols):
                    print(bodies(rows, gap + c * (tw + gap), gap + r * (th + gap), tw, th))
    elif mode == "colour":
        width, height, rows = decode(argv[1])
        want = bytes(int(v) for v in argv[2:5])
        pts = [(x, y) for y in range(height) for x in range(width)
               if bytes(rows[y][3 * x:3 * x + 3]) == want]
        mid = 0
        if pts:
            x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
            lo, hi = x0 + 2 * (x1 - x0) // 5, x0 + 3 * (x1 - x0) // 5
            for x in range(lo, hi + 1):
                mid = max(mid, sum(1 for p in pts if p[0] == x))
        print(box(pts, width, height), mid)
    elif mode == "near":
        # near FILE R G B TOL [X0 Y0 X1 Y1]: pixels within TOL of the colour in every channel
        # (in the box when given): COUNT X0 Y0 X1 Y1 W H
        width, height, rows = decode(argv[1])
        want = [int(v) for v in argv[2:5]]
        tol = int(argv[5])
        bx0, by0, bx1, by1 = [int(v) for v in argv[6:10]] if len(argv) >= 10 else (0, 0, width - 1, height - 1)
        pts = [(x, y) for y in range(max(by0, 0), min(by1, height - 1) + 1)
               for x in range(max(bx0, 0), min(bx1, width - 1) + 1)
               if all(abs(rows[y][3 * x + k] - want[k]) <= tol for k in range(3))]
        print(box(pts, width, height))
    elif mode == "floor":
        width, height, rows = decode(argv[1])
        count, best = 0, 0
        for y in range(height):
            last, changes = None, 0
            for x in range(width):
                px = tuple(rows[y][3 * x:3 * x + 3])
                if px in TILE:
                    count += 1
                    if last is not None and px != last:
                        changes += 1
                    last = px
            best = max(best, changes)
        print(count, best)
    else:
        sys.exit("png_pixels: unknown mode %s" % mode)

if __name__ == "__main__":
    main(sys.argv[1:])
