# shellcheck shell=bash
# Shared by the shell tests (sourced): a work directory removed on exit, pass/fail counters and the field
# comparisons. Sourcing it cds into the work directory.
#   pass / fail MESSAGE                          count a check
#   same_fields A B STEP TOLERANCE DATASET...    the field files of runs A and B at STEP, one h5diff per
#                                                dataset: bitwise when TOLERANCE is 0, else |a - b| <= it
#   same_file A B FILE                           A/FILE and B/FILE byte for byte (and not empty)
#   finish                                       the summary line; status 0 when nothing failed
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0 passes=0
pass() { passes=$((passes + 1)); }
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
same_fields() {
  local ra=$1 rb=$2 step=$3 tol=$4 a b ds
  command -v h5diff >/dev/null || {
    fail "h5diff is not installed (hdf5-tools): cannot compare $ra and $rb"
    return
  }
  a=$(ls "$ra"/fields/*_"$(printf %08d "$step")".h5 2>/dev/null) b=$(ls "$rb"/fields/*_"$(printf %08d "$step")".h5 2>/dev/null)
  shift 4
  for ds in "$@"; do
    if [ -z "$a" ] || [ -z "$b" ]; then
      fail "$ra vs $rb: no field file at step $step"
    elif if [ "$tol" = 0 ]; then h5diff "$a" "$b" "$ds" >/dev/null; else h5diff -d "$tol" "$a" "$b" "$ds" >/dev/null; fi; then
      pass
    else
      fail "$a vs $b: $ds differs (tolerance $tol)"
      h5diff -r "$a" "$b" "$ds" | head -5
    fi
  done
}
same_file() {
  if [ -s "$1/$3" ] && cmp -s "$1/$3" "$2/$3"; then pass; else
    fail "$1 vs $2: $3 differs"
    diff "$1/$3" "$2/$3" | head -6
  fi
}
finish() {
  echo "$passes passed, $fails failed"
  [ "$fails" = 0 ]
}
