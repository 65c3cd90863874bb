"""`slice FILE.h5 --field NAME`: a 2D image of one field (2D files whole; 3D files: one plane).

Vector fields show a component (x, y, z) or the magnitude (default); scalars show themselves. In 3D the
plane is normal to --axis (default z) at cell index --index (default the middle). Besides the PNG, a CSV
holds the plane in long form (two coordinates and the value per cell).
"""
from pathlib import Path

import numpy as np

from .common import PostError, output_stem, report, run_dir_of, write_csv
from .fields import open_field, pyplot

AXES = "xyz"


def plane(ff, name, component, axis, index):
    """The chosen plane: (values (rows, cols), horizontal coords, vertical coords, their labels, a
    description, a tag for file names such as 'z16' in 3D or '' in 2D)."""
    data = ff.read(name)
    spatial = data.ndim if data.ndim == ff.dims else data.ndim - 1
    if spatial != ff.dims:
        raise PostError(f"{ff.path}: dataset '{name}' has shape {data.shape}, not a {ff.dims}D field")
    what = name
    if data.ndim > ff.dims:
        ncomp = data.shape[-1]
        comp = component or "magnitude"
        if comp == "magnitude":
            data = np.sqrt(np.sum(data**2, axis=-1))
        else:
            if len(comp) == 1 and comp in AXES:
                c = AXES.index(comp)
            elif comp.isdigit():
                c = int(comp)
            else:
                raise PostError(f"--component {comp}: expected x, y, z, a component index or magnitude")
            if not 0 <= c < ncomp:
                raise PostError(f"'{name}' has {ncomp} components; no component {comp}")
            data = data[..., c]
        what = f"{name} {comp}" if comp == "magnitude" else f"{name}_{AXES[c] if c < 3 else c}"
    elif component not in (None, "magnitude"):
        raise PostError(f"'{name}' is a scalar field: --component does not apply")
    coords = ff.coords()
    if ff.dims == 2:
        return data, coords[0], coords[1], ("x", "y"), what, ""
    a = AXES.index(axis)
    n = data.shape[2 - a]  # array axes are z, y, x
    k = n // 2 if index is None else index
    if not 0 <= k < n:
        raise PostError(f"--index {k} outside 0..{n - 1} along {axis}")
    what, tag = f"{what}, {axis} = {coords[a][k]:.4g} (index {k})", f"{axis}{k}"
    if axis == "z":
        return data[k, :, :], coords[0], coords[1], ("x", "y"), what, tag
    if axis == "y":
        return data[:, k, :], coords[0], coords[2], ("x", "z"), what, tag
    return data[:, :, k], coords[1], coords[2], ("y", "z"), what, tag


def run(args):
    ff = open_field(args.file)
    values, h, v, (hl, vl), what, tag = plane(ff, args.field, args.component, args.axis, args.index)
    parts = [Path(args.file).stem, args.field, args.component, tag]
    stem = output_stem(args.output, run_dir_of(args.file), "_".join(p for p in parts if p))

    hh, vv = np.meshgrid(h, v)
    csv_path = write_csv(stem.with_suffix(".csv"), [hl, vl, "value"],
                         [(float(a), float(b), float(c)) for a, b, c in zip(hh.ravel(), vv.ravel(), values.ravel())])

    plt = pyplot()
    signed = values.min() < 0 < values.max()
    lim = np.abs(values).max() or 1.0
    dx_h = (h[1] - h[0]) if h.size > 1 else 1.0
    dx_v = (v[1] - v[0]) if v.size > 1 else 1.0
    extent = (h[0] - dx_h / 2, h[-1] + dx_h / 2, v[0] - dx_v / 2, v[-1] + dx_v / 2)
    fig, ax = plt.subplots(figsize=(6.4, 5.4), constrained_layout=True)
    im = ax.imshow(values, origin="lower", extent=extent, interpolation="nearest",
                   cmap="RdBu_r" if signed else "viridis", vmin=-lim if signed else None, vmax=lim if signed else None)
    fig.colorbar(im, ax=ax, shrink=0.85, label=what.split(",")[0])
    ax.set(xlabel=f"{hl} [m]", ylabel=f"{vl} [m]", title=f"{what}\nt = {ff.time:g} s (step {ff.step})")
    ax.set_aspect("equal")
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=120)
    plt.close(fig)
    print(f"slice: {args.file}: {what}, {values.shape[1]}x{values.shape[0]} cells, "
          f"min {values.min():.6g}, max {values.max():.6g}")
    report(csv_path, png)
    return 0
