"""`channel RUN`: the plane channel's statistics in wall units against the DNS of Moser, Kim & Mansour.

Reads the newest stats file of a channel run (with `--from T`, the averages over the samples after time T
alone: the newest file less the first one written at or after T, see stats.select) (initial.type channel or any run with walls at y = 0 and
y = 2h: output.statistics averaged over x and z with velocity and reynolds_stress), folds the two halves
onto the wall distance d (<u'v'> changes sign in the upper half) and puts them in wall units:
  - the wall shear stress tau_w / rho = nu dU/dd at the wall, from the parabola through the wall (U = 0
    at the half-way bounce-back wall) and the first two cell centres; u_tau = sqrt(tau_w / rho),
    Re_tau = u_tau h / nu, C_f = 2 (u_tau / U_b)^2 with U_b the mean over the height. The force balance
    of a run driven by physics.body_force g gives u_tau = sqrt(g h) as well: both are printed;
  - U+ = U / u_tau at y+ = d u_tau / nu, u_rms+, v_rms+, w_rms+ and <u'v'>+ from the fluctuations
    <u_i u_j> - <u_i><u_j>.
Against cases/channel/mkm1999_chan180.csv (Re_tau 178.12): Re_tau and C_f (relative), U+ at every DNS
point from the first cell centre to the centreline (relative, interpolated in the run's profile), the
peak u_rms+ (relative), <u'v'>+ (absolute, wall units). The averaging time is printed in eddy turnovers
h / u_tau. PNG: U+(y+) with the DNS and the law of the wall (U+ = y+, 2.5 ln y+ + 5.5); the rms and
<u'v'>+ profiles. CSV: the run's folded profile in wall units.
"""
from pathlib import Path

import numpy as np

from .common import PostError, as_text, config_get, output_stem, parse_config, read_csv_columns, report, write_csv
from .fields import pyplot
from .stats import select, stats_files

REFERENCE = Path(__file__).resolve().parents[2] / "cases" / "channel" / "mkm1999_chan180.csv"
DNS_RE_TAU = 178.12


def dns():
    """The MKM columns (y_over_h, y_plus, U_plus, urms_plus, vrms_plus, wrms_plus, uv_plus) as arrays."""
    cols = read_csv_columns(REFERENCE)
    return {k: np.asarray(v, dtype=float) for k, v in cols.items()}


def wall_units(y, u, stress, h, nu):
    """Folded profile in wall units from the profiles over y (cell centres): (u_tau, dict of arrays)."""
    d = np.minimum(y, 2 * h - y)
    upper = y > h
    order = np.argsort(d, kind="stable")
    groups = {}
    for i in order:
        groups.setdefault(round(d[i] / h, 9), []).append(i)
    keys = sorted(groups)
    fold = lambda a, sign=False: np.array([np.mean([(-a[i] if sign and upper[i] else a[i]) for i in groups[k]])
                                           for k in keys])
    uu = stress[:, 0] - u[:, 0] ** 2
    uv = stress[:, 1] - u[:, 0] * u[:, 1]
    vv = stress[:, 3] - u[:, 1] ** 2
    ww = stress[:, 5] - u[:, 2] ** 2
    dd, U = np.array([k * h for k in keys]), fold(u[:, 0])
    d1, d2, u1, u2 = dd[0], dd[1], U[0], U[1]
    slope = (u1 * d2 * d2 - u2 * d1 * d1) / (d1 * d2 * d2 - d2 * d1 * d1)  # U = a d + b d^2, U(0) = 0
    if not slope > 0:
        raise PostError("the mean velocity does not grow from the walls; is the flow along +x?")
    u_tau = np.sqrt(nu * slope)
    prof = {"d": dd, "y_plus": dd * u_tau / nu, "U_plus": U / u_tau,
            "urms_plus": np.sqrt(np.maximum(fold(uu), 0)) / u_tau, "vrms_plus": np.sqrt(np.maximum(fold(vv), 0)) / u_tau,
            "wrms_plus": np.sqrt(np.maximum(fold(ww), 0)) / u_tau, "uv_plus": fold(uv, sign=True) / u_tau**2}
    return u_tau, prof


def compare(prof, ref):
    """Largest deviations from the DNS over the DNS points inside the run's profile, and the y+ of each."""
    yp = ref["y_plus"]
    inside = (yp >= prof["y_plus"][0]) & (yp <= prof["y_plus"][-1])
    out = {"urms_peak": float(prof["urms_plus"].max() / ref["urms_plus"].max() - 1)}
    if not inside.any():
        return dict(out, U_plus=float("nan"), U_plus_at=float("nan"), uv_plus=float("nan"), uv_plus_at=float("nan"))
    y = yp[inside]
    du = np.abs(np.interp(y, prof["y_plus"], prof["U_plus"]) / ref["U_plus"][inside] - 1)
    duv = np.abs(np.interp(y, prof["y_plus"], prof["uv_plus"]) - ref["uv_plus"][inside])
    return dict(out, U_plus=float(du.max()), U_plus_at=float(y[du.argmax()]),
                uv_plus=float(duv.max()), uv_plus_at=float(y[duv.argmax()]))


