// The solvers' rules on a loaded config (app::check_solver_rules, applied by every verb after loading):
// lattice against domain, lattice Mach number, relaxation time, what moment storage supports, the spectral
// CFL limit, the Kolmogorov forcing's wave number against the dealiasing, and a case's own refusal
// (validation.reference kolmogorov).
// Each error names the key with the file:line:column (or --set argument) its value came from.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "app/lbm_case.hpp"
#include "app/run.hpp"
#include "core/error.hpp"
#include "io/config/config.hpp"
#include "lbm/units.hpp"
#include "tests/support/input_error.hpp"

namespace {

using eddy::config::load_text;

const std::string kMinimal = "run:\n  steps: 10\n";
const std::string kSpectral =
    kMinimal + "solver: spectral\ndomain:\n  cells: [32, 32]\n  length: 6.283185307179586\n";

/// The message of the InputError that loading and the checks of `eddy run` throw, or "(accepted)".
std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return eddy::test::input_error_of([&] { eddy::app::check_run(load_text(yaml, "case.yaml", sets)); },
                                    "(accepted)");
}

void expect_error(const std::string& yaml, std::initializer_list<std::string> parts,
                  const std::vector<std::string>& sets = {}) {
  eddy::test::expect_parts(error_of(yaml, sets), parts);
}

void expect_accepted(const std::string& yaml) { EXPECT_EQ(error_of(yaml), "(accepted)"); }

TEST(SolverRules, LatticeMatchesTheDomain) {
  expect_error(kMinimal + "numerics:\n  lattice: D3Q19\n",
               {"case.yaml:4:12: numerics.lattice: D3Q19 is a 3D lattice but domain.cells has 2 entries"});
  expect_error(kMinimal + "domain:\n  cells: [8, 8, 8]\nnumerics:\n  lattice: D2Q9\n",
               {"case.yaml:6:12: numerics.lattice: D2Q9 is a 2D lattice but domain.cells has 3 entries"});
  expect_error(kMinimal, {"--set numerics.lattice=D3Q27: numerics.lattice: D3Q27 is a 3D lattice"},
               {"numerics.lattice=D3Q27"});
  expect_accepted(kMinimal + "domain:\n  cells: [8, 8, 8]\nnumerics:\n  lattice: D3Q27\n");
}

TEST(SolverRules, LatticeMachNumber) {
  expect_error(kMinimal + "numerics:\n  lattice_velocity: 0.2\n",
               {"case.yaml:4:21: numerics.lattice_velocity: lattice Mach number",
                "exceeds numerics.max_mach = 0.3", "<= 0.173205"});
  expect_accepted(kMinimal + "numerics:\n  lattice_velocity: 0.2\n  max_mach: 0.4\n");
  // The Mach limit is an LBM concern only.
  expect_accepted(kMinimal + "solver: spectral\nnumerics:\n  lattice_velocity: 0.5\n");
}

TEST(SolverRules, RelaxationTime) {
  eddy::config::RunSpec s = load_text(kMinimal + "domain:\n  cells: [100, 100]\n  length: 2\n", "x.yaml");
  s.physics.reynolds = 1000;
  s.numerics.lattice_velocity = 0.1;
  EXPECT_NEAR(eddy::app::lbm_units(s).tau, 0.5 + 3 * 0.1 * 100 / 1000, 1e-15);
  s.physics.reference_length = 0.5;  // 25 cells
  EXPECT_NEAR(eddy::app::lbm_units(s).tau, 0.5 + 3 * 0.1 * 25 / 1000, 1e-15);

  // tau - 0.5 = 3 * 0.1 * 128 / 1e8 = 3.8e-7: too close to 0.5.
  expect_error(kMinimal + "physics:\n  reynolds: 1e8\n",
               {"case.yaml:4:13: physics.reynolds: the LBM relaxation time tau", "must be > 0.500001",
                "more domain.cells", "larger numerics.lattice_velocity"});
  EXPECT_GT(eddy::lbm::Units::min_tau, 0.5);
  expect_accepted(kMinimal + "physics:\n  reynolds: 1e4\n");
  expect_accepted(kMinimal + "solver: spectral\nphysics:\n  reynolds: 1e8\n");
}

