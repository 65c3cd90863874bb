// spectral/: the slab FFT's wave numbers and layouts (derivatives of band-limited fields are exact to
// round-off, in 2D and 3D, on non-square boxes), Parseval diagnostics against physical averages, the
// projection onto divergence-free fields, and the random initial spectrum (real, solenoidal, with the
// energy it was given); the pruned transforms (Modes::kept) against the full ones; and the step's
// invariants (its fused inputs, the truncated modes staying zero).
// Each body runs on the configured backend with one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/fft.hpp"
#include "backend/parallel.hpp"
#include "field/slab.hpp"
#include "spectral/grid.hpp"
#include "spectral/initial_k.hpp"
#include "spectral/slab_fft.hpp"
#include "spectral/spectral_solver.hpp"
#include "spectral/spectrum.hpp"
#include "tests/support/taylor_green_state.hpp"

namespace {

using eddy::index_t;
using eddy::Int3;
using eddy::Real3;
using eddy::backend::Complex;
using eddy::backend::DeviceArray;
using eddy::spectral::Grid;
using eddy::spectral::Mode;
using eddy::spectral::SlabFft;

/// out_d = i k_d in / N for d < dims: the spectral gradient, normalised.
void launch_gradient(const Grid& g, const Complex<double>* in, Complex<double>* out, index_t cs) {
  const double scale = 1.0 / double(g.total_points());
  eddy::backend::parallel_for("test::gradient", g.modes(), [=] EDDY_DEVICE(index_t m) {
    const Mode<double> md = Mode<double>::at(g, m);
    for (int d = 0; d < g.dims; ++d) out[m + d * cs] = eddy::backend::times_i((scale * md.k[d]) * in[m]);
  });
}

/// A band-limited field: a sum of modes with |k_i| < n_i / 2 (so no Nyquist content), and its gradient.
struct Field {
  static constexpr int modes = 4;
  int ks[modes][3] = {{1, 0, 0}, {2, -3, 1}, {0, 4, -2}, {5, 1, 3}};
  double amp[modes] = {1.0, 0.5, -0.7, 0.25}, phase[modes] = {0.3, 1.1, -0.4, 2.0};
  double value(const Real3& x, const Real3& kf, int dims, int deriv = -1) const {
    double f = 0;
    for (int j = 0; j < modes; ++j) {
      double arg = phase[j];
      for (int d = 0; d < dims; ++d)
        arg += ks[j][d] * kf[static_cast<std::size_t>(d)] * x[static_cast<std::size_t>(d)];
      f += deriv < 0 ? amp[j] * std::cos(arg)
                     : -amp[j] * ks[j][deriv] * kf[static_cast<std::size_t>(deriv)] * std::sin(arg);
    }
    return f;
  }
};

double gradient_error(int dims, const Int3& n, const Real3& length) {
  const Grid g = Grid::make(dims, n, length, 1, 0);
  eddy::field::LocalTransposeExchange ex;
  SlabFft<double> fft(g, ex);
  const index_t cs = fft.complex_stride(), rs = fft.real_stride();
  const Real3 kf{2 * M_PI / length[0], 2 * M_PI / length[1], 2 * M_PI / length[2]};
  const Field f;
  std::vector<double> h(static_cast<std::size_t>(rs * 3), 0.0);
  const Real3 dx{length[0] / n[0], length[1] / n[1], length[2] / n[2]};
  auto at = [&](index_t i) {
    const index_t x = i % n[0], y = (i / n[0]) % n[1], z = i / (n[0] * n[1]);
    return Real3{(x + 0.5) * dx[0], (y + 0.5) * dx[1], dims == 3 ? (z + 0.5) * dx[2] : 0.0};
  };
  for (index_t i = 0; i < g.points(); ++i) h[static_cast<std::size_t>(i)] = f.value(at(i), kf, dims);
  DeviceArray<double> phys;
  phys.from_host(h);
  DeviceArray<Complex<double>> spec(static_cast<std::size_t>(cs)), grad(static_cast<std::size_t>(3 * cs));
  fft.forward(phys.data(), spec.data(), 1);
  launch_gradient(g, spec.data(), grad.data(), cs);
  fft.backward(grad.data(), phys.data(), dims);
  const std::vector<double> r = phys.to_host();
  double err = 0, scale = 0;
  for (int d = 0; d < dims; ++d)
    for (index_t i = 0; i < g.points(); ++i) {
      const double want = f.value(at(i), kf, dims, d);
      err = std::max(err, std::fabs(r[static_cast<std::size_t>(d * rs + i)] - want));
      scale = std::max(scale, std::fabs(want));
    }
  return err / scale;
}

TEST(Spectral, DerivativesOfBandLimitedFieldsAreExact) {
  if (!eddy::backend::fft_available()) GTEST_SKIP() << "no FFT library in this build";
  const double e3 = gradient_error(3, {24, 20, 16}, {2 * M_PI, 3.0, 5.5});
  const double e2 = gradient_error(2, {30, 18, 1}, {1.0, 2.5, 1.0});
  const double e2odd =
      gradient_error(2, {15, 21, 1}, {2 * M_PI, 2 * M_PI, 1.0});  // odd sizes: no Nyquist mode
  std::printf("spectral gradient, max relative error: 3D %.2e, 2D %.2e, 2D odd %.2e\n", e3, e2, e2odd);
  EXPECT_LT(e3, 1e-12);
  EXPECT_LT(e2, 1e-12);
  EXPECT_LT(e2odd, 1e-12);
}

TEST(Spectral, GridSplitsAndWaveNumbers) {
  // 3D on rank 1 of 3: kz = 0..7, -8..-1 along a; ky rows 7..12 (of 0..19, split 7, 7, 6 -> offsets 0, 7,
  // 14).
  const Grid g = Grid::make(3, {16, 20, 16}, {1, 1, 1}, 3, 1);
  EXPECT_EQ(g.nc, 9);
  EXPECT_EQ(g.b0, 7);
  EXPECT_EQ(g.nb_local, 7);
  EXPECT_EQ(g.a0, 6);  // 16 planes over 3 ranks: 6, 5, 5
  EXPECT_EQ(g.na_local, 5);
  index_t ix, iy, iz;
  g.wave((15 * g.nb_local + 6) * g.nc + 8, ix, iy, iz);  // a = 15, b = 7 + 6 = 13, c = 8
  EXPECT_EQ(ix, 8);
  EXPECT_EQ(iy, 13 - 20);
  EXPECT_EQ(iz, 15 - 16);
  EXPECT_EQ(g.weight(0), 1);
  EXPECT_EQ(g.weight(8), 1);  // Nyquist plane kx = nx/2
  EXPECT_EQ(g.weight(3), 2);
  EXPECT_EQ(g.kmax[0], 5);  // (16 - 1) / 3: 3 * 5 < 16, so products of kept modes never alias onto kept modes
  EXPECT_FALSE(g.kept(6, 0, 0));
  EXPECT_TRUE(g.kept(5, -5, 5));
  EXPECT_FALSE(g.kept(0, 10, 0));  // Nyquist along y
}

TEST(Spectral, PencilGridSplitsAndWaveNumbers) {
  // 16 x 20 x 16 on a 2 x 3 process grid, rank (i1, i2) = (1, 1): physical z-planes 6..10 (16 over 3: 6, 5,
  // 5) and y-rows 10..19 (20 over 2); spectral ky rows 7..13 (20 over 3: 7, 7, 6) and kx columns 5..8 (9
  // over 2: 5, 4).
  const Grid g = Grid::make(3, {16, 20, 16}, {1, 1, 1}, 2, 1, 3, 1);
  EXPECT_EQ(g.a0, 6);
  EXPECT_EQ(g.na_local, 5);
  EXPECT_EQ(g.y0, 10);
  EXPECT_EQ(g.ny_local, 10);
  EXPECT_EQ(g.plane, 16 * 10);
  EXPECT_EQ(g.points(), 5 * 16 * 10);
  EXPECT_EQ(g.b0, 7);
  EXPECT_EQ(g.nb_local, 7);
  EXPECT_EQ(g.c0, 5);
  EXPECT_EQ(g.nc_local, 4);
  EXPECT_EQ(g.modes(), 16 * 7 * 4);
  index_t ix, iy, iz;
  g.wave((15 * g.nb_local + 6) * g.nc_local + 3, ix, iy, iz);  // a = 15, b = 7 + 6 = 13, c = 5 + 3 = 8
  EXPECT_EQ(ix, 8);
  EXPECT_EQ(iy, 13 - 20);
  EXPECT_EQ(iz, 15 - 16);
  // P1 = 1 is the slab grid.
  const Grid slab = Grid::make(3, {16, 20, 16}, {1, 1, 1}, 1, 0, 3, 1),
             old = Grid::make(3, {16, 20, 16}, {1, 1, 1}, 3, 1);
  EXPECT_EQ(slab.modes(), old.modes());
  EXPECT_EQ(slab.points(), 5 * 16 * 20);
  EXPECT_EQ(slab.nc_local, slab.nc);
}

TEST(Spectral, SphericalTruncationAndHalfCellShift) {
  // Phase-shift dealiasing keeps sum (k_i / n_i)^2 <= 2/9: 15 of 32 along an axis (sqrt(2)/3 * 32 = 15.08),
  // 10 and 10 on a diagonal (10.67 * sqrt(2) = 15.08), no Nyquist mode.
  const Grid g = Grid::make(3, {32, 32, 32}, {1, 1, 1}, 1, 0, true);
  EXPECT_TRUE(g.kept(15, 0, 0));
  EXPECT_FALSE(g.kept(16, 0, 0));
  EXPECT_TRUE(g.kept(0, -10, 10));
  EXPECT_FALSE(g.kept(0, -11, 11));
  EXPECT_TRUE(g.kept(8, 8, -8));  // 3 * 64 / 1024 = 0.1875 <= 0.2222
  EXPECT_FALSE(g.kept(9, 9, 9));  // 3 * 81 / 1024 = 0.237
  // exp(i k.delta), delta = half a cell: k = (1, 2, -1) -> pi (1 + 2 - 1) / 32.
  const Mode<double> md = Mode<double>::at(g, ((32 - 1) * 32 + 2) * 17 + 1);
  EXPECT_EQ(md.ix, 1);
  EXPECT_EQ(md.iy, 2);
  EXPECT_EQ(md.iz, -1);
  const Complex<double> p = md.shift(g, 1), q = md.shift(g, -1);
  EXPECT_NEAR(p.re, std::cos(M_PI * 2 / 32), 1e-15);
  EXPECT_NEAR(p.im, std::sin(M_PI * 2 / 32), 1e-15);
  EXPECT_NEAR(q.im, -p.im, 1e-15);
}

eddy::spectral::Setup setup3d(int n, eddy::Precision p = eddy::Precision::fp64) {
  eddy::spectral::Setup s;
  s.dims = 3;
  s.cells = {n, n, n};
  s.length = {2 * M_PI, 2 * M_PI, 2 * M_PI};
  s.precision = p;
  s.nu = 1.0 / 1600;
  return s;
}

/// The Taylor-Green field u = sin x cos y cos z, v = -cos x sin y cos z: <|u|^2>/2 = 1/8, <|omega|^2>/2 =
/// 3/8.
std::vector<double> taylor_green_3d(int n) {
  std::vector<double> u(static_cast<std::size_t>(3 * n * n * n));
  const double h = 2 * M_PI / n;
  std::size_t k = 0;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const double a = (x + 0.5) * h, b = (y + 0.5) * h, c = (z + 0.5) * h;
        u[k++] = std::sin(a) * std::cos(b) * std::cos(c);
        u[k++] = -std::cos(a) * std::sin(b) * std::cos(c);
        u[k++] = 0.0;
      }
  return u;
}

