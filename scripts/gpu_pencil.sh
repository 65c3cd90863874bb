#!/usr/bin/env bash
# Spectral multi-GPU acceptance run for issue 6 (2 H200s, nvidia-h200-x2):
#  - the spectral MPI tests on device memory, 2 ranks, every transport the build runs (slab, pencil 2 x 1,
#    overlapped transposes bitwise equal to batched ones, restarts across decompositions);
#  - TGV 3D FP64 RK4 48^3: 2 GPUs on slabs ([1,1,2]) and on pencils ([1,2,1]) equal to 1 GPU to 1e-12,
#    overlapped transposes bitwise equal to batched ones (parallel.overlap=false) on the GPUs;
#  - the scaling suite configs/bench/scaling (spectral 1024^3 and 512^3 RK4 FP32 strong; LBM D3Q19 608^3
#    strong and weak) on 1 and 2 GPUs (nccl), plus the 1024^3 variants on 2 GPUs: transposes batched
#    (parallel.overlap=false), pencils 2 x 1, parallel.comm auto; then the eddy_post.py bench table
#    with the scaling column (speed-up, efficiency), the per-step breakdown and the transposes' fraction
#    of the peer bandwidth. The JSON files stay in OUTDIR/1gpu, OUTDIR/2gpu, OUTDIR/2gpu_variants.
#   scripts/gpu_pencil.sh OUTDIR [GTEST_SOURCE] [quick]
# `quick`: the tests and the agreement runs only (no benchmarks).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args pencil "$@"
what=${3:-}
gpu_mpi
gpu_build "$w" "$gtest" eddy eddy_mpi_spectral_tests
e=$gpu

echo "== spectral MPI tests on device memory, 2 ranks"
(cd "$w" && "${mpi[@]}" -n 2 "$root/build/gpu-cuda/tests/mpi/eddy_mpi_spectral_tests" 2>&1 |
  gtest_digest 20)

echo "== TGV 3D FP64 RK4 48^3, 20 steps: slab and pencil on 2 GPUs vs 1 GPU (tol 1e-12); overlap vs batched (bitwise)"
s=(--set "domain.cells=[48,48,48]" --set run.end_time=0 --set run.steps=20 --set numerics.dt=0.02
   --set output.fields.every=20 --set numerics.precision=fp64 --set validation.reference=none --quiet)
$e run "$root/configs/tgv3d_spectral.yaml" "${s[@]}" --out "$w/one" >/dev/null
for grid in "1,1,2" "1,2,1"; do
  for overlap in true false; do
    tag="${grid//,/}_$overlap"
    "${mpi[@]}" -n 2 $e run "$root/configs/tgv3d_spectral.yaml" "${s[@]}" --set parallel.comm=nccl \
      --set "parallel.ranks=[$grid]" --set parallel.overlap=$overlap --out "$w/two_$tag" >/dev/null 2>"$w/err_$tag" ||
      { echo "[$grid] overlap=$overlap failed:"; tail -3 "$w/err_$tag"; continue; }
    echo "1 vs 2 GPUs, parallel.ranks [$grid], overlap $overlap:"
    python3 "$root/scripts/compare_fields.py" "$w"/one/fields/*_00000020.h5 "$w"/two_$tag/fields/*_00000020.h5 --tol 1e-12
  done
  echo "overlap vs batched transposes, [$grid] (bitwise):"
  python3 "$root/scripts/compare_fields.py" "$w"/two_${grid//,/}_true/fields/*_00000020.h5 \
    "$w"/two_${grid//,/}_false/fields/*_00000020.h5 --tol 0
done

if [ "$what" = quick ]; then
  rm -rf "$w"
  exit 0
fi

echo "== scaling suite configs/bench/scaling on 1 and 2 GPUs (nccl)"
$e bench "$root/configs/bench/scaling" --repeat 3 --json "$out/1gpu" 2>&1 | grep -E "bench |rror|GiB"
"${mpi[@]}" -n 2 $e bench "$root/configs/bench/scaling" --set parallel.comm=nccl --repeat 3 --json "$out/2gpu" 2>&1 |
  grep -E "bench |rror|parallel.comm"
echo "== spectral 1024^3 RK4 FP32 on 2 GPUs: variants"
mkdir -p "$out/2gpu_variants"
b=$root/configs/bench/scaling/spectral_3d_1024.yaml
"${mpi[@]}" -n 2 $e bench $b --set parallel.comm=nccl --set parallel.overlap=false --repeat 3 \
  --json "$out/2gpu_variants/batched.json" 2>&1 | grep -E "bench |rror"
"${mpi[@]}" -n 2 $e bench $b --set parallel.comm=nccl --set "parallel.ranks=[1,2,1]" --repeat 3 \
  --json "$out/2gpu_variants/pencil_2x1.json" 2>&1 | grep -E "bench |rror"
"${mpi[@]}" -n 2 $e bench $b --set parallel.comm=auto --repeat 3 \
  --json "$out/2gpu_variants/auto.json" 2>&1 | grep -E "bench |rror|parallel.comm"
python3 - "$out" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/*/spectral_3d_1024.json") + glob.glob(sys.argv[1] + "/2gpu_variants/*.json")):
    d = json.load(open(f))
    print(f"{f.split('/')[-2]}/{f.split('/')[-1]}: ranks {d['ranks']}, {d.get('decomposition', '')}, "
          f"{d['ms_per_step_median']:.1f} ms/step, FFT floor {d['fft_ms_per_step_median']:.1f}, "
          f"{d['bytes_allocated'] / 2**30:.1f} GiB allocated (solver, rank 0); breakdown {d.get('breakdown')}; "
          f"transposes {d.get('transpose_bandwidth_gbs', 0):.0f} GB/s of peer {d.get('peer_bandwidth_gbs', 0):.0f} GB/s")
PY
python3 "$root/scripts/eddy_post.py" bench "$out/1gpu" "$out/2gpu" "$out/2gpu_variants" --markdown "$out/scaling.md"
gpu_total
rm -rf "$w"
