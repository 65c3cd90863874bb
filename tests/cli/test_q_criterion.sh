#!/usr/bin/env bash
# The Q-criterion (output.fields.variables, output.slices[].fields, output.probes.fields: q_criterion) of
# the 3D spectral solver through the eddy executable:
#   1. the 16^3 Taylor-Green field u = sin x cos y cos z, v = -cos x sin y cos z, w = 0 at step 0: its
#      gradient gives Q = -A_ij A_ji / 2 = -cos^2 z cos(x + y) cos(x - y) (tests/unit/test_spectral.cpp
#      derives it), max|Q| = cos^2(h/2) cos(h) = 0.889 1/s^2 at the centres next
#      to the origin (h = dx). The written dataset equals it at
#      every cell centre to 1e-13 of max|Q| (FP64: spectral derivatives of modes |k| = 1 and sums of 5
#      products, a few 1e-15, measured 1e-15); units 1/s^2; only the listed variables are in the file; the
#      velocity of the same step and of step 10 is bitwise that of a run without q_criterion (computing it
#      leaves the state alone); a default run's files hold no q_criterion;
#   2. a slice of q_criterion equals its layer of the field file bitwise, a probe at a cell centre its
#      value to 1e-12 of max|Q| (the probes' exact-sum interpolation);
#   3. 4 ranks (slabs [1, 1, 4] and pencils [1, 2, 2]) against 1 rank at step 10: the q_criterion field
#      within 1e-12 relative to max|Q| (src/README.md, Spectral agreement);
#   4. bad input, exit 2 and nothing written: q_criterion in a 2D spectral run (the message names
#      output.fields.variables, the reason and the valid names). The LBM's q_criterion, and its refusal
#      in 2D: tests/cli/test_lbm_derived.sh.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/finish
py=/usr/bin/python3
tg3=$src/cases/taylor_green/tgv3d_spectral.yaml
pt=$("$py" -c 'import math; h = 2 * math.pi / 16; print(repr([[(2 + 0.5) * h, (13 + 0.5) * h, (7 + 0.5) * h]]))')
base=(--set "domain.cells=[16,16,16]" --set numerics.dt=0.01 --set run.end_time=0 --set run.steps=10
      --set output.fields.every=10 --set output.diagnostics.every=5 --set validation.reference=none --quiet)
q=("${base[@]}" --set "output.fields.variables=[velocity, q_criterion]"
   --set "output.slices=[{axis: z, position: 3.0, every: 5, fields: [q_criterion, velocity]}]"
   --set output.probes.every=5 --set "output.probes.points=$pt" --set "output.probes.fields=[q_criterion]")
"$eddy" run "$tg3" "${q[@]}" --out q1 || bad "the q_criterion run failed"
"$eddy" run "$tg3" "${base[@]}" --out plain || bad "the run without q_criterion failed"

# 1. the closed form at step 0; the selection; the state untouched
"$py" - q1 plain <<'PY' && ok || bad "q_criterion does not equal the closed form, or the files differ"
import sys, h5py, numpy as np
q1, plain = sys.argv[1], sys.argv[2]
for step in (0, 10):
    a = h5py.File(f"{q1}/fields/tgv3d_spectral_{step:08d}.h5", "r")
    b = h5py.File(f"{plain}/fields/tgv3d_spectral_{step:08d}.h5", "r")
    assert "q_criterion" in a and "vorticity" not in a, sorted(a)
    assert "q_criterion" not in b and "vorticity" in b, sorted(b)
    assert a["q_criterion"].shape == (16, 16, 16) and a["q_criterion"].dtype == np.float64
    assert a["q_criterion"].attrs["units"] == "1/s^2"
    assert a["velocity"][()].tobytes() == b["velocity"][()].tobytes(), step
x = (np.arange(16) + 0.5) * 2 * np.pi / 16
Z, Y, X = np.meshgrid(x, x, x, indexing="ij")  # (nz, ny, nx), as the datasets
want = -np.cos(Z) ** 2 * np.cos(X + Y) * np.cos(X - Y)
got = h5py.File(f"{q1}/fields/tgv3d_spectral_00000000.h5", "r")["q_criterion"][()]
err = np.abs(got - want).max() / np.abs(want).max()
print(f"q_criterion at step 0 vs the closed form: {err:.2e} of max|Q| = {np.abs(want).max():.4f}")
assert np.abs(want).max() > 0.88 and err <= 1e-13, err
assert "q_criterion" in open(f"{q1}/fields/tgv3d_spectral_00000000.xmf").read()
PY

# 2. slices and probes against the field file: the slice's layer is z = floor(3.0 / dx) = 7
"$py" - q1 <<'PY' && ok || bad "the q_criterion slice or probe does not match the field file"
import sys, glob, h5py, numpy as np
d = sys.argv[1]
for step in (0, 10):
    f = h5py.File(f"{d}/fields/tgv3d_spectral_{step:08d}.h5", "r")["q_criterion"][()]
    s = h5py.File(f"{d}/slices/tgv3d_spectral_z7_{step:08d}.h5", "r")
    assert s["q_criterion"].attrs["units"] == "1/s^2"
    assert s["q_criterion"][()].tobytes() == f[7].tobytes(), step
p = h5py.File(f"{d}/probes.h5", "r")
assert list(p["step"][()]) == [0, 5, 10] and p["q_criterion"].shape == (3, 1, 1)
assert p["q_criterion"].attrs["units"] == "1/s^2"
for row, step in ((0, 0), (2, 10)):
    f = h5py.File(f"{d}/fields/tgv3d_spectral_{step:08d}.h5", "r")["q_criterion"][()]
    assert abs(p["q_criterion"][row, 0, 0] - f[7, 13, 2]) <= 1e-12 * np.abs(f).max(), step
PY
[ ! -e plain/slices ] && ok || bad "the run without slices wrote slices"

# 3. 4 ranks, slabs and pencils, against 1 rank
mpirun -n 4 "$eddy" run "$tg3" "${q[@]}" --out q4 || bad "the 4-rank q_criterion run failed"
mpirun -n 4 "$eddy" run "$tg3" "${q[@]}" --set "parallel.ranks=[1,2,2]" --out q4p || bad "the pencil run failed"
"$py" - q1 q4 q4p <<'PY' && ok || bad "q_criterion on 4 ranks differs from 1 rank"
import sys, h5py, numpy as np
one = h5py.File(f"{sys.argv[1]}/fields/tgv3d_spectral_00000010.h5", "r")["q_criterion"][()]
for d in sys.argv[2:]:
    f = h5py.File(f"{d}/fields/tgv3d_spectral_00000010.h5", "r")
    assert f.attrs["ranks"] == 4
    err = np.abs(f["q_criterion"][()] - one).max() / np.abs(one).max()
    print(f"{d}: q_criterion at step 10 vs 1 rank {err:.2e} relative")
    assert err <= 1e-12, (d, err)
PY

# 4. bad input: exit 2, nothing written
expect 2 "output.fields.variables\[0\]: 'q_criterion' is not a field of solver spectral in 2D \(3D only\); use velocity, vorticity" \
  q2d.log -- run "$src/cases/taylor_green/tgv2d_spectral.yaml" --out q2d --set "domain.cells=[16,16]" \
  --set "output.fields.variables=[q_criterion]" --quiet
[ ! -e q2d ] && ok || bad "the refused 2D run wrote q2d/"
finish
