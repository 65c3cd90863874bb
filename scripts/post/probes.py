"""`probes RUN`: the probe time series of a run (probes.h5, output.probes) and their frequency spectra.

One PNG per field and point, `<stem>_<field>_p<N>.png`: above, every component of the field at the point
against time; below, the amplitude spectrum of each component, |rfft| of the series less its mean under a
Hann window, scaled so that a sine of amplitude A shows as A. A time schedule (output.probes.every: 0.1t)
samples at the first step past each multiple, so rows are not exactly evenly spaced: the series is
interpolated linearly onto an even grid of as many samples first. The dominant frequency of each
component is printed and marked. RUN is a run directory or a probes.h5 file; `--fields` picks fields.
"""

import numpy as np

from .common import PostError, as_text, output_stem, report, series_file
from .fields import pyplot


def read_probes(path):
    """(steps, time, points (n, dims), {field: (rows, points, components)}, {field: units}) of probes.h5."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if "step" not in f or "time" not in f or "points" not in f.attrs:
                raise PostError(f"{path}: not an eddy probes file (no step, time or points)")
            steps, time = f["step"][()], f["time"][()]
            points = np.atleast_2d(f.attrs["points"][()])
            fields, units = {}, {}
            for name in f:
                if name in ("step", "time"):
                    continue
                fields[name] = f[name][()]
                units[name] = as_text(f[name].attrs.get("units", ""))
    except OSError as e:
        raise PostError(f"{path}: cannot open as HDF5 ({e})") from None
    # A restart continues the file after its own step, so steps only grow; keep the last of any repeat.
    last = {int(s): k for k, s in enumerate(steps)}
    order = np.array(sorted(last.values(), key=lambda k: steps[k]), dtype=int)
    return steps[order], time[order], points, {n: v[order] for n, v in fields.items()}, units


def amplitude_spectrum(t, x):
    """(frequencies [Hz], amplitudes) of samples x(t): evenly resampled, mean removed, Hann window."""
    n = t.size
    even = np.linspace(t[0], t[-1], n)
    y = np.interp(even, t, x) if not np.allclose(np.diff(t), (t[-1] - t[0]) / (n - 1), rtol=1e-6) else x
    y = y - y.mean()
    w = np.hanning(n)
    amp = 2.0 * np.abs(np.fft.rfft(y * w)) / w.sum()
    return np.fft.rfftfreq(n, d=(t[-1] - t[0]) / (n - 1)), amp


def run(args):
    path = series_file(args.run, "probes.h5", "output.probes")
    steps, t, points, fields, units = read_probes(path)
    if args.fields:
        wanted = [n.strip() for n in args.fields.split(",") if n.strip()]
        missing = [n for n in wanted if n not in fields]
        if missing:
            raise PostError(f"{path}: no field {', '.join(missing)}; it holds {', '.join(fields)}")
        fields = {n: fields[n] for n in wanted}
    if t.size < 4:
        raise PostError(f"{path}: {t.size} rows; a time series and its spectrum need at least 4")
    run_dir = path.parent
    plt = pyplot()
    written = []
    for name, values in fields.items():
        comps = values.shape[2]
        labels = (["x", "y", "z"][:comps] if comps > 1 else [name])
        for p in range(values.shape[1]):
            where = ", ".join(f"{c:.6g}" for c in points[p])
            stem = output_stem(args.output and f"{args.output}_{name}_p{p}", run_dir, f"probes_{name}_p{p}")
            fig, (a, b) = plt.subplots(2, 1, figsize=(7, 5.6), constrained_layout=True)
            peaks = []
            for c in range(comps):
                x = values[:, p, c]
                a.plot(t, x, lw=1, label=labels[c])
                f, amp = amplitude_spectrum(t, x)
                b.semilogy(f[1:], np.maximum(amp[1:], 1e-300), lw=1, label=labels[c])
                k = 1 + int(np.argmax(amp[1:])) if amp.size > 1 else 0
                peaks.append((labels[c], f[k], amp[k]))
                b.axvline(f[k], color=f"C{c}", ls=":", lw=0.8)
            a.set(xlabel="t [s]", ylabel=f"{name} [{units[name]}]" if units[name] else name,
                  title=f"{run_dir.resolve().name}: {name} at ({where}) m, {t.size} samples")
            b.set(xlabel="f [Hz]", ylabel="amplitude")
            for ax in (a, b):
                ax.grid(alpha=0.3)
                ax.legend(fontsize=8)
            png = stem.with_suffix(".png")
            fig.savefig(png, dpi=110)
            plt.close(fig)
            written.append(png)
            text = "; ".join(f"{lab} peak {fk:.6g} Hz (amplitude {ak:.3g})" for lab, fk, ak in peaks)
            print(f"probes: {name} at ({where}): {t.size} samples, t = {t[0]:g}..{t[-1]:g} s; {text}")
    report(*written)
    return 0
