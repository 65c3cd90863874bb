"""`compare A B [--tol T] [--datasets NAMES] [--rows START:STOP] [--json FILE]`: two eddy output files, dataset
by dataset.

A and B are field files (HDF5: every numeric dataset of A by default) or CSV files with a header
(diagnostics.csv, coefficients.csv, optimize.csv: every numeric column of A by default). For each
dataset or column: max |a - b| / max |a| (max |a| = 0 counts as 1), within --tol or not; NaN where both
files have NaN counts as equal, so the first row of diagnostics.csv compares. A dataset missing from
either file, or of another shape, fails. --rows (CSV) compares a slice of the rows: `0:1` the first,
`1:` all but the first. --json writes the verdict for scripts/gpu_acceptance: ok, value (the largest
difference), tolerance and the difference of each dataset.

Exit 0 when every compared dataset is within the tolerance, 1 when one is not, 2 on bad input (a file
that cannot be read, nothing numeric to compare). Used to check GPU answers against CPU answers and
results across rank counts (tolerance 0: bitwise).
"""
import json
import math
from pathlib import Path

import numpy as np

from .common import PostError, read_csv_columns


def _rows(text):
    """A START:STOP slice of rows (either end may be empty)."""
    start, sep, stop = (text or "").partition(":")
    try:
        if not sep:
            raise ValueError
        return slice(int(start) if start.strip() else None, int(stop) if stop.strip() else None)
    except ValueError:
        raise PostError(f"--rows {text}: expected START:STOP, e.g. 0:1") from None


def _read_h5(path, names):
    """{name: array or None (missing)} for the named datasets, or every numeric one when names is empty."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if not names:
                names = [k for k, v in f.items() if isinstance(v, h5py.Dataset) and np.issubdtype(v.dtype, np.number)]
            return {n: (np.asarray(f[n][...], dtype=np.float64) if isinstance(f.get(n), h5py.Dataset) else None)
                    for n in names}
    except OSError as e:
        raise PostError(f"{path}: cannot open as HDF5 ({e})") from None


def _read_csv(path, names, rows):
    """The same for the columns of a CSV file (a column with any text in it is not numeric)."""
    try:
        cols = read_csv_columns(path)
    except OSError as e:
        raise PostError(f"{path}: cannot read ({e})") from None
    numeric = {k: v for k, v in cols.items() if v and all(isinstance(x, float) for x in v)}
    if not names:
        names = list(numeric)
    return {n: (np.asarray(numeric[n][rows], dtype=np.float64) if n in numeric else None) for n in names}


def difference(a, b):
    """max |a - b| / max |a|, NaN in the same places in both counted as equal (NaN elsewhere: inf)."""
    na, nb = np.isnan(a), np.isnan(b)
    if not np.array_equal(na, nb):
        return math.inf
    a, b = a[~na], b[~nb]
    if a.size == 0:
        return 0.0
    scale = float(np.max(np.abs(a))) or 1.0
    return float(np.max(np.abs(a - b))) / scale


def compare(path_a, path_b, tol=0.0, datasets=(), rows=None):
    """(ok, {name: difference or None}, lines): the comparison of two files, as `run` prints it."""
    for p in (path_a, path_b):
        if not Path(p).is_file():
            raise PostError(f"{p}: no such file")
    csv = all(str(p).endswith(".csv") for p in (path_a, path_b))
    if rows is not None and not csv:
        raise PostError("--rows applies to CSV files only")
    if csv:
        sl = rows if rows is not None else slice(None)
        fa = _read_csv(path_a, list(datasets), sl)
        fb = _read_csv(path_b, list(fa), sl)
    else:
        fa = _read_h5(path_a, list(datasets))
        fb = _read_h5(path_b, list(fa))
    if not fa:
        raise PostError(f"{path_a}: no numeric dataset to compare")
    ok, diffs, lines = True, {}, []
    for name in fa:
        a, b = fa[name], fb.get(name)
        if a is None or b is None:
            lines.append(f"{name}: missing from {path_a if a is None else path_b}")
            ok, diffs[name] = False, None
            continue
        if a.shape != b.shape:
            lines.append(f"{name}: shapes differ {a.shape} vs {b.shape}")
            ok, diffs[name] = False, None
            continue
        rel = difference(a, b)
        within = rel <= tol
        ok &= within
        diffs[name] = rel
        lines.append(f"{name}: max |a-b|/max|a| = {rel:.3e} ({'ok' if within else 'FAIL'}, tol {tol:g})")
    return ok, diffs, lines


def run(args):
    names = [n.strip() for n in args.datasets.split(",") if n.strip()] if args.datasets else []
    rows = _rows(args.rows) if args.rows else None
    ok, diffs, lines = compare(args.a, args.b, args.tol, names, rows)
    print("\n".join(lines))
    if args.json:
        known = [d for d in diffs.values() if d is not None]
        value = math.inf if None in diffs.values() else max(known)
        verdict = {"ok": ok, "value": value if math.isfinite(value) else None, "tolerance": args.tol,
                   "datasets": {k: (v if v is None or math.isfinite(v) else None) for k, v in diffs.items()},
                   "a": str(args.a), "b": str(args.b)}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(verdict, indent=1) + "\n")
    return 0 if ok else 1
