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
#include "lbm/storage_k.hpp"

namespace eddy::lbm {

/// Cell kinds in the flag field (the low bits), plus a bit of fluid cells.
enum CellFlag : std::uint8_t {
  fluid = 0,          ///< updated by the kernels (ghost cells of periodic/MPI faces are fluid too)
  wall = 1,           ///< resting solid: half-way bounce-back
  moving_wall = 2,    ///< moving solid; codes 2..7 are the moving walls of faces x_min..z_max
  kind_mask = 0x07,   ///< the bits of the kind
  near_solid = 0x80,  ///< set on fluid cells with a solid neighbour along some lattice link: the
                      ///< near-solid cells, which take the general (not the bulk) update
};
constexpr int max_flag = 8;

/// What a stream-collide kernel needs, passed by value.
template <class T, class R>
struct StreamCollideArgs {
  using Real = R;
  T* f;                       ///< populations, slot i of padded cell n at f[i * grid.n_padded + n]
  const std::uint8_t* flags;  ///< one flag per padded cell
  field::PaddedGrid grid;
  R wall_u[max_flag][3];  ///< lattice velocity of each moving-wall code
  R force[3];             ///< body force per unit volume, lattice units (shifts the velocity by F/2 rho)
  unsigned wrap_axes;     ///< bit d: axis d is periodic within this block (one block spans it): links
                          ///< across it go straight to the image cell, no ghost copy between steps
};

/// The wrapped faces of interior cell (x, y, z) (bit 2d: on the low face of an axis d the block wraps,
/// 2d + 1: on its high face): the links of such a cell across that face lead to the image on the other
/// side.
EDDY_HD EDDY_INLINE unsigned wrapped_faces_at(const field::PaddedGrid& g, unsigned axes, index_t x, index_t y,
                                              index_t z) {
  const index_t c[3] = {x, y, z}, ext[3] = {g.nx, g.ny, g.nz};
  unsigned faces = 0;
  EDDY_UNROLL for (int d = 0; d < 3; ++d) if ((axes >> d) & 1u) {
    if (c[d] == 0) faces |= 1u << (2 * d);
    if (c[d] == ext[d] - 1) faces |= 1u << (2 * d + 1);
  }
  return faces;
}

/// The wrapped faces of padded cell n. Divisions: for lists of cells and for set-up, not for the box
/// launches (they know their cells' coordinates).
EDDY_HD EDDY_INLINE unsigned wrapped_faces(const field::PaddedGrid& g, unsigned axes, index_t n) {
  if (axes == 0) return 0;  // nothing wraps: no divisions
  index_t p[3];
  g.coordinates(n, p);
  return wrapped_faces_at(g, axes, p[0] - g.g, p[1] - g.g, p[2] - g.gz);
}

/// An entry of the near-solid list: the padded index, with the cell's wrapped faces in the top byte.
constexpr int near_solid_shift = 56;
EDDY_HD EDDY_INLINE index_t near_solid_entry(index_t n, unsigned faces) {
  return n | (static_cast<index_t>(faces) << near_solid_shift);
}

/// A cell's links: the padded indices of its neighbours n + s c_i (s = +1 downstream, -1 upstream), in 32
/// bits. A block holds fewer than 2^32 padded cells (checked where it is laid out: ghost_layout.hpp), so n
/// plus the link's fixed offset, corrected by one period where the link crosses one of the cell's wrapped
/// `faces` (wrapped_faces_at), all modulo 2^32, is the neighbour's index exactly. The corrections are
/// taken from the faces once per cell (per axis: +period for a link leaving through the low face, -period
/// through the high one, 0 where that face does not wrap) and added unconditionally per link; a link's
/// signs are constants. With 64-bit indices and the faces tested per link, the address arithmetic of the
/// odd step was most of its instructions (H200 SASS, D3Q19 16-bit: 920 per cell, 485 of them integer,
/// against 496 for the even step), and the 16-bit odd step is bound by instruction issue.
struct Links {
  std::uint32_t n = 0;
  std::uint32_t low[3] = {0, 0, 0}, high[3] = {0, 0, 0};

