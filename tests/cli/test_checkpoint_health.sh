#!/usr/bin/env bash
# A diverged state never replaces a healthy checkpoint: with the default run.check_every (100) and a
# checkpoint every 10 steps (keep 3), a cavity that turns unstable between two health checks stops
# (exit 3) at the first checkpoint after it did, and every checkpoint left is healthy: continued for no
# step (its fields at the end), its Mach number is within 1.5 x numerics.max_mach, and it is finite.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"
unstable=(--set physics.reynolds=100000 --set numerics.lattice_velocity=0.17 --set numerics.collision=bgk
          --set numerics.max_mach=1 --set output.fields.every=0 --set output.diagnostics.every=1000
          --set output.checkpoint.every=10 --set run.steps=1000)
"$eddy" run cav.yaml --out U --quiet "${unstable[@]}" >unstable.log 2>&1
code=$?
[ $code = 3 ] && grep -q "checkpoints already written are kept" unstable.log && ok ||
  { bad "unstable run: exit $code"; cat unstable.log; }
ls U/checkpoints/ckpt_*.h5 >/dev/null 2>&1 && ok || bad "no checkpoint left: $(ls U/checkpoints)"
for ck in U/checkpoints/ckpt_*.h5; do
  step=$(basename "$ck" | sed 's/ckpt_0*\([0-9]*\)\.h5/\1/')
  "$eddy" run cav.yaml --out "V$step" --quiet --restart "$ck" "${unstable[@]}" --set run.steps="$step" \
    >"V$step.log" 2>&1 || { bad "continuing $ck failed"; cat "V$step.log"; }
  # Mach = max|u| / U * lattice_velocity * sqrt(3), U = 1 m/s
  /usr/bin/python3 - "V$step/fields/cav_$(printf %08d "$step").h5" <<'PY' && ok || bad "$ck holds an unhealthy state"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    u = f["velocity"][...]
mach = np.sqrt((u ** 2).sum(axis=-1)).max() * 0.17 * np.sqrt(3)
print(sys.argv[1], "Mach", mach)
assert np.isfinite(u).all() and mach <= 1.5, mach
PY
done
latest=$(cat U/checkpoints/latest 2>/dev/null)
[ -f "U/checkpoints/$latest" ] && ok || bad "latest names '$latest', checkpoints: $(ls U/checkpoints)"
finish
