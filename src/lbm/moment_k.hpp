#pragma once
/// The update of one cell in moment storage (numerics.storage: moments; lbm/moment_solver.hpp): a cell's
/// state is the density deviation, the velocity and the non-equilibrium stress of the populations it
/// holds before it collides, 1 + d + d(d + 1)/2 numbers (10 in 3D, 6 in 2D) instead of q populations.
///
/// The recursive regularized operator (collision_regularized_k.hpp) rebuilds a cell's post-collision
/// populations from exactly these numbers, so they are the whole state of a regularized run: a step
/// takes, for every link i of a cell x, the upstream cell's moments, relaxes them
/// (Regularized::relax) and rebuilds the one population f*_i(x - c_i) it sends along i
/// (Regularized::population); that is the streaming. Where the upstream cell is solid, the cell's own
/// f*_opp(i) comes back with the moving-wall term (half-way bounce-back, as the population storage
/// does: stream_collide_k.hpp). The new moments of the populations it received are the cell's new
/// state. With populations stored the same arithmetic runs in a different order of memory accesses
/// (the AA pattern), so on a periodic box the two storages give bitwise the same moments, step after
/// step (tests/unit/test_lbm_moments.cpp). A step reads the moments of the previous one and writes
/// those of the next into a second array: the state moves 2 (1 + d + d(d + 1)/2) numbers a cell.
///
/// A cell's relaxed state is what each of its downstream neighbours rebuilds a population from, so the
/// update runs as a tile launch (backend::parallel_for_tiles): each cell of a tile and its halo relaxes
/// once (`stage_relaxed`) into shared memory on a GPU (a buffer in a core's cache on the CPU), then each
/// bulk cell takes the one population of each upstream neighbour it pulls (`moment_update_staged`):
/// staged as the cell's q post-collision populations, a word it reads; staged as the relaxed state (17
/// coefficients), a population it rebuilds. Relaxing each
/// upstream neighbour once per link instead made q times the arithmetic of one collision: the kernel was
/// bound by instructions at 63 % of the population storage's speed on an H100
/// (cases/benchmarks/results/2026-12-07-h100-moments). Cells next to a solid read the stored states
/// themselves (moment_update), as they need their neighbours' velocities and flags too. The arithmetic
/// of a population is the same in both, relax then population, so the order does not change a bit.
#include <cstdint>

#include "backend/backend.hpp"
#include "backend/macros.hpp"
#include "field/grid.hpp"
#include "lbm/collide_k.hpp"
#include "lbm/collision_regularized_k.hpp"
#include "lbm/storage_k.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {

/// Numbers of a cell's state in moment storage: drho, the d velocity components, the d(d + 1)/2
/// stress components (3D: xx yy zz xy xz yz; 2D: xx yy xy).
template <class L>
constexpr int moment_count() {
  return 1 + L::d + L::d * (L::d + 1) / 2;
}

/// What the moment update needs, passed by value. Slot k of padded cell n at m[k * grid.n_padded + n].
template <class T, class R>
struct MomentArgs {
  using Real = R;
  const T* m;                 ///< the state the step starts from (ghost cells: their images' states)
  T* out;                     ///< the state the step makes
  const std::uint8_t* flags;  ///< one flag per padded cell (stream_collide_k.hpp: CellFlag)
  field::PaddedGrid grid;
  R wall_u[max_flag][3];  ///< lattice velocity of each moving-wall code
  R force[3];             ///< body force per unit volume, lattice units
  unsigned wrap_axes;     ///< as StreamCollideArgs::wrap_axes
};

/// The stress slots of the 3D components xx yy zz xy xz yz in a cell's state (-1: none, in 2D).
template <class L>
EDDY_HD EDDY_INLINE constexpr int stress_slot(int c) {
  if constexpr (L::d == 3) {
    return 4 + c;
  } else {
    return c == 0 ? 3 : c == 1 ? 4 : c == 3 ? 5 : -1;
  }
}