// Step graphs (backend/graph.hpp) replay exactly what the step launches: bitwise the same state as
// kernel-by-kernel steps, through the cases that make the step record again: RK3 with phase shifts (a
// recording per parity), a diagnostic in between (the next step forms its stage-1 inputs first), another
// dt (recorded anew). On a GPU the graphs must have been recorded; the CPU backend runs every step.
TEST(Spectral, StepGraphsReplayTheSameSteps) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  for (const std::string stepper : {"rk4", "rk3"}) {
    eddy::spectral::Setup s = setup3d(16);
    s.stepper = eddy::spectral::stepper_names.parse(stepper, "stepper");
    s.dealiasing =
        stepper == "rk3" ? eddy::spectral::Dealiasing::phase_shift : eddy::spectral::Dealiasing::two_thirds;
    auto a = eddy::spectral::make_solver(s, ex), b = eddy::spectral::make_solver(s, ex);
    a->set_velocity(taylor_green_3d(16)), b->set_velocity(taylor_green_3d(16));
    b->set_graphs(false);
    for (int k = 0; k < 5; ++k) a->step(0.01), b->step(0.01);
    EXPECT_EQ(a->save_state(), b->save_state()) << stepper;
    std::vector<double> w;
    a->vorticity(w), b->vorticity(w);  // leaves w_ without the next stage-1 inputs
    for (int k = 0; k < 3; ++k) a->step(0.01), b->step(0.01);
    a->step(0.005), b->step(0.005);
    a->step(0.01), b->step(0.01);
    EXPECT_EQ(a->save_state(), b->save_state()) << stepper;
    EXPECT_EQ(b->graph_recordings(), 0);
    // RK4 (steps 0-9): the first step (stage-1 inputs formed), the following ones (inputs ready), after
    // the diagnostic the first kind again (replayed), dt 0.005 and then 0.01 again (its slot was recorded
    // anew for 0.005): 4. RK3 with phase shifts, slots (parity, inputs ready): step 0 (0, no), 1 (1, yes),
    // 2 (0, yes), 5 (1, no), 8 (0, yes) for dt 0.005; step 9 replays (1, yes): 5.
    if (eddy::backend::is_gpu())
      EXPECT_EQ(a->graph_recordings(), stepper == "rk4" ? 4 : 5) << stepper;
    else
      EXPECT_EQ(a->graph_recordings(), 0);
  }
}

