#!/usr/bin/env bash
# Configure and build eddy: scripts/build.sh [cpu|cuda|hip|hip-nvidia|auto] [build dir]
# auto (the default) picks CUDA when nvcc is on the machine and a GPU answers nvidia-smi, else CPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
backend=${1:-auto}
if [ "$backend" = auto ]; then
  backend=cpu
  if command -v nvcc >/dev/null 2>&1 && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    backend=cuda
  fi
fi
build=${2:-$root/build/$backend}
jobs=${EDDY_JOBS:-$(nproc)}
cmake --preset "$backend" -S "$root" -B "$build" ${EDDY_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs"
echo "$build"