TEST(SolverRules, KolmogorovWaveNumberIsOneTheDealiasingKeeps) {
  const std::string kolmogorov = kSpectral + "physics:\n  forcing:\n    type: kolmogorov\n    wavenumber: ";
  expect_error(kolmogorov + "2.5\n", {"case.yaml:10:17: physics.forcing.wavenumber", "whole multiple",
                                      "1 <= n <= 10", "two_thirds"});
  // 32 points: the 2/3 rule keeps |k_y| <= (32 - 1) / 3 = 10, the phase-shift sphere floor(32 sqrt(2) / 3)
  // = 15 on the axis (spectral::Grid::kept_extent).
  expect_error(kolmogorov + "11\n", {"physics.forcing.wavenumber", "1 <= n <= 10"});
  expect_accepted(kolmogorov + "10\n");
  expect_accepted(kolmogorov + "11\nnumerics:\n  dealiasing: phase_shift\n  time_stepper: rk4\n");
  expect_error(kolmogorov + "16\nnumerics:\n  dealiasing: phase_shift\n  time_stepper: rk4\n",
               {"1 <= n <= 15"});
}

TEST(SolverRules, CflWithinTheStepperLimit) {
  // numerics.dt 0: the step follows from numerics.cfl, which must be within spectral::cfl_limit of the
  // stepper and dealiasing, or numerics.max_cfl when given.
  expect_error(kSpectral + "numerics:\n  dt: 0\n  cfl: 5\n",
               {"case.yaml:9:8: numerics.cfl: 5 is above the stability limit", "numerics.max_cfl"});
  expect_accepted(kSpectral + "numerics:\n  dt: 0\n  cfl: 5\n  max_cfl: 6\n");
  expect_accepted(kSpectral + "numerics:\n  dt: 0.001\n  cfl: 5\n");
}

TEST(SolverRules, MomentStorage) {
  // numerics.storage moments: the regularized collision, fp64 or fp32, periodic faces, walls and moving
  // walls. The error sits at numerics.storage's origin and names the other key, its value and what is valid.
  const std::string moments = kMinimal + "numerics:\n  storage: moments\n";
  expect_error(moments,
               {"case.yaml:4:12: numerics.storage: moments stores the moments the regularized operator "
                "rebuilds the populations from; it needs numerics.collision: regularized (the config "
                "has 'bgk'), or use numerics.storage: populations"});
  expect_error(kMinimal + "numerics:\n  collision: trt\n",
               {"--set numerics.storage=moments: numerics.storage:", "(the config has 'trt')"},
               {"numerics.storage=moments"});
  const std::string regularized = moments + "  collision: regularized\n";
  expect_accepted(regularized);
  expect_accepted(regularized + "  precision: fp32\n");
  expect_accepted(regularized + "  precision: fp32/fp16\n");
  expect_error(regularized + "geometry:\n  bodies:\n    - {type: box, lo: [0.4, 0.4], hi: [0.6, 0.6]}\n",
               {"case.yaml:4:12: numerics.storage: ",
                "not solid bodies yet; it needs no geometry.bodies (the config has 1)"});
  expect_error(regularized + "boundaries:\n  x_min: {type: velocity_inlet, velocity: [0.1, 0]}\n",
               {"case.yaml:4:12: numerics.storage: ",
                "not open faces yet; it needs boundaries.x_min.type: periodic, wall or moving_wall (the "
                "config has 'velocity_inlet')"});
  expect_error(regularized + "boundaries:\n  y_max: {type: outflow}\n",
               {"boundaries.y_max.type: periodic, wall or moving_wall (the config has 'outflow')"});
  expect_accepted(regularized +
                  "boundaries:\n  x_min: {type: periodic}\n  x_max: {type: periodic}\n"
                  "  y_max: {type: moving_wall, velocity: [1, 0]}\n");
  // Populations take every collision, precision, body and face.
  expect_accepted(kMinimal + "numerics:\n  storage: populations\n  precision: fp32/fp16\n");
  // A checkpoint's scheme: the lattice alone for populations (as before the key), "/moments" appended for
  // moments, so that find_restart refuses a restart across storages.
  const eddy::config::RunSpec spec = load_text(regularized + "domain:\n  cells: [8, 8, 8]\n", "x.yaml");
  eddy::lbm::Setup s = eddy::app::make_lbm_case(spec, 1, 0).setup;
  EXPECT_EQ(s.storage, eddy::lbm::Storage::moments);
  EXPECT_EQ(eddy::app::checkpoint_scheme(s), "D3Q19/moments");
  s.storage = eddy::lbm::Storage::populations;
  EXPECT_EQ(eddy::app::checkpoint_scheme(s), "D3Q19");
}

TEST(SolverRules, KolmogorovValidationNeedsItsFlow) {
  expect_error(kSpectral + "validation:\n  reference: kolmogorov\n",
               {"case.yaml:8:14: validation.reference", "physics.forcing.type kolmogorov"});
  expect_error(kMinimal + "validation:\n  reference: kolmogorov\n",
               {"validation.reference", "solver spectral"});
}

}  // namespace
