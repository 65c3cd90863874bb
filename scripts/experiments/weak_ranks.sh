#!/usr/bin/env bash
# Per-rank set-up time, set-up CPU time and peak memory with a fixed block per rank (weak), at 1, 8, 27 and
# 64 ranks, from the lines run.log ends with; with each run, what `eddy plan` predicts for its memory.
#   scripts/experiments/weak_ranks.sh EDDY OUT_DIR [BLOCK]      (BLOCK: cells per rank along an edge, 32)
# Oversubscribed on few cores (64 processes on 2 cores stretch the wall-clock set-up time by the
# oversubscription; the CPU time is each rank's own work). Prints a markdown table per solver.
set -euo pipefail
eddy=$1 out=$2 block=${3:-32}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
export OMP_NUM_THREADS=1
mpi() { mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -n "$@"; }
field() {  # field LOG WHAT: "rank0 / median / max" of a run.log spread line
  sed -n "s/^$2: rank 0 \([0-9.e+-]*\) [a-zA-Z]*, median \([0-9.e+-]*\) [a-zA-Z]*, max \([0-9.e+-]*\) .*/\1 \/ \2 \/ \3/p" "$1"
}
for solver in lbm spectral; do
  if [ "$solver" = lbm ]; then cfg=$src/cases/lid_driven_cavity/cavity3d.yaml; else cfg=$src/cases/taylor_green/tgv3d_spectral.yaml; fi
  echo
  echo "$solver, $(basename "$cfg"), ${block}^3 per rank:"
  echo
  echo "| ranks | grid | set-up wall [s] rank 0 / median / max | set-up CPU [s] | host RSS [MiB] | allocations [MiB] | plan: allocations [MiB] |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for k in 1 2 3 4; do
    n=$((k * k * k)) g=$((k * block))
    name=$out/${solver}_$n
    sets=(--set "domain.cells=[$g,$g,$g]" --set run.end_time=0 --set run.steps=2 --set run.steady.tolerance=0
      --set output.fields.every=0 --set output.checkpoint.every=0 --set validation.reference=none)
    rm -rf "$name"
    mpi "$n" "$eddy" run "$cfg" --quiet --out "$name" "${sets[@]}" >"$name.log" 2>&1
    "$eddy" plan "$cfg" --ranks "$n" --target cpu --json "$name.plan.json" "${sets[@]}" >/dev/null
    plan=$(/usr/bin/python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['device_bytes_per_rank'] / 1048576, 2))" "$name.plan.json")
    log=$name/run.log
    echo "| $n | ${g}^3 | $(field "$log" 'set-up time (start to the first step)') | $(field "$log" 'set-up CPU time') | $(field "$log" 'peak host memory (resident)') | $(field "$log" "peak device memory (eddy's allocations)") | $plan |"
  done
done
