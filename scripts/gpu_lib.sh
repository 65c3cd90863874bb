# Shared by the scripts/gpu_*.sh acceptance runs (sourced, not run): the environment of the GPU machine
# and one build of each backend that every script reuses, so a device session that runs several scripts
# configures and compiles once.
#   gpu_build OUTDIR GTEST_SOURCE [--cpu] TARGET...   CUDA targets into build/gpu-cuda (and with --cpu the
#                                                     eddy executable into build/gpu-cpu, for GPU-vs-CPU
#                                                     checks); sets $gpu and $cpu; exits on a failed build.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
gpu_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpu=$gpu_root/build/gpu-cuda/eddy
cpu=$gpu_root/build/gpu-cpu/eddy

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
