// 2D Taylor-Green vortex: the LBM velocity converges to the exact decaying solution with second order
// in the grid spacing. Diffusive scaling (lattice velocity proportional to dx, so tau is fixed): the
// compressibility error (order Ma^2) then falls like dx^2 too, and the observed order must be
// between 1.8 and 2.2 (second order, with the spread seen between grid pairs).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "app/run.hpp"
#include "io/config/config.hpp"

namespace eddy {
namespace {

double tgv_error(int n, const std::string& collision) {
  const std::string dir = "regression_out/tgv2d_" + collision + "_n" + std::to_string(n);
  std::filesystem::remove_all(dir);
  const double u_lb = 0.1 * 32.0 / n;
  const config::RunSpec spec = config::load_file(
      std::string(EDDY_SOURCE_DIR) + "/configs/tgv2d_lbm.yaml",
      {"domain.cells=[" + std::to_string(n) + "," + std::to_string(n) + "]",
       "numerics.lattice_velocity=" + std::to_string(u_lb), "numerics.collision=" + collision,
       "output.fields.every=0", "output.fields.at_end=false", "output.diagnostics.every=0"});
  const app::RunResult r = app::run(spec, {dir, true}, parallel::Comm());
  EXPECT_GE(r.time, 2.0);  // the run stops at the first step at or past end_time
  EXPECT_LT(r.time, 2.01);
  return r.taylor_green_error;
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

}  // namespace
}  // namespace eddy
