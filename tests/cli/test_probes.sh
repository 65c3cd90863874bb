#!/usr/bin/env bash
# Probes (probes.h5) and energy spectra over time (spectra.h5) through the eddy executable:
#   1. a probe at a cell centre equals that cell's value in the field file of the same step (velocity,
#      pressure, density; FP64, to 1e-12), a point between centres their bilinear interpolation, a
#      point in a corner the corner cell's value; step and time of every row; no series files without
#      output.probes / output.spectra;
#   2. probes.h5 bitwise the same on 1 and 4 ranks (2D cavity, 3D periodic Taylor-Green: trilinear,
#      wrapping);
#   3. N steps straight == N/2 on 2 ranks (its rows past the checkpoint dropped) + restart on 3 ranks,
#      every dataset bitwise;
#   4. two kill -9 mid-run, each followed by --restart auto: the same steps as the straight run (no gap,
#      no duplicate) and the same values, bitwise;
#   5. spectral 2D: spectra.h5 (k, energy_spectrum with sum E dk = kinetic_energy, enstrophy_spectrum =
#      k^2 E) and probes of velocity and vorticity at grid points equal to the field files; a restart on
#      the same rank count bitwise, on 2 ranks within the spectral agreement (1e-12 relative);
#   6. spectral 3D: probes at a grid point equal the field file; pencils on 4 ranks within 1e-12.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/finish, cav.yaml (dt = 3.125e-3 s)
. "$(dirname "$0")/series_lib.sh"  # same_series, kill_mid_run

# 1. cell centres against the field files: cell (5, 7), a point between centres, the corner (0, 1) and
#    the centre of cell (31, 0)
pts='[[0.171875, 0.234375], [0.5, 0.73], [0.0, 1.0], [0.984375, 0.015625]]'
probe=(--set output.probes.every=50 --set "output.probes.points=$pts" --set "output.probes.fields=[velocity, pressure, density]")
"$eddy" run cav.yaml --out one --quiet "${probe[@]}" || bad "the probes run failed"
"$py" - one <<'PY' && ok || bad "probes.h5 does not match the field files"
import sys, h5py, numpy as np
d = sys.argv[1]
p = h5py.File(f"{d}/probes.h5", "r")
steps = p["step"][()]
assert list(steps) == list(range(0, 401, 50)), steps
assert np.array_equal(p["time"][()], steps * 3.125e-3), p["time"][()]
assert p["velocity"].shape == (9, 4, 2) and p["pressure"].shape == (9, 4, 1) and p["density"].shape == (9, 4, 1)
assert p.attrs["points"].shape == (4, 2) and p.attrs["solver"] == "lbm"
assert p["velocity"].attrs["units"] == "m/s" and p["time"].attrs["units"] == "s"
n, dx = 32, 1.0 / 32
def bilinear(f, x, y):  # f[j, i, ...] at cell centres (i + 1/2) dx, walls on every side
    s, t = [min(max(c / dx - 0.5, 0.0), n - 1.0) for c in (x, y)]
    i, j = min(int(np.floor(s)), n - 2), min(int(np.floor(t)), n - 2)
    a, b = s - i, t - j
    return ((1 - a) * (1 - b) * f[j, i] + a * (1 - b) * f[j, i + 1] + (1 - a) * b * f[j + 1, i] + a * b * f[j + 1, i + 1])
for row, step in enumerate(steps):
    if step == 0 or step % 100:
        continue
    f = h5py.File(f"{d}/fields/cav_{step:08d}.h5", "r")
    for name in ("velocity", "pressure", "density"):
        field = f[name][()]
        if field.ndim == 2:
            field = field[..., None]
        got = p[name][row]
        scale = max(1.0, np.abs(field).max())
        for k, (i, j) in enumerate([(5, 7), (None, None), (0, 31), (31, 0)]):
            want = bilinear(field, 0.5, 0.73) if i is None else field[j, i]
            err = np.abs(got[k] - want).max()
            assert err <= 1e-12 * scale, (step, name, k, got[k], want)
PY
"$eddy" run cav.yaml --out plain --quiet --set run.steps=50 || bad "the plain run failed"
[ ! -e plain/probes.h5 ] && [ ! -e plain/spectra.h5 ] && ok || bad "a run without probes or spectra wrote a series file"

