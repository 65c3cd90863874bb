#!/usr/bin/env bash
# A fresh run never takes over another run's output directory, and a restart never continues a state
# under other physics unasked:
#   1. a fresh run into a directory with another run's checkpoints is refused (exit 2), naming them and
#      the choices (--restart auto, another --out, --overwrite), and leaves them as they were;
#   2. --restart auto with another Reynolds number is refused (exit 2) naming the change and
#      --allow-physics-change, with which it continues;
#   3. --overwrite starts afresh: the earlier checkpoints go, the new run's survive its own rotation
#      (the checkpoint an exit 75 names exists), and --restart auto continues the new run, not the old;
#   4. rotation keeps output.checkpoint.keep of the run's own checkpoints.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"

"$eddy" run cav.yaml --out D --quiet --set run.steps=30000 --set output.checkpoint.every=10000 ||
  bad "first run failed"
before=$(ls D/checkpoints | tr '\n' ' ')
[ "$before" = "ckpt_00010000.h5 ckpt_00020000.h5 ckpt_00030000.h5 latest " ] && ok || bad "first run's checkpoints: $before"
second=(--set physics.reynolds=50 --set run.steps=100000 --set run.max_wall_time=0.3 --set output.checkpoint.every=500)
expect 2 "D: the output directory holds checkpoints of an earlier run \(ckpt_00030000.h5, ckpt_00020000.h5, ckpt_00010000.h5\); continue that run with --restart auto, write this one to another --out DIR, or start afresh here with --overwrite" \
  fresh.log -- run cav.yaml --out D --quiet "${second[@]}"
[ "$(ls D/checkpoints | tr '\n' ' ')" = "$before" ] && ok || bad "a refused run changed D/checkpoints: $(ls D/checkpoints)"

# 2. other physics on a restart
expect 2 "physics differ from the checkpoint's: physics \('reynolds: 100.0' -> 'reynolds: 50.0'\).*--allow-physics-change" \
  physics.log -- run cav.yaml --out D --quiet --restart auto "${second[@]}"
expect 2 "collision.*'collision: trt' -> 'collision: bgk'" collision.log -- run cav.yaml --out D --quiet \
  --restart auto --set run.steps=30100 --set numerics.collision=bgk
expect 2 "physics differ.*boundaries" walls.log -- run cav.yaml --out D --quiet --restart auto --set run.steps=30100 \
  --set "boundaries.y_max.velocity=[0.5,0.0]"
expect 0 "restarted from D/checkpoints/ckpt_00030000.h5" allowed.log -- run cav.yaml --out D --restart auto \
  --allow-physics-change --set physics.reynolds=50 --set run.steps=30100 --set output.checkpoint.every=10000
grep -q "physics differ" allowed.log && ok || bad "--allow-physics-change did not warn about the change"
expect 2 "--overwrite starts a run afresh; it does not go with --restart" both.log -- run cav.yaml --out D \
  --overwrite --restart auto

# 3. --overwrite: a fresh run of its own lineage
"$eddy" run cav.yaml --out D --quiet --overwrite "${second[@]}" >over.log 2>&1
code=$?
latest=$(cat D/checkpoints/latest 2>/dev/null)
[ $code = 75 ] && [ -n "$latest" ] && [ -f "D/checkpoints/$latest" ] && ok ||
  { bad "--overwrite run: exit $code, latest '$latest', checkpoints: $(ls D/checkpoints)"; cat over.log; }
ls D/checkpoints/ckpt_0001* D/checkpoints/ckpt_0002* D/checkpoints/ckpt_0003* >/dev/null 2>&1 &&
  bad "--overwrite left the earlier run's checkpoints: $(ls D/checkpoints)" || ok
step=$(sed 's/ckpt_0*\([0-9]*\)\.h5/\1/' D/checkpoints/latest)
expect 0 "restarted from D/checkpoints/$latest at step $step" resume.log -- run cav.yaml --out D --restart auto \
  --set physics.reynolds=50 --set run.steps=$((step + 100)) --set output.checkpoint.every=500

# 4. keep: 3 of the run's own
"$eddy" run cav.yaml --out K --quiet --set run.steps=1000 || bad "keep run failed"
[ "$(ls K/checkpoints | tr '\n' ' ')" = "ckpt_00000800.h5 ckpt_00000900.h5 ckpt_00001000.h5 latest " ] && ok ||
  bad "keep 3: $(ls K/checkpoints)"
finish
