#pragma once
/// Boundary links: curved walls (Bouzidi interpolated bounce-back), open faces, and the momentum
/// exchange on bodies. Applied after a step, to a sparse list of links; bulk cells never see them.
///
/// A boundary link is a fluid cell x and a direction k such that x + c_k is not fluid (a body cell or a
/// ghost beyond an open face). The stream-collide kernel has already bounced back half-way across it:
/// with the AA pattern (stream_collide_k.hpp), after a step of either parity the population x will load
/// next along kbar = opposite(k), f_kbar(x, t+1), sits in x's own slot kbar and holds f*_k(x), the
/// post-collision population that left x towards the wall. The post pass replaces it:
///
/// Each kind is a file of its own with its formula and its references, registered in boundary_kinds.hpp:
/// boundary_body_k.hpp (curved walls, Bouzidi et al. 2001), boundary_velocity_inlet_k.hpp (Ladd 1994),
/// boundary_pressure_outlet_k.hpp (anti-bounce-back), boundary_outflow_k.hpp (zero gradient).
///
/// Where the post-collision value f*_j(y) lives after a step: after an even step in slot opp(j) of y;
/// after an odd step in slot j of y + c_j when that cell is fluid, else (bounced) in slot opp(j) of y.
/// All values of all links are computed first, then written (two launches), so no link reads a value
/// another link has already replaced.
#include <cstdint>
#include <vector>

#include "backend/macros.hpp"
#include "field/grid.hpp"
#include "lbm/collide_k.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {

/// The kinds of link (boundary_kinds.hpp has the file of each).
enum LinkKind : int { body_link = 0, inlet_link = 1, pressure_link = 2, outflow_link = 3 };

/// One boundary link (see above), built on the host from the flags and the bodies.
struct BoundaryLink {
  index_t cell = 0;  ///< padded index of the fluid cell x
  index_t aux = -1;  ///< body: x - c_k when fluid; outflow: x - n + c_k when fluid; else -1
  int k = 0;         ///< direction from x towards the wall
  int kind = body_link;
  unsigned faces = 0;      ///< wrapped_faces() of x (stream_collide_k.hpp), found once on the host
  unsigned aux_faces = 0;  ///< wrapped_faces() of aux
  int body = -1;           ///< index of the body (body links)
  double q = 0.5;          ///< body: wall position as a fraction of the link from x
  double u[3] = {};        ///< velocity_inlet: lattice velocity of the wall at full ramp
  double drho = 0.0;       ///< pressure_outlet: rho_w - 1
};

/// Fixed-point unit of the per-link momentum exchange.
constexpr double force_scale = 1099511627776.0;  // 2^40

/// f*_j(y) after a step of parity `odd` (see above); y + c_j wraps around the block's periodic axes
/// like the kernels' neighbours (stream_collide_k.hpp): `faces` are y's wrapped faces.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE double post_value(const StreamCollideArgs<T, R>& a, bool odd, int j, index_t y,
                                      unsigned faces) {
  const index_t N = a.grid.n_padded;
  if (odd) {
    const index_t m = neighbour<L>(y, faces, j, +1, a);
    if ((a.flags[m] & kind_mask) == fluid) return double(load_pop<R>(a.f[j * N + m]));
  }
  return double(load_pop<R>(a.f[opposite(j) * N + y]));
}

/// The moments of cell y from its post-collision populations after a step of parity `odd` (collision
/// keeps mass and momentum): drho = rho - 1 and the momentum j.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void post_moments(const StreamCollideArgs<T, R>& a, bool odd, index_t y, unsigned faces,
                                      double& drho, double (&j)[3]) {
  drho = 0.0, j[0] = j[1] = j[2] = 0.0;
  for (int i = 0; i < L::q; ++i) {
    const double fi = post_value<L>(a, odd, i, y, faces);
    drho += fi;
    for (int d = 0; d < 3; ++d) j[d] += fi * L::c(i, d);
  }
}

/// Where an open face's link is set up on the host (boundary_links.hpp): the face it leaves through, the
/// global cell of x, and what finds x's neighbours as the kernels do. A kind's `make` fills its data.
template <class T, class R>
struct OpenLinkSite {
  const Setup& setup;
  int face;                             ///< x_min, x_max, y_min, ... (0..5)
  const index_t* x;                     ///< global cell of x (3 entries)
  const StreamCollideArgs<T, R>& args;  ///< the grid, for neighbour()
  const std::vector<std::uint8_t>& flags;
  unsigned wrap_axes;
  bool is_fluid(index_t m) const { return (flags[static_cast<std::size_t>(m)] & kind_mask) == fluid; }
};

}  // namespace eddy::lbm
