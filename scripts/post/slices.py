"""`slices RUN [--movie]`: PNG frames of a run's slices (output.slices), and a movie of each.

RUN is a run directory (its slices/ folder is read) or a slices/ folder. Every slice file
`<name>_<axis><i>_<step>.h5` becomes one frame per field, `<name>_<axis><i>_<field>_<step>.png` in
RUN/slices/frames (or --out DIR): the field over the plane (a vector's magnitude), one colour range per
slice and field over all its steps, so that a movie's colours mean the same in every frame. --movie
also joins each slice's frames of a field into `<name>_<axis><i>_<field>.mp4` with ffmpeg when it is on
PATH (otherwise it says so and writes the frames only). A restart rewrites the slice files after its
step, so each step has one file.
"""
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

from .common import PostError, as_text, report, warn
from .fields import pyplot

_SLICE_RE = re.compile(r"^(?P<stem>.+_[xyz]\d+)_(?P<step>\d{8,})\.h5$")
_COORDS = ("x", "y", "z")


def slice_files(folder):
    """{stem: [(step, path), ...] by step} of the complete slice files in `folder`."""
    out = {}
    for p in Path(folder).glob("*.h5"):
        m = _SLICE_RE.match(p.name)
        if m:
            out.setdefault(m.group("stem"), []).append((int(m.group("step")), p))
    return {stem: sorted(files) for stem, files in sorted(out.items())}


def read_slice(path):
    """(attributes, {field: 2D values (a vector's magnitude)}, {field: units, '|name|' for a vector's
    magnitude}, in-plane coordinates (u, v), their names) of one slice file."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if "axis" not in f.attrs or "index" not in f.attrs:
                raise PostError(f"{path}: not an eddy slice file (no axis or index attribute)")
            attrs = {k: (as_text(v) if isinstance(v, (bytes, str)) else v) for k, v in f.attrs.items()}
            axis = attrs["axis"]
            names = [a for a in _COORDS if a != axis]
            coords = [f[a][()] for a in names]
            fields, units = {}, {}
            for name in f:
                if name in _COORDS:
                    continue
                data = f[name][()]
                fields[name] = np.sqrt(np.sum(data**2, axis=-1)) if data.ndim == 3 else data
                units[name] = (f"|{name}|" if data.ndim == 3 else name, as_text(f[name].attrs.get("units", "")))
    except OSError as e:
        raise PostError(f"{path}: cannot open as HDF5 ({e})") from None
    return attrs, fields, units, coords, names


def movie(frames, mp4, fps):
    """Join PNG frames into an MP4 (H.264) with ffmpeg; the file written, or None without ffmpeg."""
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        return None
    listing = mp4.with_suffix(".frames.txt")
    listing.write_text("".join(f"file '{p.resolve()}'\nduration {1.0 / fps}\n" for p in frames))
    cmd = [ffmpeg, "-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i", str(listing),
           "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", "-c:v", "libx264", str(mp4)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    listing.unlink()
    if r.returncode != 0:
        raise PostError(f"ffmpeg failed for {mp4} (exit {r.returncode}): {r.stderr.strip()}")
    return mp4


def run(args):
    src = Path(args.run)
    folder = src / "slices" if (src / "slices").is_dir() else src
    if not folder.is_dir():
        raise PostError(f"{src}: no such directory")
    files = slice_files(folder)
    if not files:
        raise PostError(f"{folder}: no slice files (<name>_<axis><i>_<step>.h5); does the run have output.slices?")
    out = Path(args.out) if args.out else folder / "frames"
    out.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    written, no_ffmpeg = [], False
    for stem, series in files.items():
        frames = [(step, *read_slice(path)) for step, path in series]
        names = list(frames[0][2])
        for name in names:
            # One colour range over every step of this slice and field.
            lo = min(float(np.min(fr[2][name])) for fr in frames if name in fr[2])
            hi = max(float(np.max(fr[2][name])) for fr in frames if name in fr[2])
            if hi <= lo:
                hi = lo + (abs(lo) or 1.0) * 1e-12
            pngs = []
            for step, attrs, fields, units, (u, v), (un, vn) in frames:
                if name not in fields:
                    warn(f"{folder / f'{stem}_{step:08d}.h5'}: no field {name}; frame left out")
                    continue
                values = fields[name]
                du = u[1] - u[0] if u.size > 1 else 1.0
                dv = v[1] - v[0] if v.size > 1 else 1.0
                extent = [u[0] - du / 2, u[-1] + du / 2, v[0] - dv / 2, v[-1] + dv / 2]
                fig, ax = plt.subplots(figsize=(6.4, 5.0), constrained_layout=True)
                im = ax.imshow(values, origin="lower", extent=extent, vmin=lo, vmax=hi, cmap="viridis",
                               interpolation="nearest")
                what, unit = units[name]
                fig.colorbar(im, ax=ax, label=f"{what} [{unit}]" if unit else what)
                ax.set(xlabel=f"{un} [m]", ylabel=f"{vn} [m]", aspect="equal",
                       title=f"{stem}: {what}, {attrs['axis']} = {float(attrs['position']):.6g} m, "
                             f"t = {float(attrs['time']):.6g} s (step {step})")
                png = out / f"{stem}_{name}_{step:08d}.png"
                fig.savefig(png, dpi=100)
                plt.close(fig)
                pngs.append(png)
            written += pngs
            print(f"slices: {stem} {name}: {len(pngs)} frames, range [{lo:.6g}, {hi:.6g}]")
            if args.movie and pngs:
                mp4 = movie(pngs, out / f"{stem}_{name}.mp4", args.fps)
                if mp4 is None:
                    no_ffmpeg = True
                else:
                    written.append(mp4)
    if no_ffmpeg:
        print("slices: ffmpeg is not on PATH: no movie written, only the frames (install ffmpeg for --movie)")
    report(*written)
    return 0
