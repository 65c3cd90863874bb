#!/usr/bin/env bash
# GPU bench of the spectral step against its FFT floor (issue 12, one H200): build CUDA (eddy and the
# unit tests), run the spectral step's invariant tests on the GPU (truncated modes stay exactly zero, the
# fused inputs, the adjoint's forward step), then `eddy bench` RK4 FP32 3D 512^3 with the 2/3 rule and
# with phase shifts, 3D 256^3 and 2D 4096^2 (configs/bench/spectral_*.yaml): ms/step, the FFT floor and
# their ratio (target <= 1.15), the profiled breakdown (its "pointwise" phase is what the kept-mode stage
# kernels cut), and the pruned transforms the step runs (SlabFft Modes::kept, the lines outside the
# dealiasing mask's box skipped: "pruned transforms X ms", JSON fft_pruned_ms_per_step*) against the full
# floor (H200 experiment, 2/3 rule: 0.91x at 512^3, 0.82x at 4096^2; the phase-shift sphere keeps 94% of
# the rows, so it gains little or loses). The GPU tests include the pruned transforms against the full
# ones (cuFFT round-off within 100 eps). Results in OUTDIR: summary.txt and one bench JSON per run. A
# second pass with EDDY_GPU_BIN=<another build's eddy> benches that build instead (before/after in one
# session).
#   scripts/gpu_spectral_bench.sh OUTDIR [GTEST_SOURCE]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args spectral_bench "$@"
exec > >(tee "$out/summary.txt") 2>&1
gpu_binaries "$out" "$gtest" eddy eddy_unit_tests

if [ -z "${EDDY_GPU_BIN:-}" ]; then
  echo "== the step's invariants on the GPU"
  tests='Spectral.TruncatedModes*:Spectral.StepsDoNotDepend*:Spectral.Pruned*:Spectral.Kept*'
  tlim 120 "$root/build/gpu-cuda/tests/eddy_unit_tests" --gtest_filter="$tests:Adjoint.ForwardStepEqualsSolver" 2>&1 |
    grep -E "PASSED|FAILED|Failure|pruned vs full"
fi

echo "== eddy bench, RK4 FP32 (issue 12: 512^3 was 52.8 ms/step against a 38.8 ms floor, 1.36x)"
bench() {
  local name=$1 cfg=$2
  shift 2
  tlim 150 "$gpu" bench "$root/configs/bench/$cfg.yaml" "$@" --json "$out/bench_$name.json" 2>&1 |
    grep -E "^bench|rror" | sed 's/^/  /'
}
bench 3d_512 spectral_3d_512
bench 3d_512_phase_shift spectral_3d_512 --set numerics.dealiasing=phase_shift
bench 3d_256 spectral_3d_256
bench 2d_4096 spectral_2d_4096
gpu_total
