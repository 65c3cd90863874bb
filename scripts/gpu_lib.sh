# shellcheck shell=bash disable=SC2034  # (the variables it sets are for the scripts that source it)
# Shared by the scripts/gpu_*.sh acceptance runs (sourced, not run): the environment of the GPU machine,
# one build of each backend that every script reuses (so a device session that runs several scripts
# configures and compiles once), and the pieces several scripts set up alike. Sourcing it sets $gpu and
# $cpu (the shared builds' executables), $gpu_root and, unless the script set it before, $t0 (the clock
# that `gpu_total` reads).
#   gpu_build OUTDIR GTEST_SOURCE [--cpu] TARGET...   CUDA targets into build/gpu-cuda (and with --cpu the
#                                                     eddy executable into build/gpu-cpu, for GPU-vs-CPU
#                                                     checks); sets $gpu and $cpu; exits on a failed build.
#   gpu_binaries OUTDIR GTEST_SOURCE [--cpu] TARGET... gpu_build, unless EDDY_GPU_BIN names the executable
#                                                     to run (and EDDY_CPU_BIN the CPU one, default the
#                                                     same): then $gpu and $cpu are those and nothing is
#                                                     built. GTEST_SOURCE defaults to .deps/googletest.
#   gpu_mpi                                           two-GPU runs: OMP_NUM_THREADS=8, $mpi the mpirun
#                                                     command (an array) and the GPUs' topology printed.
#   gpu_python                                        $py: a python3 with h5py and numpy (on the H200
#                                                     machines PATH's, not /usr/bin's).
#   gpu_args NAME [OUTDIR [GTEST_SOURCE ...]]         the scripts' first two arguments: $out (default
#                                                     gpu_NAME_out at the top of the checkout), made;
#                                                     $gtest; $w = $out/w, the work directory.
#   gpu_workdir NAME                                  instead: $out absolute, $w a work directory for run
#                                                     directories (GB of fields) outside OUTDIR, removed
#                                                     on exit; stdout and stderr also into
#                                                     OUTDIR/summary.txt.
#   lim SECONDS                                       SECONDS, or what is left of the budget
#                                                     (EDDY_BUDGET_S, default 560 s from $t0, the device
#                                                     tool allowing 600) if less; 0: none left, skip.
#   tlim SECONDS CMD...                               CMD under a timeout cut to the budget; status 124
#                                                     and a line when none is left.
#   gtest_digest LINES                                a gtest log on stdin without its per-test lines.
#   gpu_total                                         the line `total: N s` since $t0.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
gpu_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpu=$gpu_root/build/gpu-cuda/eddy
cpu=$gpu_root/build/gpu-cpu/eddy
t0=${t0:-$(date +%s)}
budget=${EDDY_BUDGET_S:-560}

gpu_build() {
  local out=$1 gtest=$2 with_cpu=0
  shift 2
  [ "${1:-}" = --cpu ] && { with_cpu=1; shift; }
  local extra=() t0
  t0=$(date +%s)
  [ -n "$gtest" ] && extra+=(-DEDDY_GTEST_SOURCE="$gtest")
  mkdir -p "$out"
  nvidia-smi -L
  if [ ! -f "$gpu_root/build/gpu-cuda/CMakeCache.txt" ]; then
    cmake --preset cuda -B "$gpu_root/build/gpu-cuda" "${extra[@]}" >"$out/cmake.log" 2>&1 ||
      { tail -30 "$out/cmake.log"; exit 1; }
  fi
  cmake --build "$gpu_root/build/gpu-cuda" -j "$(nproc)" --target "$@" >"$out/build.log" 2>&1 ||
    { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
  if [ $with_cpu = 1 ]; then
    if [ ! -f "$gpu_root/build/gpu-cpu/CMakeCache.txt" ]; then
      cmake --preset cpu -B "$gpu_root/build/gpu-cpu" -DEDDY_BUILD_TESTS=OFF >>"$out/cmake.log" 2>&1 ||
        { tail -30 "$out/cmake.log"; exit 1; }
    fi
    cmake --build "$gpu_root/build/gpu-cpu" -j "$(nproc)" --target eddy >>"$out/build.log" 2>&1 ||
      { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
  fi
  echo "build: $(($(date +%s) - t0)) s"
}

gpu_binaries() {
  if [ -n "${EDDY_GPU_BIN:-}" ]; then
    gpu=$EDDY_GPU_BIN cpu=${EDDY_CPU_BIN:-$EDDY_GPU_BIN}
    return
  fi
  local out=$1 gtest=$2
  shift 2
  [ -z "$gtest" ] && [ -d "$gpu_root/.deps/googletest" ] && gtest=$gpu_root/.deps/googletest
  gpu_build "$out" "$gtest" "$@"
}

gpu_mpi() {
  export OMP_NUM_THREADS=8
  mpi=(mpirun --bind-to none -x NCCL_NVLS_ENABLE -x OMP_NUM_THREADS)
  nvidia-smi topo -m | head -3
}

gpu_python() {
  py=$(command -v python3)
  local p
  for p in "$(command -v python3)" /usr/bin/python3; do
    [ -x "$p" ] && "$p" -c "import h5py, numpy" 2>/dev/null && { py=$p; break; }
  done
}

gpu_args() {
  out=${2:-$gpu_root/gpu_$1_out}
  gtest=${3:-}
  w=$out/w
  mkdir -p "$out"
}

gpu_workdir() {
  out=$(cd "$out" && pwd)
  w=${TMPDIR:-/tmp}/eddy_$1_$$
  mkdir -p "$w"
  trap 'rm -rf "$w"' EXIT
  exec > >(tee "$out/summary.txt") 2>&1
}

lim() {
  local left=$((budget - ($(date +%s) - t0) - 15))
  [ "$left" -lt 10 ] && { echo 0; return; }
  [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}

tlim() {
  local t
  t=$(lim "$1")
  shift
  [ "$t" = 0 ] && { echo "skipped (time budget): ${*:1:3}"; return 124; }
  timeout "$t" "$@"
}

gtest_digest() { grep -vE "^\[ +(RUN|OK) +\]" | grep -vE "^\[-+\]|^$" | tail -"$1"; }

gpu_total() { echo "total: $(($(date +%s) - t0)) s"; }
