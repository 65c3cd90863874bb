#!/usr/bin/env bash
# Running statistics (output.statistics: stats/<name>_<step>.h5, stats/stats.xmf) through the eddy
# executable:
#   1. 3D periodic LBM (Taylor-Green, 16^3, FP32 populations): the means of velocity, pressure and density
#      and <u_i u_j> equal those computed here from the field files written at every sampled step, to
#      1e-12 of the field's largest magnitude (the eddy sums are the same numbers in lattice units, scaled
#      once: a few units in the last place); the profiles over [x, z] equal the field's average over those
#      axes to the same bound; samples, t_start, t_end; the XDMF series lists every stats file;
#   2. the same statistics on 4 ranks (1 x 2 x 2): every dataset bitwise the same;
#   3. N steps straight == N/2 on 2 ranks (past its checkpoint) + --restart auto on 3 ranks: every dataset
#      of every stats file bitwise the same, and the XDMF series the same times;
#   4. spectral 3D (Taylor-Green 16^3): velocity, <u_i u_j> and vorticity against the field files (1e-12);
#      4 ranks on pencils [1, 2, 2] within 1e-12 (the transforms' round-off); a restart on 1 rank bitwise;
#   5. bad input, exit 2 and no output directory: average_over a wall-bounded direction, start after the
#      end, a field the solver does not sum, a direction the run lacks, keys without a schedule, per_cell
#      false on the spectral solver or without average_over;
#   6. profiles alone (per_cell: false, summed exactly inside the LBM step): the profiles of 1 equal
#      within 1e-14 of the largest 3D mean (the per-cell sums' rounding: 11 FP64 additions, 11 x 2^-53;
#      the exact sums' 2^-64 a term), no 3D dataset and no XDMF; 4 ranks bitwise; N straight == N/2 on 2
#      ranks + restart on 3 bitwise (the checkpoint at step 25 takes the sample its step was to take);
#      a 2D cavity averaged over x (walls: the odd step's cells next to them) against its per-cell run.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/finish, expect, cav.yaml
py=/usr/bin/python3

# same_stats A B [TOL]: the same stats files in A/stats and B/stats, every dataset bitwise (or within TOL
# of its largest magnitude) and the attributes samples, t_start, t_end equal; the same XDMF times.
same_stats() {
  "$py" - "$1" "$2" "${3:-0}" <<'PY' && ok || bad "the statistics of $1 and $2 differ"
import sys, os, re, h5py, numpy as np
a, b, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
files = sorted(f for f in os.listdir(f"{a}/stats") if f.endswith(".h5"))
assert files and files == sorted(f for f in os.listdir(f"{b}/stats") if f.endswith(".h5")), files
for name in files:
    x, y = h5py.File(f"{a}/stats/{name}", "r"), h5py.File(f"{b}/stats/{name}", "r")
    assert sorted(x.keys()) == sorted(y.keys()), (name, sorted(x.keys()), sorted(y.keys()))
    for k in ("samples", "t_start", "t_end", "step", "time"):
        assert x.attrs[k] == y.attrs[k], (name, k, x.attrs[k], y.attrs[k])
    for k in x.keys():
        u, v = x[k][()], y[k][()]
        assert u.shape == v.shape and u.dtype == v.dtype, (name, k, u.shape, v.shape)
        if tol == 0:
            assert u.tobytes() == v.tobytes(), (name, k, np.argwhere(u != v)[:3])
        else:
            scale = max(np.abs(u).max(), 1e-300)
            assert np.abs(u - v).max() <= tol * scale, (name, k, np.abs(u - v).max() / scale)
times = lambda d: re.findall(r'<Time Value="([^"]+)"', open(f"{d}/stats/stats.xmf").read())
if os.path.exists(f"{a}/stats/stats.xmf") or os.path.exists(f"{b}/stats/stats.xmf"):
    assert times(a) == times(b) and len(times(a)) == len(files), (times(a), times(b), files)
PY
}