TEST(Spectral, ParsevalDiagnosticsOfTaylorGreen) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  for (eddy::Precision p : {eddy::Precision::fp64, eddy::Precision::fp32}) {
    const double tol = p == eddy::Precision::fp64 ? 1e-14 : 1e-6;
    auto solver = eddy::spectral::make_solver(setup3d(16, p), ex);
    solver->set_velocity(taylor_green_3d(16));
    const eddy::spectral::Stats s = solver->stats();
    EXPECT_NEAR(s.kinetic_energy, 0.125, tol);
    EXPECT_NEAR(s.enstrophy, 0.375, tol);
    EXPECT_NEAR(s.dissipation, 2.0 / 1600 * 0.375, tol);
    EXPECT_NEAR(s.max_component[2], 0.0, tol);
    EXPECT_EQ(s.nonfinite, 0.0);
    std::vector<double> u;
    solver->velocity(u);
    const std::vector<double> want = taylor_green_3d(16);
    double err = 0, umax = 0, uxmax = 0;
    for (std::size_t k = 0; k < u.size(); k += 3) {
      for (std::size_t d = 0; d < 3; ++d) err = std::max(err, std::fabs(u[k + d] - want[k + d]));
      umax = std::max(umax, std::hypot(want[k], want[k + 1]));
      uxmax = std::max(uxmax, std::fabs(want[k]));
    }
    EXPECT_LT(err, tol * 10);
    EXPECT_NEAR(s.max_velocity, umax, tol * 10);  // over the grid points, not the continuum maximum 1
    EXPECT_NEAR(s.max_component[0], uxmax, tol * 10);
  }
}

/// set_taylor_green (the field sampled on the device, in the solver's precision) gives the state that
/// set_velocity gives with the host-built array, 2D and 3D, FP64 and FP32, on a grid with a different
/// point count per direction (so a swapped or misplaced coordinate shows) and U, L != 1. Tolerance: both
/// paths evaluate the same double expressions per point ((i + 1/2) dx, field::TaylorGreen::velocity), round
/// them to T the same way, then run the same transform and the same state kernel, so on the CPU backend
/// the states are bitwise equal. A device's sin/cos may differ from the host's by up to 2 ulp (CUDA's
/// double sin/cos bound) and FMA contraction may round the coordinates differently: a sample of three
/// factors then differs by at most ~8 eps_T U, and the normalised forward transform (|s_k| <= max|u|)
/// carries that into every mode, against modes of size U/8 (3D: sin cos cos = sum of 8 exponentials;
/// 2D: the vorticity 2 k U sin sin is 4 exponentials of k U/2): |difference| <= 64 eps_T max|state|.
TEST(Spectral, TaylorGreenOnTheDeviceEqualsTheHostArray) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  for (int dims : {2, 3})
    for (eddy::Precision p : {eddy::Precision::fp64, eddy::Precision::fp32}) {
      eddy::spectral::Setup s = setup3d(16, p);
      s.dims = dims;
      s.cells = dims == 3 ? Int3{16, 12, 10} : Int3{20, 14, 1};
      const double L = 1.7;
      s.length = {L, L, L};
      eddy::field::TaylorGreen tg;
      tg.dims = dims, tg.U = 1.3, tg.L = L;
      Real3 dx{0, 0, 0};
      for (std::size_t d = 0; d < static_cast<std::size_t>(dims); ++d) dx[d] = L / double(s.cells[d]);
      auto host = eddy::spectral::make_solver(s, ex), device = eddy::spectral::make_solver(s, ex);
      host->set_velocity(eddy::test::taylor_green_whole(tg, s.cells, dx));
      device->set_taylor_green(tg);
      const std::vector<double> a = eddy::test::state_numbers(*host), b = eddy::test::state_numbers(*device);
      ASSERT_EQ(a.size(), b.size());
      double diff = 0, size = 0;
      for (std::size_t i = 0; i < a.size(); i += 2) {  // (re, im) pairs
        diff = std::max(diff, std::max(std::fabs(a[i] - b[i]), std::fabs(a[i + 1] - b[i + 1])));
        size = std::max(size, std::hypot(a[i], a[i + 1]));
      }
      const double eps = p == eddy::Precision::fp64 ? 2.220446049250313e-16 : 1.1920929e-7;
      std::printf("Taylor-Green %dD %s: device vs host state %.3g (max |state| %.4g)\n", dims,
                  p == eddy::Precision::fp64 ? "fp64" : "fp32", diff, size);
      // The state holds the field: |modes| (+-1, +-1, +-1) of U/8 (3D), (+-1, +-1) of k U / 2 (2D vorticity).
      EXPECT_NEAR(size, dims == 3 ? tg.U / 8 : tg.k() * tg.U / 2, 1e-5 * size);
      EXPECT_LE(diff, 64 * eps * size) << dims << "D";
      EXPECT_EQ(device->steps(), 0);
    }
  eddy::field::TaylorGreen wrong;
  wrong.dims = 2;
  auto solver = eddy::spectral::make_solver(setup3d(8), ex);
  EXPECT_THROW(solver->set_taylor_green(wrong), eddy::Error);
}

/// The Q-criterion of the Taylor-Green field u = sin x cos y cos z, v = -cos x sin y cos z, w = 0. Its
/// gradient A_ij = du_i/dx_j has A11 = -A22 = cx cy cz, A12 = -sx sy cz, A21 = sx sy cz, A13 = -sx cy sz,
/// A23 = cx sy sz, A3j = 0 (cx = cos x, sx = sin x, ...), so Q = -A_ij A_ji / 2 = -(A11^2 + A22^2) / 2 -
/// A12 A21 = cz^2 (sx^2 sy^2 - cx^2 cy^2) = -cos^2 z cos(x + y) cos(x - y), at most 1 in magnitude.
double taylor_green_q(double x, double y, double z) {
  return -std::cos(z) * std::cos(z) * std::cos(x + y) * std::cos(x - y);
}

