#!/usr/bin/env bash
# eddy on input that once hung it, killed it, or let it write before refusing: schedules below the time
# step, signals during the set-up, refusals that must come before the first byte, reference tables,
# bodies that cover nothing or everything, numbers past an int, FIFOs given as files, and the spectral
# solver's exit-3 message. Each case is exit 2 (or 75) with a message naming the key or file.
eddy=$1 src=$2
source "$src/tests/support/checks.sh"
py=python3  # one with h5py (scripts/install-deps.sh installs Debian's into /usr/bin/python3)
for p in /usr/bin/python3 python3; do "$p" -c "import h5py, numpy" 2>/dev/null && { py=$p; break; }; done
expect() {  # expect CODE PATTERN -- args...   (each run limited to 60 s: a hang fails instead of blocking)
  local want=$1 pattern=$2
  shift 3
  local out code
  out=$(timeout -s KILL 60 "$eddy" "$@" 2>&1)
  code=$?
  if [ "$code" != "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    fail "eddy $* -> exit $code (want $want), output:"
    echo "$out" | tail -8 | sed 's/^/    /'
  else
    pass
  fi
}
absent() {  # absent DIR WHAT: a refused run left nothing behind
  if [ -e "$1" ]; then fail "$2 left $(find "$1" | head -3 | tr '\n' ' ')"; else pass; fi
}
# The reproduction case (dt = 0.1 (1/32) / 1 = 3.125e-3 s), validated against Ghia et al.
sed 's/reference: none/reference: ghia1982/' "$src/tests/data/cav.yaml" >cav.yaml

# --- Schedules below the time step: refused by validate and run alike, nothing written.
for v in 1e-20t 1e-9t; do
  expect 2 "output.diagnostics.every: [0-9e.+-]+t is shorter than one time step \(dt = 0.003125 s\)" -- \
    validate cav.yaml --set output.diagnostics.every=$v
  expect 2 "output.diagnostics.every: .*shorter than one time step" -- run cav.yaml --out tiny \
    --set output.diagnostics.every=$v
  absent tiny "a schedule below dt"
done
expect 2 "output.fields.every: .*shorter than one time step" -- validate cav.yaml --set output.fields.every=1e-3t
expect 2 "output.checkpoint.every: .*shorter than one time step" -- validate cav.yaml --set output.checkpoint.every=1e-4t
expect 2 "run.end_time: 1e-15 s is shorter than one time step" -- run cav.yaml --out short \
  --set run.end_time=1e-15 --set run.steps=0
absent short "run.end_time below dt"
expect 0 "valid" -- validate cav.yaml --set output.diagnostics.every=0.003125t
# The spectral solver's dt from numerics.cfl is known only at start-up: run refuses, before writing.
tgs=$src/cases/taylor_green/tgv2d_spectral.yaml
expect 2 "output.diagnostics.every: 1e-20t is shorter than one time step" -- run "$tgs" --out tinys \
  --set output.diagnostics.every=1e-20t
absent tinys "a spectral schedule below dt"
expect 2 "output.fields.every: 1e-20t is shorter than one time step \(dt = 0.01 s\)" -- validate "$tgs" \
  --set numerics.dt=0.01 --set output.fields.every=1e-20t

# --- Stop signals: handled from the start of main, also before the first step, and with a large
# run.stop_check_every. A SIGUSR1 sent while blocked stays pending until eddy takes it: the set-up's case.
early() {  # early OUT ARGS...: eddy run with a SIGUSR1 already pending at exec
  timeout -s KILL 60 "$py" -c '
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
os.kill(os.getpid(), signal.SIGUSR1)
os.execv(sys.argv[1], sys.argv[1:])' "$eddy" run cav.yaml --out "$@"
}
out=$(early early 2>&1)
code=$?
if [ "$code" = 75 ] && grep -q "stop requested before the first step (during the set-up); the initial state is checkpointed" <<<"$out" &&
  [ -s early/checkpoints/ckpt_00000000.h5 ]; then pass; else
  fail "SIGUSR1 during the set-up: exit $code (want 75), checkpoint: $(ls early/checkpoints 2>&1)"
  echo "$out" | tail -5
fi
expect 0 "stopped at step 400" -- run cav.yaml --out early --restart auto
# A restart stopped before its first step keeps its checkpoint as the newest.
out=$(early early --restart auto --set run.steps=800 2>&1)
code=$?
if [ "$code" = 75 ] && grep -q "the checkpoint it restarted from is still the newest" <<<"$out" &&
  [ "$(cat early/checkpoints/latest)" = ckpt_00000400.h5 ]; then pass; else
  fail "SIGUSR1 before a restart's first step: exit $code (want 75), latest $(cat early/checkpoints/latest)"
  echo "$out" | tail -5
fi
# run.stop_check_every far beyond the run: SIGTERM still stops it at the next diagnostics row.
"$eddy" run cav.yaml --out term --quiet --set "domain.cells=[64,64]" --set run.steps=50000000 \
  --set output.fields.every=0 --set output.checkpoint.every=0 --set output.diagnostics.every=1000 \
  --set run.stop_check_every=1000000000 --set validation.reference=none >term.txt 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s term/diagnostics.csv ] && break; sleep 0.1; done
