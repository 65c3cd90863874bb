#!/usr/bin/env bash
# GPU acceptance run of 16-bit population storage (issue 12, numerics.precision: fp32/fp16) on one H200:
#   1. build CUDA (eddy, unit and regression tests) and run the unit tests on the GPU (the device's
#      float<->half conversion against the portable one, bit for bit; every lattice and operator on
#      16-bit storage against FP32; the state round trip);
#   2. the regression tests on the GPU: cavity vs Ghia (FP64, and the FP16-vs-FP32 pair), Taylor-Green
#      (second order, and the FP16 decay bound);
#   3. eddy bench on D3Q19 256^3 with FP32 and with 16-bit storage in the same run, then D3Q27 and D2Q9
#      4096^2 with 16-bit storage and D3Q19 TRT fp16 (JSON into OUTDIR);
#   4. the 2D cavity at Re 1000 on 256^2 (configs/cavity2d.yaml): FP32 to the steady state, then 16-bit
#      storage for the same physical time (its residual levels off at the storage's rounding floor), and
#      the ratio of their centreline deviations from Ghia (issue: within 1.5x).
# scripts/gpu_fp16.sh OUTDIR [GTEST_SOURCE]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args fp16 "$@"
gpu_build "$out" "$gtest" eddy eddy_unit_tests eddy_regression_tests
$gpu info

echo "== unit tests on the GPU"
"$root/build/gpu-cuda/tests/eddy_unit_tests" --gtest_filter='Half*:PopulationStorage*:HalfStorageSolver*' 2>&1 |
  grep -E "^\[  (     OK|FAILED) \]|bytes per cell|Failure" | tee "$out/unit_fp16.txt"
"$root/build/gpu-cuda/tests/eddy_unit_tests" --gtest_brief=1 2>&1 | tail -5

echo "== regression tests on the GPU"
"$root/build/gpu-cuda/tests/eddy_regression_tests" \
  --gtest_filter='CavityGhia.Re1000At128:CavityGhia.Fp16*:TaylorGreen2D.*' 2>&1 |
  grep -E "^\[  (     OK|FAILED) \]|Re 1000|L2 error|errors|Failure" | tee "$out/regression_fp16.txt"

echo "== bench: D3Q19 256^3, FP32 and 16-bit storage in the same run"
$gpu bench "$root/configs/bench/lbm_d3q19_256.yaml" --json "$out/bench_lbm_d3q19_256.json" | grep "^bench"
$gpu bench "$root/configs/bench/lbm_d3q19_256_fp16.yaml" --json "$out/bench_lbm_d3q19_256_fp16.json" | grep "^bench"
$gpu bench "$root/configs/bench/lbm_d3q27_256_fp16.yaml" --json "$out/bench_lbm_d3q27_256_fp16.json" | grep "^bench"
$gpu bench "$root/configs/bench/lbm_d2q9_4096_fp16.yaml" --json "$out/bench_lbm_d2q9_4096_fp16.json" | grep "^bench"
$gpu bench "$root/configs/bench/lbm_d3q19_256_fp16.yaml" --set numerics.collision=trt \
  --json "$out/bench_lbm_d3q19_256_fp16_trt.json" | grep "^bench"
python3 - "$out" <<'PY'
import json, sys, os
d = sys.argv[1]
a = json.load(open(os.path.join(d, "bench_lbm_d3q19_256.json")))
b = json.load(open(os.path.join(d, "bench_lbm_d3q19_256_fp16.json")))
def get(j, k):
    return j.get(k, j.get("result", {}).get(k))
for name, j in (("fp32", a), ("fp16", b)):
    print(f"D3Q19 256^3 {name}: {get(j, 'mlups_median'):.0f} MLUPS, {get(j, 'bytes_per_cell_step'):.0f} B/cell/step, "
          f"{100 * get(j, 'bandwidth_fraction'):.1f}% of copy bandwidth, {get(j, 'bytes_per_cell_allocated'):.1f} B/cell allocated")
print(f"fp16 / fp32 MLUPS: {get(b, 'mlups_median') / get(a, 'mlups_median'):.2f}")
PY

echo "== cavity Re 1000, 256^2: FP32 to steady, 16-bit storage for the same time"
common=(--set output.fields.every=0 --set output.diagnostics.every=10000 --quiet)
$gpu run "$root/configs/cavity2d.yaml" "${common[@]}" --set numerics.precision=fp32 --out "$out/w/c32" >/dev/null
t32=$(sed -n 's/.*stopped at step [0-9]*, t = \([0-9.e+-]*\) s.*/\1/p' "$out/w/c32/run.log" | tail -1)
$gpu run "$root/configs/cavity2d.yaml" "${common[@]}" --set numerics.precision=fp32/fp16 \
  --set run.steady.tolerance=0 --set run.end_time="$t32" --out "$out/w/c16" >/dev/null
for p in c32 c16; do
  cp "$out/w/$p/run.log" "$out/cavity_re1000_256_$p.log"
  echo "$p: $(grep -E 'stopped at' "$out/w/$p/run.log" | tail -1)"
  grep -E "max \|u - u_Ghia\|" "$out/w/$p/run.log" | tail -1
done
python3 - "$out/w/c32/run.log" "$out/w/c16/run.log" <<'PY'
import re, sys
def dev(path):
    m = re.findall(r"max \|u - u_Ghia\| = ([0-9.]+) U.*max \|v - v_Ghia\| = ([0-9.]+) U", open(path).read())
    return tuple(map(float, m[-1]))
(u32, v32), (u16, v16) = dev(sys.argv[1]), dev(sys.argv[2])
print(f"Ghia deviation fp16/fp32: u {u16:.4f}/{u32:.4f} = {u16 / u32:.3f}, v {v16:.4f}/{v32:.4f} = {v16 / v32:.3f}"
      f" -> {'PASS' if u16 <= 1.5 * u32 and v16 <= 1.5 * v32 else 'FAIL'} (within 1.5x)")
PY
rm -rf "$out/w"
gpu_total
