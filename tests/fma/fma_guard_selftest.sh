#!/usr/bin/env bash
# The FMA guard's own test: an object compiled to fused multiply-adds (fused.cpp, -mfma
# -ffp-contract=fast) must make fma_guard.sh fail and name the function, so that the guard cannot pass
# for want of a pattern that matches what objdump prints.
# Usage: fma_guard_selftest.sh CXX OBJDUMP WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cxx=$1 objdump=$2 dir=$3
mkdir -p "$dir"
"$cxx" -O2 -mfma -ffp-contract=fast -c "$here/fused.cpp" -o "$dir/fused.o"
if out=$("$here/fma_guard.sh" "$objdump" "$dir/fused.o"); then
  printf 'the guard passed fused.o, which has fused multiply-adds:\n%s\n' "$out"
  exit 1
fi
printf '%s\n' "$out"
grep -q ': fused(double\*, double const\*, double const\*, int): vfmadd' <<<"$out" ||
  { echo "the guard failed fused.o without naming fused() and its vfmadd"; exit 1; }
