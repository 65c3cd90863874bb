#!/usr/bin/env bash
# A restart chain under a real Slurm: a 2-task cavity job with a 1-minute time limit and
# --signal-margin 10 gets SIGUSR1 before its limit, eddy checkpoints and exits 75, the job resubmits
# itself with --restart auto, and so on until run.steps; the final fields must be bitwise identical
# (h5diff, no tolerance) to an uninterrupted run, diagnostics.csv must have one row per step, and a
# finished run must not run again. The run length is calibrated to at least 55 s of stepping here, so
# the chain has at least two segments. Usage: test_restart_chain.sh EDDY_BIN REPO_DIR
set -euo pipefail
eddy=$(realpath "${1:?eddy executable}")
repo=$(realpath "${2:?repository}")
source "$repo/tests/slurm/lib.sh"
work=$(mktemp -d /tmp/eddy-slurm-chain.XXXXXX)
start_slurm "$repo" "$work"
cd "$work"
export OMP_NUM_THREADS=1
cfg=$repo/cases/lid_driven_cavity/cavity2d.yaml
base=(--set "domain.cells=[64,64]" --set physics.reynolds=100 --set run.end_time=0 --set run.steady.tolerance=0
      --set output.fields.every=0 --set output.diagnostics.every=500 --set validation.reference=none)

# Calibrate: the fastest of three short 2-rank runs, scaled to 55 s of stepping. slurmctld sends the
# signal at its first 30-s tick once less than margin + 30 s are left: 20-50 s into these jobs, so even at
# that speed the first job cannot finish; a busier machine only makes the chain longer.
best=
for i in 1 2 3; do
  srun --mpi=pmix -n 2 "$eddy" run "$cfg" "${base[@]}" --set run.steps=2000 --out "calib$i" --quiet
  s=$(awk '/time in step:/ {print $4; exit}' "calib$i/run.log")
  best=$(awk -v a="${best:-$s}" -v b="$s" 'BEGIN {print (b < a ? b : a)}')
done
steps=$(awk -v s="$best" 'BEGIN {n = int(2000 / s * 55 / 100) * 100; print (n < 20000 ? 20000 : n)}')
echo "calibration: 2000 steps in $best s at best -> run.steps=$steps"

jid=$("$repo/scripts/submit" "$cfg" "${base[@]}" --set run.steps="$steps" --tasks-per-node 2 --time 00:01:00 \
  --signal-margin 10 --eddy "$eddy" --out "$work/chain")
echo "first job: $jid"
# Follow the chain: each segment writes the id of the job that continues it into slurm/jobid.
t0=$SECONDS
while :; do
  cur=$(cat "$work/chain/slurm/jobid" 2>/dev/null || echo "$jid")
  wait_jobs 200 "$cur" || break
  [ "$(cat "$work/chain/slurm/jobid" 2>/dev/null)" = "$cur" ] && break
  ((SECONDS - t0 < 900)) || { bad "chain still running after 900 s"; break; }
done
echo "chain took $((SECONDS - t0)) s"
cat "$work"/chain/slurm/slurm-*.out || true
segments=$(wc -l <"$work/chain/slurm/chain" 2>/dev/null || echo 0)
check "the job resubmitted itself at least once ($segments resubmissions)" '[ "$segments" -ge 1 ]'
check "the run finished" '[ -e "$work/chain/slurm/finished" ]'
for out in "$work"/chain/slurm/slurm-*.out; do
  id=$(basename "$out" .out)
  id=${id#slurm-}
  check "job $id COMPLETED 0:0 (got '$(job_state "$id")')" '[ "$(job_state "$id")" = "COMPLETED 0:0" ]'
done
check "segments after the first ran with --restart auto" \
  '[ "$(grep -c "segment [1-9].*--restart auto" "$work"/chain/slurm/slurm-*.out | awk -F: "{s += \$NF} END {print s}")" -ge 1 ]'
check "diagnostics.csv: one row per step, in order" \
  'awk -F, "BEGIN {last = -1} NR > 1 {if (\$1 <= last) exit 1; last = \$1}" "$work/chain/diagnostics.csv"'

srun --mpi=pmix -n 2 "$eddy" run "$cfg" "${base[@]}" --set run.steps="$steps" --out straight --quiet
f=fields/cavity2d_$(printf %08d "$steps").h5
check "final fields bitwise identical to an uninterrupted run ($f)" \
  'h5diff "$work/chain/$f" "$work/straight/$f" velocity && h5diff "$work/chain/$f" "$work/straight/$f" density'

# A finished run is not run again, even when its script is resubmitted as a later segment.
again=$(sbatch --parsable "$work/chain/slurm/job.sbatch" 9)
wait_jobs 120 "$again" || true
check "a finished run is not run again" 'grep -q "already finished; nothing to do" "$work/chain/slurm/slurm-$again.out"'
finish
