#!/usr/bin/env bash
# GPU check of the pseudo-spectral solver (H200 device machine): build CUDA (and CPU for comparison),
# run the FFT/spectral unit and regression tests on the GPU, compare GPU fields with CPU fields (FP64 to
# 1e-12, FP32 to 1e-5), time RK4 FP32 steps (2D 4096^2, 3D 256^3 and 512^3), and with `tgv` the
# Taylor-Green vortex Re 1600 at 256^3 to t = 20 against the 512^3 DNS.
#   scripts/gpu_spectral_check.sh OUTDIR [GTEST_SOURCE] [tgv]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu_spectral_out}
gtest=${2:-}
what=${3:-}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
extra=()
[ -n "$gtest" ] && extra+=(-DEDDY_GTEST_SOURCE="$gtest")
t0=$(date +%s)
nvidia-smi -L
cmake --preset cuda -B "$root/build/gpu-spectral" "${extra[@]}" >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --preset cpu -B "$root/build/gpu-spectral-cpu" -DEDDY_BUILD_TESTS=OFF >>"$out/cmake.log" 2>&1 || exit 1
(cmake --build "$root/build/gpu-spectral" -j 16 --target eddy eddy_unit_tests eddy_regression_tests &&
  cmake --build "$root/build/gpu-spectral-cpu" -j 16 --target eddy) >"$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
gpu=$root/build/gpu-spectral/eddy cpu=$root/build/gpu-spectral-cpu/eddy
w=$out/w
run() { "$@" --quiet >/dev/null || echo "FAILED: $*"; }
# ms/step: median of the diagnostics rows after the first two (t = 0, warm-up).
ms() { python3 -c "import csv,statistics,sys; r=[float(x['ms_per_step']) for x in csv.DictReader(open(sys.argv[1]))][2:]; print(f'{statistics.median(r):.2f} ms/step (median of {len(r)} intervals)')" "$1"; }

if [ "$what" != tgv ]; then
  echo "== unit and regression tests on the GPU"
  "$root/build/gpu-spectral/tests/eddy_unit_tests" --gtest_filter='Fft*:Spectral*' 2>&1 | grep -E "round trip|gradient|PASSED|FAILED|Failure"
  (cd "$root/build/gpu-spectral/tests" && ./eddy_regression_tests --gtest_filter='Spectral*' 2>&1 |
     grep -E "error|order|TGV|PASSED|FAILED|Failure")

  echo "== GPU vs CPU fields: 2D decaying turbulence 128^2 (100 steps), 3D Taylor-Green 32^3 (40 steps)"
  for prec in fp64 fp32; do
    tol=1e-12; [ $prec = fp32 ] && tol=1e-5
    c2=(--set "domain.cells=[128,128]" --set numerics.dt=2e-3 --set run.end_time=0 --set run.steps=100
        --set numerics.time_stepper=rk4 --set output.fields.every=0 --set numerics.precision=$prec)
    c3=(--set "domain.cells=[32,32,32]" --set run.end_time=0 --set run.steps=40 --set numerics.dt=0.05
        --set output.fields.every=0 --set numerics.precision=$prec --set validation.reference=none)
    for b in cpu gpu; do
      exe=$cpu; [ $b = gpu ] && exe=$gpu
      run $exe run "$root/configs/decaying2d_spectral.yaml" "${c2[@]}" --out "$w/${b}2d_$prec"
      run $exe run "$root/configs/tgv3d_spectral.yaml" "${c3[@]}" --out "$w/${b}3d_$prec"
    done
    for d in 2d:decaying2d_spectral_00000100 3d:tgv3d_spectral_00000040; do
      echo "${d%%:*} $prec:"
      python3 "$root/scripts/compare_fields.py" "$w/cpu${d%%:*}_$prec/fields/${d#*:}.h5" \
        "$w/gpu${d%%:*}_$prec/fields/${d#*:}.h5" --tol $tol --datasets velocity,vorticity
    done
  done

  echo "== ms/step, RK4 FP32 (cuFFT alone for one step, DESIGN §12: 2D 4096^2 2.7 ms, 3D 256^3 4.9 ms, 512^3 38.5 ms)"
  p=(--set numerics.precision=fp32 --set numerics.time_stepper=rk4 --set output.fields.at_end=false
     --set output.fields.every=0 --set run.end_time=0)
  run $gpu run "$root/configs/decaying2d_spectral.yaml" "${p[@]}" --set "domain.cells=[4096,4096]" --set numerics.dt=2e-4 \
    --set run.steps=200 --set output.diagnostics.every=25 --out "$w/t2d"
  echo "2D 4096^2: $(ms "$w/t2d/diagnostics.csv")"
  for n in 256 512; do
    s=100; [ $n = 512 ] && s=40
    run $gpu run "$root/configs/tgv3d_spectral.yaml" "${p[@]}" --set "domain.cells=[$n,$n,$n]" --set run.steps=$s \
      --set output.diagnostics.every=$((s / 5)) --set validation.reference=none --out "$w/t3d_$n"
    echo "3D $n^3: $(ms "$w/t3d_$n/diagnostics.csv")"
  done
  grep -h "MiB on the device" "$w"/t*/run.log | sed 's/.*points, /  /'
fi

if [ "$what" = tgv ]; then
  echo "== Taylor-Green Re 1600, 256^3 FP64 RK4 phase shifts, to t = 20 (configs/tgv3d_spectral.yaml as shipped)"
  "$gpu" run "$root/configs/tgv3d_spectral.yaml" --out "$out/tgv256" --quiet
  grep -E "Re 1600|stopped|time in step" "$out/tgv256/run.log"
  cp "$out/tgv256/diagnostics.csv" "$out/tgv256_diagnostics.csv"
  rm -rf "$out/tgv256/fields"
fi
rm -rf "$w"
echo "total: $(( $(date +%s) - t0 )) s"
