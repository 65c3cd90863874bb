#!/usr/bin/env bash
# GPU check of the pseudo-spectral solver (H200 device machine): build CUDA (and CPU for comparison),
# run the FFT/spectral unit and regression tests on the GPU, compare GPU fields with CPU fields (FP64 to
# 1e-12, FP32 to 1e-5; also forced runs and the energy_spectrum dataset), `eddy bench` the RK4 FP32
# configs/bench/spectral_*.yaml (ms/step against the FFT floor), and with `tgv` the Taylor-Green vortex
# Re 1600 at 256^3 to t = 20 against the 512^3 DNS; with `hit` forced isotropic turbulence
# (configs/hit3d_spectral.yaml) at 128^3 to t = 50 and 256^3 to t = 30: stationary Re_lambda, skewness,
# k_max eta.
#   scripts/gpu_spectral_check.sh OUTDIR [GTEST_SOURCE] [tgv|hit]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args spectral "$@"
what=${3:-}
gpu_build "$out" "$gtest" --cpu eddy eddy_unit_tests eddy_regression_tests
run() { "$@" --quiet >/dev/null || echo "FAILED: $*"; }

if [ "$what" != tgv ] && [ "$what" != hit ]; then
  echo "== unit and regression tests on the GPU"
  "$root/build/gpu-cuda/tests/eddy_unit_tests" --gtest_filter='Fft*:Spectral*' 2>&1 | grep -E "round trip|gradient|PASSED|FAILED|Failure"
  (cd "$root/build/gpu-cuda/tests" && ./eddy_regression_tests --gtest_filter='Spectral*' 2>&1 |
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
    # Forced: band_limited HIT 32^3 (40 steps) and turbulent Kolmogorov flow 128^2 (100 steps).
    ch=(--set "domain.cells=[32,32,32]" --set physics.reynolds=100 --set numerics.dt=0.01 --set run.end_time=0
        --set run.steps=40 --set output.fields.every=0 --set output.checkpoint.every=0 --set numerics.precision=$prec)
    ck=(--set "domain.cells=[128,128]" --set physics.reynolds=10 --set physics.forcing.amplitude=1
        --set initial.type=random_spectrum --set initial.amplitude=0.5 --set initial.peak_wavenumber=4
        --set numerics.dt=5e-3 --set run.end_time=0 --set run.steps=100 --set output.fields.every=0
        --set validation.reference=none --set numerics.precision=$prec)
    for b in cpu gpu; do
      exe=$cpu; [ $b = gpu ] && exe=$gpu
      run $exe run "$root/configs/hit3d_spectral.yaml" "${ch[@]}" --out "$w/${b}hit_$prec"
      run $exe run "$root/configs/kolmogorov2d_spectral.yaml" "${ck[@]}" --out "$w/${b}kol_$prec"
    done
    for d in 2d:decaying2d_spectral_00000100 3d:tgv3d_spectral_00000040 hit:hit3d_spectral_00000040 \
      kol:kolmogorov2d_spectral_00000100; do
      echo "${d%%:*} $prec:"
      python3 "$root/scripts/compare_fields.py" "$w/cpu${d%%:*}_$prec/fields/${d#*:}.h5" \
        "$w/gpu${d%%:*}_$prec/fields/${d#*:}.h5" --tol $tol --datasets velocity,vorticity,energy_spectrum
    done
    # diagnostics.csv of the forced 3D run (injection, re_lambda, skewness, kmax_eta), last row, CPU vs GPU
    tail -n1 "$w/cpuhit_$prec/diagnostics.csv" | sed 's/^/  cpu hit last row: /'
    tail -n1 "$w/gpuhit_$prec/diagnostics.csv" | sed 's/^/  gpu hit last row: /'
  done

  echo "== eddy bench, RK4 FP32 (DESIGN §12, H200: JAX 2D 4096^2 6.4 ms, 3D 256^3 14.8 ms, 512^3 104 ms;"
  echo "   cuFFT alone for one step 2.7, 4.9, 38.5 ms)"
  for b in spectral_2d_4096 spectral_3d_256 spectral_3d_512; do
    "$gpu" bench "$root/configs/bench/$b.yaml" --json "$out/bench_$b.json" 2>&1 | grep -E "^bench|rror" |
      sed 's/^/  /'
  done
fi

if [ "$what" = tgv ]; then
  echo "== Taylor-Green Re 1600, 256^3 FP64 RK4 phase shifts, to t = 20 (configs/tgv3d_spectral.yaml as shipped)"
  "$gpu" run "$root/configs/tgv3d_spectral.yaml" --out "$out/tgv256" --quiet
  grep -E "Re 1600|stopped|time in step" "$out/tgv256/run.log"
  cp "$out/tgv256/diagnostics.csv" "$out/tgv256_diagnostics.csv"
  rm -rf "$out/tgv256/fields"
fi
if [ "$what" = hit ]; then
  # Stationary statistics: averages of the diagnostics.csv rows with t >= t0 (after the transient).
  hit_stats() { python3 - "$1" "$2" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if float(r["time"]) >= float(sys.argv[2])]
for c in ("kinetic_energy", "dissipation", "injection", "re_lambda", "skewness", "kmax_eta", "ms_per_step"):
    v = [float(r[c]) for r in rows]
    print(f"  {c:15s} mean {statistics.mean(v):.4g}  min {min(v):.4g}  max {max(v):.4g}  ({len(v)} rows)")
PY
  }
  echo "== forced isotropic turbulence 128^3 FP64 RK4 (configs/hit3d_spectral.yaml as shipped), t = 0..50"
  "$gpu" run "$root/configs/hit3d_spectral.yaml" --out "$out/hit128" --quiet || echo "FAILED: hit128"
  hit_stats "$out/hit128/diagnostics.csv" 20
  cp "$out/hit128/diagnostics.csv" "$out/hit128_diagnostics.csv"
  echo "== the same at 256^3, nu = 1.4e-3 (k_max eta ~ 1.1), t = 0..30"
  "$gpu" run "$root/configs/hit3d_spectral.yaml" --set "domain.cells=[256,256,256]" --set physics.reynolds=714.3 \
    --set run.end_time=30 --set output.fields.every=0 --set output.checkpoint.every=0 --out "$out/hit256" --quiet ||
    echo "FAILED: hit256"
  hit_stats "$out/hit256/diagnostics.csv" 15
  cp "$out/hit256/diagnostics.csv" "$out/hit256_diagnostics.csv"
  rm -rf "$out/hit128/fields" "$out/hit128/checkpoints" "$out/hit256/fields"
fi
rm -rf "$w"
gpu_total
