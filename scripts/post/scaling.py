"""`scaling BEFORE AFTER [NOTE] [--files NAMES] [--tol R] [--json FILE]`: `eddy bench` results of a build
beside those of an earlier one (e.g. committed figures under cases/benchmarks/results/), file by file.

BEFORE and AFTER are folders of bench JSON files (`eddy bench --json`, e.g. 1gpu.json and 2gpu.json, or
the per-config files of `eddy bench configs/bench/scaling --json DIR`); every file of BEFORE (or the
comma-separated --files) is looked for in AFTER under the same name. For each pair of the same case (grid
or cells, lattice, collision, storage, precision, time stepper, ranks): the step figure before -> now (spectral:
ms/step, the FFT floor and the pruned transforms; LBM: MLUPS), the breakdown (pack, transfer, unpack, ...)
and the bytes each rank sends per step. NOTE: what the ratio of the bytes sent is expected to be, printed
beside it. A pair of different cases is reported and not compared.

--tol R: the largest slowdown allowed, as a fraction (0.1: the step may take 10% longer, or LBM run at
1/1.1 of the MLUPS); without it nothing is too slow. --json writes the verdict for scripts/gpu_acceptance:
ok, value (the largest slowdown factor now / before), tolerance and each file's. Exit 0 when every pair is
within the tolerance, 1 when one is slower or a file of BEFORE is missing from AFTER, 2 on bad input (a
folder missing, a file unreadable, no pair of the same case). Standard library only.
"""
import json
from pathlib import Path

from .common import PostError, read_json

CASE_KEYS = ("grid", "cells", "lattice", "collision", "precision", "time_stepper", "ranks")
SPECTRAL_FIGURES = ("ms_per_step_median", "fft_ms_per_step_median", "fft_pruned_ms_per_step_median")


def _storage(r):
    """numerics.storage of an LBM result (one without the key stored populations); None for the spectral."""
    return (r.get("storage") or "populations") if r.get("lattice") else None


def _case(r):
    words = [str(r[k]) for k in CASE_KEYS if r.get(k) is not None and k != "ranks"]
    return " ".join(words + (["moments"] if _storage(r) == "moments" else []))


def slowdown(before, now):
    """now / before of the step time (spectral) or before / now of the MLUPS (LBM); None without either."""
    if now.get("ms_per_step_median") and before.get("ms_per_step_median"):
        return now["ms_per_step_median"] / before["ms_per_step_median"]
    if now.get("mlups_median") and before.get("mlups_median"):
        return before["mlups_median"] / now["mlups_median"]
    return None


def pair_lines(name, b, a, note):
    """The printed comparison of one result pair."""
    what = ", ".join(x for x in (f"{a.get('ranks', '?')} rank(s)", _case(a), a.get("dealiasing", "")) if x)
    lines = [f"{name} ({what}, {a.get('steps', '?')} steps x {a.get('repeats', '?')}):"]
    for key in SPECTRAL_FIGURES + ("mlups_median",):
        if key in a and key in b and b[key]:
            lines.append(f"  {key}: before {b[key]:.2f}, now {a[key]:.2f} ({a[key] / b[key]:.3f}x)")
    bb, ab = b.get("breakdown") or {}, a.get("breakdown") or {}
    if ab:
        lines.append("  breakdown ms/step, before -> now: " +
                     ", ".join(f"{k} {bb.get(k, 0):.1f} -> {ab.get(k, 0):.1f}" for k in ab))
    for key, label in (("transpose_bytes_per_step", "transposes"), ("halo_bytes_per_step", "halos")):
        if int(a.get("ranks", 1)) > 1 and a.get(key) and b.get(key):
            r = a[key] / b[key]
            bw = key.replace("bytes_per_step", "bandwidth_gbs")
            lines.append(f"  {label}, sent per rank per step: before {b[key] / 2**20:.0f} MiB, now "
                         f"{a[key] / 2**20:.0f} MiB ({r:.3f}x{'; ' + note if note else ''}); "
                         f"{a.get(bw, 0):.1f} GB/s (peer {a.get('peer_bandwidth_gbs', 0):.1f})")
    return lines


def run(args):
    before_dir, after_dir = Path(args.before), Path(args.after)
    for d in (before_dir, after_dir):
        if not d.is_dir():
            raise PostError(f"{d}: no such folder")
    if args.files:
        names = [n.strip() for n in args.files.split(",") if n.strip()]
        missing = [n for n in names if not (before_dir / n).is_file()]
        if missing:
            raise PostError(f"{before_dir}: no {', '.join(missing)}")
    else:
        names = sorted(p.name for p in before_dir.glob("*.json"))
    if not names:
        raise PostError(f"{before_dir}: no *.json bench results")
    ok, compared, files, worst = True, 0, {}, None
    for name in names:
        after = after_dir / name
        if not after.is_file():
            print(f"{name}: missing from {after_dir}")
            ok = False
            files[name] = {"status": "missing"}
            continue
        b, a = read_json(before_dir / name), read_json(after)
        if not isinstance(a, dict) or not isinstance(b, dict):
            raise PostError(f"{name}: not a single bench result (one JSON object) in both folders")
        if any(a.get(k) != b.get(k) for k in CASE_KEYS) or _storage(a) != _storage(b):
            print(f"{name}: {_case(a)} on {a.get('ranks')} rank(s), not the case of {before_dir}: no comparison")
            files[name] = {"status": "other case"}
            continue
        compared += 1
        print("\n".join(pair_lines(name, b, a, args.note)))
        s = slowdown(b, a)
        within = s is None or args.tol is None or s <= 1 + args.tol
        if s is not None:
            worst = s if worst is None else max(worst, s)
            print(f"  slowdown {s:.3f}x" + ("" if args.tol is None else
                                             f" ({'ok' if within else 'FAIL'}, tol {args.tol:g})"))
        ok &= within
        files[name] = {"status": "ok" if within else "slower", "slowdown": s}
    if compared == 0 and ok:
        raise PostError(f"no result of {before_dir} has the same case in {after_dir}: nothing to compare")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"ok": ok, "value": worst, "tolerance": args.tol, "files": files},
                                              indent=1) + "\n")
    return 0 if ok else 1
