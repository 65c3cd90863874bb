#!/usr/bin/env bash
# LBM turbulence acceptance run on one H200 (issue 11): builds CUDA (sm_90) and CPU (scripts/gpu_lib.sh,
# shared with the other GPU scripts of the session), checks GPU = CPU for
# the new operators, runs the Taylor-Green vortex Re 1600 (128^3, 256^3; regularized, BGK, LES, D3Q27),
# the 2D cavity at Re 3200 / 5000 to steady state (256^2, 512^2), the 3D cube at Re 1000 (128^3), and
# benches every operator.  scripts/gpu_lbm_turbulence.sh OUTDIR [GTEST_SOURCE (default .deps/googletest)]
#
# Budget (H200, ~10,000 MLUPS D3Q19 FP32 at 256^3): build ~2-3 min; TGV 256^3 to t = 20 is 14,100 steps
# x 16.8M cells = 2.4e11 updates, ~25 s (D3Q19), ~50 s (D3Q27); 128^3 ~3 s each; cavities 2D ~5-20 s each
# (launch-bound); cube ~15-30 s; bench ~40 s. Every run has a timeout, cut to what is left of a 560 s
# budget (EDDY_BUDGET_S), so the whole stays under the device tool's 10 minutes; runs are ordered by value
# (GPU = CPU, bench, TGV 256^3, 128^3, BGK, D3Q27, LES, cavities, cube) and a run that would not fit is skipped.
# Results (at most 8 files): summary.txt, tgv.csv, tgv_diagnostics.csv, cavity.csv, bench.csv and, with
# matplotlib, tgv_q19_reg_256.png, tgv_q27_reg_256.png (-dE/dt against the DNS).
# EDDY_SECTIONS picks what runs (default all: "check bench tgv cavity cube"), e.g. two instances on the two
# GPUs of one machine with EDDY_GPU_BIN / EDDY_CPU_BIN given and CUDA_VISIBLE_DEVICES set.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
want() { [[ " ${EDDY_SECTIONS:-check bench tgv cavity cube} " == *" $1 "* ]]; }
source "$root/scripts/gpu_lib.sh"  # the shared builds, the GPU environment, lim / tlim: the budget from $t0
gpu_args lbm_turbulence "$@"
gpu_workdir lbm_turbulence  # run directories (GB of fields) in $w, out of OUTDIR
gpu_python
gpu_binaries "$w" "$gtest" --cpu eddy  # or EDDY_GPU_BIN / EDDY_CPU_BIN; build logs into $w
$gpu info
quiet=(--quiet --set output.fields.every=0)

if want check; then
echo "== GPU vs CPU, FP64 (max relative difference <= 1e-12): regularized + Smagorinsky + body force"
cmp=$root/scripts/compare_fields.py
g3=(--set "domain.cells=[24,24,24]" --set run.end_time=0 --set run.steps=100 --set numerics.precision=fp64
    --set numerics.lattice=D3Q27 --set numerics.collision=regularized --set numerics.les.model=smagorinsky
    --set "physics.body_force=[0.3,0.0,-0.2]" --set validation.reference=none)
