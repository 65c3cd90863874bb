"""Shared helpers of eddy_post: the resolved-config reader, field files, run directories, CSV output.

Only the standard library is imported here, so `summary` (and the Slurm sweep collector that calls it)
runs with any python3; numpy, h5py and matplotlib are imported by the subcommands that need them.
"""
import csv
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
    """A CSV with a header (lines starting with # skipped) as {column: [floats or strings]}."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(line for line in f if not line.lstrip().startswith("#")) if r]
    if not rows:
        raise PostError(f"{path}: empty")
    header = [h.strip() for h in rows[0]]
    cols = {h: [] for h in header}
    for r in rows[1:]:
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


def report(*paths):
    """Print the files a subcommand wrote, one per line (scripts parse these)."""
    for p in paths:
        print(f"wrote {p}")


def warn(message):
    print(f"eddy_post: warning: {message}", file=sys.stderr)
