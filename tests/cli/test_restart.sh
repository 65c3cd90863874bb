#!/usr/bin/env bash
# Checkpoint/restart and failure behaviour, every check against an
# uninterrupted run with h5diff and no tolerance:
#   1. N steps straight == N/2 steps + --restart auto (1 rank), and == N/2 on 2 ranks + restart on 4
#      (populations in 64 and 16 bits, moments);
#      the same for a cylinder in an inflow, with its coefficient samples and end-of-run statistics, and
#      diagnostics.csv continued exactly (TGV, spectral and LBM);
#   2. ten kill -9 at random moments, each followed by --restart auto, then the run to its end;
#   3. SIGTERM to mpirun -n 2: exit 75 within seconds, a checkpoint, and a restart that finishes;
#   4. a checkpoint with one flipped byte: skipped by --restart auto, refused by --restart PATH;
#   5. an induced instability exits 3 naming the step and the cell.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/finish
cfg=$src/cases/lid_driven_cavity/cavity2d.yaml
base=(--set "domain.cells=[48,40]" --set "domain.length=[1.2,1.0]" --set physics.reynolds=100 --set run.end_time=0
      --set run.steady.tolerance=0 --set output.fields.every=0 --set output.diagnostics.every=100
      --set validation.reference=none --quiet)
N=1200
same() {  # same DIR_A DIR_B STEP
  local a b s
  s=$(printf %08d "$3")
  a="$1/fields/cavity2d_$s.h5" b="$2/fields/cavity2d_$s.h5"
  if [ -f "$a" ] && [ -f "$b" ] && h5diff "$a" "$b" velocity >/dev/null && h5diff "$a" "$b" density >/dev/null; then ok
  else bad "$4: $a and $b differ or are missing"; fi
}

"$eddy" run "$cfg" "${base[@]}" --set run.steps=$N --out straight || bad "straight run failed"

# 1. split runs (an odd split step exercises the AA pattern's swapped layout)
"$eddy" run "$cfg" "${base[@]}" --set run.steps=601 --set output.checkpoint.every=601 --out split1
"$eddy" run "$cfg" "${base[@]}" --set run.steps=$N --out split1 --restart auto
same straight split1 $N "N/2 + restart (1 rank)"
mpirun -n 2 "$eddy" run "$cfg" "${base[@]}" --set run.steps=601 --set output.checkpoint.every=601 --out split24
mpirun -n 4 "$eddy" run "$cfg" "${base[@]}" --set run.steps=$N --out split24 --restart auto
same straight split24 $N "N/2 on 2 ranks + restart on 4 ranks"
rows=$(grep -c '^601,' split1/diagnostics.csv)
[ "$rows" = 1 ] && ok || bad "diagnostics.csv has $rows rows for step 601 after the restart"

# 1b. the same with 16-bit population storage: the checkpoint holds the stored 16-bit words (uint16)
h=(--set numerics.precision=fp32/fp16)
"$eddy" run "$cfg" "${base[@]}" "${h[@]}" --set run.steps=$N --out straight16 || bad "straight fp16 run failed"
"$eddy" run "$cfg" "${base[@]}" "${h[@]}" --set run.steps=601 --set output.checkpoint.every=601 --out split16
"$eddy" run "$cfg" "${base[@]}" "${h[@]}" --set run.steps=$N --out split16 --restart auto
same straight16 split16 $N "fp16: N/2 + restart (1 rank)"
mpirun -n 2 "$eddy" run "$cfg" "${base[@]}" "${h[@]}" --set run.steps=601 --set output.checkpoint.every=601 --out split16_24
mpirun -n 4 "$eddy" run "$cfg" "${base[@]}" "${h[@]}" --set run.steps=$N --out split16_24 --restart auto
same straight16 split16_24 $N "fp16: N/2 on 2 ranks + restart on 4 ranks"
"$eddy" run "$cfg" "${base[@]}" --set run.steps=$N --out split16 --restart auto >mm16.log 2>&1
code=$?
[ $code = 2 ] && grep -q "precision" mm16.log && ok || { bad "fp16 checkpoint into an fp64 run gave $code"; cat mm16.log; }

# 1b'. the same with moment storage (regularized): the checkpoint holds the moments; a moment checkpoint
#      does not restart a run that stores populations
mo=(--set numerics.collision=regularized --set numerics.storage=moments)
"$eddy" run "$cfg" "${base[@]}" "${mo[@]}" --set run.steps=$N --out straight_mo || bad "straight moments run failed"
mpirun -n 2 "$eddy" run "$cfg" "${base[@]}" "${mo[@]}" --set run.steps=601 --set output.checkpoint.every=601 --out split_mo
mpirun -n 4 "$eddy" run "$cfg" "${base[@]}" "${mo[@]}" --set run.steps=$N --out split_mo --restart auto
same straight_mo split_mo $N "moments: N/2 on 2 ranks + restart on 4 ranks"
"$eddy" run "$cfg" "${base[@]}" --set numerics.collision=regularized --set run.steps=$N --out split_mo \
  --restart auto >mm_mo.log 2>&1
