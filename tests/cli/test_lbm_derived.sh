#!/usr/bin/env bash
# The LBM's vorticity and Q-criterion (output.fields.variables, output.slices[].fields,
# output.probes.fields: vorticity, q_criterion; lbm/derived_k.hpp) through the eddy executable:
#   1. 3D periodic Taylor-Green vortex, 16^3 D3Q19 FP64, at steps 0 and 10: the written vorticity and Q
#      equal the central differences of the written velocity, (u(x + dx) - u(x - dx)) / (2 dx) by
#      numpy.roll (periodic), to 1e-12 of their maxima. The solver differences the lattice velocity
#      and divides by dt (Q by dt^2); the file's velocity is the lattice one times dx/dt, each value
#      rounded once (2^-53 relative), so a difference of two values of size <= max|u| is within
#      2 x 2^-53 max|u| of the solver's and a derivative within 2^-53 max|u| / dx; against
#      max|omega| ~ k max|u| (k dx = 2 pi / 16) that is 2^-53 / (k dx) = 3e-16, Q's products of two such
#      a few 1e-16 (measured: a few 1e-16): 1e-12 leaves room for any contraction of the products.
#      Units 1/s and 1/s^2, shapes (16,16,16,3) and (16,16,16), only the listed fields in the file, a
#      default run's files without them, and its velocity bitwise that of the run with them (computing
#      them leaves the state alone);
#   2. 4 ranks (process grids [1,2,2], [2,2,1] and [4,1,1]) and 3 ranks (uneven boxes) against 1 rank:
#      every field bitwise (src/README.md, Bitwise LBM decomposition independence);
#   3. a slice of vorticity and q_criterion equals its layer of the field file bitwise, a probe at a
#      cell centre its cell's value to 1e-12 of the field's maximum (the probes' interpolation sums its
#      weighted corners, a few units in the last place of the value: measured 1 ulp, as for the
#      velocity), on every rank count, and the probes of every decomposition are bitwise 1 rank's;
#   4. walls and bodies: the 2D lid-driven cavity (37 x 29, one-sided differences at the four walls) on
#      2 ranks ([2,1] and [1,2]) and the 3D Taylor-Green box with walls at y and a sphere on 2 ranks
#      ([2,1,1], the sphere cut by the rank boundary, and [1,2,1]) against 1 rank, bitwise; the values
#      are finite and the solid cells' 0;
#   5. bad input, exit 2 and nothing written: q_criterion in a 2D LBM run.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/expect/finish
. "$(dirname "$0")/series_lib.sh"         # same_series
tgv=$src/cases/taylor_green/tgv3d_lbm.yaml
base=(--quiet --set validation.reference=none --set "domain.cells=[16,16,16]" --set numerics.precision=fp64
      --set run.end_time=0 --set run.steps=10 --set output.fields.every=10 --set output.diagnostics.every=5)
"$eddy" run "$tgv" "${base[@]}" --out plain || bad "the run without vorticity failed"
# fields, a slice at z = 3.0 (layer 7) and a probe at the centre of cell (2, 13, 7)
centre=$("$py" -c 'import math; h = math.pi / 8; print([[2.5 * h, 13.5 * h, 7.5 * h]])')
d=("${base[@]}" --set "output.fields.variables=[velocity, vorticity, q_criterion]" --set output.probes.every=5
   --set "output.probes.points=$centre" --set "output.probes.fields=[vorticity, q_criterion]"
   --set "output.slices=[{axis: z, position: 3.0, every: 5, fields: [q_criterion, vorticity, velocity]}]")
"$eddy" run "$tgv" "${d[@]}" --out d1 || bad "the vorticity run failed"

