#pragma once
/// The launches of the LBM solver (lbm/solver_impl.hpp): the stream-collide update of a set of cells, the
/// boundary links, state packing, and the reductions of the diagnostics. Free functions, since CUDA's
/// extended lambdas may not live in private member functions. Included only by solver_impl.hpp.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "backend/fast_div.hpp"
#include "backend/parallel.hpp"
#include "backend/profile.hpp"
#include "field/profile_k.hpp"
#include "lbm/boundary_kinds.hpp"
#include "lbm/collisions.hpp"
#include "lbm/lattice.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/storage_k.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {
namespace {

using backend::DeviceArray;
using field::PaddedGrid;

/// Reduction record of Stats on the device.
struct StatsAcc {
  double mass, ke, umax, bad, ss, sgs;
};
struct StatsOp {
  EDDY_HD StatsAcc operator()(const StatsAcc& a, const StatsAcc& b) const {
    return {a.mass + b.mass, a.ke + b.ke, a.umax > b.umax ? a.umax : b.umax,
            a.bad + b.bad,   a.ss + b.ss, a.sgs + b.sgs};
  }
};
struct Sum2 {
  double a, b;
};
struct Sum2Op {
  EDDY_HD Sum2 operator()(const Sum2& x, const Sum2& y) const { return {x.a + y.a, x.b + y.b}; }
};

/// Which cells a launch updates: a box of the interior (the whole interior, or the inner cells that
/// need no ghost), or an explicit list of padded cells (the boundary shell); and the near-solid cells among
/// them (stream_collide_k.hpp: near_solid_entry), which the odd step updates in a kernel of their own.
struct CellSet {
  field::SubBox box{};
  const index_t* list = nullptr;
  index_t list_size = 0;
  const index_t* near_solid = nullptr;
  index_t near_solid_size = 0;
  /// 16-bit storage: the even step updates the box's rows two cells at a time (stream_collide_even_pair),
  /// and in 2D so does the odd step (stream_collide_odd_pair: launch_box_stream_collide). Only where
  /// the box starts at an even x both in the block (a pair's slots are then 4-byte words: pairs_fit) and
  /// globally (the same pairs on every decomposition); elsewhere one cell at a time.
  bool pairs = false;
  /// Every cell of the box (or list) is fluid and none is near a solid: the bulk reads no flags.
  bool all_fluid = false;
};

/// The initial populations f~_i of a cell of state c whose velocity has the gradient `grad`: the
/// equilibrium plus the first-order non-equilibrium part f_neq_i = -tau w_i rho / c_s^2 Q_i : grad u,
/// Q_i = c_i c_i - c_s^2 I (Skordos 1993): without it the first steps carry an initial layer whose
/// velocity error is of the order of tau |grad u| and, with tau near 1/2, decays only slowly. Unrolled,
/// so the lattice's Q_i are constants (computed per population in a loop, they were most of a large
/// grid's start on the host). All in double, rounded once to the storage type by the caller: a device
/// and the host then differ only by their sin/cos and contracted FMAs in double, far below the storage's
/// rounding (in the arithmetic type, FP32, contractions would differ by units in FP32's last place).
/// The equilibria are added in a loop the host keeps rolled (EDDY_ROLLED_ON_HOST), so that c_i there is
/// data and every lane of c_i . u multiplies and adds. Unrolled, GCC 12 folds the products by -1 into
/// subtractions, and its SLP vectorizer (x86 with FMA) fused the lanes {0 u_y - u_x, 0 u_x + u_y} of two
/// directions of D3Q19 into a vfmaddsub in spite of -ffp-contract=off (tests/fma/fma_guard.sh). The products
/// by -1, 0 and 1 are exact, so the populations are bitwise those of the unrolled loop.
template <class L>
EDDY_HD EDDY_INLINE void initial_populations(const CellState& c, const double (&grad)[3][3], double tau,
                                             double (&f)[L::q]) {
  const double u[3] = {c.u[0], c.u[1], c.u[2]};
  const double rho = 1.0 + c.drho;
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    double qs = 0.0;
    EDDY_UNROLL for (int a = 0; a < 3; ++a) {
      EDDY_UNROLL for (int b = 0; b < 3; ++b) {
        qs += (L::c(i, a) * L::c(i, b) - (a == b ? 1.0 / 3.0 : 0.0)) * grad[a][b];
      }
    }
    f[i] = -tau * L::w(i) * rho * 3.0 * qs;  // f_neq
  }
  EDDY_ROLLED_ON_HOST for (int i = 0; i < L::q; ++i) f[i] = equilibrium<L>(i, c.drho, u) + f[i];
}

