#!/usr/bin/env python3
"""Plot of an `eddy optimize` run (cases/optimal_perturbation/README.md): the loss history (optimize.csv) and
the base vorticity, the optimal perturbation and the final vorticity difference (fields/*.h5).

    python3 scripts/post/optimal_perturbation.py OUTPUT_DIR [PNG]
"""
import csv
import glob
import os
import re
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    run = argv[1]
    png = argv[2] if len(argv) > 2 else os.path.join(run, "optimal_perturbation.png")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError as e:
        print(f"no plot: {e} (install matplotlib and numpy)")
        return 0
    rows = list(csv.DictReader(open(os.path.join(run, "optimize.csv"))))
    it = [int(r["step"]) for r in rows]
    gain = [float(r["gain"]) for r in rows]
    fields = {}
    try:
        import h5py

        # by step as a number (past step 99,999,999 the names grow a digit); temporaries are not .h5
        steps = {p: re.search(r"_(\d+)\.h5$", p) for p in glob.glob(os.path.join(run, "fields", "*.h5"))}
        files = sorted((p for p, m in steps.items() if m), key=lambda p: int(steps[p].group(1)))
        with h5py.File(files[-1], "r") as f:
            for name in ("base_vorticity", "vorticity", "final_vorticity_difference"):
                fields[name] = np.asarray(f[name][...])
    except (ImportError, IndexError, KeyError, OSError) as e:
        print(f"fields not plotted: {e}")
    n = 1 + len(fields)
    fig, ax = plt.subplots(1, n, figsize=(4.2 * n, 3.8))
    ax = np.atleast_1d(ax)
    ax[0].plot(it, gain, "k-")
    ax[0].set_xlabel("iteration")
    ax[0].set_ylabel("J / r^2 = <(w_T - w_T^ref)^2> / r^2")
    ax[0].set_title("loss (Adam ascent)")
    titles = {"base_vorticity": "omega_0 (base)", "vorticity": "optimal perturbation",
              "final_vorticity_difference": "w_T - w_T^ref"}
    for a, (name, v) in zip(ax[1:], fields.items()):
        lim = float(np.abs(v).max()) or 1.0
        im = a.imshow(v, origin="lower", cmap="RdBu_r", vmin=-lim, vmax=lim, extent=(0, 2 * np.pi, 0, 2 * np.pi))
        a.set_title(titles[name])
        fig.colorbar(im, ax=a, shrink=0.8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
