#!/usr/bin/env python3
"""Compare the datasets of two eddy field files: max |a - b| / max |a| per dataset.

    scripts/compare_fields.py A.h5 B.h5 [--tol 1e-12] [--datasets velocity,density]

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
    p.add_argument("--datasets", default="velocity,density", help="comma-separated dataset names")
    args = p.parse_args()
    ok = True
    with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
        for name in args.datasets.split(","):
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
