#pragma once
/// Fields derived from the LBM velocity gradient: the vorticity and the Q-criterion (output.fields,
/// slices and probes: `vorticity`, `q_criterion`), on the device, in lattice units (per time step; the app
/// divides by dt, dt^2).
///
/// The velocity is the one Solver::macroscopic gives (cell_moments, in double). It goes into `d` padded
/// arrays (component k of padded cell n at u[k * n_padded + n]: 8 d bytes per padded cell, 24 B in 3D,
/// held from the first request on), whose ghost cells across faces to other ranks the velocity halo fills
/// (GhostLayout::cell_pattern); across an axis the block wraps, a neighbour is the image cell (Links).
///
/// The gradient A_ij = du_i/dx_j of a fluid cell x, along each axis j, in lattice units (dx = 1):
///   both neighbours x +- e_j fluid:  (u_i(x + e_j) - u_i(x - e_j)) / 2  (central, second order);
///   one of them not fluid (a wall ghost, a body cell, an open face's ghost): the one-sided difference
///     from the fluid side, u_i(x + e_j) - u_i(x) or u_i(x) - u_i(x - e_j) (first order);
///   neither fluid: 0.
/// A body (solid) cell has every derived value 0. Then
///   vorticity  omega = curl u: 3D (A_zy - A_yz, A_xz - A_zx, A_yx - A_xy), 2D the z component A_yx - A_xy;
///   Q = (|Omega|^2 - |S|^2) / 2 = -A_ij A_ji / 2, summed i outer, j inner.
/// A cell's formula depends on its neighbours' flags and velocities alone, which are the same on every
/// decomposition (flags from global coordinates, halo values copied bit for bit), so the fields are
/// bitwise independent of the rank count and process grid (src/README.md, Bitwise LBM decomposition
/// independence).
#include <cstdint>

#include "backend/macros.hpp"
#include "backend/parallel.hpp"
#include "field/exchange.hpp"
#include "field/grid.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {

/// Which derived field a launch computes.
enum class Derived { vorticity, q_criterion };

/// Values per cell of a derived field: the vorticity 3 in 3D, 1 (its z component) in 2D; Q 1.
EDDY_HD constexpr int derived_components(Derived what, int dims) {
  return what == Derived::vorticity && dims == 3 ? 3 : 1;
}

/// The velocity gradient du[i][j] = du_i/dx_j (lattice units) of fluid padded cell n with wrapped
/// `faces` (wrapped_faces), by the rule of the header comment; rows and columns beyond `dims` are 0.
template <int Dims>
EDDY_HD EDDY_INLINE void velocity_gradient(index_t n, unsigned faces, const field::PaddedGrid& g,
                                           const std::uint8_t* flags, const double* u, double (&du)[3][3]) {
  const Links l(n, faces, g);
  const std::uint32_t stride[3] = {1u, static_cast<std::uint32_t>(g.stride_y),
                                   static_cast<std::uint32_t>(g.stride_z)};
  EDDY_UNROLL for (int j = 0; j < 3; ++j) {
    EDDY_UNROLL for (int i = 0; i < 3; ++i) du[i][j] = 0.0;
    if (j >= Dims) continue;
    // The neighbours x + e_j and x - e_j, one period back across a wrapped face (Links::neighbour).
    const std::uint32_t up = l.n + stride[j] + l.high[j], down = l.n - stride[j] + l.low[j];
    const bool fluid_up = (flags[up] & kind_mask) == fluid, fluid_down = (flags[down] & kind_mask) == fluid;
    EDDY_UNROLL for (int i = 0; i < Dims; ++i) {
      const double* c = u + static_cast<index_t>(i) * g.n_padded;
      du[i][j] = fluid_up && fluid_down ? 0.5 * (c[up] - c[down])
                 : fluid_up             ? c[up] - c[n]
                 : fluid_down           ? c[n] - c[down]
                                        : 0.0;
    }
  }
}

/// The derived field `what` at padded cell n (derived_components values into out), 0 at a body cell.
template <int Dims>
EDDY_HD EDDY_INLINE void derived_cell(Derived what, index_t n, unsigned faces, const field::PaddedGrid& g,
                                      const std::uint8_t* flags, const double* u, double* out) {
  const int comps = derived_components(what, Dims);
  if ((flags[n] & kind_mask) != fluid) {
    for (int k = 0; k < comps; ++k) out[k] = 0.0;
    return;
  }
  double a[3][3];
  velocity_gradient<Dims>(n, faces, g, flags, u, a);
  if (what == Derived::q_criterion) {
    double s = 0.0;
    EDDY_UNROLL for (int i = 0; i < 3; ++i) EDDY_UNROLL for (int j = 0; j < 3; ++j) s += a[i][j] * a[j][i];
    out[0] = -0.5 * s;
  } else if (Dims == 3) {
    out[0] = a[2][1] - a[1][2], out[1] = a[0][2] - a[2][0], out[2] = a[1][0] - a[0][1];
  } else {
    out[0] = a[1][0] - a[0][1];
  }
}

