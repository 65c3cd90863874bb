#!/usr/bin/env bash
# One run per output directory (the lock <out>/eddy.lock):
#   1. while a run writes D, a second fresh run and a --restart auto into D are refused (exit 2) naming the
#      holder's pid and host, and D's diagnostics.csv is the first run's alone;
#   2. a lock left by a process killed with -9 is no lock: --restart auto goes ahead;
#   3. the ranks of one MPI run do not refuse each other;
#   4. a refused run (bad input) into a new directory leaves no directory behind;
#   5. eddy optimize takes the same lock.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"

"$eddy" run cav.yaml --out D --quiet --set run.steps=100000000 >first.log 2>&1 &
pid=$!
for _ in $(seq 100); do [ -f D/checkpoints/latest ] && break; sleep 0.1; done
host=$(hostname)
expect 2 "D: another eddy run is writing this output directory \(pid $pid on host $host, lock D/eddy.lock\)" \
  second.log -- run cav.yaml --out D --quiet --overwrite --set run.steps=400
expect 2 "another eddy run is writing this output directory \(pid $pid" restart.log -- run cav.yaml --out D \
  --quiet --restart auto --set run.steps=100000000
expect 2 "another eddy run is writing this output directory \(pid $pid" optimize.log -- optimize \
  "$src/cases/optimal_perturbation/optimal_perturbation2d.yaml" --out D --quiet --set "domain.cells=[32,32]"
kill -0 $pid 2>/dev/null && ok || bad "the first run died"
kill -9 $pid
wait $pid 2>/dev/null
rows=$(grep -c '^50,' D/diagnostics.csv)
[ "$rows" = 1 ] && ok || bad "diagnostics.csv has $rows rows for step 50"

# 2. the dead process's lock
expect 75 "restarted from D/checkpoints/ckpt_" stale.log -- run cav.yaml --out D --restart auto \
  --set run.steps=100000000 --set run.max_wall_time=1

# 3. two ranks of one run
mpirun -n 2 "$eddy" run cav.yaml --out M --quiet >mpi.log 2>&1 && [ -f M/checkpoints/ckpt_00000400.h5 ] && ok ||
  { bad "mpirun -n 2 failed"; cat mpi.log; }

# 4. bad input into a new directory
expect 2 "no valid checkpoint" none.log -- run cav.yaml --out new/dir --quiet --restart auto
[ ! -e new ] && ok || bad "a refused run left $(find new)"
finish
