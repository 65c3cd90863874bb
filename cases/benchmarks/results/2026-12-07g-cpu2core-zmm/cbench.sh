#!/bin/bash
# cbench.sh OUT ROUND TAG=BIN...: CPU benches, binaries alternating case by case
O=$1; r=$2; shift 2; mkdir -p $O
export OMP_NUM_THREADS=2 OMP_PROC_BIND=close
C=/work/main/configs/bench
cases=(
 "d19bgk32|$C/lbm_d3q19_256.yaml --set domain.cells=[96,96,96] --steps 20"
 "d19trt32|$C/lbm_d3q19_256.yaml --set domain.cells=[96,96,96] --steps 20 --set numerics.collision=trt"
 "d19reg32|$C/lbm_d3q19_256.yaml --set domain.cells=[96,96,96] --steps 20 --set numerics.collision=regularized"
 "d19bgk64|$C/lbm_d3q19_256.yaml --set domain.cells=[96,96,96] --steps 10 --set numerics.precision=fp64"
 "d27bgk32|$C/lbm_d3q19_256.yaml --set domain.cells=[96,96,96] --steps 10 --set numerics.lattice=D3Q27"
 "d19bgk16|$C/lbm_d3q19_256_fp16.yaml --set domain.cells=[96,96,96] --steps 20"
 "d9bgk32|$C/lbm_d2q9_2048.yaml --set domain.cells=[1024,1024] --steps 40"
 "d9bgk64|$C/lbm_d2q9_2048.yaml --set domain.cells=[1024,1024] --steps 40 --set numerics.precision=fp64"
 "d19mom32|$C/lbm_d3q19_256_moments.yaml --set domain.cells=[96,96,96] --steps 5"
)
for c in "${cases[@]}"; do n=${c%%|*}; a=${c#*|}
  for tb in "$@"; do t=${tb%%=*}; b=${tb#*=}
    $b bench $a --repeat 5 --json $O/${t}_${n}_r$r.json > $O/${t}_${n}_r$r.log 2>&1
    echo "$t $n r$r: $(grep -o 'MLUPS median[^;]*' $O/${t}_${n}_r$r.log | head -1) | $(grep -o '[0-9.]*% of the measured copy bandwidth ([0-9.]* GB/s' $O/${t}_${n}_r$r.log | head -1)"
  done
done
