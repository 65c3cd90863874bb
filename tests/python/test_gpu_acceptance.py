"""scripts/gpu_acceptance and its suites file (tests/gpu/suites.yaml), without a GPU: the file and its YAML
subset loader, --list and --dry-run, and the verdicts (PASS, FAIL, SKIP, exit code, summary.json) on small
suites files whose commands are shell built-ins and comparisons of HDF5 files made here."""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

from conftest import REPO

RUNNER = REPO / "scripts" / "gpu_acceptance"
SUITES = REPO / "tests" / "gpu" / "suites.yaml"


def load_runner():
    loader = importlib.machinery.SourceFileLoader("gpu_acceptance", str(RUNNER))
    spec = importlib.util.spec_from_loader("gpu_acceptance", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


ga = load_runner()


def acceptance(*args, expect=None):
    r = subprocess.run([sys.executable, str(RUNNER), *map(str, args)], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONUNBUFFERED="1"))
    if expect is not None:
        assert r.returncode == expect, f"exit {r.returncode}:\n{r.stdout}\n{r.stderr}"
    return r


def fields(path, velocity, **extra):
    with h5py.File(path, "w") as f:
        f["velocity"] = np.asarray(velocity, dtype=np.float64)
        f["density"] = np.ones((4, 4))
        for k, v in extra.items():
            f[k] = v
    return path


def summary(out):
    s = json.loads((out / "summary.json").read_text())
    return s, {c["name"]: c for c in s["checks"]}


# ------------------------------------------------------------------------------------------ the suites file
def test_the_suites_file_has_every_suite_with_commands_tolerances_and_a_budget():
    doc = ga.load_suites(SUITES, "subset")
    suites = doc["suites"]
    default = [n for n, s in suites.items() if s.get("default", True)]
    assert default == ["build", "unit", "cpu_vs_gpu", "mpi2", "bench", "scaling"]
    for name, s in suites.items():
        assert s["budget"] > 0 and s["description"], name
        assert any(c.get("run") for c in s["checks"]), name
        for c in s["checks"]:
            if "compare" in c or "scaling" in c:
                assert isinstance(c["tolerance"], (int, float)) and c["tolerance"] >= 0, (name, c["name"])
            if "bound" in c:
                assert "min" in c["bound"] or "max" in c["bound"], (name, c["name"])
    for name in ("cpu_vs_gpu", "mpi2", "scaling", "bench"):
        assert any("compare" in c or "scaling" in c or "bound" in c for c in suites[name]["checks"]), name
    assert suites["unit"]["checks"][0]["run"][0].startswith("ctest --test-dir {build} -L gpu")
    # GPU against CPU: FP64 to 1e-12, FP32 to 1e-5, the 16-bit storage looser, every check compares.
    tol = {c["name"]: c.get("tolerance") for c in suites["cpu_vs_gpu"]["checks"]}
    assert all(t is not None for t in tol.values())
    for n, t in tol.items():
        if n.endswith("_fp64"):
            assert t == 1e-12, n
        elif n.endswith("_fp32"):
            assert t == 1e-5, n
    assert {"cavity2d_fp16", "cavity3d_fp16", "cylinder2d_re20", "sphere3d_stl", "spectral_tgv3d_fp64"} <= set(tol)
    assert 1e-5 < tol["cavity3d_fp16"] < 0.1
    # Two GPUs, every transport, for the LBM (bitwise) and the spectral solver.
    mpi2 = suites["mpi2"]
    assert mpi2["gpus"] == 2 and mpi2["env"]["OMP_NUM_THREADS"] == "8"
    names = {c["name"]: c for c in mpi2["checks"]}
    for comm in ("mpi", "auto", "mpi-gpu", "nccl", "peer"):
        assert f"parallel.comm={comm}" in names[f"lbm_{comm}"]["run"][0]
        assert names[f"lbm_{comm}"]["tolerance"] == 0
        assert names[f"spectral_{comm}"]["tolerance"] == 1e-12
    assert [c["gpus"] for c in suites["scaling"]["checks"] if c["name"] == "bench_2gpu"] == [2]


