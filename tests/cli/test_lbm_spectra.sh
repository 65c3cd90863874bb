#!/usr/bin/env bash
# Energy spectra of the LBM over time (output.spectra on a periodic box: spectra.h5 as the spectral solver
# writes it, spectral/spectrum.hpp) through the eddy executable:
#   1. 3D Taylor-Green vortex, 16^3 D3Q19 FP64, spectra and fields every 5 steps to step 20: each row
#      equals numpy's shell sums of the written velocity (rfftn / N, Hermitian weights 2 for 0 < kx < 8,
#      shell round(|k| / dk)) to 1e-12 of the row's largest shell, and sum E dk is <|u|^2> / 2 of the
#      file to 1e-12 relative. Both sides sum the same products in another order and the file's velocity
#      is rounded once more than the solver's (2^-53 relative), so they agree to a few 1e-16 (measured);
#      1e-12 leaves room for the sums of 4096 modes. The field files hold the same spectrum.
#   2. 2, 3 (uneven slabs along z) and 4 ranks on pencils ([1, 2, 2]) against 1 rank: the velocity
#      bitwise (the LBM's decomposition independence), the spectra within 1e-12 of the largest value (the
#      transforms and shell sums of another decomposition add in another order: the spectral solver's
#      agreement, test_probes.sh);
#   3. 10 steps, then --restart auto to 20: bitwise the straight run on 1 rank, within 1e-12 when the
#      restart runs on 4 ranks;
#   4. 2D Taylor-Green (D2Q9, 16^2) on 1 and 2 ranks: against numpy, and enstrophy_spectrum = k^2 E(k);
#   5. bad input, exit 2 and nothing written: spectra of a box with walls, spectra on ranks that split x.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/expect/finish
. "$(dirname "$0")/series_lib.sh"         # same_series
tgv=$src/cases/taylor_green/tgv3d_lbm.yaml
base=(--quiet --set validation.reference=none --set "domain.cells=[16,16,16]" --set numerics.precision=fp64
      --set run.end_time=0 --set run.steps=20 --set output.fields.every=5 --set output.diagnostics.every=5
      --set output.spectra.every=5 --set output.checkpoint.every=10)
"$eddy" run "$tgv" "${base[@]}" --out s1 || bad "the 3D LBM run with spectra failed"

