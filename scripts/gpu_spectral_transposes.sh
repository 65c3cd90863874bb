#!/usr/bin/env bash
# The distributed spectral transforms on 2 GPUs (nvidia-h200-x2), for a change to the transposes or the
# slab FFT: correctness on the GPUs, then the 1024^3 strong-scaling pair beside committed figures.
#  1. The spectral MPI tests on 2 GPUs (eddy_mpi_spectral_tests, mpirun -n 2, timeout 100 s): the
#     transposes (whole, kept rows, compact b side) on every transport this build has (nccl among them),
#     the pruned distributed transforms against one rank, whole runs (slabs, pencils, autotuned grid)
#     against one rank. Their output goes to OUTDIR/tests.log; only the PASSED / FAILED lines are printed.
#  2. The 1024^3 RK4 FP32 pair, 1 GPU and 2 GPUs (slab, NCCL), through scripts/gpu_spectral_scaling.sh
#     (OUTDIR/scaling), EDDY_BENCH_STEPS=10 EDDY_BENCH_REPEAT=2, then its figures beside the committed
#     ones of EDDY_BASELINE (default cases/benchmarks/results/2026-11-30e-h200/compact_x2: the kept rows
#     moved, b side folded into the z-transforms) through scripts/compare_scaling.py.
#   scripts/gpu_spectral_transposes.sh OUTDIR [GTEST_SOURCE]
# Budget: the CUDA build of eddy and eddy_mpi_spectral_tests, then under 5 minutes: tests <= 100 s,
# benches ~25-35 s each. Output streamed (a hang shows where it was).
# Environment: EDDY_GPU_BIN (an eddy already built: no build, no tests), EDDY_BASELINE (a directory of
# 1gpu.json / 2gpu.json to compare with).
# Device run (one call, kind nvidia-h200-x2):
#   scripts/gpu_spectral_transposes.sh /tmp/t; cp /tmp/t/summary.txt /tmp/t/tests.log /tmp/t/scaling/*.json "$OUT"/
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args spectral_transposes "$@"
out=$(cd "$out" && pwd)
w=$out/w
exec > >(tee "$out/summary.txt") 2>&1
gpu_mpi
gpu_binaries "$w" "$gtest" eddy eddy_mpi_spectral_tests  # or EDDY_GPU_BIN
t1=$(date +%s)

t=$root/build/gpu-cuda/tests/mpi/eddy_mpi_spectral_tests
if [ -z "${EDDY_GPU_BIN:-}" ] && [ -x "$t" ]; then
  echo "== spectral MPI tests on 2 GPUs (output: $out/tests.log)"
  mkdir -p "$w/tests"
  (cd "$w/tests" && timeout 100 "${mpi[@]}" -n 2 "$t" >"$out/tests.log" 2>&1)
  echo "exit status $?"
  grep -E "PASSED|FAILED" "$out/tests.log" | sort | uniq -c
fi

echo "== 1024^3 RK4 FP32 on 1 and 2 GPUs (scripts/gpu_spectral_scaling.sh)"
EDDY_GPU_BIN=$gpu EDDY_BENCH_STEPS=10 EDDY_BENCH_REPEAT=2 "$root/scripts/gpu_spectral_scaling.sh" "$out/scaling"

before=${EDDY_BASELINE:-$root/cases/benchmarks/results/2026-11-30e-h200/compact_x2}
echo "== against the committed figures of $before"
if [ -d "$before" ]; then
  python3 "$root/scripts/compare_scaling.py" "$before" "$out/scaling" "the bytes sent per step, expected 1.000 unless the change moves other rows"
else
  echo "not committed: nothing to compare"
fi
echo "after the build: $(($(date +%s) - t1)) s"
gpu_total
