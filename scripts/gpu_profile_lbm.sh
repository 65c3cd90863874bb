#!/usr/bin/env bash
# Where the LBM step's time goes on one GPU: registers, spills and shared memory of every kernel
# (cuobjdump), and Nsight Compute's speed-of-light, memory and occupancy sections of one even and one odd
# stream-collide launch of a 256^3 periodic box (clocks left alone: --clock-control none).
#   scripts/gpu_profile_lbm.sh OUTDIR [GTEST_SOURCE] [CONFIG (default configs/bench/lbm_d3q19_256.yaml)] [--set ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu_profile_out}
gtest=${2:-}
cfg=${3:-$root/configs/bench/lbm_d3q19_256.yaml}
shift $(( $# < 3 ? $# : 3 ))
mkdir -p "$out"
source "$root/scripts/gpu_lib.sh"
[ -x "$gpu" ] || gpu_build "$out" "$gtest" eddy
echo "== registers / spills per kernel (stream_collide instantiations)"
cuobjdump --dump-resource-usage "$gpu" 2>/dev/null | c++filt | grep -A1 -E "Function .*for_kernel" |
  grep -E "REG|Function" | paste - - | grep -E "stream_collide|Bgk|Trt|Regularized" |
  sed -E 's/.*Bgk<([^>]*)>.*(REG:[0-9]+).*(STACK:[0-9]+).*(SHARED:[0-9]+).*/bgk<\1> \2 \3 \4/' | sort | uniq | head -40
echo "== ncu: 2 stream-collide launches (even, odd) after 20 warm-up steps"
ncu --clock-control none --kernel-name regex:for_kernel --launch-skip 20 --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section WarpStateStats --section SchedulerStats \
  "$gpu" run "$cfg" --set run.steps=30 --set output.fields.every=0 --set output.checkpoint.every=0 "$@" \
  --out "$out/prof_run" --quiet >"$out/ncu.txt" 2>&1 || echo "ncu failed: $(tail -3 "$out/ncu.txt")"
grep -E "for_kernel|Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Warp Cycles Per Issued|Stall|Mem Busy|Max Bandwidth|Eligible|Issued Warp" "$out/ncu.txt" |
  sed -E 's/void eddy::backend::detail::for_kernel<.*(stream_collide_[a-z]+|Odd=[a-z]+).*/for_kernel \1/' | cut -c1-160
rm -rf "$out/prof_run"
