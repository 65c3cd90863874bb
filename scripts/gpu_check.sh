#!/usr/bin/env bash
# GPU acceptance run (used on the H200 device machine): build CPU and CUDA, run the unit tests on the
# GPU, compare GPU cavity fields with CPU ones (FP64 to 1e-12, FP32 to 1e-5), run the shipped 2D cavity
# on the GPU, and bench the LBM.  scripts/gpu_check.sh OUTDIR [GTEST_SOURCE]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args check "$@"
gpu_python
gpu_build "$out" "$gtest" --cpu eddy eddy_unit_tests
$gpu info

echo "== unit tests on the GPU"
"$root/build/gpu-cuda/tests/eddy_unit_tests" --gtest_brief=1 2>&1 | tail -5

echo "== GPU vs CPU: 2D cavity Re 100, 128^2, 4000 steps; 3D cavity 32^3, 1000 steps"
cmp=$root/scripts/compare_fields.py
for prec in fp64 fp32; do
  tol=1e-12; [ $prec = fp32 ] && tol=1e-5
  common=(--set "domain.cells=[128,128]" --set physics.reynolds=100 --set run.end_time=0 --set run.steps=4000
          --set run.steady.tolerance=0 --set output.fields.every=0 --set numerics.precision=$prec --quiet)
  $cpu run "$root/configs/cavity2d.yaml" "${common[@]}" --out "$out/w/cpu2d_$prec" >/dev/null
  $gpu run "$root/configs/cavity2d.yaml" "${common[@]}" --out "$out/w/gpu2d_$prec" >/dev/null
  echo "cavity2d $prec:"; $py "$cmp" "$out"/w/cpu2d_$prec/fields/*_00004000.h5 "$out"/w/gpu2d_$prec/fields/*_00004000.h5 --tol $tol
  common3=(--set "domain.cells=[32,32,32]" --set run.end_time=0 --set run.steps=1000 --set run.steady.tolerance=0
           --set output.fields.every=0 --set numerics.precision=$prec --quiet)
  $cpu run "$root/configs/cavity3d.yaml" "${common3[@]}" --out "$out/w/cpu3d_$prec" >/dev/null
  $gpu run "$root/configs/cavity3d.yaml" "${common3[@]}" --out "$out/w/gpu3d_$prec" >/dev/null
  echo "cavity3d $prec:"; $py "$cmp" "$out"/w/cpu3d_$prec/fields/*_00001000.h5 "$out"/w/gpu3d_$prec/fields/*_00001000.h5 --tol $tol
done

echo "== configs/cavity2d.yaml on the GPU (Re 1000, 256^2)"
$gpu run "$root/configs/cavity2d.yaml" --out "$out/w/cavity2d" | grep -E "stopped|max \|u|time in step"
cp "$out/w/cavity2d/run.log" "$out/cavity2d_run.log"

echo "== bench"
for b in lbm_d2q9_2048 lbm_d3q19_256; do
  $gpu bench "$root/configs/bench/$b.yaml" --json "$out/bench_$b.json"
  $gpu bench "$root/configs/bench/$b.yaml" --set numerics.precision=fp64 --json "$out/bench_${b}_fp64.json"
done
$gpu bench "$root/configs/bench/lbm_d3q19_256.yaml" --set numerics.lattice=D3Q27 --json "$out/bench_d3q27_256.json"
$gpu bench "$root/configs/bench/lbm_d3q19_256.yaml" --set numerics.collision=trt | tail -1
rm -rf "$out/w" "$out/cmake_cuda.log" "$out/cmake_cpu.log"
gpu_total