def test_the_subset_loader_reads_the_suites_file_as_pyyaml_does():
    yaml = pytest.importorskip("yaml")
    text = SUITES.read_text()
    assert ga.load_yaml_subset(text, "suites.yaml") == yaml.safe_load(text)


def test_every_command_of_every_suite_expands(tmp_path):
    doc = ga.load_suites(SUITES)
    args = ga.parse_args(["--out", str(tmp_path / "o"), "--eddy", "/bin/true", "--eddy-cpu", "/bin/true",
                          "--dry-run", "--gpus", "2"])
    plan = ga.Runner(args, doc, list(doc["suites"])).plan()
    assert sum(len(c) for _, _, c in plan) > 50
    for _, _, checks in plan:
        for c, e in checks:
            for text in e["run"] + e.get("compare", []) + e.get("scaling", []):
                assert not ga._VAR.search(text), (c["name"], text)
    cmds = [x for _, _, checks in plan for _, e in checks for x in e["run"]]
    mpirun = f"mpirun --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS -n 2 {os.path.realpath('/bin/true')} run"
    assert any(mpirun in x for x in cmds)


SUBSET_DOC = """\
# a comment
top:
  count: 3            # trailing comment
  negative: -12
  ratio: 0.5
  tiny: 1.0e-12
  word: plain text with 'quotes' inside
  single: 'it''s # not a comment'
  double: "a \\"b\\" {c}\\n"
  flags: [true, false, null]
  empty: []
  mixed: [1, "two, three", 'four', 5.0]
list:
  - one
  - name: first
    value: 1
  -
    name: second
  - [a, b]
"""


def test_the_subset_loader_reads_its_constructs():
    doc = ga.load_yaml_subset(SUBSET_DOC)
    assert doc == {
        "top": {"count": 3, "negative": -12, "ratio": 0.5, "tiny": 1e-12, "word": "plain text with 'quotes' inside",
                "single": "it's # not a comment", "double": 'a "b" {c}\n', "flags": [True, False, None],
                "empty": [], "mixed": [1, "two, three", "four", 5.0]},
        "list": ["one", {"name": "first", "value": 1}, {"name": "second"}, ["a", "b"]]}
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(SUBSET_DOC) == doc


@pytest.mark.parametrize("text, message", [
    ("a: 1\na: 2\n", "duplicate key"),
    ("a:\n\tb: 1\n", "tabs"),
    ("a: &x 1\n", "not in the subset"),
    ("a: *x\n", "not in the subset"),
    ("a: !!str 1\n", "not in the subset"),
    ("a: |\n  text\n", "not in the subset"),
    ("a: {b: 1}\n", "not in the subset"),
    ("a: [1, [2]]\n", "nested inline lists"),
    ("a: yes\n", "boolean"),
    ("a: True\n", "boolean"),
    ("a: 1e-12\n", "number-like"),
    ("a: 010\n", "number-like"),
    ("a: 1:30\n", "number-like"),
    ("a: 2026-11-30\n", "number-like"),
    ("a: .inf\n", "number-like"),
    ("a:\n", "empty value"),
    ("a:\n- 1\n", "indent a list under its key"),
    ("a: 1\n  b: 2\n", "unexpected indentation"),
    ("a: b: c\n", "': ' in a plain scalar"),
    ('a: "open\n', "must end on its line"),
    ('a: "x" y\n', "unexpected text"),
    ('a: "\\q"\n', "escape"),
    ("a: [1, , 2]\n", "empty item"),
    ("---\na: 1\n", "document markers"),
    ("- a\nb: 1\n", "a key where a list item was expected"),
    ("a: {eddy} run\n", "not in the subset"),
    ("{eddy} run\n", "expected 'key: value'"),
])
def test_the_subset_loader_refuses_what_it_does_not_read(text, message):
    with pytest.raises(ga.SuitesError, match=message):
        ga.load_yaml_subset(text, "bad.yaml")


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("    budget: 600\n    checks:\n      - name: cavity2d_fp64",
                         "    checks:\n      - name: cavity2d_fp64"), "needs a budget"),
    (lambda s: s.replace("        tolerance: 1.0e-12\n", "        tolerance: 1e-12\n", 1), "needs a tolerance"),
    (lambda s: s.replace("        rows: \"0:1\"\n", "        rowz: \"0:1\"\n"), "unknown keys"),
    (lambda s: s.replace("--out {work}/cpu_{check}", "--out {wrok}/cpu_{check}", 1), "unknown variable"),
])
def test_a_broken_suites_file_is_refused(tmp_path, edit, message):
    bad = tmp_path / "suites.yaml"
    bad.write_text(edit(SUITES.read_text()))
    assert bad.read_text() != SUITES.read_text()
    r = acceptance("cpu_vs_gpu", "--suites", bad, "--dry-run", "--eddy", "/bin/true", "--eddy-cpu", "/bin/true",
                   expect=2)
    assert message in r.stderr


