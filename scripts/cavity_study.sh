#!/usr/bin/env bash
# Grid study of the 2D lid-driven cavity against Ghia et al. (1982): every Re x resolution, printing
# the max centreline deviations.  scripts/cavity_study.sh EDDY OUTDIR "RE..." "N..." [extra --set args]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
eddy=$1 out=$2 res=$3 ns=$4
shift 4
mkdir -p "$out"
echo "re,n,extra,steps,time,max_u_dev,max_v_dev"
for re in $res; do
  for n in $ns; do
    d="$out/cavity_re${re}_n${n}"
    "$eddy" run "$root/configs/cavity2d.yaml" --set physics.reynolds="$re" --set "domain.cells=[$n,$n]" \
      --set output.fields.every=0 --set output.diagnostics.every=10000 "$@" --out "$d" --quiet >/dev/null
    line=$(grep "max |u - u_Ghia|" "$d/run.log")
    u=$(sed -E 's/.*max \|u - u_Ghia\| = ([0-9.]+) U.*/\1/' <<<"$line")
    v=$(sed -E 's/.*max \|v - v_Ghia\| = ([0-9.]+) U.*/\1/' <<<"$line")
    stop=$(grep "^stopped at step" "$d/run.log" | sed -E 's/stopped at step ([0-9]+), t = ([0-9.e+-]+) s.*/\1,\2/')
    echo "$re,$n,\"$*\",$stop,$u,$v"
  done
done