code=$?
[ $code = 2 ] && grep -q "scheme D2Q9/moments" mm_mo.log && ok || { bad "moment checkpoint into a population run gave $code"; cat mm_mo.log; }

# 1c. a body in an inflow (cylinder, DFG 2D-1 at D = 10 cells, inflow ramp): fields, the coefficient
#     samples (coefficients.csv) and the end-of-run statistics (bodies.txt: mean, max, min over the second
#     half of the whole run) the same after N/2 on 2 ranks + restart on 3 as straight
cyl=(--set "domain.cells=[220,41]" --set run.end_time=0 --set run.steady.tolerance=0 --set output.fields.every=0
     --set output.diagnostics.every=100 --quiet)
"$eddy" run "$src/cases/cylinder/cylinder2d_re20.yaml" "${cyl[@]}" --set run.steps=$N --out cyl_straight ||
  bad "straight cylinder run failed"
mpirun -n 2 "$eddy" run "$src/cases/cylinder/cylinder2d_re20.yaml" "${cyl[@]}" --set run.steps=601 \
  --set output.checkpoint.every=601 --out cyl_split
mpirun -n 3 "$eddy" run "$src/cases/cylinder/cylinder2d_re20.yaml" "${cyl[@]}" --set run.steps=$N --out cyl_split --restart auto
s=$(printf %08d $N)
for d in velocity density; do
  h5diff "cyl_straight/fields/cylinder2d_re20_$s.h5" "cyl_split/fields/cylinder2d_re20_$s.h5" $d >/dev/null && ok ||
    bad "cylinder: $d differs after the restart"
done
cmp -s cyl_straight/coefficients.csv cyl_split/coefficients.csv && ok || bad "cylinder: coefficients.csv differs after the restart"
cmp -s cyl_straight/bodies.txt cyl_split/bodies.txt && ok || { bad "cylinder: bodies.txt differs after the restart"; diff cyl_straight/bodies.txt cyl_split/bodies.txt; }

# 1d. diagnostics.csv continues: with the restart step on the diagnostics schedule, every column but the
#     timing ones (minus_dEdt from the earlier run's last row, not nan) equals the straight run's; the
#     TGV validation series is built the same way (spectral and LBM)
tg=(--set "domain.cells=[16,16,16]" --set run.end_time=0 --set output.fields.every=0 --set output.diagnostics.every=10
    --set validation.reference=none --quiet)
for solver in spectral lbm; do
  t=(--set run.steps=100)
  [ $solver = spectral ] && t+=(--set numerics.dt=0.01)
  "$eddy" run "$src/cases/taylor_green/tgv3d_$solver.yaml" "${tg[@]}" "${t[@]}" --out tg_$solver >/dev/null
  "$eddy" run "$src/cases/taylor_green/tgv3d_$solver.yaml" "${tg[@]}" "${t[@]}" --set run.steps=50 --set output.checkpoint.every=50 \
    --out tg_${solver}_split >/dev/null
  "$eddy" run "$src/cases/taylor_green/tgv3d_$solver.yaml" "${tg[@]}" "${t[@]}" --out tg_${solver}_split --restart auto >/dev/null
  cmp -s <(cut -d, -f1-6 tg_$solver/diagnostics.csv) <(cut -d, -f1-6 tg_${solver}_split/diagnostics.csv) && ok ||
    bad "$solver TGV: diagnostics.csv (step..minus_dEdt) differs after the restart"
done

# 2. kill -9 at random moments
k=(--set run.steps=$N --set output.checkpoint.every=37 --set output.checkpoint.keep=2 --out killed)
RANDOM=4242
for i in $(seq 10); do
  if ls killed/checkpoints/ckpt_*.h5 >/dev/null 2>&1; then
    "$eddy" run "$cfg" "${base[@]}" "${k[@]}" --restart auto &
  else
    "$eddy" run "$cfg" "${base[@]}" "${k[@]}" &
  fi
  pid=$!
  sleep "0.$((RANDOM % 9 + 1))"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
done
if ls killed/checkpoints/ckpt_*.h5 >/dev/null 2>&1; then
  "$eddy" run "$cfg" "${base[@]}" "${k[@]}" --restart auto || bad "final restart after the kills failed ($?)"
else
  "$eddy" run "$cfg" "${base[@]}" "${k[@]}" || bad "final run after the kills failed"
fi
same straight killed $N "ten kill -9 + restarts"
[ "$(ls killed/checkpoints/ckpt_*.h5 | wc -l)" -le 2 ] && ok || bad "output.checkpoint.keep=2 not honoured"