# ------------------------------------------------------------------------------------------ --list, --dry-run
def test_list_names_every_suite_with_its_budget():
    r = acceptance("--list", expect=0)
    for name in ("build", "unit", "cpu_vs_gpu", "mpi2", "bench", "scaling", "cases", "profile"):
        assert any(line.startswith(name + " ") for line in r.stdout.splitlines()), name
    line = next(x for x in r.stdout.splitlines() if x.startswith("mpi2 "))
    assert "budget  600 s" in line and "2 GPUs" in line
    assert "only when named" in next(x for x in r.stdout.splitlines() if x.startswith("cases "))


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path):
    out = tmp_path / "never"
    r = acceptance("cpu_vs_gpu", "--out", out, "--dry-run", expect=0)
    assert not out.exists()
    assert r.stdout.splitlines()[0] == "gpu_acceptance: build, cpu_vs_gpu; budget none"  # the build goes first
    assert "cmake --preset cuda -B" in r.stdout and f"{REPO}/build/gpu-cuda/eddy run" in r.stdout
    assert f"{REPO}/build/gpu-cpu/eddy run {REPO}/cases/lid_driven_cavity/cavity2d.yaml" in r.stdout
    assert f"compare {out}/work/cpu_vs_gpu/cpu_cavity2d_fp64/fields/*_00004000.h5" in r.stdout
    assert "tolerance 1e-12" in r.stdout and "tolerance 1e-05" in r.stdout
    given = acceptance("mpi2", "--dry-run", "--eddy", "/bin/true", "--budget", "300", expect=0)
    assert given.stdout.splitlines()[0] == "gpu_acceptance: mpi2; budget 300 s"  # binaries given: no build
    assert "(budget 600 s, 2 GPUs)" in given.stdout and "env OMP_NUM_THREADS=8" in given.stdout
    assert "SKIP when eddy says /parallel.comm: 'nccl' is not available/" in given.stdout
    one = acceptance("cases.sphere_D40", "bench.table", "--dry-run", "--eddy", "/bin/true", expect=0)
    checks = [line.split()[0] for line in one.stdout.splitlines() if line.startswith("  ") and not
              line.startswith("    ")]
    assert checks == ["table", "sphere_D40"]  # the suites in the file's order, only the checks named
    assert "--set \"domain.cells=[640,400,400]\"" in one.stdout


def test_bad_arguments():
    assert "unknown suite" in acceptance("nosuch", "--dry-run", expect=2).stderr
    assert "unknown suite or check bench.nosuch" in acceptance("bench.nosuch", "--dry-run", expect=2).stderr
    assert "--out DIR is required" in acceptance("bench", "--eddy", "/bin/true", expect=2).stderr
    assert "not an executable" in acceptance("bench", "--eddy", "/nonexistent", "--out", "/tmp/x", expect=2).stderr
    assert "goes with --eddy" in acceptance("bench", "--eddy-cpu", "/bin/true", "--dry-run", expect=2).stderr


