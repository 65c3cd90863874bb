#pragma once
/// boundaries.<face>.type pressure_outlet: anti-bounce-back (Izquierdo & Fueyo-Ruiz 2008; Krueger et al.
/// 2017, 5.3.4) to the density rho_w of boundaries.<face>.pressure,
///   f_kbar(x) = -f*_k(x) + 2 w_k rho_w (1 + 9/2 (c_k . u)^2 - 3/2 u . u), u = u(x).
#include "lbm/boundary_k.hpp"

namespace eddy::lbm {

struct PressureOutlet {
  /// The link's data (host): rho_w - 1.
  template <class T, class R>
  static void make(BoundaryLink& l, const OpenLinkSite<T, R>& site) {
    l.drho = site.setup.outlet_drho[static_cast<std::size_t>(site.face)];
  }
  /// The new f_kbar of link `l`, whose f*_k(x) is `A`.
  template <class L, class T, class R>
  EDDY_HD EDDY_INLINE static double value(const StreamCollideArgs<T, R>& a, bool odd, const BoundaryLink& l,
                                          double A) {
    double drho, j[3];
    post_moments<L>(a, odd, l.cell, l.faces, drho, j);
    const double rho = 1.0 + drho;
    const int k = l.k;
    const double u[3] = {j[0] / rho, j[1] / rho, j[2] / rho};
    const double cu = L::c(k, 0) * u[0] + L::c(k, 1) * u[1] + L::c(k, 2) * u[2];
    const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    return -A - 2.0 * L::w(k) + 2.0 * L::w(k) * (1.0 + l.drho) * (1.0 + 4.5 * cu * cu - 1.5 * uu);
  }
};

}  // namespace eddy::lbm
