#pragma once
/// The LBM solver of one lattice and storage precision (SolverImpl); its launches are in
/// solver_launches.hpp, the host set-up of its boundary links in boundary_links.hpp. Included only by
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
#include "lbm/boundary_links.hpp"
#include "lbm/collisions.hpp"
#include "lbm/derived_k.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lattice.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/solver_launches.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {
namespace {

using backend::DeviceArray;
using field::PaddedGrid;

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
    ++state_version_;
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
    ++state_version_;
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
    if (pattern_.peers.empty() && ramp == 1.0 && launches > 1 && observe_ == nullptr)
      graph_.run(odd ? 1 : 0, 0, work);
    else
      work();
    observe_ = nullptr;
    ++steps_;
    ++state_version_;
  }

  void set_graphs(bool on) override { graph_.set_enabled(on); }
  int graph_recordings() const override { return graph_.recordings(); }

  long steps() const override { return steps_; }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) const override {
    const index_t n = grid_.n_interior();
    DeviceArray<double> d_rho(static_cast<std::size_t>(n)), d_u(static_cast<std::size_t>(n * L::d));
    launch_moments<L>(args(), next_odd(), nullptr, n, d_rho.data(), d_u.data());
    rho = d_rho.to_host();
    u = d_u.to_host();
  }

  void macroscopic_at(const std::vector<index_t>& cells, std::vector<double>& rho,
                      std::vector<double>& u) const override {
    const auto n = static_cast<index_t>(cells.size());
    rho.clear(), u.clear();
    if (n == 0) return;
    DeviceArray<index_t> d_cells;
    d_cells.from_host(cells);
    DeviceArray<double> d_rho(static_cast<std::size_t>(n)), d_u(static_cast<std::size_t>(n * L::d));
    launch_moments<L>(args(), next_odd(), d_cells.data(), n, d_rho.data(), d_u.data());
    rho = d_rho.to_host();
    u = d_u.to_host();
  }

  void vorticity(std::vector<double>& w) override { derived(Derived::vorticity, nullptr, w); }
  void q_criterion(std::vector<double>& q) override { derived(Derived::q_criterion, nullptr, q); }
  void vorticity_at(const std::vector<index_t>& cells, std::vector<double>& w) override {
    derived(Derived::vorticity, &cells, w);
  }
  void q_criterion_at(const std::vector<index_t>& cells, std::vector<double>& q) override {
    derived(Derived::q_criterion, &cells, q);
  }

  void add_moments(const field::MomentView& sums) const override {
    launch_add_moments<L>(args(), next_odd(), grid_.n_interior(), sums);
  }

  void add_profile(const field::ProfileView& sums, bool with_next_step) override {
    observe_ = with_next_step ? &sums : nullptr;
    if (!with_next_step) launch_add_profile<L>(args(), next_odd(), sums);
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
    ++state_version_;
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
    for (const field::Pattern* pat : {&pattern_, &halo_pattern_})
      for (const auto& p : pat->peers) pattern += p.send.bytes() + p.recv.bytes();
    return f_.bytes() + flags_.bytes() + pattern + u_prev_.bytes() + shell_list_.bytes() +
           near_solid_list_.bytes() + links_.bytes() + link_value_.bytes() + link_force_.bytes() +
           u_halo_.bytes();
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

  /// The derived field `what` of the interior cells, or of `cells` alone (lbm/derived_k.hpp).
  void derived(Derived what, const std::vector<index_t>* cells, std::vector<double>& out) {
    const double* u = velocity_halo();
    const index_t n = cells ? static_cast<index_t>(cells->size()) : grid_.n_interior();
    out.clear();
    if (n == 0) return;
    DeviceArray<index_t> d_cells;
    if (cells) d_cells.from_host(*cells);
    DeviceArray<double> d_out(static_cast<std::size_t>(n * derived_components(what, L::d)));
    launch_derived<L::d>(what, grid_, wrap_axes_, flags_.data(), u, cells ? d_cells.data() : nullptr, n,
                         d_out.data());
    out = d_out.to_host();
  }

  /// The padded velocity (lbm/derived_k.hpp) of the current state with its halo filled, made once per
  /// state (state_version_: the vorticity and Q of one output share it). Its arrays (8 B per padded cell
  /// and dimension) and the halo pattern are made at the first call. Collective where it fills the halo:
  /// every rank's state moves together.
  const double* velocity_halo() {
    if (u_halo_.size() == 0) {
      u_halo_.resize(static_cast<std::size_t>(L::d * grid_.n_padded));
      halo_pattern_ = GhostLayout<L>(setup_).cell_pattern(L::d);
    }
    if (halo_version_ != state_version_) {
      launch_padded_velocity<L>(args(), next_odd(), u_halo_.data());
      if (!halo_pattern_.peers.empty())
        exchanger_->exchange(u_halo_.data(), sizeof(double), halo_pattern_, field::Direction::forward);
      halo_version_ = state_version_;
    }
    return u_halo_.data();
  }

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
      if (observe_ != nullptr) {
        const ProfileObserver o{ProfileAdder(*observe_, grid_)};
        odd ? launch_stream_collide<L, true>(a, c, cells, o)
            : launch_stream_collide<L, false>(a, c, cells, o);
      } else {
        odd ? launch_stream_collide<L, true>(a, c, cells) : launch_stream_collide<L, false>(a, c, cells);
      }
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

  /// The boundary links of the interior fluid cells (boundary_links.hpp) on the device.
  void build_links(const GhostLayout<L>& layout, const std::vector<std::uint8_t>& h,
                   const std::vector<int>& body) {
    const std::vector<BoundaryLink> all =
        make_boundary_links(setup_, layout, args(), wrap_axes_, h, body, body_links_);
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
  DeviceArray<double> u_halo_;   // the derived fields' padded velocity (velocity_halo), empty until asked
  field::Pattern halo_pattern_;  // its halo (GhostLayout::cell_pattern)
  long state_version_ = 0;       // counts the changes of the populations (initialize, step, load_state)
  long halo_version_ = -1;       // the state u_halo_ holds
  double wall_u_[max_flag][3] = {};
  unsigned wrap_axes_ = 0;  // StreamCollideArgs::wrap_axes
  long steps_ = 0;
  backend::StepGraph graph_;
  const field::ProfileView* observe_ = nullptr;  ///< profile sums the next step adds to (add_profile)
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