# ------------------------------------------------------------------------------------------ verdicts
FAKE = """\
vars:
  h5: "{tmp}"
suites:
  first:
    description: commands, comparisons, bounds
    budget: 120
    env:
      FAKE_VALUE: "42"
    checks:
      - name: passes
        run:
          - "echo result $FAKE_VALUE $NCCL_NVLS_ENABLE $OMPI_ALLOW_RUN_AS_ROOT"
        report: 'result (\\d+)'
      - name: fails
        run:
          - "echo before"
          - "false"
          - "echo never"
      - name: equal_fields
        compare: ["{h5}/a.h5", "{h5}/a_copy.h5"]
        tolerance: 0.0
      - name: close_fields
        compare: ["{h5}/a.h5", "{h5}/b*.h5"]
        tolerance: 1.0e-8
      - name: fields_beyond_tolerance
        compare: ["{h5}/a.h5", "{h5}/b.h5"]
        tolerance: 1.0e-12
      - name: density_only
        compare: ["{h5}/a.h5", "{h5}/b.h5"]
        datasets: density
        tolerance: 0.0
      - name: no_such_file
        compare: ["{h5}/a.h5", "{h5}/missing_*.h5"]
        tolerance: 0.0
      - name: bound_holds
        run:
          - "echo '{{\\"fraction\\": 0.8}}' > {work}/r.json"
        bound:
          file: "{work}/r.json"
          key: fraction
          min: 0.7
      - name: bound_broken
        bound:
          file: "{work}/r.json"
          key: fraction
          max: 0.5
      - name: two_gpus
        gpus: 2
        run:
          - "false"
      - name: not_built_here
        run:
          - "echo \\"error: parallel.comm: 'nccl' is not available (not built)\\"; exit 2"
        unavailable: "'nccl' is not available"
      - name: own_timeout
        timeout: 1
        run:
          - "sleep 20"
  second:
    description: a suite after a failing one still runs
    budget: 60
    checks:
      - name: passes_too
        run:
          - "true"
"""


@pytest.fixture
def fake_suites(tmp_path):
    fields(tmp_path / "a.h5", np.ones((4, 4, 2)))
    fields(tmp_path / "a_copy.h5", np.ones((4, 4, 2)))
    fields(tmp_path / "b.h5", np.ones((4, 4, 2)) + 1e-9)  # velocity 1e-9 apart, density equal
    path = tmp_path / "suites.yaml"
    path.write_text(FAKE.replace("{tmp}", str(tmp_path)).replace("{{", "{").replace("}}", "}"))
    return path


