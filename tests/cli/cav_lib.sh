# Shared by the CLI tests of checkpoints, restarts and the output directory: a work directory, pass/fail counting, and cav.yaml (tests/data/cav.yaml),
# a 32^2 D2Q9 TRT FP64 lid-driven cavity at Re 100 (lattice velocity 0.1) with fields every 100 steps,
# diagnostics every 50, checkpoints every 100 (keep 3), 400 steps. Source it as `. cav_lib.sh EDDY SRC`.
set -u
eddy=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; }
# expect CODE PATTERN LOG -- eddy arguments: the exit code and a line of the output matching PATTERN
expect() {
  local want=$1 pattern=$2 log=$3 code
  shift 4
  "$eddy" "$@" >"$log" 2>&1
  code=$?
  if [ "$code" = "$want" ] && grep -qE -- "$pattern" "$log"; then ok
  else bad "eddy $* exited $code (want $want, output matching '$pattern'):"; sed 's/^/    /' "$log"; fi
}
cp "$src/tests/data/cav.yaml" cav.yaml
