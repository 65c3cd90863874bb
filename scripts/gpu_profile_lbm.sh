#!/usr/bin/env bash
# Where the LBM step's time goes on one GPU: registers, spills and shared memory of the stream-collide
# kernels (cuobjdump), and Nsight Compute's speed-of-light, memory, occupancy and warp-state sections of
# one odd and one even stream-collide launch (clocks left alone: --clock-control none). Full report in
# OUTDIR/ncu.txt, a digest on stdout.
#   scripts/gpu_profile_lbm.sh OUTDIR [GTEST_SOURCE] [CONFIG (default configs/bench/lbm_d3q19_256.yaml)] [--set ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args profile "$@"
cfg=${3:-$root/configs/bench/lbm_d3q19_256.yaml}
shift $(($# < 3 ? $# : 3))
[ -x "$gpu" ] || gpu_build "$out" "$gtest" eddy
echo "== registers per stream-collide kernel (lattice, odd, storage, operator)"
cuobjdump --dump-resource-usage "$gpu" 2>/dev/null | grep -E "Function|REG:" | paste - - | c++filt |
  grep -F "launch_stream_collide" |
  sed -E 's/.*launch_stream_collide<eddy::lbm::(D[0-9]Q[0-9]+), (true|false), ([a-z]+), [a-z]+, eddy::lbm::([A-Za-z]+)<[a-z]+, (true|false), (true|false)> >.*\{lambda\(long\)#([12])\}.*(REG:[0-9]+) (STACK:[0-9]+).*/\1 odd=\2 \3 \4 les\/force=\5 \7 \8 \9/' |
  grep -E "^D" | sort -u | head -60
echo "== ncu: 2 stream-collide launches (even, odd) after 20 steps"
ncu --clock-control none --kernel-name regex:for_kernel --launch-skip 21 --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  "$gpu" run "$cfg" --set run.steps=30 --set output.fields.every=0 --set output.checkpoint.every=0 "$@" \
  --out "$out/prof_run" --quiet >"$out/ncu.txt" 2>&1 || echo "ncu failed: $(tail -3 "$out/ncu.txt")"
grep -E "^  [a-z].*for_kernel|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Eligible Warps|Mem Busy|Mem Pipes|Stall" "$out/ncu.txt" |
  sed -E 's/.*launch_stream_collide<lbm::(D[0-9]Q[0-9]+), ([01]).*/kernel \1 odd=\2/' | cut -c1-150
rm -rf "$out/prof_run"
