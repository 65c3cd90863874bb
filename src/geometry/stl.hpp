#pragma once
/// STL surfaces as solid bodies: binary or ASCII STL, checked to be watertight, placed in the domain.
///
/// The file's coordinates are scaled, then translated (StlPlacement) into the config's physical units.
/// load_stl welds vertices that coincide (exactly, or within 1e-7 of the bounding-box diagonal),
/// drops facets that collapse to an edge or a point, and refuses (InputError naming the file and the
/// problem) a file that is missing, unreadable, truncated, not STL, empty, non-finite, enclosing no
/// volume, or not watertight: every edge must be traversed once in each direction by the facets that
/// share it (a closed, consistently oriented surface). An inside-out file (all facets clockwise seen
/// from outside) is accepted and turned outward.
///
/// The resulting Shape answers inside(p) by the parity of the crossings of a ray from p along the axis
/// in which the mesh is thinnest, with exact 2D orientation predicates and a symbolic perturbation of
/// p, so a ray through an edge or a vertex is counted once: the answer is a pure function of p and the
/// mesh, the same on every rank. crossing(a, b) intersects the segment with the facets
/// (Moller & Trumbore 1997) and returns the first hit. Both use a uniform grid of bins over the
/// mesh's projection, so a query costs a few facet tests, not one per facet.
#include <array>
#include <string>
#include <vector>

#include "geometry/shape.hpp"

namespace eddy::geometry {

/// Where an STL file's body goes: x_domain = scale * x_file + translate.
struct StlPlacement {
  double scale = 1.0;              ///< factor on the file's coordinates (file units -> config units), > 0
  Real3 translate{0.0, 0.0, 0.0};  ///< shift after scaling, config units
};

/// One facet: three vertices, counter-clockwise seen from outside (the STL convention).
using Triangle = std::array<Real3, 3>;

/// The facets of an STL file (binary or ASCII, told apart by content), placed, in file order; the
/// stored normals are ignored. InputError when the file is missing, unreadable, truncated or not STL.
std::vector<Triangle> read_stl(const std::string& path, const StlPlacement& placement = {});

/// The solid bounded by the (watertight) STL surface in `path`. InputError on bad input (see above).
ShapePtr load_stl(const std::string& path, const StlPlacement& placement = {});

}  // namespace eddy::geometry