/// The solver's Q-criterion (9 spectral derivatives, backward transforms, pointwise sums) of the sampled
/// Taylor-Green field equals the closed form at every cell centre. The state is exact to a few eps (its
/// modes are the field's 8 of magnitude 1/8), each derivative entry a transform of modes |k| = 1 with an
/// error of order eps log2(n) (16^3: 4 levels), and Q sums 5 products of entries <= 1: |error| <= 10 x 4 x
/// a few eps ~ 1e-14, so FP64 is asserted to 1e-13 of max|Q| (0.889 at the centres; measured 9e-16); FP32
/// (eps 6e-8; measured 3.6e-7) to 1e-5 likewise. The
/// points-only variant (probes, slices) gives the same numbers bitwise.
TEST(Spectral, QCriterionOfTaylorGreenIsTheClosedForm) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  const int n = 16;
  for (eddy::Precision p : {eddy::Precision::fp64, eddy::Precision::fp32}) {
    const double tol = p == eddy::Precision::fp64 ? 1e-13 : 1e-5;
    auto solver = eddy::spectral::make_solver(setup3d(n, p), ex);
    solver->set_velocity(taylor_green_3d(n));
    std::vector<double> q;
    solver->q_criterion(q);
    ASSERT_EQ(q.size(), static_cast<std::size_t>(n * n * n));
    const double h = 2 * M_PI / n;
    double err = 0, qmax = 0;
    std::size_t k = 0;
    for (int z = 0; z < n; ++z)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x, ++k) {
          const double want = taylor_green_q((x + 0.5) * h, (y + 0.5) * h, (z + 0.5) * h);
          err = std::max(err, std::fabs(q[k] - want));
          qmax = std::max(qmax, std::fabs(want));
        }
    std::printf("Taylor-Green Q %s: max error %.3g (max |Q| %.4g)\n",
                p == eddy::Precision::fp64 ? "fp64" : "fp32", err, qmax);
    EXPECT_GT(qmax, 0.88);  // cos^2(h/2) cos(h) = 0.8887 at the centres next to the origin (h = 2 pi / 16)
    EXPECT_LT(err, tol * qmax);
    const std::vector<eddy::index_t> points{0, 17, 1234, n * n * n - 1};
    std::vector<double> at;
    solver->q_criterion_at(points, at);
    ASSERT_EQ(at.size(), points.size());
    for (std::size_t t = 0; t < points.size(); ++t) EXPECT_EQ(at[t], q[static_cast<std::size_t>(points[t])]);
    // The velocity is untouched: the state is what it was (the transforms work in buffers of their own).
    std::vector<double> u;
    solver->velocity(u);
    const std::vector<double> want = taylor_green_3d(n);
    for (std::size_t i = 0; i < u.size(); ++i) ASSERT_NEAR(u[i], want[i], 10 * tol);
  }
  // 2D has no Q-criterion here.
  eddy::spectral::Setup s2;
  s2.cells = {16, 16, 1};
  s2.length = {2 * M_PI, 2 * M_PI, 2 * M_PI};
  auto solver2 = eddy::spectral::make_solver(s2, ex);
  std::vector<double> q;
  EXPECT_THROW(solver2->q_criterion(q), eddy::Error);
}

TEST(Spectral, SetVelocityProjectsOntoDivergenceFreeFields) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  // u = grad(phi) + Taylor-Green: the gradient part is removed, the solenoidal part kept.
  const int n = 16;
  std::vector<double> u = taylor_green_3d(n);
  const double h = 2 * M_PI / n;
  std::size_t k = 0;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x, k += 3) {  // phi = sin(x + 2y) cos(3z)
        const double a = (x + 0.5) * h + 2 * (y + 0.5) * h, c = 3 * (z + 0.5) * h;
        u[k] += std::cos(a) * std::cos(c);
        u[k + 1] += 2 * std::cos(a) * std::cos(c);
        u[k + 2] += -3 * std::sin(a) * std::sin(c);
      }
  eddy::field::LocalTransposeExchange ex;
  auto solver = eddy::spectral::make_solver(setup3d(n), ex);
  solver->set_velocity(u);
  std::vector<double> v;
  solver->velocity(v);
  const std::vector<double> want = taylor_green_3d(n);
  double err = 0;
  for (std::size_t j = 0; j < v.size(); ++j) err = std::max(err, std::fabs(v[j] - want[j]));
  EXPECT_LT(err, 1e-13);
}

TEST(Spectral, RandomSpectrumIsRealSolenoidalWithItsEnergy) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  for (int dims : {2, 3}) {
    eddy::spectral::Setup s = setup3d(dims == 3 ? 48 : 128);
    s.dims = dims;
    if (dims == 2) s.cells[2] = 1;
    auto solver = eddy::spectral::make_solver(s, ex);
    // U = 2: energy U^2 / 2 = 2 in the continuum limit; the discrete shells hold it to a few percent.
    solver->set_random_spectrum(eddy::spectral::RandomSpectrum::make(4.0, dims == 3 ? 4.0 : 8.0, 3.0, 7));
    const eddy::spectral::Stats st = solver->stats();
    std::printf("random spectrum %dD: kinetic energy %.8f (continuum 2)\n", dims, st.kinetic_energy);
    EXPECT_NEAR(st.kinetic_energy, 2.0, 0.01);
    // Real: the physical field transformed back gives the same state (a non-Hermitian state would not
    // survive the round trip), so the energy is unchanged.
    std::vector<double> u;
    solver->velocity(u);
    solver->set_velocity(u);
    EXPECT_NEAR(solver->stats().kinetic_energy, st.kinetic_energy, 1e-12);
    // Same seed, same field; another seed, another field.
    std::vector<double> u2;
    solver->set_random_spectrum(eddy::spectral::RandomSpectrum::make(4.0, dims == 3 ? 4.0 : 8.0, 3.0, 7));
    solver->velocity(u2);
    EXPECT_EQ(u, u2);
    solver->set_random_spectrum(eddy::spectral::RandomSpectrum::make(4.0, dims == 3 ? 4.0 : 8.0, 3.0, 8));
    solver->velocity(u2);
    EXPECT_NE(u, u2);
  }
}

TEST(Spectral, SetupErrorsAreInputErrors) {
  eddy::field::LocalTransposeExchange ex;
  eddy::spectral::Setup s = setup3d(8);
  EXPECT_THROW(eddy::spectral::stepper_names.parse("euler", "numerics.time_stepper"), eddy::InputError);
  s = setup3d(8, eddy::Precision::fp16);
  EXPECT_THROW(eddy::spectral::make_solver(s, ex), eddy::InputError);
  EXPECT_NEAR(eddy::spectral::cfl_limit(eddy::spectral::Stepper::rk4, eddy::spectral::Dealiasing::two_thirds),
              1.3505, 1e-4);
  EXPECT_NEAR(
      eddy::spectral::cfl_limit(eddy::spectral::Stepper::rk4, eddy::spectral::Dealiasing::phase_shift),
      0.9549, 1e-4);
  EXPECT_NEAR(eddy::spectral::cfl_limit(eddy::spectral::Stepper::rk3, eddy::spectral::Dealiasing::two_thirds),
              0.8270, 1e-4);
}

}  // namespace

