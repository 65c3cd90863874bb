#!/usr/bin/env python3
"""Compare the datasets of two eddy field files: max |a - b| / max |a| per dataset.

    scripts/compare_fields.py A.h5 B.h5 [--tol 1e-12] [--datasets velocity,density]

By default every numeric dataset of A is compared (one missing from B fails).

Exit 0 when every compared dataset is within the tolerance, 1 otherwise. Used to check GPU answers
against CPU answers and results across rank counts (tolerance 0 = bitwise).
"""
import argparse
import sys

import h5py
import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, default=0.0, help="max relative difference allowed (0 = bitwise)")
    p.add_argument("--datasets", default="", help="comma-separated dataset names (default: all of A's)")
    args = p.parse_args()
    ok = True
    with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
        names = args.datasets.split(",") if args.datasets else [
            k for k, v in fa.items() if isinstance(v, h5py.Dataset) and np.issubdtype(v.dtype, np.number)]
        for name in names:
            if name not in fb:
                print(f"{name}: missing from {args.b}")
                ok = False
                continue
            a = fa[name][...].astype(np.float64)
            b = fb[name][...].astype(np.float64)
            if a.shape != b.shape:
                print(f"{name}: shapes differ {a.shape} vs {b.shape}")
                ok = False
                continue
            scale = np.max(np.abs(a)) or 1.0
            rel = np.max(np.abs(a - b)) / scale
            within = rel <= args.tol
            ok &= within
            print(f"{name}: max |a-b|/max|a| = {rel:.3e} ({'ok' if within else 'FAIL'}, tol {args.tol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
