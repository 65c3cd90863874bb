"""`cavity OUTDIR`: centreline velocity profiles of the lid-driven cavity against Ghia et al. (1982).

u(y) on the vertical centreline x = L/2 and v(x) on the horizontal centreline y = L/2, from the last field
file, both scaled by the lid speed U and the box length L. Between cell centres the profiles are linear
interpolations (the average of the two middle columns on an even grid, as eddy's own validation does);
the wall values close them at both ends. The Ghia points are drawn as markers and compared.
"""
import numpy as np

from .common import (REPO_ROOT, PostError, config_get, field_files, output_stem, read_csv_columns, report, warn,
                     write_csv)
from .fields import open_field, pyplot

DEFAULT_GHIA = REPO_ROOT / "cases" / "lid_driven_cavity" / "ghia1982_re100_400_1000.csv"


def centreline(values, coords, at):
    """values (n_along, n_across) sampled at `coords` across; linear interpolation at `at` -> (n_along,)."""
    k = int(np.clip(np.searchsorted(coords, at) - 1, 0, coords.size - 2))
    w = (at - coords[k]) / (coords[k + 1] - coords[k])
    return (1.0 - w) * values[:, k] + w * values[:, k + 1]


def profiles(ff):
    """(y/L, u/U) along x = L/2 and (x/L, v/U) along y = L/2, wall values included."""
    if ff.dims != 2:
        raise PostError(f"{ff.path}: the cavity profiles need a 2D run (this file is {ff.dims}D)")
    vel = ff.read("velocity")
    x, y = ff.coords()
    lx, ly = ff.length
    cfg = ff.config
    big_u = float(config_get(cfg, "physics.velocity", 1.0) or 1.0)

    def wall(side, comp):
        b = config_get(cfg, f"boundaries.{side}", {}) or {}
        v = b.get("velocity") or []
        return float(v[comp]) / big_u if b.get("type") == "moving_wall" and len(v) > comp else 0.0

    u = centreline(vel[:, :, 0], x, 0.5 * lx) / big_u  # over y (rows)
    v = centreline(vel[:, :, 1].T, y, 0.5 * ly) / big_u  # over x (columns)
    s_u = np.concatenate([[0.0], y / ly, [1.0]])
    s_v = np.concatenate([[0.0], x / lx, [1.0]])
    u = np.concatenate([[wall("y_min", 0)], u, [wall("y_max", 0)]])
    v = np.concatenate([[wall("x_min", 1)], v, [wall("x_max", 1)]])
    return (s_u, u), (s_v, v)


def ghia_points(path, re):
    """{'u_vs_y': (coord, value), 'v_vs_x': (coord, value)} for this Re, or {} if the table lacks it."""
    cols = read_csv_columns(path)
    for c in ("re", "line", "coord", "value"):
        if c not in cols:
            raise PostError(f"{path}: expected columns re,line,coord,value")
    out = {}
    for line in ("u_vs_y", "v_vs_x"):
        sel = [k for k, (r, l) in enumerate(zip(cols["re"], cols["line"])) if abs(r - re) < 1e-9 and l == line]
        if sel:
            out[line] = (np.array([cols["coord"][k] for k in sel]), np.array([cols["value"][k] for k in sel]))
    return out


def ghia_misprint(re, line, coord):
    """Ghia Table II, Re = 400, v at x = 0.9063 is a misprint (eddy's validation shows it, does not count it)."""
    return line == "v_vs_x" and abs(re - 400.0) < 1e-9 and abs(coord - 0.9063) < 1e-6


def run(args):
    files = field_files(args.outdir)
    ff = open_field(files[-1])
    re = args.re if args.re is not None else config_get(ff.config, "physics.reynolds")
    if re is None:
        raise PostError(f"{ff.path}: no physics.reynolds in resolved_config; pass --re")
    re = float(re)
    (s_u, u), (s_v, v) = profiles(ff)
    ghia_file = args.ghia or str(DEFAULT_GHIA)
    ghia = ghia_points(ghia_file, re)
    if not ghia:
        warn(f"{ghia_file}: no Ghia data for Re = {re:g}; plotting the profiles alone")

    stem = output_stem(args.output, args.outdir, "cavity")
    rows = [("u_vs_y", c, val) for c, val in zip(s_u, u)] + [("v_vs_x", c, val) for c, val in zip(s_v, v)]
    csv_profiles = write_csv(stem.with_suffix(".csv"), ["line", "coord", "value"], rows)
    written = [csv_profiles]

    worst = {}
    if ghia:
        cmp_rows = []
        for line, (s, prof) in (("u_vs_y", (s_u, u)), ("v_vs_x", (s_v, v))):
            coord, ref = ghia.get(line, (np.array([]), np.array([])))
            here = np.interp(coord, s, prof)
            for c, r, e in zip(coord, ref, here):
                counted = not ghia_misprint(re, line, c)
                cmp_rows.append((line, float(c), float(r), float(e), float(e - r), int(counted)))
                if counted and abs(e - r) >= worst.get(line, (-1.0, 0.0))[0]:
                    worst[line] = (abs(e - r), float(c))
        written.append(write_csv(stem.parent / (stem.name + "_ghia.csv"),
                                 ["line", "coord", "ghia", "eddy", "diff", "counted"], cmp_rows))

    plt = pyplot()
    fig, (ax_u, ax_v) = plt.subplots(1, 2, figsize=(10, 4.6), constrained_layout=True)
    ax_u.plot(u, s_u, "-", color="C0", label="eddy")
    ax_v.plot(s_v, v, "-", color="C0", label="eddy")
    if "u_vs_y" in ghia:
        ax_u.plot(ghia["u_vs_y"][1], ghia["u_vs_y"][0], "o", mfc="none", color="k", label="Ghia et al. (1982)")
    if "v_vs_x" in ghia:
        ax_v.plot(ghia["v_vs_x"][0], ghia["v_vs_x"][1], "o", mfc="none", color="k", label="Ghia et al. (1982)")
    ax_u.set(xlabel="u / U", ylabel="y / L", title="u on the vertical centreline x = L/2")
    ax_v.set(xlabel="x / L", ylabel="v / U", title="v on the horizontal centreline y = L/2")
    for ax in (ax_u, ax_v):
        ax.grid(alpha=0.3)
        ax.legend(loc="best")
    fig.suptitle(f"Lid-driven cavity, Re = {re:g}, {s_v.size - 2}x{s_u.size - 2} cells, t = {ff.time:g} s "
                 f"(step {ff.step})")
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=120)
    plt.close(fig)
    written.append(png)

    print(f"cavity: {ff.path} (step {ff.step}, t = {ff.time:g} s), Re = {re:g}")
    if worst:
        parts = []
        for line, label, axis in (("u_vs_y", "u", "y"), ("v_vs_x", "v", "x")):
            if line in worst:
                parts.append(f"max |{label} - {label}_Ghia| = {worst[line][0]:.4f} U (at {axis} = {worst[line][1]:.4f})")
        print("  " + "; ".join(parts))
    report(*written)
    return 0