# 2. 1 and 4 ranks, bitwise: the cavity (2 x 2 ranks), and the 3D periodic Taylor-Green vortex on 1 x 2 x 2
#    ranks with points near the periodic faces (the stencil wraps) and inside
mpirun -n 4 "$eddy" run cav.yaml --out four --quiet "${probe[@]}" || bad "the 4-rank probes run failed"
same_series one four probes.h5
tgv=(--set "domain.cells=[16,16,16]" --set run.end_time=0 --set run.steps=60 --set output.fields.every=0
     --set output.fields.at_end=false --set output.diagnostics.every=20 --set validation.reference=none --quiet
     --set output.probes.every=5 --set "output.probes.fields=[velocity, pressure, density]"
     --set "output.probes.points=[[0.05, 3.0, 6.25], [6.283185307179586, 0.0, 1.1], [2.2, 4.4, 0.3]]")
"$eddy" run "$src/cases/taylor_green/tgv3d_lbm.yaml" "${tgv[@]}" --out tgv1 || bad "the 3D probes run failed"
mpirun -n 4 "$eddy" run "$src/cases/taylor_green/tgv3d_lbm.yaml" "${tgv[@]}" --set "parallel.ranks=[1,2,2]" --out tgv4 ||
  bad "the 3D 4-rank probes run failed"
same_series tgv1 tgv4 probes.h5

# 3. N straight == N/2 on 2 ranks + restart on 3 ranks. The first part runs past its checkpoint (201, an
#    odd step: the AA pattern's swapped layout), so the restart drops its rows 203..245 and writes them again.
split=(--set output.probes.every=7 --set "output.probes.points=$pts" --set "output.probes.fields=[velocity, pressure, density]"
       --set output.fields.every=0 --set output.checkpoint.every=201 --quiet)
"$eddy" run cav.yaml --out straight "${split[@]}" || bad "the straight run failed"
mpirun -n 2 "$eddy" run cav.yaml --out split "${split[@]}" --set run.steps=250 || bad "the first part failed"
rows=$("$py" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["step"][-1])' split/probes.h5)
[ "$rows" = 245 ] && ok || bad "the first part's last probe row is step $rows, not 245"
mpirun -n 3 "$eddy" run cav.yaml --out split "${split[@]}" --restart auto || bad "the restart failed"
same_series straight split probes.h5

# 4. kill -9 while the run writes, twice, each time once a newer checkpoint is there; --restart auto after
#    each; the series must equal the straight run's
kill=(--set run.steps=6000 --set output.probes.every=3 --set "output.probes.points=$pts" --set output.fields.every=0
      --set output.fields.at_end=false --set output.diagnostics.every=500 --set output.checkpoint.every=250
      --set output.checkpoint.keep=2 --quiet)
"$eddy" run cav.yaml --out kill_straight "${kill[@]}" || bad "the straight run of the kill test failed"
kill_mid_run 2 killed cav.yaml "${kill[@]}"
last=$("$py" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["step"][-1])' killed/probes.h5)
[ $killed = 2 ] && [ "$last" -lt 6000 ] && ok || bad "the kill test did not kill mid-run ($killed kills, last row $last)"
"$eddy" run cav.yaml --out killed "${kill[@]}" --restart auto || bad "the final restart after the kills failed"
same_series kill_straight killed probes.h5

# 5. spectral 2D: spectra and probes at grid points (i + 1/2) 2 pi / 32
spec=$src/cases/decaying_turbulence_2d/decaying2d_spectral.yaml
gp=$("$py" -c 'import math; h = 2 * math.pi / 32; print(repr([[(3 + 0.5) * h, (9 + 0.5) * h], [(31 + 0.5) * h, (0 + 0.5) * h]]))')
sp=(--set "domain.cells=[32,32]" --set initial.peak_wavenumber=4 --set run.end_time=0 --set run.steps=40
    --set output.fields.every=20 --set output.diagnostics.every=5 --set output.spectra.every=5
    --set output.probes.every=5 --set "output.probes.points=$gp" --set "output.probes.fields=[velocity, vorticity]"
    --set output.checkpoint.every=20 --quiet)