/// The initial populations of global cell (gx, gy, gz) under the initial condition `ic` (a callable
/// giving the CellState of a global cell: an InitialCondition on the host, TaylorGreenCells on the
/// device): its state, and the velocity gradient by central differences of the neighbours' states along
/// the `dims` axes, grad[a][b] = d u_b / d x_a.
template <class L, class IC>
EDDY_HD EDDY_INLINE void initial_cell(const IC& ic, index_t gx, index_t gy, index_t gz, int dims, double tau,
                                      double (&f)[L::q]) {
  double grad[3][3] = {};
  for (int a = 0; a < dims; ++a) {
    const index_t e0 = a == 0, e1 = a == 1, e2 = a == 2;
    const CellState p = ic(gx + e0, gy + e1, gz + e2), m = ic(gx - e0, gy - e1, gz - e2);
    for (std::size_t b = 0; b < 3; ++b) grad[a][b] = 0.5 * (p.u[b] - m.u[b]);
  }
  initial_populations<L>(ic(gx, gy, gz), grad, tau, f);
}

/// The bulk update of cell n (with its wrapped `faces`, which only odd steps use): on odd steps cells
/// near a solid (and solids) are left to the near-solid list's kernel; in a box whose cells are all plain
/// fluid (`all_fluid`: CellSet::all_fluid) no flag is read. With 32- and 64-bit populations the flag is
/// read with the populations, not before them, and decides only whether the results are stored: the
/// loads go out in one round trip to memory, not two (every neighbour of an interior cell lies in the
/// padded block, so the loads of a cell left out are harmless). On an H200 that took D3Q19 TRT FP32
/// 256^3 from 22,701 to 23,937 MLUPS, BGK from 23,565 to 23,901, D2Q9 2048^2 from 45,140 to 46,429; the
/// 16-bit odd step, at 64 registers for 4 blocks of an SM, lost 2.5 % so (cases/benchmarks/results/
/// 2026-11-30g-h200) and returns before its loads.
/// With an observer (stream_collide's `obs`), every cell of the bulk is handed over but the fluid cells
/// near a solid on odd steps, which the near-solid kernel updates and hands over.
template <class L, bool Odd, class T, class R, class C, class Obs = NoObserver>
EDDY_HD EDDY_INLINE void bulk_cell(index_t n, unsigned faces, const StreamCollideArgs<T, R>& a,
                                   const C& collision, bool all_fluid, const Obs& obs = {}) {
  if constexpr (Odd && sizeof(T) < 4) {
    if (!all_fluid && a.flags[n] != fluid) {
      if constexpr (Obs::active)  // a body cell at rest; a fluid cell near a solid: the near-solid kernel's
        obs.template add<L>(n, obs.template rest<L>((a.flags[n] & kind_mask) != fluid, a));
      return;
    }
    stream_collide<L, Odd, false>(n, faces, a, collision, true, obs, 1);
  } else if constexpr (Obs::active) {
    const std::uint8_t fl = all_fluid ? std::uint8_t(fluid) : a.flags[n];
    const bool body = (fl & kind_mask) != fluid;
    stream_collide<L, Odd, false>(n, faces, a, collision, !Odd || fl == fluid, obs,
                                  body ? 2 : (!Odd || fl == fluid ? 1 : 0));
  } else {
    stream_collide<L, Odd, false>(n, faces, a, collision, !Odd || all_fluid || a.flags[n] == fluid);
  }
}

