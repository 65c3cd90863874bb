// Lattice identities and the equilibrium's moments, for every lattice, evaluated on the backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "backend/backend.hpp"
#include "backend/parallel.hpp"
#include "lbm/collisions.hpp"
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

/// The equilibrium is a fixed point of BGK, TRT and KBC.
template <class L>
double equilibrium_fixed_point_error() {
  return backend::parallel_reduce(
      "test::equilibrium_fixed_point", 1024, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        const double drho = 0.1 * (hash01(k, 1) - 0.5);
        const double u[3] = {0.2 * (hash01(k, 2) - 0.5), 0.2 * (hash01(k, 3) - 0.5),
                             L::d == 3 ? 0.2 * (hash01(k, 4) - 0.5) : 0.0};
        double f[L::q], g[L::q], h[L::q];
        for (int i = 0; i < L::q; ++i) f[i] = g[i] = h[i] = equilibrium<L>(i, drho, u);
        Bgk<double>{1.3}.template operator()<L>(f, drho, u);
        Trt<double>{1.3, 1.1}.template operator()<L>(g, drho, u);
        Kbc<double>{1.3}.template operator()<L>(h, drho, u);
        double err = 0;
        for (int i = 0; i < L::q; ++i) {
          const double e = equilibrium<L>(i, drho, u);
          err = fmax(err, fmax(fabs(f[i] - e), fmax(fabs(g[i] - e), fabs(h[i] - e))));
        }
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, EquilibriumIsAFixedPointOfCollision) {
  EXPECT_LT(equilibrium_fixed_point_error<TypeParam>(), 1e-16);
}

/// Random shifted populations of test cell k: a state near rest with a sizeable non-equilibrium part.
template <class L>
EDDY_HD void random_state(index_t k, double (&f)[L::q]) {
  for (int i = 0; i < L::q; ++i) f[i] = 0.01 * (hash01(k, 10 + i) - 0.5);
}

/// Collide g with operator `kind` (0..3: BGK, TRT, regularized, KBC) with the LES and force flags.
template <class L, bool Les, bool Force>
EDDY_HD void collide_as(int kind, const CollisionExtras<double>& x, double (&g)[L::q], double drho,
                        const double (&u)[3]) {
  switch (kind) {
    case 0:
      return Bgk<double, Les, Force>{1.7, x}.template operator()<L>(g, drho, u);
    case 1:
      return Trt<double, Les, Force>{1.7, 0.9, x}.template operator()<L>(g, drho, u);
    case 2:
      return Regularized<double, Les, Force>{1.7, x}.template operator()<L>(g, drho, u);
    default:
      return Kbc<double, Les, Force>{1.7, x}.template operator()<L>(g, drho, u);
  }
}

/// Collide a copy of f with test operator `op` (0..15): operator op % 4 (BGK, TRT, regularized, KBC)
/// with model op / 4 (plain, Smagorinsky, a body force, both), with a body force F (zero for the
/// operators without it).
template <class L>
EDDY_HD void collide_with(int op, const double (&F)[3], double (&g)[L::q], double drho,
                          const double (&u)[3]) {
  CollisionExtras<double> extras;
  extras.tau0 = 1.0 / 1.7, extras.les = 18 * 0.17 * 0.17;
  for (int a = 0; a < 3; ++a) extras.force[a] = F[a];
  const int kind = op % 4;
  switch (op / 4) {
    case 0:
      return collide_as<L, false, false>(kind, extras, g, drho, u);
    case 1:
      return collide_as<L, true, false>(kind, extras, g, drho, u);
    case 2:
      return collide_as<L, false, true>(kind, extras, g, drho, u);
    default:
      return collide_as<L, true, true>(kind, extras, g, drho, u);
  }
}
constexpr int n_operators = 16;
EDDY_HD constexpr bool forced(int op) { return op / 4 >= 2; }

/// Max error of mass and momentum over one collision of random populations, every operator and model:
/// mass unchanged, momentum sum c_i f_i changed by exactly the body force F (Guo: u = (j + F/2)/rho).
template <class L>
double operator_conservation_error() {
  return backend::parallel_reduce(
      "test::operator_conservation", 2048 * n_operators, 0.0,
      [=] EDDY_DEVICE(index_t t) {
        const int op = static_cast<int>(t % n_operators);
        const index_t k = t / n_operators;
        double f[L::q], g[L::q];
        random_state<L>(k, f);
        double F[3] = {0, 0, 0};
        if (forced(op))
          for (int a = 0; a < L::d; ++a) F[a] = 1e-4 * (hash01(k, 50 + a) - 0.5);
        double drho0, u0[3], j0[3] = {0, 0, 0}, j1[3] = {0, 0, 0};
        moments<L>(f, drho0, u0, F);
        for (int i = 0; i < L::q; ++i) g[i] = f[i];
        collide_with<L>(op, F, g, drho0, u0);
        double m1 = 0;
        for (int i = 0; i < L::q; ++i) {
          m1 += g[i];
          for (int a = 0; a < 3; ++a) j0[a] += L::c(i, a) * f[i], j1[a] += L::c(i, a) * g[i];
        }
        double err = fabs(m1 - drho0);
        for (int a = 0; a < 3; ++a) err = fmax(err, fabs(j1[a] - j0[a] - F[a]));
        return err;
      },
      backend::Max{});
}

// Round-off: populations are O(1e-2), sums of q of them; 1e-16 is a few ulps of the sums.
TYPED_TEST(LatticeTest, EveryOperatorConservesMassAndMomentum) {
  EXPECT_LT(operator_conservation_error<TypeParam>(), 1e-16);
}

/// The regularized operator's equilibrium (its output with omega = 1: the third-order Hermite
/// equilibrium) is a fixed point of the operator at any omega, with and without LES.
template <class L>
double regularized_fixed_point_error() {
  return backend::parallel_reduce(
      "test::regularized_fixed_point", 2048, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        double f[L::q], drho, u[3];
        // A state with |u| up to 0.15 (the largest lattice Mach number the configs use).
        for (int i = 0; i < L::q; ++i) f[i] = 0.3 * L::w(i) * (hash01(k, 10 + i) - 0.5);
        moments<L>(f, drho, u);
        Regularized<double>{1.0}.template operator()<L>(f, drho, u);  // -> its equilibrium
        double g[L::q], h[L::q];
        for (int i = 0; i < L::q; ++i) g[i] = h[i] = f[i];
        moments<L>(g, drho, u);
        CollisionExtras<double> extras;
        extras.tau0 = 1.0 / 1.9, extras.les = 18 * 0.17 * 0.17;
        Regularized<double>{1.9}.template operator()<L>(g, drho, u);
        Regularized<double, true>{1.9, extras}.template operator()<L>(h, drho, u);
        double err = 0;
        for (int i = 0; i < L::q; ++i) err = fmax(err, fmax(fabs(g[i] - f[i]), fabs(h[i] - f[i])));
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, RegularizedEquilibriumIsAFixedPoint) {
  EXPECT_LT(regularized_fixed_point_error<TypeParam>(), 1e-16);
}

/// The second moment s = sum_i c_i c_i f_i (xx yy zz xy xz yz) of f; returns the zeroth, sum_i f_i.
template <class L>
EDDY_HD double second_moment(const double (&f)[L::q], double (&s)[6]) {
  double m = 0;
  for (int c = 0; c < 6; ++c) s[c] = 0;
  for (int i = 0; i < L::q; ++i) {
    const double cx = L::c(i, 0), cy = L::c(i, 1), cz = L::c(i, 2);
    m += f[i];
    s[0] += cx * cx * f[i], s[1] += cy * cy * f[i], s[2] += cz * cz * f[i];
    s[3] += cx * cy * f[i], s[4] += cx * cz * f[i], s[5] += cy * cz * f[i];
  }
  return m;
}

/// Random state k, with a small body force F on odd k (zero on even k), its moments and its
/// (Guo-corrected) non-equilibrium stress `before`, then collided with operator Op at rate omega, the
/// forced operator where there is a force.
template <template <class, bool, bool> class Op, class L>
EDDY_HD void collide_random_state(index_t k, double omega, double (&f)[L::q], double& drho, double (&u)[3],
                                  double (&F)[3], double (&before)[6]) {
  random_state<L>(k, f);
  CollisionExtras<double> extras;
  for (int a = 0; a < 3; ++a) F[a] = a < L::d && k % 2 ? 1e-4 * (hash01(k, 50 + a) - 0.5) : 0.0;
  moments<L>(f, drho, u, F);
  pi_neq<L, true>(f, drho, u, F, before);
  for (int a = 0; a < 3; ++a) extras.force[a] = F[a];
  if (k % 2)
    Op<double, false, true>{omega, extras}.template operator()<L>(f, drho, u);
  else
    Op<double, false, false>{omega}.template operator()<L>(f, drho, u);
}

/// The regularized collision relaxes the non-equilibrium stress exactly like BGK,
/// Pi_neq(after) = (1 - omega) Pi_neq(before) (same viscosity), with and without a body force.
template <class L>
double regularized_stress_error() {
  return backend::parallel_reduce(
      "test::regularized_stress", 2048, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        const double omega = 1.6;
        double f[L::q], drho, u[3], F[3], before[6];
        collide_random_state<Regularized, L>(k, omega, f, drho, u, F, before);
        // The post-collision second moment, sum c c f~ = drho/3 I + A2, against A2 built from the
        // pre-collision moments.
        double s[6];
        const double m = second_moment<L>(f, s);
        const double rho = 1 + m, iso[6] = {m / 3, m / 3, L::d == 3 ? m / 3 : 0.0, 0, 0, 0};
        const int ab[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
        double err = 0;
        for (int c = 0; c < 6; ++c) {
          // Expected: A2 = rho u u + (1 - omega) Pi_neq + (u F + F u)/2 with the pre-collision u.
          const int a = ab[c][0], b = ab[c][1];
          const double a2 = rho * u[a] * u[b] + (1 - omega) * before[c] + 0.5 * (u[a] * F[b] + u[b] * F[a]);
          err = fmax(err, fabs(s[c] - iso[c] - a2));
        }
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, RegularizedRelaxesTheStressLikeBgk) {
  EXPECT_LT(regularized_stress_error<TypeParam>(), 1e-16);
}

/// The regularized equilibrium carries the third-order Hermite moments rho u_a u_a u_b (and rho u_x u_y u_z
/// on D3Q27) exactly: on D3Q19 this checks the projection on its non-orthogonal pairs (H_xxy, H_yzz)...
template <class L>
double regularized_third_moment_error() {
  return backend::parallel_reduce(
      "test::regularized_third_moments", 2048, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        double f[L::q], drho, u[3];
        for (int i = 0; i < L::q; ++i) f[i] = 0.3 * L::w(i) * (hash01(k, 10 + i) - 0.5);
        moments<L>(f, drho, u);
        Regularized<double>{1.0}.template operator()<L>(f, drho, u);
        const double rho = 1 + drho, t = 1.0 / 3.0;
        // (a, a, b) index triples of H_aab; a == b == -1 marks H_xyz.
        const int n = L::d == 2 ? 2 : (L::q == 27 ? 7 : 6);
        const int ab[7][2] = {{0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 2}, {2, 1}, {-1, -1}};
        double err = 0;
        for (int m = 0; m < n; ++m) {
          const int a = ab[m][0], b = ab[m][1];
          double mom = 0;
          for (int i = 0; i < L::q; ++i) {
            const double h = a < 0 ? double(L::c(i, 0) * L::c(i, 1) * L::c(i, 2))
                                   : (L::c(i, a) * L::c(i, a) - t) * L::c(i, b);
            mom += h * f[i];
          }
          const double expect = a < 0 ? rho * u[0] * u[1] * u[2] : rho * u[a] * u[a] * u[b];
          err = fmax(err, fabs(mom - expect));
        }
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, RegularizedThirdOrderMomentsAreExact) {
  EXPECT_LT(regularized_third_moment_error<TypeParam>(), 1e-16);
}

/// Regularized::populations forms each pair of opposite links from one even and one odd part; every
/// population must be bit for bit the one population(i, s) rebuilds alone, since the moment storage
/// rebuilds single links and the population storage all of a cell's at once (a difference would part
/// the two storages' states). On the host, whose code no build contracts into fused multiply-adds.
template <class L, class R>
void pairs_are_single_links() {
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;
  const auto uniform = [&] {  // in [-1, 1)
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return R(double(seed >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  };
  for (int k = 0; k < 2000; ++k) {
    R u[3] = {R(0.1) * uniform(), R(0.1) * uniform(), L::d == 3 ? R(0.1) * uniform() : R(0)}, p[6];
    for (R& v : p) v = R(0.01) * uniform();
    if (L::d == 2) p[2] = p[4] = p[5] = R(0);
    const R drho = R(0.05) * uniform();
    const RegularizedState<R> s = Regularized<R>{R(1.7)}.template relax<L>(drho, u, p);
    R f[L::q];
    Regularized<R>::template populations<L>(s, f);
    for (int i = 0; i < L::q; ++i) {
      const R g = Regularized<R>::template population<L>(i, s);
      ASSERT_EQ(std::memcmp(&f[i], &g, sizeof(R)), 0)
          << "link " << i << ", state " << k << ": " << f[i] << " vs " << g;
    }
  }
}

TYPED_TEST(LatticeTest, RegularizedPairsAreSingleLinksBitwise) {
  pairs_are_single_links<TypeParam, double>();
  pairs_are_single_links<TypeParam, float>();
}

/// The Smagorinsky rate solves tau = tau0 + 3 C_s^2 |S| with |S| = sqrt(2 S:S), S = -3/(2 rho tau) Pi.
/// KBC's split of one state (collision_kbc_k.hpp): the equilibrium, the force-corrected stress's
/// deviator d, and the rest Dh = f - f_eq (+ S/2) - Ds, with the entropic products <Ds|Dh>, <Dh|Dh>.
template <class L, bool Force>
EDDY_HD void kbc_split(const double (&f)[L::q], double drho, const double (&u)[3], const double (&F)[3],
                       double (&feq)[L::q], double (&d)[6], double (&dh)[L::q], double& sh, double& hh) {
  double p[6];
  pi_neq<L, Force>(f, drho, u, F, p);
  const double tr = (p[0] + p[1] + p[2]) / L::d;
  d[0] = p[0] - tr, d[1] = p[1] - tr, d[2] = L::d == 3 ? p[2] - tr : 0.0, d[3] = p[3], d[4] = p[4],
  d[5] = p[5];
  sh = 0, hh = 0;
  for (int i = 0; i < L::q; ++i) {
    feq[i] = equilibrium<L>(i, drho, u);
    const double ds = Kbc<double>::template shear_part<L>(i, d);
    dh[i] = f[i] - feq[i] + (Force ? 0.5 * guo_source<L>(i, u, F) : 0.0) - ds;
    sh += ds * dh[i] / (L::w(i) + feq[i]);
    hh += dh[i] * dh[i] / (L::w(i) + feq[i]);
  }
}

/// KBC relaxes the deviatoric stress exactly like BGK, dev Pi_neq(after) = (1 - omega) dev Pi_neq(before)
/// (the viscosity), with and without a body force; Ds carries the whole deviator, so its rest Dh has none.
template <class L>
double kbc_stress_error() {
  return backend::parallel_reduce(
      "test::kbc_stress", 2048, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        const double omega = 1.9;
        double f[L::q], drho, u[3], F[3], before[6];
        collide_random_state<Kbc, L>(k, omega, f, drho, u, F, before);
        // After: sum c c f~ - drho/3 I - rho u u - (u F + F u)/2 (the source's second moment).
        double s[6];
        second_moment<L>(f, s);
        const double rho = 1 + drho;
        const int ab[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
        double after[6];
        for (int c = 0; c < 6; ++c) {
          const int a = ab[c][0], b = ab[c][1];
          after[c] = s[c] - (a == b ? drho / 3 : 0.0) - rho * u[a] * u[b] - 0.5 * (u[a] * F[b] + u[b] * F[a]);
        }
        if (L::d == 2) after[2] = after[4] = after[5] = before[2] = before[4] = before[5] = 0;
        const double ta = (after[0] + after[1] + after[2]) / L::d,
                     tb = (before[0] + before[1] + before[2]) / L::d;
        double err = 0;
        for (int c = 0; c < 6; ++c) {
          const bool diag = c < L::d;
          err =
              fmax(err, fabs((after[c] - (diag ? ta : 0.0)) - (1 - omega) * (before[c] - (diag ? tb : 0.0))));
        }
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, KbcRelaxesTheShearStressLikeBgk) { EXPECT_LT(kbc_stress_error<TypeParam>(), 1e-16); }

/// Random state k (no force), its moments, and KBC's split of it (kbc_split).
template <class L>
EDDY_HD void kbc_random_split(index_t k, double (&f)[L::q], double& drho, double (&u)[3], double (&feq)[L::q],
                              double (&dh)[L::q], double& sh, double& hh) {
  random_state<L>(k, f);
  const double F[3] = {0, 0, 0};
  moments<L>(f, drho, u, F);
  double d[6];
  kbc_split<L, false>(f, drho, u, F, feq, d, dh, sh, hh);
}

/// KBC's stabiliser is the minimum of the entropy's quadratic form: the post-collision non-equilibrium
/// (1 - omega) Ds + (1 - gamma omega / 2) Dh is orthogonal to Dh in the entropic scalar product
/// <X|Y> = sum X_i Y_i / f_eq_i (relative to the products it is made of), and gamma departs from BGK's 2
/// on these random states (states whose Dh carries ghost moments), so the test sees the stabiliser act.
/// Returns the worst relative residual; `min_departure` gets the smallest |gamma - 2|.
template <class L>
double kbc_entropy_error(double& min_departure) {
  const double worst = backend::parallel_reduce(
      "test::kbc_entropy", 2048, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        const double omega = 1.9;
        double f[L::q], drho, u[3], feq[L::q], dh[L::q], sh, hh;
        kbc_random_split<L>(k, f, drho, u, feq, dh, sh, hh);
        Kbc<double>{omega}.template operator()<L>(f, drho, u);
        double r = 0;
        for (int i = 0; i < L::q; ++i) r += (f[i] - feq[i]) * dh[i] / (L::w(i) + feq[i]);
        return fabs(r) / (fabs((1 - omega) * sh) + hh);
      },
      backend::Max{});
  min_departure = backend::parallel_reduce(
      "test::kbc_gamma", 2048, 1e300,
      [=] EDDY_DEVICE(index_t k) {
        const double omega = 1.9;
        double f[L::q], drho, u[3], feq[L::q], dh[L::q], sh, hh;
        kbc_random_split<L>(k, f, drho, u, feq, dh, sh, hh);
        const double gamma = 2 / omega - (2 - 2 / omega) * sh / hh;
        return fabs(gamma - 2);
      },
      backend::Min{});
  return worst;
}

TYPED_TEST(LatticeTest, KbcStabiliserMinimisesTheEntropicNorm) {
  double departure = 0;
  EXPECT_LT(kbc_entropy_error<TypeParam>(departure), 1e-13);
  EXPECT_GT(departure, 1e-3);
}

/// The frame of 16-bit storage (collide_k.hpp): the kernels collide the stored numbers s f~ (s = 2^13)
/// with rest density `unit` = s and the force scaled by s. Scaling by a power of two commutes with every
/// rounding, so moments and every operator, with and without LES and force, must give exactly s times the
/// results of the frame 1 (velocity: exactly the same), in FP32 as the kernels compute. Any term that
/// does not scale (a bare 1 where the rest density belongs) shows as a difference here, of the order of
/// the populations themselves. Exact where the arithmetic is IEEE operation by operation (the CPU build).
/// A compiler that contracts a * b + c into an FMA (the GPU's, or the host's with FMA instructions) may
/// contract the two frames' inlined copies differently: each differently contracted operation then rounds
/// once more or less, half a unit in the last place of an intermediate no larger than twice the largest
/// population, and an operator's longest chain (the regularized one's Hermite sums) has fewer than 32 such
/// operations, so the difference stays below 2^-18 of the largest population (returned relative to it).
template <class L, bool Les, bool Force>
double frame_error() {
  return backend::parallel_reduce(
      "test::frame", 1024, 0.0,
      [=] EDDY_DEVICE(index_t k) {
        constexpr float s = 8192.0f;
        const float F[3] = {Force ? 1e-4f : 0.0f, Force ? -2e-4f : 0.0f, Force && L::d == 3 ? 5e-5f : 0.0f};
        const float Fs[3] = {F[0] * s, F[1] * s, F[2] * s};
        CollisionExtras<float> x1, xs;
        x1.tau0 = xs.tau0 = 1.0f / 1.7f;
        x1.les = xs.les = 18.0f * 0.17f * 0.17f;
        for (int d = 0; d < 3; ++d) x1.force[d] = F[d], xs.force[d] = Fs[d];
        double err = 0;
        for (int op = 0; op < 4; ++op) {
          float f[L::q], g[L::q];
          for (int i = 0; i < L::q; ++i) {
            f[i] = float(0.3 * L::w(i) * (hash01(k, 10 + i) - 0.5));
            g[i] = f[i] * s;
          }
          float d1, u1[3], ds, us[3];
          moments<L>(f, d1, u1, F);
          moments<L>(g, ds, us, Fs, s);
          if (op == 0) {
            Bgk<float, Les, Force>{1.7f, x1}.template operator()<L>(f, d1, u1);
            Bgk<float, Les, Force>{1.7f, xs}.template operator()<L>(g, ds, us, s);
          } else if (op == 1) {
            Trt<float, Les, Force>{1.7f, 1.1f, x1}.template operator()<L>(f, d1, u1);
            Trt<float, Les, Force>{1.7f, 1.1f, xs}.template operator()<L>(g, ds, us, s);
          } else if (op == 2) {
            Regularized<float, Les, Force>{1.7f, x1}.template operator()<L>(f, d1, u1);
            Regularized<float, Les, Force>{1.7f, xs}.template operator()<L>(g, ds, us, s);
          } else {
            Kbc<float, Les, Force>{1.7f, x1}.template operator()<L>(f, d1, u1);
            Kbc<float, Les, Force>{1.7f, xs}.template operator()<L>(g, ds, us, s);
          }
          double big = 0;
          for (int i = 0; i < L::q; ++i) big = fmax(big, fabs(double(f[i]) * s));
          for (int d = 0; d < 3; ++d) err = fmax(err, fabs(double(us[d]) - double(u1[d])));
          err = fmax(err, fabs(double(ds) - double(d1) * s) / big);
          for (int i = 0; i < L::q; ++i) err = fmax(err, fabs(double(g[i]) - double(f[i]) * s) / big);
        }
        return err;
      },
      backend::Max{});
}

TYPED_TEST(LatticeTest, OperatorsAreExactInTheFrameOfSixteenBitStorage) {
#ifdef FP_FAST_FMAF
  const bool contracts = true;
#else
  const bool contracts = backend::is_gpu();
#endif
  const double bound = contracts ? std::ldexp(1.0, -18) : 0.0;
  EXPECT_LE((frame_error<TypeParam, false, false>()), bound);
  EXPECT_LE((frame_error<TypeParam, true, false>()), bound);
  EXPECT_LE((frame_error<TypeParam, false, true>()), bound);
  EXPECT_LE((frame_error<TypeParam, true, true>()), bound);
}

TEST(Smagorinsky, RelaxationTimeSolvesTheModelEquation) {
  double worst = 0;
  for (int k = 0; k < 200; ++k) {
    const double tau0 = 0.5 + 1e-4 * (k + 1), cs = 0.1 + 0.001 * k, rho = 1.0 + 0.01 * std::sin(k);
    const double p[6] = {1e-3 * std::sin(k + 1.0), 2e-3 * std::cos(k), -1e-3, 5e-4, -2e-4, 1e-4 * k};
    const double tau = 1.0 / smagorinsky_omega(tau0, 18 * cs * cs, rho, p);
    const double S = 1.5 / (rho * tau) * std::sqrt(2.0 * contract(p));
    worst = std::max(worst, std::fabs(tau - tau0 - 3 * cs * cs * S));
  }
  EXPECT_LT(worst, 1e-14);
}

}  // namespace
}  // namespace eddy::lbm
