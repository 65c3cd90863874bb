#!/usr/bin/env bash
# The b-side copy of the slab transposes folded into the c2c along z (2 GPUs, nvidia-h200-x2): the
# messages of one field in rank order are the compact b layout [z][kept ky rows of the rank][kx]
# (field/slab.hpp), so the exchange receives into (forward) and sends from (backward) a compact buffer
# (two, alternating by field) and the c2c along z runs out of place between it and spec; Modes::all and
# ranks whose whole block is kept receive into / send from spec itself (spectral/slab_fft.hpp). Expected:
# pack and unpack about half of before (31.2 / 31.4 ms per step at 1024^3 on 2 H200s), the fft phase a
# little more (out-of-place, strided), transpose_bytes unchanged.
#  1. The spectral MPI tests on 2 GPUs (eddy_mpi_spectral_tests, mpirun -n 2, timeout 100 s): the compact
#     and row-subset transposes on every transport this build has (nccl among them), the pruned
#     transforms (compact buffers, several fields, FP32) against one rank, whole runs against one rank.
#     Their output goes to OUTDIR/tests.log; only the PASSED / FAILED lines are printed.
#  2. The 1024^3 RK4 FP32 pair, 1 GPU and 2 GPUs (slab, NCCL), through scripts/gpu_spectral_scaling.sh
#     (OUTDIR/scaling), EDDY_BENCH_STEPS=10 EDDY_BENCH_REPEAT=2, then its figures beside those of the
#     build before (the kept rows moved, packed and unpacked), if committed:
#     cases/benchmarks/results/2026-11-30e-h200/spectral_scaling_x2/{1gpu,2gpu}.json.
#   scripts/gpu_spectral_compact.sh OUTDIR [GTEST_SOURCE]
# Budget: the CUDA build of eddy and eddy_mpi_spectral_tests, then under 5 minutes: tests <= 100 s,
# benches ~25 s each. Output streamed (a hang shows where it was).
# Environment: EDDY_GPU_BIN (an eddy already built: no build, no tests).
# Device run (one call, kind nvidia-h200-x2):
#   scripts/gpu_spectral_compact.sh /tmp/compact; cp /tmp/compact/summary.txt /tmp/compact/tests.log /tmp/compact/scaling/*.json "$OUT"/
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args spectral_compact "$@"
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

before=$root/cases/benchmarks/results/2026-11-30e-h200/spectral_scaling_x2
echo "== against the build before (b side packed and unpacked): $before"
if [ -d "$before" ]; then
  python3 "$root/scripts/compare_scaling.py" "$before" "$out/scaling" "expected 1.000: the same rows move"
else
  echo "not committed: nothing to compare"
fi
echo "after the build: $(($(date +%s) - t1)) s"
gpu_total
