#!/usr/bin/env bash
# Two hosts of two ranks each, emulated on one machine (needs root): each host is a network namespace
# with a veth to a bridge in a third (addresses of 198.18.0.0/24, the RFC 2544 benchmarking range, inside
# the namespaces only) and a UTS namespace of its own, so its hostname differs. Ranks talk TCP between
# the hosts and shared memory within one.
# mpirun (the default; ctest multihost_2x2, label `mpi`): mpirun runs on h0 and starts h1's daemon through
# an rsh agent that enters h1's namespaces, as ssh would on a cluster.
#  - eddy info: 2 hosts of 2 ranks, each rank on its own host; node-local ranks 0, 1 on each host (the
#    node map that MPI_COMM_TYPE_SHARED splits by, which picks a rank's GPU);
#  - LBM 3D cavity on 2 x 2 ranks: every field bitwise equal to one rank's;
#  - spectral 3D Taylor-Green on pencils 2 x 2: velocity and vorticity within 1e-12 of one rank's;
#  - the 2D cavity's Ghia validation.csv on 2 x 2 ranks byte for byte one rank's.
# slurm (ctest multihost_slurm, label `slurm`; slurm-wlm and munge): slurmctld and a slurmd on h0, a
# slurmd on h1; `srun eddy info` on 2 nodes x 2 tasks, and the 3D cavity through `scripts/submit --nodes 2`
# bitwise equal to one rank's.
# The namespaces (and with them the veths and the bridge) and the daemons are removed on exit, failures
# included.
#   tests/multihost/test_multihost.sh EDDY SOURCE_DIR [mpirun|slurm]
# Absolute paths: checks.sh moves into the work directory.
eddy=$(readlink -f "$1") src=$(readlink -f "$2") mode=${3:-mpirun}
source "$src/tests/support/checks.sh"
case $mode in mpirun | slurm) ;; *) echo "usage: test_multihost.sh EDDY SOURCE_DIR [mpirun|slurm]" >&2; exit 2 ;; esac

