#!/usr/bin/env bash
# The first README command: install what is missing, build (GPU backend when a GPU and nvcc are there,
# else CPU) and run a case:  scripts/run.sh [CONFIG.yaml] [eddy run options...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
config=${1:-$root/cases/lid_driven_cavity/cavity2d.yaml}
shift || true
"$root/scripts/install-deps.sh"
build=$("$root/scripts/build.sh" auto | tail -n 1)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec "$build/eddy" run "$config" "$@"
