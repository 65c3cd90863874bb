"""`bench DIR_OR_JSON... [--out plot.png] [--markdown FILE]`: `eddy bench` results as a table and a bar plot.

Each argument is a group of results, e.g. one folder per date and device
(cases/benchmarks/results/<date>-<device>/, or the --out folder of scripts/bench_suite.sh): a folder's
suite.json when it has one (failed configs included), else every *.json in it; or one JSON file. A JSON
file may hold one result (`eddy bench --json`), a suite (`{"results": [...]}`), or a list or a dict of
results (the hand-assembled multi-run files). The table (markdown, printed) has one row per result: group,
case, backend, device, ranks, precision, the figure (LBM: MLUPS median; spectral: ms/step median), the
best repetition (LBM: max MLUPS; spectral: min ms/step; on a shared machine the least disturbed), and
the roofline ratio of the medians (LBM: fraction of the copy bandwidth measured in the same run;
spectral: step time over the FFT-only floor), and for a result of P > 1 ranks its parallel scaling against
a one-rank result of the same config name and precision found among the inputs (any group): strong when
both have the same grid (speed-up = throughput ratio, efficiency = speed-up / P), weak when the P-rank grid
is P times the one-rank grid (efficiency = throughput ratio / P); throughput is MLUPS (LBM) or points per
second (spectral). Run a suite such as configs/bench/scaling/ once on 1 and once on P ranks and pass both
folders. For results with a `breakdown` the row also names where the step goes (LBM: shell, inner, links
and the halo phases; spectral: fft, transfer, ...) and the messages' fraction of the peer bandwidth (the
halos' or the transposes'); results with write bandwidths (`field_write_GBps`, `checkpoint_write_GBps`)
add them to the ratio column with the writer. The plot (matplotlib, when importable) compares the groups side by
side: LBM MLUPS and spectral ms/step on separate axes. Standard library only apart from the plot.
"""
from pathlib import Path

from .common import PostError, read_json, report, warn

COLUMNS = ["group", "case", "backend", "device", "ranks", "precision", "figure", "best", "ratio", "scaling",
           "status"]


def _is_result(d):
    return isinstance(d, dict) and ("mlups_median" in d or "ms_per_step_median" in d)


def _results_in(data, source):
    """(result dict or None, entry) pairs found in one parsed JSON document."""
    if _is_result(data):
        return [(data, {"name": data.get("name")})]
    if isinstance(data, dict) and isinstance(data.get("results"), list):  # suite.json
        found = []
        for e in data["results"]:
            if not isinstance(e, dict):
                continue
            if _is_result(e.get("result")):
                found.append((e["result"], e))
            elif _is_result(e):
                found.append((e, {"name": e.get("name")}))
            else:
                found.append((None, e))
        return found
    items = data if isinstance(data, list) else list(data.values()) if isinstance(data, dict) else []
    found = []
    for item in items:
        if _is_result(item):
            found.append((item, {"name": item.get("name")}))
    if not found:
        warn(f"{source}: no eddy bench result in this JSON (skipped)")
    return found


def load_group(path):
    """(label, [(result or None, entry)]) for one folder or JSON file."""
    p = Path(path)
    if p.is_dir():
        suite = p / "suite.json"
        files = [suite] if suite.is_file() else sorted(f for f in p.glob("*.json"))
        if not files:
            raise PostError(f"{path}: no suite.json and no *.json in this folder")
        found = []
        for f in files:
            found += _results_in(read_json(f), f)
        return p.resolve().name, found
    if p.is_file():
        return p.stem, _results_in(read_json(p), p)
    raise PostError(f"{path}: no such file or folder")


def _fmt(v, digits):
    return "" if v is None else f"{v:,.{digits}f}"


