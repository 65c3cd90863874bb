"""`stats RUN`: the profiles of a run's running statistics (stats/<name>_<step>.h5, output.statistics).

One PNG and one CSV per profile of a stats file (the newest, or `--step N`), `<stem>_<dataset>.png/.csv`:
every component of profile_<dataset> against the coordinate of the direction left by
output.statistics.average_over. For `reynolds_stress` the plot shows the fluctuations, the Reynolds
stresses proper, <u_i' u_j'> = <u_i u_j> - <u_i><u_j> with both averages over time and the averaged
directions (the CSV holds both). Where the case has a reference it is drawn and its largest difference
printed: a Kolmogorov-forced run (physics.forcing.type kolmogorov) against the laminar Kolmogorov flow
from rest, u = F / lambda (1 - exp(-lambda t)) sin(k_f y) x with lambda = nu k_f^2 + mu, averaged over
the sample times (samples evenly spaced from t_start to t_end). Profiles over two directions are listed,
not plotted.
"""
from pathlib import Path

import numpy as np

from .common import PostError, as_text, config_get, output_stem, parse_config, report, write_csv
from .fields import pyplot

TENSOR = {3: ["xx", "xy", "yy"], 6: ["xx", "xy", "xz", "yy", "yz", "zz"]}


def stats_files(run_dir):
    """The stats files of a run, by step: {step: path}."""
    folder = Path(run_dir) / "stats"
    found = {}
    for p in folder.glob("*.h5"):
        stem = p.stem.rsplit("_", 1)
        if len(stem) == 2 and stem[1].isdigit():
            found[int(stem[1])] = p
    return found


def read_stats(path, datasets=True):
    """(attributes, {dataset: array}, {dataset: units}) of a stats file; with datasets=False the attributes
    alone (the dicts empty: a per-cell stats file holds whole fields)."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if "samples" not in f.attrs:
                raise PostError(f"{path}: not an eddy stats file (no samples attribute)")
            attrs = {k: f.attrs[k] for k in f.attrs}
            data = {k: f[k][()] for k in f} if datasets else {}
            units = {k: as_text(f[k].attrs.get("units", "")) for k in f} if datasets else {}
    except OSError as e:
        raise PostError(f"{path}: cannot open as HDF5 ({e})") from None
    return attrs, data, units


COORDINATES = {"x", "y", "z", "profile_x", "profile_y", "profile_z"}


def select(files, step=None, since=None):
    """(attributes, data, units, label) of the statistics to show: one file (the newest, or that of `step`),
    or with `since` the averages over the samples after time `since` alone.

    Every dataset of a stats file other than the coordinates is a time average of the samples from t_start
    (a mean or a second moment <u_i u_j>), so the window after file A up to file B is
    (n_B m_B - n_A m_A) / (n_B - n_A), exact to round-off: the transient can be left out after the run.
    A is the first file whose t_end is at or after `since` (the window never starts before `since`),
    B the newest (or that of `step`)."""
    if step is not None and step not in files:
        raise PostError(f"no stats file at step {step}; steps {', '.join(map(str, sorted(files)))}")
    end = step if step is not None else max(files)
    attrs, data, units = read_stats(files[end])
    label = files[end].name
    if since is None:
        return attrs, data, units, label
    starts = [(float(read_stats(files[s], datasets=False)[0]["t_end"]), s) for s in sorted(files) if s < end]
    later = [(t, s) for t, s in starts if t >= since * (1 - 1e-12)]
    if not later:
        have = ", ".join(f"{t:.6g}" for t, _ in starts) or "none before the newest"
        raise PostError(f"--from {since:g}: no stats file written at or after t = {since:g} before the newest "
                        f"(t_end of the earlier files: {have}); write them more often "
                        "(output.statistics.write_every) or choose an earlier time")
    t0, first = later[0]
    a0, d0, _ = read_stats(files[first])
    if float(a0["t_start"]) != float(attrs["t_start"]):
        raise PostError(f"{files[first].name} and {label} average from different starts "
                        f"(t_start {float(a0['t_start']):.6g}, {float(attrs['t_start']):.6g}): not one run's statistics")
    n0, n1 = float(a0["samples"]), float(attrs["samples"])
    out = {}
    for k, v in data.items():
        if k in COORDINATES:
            out[k] = v
        elif k not in d0 or d0[k].shape != v.shape:
            raise PostError(f"{files[first].name} has no {k} of the shape of {label}'s")
        else:
            out[k] = (n1 * v - n0 * d0[k]) / (n1 - n0)
    attrs = dict(attrs, samples=n1 - n0, t_start=a0["t_end"])
    return attrs, out, units, f"{label} less {files[first].name}"


def kolmogorov_reference(config, attrs, y):
    """The laminar Kolmogorov flow's u_x(y) averaged over the samples, or None for another case."""
    if config_get(config, "physics.forcing.type") != "kolmogorov" or config_get(config, "solver") != "spectral":
        return None
    amp = float(config_get(config, "physics.forcing.amplitude", 1.0))
    kf = float(config_get(config, "physics.forcing.wavenumber", 4.0))
    re = float(config_get(config, "physics.reynolds", 1.0))
    velocity = float(config_get(config, "physics.velocity", 1.0))
    length = float(config_get(config, "physics.reference_length", 1.0))
    nu, mu = velocity * length / re, float(config_get(config, "physics.drag", 0.0))
    lam = nu * kf * kf + mu
    n = int(attrs["samples"])
    t = np.linspace(float(attrs["t_start"]), float(attrs["t_end"]), n) if n > 1 else np.array([attrs["t_end"]])
    return amp / lam * np.mean(1.0 - np.exp(-lam * t)) * np.sin(kf * y)


