// The LBM's derived fields (lbm/derived_k.hpp: Solver::vorticity, q_criterion and their _at variants):
// second-order central differences of the velocity on periodic Taylor-Green fields, and the one-sided
// rule next to walls and bodies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "geometry/primitives.hpp"
#include "lbm/lbm_solver.hpp"

namespace eddy {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double amplitude = 0.05;  // U, lattice units (Mach 0.09)

lbm::Setup periodic_box(int dims, index_t n, const std::string& lattice) {
  lbm::Setup s;
  s.dims = dims;
  s.cells = dims == 2 ? Int3{n, n, 1} : Int3{n, n, n};
  s.lattice = lbm::lattice_names.parse(lattice, "lattice");
  s.precision = Precision::fp64;
  s.tau = 0.6;
  s.faces.fill(lbm::FaceKind::periodic);
  return s;
}

/// Max |got - want| / max |want| over every value.
double relative_error(const std::vector<double>& got, const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  double err = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i)
    err = std::max(err, std::fabs(got[i] - want[i])), scale = std::max(scale, std::fabs(want[i]));
  return err / scale;
}

struct Errors {
  double vorticity = 0.0, q = 0.0;
};

/// The Taylor-Green field u = U sin kx cos ky cos kz, v = -U cos kx sin ky cos kz, w = 0 (2D: without the
/// cos kz factors), k = 2 pi / n, at the cell centres (x + 1/2): the solver's vorticity and Q (3D) against
/// the exact ones, and the _at values bitwise the field's at a few cells.
std::unique_ptr<lbm::Solver> taylor_green_solver(int dims, index_t n, const std::string& lattice) {
  const double k = 2.0 * pi / double(n);
  auto solver = lbm::make_solver(periodic_box(dims, n, lattice));
  solver->initialize([&](index_t x, index_t y, index_t z) {
    const double a = k * (x + 0.5), b = k * (y + 0.5), c = dims == 3 ? k * (z + 0.5) : 0.0;
    lbm::CellState st;
    st.u = {amplitude * std::sin(a) * std::cos(b) * std::cos(c),
            -amplitude * std::cos(a) * std::sin(b) * std::cos(c), 0.0};
    return st;
  });
  return solver;
}

Errors taylor_green_errors(int dims, index_t n, const std::string& lattice) {
  const double k = 2.0 * pi / double(n);
  auto solver = taylor_green_solver(dims, n, lattice);
  std::vector<double> w, q;
  solver->vorticity(w);
  if (dims == 3) solver->q_criterion(q);
  const index_t nz = dims == 3 ? n : 1;
  std::vector<double> want_w, want_q;
  for (index_t z = 0; z < nz; ++z)
    for (index_t y = 0; y < n; ++y)
      for (index_t x = 0; x < n; ++x) {
        const double a = k * (x + 0.5), b = k * (y + 0.5), c = dims == 3 ? k * (z + 0.5) : 0.0;
        const double sa = std::sin(a), ca = std::cos(a), sb = std::sin(b), cb = std::cos(b), sc = std::sin(c),
                     cc = std::cos(c), uk = amplitude * k;
        // A[i][j] = du_i/dx_j of the exact field.
        const double g[3][3] = {{uk * ca * cb * cc, -uk * sa * sb * cc, -uk * sa * cb * sc},
                                {uk * sa * sb * cc, -uk * ca * cb * cc, uk * ca * sb * sc},
                                {0.0, 0.0, 0.0}};
        if (dims == 3) {
          want_w.insert(want_w.end(), {g[2][1] - g[1][2], g[0][2] - g[2][0], g[1][0] - g[0][1]});
          double sum = 0.0;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) sum += g[i][j] * g[j][i];
          want_q.push_back(-0.5 * sum);
        } else {
          want_w.push_back(g[1][0] - g[0][1]);
        }
      }
  // The probes' path: the same numbers, bit for bit, at cells of the first and the last row.
  const std::vector<index_t> cells{0, 3, n - 1, n * n * nz - 1};
  std::vector<double> w_at, q_at;
  solver->vorticity_at(cells, w_at);
  const int comps = dims == 3 ? 3 : 1;
  EXPECT_EQ(w_at.size(), cells.size() * std::size_t(comps));
  for (std::size_t c = 0; c < cells.size(); ++c)
    for (int i = 0; i < comps; ++i)
      EXPECT_EQ(w_at[c * comps + i], w[std::size_t(cells[c]) * comps + i]) << cells[c];
  if (dims == 3) {
    solver->q_criterion_at(cells, q_at);
    for (std::size_t c = 0; c < cells.size(); ++c) EXPECT_EQ(q_at[c], q[std::size_t(cells[c])]) << cells[c];
  }
  std::vector<double> none;
  solver->vorticity_at({}, none);
  EXPECT_TRUE(none.empty());
  return {relative_error(w, want_w), dims == 3 ? relative_error(q, want_q) : 0.0};
}