"$eddy" run "$spec" "${sp[@]}" --out sp || bad "the spectral run failed"
"$py" - sp <<'PY' && ok || bad "spectra.h5 or the spectral probes do not match the run"
import sys, csv, h5py, numpy as np
d = sys.argv[1]
s, p = h5py.File(f"{d}/spectra.h5", "r"), h5py.File(f"{d}/probes.h5", "r")
steps = s["step"][()]
assert list(steps) == list(range(0, 41, 5)), steps
k, E, Z = s["k"][()], s["energy_spectrum"][()], s["enstrophy_spectrum"][()]
assert E.shape == (9, k.size) and Z.shape == E.shape and s["k"].attrs["units"] == "1/m"
assert np.array_equal(Z, E * (k * k)), "enstrophy_spectrum is not k^2 E(k)"
rows = {int(r["step"]): r for r in csv.DictReader(open(f"{d}/diagnostics.csv"))}
dk = k[1]
for n, step in enumerate(steps):
    ke = float(rows[int(step)]["kinetic_energy"])
    assert abs(E[n].sum() * dk - ke) <= 1e-12 * ke, (step, E[n].sum() * dk, ke)
for n, step in enumerate(p["step"][()]):
    if step not in (20, 40):
        continue
    f = h5py.File(f"{d}/fields/decaying2d_spectral_{step:08d}.h5", "r")
    for name in ("velocity", "vorticity"):
        field = f[name][()]
        if field.ndim == 2:
            field = field[..., None]
        scale = np.abs(field).max()
        for m, (i, j) in enumerate([(3, 9), (31, 0)]):
            err = np.abs(p[name][n, m] - field[j, i]).max()
            assert err <= 1e-12 * scale, (step, name, m, err / scale)
PY
"$eddy" run "$spec" "${sp[@]}" --set run.steps=20 --out sp_split || bad "the spectral first part failed"
"$eddy" run "$spec" "${sp[@]}" --out sp_split --restart auto || bad "the spectral restart failed"
same_series sp sp_split spectra.h5
same_series sp sp_split probes.h5
"$eddy" run "$spec" "${sp[@]}" --set run.steps=20 --out sp_split2 || bad "the spectral first part (for 2 ranks) failed"
mpirun -n 2 "$eddy" run "$spec" "${sp[@]}" --out sp_split2 --restart auto || bad "the spectral restart on 2 ranks failed"
same_series sp sp_split2 spectra.h5 1e-12
same_series sp sp_split2 probes.h5 1e-12

# 6. spectral 3D: velocity and vorticity at grid points equal the field file; 1 rank and 4 ranks on pencils
#    [1, 2, 2] agree within 1e-12 relative (every point's x-row on one rank of the pencil grid)
tg3=$src/cases/taylor_green/tgv3d_spectral.yaml
gp3=$("$py" -c 'import math; h = 2 * math.pi / 16; print(repr([[(2 + 0.5) * h, (13 + 0.5) * h, (7 + 0.5) * h], [0.3, 5.9, 3.1]]))')
s3=(--set "domain.cells=[16,16,16]" --set numerics.dt=0.01 --set run.end_time=0 --set run.steps=10
    --set output.fields.every=10 --set output.diagnostics.every=5 --set validation.reference=none
    --set output.probes.every=5 --set "output.probes.points=$gp3" --set "output.probes.fields=[velocity, vorticity]"
    --quiet)
"$eddy" run "$tg3" "${s3[@]}" --out s3 || bad "the spectral 3D run failed"
mpirun -n 4 "$eddy" run "$tg3" "${s3[@]}" --set "parallel.ranks=[1,2,2]" --out s3_pencils ||
  bad "the spectral 3D run on pencils failed"
"$py" - s3 <<'PY' && ok || bad "spectral 3D probes do not match the field file"
import sys, h5py, numpy as np
d = sys.argv[1]
p = h5py.File(f"{d}/probes.h5", "r")
assert list(p["step"][()]) == [0, 5, 10] and p["vorticity"].shape == (3, 2, 3)
f = h5py.File(f"{d}/fields/tgv3d_spectral_00000010.h5", "r")
for name in ("velocity", "vorticity"):
    field = f[name][()]
    err = np.abs(p[name][2, 0] - field[7, 13, 2]).max() / np.abs(field).max()
    assert err <= 1e-12, (name, err)
PY
same_series s3 s3_pencils probes.h5 1e-12
finish
