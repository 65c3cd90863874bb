// The adjoint and `eddy optimize` on several ranks (ctest adjoint_np1, adjoint_np2): the gradient of the
// final-state loss (field, loss, dJ/dnu) and a whole optimisation (loss history of three Adam iterations)
// agree with a one-rank computation of the same case on every rank (LocalTransposeExchange / MPI_COMM_SELF)
// to 1e-12 relative (FP64: the transposes only move numbers, the FFTs and sums differ in round-off order).
// Run: mpirun -n N ./eddy_mpi_adjoint_tests (main: tests/support/mpi_main.cpp)
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/optimize.hpp"
#include "backend/backend.hpp"
#include "backend/fft.hpp"
#include "io/config/config.hpp"
#include "parallel/comm.hpp"
#include "parallel/transpose.hpp"
#include "spectral/adjoint.hpp"

namespace eddy {
namespace {

using spectral::Adjoint2d;

spectral::Setup setup() {
  spectral::Setup s;
  s.dims = 2;
  s.cells = {40, 36, 1};  // nx/2 + 1 = 21 kx columns and 36 y rows: uneven splits
  s.length = {2 * M_PI, 2 * M_PI, 1.0};
  s.stepper = spectral::Stepper::rk4;
  s.nu = 1e-2;
  return s;
}

TEST(AdjointMpi, GradientAgreesWithOneRank) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm(MPI_COMM_WORLD);
  parallel::MpiTransposeExchange ex(comm, parallel::make_transport("mpi", comm));
  field::LocalTransposeExchange local;
  Adjoint2d many(setup(), ex), one(setup(), local);
  auto fields = [](Adjoint2d& a, Adjoint2d::Field& w0, Adjoint2d::Field& target) {
    w0 = a.field(), target = a.field();
    a.random_spectrum(spectral::RandomSpectrum::make(1.0, 4.0, 3.0, 1), w0.data());
    a.random_spectrum(spectral::RandomSpectrum::make(1.0, 4.0, 3.0, 2), target.data());
  };
  Adjoint2d::Field w0m, tm, w01, t1;
  fields(many, w0m, tm);
  fields(one, w01, t1);
  Adjoint2d::Field gm = many.field(), g1 = one.field();
  const auto rm = many.gradient(w0m.data(), tm.data(), 10, 0.02, 3, gm.data(), true);
  const auto r1 = one.gradient(w01.data(), t1.data(), 10, 0.02, 3, g1.data(), true);
  EXPECT_LT(std::fabs(rm.loss - r1.loss), 1e-12 * r1.loss);
  EXPECT_LT(std::fabs(rm.dloss_dnu - r1.dloss_dnu), 1e-12 * std::fabs(r1.dloss_dnu));
  // this rank's kx columns [b0, b0 + nb_local) of [ky][kx] against the whole array
  const spectral::Grid& g = many.grid();
  const std::vector<Adjoint2d::C> hm = gm.to_host(), h1 = g1.to_host();
  double d = 0, m = 0;
  for (index_t a = 0; a < g.na; ++a)
    for (index_t b = 0; b < g.nb_local; ++b) {
      const Adjoint2d::C x = hm[static_cast<std::size_t>(a * g.nb_local + b)];
      const Adjoint2d::C y = h1[static_cast<std::size_t>(a * g.nb + g.b0 + b)];
      d = std::max(d, std::hypot(x.re - y.re, x.im - y.im));
      m = std::max(m, std::hypot(y.re, y.im));
    }
  d = comm.max(d), m = comm.max(m);
  std::printf("gradient on %d rank(s) vs 1: loss %.2e, dJ/dnu %.2e, field %.2e relative\n", comm.size(),
              std::fabs(rm.loss - r1.loss) / r1.loss,
              std::fabs(rm.dloss_dnu - r1.dloss_dnu) / std::fabs(r1.dloss_dnu), d / m);
  EXPECT_LT(d, 1e-12 * m);
}

TEST(AdjointMpi, OptimizeAgreesWithOneRank) {
  if (!backend::fft_available()) GTEST_SKIP();
  const parallel::Comm comm(MPI_COMM_WORLD), self(MPI_COMM_SELF);
  const config::RunSpec spec = config::load_file(
      std::string(EDDY_SOURCE_DIR) + "/cases/optimal_perturbation/optimal_perturbation2d.yaml",
      {"domain.cells=[32,30]", "optimize.spinup_steps=20", "optimize.horizon_steps=10",
       "optimize.iterations=3", "optimize.compare_storage=false"});
  app::RunOptions opt;
  opt.quiet = true;
  opt.out_dir = "adjoint_mpi_np" + std::to_string(comm.size());
  const app::OptimizeResult many = app::optimize(spec, opt, comm);
  comm.barrier();
  opt.out_dir += "_self" + std::to_string(comm.rank());
  const app::OptimizeResult one = app::optimize(spec, opt, self);
  ASSERT_EQ(many.loss.size(), 4u);
  ASSERT_EQ(one.loss.size(), 4u);
  for (std::size_t k = 0; k < one.loss.size(); ++k)
    EXPECT_LT(std::fabs(many.loss[k] - one.loss[k]), 1e-12 * one.loss[k]) << "iteration " << k;
  EXPECT_GT(one.loss.back(), one.loss.front());  // ascent
  if (comm.root()) {  // every row, the last (after the last update) included, has a finite gradient norm
    std::ifstream csv(many.out_dir + "/optimize.csv");
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "step,time,loss,gain,gradient_norm,perturbation_norm,seconds");
    int rows = 0;
    while (std::getline(csv, line)) {
      std::stringstream cells(line);
      std::string cell;
      for (int column = 0; column <= 4; ++column) std::getline(cells, cell, ',');
      EXPECT_TRUE(std::isfinite(std::stod(cell)) && std::stod(cell) > 0) << "row " << rows << ": " << line;
      ++rows;
    }
    EXPECT_EQ(rows, 4);
  }
  EXPECT_TRUE(std::filesystem::exists(many.out_dir + "/fields/optimal_perturbation2d_00000020.h5"));
  comm.barrier();
  std::filesystem::remove_all(opt.out_dir);
  if (comm.root()) std::filesystem::remove_all(many.out_dir);
}

}  // namespace
}  // namespace eddy
