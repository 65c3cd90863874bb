"""scripts/submit, scripts/sweep and the job templates without a Slurm: the scripts they write, and the
restart-chain logic of scripts/slurm/eddy_job.sh run against stand-ins for srun, sbatch and eddy.
(tests/slurm runs them under a real Slurm.)"""
import os
import stat
import subprocess
import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "scripts" / "slurm"))

import slurmjob  # noqa: E402

CAVITY = str(REPO / "cases" / "lid_driven_cavity" / "cavity2d.yaml")


def tool(name, *args, expect=0):
    r = subprocess.run([sys.executable, str(REPO / "scripts" / name), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == expect, f"{name} {' '.join(map(str, args))} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    return r


def bash_syntax_ok(text, tmp_path):
    script = tmp_path / "check.sh"
    script.write_text(text)
    return subprocess.run(["bash", "-n", str(script)]).returncode == 0


# ------------------------------------------------------------------------------------------ submit
def test_submit_dry_run_cpu(eddy, tmp_path):
    r = tool("submit", CAVITY, "--set", "domain.cells=[32,32]", "--set", "physics.reynolds=100",
             "--tasks-per-node", "2", "--cpus-per-task", "4", "--time", "00:10:00", "--account", "proj",
             "--eddy", eddy, "--out", tmp_path / "run", "--dry-run")
    s = r.stdout
    for line in ("#SBATCH --nodes=1", "#SBATCH --ntasks-per-node=2", "#SBATCH --cpus-per-task=4",
                 "#SBATCH --time=00:10:00", "#SBATCH --signal=USR1@120", "#SBATCH --account=proj",
                 f"#SBATCH --output={tmp_path}/run/slurm/slurm-%j.out", f"EDDY_OUT={tmp_path}/run",
                 f"EDDY_JOB_SCRIPT={tmp_path}/run/slurm/job.sbatch",
                 f"eddy_args=({CAVITY} --set 'domain.cells=[32,32]' --set physics.reynolds=100)",
                 "launch=(srun --mpi=pmix --cpu-bind=cores)"):
        assert line in s.splitlines(), (line, s)
    assert "--partition" not in s and "--qos" not in s and "--array" not in s and "{{" not in s
    assert bash_syntax_ok(s, tmp_path)
    assert not (tmp_path / "run").exists()  # a dry run writes nothing


def test_submit_dry_run_gpu(eddy, tmp_path):
    s = tool("submit", CAVITY, "--gpus-per-node", "4", "--nodes", "2", "--partition", "gpu", "--qos", "high",
             "--sbatch-opt=--exclusive", "--srun-opt=--gpu-bind=single:1", "--signal-margin", "0",
             "--eddy", eddy, "--out", tmp_path / "g", "--dry-run").stdout.splitlines()
    for line in ("#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=4", "#SBATCH --gpus-per-task=1",
                 "#SBATCH --partition=gpu", "#SBATCH --qos=high", "#SBATCH --exclusive",
                 "launch=(srun --mpi=pmix --cpu-bind=cores --gpu-bind=none --gpu-bind=single:1)"):
        assert line in s, (line, s)
    assert not any(line.startswith("#SBATCH --signal") for line in s)
    default = tool("submit", CAVITY, "--gpus-per-node", "1", "--no-validate", "--dry-run").stdout
    assert f"EDDY_BIN={REPO}/build/cuda/eddy" in default


def test_submit_refuses_a_bad_config(eddy):
    r = tool("submit", CAVITY, "--set", "numerics.precison=fp32", "--eddy", eddy, "--dry-run", expect=2)
    assert "did you mean 'precision'" in r.stderr


def test_render_drops_empty_sbatch_lines(tmp_path):
    t = tmp_path / "t.sbatch"
    t.write_text("#SBATCH --a={{A}}\n#SBATCH --b={{B}}\n#SBATCH {{L}}\nx={{A}}\ny=({{W}})\n")
    with pytest.raises(slurmjob.SubmitError, match="spaces"):
        slurmjob.render(t, {"A": "1 2", "B": "", "L": [], "W": []})
    out = slurmjob.render(t, {"A": "1", "B": "", "L": ["--p", "--q"], "W": ["a b", "c"]}).splitlines()
    assert out == ["#SBATCH --a=1", "#SBATCH --p", "#SBATCH --q", "x=1", "y=('a b' c)"]


# ------------------------------------------------------------------------------------------ sweep
def test_sweep_dry_run_grid_and_zip(eddy, tmp_path):
    s = tool("sweep", CAVITY, "--set", "run.end_time=5", "--vary", "physics.reynolds=100,400",
             "--vary", "domain.cells=[32,32],[48,48]", "--max-parallel", "2", "--eddy", eddy,
             "--out", tmp_path / "sw", "--dry-run").stdout
    lines = s.splitlines()
    assert lines[0] == "# keys: physics.reynolds,domain.cells"
    tasks = [line.split("\t") for line in lines if line[:1].isdigit()]
    assert [t[1] for t in tasks] == [f"{tmp_path}/sw/{n}" for n in (
        "000_reynolds100_cells32x32", "001_reynolds100_cells48x48", "002_reynolds400_cells32x32",
        "003_reynolds400_cells48x48")]
    assert tasks[3][2:] == ["--set", "physics.reynolds=400", "--set", "domain.cells=[48,48]"]
    assert "#SBATCH --array=0-3%2" in lines and f"EDDY_SWEEP_TABLE={tmp_path}/sw/sweep.tsv" in lines
    assert f"#SBATCH --output={tmp_path}/sw/slurm/slurm-%A_%a.out" in lines
    assert "#SBATCH --job-name=cavity2d-summary" in lines
    zipped = tool("sweep", CAVITY, "--zip", "--vary", "physics.reynolds=100,400", "--vary",
                  "domain.cells=[32,32],[48,48]", "--eddy", eddy, "--dry-run").stdout
    assert len([line for line in zipped.splitlines() if line[:1].isdigit()]) == 2
    assert "EDDY_RESTART=''" in lines
    again = tool("sweep", CAVITY, "--vary", "physics.reynolds=100,400", "--overwrite", "--eddy", eddy,
                 "--out", tmp_path / "sw", "--dry-run").stdout
    assert "EDDY_RESTART=overwrite" in again.splitlines()
    r = tool("sweep", CAVITY, "--zip", "--vary", "physics.reynolds=100,400", "--vary", "domain.cells=[32,32]",
             "--eddy", eddy, "--dry-run", expect=2)
    assert "same number of values" in r.stderr


def test_sweep_collect(cavity_run, tmp_path):
    """--collect writes summary.csv from sweep.tsv (a missing task is listed, not fatal)."""
    sweep = tmp_path / "sw"
    sweep.mkdir()
    (sweep / "sweep.tsv").write_text("# keys: physics.reynolds\n# task\tdir\topts\n"
                                     f"0\t{cavity_run}\t--set\tphysics.reynolds=100\n"
                                     f"1\t{sweep}/001_missing\t--set\tphysics.reynolds=400\n")
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "sweep"), "--collect", str(sweep)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = (sweep / "summary.csv").read_text().splitlines()
    assert text[0].startswith("name,physics.reynolds,ranks,steps")
    assert text[1].startswith("cavity,100.0,1,7000,") and "steady state reached" in text[1]
    assert text[2].startswith("001_missing,") and "no output" in text[2]


# ------------------------------------------------------------------------------------------ restart chain
FAKE_EDDY = """#!/bin/bash
# Stand-in for eddy: records its arguments, optionally writes checkpoints/latest, exits with $FAKE_RC.
echo "$@" >>"$FAKE_LOG"
[[ $1 == validate ]] && exit 0
while (($#)); do [[ $1 == --out ]] && out=$2; shift; done
if [[ -n ${FAKE_CKPT:-} ]]; then mkdir -p "$out/checkpoints"; echo "$FAKE_CKPT" >"$out/checkpoints/latest"; fi
[[ -n ${FAKE_TERM:-} ]] && kill -TERM $PPID  # the job script (srun execs this)
exit "${FAKE_RC:-0}"
"""
FAKE_SRUN = """#!/bin/bash
while [[ $1 == -* ]]; do shift; done
exec "$@"
"""
FAKE_SBATCH = """#!/bin/bash
echo "$@" >>"$FAKE_SBATCH_LOG"
echo "4242;cluster"
"""


@pytest.fixture
def chain(tmp_path):
    """A job script from `submit --dry-run`, with fake eddy/srun/sbatch/scontrol; run(segment, rc, ckpt)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("eddy", FAKE_EDDY), ("srun", FAKE_SRUN), ("sbatch", FAKE_SBATCH), ("scontrol", "#!/bin/sh\n")):
        p = bin_dir / name
        p.write_text(text)
        p.chmod(p.stat().st_mode | stat.S_IEXEC)
    out = tmp_path / "run"
    script = tmp_path / "job.sbatch"
    script.write_text(tool("submit", CAVITY, "--eddy", bin_dir / "eddy", "--out", out, "--max-segments", "3",
                           "--dry-run").stdout)
    logs = {"eddy": tmp_path / "eddy.log", "sbatch": tmp_path / "sbatch.log"}

    def run(segment, rc, ckpt="", term=False):
        for log in logs.values():
            log.write_text("")
        env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", SLURM_JOB_ID="17", FAKE_RC=str(rc),
                   FAKE_CKPT=ckpt, FAKE_LOG=str(logs["eddy"]), FAKE_SBATCH_LOG=str(logs["sbatch"]),
                   FAKE_TERM="1" if term else "")
        r = subprocess.run(["bash", str(script), str(segment)], capture_output=True, text=True, env=env)
        return r.returncode, r.stdout, logs["eddy"].read_text(), logs["sbatch"].read_text()

    run.out = out
    return run


def test_chain_finished_run_is_not_resubmitted(chain):
    rc, log, eddy_args, sbatch_args = chain(0, 0)
    assert rc == 0 and sbatch_args == "" and (chain.out / "slurm" / "finished").exists()
    assert "--restart" not in eddy_args and "run finished" in log
    assert (chain.out / "slurm" / "jobid").read_text().strip() == "17"
    rc, log, eddy_args, sbatch_args = chain(1, 75, "ckpt_00000100.h5")  # a later segment of a finished run
    assert rc == 0 and eddy_args == "" and sbatch_args == "" and "already finished" in log


def test_chain_resubmits_after_exit_75_with_a_new_checkpoint(chain):
    rc, log, eddy_args, sbatch_args = chain(0, 75, "ckpt_00000100.h5")
    assert rc == 0, log
    assert sbatch_args.split() == ["--parsable", str(chain.out / "slurm" / "job.sbatch"), "1"]
    assert (chain.out / "slurm" / "jobid").read_text().strip() == "4242"
    assert (chain.out / "slurm" / "chain").read_text().split() == ["0", "17", "ckpt_00000100.h5"]
    rc, log, eddy_args, sbatch_args = chain(1, 75, "ckpt_00000200.h5")
    assert rc == 0 and eddy_args.rstrip().endswith("--restart auto") and sbatch_args.split()[-1] == "2"


def test_chain_stops_without_progress_or_checkpoint_or_at_the_limit(chain):
    rc, log, _, sbatch_args = chain(0, 75)  # exit 75 but no checkpoint
    assert rc == 75 and sbatch_args == "" and "missing" in log
    chain(0, 75, "ckpt_00000100.h5")
    # The checkpoint did not advance (eddy stopped during the set-up, before its first step): once more.
    rc, log, _, sbatch_args = chain(1, 75, "ckpt_00000100.h5")
    assert rc == 0 and sbatch_args.split()[-1] == "2" and "no progress" in log and "resubmitting once" in log
    rc, log, _, sbatch_args = chain(2, 75, "ckpt_00000100.h5")  # and again: the chain ends
    assert rc == 75 and sbatch_args == "" and "twice in a row" in log
    rc, log, _, sbatch_args = chain(2, 75, "ckpt_00000300.h5")  # --max-segments 3
    assert rc == 75 and sbatch_args == "" and "EDDY_MAX_SEGMENTS=3" in log


def test_chain_progress_is_the_checkpoint_step_as_a_number(chain):
    """Past step 99,999,999 the checkpoint names grow a digit: progress compares steps, never names."""
    chain(0, 75, "ckpt_99999999.h5")
    rc, log, _, sbatch_args = chain(1, 75, "ckpt_100000099.h5")
    assert rc == 0 and sbatch_args.split()[-1] == "2", log
    rc, log, _, sbatch_args = chain(2, 75, "ckpt_99999999.h5")  # went back: no progress
    assert rc == 75 and sbatch_args == "" and "no progress" in log


def test_submit_overwrite_starts_the_first_job_afresh(tmp_path):
    text = tool("submit", CAVITY, "--no-validate", "--out", tmp_path / "o", "--overwrite", "--dry-run").stdout
    assert "EDDY_RESTART=overwrite" in text
    r = tool("submit", CAVITY, "--no-validate", "--overwrite", "--restart", "auto", "--dry-run", expect=2)
    assert "not allowed with" in r.stderr


def test_chain_stops_on_sigterm(chain):
    """scancel or a time limit without the USR1 warning: eddy checkpoints (75) but the chain stops, saying how
    to continue."""
    rc, log, _, sbatch_args = chain(0, 75, "ckpt_00000100.h5", term=True)
    assert rc == 75 and sbatch_args == "" and "SIGTERM" in log and "job.sbatch 1" in log


def test_submit_warns_about_a_short_limit(eddy):
    r = tool("submit", CAVITY, "--time", "1", "--signal-margin", "40", "--eddy", eddy, "--dry-run")
    assert "may signal the job as it starts" in r.stderr
    r = tool("submit", CAVITY, "--time", "00:01:00", "--signal-margin", "10", "--eddy", eddy, "--dry-run")
    assert "warning" not in r.stderr
    assert slurmjob.time_limit_seconds("1-02:03:04") == 93784 and slurmjob.time_limit_seconds("90") == 5400


def test_chain_passes_failures_through(chain):
    rc, log, _, sbatch_args = chain(0, 3)
    assert rc == 3 and sbatch_args == "" and "exit code 3" in log
    assert not (chain.out / "slurm" / "finished").exists()


def test_sweep_array_task_and_summary_job(tmp_path):
    """scripts/sweep with a fake sbatch writes the array and summary scripts; task 1 of the array runs its
    own options in its own directory and, stopped early, resubmits only itself; the summary job collects."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("eddy", FAKE_EDDY), ("srun", FAKE_SRUN), ("sbatch", FAKE_SBATCH), ("scontrol", "#!/bin/sh\n"),
                       ("squeue", "#!/bin/sh\n")):
        p = bin_dir / name
        p.write_text(text)
        p.chmod(p.stat().st_mode | stat.S_IEXEC)
    logs = {"FAKE_LOG": tmp_path / "eddy.log", "FAKE_SBATCH_LOG": tmp_path / "sbatch.log"}
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", **{k: str(v) for k, v in logs.items()})
    sweep = tmp_path / "sw"
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "sweep"), CAVITY, "--set", "run.end_time=5",
                        "--vary", "physics.reynolds=100,400", "--eddy", str(bin_dir / "eddy"), "--out", str(sweep)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["4242", "4242"]
    submitted = logs["FAKE_SBATCH_LOG"].read_text().splitlines()
    assert submitted == [f"--parsable {sweep}/slurm/array.sbatch",
                         f"--parsable --dependency=afterany:4242 {sweep}/slurm/summary.sbatch"]

    for log in logs.values():
        log.write_text("")
    task_env = dict(env, SLURM_JOB_ID="31", SLURM_ARRAY_TASK_ID="1", FAKE_RC="75", FAKE_CKPT="ckpt_00000500.h5")
    r = subprocess.run(["bash", str(sweep / "slurm" / "array.sbatch")], capture_output=True, text=True, env=task_env)
    assert r.returncode == 0, r.stdout + r.stderr
    task = sweep / "001_reynolds400"
    assert logs["FAKE_LOG"].read_text().split() == [
        "run", CAVITY, "--set", "run.end_time=5", "--set", "physics.reynolds=400", "--out", str(task)]
    assert logs["FAKE_SBATCH_LOG"].read_text().split() == ["--parsable", "--array=1", f"{sweep}/slurm/array.sbatch", "1"]
    assert (task / "slurm" / "jobid").read_text().strip() == "4242"

    # The summary job: nothing queued (fake squeue), so it collects; neither task has a run.log.
    r = subprocess.run(["bash", str(sweep / "slurm" / "summary.sbatch")], capture_output=True, text=True,
                       env=dict(env, SLURM_JOB_ID="99"))
    assert r.returncode == 0, r.stdout + r.stderr
    lines = (sweep / "summary.csv").read_text().splitlines()
    assert lines[0].startswith("name,physics.reynolds,") and len(lines) == 3
    assert lines[1].startswith("000_reynolds100,") and lines[2].startswith("001_reynolds400,")
