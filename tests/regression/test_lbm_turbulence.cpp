// LBM turbulence tools against physics: Guo body forcing in a channel (Poiseuille), the regularized
// operator on the 2D Taylor-Green vortex (second order) and on the 3D Taylor-Green vortex at Re 1600
// (32^3, early times, against the 512^3 DNS), and the strain-rate diagnostic at t = 0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "app/run.hpp"
#include "io/config/config.hpp"
#include "lbm/lbm_solver.hpp"
#include "tests/support/diagnostics_csv.hpp"

namespace eddy {
namespace {

/// Steady body-force-driven channel: periodic in x, half-way bounce-back walls at y = 0 and y = H
/// (cell faces), force density g along x. Returns u(y) at the cell centres y = j + 1/2 (lattice units).
std::vector<double> channel(const std::string& collision, double tau, double magic, int h, double g,
                            double smagorinsky = 0.0) {
  lbm::Setup s;
  s.dims = 2;
  s.cells = {2, h, 1};
  s.lattice = lbm::Lattice::d2q9;
  s.collision = lbm::collision_names.parse(collision, "collision");
  s.tau = tau;
  s.trt_magic = magic;
  s.smagorinsky = smagorinsky;
  s.force = {g, 0.0, 0.0};
  s.faces = {lbm::FaceKind::periodic, lbm::FaceKind::periodic, lbm::FaceKind::wall,
             lbm::FaceKind::wall,     lbm::FaceKind::periodic, lbm::FaceKind::periodic};
  auto solver = lbm::make_solver(s);
  solver->initialize([](index_t, index_t, index_t) { return lbm::CellState{}; });
  // The slowest mode decays like exp(-pi^2 nu t / H^2): 26 of its e-folding times leave 5e-12 of it.
  const double nu = (tau - 0.5) / 3.0;
  const long steps = 2 * static_cast<long>(13.0 * h * h / (M_PI * M_PI * nu) + 1.0);
  for (long k = 0; k < steps; ++k) solver->step();
  std::vector<double> rho, u;
  solver->macroscopic(rho, u);
  std::vector<double> prof(static_cast<std::size_t>(h));
  for (int j = 0; j < h; ++j) prof[static_cast<std::size_t>(j)] = u[static_cast<std::size_t>(j * 2) * 2];
  return prof;
}

/// Max |u - u_exact| / u_max over the channel, u_exact = g/(2 nu) (y (H - y) + slip), where slip is the
/// wall slip of two-relaxation-time bounce-back (Ginzburg & d'Humieres 2003, Eq. for Poiseuille flow):
/// u_wall = g/(2 nu) (16 Lambda - 3)/12 with Lambda = (tau+ - 1/2)(tau- - 1/2); BGK is TRT with
/// tau- = tau+, so Lambda = (tau - 1/2)^2.
double channel_error(const std::vector<double>& u, double tau, double lambda, double g) {
  const int h = static_cast<int>(u.size());
  const double nu = (tau - 0.5) / 3.0, umax = g * h * h / (8 * nu);
  double err = 0;
  for (int j = 0; j < h; ++j) {
    const double y = j + 0.5;
    const double exact = g / (2 * nu) * (y * (h - y) + (16 * lambda - 3) / 12.0);
    err = std::max(err, std::fabs(u[static_cast<std::size_t>(j)] - exact) / umax);
  }
  return err;
}

// Guo forcing with the half-force velocity makes the bulk solve nu u'' = -g exactly for the parabola, and
// bounce-back adds the TRT slip above: the profile must match to round-off and the steady-state residue.
// FP64, u_max = 3e-3 (so Mach effects in the force term, O(u^2) = 1e-5 relative, stay below 1e-9 of
// the profile: the flow is uniform in x and the u.F terms cancel in the symmetric parts).
TEST(GuoForcing, PoiseuilleTrtIsExact) {
  const double g = 1e-5, tau = 0.8;
  const std::vector<double> u = channel("trt", tau, 3.0 / 16.0, 16, g);
  const double e = channel_error(u, tau, 3.0 / 16.0, g);
  std::printf("TRT Lambda 3/16: max relative error %.3e\n", e);
  EXPECT_LT(e, 1e-9);
}

TEST(GuoForcing, PoiseuilleBgkHasTheTrtSlip) {
  const double g = 1e-5;
  for (double tau : {0.7, 1.2}) {
    const std::vector<double> u = channel("bgk", tau, 3.0 / 16.0, 16, g);
    const double e = channel_error(u, tau, (tau - 0.5) * (tau - 0.5), g);
    std::printf("BGK tau %.2f: max relative error %.3e\n", tau, e);
    EXPECT_LT(e, 1e-9);
  }
}

// The regularized operator discards the odd third-order non-equilibrium parts that bounce-back uses, so
// it has no closed-form slip here; it must converge to the parabola with second order: the error at H and
// 2H (same tau, g scaled by 1/4 to keep u_max) must fall by at least 2^1.8 (measured: exactly 2^2, the
// error being a uniform slip of 0.2 u_max / H^2 at tau = 0.8).
TEST(GuoForcing, PoiseuilleRegularizedConvergesSecondOrder) {
  const double tau = 0.8, g = 1e-5;
  const double e4 = channel_error(channel("regularized", tau, 0.1875, 4, g), tau, 3.0 / 16.0, g);
  const double e8 = channel_error(channel("regularized", tau, 0.1875, 8, g / 4), tau, 3.0 / 16.0, g / 4);
  const double e16 = channel_error(channel("regularized", tau, 0.1875, 16, g / 16), tau, 3.0 / 16.0, g / 16);
  std::printf("regularized: max relative errors H=4: %.3e, 8: %.3e, 16: %.3e\n", e4, e8, e16);
  EXPECT_GE(std::log2(e4 / e8), 1.8);
  EXPECT_GE(std::log2(e8 / e16), 1.8);
}

// A laminar channel has zero Smagorinsky viscosity only where S = 0; with C_s the flow must still be a
// steady profile with the right flux sign and below the laminar one (nu_t >= 0).
TEST(GuoForcing, SmagorinskyOnlyAddsViscosity) {
  const double g = 1e-5, tau = 0.7;
  const std::vector<double> lam = channel("regularized", tau, 0.1875, 8, g);
  const std::vector<double> les = channel("regularized", tau, 0.1875, 8, g, 0.17);
  for (std::size_t j = 0; j < lam.size(); ++j) {
    EXPECT_GT(les[j], 0.0);
    EXPECT_LT(les[j], lam[j]);
  }
}

// 3D Taylor-Green vortex, Re 1600, 32^3, D3Q19 regularized (cases/taylor_green/tgv3d_lbm.yaml), to t = 1.
//  - Strain-rate diagnostic at t = 0: the initial state carries the central-difference velocity gradient
//    (lbm_solver.cpp), so the enstrophy <S:S> must be the exact 3/8 times (sin h / h)^2, h = 2 pi / 32
//    (each derivative of a k = 1 mode is scaled by sin h / h): 0.37018; FP32 storage, tolerance 1e-4
//    relative (the stress is O(5e-3) against populations O(0.1) stored with 6e-8 relative precision).
//  - Energy: until t = 1 the DNS loses 0.00049 of its 0.125 (laminar phase). The LBM at 32^3 must track
//    the energy to within half of that loss (|E - E_ref| <= 2.4e-4): 32^3 resolves the k = 1 vortex
//    with a dissipation error of tens of percent (measured 25%, 2.6% at 64^3), so half the loss bounds it
//    with margin while still failing an operator that dissipates 1.5x or 0.5x the physical rate.
TEST(TaylorGreen3D, EarlyEnergyAt32Cubed) {
  const std::string dir = "regression_out/tgv3d_regularized_32";
  std::filesystem::remove_all(dir);
  const config::RunSpec spec =
      config::load_file(std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv3d_lbm.yaml",
                        {"domain.cells=[32,32,32]", "numerics.collision=regularized", "run.end_time=1.0",
                         "output.fields.every=0", "output.fields.at_end=false",
                         "output.diagnostics.every=0.25t", "validation.reference=tgv_re1600"});
  const app::RunResult r = app::run(spec, {dir, true}, parallel::Comm());
  const double h = 2 * M_PI / 32, z0 = 0.375 * std::pow(std::sin(h) / h, 2);
  const double z = test::diagnostics_column(dir, "enstrophy").at(0);
  std::printf("32^3: enstrophy(0) %.6f (expected %.6f); max |E - E_ref| %.3e to t = 1\n", z, z0,
              r.metric("energy_max_deviation"));
  EXPECT_NEAR(z / z0, 1.0, 1e-4);
  EXPECT_LT(r.metric("energy_max_deviation"), 2.4e-4);  // NaN (no figure) fails too
}

// Stability where BGK fails: at 32^3 and Re 1600, tau = 1/2 + 5.5e-4. There BGK's energy stops decaying
// at t = 5 and the run fails on the Mach check at t = 7.9 (CPU, this version); the regularized operator
// must reach t = 10 with the kinetic energy decaying at every row (no forcing in a periodic box:
// dE/dt = -eps <= 0; the tolerance 1e-6 of E0 is far above the FP32 round-off of the sums, ~1e-9, and
// far below the energy lost between rows, >= 1e-4).
TEST(TaylorGreen3D, RegularizedStaysStableAt32Cubed) {
  const std::string dir = "regression_out/tgv3d_regularized_32_t10";
  std::filesystem::remove_all(dir);
  const config::RunSpec spec =
      config::load_file(std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv3d_lbm.yaml",
                        {"domain.cells=[32,32,32]", "numerics.collision=regularized", "run.end_time=10.0",
                         "output.fields.every=0", "output.fields.at_end=false",
                         "output.diagnostics.every=0.5t", "validation.reference=none"});
  const app::RunResult r = app::run(spec, {dir, true}, parallel::Comm());
  EXPECT_GE(r.time, 10.0);
  const std::vector<double> e = test::diagnostics_column(dir, "kinetic_energy");
  ASSERT_GE(e.size(), 20u);
  for (std::size_t k = 1; k < e.size(); ++k) EXPECT_LE(e[k], e[k - 1] + 1e-6 * e[0]) << "row " << k;
  std::printf("32^3 regularized: E(10) = %.5f (DNS 0.07448)\n", e.back());
  EXPECT_GT(e.back(), 0.0);
}

}  // namespace
}  // namespace eddy
