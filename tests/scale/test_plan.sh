#!/usr/bin/env bash
# `eddy plan` (ctest label `scale`): its memory figure against what runs measure, its refusals, and the same
# refusal from `eddy run` before anything is written.
#  - the predicted device memory per rank (the solvers' footprints: every array eddy allocates, with the
#    largest temporary) within 10 % of run.log's "peak device memory" (the allocations' peak, the largest
#    rank) for the 3D cavity (LBM, FP32, walls) and the 3D Taylor-Green vortex (spectral, FP64) on 1, 8 and
#    27 ranks with a field file and a checkpoint written; the bound is the model's stated accuracy (what it
#    leaves out: bodies' links, the FFT library's work area, transposes' segments sized by message);
#  - the 2048^3 plans on 64 GPUs run, and write JSON with the documented keys;
#  - a block too large for the device, more ranks than GPUs on the nodes, more ranks than cells along an
#    axis, a bad --bench file: exit 2 with the numbers; `eddy run` of a block that does not fit: exit 2
#    and no output directory.
#   tests/scale/test_plan.sh EDDY SOURCE_DIR
eddy=$1 src=$2
source "$src/tests/support/checks.sh"
mpi() { mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -n "$@"; }
py=$(command -v /usr/bin/python3 || command -v python3)

# check_memory NAME NP CONFIG [--set ...]: one run, one plan of the same config and rank count.
check_memory() {
  local name=$1 np=$2 cfg=$src/cases/$3
  shift 3
  # diagnostics every step: the shipped configs' time intervals are shorter than these coarse grids' steps
  local sets=(--set run.end_time=0 --set run.steps=4 --set run.steady.tolerance=0 --set output.fields.every=4
    --set output.checkpoint.every=4 --set output.diagnostics.every=1 --set validation.reference=none "$@")
  local rc=0
  mpi "$np" "$eddy" run "$cfg" --quiet --out "$name" "${sets[@]}" >"$name.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$name: eddy run exited $rc"
    tail -5 "$name.log"
    return
  fi
  if ! "$eddy" plan "$cfg" --ranks "$np" --target cpu --json "$name.json" "${sets[@]}" >"$name.plan" 2>&1; then
    fail "$name: eddy plan exited $?"
    cat "$name.plan"
    return
  fi
  local measured predicted
  measured=$(sed -n 's/^peak device memory.*max \([0-9.e+]*\) MiB.*/\1/p' "$name/run.log")
  predicted=$("$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['device_bytes_per_rank'] / 1048576)" "$name.json")
  if "$py" -c "import sys; m, p = map(float, sys.argv[1:]); sys.exit(0 if abs(p - m) <= 0.1 * m else 1)" \
    "$measured" "$predicted"; then
    pass
  else
    fail "$name: eddy plan predicts $predicted MiB of device memory per rank, the run's peak is $measured MiB"
  fi
  echo "$name: $np rank(s): measured $measured MiB, predicted $predicted MiB"
}
# A block of 32^3 (LBM) and 32^3 points (spectral) per rank on 1, 8 and 27 ranks.
check_memory lbm_1 1 lid_driven_cavity/cavity3d.yaml --set "domain.cells=[32,32,32]"
check_memory lbm_8 8 lid_driven_cavity/cavity3d.yaml --set "domain.cells=[64,64,64]"
check_memory lbm_27 27 lid_driven_cavity/cavity3d.yaml --set "domain.cells=[96,96,96]"
check_memory spectral_1 1 taylor_green/tgv3d_spectral.yaml --set "domain.cells=[32,32,32]"
check_memory spectral_8 8 taylor_green/tgv3d_spectral.yaml --set "domain.cells=[64,64,64]"
check_memory spectral_27 27 taylor_green/tgv3d_spectral.yaml --set "domain.cells=[54,54,54]"
check_memory pencil_8 8 taylor_green/tgv3d_spectral.yaml --set "domain.cells=[64,64,64]" --set "parallel.ranks=[1,2,4]"

