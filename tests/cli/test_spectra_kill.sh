#!/usr/bin/env bash
# spectra.h5 (output.spectra) across SIGKILL: a 2D spectral run with spectra every 3 steps and checkpoints
# every 250 steps, killed with kill -9 twice while it writes (each time once a newer checkpoint is named),
# each followed by --restart auto, then a last --restart auto to the end. The step and time series of the
# result have no gap and no duplicate (every 3rd step from 0 to the end, times step x dt), and every dataset
# (step, time, k, energy_spectrum, enstrophy_spectrum) is bitwise that of the uninterrupted run. The same
# for the LBM's spectra: the 3D Taylor-Green box, 16^3 D3Q19 FP64.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/finish
. "$(dirname "$0")/series_lib.sh"         # same_series, kill_mid_run
spec=$src/cases/decaying_turbulence_2d/decaying2d_spectral.yaml
steps=6000
run=("$spec" --set "domain.cells=[32,32]" --set initial.peak_wavenumber=4 --set run.end_time=0
     --set run.steps=$steps --set output.fields.every=0 --set output.fields.at_end=false
     --set output.diagnostics.every=500 --set output.spectra.every=3 --set output.checkpoint.every=250
     --set output.checkpoint.keep=2 --quiet)
# kill_and_check NAME STEPS DT ARGS...: the uninterrupted run, two kills, the last restart, the series checks
# (DT lbm: the time step from the series, time[1] / 3).
kill_and_check() {
  local name=$1 steps=$2 dt=$3 last
  shift 3
  "$eddy" run "$@" --out "$name-straight" || bad "$name: the uninterrupted run failed"
  kill_mid_run 2 "$name-killed" "$@"
  last=$("$py" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["step"][-1])' "$name-killed/spectra.h5")
  [ $killed = 2 ] && [ "$last" -lt "$steps" ] && ok || bad "$name: the runs were not killed mid-run ($killed kills, last row $last)"
  "$eddy" run "$@" --out "$name-killed" --restart auto || bad "$name: the final restart after the kills failed"
  "$py" - "$name-killed" "$steps" "$dt" <<'PY' && ok || bad "$name: the spectra.h5 series after the kills has a gap or a duplicate"
import sys, h5py, numpy as np
s, n = h5py.File(f"{sys.argv[1]}/spectra.h5", "r"), int(sys.argv[2])
steps, time = s["step"][()], s["time"][()]
dt = float(sys.argv[3]) if sys.argv[3] != "lbm" else time[1] / 3
assert list(steps) == list(range(0, n + 1, 3)), [x for x in np.diff(steps) if x != 3][:5]
assert np.allclose(time, steps * dt, rtol=1e-14, atol=0), "time is not step x dt"
assert s["energy_spectrum"].shape == (steps.size, s["k"].size)
PY
  same_series "$name-straight" "$name-killed" spectra.h5
}
kill_and_check spectral $steps 1e-3 "${run[@]}"
lbm=("$src/cases/taylor_green/tgv3d_lbm.yaml" --set "domain.cells=[16,16,16]" --set numerics.precision=fp64
     --set validation.reference=none --set run.end_time=0 --set run.steps=$steps --set output.fields.every=0
     --set output.fields.at_end=false --set output.diagnostics.every=500 --set output.spectra.every=3
     --set output.checkpoint.every=250 --set output.checkpoint.keep=2 --quiet)
kill_and_check lbm $steps lbm "${lbm[@]}"
finish
