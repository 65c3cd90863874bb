#!/usr/bin/python3
"""The scaling model of cases/benchmarks/scaling_model.md: `eddy plan` from 1 to 1024 GPUs, as a CSV and a plot.

    /usr/bin/python3 scripts/post/scaling_model.py [--eddy build/cpu/eddy] [--bench-dir DIR | --no-bench]
        [--link-bandwidth GBPS] [--link-latency US] [--network-bandwidth GBPS] [--network-latency US]
        [--csv FILE] [--png FILE] [--markdown FILE]
    /usr/bin/python3 scripts/post/scaling_model.py --from-csv FILE [--png FILE] [--markdown FILE]

The model is eddy's own (`eddy plan`, src/app): this script only runs it and collects what it says. For
each curve and each GPU count P = 1, 2, 4, ..., 1024 (P/8 nodes of 8 GPUs from P = 8 on, one node of P
GPUs below) it runs

    eddy plan CONFIG --set ... --nodes N --gpus-per-node G --bench 1GPU.json --json FILE

and writes one CSV row per point. The curves (CURVES below):
- LBM D3Q19 FP32, weak scaling: 608^3 cells per GPU (configs/bench/scaling/lbm_d3q19_608.yaml with
  `domain.cells` and `parallel.ranks` set to the process grid MPI_Dims_create gives, largest count on z);
- LBM D3Q19 FP32, strong scaling: 1024^3 (the same config; one H200 holds it: eddy plan says 120 GB);
- spectral 3D 1024^3 RK4 FP32, strong scaling on slabs, `parallel.ranks: [1, 1, P]` (P <= nz);
- the same on pencils, `parallel.ranks: [1, P / P2, P2]` with P2 = min(P / 2, 8): the ranks of a column
  (P2 of them, consecutive: rank = y index x P2 + z index) share a node, so the column transposes stay on
  NVLink and the row transposes (P / P2 ranks, P2 apart) cross the nodes.
`--bench` is the curve's one-GPU `eddy bench` JSON under --bench-dir (default: the two-H200 scaling run,
cases/benchmarks/results/2026-11-30i-h200/s9d_x2/1gpu), so the compute term starts from a measured step.

Efficiency is taken against the same curve's P = 1 point: strong scaling t_1 / (P t_P), weak scaling
t_1 / t_P. The measured two-GPU figures (s9d_x2/2gpu) and the other codes' published figures (FluidX3D on
8 H200s, waLBerla on 1024 A100s) go into the CSV as rows of their own (`source` measured, reference).

Output: the CSV (default cases/benchmarks/scaling_model.csv), the plot (efficiency against GPUs, log2
axis; default the CSV's name with .png) and the efficiency table in markdown on stdout (and into
--markdown FILE). `--from-csv FILE` redraws the plot and the table from a CSV alone, without eddy.
Needs matplotlib for the plot (the CSV and the table without it). Exit 0 on success, 1 when eddy plan
failed for every point of a curve, 2 on bad input.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "cases" / "benchmarks"
MEASURED = BENCH / "results" / "2026-11-30i-h200" / "s9d_x2"
GPUS = [2 ** k for k in range(11)]
GPUS_PER_NODE = 8
MARKS = (8, 64, 512, 1024)
LBM_CONFIG = "configs/bench/scaling/lbm_d3q19_608.yaml"
SPECTRAL_CONFIG = "configs/bench/scaling/spectral_3d_1024.yaml"
WEAK_EDGE = 608
STRONG_EDGE = 1024
PENCIL_COLUMN = 8
LIMITS = ("compute", "intra-node link", "network", "latency")

COLUMNS = ("source", "curve", "scaling", "gpus", "nodes", "gpus_per_node", "decomposition", "process_grid",
           "block", "grid", "fits", "device_bytes_per_rank", "exchange_bytes_per_step_per_rank",
           "intra_node_bytes_per_step_per_rank", "inter_node_bytes_per_step_per_rank",
           "messages_per_step_per_rank", "compute_s", "intra_node_s", "inter_node_s", "latency_s", "step_s",
           "limited_by", "single_gpu_step_s", "plan_speedup", "plan_efficiency", "speedup", "efficiency",
           "note")


class ModelError(Exception):
    """Bad input: a missing file, an unreadable CSV, an eddy that does not run."""


def dims_create(p, n=3):
    """MPI_Dims_create(p, n) for a free grid: the most balanced factors, ascending, so the largest is z."""
    best = None

    def walk(rest, left, lo, acc):
        nonlocal best
        if left == 1:
            if rest >= lo:
                cand = sorted(acc + [rest])
                if best is None or cand[::-1] < best[::-1]:
                    best = cand
            return
        for f in range(lo, rest + 1):
            if rest % f == 0:
                walk(rest // f, left - 1, f, acc + [f])

    walk(p, n, 1, [])
    return best


def _list(values):
    return "[" + ",".join(str(v) for v in values) + "]"


def lbm_weak(p):
    d = dims_create(p)
    return [f"domain.cells={_list(WEAK_EDGE * k for k in d)}", f"domain.length={_list(float(k) for k in d)}",
            f"parallel.ranks={_list(d)}"]


def lbm_strong(p):
    return [f"domain.cells={_list([STRONG_EDGE] * 3)}"]


def slab(p):
    return [f"parallel.ranks={_list([1, 1, p])}"]


def pencil(p):
    p2 = max(1, min(p // 2, PENCIL_COLUMN))
    return [f"parallel.ranks={_list([1, p // p2, p2])}"]


CURVES = (
    dict(key="lbm_weak", label="LBM D3Q19 FP32, weak, 608^3 per GPU", scaling="weak", config=LBM_CONFIG,
         bench="lbm_d3q19_608.json", sets=lbm_weak, max_gpus=1024),
    dict(key="lbm_strong", label="LBM D3Q19 FP32, strong, 1024^3", scaling="strong", config=LBM_CONFIG,
         bench="lbm_d3q19_608.json", sets=lbm_strong, max_gpus=1024),
    dict(key="spectral_slab", label="spectral 1024^3 RK4 FP32, slabs", scaling="strong",
         config=SPECTRAL_CONFIG, bench="spectral_3d_1024.json", sets=slab, max_gpus=STRONG_EDGE),
    dict(key="spectral_pencil", label="spectral 1024^3 RK4 FP32, pencils [1, P/8, 8]", scaling="strong",
         config=SPECTRAL_CONFIG, bench="spectral_3d_1024.json", sets=pencil, max_gpus=1024),
)
LABELS = {c["key"]: c["label"] for c in CURVES}
SCALING = {c["key"]: c["scaling"] for c in CURVES}

# Published figures of other codes, for the plot and the table (cases/benchmarks/scaling_model.md).
REFERENCES = (
    dict(curve="fluidx3d_8xh200", gpus=8, speedup=4.0, efficiency=0.5, scaling="",
         note="FluidX3D: LBM on one node of 8 H200s, 4.0x one H200 (halos through host memory)"),
    dict(curve="walberla_1024xa100", gpus=1024, efficiency=0.82, scaling="weak",
         note="waLBerla: LBM weak scaling on 1024 A100s, >= 82 % parallel efficiency"),
)


# ------------------------------------------------------------------------------------------ eddy plan
def nodes_for(p):
    g = min(p, GPUS_PER_NODE)
    return math.ceil(p / g), g


def plan(eddy, curve, p, bench, extra, workdir):
    """One `eddy plan --json` point; returns (dict or None, the error line)."""
    nodes, g = nodes_for(p)
    out = Path(workdir) / f"{curve['key']}_{p}.json"
    cmd = [eddy, "plan", str(REPO / curve["config"])]
    for s in curve["sets"](p):
        cmd += ["--set", s]
    cmd += ["--nodes", str(nodes), "--gpus-per-node", str(g), "--json", str(out)]
    if bench is not None:
        cmd += ["--bench", str(bench)]
    cmd += extra
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    except OSError as e:
        raise ModelError(f"cannot run {eddy}: {e}")
    if r.returncode != 0 or not out.is_file():
        lines = [line for line in (r.stderr + r.stdout).splitlines() if line.strip()]
        return None, f"eddy plan exited {r.returncode}: {lines[-1] if lines else ''}"
    try:
        return json.loads(out.read_text()), ""
    except ValueError as e:
        return None, f"eddy plan wrote unreadable JSON: {e}"


def _join(v):
    if isinstance(v, (list, tuple)):
        return "x".join(str(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else v


def row_of(curve, p, j):
    """The CSV row of one plan JSON."""
    m = j.get("model") or {}
    row = dict(source="model", curve=curve["key"], scaling=curve["scaling"], gpus=j.get("ranks", p),
               nodes=j.get("nodes"), gpus_per_node=j.get("gpus_per_node"), decomposition=j.get("decomposition"),
               process_grid=_join(j.get("process_grid")), block=_join(j.get("block")), grid=_join(j.get("grid")),
               fits=_join(j.get("fits")), single_gpu_step_s=j.get("single_gpu_step_s"),
               plan_speedup=j.get("speedup"), plan_efficiency=j.get("efficiency"))
    for k in ("device_bytes_per_rank", "exchange_bytes_per_step_per_rank", "intra_node_bytes_per_step_per_rank",
              "inter_node_bytes_per_step_per_rank", "messages_per_step_per_rank"):
        row[k] = j.get(k)
    for k in ("compute_s", "intra_node_s", "inter_node_s", "latency_s", "step_s", "limited_by"):
        row[k] = m.get(k)
    return {k: _join(v) for k, v in row.items()}


def efficiencies(rows):
    """speedup and efficiency of every model row against its curve's P = 1 row (else the plan's own)."""
    base = {r["curve"]: _num(r["step_s"]) for r in rows if r["source"] == "model" and int(r["gpus"]) == 1}
    for r in rows:
        if r["source"] != "model":
            continue
        p, t, t1 = int(r["gpus"]), _num(r["step_s"]), base.get(r["curve"])
        if t and t1:
            weak = r["scaling"] == "weak"
            r["speedup"] = p * t1 / t if weak else t1 / t
            r["efficiency"] = t1 / t if weak else t1 / (p * t)
        else:
            r["speedup"], r["efficiency"] = r.get("plan_speedup", ""), r.get("plan_efficiency", "")
    return rows


def measured_rows():
    """The two-GPU measurements of 2026-11-30i (one call, s9d_x2): rows with source = measured."""
    def get(which, name):
        path = MEASURED / which / name
        return json.loads(path.read_text()) if path.is_file() else None

    out = []
    one, two = get("1gpu", "lbm_d3q19_608.json"), get("2gpu", "lbm_d3q19_608_weak2.json")
    if one and two:
        s = two["mlups_median"] / one["mlups_median"]
        out.append(dict(curve="lbm_weak", gpus=2, speedup=s, efficiency=s / 2,
                        step_s=two["cells"] / (two["mlups_median"] * 1e6),
                        note="608^3 per GPU; results/2026-11-30i-h200/s9d_x2"))
    strong = get("2gpu", "lbm_d3q19_608.json")
    if one and strong:
        s = strong["mlups_median"] / one["mlups_median"]
        out.append(dict(curve="lbm_strong", gpus=2, speedup=s, efficiency=s / 2,
                        step_s=strong["cells"] / (strong["mlups_median"] * 1e6),
                        note="on 608^3, the model on 1024^3; results/2026-11-30i-h200/s9d_x2"))
    one, two = get("1gpu", "spectral_3d_1024.json"), get("2gpu", "spectral_3d_1024.json")
    if one and two:
        s = one["ms_per_step_median"] / two["ms_per_step_median"]
        out.append(dict(curve="spectral_slab", gpus=2, speedup=s, efficiency=s / 2,
                        step_s=two["ms_per_step_median"] / 1e3,
                        note="slabs [1, 1, 2]; results/2026-11-30i-h200/s9d_x2"))
    for r in out:
        r.update(source="measured", scaling=SCALING[r["curve"]], nodes=1, gpus_per_node=2)
    return out


def reference_rows():
    return [dict(r, source="reference") for r in REFERENCES]


def generate(args):
    eddy = args.eddy if os.path.isabs(args.eddy) else str((Path.cwd() / args.eddy).resolve())
    if not os.access(eddy, os.X_OK):
        raise ModelError(f"no eddy executable at {eddy} (--eddy PATH)")
    extra = []
    for opt in ("link_bandwidth", "link_latency", "network_bandwidth", "network_latency"):
        if getattr(args, opt) is not None:
            extra += ["--" + opt.replace("_", "-"), str(getattr(args, opt))]
    rows, failed = [], []
    with tempfile.TemporaryDirectory() as work:
        for curve in CURVES:
            bench = None if args.no_bench else Path(args.bench_dir) / curve["bench"]
            if bench is not None and not bench.is_file():
                raise ModelError(f"no bench JSON {bench} (--bench-dir DIR, or --no-bench)")
            got = 0
            for p in GPUS:
                if p > curve["max_gpus"]:
                    continue
                j, err = plan(eddy, curve, p, bench, extra, work)
                if j is None:
                    print(f"scaling_model: {curve['key']} on {p} GPUs: {err}", file=sys.stderr)
                    rows.append(dict(source="model", curve=curve["key"], scaling=curve["scaling"], gpus=p,
                                     note=err))
                    continue
                got += 1
                rows.append(row_of(curve, p, j))
            if not got:
                failed.append(curve["key"])
    rows = efficiencies([dict({k: "" for k in COLUMNS}, **r) for r in rows])
    rows += [dict({k: "" for k in COLUMNS}, **r) for r in measured_rows() + reference_rows()]
    return rows, failed


# ------------------------------------------------------------------------------------------ CSV, table, plot
def _num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def write_csv(rows, path):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{r[k]:.6g}" if isinstance(r.get(k), float) else r.get(k, "")) for k in COLUMNS})


def read_csv(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise ModelError(f"cannot read {path}: {e}")
    if not rows or not {"source", "curve", "gpus", "efficiency"} <= set(rows[0]):
        raise ModelError(f"{path}: not a scaling model CSV (columns source, curve, gpus, efficiency)")
    return [dict({k: "" for k in COLUMNS}, **r) for r in rows]


def _model(rows):
    """{curve: {P: row}} of the model rows that have an efficiency, in the order of CURVES, then others."""
    out = {}
    for r in rows:
        if r["source"] == "model" and _num(r["efficiency"]) is not None:
            out.setdefault(r["curve"], {})[int(r["gpus"])] = r
    order = [c["key"] for c in CURVES if c["key"] in out] + [k for k in out if k not in LABELS]
    return {k: out[k] for k in order}


def _cell(r):
    if r is None:
        return "-"
    e, lim = _num(r["efficiency"]), r.get("limited_by") or ""
    fits = "" if r.get("fits") in ("", "true", "True", "1") else ", does not fit"
    return f"{100 * e:.1f} % ({lim}{fits})" if lim else f"{100 * e:.1f} %{fits}"


def table(rows):
    """The markdown tables: predicted efficiency at MARKS, the 2-GPU check, the reference figures."""
    model = _model(rows)
    lines = ["| curve | " + " | ".join(f"{p} GPUs" for p in MARKS) + " |",
             "| --- |" + " --- |" * len(MARKS)]
    for key, pts in model.items():
        lines.append(f"| {LABELS.get(key, key)} | " + " | ".join(_cell(pts.get(p)) for p in MARKS) + " |")
    meas = [r for r in rows if r["source"] == "measured"]
    if meas:
        lines += ["", "| curve | 2 GPUs, predicted | 2 GPUs, measured | predicted / measured |",
                  "| --- | --- | --- | --- |"]
        for m in meas:
            pred = model.get(m["curve"], {}).get(2)
            pe, me = (_num(pred["efficiency"]) if pred else None), _num(m["efficiency"])
            ps = f"{100 * pe:.1f} % ({pred['limited_by']})" if pe is not None else "-"
            ratio = f"{pe / me:.3f}" if pe is not None and me else "-"
            note = f" ({m['note'].split('; results')[0]})" if m.get("note") else ""
            lines.append(f"| {LABELS.get(m['curve'], m['curve'])} | {ps} | {100 * me:.1f} %{note} | {ratio} |")
    refs = [r for r in rows if r["source"] == "reference"]
    if refs:
        lines += ["", "| reference | GPUs | efficiency |", "| --- | --- | --- |"]
        for r in refs:
            how = f" ({r['scaling']})" if r.get("scaling") else ""
            lines.append(f"| {r['note'] or r['curve']} | {int(float(r['gpus']))} | "
                         f"{100 * _num(r['efficiency']):.0f} %{how} |")
    return "\n".join(lines) + "\n"


MARKERS = {"compute": "o", "intra-node link": "s", "network": "^", "latency": "v"}


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:
        print("scaling_model: matplotlib is not importable: no plot (the CSV and the table are complete)")
        return None
    model = _model(rows)
    fig, ax = plt.subplots(figsize=(11.5, 5.6))
    colours = {}
    for i, (key, pts) in enumerate(model.items()):
        ps = sorted(pts)
        es = [100 * _num(pts[p]["efficiency"]) for p in ps]
        (line,) = ax.plot(ps, es, "-", lw=1.6, label=LABELS.get(key, key), color=f"C{i}")
        colours[key] = line.get_color()
        for p, e in zip(ps, es):
            lim = pts[p].get("limited_by") or ""
            fits = pts[p].get("fits") in ("", "true", "True", "1")
            ax.plot([p], [e], MARKERS.get(lim, "o"), color=colours[key], ms=6,
                    mfc=colours[key] if fits else "white")
    for m in (r for r in rows if r["source"] == "measured"):
        ax.plot([_num(m["gpus"])], [100 * _num(m["efficiency"])], "*", ms=15, mec="black", mew=0.8,
                color=colours.get(m["curve"], "grey"), zorder=5)
    for r in (r for r in rows if r["source"] == "reference"):
        x, e = _num(r["gpus"]), 100 * _num(r["efficiency"])
        ax.plot([x], [e], "D", ms=9, color="black", mfc="none", mew=1.5, zorder=5)
        ax.annotate((r["note"] or r["curve"]).split(":")[0], (x, e), textcoords="offset points",
                    xytext=(-8, -14) if x >= 512 else (8, -4), ha="right" if x >= 512 else "left", fontsize=8)
    ax.axvline(GPUS_PER_NODE, color="grey", ls=":", lw=1)
    ax.text(GPUS_PER_NODE * 0.93, 101, "one node (NVLink)", fontsize=7, color="grey", ha="right")
    ax.text(GPUS_PER_NODE * 1.08, 101, "InfiniBand between nodes", fontsize=7, color="grey")
    ax.set_xscale("log", base=2)
    ax.set_xticks(GPUS)
    ax.set_xticklabels([str(p) for p in GPUS])
    ax.set_xlim(0.8, 1300)
    ax.set_ylim(0, 106)
    ax.set_xlabel("H200 GPUs (8 per node)")
    ax.set_ylabel("parallel efficiency, % (strong: t1 / (P tP); weak: t1 / tP)")
    ax.set_title("eddy scaling model (eddy plan) from the measured 1- and 2-GPU figures")
    ax.grid(alpha=0.3, which="both")
    first = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.add_artist(first)
    handles = [Line2D([], [], ls="", marker=MARKERS[k], color="grey", label=f"limited by {k}") for k in LIMITS]
    handles += [Line2D([], [], ls="", marker="*", ms=12, color="grey", mec="black", label="measured, 2 H200s"),
                Line2D([], [], ls="", marker="D", mfc="none", color="black", label="other codes (published)"),
                Line2D([], [], ls="", marker="o", mfc="white", color="grey", label="does not fit in memory")]
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(1.01, 0.0), fontsize=8)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# ------------------------------------------------------------------------------------------ main
def parser():
    p = argparse.ArgumentParser(prog="scaling_model.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--eddy", default="build/cpu/eddy", help="the eddy executable (default build/cpu/eddy)")
    p.add_argument("--from-csv", metavar="FILE", help="redraw the plot and the table from this CSV, without eddy")
    p.add_argument("--bench-dir", default=str(MEASURED / "1gpu"),
                   help="folder of the one-GPU bench JSON passed to eddy plan --bench (default %(default)s)")
    p.add_argument("--no-bench", action="store_true", help="no --bench: eddy plan's built-in single-GPU figures")
    for opt, what in (("link-bandwidth", "GBPS"), ("link-latency", "US"), ("network-bandwidth", "GBPS"),
                      ("network-latency", "US")):
        p.add_argument("--" + opt, type=float, metavar=what, help=f"passed to eddy plan (default: eddy plan's)")
    p.add_argument("--csv", default=str(BENCH / "scaling_model.csv"), help="the CSV written (default %(default)s)")
    p.add_argument("--png", help="the plot (default: the CSV's path with .png)")
    p.add_argument("--markdown", metavar="FILE", help="also write the efficiency table here")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        failed = []
        if args.from_csv:
            rows = read_csv(args.from_csv)
            png = args.png or str(Path(args.from_csv).with_suffix(".png"))
        else:
            rows, failed = generate(args)
            write_csv(rows, args.csv)
            print(f"wrote {args.csv}")
            png = args.png or str(Path(args.csv).with_suffix(".png"))
        text = table(rows)
        if not _model(rows):
            raise ModelError("no model point with an efficiency")
    except ModelError as e:
        print(f"scaling_model: {e}", file=sys.stderr)
        return 2
    print(text, end="")
    if args.markdown:
        Path(args.markdown).write_text(text)
        print(f"wrote {args.markdown}")
    if plot(rows, png):
        print(f"wrote {png}")
    if failed:
        print(f"scaling_model: eddy plan failed at every point of {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
