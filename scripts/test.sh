#!/usr/bin/env bash
# The second README command: install what is missing, build the CPU backend with warnings as errors,
# run the test suite (unit, mpi, regression, scale, slurm), fuzz the config loader, and compile the CUDA and HIP backends where their
# compilers exist (nothing GPU runs here).  scripts/test.sh [ctest -L regex]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
WITH_HIP=${WITH_HIP:-1} WITH_SLURM=${WITH_SLURM:-1} WITH_PARAVIEW=${WITH_PARAVIEW:-1} "$root/scripts/install-deps.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export EDDY_CMAKE_ARGS="-DEDDY_WERROR=ON ${EDDY_CMAKE_ARGS:-}"
labels=${1:-unit|mpi|regression|scale|slurm}

echo "== CPU backend: build"
"$root/scripts/build.sh" cpu "$root/build/ci-cpu"
echo "== CPU backend: tests ($labels) [${SECONDS}s]"
(cd "$root/build/ci-cpu" && ctest -L "$labels" --output-on-failure --timeout 2400)

if command -v clang++-14 >/dev/null 2>&1; then
  # A fixed seed and run count keep the gate reproducible; fuzz longer by hand with other seeds.
  echo "== config loader fuzzing: libFuzzer + ASan + UBSan, ${EDDY_FUZZ_RUNS:-150000} runs, seed 1 [${SECONDS}s]"
  cmake -S "$root/tests/fuzz" -B "$root/build/ci-fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
  cmake --build "$root/build/ci-fuzz"
  corpus=$(mktemp -d)
  seeds=$(mktemp -d)
  cp "$root"/cases/*/*.yaml "$seeds"/
  "$root/build/ci-fuzz/fuzz_config" -seed=1 -runs="${EDDY_FUZZ_RUNS:-150000}" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$root/build/ci-fuzz/" "$corpus" "$seeds" "$root/configs/bench" "$root/tests/fuzz/regressions" 2>&1 | tail -3
  rm -rf "$corpus" "$seeds"
fi

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  # PTX for sm_90 only: the compiler front end and its warnings run in full, ptxas (a quarter of the
  # time) does not; the GPU machine's builds make the SASS.
  echo "== CUDA backend: compile only (sm_90 PTX) [${SECONDS}s]"
  EDDY_CMAKE_ARGS="$EDDY_CMAKE_ARGS -DCMAKE_CUDA_COMPILER=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc) -DCMAKE_CUDA_ARCHITECTURES=90-virtual" \
    "$root/scripts/build.sh" cuda "$root/build/ci-cuda"
fi
if [ -x /usr/bin/clang++-15 ] && [ -d /usr/lib/x86_64-linux-gnu/cmake/hip-lang ]; then
  echo "== HIP backend: compile only (gfx90a) [${SECONDS}s]"
  "$root/scripts/build.sh" hip "$root/build/ci-hip"
fi
if [ -x /usr/bin/clang++-19 ] && [ -d /usr/lib/x86_64-linux-gnu/cmake/hip-lang ]; then
  # MI300A/X: clang-19 knows gfx942, Debian's ROCm 5.2 does not (scripts/cmake/hip_debian.cmake, 4.)
  echo "== HIP backend: compile only (gfx942, clang-19) [${SECONDS}s]"
  EDDY_CMAKE_ARGS="$EDDY_CMAKE_ARGS -DCMAKE_HIP_COMPILER=/usr/bin/clang++-19 -DCMAKE_HIP_ARCHITECTURES=gfx942 -DEDDY_BUILD_TESTS=OFF" \
    "$root/scripts/build.sh" hip "$root/build/ci-hip-gfx942"
fi
echo "== all done [${SECONDS}s]"
