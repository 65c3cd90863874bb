#!/usr/bin/env bash
# eddy under a real Slurm on this machine: a private single-host Slurm is started
# (scripts/slurm/local), then
#   1. the 2D cavity (32^2, Re 100, to steady state) goes in as a 2-task job through scripts/submit:
#      the job completes, the output is valid (2 ranks, field shapes, Ghia deviations within 0.01 U) and
#      scripts/eddy_post.py cavity / summary read it;
#   2. a 3-task sweep (the same cavity on 16^2, 24^2, 32^2) goes in through scripts/sweep: the job array
#      completes and the summary job writes summary.csv with one steady row per grid;
# and Slurm is stopped again. Usage: test_slurm.sh EDDY_BIN REPO_DIR
set -euo pipefail
eddy=$(realpath "${1:?eddy executable}")
repo=$(realpath "${2:?repository}")
py=/usr/bin/python3
source "$repo/tests/slurm/lib.sh"
work=$(mktemp -d /tmp/eddy-slurm-test.XXXXXX)
start_slurm "$repo" "$work"
cd "$work"
export OMP_NUM_THREADS=1

# 1. the cavity as a 2-task job
cavity=(--set "domain.cells=[32,32]" --set physics.reynolds=100 --set run.end_time=40)
jid=$("$repo/scripts/submit" "$repo/cases/lid_driven_cavity/cavity2d.yaml" "${cavity[@]}" --tasks-per-node 2 --time 00:05:00 \
  --eddy "$eddy" --out "$work/cavity")
echo "cavity job: $jid"
check "submit printed a job id" '[[ $jid =~ ^[0-9]+$ ]]'
wait_jobs 300 "$jid" || bad "cavity job did not finish in 300 s"
state=$(job_state "$jid")
check "cavity job COMPLETED 0:0 (got '$state')" '[ "$state" = "COMPLETED 0:0" ]'
log=$(ls "$work"/cavity/slurm/slurm-"$jid".out 2>/dev/null || true)
check "Slurm output file in out/slurm" '[ -s "$log" ]'
check "job script kept for resubmission" '[ -x "$work/cavity/slurm/job.sbatch" ]'
check "run.log: 2 MPI ranks" 'grep -q "| 2 MPI rank(s)" "$work/cavity/run.log"'
check "run.log: steady state" 'grep -q "steady state reached" "$work/cavity/run.log"'
check "finished marker" '[ -e "$work/cavity/slurm/finished" ]'
check "fields valid (h5py: shape, ranks, lid row)" '"$py" - "$work/cavity" <<PY
import glob, sys, h5py
last = sorted(glob.glob(sys.argv[1] + "/fields/cavity2d_*.h5"))[-1]
with h5py.File(last, "r") as f:
    u = f["velocity"][...]
    assert u.shape == (32, 32, 2), u.shape
    assert int(f.attrs["ranks"]) == 2, f.attrs["ranks"]
    assert 0.2 < u[-1, 16, 0] < 1.0, u[-1, 16, 0]
PY'
check "eddy_post.py cavity: Ghia deviations <= 0.01 U" '"$py" "$repo/scripts/eddy_post.py" cavity "$work/cavity" &&
  "$py" - "$work/cavity/post/cavity_ghia.csv" <<PY
import csv, sys
worst = max(abs(float(r["diff"])) for r in csv.DictReader(open(sys.argv[1])) if r["counted"] == "1")
print("max |eddy - Ghia| =", worst)
assert worst <= 0.01, worst
PY'
check "cavity plot" '[ -s "$work/cavity/post/cavity.png" ]'
if [ "$fails" != 0 ]; then cat "$log" 2>/dev/null; fi

# 2. a 3-task sweep
mapfile -t ids < <("$repo/scripts/sweep" "$repo/cases/lid_driven_cavity/cavity2d.yaml" --set physics.reynolds=100 \
  --set run.end_time=40 --vary "domain.cells=[16,16],[24,24],[32,32]" --time 00:05:00 --eddy "$eddy" \
  --out "$work/sweep")
echo "sweep: array job ${ids[0]:-?}, summary job ${ids[1]:-?}"
check "sweep printed two job ids" '[[ ${#ids[@]} = 2 && ${ids[0]} =~ ^[0-9]+$ && ${ids[1]} =~ ^[0-9]+$ ]]'
wait_jobs 400 "${ids[@]}" || bad "sweep did not finish in 400 s"
check "3 task directories with fields" '[ "$(ls -d "$work"/sweep/00?_cells*/fields | wc -l)" = 3 ]'
check "summary job COMPLETED" '[ "$(job_state "${ids[1]}")" = "COMPLETED 0:0" ]'
summary=$work/sweep/summary.csv
check "summary.csv written" '[ -s "$summary" ]'
cat "$summary" 2>/dev/null || true
check "summary: 3 steady rows for 16^2, 24^2, 32^2" '"$py" - "$summary" <<PY
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["domain.cells"] for r in rows] == ["[16, 16]", "[24, 24]", "[32, 32]"], rows
for r in rows:
    assert r["stop_reason"] == "steady state reached", r
    assert int(r["ranks"]) == 1 and int(r["steps"]) > 0 and float(r["kinetic_energy"]) > 0, r
    assert float(r["ghia_max_du"]) < 0.03 and float(r["ghia_max_dv"]) < 0.03, r
PY'
if [ "$fails" != 0 ]; then tail -n 20 "$work"/sweep/slurm/*.out; fi
finish
