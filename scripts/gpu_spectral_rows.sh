#!/usr/bin/env bash
# Pruned slab transposes on 2 GPUs (nvidia-h200-x2): with the 2/3 rule the spectral solver's transposes
# move only the kept ky rows (field::SlabShape::rows; 683 of 1024 at 1024^3), and the backward transform
# zeroes the skipped rows of its a-slab buffer before each c2r (backend::fill_zero_2d: cudaMemset2D).
#  1. The spectral MPI tests on 2 GPUs (eddy_mpi_spectral_tests, mpirun -n 2): row-subset transposes on
#     every transport this build has (mpi, auto, mpi-gpu where MPI is CUDA-aware, nccl), the pruned
#     distributed transforms against the full one-rank ones (cuFFT round-off, 100 eps), the whole runs and
#     the app's Taylor-Green on slabs and pencils against one rank (1e-12).
#  2. The 1024^3 RK4 FP32 pair, 1 GPU and 2 GPUs (slab, NCCL), through scripts/gpu_spectral_scaling.sh
#     (OUTDIR/scaling), then its figures beside the committed ones of the build before this change
#     (cases/benchmarks/results/2026-11-30d-h200/spectral_scaling_x2, 10 steps x 2 as here): ms/step, the
#     pruned transforms, the breakdown (pack, transfer, unpack) and the bytes sent per step (expected
#     683/1024 = 0.667 of before: the kept rows' share).
#   scripts/gpu_spectral_rows.sh OUTDIR [GTEST_SOURCE]
# OUTDIR gets summary.txt, scaling/{1gpu,2gpu}.json, scaling/*.log and the build logs (OUTDIR/w): more
# files than the device tool brings back, so copy the ones wanted into $OUT (see below).
# Budget: the CUDA build of eddy and eddy_mpi_spectral_tests (a few minutes on 32 cores), the tests
# (about a minute), the benches ~25 s each (as before): under the device tool's 10 minutes.
# Environment: EDDY_GPU_BIN (an eddy already built: no build, no tests), EDDY_BENCH_STEPS (10),
# EDDY_BENCH_REPEAT (2).
# Device run (one call, kind nvidia-h200-x2):
#   scripts/gpu_spectral_rows.sh /tmp/rows; cp /tmp/rows/summary.txt /tmp/rows/scaling/*.json "$OUT"/
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args spectral_rows "$@"
out=$(cd "$out" && pwd)
w=$out/w
exec > >(tee "$out/summary.txt") 2>&1
gpu_mpi
gpu_binaries "$w" "$gtest" eddy eddy_mpi_spectral_tests  # or EDDY_GPU_BIN

t=$root/build/gpu-cuda/tests/mpi/eddy_mpi_spectral_tests
if [ -z "${EDDY_GPU_BIN:-}" ] && [ -x "$t" ]; then
  echo "== spectral MPI tests on 2 GPUs (row-subset transposes, pruned transforms, runs vs one rank)"
  mkdir -p "$w/tests"
  (cd "$w/tests" && tlim 240 "${mpi[@]}" -n 2 "$t" 2>&1 |
    grep -E "PASSED|FAILED|Failure|rows moved|vs 1|backward|forward" | sort | uniq -c)
fi

echo "== 1024^3 RK4 FP32 on 1 and 2 GPUs (scripts/gpu_spectral_scaling.sh)"
EDDY_GPU_BIN=$gpu EDDY_BENCH_STEPS=${EDDY_BENCH_STEPS:-10} EDDY_BENCH_REPEAT=${EDDY_BENCH_REPEAT:-2} \
  "$root/scripts/gpu_spectral_scaling.sh" "$out/scaling" 2>&1 | grep -vE "^\s*$"

echo "== against the build before (every row moved)"
python3 "$root/scripts/compare_scaling.py" "$root/cases/benchmarks/results/2026-11-30d-h200/spectral_scaling_x2" \
  "$out/scaling" "the kept rows: 683/1024 = 0.667"
gpu_total