# 1. against numpy's central differences of the written velocity
"$py" - d1 plain <<'PY' && ok || bad "the vorticity or Q differs from the differences of the velocity"
import sys, h5py, numpy as np
d1, plain = sys.argv[1:3]
for step in (0, 10):
    f = h5py.File(f"{d1}/fields/tgv3d_lbm_{step:08d}.h5", "r")
    p = h5py.File(f"{plain}/fields/tgv3d_lbm_{step:08d}.h5", "r")
    assert sorted(f) == ["q_criterion", "velocity", "vorticity", "x", "y", "z"], sorted(f)
    assert "vorticity" not in p and "q_criterion" not in p, sorted(p)
    assert f["velocity"][()].tobytes() == p["velocity"][()].tobytes(), step
    assert f["vorticity"].shape == (16, 16, 16, 3) and f["q_criterion"].shape == (16, 16, 16)
    assert f["vorticity"].attrs["units"] == "1/s" and f["q_criterion"].attrs["units"] == "1/s^2"
    u = f["velocity"][()]  # (z, y, x, component)
    dx = 2 * np.pi / 16
    # A[i][j] = du_i/dx_j; axis x of the arrays is 2, y 1, z 0
    A = [[(np.roll(u[..., i], -1, axis=2 - j) - np.roll(u[..., i], 1, axis=2 - j)) / (2 * dx) for j in range(3)]
         for i in range(3)]
    w = np.stack([A[2][1] - A[1][2], A[0][2] - A[2][0], A[1][0] - A[0][1]], axis=-1)
    q = -0.5 * sum(A[i][j] * A[j][i] for i in range(3) for j in range(3))
    ew = np.abs(f["vorticity"][()] - w).max() / np.abs(w).max()
    eq = np.abs(f["q_criterion"][()] - q).max() / np.abs(q).max()
    print(f"step {step}: vorticity {ew:.1e} of max|omega| = {np.abs(w).max():.4f} 1/s, "
          f"Q {eq:.1e} of max|Q| = {np.abs(q).max():.4f} 1/s^2, against numpy's differences")
    assert np.abs(w).max() > 1.5 and np.abs(q).max() > 0.5 and ew <= 1e-12 and eq <= 1e-12, (ew, eq)
assert "q_criterion" in open(f"{d1}/fields/tgv3d_lbm_00000000.xmf").read()
PY

# 2. and 3. decompositions against 1 rank; slices and probes against the field files
mpirun -n 4 "$eddy" run "$tgv" "${d[@]}" --set "parallel.ranks=[1,2,2]" --out d4 || bad "the [1,2,2] run failed"
mpirun -n 4 "$eddy" run "$tgv" "${d[@]}" --set "parallel.ranks=[2,2,1]" --out d4b || bad "the [2,2,1] run failed"
mpirun -n 4 "$eddy" run "$tgv" "${d[@]}" --set "parallel.ranks=[4,1,1]" --out d4c || bad "the [4,1,1] run failed"
mpirun -n 3 "$eddy" run "$tgv" "${d[@]}" --set "parallel.ranks=[3,1,1]" --out d3 || bad "the [3,1,1] run failed"
"$py" - d1 d4 d4b d4c d3 <<'PY' && ok || bad "the decompositions differ, or a slice or probe differs from the field file"
import sys, h5py, numpy as np
one = sys.argv[1]
names = ("velocity", "vorticity", "q_criterion")
for d in sys.argv[1:]:
    for step in (0, 10):
        f = h5py.File(f"{d}/fields/tgv3d_lbm_{step:08d}.h5", "r")
        g = h5py.File(f"{one}/fields/tgv3d_lbm_{step:08d}.h5", "r")
        for n in names:
            assert f[n][()].tobytes() == g[n][()].tobytes(), (d, step, n)
        s = h5py.File(f"{d}/slices/tgv3d_lbm_z7_{step:08d}.h5", "r")  # z = floor(3.0 / dx) = 7
        for n in names:
            assert s[n][()].tobytes() == f[n][7].tobytes(), (d, step, n)
        assert s["vorticity"].attrs["units"] == "1/s" and s["q_criterion"].attrs["units"] == "1/s^2"
    p = h5py.File(f"{d}/probes.h5", "r")
    assert list(p["step"][()]) == [0, 5, 10] and p["vorticity"].shape == (3, 1, 3), p["vorticity"].shape
    assert p["q_criterion"].shape == (3, 1, 1) and p["q_criterion"].attrs["units"] == "1/s^2"
    for row, step in ((0, 0), (2, 10)):
        f = h5py.File(f"{d}/fields/tgv3d_lbm_{step:08d}.h5", "r")
        for n in ("vorticity", "q_criterion"):
            err = np.abs(p[n][row, 0] - f[n][7, 13, 2]).max() / np.abs(f[n][()]).max()
            assert err <= 1e-12, (d, step, n, err)
    print(f"{d}: ranks {h5py.File(f'{d}/fields/tgv3d_lbm_00000010.h5', 'r').attrs['ranks']}, bitwise 1 rank")
