"""`spectra RUN`: the energy spectra over time of a run (spectra.h5, output.spectra; spectral or LBM).

One PNG, `<stem>.png`: E(k) at up to `--curves` times spread evenly over the series (log-log, coloured by
time), with a k^-3 (2D) or k^-5/3 (3D) reference slope through the last curve's peak; in 2D a second
panel with the enstrophy spectrum k^2 E(k). One CSV, `<stem>.csv`: per row of the file its step, time,
kinetic energy sum E dk, the peak's wavenumber and the integral length scale
L = (pi / 2 E) sum E(k) / k dk (3D; the k = 0 shell left out), so the decay can be read off. The
printout names the rows, the time span and the energy at its ends. RUN is a run directory or its
spectra.h5.
"""

import numpy as np

from .common import PostError, output_stem, report, series_file, write_csv
from .fields import pyplot


def read_spectra(path):
    """(steps, time, k, E (rows, shells), Z (rows, shells) or None) of spectra.h5, rows by step."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if not {"step", "time", "k", "energy_spectrum"} <= set(f.keys()):
                raise PostError(f"{path}: not an eddy spectra file (no step, time, k or energy_spectrum)")
            steps, time, k, e = f["step"][()], f["time"][()], f["k"][()], f["energy_spectrum"][()]
            z = f["enstrophy_spectrum"][()] if "enstrophy_spectrum" in f else None
    except OSError as err:
        raise PostError(f"{path}: cannot open as HDF5 ({err})") from None
    return steps, time, k, np.atleast_2d(e), None if z is None else np.atleast_2d(z)


def summary_rows(steps, time, k, e, dims):
    """Per row: step, time, sum E dk, the peak's k, and (3D) the integral length scale."""
    dk = k[1] - k[0] if k.size > 1 else 1.0
    rows = []
    for s, t, row in zip(steps, time, e):
        energy = float(row.sum() * dk)
        peak = float(k[1 + int(np.argmax(row[1:]))]) if row.size > 1 else 0.0
        length = float(np.pi / (2 * energy) * np.sum(row[1:] / k[1:]) * dk) if dims == 3 and energy > 0 else ""
        rows.append((int(s), float(t), energy, peak, length))
    return rows


def run(args):
    path = series_file(args.run, "spectra.h5", "output.spectra")
    steps, t, k, e, z = read_spectra(path)
    if t.size < 1 or k.size < 2:
        raise PostError(f"{path}: {t.size} rows of {k.size} shells; nothing to plot")
    dims = 2 if z is not None else 3
    run_dir = path.parent
    stem = output_stem(args.output, run_dir, "spectra")
    rows = summary_rows(steps, t, k, e, dims)
    csv_path = write_csv(stem.with_suffix(".csv"), ["step", "time", "kinetic_energy", "peak_k", "integral_length"],
                         rows)

    plt = pyplot()
    panels = 2 if z is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.4 * panels, 4.8), constrained_layout=True, squeeze=False)
    picks = np.unique(np.linspace(0, t.size - 1, min(max(args.curves, 1), t.size)).round().astype(int))
    cmap = plt.get_cmap("viridis")
    shown = k > 0
    for n, r in enumerate(picks):
        colour = cmap(n / max(len(picks) - 1, 1))
        for ax, data in zip(axes[0], (e, z)):
            v = data[r]
            keep = shown & (v > v[shown].max() * 1e-13)  # shells at round-off level are left out
            ax.loglog(k[keep], v[keep], "-", lw=1.2, color=colour, label=f"t = {t[r]:.4g} s")
    last = e[picks[-1]]
    peak = 1 + int(np.argmax(last[1:]))
    slope, label = (-3.0, "k$^{-3}$") if dims == 2 else (-5.0 / 3.0, "k$^{-5/3}$")
    kr = k[peak:]
    if last[peak] > 0 and kr.size >= 2:
        axes[0][0].loglog(kr, 0.5 * last[peak] * (kr / k[peak]) ** slope, "--", color="k",
                          label=f"{label} (reference slope)")
    axes[0][0].set(xlabel="k [1/m]", ylabel="E(k) [m$^3$/s$^2$]",
                   title=f"{run_dir.resolve().name}: energy spectra, {t.size} rows")
    if z is not None:
        axes[0][1].set(xlabel="k [1/m]", ylabel="k$^2$ E(k) [m/s$^2$]", title="enstrophy spectra")
    for ax in axes[0]:
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=120)
    plt.close(fig)

    print(f"spectra: {path}: {t.size} rows of {k.size} shells ({dims}D, dk = {k[1] - k[0]:.6g} 1/m), "
          f"t = {t[0]:g}..{t[-1]:g} s; sum E dk {rows[0][2]:.6e} -> {rows[-1][2]:.6e}")
    report(csv_path, png)
    return 0
