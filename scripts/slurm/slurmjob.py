"""What scripts/submit and scripts/sweep share: resource options, filling in the job templates
(cpu.sbatch, gpu.sbatch), checking the config with `eddy validate`, and calling sbatch.

Standard library only: it runs with any python3 on a login node.
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

SLURM_DIR = Path(__file__).resolve().parent
REPO_ROOT = SLURM_DIR.parents[1]
PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")


class SubmitError(Exception):
    """A user-facing error (bad option, missing file, sbatch failure)."""


def add_resource_options(p):
    """Options for the job's resources and the eddy command line (shared by submit and sweep)."""
    p.add_argument("config", help="eddy config (YAML)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="config override passed to eddy (repeatable)")
    g = p.add_argument_group("resources")
    g.add_argument("--kind", choices=("cpu", "gpu"),
                   help="node kind and template (default: gpu when --gpus-per-node is given, else cpu)")
    g.add_argument("--nodes", type=int, default=1, help="nodes (default %(default)s)")
    g.add_argument("--tasks-per-node", type=int, default=1,
                   help="CPU nodes: MPI ranks per node (default %(default)s)")
    g.add_argument("--gpus-per-node", type=int,
                   help="GPU nodes: GPUs per node = MPI ranks per node (one rank per GPU)")
    g.add_argument("--cpus-per-task", type=int, help="cores per rank (OpenMP threads; default: the site's)")
    g.add_argument("--time", default="01:00:00", help="time limit per job (default %(default)s)")
    g.add_argument("--account", help="account to charge")
    g.add_argument("--partition", help="partition")
    g.add_argument("--qos", help="quality of service")
    g.add_argument("--job-name", help="job name (default: the config's name)")
    g.add_argument("--sbatch-opt", action="append", default=[], metavar="OPT",
                   help="extra sbatch option written as an #SBATCH line, e.g. --sbatch-opt=--exclusive")
    g.add_argument("--srun-opt", action="append", default=[], metavar="OPT", help="extra srun option")
    g.add_argument("--mpi", default="pmix", help="srun --mpi plugin (default %(default)s)")
    e = p.add_argument_group("eddy")
    e.add_argument("--eddy", help="eddy executable (default build/cpu/eddy or build/cuda/eddy in this repository)")
    e.add_argument("--no-validate", action="store_true", help="skip `eddy validate` before submitting")
    e.add_argument("--dry-run", action="store_true", help="print the job script(s) instead of submitting")


def kind_of(args):
    """cpu or gpu, from --kind or --gpus-per-node."""
    kind = args.kind or ("gpu" if args.gpus_per_node else "cpu")
    if kind == "gpu" and not args.gpus_per_node:
        args.gpus_per_node = 1
    return kind


def tasks_per_node(args, kind):
    """MPI ranks per node: one per GPU on GPU nodes."""
    return args.gpus_per_node if kind == "gpu" else args.tasks_per_node


def eddy_binary(args, kind):
    """Absolute path of the eddy executable the job runs."""
    if args.eddy:
        return str(Path(args.eddy).resolve())
    return str(REPO_ROOT / "build" / ("cuda" if kind == "gpu" else "cpu") / "eddy")


def config_name(config, sets):
    """The run name: the last --set name=..., else the config's top-level `name:`, else its file stem."""
    for s in reversed(sets):
        key, _, value = s.partition("=")
        if key.strip() == "name":
            return value.strip().strip("\"'")
    try:
        for line in Path(config).read_text().splitlines():
            m = re.match(r"name:\s*([^#\s]+)", line)
            if m:
                return m.group(1).strip("\"'")
    except OSError as e:
        raise SubmitError(f"{config}: cannot read ({e.strerror})") from None
    return Path(config).stem


def eddy_args(config, sets):
    """CONFIG --set a=b ... as a list of words."""
    words = [str(Path(config).resolve())]
    for s in sets:
        if "=" not in s:
            raise SubmitError(f"--set {s}: expected KEY=VALUE")
        words += ["--set", s]
    return words


def validate(eddy, args_words):
    """Run `eddy validate` on the config and overrides: bad input fails here, not in the queue.

    Exit 2 (bad config) is an error; other failures (e.g. a GPU build on a login node without a GPU)
    only warn, since the compute node may be able to run it. Returns whether the config was checked.
    """
    if not os.access(eddy, os.X_OK):
        print(f"warning: {eddy} is not an executable here; the config is not validated before submitting",
              file=sys.stderr)
        return False
    r = subprocess.run([eddy, "validate", *args_words], capture_output=True, text=True)
    if r.returncode == 2:
        raise SubmitError("the config does not validate:\n" + (r.stderr or r.stdout).strip())
    if r.returncode != 0:
        print(f"warning: `eddy validate` exited {r.returncode} here, the config is not validated: "
              f"{(r.stderr or r.stdout).strip()}", file=sys.stderr)
        return False
    return True


def render(template, values):
    """Fill in {{NAME}} fields. On #SBATCH lines values are written as they are and a line whose field
    is empty is dropped (a list makes one line per item); elsewhere values are shell-quoted (a list
    becomes quoted words separated by spaces)."""
    out = []
    for line in Path(template).read_text().splitlines():
        names = PLACEHOLDER.findall(line)
        if not names:
            out.append(line)
            continue
        for n in names:
            if n not in values:
                raise SubmitError(f"{template}: no value for {{{{{n}}}}}")
        if line.startswith("#SBATCH"):
            items = [values[n] for n in names]
            if any(v is None or v == "" or v == [] for v in items):
                continue
            lists = [v for v in items if isinstance(v, list)]
            for k in range(len(lists[0]) if lists else 1):
                text = PLACEHOLDER.sub(lambda m: str(values[m.group(1)][k] if isinstance(values[m.group(1)], list)
                                                     else values[m.group(1)]), line)
                if re.search(r"\s", text[len("#SBATCH "):].strip()):
                    raise SubmitError(f"#SBATCH values cannot contain spaces: {text!r}")
                out.append(text)
        else:
            def shell(m):
                v = values[m.group(1)]
                if isinstance(v, list):
                    return " ".join(shlex.quote(str(w)) for w in v)
                return shlex.quote("" if v is None else str(v))

            out.append(re.sub(r" +\)$", ")", PLACEHOLDER.sub(shell, line)))
    return "\n".join(out) + "\n"


def template_values(args, kind, *, job_name, eddy, out, job_script, log, words, array=None, sweep_table=None,
                    restart=None, max_segments=20, signal_s=120):
    """The fields of cpu.sbatch / gpu.sbatch."""
    return {
        "JOB_NAME": job_name,
        "NODES": args.nodes,
        "TASKS_PER_NODE": tasks_per_node(args, kind),
        "CPUS_PER_TASK": args.cpus_per_task,
        "TIME": args.time,
        "SIGNAL_S": signal_s or None,
        "ACCOUNT": args.account,
        "PARTITION": args.partition,
        "QOS": args.qos,
        "ARRAY": array,
        "WORKDIR": os.getcwd(),
        "LOG": log,
        "SBATCH_EXTRA": list(args.sbatch_opt),
        "EDDY_ROOT": str(REPO_ROOT),
        "EDDY_BIN": eddy,
        "EDDY_OUT": out,
        "JOB_SCRIPT": job_script,
        "MAX_SEGMENTS": max_segments,
        "RESTART": restart or "",
        "SWEEP_TABLE": sweep_table or "",
        "EDDY_ARGS": words,
        "MPI": args.mpi,
        "SRUN_EXTRA": list(args.srun_opt),
    }


def time_limit_seconds(text):
    """Slurm's --time formats (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S) in seconds; None if not understood."""
    m = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", text.strip())
    if not m:
        return None
    d, a, b, c = (int(x) if x else None for x in m.groups())
    if d is not None:  # D-H[:M[:S]]
        return ((d * 24 + a) * 60 + (b or 0)) * 60 + (c or 0)
    if c is not None:  # H:M:S
        return (a * 60 + b) * 60 + c
    return a * 60 + (b or 0)  # M or M:S


def check_signal_margin(time, margin):
    """slurmctld sends the USR1 warning at its first 30-s tick once less than margin + 30 s are left (seen
    with Slurm 22.05: 11 s and 30 s into 1-minute jobs with margin 40, 52-58 s into 2-minute ones), so it
    can come limit - margin - 30 s after the start. Warn when that is under 15 s: the signal could reach the
    job before eddy runs, and the job would then run into its limit and end the chain."""
    limit = time_limit_seconds(time)
    if margin and limit is not None and limit - margin - 30 < 15:
        print(f"warning: --time {time} with --signal-margin {margin}: Slurm may signal the job as it starts, "
              "before eddy can checkpoint; use a longer limit or a smaller margin", file=sys.stderr)


def sbatch(script, *extra):
    """Submit a job script; returns the job id."""
    try:
        r = subprocess.run(["sbatch", "--parsable", *extra, str(script)], capture_output=True, text=True)
    except FileNotFoundError:
        raise SubmitError("sbatch not found: is Slurm installed here (or use --dry-run)?") from None
    if r.returncode != 0:
        raise SubmitError(f"sbatch {script} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout.strip().split(";")[0]


def write_script(path, text):
    """Write a job script (executable)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def main_wrapper(main):
    """Run main(), turning SubmitError into a message and exit code 2."""
    try:
        sys.exit(main())
    except SubmitError as e:
        print(f"{Path(sys.argv[0]).name}: error: {e}", file=sys.stderr)
        sys.exit(2)