  EDDY_HD EDDY_INLINE Links(index_t cell, unsigned faces, const field::PaddedGrid& g)
      : n(static_cast<std::uint32_t>(cell)) {
    const index_t period[3] = {g.nx, g.ny * g.stride_y, g.nz * g.stride_z};
    EDDY_UNROLL for (int d = 0; d < 3; ++d) {
      const auto p = static_cast<std::uint32_t>(period[d]);
      low[d] = (faces >> (2 * d)) & 1u ? p : 0u;
      high[d] = (faces >> (2 * d + 1)) & 1u ? 0u - p : 0u;
    }
  }
  /// The neighbour n + s c_i.
  template <class L>
  EDDY_HD EDDY_INLINE std::uint32_t neighbour(int i, int s, const field::PaddedGrid& g) const {
    std::uint32_t m = n + static_cast<std::uint32_t>(s * g.offset(L::c(i, 0), L::c(i, 1), L::c(i, 2)));
    EDDY_UNROLL for (int d = 0; d < L::d; ++d) {
      const int c = s * L::c(i, d);
      m += c < 0 ? low[d] : c > 0 ? high[d] : 0u;
    }
    return m;
  }
};

/// The neighbour n + s c_i of padded cell n with wrapped `faces` (Links, for one link).
template <class L, class T, class R>
EDDY_HD EDDY_INLINE index_t neighbour(index_t n, unsigned faces, int i, int s,
                                      const StreamCollideArgs<T, R>& a) {
  return Links(n, faces, a.grid).template neighbour<L>(i, s, a.grid);
}

/// Slot i of the population array: element m of it is population i of padded cell m. Indexed with a 32-bit
/// cell index, the address is one multiply-add from the slot's start.
template <class T, class R>
EDDY_HD EDDY_INLINE T* slot(const StreamCollideArgs<T, R>& a, int i) {
  return a.f + static_cast<index_t>(i) * a.grid.n_padded;
}

/// Moving-wall correction 6 w_i (c_i . u_w) for a population leaving a wall of code `flag` along c_i.
/// `A`: the arguments of a kernel with moving-wall velocities `wall_u` (StreamCollideArgs, MomentArgs).
template <class L, class A, class R = typename A::Real>
EDDY_HD EDDY_INLINE R wall_term(const A& a, int i, std::uint8_t flag) {
  if (flag < moving_wall) return R(0);
  const R* uw = a.wall_u[flag];
  return R(6.0 * L::w(i)) * (R(L::c(i, 0)) * uw[0] + R(L::c(i, 1)) * uw[1] + R(L::c(i, 2)) * uw[2]);
}

/// Population f_i(x, t) of padded cell n at the start of a step of kind Odd: the cell's own slot i
/// before an even step; before an odd step, the upstream cell's post-collision value (this is the
/// streaming), with bounce-back from a solid neighbour. The neighbour across one of the cell's wrapped
/// faces is the image (Links). `near`: the cell is a near-solid one (CellFlag::near_solid; only read where
/// `NearSolid`), which reads the neighbour's flag, one byte. The bulk (NearSolid = false) streams with an
/// unconditional load: a fixed offset, corrected by one period on the faces a cell has on axes the block
/// wraps (address arithmetic only). Cells near a solid run as a kernel of their own: with those cases in
/// the same code (a run-time branch per link, or per cell, on the neighbours' flags) the odd step ran at
/// half the even step's bandwidth on an H200 (loads kept apart, registers, divergent warps on every row).
/// `Raw`: in the frame of the stored numbers (storage_k.hpp: load_raw; the stream-collide update), else
/// the population itself. One link, so that the 16-bit odd step in cell pairs (stream_collide_odd_pair)
/// takes the links it does not read as pairs from the same code as the one-cell update.
template <class L, bool Odd, bool NearSolid, bool Raw = false, class T, class R>
EDDY_HD EDDY_INLINE R load_link(int i, const Links& l, const StreamCollideArgs<T, R>& a,
                                [[maybe_unused]] bool near) {
  const auto get = [](const T& v) { return Raw ? load_raw<R>(v) : load_pop<R>(v); };
  if constexpr (!Odd) {
    return get(slot(a, i)[l.n]);
  } else {
    const std::uint32_t m = l.neighbour<L>(i, -1, a.grid);
    const std::uint8_t fl = NearSolid && near ? std::uint8_t(a.flags[m] & kind_mask) : std::uint8_t(fluid);
    if (fl == fluid) return get(slot(a, opposite(i))[m]);
    return get(slot(a, i)[l.n]) + wall_term<L>(a, i, fl) * R(Raw ? population_unit<T>() : 1.0f);
  }
}

/// Post-collision population v = f*_i of padded cell n back into the array: its own slot opp(i) after an
/// even step; after an odd step slot i of the downstream cell, or bounced back into the cell's own slot
/// opp(i) where the downstream cell is solid (NearSolid, as in load_link()).
template <class L, bool Odd, bool NearSolid, bool Raw = false, class T, class R>
EDDY_HD EDDY_INLINE void store_link(int i, const Links& l, const StreamCollideArgs<T, R>& a,
                                    [[maybe_unused]] bool near, R v) {
  const auto put = [](R x) { return Raw ? store_raw<T>(x) : store_pop<T>(x); };
  if constexpr (!Odd) {
    slot(a, opposite(i))[l.n] = put(v);
  } else {
    const std::uint32_t m = l.neighbour<L>(i, +1, a.grid);
    const std::uint8_t fl = NearSolid && near ? std::uint8_t(a.flags[m] & kind_mask) : std::uint8_t(fluid);
    if (fl == fluid)
      slot(a, i)[m] = put(v);
    else
      slot(a, opposite(i))[l.n] = put(v - wall_term<L>(a, i, fl) * R(Raw ? population_unit<T>() : 1.0f));
  }
}

/// Populations f_i(x, t) of padded cell n at the start of a step of kind Odd (load_link, every link, all
/// loads in flight at once).
template <class L, bool Odd, bool NearSolid, bool Raw = false, class T, class R>
EDDY_HD EDDY_INLINE void load(const Links& l, const StreamCollideArgs<T, R>& a, R (&f)[L::q]) {
  const bool near = NearSolid && (a.flags[l.n] & near_solid);
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] = load_link<L, Odd, NearSolid, Raw>(i, l, a, near);
}

