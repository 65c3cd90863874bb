#pragma once
/// boundaries.<face>.type outflow: zero gradient along the face normal n, f_kbar(x) = f_kbar(x - n), the
/// value streamed into x - n this step: f*_kbar(x - n + c_k), found where boundary_k.hpp's post_value
/// finds it (half-way bounce-back when x - n + c_k is not fluid).
#include "lbm/boundary_k.hpp"

namespace eddy::lbm {

struct Outflow {
  /// The link's data (host): aux = x - n + c_k when fluid.
  template <class L, class T, class R>
  static void make(BoundaryLink& l, const OpenLinkSite<T, R>& site) {
    const int axis = site.face / 2, nrm = site.face % 2 == 0 ? -1 : 1;  // outward normal along the axis
    // x - n + c_k: in x's own layer (c_k leaves through the face), so inside the padded block.
    int c[3] = {L::c(l.k, 0), L::c(l.k, 1), L::c(l.k, 2)};
    c[axis] -= nrm;
    int j = 0;  // the lattice direction c_k - n: c_k without its normal component is one
    while (j < L::q && (L::c(j, 0) != c[0] || L::c(j, 1) != c[1] || L::c(j, 2) != c[2])) ++j;
    const index_t aux = neighbour<L>(l.cell, l.faces, j, +1, site.args);
    if (site.is_fluid(aux)) l.aux = aux, l.aux_faces = wrapped_faces(site.args.grid, site.wrap_axes, aux);
  }
  /// The new f_kbar of link `l`, whose f*_k(x) is `A`.
  template <class L, class T, class R>
  EDDY_HD EDDY_INLINE static double value(const StreamCollideArgs<T, R>& a, bool odd, const BoundaryLink& l,
                                          double A) {
    return l.aux >= 0 ? post_value<L>(a, odd, opposite(l.k), l.aux, l.aux_faces) : A;
  }
};

}  // namespace eddy::lbm
