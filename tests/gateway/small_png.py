"""A screenshot made small enough for the README (docs/images/, each under 150 KB) with the
standard library alone: each colour channel keeps its top bits (6 of 8: the felt's gradient
bands a little, text stays sharp), and the rows are filtered "Up" and deflated at level 9.
Chromium's screenshots are 8-bit RGB or RGBA PNGs without interlacing; the output is RGB."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _unfilter(kind: int, line: bytearray, prev: bytearray, n: int) -> bytearray:
    """Undo one row's PNG filter (0 none, 1 Sub, 2 Up, 3 Average, 4 Paeth); n bytes a pixel."""
    if kind == 1:
        for i in range(n, len(line)):
            line[i] = (line[i] + line[i - n]) & 0xFF
    elif kind == 2:
        for i in range(len(line)):
            line[i] = (line[i] + prev[i]) & 0xFF
    elif kind == 3:
        for i in range(len(line)):
            line[i] = (line[i] + ((line[i - n] if i >= n else 0) + prev[i]) // 2) & 0xFF
    elif kind == 4:
        for i in range(len(line)):
            left, corner = (line[i - n], prev[i - n]) if i >= n else (0, 0)
            line[i] = (line[i] + _paeth(left, prev[i], corner)) & 0xFF
    return line


def read_rgb(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == SIGNATURE, "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 3
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), prev, channels)
        rows.append(bytes(line if channels == 3 else bytearray(v for i, v in enumerate(line) if i % 4 != 3)))
        prev = line
    return width, height, rows


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def small_png(source: Path, target: Path, bits: int = 6) -> int:
    """Write ``source`` to ``target`` with ``bits`` bits a channel; returns the new size."""
    width, height, rows = read_rgb(source.read_bytes())
    mask = (0xFF << (8 - bits)) & 0xFF
    out = bytearray()
    prev = bytes(width * 3)
    for row in rows:
        cur = bytes(v & mask for v in row)
        out.append(2)  # filter "Up": the felt and the panels repeat row to row
        out += bytes((x - y) & 0xFF for x, y in zip(cur, prev, strict=True))
        prev = cur
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(bytes(out), 9)) + _chunk(b"IEND", b"")
    target.write_bytes(png)
    return len(png)