/// Post-collision populations of padded cell n back into the array (store_link, every link).
template <class L, bool Odd, bool NearSolid, bool Raw = false, class T, class R>
EDDY_HD EDDY_INLINE void store(const Links& l, const StreamCollideArgs<T, R>& a, const R (&f)[L::q]) {
  const bool near = NearSolid && (a.flags[l.n] & near_solid);
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) store_link<L, Odd, NearSolid, Raw>(i, l, a, near, f[i]);
}

/// The collision of one cell's populations f (the frame of the stored numbers of T).
template <class L, class T, class R, class Collision>
EDDY_HD EDDY_INLINE void collide_cell(R (&f)[L::q], const StreamCollideArgs<T, R>& a,
                                      const Collision& collide) {
  constexpr float unit = population_unit<T>();
  R drho, u[3];
  const R force[3] = {a.force[0] * R(unit), a.force[1] * R(unit), a.force[2] * R(unit)};
  moments<L>(f, drho, u, force, R(unit));
  collide.template operator()<L>(f, drho, u, R(unit));
}

/// The update alone, no observer (stream_collide's `obs`).
struct NoObserver {
  static constexpr bool active = false;
  template <class R>
  struct Sample {};
};

/// One cell's update with the kind of step and whether the cell is near a solid fixed at compile time, in the
/// frame of the stored numbers (collide_k.hpp; `collide`'s force must be given in it: scaled by
/// population_unit<T>()). `write` false: the loads and the collision run and nothing is stored (a bulk
/// kernel's cell that another kernel updates, known only once its flag is read: solver_impl.hpp, bulk_cell).
/// `obs`: what the update does besides with the populations it loads (chosen at compile time, so that
/// the plain update, NoObserver, is the same code as without): obs.take makes a sample of them once
/// they are loaded (`seen` 1; 2: of a body cell, whose populations are not those of a fluid at rest; 0:
/// an empty one), and obs.add adds it after the store, in every thread that runs the update
/// (solver_launches.hpp: ProfileObserver).
template <class L, bool Odd, bool NearSolid, class T, class R, class Collision, class Obs = NoObserver>
EDDY_HD EDDY_INLINE void stream_collide(index_t n, unsigned faces, const StreamCollideArgs<T, R>& a,
                                        const Collision& collide, bool write = true, const Obs& obs = {},
                                        [[maybe_unused]] int seen = 0) {
  const Links l(n, Odd ? faces : 0u, a.grid);
  R f[L::q];
  load<L, Odd, NearSolid, true>(l, a, f);
  [[maybe_unused]] typename Obs::template Sample<R> sample{};
  if constexpr (Obs::active) sample = obs.template take<L>(f, seen, a);
  collide_cell<L, T>(f, a, collide);
  if (write) store<L, Odd, NearSolid, true>(l, a, f);
  if constexpr (Obs::active) obs.template add<L>(n, sample);
}

