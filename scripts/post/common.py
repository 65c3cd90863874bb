"""Shared helpers of eddy_post: the resolved-config reader, field files, run directories, CSV output.

Only the standard library is imported here, so `summary` (and the Slurm sweep collector that calls it)
runs with any python3; numpy, h5py and matplotlib are imported by the subcommands that need them.
"""
import csv
import os
import json
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


class PostError(Exception):
    """A user-facing error: bad arguments, missing files, data that cannot be processed."""


# ------------------------------------------------------------------------------------------ config
def _scalar(text):
    """One YAML scalar as eddy writes it: number, bool, quoted or plain string, or a flow list."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(item) for item in _split_top(inner)] if inner else []
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "~", ""):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _split_top(text):
    """Split a flow-list body at commas outside brackets."""
    items, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:k])
            start = k + 1
    items.append(text[start:])
    return [item.strip() for item in items]


def _strip_comment(line):
    """Drop a ` # comment` that is outside quotes."""
    quote = None
    for k, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (k == 0 or line[k - 1] in " \t"):
            return line[:k]
    return line


def parse_config(text):
    """Parse the YAML subset eddy writes (block mappings, scalars, flow lists) into nested dicts.

    eddy's `resolved_config` attribute and its shipped configs use only this subset, so no YAML
    library is needed (Debian's python3-yaml is not one of eddy's dependencies).
    """
    root = {}
    stack = [(-1, root)]  # (indent, mapping)
    for raw in text.splitlines():
        line = _strip_comment(raw).rstrip()
        if not line.strip() or line.strip() in ("---", "..."):
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, sep, value = line.strip().partition(":")
        if not sep:
            raise PostError(f"config: cannot read line {raw!r}")
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        value = value.strip()
        if value.startswith("{") and value.endswith("}"):
            inner = {}
            for item in _split_top(value[1:-1]):
                if item:
                    k, _, v = item.partition(":")
                    inner[k.strip()] = _scalar(v)
            parent[key.strip()] = inner
        elif value:
            parent[key.strip()] = _scalar(value)
        else:
            child = {}
            parent[key.strip()] = child
            stack.append((indent, child))
    return root


def config_get(config, dotted, default=None):
    """config_get(cfg, "physics.reynolds") -> value, or default when a key is missing."""
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def as_text(value):
    """HDF5 string attributes come back as str or bytes depending on how they were written."""
    return value.decode() if isinstance(value, bytes) else str(value)


# ------------------------------------------------------------------------------------------ files
_STEP_RE = re.compile(r"_(\d{8,})\.h5$")  # 8 digits, more past step 99,999,999


def field_files(run_dir):
    """The complete field files of a run directory, ordered by step (temporaries and the FAILED_* file
    written at a numerical failure are skipped)."""
    fields = Path(run_dir) / "fields"
    files = [p for p in fields.glob("*.h5") if _STEP_RE.search(p.name) and not p.name.startswith("FAILED_")]
    if not files:
        raise PostError(f"{run_dir}: no field files (fields/<name>_<step>.h5); is this an eddy output directory?")
    return sorted(files, key=lambda p: int(_STEP_RE.search(p.name).group(1)))


def series_file(run, name, key):
    """A run's time-series file: RUN/NAME for a run directory, else RUN itself; PostError naming the
    config key that writes it when there is none."""
    src = Path(run)
    path = src / name if src.is_dir() else src
    if not path.is_file():
        raise PostError(f"{path}: no such file (a run with {key} writes <run>/{name})")
    return path


def run_dir_of(path):
    """The run directory a field file belongs to (the parent of fields/), else the file's directory."""
    path = Path(path).resolve()
    return path.parent.parent if path.parent.name == "fields" else path.parent


def output_stem(explicit, run_dir, name):
    """Where a subcommand writes NAME.png / NAME.csv: --output if given, else <run>/post/NAME."""
    if explicit:
        stem = Path(explicit)
        if stem.suffix in (".png", ".csv"):
            stem = stem.with_suffix("")
    else:
        stem = Path(run_dir) / "post" / name
    stem.parent.mkdir(parents=True, exist_ok=True)
    return stem


def read_json(path):
    """A JSON file's content; PostError naming the file when it cannot be read or parsed."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise PostError(f"{path}: not a readable JSON file ({e})") from None


def read_csv_columns(path):
    """A CSV with a header (lines starting with # skipped) as {column: [floats or strings]}.

    A last line without its newline is what a running or killed eddy leaves while it appends a row: it is
    left out, with a warning. Any other row whose field count differs from the header's is a PostError
    naming the file and line."""
    try:
        with open(path, newline="", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise PostError(f"{path}: cannot read ({e.strerror})") from None
    lines = text.split("\n")
    torn = lines[-1] != ""
    if not torn:
        lines.pop()
    numbered = [(k + 1, line) for k, line in enumerate(lines)
                if line.strip() and not line.lstrip().startswith("#")]
    if torn and len(numbered) > 1 and numbered[-1][0] == len(lines):
        warn(f"{path}:{numbered[-1][0]}: the last line is incomplete (a run still writing, or killed); "
             "left out")
        numbered.pop()
    if not numbered:
        raise PostError(f"{path}: empty")
    parsed = [(n, r) for n, r in ((n, next(csv.reader([line]))) for n, line in numbered) if r]
    header = [h.strip() for h in parsed[0][1]]
    cols = {h: [] for h in header}
    for n, r in parsed[1:]:
        if len(r) != len(header):
            raise PostError(f"{path}:{n}: {len(r)} fields, but the header has {len(header)}")
        for h, v in zip(header, r):
            cols[h].append(_number(v))
    return cols


def _number(text):
    try:
        return float(text)
    except ValueError:
        return text.strip()


def write_csv(path, header, rows):
    """Write rows (sequences) under header; floats with full precision."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow(["" if v is None else (repr(float(v)) if isinstance(v, float) else v) for v in r])
    return path


def _write_line(stream, text):
    """`text` and a newline on `stream`, file names as their bytes (a directory name that is not UTF-8
    prints as it is on disk instead of raising)."""
    stream.flush()
    stream.buffer.write(os.fsencode(text) + b"\n")
    stream.buffer.flush()


def display_name(text):
    """A file or directory name for tables and messages: bytes that are not UTF-8 shown as U+FFFD."""
    return os.fsencode(str(text)).decode("utf-8", errors="replace")


def report(*paths):
    """Print the files a subcommand wrote, one per line (scripts parse these)."""
    for p in paths:
        _write_line(sys.stdout, f"wrote {p}")


def warn(message):
    _write_line(sys.stderr, f"eddy_post: warning: {message}")
