#include "app/geometry_case.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.hpp"
#include "core/log.hpp"
#include "geometry/primitives.hpp"
#include "geometry/stl.hpp"
#include "io/hdf5/mask.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// A body's file: relative paths are taken from the config file's directory.
std::string body_file(const std::string& file, const config::RunSpec& spec) {
  if (file.empty() || file[0] == '/' || spec.source_file.empty()) return file;
  const std::size_t slash = spec.source_file.find_last_of('/');
  return slash == std::string::npos ? file : spec.source_file.substr(0, slash + 1) + file;
}

Real3 point(const std::vector<double>& v) {
  Real3 p{0.0, 0.0, 0.0};
  for (std::size_t d = 0; d < v.size() && d < 3; ++d) p[d] = v[d];
  return p;
}

}  // namespace

geometry::ShapePtr make_body(const config::BodySpec& b, const config::RunSpec& spec, const std::string& key) {
  const double inf = std::numeric_limits<double>::infinity();
  const bool two_d = spec.dimensions() == 2;
  try {
    if (b.type == "cylinder") {
      const Real3 axis = b.axis.empty() ? Real3{0.0, 0.0, 1.0} : point(b.axis);
      return std::make_unique<geometry::Cylinder>(point(b.center), b.radius, axis,
                                                  two_d || b.length == 0.0 ? inf : b.length);
    }
    if (b.type == "sphere") return std::make_unique<geometry::Sphere>(point(b.center), b.radius);
    if (b.type == "box") {
      Real3 lo = point(b.lo), hi = point(b.hi);
      if (two_d) lo[2] = -inf, hi[2] = inf;
      return std::make_unique<geometry::Box>(lo, hi);
    }
    if (b.type == "stl") {
      geometry::StlPlacement place;
      place.scale = b.scale;
      place.translate = point(b.translate);
      return geometry::load_stl(body_file(b.file, spec), place);
    }
    if (b.type == "mask") {
      const int dims = spec.dimensions();
      Int3 cells{1, 1, 1};
      for (int d = 0; d < dims; ++d)
        cells[static_cast<std::size_t>(d)] = spec.domain.cells[static_cast<std::size_t>(d)];
      const double dx = spec.domain.length[0] / static_cast<double>(cells[0]);
      return io::read_mask(body_file(b.file, spec), b.dataset, dims, cells, dx);
    }
  } catch (const InputError& e) {
    throw InputError(key + ": " + e.what());
  }
  throw InputError(key + ".type: '" + b.type + "' is not a body type this build knows");
}

namespace {

/// A body must make some cells solid and leave some fluid: one whose inside holds no cell centre would
/// change nothing, one that holds every cell centre leaves no flow. The grid's centres inside the body's
/// bounds are asked, and each scan stops at its first answer (an ordinary body: a few rows).
void check_cover(const geometry::Shape& body, const config::RunSpec& spec, const std::string& key) {
  const int dims = spec.dimensions();
  std::array<index_t, 3> lo{0, 0, 0}, hi{1, 1, 1}, n{1, 1, 1};
  Real3 dx{1.0, 1.0, 1.0};
  const geometry::Aabb box = body.bounds();
  bool whole = true;  // the bounds hold every cell centre
  for (int d = 0; d < dims; ++d) {
    const std::size_t a = static_cast<std::size_t>(d);
    n[a] = spec.domain.cells[a], dx[a] = spec.domain.length[a] / double(n[a]);
    lo[a] = std::clamp<index_t>(static_cast<index_t>(std::floor(box.lo[a] / dx[a] - 0.5)), 0, n[a]);
    hi[a] = std::clamp<index_t>(static_cast<index_t>(std::ceil(box.hi[a] / dx[a] - 0.5)) + 1, 0, n[a]);
    whole = whole && box.lo[a] <= 0.5 * dx[a] && box.hi[a] >= (double(n[a]) - 0.5) * dx[a];
  }
  auto centre = [&](index_t i, index_t j, index_t k) {
    return Real3{(double(i) + 0.5) * dx[0], (double(j) + 0.5) * dx[1],
                 dims == 3 ? (double(k) + 0.5) * dx[2] : 0.0};
  };
  bool any_inside = false;
  for (index_t k = lo[2]; k < hi[2] && !any_inside; ++k)
    for (index_t j = lo[1]; j < hi[1] && !any_inside; ++j)
      for (index_t i = lo[0]; i < hi[0] && !any_inside; ++i) any_inside = body.inside(centre(i, j, k));
  if (!any_inside)
    throw InputError(
        cat(key, ": the ", body.describe(), " holds no cell centre of the grid (cell size ", dx[0],
            " m), so it would change nothing; make it larger, refine domain.cells or remove it"));
  if (!whole) return;
  bool any_outside = false;
  for (index_t k = 0; k < n[2] && !any_outside; ++k)
    for (index_t j = 0; j < n[1] && !any_outside; ++j)
      for (index_t i = 0; i < n[0] && !any_outside; ++i) any_outside = !body.inside(centre(i, j, k));
  if (!any_outside)
    throw InputError(
        cat(key, ": the ", body.describe(),
            " covers every cell of the domain, so no fluid is left; make it smaller than domain.length"));
}

}  // namespace