# shells E(k) of the velocity files of run $1 (name $2) against spectra.h5
check_numpy() {
  "$py" - "$1" "$2" <<'PY' && ok || bad "$1: spectra.h5 differs from numpy's spectrum of the written velocity"
import sys, glob, h5py, numpy as np
d, name = sys.argv[1], sys.argv[2]
s = h5py.File(f"{d}/spectra.h5", "r")
k, E, steps = s["k"][()], s["energy_spectrum"][()], s["step"][()]
assert list(steps) == [0, 5, 10, 15, 20], steps
for row, step in enumerate(steps):
    f = h5py.File(f"{d}/fields/{name}_{step:08d}.h5", "r")
    u = f["velocity"][()]
    dims = u.ndim - 1
    shape = u.shape[:dims]
    N = np.prod(shape)
    L = 2 * np.pi
    kf = 2 * np.pi / L
    axes = tuple(range(dims))
    uh = [np.fft.rfftn(u[..., c], axes=axes) / N for c in range(dims)]
    e = 0.5 * sum(np.abs(x) ** 2 for x in uh)
    n = shape[0]
    kx = np.fft.rfftfreq(n, 1.0 / n)
    w = np.where((kx == 0) | (kx == n // 2), 1.0, 2.0)
    ks = [np.fft.fftfreq(m, 1.0 / m) for m in shape[:-1]] + [kx]
    K = np.meshgrid(*ks, indexing="ij")
    kk = np.sqrt(sum((kf * x) ** 2 for x in K))
    shell = np.floor(kk / kf + 0.5).astype(int)
    want = np.bincount(shell.ravel(), weights=(e * w).ravel(), minlength=k.size)[: k.size] / kf
    assert np.abs(E[row] - want).max() <= 1e-12 * want.max(), (step, np.abs(E[row] - want).max() / want.max())
    ke = 0.5 * np.mean(np.sum(u * u, axis=-1))
    assert abs(E[row].sum() * kf - ke) <= 1e-12 * ke, (step, E[row].sum() * kf, ke)
    assert np.array_equal(f["energy_spectrum"][()], E[row]) and np.array_equal(f["wavenumber"][()], k)
    if dims == 2:
        assert np.array_equal(s["enstrophy_spectrum"][row], E[row] * (k * k))
print(f"{d}: {steps.size} spectra of {k.size} shells equal numpy's to 1e-12")
PY
}
check_numpy s1 tgv3d_lbm

# 2. other decompositions: velocity bitwise, spectra within 1e-12
mpirun -n 2 "$eddy" run "$tgv" "${base[@]}" --out s2 || bad "the run on 2 ranks failed"
mpirun -n 3 "$eddy" run "$tgv" "${base[@]}" --out s3 || bad "the run on 3 ranks failed"
mpirun -n 4 "$eddy" run "$tgv" "${base[@]}" --set "parallel.ranks=[1,2,2]" --out s4 || bad "the run on 4 ranks (pencils) failed"
for d in s2 s3 s4; do
  "$py" - s1 $d <<'PY' && ok || bad "$d: the velocity is not 1 rank's bitwise"
import sys, h5py
for step in (0, 10, 20):
    a = h5py.File(f"{sys.argv[1]}/fields/tgv3d_lbm_{step:08d}.h5", "r")
    b = h5py.File(f"{sys.argv[2]}/fields/tgv3d_lbm_{step:08d}.h5", "r")
    assert a["velocity"][()].tobytes() == b["velocity"][()].tobytes(), step
PY
  same_series s1 $d spectra.h5 1e-12
done
"$py" - s4 <<'PY' && ok || bad "s4 did not run on 4 ranks"
import sys, h5py
assert h5py.File(f"{sys.argv[1]}/fields/tgv3d_lbm_00000000.h5", "r").attrs["ranks"] == 4
PY

# 3. restarts: the same rank count bitwise, 4 ranks within 1e-12
"$eddy" run "$tgv" "${base[@]}" --set run.steps=10 --out r1 || bad "the first half failed"
"$eddy" run "$tgv" "${base[@]}" --out r1 --restart auto || bad "the restart on 1 rank failed"
same_series s1 r1 spectra.h5
"$eddy" run "$tgv" "${base[@]}" --set run.steps=10 --out r4 || bad "the first half (for 4 ranks) failed"
mpirun -n 4 "$eddy" run "$tgv" "${base[@]}" --set "parallel.ranks=[1,2,2]" --out r4 --restart auto ||
  bad "the restart on 4 ranks failed"
same_series s1 r4 spectra.h5 1e-12

# 4. 2D
b2=(--quiet --set validation.reference=none --set "domain.cells=[16,16]" --set run.end_time=0 --set run.steps=20
    --set output.fields.every=5 --set output.diagnostics.every=5 --set output.spectra.every=5)
"$eddy" run "$src/cases/taylor_green/tgv2d_lbm.yaml" "${b2[@]}" --out t1 || bad "the 2D run failed"
check_numpy t1 tgv2d_lbm
mpirun -n 2 "$eddy" run "$src/cases/taylor_green/tgv2d_lbm.yaml" "${b2[@]}" --out t2 || bad "the 2D run on 2 ranks failed"
same_series t1 t2 spectra.h5 1e-12

# 5. bad input
expect 2 "output.spectra.every: the LBM writes energy spectra of a periodic box, but boundaries.x_min.type is" \
  walls.log -- run cav.yaml --out walls --set output.spectra.every=5 --quiet
[ ! -e walls ] && ok || bad "the refused run with walls wrote walls/"
expect 2 "parallel.ranks: output.spectra transforms the LBM velocity where the ranks hold it, in whole x rows: give \[1, P1, P2\]" \
  split.log -- run "$tgv" "${base[@]}" --set "parallel.ranks=[2,1,1]" --out split
[ ! -e split ] && ok || bad "the refused run on ranks that split x wrote split/"
finish