# check_means DIR NAME START EVERY FIELDS AXES: each stats file of DIR against the field files of the
# sampled steps (START, START + EVERY, ... up to the file's step): every dataset within 1e-12 of the
# field's largest magnitude, the profiles over AXES (e.g. "x z") too.
check_means() {
  "$py" - "$@" <<'PY' && ok || bad "the statistics of $1 do not match the field files"
import sys, os, h5py, numpy as np
d, name, start, every, fields, axes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(), sys.argv[6].split()
files = sorted(f for f in os.listdir(f"{d}/stats") if f.endswith(".h5"))
assert len(files) >= 2, files
source = {"mean_velocity": "velocity", "mean_pressure": "pressure", "mean_density": "density",
          "reynolds_stress": None, "mean_vorticity": "vorticity"}
for fname in files:
    s = h5py.File(f"{d}/stats/{fname}", "r")
    step = int(s.attrs["step"])
    steps = list(range(start, step + 1, every))
    assert int(s.attrs["samples"]) == len(steps), (fname, s.attrs["samples"], steps)
    f0, f1 = (h5py.File(f"{d}/fields/{name}_{n:08d}.h5", "r") for n in (steps[0], steps[-1]))
    assert s.attrs["t_start"] == f0.attrs["time"] and s.attrs["t_end"] == f1.attrs["time"]
    acc = {}
    for n in steps:
        f = h5py.File(f"{d}/fields/{name}_{n:08d}.h5", "r")
        for ds in fields:
            if ds == "reynolds_stress":
                u = f["velocity"][()]
                dims = u.shape[-1]
                v = np.stack([u[..., i] * u[..., j] for i in range(dims) for j in range(i, dims)], axis=-1)
            else:
                v = f[source[ds]][()]
            acc[ds] = acc.get(ds, 0) + v
    for ds in fields:
        want = acc[ds] / len(steps)
        got = s[ds][()]
        assert got.shape == want.shape, (fname, ds, got.shape, want.shape)
        scale = np.abs(want).max()
        err = np.abs(got - want).max()
        assert err <= 1e-12 * scale, (fname, ds, err / scale)
        assert s[ds].attrs["units"]
        if axes:
            ax = tuple(got.ndim - (1 if ds in ("mean_velocity", "reynolds_stress", "mean_vorticity") else 0) - 1 - "xyz".index(a) for a in axes)
            prof = want.mean(axis=ax)
            p = s["profile_" + ds][()]
            assert p.shape == prof.shape, (fname, ds, p.shape, prof.shape)
            assert np.abs(p - prof).max() <= 1e-12 * scale, (fname, ds, np.abs(p - prof).max() / scale)
    for a in "xyz"[: s["mean_velocity"].ndim - 1]:
        if axes and a not in axes:
            n = s["mean_velocity"].shape[s["mean_velocity"].ndim - 2 - "xyz".index(a)]
            assert np.allclose(s["profile_" + a][()], (np.arange(n) + 0.5) * 2 * np.pi / n)
PY
}

# 1. 3D periodic LBM against the field files
tgv=$src/cases/taylor_green/tgv3d_lbm.yaml
lbm=(--set "domain.cells=[16,16,16]" --set run.end_time=0 --set run.steps=60 --set output.diagnostics.every=20
     --set validation.reference=none --quiet --set output.statistics.every=5 --set output.statistics.start=10
     --set "output.statistics.fields=[velocity, pressure, density, reynolds_stress]"
     --set "output.statistics.average_over=[x, z]" --set output.statistics.write_every=30)
"$eddy" run "$tgv" "${lbm[@]}" --set output.fields.every=5 --out lbm1 || bad "the LBM statistics run failed"
[ -e lbm1/stats/tgv3d_lbm_00000030.h5 ] && [ -e lbm1/stats/tgv3d_lbm_00000060.h5 ] && [ -e lbm1/stats/stats.xmf ] &&
  ok || bad "the LBM run wrote no stats files at steps 30 and 60"
check_means lbm1 tgv3d_lbm 10 5 "mean_velocity mean_pressure mean_density reynolds_stress" "x z"

# 2. 4 ranks, bitwise
mpirun -n 4 "$eddy" run "$tgv" "${lbm[@]}" --set "parallel.ranks=[1,2,2]" --set output.fields.every=0 --out lbm4 ||
  bad "the 4-rank LBM statistics run failed"
