#pragma once
/// What the LBM solvers of both storages share (SolverImpl: populations, solver_impl.hpp;
/// MomentSolverImpl: moments, moment_solver.hpp): the block's set-up, and every Solver method that reads
/// cells' states through the launches of solver_launches.hpp, which take either solver's kernel
/// arguments (StreamCollideArgs, MomentArgs) and find a cell's density, velocity and stress through
/// cell_moments and cell_state. `Impl` gives args() (its kernel arguments for the current state) and
/// next_odd() (the parity of the next step: how a population state is read). Included only by those two.
#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/parallel.hpp"
#include "core/error.hpp"
#include "lbm/derived_k.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/solver_launches.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {
namespace {

template <class Impl, class L, class T>
class SolverBase : public Solver {
 protected:
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;

  /// The set-up completed for one rank when it names none, the exchanger (this rank's own when there is
  /// none), the axes the block wraps (a block spanning a periodic axis wraps it in the kernels: no ghost
  /// copies on that axis), the padded grid and the moving walls' velocities.
  explicit SolverBase(const Setup& s) : setup_(s) {
    if (setup_.global[0] == 0) setup_.global = setup_.cells;
    if (setup_.boxes.empty()) setup_.boxes = {{setup_.offset, setup_.cells}}, setup_.rank = 0;
    exchanger_ = setup_.exchanger ? setup_.exchanger : &local_;
    wrap_axes_ = wrapped_axes(setup_, setup_.cells);
    grid_ = padded_grid(s.dims, s.cells);
    for (int f = 0; f < 6; ++f)
      if (setup_.faces[static_cast<std::size_t>(f)] == FaceKind::moving_wall)
        for (int d = 0; d < 3; ++d)
          wall_u_[moving_wall + f][d] =
              setup_.wall_velocity[static_cast<std::size_t>(f)][static_cast<std::size_t>(d)];
  }

 public:
  long steps() const override { return steps_; }
  const Setup& setup() const override { return setup_; }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) const override {
    moments_of(nullptr, grid_.n_interior(), rho, u);
  }

  void macroscopic_at(const std::vector<index_t>& cells, std::vector<double>& rho,
                      std::vector<double>& u) const override {
    const auto n = static_cast<index_t>(cells.size());
    rho.clear(), u.clear();
    if (n == 0) return;
    backend::DeviceArray<index_t> d_cells;
    d_cells.from_host(cells);
    moments_of(d_cells.data(), n, rho, u);
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
    launch_add_moments<L>(impl().args(), impl().next_odd(), grid_.n_interior(), sums);
  }

  Stats stats() const override {
    const StatsAcc s = reduce_stats<L>(impl().args(), impl().next_odd(), R(setup_.tau), R(les_factor()));
    return Stats{s.mass, s.ke, s.umax, s.bad, s.ss, s.sgs};
  }

  std::array<double, 2> velocity_change() override {
    if (u_prev_.size() == 0) u_prev_.resize(static_cast<std::size_t>(grid_.n_interior() * L::d));
    const Sum2 s = reduce_change<L>(impl().args(), impl().next_odd(), u_prev_.data());
    return {s.a, s.b};
  }

  int state_bytes() const override { return static_cast<int>(sizeof(T)); }

  index_t first_nonfinite() const override {
    return reduce_first_nonfinite<L>(impl().args(), impl().next_odd(), setup_.global, setup_.offset);
  }

  std::pair<double, index_t> fastest_cell() const override {
    const SpeedAt s = reduce_fastest<L>(impl().args(), impl().next_odd(), setup_.global, setup_.offset);
    return {s.speed, s.cell};
  }

 protected:
  const Impl& impl() const { return static_cast<const Impl&>(*this); }