std::vector<std::shared_ptr<const geometry::Shape>> make_bodies(const config::RunSpec& spec) {
  std::vector<std::shared_ptr<const geometry::Shape>> out;
  const int dims = spec.dimensions();
  for (std::size_t i = 0; i < spec.geometry.bodies.size(); ++i) {
    const std::string key = cat("geometry.bodies[", i, "]");
    std::shared_ptr<const geometry::Shape> s = make_body(spec.geometry.bodies[i], spec, key);
    const geometry::Aabb box = s->bounds();
    for (int d = 0; d < dims; ++d) {
      const std::size_t a = static_cast<std::size_t>(d);
      const double L = spec.domain.length[a], tol = 1e-12 * L;
      if (std::isfinite(box.lo[a]) && std::isfinite(box.hi[a]) && box.lo[a] >= -tol && box.hi[a] <= L + tol)
        continue;
      throw InputError(cat(key, ": the ", s->describe(), " reaches from ", box.lo[a], " to ", box.hi[a],
                           " m along ", "xyz"[d], ", outside the domain [0, ", L,
                           "] m; a body must lie inside domain.length"));
    }
    check_cover(*s, spec, key);
    out.push_back(std::move(s));
  }
  return out;
}

CoefficientSummary summarize(const CoefficientSeries& s, double length, double velocity) {
  CoefficientSummary r;
  if (s.t.empty()) return r;
  r.cd = s.cd.back(), r.cl = s.cl.back();
  const std::size_t from = s.t.size() / 2, n = s.t.size() - from;
  r.cd_max = *std::max_element(s.cd.begin() + long(from), s.cd.end());
  r.cl_max = *std::max_element(s.cl.begin() + long(from), s.cl.end());
  r.cl_min = *std::min_element(s.cl.begin() + long(from), s.cl.end());
  double cl_mean = 0.0;
  for (std::size_t i = from; i < s.t.size(); ++i)
    r.cd_mean += s.cd[i] / double(n), cl_mean += s.cl[i] / double(n);
  // Upward crossings of C_L - mean, times by linear interpolation between samples.
  std::vector<double> up;
  for (std::size_t i = from + 1; i < s.t.size(); ++i) {
    const double a = s.cl[i - 1] - cl_mean, b = s.cl[i] - cl_mean;
    if (a < 0.0 && b >= 0.0) up.push_back(s.t[i - 1] + (s.t[i] - s.t[i - 1]) * (-a) / (b - a));
  }
  // An unsteady lift only: a peak-to-peak swing below 1 % of the mean drag (the acoustic ripple of a
  // steady case) gives no Strouhal number.
  if (up.size() >= 3 && r.cl_max - r.cl_min > 0.01 * std::fabs(r.cd_mean)) {
    r.periods = static_cast<int>(up.size()) - 1;
    const double f = double(r.periods) / (up.back() - up.front());
    r.strouhal = f * length / velocity;
  }
  return r;
}

double extrapolate_to_wall(const std::function<double(const Int3&)>& cell_value, const Int3& cells, int dims,
                           double dx, const Real3& p, const Real3& out) {
  auto sample = [&](double s) {
    double pos[3], frac[3];
    index_t i0[3];
    for (int d = 0; d < 3; ++d) {
      const std::size_t a = static_cast<std::size_t>(d);
      pos[d] = d < dims ? (p[a] + s * dx * out[a]) / dx - 0.5 : 0.0;
      const double fl = std::floor(pos[d]);
      i0[d] = d < dims ? std::min<index_t>(std::max<index_t>(index_t(fl), 0), cells[a] - 2) : 0;
      frac[d] = d < dims ? pos[d] - double(i0[d]) : 0.0;
    }
    double v = 0.0;
    for (int corner = 0; corner < (1 << dims); ++corner) {
      double w = 1.0;
      index_t idx[3];
      for (int d = 0; d < 3; ++d) {
        const int bit = d < dims ? (corner >> d) & 1 : 0;
        idx[d] = i0[d] + bit;
        if (d < dims) w *= bit ? frac[d] : 1.0 - frac[d];
      }
      v += w * cell_value({idx[0], idx[1], idx[2]});
    }
    return v;
  };
  // Lagrange weights at 0 of the nodes 1.5, 2.5, 3.5.
  return 4.375 * sample(1.5) - 5.25 * sample(2.5) + 1.875 * sample(3.5);
}

double extrapolate_to_wall(const std::vector<double>& local, const io::Block& block, double dx,
                           const Real3& point, const Real3& out, const parallel::Comm& comm) {
  std::vector<Int3> need;
  extrapolate_to_wall([&](const Int3& c) { return need.push_back(c), 0.0; }, block.global, block.dims, dx,
                      point, out);
  std::vector<double> values(need.size(), 0.0);
  for (std::size_t k = 0; k < need.size(); ++k) {
    const Int3 c = need[k];
    bool mine = true;
    for (std::size_t a = 0; a < 3; ++a)
      mine = mine && c[a] >= block.offset[a] && c[a] < block.offset[a] + block.extent[a];
    if (mine)
      values[k] = local[static_cast<std::size_t>(
          ((c[2] - block.offset[2]) * block.extent[1] + (c[1] - block.offset[1])) * block.extent[0] +
          (c[0] - block.offset[0]))];
  }
  comm.sum(values);  // each cell has one owner: exact
  std::size_t k = 0;
  return extrapolate_to_wall([&](const Int3&) { return values[k++]; }, block.global, block.dims, dx, point,
                             out);
}

}  // namespace eddy::app
