#pragma once
/// Solid bodies: what is inside, and where a segment crosses the surface.
///
/// Host-side geometry in physical coordinates (the config's units, cell centres of the LBM grid at
/// (i + 1/2) dx). The LBM marks a cell solid when its centre is inside a body, and for interpolated
/// (Bouzidi) bounce-back asks where the link from a fluid cell's centre to a solid neighbour's centre
/// crosses the surface. Primitives (cylinder, sphere, box), STL meshes and voxel masks all answer the
/// same two questions, so the solver never knows where a body came from.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace eddy::geometry {

/// Axis-aligned bounding box, physical units.
struct Aabb {
  Real3 lo{0.0, 0.0, 0.0};
  Real3 hi{0.0, 0.0, 0.0};
};

class Shape {
 public:
  virtual ~Shape() = default;
  /// Whether point p lies inside the solid (a point exactly on the surface may go either way, but
  /// the answer must not depend on the rank or block asking).
  virtual bool inside(const Real3& p) const = 0;
  /// Where the segment from `a` (outside) to `b` (inside) first enters the solid, as the fraction
  /// t in [0, 1] of the way from a to b; -1 when it cannot say (a staircase body such as a voxel mask:
  /// the caller then uses half-way bounce-back, t = 1/2).
  virtual double crossing(const Real3& a, const Real3& b) const = 0;
  /// A box that contains the whole solid (cells outside it need not be asked).
  virtual Aabb bounds() const = 0;
  /// What the body is, for messages and logs ("cylinder", "stl cases/sphere/sphere.stl", ...).
  virtual std::string describe() const = 0;
};

using ShapePtr = std::unique_ptr<Shape>;

}  // namespace eddy::geometry
