#pragma once
/// The primitive bodies of the config's `geometry.bodies`: cylinder, sphere, box, with exact crossings.
///
/// Each is a convex set given as the intersection of simple pieces (a round tube and a slab along its
/// axis; a ball; three slabs), so where a segment a -> b (a outside, b inside) enters the body is the
/// largest of the parameters where it enters each piece, found in closed form (a quadratic or a
/// division). A 2D domain uses z = 0 for every point: a cylinder along z is then a disc.
#include <limits>

#include "geometry/shape.hpp"

namespace eddy::geometry {

/// Circular cylinder of radius r about the line through `centre` along the unit vector `axis`; its
/// length along the axis is `length` (centred on `centre`), infinite by default.
class Cylinder final : public Shape {
 public:
  Cylinder(const Real3& centre, double radius, const Real3& axis = {0.0, 0.0, 1.0},
           double length = std::numeric_limits<double>::infinity());
  bool inside(const Real3& p) const override;
  double crossing(const Real3& a, const Real3& b) const override;
  Aabb bounds() const override;
  std::string describe() const override;

 private:
  Real3 c_, axis_;
  double r_, half_;
};

/// Ball of radius r about `centre`.
class Sphere final : public Shape {
 public:
  Sphere(const Real3& centre, double radius);
  bool inside(const Real3& p) const override;
  double crossing(const Real3& a, const Real3& b) const override;
  Aabb bounds() const override;
  std::string describe() const override;

 private:
  Real3 c_;
  double r_;
};

/// Axis-aligned box lo <= p <= hi (an infinite extent along an axis is allowed: a 2D box).
class Box final : public Shape {
 public:
  Box(const Real3& lo, const Real3& hi);
  bool inside(const Real3& p) const override;
  double crossing(const Real3& a, const Real3& b) const override;
  Aabb bounds() const override;
  std::string describe() const override;

 private:
  Aabb box_;
};

}  // namespace eddy::geometry