namespace {

/// A field of a few Fourier modes, given as u(x, y, z) at the cell centres of an n^d grid on [0, 2 pi]^d.
template <class F>
std::vector<double> sample(int dims, int n, F f) {
  std::vector<double> u;
  const double h = 2 * M_PI / n;
  for (int z = 0; z < (dims == 3 ? n : 1); ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const Real3 v = f((x + 0.5) * h, (y + 0.5) * h, (z + 0.5) * h);
        for (int d = 0; d < dims; ++d) u.push_back(v[static_cast<std::size_t>(d)]);
      }
  return u;
}

/// The shell spectrum of a divergence-free sum of modes is exact: a sin(k.x) puts a^2 / 4 into the shell
/// round(|k|) (E(k) = that / dk, dk = 1 on [0, 2 pi]), and sum E dk is the kinetic energy to round-off
/// (FP64 1e-14, FP32 1e-6 relative: the state's precision).
TEST(Spectral, ShellSpectrumOfKnownModesIsExact) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  for (eddy::Precision p : {eddy::Precision::fp64, eddy::Precision::fp32}) {
    const double tol = p == eddy::Precision::fp64 ? 1e-14 : 1e-6;
    // 3D: |k| = 2, 3, sqrt(2) (shell 1), 5; each term divergence-free on its own.
    auto solver = eddy::spectral::make_solver(setup3d(16, p), ex);
    solver->set_velocity(sample(3, 16, [](double x, double y, double z) {
      return Real3{0.8 * std::sin(2 * y) + 0.6 * std::cos(3 * z), 0.4 * std::sin(x + z),
                   1.2 * std::cos(3 * x + 4 * y)};
    }));
    const eddy::spectral::Spectrum sp = solver->spectrum();
    ASSERT_EQ(sp.k.size(), sp.energy.size());
    EXPECT_EQ(sp.dk, 1.0);
    EXPECT_EQ(sp.k.size(), 15u);  // |k| up to sqrt(3) 8 = 13.9: shells 0 .. 14
    std::vector<double> want(sp.k.size(), 0.0);
    want[2] = 0.64 / 4, want[3] = 0.36 / 4, want[1] = 0.16 / 4, want[5] = 1.44 / 4;
    double sum = 0;
    for (std::size_t j = 0; j < want.size(); ++j) {
      EXPECT_NEAR(sp.energy[j], want[j], tol) << "shell " << j;
      EXPECT_EQ(sp.k[j], double(j));
      sum += sp.energy[j] * sp.dk;
    }
    EXPECT_NEAR(sum, solver->stats().kinetic_energy, tol * sum);
    // 2D (vorticity state): |k| = 2 and 3.
    eddy::spectral::Setup s2 = setup3d(16, p);
    s2.dims = 2, s2.cells = {16, 16, 1};
    auto solver2 = eddy::spectral::make_solver(s2, ex);
    solver2->set_velocity(sample(2, 16, [](double x, double y, double) {
      return Real3{0.8 * std::sin(2 * y), 0.5 * std::cos(3 * x), 0.0};
    }));
    const eddy::spectral::Spectrum sp2 = solver2->spectrum();
    EXPECT_EQ(sp2.k.size(), 12u);  // |k| up to sqrt(2) 8 = 11.3
    for (std::size_t j = 0; j < sp2.energy.size(); ++j)
      EXPECT_NEAR(sp2.energy[j], j == 2 ? 0.16 : j == 3 ? 0.0625 : 0.0, tol) << "2D shell " << j;
    // A random field: sum E dk = E to round-off.
    solver->set_random_spectrum(eddy::spectral::RandomSpectrum::make(2.0, 3.0, 3.0, 3));
    const eddy::spectral::Spectrum sr = solver->spectrum();
    sum = 0;
    for (double e : sr.energy) sum += e * sr.dk;
    EXPECT_NEAR(sum, solver->stats().kinetic_energy, tol * sum);
  }
}

/// The spectrum of a velocity given on the device (VelocitySpectrum: the LBM's spectra) takes every mode as
/// it is (no projection, no truncation): a sin(k.x) puts a^2 / 4 into shell round(|k|), a Nyquist mode
/// a sin(8x) at the cell centres of 16 points (+-a there) puts a^2 / 2 into shell 8 (its Hermitian weight
/// 1), to 1e-14 (the values are O(1), the transforms' error a few ulp per mode); sum E dk equals
/// <|s u|^2> / 2 summed on the host for the scale s. The components sit `stride` apart.
TEST(Spectral, VelocitySpectrumOfKnownModesIsExact) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  for (int dims : {3, 2}) {
    const int n = 16;
    const std::vector<double> u = sample(dims, n, [](double x, double y, double z) {
      return Real3{0.8 * std::sin(2 * y) + 0.6 * std::cos(3 * z) + 0.3 * std::sin(8 * x),
                   0.4 * std::sin(x + z) + 0.2 * std::sin(8 * y), 1.2 * std::cos(3 * x + 4 * y)};
    });
    const auto points = static_cast<eddy::index_t>(u.size()) / dims, stride = points + 5;
    std::vector<double> planar(static_cast<std::size_t>(stride * dims), 0.0);
    double e = 0;
    for (eddy::index_t i = 0; i < points; ++i)
      for (int c = 0; c < dims; ++c) {
        const double v = u[static_cast<std::size_t>(i * dims + c)];
        planar[static_cast<std::size_t>(c * stride + i)] = v;
        e += 0.5 * 4.0 * v * v / double(points);
      }
    eddy::backend::DeviceArray<double> dev;
    dev.from_host(planar);
    const eddy::Int3 cells = dims == 3 ? eddy::Int3{n, n, n} : eddy::Int3{n, n, 1};
    eddy::spectral::VelocitySpectrum vs(dims, cells, {2 * M_PI, 2 * M_PI, 2 * M_PI}, ex);
    const eddy::spectral::Spectrum sp = vs.compute(dev.data(), stride, 2.0);
    EXPECT_EQ(sp.dk, 1.0);
    ASSERT_EQ(sp.energy.size(), dims == 3 ? 15u : 12u);  // |k| up to sqrt(dims) 8
    std::vector<double> want(sp.k.size(), 0.0);
    if (dims == 3) {  // 4 x (0.64 sin 2y, 0.36 cos 3z, 0.16 sin(x + z), 1.44 cos(3x + 4y)) / 4
      want[2] = 0.64, want[3] = 0.36, want[1] = 0.16, want[5] = 1.44;
      want[8] = 4 * (0.09 + 0.04) / 2;  // the Nyquist modes sin 8x and sin 8y
    } else {  // the one z centre pi / 16: 0.6 cos 3z is a constant, 0.4 sin(x + z) a mode of |k| = 1
      want[0] = 4 * std::pow(0.6 * std::cos(3 * M_PI / 16), 2) / 2, want[1] = 0.16, want[2] = 0.64;
      want[8] = 4 * (0.09 + 0.04) / 2;
    }
    double sum = 0;
    for (std::size_t j = 0; j < want.size(); ++j) {
      EXPECT_NEAR(sp.energy[j], want[j], 1e-14) << dims << "D shell " << j;
      EXPECT_EQ(sp.k[j], double(j));
      sum += sp.energy[j] * sp.dk;
    }
    // The host's sum adds points (4096) products in order: within points x 2^-53 = 4.5e-13 relative.
    EXPECT_NEAR(sum, e, 1e-12 * e) << dims << "D";
  }
}

