#!/usr/bin/env bash
# output.writer=per_rank end to end (3D cavity, uneven boxes, 4 ranks oversubscribed):
#   1. its field files equal the default writer's bitwise (h5diff, every field), each a master file
#      with <stem>.ranks/<rank:06d>.h5 beside it and nothing left under a temporary name;
#   2. a restart on 2 ranks from its checkpoint (written on 4) equals the uninterrupted run, and
#      checkpoint rotation (keep 1) leaves one checkpoint with its rank files;
#   3. h5py opens a master from another working directory, and from a copy of the whole output
#      directory elsewhere (rank files are named relative to the master);
#   4. run.log reports the bandwidth of field files and checkpoints, naming the writer;
#   5. a writer that is not one of auto|collective|gather|per_rank (and collective on a serial HDF5)
#      exits 2 naming output.writer, with nothing written.
eddy=$1 src=$2
source "$src/tests/support/checks.sh"
py=/usr/bin/python3
cfg=$src/cases/lid_driven_cavity/cavity3d.yaml
run() {  # run NAME NP [--set ...]
  local name=$1 np=$2
  shift 2
  mpirun -n "$np" "$eddy" run "$cfg" --quiet --out "$name" --set "domain.cells=[17,16,15]" \
    --set "domain.length=[1.0,0.9411764705882353,0.8823529411764706]" --set numerics.precision=fp64 \
    --set run.end_time=0 --set run.steady.tolerance=0 --set output.diagnostics.every=20 \
    --set validation.reference=none "$@" >"$name.log" 2>&1 || { fail "$name exited $?"; cat "$name.log"; }
}
fields=(velocity density pressure x y z)

# 1. per_rank against the default writer, every 40 steps
run default 4 --set run.steps=80 --set output.fields.every=40
run per_rank 4 --set run.steps=80 --set output.fields.every=40 --set output.writer=per_rank
for s in 0 40 80; do same_fields default per_rank $s 0 "${fields[@]}"; done
f=per_rank/fields/cavity3d_00000080
for r in 000000 000001 000002 000003; do [ -f "$f.ranks/$r.h5" ] && pass || fail "no rank file $f.ranks/$r.h5"; done
leftover=$(find per_rank -name '*.tmp' | head -3)
[ -z "$leftover" ] && pass || fail "temporary names left: $leftover"

# 2. checkpoint on 4 ranks with per_rank, restart on 2 with the default writer
run split 4 --set run.steps=40 --set output.fields.every=0 --set output.checkpoint.every=20 \
  --set output.checkpoint.keep=1 --set output.writer=per_rank
ck=$(ls split/checkpoints | sort | tr '\n' ' ')
[ "$ck" = "ckpt_00000040.h5 ckpt_00000040.ranks latest " ] && pass || fail "checkpoints after rotation: $ck"
[ "$(cat split/checkpoints/latest)" = ckpt_00000040.h5 ] && pass || fail "latest: $(cat split/checkpoints/latest)"
grep -Eq 'checkpoints: 2 written, .* GB/s \(per_rank writer\)' split/run.log && pass ||
  { fail "split/run.log has no checkpoint bandwidth line"; grep -E 'field files|checkpoints:' split/run.log; }
run split 2 --set run.steps=80 --set output.fields.every=40 --restart auto
same_fields default split 80 0 velocity density pressure

# 3. h5py from another working directory and from a moved copy
mkdir -p elsewhere
cp -r per_rank moved_away
check_py() {  # check_py DIR FILE: FILE opened from DIR equals default's, its velocity a virtual dataset
  (cd "$1" && "$py" - "$2" "$work/default/fields/cavity3d_00000080.h5" <<'EOF'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    assert a["velocity"].is_virtual, "velocity is not a virtual dataset"
    for name in b:
        assert np.array_equal(a[name][...], b[name][...]), name
    assert dict(a.attrs)["ranks"] == 4
EOF
  ) && pass || fail "h5py in $1 reading $2"
}
if "$py" -c 'import h5py' 2>/dev/null; then
  check_py elsewhere ../per_rank/fields/cavity3d_00000080.h5
  check_py / "$work/per_rank/fields/cavity3d_00000080.h5"
  rm -rf per_rank_gone && mv per_rank per_rank_gone
  check_py moved_away/fields cavity3d_00000080.h5
  mv per_rank_gone per_rank
else
  echo "h5py not available: skipping the h5py checks"
fi

# 4. the bandwidth lines
grep -Eq 'field files: [0-9]+ written, .* GB/s \(per_rank writer\)' per_rank/run.log && pass ||
  fail "per_rank/run.log has no field-file bandwidth line"
grep -Eq 'checkpoints: none written \(per_rank writer\)' per_rank/run.log && pass ||
  fail "per_rank/run.log has no checkpoint line"

# 5. bad writers
"$eddy" run "$cfg" --quiet --out bad --set output.writer=mpiio >bad.log 2>&1
code=$?
[ $code = 2 ] && grep -q 'output.writer' bad.log && grep -q 'per_rank' bad.log && [ ! -e bad ] && pass ||
  { fail "output.writer=mpiio gave exit $code"; cat bad.log; }
if "$eddy" info 2>&1 | grep -q 'HDF5: *serial'; then
  "$eddy" run "$cfg" --quiet --out bad --set output.writer=collective >bad.log 2>&1
  code=$?
  [ $code = 2 ] && grep -q 'output.writer' bad.log && [ ! -e bad ] && pass ||
    { fail "output.writer=collective on a serial HDF5 gave exit $code"; cat bad.log; }
fi
finish
