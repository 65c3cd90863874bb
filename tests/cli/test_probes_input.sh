#!/usr/bin/env bash
# Bad output.probes and output.spectra (README.md, the output keys): exit 2 with a message that names
# the key with its file:line:column and what would be valid, and nothing written (no output directory);
# a restart whose probes differ from those of the probes.h5 it would continue is refused the same way and
# leaves the file as it was.
. "$(dirname "$0")/cav_lib.sh" "$1" "$2"  # the work directory, ok/bad/expect/finish, cav.yaml
line=$(($(grep -n '^output:' cav.yaml | cut -d: -f1) + 1))  # where the probes line goes
# bad NAME 'PROBES LINE' PATTERN: cav.yaml with the line under output:, run into out_NAME
bad_run() {
  local name=$1 text=$2 pattern=$3
  sed "/^output:/a\\
$text" cav.yaml >"$name.yaml"
  expect 2 "^error: $name.yaml:$line:[0-9]+: $pattern" "$name.log" -- run "$name.yaml" --out "out_$name"
  [ -e "out_$name" ] && bad "$name: the refused run left out_$name" || ok
}
bad_run outside '  probes: {every: 1, points: [[0.5, 0.5], [0.25, 1.5]]}' \
  'output.probes.points\[1\]\[1\]: the point is outside the domain: y = 1.5 m, but the domain spans \[0, 1\] m along y'
bad_run negative '  probes: {every: 1, points: [[-0.01, 0.5]]}' \
  'output.probes.points\[0\]\[0\]: the point is outside the domain: x = -0.01 m'
bad_run entries '  probes: {every: 1, points: [[0.5, 0.5, 0.5]]}' \
  'output.probes.points\[0\]: needs one coordinate per dimension \(2\), got 3; e.g. \[0.5, 0.5\]'
bad_run unknown '  probes: {every: 1, points: [[0.5, 0.5]], fields: [velocity, vort]}' \
  "output.probes.fields\[1\]: 'vort' is not one of velocity, pressure, density, vorticity"
bad_run solver_field '  probes: {every: 1, points: [[0.5, 0.5]], fields: [q_criterion]}' \
  "output.probes.fields\[0\]: 'q_criterion' is not a field of solver lbm in 2D \(3D only\); use velocity, density, pressure, vorticity"
bad_run twice '  probes: {every: 1, points: [[0.5, 0.5]], fields: [pressure, pressure]}' \
  "output.probes.fields\[1\]: 'pressure' is listed twice"
bad_run empty '  probes: {every: 1, points: []}' \
  'output.probes.points: the probes need at least one point: output.probes.points: \[\[0.5, 0.5\]\] \[m\], inside the domain'
bad_run no_points '  probes: {every: 1}' 'output.probes.every: the probes need at least one point'
bad_run no_fields '  probes: {every: 1, points: [[0.5, 0.5]], fields: []}' \
  'output.probes.fields: needs at least one field, of velocity, density, pressure, vorticity'
bad_run no_schedule '  probes: {points: [[0.5, 0.5]]}' \
  'output.probes.points: the probes have points but no schedule'
bad_run not_a_point '  probes: {every: 1, points: [0.5, 0.5]}' \
  'output.probes.points\[0\]: expected a list of numbers'
bad_run spectra '  spectra: {every: 10}' \
  'output.spectra.every: the LBM writes energy spectra of a periodic box, but boundaries.x_min.type is wall; make every direction periodic, or remove output.spectra'
# A time schedule shorter than a step (dt = 3.125e-3 s).
expect 2 "output.probes.every: 0.001t is shorter than one time step" short.log -- run cav.yaml --out out_short \
  --set output.probes.every=0.001t --set "output.probes.points=[[0.5, 0.5]]"
[ -e out_short ] && bad "a schedule shorter than a step left out_short" || ok
# eddy validate says the same (and writes nothing either).
expect 2 "output.probes.points\[0\]\[0\]: the point is outside the domain" validate.log -- validate cav.yaml \
  --set "output.probes.points=[[2.0, 0.5]]" --set output.probes.every=1
expect 0 "valid" good.log -- validate cav.yaml --set "output.probes.points=[[1.0, 0.0]]" --set output.probes.every=1

# A restart with other probes than its probes.h5's: refused before anything is written.
p=(--set output.probes.every=10 --set "output.probes.points=[[0.5, 0.5]]" --set output.checkpoint.every=100)
"$eddy" run cav.yaml --out R --quiet --set run.steps=200 "${p[@]}" || bad "the probes run failed"
sum=$(md5sum R/probes.h5 R/diagnostics.csv)
expect 2 "cannot continue output.probes file 'R/probes.h5': its attribute 'points' differs from this run's; move the old file away, or restart with the output.probes that wrote it" \
  moved.log -- run cav.yaml --out R --restart auto --set run.steps=300 "${p[@]}" --set "output.probes.points=[[0.5, 0.25]]"
expect 2 "cannot continue output.probes file 'R/probes.h5': it has no dataset 'pressure'" fields.log -- run cav.yaml \
  --out R --restart auto --set run.steps=300 "${p[@]}" --set "output.probes.fields=[velocity, pressure]"
[ "$(md5sum R/probes.h5 R/diagnostics.csv)" = "$sum" ] && ok || bad "a refused restart changed R/probes.h5 or diagnostics.csv"
finish