same_stats lbm1 lbm4

# 3. N straight == N/2 on 2 ranks (checkpoint at 25, run to 40) + restart on 3 ranks
split=("${lbm[@]}" --set output.fields.every=0 --set output.checkpoint.every=25)
"$eddy" run "$tgv" "${split[@]}" --out straight || bad "the straight run failed"
mpirun -n 2 "$eddy" run "$tgv" "${split[@]}" --set run.steps=40 --out split || bad "the first part failed"
rm -f split/stats/tgv3d_lbm_00000040.*  # the first part's end, which the straight run does not write
mpirun -n 3 "$eddy" run "$tgv" "${split[@]}" --out split --restart auto || bad "the restart failed"
grep -q "statistics continued from" split/run.log && ok || bad "the restart did not continue the statistics"
same_stats straight split

# 4. spectral 3D against the field files; pencils; a restart
tg3=$src/cases/taylor_green/tgv3d_spectral.yaml
s3=(--set "domain.cells=[16,16,16]" --set numerics.dt=0.01 --set run.end_time=0 --set run.steps=12
    --set output.diagnostics.every=4 --set validation.reference=none --quiet --set output.statistics.every=2
    --set "output.statistics.fields=[velocity, reynolds_stress, vorticity]" --set "output.statistics.average_over=[z]"
    --set output.statistics.write_every=6)
"$eddy" run "$tg3" "${s3[@]}" --set output.fields.every=2 --out sp1 || bad "the spectral statistics run failed"
check_means sp1 tgv3d_spectral 0 2 "mean_velocity reynolds_stress mean_vorticity" "z"
mpirun -n 4 "$eddy" run "$tg3" "${s3[@]}" --set "parallel.ranks=[1,2,2]" --out sp4 || bad "the spectral 4-rank run failed"
same_stats sp1 sp4 1e-12
"$eddy" run "$tg3" "${s3[@]}" --out sp_straight --set output.checkpoint.every=4 || bad "the spectral straight run failed"
"$eddy" run "$tg3" "${s3[@]}" --out sp_split --set output.checkpoint.every=4 --set run.steps=5 ||
  bad "the spectral first part failed"
rm -f sp_split/stats/tgv3d_spectral_00000005.*  # the first part's end
"$eddy" run "$tg3" "${s3[@]}" --out sp_split --set output.checkpoint.every=4 --restart auto ||
  bad "the spectral restart failed"
same_stats sp_straight sp_split

# 5. bad input
st=(--set output.statistics.every=10)
expect 2 "output.statistics.average_over\[0\].*'y' is not periodic.*allow_nonperiodic" bad1.log -- run cav.yaml --out bad1 \
  "${st[@]}" --set "output.statistics.average_over=[y]"
expect 2 "output.statistics.start.*not before run.end_time" bad2.log -- run "$tgv" --out bad2 "${st[@]}" \
  --set output.statistics.start=30t
expect 2 "output.statistics.start.*after run.steps" bad3.log -- run cav.yaml --out bad3 "${st[@]}" \
  --set output.statistics.start=500
expect 2 "output.statistics.fields\[0\].*'vorticity' is not accumulated by solver lbm" bad4.log -- run cav.yaml \
  --out bad4 "${st[@]}" --set "output.statistics.fields=[vorticity]"
expect 2 "output.statistics.average_over\[0\].*'z' is not a direction of a 2D run" bad5.log -- run cav.yaml --out bad5 \
  "${st[@]}" --set "output.statistics.average_over=[z]" --set output.statistics.allow_nonperiodic=true
expect 2 "output.statistics.fields.*no schedule" bad6.log -- run cav.yaml --out bad6 \
  --set "output.statistics.fields=[pressure]"
expect 2 "output.statistics.fields\[0\].*'pressure' is not accumulated by solver spectral" bad7.log -- run "$tg3" \
  --out bad7 "${st[@]}" --set "output.statistics.fields=[pressure]"
expect 2 "output.statistics.per_cell.*for the LBM solver" bad8.log -- run "$tg3" --out bad8 "${st[@]}" \
  --set output.statistics.per_cell=false --set "output.statistics.average_over=[z]"
