#!/usr/bin/env bash
# `eddy run` on a small cavity writes the files of src/README.md, Output files, with the right shapes and
# attributes.
set -u
eddy=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$eddy" run "$src/cases/lid_driven_cavity/cavity2d.yaml" --set "domain.cells=[32,32]" --set physics.reynolds=100 \
  --set run.end_time=2.0 --set output.fields.every=1t --out run1 >stdout.txt 2>&1
code=$?
[ $code = 0 ] || { echo "FAIL: eddy run exited $code"; cat stdout.txt; exit 1; }
fails=0 passes=0
check() { if eval "$2"; then passes=$((passes + 1)); else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
check "run.log" "[ -s run1/run.log ] && grep -q 'resolved config' run1/run.log"
check "diagnostics.csv header" "head -1 run1/diagnostics.csv | grep -q '^step,time,kinetic_energy'"
check "field files" "[ \$(ls run1/fields/cavity2d_*.h5 | wc -l) -ge 3 ]"
check "xdmf" "ls run1/fields/cavity2d_00000000.xmf run1/fields/fields.xmf >/dev/null"
check "no temporaries" "[ -z \"\$(find run1 -name '*.tmp')\" ]"
check "progress line" "grep -q 'MLUPS' stdout.txt"
check "Ghia table printed" "grep -q 'Ghia' stdout.txt"
last=$(ls run1/fields/cavity2d_*.h5 | tail -1)
if command -v h5dump >/dev/null; then
  check "velocity shape (32, 32, 2)" "h5dump -H -d velocity $last | grep -q 'DATASPACE  SIMPLE { ( 32, 32, 2 )'"
  check "density shape" "h5dump -H -d density $last | grep -q '( 32, 32 )'"
  for a in solver step time dimensions domain_length resolved_config eddy_version backend ranks; do
    check "attribute $a" "h5dump -A $last | grep -q 'ATTRIBUTE \"$a\"'"
  done
fi
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  check "h5py reads velocity in m/s (lid row moves)" "/usr/bin/python3 - <<PY
import h5py
f = h5py.File('$last', 'r')
u = f['velocity'][...]
assert u.shape == (32, 32, 2), u.shape
assert 0.2 < u[-1, 16, 0] < 1.0, u[-1, 16, 0]
assert f.attrs['solver'] in (b'lbm', 'lbm')
PY"
fi
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
