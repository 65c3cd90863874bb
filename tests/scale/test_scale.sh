#!/usr/bin/env bash
# Many ranks on few cores (ctest label `scale`): what must not change with the rank count, shown at 64 and
# 27 ranks on tiny blocks, oversubscribed.
#  - LBM 3D on 64 ranks (4 x 4 x 4) and on 27 (3 x 3 x 3, uneven boxes, walls and periodic faces, a
#    sphere): every field bitwise equal to one rank's, and the bodies' forces and pressure differences;
#  - spectral 3D on 64 ranks (pencils 8 x 8, FP64): velocity and vorticity within 1e-12 of one rank's;
#  - a checkpoint written by 64 ranks, continued on 27 and on 1: bitwise the uninterrupted run's fields;
#  - rank 0 holds no more than the others: its peak resident memory on an 8-rank run within 1.5 times
#    the median rank's (run.log's memory line).
#   tests/scale/test_scale.sh EDDY SOURCE_DIR
eddy=$1 src=$2
source "$src/tests/support/checks.sh"
# Idle ranks yield the core instead of spinning: 64 processes share two cores.
mpi() { mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -n "$@"; }
run() {  # run NAME NP CONFIG [--set ...]: fields at the end only, no validation
  local name=$1 np=$2 cfg=$3
  shift 3
  local t0=$SECONDS
  mpi "$np" "$eddy" run "$src/cases/$cfg" --quiet --out "$name" --set run.end_time=0 \
    --set run.steady.tolerance=0 --set output.fields.every=0 --set output.checkpoint.every=0 \
    --set validation.reference=none "$@" >"$name.log" 2>&1 || { fail "$name exited $?"; tail -20 "$name.log"; }
  echo "$name: $np rank(s), $((SECONDS - t0)) s"
}
lbm=(velocity density pressure)

# 3D cavity, 20^3 FP64 on 64 ranks: blocks of 5^3.
cav=(--set "domain.cells=[20,20,20]" --set run.steps=40 --set numerics.precision=fp64)
run cav_1 1 lid_driven_cavity/cavity3d.yaml "${cav[@]}"
run cav_64 64 lid_driven_cavity/cavity3d.yaml "${cav[@]}" --set "parallel.ranks=[4,4,4]"
same_fields cav_1 cav_64 40 0 "${lbm[@]}"

# A sphere in a duct, periodic along y, walls along z, inlet and outflow along x, on 3 x 3 x 3 ranks of
# uneven boxes (26 = 9 + 9 + 8, 14 = 5 + 5 + 4, 13 = 5 + 4 + 4).
sp=(--set "domain.cells=[26,14,13]" --set "domain.length=[0.52,0.28,0.26]" --set run.steps=40
    --set numerics.lattice=D3Q19 --set boundaries.y_min.type=periodic --set boundaries.y_max.type=periodic
    --set boundaries.z_min.type=wall --set boundaries.z_max.type=wall --set "boundaries.x_min.velocity=[0.3,0.0,0.0]"
    --set boundaries.x_min.profile=uniform --set boundaries.x_max.type=outflow --set initial.type=inflow
    --set "geometry.bodies=[{type: sphere, center: [0.2, 0.13, 0.12], radius: 0.06}]" --set geometry.wall=halfway
    --set geometry.reference_area=0.0113 --set output.diagnostics.every=10)
run sp_1 1 cylinder/cylinder2d_re20.yaml "${sp[@]}"
run sp_27 27 cylinder/cylinder2d_re20.yaml "${sp[@]}" --set "parallel.ranks=[3,3,3]"
same_fields sp_1 sp_27 40 0 "${lbm[@]}"
same_file sp_1 sp_27 bodies.txt
if cmp -s <(cut -d, -f1,12- sp_1/diagnostics.csv) <(cut -d, -f1,12- sp_27/diagnostics.csv); then pass; else
  fail "sp_1 vs sp_27: the force columns of diagnostics.csv differ"; fi

# Spectral Taylor-Green 16^3 FP64 on 64 ranks, pencils 8 x 8: round-off of transforms in another order.
tg=(--set "domain.cells=[16,16,16]" --set numerics.dt=0.05 --set run.steps=10 --set output.diagnostics.every=0)
run tg_1 1 taylor_green/tgv3d_spectral.yaml "${tg[@]}"
run tg_64 64 taylor_green/tgv3d_spectral.yaml "${tg[@]}" --set "parallel.ranks=[1,8,8]"
same_fields tg_1 tg_64 10 1e-12 velocity vorticity

# A checkpoint of 64 ranks restarts on 27 and on 1 (each rank reads its own box of the file) and
# continues bitwise as the uninterrupted one-rank run.
mpi 64 "$eddy" run "$src/cases/lid_driven_cavity/cavity3d.yaml" --quiet --out ck_64 "${cav[@]}" --set run.end_time=0 \
  --set run.steps=20 --set run.steady.tolerance=0 --set output.fields.every=0 --set output.fields.at_end=false \
  --set output.checkpoint.every=20 --set validation.reference=none --set "parallel.ranks=[4,4,4]" >ck_64.log 2>&1 ||
  { fail "ck_64 exited $?"; tail -20 ck_64.log; }
for np in 27 1; do
  cp -r ck_64 ck_on_$np
  mpi "$np" "$eddy" run "$src/cases/lid_driven_cavity/cavity3d.yaml" --quiet --out ck_on_$np --restart auto "${cav[@]}" \
    --set run.end_time=0 --set run.steady.tolerance=0 --set output.fields.every=0 --set validation.reference=none \
    >ck_on_$np.log 2>&1 || { fail "ck_on_$np exited $?"; tail -20 ck_on_$np.log; }
  grep -q "restarted from .*ckpt_00000020" ck_on_$np/run.log && pass || fail "ck_on_$np did not restart at step 20"
  same_fields cav_1 ck_on_$np 40 0 "${lbm[@]}"
done

# Rank 0's peak resident memory on 8 ranks within 1.5 times the median rank's: no rank gathers a
# field. 192^3 FP32 makes each rank's block (about 30 B per cell of the grid over 8 ranks: 200 MiB
# with the process itself) large against what a whole velocity field in doubles on rank 0 would add
# (24 B a cell: 160 MiB).
run mem_8 8 lid_driven_cavity/cavity3d.yaml --set "domain.cells=[192,192,192]" --set run.steps=4 --set numerics.precision=fp32 \
  --set output.fields.at_end=false --set output.diagnostics.every=0
line=$(grep "peak host memory" mem_8/run.log)
echo "$line"
read -r r0 med < <(echo "$line" | sed -E 's/.*rank 0 ([0-9.e+]+) MiB, median ([0-9.e+]+) MiB.*/\1 \2/')
if [ -n "${r0:-}" ] && awk -v a="$r0" -v m="$med" 'BEGIN { exit !(a <= 1.5 * m) }'; then pass; else
  fail "rank 0's peak resident memory ${r0:-?} MiB is above 1.5 x the median ${med:-?} MiB"; fi

finish
