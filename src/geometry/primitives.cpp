#include "geometry/primitives.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace eddy::geometry {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
/// "The segment never enters this piece."
constexpr double never = inf;

double dot(const Real3& a, const Real3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Real3 sub(const Real3& a, const Real3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Real3 axpy(double s, const Real3& x, const Real3& y) {
  return {s * x[0] + y[0], s * x[1] + y[1], s * x[2] + y[2]};
}

/// Where a + t d enters the slab lo <= s0 + t ds <= hi: 0 when it starts inside, `never` when it misses.
double enter_slab(double s0, double ds, double lo, double hi) {
  if (s0 >= lo && s0 <= hi) return 0.0;
  if (ds == 0.0) return never;
  const double t = ((s0 < lo ? lo : hi) - s0) / ds;
  return t >= 0.0 ? t : never;
}

/// Where w + t d (w relative to the centre) enters the round set |w + t d|^2 <= r^2 (A = d.d, B = w.d,
/// C = w.w - r^2): the smaller root of A t^2 + 2 B t + C, in the cancellation-free form C / (-B + sqrt(D)).
double enter_round(double A, double B, double C) {
  if (C <= 0.0) return 0.0;
  const double D = B * B - A * C;
  if (A == 0.0 || D < 0.0) return never;
  const double den = -B + std::sqrt(D);
  if (!(den > 0.0)) return never;
  return C / den;
}

/// The entry parameter of the body clamped to [0, 1], or -1 when a piece says the segment misses
/// (b was asked as inside, so only rounding at a grazing link gets here).
double finish(double t) { return t == never ? -1.0 : std::min(1.0, std::max(0.0, t)); }

std::string fmt3(const Real3& v) {
  std::ostringstream s;
  s << "(" << v[0] << ", " << v[1] << ", " << v[2] << ")";
  return s.str();
}

}  // namespace

Cylinder::Cylinder(const Real3& centre, double radius, const Real3& axis, double length)
    : c_(centre), axis_(axis), r_(radius), half_(0.5 * length) {
  const double n = std::sqrt(dot(axis, axis));
  if (!(n > 0.0)) throw InputError("cylinder: the axis must not be the zero vector");
  if (!(radius > 0.0) || !(length > 0.0)) throw InputError("cylinder: radius and length must be > 0");
  for (double& x : axis_) x /= n;
}

bool Cylinder::inside(const Real3& p) const {
  const Real3 w = sub(p, c_);
  const double s = dot(w, axis_);
  const Real3 perp = axpy(-s, axis_, w);
  return dot(perp, perp) < r_ * r_ && std::fabs(s) < half_;
}

double Cylinder::crossing(const Real3& a, const Real3& b) const {
  const Real3 w = sub(a, c_), d = sub(b, a);
  const double s0 = dot(w, axis_), ds = dot(d, axis_);
  const Real3 wp = axpy(-s0, axis_, w), dp = axpy(-ds, axis_, d);
  const double t_tube = enter_round(dot(dp, dp), dot(wp, dp), dot(wp, wp) - r_ * r_);
  const double t_slab = std::isinf(half_) ? 0.0 : enter_slab(s0, ds, -half_, half_);
  return finish(std::max(t_tube, t_slab));
}

Aabb Cylinder::bounds() const {
  Aabb box;
  for (std::size_t k = 0; k < 3; ++k) {
    // Extent of a disc of radius r normal to the axis along k is r sqrt(1 - n_k^2); the caps add |n_k| h.
    const double radial = r_ * std::sqrt(std::max(0.0, 1.0 - axis_[k] * axis_[k]));
    const double along = axis_[k] == 0.0 ? 0.0 : std::fabs(axis_[k]) * half_;
    box.lo[k] = c_[k] - radial - along;
    box.hi[k] = c_[k] + radial + along;
  }
  return box;
}

std::string Cylinder::describe() const {
  std::ostringstream s;
  s << "cylinder of radius " << r_ << " about " << fmt3(c_) << " along " << fmt3(axis_);
  if (!std::isinf(half_)) s << ", length " << 2 * half_;
  return s.str();
}

Sphere::Sphere(const Real3& centre, double radius) : c_(centre), r_(radius) {
  if (!(radius > 0.0)) throw InputError("sphere: the radius must be > 0");
}

bool Sphere::inside(const Real3& p) const {
  const Real3 w = sub(p, c_);
  return dot(w, w) < r_ * r_;
}

double Sphere::crossing(const Real3& a, const Real3& b) const {
  const Real3 w = sub(a, c_), d = sub(b, a);
  return finish(enter_round(dot(d, d), dot(w, d), dot(w, w) - r_ * r_));
}

Aabb Sphere::bounds() const {
  return {{c_[0] - r_, c_[1] - r_, c_[2] - r_}, {c_[0] + r_, c_[1] + r_, c_[2] + r_}};
}

std::string Sphere::describe() const {
  std::ostringstream s;
  s << "sphere of radius " << r_ << " about " << fmt3(c_);
  return s.str();
}

Box::Box(const Real3& lo, const Real3& hi) : box_{lo, hi} {
  for (std::size_t k = 0; k < 3; ++k)
    if (!(lo[k] < hi[k])) throw InputError("box: every lo must be below its hi");
}

bool Box::inside(const Real3& p) const {
  for (std::size_t k = 0; k < 3; ++k)
    if (!(p[k] > box_.lo[k] && p[k] < box_.hi[k])) return false;
  return true;
}

double Box::crossing(const Real3& a, const Real3& b) const {
  double t = 0.0;
  for (std::size_t k = 0; k < 3; ++k) t = std::max(t, enter_slab(a[k], b[k] - a[k], box_.lo[k], box_.hi[k]));
  return finish(t);
}

Aabb Box::bounds() const { return box_; }

std::string Box::describe() const { return "box from " + fmt3(box_.lo) + " to " + fmt3(box_.hi); }

}  // namespace eddy::geometry