/// The longitudinal derivative moments of u = curl(psi z), psi = sin x sin y + a sin 2x sin 2y, against their
/// values at the grid points computed here from the analytic derivatives (exact for a band-limited field):
/// du/dx = cos x cos y + 4a cos 2x cos 2y = -dv/dy; dw/dz = 0. The triad (1, 1, 2) gives <(du/dx)^3> != 0.
TEST(Spectral, LongitudinalDerivativeMomentsAreExact) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  const int n = 16;
  const double a = 0.3;
  eddy::field::LocalTransposeExchange ex;
  auto solver = eddy::spectral::make_solver(setup3d(n), ex);
  solver->set_velocity(sample(3, n, [&](double x, double y, double z) {
    return Real3{std::sin(x) * std::cos(y) + 2 * a * std::sin(2 * x) * std::cos(2 * y),
                 -std::cos(x) * std::sin(y) - 2 * a * std::cos(2 * x) * std::sin(2 * y),
                 std::sin(x + 2 * y) + 0 * z};
  }));
  double m2 = 0, m3 = 0;
  const std::vector<double> du = sample(3, n, [&](double x, double y, double) {
    return Real3{std::cos(x) * std::cos(y) + 4 * a * std::cos(2 * x) * std::cos(2 * y), 0, 0};
  });
  for (std::size_t i = 0; i < du.size(); i += 3) m2 += du[i] * du[i], m3 += du[i] * du[i] * du[i];
  m2 /= double(n * n * n), m3 /= double(n * n * n);
  const eddy::spectral::GradientMoments gm = solver->gradient_moments();
  EXPECT_GT(std::fabs(m3), 0.1);
  EXPECT_NEAR(gm.m2[0], m2, 1e-13);
  EXPECT_NEAR(gm.m3[0], m3, 1e-13);
  EXPECT_NEAR(gm.m2[1], m2, 1e-13);
  EXPECT_NEAR(gm.m3[1], -m3, 1e-13);
  EXPECT_NEAR(gm.m2[2], 0.0, 1e-13);
  EXPECT_NEAR(gm.m3[2], 0.0, 1e-13);
  EXPECT_NEAR(gm.skewness(), 0.0, 1e-13);  // x and y cancel; z has no gradient and counts 0
  eddy::spectral::GradientMoments g;       // the average of m3 / m2^(3/2) over the directions
  g.m2[0] = 1, g.m2[1] = 4, g.m2[2] = 1, g.m3[0] = -0.5, g.m3[1] = -4, g.m3[2] = 0;
  EXPECT_NEAR(g.skewness(), -1.0 / 3, 1e-15);
}

/// The box bounding the mask (Grid::kept_extent, the pruned transforms' box): every kept mode lies in it,
/// and its extent is kept on each axis; the 2/3 rule's is kmax, the sphere's the largest k with
/// 9 k^2 <= 2 n^2 (floor(n sqrt(2) / 3), in integers).
TEST(Spectral, KeptExtentBoundsTheMask) {
  for (bool spherical : {false, true})
    for (const Int3& n : {Int3{12, 10, 9}, Int3{9, 11, 7}, Int3{64, 48, 33}}) {
      const Grid g = Grid::make(3, n, {1, 1, 1}, 1, 0, spherical);
      index_t e[3];
      for (int d = 0; d < 3; ++d) {
        e[d] = g.kept_extent(d);
        index_t want = g.kmax[d];
        if (spherical)
          for (want = 0; 9 * (want + 1) * (want + 1) <= 2 * g.n[d] * g.n[d];) ++want;
        EXPECT_EQ(e[d], want) << d << " " << spherical;
      }
      long outside = 0, on_edge = 0;
      for (index_t m = 0; m < g.modes(); ++m) {
        index_t ix, iy, iz;
        g.wave(m, ix, iy, iz);
        if (!g.kept(ix, iy, iz)) continue;
        outside += ix > e[0] || std::abs(iy) > e[1] || std::abs(iz) > e[2];
        on_edge += ix == e[0] || std::abs(iy) == e[1] || std::abs(iz) == e[2];
      }
      EXPECT_EQ(outside, 0);
      EXPECT_GT(on_edge, 0);
    }
}

/// For every local mode, what the run of parallel_for_row_chunks over the mode box that holds it says of
/// it: its integer wave numbers and wave vector (ModeRun: the row's, the mode's ix), whether the run counts
/// it among its kept modes, and how often a run held it.
struct RunRecord {
  std::vector<index_t> wave;
  std::vector<double> k;
  std::vector<int> kept, visits;
};

RunRecord record_runs(const Grid& g) {
  const index_t n = g.modes();
  DeviceArray<index_t> wave(static_cast<std::size_t>(3 * n));
  DeviceArray<double> k(static_cast<std::size_t>(3 * n));
  DeviceArray<int> kept(static_cast<std::size_t>(n)), visits(static_cast<std::size_t>(n));
  index_t* w = wave.data();
  double* kv = k.data();
  int *kp = kept.data(), *v = visits.data();
  const Grid::ModeBox b = g.mode_box();
  eddy::backend::parallel_for_row_chunks<eddy::backend::BoxLaunch::grid_stride>(
      "test::mode_runs", b.nx, b.ny, b.nz, [=] EDDY_DEVICE(index_t x0, index_t count, index_t y, index_t z) {
        const eddy::spectral::ModeRun run = eddy::spectral::ModeRun::at(g, x0, count, y, z);
        for (index_t j = 0; j < count; ++j) {
          const index_t m = run.m0 + j;
          const Mode<double> md = Mode<double>::at(g, run.ix0 + j, run.iy, run.iz);
          w[3 * m] = run.ix0 + j, w[3 * m + 1] = run.iy, w[3 * m + 2] = run.iz;
          for (int d = 0; d < 3; ++d) kv[3 * m + d] = md.k[d];
          kp[m] = j < run.kept ? 1 : 0;
          v[m] += count <= eddy::backend::row_chunk ? 1 : 100;
        }
      });
  return {wave.to_host(), k.to_host(), kept.to_host(), visits.to_host()};
}

// The stage kernels take the modes in runs along the rows of the mode box (grid.hpp: ModeRun): every mode
// once, with the wave numbers and wave vector Mode::at gives it from its flat index (bit for bit), and the
// kept modes of a run first, as many as the run says. On slabs and pencils, with both truncations.
TEST(Spectral, ModeRunsAreTheModesInOrder) {
  struct Case {
    int dims;
    Int3 n;
    int p1, i1, p2, i2;
  };
  const Case cases[] = {{2, {96, 80, 1}, 1, 0, 1, 0},  {2, {130, 64, 1}, 1, 0, 3, 2},
                        {3, {40, 36, 30}, 1, 0, 1, 0}, {3, {96, 32, 24}, 1, 0, 3, 1},
                        {3, {16, 20, 16}, 2, 1, 3, 1}, {3, {70, 12, 10}, 2, 0, 2, 1}};
  for (const Case& c : cases)
    for (bool spherical : {false, true}) {
      const Grid g = Grid::make(c.dims, c.n, {1.0, 2.0, 3.0}, c.p1, c.i1, c.p2, c.i2, spherical);
      const RunRecord r = record_runs(g);
      long wrong = 0;
      for (index_t m = 0; m < g.modes(); ++m) {
        const auto u = static_cast<std::size_t>(m);
        const Mode<double> md = Mode<double>::at(g, m);
        wrong += r.visits[u] != 1;
        wrong += r.wave[3 * u] != md.ix || r.wave[3 * u + 1] != md.iy || r.wave[3 * u + 2] != md.iz;
        for (int d = 0; d < 3; ++d) wrong += std::memcmp(&r.k[3 * u + d], &md.k[d], sizeof(double)) != 0;
        wrong += r.kept[u] != (md.kept ? 1 : 0);
      }
      EXPECT_EQ(wrong, 0) << c.dims << "D " << c.n[0] << "x" << c.n[1] << "x" << c.n[2] << " grid (" << c.p1
                          << ", " << c.p2 << ") rank (" << c.i1 << ", " << c.i2 << ")"
                          << (spherical ? " sphere" : "");
    }
}

