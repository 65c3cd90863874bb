#!/usr/bin/env bash
# Slices (output.slices: slices/<name>_<axis><i>_<step>.h5 and slices/<name>_<axis><i>.xmf) through the eddy
# executable:
#   1. LBM 3D periodic Taylor-Green vortex, slices normal to x, y (on a time schedule) and z (the first
#      layer, the last one through position = L, a middle one): each slice file holds bitwise the field
#      file's values of its layer at the same step (velocity, density, pressure), with the plane's shape,
#      coordinates and attributes, and the
#      XDMF series lists every step once with its time; no slices/ folder without output.slices;
#   2. the same slices on 4 ranks (1 x 2 x 2: the z and y layers on two ranks of four, the others taking
#      part with an empty box), per_rank and gather writers, are bitwise the one-rank slices;
#   3. N steps straight == N/2 steps past a checkpoint + --restart auto on 2 ranks (the auto writer:
#      collective where HDF5 is parallel, the z layer on one rank of two): the same slice files
#      (one of the first part's files after the checkpoint replaced by another beforehand: it is written
#      again) and the same XDMF series, byte for byte: no duplicate, no missing time;
#   4. spectral 3D: velocity and vorticity slices bitwise the field files (1 rank, and pencils on 4 ranks,
#      each against its own run's field files); 4 ranks within the spectral agreement (1e-12) of 1 rank;
#   5. bad input: exit 2 naming the key and what is valid, and no output directory.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/expect/finish
py=/usr/bin/python3
tgv=$src/cases/taylor_green/tgv3d_lbm.yaml
tg3=$src/cases/taylor_green/tgv3d_spectral.yaml

# against_fields DIR NAME: every slice file of DIR equals the field file of its step at its layer, bitwise;
# shapes, coordinates, attributes; the XDMF series of each slice names every slice file once, by step.
against_fields() {
  "$py" - "$1" "$2" <<'PY' && ok || bad "$1: the slices do not match the field files"
import sys, re, glob, os, h5py, numpy as np
d, name = sys.argv[1:3]
seen = 0
stems = sorted({re.sub(r"_\d{8}\.h5$", "", os.path.basename(p)) for p in glob.glob(f"{d}/slices/*.h5")})
assert stems, "no slice files"
for stem in stems:
    files = sorted(glob.glob(f"{d}/slices/{stem}_*.h5"))
    steps = [int(p[-11:-3]) for p in files]
    xmf = open(f"{d}/slices/{stem}.xmf").read()
    assert re.findall(r'<Grid Name="step_(\d+)"', xmf) == [f"{s:08d}" for s in steps], (stem, steps)
    assert xmf.count("<Time Value=") == len(steps)
    for step, path in zip(steps, files):
        s = h5py.File(path, "r")
        axis, i = s.attrs["axis"], int(s.attrs["index"])
        assert stem == f"{name}_{axis}{i}", (stem, axis, i)
        assert int(s.attrs["step"]) == step and "resolved_config" in s.attrs and "eddy_version" in s.attrs
        a = "xyz".index(axis)
        f = h5py.File(f"{d}/fields/{name}_{step:08d}.h5", "r")
        assert float(s.attrs["time"]) == float(f.attrs["time"])
        assert s[axis][()].tolist() == [f[axis][i]], (axis, s[axis][()], f[axis][i])
        for other in "xyz":
            if other != axis:
                assert s[other][()].tobytes() == f[other][()].tobytes(), other
        names = [n for n in s if n not in ("x", "y", "z")]
        assert names, path
        for n in names:
            field = f[n][()]  # (nz, ny, nx[, 3])
            want = np.take(field, i, axis=2 - a)
            got = s[n][()]
            assert got.shape == want.shape and got.dtype == want.dtype, (path, n, got.shape, want.shape)
            assert got.tobytes() == want.tobytes(), (path, n, np.argwhere(got != want)[:3])
            assert s[n].attrs["units"] == f[n].attrs["units"]
            seen += 1
print(seen, "datasets")
PY
}
# same_slices A B [TOL]: the same slice files in A/slices and B/slices, each dataset bitwise (or within TOL
# relative to its largest magnitude), the same attributes but `ranks` and `resolved_config` (the runs'
# settings differ: rank grid, writer, steps)
same_slices() {
  "$py" - "$1" "$2" "${3:-0}" <<'PY' && ok || bad "$1/slices and $2/slices differ"
import sys, glob, os, h5py, numpy as np
a, b, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
fa = sorted(os.path.basename(p) for p in glob.glob(f"{a}/slices/*.h5"))
fb = sorted(os.path.basename(p) for p in glob.glob(f"{b}/slices/*.h5"))
assert fa and fa == fb, (fa, fb)
for n in fa:
    x, y = h5py.File(f"{a}/slices/{n}", "r"), h5py.File(f"{b}/slices/{n}", "r")
    assert sorted(x.keys()) == sorted(y.keys()), n
    for k in x.attrs:
        if k not in ("ranks", "resolved_config"):
            assert np.array_equal(x.attrs[k], y.attrs[k]), (n, k)
    for k in x:
        u, v = x[k][()], y[k][()]
        assert u.shape == v.shape and u.dtype == v.dtype, (n, k)
        if tol == 0:
            assert u.tobytes() == v.tobytes(), (n, k, np.argwhere(u != v)[:3])
        else:
            assert np.abs(u - v).max() <= tol * max(np.abs(u).max(), 1e-300), (n, k)
PY
}