def test_verdicts_exit_code_and_summary(tmp_path, fake_suites):
    out = tmp_path / "out"
    r = acceptance("--suites", fake_suites, "--out", out, "--gpus", "1", expect=1)
    s, c = summary(out)
    status = {n: x["status"] for n, x in c.items()}
    assert status == {"passes": "PASS", "fails": "FAIL", "equal_fields": "PASS", "close_fields": "PASS",
                      "fields_beyond_tolerance": "FAIL", "density_only": "PASS", "no_such_file": "FAIL",
                      "bound_holds": "PASS", "bound_broken": "FAIL", "two_gpus": "SKIP", "not_built_here": "SKIP",
                      "own_timeout": "FAIL", "passes_too": "PASS"}
    assert s["status"] == "FAIL" and s["finished"] and s["counts"] == {"PASS": 6, "FAIL": 5, "SKIP": 2}
    assert s["suites"] == ["first", "second"] and s["gpus_visible"] == 1
    assert c["passes"]["value"] == "42"  # the report's group, from the log
    log = (out / c["passes"]["log"]).read_text()
    assert "result 42 0 1" in log  # suite env; NVLink multicast off and OpenMPI as root for every child
    assert "never" not in (out / c["fails"]["log"]).read_text() and c["fails"]["reason"].startswith("exit 1")
    beyond = c["fields_beyond_tolerance"]
    assert beyond["tolerance"] == 1e-12 and 0.9e-9 < beyond["value"] < 1.1e-9
    assert "1e-09 > tolerance 1e-12" in beyond["reason"]
    assert "velocity: max |a-b|/max|a| = 1.000e-09 (FAIL, tol 1e-12)" in (out / beyond["log"]).read_text()
    assert c["density_only"]["value"] == 0.0 and c["equal_fields"]["value"] == 0.0
    assert c["no_such_file"]["reason"].startswith("0 files match")
    assert c["bound_holds"]["value"] == 0.8 and c["bound_holds"]["tolerance"] == ">= 0.7"
    assert "fraction 0.8 not <= 0.5" in c["bound_broken"]["reason"]
    assert c["two_gpus"]["reason"] == "needs 2 GPUs, 1 visible" and c["two_gpus"]["log"] is None
    assert "not in this build" in c["not_built_here"]["reason"]
    assert c["own_timeout"]["reason"] == "timed out after 1 s" and c["own_timeout"]["seconds"] < 15
    assert not (out / "work").exists()  # removed after the suites
    # the table and the failing check's log tail
    assert "fields_beyond_tolerance  FAIL" in r.stdout and "    | velocity: max |a-b|/max|a| = 1.000e-09" in r.stdout
    assert "6 passed, 5 failed, 2 skipped" in r.stdout


def test_all_passing_exits_zero_and_a_second_gpu_missing_is_no_failure(tmp_path, fake_suites):
    text = fake_suites.read_text()
    keep = text.split("      - name: fails\n")[0] + "      - name: two_gpus" + text.split("      - name: two_gpus")[1]
    keep = keep.replace(keep[keep.index("      - name: not_built_here"):keep.index("  second:")], "")
    fake_suites.write_text(keep)
    r = acceptance("--suites", fake_suites, "--out", tmp_path / "out", "--gpus", "1", "--keep-work", expect=0)
    s, c = summary(tmp_path / "out")
    assert s["status"] == "PASS" and set(c) == {"passes", "two_gpus", "passes_too"}
    assert c["two_gpus"]["status"] == "SKIP" and "2 passed, 0 failed, 1 skipped" in r.stdout
    assert (tmp_path / "out" / "work" / "first").is_dir()  # --keep-work
    two = acceptance("--suites", fake_suites, "--out", tmp_path / "out2", "--gpus", "2", expect=1)
    assert "[first] two_gpus: FAIL" in two.stdout


def test_a_budget_of_zero_skips_every_check(tmp_path, fake_suites):
    r = acceptance("--suites", fake_suites, "--out", tmp_path / "out", "--budget", "0", expect=0)
    s, c = summary(tmp_path / "out")
    assert set(x["status"] for x in c.values()) == {"SKIP"} and len(c) == 13
    assert all(x["reason"].startswith("budget: 0 s left of the total budget") for x in c.values())
    assert s["budget"] == 0 and s["status"] == "PASS" and "0 passed, 0 failed, 13 skipped" in r.stdout


def test_a_check_stopped_by_the_budget_is_skipped(tmp_path):
    path = tmp_path / "suites.yaml"
    path.write_text("suites:\n  slow:\n    description: one long check\n    budget: 100\n    checks:\n"
                    "      - name: long\n        timeout: 60\n        run:\n          - \"sleep 30\"\n"
                    "      - name: after\n        run:\n          - \"true\"\n")
    acceptance("--suites", path, "--out", tmp_path / "out", "--budget", "11", expect=0)
    _, c = summary(tmp_path / "out")
    assert c["long"]["status"] == "SKIP" and c["long"]["reason"] == "budget: ran out while it ran"
    assert 10 <= c["long"]["seconds"] < 20
    assert c["after"]["status"] == "SKIP" and c["after"]["reason"].startswith("budget")


