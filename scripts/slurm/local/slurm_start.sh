#!/usr/bin/env bash
# Start a single-host Slurm (munged + slurmctld + slurmd) as root, no systemd, no cgroups,
# no accounting, for the Slurm tests (tests/slurm) and for trying scripts/submit on one machine.
# Everything lives under $SLURM_ROOT; clients need SLURM_CONF exported.
# Usage: eval "$(SLURM_ROOT=/tmp/slurm scripts/slurm/local/slurm_start.sh)"; ...; scripts/slurm/local/slurm_stop.sh
# SLURMCTLD_PORT / SLURMD_PORT choose the ports (default 6817/6818), so two instances can coexist.
# Needs: WITH_SLURM=1 scripts/install-deps.sh (Debian: slurm-wlm munge).
# From the tested recipe of the project's toolchain notes (Debian 12, Slurm 22.05); changed here: munged
# is stopped by slurm_stop.sh only if this script started it (others may share it).
set -euo pipefail
SLURM_ROOT=${SLURM_ROOT:-/tmp/slurm-local}
mkdir -p "$SLURM_ROOT"/{state,spool,log,run}
CONF=$SLURM_ROOT/slurm.conf

# ---- munge (key is created by the munge package's postinst; make one if missing)
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 /run/munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged        # daemonizes; pid in /run/munge/munged.pid
  touch "$SLURM_ROOT/run/munged.started-here"
  for i in $(seq 50); do munge -n </dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi
munge -n </dev/null | unmunge >/dev/null   # fail loudly if munge does not work

# ---- slurm.conf: node line from the real hardware (slurmd -C), node named 'localhost'
NODE_HW=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //')
cat > "$CONF" <<CONFEOF
ClusterName=eddy-local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$SLURM_ROOT/state
SlurmdSpoolDir=$SLURM_ROOT/spool
SlurmctldPidFile=$SLURM_ROOT/run/slurmctld.pid
SlurmdPidFile=$SLURM_ROOT/run/slurmd.pid
SlurmctldLogFile=$SLURM_ROOT/log/slurmctld.log
SlurmdLogFile=$SLURM_ROOT/log/slurmd.log
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
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
NodeName=localhost NodeAddr=127.0.0.1 $NODE_HW State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONFEOF
export SLURM_CONF=$CONF

t0=$(date +%s.%N)
/usr/sbin/slurmctld -f "$CONF"                 # daemonizes, writes SlurmctldPidFile
/usr/sbin/slurmd -f "$CONF" -N localhost       # -N: node name independent of `hostname`
# wait until the node is idle
for i in $(seq 300); do
  st=$(sinfo -h -N -o '%t' 2>/dev/null | head -1 || true)
  [ "$st" = "idle" ] && break
  sleep 0.2
done
t1=$(date +%s.%N)
[ "$st" = "idle" ] || { echo "slurm node not idle (state='$st'); see $SLURM_ROOT/log" >&2; exit 1; }
echo "# slurm up in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s (node state: $st)" >&2
echo "export SLURM_CONF=$CONF"
