"""`spectrum FILE.h5`: shell-averaged kinetic-energy spectrum E(k) of the velocity (2D or 3D, periodic box).

u_hat = FFT(u) / N per component; each mode carries |u_hat|^2 / 2 and is put into the shell
n = round(|k| / dk), dk = 2 pi / L (the box's fundamental wavenumber, the longest edge if they differ).
E(k_n) = (shell sum) / dk, so sum_n E(k_n) dk = <|u|^2> / 2, the kinetic energy per unit mass.
Shells beyond the inscribed sphere (|k| > k_max = pi N / L) hold only corner modes and are flagged
`complete = 0`. The plot shows E(k) for k >= dk with a k^-3 (2D enstrophy cascade) or k^-5/3 (3D,
Kolmogorov) reference slope through the peak.

Spectral runs write the same spectrum, computed on the device from the spectral coefficients (same shells,
same dk), into each field file as `energy_spectrum` with `wavenumber`: that dataset is used when present
(the printout says `source: file`), else the spectrum is computed here from the velocity (`source: FFT`).
"""
from pathlib import Path

import numpy as np

from .common import PostError, config_get, output_stem, report, run_dir_of, warn, write_csv
from .fields import open_field, pyplot


def energy_spectrum(vel, length):
    """Shell spectrum of vel (..., dims) on a box of edge lengths `length` (x, y[, z]).

    Returns (k, E, modes, complete): shell wavenumbers n dk, E(k), the number of modes per shell, and
    whether the shell lies inside the inscribed sphere.
    """
    dims = vel.shape[-1]
    shape = vel.shape[:-1]  # (ny, nx) or (nz, ny, nx)
    axes = tuple(range(dims))
    lengths = list(reversed(length[:dims]))  # array order: z, y, x
    n_cells = np.prod(shape)
    e = np.zeros(shape)
    for c in range(dims):
        u_hat = np.fft.fftn(vel[..., c], axes=axes) / n_cells
        e += 0.5 * np.abs(u_hat) ** 2
    shell, dk, k, modes, complete = shells(shape, lengths)
    energy = np.bincount(shell.ravel(), weights=e.ravel(), minlength=k.size)
    return k, energy / dk, modes, complete


def shells(shape, lengths):
    """Shell index of every mode of a grid `shape` (array order) on edges `lengths` (same order), and
    (dk, k, modes per shell, whether the shell lies inside the inscribed sphere)."""
    k_axes = [2.0 * np.pi * np.fft.fftfreq(n, d=l / n) for n, l in zip(shape, lengths)]
    grids = np.meshgrid(*k_axes, indexing="ij")
    kmag = np.sqrt(sum(g**2 for g in grids))
    dk = 2.0 * np.pi / max(lengths)
    shell = np.rint(kmag / dk).astype(int)
    n_shells = shell.max() + 1
    modes = np.bincount(shell.ravel(), minlength=n_shells)
    k = dk * np.arange(n_shells)
    k_max = min(np.pi * n / l for n, l in zip(shape, lengths))
    complete = (k <= k_max).astype(int)
    return shell, dk, k, modes, complete


def run(args):
    ff = open_field(args.file)
    periodic = all((config_get(ff.config, f"boundaries.{s}", {}) or {}).get("type") == "periodic"
                   for s in ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")[: 2 * ff.dims])
    if ff.config and not periodic:
        warn(f"{args.file}: the boundaries are not all periodic; the FFT treats the box as periodic anyway")
    vel = ff.read("velocity")
    if {"energy_spectrum", "wavenumber"} <= set(ff.datasets()):
        source = "file"
        spec, k = ff.read("energy_spectrum"), ff.read("wavenumber")
        shape = vel.shape[:-1]
        _, _, k_geo, modes, complete = shells(shape, list(reversed(ff.length[: ff.dims])))
        if k_geo.size != k.size or not np.allclose(k_geo, k):
            raise PostError(f"{args.file}: its wavenumber dataset does not match the grid's shells")
    else:
        source = "FFT"
        k, spec, modes, complete = energy_spectrum(vel, ff.length)
    dk = k[1] - k[0]
    kinetic = 0.5 * np.mean(np.sum(vel**2, axis=-1))

    stem = output_stem(args.output, run_dir_of(args.file), f"{Path(args.file).stem}_spectrum")
    csv_path = write_csv(stem.with_suffix(".csv"), ["k", "shell", "E", "modes", "complete"],
                         [(float(kk), n, float(ee), int(m), int(c))
                          for n, (kk, ee, m, c) in enumerate(zip(k, spec, modes, complete))])

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.8), constrained_layout=True)
    peak = int(np.argmax(np.where(k > 0, spec, 0.0)))
    shown = (k > 0) & (spec > spec[peak] * 1e-13)  # shells at round-off level are left out
    inside, outside = shown & (complete == 1), shown & (complete == 0)
    ax.loglog(k[inside], spec[inside], "-o", ms=3, color="C0", label="E(k)")
    if outside.any():
        ax.loglog(k[outside], spec[outside], ":o", ms=2, color="C0", alpha=0.5, label="corner shells (|k| > k_max)")
    slope, label = (-3.0, "k$^{-3}$") if ff.dims == 2 else (-5.0 / 3.0, "k$^{-5/3}$")
    kr = k[(k >= k[peak]) & (complete == 1)]
    if spec[peak] > 0 and kr.size >= 2:
        ax.loglog(kr, 0.5 * spec[peak] * (kr / k[peak]) ** slope, "--", color="k", label=f"{label} (reference slope)")
    ax.set(xlabel="k [1/m]", ylabel="E(k) [m$^3$/s$^2$]",
           title=f"Energy spectrum, {ff.dims}D, t = {ff.time:g} s (step {ff.step})")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=120)
    plt.close(fig)

    print(f"spectrum: {args.file}: {ff.dims}D, dk = {dk:.6g} 1/m; peak at k = {k[peak]:.6g} (shell {peak}); "
          f"sum E dk = {spec.sum() * dk:.6e}, <|u|^2>/2 = {kinetic:.6e}; source: {source}")
    report(csv_path, png)
    return 0
