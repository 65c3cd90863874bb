#!/usr/bin/env bash
# The 2D cavity, the 3D cavity and a 3D periodic Taylor-Green vortex on 1, 2 and 4 ranks (4
# oversubscribed), several process grids and uneven boxes, populations and moments stored: h5diff with no
# tolerance on every field.
eddy=$1 src=$2
source "$src/tests/support/checks.sh"
run() {  # run NAME NP CONFIG [--set ...]
  local name=$1 np=$2 cfg=$3
  shift 3
  mpirun -n "$np" "$eddy" run "$src/cases/$cfg" --quiet --out "$name" --set run.end_time=0 \
    --set run.steady.tolerance=0 --set output.fields.every=0 --set output.diagnostics.every=50 \
    --set validation.reference=none "$@" >"$name.log" 2>&1 || { echo "FAIL: $name exited $?"; cat "$name.log"; fails=$((fails + 1)); }
}
same() { same_fields "$1" "$2" "$3" 0 velocity density pressure; }  # same A B STEP: bitwise
c2=(--set "domain.cells=[37,29]" --set "domain.length=[1.0,0.7837837837837838]" --set physics.reynolds=100 --set run.steps=201)
run c2_1 1 lid_driven_cavity/cavity2d.yaml "${c2[@]}"
run c2_2 2 lid_driven_cavity/cavity2d.yaml "${c2[@]}"
run c2_4 4 lid_driven_cavity/cavity2d.yaml "${c2[@]}"
run c2_4x1 4 lid_driven_cavity/cavity2d.yaml "${c2[@]}" --set "parallel.ranks=[4,1]"
for n in 2 4 4x1; do same c2_1 c2_$n 201; done

c3=(--set "domain.cells=[13,12,11]" --set "domain.length=[1.0,0.923076923076923,0.846153846153846]" --set run.steps=101
    --set numerics.precision=fp64)
run c3_1 1 lid_driven_cavity/cavity3d.yaml "${c3[@]}"
run c3_2 2 lid_driven_cavity/cavity3d.yaml "${c3[@]}"
run c3_4 4 lid_driven_cavity/cavity3d.yaml "${c3[@]}"
run c3_1x2x2 4 lid_driven_cavity/cavity3d.yaml "${c3[@]}" --set "parallel.ranks=[1,2,2]"
for n in 2 4 1x2x2; do same c3_1 c3_$n 101; done

tg=(--set "domain.cells=[16,16,16]" --set run.steps=61 --set numerics.precision=fp32)
run tg_1 1 taylor_green/tgv3d_lbm.yaml "${tg[@]}"
run tg_2 2 taylor_green/tgv3d_lbm.yaml "${tg[@]}"
run tg_4 4 taylor_green/tgv3d_lbm.yaml "${tg[@]}"
run tg_4x1x1 4 taylor_green/tgv3d_lbm.yaml "${tg[@]}" --set "parallel.ranks=[4,1,1]"
for n in 2 4 4x1x1; do same tg_1 tg_$n 61; done
# Periodic in x and z, walls in y (one rank wraps x and z in the kernels; [1,2,2] wraps x only and
# exchanges z; [2,1,1] wraps z only): mixed wrapped / exchanged / wall links, corners included.
tw=("${tg[@]}" --set boundaries.y_min.type=wall --set boundaries.y_max.type=moving_wall
    --set "boundaries.y_max.velocity=[1.0,0.0,0.5]")
run tw_1 1 taylor_green/tgv3d_lbm.yaml "${tw[@]}"
run tw_1x2x2 4 taylor_green/tgv3d_lbm.yaml "${tw[@]}" --set "parallel.ranks=[1,2,2]"
run tw_2x1x1 2 taylor_green/tgv3d_lbm.yaml "${tw[@]}" --set "parallel.ranks=[2,1,1]"
for n in 1x2x2 2x1x1; do same tw_1 tw_$n 61; done

# The regularized operator with the Smagorinsky model (D3Q27), and with a body force (2D channel-like
# cavity): every operator stays cell-local, so the results must not depend on the decomposition either.
tr=(--set "domain.cells=[16,16,16]" --set run.steps=41 --set numerics.precision=fp32 --set numerics.lattice=D3Q27
    --set numerics.collision=regularized --set numerics.les.model=smagorinsky)
