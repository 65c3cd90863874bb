"""`forces OUTDIR`: drag and lift coefficients of a run with bodies against time (a plot).

The samples are coefficients.csv's (the first body, 50 per reference length over reference velocity),
else the `drag_coefficient` and `lift_coefficient` columns of diagnostics.csv; rows with repeated steps
(a restart that went back) keep the last one. The statistics (mean and extremes over the second half of
the run, the Strouhal number) are eddy's own, from bodies.txt, printed and shown in the title, not computed
again here. `--cd`, `--cl` draw reference values.
"""
import textwrap
from pathlib import Path

import numpy as np

from .common import PostError, output_stem, read_csv_columns, report
from .fields import pyplot


def coefficient_samples(run_dir):
    """(t, cd, cl, source file name) of a run directory."""
    for name in ("coefficients.csv", "diagnostics.csv"):
        path = Path(run_dir) / name
        if not path.is_file():
            continue
        cols = read_csv_columns(path)
        if "drag_coefficient" not in cols or "lift_coefficient" not in cols:
            continue
        t = np.asarray(cols["time"], dtype=float)
        order = np.arange(t.size)
        if "step" in cols:
            steps = np.asarray(cols["step"], dtype=float)
            last = {s: k for k, s in enumerate(steps)}
            order = np.array(sorted(last.values(), key=lambda k: steps[k]), dtype=int)
        return (t[order], np.asarray(cols["drag_coefficient"], dtype=float)[order],
                np.asarray(cols["lift_coefficient"], dtype=float)[order], name)
    raise PostError(f"{run_dir}: no coefficients.csv or diagnostics.csv with drag_coefficient and "
                    "lift_coefficient (a run with geometry.bodies and geometry.reference_velocity)")


def bodies_summary(run_dir):
    """The first body's line of bodies.txt after its 'over the second half of the run', or ''."""
    path = Path(run_dir) / "bodies.txt"
    if not path.is_file():
        return ""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("body 0"):
            k = line.find("over the second half of the run: ")
            return line[k + len("over the second half of the run: "):] if k >= 0 else ""
    return ""


def run(args):
    t, cd, cl, source = coefficient_samples(args.outdir)
    if t.size < 2:
        raise PostError(f"{args.outdir}/{source}: {t.size} samples; nothing to plot")
    summary = bodies_summary(args.outdir)
    stem = output_stem(args.output, args.outdir, "forces")
    plt = pyplot()
    fig, (a, b) = plt.subplots(2, 1, figsize=(7, 5.6), sharex=True, constrained_layout=True)
    a.plot(t, cd, color="C0", lw=1)
    b.plot(t, cl, color="C3", lw=1)
    for ax, ref, name in ((a, args.cd, "$C_D$"), (b, args.cl, "$C_L$")):
        if ref is not None:
            ax.axhline(ref, color="k", ls="--", lw=1, label=f"reference {ref:g}")
            ax.legend()
        ax.set(ylabel=name)
        ax.grid(alpha=0.3)
    a.set_title(f"{Path(args.outdir).resolve().name}: {source}, {t.size} samples", fontsize=10)
    b.set_xlabel("t [s]" + ("\n" + textwrap.fill(f"second half (bodies.txt): {summary}", 110) if summary else ""),
                 fontsize=8)
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=120)
    plt.close(fig)
    print(f"forces: {source}, {t.size} samples, t = {t[0]:g}..{t[-1]:g} s; C_D at the end {cd[-1]:.6g}, "
          f"C_L {cl[-1]:.6g}" + (f"; bodies.txt, second half: {summary}" if summary else ""))
    report(png)
    return 0