/// Relative l2 difference of a and b over the entries `use` selects (all when empty).
double l2_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
  return std::sqrt(d / s);
}

/// Pruned (Modes::kept) against full transforms on one rank, `fields` fields at once: the forward
/// transform of random points at every mode of the box, and the backward transform of a spectrum that is
/// zero outside the mask (the masked forward transform of the points: Hermitian, as the solver's are).
/// Returns the larger relative l2 difference.
template <class T>
double pruned_difference(int dims, const Int3& n, bool spherical) {
  using C = Complex<T>;
  const Grid g = Grid::make(dims, n, {1.0, 2.0, 3.0}, 1, 0, spherical);
  eddy::field::LocalTransposeExchange ex;
  SlabFft<T> fft(g, ex);
  // Pruned along ky (3D: 2 K_y + 1 of ny rows kept) or kx (2D: K_x + 1 of nx/2 + 1 columns) where at
  // most 80 % of them are kept (slab_fft.cpp: kept_columns): the 2/3 rule's boxes here keep 62-70 %, the
  // sphere's 88-100 % (K = floor(0.471 n)), which run whole.
  const index_t kept = dims == 3 ? 2 * g.kept_extent(1) + 1 : g.kept_extent(0) + 1,
                rows = dims == 3 ? g.n[1] : g.n[0] / 2 + 1;
  EXPECT_EQ(fft.prunes(), std::min(kept, rows) * 5 <= rows * 4);
  EXPECT_EQ(fft.prunes(), !spherical);
  const int fields = 2;
  const index_t cs = fft.complex_stride(), rs = fft.real_stride();
  std::vector<T> h(static_cast<std::size_t>(rs * fields), T(0));
  std::uint64_t seed = 12345;
  for (int f = 0; f < fields; ++f)
    for (index_t i = 0; i < g.points(); ++i)
      h[static_cast<std::size_t>(f * rs + i)] = T(eddy::spectral::uniform(seed) - 0.5);
  DeviceArray<T> phys;
  phys.from_host(h);
  DeviceArray<C> full(static_cast<std::size_t>(cs * fields)), pruned(full.size());
  fft.forward(phys.data(), full.data(), fields);
  fft.forward(phys.data(), pruned.data(), fields, eddy::spectral::Modes::kept);
  index_t e[3] = {g.kept_extent(0), g.kept_extent(1), dims == 3 ? g.kept_extent(2) : 0};
  std::vector<C> hf = full.to_host();
  const std::vector<C> hp = pruned.to_host();
  std::vector<double> a, b;
  for (int f = 0; f < fields; ++f)
    for (index_t m = 0; m < g.modes(); ++m) {
      index_t ix, iy, iz;
      g.wave(m, ix, iy, iz);
      C& x = hf[static_cast<std::size_t>(f * cs + m)];
      if (ix <= e[0] && std::abs(iy) <= e[1] && std::abs(iz) <= e[2]) {
        const C y = hp[static_cast<std::size_t>(f * cs + m)];
        a.push_back(double(y.re)), a.push_back(double(y.im)), b.push_back(double(x.re)),
            b.push_back(double(x.im));
      }
      if (!g.kept(ix, iy, iz)) x = {T(0), T(0)};
    }
  const double forward = l2_difference(a, b);
  DeviceArray<C> s1, s2;
  s1.from_host(hf);
  s2.from_host(hf);
  DeviceArray<T> p1(h.size()), p2(h.size());
  fft.backward(s1.data(), p1.data(), fields);
  fft.backward(s2.data(), p2.data(), fields, eddy::spectral::Modes::kept);
  std::vector<double> u, v;
  const std::vector<T> h1 = p1.to_host(), h2 = p2.to_host();
  for (int f = 0; f < fields; ++f)
    for (index_t i = 0; i < g.points(); ++i)
      u.push_back(double(h2[static_cast<std::size_t>(f * rs + i)])),
          v.push_back(double(h1[static_cast<std::size_t>(f * rs + i)]));
  return std::max(forward, l2_difference(u, v));
}

/// Pruned transforms equal the full ones: 3D and 2D, even and odd sizes (nx = 12: an odd number of kx
/// columns, so FP32's second range of ky rows starts at an odd column and is rounded down to 16 bytes),
/// the 2/3 rule and the sphere (which keeps too many rows to prune: the full transforms run). FFT
/// round-off is O(eps log2 N) in the l2 norm (Gentleman & Sande 1966), for these N (<= 1080 points) 10 eps;
/// the two algorithms differ by at most twice that, so the bound is 100 eps: 2.2e-14 in FP64, 1.2e-5 in FP32.
TEST(Spectral, PrunedTransformsEqualTheFullOnes) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  double worst64 = 0, worst32 = 0;
  for (bool spherical : {false, true}) {
    for (const Int3& n : {Int3{12, 10, 9}, Int3{9, 19, 8}, Int3{7, 11, 11}}) {
      const double e64 = pruned_difference<double>(3, n, spherical),
                   e32 = pruned_difference<float>(3, n, spherical);
      EXPECT_LT(e64, 100 * 2.2e-16) << "3D " << n[0] << "x" << n[1] << "x" << n[2] << " " << spherical;
      EXPECT_LT(e32, 100 * 1.2e-7) << "3D FP32 " << n[0] << "x" << n[1] << "x" << n[2] << " " << spherical;
      worst64 = std::max(worst64, e64), worst32 = std::max(worst32, e32);
    }
    for (const Int3& n : {Int3{20, 14, 1}, Int3{15, 21, 1}}) {
      const double e64 = pruned_difference<double>(2, n, spherical),
                   e32 = pruned_difference<float>(2, n, spherical);
      EXPECT_LT(e64, 100 * 2.2e-16) << "2D " << n[0] << "x" << n[1] << " " << spherical;
      EXPECT_LT(e32, 100 * 1.2e-7) << "2D FP32 " << n[0] << "x" << n[1] << " " << spherical;
      worst64 = std::max(worst64, e64), worst32 = std::max(worst32, e32);
    }
  }
  std::printf("pruned vs full transforms, largest relative l2 difference: FP64 %.2e, FP32 %.2e\n", worst64,
              worst32);
}

}  // namespace

