#!/usr/bin/env bash
# Spectral strong scaling for issue 6 on a 2-GPU machine (nvidia-h200-x2): eddy bench of
# configs/bench/scaling/spectral_3d_1024.yaml (1024^3 RK4 FP32, Taylor-Green sampled on the device) on one
# GPU and with mpirun -n 2 on two (slab), then from the JSON: ms/step, the strong-scaling speed-up
# (target >= 1.6x) and efficiency, the per-step breakdown, and the transposes' bandwidth as a fraction of
# the peer bandwidth (target >= 70%).
#   scripts/gpu_spectral_scaling.sh OUTDIR [GTEST_SOURCE]
# Writes OUTDIR/1gpu.json, OUTDIR/2gpu.json (eddy bench --json), OUTDIR/*.log, the device memory sampled by
# nvidia-smi (OUTDIR/mem_*.csv, peak printed) and OUTDIR/summary.txt.
#
# Budget: 1024^3 RK4 FP32 is ~0.3 s/step on one H200. Each bench runs warm-up (steps/5, at least 2) +
# STEPS x REPEAT steps, the same again of transforms alone (the FFT floor), STEPS more profiled steps, and
# on 2 ranks a 256 MiB peer-bandwidth probe: with 20 x 3, about (4 + 60 + 4 + 60 + 20) x 0.3 s = 45 s on one
# GPU and ~35 s on two, plus plans and the initial field (seconds): ~1.5-2 min after the build (eddy and
# eddy_mpi_spectral_tests, scripts/gpu_lib.sh; a few minutes on 32 cores).
#
# Environment:
#   EDDY_GPU_BIN        an eddy already built (skips the build and the device check of set_taylor_green)
#   EDDY_BENCH_STEPS    --steps (default 20)          EDDY_BENCH_REPEAT  --repeat (default 3)
#   EDDY_SCALING_COMM   parallel.comm of both runs (default peer: copy engines; nccl; mpi for a CPU build)
#   EDDY_SCALING_SET    extra --set overrides, space-separated (a dry run of the logic on a CPU build:
#                       EDDY_GPU_BIN=build/cpu/eddy EDDY_SCALING_COMM=mpi
#                       EDDY_SCALING_SET="domain.cells=[32,32,32]" scripts/gpu_spectral_scaling.sh /tmp/s)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args spectral_scaling "$@"
out=$(cd "$out" && pwd)
exec > >(tee "$out/summary.txt") 2>&1
gpu_mpi
gpu_binaries "$w" "$gtest" eddy eddy_mpi_spectral_tests  # or EDDY_GPU_BIN
# The device-sampled Taylor-Green state against the host-built array, on the GPUs (2 ranks: slab and
# pencil; tolerance 64 eps, tests/unit/test_spectral.cpp): seconds, where the test binary was built.
t=$root/build/gpu-cuda/tests/mpi/eddy_mpi_spectral_tests
if [ -z "${EDDY_GPU_BIN:-}" ] && [ -x "$t" ]; then
  echo "== set_taylor_green vs the host array on 2 GPUs"
  (cd "$out" && "${mpi[@]}" -n 2 "$t" --gtest_filter='*TaylorGreenOnTheDevice*' 2>&1 |
    grep -E "Taylor-Green|OK|FAILED" | sort -u)
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
cfg=$root/configs/bench/scaling/spectral_3d_1024.yaml
sets=(--set "parallel.comm=${EDDY_SCALING_COMM:-peer}")
for s in ${EDDY_SCALING_SET:-}; do sets+=(--set "$s"); done
args=(--steps "${EDDY_BENCH_STEPS:-20}" --repeat "${EDDY_BENCH_REPEAT:-3}" "${sets[@]}")
rm -f "$out/1gpu.json" "$out/2gpu.json"
# Peak device memory of a run (nvidia-smi sampled every 200 ms; the bench JSON has the solver's own
# bytes_allocated, this adds the FFT library's and the runtime's): mem_start TAG ... mem_stop.
mem_pid=
mem_start() {
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 200 >"$out/mem_$1.csv" 2>/dev/null &
  mem_pid=$!
  mem_tag=$1
}
mem_stop() {
  [ -n "$mem_pid" ] || return 0
  kill "$mem_pid" 2>/dev/null
  wait "$mem_pid" 2>/dev/null
  mem_pid=
  awk -F', *' '{ if ($2 > m[$1]) m[$1] = $2; if ($1 > n) n = $1 }
    END { for (g = 0; g <= n; ++g) printf "GPU %d peak %.1f GiB; ", g, m[g] / 1024; print "" }' \
    "$out/mem_$mem_tag.csv" | sed "s/^/$mem_tag: device memory (nvidia-smi): /"
}

echo "== 1 GPU: eddy bench $(basename "$cfg") ${args[*]}"
t=$(date +%s)
mem_start 1gpu
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} "$gpu" bench "$cfg" "${args[@]}" --json "$out/1gpu.json" \
  >"$out/1gpu.log" 2>&1 || { echo "1 GPU bench failed:"; tail -15 "$out/1gpu.log"; }
mem_stop
grep -E "bench |rror" "$out/1gpu.log"
echo "1 GPU: $(($(date +%s) - t)) s"

echo "== 2 GPUs (slab): mpirun -n 2 eddy bench $(basename "$cfg") ${args[*]}"
t=$(date +%s)
mem_start 2gpu
"${mpi[@]}" -n 2 "$gpu" bench "$cfg" "${args[@]}" --json "$out/2gpu.json" >"$out/2gpu.log" 2>&1 ||
  { echo "2 GPU bench failed:"; tail -15 "$out/2gpu.log"; }
mem_stop
grep -E "bench |rror|parallel.comm" "$out/2gpu.log"
echo "2 GPUs: $(($(date +%s) - t)) s"

python3 - "$out/1gpu.json" "$out/2gpu.json" <<'PY'
import json, os, sys
runs = {}
for f in sys.argv[1:]:
    if not os.path.exists(f):
        print(f"{f}: missing (the bench failed)")
        continue
    d = json.load(open(f))
    runs[d["ranks"]] = d
    b = d.get("breakdown", {})
    parts = ", ".join(f"{k} {v:.1f}" for k, v in b.items())
    print(f"{os.path.basename(f)}: {d['ranks']} rank(s), {d['grid']} {d['time_stepper']} {d['precision']}, "
          f"{d['decomposition']}, transport {d['transport']}: {d['ms_per_step_median']:.2f} ms/step "
          f"(min {d['ms_per_step_min']:.2f}, max {d['ms_per_step_max']:.2f}), FFT floor "
          f"{d['fft_ms_per_step_median']:.2f} ms (step/FFT {d['step_over_fft']:.2f}), "
          f"{d['bytes_allocated'] / 2**30:.1f} GiB allocated per rank (solver)")
    print(f"  breakdown (profiled run, ms/step, slowest rank): {parts}")
    if d["ranks"] > 1:
        print(f"  transposes: {d['transpose_bytes_per_step'] / 2**20:.0f} MiB/step per rank at "
              f"{d['transpose_bandwidth_gbs']:.1f} GB/s; peer bandwidth {d['peer_bandwidth_gbs']:.1f} GB/s: "
              f"fraction {100 * d['transpose_peer_fraction']:.0f}% (target >= 70%)")
if 1 in runs and 2 in runs:
    s = runs[1]["ms_per_step_median"] / runs[2]["ms_per_step_median"]
    print(f"strong scaling 1 -> 2 GPUs: speed-up {s:.2f}x (target >= 1.6x), efficiency {100 * s / 2:.0f}%")
PY
gpu_total
