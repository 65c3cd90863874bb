#pragma once
/// The LBM solver in moment storage (numerics.storage: moments): each cell holds the density deviation,
/// velocity and non-equilibrium stress of the populations it starts a step with (lbm/moment_k.hpp), the
/// whole state of the recursive regularized operator, in two arrays the steps alternate between. Its
/// halo carries those numbers of the ghost cells an interior cell pulls from
/// (GhostLayout::ghost_cell_pattern), its checkpoints store them, and its diagnostics are the population
/// solver's launches (solver_launches.hpp) on the stored moments. Included only by the translation units
/// that instantiate it, one per lattice and precision (CMakeLists.txt:
/// lbm_moments_<lattice>_<precision>.cpp).
///
/// What it does not do yet, refused by the configuration check: bodies, open faces
/// (velocity inlets, pressure outlets, outflow), other operators than regularized. The cells next to a
/// wall take the regularized operator too, with their stress from the velocity gradient (moment_k.hpp:
/// the population solver's wall closure, TRT in the bounce-back step, keeps populations a moment state
/// cannot hold).
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "backend/parallel.hpp"
#include "core/error.hpp"
#include "lbm/collision_regularized_k.hpp"
#include "lbm/derived_k.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lattice.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/moment_k.hpp"
#include "lbm/solver_base.hpp"
#include "lbm/solver_launches.hpp"

namespace eddy::lbm {
namespace {

/// What the bulk's tile launch stages of a relaxed cell: its q post-collision populations where a tile of
/// them has as many cells as one of its 17 coefficients would (backend::gpu_tile_shape): a cell then reads
/// a word a link instead of rebuilding a population from a neighbour's coefficients. Else (D3Q27, FP64)
/// the coefficients. On one H100 (256^3, 2026-12-07, the two forms alternating in one run;
/// cases/benchmarks/results/2026-12-07e-h100-staged-populations) the populations took D3Q19 FP32 from
/// 14,944 to 15,928 MLUPS, 16-bit from 16,133 to 18,247 and D2Q9 4096^2 from 41,203 to 43,341, where a
/// tile kept its 32 x 4 cells (2D: 32 x 8); D3Q27 FP32 from 12,360 to 9,431 and D3Q19 FP64 from 7,833 to
/// 5,721, where it had half of them or fewer.
template <class L, class R>
using StagedForm =
    std::conditional_t<backend::gpu_tile_shape(sizeof(RelaxedPopulations<L, R>), L::d == 3).threads() >=
                           backend::gpu_tile_shape(sizeof(RegularizedState<R>), L::d == 3).threads(),
                       RelaxedPopulations<L, R>, RegularizedState<R>>;

/// The update of every interior cell of a block from `a.m` into `a.out` (moment_k.hpp). The bulk runs as
/// a tile launch: each cell of a tile and its halo relaxes once (the image's state across a wrapped face;
/// a solid cell, which no bulk cell reads, is not staged), then the bulk cells take their populations
/// from what was staged (StagedForm); it reads no flag where every cell is plain fluid (`all_fluid`).
/// Elsewhere the cells next to a solid bounce back in a launch of their own (moment_update, from the stored
/// states), as the population storage does: in one kernel with the bulk, the first tile kernel (16 x 4 x 4
/// cells, 256 threads a block) took 106 registers a thread instead of 54 (D3Q19 FP32, sm_90), two blocks an
/// SM instead of four.
template <class L, bool Force, class T, class R, class C>
void launch_moment_update(const MomentArgs<T, R>& a, const C& collide, bool all_fluid) {
  const field::PaddedGrid& g = a.grid;
  using Staged = StagedForm<L, R>;
  backend::parallel_for_tiles<Staged, L::d == 3>(
      "lbm::moment_update", g.nx, g.ny, g.nz,
      [=] EDDY_DEVICE(index_t x, index_t y, index_t z, Staged & s) {
        const auto image = [&](index_t c, index_t n, unsigned axis) {
          return !(a.wrap_axes & axis) ? c : c < 0 ? c + n : c >= n ? c - n : c;
        };
        const index_t m = g.at(image(x, g.nx, 1u), image(y, g.ny, 2u), image(z, g.nz, 4u));
        if (all_fluid || (a.flags[m] & kind_mask) == fluid)
          stage_relaxed<L>(static_cast<std::uint32_t>(m), a, collide, s);
      },
      [=] EDDY_DEVICE(index_t x, index_t y, index_t z, const backend::TileView<Staged>& staged) {
        const index_t n = g.at(x, y, z);
        if (all_fluid || a.flags[n] == fluid) moment_update_staged<L, Force>(n, staged, a, collide);
      });
  if (all_fluid) return;
  backend::parallel_for_box(
      "lbm::moment_update_near_solid", g.nx, g.ny, g.nz, [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
        const index_t n = g.at(x, y, z);
        const std::uint8_t fl = a.flags[n];
        if (fl != fluid && (fl & kind_mask) == fluid)
          moment_update<L, Force>(n, wrapped_faces_at(g, a.wrap_axes, x, y, z), a, collide);
      });
}

/// The state of a cell whose populations are the initial ones of `ic` (initial_cell), rounded to the
/// storage type as the population solver stores them: what its first step computes from them.
template <class L, bool Force, class T, class R, class IC>
EDDY_HD EDDY_INLINE void initial_state(const IC& ic, index_t gx, index_t gy, index_t gz, int dims, double tau,
                                       const R (&force)[3], R& drho, R (&u)[3], R (&p)[6]) {
  double f0[L::q];
  initial_cell<L>(ic, gx, gy, gz, dims, tau, f0);
  R f[L::q];
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] = load_pop<R>(store_pop<T>(R(f0[i])));
  state_of<L, Force>(f, force, drho, u, p);
}

template <class L, class T>
class MomentSolverImpl final : public SolverBase<MomentSolverImpl<L, T>, L, T> {
  using Base = SolverBase<MomentSolverImpl<L, T>, L, T>;
  friend Base;
  using Base::exchanger_, Base::grid_, Base::setup_, Base::state_version_, Base::steps_, Base::wrap_axes_;
  using typename Base::R;
  static constexpr int M = moment_count<L>();