# 1. LBM, one rank: x = 0.3 (layer 0) and z = pi (layer 8) every 10 steps, y = 2 pi (the last layer, 15)
#    every 0.45 s (dt = 0.02267 s: steps 0, 20, 40, 60), and field files every 10 steps
lbm=(--set "domain.cells=[16,16,16]" --set run.end_time=0 --set run.steps=60 --set output.fields.every=10
     --set output.diagnostics.every=20 --set validation.reference=none --quiet
     --set "output.slices=[{axis: z, position: 3.141592653589793, every: 10, fields: [velocity, density, pressure]}, {axis: x, position: 0.3, every: 10, fields: [velocity, pressure]}, {axis: y, position: 6.283185307179586, every: 0.45t, fields: [density]}]")
"$eddy" run "$tgv" "${lbm[@]}" --out lbm1 || bad "the LBM slices run failed"
[ -e lbm1/slices/tgv3d_lbm_z8_00000060.h5 ] && [ -e lbm1/slices/tgv3d_lbm_x0_00000000.h5 ] &&
  [ -e lbm1/slices/tgv3d_lbm_y15_00000040.h5 ] && [ -e lbm1/slices/tgv3d_lbm_z8.xmf ] && ok ||
  bad "lbm1/slices lacks the expected files: $(ls lbm1/slices | head -5)"
"$py" - lbm1 <<'PY' && ok || bad "lbm1: the slice files' layout is not the documented one"
import sys, h5py
d = sys.argv[1]
z, x, y = (h5py.File(f"{d}/slices/tgv3d_lbm_{s}_00000020.h5", "r") for s in ("z8", "x0", "y15"))
assert z["velocity"].shape == (16, 16, 3) and z["density"].shape == (16, 16) and z["velocity"].attrs["units"] == "m/s"
assert x["velocity"].shape == (16, 16, 3) and sorted(x.keys()) == ["pressure", "velocity", "x", "y", "z"]
assert y["density"].shape == (16, 16) and y.attrs["axis"] == "y" and int(y.attrs["index"]) == 15
assert float(z.attrs["position"]) == 3.141592653589793 and z.attrs["solver"] == "lbm"
PY
against_fields lbm1 tgv3d_lbm
"$eddy" run "$tgv" "${lbm[@]}" --set "output.slices=[]" --set run.steps=10 --out plain || bad "the plain run failed"
[ ! -e plain/slices ] && ok || bad "a run without output.slices made slices/"

# 2. 4 ranks, 1 x 2 x 2, with the per_rank and the gather writer: bitwise the one-rank slices
for writer in per_rank gather; do
  mpirun -n 4 "$eddy" run "$tgv" "${lbm[@]}" --set "parallel.ranks=[1,2,2]" --set output.writer=$writer \
    --out lbm4_$writer || bad "the 4-rank LBM slices run ($writer) failed"
  same_slices lbm1 lbm4_$writer
done
against_fields lbm4_per_rank tgv3d_lbm

# 3. 60 steps straight against 40 steps (checkpoint at 25) + a restart to 60 on 2 ranks; the first part's
#    step-40 slice replaced by its step-30 one, so that only a file written again can match
rs=(--set output.checkpoint.every=25 --set output.fields.every=0 --set output.fields.at_end=false)
"$eddy" run "$tgv" "${lbm[@]}" "${rs[@]}" --out straight || bad "the straight run failed"
"$eddy" run "$tgv" "${lbm[@]}" "${rs[@]}" --set run.steps=40 --out split || bad "the first part failed"
grep -c '<Grid Name="step_' split/slices/tgv3d_lbm_z8.xmf | grep -qx 5 && ok || bad "the first part's series lacks steps 0..40"
cp split/slices/tgv3d_lbm_z8_00000030.h5 split/slices/tgv3d_lbm_z8_00000040.h5
mpirun -n 2 "$eddy" run "$tgv" "${lbm[@]}" "${rs[@]}" --out split --restart auto || bad "the restart failed"
same_slices straight split
for s in z8 x0 y15; do
  cmp -s straight/slices/tgv3d_lbm_$s.xmf split/slices/tgv3d_lbm_$s.xmf && ok ||
    bad "the restarted series tgv3d_lbm_$s.xmf differs from the straight run's: $(diff straight/slices/tgv3d_lbm_$s.xmf split/slices/tgv3d_lbm_$s.xmf | head -5)"
