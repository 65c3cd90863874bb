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

/// Cell kinds in the flag field (the low bits), plus two bits of fluid cells.
enum CellFlag : std::uint8_t {
  fluid = 0,          ///< updated by the kernels (ghost cells of periodic/MPI faces are fluid too)
  wall = 1,           ///< resting solid: half-way bounce-back
  moving_wall = 2,    ///< moving solid; codes 2..7 are the moving walls of faces x_min..z_max
  kind_mask = 0x07,   ///< the bits of the kind
  wraps = 0x40,       ///< set on fluid cells with a link across a periodic face that the block wraps
                      ///< itself (StreamCollideArgs::wrap_axes): their neighbours there are the images
  near_solid = 0x80,  ///< set on fluid cells with a solid neighbour along some lattice link
  special = wraps | near_solid  ///< the cells that take the general (not the bulk) update
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
  unsigned wrap_axes;     ///< bit d: axis d is periodic within this block (one block spans it): links
                          ///< across it go straight to the image cell, no ghost copy between steps
};

/// Padded coordinates of a cell, for neighbour lookups that wrap around the block's periodic axes.
struct WrappedCell {
  index_t p[3] = {0, 0, 0};
  WrappedCell() = default;
  EDDY_HD EDDY_INLINE WrappedCell(const field::PaddedGrid& g, index_t n)
      : p{n % g.sx, (n / g.sx) % (g.ny + 2 * g.g), n / g.sy} {}
  /// Padded index of the cell at offset (cx, cy, cz), wrapped along the axes of `axes` (bit d: axis d).
  EDDY_HD EDDY_INLINE index_t neighbour(const field::PaddedGrid& g, unsigned axes, int cx, int cy, int cz) const {
    const int c[3] = {cx, cy, cz};
    const index_t lo[3] = {g.g, g.g, g.gz}, ext[3] = {g.nx, g.ny, g.nz};
    index_t q[3];
    EDDY_UNROLL for (int d = 0; d < 3; ++d) {
      q[d] = p[d] + c[d];
      if ((axes >> d) & 1u) q[d] += q[d] < lo[d] ? ext[d] : (q[d] >= lo[d] + ext[d] ? -ext[d] : 0);
    }
    return g.padded(q[0], q[1], q[2]);
  }
};

/// The neighbours of one cell: n + s c_i (s = +1 downstream, -1 upstream) by a fixed offset in the bulk;
/// for a `Special` cell with the wraps bit, through WrappedCell.
template <class L, bool Special, class T, class R>
struct Neighbours {
  index_t n;
  const StreamCollideArgs<T, R>& a;
  bool wrap = false;
  WrappedCell w{};
  EDDY_HD EDDY_INLINE Neighbours(index_t n_, const StreamCollideArgs<T, R>& a_) : n(n_), a(a_) {
    if constexpr (Special) {
      wrap = (a.flags[n] & wraps) != 0;
      if (wrap) w = WrappedCell(a.grid, n);
    }
  }
  EDDY_HD EDDY_INLINE index_t operator()(int i, int s) const {
    if (Special && wrap) return w.neighbour(a.grid, a.wrap_axes, s * L::c(i, 0), s * L::c(i, 1), s * L::c(i, 2));
    return n + s * a.grid.offset(L::c(i, 0), L::c(i, 1), L::c(i, 2));
  }
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
/// streaming), with bounce-back from solid neighbours. `Special` is whether the cell has a solid
/// neighbour or wraps (its `special` bits): only then are the neighbours' flags read, one byte per link,
/// and wrapped neighbours found. It is a compile-time flag so that the bulk of a domain streams with
/// unconditional loads and stores, all of them in flight at once; with a run-time flag the per-link
/// branches kept the odd step's loads apart (half the even step's bandwidth on an H200).
template <class L, bool Odd, bool Special, class T, class R>
EDDY_HD EDDY_INLINE void load(index_t n, const StreamCollideArgs<T, R>& a, R (&f)[L::q]) {
  const index_t N = a.grid.n_padded;
  [[maybe_unused]] const Neighbours<L, Special, T, R> at(n, a);
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    if constexpr (!Odd) {
      f[i] = R(a.f[i * N + n]);
    } else {
      const index_t m = at(i, -1);
      const std::uint8_t fl = Special ? std::uint8_t(a.flags[m] & kind_mask) : std::uint8_t(fluid);
      if (fl == fluid)
        f[i] = R(a.f[opposite(i) * N + m]);
      else
        f[i] = R(a.f[i * N + n]) + wall_term<L>(a, i, fl);
    }
  }
}

/// Post-collision populations of padded cell n back into the array: its own slots opp(i) after an even
/// step; after an odd step slot i of the downstream cells, or bounced back into the cell's own slot
/// opp(i) where the downstream cell is solid (Special, as in load()).
template <class L, bool Odd, bool Special, class T, class R>
EDDY_HD EDDY_INLINE void store(index_t n, const StreamCollideArgs<T, R>& a, const R (&f)[L::q]) {
  const index_t N = a.grid.n_padded;
  [[maybe_unused]] const Neighbours<L, Special, T, R> at(n, a);
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    if constexpr (!Odd) {
      a.f[opposite(i) * N + n] = T(f[i]);
    } else {
      const index_t m = at(i, +1);
      const std::uint8_t fl = Special ? std::uint8_t(a.flags[m] & kind_mask) : std::uint8_t(fluid);
      if (fl == fluid)
        a.f[i * N + m] = T(f[i]);
      else
        a.f[opposite(i) * N + n] = T(f[i] - wall_term<L>(a, i, fl));
    }
  }
}

/// One cell's update with the kind of step and the special case fixed at compile time.
template <class L, bool Odd, bool Special, class T, class R, class Collision>
EDDY_HD EDDY_INLINE void stream_collide_cell(index_t n, const StreamCollideArgs<T, R>& a,
                                             const Collision& collide) {
  R f[L::q];
  load<L, Odd, Special>(n, a, f);
  R drho, u[3];
  moments<L>(f, drho, u, a.force);
  collide.template operator()<L>(f, drho, u);
  store<L, Odd, Special>(n, a, f);
}

/// Update padded cell n; Odd selects the kind of step.
template <class L, bool Odd, class T, class R, class Collision>
EDDY_HD EDDY_INLINE void stream_collide(index_t n, const StreamCollideArgs<T, R>& a,
                                        const Collision& collide) {
  if constexpr (Odd) {
    // A solid cell inside the block (a body) takes no odd step: it would stream into its fluid
    // neighbours' slots. Its even step touches only its own slots, which no fluid cell reads.
    const std::uint8_t own = a.flags[n];
    if ((own & kind_mask) != fluid) return;
    if (own & special)
      stream_collide_cell<L, true, true>(n, a, collide);
    else
      stream_collide_cell<L, true, false>(n, a, collide);
  } else {
    stream_collide_cell<L, false, false>(n, a, collide);
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
  if (!next_odd)
    load<L, false, false>(n, a, f);
  else if (a.flags[n] & special)
    load<L, true, true>(n, a, f);
  else
    load<L, true, false>(n, a, f);
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