$cpu run "$root/configs/tgv3d_lbm.yaml" "${quiet[@]}" "${g3[@]}" --out "$w/cpu3d" >/dev/null
$gpu run "$root/configs/tgv3d_lbm.yaml" "${quiet[@]}" "${g3[@]}" --out "$w/gpu3d" >/dev/null
echo -n "tgv D3Q27 regularized+les+force: "; $py "$cmp" "$w"/cpu3d/fields/*_00000100.h5 "$w"/gpu3d/fields/*_00000100.h5 --tol 1e-12
g2=(--set "domain.cells=[64,64]" --set run.end_time=0 --set run.steps=2000 --set run.steady.tolerance=0
    --set physics.reynolds=1000 --set "physics.body_force=[0.0,-0.1]"
    --set validation.reference=none)
for op in regularized trt; do
  $cpu run "$root/configs/cavity2d.yaml" "${quiet[@]}" "${g2[@]}" --set numerics.collision=$op --out "$w/cpu2d_$op" >/dev/null
  $gpu run "$root/configs/cavity2d.yaml" "${quiet[@]}" "${g2[@]}" --set numerics.collision=$op --out "$w/gpu2d_$op" >/dev/null
  echo -n "cavity D2Q9 $op+force: "; $py "$cmp" "$w"/cpu2d_$op/fields/*_00002000.h5 "$w"/gpu2d_$op/fields/*_00002000.h5 --tol 1e-12
done

fi
if want bench; then
echo "== bench: 256^3 FP32, every operator"
for lat in D3Q19 D3Q27; do
  for op in bgk trt regularized regularized+les; do
    c=${op%+les} les=none
    [ "$op" != "$c" ] && les=smagorinsky
    tlim 40 "$gpu" bench "$root/configs/bench/lbm_d3q19_256.yaml" --set numerics.lattice=$lat \
      --set numerics.collision=$c --set numerics.les.model=$les --json "$w/bench_${lat}_$op.json" 2>&1 | grep "^bench\|MLUPS" | tail -1
  done
done
tlim 40 "$gpu" bench "$root/configs/bench/lbm_d2q9_2048.yaml" --set numerics.collision=regularized \
  --json "$w/bench_D2Q9_regularized.json" 2>&1 | tail -1

fi
if want tgv; then
echo "== Taylor-Green vortex Re 1600 to t = 20 (configs/tgv3d_lbm.yaml), FP32"
tgv() {  # tgv NAME TIMEOUT_S [--set ...]
  local name=$1 lim=$2
  shift 2
  local s=$(date +%s)
  lim=$(lim "$lim")
  [ "$lim" = 0 ] && { echo "$name: skipped (time budget)"; return; }
  timeout "$lim" "$gpu" run "$root/configs/tgv3d_lbm.yaml" "${quiet[@]}" --set output.fields.at_end=false "$@" \
    --out "$w/tgv_$name" >"$w/tgv_$name.txt" 2>&1
  local rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - s )) s"
  echo "$name,$rc,$(( $(date +%s) - s ))" >>"$w/tgv_status.csv"
  grep -hE "Taylor-Green Re 1600|error" "$w/tgv_$name/run.log" "$w/tgv_$name.txt" 2>/dev/null | tail -2 | cut -c1-600
}
: >"$w/tgv_status.csv"
tgv q19_reg_256 80 --set "domain.cells=[256,256,256]"
tgv q19_reg_128 40 --set "domain.cells=[128,128,128]"
tgv q19_bgk_128 40 --set "domain.cells=[128,128,128]" --set numerics.collision=bgk
tgv q19_bgk_256 80 --set "domain.cells=[256,256,256]" --set numerics.collision=bgk
tgv q27_reg_256 120 --set "domain.cells=[256,256,256]" --set numerics.lattice=D3Q27
tgv q19_reg_les_128 40 --set "domain.cells=[128,128,128]" --set numerics.les.model=smagorinsky --set numerics.les.constant=0.1

fi
if want cavity; then
echo "== 2D cavity to steady state, FP64, against Ghia et al. (1982)"
: >"$w/cavity_status.csv"
for run in 256:regularized 512:regularized 256:regularized+les 256:trt; do  # by value: both Re first
  for re in 3200 5000; do
    n=${run%%:*} op=${run#*:}
    c=${op%+les} les=none
    [ "$op" != "$c" ] && les=smagorinsky
    name=re${re}_n${n}_$op s=$(date +%s) t=$(lim $((n / 8 + 10)))
    [ "$t" = 0 ] && { echo "$name: skipped (time budget)"; continue; }
    timeout "$t" "$gpu" run "$root/configs/cavity2d_re$re.yaml" "${quiet[@]}" --set output.fields.at_end=false \
      --set "domain.cells=[$n,$n]" --set numerics.collision=$c --set numerics.les.model=$les --out "$w/cav_$name" >"$w/cav_$name.txt" 2>&1
    rc=$?
    echo "$name: exit $rc, $(( $(date +%s) - s )) s; $(grep -hE 'stopped|steady|max \|u - u_Ghia|error' "$w/cav_$name/run.log" "$w/cav_$name.txt" 2>/dev/null | tail -3 | tr '\n' ' ' | cut -c1-400)"
    echo "$re,$n,$op,$rc,$(( $(date +%s) - s ))" >>"$w/cavity_status.csv"
  done
done
fi
if want cube; then
echo "== 3D cube Re 1000, 128^3 (configs/cavity3d_re1000_128.yaml)"
s=$(date +%s)
tlim 60 "$gpu" run "$root/configs/cavity3d_re1000_128.yaml" --quiet --out "$w/cube" >/dev/null 2>&1
echo "cube: exit $?, $(( $(date +%s) - s )) s; $(grep -E 'stopped|residual' "$w/cube/run.log" 2>/dev/null | tail -2 | tr '\n' ' ')"

fi
"$py" "$root/scripts/post/lbm_turbulence_summary.py" "$w" "$out"
# Plots (need matplotlib; skipped quietly without it): -dE/dt of the 256^3 regularized run against the DNS.
for name in q19_reg_256 q27_reg_256; do
  [ -f "$w/tgv_$name/diagnostics.csv" ] &&
    "$py" "$root/scripts/eddy_post.py" tgv "$w/tgv_$name" --from-energy --output "$out/tgv_$name.png" 2>&1 | tail -1
  rm -f "$out/tgv_$name.csv"
done
rm -rf "$w"
gpu_total
