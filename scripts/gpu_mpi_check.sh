#!/usr/bin/env bash
# Multi-GPU acceptance run (2 H200s, nvidia-h200-x2), for every parallel.comm (mpi, mpi-gpu, nccl):
#  - the halo and transpose MPI tests on device memory (2 ranks);
#  - LBM: 3D cavity bitwise identical on 1 and 2 GPUs; D3Q19 FP32 weak scaling (608^3 cells per GPU)
#    and strong scaling (608^3 in all);
#  - spectral: 3D TGV on 2 GPUs equal to 1 GPU to round-off (FP64); RK4 FP32 ms/step at 512^3 on 1 and 2.
#   scripts/gpu_mpi_check.sh OUTDIR [GTEST_SOURCE] [quick]
# `quick`: only the MPI tests.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args mpi "$@"
what=${3:-}
gpu_mpi
gpu_build "$w" "$gtest" eddy eddy_mpi_lbm_halo_tests eddy_mpi_spectral_tests
e=$gpu
"${mpi[@]}" -n 2 $e info
comms="mpi mpi-gpu nccl"

echo "== MPI tests on device memory, 2 ranks (every transport the build runs)"
for t in lbm_halo spectral; do
  "${mpi[@]}" -n 2 "$root/build/gpu-cuda/tests/mpi/eddy_mpi_${t}_tests" 2>&1 | gtest_digest 14
done

if [ "$what" = quick ]; then  # the tests only (the auto test logs which transport won)
  rm -rf "$w"
  exit 0
fi

echo "== LBM bitwise: 3D cavity 96^3 FP32, 400 steps, 1 vs 2 GPUs"
c=(--set "domain.cells=[96,96,96]" --set run.end_time=0 --set run.steps=400 --set run.steady.tolerance=0 --set output.fields.every=0 --quiet)
$e run "$root/configs/cavity3d.yaml" "${c[@]}" --out "$w/r1" >/dev/null
for comm in $comms; do
  "${mpi[@]}" -n 2 $e run "$root/configs/cavity3d.yaml" "${c[@]}" --set parallel.comm=$comm --out "$w/r2_$comm" >/dev/null 2>"$w/err_$comm" ||
    { echo "$comm failed:"; tail -3 "$w/err_$comm"; continue; }
  echo "1 vs 2 GPUs, $comm:"; python3 "$root/scripts/compare_fields.py" "$w"/r1/fields/*_00000400.h5 "$w"/r2_$comm/fields/*_00000400.h5 --tol 0
done

echo "== LBM D3Q19 FP32: weak scaling 608^3 per GPU, strong scaling 608^3"
b=$root/configs/bench/lbm_d3q19_608.yaml
$e bench $b --repeat 5 --json "$out/lbm_1gpu.json" 2>&1 | grep -E "bench |rror"
for comm in $comms; do
  "${mpi[@]}" -n 2 $e bench $b --set "domain.cells=[1216,608,608]" --set "domain.length=[2,1,1]" --set parallel.comm=$comm --repeat 5 --json "$w/weak_$comm.json" 2>&1 | grep -E "bench |rror"
  "${mpi[@]}" -n 2 $e bench $b --set parallel.comm=$comm --repeat 5 --json "$w/strong_$comm.json" 2>&1 | grep -E "bench |rror"
done
python3 - "$w" "$out/lbm_1gpu.json" "$out/lbm_2gpu.json" <<'PY'
import json, sys, glob, os
w, one, dest = sys.argv[1:4]
rows = {os.path.basename(f)[:-5]: json.load(open(f)) for f in sorted(glob.glob(w + "/*_*.json"))}
json.dump(rows, open(dest, "w"), indent=1)
base = json.load(open(one))
def mlups(d):
    for k in ("mlups_median", "mlups", "median_mlups"):
        if k in d: return d[k]
    return d.get("results", {}).get("mlups_median")
b = mlups(base)
print(f"1 GPU: {b:.0f} MLUPS")
for k, d in rows.items():
    m = mlups(d)
    kind = "weak (2x cells)" if k.startswith("weak") else "strong (same cells)"
    print(f"2 GPUs {k}: {m:.0f} MLUPS = {m / b:.3f}x, {kind}, efficiency {m / b / 2 * 100:.1f}%")
PY

echo "== spectral: 3D TGV 48^3 FP64 RK4, 20 steps: 2 GPUs vs 1 GPU"
s=(--set "domain.cells=[48,48,48]" --set run.end_time=0 --set run.steps=20 --set numerics.dt=0.02 --set numerics.time_stepper=rk4
   --set output.fields.every=20 --set numerics.precision=fp64 --set validation.reference=none --quiet)
$e run "$root/configs/tgv3d_spectral.yaml" "${s[@]}" --out "$w/s1" >/dev/null
for comm in $comms; do
  "${mpi[@]}" -n 2 $e run "$root/configs/tgv3d_spectral.yaml" "${s[@]}" --set parallel.comm=$comm --out "$w/s2_$comm" >/dev/null 2>"$w/serr_$comm" ||
    { echo "$comm failed:"; tail -3 "$w/serr_$comm"; continue; }
  echo "spectral 1 vs 2 GPUs, $comm:"; python3 "$root/scripts/compare_fields.py" "$w"/s1/fields/*_00000020.h5 "$w"/s2_$comm/fields/*_00000020.h5 --tol 1e-12
done

echo "== spectral RK4 FP32 512^3: ms/step on 1 and 2 GPUs"
ms() { python3 -c "import csv,statistics,sys; r=[float(x['ms_per_step']) for x in csv.DictReader(open(sys.argv[1]))][2:]; print(f'{statistics.median(r):.2f} ms/step (median of {len(r)} intervals, min {min(r):.2f}, max {max(r):.2f})')" "$1"; }
p=(--set "domain.cells=[512,512,512]" --set run.end_time=0 --set run.steps=60 --set numerics.dt=0.002 --set numerics.time_stepper=rk4
   --set numerics.precision=fp32 --set output.fields.every=0 --set output.diagnostics.every=10 --set validation.reference=none --quiet)
$e run "$root/configs/tgv3d_spectral.yaml" "${p[@]}" --out "$w/p1" >/dev/null && echo -n "1 GPU: " && ms "$w/p1/diagnostics.csv"
for comm in nccl; do  # host-staged mpi: 2509 ms/step at 512^3 (2026-11-30), not worth the device minutes
  "${mpi[@]}" -n 2 $e run "$root/configs/tgv3d_spectral.yaml" "${p[@]}" --set parallel.comm=$comm --out "$w/p2_$comm" >/dev/null 2>&1 &&
    echo -n "2 GPUs $comm: " && ms "$w/p2_$comm/diagnostics.csv"
done
gpu_total
rm -rf "$w"