expect 2 "output.statistics.per_cell.*average_over must name" bad9.log -- run "$tgv" --out bad9 "${st[@]}" \
  --set output.statistics.per_cell=false
for n in 1 2 3 4 5 6 7 8 9; do [ ! -e bad$n ] && ok || bad "bad input $n left an output directory"; done

# 6. profiles alone
# same_profiles A B: every profile_* dataset of every stats file of B within 1e-14 of the largest value of
# the matching 3D mean of A; B holds no 3D mean and no XDMF.
same_profiles() {
  "$py" - "$1" "$2" <<'PY' && ok || bad "the exact profiles of $2 differ from the per-cell ones of $1"
import sys, os, h5py, numpy as np
a, b = sys.argv[1], sys.argv[2]
files = sorted(f for f in os.listdir(f"{b}/stats") if f.endswith(".h5"))
assert files and files == sorted(f for f in os.listdir(f"{a}/stats") if f.endswith(".h5")), files
assert not any(f.endswith(".xmf") for f in os.listdir(f"{b}/stats")), os.listdir(f"{b}/stats")
for name in files:
    x, y = h5py.File(f"{a}/stats/{name}", "r"), h5py.File(f"{b}/stats/{name}", "r")
    for k in ("samples", "t_start", "t_end", "step", "time"):
        assert x.attrs[k] == y.attrs[k], (name, k, x.attrs[k], y.attrs[k])
    profiles = [k for k in y.keys() if k.startswith("profile_")]
    assert sorted(profiles) == sorted(k for k in x.keys() if k.startswith("profile_")), (profiles, list(x.keys()))
    assert not any(k.startswith("mean_") or k == "reynolds_stress" for k in y.keys()), list(y.keys())
    for k in profiles:
        u, v = x[k][()], y[k][()]
        assert u.shape == v.shape, (name, k, u.shape, v.shape)
        scale = np.abs(x[k[len("profile_"):]][()]).max() if k[len("profile_"):] in x else np.abs(u).max()
        err = np.abs(u - v).max()
        assert err <= 1e-14 * scale, (name, k, err / scale)
        print(name, k, "max difference / largest mean", err / scale)
PY
}
prof=(--set output.statistics.per_cell=false)
"$eddy" run "$tgv" "${lbm[@]}" "${prof[@]}" --out prof1 || bad "the LBM profile run failed"
same_profiles lbm1 prof1
mpirun -n 4 "$eddy" run "$tgv" "${lbm[@]}" "${prof[@]}" --set "parallel.ranks=[1,2,2]" --out prof4 ||
  bad "the 4-rank profile run failed"
same_stats prof1 prof4
"$eddy" run "$tgv" "${split[@]}" "${prof[@]}" --out pstraight || bad "the straight profile run failed"
mpirun -n 2 "$eddy" run "$tgv" "${split[@]}" "${prof[@]}" --set run.steps=40 --out psplit ||
  bad "the first part of the profile run failed"
rm -f psplit/stats/tgv3d_lbm_00000040.*
mpirun -n 3 "$eddy" run "$tgv" "${split[@]}" "${prof[@]}" --out psplit --restart auto || bad "the profile restart failed"
grep -q "statistics continued from" psplit/run.log && ok || bad "the restart did not continue the profile sums"
same_stats pstraight psplit
cavs=(--quiet --set run.steps=120 --set output.statistics.every=3 --set output.statistics.start=30
      --set "output.statistics.fields=[velocity, pressure, reynolds_stress]" --set "output.statistics.average_over=[x]"
      --set output.statistics.allow_nonperiodic=true --set output.statistics.write_every=60)
"$eddy" run cav.yaml "${cavs[@]}" --out cavc || bad "the cavity per-cell run failed"
"$eddy" run cav.yaml "${cavs[@]}" "${prof[@]}" --out cavp || bad "the cavity profile run failed"
same_profiles cavc cavp
"$eddy" run cav.yaml --out plain --quiet --set run.steps=50 || bad "the plain run failed"
[ ! -e plain/stats ] && ok || bad "a run without output.statistics wrote stats/"
finish