def run(args):
    src = Path(args.run)
    files = stats_files(src)
    if not files:
        raise PostError(f"{src / 'stats'}: no stats files (a channel run writes output.statistics)")
    try:
        attrs, data, _, label = select(files, since=args.since)
    except PostError as e:
        raise PostError(f"{src / 'stats'}: {e}") from None
    config = parse_config(as_text(attrs.get("resolved_config", "")))
    if "profile_y" not in data or "profile_mean_velocity" not in data or "profile_reynolds_stress" not in data:
        raise PostError(f"{label}: needs profiles over y of mean_velocity and reynolds_stress "
                        "(output.statistics.fields [velocity, reynolds_stress], average_over [x, z])")
    y = data["profile_y"]
    u = data["profile_mean_velocity"].reshape(y.size, -1)
    stress = data["profile_reynolds_stress"].reshape(y.size, -1)
    if u.shape[1] != 3 or stress.shape[1] != 6:
        raise PostError(f"{label}: a 3D channel's profiles have 3 velocity and 6 stress components")
    length = config_get(config, "domain.length")
    h = 0.5 * float(length[1] if isinstance(length, list) else length)
    velocity = float(config_get(config, "physics.velocity", 1.0))
    l_ref = float(config_get(config, "physics.reference_length", 0.0) or
                  (length[0] if isinstance(length, list) else length))
    nu = velocity * l_ref / float(config_get(config, "physics.reynolds", 1.0))
    u_tau, prof = wall_units(y, u, stress, h, nu)
    re_tau = u_tau * h / nu
    u_bulk = float(u[:, 0].mean())
    cf = 2 * (u_tau / u_bulk) ** 2
    ref = dns()
    ref_bulk = np.trapz(ref["U_plus"], ref["y_over_h"])  # U_b+ over the half height h
    ref_cf = 2 / ref_bulk**2
    force = config_get(config, "physics.body_force")
    u_tau_force = np.sqrt(float(force[0]) * h) if isinstance(force, list) and force and float(force[0]) > 0 else None
    err = compare(prof, ref)
    turnovers = (float(attrs["t_end"]) - float(attrs["t_start"])) * u_tau / h

    stem = output_stem(args.output, src, "channel")
    csv_path = write_csv(stem.with_suffix(".csv"), list(prof), list(zip(*prof.values())))
    plt = pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.4), constrained_layout=True)
    a.semilogx(ref["y_plus"][1:], ref["U_plus"][1:], "k-", lw=2, label=f"MKM Re_tau {DNS_RE_TAU}")
    a.semilogx(prof["y_plus"], prof["U_plus"], "o", ms=3, label=f"eddy Re_tau {re_tau:.1f}")
    lin = ref["y_plus"][(ref["y_plus"] > 0) & (ref["y_plus"] < 12)]
    a.semilogx(lin, lin, ":", color="gray", label="U+ = y+")
    log = ref["y_plus"][ref["y_plus"] > 20]
    a.semilogx(log, 2.5 * np.log(log) + 5.5, "--", color="gray", label="2.5 ln y+ + 5.5")
    a.set(xlabel="y+", ylabel="U+", title=f"mean velocity, {turnovers:.3g} h/u_tau averaged")
    fig.suptitle(label, fontsize=10)
    for n, c in (("urms_plus", "C0"), ("vrms_plus", "C1"), ("wrms_plus", "C2"), ("uv_plus", "C3")):
        b.plot(ref["y_plus"], ref[n], "-", color=c, label=f"{n} (DNS)")
        b.plot(prof["y_plus"], prof[n], "o", color=c, ms=3)
    b.set(xlabel="y+", title="rms velocities and <u'v'>+ (dots: eddy)")
    for ax in (a, b):
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=120)
    plt.close(fig)

    forced = f", from the body force {u_tau_force:.6g}" if u_tau_force else ""
    print(f"channel: {label}: {int(attrs['samples'])} samples over {turnovers:.4g} eddy turnovers h/u_tau "
          f"(t = {float(attrs['t_start']):.6g} to {float(attrs['t_end']):.6g}); "
          f"u_tau {u_tau:.10g} m/s{forced}; Re_tau {re_tau:.6g} (DNS {DNS_RE_TAU}, {100 * (re_tau / DNS_RE_TAU - 1):+.2f}%); "
          f"U_b {u_bulk:.6g} m/s, C_f {cf:.5g} (DNS {ref_cf:.5g}, {100 * (cf / ref_cf - 1):+.2f}%)")
    print(f"channel: against the DNS from the first centre (y+ {prof['y_plus'][0]:.3g}) to the centreline: "
          f"max |U+ / DNS - 1| {100 * err['U_plus']:.2f}% at y+ {err['U_plus_at']:.3g}, "
          f"peak u_rms+ {prof['urms_plus'].max():.3f} ({100 * err['urms_peak']:+.2f}%), "
          f"max |<u'v'>+ - DNS| {err['uv_plus']:.4f} at y+ {err['uv_plus_at']:.3g}")
    report(csv_path, png)
    return 0
