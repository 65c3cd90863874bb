// Moment storage (numerics.storage: moments; lbm/moment_solver.hpp): the same regularized steps as the
// population storage, mass and momentum kept next to walls, the exact state round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "lbm/lattice.hpp"
#include "lbm/lbm_solver.hpp"
#include "tests/support/lbm_box.hpp"

namespace eddy {
namespace {

constexpr auto start = test::lbm_start;

/// The test block (tests/support/lbm_box.hpp), regularized, in `storage`; with `walls` false periodic on
/// every face.
lbm::Setup box(const std::string& lattice, Precision p, lbm::Storage storage, bool walls) {
  lbm::Setup s = test::lbm_box(lattice, "regularized", p);
  s.storage = storage;
  if (!walls) s.faces.fill(lbm::FaceKind::periodic);
  return s;
}

// On a periodic box the moment storage runs the population storage's arithmetic in another order of
// memory accesses: every step's density, velocity and strain-rate sums are the same numbers. On the CPU
// (built without contracted multiply-adds) bit for bit; a GPU compiler may contract the two kernels'
// expressions differently, so there the bound is round-off: 50 units in the last place of the
// arithmetic type times the largest velocity, over the few steps compared.
template <class L>
void same_as_populations(const std::string& lattice) {
  for (const Precision p : {Precision::fp64, Precision::fp32})
    for (const bool extras : {false, true}) {
      lbm::Setup sp = box(lattice, p, lbm::Storage::populations, false),
                 sm = box(lattice, p, lbm::Storage::moments, false);
      if (extras)
        for (lbm::Setup* s : {&sp, &sm})
          s->smagorinsky = 0.15, s->force = {1e-5, -2e-5, L::d == 3 ? 1e-5 : 0.0};
      auto a = lbm::make_solver(sp), b = lbm::make_solver(sm);
      ASSERT_EQ(b->q(), L::d == 3 ? 10 : 6);
      ASSERT_EQ(b->bytes_per_cell_step(), 2.0 * b->q() * b->state_bytes() + 1.0);
      a->initialize(start), b->initialize(start);
      const double ulp = p == Precision::fp64 ? 0x1p-52 : 0x1p-23;
      const double tol = backend::is_gpu() ? 50 * ulp * 0.1 : 0.0;
      for (int k = 0; k < 7; ++k) {
        std::vector<double> ra, ua, rb, ub;
        a->macroscopic(ra, ua), b->macroscopic(rb, ub);
        ASSERT_EQ(ua.size(), ub.size());
        double du = 0, dr = 0;
        for (std::size_t n = 0; n < ua.size(); ++n) du = std::max(du, std::fabs(ua[n] - ub[n]));
        for (std::size_t n = 0; n < ra.size(); ++n) dr = std::max(dr, std::fabs(ra[n] - rb[n]));
        EXPECT_LE(du, tol) << lattice << " step " << k << (extras ? " +les+force" : "");
        EXPECT_LE(dr, tol) << lattice << " step " << k << (extras ? " +les+force" : "");
        const lbm::Stats x = a->stats(), y = b->stats();
        EXPECT_NEAR(x.strain_sq, y.strain_sq, tol * 1e3 * std::fabs(x.strain_sq))
            << lattice << " step " << k << (p == Precision::fp64 ? " fp64" : " fp32")
            << (extras ? " +les+force" : "");
        EXPECT_NEAR(x.sgs_dissipation, y.sgs_dissipation, tol * 1e3 * std::fabs(x.sgs_dissipation));
        EXPECT_GT(x.strain_sq, 0.0);
        a->step(), b->step();
      }
    }
}

TEST(MomentStorage, D2Q9SameAsPopulations) { same_as_populations<lbm::D2Q9>("D2Q9"); }
TEST(MomentStorage, D3Q19SameAsPopulations) { same_as_populations<lbm::D3Q19>("D3Q19"); }
TEST(MomentStorage, D3Q27SameAsPopulations) { same_as_populations<lbm::D3Q27>("D3Q27"); }

// 16-bit moments (the IEEE half of 2^13 times each number) follow FP32 moments within their rounding:
// each step rounds every stored number once, by at most 2^-11 of its value, so the velocity of a cell
// moves by at most 2^-11 max|u| a step of its own rounding, plus what its neighbours' roundings bring:
// the density takes 3 w_i c_i . j of each neighbour (sum w_i |c_i| < 1, so at most 3 max|u| 2^-11), and
// a stress error changes no first or zeroth moment. Summed over n steps without damping (the update
// contracts such perturbations apart from the conserved modes, so an upper bound):
// n 2^-11 (max|drho| + 3 max|u|) for both, with a factor 1.5 for the fields' growth over the steps.
template <class L>
void half_follows_fp32(const std::string& lattice) {
  for (const bool walls : {false, true}) {
    auto a = lbm::make_solver(box(lattice, Precision::fp16, lbm::Storage::moments, walls));
    auto b = lbm::make_solver(box(lattice, Precision::fp32, lbm::Storage::moments, walls));
    ASSERT_EQ(a->state_bytes(), 2);
    ASSERT_EQ(a->bytes_per_cell_step(), 2.0 * 2 * a->q() + 1.0);
    a->initialize(start), b->initialize(start);
    const int steps = 40;
    for (int k = 0; k < steps; ++k) a->step(), b->step();
    std::vector<double> r16, u16, r32, u32;
    a->macroscopic(r16, u16), b->macroscopic(r32, u32);
    double umax = 0, dmax = 0, du = 0, dr = 0;
    for (std::size_t k = 0; k < u32.size(); ++k)
      umax = std::max(umax, std::fabs(u32[k])), du = std::max(du, std::fabs(u16[k] - u32[k]));
    for (std::size_t k = 0; k < r32.size(); ++k)
      dmax = std::max(dmax, std::fabs(r32[k] - 1.0)), dr = std::max(dr, std::fabs(r16[k] - r32[k]));
    const double bound = steps * 0x1p-11 * 1.5 * (dmax + 3 * umax);
    std::printf("%s%s: 16-bit moments against FP32 after %d steps: |du| %.3g, |drho| %.3g (bound %.3g)\n",
                lattice.c_str(), walls ? " walls" : "", steps, du, dr, bound);
    EXPECT_LE(du, bound) << lattice;
    EXPECT_LE(dr, bound) << lattice;
    EXPECT_GT(du, 1e-7) << lattice;  // it does round (FP32 is within 1e-6 of itself)
    EXPECT_EQ(a->stats().nonfinite, 0.0);
  }
}

TEST(MomentStorage, HalfFollowsFp32D2Q9) { half_follows_fp32<lbm::D2Q9>("D2Q9"); }
TEST(MomentStorage, HalfFollowsFp32D3Q19) { half_follows_fp32<lbm::D3Q19>("D3Q19"); }
TEST(MomentStorage, HalfFollowsFp32D3Q27) { half_follows_fp32<lbm::D3Q27>("D3Q27"); }

/// Sum over cells of rho and of rho u (lattice units).
struct Totals {
  double mass = 0, momentum[3] = {0, 0, 0};
};
Totals totals(lbm::Solver& s) {
  std::vector<double> rho, u;
  s.macroscopic(rho, u);
  const int d = s.setup().dims;
  Totals t;
  for (std::size_t n = 0; n < rho.size(); ++n) {
    t.mass += rho[n] - 1.0;
    for (int k = 0; k < d; ++k) t.momentum[k] += rho[n] * u[n * std::size_t(d) + std::size_t(k)];
  }
  return t;
}

// Mass next to walls and a moving wall (half-way bounce-back on the rebuilt populations): the total is
// kept to round-off, and so is the momentum of a periodic box, which a body force raises by exactly F
// per cell and step. Bound: every step rounds each of the q populations a cell receives, and their sum,
// once (2^-52 of a population, all below 0.5 here), and the cell totals add up without cancellation
// over N cells and n steps: n N (q + 1) 2^-52 0.5, a worst case (random rounding grows as its root).
template <class L>
void conserves(const std::string& lattice) {
  const int steps = 200;
  for (const bool walls : {true, false}) {
    lbm::Setup s = box(lattice, Precision::fp64, lbm::Storage::moments, walls);
    if (!walls) s.force = {1e-5, -2e-5, L::d == 3 ? 1e-5 : 0.0};
    auto a = lbm::make_solver(s);
    a->initialize(start);
    const Totals t0 = totals(*a);
    for (int k = 0; k < steps; ++k) a->step();
    const Totals t1 = totals(*a);
    const double cells = double(s.cells[0]) * s.cells[1] * s.cells[2];
    const double bound = steps * cells * (L::q + 1) * 0x1p-52 * 0.5;
    EXPECT_NEAR(t1.mass, t0.mass, bound) << lattice << (walls ? " walls" : " periodic");
    if (walls) continue;
    // The Guo momentum of a cell, rho u = j + F/2: the total rises by F per cell and step.
    for (int k = 0; k < L::d; ++k)
      EXPECT_NEAR(t1.momentum[k] - t0.momentum[k], steps * cells * s.force[std::size_t(k)], bound)
          << lattice << " axis " << k;
  }
}

TEST(MomentStorage, D2Q9Conserves) { conserves<lbm::D2Q9>("D2Q9"); }
TEST(MomentStorage, D3Q19Conserves) { conserves<lbm::D3Q19>("D3Q19"); }
TEST(MomentStorage, D3Q27Conserves) { conserves<lbm::D3Q27>("D3Q27"); }

// The state is the stored moments: saved, loaded into a fresh solver, both continue bitwise alike (walls
// and a moving wall, so the bounce-back reads the restored state too).
TEST(MomentStorage, StateRoundTripIsBitwise) {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const Precision p : {Precision::fp64, Precision::fp32, Precision::fp16}) {
      const lbm::Setup s = box(lattice, p, lbm::Storage::moments, true);
      auto a = lbm::make_solver(s), b = lbm::make_solver(s);
      a->initialize(start), b->initialize(start);
      for (int k = 0; k < 7; ++k) a->step();
      const std::vector<unsigned char> saved = a->save_state();
      ASSERT_EQ(saved.size(), std::size_t(s.cells[0] * s.cells[1] * s.cells[2]) * std::size_t(a->q()) *
                                  std::size_t(a->state_bytes()));
      b->load_state(saved, a->steps());
      EXPECT_EQ(b->steps(), 7);
      for (int k = 0; k < 9; ++k) a->step(), b->step();
      EXPECT_EQ(a->save_state(), b->save_state()) << lattice;
      std::vector<double> ra, ua, rb, ub;
      a->macroscopic(ra, ua), b->macroscopic(rb, ub);
      EXPECT_EQ(ua, ub);
      EXPECT_EQ(ra, rb);
    }
}

// What the storage holds and moves: two states of 10 (3D) or 6 (2D) numbers a padded cell (20 against
// the 19 populations D3Q19 updates in place: the gain is the traffic, 2 x 10 values a step against 2 x
// 19), and what eddy plan counts for it.
TEST(MomentStorage, HoldsTwoStatesOfMoments) {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"}) {
    const lbm::Setup s = box(lattice, Precision::fp32, lbm::Storage::moments, true);
    auto a = lbm::make_solver(s);
    const int m = s.dims == 3 ? 10 : 6;
    EXPECT_EQ(a->q(), m);
    EXPECT_EQ(a->bytes_per_cell_step(), 2.0 * 4 * m + 1);
    const lbm::Footprint f = lbm::footprint(s, false);
    EXPECT_EQ(f.bytes_per_cell_step, a->bytes_per_cell_step());
    EXPECT_EQ(f.device_bytes, double(a->bytes_allocated())) << lattice;
  }
}

// Refused setups: another operator, open faces.
TEST(MomentStorage, RefusesWhatItDoesNotDo) {
  lbm::Setup s = box("D3Q19", Precision::fp32, lbm::Storage::moments, true);
  s.collision = lbm::Collision::trt;
  EXPECT_THROW(lbm::make_solver(s), InputError);
  s = box("D3Q19", Precision::fp32, lbm::Storage::moments, true);
  s.faces[0] = lbm::FaceKind::velocity_inlet;
  EXPECT_THROW(lbm::make_solver(s), InputError);
}

}  // namespace
}  // namespace eddy