/// Blocks of 256 threads that the 16-bit bulk kernels ask to keep resident on an SM or CU
/// (backend::parallel_for_box's `min_blocks`, which caps their registers; 0: no cap), per GPU vendor
/// (backend.hpp: BoxLaunch says how each reads the number).
/// - NVIDIA, measured on an H200 (cases/benchmarks/results/2026-11-30f-h200): the D3Q19 odd step at 4
///   blocks (64 registers) and the D3Q19 even pair and D3Q27 odd steps at 3 (80) ran fastest; the odd
///   steps are latency-bound at the compiler's own register counts.
/// - AMD (CDNA2, CDNA3; no AMD GPU has run them yet): none. The same numbers would ask the same share of
///   a CU's residency, but there they cap a thread at 512 / n vector registers (168 at 3, 128 at 4),
///   which clang's gfx90a and gfx940 code for these kernels stays under without a cap (D3Q19 odd step
///   68-121 registers, 4-7 wavefronts a SIMD; even pair 107-166, 3-4; D3Q27 odd step 85-125, 4-5, but
///   172 and 2 with TRT, LES and a force), so they change the code of one kernel only, while 5 spills in
///   most (src/lbm/README.md, Launch parameters on AMD GPUs).
/// A build for a given GPU sets its own with -DEDDY_LBM_RESIDENT_BLOCKS="even_pair_q19;odd_q19;odd_q27"
/// (CMake), to be tuned with `eddy bench` on that GPU.
struct ResidentBlocks {
  int even_pair_q19;  ///< D3Q19 even step, two cells a thread
  int odd_q19;        ///< D3Q19 odd step, one cell a thread
  int odd_q27;        ///< D3Q27 odd step, one cell a thread
};
constexpr ResidentBlocks resident_blocks(backend::GpuVendor vendor) {
#if defined(EDDY_LBM_RESIDENT_BLOCKS_EVEN_PAIR_Q19)
  (void)vendor;
  return {EDDY_LBM_RESIDENT_BLOCKS_EVEN_PAIR_Q19, EDDY_LBM_RESIDENT_BLOCKS_ODD_Q19,
          EDDY_LBM_RESIDENT_BLOCKS_ODD_Q27};
#else
  return vendor == backend::GpuVendor::amd ? ResidentBlocks{0, 0, 0} : ResidentBlocks{3, 4, 3};
#endif
}
inline constexpr ResidentBlocks kResidentBlocks = resident_blocks(backend::gpu_vendor);
static_assert(kResidentBlocks.even_pair_q19 >= 0 && kResidentBlocks.even_pair_q19 <= 8 &&
                  kResidentBlocks.odd_q19 >= 0 && kResidentBlocks.odd_q19 <= 8 &&
                  kResidentBlocks.odd_q27 >= 0 && kResidentBlocks.odd_q27 <= 8,
              "EDDY_LBM_RESIDENT_BLOCKS: 0 (no cap) to 8 blocks of 256 threads an SM or CU");

