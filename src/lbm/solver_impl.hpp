#pragma once
/// The LBM solver of one lattice and storage precision (SolverImpl) and its launches. Included only by
/// the translation units that instantiate it, one per lattice and precision (CMakeLists.txt generates
/// them: lbm_solver_<lattice>_<precision>.cpp), so that the backend compiler builds the ~1/9 of the
/// kernels each holds in parallel; lbm/lbm_solver.cpp picks the instance at run time.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>

#include "backend/graph.hpp"
#include "backend/parallel.hpp"
#include "backend/profile.hpp"
#include "core/error.hpp"
#include "lbm/boundary_k.hpp"
#include "lbm/collisions.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lattice.hpp"
#include "lbm/lbm_solver.hpp"
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

// Launches are free functions: CUDA's extended lambdas may not live in private member functions.

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
    const double f_neq = -tau * L::w(i) * rho * 3.0 * qs;
    f[i] = equilibrium<L>(i, c.drho, u) + f_neq;
  }
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
template <class L, bool Odd, class T, class R, class C>
EDDY_HD EDDY_INLINE void bulk_cell(index_t n, unsigned faces, const StreamCollideArgs<T, R>& a,
                                   const C& collision, bool all_fluid) {
  if constexpr (Odd && sizeof(T) < 4) {
    if (!all_fluid && a.flags[n] != fluid) return;
    stream_collide<L, Odd, false>(n, faces, a, collision);
  } else {
    stream_collide<L, Odd, false>(n, faces, a, collision, !Odd || all_fluid || a.flags[n] == fluid);
  }
}