 public:
  explicit MomentSolverImpl(const Setup& s) : Base(s) {
    if (setup_.collision != Collision::regularized)
      throw InputError("numerics.storage: moments needs numerics.collision: regularized");
    if (!setup_.bodies.empty()) throw InputError("numerics.storage: moments does not take bodies yet");
    for (const FaceKind k : setup_.faces)
      if (k != FaceKind::periodic && k != FaceKind::wall && k != FaceKind::moving_wall)
        throw InputError("numerics.storage: moments takes periodic faces, walls and moving walls only");
    for (auto& m : m_) {
      m.resize(static_cast<std::size_t>(M * grid_.n_padded), static_cast<std::size_t>(grid_.n_padded));
      backend::fill_zero(m.data(), m.bytes());
    }
    const GhostLayout<L> layout(setup_);
    std::vector<std::uint8_t> h = layout.flags();
    mark_near_solid<L>(grid_, wrap_axes_, h);
    all_fluid_ = std::all_of(h.begin(), h.end(), [](std::uint8_t f) { return f == fluid; });
    flags_.from_host(h);
    pattern_ = layout.ghost_cell_pattern(M);
    forced_ = setup_.smagorinsky > 0.0 || setup_.force[0] != 0.0 || setup_.force[1] != 0.0 ||
              setup_.force[2] != 0.0;
  }

  /// The initial state of a host initial condition, one z-plane of padded cells at a time (host threads).
  void initialize(const InitialCondition& ic) override {
    const index_t plane = grid_.stride_z, N = grid_.n_padded;
    const MomentArgs<T, R> a = args();
    std::vector<T> h(static_cast<std::size_t>(M * plane));
    for (index_t pz = 0; pz < grid_.nz + 2 * grid_.gz; ++pz) {
      std::fill(h.begin(), h.end(), store_pop<T>(R(0)));
      const index_t z = pz - grid_.gz;
      if (z >= 0 && z < grid_.nz)
        backend::host_parallel_for(grid_.nx * grid_.ny, [&](index_t t) {
          const index_t x = t % grid_.nx, y = t / grid_.nx;
          R drho, u[3], p[6];
          const index_t gx = x + setup_.offset[0], gy = y + setup_.offset[1], gz = z + setup_.offset[2];
          if (forced_)
            initial_state<L, true, T>(ic, gx, gy, gz, setup_.dims, setup_.tau, a.force, drho, u, p);
          else
            initial_state<L, false, T>(ic, gx, gy, gz, setup_.dims, setup_.tau, a.force, drho, u, p);
          store_moments<L>(h.data(), plane, static_cast<std::uint32_t>(grid_.at(x, y, z) - pz * plane), drho,
                           u, p);
        });
      for (int k = 0; k < M; ++k)
        backend::copy_to_device(m_[cur_].data() + k * N + pz * plane, h.data() + k * plane,
                                sizeof(T) * plane);
    }
    started();
  }

