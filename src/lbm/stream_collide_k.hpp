#pragma once
/// One fused LBM update of one cell with the AA pattern (Bailey et al. 2009): a single population
/// array, updated in place, alternating between two kinds of step.
///
///   even step: read f_i from the cell's own slot i, collide, write f*_i to its own slot opp(i).
///   odd step:  read f_i from slot opp(i) of the upstream cell x - c_i, collide, write f*_i to slot i
///              of the downstream cell x + c_i.
/// Every memory location a thread reads is written by that same thread, so no cell depends on the
/// order in which cells are updated: results are bitwise independent of thread count and blocking.
///
/// Half-way bounce-back lives in the odd step: a population that would come from (go to) a solid cell
/// is taken from (put back into) the cell's own slot of the opposite direction, with the moving-wall
/// term 2 w_i rho_w (c_i . u_w) / c_s^2 (Ladd 1994, rho_w = 1). Even steps need no boundary logic.
#include <cstdint>

#include "backend/macros.hpp"
#include "field/grid.hpp"
#include "lbm/collide_k.hpp"

namespace eddy::lbm {

/// Cell kinds in the flag field (the low bits), plus one bit of fluid cells.
enum CellFlag : std::uint8_t {
  fluid = 0,         ///< updated by the kernels (ghost cells of periodic/MPI faces are fluid too)
  wall = 1,          ///< resting solid: half-way bounce-back
  moving_wall = 2,   ///< moving solid; codes 2..7 are the moving walls of faces x_min..z_max
  kind_mask = 0x07,  ///< the bits of the kind
  near_solid = 0x80  ///< set on fluid cells with a solid neighbour along some lattice link
};
constexpr int max_flag = 8;

/// What a stream-collide kernel needs, passed by value.
template <class T, class R>
struct StreamCollideArgs {
  T* f;                       ///< populations, slot i of padded cell n at f[i * grid.n_padded + n]
  const std::uint8_t* flags;  ///< one flag per padded cell
  field::PaddedGrid grid;
  R wall_u[max_flag][3];  ///< lattice velocity of each moving-wall code
  R force[3];             ///< body force per unit volume, lattice units (shifts the velocity by F/2 rho)
};

/// Moving-wall correction 6 w_i (c_i . u_w) for a population leaving a wall of code `flag` along c_i.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE R wall_term(const StreamCollideArgs<T, R>& a, int i, std::uint8_t flag) {
  if (flag < moving_wall) return R(0);
  const R* uw = a.wall_u[flag];
  return R(6.0 * L::w(i)) * (R(L::c(i, 0)) * uw[0] + R(L::c(i, 1)) * uw[1] + R(L::c(i, 2)) * uw[2]);
}

/// Populations f_i(x, t) of padded cell n at the start of a step of kind Odd: the cell's own slots
/// before an even step; before an odd step, the upstream cells' post-collision values (this is the
/// streaming), with bounce-back from solid neighbours. `near` is whether the cell has a solid
/// neighbour (its near_solid bit): only then are the neighbours' flags read, one byte per link; the
/// bulk of a domain streams without them.
template <class L, bool Odd, class T, class R>
EDDY_HD EDDY_INLINE void load(index_t n, const StreamCollideArgs<T, R>& a, bool near, R (&f)[L::q]) {
  const index_t N = a.grid.n_padded;
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    if constexpr (!Odd) {
      f[i] = R(a.f[i * N + n]);
    } else {
      const index_t m = n - a.grid.offset(L::c(i, 0), L::c(i, 1), L::c(i, 2));
      const std::uint8_t fl = near ? std::uint8_t(a.flags[m] & kind_mask) : std::uint8_t(fluid);
      if (fl == fluid)
        f[i] = R(a.f[opposite(i) * N + m]);
      else
        f[i] = R(a.f[i * N + n]) + wall_term<L>(a, i, fl);
    }
  }
}

/// Update padded cell n; Odd selects the kind of step.
template <class L, bool Odd, class T, class R, class Collision>
EDDY_HD EDDY_INLINE void stream_collide(index_t n, const StreamCollideArgs<T, R>& a,
                                        const Collision& collide) {
  const index_t N = a.grid.n_padded;
  // A solid cell inside the block (a body) takes no odd step: it would stream into its fluid
  // neighbours' slots. Its even step touches only its own slots, which no fluid cell reads.
  const std::uint8_t own = Odd ? a.flags[n] : std::uint8_t(fluid);
  if (Odd && (own & kind_mask) != fluid) return;
  const bool near = Odd && (own & near_solid);
  R f[L::q];
  load<L, Odd>(n, a, near, f);
  R drho, u[3];
  moments<L>(f, drho, u, a.force);
  collide.template operator()<L>(f, drho, u);
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    if constexpr (!Odd) {
      a.f[opposite(i) * N + n] = T(f[i]);
    } else {
      const index_t m = n + a.grid.offset(L::c(i, 0), L::c(i, 1), L::c(i, 2));
      const std::uint8_t fl = near ? std::uint8_t(a.flags[m] & kind_mask) : std::uint8_t(fluid);
      if (fl == fluid)
        a.f[i * N + m] = T(f[i]);
      else
        a.f[opposite(i) * N + n] = T(f[i] - wall_term<L>(a, i, fl));
    }
  }
}

/// Populations f_i(x, t) of padded cell n at the current time: those the next step will load (after an
/// even step, that load is the streaming of the odd step). A solid cell reads as fluid at rest.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void cell_populations(index_t n, const StreamCollideArgs<T, R>& a, bool next_odd,
                                          R (&f)[L::q]) {
  if ((a.flags[n] & kind_mask) != fluid) {  // a body cell: at rest, reference density
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] = R(0);
    return;
  }
  if (next_odd)
    load<L, true>(n, a, (a.flags[n] & near_solid) != 0, f);
  else
    load<L, false>(n, a, false, f);
}

/// Density deviation and velocity of padded cell n at the current time.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void cell_moments(index_t n, const StreamCollideArgs<T, R>& a, bool next_odd, R& drho,
                                      R (&u)[3]) {
  R f[L::q];
  cell_populations<L>(n, a, next_odd, f);
  moments<L>(f, drho, u, a.force);
}

}  // namespace eddy::lbm