# 3. stop signals on an `mpirun -n 2` job. Every rank checkpoints and exits 75 within seconds. Where
#    the signal goes decides what mpirun itself reports: SIGTERM to the ranks (what Slurm's time limit
#    and scancel do) and SIGUSR1 to mpirun (forwarded to the ranks) give 75; SIGTERM to mpirun alone
#    makes OpenMPI end with its own status 1 after the ranks have checkpointed and exited.
signal_job() {  # signal_job NAME HOW WANT
  local name=$1 how=$2 want=$3 pid code t0 dt step
  mpirun -n 2 "$eddy" run "$cfg" "${base[@]}" --set run.steps=100000000 --out "$name" >"$name.log" 2>&1 &
  pid=$!
  sleep 3
  case $how in
    ranks) pkill -TERM -P $pid ;;
    usr1) kill -USR1 $pid ;;
    mpirun) kill -TERM $pid ;;
  esac
  t0=$(date +%s)
  wait $pid
  code=$?
  dt=$(($(date +%s) - t0))
  if [ $code = "$want" ] && [ $dt -le 10 ] && ls "$name"/checkpoints/ckpt_*.h5 >/dev/null 2>&1; then ok
  else bad "signal ($how): exit $code (want $want) after ${dt}s, checkpoints: $(ls "$name"/checkpoints 2>&1)"; cat "$name.log"; fi
  pgrep -f "out $name" >/dev/null && bad "signal ($how): a rank is still running"
  step=$(sed 's/ckpt_0*\([0-9]*\)\.h5/\1/' "$name"/checkpoints/latest 2>/dev/null)
  if [ -n "$step" ]; then
    mpirun -n 2 "$eddy" run "$cfg" "${base[@]}" --set run.steps=$((step + 50)) --out "$name" --restart auto
    [ $? = 0 ] && [ -f "$name/fields/cavity2d_$(printf %08d $((step + 50))).h5" ] && ok || bad "restart after $how"
  fi
}
signal_job term_ranks ranks 75
signal_job usr1 usr1 75
signal_job term_mpirun mpirun 1

# A rank that dies takes the job down instead of leaving the other waiting.
mpirun -n 2 "$eddy" run "$cfg" "${base[@]}" --set run.steps=100000000 --out dies >dies.log 2>&1 &
pid=$!
sleep 3
victim=$(pgrep -P $pid | tail -1)
kill -9 "$victim"
t0=$(date +%s)
wait $pid
code=$?
dt=$(($(date +%s) - t0))
if [ $code != 0 ] && [ $dt -le 15 ] && ! pgrep -f "out dies" >/dev/null; then ok
else bad "a killed rank: mpirun exit $code after ${dt}s"; pkill -9 -f "out dies"; fi

# 4. a flipped byte
"$eddy" run "$cfg" "${base[@]}" --set run.steps=400 --set output.checkpoint.every=200 --out flip
victim=flip/checkpoints/ckpt_00000400.h5
/usr/bin/python3 - "$victim" <<'PY'
import sys, h5py
path = sys.argv[1]
with h5py.File(path, "r") as f:
    offset = f["state"].id.get_offset()
with open(path, "r+b") as f:
    f.seek(offset + 1000)
    b = f.read(1)
    f.seek(offset + 1000)
    f.write(bytes([b[0] ^ 0x10]))
PY
"$eddy" run "$cfg" "${base[@]}" --set run.steps=400 --out flip --restart auto >flip.log 2>&1
if [ $? = 0 ] && grep -q "ckpt_00000400.h5: skipped" flip.log && grep -q "checksum" flip.log; then ok
else bad "flipped byte not skipped by --restart auto"; cat flip.log; fi
"$eddy" run "$cfg" "${base[@]}" --set run.steps=800 --out flip2 --restart "$victim" >flip2.log 2>&1
code=$?
if [ $code = 2 ] && grep -q "refused" flip2.log; then ok; else bad "flipped byte: --restart PATH gave $code"; cat flip2.log; fi

# 5. an induced instability
"$eddy" run "$cfg" --set "domain.cells=[64,64]" --set physics.reynolds=100000 --set numerics.lattice_velocity=0.17 \
  --set validation.reference=none \
  --set numerics.collision=bgk --set run.check_every=20 --out unstable --quiet >unstable.log 2>&1
code=$?
if [ $code = 3 ] && grep -qE "step [0-9]+" unstable.log && grep -q "at cell (" unstable.log &&
   ls unstable/fields/FAILED_* >/dev/null 2>&1; then ok
else bad "instability: exit $code"; cat unstable.log; fi

# Mismatched config is refused.
"$eddy" run "$cfg" "${base[@]}" --set run.steps=800 --set numerics.precision=fp32 --out split1 --restart auto >mm.log 2>&1
code=$?
[ $code = 2 ] && grep -q "precision" mm.log && ok || { bad "precision mismatch gave $code"; cat mm.log; }
"$eddy" run "$cfg" "${base[@]}" --set run.steps=10 --out nothing --restart auto >none.log 2>&1
[ $? = 2 ] && grep -q "no valid checkpoint" none.log && [ ! -e nothing ] && ok || { bad "restart without checkpoints"; cat none.log; }

finish
