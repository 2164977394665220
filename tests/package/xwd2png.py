#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Xvfb's screen as a PNG, and how much of it is drawn: Xvfb -fbdir DIR keeps the screen in
DIR/Xvfb_screen0 as an XWD dump (X Window Dump: a header of big-endian 32-bit fields, the window
name, the colour map, then the pixels), which no tool on a bare Debian turns into an image.

    xwd2png.py Xvfb_screen0 OUT.png    prints "WIDTHxHEIGHT drawn=F" (F: the share of pixels not black)
"""

import struct
import sys
import zlib


def read_xwd(path):
    with open(path, "rb") as f:
        data = f.read()
    fields = struct.unpack(">25I", data[:100])
    (header_size, version, pixmap_format, depth, width, height, _xoffset, byte_order, _unit, _bit_order,
     _pad, bits_per_pixel, bytes_per_line, _visual, red_mask, green_mask, blue_mask, _bits_rgb,
     _cmap_entries, ncolors) = fields[:20]
    if version != 7 or pixmap_format != 2 or bits_per_pixel != 32 or depth != 24:
        raise SystemExit("xwd2png: %s: want an XWD version 7 ZPixmap of depth 24 at 32 bits per pixel, "
                         "not version %d format %d depth %d bpp %d" % (path, version, pixmap_format, depth, bits_per_pixel))
    start = header_size + ncolors * 12
    order = "<" if byte_order == 0 else ">"
    shifts = [(mask, (mask & -mask).bit_length() - 1) for mask in (red_mask, green_mask, blue_mask)]
    # Each channel's byte within a pixel's 4 bytes, when its mask is a whole byte (Xvfb's are).
    offsets = []
    for mask, shift in shifts:
        if mask >> shift != 0xFF or shift % 8:
            raise SystemExit("xwd2png: %s: a channel mask that is not a whole byte: %#x" % (path, mask))
        offsets.append(shift // 8 if order == "<" else 3 - shift // 8)
    rows = []
    for y in range(height):
        line = data[start + y * bytes_per_line:start + y * bytes_per_line + width * 4]
        row = bytearray(width * 3)
        for channel, offset in enumerate(offsets):
            row[channel::3] = line[offset::4]
        rows.append(bytes(row))
    return width, height, rows


def write_png(path, width, height, rows):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\0" + row for row in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    width, height, rows = read_xwd(sys.argv[1])
    write_png(sys.argv[2], width, height, rows)
    black = sum(sum(1 for i in range(0, len(row), 3) if not (row[i] or row[i + 1] or row[i + 2])) for row in rows)
    drawn = width * height - black
    print("%dx%d drawn=%.3f" % (width, height, drawn / float(width * height)))


if __name__ == "__main__":
    main()
