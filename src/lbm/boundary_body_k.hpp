#pragma once
/// Curved walls of bodies: Bouzidi et al. (2001) interpolated bounce-back, the wall at the fraction q of
/// the link from x (boundary_k.hpp has what a link is and where f*_j(y) lives):
///   q <  1/2: f_kbar(x) = 2q f*_k(x) + (1 - 2q) f*_k(x - c_k)
///   q >= 1/2: f_kbar(x) = f*_k(x) / (2q) + (2q - 1) / (2q) f*_kbar(x)
///   (q = 1/2, or no fluid cell at x - c_k: half-way bounce-back, the value already there).
/// Each link also gives its momentum exchange (Ladd 1994), the momentum the fluid hands the body along the
/// link, c_k (f*_k(x) + f_kbar(x)): for a resting body this is Wen et al.'s (2014) Galilean-invariant
/// form. It is stored per link as an exact fixed-point integer (units of 2^-40, force_scale), so the sum
/// over links and ranks does not depend on their order: forces are bitwise the same for any
/// decomposition. The links and their q are set up by make_boundary_links (boundary_links.hpp) from the
/// bodies' shapes.
#include "lbm/boundary_k.hpp"

namespace eddy::lbm {

struct BodyWall {
  /// The new f_kbar of link `l`, whose f*_k(x) is `A`, and its momentum exchange (3 integers at `force`).
  template <class L, class T, class R>
  EDDY_HD EDDY_INLINE static double value(const StreamCollideArgs<T, R>& a, bool odd, const BoundaryLink& l,
                                          double A, long long* force) {
    const int k = l.k, kb = opposite(k);
    double v = A;
    if (l.q < 0.5 && l.aux >= 0) {
      v = 2.0 * l.q * A + (1.0 - 2.0 * l.q) * post_value<L>(a, odd, k, l.aux, l.aux_faces);
    } else if (l.q > 0.5) {
      v = A / (2.0 * l.q) + (2.0 * l.q - 1.0) / (2.0 * l.q) * post_value<L>(a, odd, kb, l.cell, l.faces);
    }
    // Momentum exchange with unshifted populations: f = f~ + w.
    const double m = A + v + 2.0 * L::w(k);
    for (int d = 0; d < 3; ++d) {
      const double c = m * L::c(k, d) * force_scale;
      force[d] = static_cast<long long>(c >= 0.0 ? c + 0.5 : c - 0.5);
    }
    return v;
  }
};

}  // namespace eddy::lbm
