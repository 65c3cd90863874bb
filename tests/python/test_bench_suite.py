"""scripts/bench_suite.sh against a stand-in for eddy (and for the MPI launcher): every config of a suite
gets its JSON and log, a failing config is recorded with its exit code and error while the suite goes on,
--set/--steps/--repeat reach `eddy bench`, and suite.json holds the machine facts and every result."""
import json
import os
import stat
import subprocess

from conftest import REPO

SUITE = REPO / "scripts" / "bench_suite.sh"

FAKE_EDDY = r"""#!/usr/bin/env bash
# eddy stand-in: `info` prints two lines; `bench CONFIG ... --json FILE` writes a result naming its
# arguments, or fails like eddy on a config whose name contains "broken".
if [ "$1" = info ]; then echo "eddy 0.1.0 (commit fake123)"; echo "backend:   fake"; exit 0; fi
[ "$1" = bench ] || exit 9
cfg=$2; shift 2
json=""; args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --json ]; then json=$2; shift 2; else args+=("$1"); shift; fi
done
case $cfg in *broken*) echo "error: $cfg:3:1: bogus_key: unknown key"; exit 2 ;; esac
echo "bench $(basename "$cfg" .yaml): MLUPS median 42"
printf '{"name": "%s", "mlups_median": 42.0, "ranks": %s, "args": "%s"}\n' \
  "$(basename "$cfg" .yaml)" "${FAKE_RANKS:-1}" "${args[*]}" >"$json"
"""

FAKE_LAUNCH = r"""#!/usr/bin/env bash
# launcher stand-in: `fake_launch -n N cmd...` runs cmd with FAKE_RANKS=N
[ "$1" = -n ] || exit 9
export FAKE_RANKS=$2; shift 2
exec "$@"
"""


def executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def suite(tmp_path, *args, launch=None):
    env = dict(os.environ, EDDY=str(executable(tmp_path / "eddy", FAKE_EDDY)))
    if launch:
        env["EDDY_LAUNCH"] = f"{executable(tmp_path / 'fake_launch', FAKE_LAUNCH)} -n 2"
    return subprocess.run(["bash", str(SUITE), *map(str, args)], capture_output=True, text=True, env=env)


def test_suite_runs_every_config_and_records_a_failure(tmp_path):
    cfgs = tmp_path / "suite"
    cfgs.mkdir()
    for name in ("a_lbm", "b_broken", "c_spectral"):
        (cfgs / f"{name}.yaml").write_text(f"name: {name}\n")
    (cfgs / "notes.txt").write_text("not a config")
    out = tmp_path / "out"
    r = suite(tmp_path, cfgs, "--out", out, "--set", "domain.cells=[16,16]", "--steps", "4", "--repeat", "2")
    assert r.returncode == 1, r.stderr  # one config failed
    assert "b_broken FAILED (exit 2)" in r.stderr and "bogus_key" in r.stderr
    s = json.loads((out / "suite.json").read_text())
    assert s["hostname"] and s["date"].endswith("Z") and s["failed"] == 1 and s["ranks"] == 1
    assert s["eddy_info"] == ["eddy 0.1.0 (commit fake123)", "backend:   fake"]
    assert "--out" in s["command"] and s["source_commit"]
    assert [(e["name"], e["status"], e["exit_code"]) for e in s["results"]] == [
        ("a_lbm", "ok", 0), ("b_broken", "failed", 2), ("c_spectral", "ok", 0)]
    a, b, c = s["results"]
    assert a["result"]["args"] == "--set domain.cells=[16,16] --steps 4 --repeat 2"
    assert a["result"] == json.loads((out / "a_lbm.json").read_text())
    assert b["json"] is None and "bogus_key: unknown key" in b["error"] and not (out / "b_broken.json").exists()
    assert "MLUPS median 42" in (out / "c_spectral.log").read_text()
    assert "bogus_key" in (out / "b_broken.log").read_text()


def test_suite_single_config_with_ranks_and_bad_arguments(tmp_path):
    cfg = tmp_path / "one.yaml"
    cfg.write_text("name: one\n")
    r = suite(tmp_path, cfg, "--out", tmp_path / "out", "--ranks", "2", launch=True)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "out" / "suite.json").read_text())
    assert s["ranks"] == 2 and s["failed"] == 0 and s["results"][0]["result"]["ranks"] == 2
    assert suite(tmp_path, cfg).returncode == 2  # no --out
    assert suite(tmp_path, tmp_path / "missing.yaml", "--out", tmp_path / "o2").returncode == 2
    assert suite(tmp_path, cfg, "--out", tmp_path / "o3", "--ranks", "zero").returncode == 2
    assert suite(tmp_path, cfg, "--out", tmp_path / "o4", "--bogus").returncode == 2
