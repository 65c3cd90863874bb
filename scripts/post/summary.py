"""`summary OUTDIR...`: one row per run from its diagnostics.csv and run.log, printed and as CSV.

Columns: name (the directory), ranks, steps, final time, the last kinetic energy and max |u|, million
cell (LBM) or grid-point (spectral) updates per second over the run, the stop reason (or the error, or
`unfinished`), and where validation.csv (or, for older runs, run.log) has them the Ghia deviations
(cavity), the 2D Taylor-Green L2 error and the 3D Taylor-Green dissipation's largest deviation from the
DNS in % of its peak. --keys adds values of the resolved config (e.g. the swept ones).
Standard library only, so it runs under any python3 (the Slurm sweep collector calls it).
"""
import os
import re
from pathlib import Path

from .common import PostError, config_get, display_name, output_stem, parse_config, read_csv_columns, report, warn, write_csv

STOPPED = re.compile(r"stopped at step (\d+), t = (\S+) s: (.*?); (.*) over the run")
RATE = re.compile(r"(\S+) MLUPS|\((\S+) million points/s\)")  # LBM; spectral (ms/step, then the rate)
DNS = re.compile(r"Taylor-Green Re 1600 against .*max \|eps - eps_ref\| = \S+ at t = \S+ s = (\S+)% of the reference")
GHIA = re.compile(r"max \|u - u_Ghia\| = (\S+) U .*max \|v - v_Ghia\| = (\S+) U")
TG = re.compile(r"Taylor-Green vortex: relative L2 error .*: (\S+)\s*$")
RANKS = re.compile(r"\| (\d+) MPI rank")
ERROR = re.compile(r"^error: (.*)$")

BASE_COLUMNS = ["name", "ranks", "steps", "final_time", "kinetic_energy", "max_velocity", "mlups", "stop_reason"]
OPTIONAL_COLUMNS = ["ghia_max_du", "ghia_max_dv", "taylor_green_l2", "tgv_max_deps_pct"]


def resolved_config(log_text):
    """The resolved config that run.log prints after 'resolved config:' (up to the first blank line)."""
    lines = log_text.splitlines()
    try:
        start = next(k for k, line in enumerate(lines) if line.strip() == "resolved config:") + 1
    except StopIteration:
        return {}
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line)
    return parse_config("\n".join(block))


def summarize(run_dir, keys=()):
    """A dict of the summary columns for one output directory (missing values are None)."""
    d = Path(run_dir)
    row = {c: None for c in BASE_COLUMNS + OPTIONAL_COLUMNS}
    row["name"] = display_name(d.resolve().name)
    diag, log = d / "diagnostics.csv", d / "run.log"
    if not diag.is_file() and not log.is_file():
        raise PostError(f"{run_dir}: neither diagnostics.csv nor run.log; is this an eddy output directory?")
    if diag.is_file():
        cols = read_csv_columns(diag)
        if cols.get("step"):
            row["steps"] = int(cols["step"][-1])
            row["final_time"] = cols["time"][-1]
            row["kinetic_energy"] = cols.get("kinetic_energy", [None])[-1]
            row["max_velocity"] = cols.get("max_velocity", [None])[-1]
            rates = [v for v in cols.get("mlups", []) if isinstance(v, float) and v > 0]
            row["mlups"] = sum(rates) / len(rates) if rates else None
    text = log.read_text(errors="replace") if log.is_file() else ""
    cfg = resolved_config(text)
    for line in text.splitlines():
        if m := STOPPED.search(line):  # a restarted run appends segments: the last one counts
            row["steps"], row["final_time"], row["stop_reason"] = int(m.group(1)), float(m.group(2)), m.group(3)
            if r := RATE.search(m.group(4)):
                row["mlups"] = float(r.group(1) or r.group(2))
        elif m := DNS.search(line):
            row["tgv_max_deps_pct"] = float(m.group(1))
        elif m := GHIA.search(line):
            row["ghia_max_du"], row["ghia_max_dv"] = float(m.group(1)), float(m.group(2))
        elif m := TG.search(line):
            row["taylor_green_l2"] = float(m.group(1))
        elif m := RANKS.search(line):
            row["ranks"] = int(m.group(1))
        elif m := ERROR.match(line.strip()):
            row["stop_reason"] = "error: " + m.group(1)
    # validation.csv (name,metric,value,bound,passed), where the run wrote one, has the figures exactly.
    figures = {("ghia1982", "u_max_error"): ("ghia_max_du", 1.0), ("ghia1982", "v_max_error"): ("ghia_max_dv", 1.0),
               ("taylor_green", "velocity_l2_error"): ("taylor_green_l2", 1.0),
               ("tgv_re1600", "dissipation_max_deviation"): ("tgv_max_deps_pct", 100.0)}
    if (d / "validation.csv").is_file():
        for line in (d / "validation.csv").read_text().splitlines()[1:]:
            fields = line.split(",")
            if len(fields) == 5 and (fields[0], fields[1]) in figures:
                column, scale = figures[(fields[0], fields[1])]
                row[column] = float(fields[2]) * scale
    if row["stop_reason"] is None:
        row["stop_reason"] = "unfinished" if text else "no run.log"
    for k in keys:
        value = config_get(cfg, k)
        row[k] = "[" + ", ".join(str(v) for v in value) + "]" if isinstance(value, list) else value
    return row


def table(rows, columns):
    """Rows as an aligned text table."""
    def fmt(v):
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.6g}"
        return str(v)

    cells = [[fmt(r.get(c)) for c in columns] for r in rows]
    width = [max(len(c), *(len(row[k]) for row in cells)) for k, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, width))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, width)) for row in cells]
    return "\n".join(line.rstrip() for line in lines)


def run(args):
    keys = [k for k in (args.keys or "").split(",") if k]
    rows = []
    for d in args.outdirs:
        try:
            rows.append(summarize(d, keys))
        except PostError as e:
            if not args.skip_missing:
                raise
            warn(str(e))
            rows.append({"name": display_name(Path(d).name), "stop_reason": "no output"})
    columns = BASE_COLUMNS[:1] + keys + BASE_COLUMNS[1:]
    columns += [c for c in OPTIONAL_COLUMNS if any(r.get(c) is not None for r in rows)]
    if args.csv:
        csv_path = Path(args.csv)
        csv_path.parent.mkdir(parents=True, exist_ok=True)
    elif len(args.outdirs) == 1:
        csv_path = output_stem(None, args.outdirs[0], "summary").with_suffix(".csv")
    else:
        csv_path = Path(os.path.commonpath([str(Path(d).resolve()) for d in args.outdirs])) / "summary.csv"
    write_csv(csv_path, columns, [[r.get(c) for c in columns] for r in rows])
    print(table(rows, columns))
    report(csv_path)
    return 0