template <class L, bool Odd, class T, class R, class C, class Obs = NoObserver>
void launch_box_stream_collide(const char* label, const StreamCollideArgs<T, R>& a, const C& collision,
                               const field::SubBox b, bool pairs, bool all_fluid, const Obs& obs = {}) {
  using backend::BoxLaunch;
  // On the GPU, 16-bit storage takes cells in pairs (4-byte words); on the CPU the row chunks below serve
  // every storage, 16-bit included (storage_k.hpp: load_raw_lanes converts a link's W slots at once).
  if constexpr (std::is_same_v<T, backend::Half> && backend::row_chunk == 1 && !Obs::active) {
    if constexpr (!Odd) {
      if (pairs) {  // two cells per thread, one 4-byte word per slot (stream_collide_even_pair)
        const auto pair = [=] EDDY_DEVICE(index_t x2, index_t y, index_t z) {
          stream_collide_even_pair<L>(a.grid.at(b.ox + 2 * x2, b.oy + y, b.oz + z), 2 * x2 + 1 < b.nx, a,
                                      collision);
        };
        if constexpr (L::q == 19)
          backend::parallel_for_box<BoxLaunch::per_cell, kResidentBlocks.even_pair_q19>(label, (b.nx + 1) / 2,
                                                                                        b.ny, b.nz, pair);
        else
          backend::parallel_for_box<BoxLaunch::grid_stride>(label, (b.nx + 1) / 2, b.ny, b.nz, pair);
        return;
      }
    } else if constexpr (L::d == 2) {
      if (pairs) {  // two cells per thread, the x-free links as 4-byte words (stream_collide_odd_pair)
        const auto pair = [=] EDDY_DEVICE(index_t x2, index_t y, index_t z) {
          const index_t x = b.ox + 2 * x2;
          y += b.oy, z += b.oz;
          stream_collide_odd_pair<L>(a.grid.at(x, y, z), 2 * x2 + 1 < b.nx, all_fluid,
                                     wrapped_faces_at(a.grid, a.wrap_axes, x, y, z),
                                     wrapped_faces_at(a.grid, a.wrap_axes, x + 1, y, z), a, collision);
        };
        backend::parallel_for_box<BoxLaunch::grid_stride>(label, (b.nx + 1) / 2, b.ny, b.nz, pair);
        return;
      }
    }
  }
  if constexpr (backend::row_chunk > 1 && !Obs::active) {
    // Where the backend hands over chunks of a row (the CPU: vector lanes), the chunk's cells that take
    // the bulk update with its store are updated together (stream_collide_chunk; the cells on a wrapped
    // x face with their own links); on odd steps a chunk holding any cell other than plain fluid takes
    // the one-cell update. The same arithmetic per cell either way.
    const auto chunk = [=](index_t x0, index_t count, index_t y, index_t z) {
      const index_t x = b.ox + x0;
      y += b.oy, z += b.oz;
      const index_t n = a.grid.at(x, y, z);
      if (Odd && !all_fluid) {
        for (index_t k = 0; k < count; ++k) {
          if (a.flags[n + k] != fluid) {
            for (index_t c = 0; c < count; ++c)
              bulk_cell<L, Odd>(n + c, wrapped_faces_at(a.grid, a.wrap_axes, x + c, y, z), a, collision,
                                all_fluid);
            return;
          }
        }
      }
      const unsigned faces = Odd ? wrapped_faces_at(a.grid, a.wrap_axes & ~1u, x, y, z) : 0u;
      const unsigned first = Odd ? wrapped_faces_at(a.grid, a.wrap_axes, x, y, z) : 0u;
      const unsigned last = Odd ? wrapped_faces_at(a.grid, a.wrap_axes, x + count - 1, y, z) : 0u;
      stream_collide_chunk<L, Odd, backend::row_chunk, backend::row_chunk_masked>(n, count, faces, first,
                                                                                  last, a, collision);
    };
    backend::parallel_for_row_chunks(label, b.nx, b.ny, b.nz, chunk);
    return;
  }
  const auto f = [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
    x += b.ox, y += b.oy, z += b.oz;
    const unsigned faces = Odd ? wrapped_faces_at(a.grid, a.wrap_axes, x, y, z) : 0u;
    bulk_cell<L, Odd>(a.grid.at(x, y, z), faces, a, collision, all_fluid, obs);
  };
  // An observer's sums take registers that a cap for more resident blocks would spill: observed
  // launches are not capped.
  if constexpr (sizeof(T) >= 4 || Obs::active)
    backend::parallel_for_box<BoxLaunch::per_cell>(label, b.nx, b.ny, b.nz, f);
  else if constexpr (Odd && L::d == 3)
    backend::parallel_for_box<BoxLaunch::per_cell,
                              (L::q > 19 ? kResidentBlocks.odd_q27 : kResidentBlocks.odd_q19)>(label, b.nx,
                                                                                               b.ny, b.nz, f);
  else
    backend::parallel_for_box<BoxLaunch::grid_stride>(label, b.nx, b.ny, b.nz, f);
}

template <class L, bool Odd, class T, class R, class C, class Obs = NoObserver>
void launch_stream_collide(const StreamCollideArgs<T, R>& a, const C& collision, const CellSet& cells,
                           const Obs& obs = {}) {
  const char* label = Odd ? "lbm::stream_collide_odd" : "lbm::stream_collide_even";
  if (cells.list) {
    const index_t* idx = cells.list;
    backend::parallel_for(label, cells.list_size, [=] EDDY_DEVICE(index_t t) {
      const index_t n = idx[t];
      bulk_cell<L, Odd>(n, Odd ? wrapped_faces(a.grid, a.wrap_axes, n) : 0u, a, collision, false, obs);
    });
  } else {
    launch_box_stream_collide<L, Odd>(label, a, collision, cells.box, cells.pairs, cells.all_fluid, obs);
  }
  if (Odd && cells.near_solid_size > 0) {
    const index_t* sp = cells.near_solid;
    constexpr index_t index_mask = (index_t(1) << near_solid_shift) - 1;
    // The cells next to a solid collide with the operator's wall closure (collisions.hpp).
    const auto wall = near_wall_collision(collision);
    backend::parallel_for("lbm::stream_collide_odd_near_solid", cells.near_solid_size,
                          [=] EDDY_DEVICE(index_t t) {
                            const index_t e = sp[t];
                            stream_collide<L, true, true>(e & index_mask, unsigned(e >> near_solid_shift), a,
                                                          wall, true, obs, 1);
                          });
  }
}

