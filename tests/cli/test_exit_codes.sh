#!/usr/bin/env bash
# eddy's exit codes and messages on bad input (src/README.md, Exit codes): 2 with a message naming the
# key/file, and no output directory left behind.
eddy=$1 src=$2
source "$src/tests/support/checks.sh"
expect() {  # expect CODE PATTERN -- args...
  local want=$1 pattern=$2
  shift 3
  local out code
  out=$("$eddy" "$@" 2>&1)
  code=$?
  if [ "$code" != "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: eddy $* -> exit $code (want $want), output:"
    echo "$out" | sed 's/^/    /'
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
cfg=$src/cases/lid_driven_cavity/cavity2d.yaml
expect 2 "no command" --
expect 2 "unknown command 'fly'" -- fly
expect 2 "no CONFIG" -- run
expect 2 "missing.yaml" -- run missing.yaml
expect 2 "unknown option '--bogus'" -- run "$cfg" --bogus
expect 2 "numerics.precision.*fp64" -- validate "$cfg" --set numerics.precision=fp42
expect 2 "did you mean 'reynolds'" -- validate "$cfg" --set physics.reynold=10
expect 2 "physics.reynolds" -- validate "$cfg" --set physics.reynolds=-5
expect 2 "domain.cells" -- validate "$cfg" --set "domain.cells=[0,128]"
expect 2 "lattice_velocity|max_mach|Mach" -- validate "$cfg" --set numerics.lattice_velocity=0.5
expect 2 "tau|relaxation" -- validate "$cfg" --set physics.reynolds=1e9
expect 2 "x_max.*periodic|periodic.*x_max" -- validate "$cfg" --set boundaries.x_min.type=periodic
expect 0 "valid" -- validate "$cfg"
# parallel.comm: peer needs GPUs (copy engines); the CPU backend refuses it before writing anything.
if "$eddy" info 2>&1 | grep -q "^backend: *CPU"; then
  expect 2 "parallel.comm: 'peer'.*not available.*use 'nccl', 'mpi-gpu' or 'mpi'" -- run "$cfg" --out peer \
    --set parallel.comm=peer
  [ -e peer ] && { echo "FAIL: parallel.comm peer on the CPU backend left a directory"; fails=$((fails + 1)); }
fi
expect 2 "eddy optimize differentiates the 2D spectral solver" -- optimize "$cfg"
expect 2 "optimize.norm_ratio" -- optimize "$src/cases/optimal_perturbation/optimal_perturbation2d.yaml" --set optimize.norm_ratio=0
expect 2 "numerics.precision" -- optimize "$src/cases/optimal_perturbation/optimal_perturbation2d.yaml" --set numerics.precision=fp32
# Geometry and open boundaries: an obstacle outside the domain, an unknown body key, an inlet
# opposite a periodic face, an inlet without its velocity, coefficients without a length.
cyl=$src/cases/cylinder/cylinder2d_re20.yaml
expect 2 "geometry.bodies\[0\].*outside the domain" -- run "$cyl" --out outside \
  --set "geometry.bodies=[{type: cylinder, center: [2.19, 0.2], radius: 0.05}]"
[ -e outside ] && { echo "FAIL: an obstacle outside the domain left a directory"; fails=$((fails + 1)); }
expect 2 "geometry.bodies\[0\].radus: unknown key; valid keys in a body: type, center, radius" -- validate "$cyl" \
  --set "geometry.bodies=[{type: cylinder, center: [0.2, 0.2], radus: 0.05}]"
expect 2 "geometry.bodies\[0\].radius.*a cylinder needs radius" -- validate "$cyl" \
  --set "geometry.bodies=[{type: cylinder, center: [0.2, 0.2]}]"
expect 2 "boundaries.x_max.type.*periodic.*x_min.type is 'velocity_inlet'" -- validate "$cyl" --set boundaries.x_max.type=periodic
expect 2 "boundaries.x_min.velocity.*velocity_inlet needs" -- validate "$cyl" --set "boundaries.x_min.velocity=[0.3]"
expect 2 "geometry.reference_length" -- validate "$cyl" --set geometry.reference_length=0
expect 2 "geometry.wall.*bouzidi, halfway" -- validate "$cyl" --set geometry.wall=ginzburg
# Bodies from files: a surface that is not closed, a missing file, a mask of the wrong shape.
sph=$src/cases/sphere/sphere3d_re100.yaml
expect 2 "geometry.bodies\[0\].*open_box.stl.*not watertight: 4 open edges" -- run "$sph" --out open \
  --set "geometry.bodies=[{type: stl, file: ../../tests/data/open_box.stl, scale: 0.1, translate: [0.3, 0.3, 0.3]}]"
expect 2 "geometry.bodies\[0\].*no_such.stl" -- run "$sph" --out missing \
  --set "geometry.bodies=[{type: stl, file: no_such.stl, translate: [0.3, 0.3, 0.3]}]"
expect 2 "geometry.bodies\[0\].file.*a stl needs file" -- validate "$sph" \
  --set "geometry.bodies=[{type: stl, translate: [0.3, 0.3, 0.3]}]"
py=python3  # one with h5py (scripts/install-deps.sh installs Debian's into /usr/bin/python3)
for p in python3 /usr/bin/python3; do "$p" -c "import h5py, numpy" 2>/dev/null && { py=$p; break; }; done
"$py" -c "import h5py, numpy; h5py.File('mask.h5', 'w')['solid'] = numpy.zeros((40, 220), numpy.uint8)"
expect 2 "mask dataset 'solid'.*has shape \[40, 220\], the grid is \[82, 440\]" -- run "$cyl" --out badmask \
  --set "geometry.bodies=[{type: mask, file: $work/mask.h5}]"
for d in open missing badmask; do
  [ -e "$d" ] && { echo "FAIL: bad body input left $d behind"; fails=$((fails + 1)); }
done
expect 0 "valid" -- validate "$cyl"
# numerics.storage: moments needs the regularized collision, and periodic faces, walls and
# moving walls only: anything else is exit 2 naming the key, from run and validate, with nothing written.
reg=(--set numerics.storage=moments --set numerics.collision=regularized)
expect 2 "numerics.storage: moments stores the moments.*needs numerics.collision: regularized \(.* 'trt'\)" \
  -- run "$cfg" --out moments_trt --set numerics.storage=moments
expect 2 "numerics.storage: moments stores.*numerics.collision: regularized \(the config has 'bgk'\)" \
  -- validate "$cfg" --set numerics.storage=moments --set numerics.collision=bgk
expect 2 "numerics.storage: .*not solid bodies yet; it needs no geometry.bodies \(the config has 1\)" \
  -- run "$cyl" --out moments_body "${reg[@]}"
expect 2 "numerics.storage: .*geometry.bodies" -- validate "$cyl" "${reg[@]}"
expect 2 "numerics.storage: .*open faces.*needs boundaries.x_max.type: periodic, wall or moving_wall \(.*'outflow'" \
  -- run "$cfg" --out moments_outflow "${reg[@]}" --set boundaries.x_max.type=outflow
expect 2 "numerics.storage: .*boundaries.y_min.type: .*\(the config has 'pressure_outlet'\)" -- validate "$cfg" \
  "${reg[@]}" --set boundaries.y_min.type=pressure_outlet
expect 2 "numerics.storage: 'moments' is only available with solver lbm; use populations" \
  -- validate "$src/cases/kolmogorov_2d/kolmogorov2d_spectral.yaml" --set numerics.storage=moments
expect 0 "valid" -- validate "$cfg" "${reg[@]}"
for d in moments_trt moments_body moments_outflow; do
  [ -e "$d" ] && { echo "FAIL: a numerics.storage refusal left $d behind"; fails=$((fails + 1)); }
done
expect 0 "usage" -- --help
expect 0 "backend" -- info
printf 'solver: lbm\ndomain:\n  cells: [16, 16]\n  lenght: 1\n' >typo.yaml
expect 2 "typo.yaml:4:3.*did you mean 'length'" -- run typo.yaml
printf 'solver: lbm\n  bad: [\n' >broken.yaml
expect 2 "broken.yaml" -- run broken.yaml
# Spectral forcing: bad keys, and a band without initial energy, are exit 2 before anything is written.
kol=$src/cases/kolmogorov_2d/kolmogorov2d_spectral.yaml hit=$src/cases/hit3d/hit3d_spectral.yaml
expect 2 "physics.forcing.wavenumber.*whole multiple" -- validate "$kol" --set physics.forcing.wavenumber=4.5
expect 2 "physics.forcing.type.*band_limited" -- validate "$kol" --set physics.forcing.type=random
expect 2 "physics.forcing.band.*no energy in the band" -- run "$hit" --set "domain.cells=[16,16,16]" \
  --set initial.type=rest --set numerics.dt=0.01
# output.writer: one of auto, collective, gather, per_rank (collective needs a parallel HDF5: the
# per_rank test checks that where the build's HDF5 is serial).
expect 2 "output.writer.*auto, collective, gather, per_rank" -- validate "$kol" --set output.writer=mpiio
# eddy bench on a spectral config: ms/step against the FFT floor (and the pruned transforms), JSON with all.
expect 0 "step / FFT floor.*step / pruned" -- bench "$src/configs/bench/spectral_3d_256.yaml" \
  --set "domain.cells=[16,16,16]" --steps 3 --repeat 2 --json bench.json
if grep -q '"fft_ms_per_step_median"' bench.json && grep -q '"transforms_per_step": 36' bench.json &&
  grep -q '"fft_pruned_ms_per_step_median"' bench.json && grep -q '"checkpoint_write_GBps"' bench.json &&
  grep -q '"field_write_GBps"' bench.json &&
  python3 -c 'import json, sys; b = json.load(open(sys.argv[1]))["breakdown"]
assert list(b) == ["pointwise", "fft", "pack", "transfer", "unpack", "wait", "total"], b' bench.json; then
  passes=$((passes + 1))
else
  echo "FAIL: bench.json lacks the FFT floor: $(cat bench.json)"
  fails=$((fails + 1))
fi
# eddy bench on an LBM config: valid JSON that says how to reproduce it (commit, config, --set overrides)
# and the memory figures (bytes allocated per cell, the largest cubic grid one device holds), and the
# LBM step's phases in its breakdown (one rank: every cell in `inner`, no halo time).
expect 0 "B/cell allocated" -- bench "$src/configs/bench/lbm_d3q19_256.yaml" --set "domain.cells=[12,12,12]" \
  --set numerics.collision=bgk --steps 2 --repeat 2 --json bench_lbm.json
if python3 - bench_lbm.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["git_commit"] and j["config"].endswith("lbm_d3q19_256.yaml"), j
assert j["overrides"] == ["domain.cells=[12,12,12]", "numerics.collision=bgk"], j
assert 60 < j["bytes_per_cell_allocated"] < 400 and j["max_cubic_edge"] > 0, j
assert j["max_cubic_cells"] == j["max_cubic_edge"] ** 3 and j["mlups_median"] > 0, j
# The write bandwidth of output.writer: the velocity (3 doubles a cell, and the coordinates) and the state.
assert j["writer"] in ("collective", "gather", "per_rank"), j
assert j["field_write_bytes"] == 12 ** 3 * 3 * 8 + 3 * 12 * 8 and j["field_write_GBps"] > 0, j
assert j["checkpoint_write_bytes"] == 12 ** 3 * 19 * 4 and j["checkpoint_write_GBps"] > 0, j
b = j["breakdown"]
assert list(b) == ["shell", "pack", "wait", "transfer", "inner", "unpack", "links", "pointwise", "total"], b
parts = sum(v for k, v in b.items() if k != "total")
assert b["inner"] > 0 and b["shell"] == b["transfer"] == 0 and abs(parts - b["total"]) <= 1e-4 * b["total"], b
assert 0 < b["total"] <= j["profiled_ms_per_step"] * 1.001, j
PY
then
  passes=$((passes + 1))
else
  echo "FAIL: bench_lbm.json: $(cat bench_lbm.json)"
  fails=$((fails + 1))
fi
# eddy bench SUITE_DIR: every config of the directory, one JSON each; a bad one is reported (exit 2) and the
# suite goes on.
mkdir suite
cp "$src/configs/bench/lbm_d3q19_256.yaml" suite/a_lbm.yaml
printf 'solver: lbm\ndomain:\n  cells: [12, 12, 12]\n  lenght: 1\n' >suite/b_bad.yaml
cp "$src/configs/bench/lbm_d3q19_256.yaml" suite/c_lbm.yaml
expect 2 "b_bad.yaml.*did you mean 'length'" -- bench suite --set "domain.cells=[12,12,12]" --steps 2 --repeat 2 \
  --json suite_json
if [ -s suite_json/a_lbm.json ] && [ -s suite_json/c_lbm.json ] && [ ! -e suite_json/b_bad.json ]; then
  passes=$((passes + 1))
else
  echo "FAIL: bench suite JSON: $(ls suite_json 2>&1)"
  fails=$((fails + 1))
fi
# Bad input never leaves output behind.
if [ -e out ]; then
  echo "FAIL: bad input created $(find out | head -5)"
  fails=$((fails + 1))
else
  passes=$((passes + 1))
fi
finish
