#!/usr/bin/env bash
# A restart trusts nothing of a checkpoint it has not checked (checkpoints crafted with h5py):
#   1. root attributes changed after writing (step -400, 2^62, 401: the other AA parity; time NaN, inf,
#      1e300) break the metadata checksum: --restart PATH is refused (exit 2), --restart auto falls back
#      to the next older checkpoint;
#   2. a checkpoint without the metadata checksum (an older eddy's) is refused, saying why;
#   3. a state of another shape is refused before its checksum is computed: a 6 KB file declaring a
#      chunked, unallocated (10^9, 32, 9) state answers within seconds;
#   4. a spectral checkpoint with time 0, inf or 1e300 is refused instead of running with dt = 0.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"
py=/usr/bin/python3

"$eddy" run cav.yaml --out C --quiet || bad "the cavity run failed"
good=C/checkpoints/ckpt_00000400.h5
# craft SRC DEST ATTR VALUE: a copy of SRC with one root attribute set (VALUE a Python expression)
craft() {
  cp "$1" "$2"
  $py - "$2" "$3" "$4" <<'PY'
import sys, h5py, numpy as np
path, attr, value = sys.argv[1], sys.argv[2], eval(sys.argv[3], {"np": np})
with h5py.File(path, "r+") as f:
    if value is None:
        del f.attrs[attr]
    else:
        f.attrs[attr] = value
PY
}
for case in "step np.int64(-400)" "step np.int64(2**62)" "step np.int64(401)" "time float('nan')" \
            "time float('inf')" "time 1e300"; do
  set -- $case
  craft $good bad.h5 "$1" "$2"
  expect 2 "--restart bad.h5: refused: checksum mismatch in its metadata" "meta_$1.log" -- run cav.yaml --out C \
    --quiet --restart bad.h5 --set run.steps=800
done

# --restart auto falls back past the unusable newest one
craft $good tampered.h5 step "np.int64(401)"
mv tampered.h5 $good
expect 0 "ckpt_00000400.h5: skipped for restart \(checksum mismatch in its metadata" auto.log -- run cav.yaml \
  --out C --restart auto --set run.steps=500
grep -q "restarted from C/checkpoints/ckpt_00000300.h5 at step 300" auto.log && ok ||
  { bad "--restart auto did not fall back to step 300"; cat auto.log; }

# 2. no metadata checksum
craft C/checkpoints/ckpt_00000300.h5 old.h5 meta_checksum None
expect 2 "old.h5: refused: no checksum of its metadata \(written by an older eddy" old.log -- run cav.yaml \
  --out C --quiet --restart old.h5 --set run.steps=800

# 3. a huge declared state, never written
$py - C/checkpoints/ckpt_00000300.h5 huge.h5 <<'PY'
import sys, h5py
src, dst = sys.argv[1:]
with h5py.File(src, "r") as s, h5py.File(dst, "w") as d:
    for k, v in s.attrs.items():
        d.attrs[k] = v
    ds = d.create_dataset("state", shape=(10**9, 32, 9), dtype="f8", chunks=(1, 32, 9))
    for k, v in s["state"].attrs.items():
        ds.attrs[k] = v
PY
[ "$(stat -c %s huge.h5)" -lt 100000 ] && ok || bad "huge.h5 is $(stat -c %s huge.h5) bytes"
t0=$(date +%s)
timeout 120 "$eddy" run cav.yaml --out C --quiet --restart huge.h5 --set run.steps=800 >huge.log 2>&1
code=$?
dt=$(($(date +%s) - t0))
[ $code = 2 ] && [ $dt -le 10 ] && grep -q "dataset 'state' has shape (1000000000, 32, 9), the run's state is (32, 32, 9)" huge.log &&
  ok || { bad "huge declared state: exit $code after ${dt}s"; cat huge.log; }

# 4. spectral: time 0 / inf / 1e300
"$eddy" run "$src/cases/taylor_green/tgv2d_spectral.yaml" --out S --quiet --set "domain.cells=[16,16]" --set numerics.dt=0.01 \
  --set run.end_time=0 --set run.steps=20 --set output.checkpoint.every=10 --set output.fields.every=0 \
  --set validation.reference=none || bad "spectral run failed"
for t in 0.0 "float('inf')" 1e300; do
  craft S/checkpoints/ckpt_00000020.h5 spec.h5 time "$t"
  t0=$(date +%s)
  timeout 60 "$eddy" run "$src/cases/taylor_green/tgv2d_spectral.yaml" --out S --quiet --restart spec.h5 \
    --set "domain.cells=[16,16]" --set run.end_time=1 --set output.fields.every=0 --set validation.reference=none >spec.log 2>&1
  code=$?
  [ $code = 2 ] && grep -q "checksum mismatch in its metadata" spec.log && ok ||
    { bad "spectral checkpoint with time $t: exit $code after $(($(date +%s) - t0))s"; cat spec.log; }
done
finish