/// The step leaves the next step's transform inputs in its work arrays (spectral_solver.cpp): whatever
/// else uses them in between (diagnostics, fields, the floor's transforms, a restart) must not change the
/// steps, bit for bit, for every stepper, dealiasing, force and dimension.
TEST(Spectral, StepsDoNotDependOnWhatRunsBetweenThem) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  eddy::field::LocalTransposeExchange ex;
  for (int dims : {2, 3})
    for (const char* stepper : {"rk3", "rk4"})
      for (const char* dealiasing : {"two_thirds", "phase_shift"})
        for (bool band : {false, true}) {
          eddy::spectral::Setup s = setup3d(dims == 3 ? 12 : 24, eddy::Precision::fp32);
          s.dims = dims;
          if (dims == 2) s.cells[2] = 1;
          s.stepper = eddy::spectral::stepper_names.parse(stepper, "stepper");
          s.dealiasing = eddy::spectral::dealiasing_names.parse(dealiasing, "dealiasing");
          s.nu = 0.01;
          if (band) {
            s.forcing.kind = eddy::spectral::Forcing::band_limited;
            s.forcing.rate = 0.1;
            s.forcing.band[0] = 0.5, s.forcing.band[1] = 2.5;
          }
          const auto r = eddy::spectral::RandomSpectrum::make(1.0, 2.0, 2.0, 5);
          auto plain = eddy::spectral::make_solver(s, ex), busy = eddy::spectral::make_solver(s, ex);
          plain->set_random_spectrum(r);
          busy->set_random_spectrum(r);
          std::vector<double> f;
          for (int n = 0; n < 7; ++n) {
            plain->step(0.01);
            busy->step(0.01);
            switch (n) {
              case 0:
                (void)busy->stats();
                break;
              case 1:
                busy->vorticity(f);
                break;
              case 2:
                (void)busy->gradient_moments();
                break;
              case 3:
                busy->transforms_of_step(true, false);
                break;
              case 4:
                busy->load_state(busy->save_state(), busy->steps());
                break;
              case 5:
                busy->velocity(f);
                break;
              case 6:
                busy->transforms_of_step(true, true);
                break;
              default:
                break;
            }
          }
          EXPECT_EQ(plain->save_state(), busy->save_state())
              << dims << "D " << stepper << " " << dealiasing << (band ? " band" : "");
        }
}

/// The step reads and writes the state only at the modes the truncation keeps (spectral_solver.cpp): the
/// others must be exactly zero from every way a state is set (set_velocity of a field with every mode in
/// it, set_random_spectrum, load_state of a checkpoint that has them) and stay so over the steps, for
/// every stepper, truncation, force and dimension; and what a checkpoint holds there must not reach the
/// kept modes (the step from it equals, bit for bit, the step from the same checkpoint without it).
TEST(Spectral, TruncatedModesStayExactlyZero) {
  if (!eddy::backend::fft_available()) GTEST_SKIP();
  using C = Complex<float>;
  eddy::field::LocalTransposeExchange ex;
  for (int dims : {2, 3})
    for (const char* stepper : {"rk3", "rk4"})
      for (const char* dealiasing : {"two_thirds", "phase_shift"})
        for (int force : {eddy::spectral::Forcing::none, eddy::spectral::Forcing::kolmogorov,
                          eddy::spectral::Forcing::band_limited}) {
          const int n = dims == 3 ? 12 : 24;
          eddy::spectral::Setup s = setup3d(n, eddy::Precision::fp32);
          s.dims = dims;
          if (dims == 2) s.cells[2] = 1;
          s.stepper = eddy::spectral::stepper_names.parse(stepper, "stepper");
          s.dealiasing = eddy::spectral::dealiasing_names.parse(dealiasing, "dealiasing");
          s.nu = 0.01;
          s.forcing.kind = force;
          if (force == eddy::spectral::Forcing::kolmogorov) s.forcing.amplitude = 1.0, s.forcing.mode = 1;
          if (force == eddy::spectral::Forcing::band_limited)
            s.forcing.rate = 0.1, s.forcing.band[0] = 0.5, s.forcing.band[1] = 2.5;
          const std::string what =
              std::to_string(dims) + "D " + stepper + " " + dealiasing + " force " + std::to_string(force);
          auto a = eddy::spectral::make_solver(s, ex), b = eddy::spectral::make_solver(s, ex);
          const Grid& g = a->grid();
          const int comps = dims == 2 ? 1 : 3;
          // The state as modes (checkpoint layout); counts the truncated modes' nonzero components.
          const auto modes = [&](eddy::spectral::Solver& solver) {
            const std::vector<unsigned char> bytes = solver.save_state();
            std::vector<C> h(bytes.size() / sizeof(C));
            std::memcpy(h.data(), bytes.data(), bytes.size());
            return h;
          };
          const auto nonzero_truncated = [&](const std::vector<C>& h, int& kept_nonzero) {
            int bad = 0;
            kept_nonzero = 0;
            for (index_t m = 0; m < g.modes(); ++m)
              for (int d = 0; d < comps; ++d) {
                const C c = h[static_cast<std::size_t>(m * comps + d)];
                const bool zero = c.re == 0.0f && c.im == 0.0f;
                if (!Mode<double>::at(g, m).kept)
                  bad += zero ? 0 : 1;
                else
                  kept_nonzero += zero ? 0 : 1;
              }
            return bad;
          };
          // Every mode of a physical field of point noise is nonzero; RK3 starts from it, RK4 from the
          // random spectrum.
          if (std::string(stepper) == "rk3") {
            std::vector<double> u(static_cast<std::size_t>(g.total_points() * dims));
            std::uint64_t state = 11;
            for (double& v : u) v = 0.2 * (eddy::spectral::uniform(state) - 0.5);
            a->set_velocity(u);
          } else {
            a->set_random_spectrum(eddy::spectral::RandomSpectrum::make(1.0, 2.0, 2.0, 5));
          }
          int kept = 0;
          EXPECT_EQ(nonzero_truncated(modes(*a), kept), 0) << what << ", initial";
          for (int k = 0; k < 5; ++k) a->step(0.01);
          std::vector<C> h = modes(*a);
          EXPECT_EQ(nonzero_truncated(h, kept), 0) << what << ", after 5 steps";
          EXPECT_GT(kept, g.modes() / 10) << what;  // the kept modes carry the flow
          // A checkpoint with something at the truncated modes: they are dropped on loading.
          for (index_t m = 0; m < g.modes(); ++m)
            if (!Mode<double>::at(g, m).kept)
              for (int d = 0; d < comps; ++d) h[static_cast<std::size_t>(m * comps + d)] = {0.5f, -0.25f};
          std::vector<unsigned char> dirty(h.size() * sizeof(C));
          std::memcpy(dirty.data(), h.data(), dirty.size());
          b->load_state(dirty, a->steps());
          EXPECT_EQ(nonzero_truncated(modes(*b), kept), 0) << what << ", loaded";
          for (int k = 0; k < 3; ++k) a->step(0.01), b->step(0.01);
          EXPECT_EQ(a->save_state(), b->save_state()) << what << ", steps after loading";
        }
}