// Central differences of a mode: (sin k(x + 1) - sin k(x - 1)) / 2 = (sin k / k) d/dx sin kx exactly, so
// every vorticity component (one derivative times factors taken exactly) is (sin k / k) times the exact
// one, cell by cell: the relative error is 1 - sin k / k = k^2 / 6 + O(k^4), and Q (products of two
// derivatives) has 1 - (sin k / k)^2 = k^2 / 3 + O(k^4). Halving the spacing (N = 16 -> 32) divides them
// by 3.976 and 3.938 (second order: 4 - O(k^2)), so the ratio is asserted above 3.5, and each error
// equals its closed form to 1e-10: the velocity comes back from the FP64 populations within a few 1e-17
// of U (19 terms of size ~1/3, each within 2^-53), 1e-14 of U k and far below 1e-10 of the 2.6 % error.
TEST(LbmDerived, TaylorGreenVorticityAndQConvergeAtSecondOrder) {
  for (const std::string lattice : {"D3Q19", "D3Q27"}) {
    SCOPED_TRACE(lattice);
    const Errors e16 = taylor_green_errors(3, 16, lattice), e32 = taylor_green_errors(3, 32, lattice);
    for (const index_t n : {16, 32}) {
      const double k = 2.0 * pi / double(n), r = std::sin(k) / k;
      const Errors& e = n == 16 ? e16 : e32;
      EXPECT_NEAR(e.vorticity, 1.0 - r, 1e-10) << n;
      EXPECT_NEAR(e.q, 1.0 - r * r, 1e-10) << n;
    }
    std::printf(
        "%s Taylor-Green: vorticity error %.4e (N = 16), %.4e (N = 32), ratio %.3f; Q error %.4e, "
        "%.4e, ratio %.3f\n",
        lattice.c_str(), e16.vorticity, e32.vorticity, e16.vorticity / e32.vorticity, e16.q, e32.q,
        e16.q / e32.q);
    EXPECT_GT(e16.vorticity / e32.vorticity, 3.5);
    EXPECT_GT(e16.q / e32.q, 3.5);
  }
}

// 2D: the z vorticity 2 U k sin kx sin ky, one value per cell, with the same error 1 - sin k / k.
TEST(LbmDerived, TaylorGreenVorticity2dConvergesAtSecondOrder) {
  const Errors e16 = taylor_green_errors(2, 16, "D2Q9"), e32 = taylor_green_errors(2, 32, "D2Q9");
  for (const index_t n : {16, 32}) {
    const double k = 2.0 * pi / double(n);
    EXPECT_NEAR((n == 16 ? e16 : e32).vorticity, 1.0 - std::sin(k) / k, 1e-10) << n;
  }
  std::printf("D2Q9 Taylor-Green: vorticity error %.4e (N = 16), %.4e (N = 32), ratio %.3f\n", e16.vorticity,
              e32.vorticity, e16.vorticity / e32.vorticity);
  EXPECT_GT(e16.vorticity / e32.vorticity, 3.5);
}