# Names with this shell's pid: runs at the same time never share a namespace.
id=$$
h0=eddy-h0-$id h1=eddy-h1-$id sw=eddy-sw-$id
munged_here=0
cleanup() {
  local n pids=()
  for n in "$h0" "$h1" "$sw"; do
    [ -e "/run/netns/$n" ] && mapfile -t -O "${#pids[@]}" pids < <(ip netns pids "$n" 2>/dev/null)
  done
  if [ ${#pids[@]} -gt 0 ]; then  # daemons (slurmd, orted) left in the namespaces: TERM, then KILL
    kill "${pids[@]}" 2>/dev/null
    for _ in $(seq 50); do kill -0 "${pids[@]}" 2>/dev/null || break; sleep 0.1; done
    kill -9 "${pids[@]}" 2>/dev/null
  fi
  for n in "$h0" "$h1" "$sw"; do
    [ -e "/run/netns/$n" ] && ip netns del "$n"
  done
  [ "$munged_here" = 1 ] && kill "$(cat /run/munge/munged.pid)" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# A run killed outright (ctest's timeout) cannot clean up: the namespaces of runs whose shell is gone go,
# with what still runs in them.
for n in $(ip netns list 2>/dev/null | grep -oE '^eddy-(h0|h1|sw)-[0-9]+'); do
  kill -0 "${n##*-}" 2>/dev/null && continue
  for p in $(ip netns pids "$n" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  ip netns del "$n"
done

for c in ip nsenter unshare hostname; do
  command -v $c >/dev/null || { fail "no $c: install iproute2 and util-linux (scripts/install-deps.sh)"; finish; exit 1; }
done
if ! err=$(ip netns add "$sw" 2>&1); then
  fail "cannot make a network namespace (ip netns add: $err): this test needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN)"
  finish
  exit 1
fi
# Every link is made from inside the switch's namespace: nothing of the root namespace is touched.
net() {
  ip netns add "$h0" && ip netns add "$h1" && ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up &&
    ip -n "$sw" link add p0 type veth peer name eth0 netns "$h0" &&
    ip -n "$sw" link add p1 type veth peer name eth0 netns "$h1" &&
    ip -n "$sw" link set p0 master br0 up && ip -n "$sw" link set p1 master br0 up &&
    ip -n "$h0" addr add 198.18.0.1/24 dev eth0 && ip -n "$h1" addr add 198.18.0.2/24 dev eth0 &&
    ip -n "$h0" link set eth0 up && ip -n "$h1" link set eth0 up && ip -n "$h0" link set lo up &&
    ip -n "$h1" link set lo up
}
if ! err=$(net 2>&1); then
  fail "cannot make the two hosts' network: $err"
  finish
  exit 1
fi
# on HOST COMMAND...: COMMAND on HOST, in its network namespace and a new UTS namespace named HOST.
# nsenter, not `ip netns exec`: that remounts /sys, which hides the cgroup mounts slurmd needs.
{
  echo '#!/usr/bin/env bash'
  echo "id=$id"
  cat <<'EOF'
case ${1:-} in h0 | h1) ;; *) echo "on: no host ${1:-}" >&2; exit 255 ;; esac
exec nsenter "--net=/run/netns/eddy-$1-$id" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$@"
EOF
} >on
chmod +x on
on=$work/on

check_info() {  # check_info LOG: `eddy info` saw ranks 0, 1 on h0 and 2, 3 on h1
  grep -E "^(hosts: |  rank )" "$1"
  grep -qxE "hosts: +2: h0 \(2 rank\(s\)\), h1 \(2 rank\(s\)\)" "$1" && pass ||
    { fail "eddy info: not 2 hosts of 2 ranks"; cat "$1"; }
  local r
  for r in 0 1 2 3; do
    grep -q "^  rank $r on h$((r / 2)):" "$1" && pass || fail "eddy info: rank $r not on h$((r / 2))"
  done
}
# A hung job must not outlive the test: the trap still removes the namespaces.
run() {  # run NAME NP CONFIG [--set ...]: NP 1 (here) or 2x2 (the two hosts); fields at the end only
  local name=$1 np=$2 cfg=$3 t0=$SECONDS
  local -a mpi=(mpirun -n 1)
  [ "$np" = 2x2 ] && mpi=("$on" h0 "${mpi22[@]}")
  shift 3
  timeout -k 10 300 "${mpi[@]}" "$eddy" run "$src/cases/$cfg" --quiet --out "$work/$name" --set run.end_time=0 \
    --set run.steady.tolerance=0 --set output.fields.every=0 --set output.checkpoint.every=0 \
    --set validation.reference=none "$@" >"$name.log" 2>&1 || { fail "$name exited $?"; tail -20 "$name.log"; }
  echo "$name: $np rank(s), $((SECONDS - t0)) s"
}
lbm=(velocity density pressure)
# 3D cavity 16^3 FP64, decomposed 1 x 2 x 2: halos within h0, within h1 and across the two.
cav=(--set "domain.cells=[16,16,16]" --set run.steps=30 --set numerics.precision=fp64)

if [ "$mode" = slurm ]; then
  for c in slurmctld slurmd munged sbatch srun squeue scontrol; do
    command -v $c >/dev/null || [ -x /usr/sbin/$c ] ||
      { fail "no $c: install Slurm with WITH_SLURM=1 scripts/install-deps.sh"; finish; exit 1; }
  done
  # As scripts/slurm/local/slurm_start.sh, for two nodes: the daemons' files per node (%n), TmpFS too,
  # where the PMIx plugin makes each step's directory of the same name on every node.
  S=$work/slurm
  mkdir -p "$S"/{state,log,run} "$S"/spool/{h0,h1} "$S"/tmp/{h0,h1}
  if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile=/etc/munge/munge.key && chown munge:munge /etc/munge/munge.key &&
      chmod 400 /etc/munge/munge.key
  fi
  install -d -o munge -g munge -m 0755 /run/munge
  if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged && munged_here=1
    for _ in $(seq 50); do munge -n </dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  hw=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //')
  cat >"$S/slurm.conf" <<EOF
ClusterName=eddy-multihost
SlurmctldHost=h0(198.18.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
TmpFS=$S/tmp/%n
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=pmix
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MailProg=/bin/true
MinJobAge=300
KillWait=5
NodeName=h0 NodeAddr=198.18.0.1 $hw State=UNKNOWN
NodeName=h1 NodeAddr=198.18.0.2 $hw State=UNKNOWN
PartitionName=debug Nodes=h0,h1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  export SLURM_CONF=$S/slurm.conf
  "$on" h0 /usr/sbin/slurmctld -f "$SLURM_CONF" && "$on" h0 /usr/sbin/slurmd -f "$SLURM_CONF" -N h0 &&
    "$on" h1 /usr/sbin/slurmd -f "$SLURM_CONF" -N h1 || fail "a Slurm daemon did not start"
  st=
  for _ in $(seq 150); do
    st=$("$on" h0 sinfo -h -o "%t %D" 2>/dev/null)
    [ "$st" = "idle 2" ] && break
    sleep 0.2
  done
  if [ "$st" != "idle 2" ]; then
    fail "Slurm: not 2 idle nodes (sinfo: '$st')"
    tail -n 8 "$S"/log/*.log
    finish
    exit 1
  fi
  echo "Slurm up: nodes h0, h1 idle"

  echo "on h0: srun -N 2 --ntasks-per-node 2 --mpi=pmix $eddy info"
  timeout -k 10 120 "$on" h0 srun -N 2 --ntasks-per-node 2 --mpi=pmix "$eddy" info >info.log 2>&1 ||
    { fail "srun eddy info exited $?"; cat info.log; }
  check_info info.log

  run cav_1 1 lid_driven_cavity/cavity3d.yaml "${cav[@]}"
  t0=$SECONDS
  jid=$("$on" h0 "$src/scripts/submit" "$src/cases/lid_driven_cavity/cavity3d.yaml" "${cav[@]}" --set run.end_time=0 \
    --set run.steady.tolerance=0 --set output.fields.every=0 --set output.checkpoint.every=0 \
    --set validation.reference=none --nodes 2 --tasks-per-node 2 --time 00:05:00 --eddy "$eddy" \
    --out "$work/cav_slurm" 2>submit.log)
  if [[ $jid =~ ^[0-9]+$ ]]; then
    for _ in $(seq 240); do
      [ -z "$("$on" h0 squeue -h -j "$jid" 2>/dev/null)" ] && break
      sleep 0.5
    done
    state=$("$on" h0 scontrol show job "$jid" | grep -oE "JobState=[A-Z_]+|ExitCode=[0-9:]+" | cut -d= -f2 | paste -sd" ")
    echo "cav_slurm: job $jid $state, $((SECONDS - t0)) s"
    [ "$state" = "COMPLETED 0:0" ] && pass || { fail "cav_slurm: job $jid $state"; tail -20 "$work"/cav_slurm/slurm/*.out; }
    grep -q "segment 0 on h\[0-1\] (4 tasks)" "$work"/cav_slurm/slurm/slurm-"$jid".out && pass ||
      fail "cav_slurm: not 4 tasks on h0 and h1"
    same_fields cav_1 cav_slurm 30 0 "${lbm[@]}"
  else
    fail "scripts/submit printed no job id"
    cat submit.log
  fi
  finish
  exit
fi

# The rsh agent: `agent [options] HOST COMMAND...` runs COMMAND by the shell on HOST, as ssh does.
{
  echo '#!/usr/bin/env bash'
  echo "on=$on"
  cat <<'EOF'
while [ "${1#-}" != "$1" ]; do shift; done
host=$1
shift
exec "$on" "$host" sh -c "$*"
EOF
} >agent
chmod +x agent
# shellcheck disable=SC2054 # the commas are mpirun's lists
mpi22=(mpirun --host h0:2,h1:2 -n 4 --mca plm_rsh_agent "$work/agent" --mca plm_rsh_no_tree_spawn 1
       --mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include 198.18.0.0/24
       --mca oob_tcp_if_include 198.18.0.0/24 -x OMP_NUM_THREADS --oversubscribe --bind-to none
       --mca mpi_yield_when_idle 1)
echo "on h0: ${mpi22[*]}"

# Which host each rank is on, and its rank within the host.
timeout -k 10 120 "$on" h0 "${mpi22[@]}" "$eddy" info >info.log 2>&1 ||
  { fail "eddy info exited $?"; cat info.log; }
check_info info.log
timeout -k 10 120 "$on" h0 "${mpi22[@]}" \
  sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname) $OMPI_COMM_WORLD_LOCAL_RANK"' 2>&1 | sort >local.txt
if [ "$(tr '\n' ' ' <local.txt)" = "0 h0 0 1 h0 1 2 h1 0 3 h1 1 " ]; then pass; else
  fail "node-local ranks (rank, host, local rank): $(tr '\n' ' ' <local.txt)"; fi

run cav_1 1 lid_driven_cavity/cavity3d.yaml "${cav[@]}"
run cav_2x2 2x2 lid_driven_cavity/cavity3d.yaml "${cav[@]}"
same_fields cav_1 cav_2x2 30 0 "${lbm[@]}"

# Spectral Taylor-Green 16^3 FP64 on pencils 2 x 2: round-off of transforms in another order.
tg=(--set "domain.cells=[16,16,16]" --set numerics.dt=0.05 --set run.steps=10 --set output.diagnostics.every=0)
run tg_1 1 taylor_green/tgv3d_spectral.yaml "${tg[@]}"
run tg_2x2 2x2 taylor_green/tgv3d_spectral.yaml "${tg[@]}" --set "parallel.ranks=[1,2,2]"
same_fields tg_1 tg_2x2 10 1e-12 velocity vorticity

# The Ghia centrelines assembled from the cells each rank owns: 36^2 on 2 x 2 puts the middle columns
# (17, 18) and rows on different ranks, and so on both hosts.
gh=(--set "domain.cells=[36,36]" --set physics.reynolds=100 --set run.steps=100 --set validation.reference=ghia1982)
run gh_1 1 lid_driven_cavity/cavity2d.yaml "${gh[@]}"
run gh_2x2 2x2 lid_driven_cavity/cavity2d.yaml "${gh[@]}" --set "parallel.ranks=[2,2]"
same_file gh_1 gh_2x2 validation.csv

finish