run tr_1 1 taylor_green/tgv3d_lbm.yaml "${tr[@]}"
run tr_4 4 taylor_green/tgv3d_lbm.yaml "${tr[@]}"
run tr_2x2x1 4 taylor_green/tgv3d_lbm.yaml "${tr[@]}" --set "parallel.ranks=[2,2,1]"
for n in 4 2x2x1; do same tr_1 tr_$n 41; done
# 16-bit population storage: the halo messages carry the stored 16-bit words, so decompositions agree bitwise.
h2=("${c2[@]}" --set numerics.precision=fp32/fp16)
run h2_1 1 lid_driven_cavity/cavity2d.yaml "${h2[@]}"
run h2_4x1 4 lid_driven_cavity/cavity2d.yaml "${h2[@]}" --set "parallel.ranks=[4,1]"
same h2_1 h2_4x1 201
h3=("${tg[@]}" --set numerics.precision=fp32/fp16 --set numerics.lattice=D3Q27)
run h3_1 1 taylor_green/tgv3d_lbm.yaml "${h3[@]}"
run h3_1x2x2 4 taylor_green/tgv3d_lbm.yaml "${h3[@]}" --set "parallel.ranks=[1,2,2]"
same h3_1 h3_1x2x2 61

cf=("${c2[@]}" --set numerics.collision=regularized --set "physics.body_force=[0.5,-0.25]")
run cf_1 1 lid_driven_cavity/cavity2d.yaml "${cf[@]}"
run cf_2 2 lid_driven_cavity/cavity2d.yaml "${cf[@]}"
run cf_4x1 4 lid_driven_cavity/cavity2d.yaml "${cf[@]}" --set "parallel.ranks=[4,1]"
for n in 2 4x1; do same cf_1 cf_$n 201; done

# Moment storage (numerics.storage: moments): its halo carries whole ghost cells' moments, and the cells
# next to a wall take their stress from the velocities of their neighbours, ghosts included: periodic
# D3Q19 and D3Q27 with LES, walls with a moving one, the 2D cavity with a body force, 16-bit moments.
mo=(--set numerics.collision=regularized --set numerics.storage=moments)
run mt_1 1 taylor_green/tgv3d_lbm.yaml "${tg[@]}" "${mo[@]}"
run mt_4 4 taylor_green/tgv3d_lbm.yaml "${tg[@]}" "${mo[@]}"
run mt_2x2x1 4 taylor_green/tgv3d_lbm.yaml "${tg[@]}" "${mo[@]}" --set "parallel.ranks=[2,2,1]"
for n in 4 2x2x1; do same mt_1 mt_$n 61; done
run mr_1 1 taylor_green/tgv3d_lbm.yaml "${tr[@]}" "${mo[@]}"
run mr_2 2 taylor_green/tgv3d_lbm.yaml "${tr[@]}" "${mo[@]}"
same mr_1 mr_2 41
run mw_1 1 taylor_green/tgv3d_lbm.yaml "${tw[@]}" "${mo[@]}"
run mw_1x2x2 4 taylor_green/tgv3d_lbm.yaml "${tw[@]}" "${mo[@]}" --set "parallel.ranks=[1,2,2]"
run mw_2x1x1 2 taylor_green/tgv3d_lbm.yaml "${tw[@]}" "${mo[@]}" --set "parallel.ranks=[2,1,1]"
for n in 1x2x2 2x1x1; do same mw_1 mw_$n 61; done
run mc_1 1 lid_driven_cavity/cavity2d.yaml "${cf[@]}" "${mo[@]}"
run mc_2x2 4 lid_driven_cavity/cavity2d.yaml "${cf[@]}" "${mo[@]}" --set "parallel.ranks=[2,2]"
run mc_4x1 4 lid_driven_cavity/cavity2d.yaml "${cf[@]}" "${mo[@]}" --set "parallel.ranks=[4,1]"
for n in 2x2 4x1; do same mc_1 mc_$n 201; done
run mh_1 1 taylor_green/tgv3d_lbm.yaml "${tw[@]}" "${mo[@]}" --set numerics.precision=fp32/fp16
run mh_2x2x1 4 taylor_green/tgv3d_lbm.yaml "${tw[@]}" "${mo[@]}" --set numerics.precision=fp32/fp16 --set "parallel.ranks=[2,2,1]"
same mh_1 mh_2x2x1 61