/// The update of the cells x0 .. x0 + count - 1 (count <= W) of row (y, z) of a box whose cells all take
/// the bulk update with its store (plain fluid cells on odd steps): per cell the update
/// stream_collide<L, Odd, false> makes, in three passes over W lanes: every link's populations of the
/// chunk's cells (W consecutive slots of the link's source; the lanes past `count` take zeros, and nothing
/// is read there), the collisions of all W lanes, every link's results for the chunk's cells. `faces`: the
/// wrapped faces of the chunk's cells (wrapped_faces_at), `first` and `last` those of its first and last
/// cell, which differ from `faces` on the x faces of a block that wraps in x: such a cell takes its loads
/// and stores one at a time, through its own Links, and its collision in its lane.
///
/// The passes are loops over the lanes (EDDY_SIMD), so on the CPU a link's loads and stores are vector
/// accesses and the collision runs in vector lanes; with 16-bit storage the conversions too, all W lanes at
/// once (storage_k.hpp: load_raw_lanes), where the GPU takes cells in pairs instead
/// (stream_collide_even_pair). Where the instruction set has masked accesses (`Masked`:
/// backend::row_chunk_masked, AVX2 and AVX-512) the loads and stores run over all W lanes, masked to the
/// chunk's cells, and need no scalar remainder; without (SSE2) a loop with a condition does not vectorize,
/// and they run over the cells alone, loops of runtime length that -fno-tree-loop-distribute-patterns keeps
/// from becoming `rep movs` (CMakeLists.txt; the masked loops in SSE2 took D3Q19 FP32 96^3 from 70 to 50
/// MLUPS, 2 cores, 2026-12-07). The collision pass always runs all W lanes: a chunk of fewer cells would
/// leave a scalar remainder, and the end cells of a row that wraps in x, updated one at a time, were a third
/// of the odd step (D3Q19 FP32 96^3, AVX-512, 2026-12-07). In the AA pattern every location a cell reads is
/// written by that cell alone, so taking all of a chunk's loads before its stores changes nothing. The
/// arithmetic per cell is that of the one-cell update, bit for bit where the compiler contracts neither into
/// fused multiply-adds (CMakeLists.txt: the CPU backend builds with -ffp-contract=off), so which cells a
/// chunk holds (it depends on the box) cannot change a result.
template <class L, bool Odd, int W, bool Masked, class T, class R, class Collision>
EDDY_HD EDDY_INLINE void stream_collide_chunk(index_t n0, index_t count, unsigned faces, unsigned first,
                                              unsigned last, const StreamCollideArgs<T, R>& a,
                                              const Collision& collide) {
  const Links l(n0, Odd ? faces : 0u, a.grid);
  // The lanes of the end cells with faces of their own (odd steps only; -1: none).
  const index_t own0 = Odd && first != faces ? 0 : -1;
  const index_t own1 = Odd && count > 1 && last != faces ? count - 1 : -1;
  // The lanes [lo, hi) load and store through l, one vector access a link.
  const index_t lo = own0 == 0 ? 1 : 0, hi = own1 > 0 ? own1 : count;
  R f[L::q][W];
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    const T* src = Odd ? slot(a, opposite(i)) + l.neighbour<L>(i, -1, a.grid) : slot(a, i) + l.n;
    load_raw_lanes<W, Masked>(src, lo, hi, f[i]);
  }
  const auto own = [&](index_t k, unsigned own_faces, auto&& access) {
    if (k < 0) return;
    const Links lk(n0 + k, own_faces, a.grid);
    R c[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) c[i] = f[i][k];
    access(lk, c);
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i][k] = c[i];
  };
  const auto own_load = [&](const Links& lk, R(&c)[L::q]) { load<L, Odd, false, true>(lk, a, c); };
  own(own0, first, own_load);
  own(own1, last, own_load);
  EDDY_SIMD for (index_t k = 0; k < W; ++k) {
    R c[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) c[i] = f[i][k];
    collide_cell<L, T>(c, a, collide);
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i][k] = c[i];
  }
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    T* dst = Odd ? slot(a, i) + l.neighbour<L>(i, +1, a.grid) : slot(a, opposite(i)) + l.n;
    store_raw_lanes<W, Masked>(f[i], lo, hi, dst);
  }
  const auto own_store = [&](const Links& lk, R(&c)[L::q]) { store<L, Odd, false, true>(lk, a, c); };
  own(own0, first, own_store);
  own(own1, last, own_store);
}

