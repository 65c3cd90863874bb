// Lattice identities and the equilibrium's moments, for every lattice, evaluated on the backend.
#include <gtest/gtest.h>

#include <cmath>

#include "backend/parallel.hpp"
#include "lbm/collide_k.hpp"
#include "lbm/lattice.hpp"

namespace eddy::lbm {
namespace {

template <class L>
class LatticeTest : public ::testing::Test {};
using Lattices = ::testing::Types<D2Q9, D3Q19, D3Q27>;
TYPED_TEST_SUITE(LatticeTest, Lattices);

int delta(int a, int b) { return a == b ? 1 : 0; }

TYPED_TEST(LatticeTest, WeightsAndVelocityMomentsAreIsotropic) {
  using L = TypeParam;
  const int D = L::d;
  double m0 = 0, m1[3] = {}, m2[3][3] = {}, m3[3][3][3] = {}, m4[3][3][3][3] = {};
  for (int i = 0; i < L::q; ++i) {
    const double w = L::w(i);
    m0 += w;
    for (int a = 0; a < D; ++a) {
      m1[a] += w * L::c(i, a);
      for (int b = 0; b < D; ++b) {
        m2[a][b] += w * L::c(i, a) * L::c(i, b);
        for (int c = 0; c < D; ++c) {
          m3[a][b][c] += w * L::c(i, a) * L::c(i, b) * L::c(i, c);
          for (int d = 0; d < D; ++d) m4[a][b][c][d] += w * L::c(i, a) * L::c(i, b) * L::c(i, c) * L::c(i, d);
        }
      }
    }
  }
  EXPECT_NEAR(m0, 1.0, 1e-15);
  for (int a = 0; a < D; ++a) {
    EXPECT_NEAR(m1[a], 0.0, 1e-15);
    for (int b = 0; b < D; ++b) {
      EXPECT_NEAR(m2[a][b], delta(a, b) / 3.0, 1e-15) << a << b;
      for (int c = 0; c < D; ++c) {
        EXPECT_NEAR(m3[a][b][c], 0.0, 1e-15);
        for (int d = 0; d < D; ++d) {
          const double iso =
              (delta(a, b) * delta(c, d) + delta(a, c) * delta(b, d) + delta(a, d) * delta(b, c)) / 9.0;
          EXPECT_NEAR(m4[a][b][c][d], iso, 1e-15) << a << b << c << d;
        }
      }
    }
  }
}

TYPED_TEST(LatticeTest, DirectionsComeInOppositePairsAndAreDistinct) {
  using L = TypeParam;
  EXPECT_EQ(opposite(0), 0);
  for (int i = 0; i < L::q; ++i) {
    EXPECT_EQ(opposite(opposite(i)), i);
    EXPECT_DOUBLE_EQ(L::w(i), L::w(opposite(i)));
    for (int a = 0; a < 3; ++a) EXPECT_EQ(L::c(opposite(i), a), -L::c(i, a));
    if (L::d == 2) EXPECT_EQ(L::c(i, 2), 0);
    for (int j = 0; j < i; ++j)
      EXPECT_FALSE(L::c(i, 0) == L::c(j, 0) && L::c(i, 1) == L::c(j, 1) && L::c(i, 2) == L::c(j, 2));
  }
}

/// A pseudo-random state per index, reproducible on host and device.
EDDY_HD inline double hash01(index_t k, int salt) {
  unsigned long long x =
      static_cast<unsigned long long>(k) * 0x9E3779B97F4A7C15ull + salt * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

/// Max error of density, momentum and momentum flux of the equilibrium over many random states:
/// sum f_eq = rho, sum c f_eq = rho u, sum c c f_eq = rho u u + rho/3 I (exact for the 2nd-order
/// polynomial equilibrium on these lattices). Computed on the backend.
template <class L>
double equilibrium_moment_error() {
  return backend::parallel_reduce(
      "test::equilibrium_moments", 4096, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        const double drho = 0.2 * (hash01(k, 1) - 0.5);
        const double u[3] = {0.3 * (hash01(k, 2) - 0.5), 0.3 * (hash01(k, 3) - 0.5),
                             L::d == 3 ? 0.3 * (hash01(k, 4) - 0.5) : 0.0};
        const double rho = 1 + drho;
        double m0 = 0, m1[3] = {0, 0, 0}, m2[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        for (int i = 0; i < L::q; ++i) {
          const double f = equilibrium<L>(i, drho, u) + L::w(i);  // unshifted
          m0 += f;
          for (int a = 0; a < 3; ++a) {
            m1[a] += L::c(i, a) * f;
            for (int b = 0; b < 3; ++b) m2[a][b] += L::c(i, a) * L::c(i, b) * f;
          }
        }
        double err = fabs(m0 - rho);
        for (int a = 0; a < L::d; ++a) {
          err = fmax(err, fabs(m1[a] - rho * u[a]));
          for (int b = 0; b < L::d; ++b)
            err = fmax(err, fabs(m2[a][b] - rho * u[a] * u[b] - (a == b ? rho / 3.0 : 0.0)));
        }
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, EquilibriumMomentsAreExact) {
  EXPECT_LT(equilibrium_moment_error<TypeParam>(), 1e-15);
}

/// Max change of density and momentum by one BGK and one TRT collision of random populations.
template <class L>
double collision_conservation_error() {
  return backend::parallel_reduce(
      "test::collision_conservation", 4096, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        double f[L::q];
        for (int i = 0; i < L::q; ++i) f[i] = 0.01 * (hash01(k, 10 + i) - 0.5);
        double drho0, u0[3];
        moments<L>(f, drho0, u0);
        double err = 0;
        for (int op = 0; op < 2; ++op) {
          double g[L::q];
          for (int i = 0; i < L::q; ++i) g[i] = f[i];
          if (op == 0)
            Bgk<double>{1.7}.template operator()<L>(g, drho0, u0);
          else
            Trt<double>{1.7, 0.9}.template operator()<L>(g, drho0, u0);
          double drho, u[3];
          moments<L>(g, drho, u);
          err = fmax(err, fabs(drho - drho0));
          for (int a = 0; a < 3; ++a) err = fmax(err, fabs((1 + drho) * u[a] - (1 + drho0) * u0[a]));
        }
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, CollisionConservesMassAndMomentum) {
  EXPECT_LT(collision_conservation_error<TypeParam>(), 1e-16);
}

/// The equilibrium is a fixed point of both collisions.
template <class L>
double equilibrium_fixed_point_error() {
  return backend::parallel_reduce(
      "test::equilibrium_fixed_point", 1024, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        const double drho = 0.1 * (hash01(k, 1) - 0.5);
        const double u[3] = {0.2 * (hash01(k, 2) - 0.5), 0.2 * (hash01(k, 3) - 0.5),
                             L::d == 3 ? 0.2 * (hash01(k, 4) - 0.5) : 0.0};
        double f[L::q], g[L::q];
        for (int i = 0; i < L::q; ++i) f[i] = g[i] = equilibrium<L>(i, drho, u);
        Bgk<double>{1.3}.template operator()<L>(f, drho, u);
        Trt<double>{1.3, 1.1}.template operator()<L>(g, drho, u);
        double err = 0;
        for (int i = 0; i < L::q; ++i)
          err = fmax(err,
                     fmax(fabs(f[i] - equilibrium<L>(i, drho, u)), fabs(g[i] - equilibrium<L>(i, drho, u))));
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, EquilibriumIsAFixedPointOfCollision) {
  EXPECT_LT(equilibrium_fixed_point_error<TypeParam>(), 1e-16);
}

}  // namespace
}  // namespace eddy::lbm
