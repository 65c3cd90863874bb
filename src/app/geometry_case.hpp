#pragma once
/// The config's `geometry.bodies` as Shapes, and what the LBM run reports about them: forces, drag and
/// lift coefficients, the pressure difference across a body and the Strouhal number of its lift.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "geometry/shape.hpp"
#include "io/config/run_spec.hpp"
#include "io/hdf5/block.hpp"
#include "parallel/comm.hpp"

namespace eddy::app {

/// One body of the config as a Shape in physical coordinates (2D: z = 0). `key` names it in messages
/// ("geometry.bodies[0]"). This is where a body type plugs in: a new `type` (e.g. stl, mask) is one more
/// branch here, its keys in config/schema.hpp's visit(BodySpec&) and their checks in config/checks.cpp's
/// check_geometry.
geometry::ShapePtr make_body(const config::BodySpec& body, const config::RunSpec& spec,
                             const std::string& key);

/// Every body of the config, each checked to lie inside the domain (InputError naming the body if not).
std::vector<std::shared_ptr<const geometry::Shape>> make_bodies(const config::RunSpec& spec);

/// Time series of one body's coefficients and what the end of a run reports from it.
struct CoefficientSeries {
  std::vector<double> t, cd, cl;
};
struct CoefficientSummary {
  double cd = 0.0, cl = 0.0;          ///< at the last sample
  double cd_max = 0.0, cl_max = 0.0;  ///< over the second half of the samples (the transient left out)
  double cl_min = 0.0, cd_mean = 0.0;
  double strouhal = -1.0;  ///< f D / U from the upward zero crossings of C_L - mean (second half); -1 if
                           ///< fewer than three crossings or a lift swing below 1 % of the mean drag
  int periods = 0;         ///< lift periods the Strouhal number was measured over
};
CoefficientSummary summarize(const CoefficientSeries& s, double length, double velocity);

/// Pressure at a point of the fluid next to a body: quadratic extrapolation along the unit vector `out`
/// (pointing into the fluid) from multilinear interpolations at 1.5, 2.5 and 3.5 cells from the point.
/// `cell_value` gives the field at a global cell of a grid of `cells` (cell centres at (i + 1/2) dx); it
/// is called for the same cells in the same order on every call with the same geometry.
double extrapolate_to_wall(const std::function<double(const Int3&)>& cell_value, const Int3& cells, int dims,
                           double dx, const Real3& point, const Real3& out);

/// The same from a field distributed over ranks: `local` is this rank's box `block` of it (x fastest).
/// The few cells the stencil needs are fetched exactly from the ranks that own them, so every rank gets
/// the one-rank value bit for bit. Collective.
double extrapolate_to_wall(const std::vector<double>& local, const io::Block& block, double dx,
                           const Real3& point, const Real3& out, const parallel::Comm& comm);

}  // namespace eddy::app
