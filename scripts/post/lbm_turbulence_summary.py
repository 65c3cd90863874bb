#!/usr/bin/env python3
"""Summarise the runs of scripts/gpu_lbm_turbulence.sh: lbm_turbulence_summary.py WORKDIR OUTDIR.

Writes OUTDIR/tgv.csv (per Taylor-Green run: peak of -dE/dt and of the strain-rate dissipation against
the DNS peak 0.012858 at t = 8.97, max deviation of the -dE/dt curve from the DNS relative to its peak),
OUTDIR/tgv_diagnostics.csv (every run's diagnostics rows with a `run` column), OUTDIR/cavity.csv (max
centreline deviation from Ghia per Re, resolution, operator) and OUTDIR/bench.csv (MLUPS per lattice and
operator), and prints the tables.
"""
import csv
import glob
import json
import math
import os
import re
import sys

REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases", "taylor_green",
                   "tgv_re1600_dissipation.csv")


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def interp(xs, ys, x):
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    lo, hi = 0, len(xs) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    w = (x - xs[lo]) / (xs[hi] - xs[lo])
    return (1 - w) * ys[lo] + w * ys[hi]


def tgv(work, out):
    ref = read_rows(REF)
    rt = [float(r["t"]) for r in ref]
    reps = [float(r["dissipation_rate_minus_dEdt"]) for r in ref]
    ref_peak = max(reps)
    ref_peak_t = rt[reps.index(ref_peak)]
    status = {}
    if os.path.exists(os.path.join(work, "tgv_status.csv")):
        for line in open(os.path.join(work, "tgv_status.csv")):
            name, rc, secs = line.strip().split(",")
            status[name] = (int(rc), int(secs))
    rows, diag_rows = [], []
    for d in sorted(glob.glob(os.path.join(work, "tgv_*"))):
        name = os.path.basename(d)[4:]
        path = os.path.join(d, "diagnostics.csv")
        if not os.path.isfile(path):
            continue
        diag = read_rows(path)
        for r in diag:
            diag_rows.append(dict(run=name, **r))
        t = [float(r["time"]) for r in diag]
        e = [float(r["kinetic_energy"]) for r in diag]
        eps_s = [float(r["dissipation"]) + float(r["sgs_dissipation"]) for r in diag]
        tm = [(t[k] + t[k - 1]) / 2 for k in range(1, len(t))]
        de = [(e[k - 1] - e[k]) / (t[k] - t[k - 1]) for k in range(1, len(t))]
        ok = [k for k in range(len(de)) if math.isfinite(de[k]) and tm[k] <= rt[-1]]
        if not ok:
            continue
        k_peak = max(ok, key=lambda k: de[k])
        dev = max(abs(de[k] - interp(rt, reps, tm[k])) for k in ok)
        ks = [k for k in range(len(t)) if math.isfinite(eps_s[k])]
        k_speak = max(ks, key=lambda k: eps_s[k])
        rc, secs = status.get(name, (-1, -1))
        mlups = [float(r["mlups"]) for r in diag if float(r["mlups"]) > 0]
        rows.append({
            "run": name, "exit": rc, "wall_s": secs, "t_end": t[-1],
            "peak_minus_dEdt": de[k_peak], "peak_time": tm[k_peak],
            "peak_error_pct": 100 * (de[k_peak] / ref_peak - 1),
            "max_dev_minus_dEdt_pct_of_ref_peak": 100 * dev / ref_peak,
            "peak_strain_dissipation": eps_s[k_speak], "strain_peak_time": t[k_speak],
            "strain_peak_error_pct": 100 * (eps_s[k_speak] / ref_peak - 1),
            "E_end": e[-1], "E_ref_end": interp(rt, [float(r["kinetic_energy"]) for r in ref], t[-1]),
            "mlups_median": sorted(mlups)[len(mlups) // 2] if mlups else 0.0,
        })
    write(os.path.join(out, "tgv.csv"), rows)
    write(os.path.join(out, "tgv_diagnostics.csv"), diag_rows)
    print(f"\nTaylor-Green Re 1600: DNS peak -dE/dt {ref_peak:.6f} at t = {ref_peak_t}")
    for r in rows:
        print("  {run:18s} exit {exit:3d} t_end {t_end:6.2f}  peak -dE/dt {peak_minus_dEdt:.5f} at {peak_time:5.2f} "
              "({peak_error_pct:+.1f}%), max curve dev {max_dev_minus_dEdt_pct_of_ref_peak:.1f}% of peak; "
              "strain eps peak {peak_strain_dissipation:.5f} ({strain_peak_error_pct:+.1f}%); "
              "{mlups_median:.0f} MLUPS, {wall_s} s".format(**r))


def cavity(work, out):
    rows = []
    pat = re.compile(r"max \|u - u_Ghia\| = ([0-9.]+) U \(at y = ([0-9.]+)\); max \|v - v_Ghia\| = ([0-9.]+) U")
    for line in open(os.path.join(work, "cavity_status.csv")) if os.path.exists(
            os.path.join(work, "cavity_status.csv")) else []:
        re_, n, op, rc, secs = line.strip().split(",")
        log = os.path.join(work, f"cav_re{re_}_n{n}_{op}", "run.log")
        text = open(log).read() if os.path.exists(log) else ""
        m = pat.search(text)
        st = re.search(r"stopped at step (\d+), t = ([0-9.e+-]+) s: ([^;]+);", text)
        rows.append({"re": re_, "cells": n, "operator": op, "exit": rc, "wall_s": secs,
                     "max_u_dev": m.group(1) if m else "", "max_v_dev": m.group(3) if m else "",
                     "last_step": st.group(1) if st else "", "t_end": st.group(2) if st else "",
                     "stopped_on": st.group(3) if st else ""})
    write(os.path.join(out, "cavity.csv"), rows)
    print("\n2D cavity vs Ghia (max centreline deviation / U):")
    for r in rows:
        print("  Re {re} {cells}^2 {operator:16s} exit {exit}: u {max_u_dev} v {max_v_dev}, stopped at step "
              "{last_step} t = {t_end}: {stopped_on} ({wall_s} s)".format(**r))


def cube(work, out):
    """Centreline extrema of the 3D cube (mid-plane z = 0.5) from its final field file, appended to cavity.csv."""
    files = sorted(glob.glob(os.path.join(work, "cube", "fields", "*.h5")))
    if not files:
        return
    import h5py  # the device machine has it (scripts/compare_fields.py needs it too)
    import numpy as np
    with h5py.File(files[-1], "r") as f:
        vel = np.asarray(f["velocity"])  # (nz, ny, nx, 3)
    nz, ny, nx, _ = vel.shape

    def mid(n):  # the two middle cells (the same one for odd counts)
        return (n - 1) // 2, n // 2

    zp = 0.5 * (vel[mid(nz)[0]] + vel[mid(nz)[1]])  # (ny, nx, 3)
    u_y = 0.5 * (zp[:, mid(nx)[0], 0] + zp[:, mid(nx)[1], 0])  # u along y at x = 0.5
    v_x = 0.5 * (zp[mid(ny)[0], :, 1] + zp[mid(ny)[1], :, 1])  # v along x at y = 0.5
    y = (np.arange(ny) + 0.5) / ny
    x = (np.arange(nx) + 0.5) / nx
    row = {"re": 1000, "cells": f"{nx}^3", "operator": "cube", "exit": 0, "wall_s": "",
           "max_u_dev": "", "max_v_dev": "", "last_step": "", "t_end": "",
           "stopped_on": f"u_min {u_y.min():.4f} at y {y[u_y.argmin()]:.3f}; v_max {v_x.max():.4f} at x "
                         f"{x[v_x.argmax()]:.3f}; v_min {v_x.min():.4f} at x {x[v_x.argmin()]:.3f} (z = 0.5 plane)"}
    path = os.path.join(out, "cavity.csv")
    rows = read_rows(path) if os.path.exists(path) else []
    write(path, rows + [row])
    print("\n3D cube Re 1000, mid-plane centrelines: " + row["stopped_on"])


def bench(work, out):
    rows = []
    for p in sorted(glob.glob(os.path.join(work, "bench_*.json"))):
        j = json.load(open(p))
        name = os.path.basename(p)[6:-5]
        rows.append({"case": name, "lattice": j["lattice"], "collision": j["collision"],
                     "cells": j["cells"], "mlups_median": round(j["mlups_median"], 1),
                     "bytes_per_cell_step": j["bytes_per_cell_step"],
                     "bandwidth_fraction": round(j["bandwidth_fraction"], 4)})
    write(os.path.join(out, "bench.csv"), rows)
    print("\nbench (FP32):")
    for r in rows:
        print("  {case:28s} {mlups_median:9.1f} MLUPS  {bandwidth_fraction:.3f} of copy bandwidth".format(**r))


def write(path, rows):
    if not rows:
        return
    keys = list(rows[0].keys())
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    work, out = sys.argv[1], sys.argv[2]
    for fn in (tgv, cavity, cube, bench):
        try:
            fn(work, out)
        except Exception as e:  # a failed section must not hide the others
            print(f"{fn.__name__}: summary failed: {e}")