sleep 0.5
kill -TERM $pid
for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
  kill -KILL $pid
  fail "SIGTERM with run.stop_check_every=1e9: still running 30 s later"
else
  wait $pid
  code=$?
  if [ "$code" = 75 ] && ls term/checkpoints/ckpt_*.h5 >/dev/null 2>&1; then pass; else
    fail "SIGTERM with run.stop_check_every=1e9: exit $code (want 75)"
    tail -3 term.txt
  fi
fi

# --- Refusals before the first byte.
# A restart whose diagnostics.csv has other columns: fields.xmf and run.log stay as they were.
expect 0 "stopped at step 400" -- run cav.yaml --out hdr
sed -i '1s/mlups/mlupx/' hdr/diagnostics.csv
cp hdr/fields/fields.xmf xmf.before && cp hdr/run.log log.before && cp hdr/diagnostics.csv csv.before
expect 2 "cannot continue diagnostics file.*diagnostics.csv.*differ from this run's" -- \
  run cav.yaml --out hdr --restart hdr/checkpoints/ckpt_00000200.h5
if cmp -s xmf.before hdr/fields/fields.xmf && cmp -s log.before hdr/run.log && cmp -s csv.before hdr/diagnostics.csv; then
  pass
else
  fail "a refused restart changed fields.xmf, run.log or diagnostics.csv"
fi
# A checkpoint whose state has another shape than its cells attribute says (a 64 x 16 run relabelled
# 32 x 32, the same dt): the metadata checksum refuses it (the state's shape against the grid is
# Hdf5Checkpoint.StateOfAnotherShapeIsUnusable), with no output directory made.
expect 0 "stopped at step 100" -- run cav.yaml --out wide --set "domain.cells=[64,16]" --set "domain.length=[2,0.5]" \
  --set run.steps=100 --set validation.reference=none
"$py" -c "import h5py, sys; h5py.File(sys.argv[1], 'r+').attrs['cells'] = [32, 32]" wide/checkpoints/ckpt_00000100.h5
expect 2 "refused: checksum mismatch in its metadata" -- run cav.yaml --out fresh \
  --restart wide/checkpoints/ckpt_00000100.h5
absent fresh "a checkpoint of another shape"
# A grid past what eddy can index: validate and run refuse it alike (and one past 64 bits).
expect 2 "domain.cells: \\[10000000, 10000000, 10000000\\] is 1e\\+21 cells, more than eddy can index" -- \
  validate "$src/cases/lid_driven_cavity/cavity3d.yaml" --set "domain.cells=[10000000,10000000,10000000]"
expect 2 "domain.cells: a block of [0-9]+ padded cells is more than one rank can index" -- \
  validate "$src/cases/lid_driven_cavity/cavity3d.yaml" --set "domain.cells=[100000,100000,100000]"
expect 2 "domain.cells: a block of [0-9]+ padded cells is more than one rank can index" -- \
  run "$src/cases/lid_driven_cavity/cavity3d.yaml" --out huge --set "domain.cells=[100000,100000,100000]"
absent huge "a grid too large to index"

# --- Reference tables are read and checked at start-up, naming file and line.
ghia=$src/cases/lid_driven_cavity/ghia1982_re100_400_1000.csv
sed '3s/-0.03717/abc/' "$ghia" >ghia_abc.csv
expect 2 "ghia_abc.csv:3: column value: 'abc' is not a finite number \(validation.file\)" -- \
  run cav.yaml --out ghia --set validation.file="$work/ghia_abc.csv"
