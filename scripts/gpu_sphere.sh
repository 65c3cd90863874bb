#!/usr/bin/env bash
# Sphere acceptance run (issue 13) on two GPUs (nvidia-h200-x2): configs/sphere3d_re100.yaml, the shipped
# STL sphere at Re 100, on 2 ranks at D = 20, 30 and 40 cells (the config's grid scaled), and its drag
# coefficient against the unbounded-flow reference 1.087 (Clift, Grace & Weber 1978; cases/sphere/README.md).
#   scripts/gpu_sphere.sh OUTDIR [GTEST_SOURCE]
# EDDY_GPU_BIN=path skips the build; EDDY_RANKS (default 2); EDDY_SPHERE_D (default "20 30 40": runs in that
# order while the budget lasts); EDDY_BUDGET_S (default 560) caps the whole script; EDDY_SPHERE_SET adds
# --set overrides (a quick smoke run on a CPU build: EDDY_SPHERE_SET="run.end_time=0.05").
# Budget: 16 D x 10 D x 10 D cells at D cells per diameter, lattice velocity 0.04, t = 5 s (50 D / U):
# D = 20: 12.8 M cells x 25,000 steps (~50 s on two H200s); D = 30: 43 M x 37,500 (~160 s); D = 40: 102 M x
# 50,000 (5.1e12 cell updates, ~6.5 min). Results: summary.txt, sphere.csv (C_D at the end, mean and spread of C_D over the
# last third of the diagnostics samples), the diagnostics.csv of each run.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args sphere "$@"
gpu_workdir sphere
gpu_mpi
gpu_binaries "$w" "$gtest" eddy  # or EDDY_GPU_BIN
ranks=${EDDY_RANKS:-2}
extra=()
for s in ${EDDY_SPHERE_SET:-}; do extra+=(--set "$s"); done
echo "case,D_cells,ranks,exit,seconds,cd_end,cd_mean_last_third,cd_spread_last_third,cd_error_vs_1.087" >"$out/sphere.csv"
for d in ${EDDY_SPHERE_D:-20 30 40}; do
  left=$((budget - ($(date +%s) - t0) - 10))
  # 5.1e12 cell updates at D = 40 take ~6.5 min: scale by D^4 for the estimate; skip what cannot finish.
  need=$(( 390 * d * d * d * d / (40 * 40 * 40 * 40) + 20 ))
  if [ "$left" -lt "$need" ]; then echo "D = $d: skipped ($left s left, needs ~$need s)"; continue; fi
  s=$(date +%s)
  timeout "$left" "${mpi[@]}" -n "$ranks" "$gpu" run "$root/configs/sphere3d_re100.yaml" \
    --quiet --set "domain.cells=[$((16 * d)),$((10 * d)),$((10 * d))]" --set output.fields.at_end=false --set output.diagnostics.every=0.02t \
    "${extra[@]}" --out "$w/D$d" >"$w/D$d.txt" 2>&1
  rc=$?
  cp "$w/D$d/diagnostics.csv" "$out/sphere_D${d}_diagnostics.csv" 2>/dev/null
  grep -h "body 0" "$w/D$d/run.log" 2>/dev/null | tail -1
  [ $rc = 0 ] || tail -5 "$w/D$d.txt"
  python3 - "$w/D$d/diagnostics.csv" "$d" "$ranks" "$rc" "$(( $(date +%s) - s ))" "$out/sphere.csv" <<'PY'
import csv, statistics, sys
f, d, ranks, rc, secs, dest = sys.argv[1:7]
try:
    cd = [float(r["drag_coefficient"]) for r in csv.DictReader(open(f))]
except OSError:
    cd = []
if len(cd) < 6:
    print(f"D = {d}: exit {rc}, no diagnostics"); sys.exit(0)
last = cd[-(len(cd) // 3):]
m = statistics.mean(last)
spread = max(last) - min(last)
err = (m / 1.087 - 1) * 100
print(f"D = {d} cells, {ranks} ranks, exit {rc}, {secs} s: C_D {cd[-1]:.4f} at the end, {m:.4f} mean over the last "
      f"third ({len(last)} samples, spread {spread:.4f}); vs 1.087: {err:+.2f} %")
open(dest, "a").write(f"sphere3d_re100,{d},{ranks},{rc},{secs},{cd[-1]:.5f},{m:.5f},{spread:.5f},{err:.3f}\n")
PY
done
gpu_total
