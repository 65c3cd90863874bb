#!/usr/bin/env bash
# Stop the daemons started by slurm_start.sh (same SLURM_ROOT), by the PIDs in their pid files; munged
# only if slurm_start.sh started it (STOP_MUNGE=0 keeps it anyway). Never fails.
set -uo pipefail
SLURM_ROOT=${SLURM_ROOT:-/tmp/slurm-local}
stop_pidfile() {  # $1 = pid file
  [ -s "$1" ] || return 0
  local pid; pid=$(cat "$1")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$1"
}
stop_pidfile "$SLURM_ROOT/run/slurmd.pid"
stop_pidfile "$SLURM_ROOT/run/slurmctld.pid"
if [ "${STOP_MUNGE:-1}" = 1 ] && [ -e "$SLURM_ROOT/run/munged.started-here" ]; then
  stop_pidfile /run/munge/munged.pid
  rm -f "$SLURM_ROOT/run/munged.started-here"
fi
exit 0