/// One slot of two adjacent cells in 16-bit storage, read or written as one 4-byte word.
struct alignas(4) HalfPair {
  backend::Half first, second;
};

/// The even step of the two adjacent cells n, n + 1 of a row (n even, so each slot's pair is one aligned
/// 4-byte word) in 16-bit storage: per cell the update stream_collide<L, false, false> makes, with every
/// slot of both cells read and written as one word (D3Q19: 19 loads and 19 stores of 4 bytes for two
/// cells where one cell takes 19 of 2 bytes each way). `both` false: cell n alone (the last of a row of
/// odd length; n + 1 is then a ghost or padding cell, read, not written).
template <class L, class R, class Collision>
EDDY_HD EDDY_INLINE void stream_collide_even_pair(index_t n, bool both,
                                                  const StreamCollideArgs<backend::Half, R>& a,
                                                  const Collision& collide) {
  const auto m = static_cast<std::uint32_t>(n);
  R f[L::q], g[L::q];
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    const HalfPair p = *reinterpret_cast<const HalfPair*>(slot(a, i) + m);
    f[i] = load_raw<R>(p.first), g[i] = load_raw<R>(p.second);
  }
  collide_cell<L, backend::Half>(f, a, collide);
  collide_cell<L, backend::Half>(g, a, collide);
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    backend::Half* s = slot(a, opposite(i)) + m;
    if (both)
      *reinterpret_cast<HalfPair*>(s) =
          HalfPair{store_raw<backend::Half>(f[i]), store_raw<backend::Half>(g[i])};
    else
      *s = store_raw<backend::Half>(f[i]);
  }
}