def row_of(group, result, entry):
    """One table row (a dict of COLUMNS) from a result (None for a failed config)."""
    row = {c: "" for c in COLUMNS}
    row["group"] = group
    if result is None:
        row["case"] = entry.get("name") or Path(entry.get("config") or "?").stem
        row["status"] = f"failed (exit {entry.get('exit_code', '?')})"
        return row
    name = result.get("name") or entry.get("name") or "?"
    overrides = result.get("overrides") or []
    row["case"] = name + (" [" + ", ".join(overrides) + "]" if overrides else "")
    row["backend"] = result.get("backend", "")
    row["device"] = result.get("device", "")
    if str(result.get("backend", "")).startswith("CPU") and result.get("threads"):
        row["device"] += f", {result['threads']} thread" + ("s" if result["threads"] != 1 else "")
    row["ranks"] = str(result.get("ranks", ""))
    row["precision"] = result.get("precision", "")
    row["status"] = "ok"
    if "mlups_median" in result:
        storage = "moments" if result.get("storage") == "moments" else None  # populations: unsaid
        what = [" ".join(x for x in (result.get("lattice"), result.get("collision"), storage) if x)]
        if "cells" in result:
            what.append(f"{int(result['cells']):,} cells")
        if int(result.get("ranks", 1)) > 1 and result.get("comm"):
            what.append(result["comm"])
        row["case"] += " (" + ", ".join(w for w in what if w) + ")"
        row["figure"] = _fmt(result["mlups_median"], 1) + " MLUPS"
        row["best"] = _fmt(result.get("mlups_max"), 1)
        frac = result.get("bandwidth_fraction")
        row["ratio"] = "" if frac is None else f"{100 * frac:.1f}% of copy bw"
        old_frac = result.get("bandwidth_fraction_parallel_for")  # results since 2026-12-06 carry both rulers
        if frac is not None and old_frac is not None:
            row["ratio"] += f" ({100 * old_frac:.1f}% of the earlier 8-byte copy)"
        where = breakdown(result)
        if where:
            row["ratio"] += f" ({where})" if row["ratio"] else where
    else:
        grid = result.get("grid")
        row["case"] += f" (spectral {grid})" if grid else ""
        row["figure"] = _fmt(result["ms_per_step_median"], 3) + " ms/step"
        row["best"] = _fmt(result.get("ms_per_step_min"), 3)
        ratio = result.get("step_over_fft")
        if ratio is None and result.get("fft_ms_per_step_median"):
            ratio = result["ms_per_step_median"] / result["fft_ms_per_step_median"]
        row["ratio"] = "" if ratio is None else f"{ratio:.2f}x FFT floor"
        where = breakdown(result)
        if where:
            row["ratio"] += f" ({where})"
    graphs = result.get("graph_speedup")
    if isinstance(graphs, (int, float)):  # null: no step was recorded as a graph
        row["ratio"] += f"; graphs {graphs:.2f}x"
    fw, cw = result.get("field_write_GBps"), result.get("checkpoint_write_GBps")
    if isinstance(fw, (int, float)) and isinstance(cw, (int, float)):  # results since output.writer
        writer = result.get("writer")
        row["ratio"] += f"; writes {fw:.2f}/{cw:.2f} GB/s (fields/checkpoint" + (f", {writer})" if writer else ")")
    return row


def _size(r):
    """Grid points (spectral) or cells (LBM) of a result, None if it does not say."""
    if "cells" in r:
        return float(r["cells"])
    if "points" in r:
        return float(r["points"])
    return None


def _throughput(r):
    """Work per second: MLUPS (LBM) or points per ms (spectral), None if missing."""
    if "mlups_median" in r:
        return float(r["mlups_median"])
    size = _size(r)
    if size and r.get("ms_per_step_median"):
        return size / float(r["ms_per_step_median"])
    return None


def scaling(result, results):
    """The scaling of a P-rank result against the one-rank results of the same name and precision:
    "strong 1.85x (92.5%)", "weak 97.1%", both separated by "; ", or "" when there is no baseline."""
    P = int(result.get("ranks", 1) or 1)
    size, thru = _size(result), _throughput(result)
    if P <= 1 or not size or not thru:
        return ""
    found = []
    for b in results:
        if b is None or int(b.get("ranks", 1) or 1) != 1 or b.get("name") != result.get("name"):
            continue
        if b.get("precision") != result.get("precision") or not _size(b) or not _throughput(b):
            continue
        ratio = thru / _throughput(b)
        if abs(_size(b) - size) <= 1e-9 * size:
            found.append(f"strong {ratio:.2f}x ({100 * ratio / P:.1f}%)")
        elif abs(P * _size(b) - size) <= 1e-9 * size:
            found.append(f"weak {100 * ratio / P:.1f}%")
    return "; ".join(dict.fromkeys(found))


