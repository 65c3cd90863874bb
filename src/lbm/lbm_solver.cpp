// The LBM solver's factory: the instance of the configured lattice and storage precision (each built in
// a translation unit of its own, see lbm/solver_impl.hpp), and the inlet profile.
#include "lbm/lbm_solver.hpp"

#include <algorithm>

#include "backend/half.hpp"
#include "core/error.hpp"
#include "lbm/boundary_k.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lattice.hpp"
#include "lbm/moment_k.hpp"

namespace eddy::lbm {
namespace {

template <class L>
std::unique_ptr<Solver> make_for_lattice(const Setup& s) {
  if (s.storage == Storage::moments) {
    if (s.precision == Precision::fp64) return detail::make_moment_impl<L, double>(s);
    if (s.precision == Precision::fp32) return detail::make_moment_impl<L, float>(s);
    return detail::make_moment_impl<L, backend::Half>(s);
  }
  switch (s.precision) {
    case Precision::fp64:
      return detail::make_impl<L, double>(s);
    case Precision::fp32:
      return detail::make_impl<L, float>(s);
    case Precision::fp16:
      return detail::make_impl<L, backend::Half>(s);
  }
  throw InputError("numerics.precision: unknown storage precision (valid: fp64, fp32, fp32/fp16)");
}

/// f(L{}) for the lattice L the setup names.
template <class F>
auto on_lattice(const Setup& s, F&& f) {
  if (s.lattice == Lattice::d2q9 && s.dims == 2) return f(D2Q9{});
  if (s.lattice == Lattice::d3q19 && s.dims == 3) return f(D3Q19{});
  if (s.lattice == Lattice::d3q27 && s.dims == 3) return f(D3Q27{});
  throw InputError(std::string("numerics.lattice: '") + lattice_names(s.lattice) + "' does not fit a " +
                   std::to_string(s.dims) + "D domain (valid: D2Q9 in 2D; D3Q19, D3Q27 in 3D)");
}

int storage_bytes(Precision p) { return p == Precision::fp64 ? 8 : p == Precision::fp32 ? 4 : 2; }

/// The arrays of MomentSolverImpl<L, T> (moment_solver.hpp): two states of moment_count<L>() values
/// per padded cell, the flags, the halo of whole ghost cells (an index and a value per entry).
template <class L>
Footprint moment_footprint(const Setup& s, const field::PaddedGrid& g, double t_bytes, bool steady_check,
                           bool derived_fields) {
  constexpr int m = moment_count<L>();
  Footprint f;
  f.cells = g.n_interior();
  f.bytes_per_cell_step = 2.0 * m * t_bytes + 1.0;
  f.state_values = m;
  const double cells = double(f.cells);
  f.device_bytes = 2.0 * t_bytes * m * double(g.n_padded) + double(g.n_padded);
  std::map<int, std::array<index_t, 2>> sizes;
  GhostLayout<L>(s).for_each_ghost_cell_entry(
      m, [&](int peer, int side, index_t) { ++sizes[peer][static_cast<std::size_t>(side)]; });
  for (const auto& [peer, n] : sizes) {
    const double entries = double(n[0] + n[1]);
    f.device_bytes += entries * (sizeof(index_t) + t_bytes);
    f.sent_bytes.emplace_back(peer, double(n[0]) * t_bytes);
  }
  if (steady_check) f.device_bytes += sizeof(double) * s.dims * cells;
  if (derived_fields) {
    double entries = 0;
    GhostLayout<L>(s).for_each_cell_entry(s.dims, [&](int, int, index_t) { entries += 1; });
    f.device_bytes += sizeof(double) * s.dims * double(g.n_padded) + sizeof(index_t) * entries;
  }
  const double moments = sizeof(double) * (1 + s.dims) * cells;
  f.transient_bytes = std::max(moments, t_bytes * m * double(std::min(f.cells, state_chunk_cells)));
  const double field_doubles = 3 + s.dims + (derived_fields ? (s.dims == 3 ? 4 : 1) : 0);
  f.host_bytes =
      std::max({t_bytes * m * cells, sizeof(double) * field_doubles * cells, 6.0 * double(g.n_padded)});
  return f;
}

/// The arrays of SolverImpl<L, T> (solver_impl.hpp) for the block of `s`, with T of `bytes` bytes.
template <class L>
Footprint footprint_of(Setup s, bool steady_check, bool derived_fields) {
  if (s.global[0] == 0) s.global = s.cells;
  if (s.boxes.empty()) s.boxes = {{s.offset, s.cells}}, s.rank = 0;
  const double t_bytes = storage_bytes(s.precision);
  const field::PaddedGrid g = padded_grid(s.dims, s.cells);
  Footprint f;
  f.cells = g.n_interior();
  f.bytes_per_cell_step = 2.0 * L::q * t_bytes + 1.0;
  f.state_values = L::q;
  const double cells = double(f.cells);
  if (s.storage == Storage::moments) return moment_footprint<L>(s, g, t_bytes, steady_check, derived_fields);
  // Populations (with the lead that aligns rows) and flags.
  f.device_bytes =
      t_bytes * double(L::q * g.n_padded + field::PaddedGrid::lead(1, row_align)) + double(g.n_padded);
  // The ghost pattern: an index per entry, and the exchanger's packed buffers (parallel/halo.cpp).
  const std::map<int, std::array<index_t, 2>> sizes = GhostLayout<L>(s).pattern_sizes();
  for (const auto& [peer, n] : sizes) {
    const double entries = double(n[0] + n[1]);
    f.device_bytes += entries * (sizeof(index_t) + (s.exchanger || s.boxes.size() > 1 ? t_bytes : 0.0));
    f.sent_bytes.emplace_back(peer, 0.5 * entries * t_bytes);
  }
  // Per face: walls and open faces put their first layer of cells on the near-solid list; a face with
  // ghosts from the exchange puts it in the shell (the overlapped step's cells updated first).
  const unsigned wrap = wrapped_axes(s, s.cells);
  index_t inner[3] = {g.nx, g.ny, g.nz}, away[3] = {g.nx, g.ny, g.nz};
  for (int d = 0; d < s.dims; ++d) {
    const std::size_t a = static_cast<std::size_t>(d);
    for (int side = 0; side < 2; ++side) {
      const bool at_edge = side == 0 ? s.offset[a] == 0 : s.offset[a] + s.cells[a] == s.global[a];
      const bool periodic = s.faces[2 * a + static_cast<std::size_t>(side)] == FaceKind::periodic;
      if (!at_edge || (periodic && !((wrap >> d) & 1u))) --inner[d];
      if (at_edge && !periodic) --away[d];
    }
  }
  const bool overlap = s.boxes.size() > 1 && g.nx > 2 && g.ny > 2 && (s.dims == 2 || g.nz > 2);
  const double inner_cells = double(std::max<index_t>(inner[0], 0)) * double(std::max<index_t>(inner[1], 0)) *
                             double(s.dims == 3 ? std::max<index_t>(inner[2], 0) : 1);
  f.shell_cells = overlap ? f.cells - static_cast<index_t>(inner_cells) : 0;
  const double away_cells = double(std::max<index_t>(away[0], 0)) * double(std::max<index_t>(away[1], 0)) *
                            double(s.dims == 3 ? std::max<index_t>(away[2], 0) : 1);
  const double near_solid_cells = cells - away_cells;
  f.device_bytes += sizeof(index_t) * (double(f.shell_cells) + near_solid_cells);
  // Open faces: a link per population leaving through the face's first layer (about q/5 per cell).
  for (std::size_t face = 0; face < 6; ++face) {
    const FaceKind k = s.faces[face];
    if (k != FaceKind::velocity_inlet && k != FaceKind::pressure_outlet && k != FaceKind::outflow) continue;
    const std::size_t a = face / 2;
    const bool at_edge = face % 2 == 0 ? s.offset[a] == 0 : s.offset[a] + s.cells[a] == s.global[a];
    if (!at_edge || a >= static_cast<std::size_t>(s.dims)) continue;
    const double layer = cells / double(s.cells[a]);
    f.device_bytes += layer * (L::q / 3.0) * (sizeof(BoundaryLink) + sizeof(double) + 3 * sizeof(long long));
  }
  if (steady_check) f.device_bytes += sizeof(double) * s.dims * cells;  // u_prev
  // The derived fields: the padded velocity and the halo's index lists (its messages fit in the
  // population halo's buffers, which are larger).
  if (derived_fields) {
    double entries = 0;
    GhostLayout<L>(s).for_each_cell_entry(s.dims, [&](int, int, index_t) { entries += 1; });
    f.device_bytes += sizeof(double) * s.dims * double(g.n_padded) + sizeof(index_t) * entries;
  }
  // Temporaries: the moments of a field output (double), a chunk of the packed state of a checkpoint.
  const double moments = sizeof(double) * (1 + s.dims) * cells, packed = t_bytes * L::q * cells;
  f.transient_bytes = std::max(moments, t_bytes * L::q * double(std::min(f.cells, state_chunk_cells)));
  // Host: the checkpoint state, a field output (density and velocity, then density and pressure in
  // physical units beside them: (3 + d) doubles a cell), the flags and body marks of the set-up (1 + 4 + 1
  // bytes per padded cell).
  // With the derived fields, their values beside them (4 doubles a cell in 3D, 1 in 2D).
  const double field_doubles = 3 + s.dims + (derived_fields ? (s.dims == 3 ? 4 : 1) : 0);
  f.host_bytes = std::max({packed, sizeof(double) * field_doubles * cells, 6.0 * double(g.n_padded)});
  return f;
}

}  // namespace

Footprint footprint(const Setup& s, bool steady_check, bool derived_fields) {
  return on_lattice(
      s, [&](auto lattice) { return footprint_of<decltype(lattice)>(s, steady_check, derived_fields); });
}

Real3 inlet_velocity(const Setup& s, int face, const index_t (&x)[3]) {
  const std::size_t f = static_cast<std::size_t>(face);
  double profile = 1.0;
  if (s.parabolic[f])
    for (int d = 0; d < s.dims; ++d) {
      if (d == face / 2) continue;
      const double t = (double(x[d]) + 0.5) / double(s.global[static_cast<std::size_t>(d)]);
      profile *= 4.0 * t * (1.0 - t);
    }
  return {s.wall_velocity[f][0] * profile, s.wall_velocity[f][1] * profile, s.wall_velocity[f][2] * profile};
}

std::unique_ptr<Solver> make_solver(const Setup& s) {
  return on_lattice(s, [&](auto lattice) { return make_for_lattice<decltype(lattice)>(s); });
}

}  // namespace eddy::lbm
