#!/usr/bin/env bash
# GPU run of the adjoint and the optimal-perturbation case (issue 8) on one H200: build CUDA (and the CPU
# backend, for a GPU-vs-CPU check), run the adjoint unit tests on the GPU (dot-product tests, gradient vs
# finite differences, revolve), compare a small optimisation GPU vs CPU, then run
# configs/optimal_perturbation2d.yaml (N = 512, T = 80, Adam) with ITERATIONS iterations (default 300).
# Results in OUTDIR: summary.txt, optimize.csv, gradient_memory.csv, run.log, the optimal perturbation (.h5)
# and, when matplotlib is there, optimal_perturbation.png.
#   scripts/gpu_adjoint.sh OUTDIR [GTEST_SOURCE] [ITERATIONS]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/gpu_lib.sh"
gpu_args adjoint "$@"
iterations=${3:-300}
exec > >(tee "$out/summary.txt") 2>&1
gpu_build "$out" "$gtest" --cpu eddy eddy_unit_tests
cfg=$root/configs/optimal_perturbation2d.yaml

echo "== adjoint unit tests on the GPU"
"$root/build/gpu-cuda/tests/eddy_unit_tests" --gtest_filter='Adjoint*:Revolve*' 2>&1 |
  grep -E "relative|PASSED|FAILED|Failure"

echo "== GPU vs CPU: 128^2, 100 spin-up steps, T = 20, 5 iterations"
# Iteration 0's loss is a forward run only: 1e-12. Later ones went through Adam, whose m / sqrt(v)
# normalisation magnifies round-off of the gradient by up to 1 / epsilon where it is near zero: 1e-6.
small=(--set "domain.cells=[128,128]" --set optimize.spinup_steps=100 --set optimize.horizon_steps=20
       --set optimize.iterations=5 --set optimize.compare_storage=false --quiet)
"$cpu" optimize "$cfg" "${small[@]}" --out "$w/cpu" || echo "FAILED: CPU optimize"
"$gpu" optimize "$cfg" "${small[@]}" --out "$w/gpu" || echo "FAILED: GPU optimize"
python3 - "$w/cpu/optimize.csv" "$w/gpu/optimize.csv" <<'PY'
import csv, sys
a, b = ([float(r["loss"]) for r in csv.DictReader(open(f))] for f in sys.argv[1:3])
if not a or len(a) != len(b):
    print(f"FAILED: loss histories CPU {a} GPU {b}")
    sys.exit()
d0 = abs(a[0] - b[0]) / a[0]
d = max(abs(x - y) / x for x, y in zip(a, b))
print(f"loss CPU {a}\n     GPU {b}")
print(f"iteration 0: relative difference {d0:.2e} {'OK' if d0 < 1e-12 else 'FAILED'} (1e-12); "
      f"all iterations: {d:.2e} {'OK' if d < 1e-6 else 'FAILED'} (1e-6)")
PY

echo "== optimal perturbation, 512^2, T = 80, $iterations iterations (configs/optimal_perturbation2d.yaml)"
"$gpu" optimize "$cfg" --set optimize.iterations="$iterations" --out "$w/case" --quiet || echo "FAILED: GPU optimize"
grep -E "optimize: 2D|base state|iteration (0|1|2|$iterations) |gradient|optimal perturbation" "$w/case/run.log" | cut -c1-400
python3 - "$w/case/optimize.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pick = sorted({0, 1, 10, 50, 100, 150, 200, 250, len(rows) - 1} & set(range(len(rows))))
print("J / r^2 by iteration: " + ", ".join(f"{i}: {float(rows[i]['gain']):.4g}" for i in pick))
s = sorted(float(r["seconds"]) for r in rows[1:]) or [float("nan")]
print(f"forward + backward per iteration: median {1e3 * s[len(s) // 2]:.1f} ms, min {1e3 * s[0]:.1f} ms")
PY
cp "$w/case/optimize.csv" "$w/case/gradient_memory.csv" "$w/case/run.log" "$out/" 2>/dev/null
cp "$w/case"/fields/*.h5 "$out/" 2>/dev/null
python3 "$root/scripts/post/optimal_perturbation.py" "$w/case" "$out/optimal_perturbation.png" 2>&1 | tail -3
rm -rf "$w"
gpu_total