def breakdown(result):
    """Where a step goes (profiled run), phases under 0.5 % left out: spectral "fft 40% transfer 30% ...
    transposes at 71% of peer bw", LBM "shell 5% inner 80% links 3% transfer 12% halos at 40% of peer bw"."""
    b = result.get("breakdown")
    if not isinstance(b, dict) or not b.get("total"):
        return ""
    total = b["total"]
    parts = [f"{k} {100 * v / total:.0f}%" for k, v in b.items() if k != "total" and 100 * v >= 0.5 * total]
    frac, what = result.get("transpose_peer_fraction"), "transposes"
    if frac is None and result.get("halo_bandwidth_gbs") and result.get("peer_bandwidth_gbs"):
        frac, what = result["halo_bandwidth_gbs"] / result["peer_bandwidth_gbs"], "halos"
    if frac:
        parts.append(f"{what} at {100 * frac:.0f}% of peer bw")
    return " ".join(parts)


def markdown(rows):
    """A markdown table of the rows."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "| " + " | ".join("---" for _ in COLUMNS) + " |"]
    for r in rows:
        lines.append("| " + " | ".join(str(r[c]).replace("|", "/") for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def plot(groups, path):
    """Bars per case, one colour per group; LBM (MLUPS) and spectral (ms/step) on their own axes."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("eddy_post.py bench: matplotlib is not importable: no plot (the table is complete)")
        return None
    kinds = [("mlups_median", "LBM: MLUPS (median; higher is better)"),
             ("ms_per_step_median", "spectral: ms/step (median; lower is better)")]
    panels = [(key, title) for key, title in kinds
              if any(r is not None and key in r for _, found in groups for r, _ in found)]
    if not panels:
        print("eddy_post.py bench: no successful result to plot")
        return None
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(7, 1.2 * _case_count(groups)), 4.2 * len(panels)),
                             squeeze=False)
    width = 0.8 / max(1, len(groups))
    for ax, (key, title) in zip(axes[:, 0], panels):
        per_group = [(label, _labelled([r for r, _ in found if r is not None and key in r]))
                     for label, found in groups]
        cases = []
        for _, values in per_group:
            cases += [c for c in values if c not in cases]
        for g, (label, values) in enumerate(per_group):
            xs = [k + (g - (len(groups) - 1) / 2) * width for k, c in enumerate(cases) if c in values]
            ys = [values[c][key] for c in cases if c in values]
            bars = ax.bar(xs, ys, width, label=label)
            ax.bar_label(bars, labels=[f"{y:,.0f}" if y >= 100 else f"{y:.3g}" for y in ys], fontsize=7)
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels(cases, rotation=20, ha="right", fontsize=8)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _label(r):
    """The plot's name of a case: the config name with what tells apart results of the same config."""
    parts = [r.get("name", "?")]
    lattice = r.get("lattice", "")
    if lattice and lattice.lower() not in parts[0].lower():
        parts.append(lattice)
    overrides = list(r.get("overrides") or [])
    parts += overrides
    if not any(o.startswith("numerics.precision=") for o in overrides):
        parts.append(r.get("precision", ""))
    if str(r.get("backend", "")).startswith("CPU") and r.get("threads"):
        parts.append(f"{r['threads']}T")
    if int(r.get("ranks", 1)) > 1:
        size = f"{float(r['cells']) / 1e6:.0f}M cells" if "cells" in r else r.get("grid", "")
        parts.append(" ".join(x for x in (f"{r['ranks']} ranks", r.get("comm", ""), size) if x))
    return " ".join(p for p in parts if p)


def _labelled(results):
    """{plot label: result}, labels made unique within the group by a running number."""
    out = {}
    for r in results:
        label, k = _label(r), 1
        while label in out:
            k += 1
            label = f"{_label(r)} #{k}"
        out[label] = r
    return out


def _case_count(groups):
    return max(1, max(len(found) for _, found in groups))


def run(args):
    groups = [load_group(p) for p in args.inputs]
    labels = [g for g, _ in groups]
    if len(set(labels)) < len(labels):  # e.g. two results/ folders of the same name: use the paths
        groups = [(str(p), found) for p, (_, found) in zip(args.inputs, groups)]
    rows = [row_of(label, r, e) for label, found in groups for r, e in found]
    every = [r for _, found in groups for r, _ in found]
    for row, r in zip(rows, every):
        if r is not None:
            row["scaling"] = scaling(r, every)
    if not rows:
        raise PostError("no eddy bench results in " + ", ".join(map(str, args.inputs)))
    table = markdown(rows)
    print(table, end="")
    written = []
    if args.markdown:
        Path(args.markdown).write_text(table)
        written.append(args.markdown)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        if plot(groups, args.out):
            written.append(args.out)
    report(*written)
    return 0