BUILDS = """\
suites:
  build:
    description: a build that fails
    budget: 60
    needs: [builds]
    checks:
      - name: gpu
        provides: [eddy, build_tree]
        run:
          - "{fail}"
  use:
    description: uses what the build makes
    budget: 60
    checks:
      - name: run_eddy
        run:
          - "{eddy} --version"
      - name: run_cpu_eddy
        run:
          - "{eddy_cpu} --version"
      - name: ctest
        needs: [build_tree]
        run:
          - "true"
"""


def test_what_the_build_makes_is_needed(tmp_path):
    path = tmp_path / "suites.yaml"
    path.write_text(BUILDS.replace("{fail}", "false"))
    r = acceptance("use", "--suites", path, "--out", tmp_path / "o1", "--build-dir", tmp_path / "b", expect=1)
    assert r.stdout.startswith("gpu_acceptance: build, use on")  # the build goes first, unasked
    _, c = summary(tmp_path / "o1")
    assert c["gpu"]["status"] == "FAIL" and c["run_eddy"]["status"] == "FAIL" and c["ctest"]["status"] == "FAIL"
    assert c["run_eddy"]["reason"] == "needs eddy: build.gpu failed"
    assert c["run_cpu_eddy"]["reason"] == f"needs eddy_cpu: {tmp_path}/b/gpu-cpu/eddy is not an executable"
    # binaries given: no build (SKIP), the given ones run; a CPU eddy is needed for what uses one
    r = acceptance("build", "use", "--suites", path, "--out", tmp_path / "o2", "--build-dir", tmp_path / "b",
                   "--eddy", "/bin/echo", expect=1)
    _, c = summary(tmp_path / "o2")
    assert c["gpu"]["status"] == "SKIP" and c["gpu"]["reason"] == "binaries given (--eddy)"
    assert c["run_eddy"]["status"] == "PASS"
    assert c["run_cpu_eddy"]["reason"] == "needs a CPU eddy: pass --eddy-cpu PATH"
    assert c["ctest"]["reason"].startswith("needs a build tree: no ")
    # a build cut by the budget: what needs it is skipped too
    path.write_text(BUILDS.replace("{fail}", "sleep 30"))
    acceptance("use", "--suites", path, "--out", tmp_path / "o3", "--build-dir", tmp_path / "b", "--budget", "11",
               expect=0)
    _, c = summary(tmp_path / "o3")
    assert [x["status"] for x in c.values()] == ["SKIP"] * 4


def test_gpu_against_cpu_with_this_builds_eddy(eddy, tmp_path):
    """A real comparison: the shipped cavity through eddy twice (this build standing in for both backends)."""
    path = tmp_path / "suites.yaml"
    cmd = ('{eddy} run {root}/cases/lid_driven_cavity/cavity2d.yaml --quiet --set run.end_time=0 --set run.steps=50 '
           '--set output.fields.every=0 --set "domain.cells=[16,16]" --out {work}/X')
    path.write_text("suites:\n  pair:\n    description: eddy twice\n    budget: 120\n    checks:\n"
                    "      - name: same\n        run:\n"
                    f"          - '{cmd.replace('X', 'gpu')}'\n"
                    f"          - '{cmd.replace('{eddy}', '{eddy_cpu}').replace('X', 'cpu')}'\n"
                    '        compare: ["{work}/cpu/fields/*_00000050.h5", "{work}/gpu/fields/*_00000050.h5"]\n'
                    "        datasets: velocity\n        tolerance: 0.0\n")
    acceptance("--suites", path, "--out", tmp_path / "out", "--eddy", eddy, "--eddy-cpu", eddy, expect=0)
    _, c = summary(tmp_path / "out")
    assert c["same"]["status"] == "PASS" and c["same"]["value"] == 0.0
