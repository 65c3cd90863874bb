#!/usr/bin/env bash
# Multi-GPU acceptance run (2 H200s): bitwise 1 vs 2 ranks on the 3D cavity for each comm backend, and
# D3Q19 FP32 weak scaling at 608^3 cells per GPU.  scripts/gpu_mpi_check.sh OUTDIR
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu_mpi_out}
mkdir -p "$out/w"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mpi=(mpirun --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS)
export OMP_NUM_THREADS=8
nvidia-smi -L; nvidia-smi topo -m | head -4
cmake --preset cuda -B "$root/build/gpu-cuda" -DEDDY_BUILD_TESTS=OFF >"$out/w/cmake.log" 2>&1 || { tail -20 "$out/w/cmake.log"; exit 1; }
cmake --build "$root/build/gpu-cuda" -j 32 >"$out/w/build.log" 2>&1 || { grep -E "error" "$out/w/build.log" | head; exit 1; }
e=$root/build/gpu-cuda/eddy
"${mpi[@]}" -n 2 $e info
echo "== bitwise: 3D cavity 96^3 FP32, 400 steps, 1 vs 2 GPUs"
c=(--set "domain.cells=[96,96,96]" --set run.end_time=0 --set run.steps=400 --set run.steady.tolerance=0 --set output.fields.every=0 --quiet)
$e run "$root/configs/cavity3d.yaml" "${c[@]}" --out "$out/w/r1" >/dev/null
for comm in mpi mpi-gpu; do
  "${mpi[@]}" -n 2 $e run "$root/configs/cavity3d.yaml" "${c[@]}" --set parallel.comm=$comm --out "$out/w/r2_$comm" >/dev/null 2>"$out/w/err_$comm" || { echo "$comm failed:"; tail -3 "$out/w/err_$comm"; continue; }
  echo "1 vs 2 GPUs, $comm:"; python3 "$root/scripts/compare_fields.py" "$out"/w/r1/fields/*_00000400.h5 "$out"/w/r2_$comm/fields/*_00000400.h5 --tol 0
done
echo "== weak scaling D3Q19 FP32, 608^3 per GPU"
b=$root/configs/bench/lbm_d3q19_608.yaml
$e bench $b --repeat 5 --json "$out/weak_1gpu.json"
for comm in mpi mpi-gpu nccl; do
  "${mpi[@]}" -n 2 $e bench $b --set "domain.cells=[1216,608,608]" --set parallel.comm=$comm --repeat 5 --json "$out/weak_2gpu_$comm.json" 2>&1 | tail -2
done
echo "== strong scaling 608^3 on 2 GPUs (mpi-gpu)"
"${mpi[@]}" -n 2 $e bench $b --set parallel.comm=mpi-gpu --repeat 5 --json "$out/strong_2gpu.json" 2>&1 | tail -1
rm -rf "$out/w"