// A channel between resting walls at y_min and y_max (periodic x, z), with a box body in it, holding
// the shear u = a (y + 1/2 - c) (and on a second solver u = a (y + 1/2)^2): next to a wall or the body a
// cell differences one-sidedly from the fluid side, elsewhere centrally; both are exact for the linear
// profile, so the z vorticity is -a in every fluid cell (the other components and Q exactly 0, as
// du/dy is the only gradient), and 0 in the body's cells. The velocity comes back from the FP64
// populations within a few 1e-17 (19 or 27 terms of size < 1/2, each within 2^-53), so a difference of
// two is within 1e-16 of exact: 1e-14 bounds |omega_z + a| with a = 1e-3 (and Q = a^2-sized terms of
// the round-off, 1e-16). For the quadratic profile the wall cells' value is the first-order one-sided
// difference a ((y + 3/2)^2 - (y + 1/2)^2) = 2 a at y = 0 (the exact gradient there is a), and the
// central difference 2 a (y + 1/2) elsewhere, exactly.
TEST(LbmDerived, OneSidedNextToWallsAndBodies) {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"}) {
    SCOPED_TRACE(lattice);
    const int dims = lattice == "D2Q9" ? 2 : 3;
    lbm::Setup s = periodic_box(dims, 12, lattice);
    s.cells[1] = 10;
    s.faces[2] = s.faces[3] = lbm::FaceKind::wall;
    // Cells x 4..6, y 3..5 (z 5..7 in 3D) are solid: centres inside [4, 7] x [3, 6] x [5, 8].
    s.bodies = {std::make_shared<geometry::Box>(Real3{4.0, 3.0, dims == 3 ? 5.0 : -1.0},
                                                Real3{7.0, 6.0, dims == 3 ? 8.0 : 1.0})};
    const double a = 1e-3, centre = 5.0;
    const index_t nx = s.cells[0], ny = s.cells[1], nz = dims == 3 ? s.cells[2] : 1;
    auto body = [&](index_t x, index_t y, index_t z) {
      return x >= 4 && x <= 6 && y >= 3 && y <= 5 && (dims == 2 || (z >= 5 && z <= 7));
    };
    for (const bool quadratic : {false, true}) {
      SCOPED_TRACE(quadratic ? "quadratic" : "linear");
      auto u = [&](index_t y) { return quadratic ? a * (y + 0.5) * (y + 0.5) : a * (y + 0.5 - centre); };
      auto solver = lbm::make_solver(s);
      solver->initialize([&](index_t, index_t y, index_t) {
        lbm::CellState st;
        st.u = {u(y), 0.0, 0.0};
        return st;
      });
      std::vector<double> w, q;
      solver->vorticity(w);
      if (dims == 3) solver->q_criterion(q);
      const int comps = dims == 3 ? 3 : 1;
      ASSERT_EQ(w.size(), std::size_t(nx * ny * nz * comps));
      double worst = 0.0;
      for (index_t z = 0; z < nz; ++z)
        for (index_t y = 0; y < ny; ++y)
          for (index_t x = 0; x < nx; ++x) {
            const std::size_t t = std::size_t((z * ny + y) * nx + x);
            const double* wz = &w[t * comps + comps - 1];
            if (body(x, y, z)) {
              for (int c = 0; c < comps; ++c) EXPECT_EQ(w[t * comps + c], 0.0) << x << " " << y << " " << z;
              if (dims == 3) EXPECT_EQ(q[t], 0.0);
              continue;
            }
            // du/dy by the rule: a neighbour is solid beyond a wall or inside the body.
            const bool up = y + 1 < ny && !body(x, y + 1, z), down = y > 0 && !body(x, y - 1, z);
            const double dudy = up && down ? 0.5 * (u(y + 1) - u(y - 1))
                                : up       ? u(y + 1) - u(y)
                                : down     ? u(y) - u(y - 1)
                                           : 0.0;
            ASSERT_TRUE(std::isfinite(*wz));
            worst = std::max(worst, std::fabs(*wz + dudy));
            if (!quadratic) EXPECT_NEAR(*wz, -a, 1e-14) << x << " " << y << " " << z;
            for (int c = 0; c + 1 < comps; ++c) EXPECT_NEAR(w[t * comps + c], 0.0, 1e-14);
            if (dims == 3) EXPECT_NEAR(q[t], 0.0, 1e-16);
          }
      EXPECT_LE(worst, 1e-14);
      std::printf("%s %s shear: max |omega_z + du/dy (the rule)| = %.2e\n", lattice.c_str(),
                  quadratic ? "quadratic" : "linear", worst);
      if (quadratic) {  // the wall cell's first-order value, 2 a where the exact gradient is a
        const std::size_t t0 = 0;
        EXPECT_NEAR(w[t0 * comps + comps - 1], -2.0 * a, 1e-14);
      }
    }
  }
}

// The padded velocity is allocated on the first request only, and eddy plan's footprint with the derived
// fields counts what it adds: 8 B per padded cell and dimension (one rank: no halo lists).
TEST(LbmDerived, PaddedVelocityIsAllocatedOnFirstUse) {
  for (const int dims : {2, 3}) {
    const lbm::Setup s = periodic_box(dims, 12, dims == 2 ? "D2Q9" : "D3Q19");
    auto solver = lbm::make_solver(s);
    solver->initialize([](index_t, index_t, index_t) { return lbm::CellState{}; });
    const std::size_t before = solver->bytes_allocated();
    const double plain = lbm::footprint(s, false).device_bytes;
    EXPECT_EQ(double(before), plain);
    std::vector<double> w;
    solver->vorticity(w);
    const std::size_t after = solver->bytes_allocated();
    // Rows of 12 + 2 ghost cells padded to 32 (row_align), 14 rows, and 14 planes in 3D.
    const std::size_t padded = 32 * 14 * (dims == 3 ? 14 : 1);
    EXPECT_EQ(after - before, sizeof(double) * std::size_t(dims) * padded) << dims;
    EXPECT_EQ(double(after), lbm::footprint(s, false, true).device_bytes) << dims;
    solver->vorticity(w);  // held, not allocated again
    EXPECT_EQ(solver->bytes_allocated(), after);
  }
}

// The padded velocity is made once per state and shared by the fields of one output: a derived field
// taken after another, after steps and after load_state is bitwise that of a solver asked for it alone.
TEST(LbmDerived, TheVelocityFollowsEveryChangeOfTheState) {
  auto a = taylor_green_solver(3, 12, "D3Q19"), b = taylor_green_solver(3, 12, "D3Q19");
  const std::vector<unsigned char> start = a->save_state();
  std::vector<double> wa, qa, wb, qb;
  a->vorticity(wa), a->q_criterion(qa);
  b->q_criterion(qb), b->vorticity(wb);
  EXPECT_EQ(wa, wb);
  EXPECT_EQ(qa, qb);
  const std::vector<double> w0 = wa;
  for (int k = 0; k < 3; ++k) a->step();
  std::vector<double> w3;
  a->vorticity(w3);
  auto c = taylor_green_solver(3, 12, "D3Q19");
  for (int k = 0; k < 3; ++k) c->step();
  c->vorticity(wb);
  EXPECT_EQ(w3, wb);
  EXPECT_NE(w3, w0);
  a->load_state(start, 0);
  a->vorticity(wa);
  EXPECT_EQ(wa, w0);
}

}  // namespace
}  // namespace eddy
