#!/usr/bin/env bash
# Cylinder acceptance run on one H200 (issue 13): builds CUDA (sm_90) and CPU (scripts/gpu_lib.sh), checks
# GPU = CPU on a short cylinder run (FP64, fields and forces), then the DFG benchmark of Schaefer & Turek
# (1996): 2D-2 (Re 100, periodic) at D = 40 and 80 cells: max drag and lift coefficients and the Strouhal
# number against the reference values; 2D-1 (Re 20, steady) at D = 20, 40, 80 cells (the drag /
# pressure-difference convergence table). scripts/gpu_cylinder.sh OUTDIR [GTEST_SOURCE]
#
# Budget (lattice velocity 0.025 as in the configs): build ~2-3 min; 2D-1 to t = 8 s is 12,800 / 25,600 /
# 51,200 steps at D = 20 / 40 / 80 (36k / 144k / 577k cells); 2D-2 to t = 16 s is 256,000 / 512,000 steps at
# D = 40 / 80 (3.7e10 / 3.0e11 cell updates: ~20 s / ~2 min at a few thousand MLUPS, FP64). Every run has a
# timeout cut to a 560 s budget (EDDY_BUDGET_S); runs are ordered by value and a run that would not fit is
# skipped. Results: summary.txt and cylinder.csv (one line per run with eddy's end-of-run report).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"  # lim: the budget; $t0
gpu_args cylinder "$@"
gpu_workdir cylinder
gpu_python
gpu_binaries "$w" "$gtest" --cpu eddy  # or EDDY_GPU_BIN / EDDY_CPU_BIN
$gpu info
quiet=(--quiet --set output.fields.every=0)

echo "== GPU vs CPU, FP64: 2D-1 at D = 10 cells, 400 steps (fields <= 1e-12 relative; forces printed)"
g=(--set "domain.cells=[220,41]" --set run.end_time=0 --set run.steps=400 --set run.steady.tolerance=0
   --set output.diagnostics.every=400)
$cpu run "$root/configs/cylinder2d_re20.yaml" "${quiet[@]}" "${g[@]}" --out "$w/cpu" >/dev/null
$gpu run "$root/configs/cylinder2d_re20.yaml" "${quiet[@]}" "${g[@]}" --out "$w/gpu" >/dev/null
echo -n "cylinder fields: "; $py "$root/scripts/compare_fields.py" "$w"/cpu/fields/*_00000400.h5 "$w"/gpu/fields/*_00000400.h5 --tol 1e-12
echo "forces (CPU, GPU): $(tail -1 "$w/cpu/diagnostics.csv" | cut -d, -f12-) | $(tail -1 "$w/gpu/diagnostics.csv" | cut -d, -f12-)"

echo "case,D_cells,exit,seconds,report" >"$out/cylinder.csv"
run() {  # run CASE D TIMEOUT [--set ...]
  local case=$1 d=$2 t
  t=$(lim "$3")
  shift 3
  local name=${case}_D$d nx=$((22 * d)) ny=$((41 * d / 10)) s=$(date +%s)
  [ "$t" = 0 ] && { echo "$name: skipped (time budget)"; return; }
  timeout "$t" "$gpu" run "$root/configs/cylinder2d_$case.yaml" "${quiet[@]}" --set output.fields.at_end=false \
    --set "domain.cells=[$nx,$ny]" "$@" --out "$w/$name" >"$w/$name.txt" 2>&1
  local rc=$? rep
  rep=$(grep -h "body 0" "$w/$name/run.log" 2>/dev/null | tail -1 | sed 's/.*: force/force/')
  echo "$name: exit $rc, $(( $(date +%s) - s )) s; $rep"
  echo "$case,$d,$rc,$(( $(date +%s) - s )),\"$rep\"" >>"$out/cylinder.csv"
}
echo "== 2D-2 (Re 100): reference max C_D 3.2265 (3.22-3.24), max C_L 1.00 (0.99-1.01), St 0.300 (0.295-0.305)"
run re100 40 90
run re100 80 240
echo "== 2D-1 (Re 20): reference C_D 5.5795, C_L 0.010619, dp 0.11752 Pa"
run re20 20 30
run re20 40 40
run re20 80 90
rm -rf "$w"
gpu_total
