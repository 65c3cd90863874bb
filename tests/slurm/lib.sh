# Helpers of the Slurm tests (sourced): a private single-host Slurm, waiting for jobs, checks.
# Needs slurm-wlm and munge (WITH_SLURM=1 scripts/install-deps.sh) and root.

fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok: $*"; }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; }

# A free TCP port on localhost.
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_slurm REPO WORK: munged + slurmctld + slurmd under WORK/slurm on free ports; exports SLURM_CONF.
# Registers stop_slurm on EXIT together with removing WORK (unless KEEP_WORK=1).
start_slurm() {
  local repo=$1 work=$2 cmd
  for cmd in sbatch squeue scontrol slurmctld slurmd munged; do
    command -v "$cmd" >/dev/null || [ -x "/usr/sbin/$cmd" ] || {
      echo "FAIL: $cmd not found: install Slurm with WITH_SLURM=1 scripts/install-deps.sh"
      exit 1
    }
  done
  export SLURM_ROOT=$work/slurm SLURMCTLD_PORT=$(free_port) SLURMD_PORT=$(free_port)
  trap 'SLURM_ROOT='"$SLURM_ROOT"' "'"$repo"'/scripts/slurm/local/slurm_stop.sh"; [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "'"$work"'"' EXIT
  eval "$("$repo/scripts/slurm/local/slurm_start.sh")" || { echo "FAIL: Slurm did not start"; tail -20 "$SLURM_ROOT"/log/*.log; exit 1; }
  echo "Slurm up: SLURM_CONF=$SLURM_CONF (ports $SLURMCTLD_PORT, $SLURMD_PORT)"
}

# wait_jobs TIMEOUT_S JOBID...: until none of the jobs is queued or running; 1 on timeout.
wait_jobs() {
  local limit=$1 t0=$SECONDS id busy
  shift
  while :; do
    busy=0
    for id in "$@"; do
      [ -n "$(squeue -h -j "$id" 2>/dev/null)" ] && busy=1
    done
    [ $busy = 0 ] && return 0
    if ((SECONDS - t0 > limit)); then
      echo "timeout after ${limit}s waiting for jobs $*:"
      squeue
      return 1
    fi
    sleep 0.5
  done
}

# job_state JOBID -> e.g. "COMPLETED 0:0" (scontrol keeps finished jobs for MinJobAge = 300 s).
job_state() {
  scontrol show job "$1" 2>/dev/null | grep -oE 'JobState=[A-Z_]+|ExitCode=[0-9:]+' | head -2 | cut -d= -f2 | paste -sd' '
}
