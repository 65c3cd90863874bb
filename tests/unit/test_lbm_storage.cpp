// 16-bit population storage (lbm/storage_k.hpp, `numerics.precision: fp32/fp16`): the conversion point,
// and the solver with it: every lattice and operator, memory, the exact state round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "backend/backend.hpp"
#include "backend/half.hpp"
#include "backend/parallel.hpp"
#include "field/moments.hpp"
#include "field/profile.hpp"
#include "geometry/primitives.hpp"
#include "lbm/collide_k.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lattice.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/storage_k.hpp"
#include "lbm/stream_collide_k.hpp"
#include "tests/support/lbm_box.hpp"

namespace eddy {
namespace {

using backend::Half;

TEST(PopulationStorage, WideTypesAreStoredAsTheyAre) {
  const double x = 0.1234567890123;
  EXPECT_EQ((lbm::load_pop<double>(lbm::store_pop<double>(x))), x);
  EXPECT_EQ((lbm::load_pop<float>(lbm::store_pop<float>(float(x)))), float(x));
}

// Half storage holds s f~ rounded to binary16: the round trip is the correctly rounded value (relative
// error <= 2^-11, the binary16 unit roundoff) wherever s |f~| is a normal half, 2^-27 <= |f~| < 8 for
// s = 2^13; the scale itself is exact (a power of two), so the stored bits are those of to_half(s f~).
TEST(PopulationStorage, HalfKeepsElevenBitsOverTheDocumentedRange) {
  const float s = lbm::half_population_scale;
  EXPECT_EQ(s, 8192.0f);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> expo(-27.0f, 2.999f), mant(1.0f, 2.0f);
  for (int k = 0; k < 200000; ++k) {
    float x = std::ldexp(mant(rng), int(std::floor(expo(rng))));
    if (x > 65504.0f / s) continue;  // the top binade holds up to 7.996 only
    if (k & 1) x = -x;
    const Half h = lbm::store_pop<Half>(x);
    ASSERT_EQ(h.bits, backend::float_to_half_bits(x * s));
    const float back = lbm::load_pop<float>(h);
    ASSERT_LE(std::fabs(back - x), std::ldexp(std::fabs(x), -11)) << x;
    ASSERT_EQ(back, backend::half_bits_to_float(h.bits) / s);
  }
  // Top of the range: 65504 / 2^13 = 7.996 is the largest stored value; from 65520 / 2^13 on it is inf.
  EXPECT_EQ(lbm::load_pop<float>(lbm::store_pop<Half>(65504.0f / s)), 65504.0f / s);
  EXPECT_TRUE(std::isinf(lbm::load_pop<float>(lbm::store_pop<Half>(8.0f))));
  // Bottom: below 2^-27 the values are subnormal halves, spaced 2^-24 / s = 2^-37 (absolute).
  const float tiny = 3.3e-10f;
  EXPECT_LE(std::fabs(lbm::load_pop<float>(lbm::store_pop<Half>(tiny)) - tiny), 0x1p-38f);
  EXPECT_EQ(lbm::store_pop<Half>(0.0f).bits, 0);
}

using test::lbm_box;
constexpr auto start = test::lbm_start;

lbm::Setup box(const std::string& lattice, const std::string& collision, Precision p) {
  return lbm_box(lattice, collision, p);
}

/// Max over cells of sum_i |c_i| |f~_i| (a fp32 state, interior cells, q values per cell).
template <class L>
double moment_weight(const std::vector<unsigned char>& state) {
  std::vector<float> f(state.size() / 4);
  std::memcpy(f.data(), state.data(), state.size());
  double m = 0;
  for (std::size_t n = 0; n < f.size() / L::q; ++n) {
    double s = 0;
    for (int i = 0; i < L::q; ++i) {
      const double c =
          std::sqrt(double(L::c(i, 0) * L::c(i, 0) + L::c(i, 1) * L::c(i, 1) + L::c(i, 2) * L::c(i, 2)));
      s += c * std::fabs(f[n * L::q + std::size_t(i)]) + (i == 0 ? std::fabs(f[n * L::q]) : 0.0);
    }
    m = std::max(m, s);
  }
  return m;
}

// Every lattice and operator (plain, and with LES and a body force) runs on 16-bit storage and follows
// the FP32 run within the storage's rounding. Bound: each step rounds every stored population once,
// by at most 2^-11 of its value, so the velocity of a cell moves by at most 2^-11 sum_i |c_i| |f~_i|
// / rho (and its density by 2^-11 sum_i |f~_i|) per step; summed over n steps without any damping (the
// LBM update is a contraction of such perturbations apart from the conserved modes, so this is an
// upper bound): n 2^-11 W / (1 - max|drho|), W = max over cells and steps of sum_i (|c_i| + [i=0])
// |f~_i|, taken from the FP32 run with a factor 1.5 for its growth over the steps.
template <class L>
void follows_fp32(const std::string& lattice) {
  for (const std::string collision : {"bgk", "trt", "regularized"})
    for (bool extras : {false, true}) {
      lbm::Setup s16 = box(lattice, collision, Precision::fp16),
                 s32 = box(lattice, collision, Precision::fp32);
      if (extras) {
        for (lbm::Setup* s : {&s16, &s32}) s->smagorinsky = 0.15, s->force = {1e-5, -2e-5, 1e-5};
      }
      auto a = lbm::make_solver(s16), b = lbm::make_solver(s32);
      ASSERT_EQ(a->state_bytes(), 2);
      ASSERT_EQ(a->bytes_per_cell_step(), 2.0 * 2 * L::q + 1.0);
      a->initialize(start), b->initialize(start);
      const int steps = 40;
      double w = 0;
      for (int k = 0; k < steps; ++k) {
        a->step(), b->step();
        w = std::max(w, moment_weight<L>(b->save_state()));
      }
      std::vector<double> rho16, u16, rho32, u32;
      a->macroscopic(rho16, u16), b->macroscopic(rho32, u32);
      const double bound = steps * std::ldexp(1.0, -11) * 1.5 * w / (1.0 - 0.02);
      double du = 0, drho = 0;
      for (std::size_t k = 0; k < u16.size(); ++k) du = std::max(du, std::fabs(u16[k] - u32[k]));
      for (std::size_t k = 0; k < rho16.size(); ++k) drho = std::max(drho, std::fabs(rho16[k] - rho32[k]));
      EXPECT_LE(du, bound) << lattice << " " << collision << (extras ? " +les+force" : "");
      EXPECT_LE(drho, bound) << lattice << " " << collision << (extras ? " +les+force" : "");
      // Not trivially equal: 16-bit storage does round (FP32 would be within 1e-6 of itself).
      EXPECT_GT(du, 1e-6) << lattice << " " << collision;
      const lbm::Stats st = a->stats();
      EXPECT_EQ(st.nonfinite, 0.0);
    }
}

TEST(HalfStorageSolver, D2Q9FollowsFp32) { follows_fp32<lbm::D2Q9>("D2Q9"); }
TEST(HalfStorageSolver, D3Q19FollowsFp32) { follows_fp32<lbm::D3Q19>("D3Q19"); }
TEST(HalfStorageSolver, D3Q27FollowsFp32) { follows_fp32<lbm::D3Q27>("D3Q27"); }

// The state is the stored 16-bit words: saved after an odd and an even number of steps (the AA
// pattern's two layouts), loaded into a fresh solver, both continue bitwise alike.
TEST(HalfStorageSolver, StateRoundTripIsBitwise) {
  for (const std::string lattice : {"D2Q9", "D3Q19"})
    for (int split : {7, 8}) {
      const lbm::Setup s = box(lattice, "trt", Precision::fp16);
      auto a = lbm::make_solver(s), b = lbm::make_solver(s);
      a->initialize(start), b->initialize(start);
      for (int k = 0; k < split; ++k) a->step();
      const std::vector<unsigned char> saved = a->save_state();
      ASSERT_EQ(saved.size(), std::size_t(s.cells[0] * s.cells[1] * s.cells[2]) * std::size_t(a->q()) * 2);
      b->load_state(saved, a->steps());
      for (int k = 0; k < 9; ++k) a->step(), b->step();
      EXPECT_EQ(a->save_state(), b->save_state()) << lattice << " split " << split;
      std::vector<double> ra, ua, rb, ub;
      a->macroscopic(ra, ua), b->macroscopic(rb, ub);
      EXPECT_EQ(ua, ub);
      EXPECT_EQ(ra, rb);
    }
}

// Step graphs (backend/graph.hpp) replay exactly what the step launches: the odd step recorded once (on a
// GPU; the CPU backend runs every step directly), bitwise the same populations as kernel-by-kernel steps,
// over an odd number of steps and with graphs switched off and on in between.
TEST(StepGraphs, LbmReplaysTheSameSteps) {
  for (const Precision p : {Precision::fp32, Precision::fp16}) {
    const lbm::Setup s = box("D3Q19", "trt", p);
    auto a = lbm::make_solver(s), b = lbm::make_solver(s);
    a->initialize(start), b->initialize(start);
    b->set_graphs(false);
    for (int k = 0; k < 7; ++k) a->step(), b->step();
    EXPECT_EQ(a->save_state(), b->save_state());
    a->set_graphs(false);
    a->step(), b->step();
    a->set_graphs(true);
    for (int k = 0; k < 6; ++k) a->step(), b->step();
    EXPECT_EQ(a->save_state(), b->save_state());
    EXPECT_EQ(b->graph_recordings(), 0);
    // Recorded: the odd step (two launches: the bulk and the cells next to the walls; the even step is
    // one launch, which runs as such), then again after graphs were off.
    EXPECT_EQ(a->graph_recordings(), backend::is_gpu() ? 2 : 0);
  }
}

/// max |a - b| / max |a| over the stored populations of two states of storage type T.
template <class T>
double state_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  std::vector<T> x(a.size() / sizeof(T)), y(b.size() / sizeof(T));
  std::memcpy(x.data(), a.data(), a.size());
  std::memcpy(y.data(), b.data(), b.size());
  double d = 0, m = 0;
  for (std::size_t k = 0; k < x.size(); ++k)
    d = std::max(d, std::fabs(double(x[k]) - double(y[k]))), m = std::max(m, std::fabs(double(x[k])));
  return d / m;
}

// The Taylor-Green vortex sampled on the device (Solver::initialize(const TaylorGreenCells&)) gives the
// populations of the same functor through the host path (as an InitialCondition), 2D and 3D, FP64 and
// FP32 storage: bitwise on the CPU backend (the same double expressions); on a GPU within the device's
// sin/cos (at most 2 units in the last place against the host library's 1, in double) and its FMA
// contractions (in double too: initial_populations computes in double whatever the storage): a population
// then differs by a few 1e-16 relative before rounding to the storage type, which FP32 storage can
// turn into one unit in its last place (at most 2^-23 of the largest population, which bounds a
// rounding flip of any smaller one), FP64 storage carries (bound 1e-14).
TEST(TaylorGreenCells, DeviceSamplingEqualsTheHostPath) {
  for (const std::string lattice : {"D2Q9", "D3Q19"})
    for (const Precision p : {Precision::fp64, Precision::fp32}) {
      lbm::Setup s;
      s.dims = lattice == "D2Q9" ? 2 : 3;
      s.cells = s.dims == 2 ? Int3{24, 20, 1} : Int3{12, 10, 8};
      s.lattice = lbm::lattice_names.parse(lattice, "lattice");
      s.precision = p;
      s.tau = 0.53;
      s.faces = {lbm::FaceKind::periodic, lbm::FaceKind::periodic, lbm::FaceKind::periodic,
                 lbm::FaceKind::periodic, lbm::FaceKind::periodic, lbm::FaceKind::periodic};
      lbm::TaylorGreenCells tg;
      tg.tg.dims = s.dims, tg.tg.U = 1.5, tg.tg.L = 2.0, tg.tg.rho = 1.2;
      tg.dx = 2.0 / 12, tg.dt = 0.004, tg.density = 1.2;
      auto host = lbm::make_solver(s), device = lbm::make_solver(s);
      host->initialize(lbm::InitialCondition(tg));
      device->initialize(tg);
      const double d = p == Precision::fp64
                           ? state_difference<double>(host->save_state(), device->save_state())
                           : state_difference<float>(host->save_state(), device->save_state());
      std::printf("Taylor-Green %s %s: device vs host populations %.3g (relative)\n", lattice.c_str(),
                  p == Precision::fp64 ? "fp64" : "fp32", d);
      if (!backend::is_gpu())
        EXPECT_EQ(d, 0.0) << lattice;
      else
        EXPECT_LE(d, p == Precision::fp64 ? 1e-14 : std::ldexp(1.0, -23)) << lattice;
      EXPECT_EQ(device->steps(), 0);
    }
}

// The 16-bit even step in cell pairs (stream_collide_even_pair) is bitwise the one-cell update
// (stream_collide<L, false, false>) of each of its cells, with the second cell and without it (the last
// cell of a row of odd length, 7 here). A step runs pairs where they start at even global x and one cell
// at a time elsewhere (solver_impl.hpp: CellSet::pairs), so decompositions mix the two, and only their
// equality keeps results independent of the decomposition. On a GPU this also checks that the compiler
// treats the pair's two inlined collisions as it does the single one (FMA contraction).
//
// The same for the odd step (stream_collide_odd_pair against the bulk's stream_collide<L, true, false> of
// each fluid cell): here the block wraps x and y (the links of cell x = 0 and x = nx - 1 across the x
// faces, of every pair across the y faces, lead to the images), z has ghosts, and a few cells are not
// plain fluid (near a solid: the bulk leaves them to the near-solid kernel), so that pairs of one fluid cell
// take the one-cell update. Rows of 7 cells (the last cell alone, on the high x face) and of 8 (the last
// pair has its second cell on that face).
std::vector<Half> random_populations(std::size_t n) {
  std::vector<Half> h(n);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dev(-0.01f, 0.01f);
  for (Half& v : h) v = lbm::store_pop<Half>(dev(rng));
  return h;
}

template <class L, class C>
std::vector<Half> aa_step(const C& collide, float force, bool odd, bool pairs, index_t nx) {
  const field::PaddedGrid g = lbm::padded_grid(L::d, Int3{nx, 3, L::d == 3 ? 2 : 1});
  constexpr index_t lead = field::PaddedGrid::lead(1, lbm::row_align);  // as the solver's array
  backend::DeviceArray<Half> f;
  f.from_host(random_populations(static_cast<std::size_t>(L::q * g.n_padded + lead)));
  std::vector<std::uint8_t> fl(static_cast<std::size_t>(g.n_padded), lbm::fluid);
  if (odd)  // cells the bulk skips: first and second of a pair, the last cell of a row
    for (const Int3 c : {Int3{3, 1, 0}, Int3{0, 2, 0}, Int3{nx - 1, 0, g.nz - 1}})
      fl[static_cast<std::size_t>(g.at(c[0], c[1], c[2]))] = lbm::near_solid;
  backend::DeviceArray<std::uint8_t> flags;
  flags.from_host(fl);
  lbm::StreamCollideArgs<Half, float> a{};
  a.f = f.data() + lead, a.flags = flags.data(), a.grid = g;
  a.force[0] = force, a.force[1] = -0.5f * force;
  a.wrap_axes = odd ? 3u : 0u;
  const unsigned axes = a.wrap_axes;
  if (!odd && pairs)
    backend::parallel_for_box(
        "test::even_pairs", (g.nx + 1) / 2, g.ny, g.nz, [=] EDDY_DEVICE(index_t x2, index_t y, index_t z) {
          lbm::stream_collide_even_pair<L>(g.at(2 * x2, y, z), 2 * x2 + 1 < g.nx, a, collide);
        });
  else if (!odd)
    backend::parallel_for_box("test::even_cells", g.nx, g.ny, g.nz,
                              [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
                                lbm::stream_collide<L, false, false>(g.at(x, y, z), 0u, a, collide);
                              });
  else if (pairs)
    backend::parallel_for_box(
        "test::odd_pairs", (g.nx + 1) / 2, g.ny, g.nz, [=] EDDY_DEVICE(index_t x2, index_t y, index_t z) {
          const index_t x = 2 * x2;
          lbm::stream_collide_odd_pair<L>(g.at(x, y, z), x + 1 < g.nx, false,
                                          lbm::wrapped_faces_at(g, axes, x, y, z),
                                          lbm::wrapped_faces_at(g, axes, x + 1, y, z), a, collide);
        });
  else
    backend::parallel_for_box(
        "test::odd_cells", g.nx, g.ny, g.nz, [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
          const index_t n = g.at(x, y, z);
          if (a.flags[n] != lbm::fluid) return;  // as the bulk (bulk_cell)
          lbm::stream_collide<L, true, false>(n, lbm::wrapped_faces_at(g, axes, x, y, z), a, collide);
        });
  return f.to_host();
}

template <class L, class C>
void expect_pairs_are_single_cells(const C& collide, float force, const char* what, bool odd = false) {
  for (const index_t nx : {index_t(7), index_t(8)}) {
    const std::vector<Half> p = aa_step<L>(collide, force, odd, true, nx),
                            c = aa_step<L>(collide, force, odd, false, nx);
    ASSERT_EQ(p.size(), c.size());
    EXPECT_EQ(std::memcmp(p.data(), c.data(), p.size() * sizeof(Half)), 0)
        << what << (odd ? ", odd step" : ", even step") << ", rows of " << nx;
    // The step changed the populations (the two runs did not merely both leave them alone).
    EXPECT_NE(std::memcmp(p.data(), random_populations(p.size()).data(), p.size() * sizeof(Half)), 0);
  }
}

void expect_pairs_are_single_cells(bool odd) {
  lbm::CollisionExtras<float> extras;
  extras.tau0 = 1.0f / 1.7f, extras.les = 18.0f * 0.17f * 0.17f;
  extras.force[0] = 1e-4f * lbm::half_population_scale, extras.force[1] = -5e-5f * lbm::half_population_scale;
  const float force = 1e-4f;
  expect_pairs_are_single_cells<lbm::D3Q19>(lbm::Bgk<float>{1.7f}, 0.0f, "D3Q19 BGK", odd);
  expect_pairs_are_single_cells<lbm::D3Q19>(lbm::Trt<float, true, true>{1.7f, 1.1f, extras}, force,
                                            "D3Q19 TRT LES force", odd);
  expect_pairs_are_single_cells<lbm::D3Q27>(lbm::Regularized<float, true, false>{1.7f, extras}, 0.0f,
                                            "D3Q27 regularized LES", odd);
  expect_pairs_are_single_cells<lbm::D2Q9>(lbm::Bgk<float, false, true>{1.7f, extras}, force,
                                           "D2Q9 BGK force", odd);
}

TEST(HalfStorageSolver, EvenStepInCellPairsIsTheOneCellUpdate) { expect_pairs_are_single_cells(false); }

TEST(HalfStorageSolver, OddStepInCellPairsIsTheOneCellUpdate) { expect_pairs_are_single_cells(true); }

// D3Q19 with 16-bit storage holds at most 55 bytes per cell: populations 38, flag 1, plus the
// ghost layer and the rows' padding (to 32 cells), which a grid of 254 x 62 x 62 cells already amortises
// as a large one does (padded 256 x 64 x 64: 7.3% more cells), and the exchange buffers.
TEST(HalfStorageSolver, D3Q19HoldsAtMost55BytesPerCell) {
  lbm::Setup s;
  s.dims = 3;
  s.cells = {254, 62, 62};
  s.lattice = lbm::Lattice::d3q19;
  s.precision = Precision::fp16;
  s.faces = {lbm::FaceKind::periodic, lbm::FaceKind::periodic, lbm::FaceKind::periodic,
             lbm::FaceKind::periodic, lbm::FaceKind::periodic, lbm::FaceKind::periodic};
  auto solver = lbm::make_solver(s);
  const double per_cell = double(solver->bytes_allocated()) / (254.0 * 62.0 * 62.0);
  std::printf("D3Q19 fp16, 254 x 62 x 62: %.2f bytes per cell allocated\n", per_cell);
  EXPECT_LE(per_cell, 55.0);
  EXPECT_GE(per_cell, 39.0);  // 19 two-byte populations and a flag byte at least
}

// Profile sums (field/profile.hpp) taken inside the step (Solver::add_profile with the next step) are
// bitwise those of the kernel of their own, and the step is bitwise the step without them: every lattice
// and storage precision, with walls (the odd step's near-solid kernel), a body (cells at rest) and a
// body force (the F/2 velocity shift), over even and odd steps. Their values are the per-cell sums'
// (Solver::add_moments) averaged over the bins' lines: each per-cell sum is 7 FP64 additions of values
// below max |v|, so within 7 x 2^-53 max|v| of exact, while the profile sums are exact to 2^-64 a term;
// 1e-14 max |v| bounds the difference.
TEST(ProfileSums, InsideTheStepEqualsAKernelOfItsOwn) {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const Precision p : {Precision::fp64, Precision::fp32, Precision::fp16}) {
      SCOPED_TRACE(lattice + " " + std::to_string(int(p)));
      lbm::Setup s = box(lattice, "trt", p);
      s.force = {2e-5, -1e-5, 0.0};
      s.bodies = {std::make_shared<geometry::Sphere>(Real3{6.0, 5.0, s.dims == 3 ? 4.0 : 0.0}, 2.2)};
      auto a = lbm::make_solver(s), b = lbm::make_solver(s), c = lbm::make_solver(s);
      a->initialize(start), b->initialize(start), c->initialize(start);
      field::MomentLayout m;
      m.dims = s.dims, m.density = true, m.velocity = true, m.stress = true;
      const bool averaged[3] = {true, false, s.dims == 3};
      field::ProfileSums pa(m, s.cells, averaged), pb(m, s.cells, averaged);
      const index_t cells = s.cells[0] * s.cells[1] * s.cells[2];
      backend::DeviceArray<double> sums(static_cast<std::size_t>(cells * m.count()));
      for (int k = 0; k < 7; ++k) {
        a->add_profile(pa.view(), true);
        b->add_profile(pb.view(), false);
        c->add_moments({sums.data(), cells, m});
        a->step(), b->step(), c->step();
        pa.fold(), pb.fold();
      }
      EXPECT_EQ(a->save_state(), c->save_state());
      EXPECT_EQ(b->save_state(), c->save_state());
      const std::vector<long long> ta = pa.totals(), tb = pb.totals();
      ASSERT_EQ(ta, tb);
      // Against the per-cell sums, bin by bin (bins along y; lines over x and z).
      const std::vector<double> cell = sums.to_host();
      const auto slots = static_cast<std::size_t>(m.count());
      for (std::size_t k = 0; k < slots; ++k) {
        double largest = 0, worst = 0;
        for (index_t y = 0; y < s.cells[1]; ++y) {
          double want = 0;
          for (index_t z = 0; z < s.cells[2]; ++z)
            for (index_t x = 0; x < s.cells[0]; ++x) {
              const double v = cell[k * static_cast<std::size_t>(cells) +
                                    static_cast<std::size_t>((z * s.cells[1] + y) * s.cells[0] + x)];
              want += v, largest = std::max(largest, std::fabs(v));
            }
          const long long* l = ta.data() + 3 * (static_cast<std::size_t>(y) * slots + k);
          const double got =
              std::ldexp(double(l[2]), 0) + std::ldexp(double(l[1]), -32) + std::ldexp(double(l[0]), -64);
          worst = std::max(worst, std::fabs(got - want));
        }
        const double lines = double(s.cells[0] * s.cells[2]);
        EXPECT_LE(worst, 1e-14 * largest * lines) << "slot " << k;
        EXPECT_GT(largest, 0.0) << "slot " << k;
      }
    }
}

}  // namespace
}  // namespace eddy
