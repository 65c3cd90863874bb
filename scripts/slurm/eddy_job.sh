# Body shared by the eddy job templates (cpu.sbatch, gpu.sbatch), sourced by the job script that
# scripts/submit or scripts/sweep wrote. The job script sets, before sourcing this file:
#   EDDY_BIN          the eddy executable            EDDY_OUT   the run's output directory
#   EDDY_JOB_SCRIPT   the job script itself (resubmitted for the next segment of a restart chain)
#   EDDY_MAX_SEGMENTS the longest chain              EDDY_RESTART  "auto": segment 0 restarts too;
#                                                    "overwrite": segment 0 starts afresh, replacing
#                                                    another run's checkpoints (eddy run --overwrite)
#   EDDY_SWEEP_TABLE  (sweeps) the task table: task id, output dir, then the task's eddy options,
#                     tab-separated, one line per task of the job array
#   eddy_args=(...)   CONFIG and the --set options   launch=(srun ...) the MPI launcher
# and calls `eddy_job SEGMENT` (SEGMENT = the job script's first argument, 0 when first submitted).
#
# Restart chain: with `#SBATCH --signal=USR1@S` Slurm sends SIGUSR1 S seconds before the time limit;
# eddy then writes a checkpoint and exits with 75 (and does the same at run.max_wall_time). The job then
# submits its own script again as segment N+1, which runs `eddy run ... --restart auto`. A run that
# finished (exit 0) is not resubmitted, and neither is one whose checkpoint did not advance in two
# segments in a row (one segment without progress, a stop during the set-up, is resubmitted once).
# Progress is the checkpoint's step, a number: past step 99,999,999 the names grow a digit, so names
# are never compared as text.

# Pin OpenMP threads (OMP_PLACES=cores, OMP_PROC_BIND=close) only where Slurm confines each rank to
# its own cores (TaskPlugin task/affinity or task/cgroup): without that, every rank's threads would be
# pinned to the node's first cores, all ranks on the same ones (seen: 80x slower with 2 ranks).
eddy_job_pin_threads() {
  if scontrol show config 2>/dev/null | grep -qE '^TaskPlugin +=.*(affinity|cgroup)'; then
    export OMP_PLACES=cores OMP_PROC_BIND=close
  else
    eddy_job_log "TaskPlugin confines no rank to its cores: OpenMP threads are left unpinned"
  fi
}

eddy_job_log() { echo "[eddy-job ${SLURM_JOB_ID:-?} $(date +%H:%M:%S)] $*"; }

# The job id without the ';cluster' suffix that `sbatch --parsable` may add.
eddy_job_id() { echo "${1%%;*}"; }

# The checkpoint file named by checkpoints/latest (empty if none).
eddy_job_latest() { cat "$EDDY_OUT/checkpoints/latest" 2>/dev/null || true; }