/// The odd step of the two adjacent cells n, n + 1 of a row (n even) in 16-bit storage, with wrapped faces
/// `faces0`, `faces1` (wrapped_faces_at; they differ on x alone): per cell the update the bulk makes
/// (stream_collide<L, true, false> of each fluid cell), with the links that have no x component read and
/// written as one 4-byte word for both cells. Along such a link the two cells' neighbours are m and m + 1
/// with m even: the link's offset and the period added across a wrapped y or z face are multiples of the
/// row stride (a multiple of 32 cells: ghost_layout.hpp, row_align), and both cells lie on the same y and
/// z faces. That is 9 of 19 links of D3Q19 (9 of 27 in D3Q27, 3 of 9 in D2Q9); the others stay two 2-byte
/// accesses, each through its own cell's Links (cell x = 0 may wrap on the low x face, cell nx - 1 on
/// the high one). Where the pair is not two fluid cells (a cell near a solid, which the near-solid kernel
/// updates, or a solid) or `both` is false (cell n is the last of a row of odd length), each fluid cell
/// of it takes the one-cell update. `all_fluid`: every cell is (CellSet::all_fluid), no flag is read.
template <class L, class R, class Collision>
EDDY_HD EDDY_INLINE void stream_collide_odd_pair(index_t n, bool both, bool all_fluid, unsigned faces0,
                                                 unsigned faces1,
                                                 const StreamCollideArgs<backend::Half, R>& a,
                                                 const Collision& collide) {
  using T = backend::Half;
  if (!(both && (all_fluid || (a.flags[n] == fluid && a.flags[n + 1] == fluid)))) {
    if (a.flags[n] == fluid) stream_collide<L, true, false>(n, faces0, a, collide);
    if (both && a.flags[n + 1] == fluid) stream_collide<L, true, false>(n + 1, faces1, a, collide);
    return;
  }
  const Links l0(n, faces0, a.grid), l1(n + 1, faces1, a.grid);
  R f[L::q], g[L::q];
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    if (L::c(i, 0) == 0) {
      const HalfPair p =
          *reinterpret_cast<const HalfPair*>(slot(a, opposite(i)) + l0.neighbour<L>(i, -1, a.grid));
      f[i] = load_raw<R>(p.first), g[i] = load_raw<R>(p.second);
    } else {
      f[i] = load_link<L, true, false, true>(i, l0, a, false);
      g[i] = load_link<L, true, false, true>(i, l1, a, false);
    }
  }
  collide_cell<L, T>(f, a, collide);
  collide_cell<L, T>(g, a, collide);
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    if (L::c(i, 0) == 0) {
      *reinterpret_cast<HalfPair*>(slot(a, i) + l0.neighbour<L>(i, +1, a.grid)) =
          HalfPair{store_raw<T>(f[i]), store_raw<T>(g[i])};
    } else {
      store_link<L, true, false, true>(i, l0, a, false, f[i]);
      store_link<L, true, false, true>(i, l1, a, false, g[i]);
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
  const Links l(n, next_odd ? wrapped_faces(a.grid, a.wrap_axes, n) : 0u, a.grid);
  if (!next_odd)
    load<L, false, false>(l, a, f);
  else if (a.flags[n] & near_solid)
    load<L, true, true>(l, a, f);
  else
    load<L, true, false>(l, a, f);
}

/// Density deviation and velocity of padded cell n at the current time.
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void cell_moments(index_t n, const StreamCollideArgs<T, R>& a, bool next_odd, R& drho,
                                      R (&u)[3]) {
  R f[L::q];
  cell_populations<L>(n, a, next_odd, f);
  moments<L>(f, drho, u, a.force);
}

/// The same with the non-equilibrium stress (pi_neq, with Guo's correction).
template <class L, class T, class R>
EDDY_HD EDDY_INLINE void cell_state(index_t n, const StreamCollideArgs<T, R>& a, bool next_odd, R& drho,
                                    R (&u)[3], R (&p)[6]) {
  R f[L::q];
  cell_populations<L>(n, a, next_odd, f);
  moments<L>(f, drho, u, a.force);
  pi_neq<L, true>(f, drho, u, a.force, p);
}

}  // namespace eddy::lbm