# The 2048^3 plans on 64 GPUs (8 nodes of 8), their JSON.
big=(--set "domain.cells=[2048,2048,2048]")
expect_plan() {  # expect_plan NAME CONFIG ARGS...: exit 0 and the JSON's keys
  local name=$1 cfg=$src/configs/bench/scaling/$2
  shift 2
  if "$eddy" plan "$cfg" "$@" --json "$name.json" >"$name.plan" 2>&1 &&
    "$py" - "$name.json" <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["solver", "grid", "ranks", "nodes", "gpus_per_node", "decomposition", "process_grid", "block",
        "device_bytes_per_rank", "host_bytes_per_rank", "device_capacity_bytes", "fits",
        "exchange_bytes_per_step_per_rank", "intra_node_bytes_per_step_per_rank",
        "inter_node_bytes_per_step_per_rank", "messages_per_step_per_rank", "field_file_bytes",
        "checkpoint_bytes", "model", "single_gpu_step_s", "speedup", "efficiency", "weak_efficiency"]
missing = [k for k in keys if k not in d] + [k for k in ["compute_s", "step_s", "limited_by"] if k not in d["model"]]
assert not missing, missing
assert d["fits"] and d["ranks"] == 64 and d["model"]["step_s"] > 0
EOF
    pass
  else
    fail "$name: eddy plan $* did not give a plan with the documented JSON"
    cat "$name.plan"
  fi
}
expect_plan lbm_2048 lbm_d3q19_608.yaml "${big[@]}" --nodes 8 --gpus-per-node 8
expect_plan spectral_2048 spectral_3d_1024.yaml "${big[@]}" --nodes 8 --gpus-per-node 8
expect_plan pencil_2048 spectral_3d_1024.yaml "${big[@]}" --set "parallel.ranks=[1,8,8]" --ranks 64

# Refusals: exit 2 with the numbers.
refuse() {  # refuse PATTERN ARGS...
  local pattern=$1 out code
  shift
  out=$("$eddy" "$@" 2>&1)
  code=$?
  if [ "$code" = 2 ] && grep -qE -- "$pattern" <<<"$out"; then pass; else
    fail "eddy $* -> exit $code (want 2 and /$pattern/): $out"
  fi
}
lbm=$src/configs/bench/scaling/lbm_d3q19_608.yaml
refuse "2048 x 2048 x 2048 cells over 4 rank\(s\).*needs [0-9.]+ GiB of device memory.*use at least 8 ranks" plan "$lbm" "${big[@]}" --ranks 4
refuse "use at least 8 ranks \(2 nodes of 4\)" plan "$lbm" "${big[@]}" --nodes 1 --gpus-per-node 4
refuse "--ranks 20 on --nodes 2 x --gpus-per-node 8: .*at most 16 ranks; use --nodes 3" plan "$lbm" --ranks 20 --nodes 2 --gpus-per-node 8
refuse "node 3 would get no rank" plan "$lbm" --ranks 16 --nodes 4 --gpus-per-node 8
refuse "domain.cells|parallel.ranks" plan "$src/cases/lid_driven_cavity/cavity3d.yaml" --set "domain.cells=[4,4,4]" --ranks 125
refuse "missing.json: no such file" plan "$lbm" --bench missing.json
refuse "--bench needs an .eddy bench. JSON of the lbm solver" plan "$lbm" --bench "$src/cases/benchmarks/results/2026-11-30i-h200/s9d_x2/1gpu/spectral_3d_512.json"
refuse "--device-memory x: expected a positive number" plan "$lbm" --device-memory x
# eddy run: refused before anything is written (the CPU backend's device memory is the host's).
refuse "domain.cells: 1500 x 1500 x 1500 cells over 1 rank\(s\).*GiB of device memory.*use at least [0-9]+ ranks" \
  run "$src/cases/lid_driven_cavity/cavity3d.yaml" --out too_big --quiet --set "domain.cells=[1500,1500,1500]" --set numerics.precision=fp64
[ -e too_big ] && fail "eddy run of a block too large for the device left too_big/"
finish
