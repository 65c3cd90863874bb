#!/usr/bin/env python3
"""Write a watertight icosphere as a binary STL: cases/sphere/sphere.stl.

    python3 scripts/make_sphere_stl.py [--level 4] [--diameter 1.0] [--out cases/sphere/sphere.stl]

An icosahedron whose faces are split into 4 (`level` times), each new vertex pushed onto the sphere:
20 * 4**level facets (level 4: 5120 facets, 256 084 bytes), vertices on the sphere of the given
diameter centred at the origin, facets counter-clockwise seen from outside. Each vertex is computed
once and written as the same float32 wherever it is used, so the mesh is watertight bit for bit.
Prints the inscribed radius (nearest facet plane), the polyhedron's volume and its volume-equivalent
diameter, which cases/sphere/README.md quotes. Standard library only.
"""
import argparse
import math
import struct
import sys


def icosphere(level):
    t = (1.0 + math.sqrt(5.0)) / 2.0
    verts = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
             (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
             (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
             (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]

    def unit(v):
        n = math.sqrt(sum(c * c for c in v))
        return tuple(c / n for c in v)

    verts = [unit(v) for v in verts]
    for _ in range(level):
        cache = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in cache:
                va, vb = verts[a], verts[b]
                verts.append(unit(tuple(0.5 * (x + y) for x, y in zip(va, vb))))
                cache[key] = len(verts) - 1
            return cache[key]

        new = []
        for a, b, c in faces:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            new += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = new
    return verts, faces


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--level", type=int, default=4)
    ap.add_argument("--diameter", type=float, default=1.0)
    ap.add_argument("--out", default="cases/sphere/sphere.stl")
    args = ap.parse_args()
    r = 0.5 * args.diameter
    verts, faces = icosphere(args.level)
    # The coordinates as stored (float32), so the figures below describe the file exactly.
    f32 = [tuple(struct.unpack("<f", struct.pack("<f", r * c))[0] for c in v) for v in verts]

    header = f"eddy icosphere level {args.level}, diameter {args.diameter:g}, centre (0,0,0)".encode()
    out = bytearray(header.ljust(80, b" ")[:80])
    out += struct.pack("<I", len(faces))
    volume, inradius = 0.0, math.inf
    for a, b, c in faces:
        pa, pb, pc = f32[a], f32[b], f32[c]
        n = cross(sub(pb, pa), sub(pc, pa))
        ln = math.sqrt(dot(n, n))
        if dot(n, pa) <= 0:
            sys.exit("internal error: a facet is not counter-clockwise seen from outside")
        inradius = min(inradius, dot(n, pa) / ln)
        volume += dot(pa, cross(pb, pc)) / 6.0
        out += struct.pack("<3f", *(x / ln for x in n))
        for p in (pa, pb, pc):
            out += struct.pack("<3f", *p)
        out += struct.pack("<H", 0)
    with open(args.out, "wb") as fh:
        fh.write(out)
    d_eq = (6.0 * volume / math.pi) ** (1.0 / 3.0)
    print(f"{args.out}: {len(faces)} facets, {len(verts)} vertices, {len(out)} bytes")
    print(f"circumradius {r:.9g}, inradius {inradius:.9g} ({(1 - inradius / r) * 100:.4f}% below)")
    print(f"volume {volume:.9g} (sphere {math.pi / 6 * args.diameter ** 3:.9g}), "
          f"volume-equivalent diameter {d_eq:.9g}")


if __name__ == "__main__":
    main()