def run(args):
    src = Path(args.run)
    files = stats_files(src)
    if not files:
        raise PostError(f"{src / 'stats'}: no stats files (a run with output.statistics writes "
                        "<run>/stats/<name>_<step>.h5)")
    try:
        attrs, data, units, label = select(files, args.step, getattr(args, "since", None))
    except PostError as e:
        raise PostError(f"{src / 'stats'}: {e}") from None
    config = parse_config(as_text(attrs.get("resolved_config", "")))
    print(f"stats: {label}: {int(attrs['samples'])} samples, t = {float(attrs['t_start']):.6g}.."
          f"{float(attrs['t_end']):.6g} s")
    axes = [a for a in "xyz" if f"profile_{a}" in data]
    profiles = [k[len("profile_"):] for k in sorted(data) if k.startswith("profile_") and k[len("profile_"):] not in "xyz"]
    if not profiles:
        raise PostError(f"{label}: no profiles (output.statistics.average_over names no direction)")
    if len(axes) != 1:
        print(f"stats: profiles over {' and '.join(axes)} (two directions): {', '.join(profiles)}; not plotted")
        return 0
    axis = axes[0]
    y = data[f"profile_{axis}"]
    plt = pyplot()
    written = []
    for name in profiles:
        p = data[f"profile_{name}"]
        p = p.reshape(p.shape[0], -1)
        comps = p.shape[1]
        labels = TENSOR[comps] if name == "reynolds_stress" else (list("xyz")[:comps] if comps > 1 else [name])
        columns, header = [y], [axis]
        shown = p
        if name == "reynolds_stress" and "profile_mean_velocity" in data:
            u = data["profile_mean_velocity"].reshape(p.shape[0], -1)
            pairs = [(i, j) for i in range(u.shape[1]) for j in range(i, u.shape[1])]
            shown = np.stack([p[:, k] - u[:, i] * u[:, j] for k, (i, j) in enumerate(pairs)], axis=1)
            columns += [p[:, k] for k in range(comps)] + [shown[:, k] for k in range(comps)]
            header += [f"uu_{c}" for c in labels] + [f"fluct_{c}" for c in labels]
        else:
            columns += [p[:, k] for k in range(comps)]
            header += [f"{name}_{c}" if comps > 1 else name for c in labels]
        stem = output_stem(args.output and f"{args.output}_{name}", src, f"stats_{name}")
        fig, a = plt.subplots(figsize=(6.4, 4.4), constrained_layout=True)
        for k in range(comps):
            a.plot(y, shown[:, k], lw=1.2, label=labels[k])
        ref = kolmogorov_reference(config, attrs, y) if name == "mean_velocity" and axis == "y" else None
        if ref is not None:
            a.plot(y, ref, "k--", lw=1, label="laminar (exact)")
            err = np.abs(p[:, 0] - ref).max()
            scale = max(np.abs(ref).max(), 1e-300)
            print(f"stats: mean_velocity x against the laminar Kolmogorov flow: max |difference| {err:.3e} m/s "
                  f"({err / scale:.3e} of its peak)")
            columns.append(ref)
            header.append("reference_x")
        what = "<u_i' u_j'>" if name == "reynolds_stress" else name
        a.set_xlabel(f"{axis} [m]")
        a.set_ylabel(f"{what} [{units.get(f'profile_{name}', '')}]")
        a.set_title(f"{label}: {what}, {int(attrs['samples'])} samples")
        a.legend(fontsize=8)
        fig.savefig(f"{stem}.png", dpi=110)
        plt.close(fig)
        write_csv(f"{stem}.csv", header, list(zip(*columns)))
        written += [f"{stem}.png", f"{stem}.csv"]
    report(*written)
    return 0