  /// The Taylor-Green vortex sampled on the device, cell by cell (initial_state, as the host path).
  void initialize(const TaylorGreenCells& tg) override {
    backend::fill_zero(m_[cur_].data(), m_[cur_].bytes());
    MomentArgs<T, R> a = args();
    const Int3 off = setup_.offset;
    const int dims = setup_.dims;
    const double tau = setup_.tau;
    const bool forced = forced_;
    T* m = m_[cur_].data();
    backend::parallel_for_box(
        "lbm::initialize_taylor_green_moments", grid_.nx, grid_.ny, grid_.nz,
        [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
          R drho, u[3], p[6];
          if (forced)
            initial_state<L, true, T>(tg, x + off[0], y + off[1], z + off[2], dims, tau, a.force, drho, u, p);
          else
            initial_state<L, false, T>(tg, x + off[0], y + off[1], z + off[2], dims, tau, a.force, drho, u,
                                       p);
          store_moments<L>(m, a.grid.n_padded, static_cast<std::uint32_t>(a.grid.at(x, y, z)), drho, u, p);
        });
    started();
  }

  /// One step: the ghost cells hold their images' states (filled after the previous step, or now after
  /// an initialization or a restart), every interior cell's new state goes into the other array, whose
  /// ghost cells the halo then fills.
  void step() override {
    if (ghosts_stale_) fill_ghosts(cur_);
    const bool les = setup_.smagorinsky > 0.0;
    if (les || forced_)
      update<true, true>();
    else
      update<false, false>();
    cur_ ^= 1;
    fill_ghosts(cur_);
    ++steps_;
    ++state_version_;
  }

  void set_graphs(bool) override {}
  int graph_recordings() const override { return 0; }
  /// The state the next step starts from is the stored one: its sample is added now either way (the same
  /// sums as the next step would add).
  void add_profile(const field::ProfileView& sums, bool) override {
    launch_add_profile<L>(args(), false, sums);
  }

  /// The interior cells' states, cell by cell (x fastest, M values each, as stored).
  std::vector<unsigned char> save_state() const override { return this->pack_state(m_[cur_].data(), M); }

  void load_state(const std::vector<unsigned char>& state, long step) override {
    this->unpack_state(m_[cur_].data(), M, state);
    steps_ = step;
    ++state_version_;
    fill_ghosts(cur_);
  }

  int q() const override { return M; }

  std::size_t bytes_allocated() const override {
    std::size_t pattern = 0;
    for (const auto& p : pattern_.peers) pattern += p.send.bytes() + p.recv.bytes();
    return m_[0].bytes() + m_[1].bytes() + flags_.bytes() + pattern + this->base_bytes();
  }
  /// The state read and written, and a flag.
  double bytes_per_cell_step() const override { return 2.0 * M * sizeof(T) + 1.0; }
  std::vector<Real3> body_forces() const override { return {}; }
  index_t boundary_links() const override { return 0; }

 private:
  bool next_odd() const { return false; }  // the moments are read alike before every step

  template <bool Les, bool Force>
  void update() {
    CollisionExtras<R> extras;
    extras.tau0 = R(setup_.tau), extras.les = R(this->les_factor());
    for (int d = 0; d < 3; ++d) extras.force[d] = R(setup_.force[static_cast<std::size_t>(d)]);
    const CollisionRates rates{1.0 / setup_.tau, setup_.trt_magic};
    const auto c = Regularized<R, Les, Force>::make(rates, extras);
    MomentArgs<T, R> a = args();
    a.out = m_[cur_ ^ 1].data();
    launch_moment_update<L, Force>(a, c, all_fluid_);
  }

  /// The ghost cells of array k from their images (collective where ranks exchange).
  void fill_ghosts(int k) {
    if (!pattern_.peers.empty())
      exchanger_->exchange(m_[k].data(), sizeof(T), pattern_, field::Direction::forward);
    ghosts_stale_ = false;
  }

  /// After an initialization: step 0, the ghosts to be filled by the first step (initialize is not
  /// collective).
  void started() {
    steps_ = 0;
    ++state_version_;
    ghosts_stale_ = true;
  }

  MomentArgs<T, R> args() const {
    MomentArgs<T, R> a{};
    this->fill_args(a);
    a.m = m_[cur_].data();
    a.out = nullptr;
    a.flags = flags_.data();
    return a;
  }

  DeviceArray<T> m_[2];  // the states the steps alternate between
  int cur_ = 0;          // the current one
  DeviceArray<std::uint8_t> flags_;
  bool all_fluid_ = false;  // no solid and no cell next to one: the update reads no flag
  bool forced_ = false;     // LES or a body force: the operator with both (as the population solver)
  field::Pattern pattern_;  // GhostLayout::ghost_cell_pattern(M)
  bool ghosts_stale_ = true;
};

}  // namespace

namespace detail {
template <class L, class T>
std::unique_ptr<Solver> make_moment_impl(const Setup& s) {
  return std::make_unique<MomentSolverImpl<L, T>>(s);
}
}  // namespace detail

}  // namespace eddy::lbm
