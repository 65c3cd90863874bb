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
#include "lbm/solver_base.hpp"
#include "lbm/solver_launches.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {
namespace {

using backend::DeviceArray;
using field::PaddedGrid;

template <class L, class T>
class SolverImpl final : public SolverBase<SolverImpl<L, T>, L, T> {
  using Base = SolverBase<SolverImpl<L, T>, L, T>;
  friend Base;
  using Base::exchanger_, Base::grid_, Base::setup_, Base::state_version_, Base::steps_, Base::wrap_axes_;
  using typename Base::R;

 public:
  explicit SolverImpl(const Setup& s) : Base(s) {
    f_.resize(static_cast<std::size_t>(L::q * grid_.n_padded + lead_),
              static_cast<std::size_t>(grid_.n_padded));
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

  void add_profile(const field::ProfileView& sums, bool with_next_step) override {
    observe_ = with_next_step ? &sums : nullptr;
    if (!with_next_step) launch_add_profile<L>(args(), next_odd(), sums);
  }

  std::vector<unsigned char> save_state() const override { return this->pack_state(pop(), L::q); }

  void load_state(const std::vector<unsigned char>& state, long step) override {
    this->unpack_state(pop(), L::q, state);
    steps_ = step;
    ++state_version_;
    // Before an odd step the ghosts must hold their images' post-collision populations.
    if (next_odd() && !pattern_.peers.empty())
      exchanger_->exchange(pop(), sizeof(T), pattern_, field::Direction::forward);
  }

  int q() const override { return L::q; }

  std::size_t bytes_allocated() const override {
    std::size_t pattern = 0;
    for (const auto& p : pattern_.peers) pattern += p.send.bytes() + p.recv.bytes();
    return f_.bytes() + flags_.bytes() + pattern + shell_list_.bytes() + near_solid_list_.bytes() +
           links_.bytes() + link_value_.bytes() + link_force_.bytes() + this->base_bytes();
  }
  double bytes_per_cell_step() const override { return 2.0 * L::q * sizeof(T) + 1.0; }

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
    extras.tau0 = R(setup_.tau), extras.les = R(this->les_factor());
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
    this->fill_args(a);
    a.f = pop();
    a.flags = flags_.data();
    return a;
  }

  std::vector<std::uint8_t> build_flags() {
    const GhostLayout<L> layout(setup_);
    std::vector<std::uint8_t> h = layout.flags();
    const std::vector<int> body = mark_bodies(layout, h);
    mark_near_solid<L>(grid_, wrap_axes_, h);
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

  static constexpr index_t lead_ = PaddedGrid::lead(1, row_align);
  DeviceArray<T> f_;  // populations, lead_ elements in (pop())
  DeviceArray<std::uint8_t> flags_;
  field::Pattern pattern_;
  CellSet all_, inner_, shell_;
  DeviceArray<index_t> shell_list_, near_solid_list_;
  bool overlap_ = false;
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