PY
for r in d4 d4b d4c d3; do same_series d1 $r probes.h5; done

# 4. walls and bodies: 2 ranks against 1, bitwise; finite, 0 in solids
c2=(--set "domain.cells=[37,29]" --set "domain.length=[1.0,0.7837837837837838]" --set physics.reynolds=100
    --set run.steps=51 --set run.end_time=0 --set run.steady.tolerance=0 --set output.fields.every=0
    --set validation.reference=none --set "output.fields.variables=[velocity, vorticity]" --quiet)
cav2=$src/cases/lid_driven_cavity/cavity2d.yaml
"$eddy" run "$cav2" "${c2[@]}" --out c1 || bad "the 2D cavity failed"
mpirun -n 2 "$eddy" run "$cav2" "${c2[@]}" --set "parallel.ranks=[2,1]" --out c2x1 || bad "the [2,1] cavity failed"
mpirun -n 2 "$eddy" run "$cav2" "${c2[@]}" --set "parallel.ranks=[1,2]" --out c1x2 || bad "the [1,2] cavity failed"
w3=("${base[@]}" --set run.steps=21 --set output.fields.every=0 --set "output.fields.variables=[vorticity, q_criterion]"
    --set boundaries.y_min.type=wall --set boundaries.y_max.type=moving_wall --set "boundaries.y_max.velocity=[1.0,0.0,0.5]"
    --set "geometry.bodies=[{type: sphere, center: [3.1, 2.9, 3.3], radius: 1.2}]")
"$eddy" run "$tgv" "${w3[@]}" --out s1 || bad "the 3D walls and sphere run failed"
mpirun -n 2 "$eddy" run "$tgv" "${w3[@]}" --set "parallel.ranks=[2,1,1]" --out s2x1 || bad "the [2,1,1] run failed"
mpirun -n 2 "$eddy" run "$tgv" "${w3[@]}" --set "parallel.ranks=[1,2,1]" --out s1x2 || bad "the [1,2,1] run failed"
"$py" - <<'PY' && ok || bad "walls and bodies: the decompositions differ, or a value is not finite"
import glob, h5py, numpy as np
def last(d):
    return h5py.File(sorted(glob.glob(f"{d}/fields/*.h5"))[-1], "r")
for one, others, names in (("c1", ("c2x1", "c1x2"), ("velocity", "vorticity")),
                           ("s1", ("s2x1", "s1x2"), ("vorticity", "q_criterion"))):
    g = last(one)
    for n in names:
        assert np.isfinite(g[n][()]).all(), (one, n)
    for d in others:
        f = last(d)
        assert f.attrs["step"] == g.attrs["step"] and f.attrs["ranks"] == 2
        for n in names:
            assert f[n][()].tobytes() == g[n][()].tobytes(), (d, n)
w = last("c1")["vorticity"][()]
assert w.shape == (29, 37) and np.abs(w).max() > 0, w.shape
# the sphere's cells (centre inside it): vorticity and Q 0; the fluid around it moves
s = last("s1")
x = (np.arange(16) + 0.5) * 2 * np.pi / 16
Z, Y, X = np.meshgrid(x, x, x, indexing="ij")
solid = (X - 3.1) ** 2 + (Y - 2.9) ** 2 + (Z - 3.3) ** 2 <= 1.2 ** 2
assert solid.sum() > 20 and (s["vorticity"][()][solid] == 0).all() and (s["q_criterion"][()][solid] == 0).all()
assert np.abs(s["vorticity"][()][~solid]).max() > 0.1
print(f"walls: cavity max|omega| {np.abs(w).max():.3f} 1/s; sphere: {solid.sum()} solid cells at 0; bitwise on 2 ranks")
PY

# 5. bad input: exit 2, nothing written
expect 2 "output.fields.variables\[1\]: 'q_criterion' is not a field of solver lbm in 2D \(3D only\); use velocity, density, pressure, vorticity" \
  q2d.log -- run "$src/cases/taylor_green/tgv2d_lbm.yaml" --out q2d --set "domain.cells=[16,16]" \
  --set "output.fields.variables=[vorticity, q_criterion]" --quiet
[ ! -e q2d ] && ok || bad "the refused 2D run wrote q2d/"
finish
