#!/usr/bin/env bash
# Temporaries never follow a symbolic link planted under their name: with links named as the temporaries
# of checkpoints/latest, a checkpoint, a field file, fields.xmf and diagnostics.csv pointing outside the
# output directory, a run writes its own files and leaves the targets untouched.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"

mkdir -p T/checkpoints T/fields
k=0
for f in checkpoints/latest.tmp checkpoints/ckpt_00000100.h5.tmp fields/cav_00000100.h5.tmp \
         fields/cav_00000100.xmf.tmp fields/fields.xmf.tmp checkpoints/ckpt_00000200.ranks.tmp; do
  k=$((k + 1))
  echo "precious $k" >"victim$k"
  ln -s "$work/victim$k" "T/$f"
done
expect 0 "checkpoint T/checkpoints/ckpt_00000400.h5" run.log -- run cav.yaml --out T
for i in $(seq $k); do
  [ "$(cat "victim$i")" = "precious $i" ] && ok || bad "victim$i was overwritten: $(head -c 80 "victim$i" | tr -d '\0')"
done
[ "$(cat T/checkpoints/latest)" = ckpt_00000400.h5 ] && ok || bad "latest: $(cat T/checkpoints/latest)"
[ -f T/fields/cav_00000400.h5 ] && [ ! -L T/fields/cav_00000100.h5 ] && ok || bad "field files: $(ls -l T/fields)"
finish