/// The state of padded cell n in `m` (drho, u, stress; the components a 2D lattice lacks are 0). Through
/// the storage's one conversion point (storage_k.hpp): as stored in FP64 and FP32; 16-bit storage holds
/// the IEEE half of 2^13 times each number, as it holds the populations: 11 significant bits for every
/// moment from 2^-27 to 8 in magnitude (a density deviation, a lattice velocity, a stress all lie
/// below 1), the rounding the same on every backend.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void load_moments(const T* m, index_t N, std::uint32_t n, R& drho, R (&u)[3], R (&p)[6]) {
  drho = load_pop<R>(m[n]);
  EDDY_UNROLL for (int d = 0; d < 3; ++d) u[d] = d < L::d ? load_pop<R>(m[(1 + d) * N + n]) : R(0);
  EDDY_UNROLL for (int c = 0; c < 6; ++c) {
    const int k = stress_slot<L>(c);
    p[c] = k >= 0 ? load_pop<R>(m[k * N + n]) : R(0);
  }
}

/// Write the state of padded cell n into `m`.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void store_moments(T* m, index_t N, std::uint32_t n, R drho, const R (&u)[3],
                                       const R (&p)[6]) {
  m[n] = store_pop<T>(drho);
  EDDY_UNROLL for (int d = 0; d < L::d; ++d) m[(1 + d) * N + n] = store_pop<T>(u[d]);
  EDDY_UNROLL for (int c = 0; c < 6; ++c) {
    const int k = stress_slot<L>(c);
    if (k >= 0) m[k * N + n] = store_pop<T>(p[c]);
  }
}

/// The state of populations f (shifted, frame 1): moments() and pi_neq(), the Guo correction with a force.
template <class L, bool Force, class R>
EDDY_HD EDDY_INLINE void state_of(const R (&f)[L::q], const R (&force)[3], R& drho, R (&u)[3], R (&p)[6]) {
  moments<L>(f, drho, u, force);
  pi_neq<L, Force>(f, drho, u, force, p);
}

/// The relaxed state of padded cell m (its state in a.m relaxed by `collide`): the coefficients each of
/// its post-collision populations follows from (Regularized::population).
template <class L, class T, class R, class C>
EDDY_HD EDDY_INLINE RegularizedState<R> relaxed_state(std::uint32_t m, const MomentArgs<T, R>& a,
                                                      const C& collide) {
  R drho, u[3], p[6];
  load_moments<L>(a.m, a.grid.n_padded, m, drho, u, p);
  return collide.template relax<L>(drho, u, p);
}

/// The q post-collision populations of a relaxed cell, one form of what a tile launch stages: each
/// downstream neighbour reads the one it pulls (f[i] of the cell x - c_i) as one word.
template <class L, class R>
struct RelaxedPopulations {
  R f[L::q];
};

/// What a tile launch stages of padded cell m: its relaxed state (the other form, whose populations each
/// downstream neighbour rebuilds) or its post-collision populations, each bit for bit
/// Regularized::population, so a population is the same number whichever cell rebuilds it. In 3D a pair of
/// opposite links at once (Regularized::populations); D2Q9 rebuilds them one at a time, the same numbers,
/// because there the pairs ran 9 % slower (one H100, 4096^2: 43,400 against 39,460 MLUPS).
template <class L, class T, class R, class C>
EDDY_HD EDDY_INLINE void stage_relaxed(std::uint32_t m, const MomentArgs<T, R>& a, const C& collide,
                                       RegularizedState<R>& s) {
  s = relaxed_state<L>(m, a, collide);
}
template <class L, class T, class R, class C>
EDDY_HD EDDY_INLINE void stage_relaxed(std::uint32_t m, const MomentArgs<T, R>& a, const C& collide,
                                       RelaxedPopulations<L, R>& s) {
  const RegularizedState<R> r = relaxed_state<L>(m, a, collide);
  if constexpr (L::d == 3) {
    C::template populations<L>(r, s.f);
  } else {
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) s.f[i] = C::template population<L>(i, r);
  }
}