absent ghia "a bad Ghia table"
sed '5s/^100,u_vs_y/100,u_vs_z/' "$ghia" >ghia_line.csv
expect 2 "ghia_line.csv:5: column line: 'u_vs_z' is not u_vs_y or v_vs_x" -- \
  validate cav.yaml --set validation.file="$work/ghia_line.csv"
expect 2 "validation.reference: albensoeder2005 compares the centrelines of the cube; domain.cells has 2 entries" \
  -- validate cav.yaml --set validation.reference=albensoeder2005
expect 2 "no Albensoeder & Kuhlmann \(2005\) data for Re = 400.*the shipped tables have Re 1000" -- \
  validate "$src/cases/lid_driven_cavity/cavity3d.yaml" --set physics.reynolds=400 --set validation.reference=albensoeder2005
tgv=$src/cases/taylor_green/tgv_re1600_dissipation.csv
awk 'NR == 10 {print "0.0,0.125,0.0004,0.375"; next} {print}' "$tgv" >tgv_back.csv
expect 2 "tgv_back.csv:10: column t: 0 does not increase" -- validate "$src/cases/taylor_green/tgv3d_spectral.yaml" \
  --set validation.file="$work/tgv_back.csv"
awk 'NR == 12 {print $0 ",7"; next} {print}' "$tgv" >tgv_cols.csv
expect 2 "tgv_cols.csv:12: expected 4 columns" -- validate "$src/cases/taylor_green/tgv3d_spectral.yaml" \
  --set validation.file="$work/tgv_cols.csv"

# --- Bodies must make some cells solid and leave some fluid.
expect 2 "geometry.bodies\[0\]: the cylinder.*holds no cell centre of the grid" -- run cav.yaml --out nobody \
  --set "geometry.bodies=[{type: cylinder, center: [0.5, 0.5], radius: 1e-4}]"
absent nobody "a body that covers no cell"
expect 2 "geometry.bodies\[0\]: the box.*covers every cell of the domain" -- validate cav.yaml \
  --set "geometry.bodies=[{type: box, lo: [0, 0], hi: [1, 1]}]"
expect 0 "valid" -- validate cav.yaml --set "geometry.bodies=[{type: cylinder, center: [0.5, 0.5], radius: 0.1}]"

# --- Numbers and values of the command line.
expect 2 "--repeat 4294967296: expected a positive whole number up to 1000000" -- bench cav.yaml --repeat 4294967296
expect 2 "--repeat 4294967297: expected a positive whole number up to 1000000" -- bench cav.yaml --repeat 4294967297
expect 2 "--ranks 4294967297: expected a positive whole number up to 2147483647" -- plan cav.yaml --ranks 4294967297
expect 2 "--restart needs a value: auto" -- run cav.yaml --out empty --restart ""
absent empty "--restart \"\""

# --- FIFOs are no files: refused at once instead of blocking.
mkfifo pipe.yaml pipe.h5
expect 2 "pipe.yaml: cannot read the config file: it is a FIFO" -- validate pipe.yaml
expect 2 "pipe.h5.*it is a FIFO" -- run cav.yaml --out fifo --restart "$work/pipe.h5"
absent fifo "a FIFO checkpoint"
expect 2 "geometry.bodies\[0\].*pipe.h5.*it is a FIFO" -- validate cav.yaml \
  --set "geometry.bodies=[{type: mask, file: $work/pipe.h5}]"
expect 2 "ghia.*pipe.h5.*it is a FIFO|pipe.h5: cannot read the Ghia reference table.*FIFO" -- validate cav.yaml \
  --set validation.file="$work/pipe.h5"

# --- The spectral solver's numerical failure names the cell and rank, as the LBM's does.
kol=$src/cases/kolmogorov_2d/kolmogorov2d_spectral.yaml
expect 3 "step 1, t = 0.01 s: the CFL number reached .*, the fastest point at cell \(0, 1\) on rank 0 \(unstable" -- \
  run "$kol" --out blow --set "domain.cells=[16,16]" --set physics.forcing.amplitude=1e6 --set numerics.dt=0.01 \
  --set run.check_every=1 --set output.fields.every=0 --set validation.reference=none
# The 2D Taylor-Green validation on a grid of unequal spacing (dx along x, 2 dx along y) stays exact.
expect 0 "relative L2 error of the velocity against the exact solution at t = 1 s = [0-9.]+e-1[3-7]" -- \
  run "$tgs" --out tg3216 --set "domain.cells=[32,16]" --set output.fields.every=0
finish