/// The boundary links after a step of parity `odd`: all new values first, then the writes.
template <class L, class T, class R>
void launch_boundary_links(const StreamCollideArgs<T, R>& a, bool odd, const BoundaryLink* links, index_t n,
                           double ramp, double* values, long long* force) {
  backend::parallel_for("lbm::boundary_values", n, [=] EDDY_DEVICE(index_t t) {
    boundary_link_value<L>(a, odd, links[t], ramp, values[t], force + 3 * t);
  });
  backend::parallel_for("lbm::boundary_write", n, [=] EDDY_DEVICE(index_t t) {
    a.f[opposite(links[t].k) * a.grid.n_padded + links[t].cell] = store_pop<T>(R(values[t]));
  });
}

struct Sum3 {
  long long x, y, z;
};
struct Sum3Op {
  EDDY_HD Sum3 operator()(const Sum3& a, const Sum3& b) const { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
};

/// Sum of the fixed-point momentum exchange of links [begin, end): integers, so the order is free.
inline Sum3 reduce_link_force(const long long* force, index_t begin, index_t end) {
  return backend::parallel_reduce(
      "lbm::body_force", end - begin, Sum3{0, 0, 0},
      [=] EDDY_DEVICE(index_t t) {
        const long long* c = force + 3 * (begin + t);
        return Sum3{c[0], c[1], c[2]};
      },
      Sum3Op{});
}

template <class T>
void launch_pack_state(const T* f, const PaddedGrid g, int q, index_t first, index_t count, T* out,
                       bool unpack) {
  backend::parallel_for(unpack ? "lbm::unpack_state" : "lbm::pack_state", count, [=] EDDY_DEVICE(index_t c) {
    const index_t n = g.interior_to_padded(first + c);
    for (int i = 0; i < q; ++i) {
      T* slot = const_cast<T*>(f) + i * g.n_padded + n;
      if (unpack)
        *slot = out[c * q + i];
      else
        out[c * q + i] = *slot;
    }
  });
}

template <class L, class A>
index_t reduce_first_nonfinite(const A& a, bool next_odd, Int3 global, Int3 offset) {
  using R = typename A::Real;
  const PaddedGrid g = a.grid;
  constexpr index_t none = index_t(1) << 62;
  const index_t r = backend::parallel_reduce(
      "lbm::first_nonfinite", g.n_interior(), none,
      [=] EDDY_DEVICE(index_t t) {
        R drho, v[3];
        cell_moments<L>(g.interior_to_padded(t), a, next_odd, drho, v);
        const double s = double(drho) + double(v[0]) + double(v[1]) + double(v[2]);
        if (std::isfinite(s)) return none;
        const index_t x = t % g.nx + offset[0], y = (t / g.nx) % g.ny + offset[1],
                      z = t / (g.nx * g.ny) + offset[2];
        return (z * global[1] + y) * global[0] + x;
      },
      backend::Min{});
  return r == none ? -1 : r;
}

/// Max speed and the lowest global index where it occurs (deterministic whatever the reduction order).
struct SpeedAt {
  double speed;
  index_t cell;
};
struct SpeedAtMax {
  EDDY_HD SpeedAt operator()(const SpeedAt& a, const SpeedAt& b) const {
    if (a.speed != b.speed) return a.speed > b.speed ? a : b;
    return a.cell < b.cell ? a : b;
  }
};

template <class L, class A>
SpeedAt reduce_fastest(const A& a, bool next_odd, Int3 global, Int3 offset) {
  using R = typename A::Real;
  const PaddedGrid g = a.grid;
  return backend::parallel_reduce(
      "lbm::fastest_cell", g.n_interior(), SpeedAt{-1.0, 0},
      [=] EDDY_DEVICE(index_t t) {
        R drho, v[3];
        cell_moments<L>(g.interior_to_padded(t), a, next_odd, drho, v);
        const index_t x = t % g.nx + offset[0], y = (t / g.nx) % g.ny + offset[1],
                      z = t / (g.nx * g.ny) + offset[2];
        return SpeedAt{sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]),
                       (z * global[1] + y) * global[0] + x};
      },
      SpeedAtMax{});
}

