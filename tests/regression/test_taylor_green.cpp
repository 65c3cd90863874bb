// 2D Taylor-Green vortex: the LBM velocity converges to the exact decaying solution with second order
// in the grid spacing. Diffusive scaling (lattice velocity proportional to dx, so tau is fixed): the
// compressibility error (order Ma^2) then falls like dx^2 too, and the observed order must be
// between 1.8 and 2.2 (second order, with the spread seen between grid pairs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/run.hpp"
#include "io/config/config.hpp"

namespace eddy {
namespace {

double tgv_error(int n, const std::string& collision, const std::string& precision = "fp64") {
  const std::string tag = precision == "fp64" ? "" : "_" + precision.substr(precision.size() - 4);
  const std::string dir = "regression_out/tgv2d_" + collision + "_n" + std::to_string(n) + tag;
  std::filesystem::remove_all(dir);
  const double u_lb = 0.1 * 32.0 / n;
  const config::RunSpec spec = config::load_file(
      std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv2d_lbm.yaml",
      {"domain.cells=[" + std::to_string(n) + "," + std::to_string(n) + "]",
       "numerics.lattice_velocity=" + std::to_string(u_lb), "numerics.collision=" + collision,
       "numerics.precision=" + precision, "output.fields.every=0", "output.fields.at_end=false",
       "output.diagnostics.every=0"});
  const app::RunResult r = app::run(spec, {dir, true}, parallel::Comm());
  EXPECT_GE(r.time, 2.0);  // the run stops at the first step at or past end_time
  EXPECT_LT(r.time, 2.01);
  return r.metric("velocity_l2_error");
}

void check_second_order(const std::string& collision) {
  const double e32 = tgv_error(32, collision), e64 = tgv_error(64, collision),
               e128 = tgv_error(128, collision);
  const double p1 = std::log2(e32 / e64), p2 = std::log2(e64 / e128);
  ::testing::Test::RecordProperty(
      "errors", std::to_string(e32) + " " + std::to_string(e64) + " " + std::to_string(e128));
  std::printf("%s: L2 errors %.3e %.3e %.3e, observed orders %.3f %.3f\n", collision.c_str(), e32, e64, e128,
              p1, p2);
  EXPECT_GE(p2, 1.8);
  EXPECT_LE(p2, 2.2);
  EXPECT_GE(p1, 1.8);
  EXPECT_LE(p1, 2.2);
}

TEST(TaylorGreen2D, SecondOrderConvergenceBgk) { check_second_order("bgk"); }
TEST(TaylorGreen2D, SecondOrderConvergenceTrt) { check_second_order("trt"); }
TEST(TaylorGreen2D, SecondOrderConvergenceRegularized) { check_second_order("regularized"); }
// KBC: the entropic stabiliser sets the rate of everything but the shear stress per cell (gamma), so
// the O(dx^2) error's constant depends on the local state and the observed order of one grid pair
// scatters more than BGK's before the asymptotic range: CPU FP64, 2026-12-06, L2 errors 4.155e-3,
// 1.280e-3, 2.728e-4, 7.420e-5 at 32, 64, 128, 256^2, orders 1.70, 2.23, 1.88 (BGK on the same grids:
// 1.90, 2.08, 1.82). What must hold for a second-order scheme is asserted instead: the least-squares
// order over the four grids within 0.1 of 2 (1.965), and the finest pair, the one in the asymptotic
// range, within the band the other operators keep.
TEST(TaylorGreen2D, SecondOrderConvergenceKbc) {
  const int n[4] = {32, 64, 128, 256};
  double x[4], y[4], sx = 0, sy = 0;
  for (int k = 0; k < 4; ++k) {
    x[k] = std::log2(double(n[k])), y[k] = std::log2(tgv_error(n[k], "kbc"));
    sx += x[k], sy += y[k];
  }
  double sxy = 0, sxx = 0;
  for (int k = 0; k < 4; ++k)
    sxy += (x[k] - sx / 4) * (y[k] - sy / 4), sxx += (x[k] - sx / 4) * (x[k] - sx / 4);
  const double fit = -sxy / sxx, finest = y[2] - y[3];
  std::printf("kbc: L2 errors %.3e %.3e %.3e %.3e, least-squares order %.3f, finest pair %.3f\n",
              std::exp2(y[0]), std::exp2(y[1]), std::exp2(y[2]), std::exp2(y[3]), fit, finest);
  EXPECT_GE(fit, 1.9);
  EXPECT_LE(fit, 2.1);
  EXPECT_GE(finest, 1.8);
  EXPECT_LE(finest, 2.2);
}

/// Bound on the relative L2 velocity error that 16-bit population storage adds to the decay at n^2
/// cells (diffusive scaling as above). Each step rounds every stored population once; with
/// round-to-nearest-even the error of s f~_i is uniform within half an ulp, so its standard deviation is
/// at most 2^-11 |f~_i| / sqrt(3) (binary16 unit roundoff 2^-11), and the velocity of a cell gets an error
/// of standard deviation sigma <= 2^-11 / sqrt(3) sqrt(sum_i |c_i|^2 f~_i^2) per step (rho ~ 1),
/// largest where |u| is largest (|u| = U_lb; f~_i from the equilibrium, as the non-equilibrium part is
/// O(tau |grad u|) smaller). Taken independent from step to step and never damped (the viscosity damps
/// them in fact), n_steps of them add up to sqrt(n_steps) sigma per cell; relative to the rms velocity
/// at the end, U_lb / sqrt(2) exp(-2 nu k^2 t) with nu = 2 pi / Re, k = 1, t = 2
/// (cases/taylor_green/tgv2d_lbm.yaml: L = 2 pi, U = 1, Re = 100), that is the bound.
double half_storage_bound(int n) {
  const double u_lb = 0.1 * 32.0 / n, pi = 3.141592653589793;
  double worst = 0;  // max over flow directions of sum_i |c_i|^2 f~_i^2
  for (int a = 0; a <= 90; a += 5) {
    const double ux = u_lb * std::cos(a * pi / 180), uy = u_lb * std::sin(a * pi / 180);
    const int c[9][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}};
    double sum = 0;
    for (int i = 0; i < 9; ++i) {
      const double w = i == 0 ? 4.0 / 9 : (i < 5 ? 1.0 / 9 : 1.0 / 36);
      const double cu = c[i][0] * ux + c[i][1] * uy, f = w * (3 * cu + 4.5 * cu * cu - 1.5 * u_lb * u_lb);
      sum += (c[i][0] * c[i][0] + c[i][1] * c[i][1]) * f * f;
    }
    worst = std::max(worst, sum);
  }
  const double sigma = std::ldexp(1.0, -11) / std::sqrt(3.0) * std::sqrt(worst);
  const double steps = std::ceil(2.0 / (u_lb * 2 * pi / n));
  const double u_rms = u_lb / std::sqrt(2.0) * std::exp(-2.0 * (2 * pi / 100) * 2.0);
  return std::sqrt(steps) * sigma / u_rms;
}

// 16-bit population storage against the exact decay: its error is FP32's plus at most the
// storage bound above (64^2: about 5e-3 beside FP32's 1e-3; 128^2: 1.1e-2 beside 2.6e-4). Storing f
// instead of the shifted f~ would not hold it (f_0 = 4/9 alone rounds with sigma 1.3e-4, 17x the 64^2 sigma),
// nor would a biased rounding (truncation adds 2^-12 |f~| every step, coherently).
TEST(TaylorGreen2D, Fp16StorageDecayWithinTheRoundingBound) {
  for (int n : {64, 128}) {
    const double e32 = tgv_error(n, "bgk", "fp32"), e16 = tgv_error(n, "bgk", "fp32/fp16");
    const double b = half_storage_bound(n);
    std::printf("%d^2: L2 error fp32 %.3e, fp16 %.3e, fp16 bound %.3e + %.3e\n", n, e32, e16, e32, b);
    EXPECT_LE(e16, e32 + b);
  }
}

}  // namespace
}  // namespace eddy