template <class L, bool Odd, class T, class R, class C>
void launch_box_stream_collide(const char* label, const StreamCollideArgs<T, R>& a, const C& collision,
                               const field::SubBox b, bool pairs, bool all_fluid) {
  using backend::BoxLaunch;
  if constexpr (std::is_same_v<T, backend::Half>) {
    if constexpr (!Odd) {
      if (pairs) {  // two cells per thread, one 4-byte word per slot (stream_collide_even_pair)
        const auto pair = [=] EDDY_DEVICE(index_t x2, index_t y, index_t z) {
          stream_collide_even_pair<L>(a.grid.at(b.ox + 2 * x2, b.oy + y, b.oz + z), 2 * x2 + 1 < b.nx, a,
                                      collision);
        };
        if constexpr (L::q == 19)
          backend::parallel_for_box<BoxLaunch::per_cell, 3>(label, (b.nx + 1) / 2, b.ny, b.nz, pair);
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
  const auto f = [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
    x += b.ox, y += b.oy, z += b.oz;
    const unsigned faces = Odd ? wrapped_faces_at(a.grid, a.wrap_axes, x, y, z) : 0u;
    bulk_cell<L, Odd>(a.grid.at(x, y, z), faces, a, collision, all_fluid);
  };
  if constexpr (sizeof(T) >= 4)
    backend::parallel_for_box<BoxLaunch::per_cell>(label, b.nx, b.ny, b.nz, f);
  else if constexpr (Odd && L::d == 3)
    backend::parallel_for_box<BoxLaunch::per_cell, (L::q > 19 ? 3 : 4)>(label, b.nx, b.ny, b.nz, f);
  else
    backend::parallel_for_box<BoxLaunch::grid_stride>(label, b.nx, b.ny, b.nz, f);
}

template <class L, bool Odd, class T, class R, class C>
void launch_stream_collide(const StreamCollideArgs<T, R>& a, const C& collision, const CellSet& cells) {
  const char* label = Odd ? "lbm::stream_collide_odd" : "lbm::stream_collide_even";
  if (cells.list) {
    const index_t* idx = cells.list;
    backend::parallel_for(label, cells.list_size, [=] EDDY_DEVICE(index_t t) {
      const index_t n = idx[t];
      bulk_cell<L, Odd>(n, Odd ? wrapped_faces(a.grid, a.wrap_axes, n) : 0u, a, collision, false);
    });
  } else {
    launch_box_stream_collide<L, Odd>(label, a, collision, cells.box, cells.pairs, cells.all_fluid);
  }
  if (Odd && cells.near_solid_size > 0) {
    const index_t* sp = cells.near_solid;
    constexpr index_t index_mask = (index_t(1) << near_solid_shift) - 1;
    backend::parallel_for(
        "lbm::stream_collide_odd_near_solid", cells.near_solid_size, [=] EDDY_DEVICE(index_t t) {
          const index_t e = sp[t];
          stream_collide<L, true, true>(e & index_mask, unsigned(e >> near_solid_shift), a, collision);
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

template <class L, class T, class R>
index_t reduce_first_nonfinite(const StreamCollideArgs<T, R>& a, bool next_odd, Int3 global, Int3 offset) {
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

template <class L, class T, class R>
SpeedAt reduce_fastest(const StreamCollideArgs<T, R>& a, bool next_odd, Int3 global, Int3 offset) {
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

template <class L, class T, class R>
void launch_moments(const StreamCollideArgs<T, R>& a, bool next_odd, double* rho, double* u) {
  const int d = L::d;
  const PaddedGrid g = a.grid;
  backend::parallel_for("lbm::moments", g.n_interior(), [=] EDDY_DEVICE(index_t t) {
    R drho, v[3];
    cell_moments<L>(g.interior_to_padded(t), a, next_odd, drho, v);
    rho[t] = 1.0 + double(drho);
    for (int k = 0; k < d; ++k) u[t * d + k] = double(v[k]);
  });
}

/// Moments and the strain-rate sums of every interior cell. The strain rate comes from the
/// non-equilibrium stress of the populations the next step loads, S = -3 omega / (2 rho) Pi_neq (with
/// the cell's Smagorinsky omega when les > 0), so it needs no neighbour and no halo.
template <class L, class T, class R>
StatsAcc reduce_stats(const StreamCollideArgs<T, R>& a, bool next_odd, R tau0, R les) {
  const PaddedGrid g = a.grid;
  return backend::parallel_reduce(
      "lbm::stats", g.n_interior(), StatsAcc{0, 0, 0, 0, 0, 0},
      [=] EDDY_DEVICE(index_t t) {
        R f[L::q];
        cell_populations<L>(g.interior_to_padded(t), a, next_odd, f);
        R drho, v[3], p[6];
        moments<L>(f, drho, v, a.force);
        pi_neq<L, true>(f, drho, v, a.force, p);
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

template <class L, class T, class R>
Sum2 reduce_change(const StreamCollideArgs<T, R>& a, bool next_odd, double* u_prev) {
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

template <class L, class T>
class SolverImpl final : public Solver {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;

 public:
  explicit SolverImpl(const Setup& s) : setup_(s) {
    if (setup_.global[0] == 0) setup_.global = setup_.cells;
    if (setup_.boxes.empty()) setup_.boxes = {{setup_.offset, setup_.cells}}, setup_.rank = 0;
    exchanger_ = setup_.exchanger ? setup_.exchanger : &local_;
    // A block spanning a periodic axis wraps it in the kernels: no ghost copies on that axis.
    wrap_axes_ = wrapped_axes(setup_, setup_.cells);
    grid_ = padded_grid(s.dims, s.cells);
    f_.resize(static_cast<std::size_t>(L::q * grid_.n_padded + lead_));
    const std::vector<std::uint8_t> flags = build_flags();
    build_pattern();
    build_cell_sets(flags);
  }

  /// The initial populations (initial_cell) of a host initial condition, one z-plane of padded cells at a
  /// time (host threads), so the host never holds more than a plane of populations.
  void initialize(const InitialCondition& ic) override {
    const index_t N = grid_.n_padded, plane = grid_.stride_z;
    std::vector<T> h(static_cast<std::size_t>(L::q * plane));
    for (index_t pz = 0; pz < grid_.nz + 2 * grid_.gz; ++pz) {
      std::fill(h.begin(), h.end(), store_pop<T>(R(0)));
      const index_t z = pz - grid_.gz;
      if (z >= 0 && z < grid_.nz)
        backend::host_parallel_for(grid_.nx * grid_.ny, [&](index_t t) {
          const index_t x = t % grid_.nx, y = t / grid_.nx;
          double f[L::q];
          initial_cell<L>(ic, x + setup_.offset[0], y + setup_.offset[1], z + setup_.offset[2], setup_.dims,
                          setup_.tau, f);
          const index_t n = grid_.at(x, y, z) - pz * plane;
          for (int i = 0; i < L::q; ++i) h[static_cast<std::size_t>(i * plane + n)] = store_pop<T>(R(f[i]));
        });
      for (int i = 0; i < L::q; ++i)
        backend::copy_to_device(pop() + i * N + pz * plane, h.data() + i * plane, sizeof(T) * plane);
    }
    steps_ = 0;
  }

  /// The Taylor-Green vortex sampled on the device, cell by cell (initial_cell, as the host path); the
  /// ghost layer zero.
  void initialize(const TaylorGreenCells& tg) override {
    backend::fill_zero(f_.data(), f_.bytes());
    const StreamCollideArgs<T, R> a = args();
    const Int3 off = setup_.offset;
    const int dims = setup_.dims;
    const double tau = setup_.tau;
    backend::parallel_for_box("lbm::initialize_taylor_green", grid_.nx, grid_.ny, grid_.nz,
                              [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
                                double f[L::q];
                                initial_cell<L>(tg, x + off[0], y + off[1], z + off[2], dims, tau, f);
                                const index_t n = a.grid.at(x, y, z), N = a.grid.n_padded;
                                EDDY_UNROLL for (int i = 0; i < L::q; ++i) a.f[i * N + n] =
                                    store_pop<T>(R(f[i]));
                              });
    steps_ = 0;
  }

  /// The device work of one step of kind `odd`, the boundary links' velocities at `ramp` of their
  /// final values: launches and the halo exchange only, no host state changes (step() records it).
  /// Its phases for eddy bench's breakdown (backend/profile.hpp: shell, inner, links; the exchange marks
  /// pack, wait, transfer and unpack): one branch each while the timer is off, a fence each while it is
  /// on (step graphs are off then).
  void update_step(bool odd, double ramp) {
    using backend::PhaseTimer;
    PhaseTimer& timer = backend::phase_timer();
    const field::Direction dir = odd ? field::Direction::reverse : field::Direction::forward;
    const PhaseTimer::Phase caller =
        timer.to(overlap_ && !pattern_.peers.empty() ? PhaseTimer::shell : PhaseTimer::inner);
    if (pattern_.peers.empty()) {
      update(odd, all_);
    } else if (!overlap_) {
      update(odd, all_);
      exchanger_->exchange(pop(), sizeof(T), pattern_, dir);
    } else {
      update(odd, shell_);
      exchanger_->start(pop(), sizeof(T), pattern_, dir);
      timer.to(PhaseTimer::inner);
      update(odd, inner_);
      exchanger_->finish();
    }
    if (n_links_ > 0) {
      timer.to(PhaseTimer::links);
      launch_boundary_links<L>(args(), odd, links_.data(), n_links_, ramp, link_value_.data(),
                               link_force_.data());
    }
    timer.to(caller);
  }

  /// One step. After an even step the ghosts receive the populations their images will send inwards;
  /// after an odd step the populations written into ghosts go back to their images. With other ranks
  /// involved, the boundary shell is updated first, its messages start, the inner cells (which read and
  /// write no ghost and no entry the messages touch) are updated while they fly, then the messages land.
  void step() override {
    const bool odd = steps_ % 2 == 1;
    double ramp = 1.0;
    if (n_links_ > 0) {
      const double t = double(steps_ + 1), ramp_t = setup_.ramp_steps;
      ramp = t < ramp_t ? 0.5 * (1.0 - std::cos(M_PI * t / ramp_t)) : 1.0;
    }
    const auto work = [this, odd, ramp] { update_step(odd, ramp); };
    // One rank: the even and the odd step each as a graph (backend/graph.hpp; their launches differ in
    // the kind of step alone), once the boundary velocities have ramped up (before, each step's links
    // take another factor), where the step is more than one launch (cells next to walls on odd steps,
    // boundary links): a single kernel replayed as a graph ran 1 % slower than launched (D3Q19 64^3 on an
    // H200, cases/benchmarks/results/2026-11-30e-h200). Several ranks exchange halos through the host.
    const int launches = 1 + (odd && all_.near_solid_size > 0 ? 1 : 0) + (n_links_ > 0 ? 1 : 0);
    if (pattern_.peers.empty() && ramp == 1.0 && launches > 1)
      graph_.run(odd ? 1 : 0, 0, work);
    else
      work();
    ++steps_;
  }

  void set_graphs(bool on) override { graph_.set_enabled(on); }
  int graph_recordings() const override { return graph_.recordings(); }

  long steps() const override { return steps_; }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) const override {
    const index_t n = grid_.n_interior();
    DeviceArray<double> d_rho(static_cast<std::size_t>(n)), d_u(static_cast<std::size_t>(n * L::d));
    launch_moments<L>(args(), next_odd(), d_rho.data(), d_u.data());
    rho = d_rho.to_host();
    u = d_u.to_host();
  }

  Stats stats() const override {
    const StatsAcc s = reduce_stats<L>(args(), next_odd(), R(setup_.tau), R(les_factor()));
    return Stats{s.mass, s.ke, s.umax, s.bad, s.ss, s.sgs};
  }

  std::array<double, 2> velocity_change() override {
    if (u_prev_.size() == 0) u_prev_.resize(static_cast<std::size_t>(grid_.n_interior() * L::d));
    const Sum2 s = reduce_change<L>(args(), next_odd(), u_prev_.data());
    return {s.a, s.b};
  }

  std::vector<unsigned char> save_state() const override {
    const index_t n = grid_.n_interior(), chunk = std::min(n, state_chunk_cells);
    std::vector<unsigned char> out(static_cast<std::size_t>(n * L::q) * sizeof(T));
    DeviceArray<T> packed(static_cast<std::size_t>(chunk * L::q));
    for (index_t first = 0; first < n; first += chunk) {
      const index_t count = std::min(chunk, n - first);
      launch_pack_state(pop(), grid_, L::q, first, count, packed.data(), false);
      backend::copy_to_host(out.data() + static_cast<std::size_t>(first * L::q) * sizeof(T), packed.data(),
                            static_cast<std::size_t>(count * L::q) * sizeof(T));
    }
    return out;
  }

  void load_state(const std::vector<unsigned char>& state, long step) override {
    const index_t n = grid_.n_interior(), chunk = std::min(n, state_chunk_cells);
    if (state.size() != static_cast<std::size_t>(n * L::q) * sizeof(T))
      throw Error("lbm: checkpoint state of " + std::to_string(state.size()) +
                  " bytes does not fit this block");
    DeviceArray<T> packed(static_cast<std::size_t>(chunk * L::q));
    for (index_t first = 0; first < n; first += chunk) {
      const index_t count = std::min(chunk, n - first);
      backend::copy_to_device(packed.data(),
                              state.data() + static_cast<std::size_t>(first * L::q) * sizeof(T),
                              static_cast<std::size_t>(count * L::q) * sizeof(T));
      launch_pack_state(pop(), grid_, L::q, first, count, packed.data(), true);
    }
    steps_ = step;
    // Before an odd step the ghosts must hold their images' post-collision populations.
    if (next_odd() && !pattern_.peers.empty())
      exchanger_->exchange(pop(), sizeof(T), pattern_, field::Direction::forward);
  }

  int state_bytes() const override { return static_cast<int>(sizeof(T)); }
  int q() const override { return L::q; }

  index_t first_nonfinite() const override {
    return reduce_first_nonfinite<L>(args(), next_odd(), setup_.global, setup_.offset);
  }

  std::pair<double, index_t> fastest_cell() const override {
    const SpeedAt s = reduce_fastest<L>(args(), next_odd(), setup_.global, setup_.offset);
    return {s.speed, s.cell};
  }

  std::size_t bytes_allocated() const override {
    std::size_t pattern = 0;
    for (const auto& p : pattern_.peers) pattern += p.send.bytes() + p.recv.bytes();
    return f_.bytes() + flags_.bytes() + pattern + u_prev_.bytes() + shell_list_.bytes() +
           near_solid_list_.bytes() + links_.bytes() + link_value_.bytes() + link_force_.bytes();
  }
  double bytes_per_cell_step() const override { return 2.0 * L::q * sizeof(T) + 1.0; }
  const Setup& setup() const override { return setup_; }

  std::vector<Real3> body_forces() const override {
    std::vector<Real3> out(setup_.bodies.size(), Real3{0.0, 0.0, 0.0});
    for (std::size_t b = 0; b < out.size(); ++b) {
      if (body_links_[b + 1] == body_links_[b]) continue;
      const Sum3 s = reduce_link_force(link_force_.data(), body_links_[b], body_links_[b + 1]);
      out[b] = {double(s.x) / force_scale, double(s.y) / force_scale, double(s.z) / force_scale};
    }
    return out;
  }
  index_t boundary_links() const override { return n_links_; }

 private:
  bool next_odd() const { return steps_ % 2 == 1; }
  /// The population array: padded cell n's slot i at pop()[i * n_padded + n] (see row_align).
  T* pop() const { return f_.data() + lead_; }

  /// 18 C_s^2 of the Smagorinsky model (0 = none).
  double les_factor() const { return 18.0 * setup_.smagorinsky * setup_.smagorinsky; }

  /// The update with the configured operator. LES and body force are compile-time flags of it; the
  /// solver instantiates the plain kernel and the one with both (a zero model constant gives omega back,
  /// a zero force adds zeros), not all four: each combination is 12 more kernels per lattice and
  /// precision, and the compile time of this file (CUDA in CI on 2 cores) is what that would cost.
  void update(bool odd, const CellSet& cells) {
    const bool les = setup_.smagorinsky > 0.0;
    const bool force = setup_.force[0] != 0.0 || setup_.force[1] != 0.0 || setup_.force[2] != 0.0;
    if (les || force)
      update<true, true>(odd, cells);
    else
      update<false, false>(odd, cells);
  }

  template <bool Les, bool Force>
  void update(bool odd, const CellSet& cells) {
    const StreamCollideArgs<T, R> a = args();
    CollisionExtras<R> extras;
    extras.tau0 = R(setup_.tau), extras.les = R(les_factor());
    // In the frame of the stored numbers, where the update computes (stream_collide_k.hpp).
    for (int d = 0; d < 3; ++d) extras.force[d] = a.force[d] * R(population_unit<T>());
    const CollisionRates rates{1.0 / setup_.tau, setup_.trt_magic};
    with_collision<R, Les, Force>(setup_.collision, rates, extras, [&](const auto& c) {
      odd ? launch_stream_collide<L, true>(a, c, cells) : launch_stream_collide<L, false>(a, c, cells);
    });
  }

  /// The whole interior, its inner box (one cell in from every face) and the shell around it, each
  /// with its near-solid cells (`flags`: the host copy of the flag field).
  void build_cell_sets(const std::vector<std::uint8_t>& flags) {
    all_.box = field::SubBox::interior(grid_);
    all_.pairs = pairs_fit(all_.box);
    overlap_ =
        setup_.exchanger != nullptr && grid_.nx > 2 && grid_.ny > 2 && (setup_.dims == 2 || grid_.nz > 2);
    const field::SubBox inner = overlap_ ? inner_box() : all_.box;
    std::vector<index_t> shell, near_solid_cells[2];  // of the inner box, of the shell
    bool other[2] = {false, false};  // a cell that is not plain fluid, in the inner box, the shell
    for (index_t z = 0; z < grid_.nz; ++z)
      for (index_t y = 0; y < grid_.ny; ++y)
        for (index_t x = 0; x < grid_.nx; ++x) {
          const index_t n = grid_.at(x, y, z);
          const bool edge = !inner.contains(x, y, z);
          if (edge && overlap_) shell.push_back(n);
          const std::uint8_t f = flags[static_cast<std::size_t>(n)];
          if (f != fluid) other[edge ? 1 : 0] = true;
          if ((f & kind_mask) == fluid && (f & near_solid))
            near_solid_cells[edge ? 1 : 0].push_back(
                near_solid_entry(n, wrapped_faces(grid_, wrap_axes_, n)));
        }
    // all_: the inner box's near-solid cells first, then the shell's (one array; inner_ and shell_ point into
    // it).
    const std::size_t n_inner = near_solid_cells[0].size();
    near_solid_cells[0].insert(near_solid_cells[0].end(), near_solid_cells[1].begin(),
                               near_solid_cells[1].end());
    near_solid_list_.from_host(near_solid_cells[0]);
    all_.near_solid = near_solid_list_.data();
    all_.near_solid_size = static_cast<index_t>(near_solid_cells[0].size());
    all_.all_fluid = !other[0] && !other[1];
    if (!overlap_) return;
    inner_.box = inner;
    inner_.pairs = pairs_fit(inner);
    inner_.near_solid = near_solid_list_.data();
    inner_.near_solid_size = static_cast<index_t>(n_inner);
    inner_.all_fluid = !other[0];
    shell_list_.from_host(shell);
    shell_.list = shell_list_.data();
    shell_.list_size = static_cast<index_t>(shell.size());
    shell_.near_solid = near_solid_list_.data() + n_inner;
    shell_.near_solid_size = static_cast<index_t>(near_solid_cells[1].size());
  }

  /// Whether the even step can update box b in cell pairs (CellSet::pairs): b's first x even in the block
  /// (interior x = 0 starts an aligned row) and in the global grid.
  bool pairs_fit(const field::SubBox& b) const { return b.ox % 2 == 0 && setup_.offset[0] % 2 == 0; }

  /// The inner box of the overlapped step: the interior less the one-cell layer at each face whose ghosts
  /// the exchange fills. A face the block wraps, a wall or an open boundary has no such ghosts, and
  /// leaving it out keeps the inner box's rows whole and aligned (a block split along z only updates
  /// two planes before its messages start). The faces are read off the pattern: each ghost it touches
  /// marks the faces it lies beyond. Every cell the pattern touches must then lie outside the box, as
  /// with the layer at every face left out, which is the fallback should one not.
  field::SubBox inner_box() const {
    const PaddedGrid& g = grid_;
    const index_t lo[3] = {g.g, g.g, g.gz}, ext[3] = {g.nx, g.ny, g.nz};
    std::vector<std::vector<index_t>> lists;  // the pattern's entries (padded cell and slot)
    for (const auto& p : pattern_.peers) lists.push_back(p.send.to_host()), lists.push_back(p.recv.to_host());
    // Interior coordinates of an entry: -1 or ext[d] beyond a face.
    auto cell = [&](index_t e, index_t(&c)[3]) {
      g.coordinates(e % g.n_padded, c);
      for (int d = 0; d < 3; ++d) c[d] -= lo[d];
    };
    unsigned faces = 0;
    index_t c[3];
    for (const auto& list : lists)
      for (const index_t e : list) {
        cell(e, c);
        for (int d = 0; d < g.dims; ++d)
          faces |= c[d] < 0 ? 1u << (2 * d) : (c[d] >= ext[d] ? 2u << (2 * d) : 0u);
      }
    field::SubBox b = field::SubBox::interior(g);
    index_t* size[3] = {&b.nx, &b.ny, &b.nz};
    index_t* origin[3] = {&b.ox, &b.oy, &b.oz};
    for (int d = 0; d < g.dims; ++d) {
      const index_t low = (faces >> (2 * d)) & 1u, high = (faces >> (2 * d + 1)) & 1u;
      *origin[d] += low, *size[d] -= low + high;
    }
    for (const auto& list : lists)
      for (const index_t e : list) {
        cell(e, c);
        if (b.contains(c[0], c[1], c[2])) return field::SubBox::inner(g, 1);
      }
    return b;
  }

  StreamCollideArgs<T, R> args() const {
    StreamCollideArgs<T, R> a{};
    a.f = pop();
    a.flags = flags_.data();
    a.grid = grid_;
    for (int k = 0; k < max_flag; ++k)
      for (int d = 0; d < 3; ++d) a.wall_u[k][d] = R(wall_u_[k][d]);
    for (int d = 0; d < 3; ++d) a.force[d] = R(setup_.force[static_cast<std::size_t>(d)]);
    a.wrap_axes = wrap_axes_;
    return a;
  }

  std::vector<std::uint8_t> build_flags() {
    for (int f = 0; f < 6; ++f)
      if (setup_.faces[static_cast<std::size_t>(f)] == FaceKind::moving_wall)
        for (int d = 0; d < 3; ++d)
          wall_u_[moving_wall + f][d] =
              setup_.wall_velocity[static_cast<std::size_t>(f)][static_cast<std::size_t>(d)];
    const GhostLayout<L> layout(setup_);
    std::vector<std::uint8_t> h = layout.flags();
    const std::vector<int> body = mark_bodies(layout, h);
    // near_solid on every interior fluid cell that has a solid cell along a lattice link (across a
    // wrapped axis: the image cell): the kernels read neighbour flags only there. Marked in a second
    // pass, so the first reads only kinds.
    const PaddedGrid g = grid_;
    const StreamCollideArgs<T, R> a = args();  // grid and wrap_axes, for neighbour()
    std::vector<std::uint8_t> mark(static_cast<std::size_t>(g.n_interior()), 0);
    // A block of fluid alone (a periodic box, its ghosts the images) has no cell next to a solid.
    const bool all_fluid =
        std::all_of(h.begin(), h.end(), [](std::uint8_t f) { return (f & kind_mask) == fluid; });
    if (!all_fluid)
      backend::host_parallel_for(g.n_interior(), [&](index_t t) {
        const index_t n = g.interior_to_padded(t);
        if (h[static_cast<std::size_t>(n)] != fluid) return;
        const unsigned faces = wrapped_faces(g, wrap_axes_, n);
        std::uint8_t& k = mark[static_cast<std::size_t>(t)];
        for (int i = 1; i < L::q; ++i)
          if (h[static_cast<std::size_t>(neighbour<L>(n, faces, i, +1, a))] != fluid) k |= near_solid;
      });
    for (index_t t = 0; t < g.n_interior(); ++t)
      h[static_cast<std::size_t>(g.interior_to_padded(t))] |= mark[static_cast<std::size_t>(t)];
    flags_.from_host(h);
    build_links(layout, h, body);
    return h;
  }

  /// Mark every padded cell (interior or ghost image, in global coordinates, so every decomposition
  /// sees the same solids) whose centre lies in a body as a wall; returns the body of each padded cell
  /// (-1: none).
  std::vector<int> mark_bodies(const GhostLayout<L>& layout, std::vector<std::uint8_t>& h) const {
    std::vector<int> body(static_cast<std::size_t>(grid_.n_padded), -1);
    if (setup_.bodies.empty()) return body;

    backend::host_parallel_for(grid_.n_padded, [&](index_t n) {
      index_t p[3];
      grid_.coordinates(n, p);
      index_t img[3];
      std::uint8_t flag;
      if (layout.classify(setup_.offset, setup_.cells, p, flag, img) == GhostLayout<L>::Kind::solid) return;
      const int b = layout.body_at(img);
      if (b < 0) return;
      body[static_cast<std::size_t>(n)] = b;
      h[static_cast<std::size_t>(n)] = wall;
    });
    return body;
  }

  /// The boundary links of the interior fluid cells (boundary_k.hpp), body links first, grouped by body.
  void build_links(const GhostLayout<L>& layout, const std::vector<std::uint8_t>& h,
                   const std::vector<int>& body) {
    const PaddedGrid g = grid_;
    const StreamCollideArgs<T, R> a = args();  // grid and wrap_axes, for neighbour()
    std::vector<std::vector<BoundaryLink>> by_body(setup_.bodies.size());
    std::vector<BoundaryLink> open;
    auto is_fluid = [&](index_t m) { return (h[static_cast<std::size_t>(m)] & kind_mask) == fluid; };
    for (index_t t = 0; t < g.n_interior(); ++t) {
      const index_t n = g.interior_to_padded(t);
      if (!(h[static_cast<std::size_t>(n)] & near_solid)) continue;
      const index_t x[3] = {t % g.nx + setup_.offset[0], (t / g.nx) % g.ny + setup_.offset[1],
                            t / (g.nx * g.ny) + setup_.offset[2]};
      // Neighbours as the kernels find them: wrapped around the block's periodic axes.
      const unsigned faces = wrapped_faces(g, wrap_axes_, n);
      for (int k = 1; k < L::q; ++k) {
        const index_t m = neighbour<L>(n, faces, k, +1, a);
        const index_t back = neighbour<L>(n, faces, k, -1, a);
        if (is_fluid(m)) continue;
        BoundaryLink l;
        l.cell = n, l.k = k, l.faces = faces;
        const int b = body[static_cast<std::size_t>(m)];
        if (b >= 0) {
          l.kind = body_link, l.body = b;
          const Real3 from = layout.centre(x);
          Real3 to = from;
          for (int d = 0; d < setup_.dims; ++d) to[static_cast<std::size_t>(d)] += L::c(k, d) * setup_.dx;
          const double q = setup_.interpolated_walls
                               ? setup_.bodies[static_cast<std::size_t>(b)]->crossing(from, to)
                               : -1.0;
          l.q = q < 0.0 ? 0.5 : q;
          if (is_fluid(back)) l.aux = back, l.aux_faces = wrapped_faces(g, wrap_axes_, back);
          by_body[static_cast<std::size_t>(b)].push_back(l);
          continue;
        }
        // A ghost beyond the domain: a link only when every face it lies beyond is open (a wall wins).
        int face = -1;
        bool walled = false;
        for (int d = 0; d < setup_.dims; ++d) {
          const index_t gd = x[d] + L::c(k, d);
          if (gd >= 0 && gd < setup_.global[static_cast<std::size_t>(d)]) continue;
          const int f = 2 * d + (gd < 0 ? 0 : 1);
          const FaceKind kind = setup_.faces[static_cast<std::size_t>(f)];
          if (kind == FaceKind::wall || kind == FaceKind::moving_wall) walled = true;
          if (kind != FaceKind::periodic && face < 0) face = f;
        }
        if (walled || face < 0) continue;
        const std::size_t fs = static_cast<std::size_t>(face);
        const int axis = face / 2;
        const FaceKind kind = setup_.faces[fs];
        if (kind == FaceKind::velocity_inlet) {
          l.kind = inlet_link;
          const Real3 v = inlet_velocity(setup_, face, x);
          for (std::size_t d = 0; d < 3; ++d) l.u[d] = v[d];
        } else if (kind == FaceKind::pressure_outlet) {
          l.kind = pressure_link;
          l.drho = setup_.outlet_drho[fs];
        } else {
          l.kind = outflow_link;
          const int nrm = face % 2 == 0 ? -1 : 1;  // outward normal along the axis
          // x - n + c_k: in x's own layer (c_k leaves through the face), so inside the padded block.
          int c[3] = {L::c(k, 0), L::c(k, 1), L::c(k, 2)};
          c[axis] -= nrm;
          int j = 0;  // the lattice direction c_k - n: c_k without its normal component is one
          while (j < L::q && (L::c(j, 0) != c[0] || L::c(j, 1) != c[1] || L::c(j, 2) != c[2])) ++j;
          const index_t aux = neighbour<L>(n, faces, j, +1, a);
          if (is_fluid(aux)) l.aux = aux, l.aux_faces = wrapped_faces(g, wrap_axes_, aux);
        }
        open.push_back(l);
      }
    }
    std::vector<BoundaryLink> all;
    body_links_.assign(1, 0);
    for (const auto& v : by_body) {
      all.insert(all.end(), v.begin(), v.end());
      body_links_.push_back(static_cast<index_t>(all.size()));
    }
    all.insert(all.end(), open.begin(), open.end());
    n_links_ = static_cast<index_t>(all.size());
    links_.from_host(all);
    link_value_.resize(all.size());
    link_force_.resize(3 * all.size());
    std::vector<long long> zero(3 * all.size(), 0);
    link_force_.from_host(zero);
  }

  /// The ghost links other blocks (or this one, across a periodic axis it does not wrap) fill.
  void build_pattern() { pattern_ = GhostLayout<L>(setup_).pattern(); }

  Setup setup_;
  PaddedGrid grid_;
  static constexpr index_t lead_ = PaddedGrid::lead(1, row_align);
  DeviceArray<T> f_;  // populations, lead_ elements in (pop())
  DeviceArray<std::uint8_t> flags_;
  field::Pattern pattern_;
  field::LocalExchanger local_;
  field::Exchanger* exchanger_ = nullptr;
  CellSet all_, inner_, shell_;
  DeviceArray<index_t> shell_list_, near_solid_list_;
  bool overlap_ = false;
  DeviceArray<double> u_prev_;
  double wall_u_[max_flag][3] = {};
  unsigned wrap_axes_ = 0;  // StreamCollideArgs::wrap_axes
  long steps_ = 0;
  backend::StepGraph graph_;
  DeviceArray<BoundaryLink> links_;
  DeviceArray<double> link_value_;
  DeviceArray<long long> link_force_;
  std::vector<index_t> body_links_{0};  ///< links of body b: [body_links_[b], body_links_[b + 1])
  index_t n_links_ = 0;
};

}  // namespace

namespace detail {
template <class L, class T>
std::unique_ptr<Solver> make_impl(const Setup& s) {
  return std::make_unique<SolverImpl<L, T>>(s);
}
}  // namespace detail

}  // namespace eddy::lbm