/// Density and velocity of `n` interior cells with the populations the next step loads (its parity
/// `next_odd`): entry t is interior cell cells[t], or cell t itself without a list (`cells` null).
template <class L, class A>
void launch_moments(const A& a, bool next_odd, const index_t* cells, index_t n, double* rho, double* u) {
  using R = typename A::Real;
  const int d = L::d;
  const PaddedGrid g = a.grid;
  backend::parallel_for(cells ? "lbm::moments_at" : "lbm::moments", n, [=] EDDY_DEVICE(index_t t) {
    R drho, v[3];
    cell_moments<L>(g.interior_to_padded(cells ? cells[t] : t), a, next_odd, drho, v);
    rho[t] = 1.0 + double(drho);
    for (int k = 0; k < d; ++k) u[t * d + k] = double(v[k]);
  });
}

/// One sample of `n` interior cells added to running sums: rho - 1 and the velocity as launch_moments
/// gives them.
template <class L, class A>
void launch_add_moments(const A& a, bool next_odd, index_t n, field::MomentView m) {
  using R = typename A::Real;
  const PaddedGrid g = a.grid;
  backend::parallel_for("lbm::add_moments", n, [=] EDDY_DEVICE(index_t t) {
    R drho, v[3];
    cell_moments<L>(g.interior_to_padded(t), a, next_odd, drho, v);
    const double u[3] = {double(v[0]), double(v[1]), double(v[2])};
    m.add_flow(t, (1.0 + double(drho)) - 1.0, u);
  });
}

/// One cell's sample for profile sums (field/profile.hpp): rho - 1 and the velocity as
/// launch_add_moments() adds them. The default, all 0, adds nothing: the empty sample of a cell that
/// another kernel samples.
template <class R>
struct ProfileMoments {
  R drho = R(0), u[3] = {R(0), R(0), R(0)};
};

/// The sample of populations f (as cell_populations() gives them).
template <class L, class T, class R>
EDDY_HD EDDY_INLINE ProfileMoments<R> profile_moments(const R (&f)[L::q], const StreamCollideArgs<T, R>& a) {
  ProfileMoments<R> s;
  moments<L>(f, s.drho, s.u, a.force);
  return s;
}

/// Adds samples of padded cells to profile sums: finds the cell's interior coordinates from its padded
/// index (multiply-shift divisions by the padded strides; the padded cells of a block number under 2^31:
/// parallel_for_box).
struct ProfileAdder {
  field::ProfileView v;
  backend::FastDiv by_y, by_z;
  std::uint32_t g = 0, gz = 0;

  ProfileAdder() = default;
  ProfileAdder(const field::ProfileView& view, const PaddedGrid& grid)
      : v(view),
        by_y(static_cast<std::uint32_t>(grid.stride_y)),
        by_z(static_cast<std::uint32_t>(grid.stride_z)),
        g(static_cast<std::uint32_t>(grid.g)),
        gz(static_cast<std::uint32_t>(grid.gz)) {}

  /// Add sample s of padded cell n (every thread of a warp, an empty sample too: the warp then sums
  /// its cells' values at once where they share a bin, backend::atomic_add_grouped).
  template <int D, class R>
  EDDY_HD EDDY_INLINE void add(index_t n, const ProfileMoments<R>& s) const {
    const auto m = static_cast<std::uint32_t>(n);
    const std::uint32_t z = by_z.div(m), r = m - z * by_z.d, y = by_y.div(r), x = r - y * by_y.d;
    const double u[3] = {double(s.u[0]), double(s.u[1]), double(s.u[2])};
    const double drho = (1.0 + double(s.drho)) - 1.0;
    field::add_profile_sample<D>(v, index_t(x - g), index_t(y - g), index_t(z - gz), drho, u);
  }
};

/// The observer of a step that takes a profile sample (stream_collide's `obs`), in two phases: `take`
/// the sample of the populations as the update loads them (in the frame of the stored numbers, scaled
/// back by the power of two population_unit<T>() into the populations cell_populations() gives, bit for
/// bit: a power of two commutes with rounding), so the sums are launch_add_profile()'s (a body cell,
/// as a fluid at rest, as there); and `add` it once the cell is stored, from every thread.
struct ProfileObserver {
  static constexpr bool active = true;
  template <class R>
  using Sample = ProfileMoments<R>;
  ProfileAdder adder;

