#pragma once
/// boundaries.<face>.type velocity_inlet: bounce-back from a wall moving with the inflow velocity u_w at
/// the cell's row (Ladd 1994), f_kbar(x) = f*_k(x) - 6 w_k rho(x) (c_k . u_w), u_w ramped up over
/// boundaries.<face>.ramp_time (uniform or parabolic profile: lbm::inlet_velocity).
#include "lbm/boundary_k.hpp"

namespace eddy::lbm {

struct VelocityInlet {
  /// The link's data (host): the lattice velocity of the wall at full ramp at x's row.
  template <class T, class R>
  static void make(BoundaryLink& l, const OpenLinkSite<T, R>& site) {
    index_t x[3] = {site.x[0], site.x[1], site.x[2]};
    const Real3 v = inlet_velocity(site.setup, site.face, x);
    for (std::size_t d = 0; d < 3; ++d) l.u[d] = v[d];
  }
  /// The new f_kbar of link `l`, whose f*_k(x) is `A`; `ramp` scales the inflow velocity.
  template <class L, class T, class R>
  EDDY_HD EDDY_INLINE static double value(const StreamCollideArgs<T, R>& a, bool odd, const BoundaryLink& l,
                                          double A, double ramp) {
    double drho, j[3];
    post_moments<L>(a, odd, l.cell, l.faces, drho, j);
    const double rho = 1.0 + drho;
    const int k = l.k;
    const double cu = L::c(k, 0) * l.u[0] + L::c(k, 1) * l.u[1] + L::c(k, 2) * l.u[2];
    return A - 6.0 * L::w(k) * rho * cu * ramp;
  }
};

}  // namespace eddy::lbm
