#!/usr/bin/env bash
# No fused multiply-add in eddy's code. The CPU build promises the same bits from its baseline (SSE2) and
# -march=native builds, so it compiles with -ffp-contract=off (CMakeLists.txt); GCC 12's SLP vectorizer
# still fused products into vfmaddsub (backend/fft.hpp, lbm/solver_launches.hpp). This fails, naming the
# function and the instruction, on any FMA-family instruction (vfmadd*, vfmsub*, vfnmadd*, vfnmsub*,
# vfmaddsub*, vfmsubadd*) in the files given. objdump reads a file's own code: all of eddy's (its libraries
# are static) and the static GoogleTest's (built for the baseline: none), not the shared libraries loaded
# at run time (libm, FFTW, libgomp).
# Allowed: std::fma written for its single rounding, which the baseline build gets from libm's fma to the
# same bits: the exact error of a product in geometry/predicates.cpp (orient2d).
# Usage: fma_guard.sh OBJDUMP FILE...
set -euo pipefail
objdump=$1
shift
export allowed='^eddy::geometry::([(]anonymous namespace[)]::exact_)?orient2d[(]'
status=0
for f in "$@"; do
  "$objdump" -d --no-show-raw-insn -C "$f" | awk -v file="$f" '
    /^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn) }
    $2 ~ /^vfn?m(add|sub)/ && fn !~ ENVIRON["allowed"] { print file ": " fn ": " $2 " " $3; n++ }
    END { exit n > 0 }' || status=1
done
[ "$status" = 0 ] && echo "no FMA instruction in $*"
exit "$status"
