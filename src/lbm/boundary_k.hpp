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
///   body, Bouzidi et al. (2001), wall at the fraction q of the link from x:
///     q <  1/2: f_kbar(x) = 2q f*_k(x) + (1 - 2q) f*_k(x - c_k)
///     q >= 1/2: f_kbar(x) = f*_k(x) / (2q) + (2q - 1) / (2q) f*_kbar(x)
///     (q = 1/2, or no fluid cell at x - c_k: half-way bounce-back, the value already there);
///   velocity_inlet: bounce-back from a wall moving with the inflow velocity u_w at the cell's row,
///     f_kbar(x) = f*_k(x) - 6 w_k rho(x) (c_k . u_w)  (Ladd 1994);
///   pressure_outlet: anti-bounce-back (Izquierdo & Fueyo-Ruiz 2008; Krueger et al. 2017, 5.3.4),
///     f_kbar(x) = -f*_k(x) + 2 w_k rho_w (1 + 9/2 (c_k . u)^2 - 3/2 u . u), u = u(x);
///   outflow: zero gradient along the face normal n, f_kbar(x) = f_kbar(x - n) (streamed this step).
///
/// Where the post-collision value f*_j(y) lives after a step: after an even step in slot opp(j) of y;
/// after an odd step in slot j of y + c_j when that cell is fluid, else (bounced) in slot opp(j) of y.
/// All values of all links are computed first, then written (two launches), so no link reads a value
/// another link has already replaced. Body links also give their momentum exchange (Ladd 1994), the
/// momentum the fluid hands the body along the link, c_k (f*_k(x) + f_kbar(x)): for a resting body this
/// is Wen et al.'s (2014) Galilean-invariant form. It is stored per link as an exact fixed-point
/// integer (units of 2^-40), so the sum over links and ranks does not depend on their order: forces are
/// bitwise the same for any decomposition.
#include <cstdint>

#include "backend/macros.hpp"
#include "field/grid.hpp"
#include "lbm/collide_k.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {

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

/// The new f_kbar of link t (values[t]) and, for body links, its momentum exchange (3 integers at
/// force[3 t]). `ramp` scales the inflow velocity.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void boundary_link_value(const StreamCollideArgs<T, R>& a, bool odd,
                                             const BoundaryLink& l, double ramp, double& value,
                                             long long* force) {
  const int k = l.k, kb = opposite(k);
  const index_t x = l.cell;
  const double A = post_value<L>(a, odd, k, x, l.faces);
  double v = A;
  if (l.kind == body_link) {
    if (l.q < 0.5 && l.aux >= 0) {
      v = 2.0 * l.q * A + (1.0 - 2.0 * l.q) * post_value<L>(a, odd, k, l.aux, l.aux_faces);
    } else if (l.q > 0.5) {
      v = A / (2.0 * l.q) + (2.0 * l.q - 1.0) / (2.0 * l.q) * post_value<L>(a, odd, kb, x, l.faces);
    }
    // Momentum exchange with unshifted populations: f = f~ + w.
    const double m = A + v + 2.0 * L::w(k);
    for (int d = 0; d < 3; ++d) {
      const double c = m * L::c(k, d) * force_scale;
      force[d] = static_cast<long long>(c >= 0.0 ? c + 0.5 : c - 0.5);
    }
  } else if (l.kind == outflow_link) {
    if (l.aux >= 0) v = post_value<L>(a, odd, kb, l.aux, l.aux_faces);
  } else {
    // Moments of x from its post-collision populations (collision keeps mass and momentum).
    double drho = 0.0, j[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < L::q; ++i) {
      const double fi = post_value<L>(a, odd, i, x, l.faces);
      drho += fi;
      for (int d = 0; d < 3; ++d) j[d] += fi * L::c(i, d);
    }
    const double rho = 1.0 + drho;
    if (l.kind == inlet_link) {
      const double cu = L::c(k, 0) * l.u[0] + L::c(k, 1) * l.u[1] + L::c(k, 2) * l.u[2];
      v = A - 6.0 * L::w(k) * rho * cu * ramp;
    } else {  // pressure_link
      const double u[3] = {j[0] / rho, j[1] / rho, j[2] / rho};
      const double cu = L::c(k, 0) * u[0] + L::c(k, 1) * u[1] + L::c(k, 2) * u[2];
      const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
      v = -A - 2.0 * L::w(k) + 2.0 * L::w(k) * (1.0 + l.drho) * (1.0 + 4.5 * cu * cu - 1.5 * uu);
    }
  }
  value = v;
}

}  // namespace eddy::lbm