# Bodies and open faces: the 2D-1 cylinder (Bouzidi walls, parabolic inlet with its ramp,
# pressure outlet) and a 3D sphere in a duct (D3Q19, half-way walls, uniform inlet, outflow): fields and
# the force columns of diagnostics.csv bitwise equal for 1, 2 and 4 ranks.
same_forces() {  # same_forces A B: the force / coefficient columns (12 on) of every diagnostics row
  if [ -s "$1/diagnostics.csv" ] && cmp -s <(cut -d, -f1,12- "$1/diagnostics.csv") <(cut -d, -f1,12- "$2/diagnostics.csv"); then
    passes=$((passes + 1)); else echo "FAIL: $1 vs $2: forces differ"; paste -d'\n' "$1/diagnostics.csv" "$2/diagnostics.csv" | tail -4; fails=$((fails + 1)); fi
}
cy=(--set "domain.cells=[220,41]" --set run.steps=301 --set boundaries.x_min.ramp_time=0.2)
run cy_1 1 cylinder/cylinder2d_re20.yaml "${cy[@]}"
run cy_2 2 cylinder/cylinder2d_re20.yaml "${cy[@]}"
run cy_4 4 cylinder/cylinder2d_re20.yaml "${cy[@]}"
run cy_2x2 4 cylinder/cylinder2d_re20.yaml "${cy[@]}" --set "parallel.ranks=[2,2]"
# bodies.txt: the forces and the pressure differences across the body, whose stencil cells come exactly
# from the ranks that own them.
for n in 2 4 2x2; do same cy_1 cy_$n 301; same_forces cy_1 cy_$n; same_file cy_1 cy_$n bodies.txt; done
sp=(--set "domain.cells=[24,12,12]" --set "domain.length=[0.48,0.24,0.24]" --set run.steps=81 --set numerics.lattice=D3Q19
    --set boundaries.z_min.type=wall --set boundaries.z_max.type=wall --set "boundaries.x_min.velocity=[0.3,0.0,0.0]"
    --set boundaries.x_min.profile=uniform --set boundaries.x_max.type=outflow --set initial.type=inflow
    --set "geometry.bodies=[{type: sphere, center: [0.15, 0.11, 0.13], radius: 0.05}]" --set geometry.wall=halfway
    --set geometry.reference_area=0.00785)
run sp_1 1 cylinder/cylinder2d_re20.yaml "${sp[@]}"
run sp_2 2 cylinder/cylinder2d_re20.yaml "${sp[@]}"
run sp_4 4 cylinder/cylinder2d_re20.yaml "${sp[@]}" --set "parallel.ranks=[2,1,2]"
for n in 2 4; do same sp_1 sp_$n 81; same_forces sp_1 sp_$n; done

# The end-of-run validation where the data lives: the Ghia centrelines are assembled from the cells each
# rank owns, so validation.csv is byte for byte one rank's. 36^2 puts the two middle columns (17, 18) and
# rows on different ranks of [2, 1], [1, 2] and [2, 2].
gh=(--set "domain.cells=[36,36]" --set physics.reynolds=100 --set run.steps=201 --set validation.reference=ghia1982)
run gh_1 1 lid_driven_cavity/cavity2d.yaml "${gh[@]}"
run gh_2x1 2 lid_driven_cavity/cavity2d.yaml "${gh[@]}" --set "parallel.ranks=[2,1]"
run gh_1x2 2 lid_driven_cavity/cavity2d.yaml "${gh[@]}" --set "parallel.ranks=[1,2]"
run gh_2x2 4 lid_driven_cavity/cavity2d.yaml "${gh[@]}" --set "parallel.ranks=[2,2]"
for n in 2x1 1x2 2x2; do same_file gh_1 gh_$n validation.csv; done
# The cube's against Albensoeder & Kuhlmann: 20^3 puts the middle columns (9, 10) of x, y and z on
# different ranks of [2, 2, 2] and [1, 2, 2]; each slot of a profile has one rank's term.
ak=(--set "domain.cells=[20,20,20]" --set run.steps=61 --set validation.reference=albensoeder2005)
run ak_1 1 lid_driven_cavity/cavity3d.yaml "${ak[@]}"
run ak_8 8 lid_driven_cavity/cavity3d.yaml "${ak[@]}" --set "parallel.ranks=[2,2,2]"
run ak_4 4 lid_driven_cavity/cavity3d.yaml "${ak[@]}" --set "parallel.ranks=[1,2,2]"
for n in 8 4; do same_file ak_1 ak_$n validation.csv; done

# Bad decompositions are input errors (exit 2) before anything is written.
mpirun -n 3 "$eddy" run "$src/cases/lid_driven_cavity/cavity2d.yaml" --set "parallel.ranks=[2,1]" --out bad1 >bad1.log 2>&1
code=$?
if [ $code = 2 ] && grep -q "parallel.ranks" bad1.log && [ ! -e bad1 ]; then passes=$((passes + 1)); else
  echo "FAIL: parallel.ranks mismatch: exit $code"; cat bad1.log; fails=$((fails + 1)); fi
mpirun -n 4 "$eddy" run "$src/cases/lid_driven_cavity/cavity2d.yaml" --set "domain.cells=[3,64]" --set "domain.length=[0.046875,1.0]" \
  --set "parallel.ranks=[4,1]" --out bad2 >bad2.log 2>&1
code=$?
if [ $code = 2 ] && grep -q "cannot be split" bad2.log && [ ! -e bad2 ]; then passes=$((passes + 1)); else
  echo "FAIL: more ranks than cells: exit $code"; cat bad2.log; fails=$((fails + 1)); fi
finish