namespace {

/// The velocity of every interior cell into the padded arrays u (header comment), bitwise
/// launch_moments' velocity; the ghost cells are left to the halo.
template <class L, class A>
void launch_padded_velocity(const A& a, bool next_odd, double* u) {
  using R = typename A::Real;
  const field::PaddedGrid g = a.grid;
  backend::parallel_for("lbm::padded_velocity", g.n_interior(), [=] EDDY_DEVICE(index_t t) {
    R drho, v[3];
    const index_t n = g.interior_to_padded(t);
    cell_moments<L>(n, a, next_odd, drho, v);
    for (int k = 0; k < L::d; ++k) u[k * g.n_padded + n] = double(v[k]);
  });
}

/// The derived field `what` of `n` interior cells from the padded velocity u (its halo filled): entry t is
/// interior cell cells[t], or cell t itself without a list (`cells` null); derived_components values each
/// at out[t * components].
template <int Dims>
void launch_derived(Derived what, const field::PaddedGrid g, unsigned wrap_axes, const std::uint8_t* flags,
                    const double* u, const index_t* cells, index_t n, double* out) {
  const int comps = derived_components(what, Dims);
  const char* label = what == Derived::vorticity ? (cells ? "lbm::vorticity_at" : "lbm::vorticity")
                                                 : (cells ? "lbm::q_criterion_at" : "lbm::q_criterion");
  backend::parallel_for(label, n, [=] EDDY_DEVICE(index_t t) {
    const index_t m = g.interior_to_padded(cells ? cells[t] : t);
    derived_cell<Dims>(what, m, wrapped_faces(g, wrap_axes, m), g, flags, u, out + t * comps);
  });
}

/// A solver's derived fields: the padded velocity of its current state with the halo filled, made once
/// per state (the vorticity and Q of one output share it), and the fields computed from it. The arrays
/// (8 B per padded cell and dimension) and the halo pattern are made at the first call. Collective where
/// it fills the halo: every rank's state moves together.
template <class L>
class DerivedFields {
 public:
  /// The derived field `what` of the interior cells, or of `cells` alone, of the state `a` holds at
  /// `version` (the solver's count of state changes) before a step of parity `next_odd`.
  template <class A>
  void compute(Derived what, const std::vector<index_t>* cells, std::vector<double>& out, const A& a,
               bool next_odd, long version, const Setup& setup, field::Exchanger& exchanger) {
    const field::PaddedGrid& g = a.grid;
    if (u_.size() == 0) {
      u_.resize(static_cast<std::size_t>(L::d * g.n_padded), static_cast<std::size_t>(g.n_padded));
      pattern_ = GhostLayout<L>(setup).cell_pattern(L::d);
    }
    if (version_ != version) {
      launch_padded_velocity<L>(a, next_odd, u_.data());
      if (!pattern_.peers.empty())
        exchanger.exchange(u_.data(), sizeof(double), pattern_, field::Direction::forward);
      version_ = version;
    }
    const index_t n = cells ? static_cast<index_t>(cells->size()) : g.n_interior();
    out.clear();
    if (n == 0) return;
    backend::DeviceArray<index_t> d_cells;
    if (cells) d_cells.from_host(*cells);
    backend::DeviceArray<double> d_out(static_cast<std::size_t>(n * derived_components(what, L::d)));
    launch_derived<L::d>(what, g, a.wrap_axes, a.flags, u_.data(), cells ? d_cells.data() : nullptr, n,
                         d_out.data());
    out = d_out.to_host();
  }
  std::size_t bytes() const {
    std::size_t b = u_.bytes();
    for (const auto& p : pattern_.peers) b += p.send.bytes() + p.recv.bytes();
    return b;
  }

 private:
  backend::DeviceArray<double> u_;  // the padded velocity, empty until asked
  field::Pattern pattern_;          // its halo (GhostLayout::cell_pattern)
  long version_ = -1;               // the state u_ holds
};

}  // namespace
}  // namespace eddy::lbm
