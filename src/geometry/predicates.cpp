#include "geometry/predicates.hpp"

#include <cfloat>
#include <cmath>

// orient2d(a, b, c) = det[a - c, b - c]: > 0 when a, b, c turn counter-clockwise. A double evaluation
// whose sign is certain when |det| exceeds Shewchuk's error bound (1997, "Adaptive precision
// floating-point arithmetic and fast robust geometric predicates", ccwerrboundA); otherwise the exact
// sign from the expansion of det into six coordinate products, each split exactly into two doubles
// (fma), summed without error by Grow-Expansion (ibid., Theorem 10) with zero elimination: the sign of
// a nonoverlapping expansion is the sign of its largest component, the last one.

namespace eddy::geometry {

namespace {

inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bv = s - a;
  const double av = s - bv;
  e = (a - av) + (b - bv);
}

inline void grow_expansion(double* e, int& n, double b) {
  double q = b;
  int m = 0;
  for (int i = 0; i < n; ++i) {
    double s, h;
    two_sum(q, e[i], s, h);
    if (h != 0.0) e[m++] = h;
    q = s;
  }
  if (q != 0.0) e[m++] = q;
  n = m;
}

int exact_orient2d(double ax, double ay, double bx, double by, double cx, double cy) {
  // det = ax by - ax cy - cx by - ay bx + ay cx + cy bx (the cx cy terms cancel)
  const double f[6][2] = {{ax, by}, {-ax, cy}, {-cx, by}, {-ay, bx}, {ay, cx}, {cy, bx}};
  double e[13];
  int n = 0;
  for (const auto& xy : f) {
    const double p = xy[0] * xy[1];
    grow_expansion(e, n, std::fma(xy[0], xy[1], -p));  // the exact rounding error of p
    grow_expansion(e, n, p);
  }
  return n == 0 ? 0 : (e[n - 1] > 0.0 ? 1 : -1);
}

}  // namespace

int orient2d(double ax, double ay, double bx, double by, double cx, double cy) {
  constexpr double eps = DBL_EPSILON / 2;  // 2^-53
  constexpr double ccw_bound = (3.0 + 16.0 * eps) * eps;
  const double l = (ax - cx) * (by - cy);
  const double r = (ay - cy) * (bx - cx);
  const double det = l - r;
  const double bound = ccw_bound * (std::fabs(l) + std::fabs(r));
  if (det > bound) return 1;
  if (-det > bound) return -1;
  return exact_orient2d(ax, ay, bx, by, cx, cy);
}

}  // namespace eddy::geometry
