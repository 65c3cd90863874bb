// The primitive bodies (src/geometry/primitives.hpp): inside, exact crossings against closed forms, bounds,
// bad parameters.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "geometry/primitives.hpp"

namespace eddy::geometry {
namespace {

// Crossings are one quadratic or division in double precision: a few ulps of the unit segment.
constexpr double tight = 1e-14;

TEST(Primitives, DiscCrossingIsTheCircleHit) {
  const Cylinder disc({0.2, 0.2, 0.0}, 0.05);  // 2D: along z, infinite
  EXPECT_TRUE(disc.inside({0.2, 0.2, 0.0}));
  EXPECT_TRUE(disc.inside({0.24, 0.22, 7.0}));
  EXPECT_FALSE(disc.inside({0.26, 0.2, 0.0}));
  // Along x from 0.14 to 0.16: the circle at x = 0.15, t = 0.5.
  EXPECT_NEAR(disc.crossing({0.14, 0.2, 0.0}, {0.16, 0.2, 0.0}), 0.5, tight);
  // A diagonal link: |a + t d - c| = r solved by hand.
  const Real3 a{0.2 + 0.04, 0.2 + 0.035, 0.0}, b{0.2 + 0.03, 0.2 + 0.025, 0.0};
  const double dx = -0.01, dy = -0.01, wx = 0.04, wy = 0.035, r = 0.05;
  const double A = dx * dx + dy * dy, B = wx * dx + wy * dy, C = wx * wx + wy * wy - r * r;
  const double t = (-B - std::sqrt(B * B - A * C)) / A;
  EXPECT_NEAR(disc.crossing(a, b), t, tight);
  // The point where it says the segment enters lies on the circle.
  const double px = a[0] + t * (b[0] - a[0]) - 0.2, py = a[1] + t * (b[1] - a[1]) - 0.2;
  EXPECT_NEAR(std::hypot(px, py), r, 1e-15);
}

TEST(Primitives, FiniteCylinderEntersThroughItsCap) {
  const Cylinder c({0.0, 0.0, 0.0}, 1.0, {1.0, 0.0, 0.0}, 2.0);  // along x, caps at x = -1, 1
  EXPECT_TRUE(c.inside({0.9, 0.5, 0.5}));
  EXPECT_FALSE(c.inside({1.1, 0.0, 0.0}));
  EXPECT_NEAR(c.crossing({1.5, 0.0, 0.0}, {0.5, 0.0, 0.0}), 0.5, tight);  // through the cap
  EXPECT_NEAR(c.crossing({0.0, 2.0, 0.0}, {0.0, 0.0, 0.0}), 0.5, tight);  // through the side
  // Outside both the side and the cap: enters where the later of the two is crossed.
  EXPECT_NEAR(c.crossing({1.5, 1.5, 0.0}, {0.5, 0.5, 0.0}), 0.5, tight);
  const Aabb box = c.bounds();
  EXPECT_DOUBLE_EQ(box.lo[0], -1.0);
  EXPECT_DOUBLE_EQ(box.hi[1], 1.0);
  EXPECT_DOUBLE_EQ(box.hi[2], 1.0);
}

TEST(Primitives, TiltedCylinderBounds) {
  const double s = 1.0 / std::sqrt(2.0);
  const Cylinder c({0.0, 0.0, 0.0}, 1.0, {s, s, 0.0}, 2.0);
  const Aabb box = c.bounds();
  EXPECT_NEAR(box.hi[0], s + s, tight);  // radial r sqrt(1 - 1/2) + cap |n_x| h
  EXPECT_NEAR(box.hi[2], 1.0, tight);
  EXPECT_TRUE(c.inside({0.6, 0.6, 0.0}));   // 0.85 along the axis, on it
  EXPECT_FALSE(c.inside({0.8, 0.8, 0.0}));  // 1.13 along the axis: past the cap
}

TEST(Primitives, SphereCrossingIsTheRootOfTheQuadratic) {
  const Sphere s({0.5, 0.5, 0.5}, 0.25);
  EXPECT_TRUE(s.inside({0.5, 0.6, 0.7}));
  EXPECT_FALSE(s.inside({0.5, 0.5, 0.76}));
  // From outside to the centre along a body diagonal: enters at distance r from the centre.
  const double L = std::sqrt(3.0) * 0.2;  // |a - c|
  EXPECT_NEAR(s.crossing({0.7, 0.7, 0.7}, {0.5, 0.5, 0.5}), (L - 0.25) / L, tight);
  EXPECT_DOUBLE_EQ(s.bounds().lo[1], 0.25);
  EXPECT_DOUBLE_EQ(s.bounds().hi[2], 0.75);
}

TEST(Primitives, BoxCrossingIsTheLastFaceEntered) {
  const Box b({0.0, 0.0, 0.0}, {1.0, 2.0, 3.0});
  EXPECT_TRUE(b.inside({0.5, 1.0, 1.0}));
  EXPECT_FALSE(b.inside({1.5, 1.0, 1.0}));
  EXPECT_NEAR(b.crossing({-0.25, 1.0, 1.0}, {0.75, 1.0, 1.0}), 0.25, tight);
  // Diagonal from (-0.5, -0.1): enters x at t = 0.5, y at t = 0.1: the body at t = 0.5.
  EXPECT_NEAR(b.crossing({-0.5, -0.1, 1.0}, {0.5, 0.9, 1.0}), 0.5, tight);
  // A 2D box: infinite along z.
  const double inf = std::numeric_limits<double>::infinity();
  const Box flat({0.1, 0.1, -inf}, {0.2, 0.3, inf});
  EXPECT_TRUE(flat.inside({0.15, 0.2, 0.0}));
  EXPECT_NEAR(flat.crossing({0.05, 0.2, 0.0}, {0.15, 0.2, 0.0}), 0.5, tight);
}

TEST(Primitives, CrossingStaysInTheUnitIntervalOnGrazingLinks) {
  // A link whose end sits just inside the surface: t close to 1, never outside [0, 1].
  const Cylinder disc({0.0, 0.0, 0.0}, 1.0);
  const double t = disc.crossing({1.0 + 1e-3, 0.0, 0.0}, {1.0 - 1e-17, 0.0, 0.0});
  EXPECT_GE(t, 0.0);
  EXPECT_LE(t, 1.0);
}

TEST(Primitives, BadParametersAreInputErrors) {
  EXPECT_THROW(Cylinder({0, 0, 0}, 0.0), InputError);
  EXPECT_THROW(Cylinder({0, 0, 0}, 1.0, {0, 0, 0}), InputError);
  EXPECT_THROW(Sphere({0, 0, 0}, -1.0), InputError);
  EXPECT_THROW(Box({0, 0, 0}, {1, 0, 1}), InputError);
}

}  // namespace
}  // namespace eddy::geometry
