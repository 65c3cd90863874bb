#!/usr/bin/env bash
# The plane channel (cases/channel/channel180.yaml, initial.type channel) through the eddy executable, on
# a short box (32 x 32 x 16 cells, FP64, Re_tau 180 at dx+ = 11: a run of the machinery, not of the
# physics):
#   1. the profile statistics over x and z (per_cell: false, exact sums) and the final checkpoint of
#      1 rank equal those of 4 ranks on two process grids ([2, 2, 1] and [1, 1, 4]) and of 3 bitwise;
#   2. 30 steps on 4 ranks, then --restart auto on 2 ranks to step 60: the stats file bitwise the
#      straight run's;
#   3. the walls conserve mass: diagnostics.csv's mass_change (relative) stays below 1e-13 over the
#      run (the body force adds momentum only);
#   4. bad input, exit 2 and nothing written: initial.type channel without walls at y, a lattice
#      velocity whose centreline would run above numerics.max_mach, a grid whose first cell centre lies
#      above numerics.max_first_cell_yplus (the messages name the numbers), and that key without the
#      channel.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/expect/finish
py=/usr/bin/python3
ch=$src/cases/channel/channel180.yaml
base=(--quiet --set "domain.cells=[32,32,16]" --set "domain.length=[2.0,2.0,1.0]" --set numerics.precision=fp64
      --set run.end_time=0 --set run.steps=60 --set output.diagnostics.every=10 --set output.statistics.start=0
      --set output.statistics.every=5 --set output.statistics.write_every=30 --set output.checkpoint.every=30
      --set numerics.max_first_cell_yplus=0)
"$eddy" run "$ch" "${base[@]}" --out c1 || bad "the channel on 1 rank failed"
mpirun -n 4 "$eddy" run "$ch" "${base[@]}" --set "parallel.ranks=[2,2,1]" --out c4 || bad "4 ranks [2,2,1] failed"
mpirun -n 4 "$eddy" run "$ch" "${base[@]}" --set "parallel.ranks=[1,1,4]" --out c4z || bad "4 ranks [1,1,4] failed"
mpirun -n 3 "$eddy" run "$ch" "${base[@]}" --out c3 || bad "3 ranks failed"
"$eddy" run "$ch" "${base[@]}" --set run.steps=30 --out r || bad "the first half on 1 rank failed"
mpirun -n 4 "$eddy" run "$ch" "${base[@]}" --set run.steps=30 --out r4 || bad "the first half on 4 ranks failed"
mpirun -n 2 "$eddy" run "$ch" "${base[@]}" --out r4 --restart auto || bad "the restart on 2 ranks failed"
"$py" - c1 c4 c4z c3 r4 <<'PY' && ok || bad "the channel's statistics or checkpoint differ between decompositions or restarts"
import sys, h5py, numpy as np
one, others = sys.argv[1], sys.argv[2:]
def data(d, f):
    with h5py.File(f"{d}/{f}", "r") as h:
        return {k: h[k][()] for k in h}
s1 = data(one, "stats/channel180_00000060.h5")
assert {"profile_mean_velocity", "profile_reynolds_stress", "profile_y"} <= set(s1), sorted(s1)
assert s1["profile_mean_velocity"].shape == (32, 3) and s1["profile_mean_velocity"][:, 0].min() > 0
for d in others:
    s = data(d, "stats/channel180_00000060.h5")
    assert sorted(s) == sorted(s1), d
    for k in s1:
        assert s[k].tobytes() == s1[k].tobytes(), (d, k)
c1 = data(one, "checkpoints/ckpt_00000060.h5")
for d in others[:3]:
    c = data(d, "checkpoints/ckpt_00000060.h5")
    assert c["state"].tobytes() == c1["state"].tobytes(), d
u = s1["profile_mean_velocity"][:, 0]
print(f"bitwise on {len(others)} other runs; U(y) from {u.min():.4f} to {u.max():.4f} m/s")
PY
"$py" - c1 <<'PY' && ok || bad "the channel's mass is not conserved"
import csv, sys
rows = list(csv.DictReader(open(f"{sys.argv[1]}/diagnostics.csv")))
worst = max(abs(float(r["mass_change"])) for r in rows)
assert len(rows) == 7 and worst < 1e-13, (len(rows), worst)
print(f"mass change at most {worst:.2e} over {len(rows)} rows")
PY

# 4. bad input
expect 2 "initial.type: 'channel' is the plane channel: 3D, walls at y" nowall.log -- run "$ch" --out nowall \
  --set boundaries.y_min.type=periodic --set boundaries.y_max.type=periodic --quiet
[ ! -e nowall ] && ok || bad "the refused channel without walls wrote nowall/"
expect 2 "numerics.lattice_velocity: the channel's centreline runs at about 22.29.* u_tau \(Re_tau = 178.12.*above numerics.max_mach = 0.3; use numerics.lattice_velocity <= 0.0077" \
  fast.log -- run "$ch" --out fast --set numerics.lattice_velocity=0.02 --quiet
[ ! -e fast ] && ok || bad "the refused fast channel wrote fast/"
expect 2 "numerics.max_first_cell_yplus: the first cell centre lies at y\+ = dx / 2 u_tau / nu = 2.78.* \(dx\+ = 5.56.*above 1; use domain.cells\[1\] >= 179" \
  coarse.log -- run "$ch" --out coarse --set "domain.cells=[64,64,32]" --set "domain.length=[2.0,2.0,1.0]" --quiet
[ ! -e coarse ] && ok || bad "the refused coarse channel wrote coarse/"
expect 2 "numerics.max_first_cell_yplus: only the channel \(initial.type: channel\) knows its friction velocity" \
  notchannel.log -- run "$ch" --out notchannel --set initial.type=rest --quiet
[ ! -e notchannel ] && ok || bad "the refused non-channel wrote notchannel/"
finish