  /// The interior cells' `values` slots of the array a (slot k of padded cell n at a[k * n_padded + n]),
  /// cell by cell (x fastest), as stored: a checkpoint's state, packed state_chunk_cells at a time, so the
  /// device holds that many cells' values beside the array, not a second copy of the block.
  std::vector<unsigned char> pack_state(const T* a, int values) const {
    const index_t n = grid_.n_interior(), chunk = std::min(n, state_chunk_cells);
    std::vector<unsigned char> out(static_cast<std::size_t>(n * values) * sizeof(T));
    backend::DeviceArray<T> packed(static_cast<std::size_t>(chunk * values));
    for (index_t first = 0; first < n; first += chunk) {
      const index_t count = std::min(chunk, n - first);
      launch_pack_state(a, grid_, values, first, count, packed.data(), false);
      backend::copy_to_host(out.data() + static_cast<std::size_t>(first * values) * sizeof(T), packed.data(),
                            static_cast<std::size_t>(count * values) * sizeof(T));
    }
    return out;
  }

  /// The inverse of pack_state: a state saved by it (of this block) into the array a.
  void unpack_state(T* a, int values, const std::vector<unsigned char>& state) const {
    const index_t n = grid_.n_interior(), chunk = std::min(n, state_chunk_cells);
    if (state.size() != static_cast<std::size_t>(n * values) * sizeof(T))
      throw Error("lbm: checkpoint state of " + std::to_string(state.size()) +
                  " bytes does not fit this block");
    backend::DeviceArray<T> packed(static_cast<std::size_t>(chunk * values));
    for (index_t first = 0; first < n; first += chunk) {
      const index_t count = std::min(chunk, n - first);
      backend::copy_to_device(packed.data(),
                              state.data() + static_cast<std::size_t>(first * values) * sizeof(T),
                              static_cast<std::size_t>(count * values) * sizeof(T));
      launch_pack_state(a, grid_, values, first, count, packed.data(), true);
    }
  }

  /// The block's part of a kernel's arguments (StreamCollideArgs, MomentArgs): grid, moving walls' and
  /// body force in the arithmetic type, the wrapped axes.
  template <class A>
  void fill_args(A& a) const {
    a.grid = grid_;
    for (int k = 0; k < max_flag; ++k)
      for (int d = 0; d < 3; ++d) a.wall_u[k][d] = R(wall_u_[k][d]);
    for (int d = 0; d < 3; ++d) a.force[d] = R(setup_.force[static_cast<std::size_t>(d)]);
    a.wrap_axes = wrap_axes_;
  }

  /// 18 C_s^2 of the Smagorinsky model (0 = none).
  double les_factor() const { return 18.0 * setup_.smagorinsky * setup_.smagorinsky; }

  /// Device memory of what this base holds (the previous velocity, the derived fields).
  std::size_t base_bytes() const { return u_prev_.bytes() + derived_.bytes(); }

  Setup setup_;
  field::PaddedGrid grid_;
  field::LocalExchanger local_;
  field::Exchanger* exchanger_ = nullptr;
  unsigned wrap_axes_ = 0;  // StreamCollideArgs::wrap_axes
  double wall_u_[max_flag][3] = {};
  long steps_ = 0;
  long state_version_ = 0;  // counts the changes of the state (initialize, step, load_state)

 private:
  /// Density and velocity of `n` interior cells (of `cells`, or cell t itself without a list) to the host.
  void moments_of(const index_t* cells, index_t n, std::vector<double>& rho, std::vector<double>& u) const {
    backend::DeviceArray<double> d_rho(static_cast<std::size_t>(n)), d_u(static_cast<std::size_t>(n * L::d));
    launch_moments<L>(impl().args(), impl().next_odd(), cells, n, d_rho.data(), d_u.data());
    rho = d_rho.to_host();
    u = d_u.to_host();
  }

  /// The derived field `what` of the interior cells, or of `cells` alone (lbm/derived_k.hpp).
  void derived(Derived what, const std::vector<index_t>* cells, std::vector<double>& out) {
    derived_.compute(what, cells, out, impl().args(), impl().next_odd(), state_version_, setup_, *exchanger_);
  }

  backend::DeviceArray<double> u_prev_;
  DerivedFields<L> derived_;  // the vorticity and Q
};

}  // namespace
}  // namespace eddy::lbm