done
grep -o '<Grid Name="step_[0-9]*"' split/slices/tgv3d_lbm_z8.xmf | tr -dc '0-9\n' | sed 's/^0*//; s/^$/0/' |
  tr '\n' ' ' | grep -qx '0 10 20 30 40 50 60 ' && ok || bad "the restarted z8 series is not steps 0, 10, ..., 60 once each"

# 4. spectral 3D, 16^3: velocity and vorticity at z = pi (layer 8) and x = 0 (layer 0), every 5 steps
sp=(--set "domain.cells=[16,16,16]" --set numerics.dt=0.01 --set run.end_time=0 --set run.steps=10
    --set output.fields.every=5 --set output.diagnostics.every=5 --set validation.reference=none --quiet
    --set "output.slices=[{axis: z, position: 3.141592653589793, every: 5, fields: [velocity, vorticity]}, {axis: x, position: 0.0, every: 5, fields: [vorticity]}]")
"$eddy" run "$tg3" "${sp[@]}" --out sp1 || bad "the spectral slices run failed"
against_fields sp1 tgv3d_spectral
mpirun -n 4 "$eddy" run "$tg3" "${sp[@]}" --set "parallel.ranks=[1,2,2]" --out sp4 || bad "the spectral 4-rank run failed"
against_fields sp4 tgv3d_spectral
same_slices sp1 sp4 1e-12

# 5. bad input: exit 2, the key and what is valid, nothing written
# refused NAME PATTERN SLICES [MORE --set]: eddy run of the LBM case with output.slices=SLICES
refused() {
  local name=$1 pattern=$2 slices=$3
  shift 3
  expect 2 "$pattern" "$name.log" -- run "$tgv" "${lbm[@]}" --set "output.slices=$slices" "$@" --out "out_$name"
  [ -e "out_$name" ] && bad "$name: the refused run left out_$name" || ok
}
refused outside 'output.slices\[1\]\.position: the plane is outside the domain: y = 7\.0 m, but the domain spans \[0, 6\.28319\] m along y' \
  '[{axis: z, position: 1.0, every: 5}, {axis: y, position: 7.0, every: 5}]'
refused negative 'output.slices\[0\]\.position: the plane is outside the domain: x = -0\.5 m' \
  '[{axis: x, position: -0.5, every: 5}]'
refused no_position 'output.slices\[0\]: a slice needs a position \[m\] along its axis, in \[0, 6\.28319\]' \
  '[{axis: x, every: 5}]'
refused axis "output.slices\\[0\\]\\.axis: 'w' is not one of x, y, z" '[{axis: w, position: 1.0, every: 5}]'
refused field "output.slices\\[0\\]\\.fields\\[1\\]: 'vort' is not one of velocity, pressure, density, vorticity" \
  '[{axis: z, position: 1.0, every: 5, fields: [velocity, vort]}]'
expect 2 "output.slices\\[0\\]\\.fields\\[0\\]: 'density' is not a field of solver spectral; use velocity, vorticity, q_criterion" \
  solver_field.log -- run "$tg3" --set "domain.cells=[16,16,16]" --out out_solver_field \
  --set "output.slices=[{axis: z, position: 1.0, every: 5, fields: [density]}]"
[ -e out_solver_field ] && bad "solver_field: the refused run left out_solver_field" || ok
refused no_schedule 'output.slices\[0\]: a slice needs a schedule: every: a step count \(e\.g\. 100\) or a time \(e\.g\. 0\.1t\)' \
  '[{axis: z, position: 1.0}]'
refused never 'output.slices\[0\]\.every: a slice needs a schedule' '[{axis: z, position: 1.0, every: 0}]'
refused duplicate 'output.slices\[2\]\.position: is in the same cell layer as output.slices\[0\] \(axis z, layer 2 of 16\)' \
  '[{axis: z, position: 1.0, every: 5}, {axis: x, position: 1.0, every: 5}, {axis: z, position: 1.1, every: 7}]'
refused key 'output.slices\[0\]\.colour: unknown key; valid keys in a slice: axis, position, every, fields' \
  '[{axis: z, position: 1.0, every: 5, colour: red}]'
refused short 'output.slices\[0\]\.every: 0\.001t is shorter than one time step' '[{axis: z, position: 1.0, every: 0.001t}]'
expect 2 "output.slices\\[0\\]\\.axis: slices are planes of a 3D run" twod.log -- run "$src/tests/data/cav.yaml" \
  --set "output.slices=[{axis: z, position: 0.5, every: 5}]" --out out_twod
[ -e out_twod ] && bad "the refused 2D run left out_twod" || ok
expect 2 "output.slices\\[0\\]\\.position: the plane is outside the domain" validate.log -- validate "$tgv" \
  --set "output.slices=[{axis: z, position: 9.0, every: 5}]"
finish