  /// The sample of populations `raw` as the update loads them (`seen` 1), of a body cell (2), or none (0).
  template <class L, class T, class R>
  EDDY_HD EDDY_INLINE ProfileMoments<R> take(const R (&raw)[L::q], int seen,
                                             const StreamCollideArgs<T, R>& a) const {
    if (seen != 1) return rest<L>(seen == 2, a);
    constexpr R inv = R(1.0f / population_unit<T>());
    R f[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] = raw[i] * inv;
    return profile_moments<L>(f, a);
  }
  /// The sample of a body cell (a fluid at rest), or none.
  template <class L, class T, class R>
  EDDY_HD EDDY_INLINE ProfileMoments<R> rest(bool body, const StreamCollideArgs<T, R>& a) const {
    if (!body) return {};
    R f[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] = R(0);
    return profile_moments<L>(f, a);
  }
  template <class L, class R>
  EDDY_HD EDDY_INLINE void add(index_t n, const ProfileMoments<R>& s) const {
    adder.add<L::d>(n, s);
  }
};

/// One sample of every interior cell added to profile sums, by a kernel of its own (the sample a step
/// takes with ProfileObserver, when no step follows before the sums are read).
template <class L, class A>
void launch_add_profile(const A& a, bool next_odd, const field::ProfileView& v) {
  using R = typename A::Real;
  const PaddedGrid g = a.grid;
  const ProfileAdder adder(v, g);
  backend::parallel_for("lbm::add_profile", g.n_interior(), [=] EDDY_DEVICE(index_t t) {
    const index_t n = g.interior_to_padded(t);
    ProfileMoments<R> sample;
    cell_moments<L>(n, a, next_odd, sample.drho, sample.u);
    adder.add<L::d>(n, sample);
  });
}

/// Moments and the strain-rate sums of every interior cell. The strain rate comes from the
/// non-equilibrium stress of the populations the next step loads, S = -3 omega / (2 rho) Pi_neq (with
/// the cell's Smagorinsky omega when les > 0), so it needs no neighbour and no halo.
template <class L, class A>
StatsAcc reduce_stats(const A& a, bool next_odd, typename A::Real tau0, typename A::Real les) {
  using R = typename A::Real;
  const PaddedGrid g = a.grid;
  return backend::parallel_reduce(
      "lbm::stats", g.n_interior(), StatsAcc{0, 0, 0, 0, 0, 0},
      [=] EDDY_DEVICE(index_t t) {
        R drho, v[3], p[6];
        cell_state<L>(g.interior_to_padded(t), a, next_odd, drho, v, p);
        const R rho = R(1) + drho;
        const R w = les > R(0) ? smagorinsky_omega(tau0, les, rho, p) : R(1) / tau0;
        const double s = 1.5 * double(w) / double(rho), ss = s * s * double(contract(p));
        const double nu_t = les > R(0) ? (1.0 / double(w) - double(tau0)) / 3.0 : 0.0;
        const double uu = double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2];
        const bool bad = !(std::isfinite(double(drho)) && std::isfinite(uu) && std::isfinite(ss));
        return StatsAcc{bad ? 0.0 : double(drho), bad ? 0.0 : 0.5 * uu, bad ? 0.0 : std::sqrt(uu),
                        bad ? 1.0 : 0.0,          bad ? 0.0 : ss,       bad ? 0.0 : 2.0 * nu_t * ss};
      },
      StatsOp{});
}

template <class L, class A>
Sum2 reduce_change(const A& a, bool next_odd, double* u_prev) {
  using R = typename A::Real;
  const int d = L::d;
  const PaddedGrid g = a.grid;
  return backend::parallel_reduce(
      "lbm::velocity_change", g.n_interior(), Sum2{0, 0},
      [=] EDDY_DEVICE(index_t t) {
        R drho, v[3];
        cell_moments<L>(g.interior_to_padded(t), a, next_odd, drho, v);
        double diff = 0, norm = 0;
        for (int k = 0; k < d; ++k) {
          const double du = double(v[k]) - u_prev[t * d + k];
          diff += du * du;
          norm += double(v[k]) * v[k];
          u_prev[t * d + k] = double(v[k]);
        }
        return Sum2{diff, norm};
      },
      Sum2Op{});
}

}  // namespace
}  // namespace eddy::lbm