# The step of a checkpoint name ckpt_<step>.h5 as a number (-1 for none or any other name).
eddy_job_step() {
  local n=${1#ckpt_}
  n=${n%.h5}
  if [[ $1 == ckpt_*.h5 && $n =~ ^[0-9]{1,18}$ ]]; then echo $((10#$n)); else echo -1; fi
}

# sbatch from inside a job: drop the running job's SLURM_* variables (except SLURM_CONF), which the
# new job would otherwise inherit and which sbatch/srun may read as options.
eddy_job_sbatch() {
  local unset=() v
  for v in $(compgen -e); do
    case $v in SLURM_CONF) ;; SLURM_* | SBATCH_*) unset+=(-u "$v") ;; esac
  done
  env ${unset[@]+"${unset[@]}"} sbatch --parsable "$@"
}

eddy_job() {
  local segment=${1:-0}
  if [[ -n ${EDDY_SWEEP_TABLE:-} ]]; then
    local task=${SLURM_ARRAY_TASK_ID:?a sweep job must run as a job array} line
    line=$(awk -F'\t' -v t="$task" '$1 == t' "$EDDY_SWEEP_TABLE")
    [[ -n $line ]] || { eddy_job_log "task $task is not in $EDDY_SWEEP_TABLE"; return 2; }
    local fields
    IFS=$'\t' read -r -a fields <<<"$line"
    EDDY_OUT=${fields[1]}
    eddy_args+=("${fields[@]:2}")
  fi
  mkdir -p "$EDDY_OUT/slurm"
  echo "${SLURM_JOB_ID:-}" >"$EDDY_OUT/slurm/jobid"
  if ((segment == 0)); then
    rm -f "$EDDY_OUT/slurm/finished" "$EDDY_OUT/slurm/chain"  # a new chain in a directory used before
  elif [[ -e $EDDY_OUT/slurm/finished ]]; then
    eddy_job_log "segment $segment: $EDDY_OUT is already finished; nothing to do"
    return 0
  fi

  local restart=()
  if ((segment > 0)) || [[ ${EDDY_RESTART:-} == auto && -n $(eddy_job_latest) ]]; then
    restart=(--restart auto)
  elif [[ ${EDDY_RESTART:-} == overwrite ]]; then
    restart=(--overwrite)
  fi
  local before
  before=$(eddy_job_latest)
  eddy_job_log "segment $segment on ${SLURM_JOB_NODELIST:-?} (${SLURM_NTASKS:-?} tasks): ${launch[*]} $EDDY_BIN run" \
    "${eddy_args[*]} --out $EDDY_OUT ${restart[*]}"
  # SIGTERM (scancel, or the time limit reached without the USR1 warning): eddy checkpoints and exits 75,
  # but the chain stops here; the trap lets this script say so instead of dying silently.
  local terminated=0
  trap 'terminated=1' TERM
  local rc=0
  "${launch[@]}" "$EDDY_BIN" run "${eddy_args[@]}" --out "$EDDY_OUT" ${restart[@]+"${restart[@]}"} || rc=$?
  trap - TERM
  if ((terminated)); then
    eddy_job_log "segment $segment: SIGTERM (scancel or time limit), eddy exit $rc; not resubmitting." \
      "To continue: sbatch $EDDY_JOB_SCRIPT $((segment + 1))"
    return "$rc"
  fi

  case $rc in
    0)
      touch "$EDDY_OUT/slurm/finished"
      eddy_job_log "segment $segment: run finished"
      return 0
      ;;
    75)
      local after
      after=$(eddy_job_latest)
      if [[ -z $after ]]; then
        eddy_job_log "segment $segment: eddy exited 75 but $EDDY_OUT/checkpoints/latest is missing; not resubmitting"
        return 75
      fi
      # No progress: no step ran, as when the stop came during the set-up (Slurm's signal while a large
      # checkpoint was read). One such segment is resubmitted; a second in a row ends the chain.
      if (($(eddy_job_step "$after") <= $(eddy_job_step "$before"))); then
        if [[ -e $EDDY_OUT/slurm/stalled ]]; then
          eddy_job_log "segment $segment: no progress (checkpoint still $after) twice in a row; not resubmitting"
          return 75
        fi
        touch "$EDDY_OUT/slurm/stalled"
        eddy_job_log "segment $segment: no progress (checkpoint still $after: stopped during the set-up?); resubmitting once"
      else
        rm -f "$EDDY_OUT/slurm/stalled"
      fi
      if ((segment + 1 >= ${EDDY_MAX_SEGMENTS:-20})); then
        eddy_job_log "segment $segment: checkpoint $after, but the chain reached EDDY_MAX_SEGMENTS=${EDDY_MAX_SEGMENTS:-20}; stopping"
        return 75
      fi
      local array=() next
      [[ -n ${SLURM_ARRAY_TASK_ID:-} ]] && array=(--array="$SLURM_ARRAY_TASK_ID")
      next=$(eddy_job_id "$(eddy_job_sbatch ${array[@]+"${array[@]}"} "$EDDY_JOB_SCRIPT" $((segment + 1)))")
      echo "$next" >"$EDDY_OUT/slurm/jobid"
      echo "$segment ${SLURM_JOB_ID:-} $after" >>"$EDDY_OUT/slurm/chain"
      eddy_job_log "segment $segment: stopped early at checkpoint $after; resubmitted as job $next (segment $((segment + 1)))"
      return 0
      ;;
    *)
      eddy_job_log "segment $segment: eddy failed with exit code $rc"
      return "$rc"
      ;;
  esac
}
