#!/usr/bin/env bash
# The instruction-set check (backend/cpu_isa.cpp) on a CPU that lacks what the build uses: the same eddy
# under qemu-x86_64's user-mode emulation of the baseline x86-64 CPU (`-cpu qemu64`: SSE2 and SSE3, no
# SSSE3, AVX or later) stops before any of its code runs, with exit 1, a message that names the missing sets
# (each one the build uses) and EDDY_CPU_ARCH, and no output directory; on this machine's CPU it runs. A
# build for the baseline (EDDY_CPU_ARCH empty) runs on the emulated CPU too. Skipped (77) without
# qemu-x86_64 (Debian: qemu-user), on another processor, or in a GPU build (nothing to check there).
# Usage: test_cpu_isa.sh EDDY SOURCE_DIR
set -uo pipefail
eddy=$1
src=$2
[ "$(uname -m)" = x86_64 ] || { echo "not x86-64: skipped"; exit 77; }
command -v qemu-x86_64 > /dev/null || { echo "qemu-x86_64 not found (apt install qemu-user): skipped"; exit 77; }
info=$("$eddy" info 2>&1) || { echo "FAIL: eddy info: $info"; exit 1; }
case $info in *"backend:   CPU"*) ;; *) echo "not a CPU build: skipped"; exit 77 ;; esac
built=$(sed -n 's/.*; built for \(.*\))$/\1/p' <<< "$info")
[ -n "$built" ] || { echo "FAIL: eddy info names no instruction sets: $info"; exit 1; }
echo "built for: $built"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run=("$src/cases/lid_driven_cavity/cavity2d.yaml" --quiet --set run.steps=2 --set "domain.cells=[16,16]"
     --set run.steady.tolerance=0 --set validation.reference=none)
fail=0
"$eddy" run "${run[@]}" --out "$work/host" > "$work/host.log" 2>&1
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: on this machine's CPU exit $rc"; cat "$work/host.log"; fail=1; }

qemu-x86_64 -cpu qemu64 "$eddy" run "${run[@]}" --out "$work/emulated" > "$work/emulated.log" 2>&1
rc=$?
# qemu's own warnings (features its translator lacks) are not eddy's.
msg=$(grep -v '^qemu-x86_64: warning' "$work/emulated.log")
if [ "$built" = "the baseline instruction set" ]; then
  [ "$rc" = 0 ] || { echo "FAIL: a baseline build on the emulated baseline CPU: exit $rc"; echo "$msg"; fail=1; }
  [ "$fail" = 0 ] && echo "PASS: the baseline build runs on the emulated baseline CPU"
  exit "$fail"
fi
[ "$rc" = 1 ] || { echo "FAIL: exit $rc on the emulated CPU, expected 1"; fail=1; }
missing=$(sed -n 's/^eddy: this CPU lacks instructions the build uses (\([^)]*\)).*/\1/p' <<< "$msg")
[ -n "$missing" ] || { echo "FAIL: no refusal message naming the missing sets"; fail=1; }
grep -q 'EDDY_CPU_ARCH' <<< "$msg" || { echo "FAIL: the message does not name EDDY_CPU_ARCH"; fail=1; }
for s in $missing; do
  [[ " $built " == *" $s "* ]] || { echo "FAIL: '$s' named missing but not among the build's sets"; fail=1; }
done
[[ " $missing " != *" sse3 "* ]] || { echo "FAIL: 'sse3', which the emulated CPU has, named missing"; fail=1; }
[ ! -e "$work/emulated" ] || { echo "FAIL: the refused run created its output directory"; fail=1; }
if [ "$fail" = 0 ]; then
  echo "PASS: refused on the emulated baseline CPU, exit 1, missing: $missing"
else
  echo "--- emulated run's output:"; echo "$msg"
fi
exit "$fail"
