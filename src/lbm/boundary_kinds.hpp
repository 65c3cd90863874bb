#pragma once
/// The registry of boundary link kinds: each kind's file, the open face kinds' links (host), and the
/// value of a link of any kind (device). A new kind is its file, its LinkKind (boundary_k.hpp) and its
/// lines here (lbm/README.md, "Adding a boundary kind").
#include "lbm/boundary_body_k.hpp"
#include "lbm/boundary_k.hpp"
#include "lbm/boundary_outflow_k.hpp"
#include "lbm/boundary_pressure_outlet_k.hpp"
#include "lbm/boundary_velocity_inlet_k.hpp"
#include "lbm/lbm_solver.hpp"

namespace eddy::lbm {

/// Set up link `l` (cell, k, faces filled) of a face of open kind `kind`: its LinkKind and its data.
template <class L, class T, class R>
void make_open_link(FaceKind kind, BoundaryLink& l, const OpenLinkSite<T, R>& site) {
  switch (kind) {
    case FaceKind::velocity_inlet:
      l.kind = inlet_link, VelocityInlet::make(l, site);
      break;
    case FaceKind::pressure_outlet:
      l.kind = pressure_link, PressureOutlet::make(l, site);
      break;
    default:  // outflow
      l.kind = outflow_link, Outflow::make<L>(l, site);
      break;
  }
}

/// The new f_kbar of link `l` (`value`) and, for body links, its momentum exchange (3 integers at
/// `force`). `ramp` scales the inflow velocity.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void boundary_link_value(const StreamCollideArgs<T, R>& a, bool odd,
                                             const BoundaryLink& l, double ramp, double& value,
                                             long long* force) {
  const double A = post_value<L>(a, odd, l.k, l.cell, l.faces);
  switch (l.kind) {
    case body_link:
      value = BodyWall::value<L>(a, odd, l, A, force);
      break;
    case inlet_link:
      value = VelocityInlet::value<L>(a, odd, l, A, ramp);
      break;
    case pressure_link:
      value = PressureOutlet::value<L>(a, odd, l, A);
      break;
    default:  // outflow_link
      value = Outflow::value<L>(a, odd, l, A);
      break;
  }
}

}  // namespace eddy::lbm
