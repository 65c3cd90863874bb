"""`tgv OUTDIR`: kinetic-energy dissipation rate of a Taylor-Green run against a reference curve.

The run's dissipation comes from diagnostics.csv: the `dissipation` column where the solver writes one
(spectral: 2 nu x enstrophy), else -dE/dt of `kinetic_energy` by central differences (second order on
uneven spacing, one-sided at both ends). Both are compared on the reference's times inside the run's
time range (the run's curve linearly interpolated there). The reference is the 512^3 spectral DNS of the
HiOCFD case C3.5 (Re 1600) by default; its time and dissipation columns are found by name.
"""
from pathlib import Path

import numpy as np

from .common import REPO_ROOT, PostError, output_stem, read_csv_columns, report, write_csv
from .fields import pyplot

REFERENCE_NAME = "tgv_re1600_dissipation.csv"
REFERENCE_CANDIDATES = (REPO_ROOT / "cases" / "taylor_green" / REFERENCE_NAME,
                        Path("/work/shared/reference") / REFERENCE_NAME)


def default_reference():
    """The first reference file that exists: the case's copy, else the shared one."""
    for p in REFERENCE_CANDIDATES:
        if p.is_file():
            return str(p)
    return str(REFERENCE_CANDIDATES[0])


def run_dissipation(diag_path, from_energy=False):
    """(t, eps, how) from a diagnostics.csv; rows with repeated steps (a restart) keep the last one."""
    cols = read_csv_columns(diag_path)
    if "time" not in cols:
        raise PostError(f"{diag_path}: no 'time' column")
    t = np.asarray(cols["time"], dtype=float)
    order = np.arange(t.size)
    if "step" in cols:
        steps = np.asarray(cols["step"], dtype=float)
        last = {s: k for k, s in enumerate(steps)}
        order = np.array(sorted(last.values(), key=lambda k: steps[k]))
    t = t[order]
    if "dissipation" in cols and not from_energy:
        return t, np.asarray(cols["dissipation"], dtype=float)[order], "dissipation column"
    if "kinetic_energy" not in cols:
        raise PostError(f"{diag_path}: neither a 'dissipation' nor a 'kinetic_energy' column")
    e = np.asarray(cols["kinetic_energy"], dtype=float)[order]
    if t.size < 3:
        raise PostError(f"{diag_path}: {t.size} rows; -dE/dt needs at least 3 (output.diagnostics.every)")
    return t, -np.gradient(e, t), "-dE/dt of kinetic_energy (central differences)"


def reference_curve(path):
    """(t, eps) of a reference file with a time column (t or time) and a dissipation column."""
    cols = read_csv_columns(path)
    tname = next((c for c in ("t", "time") if c in cols), None)
    ename = next((c for c in cols if c.startswith("dissipation") or c in ("epsilon", "eps")), None)
    if tname is None or ename is None:
        raise PostError(f"{path}: needs a time column (t or time) and a dissipation column; has {list(cols)}")
    return np.asarray(cols[tname], dtype=float), np.asarray(cols[ename], dtype=float)


def run(args):
    diag = Path(args.outdir) / "diagnostics.csv"
    if not diag.is_file():
        raise PostError(f"{args.outdir}: no diagnostics.csv")
    t, eps, how = run_dissipation(diag, args.from_energy)
    ref_path = args.reference or default_reference()
    if not Path(ref_path).is_file():
        raise PostError(f"{ref_path}: reference file not found (pass --reference)")
    t_ref, eps_ref = reference_curve(ref_path)

    inside = (t_ref >= t.min() - 1e-12) & (t_ref <= t.max() + 1e-12)
    if not inside.any():
        raise PostError(f"the run covers t = {t.min():g}..{t.max():g} s, the reference {t_ref.min():g}.."
                        f"{t_ref.max():g}: no overlap")
    tc, rc = t_ref[inside], eps_ref[inside]
    ec = np.interp(tc, t, eps)
    diff = ec - rc
    k = int(np.argmax(np.abs(diff)))
    peak_ref = eps_ref.max()

    stem = output_stem(args.output, args.outdir, "tgv_dissipation")
    csv_path = write_csv(stem.with_suffix(".csv"), ["time", "reference", "eddy", "diff"],
                         [(float(a), float(b), float(c), float(d)) for a, b, c, d in zip(tc, rc, ec, diff)])

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.6), constrained_layout=True)
    ax.plot(t_ref, eps_ref, "-", color="k", lw=1.2, label=f"reference ({Path(ref_path).name})")
    ax.plot(t, eps, "-" if t.size > 40 else "-o", ms=3, color="C3", label=f"eddy: {how}")
    ax.set(xlabel="t [s]", ylabel="dissipation rate $\\varepsilon$ [m$^2$/s$^3$]",
           title=f"Taylor-Green vortex: dissipation, max deviation {abs(diff[k]):.3g} at t = {tc[k]:g} s")
    ax.grid(alpha=0.3)
    ax.legend()
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=120)
    plt.close(fig)

    print(f"tgv: {diag}: {how}, t = {t.min():g}..{t.max():g} s, {tc.size} reference times compared")
    print(f"  max |eps - eps_ref| = {abs(diff[k]):.4e} at t = {tc[k]:g} s "
          f"({abs(diff[k]) / peak_ref * 100:.2f}% of the reference peak {peak_ref:.6g})")
    report(csv_path, png)
    return 0