/// Post-collision population i of a staged cell.
template <class L, class C, class R>
EDDY_HD EDDY_INLINE R staged_population(int i, const RegularizedState<R>& s) {
  return C::template population<L>(i, s);
}
template <class L, class C, class R>
EDDY_HD EDDY_INLINE R staged_population(int i, const RelaxedPopulations<L, R>& s) {
  return s.f[i];
}

/// The new state of padded cell n from the populations f it received.
template <class L, bool Force, class T, class R>
EDDY_HD EDDY_INLINE void store_received(index_t n, const R (&f)[L::q], const MomentArgs<T, R>& a) {
  R drho, u[3], p[6];
  state_of<L, Force>(f, a.force, drho, u, p);
  store_moments<L>(a.out, a.grid.n_padded, static_cast<std::uint32_t>(n), drho, u, p);
}

/// The update of bulk fluid cell n (no solid neighbour): population i is the one the upstream cell
/// x - c_i sends along i, from what `staged` holds of that cell (a tile launch's view; the image's across
/// a wrapped face).
template <class L, bool Force, class T, class R, class C, class S>
EDDY_HD EDDY_INLINE void moment_update_staged(index_t n, const backend::TileView<S>& staged,
                                              const MomentArgs<T, R>& a, const C&) {
  R f[L::q];
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] =
      staged_population<L, C>(i, staged.at(-L::c(i, 0), -L::c(i, 1), -L::c(i, 2)));
  store_received<L, Force>(n, f, a);
}

/// d u_b / d x_a along axis a of a cell with velocity u0, from its axis neighbours' velocities (side 0: the
/// cell - e_a, 1: + e_a): central where both are fluid; where one is solid, the one-sided second-order
/// difference through the wall's velocity half a cell away, (-4/3 u_w + u0 + 1/3 u_+) or
/// (4/3 u_w - u0 - 1/3 u_-); between two solids, (u_w+ - u_w-).
template <class R>
EDDY_HD EDDY_INLINE R wall_gradient(R u0, R lo, R hi, bool lo_solid, bool hi_solid) {
  if (!lo_solid && !hi_solid) return R(0.5) * (hi - lo);
  if (lo_solid && hi_solid) return hi - lo;
  if (lo_solid) return R(-4.0 / 3.0) * lo + u0 + R(1.0 / 3.0) * hi;
  return R(4.0 / 3.0) * hi - u0 - R(1.0 / 3.0) * lo;
}

