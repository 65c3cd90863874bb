# Shared by the CLI tests of the HDF5 time series (probes.h5, spectra.h5), sourced after cav_lib.sh (it
# uses $eddy, ok and bad): same_series and kill_mid_run.
py=/usr/bin/python3
# same_series A B FILE [TOL]: every dataset of A/FILE and B/FILE (and the points) the same: bitwise, or
# within TOL relative to the largest magnitude of the dataset.
same_series() {
  "$py" - "$1/$3" "$2/$3" "${4:-0}" <<'PY' && ok || bad "$1/$3 and $2/$3 differ"
import sys, h5py, numpy as np
a, b, tol = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), float(sys.argv[3])
assert sorted(a.keys()) == sorted(b.keys()), (sorted(a.keys()), sorted(b.keys()))
assert a["step"].shape[0] > 1, "no rows"
for n in a.keys():
    x, y = a[n][()], b[n][()]
    assert x.shape == y.shape and x.dtype == y.dtype, (n, x.shape, y.shape)
    if tol == 0 or n == "step":
        assert x.tobytes() == y.tobytes(), (n, np.argwhere(x != y)[:3])
    else:
        scale = max(np.abs(x).max(), 1e-300)
        assert np.abs(x - y).max() <= tol * scale, (n, np.abs(x - y).max() / scale)
if "points" in a.attrs:
    assert a.attrs["points"].tobytes() == b.attrs["points"].tobytes()
PY
}
# kill_mid_run ROUNDS OUT ARGS...: `eddy run ARGS... --out OUT` (with --restart auto once OUT names a
# checkpoint) killed with SIGKILL while it writes, ROUNDS times, each time once a newer checkpoint is named
# (at most 30 s) and a few milliseconds more; `killed` is then the number of kills that hit a running run.
kill_mid_run() {
  local rounds=$1 out=$2 seen now pid round
  shift 2
  killed=0
  for round in $(seq "$rounds"); do
    seen=$(cat "$out/checkpoints/latest" 2>/dev/null)
    if [ -n "$seen" ]; then "$eddy" run "$@" --out "$out" --restart auto & else "$eddy" run "$@" --out "$out" & fi
    pid=$!
    for _ in $(seq 600); do
      now=$(cat "$out/checkpoints/latest" 2>/dev/null)
      [ -n "$now" ] && [ "$now" != "$seen" ] && break
      sleep 0.05
    done
    sleep 0.0$((RANDOM % 9 + 1))
    kill -9 $pid 2>/dev/null && killed=$((killed + 1))
    wait $pid 2>/dev/null
  done
  return 0
}
