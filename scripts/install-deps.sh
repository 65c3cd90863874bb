#!/usr/bin/env bash
# Install eddy's build and run dependencies from Debian 12 packages (run as root).
#   WITH_HIP=1    also Debian's HIP toolchain (hipcc, ROCm 5.2) to compile the HIP backend, and clang-19
#                 with its lld, llvm tools and clang-offload-bundler (clang-tools-19: without it clang-19
#                 cannot bundle HIP objects and CMake identifies no HIP compiler) for the gfx942 (MI300)
#                 compile, a target clang-15 lacks
#   WITH_SLURM=1  also slurm-wlm + munge (the Slurm tests)
#   WITH_PARAVIEW=1  also ParaView (pvpython) and Xvfb (the test that renders eddy's files in ParaView)
# Packages already present are not touched; with everything present this takes a second.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools
      libyaml-cpp-dev libfftw3-dev libfftw3-mpi-dev libgtest-dev python3-h5py python3-matplotlib python3-numpy
      python3-pytest clang-14 libclang-rt-14-dev iproute2 qemu-user)
[ "${WITH_HIP:-0}" = 1 ] && pkgs+=(hipcc libamdhip64-dev clang-19 clang-tools-19 lld-19 llvm-19)
[ "${WITH_SLURM:-0}" = 1 ] && pkgs+=(slurm-wlm munge)
[ "${WITH_PARAVIEW:-0}" = 1 ] && pkgs+=(paraview python3-paraview xvfb)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root (or install them)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