/// The update of fluid cell n next to a solid (the near_solid flag), with wrapped `faces`
/// (stream_collide_k.hpp: Links): the populations it receives, from its upstream neighbours' relaxed
/// states or bounced back from a solid, and their moments into a.out. `Force`: the operator's, so the
/// stress is pi_neq's as the population storage's operator takes it.
///
/// The wall closure: a cell next to a solid stores as its stress the Chapman-Enskog one of its velocity
/// gradient, Pi_neq = -rho tau0 / 3 (grad u + grad u^T) (Guo's corrected tensor, the one relaxed:
/// collide_k.hpp), the gradient by differences of the velocities of the state the step starts from
/// (wall_gradient; a solid's velocity is its wall's), not the second moment of the populations it
/// received. Those carry what half-way bounce-back puts into the non-hydrodynamic moments, which the
/// regularization turns into stress at every step; with it the 2D cavity at Re 1000, 128^2 (tau 0.538)
/// never reached a steady state (residual 0.04 per L/U at t = 100, |u| up to 1.22 U), as the population
/// storage's regularized operator without its TRT closure (collision_regularized_k.hpp).
template <class L, bool Force, class T, class R, class C>
EDDY_HD EDDY_INLINE void moment_update(index_t n, unsigned faces, const MomentArgs<T, R>& a,
                                       const C& collide) {
  const Links l(n, faces, a.grid);
  const index_t N = a.grid.n_padded;
  R f[L::q];
  R drho0, u0[3], p0[6];
  load_moments<L>(a.m, N, l.n, drho0, u0, p0);
  const R v0[3] = {u0[0], u0[1], u0[2]};
  const RegularizedState<R> own = collide.template relax<L>(drho0, u0, p0);
  R side[3][2][3] = {};  // the axis neighbours' velocities: [axis][-e_a, +e_a][component]
  bool solid[3][2] = {{false, false}, {false, false}, {false, false}};
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    const std::uint32_t m = l.neighbour<L>(i, -1, a.grid);
    const auto fl = std::uint8_t(a.flags[m] & kind_mask);
    R drho, u[3], p[6];
    if (fl == fluid) {
      load_moments<L>(a.m, N, m, drho, u, p);
    } else {
      EDDY_UNROLL for (int d = 0; d < 3; ++d) u[d] = fl >= moving_wall ? a.wall_u[fl][d] : R(0);
    }
    const int axis = L::c(i, 0) != 0 ? 0 : L::c(i, 1) != 0 ? 1 : 2;
    if (i > 0 && L::c(i, 0) * L::c(i, 0) + L::c(i, 1) * L::c(i, 1) + L::c(i, 2) * L::c(i, 2) == 1) {
      const int s = L::c(i, axis) > 0 ? 0 : 1;  // the upstream cell x - c_i lies on the other side
      EDDY_UNROLL for (int d = 0; d < 3; ++d) side[axis][s][d] = u[d];
      solid[axis][s] = fl != fluid;
    }
    f[i] = fl == fluid ? C::template population<L>(i, collide.template relax<L>(drho, u, p))
                       : C::template population<L>(opposite(i), own) + wall_term<L>(a, i, fl);
  }
  R drho, u[3], p[6];
  state_of<L, Force>(f, a.force, drho, u, p);
  R g[3][3] = {};  // g[a][b] = d u_b / d x_a
  EDDY_UNROLL for (int ax = 0; ax < L::d; ++ax) {
    EDDY_UNROLL for (int b = 0; b < L::d; ++b) {
      g[ax][b] = wall_gradient(v0[b], side[ax][0][b], side[ax][1][b], solid[ax][0], solid[ax][1]);
    }
  }
  const R k = -(R(1) + drho) * collide.extras.tau0 * R(1.0 / 3.0);
  p[0] = k * R(2) * g[0][0], p[1] = k * R(2) * g[1][1], p[2] = k * R(2) * g[2][2];
  p[3] = k * (g[0][1] + g[1][0]), p[4] = k * (g[0][2] + g[2][0]), p[5] = k * (g[1][2] + g[2][1]);
  store_moments<L>(a.out, N, l.n, drho, u, p);
}

/// Density deviation, velocity and non-equilibrium stress of padded cell n at the current time (the
/// stored state; a body cell reads as fluid at rest, as with populations: stream_collide_k.hpp,
/// cell_state).
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void cell_state(index_t n, const MomentArgs<T, R>& a, bool, R& drho, R (&u)[3],
                                    R (&p)[6]) {
  if ((a.flags[n] & kind_mask) != fluid) {
    R f[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] = R(0);
    state_of<L, true>(f, a.force, drho, u, p);
    return;
  }
  load_moments<L>(a.m, a.grid.n_padded, static_cast<std::uint32_t>(n), drho, u, p);
}

/// Density deviation and velocity of padded cell n at the current time (cell_state).
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void cell_moments(index_t n, const MomentArgs<T, R>& a, bool, R& drho, R (&u)[3]) {
  R p[6];
  cell_state<L>(n, a, false, drho, u, p);
}

}  // namespace eddy::lbm
