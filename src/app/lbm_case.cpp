#include "app/lbm_case.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "app/geometry_case.hpp"
#include "app/spectral_case.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "field/taylor_green.hpp"
#include "io/config/config.hpp"
#include "parallel/halo.hpp"
#include "parallel/transpose.hpp"

namespace eddy::app {
using log::cat;

namespace {

Precision precision_of(const std::string& p) {
  if (p == "fp64") return Precision::fp64;
  if (p == "fp32") return Precision::fp32;
  return Precision::fp16;
}

}  // namespace

LbmCase make_lbm_case(const config::RunSpec& spec, const parallel::Comm& comm) {
  LbmCase c = make_lbm_case(spec, comm.size(), comm.rank());
  c.exchanger = parallel::make_exchanger(spec.parallel.comm, comm);  // checks parallel.comm on one rank too
  if (comm.size() > 1)
    c.setup.exchanger = c.exchanger.get();  // one rank: the solver's own (no overlap split)
  return c;
}

namespace {
double reference_length(const config::RunSpec& spec) {
  return spec.physics.reference_length > 0 ? spec.physics.reference_length : spec.domain.length[0];
}

/// Reichardt's (1951) mean profile of wall-bounded flow, U+ at the distance y+ from the wall:
///   U+ = ln(1 + kappa y+) / kappa + 7.8 (1 - exp(-y+ / 11) - (y+ / 11) exp(-y+ / 3)), kappa = 0.41;
/// 18.2 at y+ = 180 (the DNS 18.3 at the centreline of Re_tau 180).
double reichardt_u_plus(double yp) {
  const double kappa = 0.41;
  return std::log1p(kappa * yp) / kappa + 7.8 * (1 - std::exp(-yp / 11) - yp / 11 * std::exp(-yp / 3));
}
}  // namespace

lbm::Units lbm_units(const config::RunSpec& spec) {
  return lbm::Units::make(reference_length(spec), spec.physics.velocity, spec.physics.reynolds,
                          spec.domain.length[0] / static_cast<double>(spec.domain.cells[0]),
                          spec.numerics.lattice_velocity, spec.physics.density);
}

namespace {

/// numerics.storage moments: the regularized collision (the moments are what it rebuilds the populations
/// from), and only periodic faces, walls and moving walls.
void check_moment_storage(const config::RunSpec& spec) {
  if (spec.numerics.storage != "moments") return;
  const std::string key = "numerics.storage";
  if (spec.numerics.collision != "regularized")
    config::fail(spec.origins, key,
                 cat("moments stores the moments the regularized operator rebuilds the populations from; it "
                     "needs numerics.collision: regularized (the config has '",
                     spec.numerics.collision, "'), or use numerics.storage: populations"));
  if (!spec.geometry.bodies.empty())
    config::fail(
        spec.origins, key,
        cat("moments supports periodic faces, walls and moving walls, not solid bodies yet; it needs "
            "no geometry.bodies (the config has ",
            spec.geometry.bodies.size(), "), or use numerics.storage: populations"));
  const std::pair<const char*, const config::FaceSpec*> faces[6] = {
      {"x_min", &spec.boundaries.x_min}, {"x_max", &spec.boundaries.x_max},
      {"y_min", &spec.boundaries.y_min}, {"y_max", &spec.boundaries.y_max},
      {"z_min", &spec.boundaries.z_min}, {"z_max", &spec.boundaries.z_max}};
  for (int f = 0; f < 2 * spec.dimensions(); ++f) {
    const std::string& type = faces[f].second->type;
    if (type != "periodic" && type != "wall" && type != "moving_wall")
      config::fail(
          spec.origins, key,
          cat("moments supports periodic faces, walls and moving walls, not open faces yet; it needs "
              "boundaries.",
              faces[f].first, ".type: periodic, wall or moving_wall (the config has '", type,
              "'), or use numerics.storage: populations"));
  }
}

}  // namespace

void check_lbm_rules(const config::RunSpec& spec) {
  const int dims = spec.dimensions();
  const int lattice_dims =
      lbm::dimensions(lbm::lattice_names.parse(spec.numerics.lattice, "numerics.lattice"));
  if (lattice_dims != dims)
    config::fail(spec.origins, "numerics.lattice",
                 cat(spec.numerics.lattice, " is a ", lattice_dims, "D lattice but domain.cells has ", dims,
                     " entries; use ", dims == 2 ? "D2Q9" : "D3Q19 or D3Q27", " or auto"));
  const double u = spec.numerics.lattice_velocity, mach = lbm::Units::mach(u);
  if (mach > spec.numerics.max_mach)
    config::fail(spec.origins, "numerics.lattice_velocity",
                 cat("lattice Mach number ", u, "*sqrt(3) = ", mach,
                     " exceeds numerics.max_mach = ", spec.numerics.max_mach,
                     "; use numerics.lattice_velocity <= ", spec.numerics.max_mach / lbm::Units::mach(1.0)));
  if (spec.numerics.max_first_cell_yplus > 0 && spec.initial.type != "channel")
    config::fail(spec.origins, "numerics.max_first_cell_yplus",
                 cat("only the channel (initial.type: channel) knows its friction velocity (u_tau = "
                     "physics.velocity); remove the key or set initial.type: channel"));
  if (spec.initial.type == "channel" && dims == 3) {
    // The plane channel runs faster than its reference velocity u_tau: at the centreline about the initial
    // profile's U+ at y+ = Re_tau (Reichardt's law; 18.2 at Re_tau 180, the DNS 18.3), the streaks
    // (4 u_tau) on top at the start.
    const lbm::Units un = lbm_units(spec);
    const double re_tau = spec.physics.velocity * 0.5 * spec.domain.length[1] / un.nu;
    // Wall resolution: the first cell centre sits half a cell from the half-way bounce-back wall.
    const double first = 0.5 * un.dx * spec.physics.velocity / un.nu,
                 limit = spec.numerics.max_first_cell_yplus;
    if (limit > 0 && first > limit)
      config::fail(
          spec.origins, "numerics.max_first_cell_yplus",
          cat("the first cell centre lies at y+ = dx / 2 u_tau / nu = ", first, " (dx+ = ", 2 * first,
              ", Re_tau = ", re_tau, ", ", spec.domain.cells[1], " cells across 2h), above ", limit,
              "; use domain.cells[1] >= ", static_cast<long>(std::ceil(re_tau / limit - 1e-9)),
              " (and the other edges at the same dx), or a larger numerics.max_first_cell_yplus"));
    const double centre = reichardt_u_plus(re_tau) + 4.0;
    const double m = lbm::Units::mach(u * centre);
    if (m > spec.numerics.max_mach)
      config::fail(
          spec.origins, "numerics.lattice_velocity",
          cat("the channel's centreline runs at about ", centre, " u_tau (Re_tau = ", re_tau,
              "; Reichardt's profile and the initial streaks), lattice Mach ", u, "*", centre,
              "*sqrt(3) = ", m, ", above numerics.max_mach = ", spec.numerics.max_mach,
              "; use numerics.lattice_velocity <= ", spec.numerics.max_mach / lbm::Units::mach(centre)));
  }
  check_moment_storage(spec);
  const double tau = lbm_units(spec).tau;
  if (!(tau > lbm::Units::min_tau)) {
    char text[96];
    std::snprintf(text, sizeof text, "%.10g must be > %.10g", tau, lbm::Units::min_tau);
    config::fail(spec.origins, "physics.reynolds",
                 cat("the LBM relaxation time tau = 0.5 + 3 * numerics.lattice_velocity * (reference length "
                     "in cells) / physics.reynolds = ",
                     text,
                     "; use more domain.cells, a larger numerics.lattice_velocity or a smaller "
                     "physics.reynolds"));
  }
}

LbmCase make_lbm_case(const config::RunSpec& spec, int size, int rank) {
  if (spec.parallel.autotune)
    throw InputError(
        "parallel.autotune: only the spectral solver tunes its process grid; the LBM takes parallel.ranks or "
        "splits the box as MPI_Dims_create does (every grid gives bitwise the same fields)");
  LbmCase c;
  const int dims = spec.dimensions();
  Int3 cells{1, 1, 1};
  for (int d = 0; d < dims; ++d)
    cells[static_cast<std::size_t>(d)] = spec.domain.cells[static_cast<std::size_t>(d)];
  const double dx = spec.domain.length[0] / static_cast<double>(cells[0]);
  c.length_ref = reference_length(spec);
  c.units = lbm_units(spec);
  // Cells are cubes: every edge must be a whole number of dx.
  for (int d = 1; d < dims; ++d) {
    const double dxd = spec.domain.length[static_cast<std::size_t>(d)] /
                       static_cast<double>(cells[static_cast<std::size_t>(d)]);
    if (std::fabs(dxd - dx) > 1e-9 * dx)
      throw InputError(cat("domain.cells / domain.length: the LBM needs cubic cells, but dx = ", dx,
                           " along x and ", dxd, " along ", "xyz"[d],
                           "; make cells proportional to the edge lengths"));
  }
  // output.spectra transforms the velocity where the ranks hold it: the blocks of the spectral solver's
  // transforms (whole x rows, VelocitySpectrum), chosen as it chooses them where parallel.ranks is left out.
  const std::vector<long> ranks =
      spec.output.spectra.every.enabled() && size > 1
          ? transform_process_grid(spec, dims, cells, size, "output.spectra (the transforms of the velocity)")
          : spec.parallel.ranks;
  c.decomposition = parallel::Decomposition::make(dims, cells, ranks, size, rank);
  const parallel::Box& mine = c.decomposition.mine();
  lbm::Setup& s = c.setup;
  s.dims = dims;
  s.cells = mine.extent;
  s.global = cells;
  s.offset = mine.offset;
  s.rank = rank;
  for (const parallel::Box& b : c.decomposition.boxes) s.boxes.push_back({b.offset, b.extent});
  s.lattice = lbm::lattice_names.parse(spec.numerics.lattice, "numerics.lattice");  // "auto" resolved
  s.collision = lbm::collision_names.parse(spec.numerics.collision, "numerics.collision");
  s.storage = lbm::storage_names.parse(spec.numerics.storage, "numerics.storage");
  s.precision = precision_of(spec.numerics.precision);
  s.tau = c.units.tau;
  s.trt_magic = spec.numerics.trt_magic;
  if (spec.numerics.les.model == "smagorinsky") s.smagorinsky = spec.numerics.les.constant;
  // Body acceleration g [m/s^2] -> force density in lattice units: F = rho0_lb g dt^2 / dx (rho0_lb = 1).
  for (std::size_t d = 0; d < spec.physics.body_force.size() && d < 3; ++d)
    s.force[d] = spec.physics.body_force[d] * c.units.dt * c.units.dt / c.units.dx;
  const config::FaceSpec* faces[6] = {&spec.boundaries.x_min, &spec.boundaries.x_max, &spec.boundaries.y_min,
                                      &spec.boundaries.y_max, &spec.boundaries.z_min, &spec.boundaries.z_max};
  for (int f = 0; f < 6; ++f) {
    const config::FaceSpec& face = *faces[f];
    s.faces[f] = lbm::face_kind_names.parse(face.type, "boundaries.*.type");
    for (std::size_t d = 0; d < face.velocity.size() && d < 3; ++d)
      s.wall_velocity[f][d] = c.units.to_lattice_velocity(face.velocity[d]);
    if (s.faces[f] == lbm::FaceKind::velocity_inlet) {
      s.parabolic[f] = face.profile == "parabolic";
      s.ramp_steps = std::max(s.ramp_steps, face.ramp_time / c.units.dt);
    }
    // p = c_s^2 drho in lattice units.
    if (s.faces[f] == lbm::FaceKind::pressure_outlet)
      s.outlet_drho[f] = 3.0 * face.pressure / (c.units.density * std::pow(c.units.dx / c.units.dt, 2));
  }
  s.bodies = make_bodies(spec);
  s.dx = dx;
  s.interpolated_walls = spec.geometry.wall == "bouzidi";
  c.block = io::Block::whole(dims, cells);
  c.block.offset = mine.offset;
  c.block.extent = mine.extent;
  return c;
}

namespace {

/// A uniform number in [-1, 1) from an integer (splitmix64): the noise of channel_cells.
double hash_unit(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return double(x >> 11) * 0x1.0p-52 - 1.0;
}

/// initial.type: channel, walls at y = 0 and y = 2h (h half the box's height), in wall units of
/// u_tau = physics.velocity and nu: Reichardt's mean profile (reichardt_u_plus) of y+, the distance to
/// the nearer wall, and three perturbations that trip transition:
///   - near-wall streaks and their spanwise tilt after de Villiers (2006):
///     u'+ = 4 g(y+) cos(beta z+),  w'+ = 2 g(y+) sin(alpha x+),  g = (y+ / 30) exp(1/2 - (y+ / 30)^2 / 2),
///     g peaking at 1 at y+ = 30, streaks 100 wall units apart along z and 500 along x;
///   - streamwise vortices of the outer flow, the curl of (phi, 0, 0) with
///     phi = a h (1 - eta^2)^2 sin(b z) (1 + cos(c x) / 2), eta = y / h - 1, a = 0.25 u_tau, two pairs
///     across z and one wave along x (v' up to 1.5 u_tau, w' up to 0.4 u_tau; zero at the walls with
///     their gradients). On the H200 the streaks alone decayed: the flow was laminar after 2 turnovers
///     and accelerated (cases/channel/README.md), as streaks without wall-normal motion do;
///   - noise of +-0.5 u_tau g(y+) in each component, from a hash of the global cell index (the same on
///     every decomposition), to break the symmetries of the rest.
/// The streaks and vortices are divergence-free (u' does not depend on x, w' not on z; a curl); the noise
/// is not, and leaves as sound. All wavelengths are whole periods of the box. Cell centres at
/// ((i, j, k) + 1/2) dx, in lattice units.
lbm::InitialCondition channel_cells(const config::RunSpec& spec, const LbmCase& c) {
  const double dx = c.units.dx, u_tau = spec.physics.velocity, nu = c.units.nu;
  const Int3 n = c.block.global;
  const double h = 0.5 * dx * static_cast<double>(n[1]);
  const double lx = dx * static_cast<double>(n[0]), lz = dx * static_cast<double>(n[2]);
  const double plus = u_tau / nu;  // 1/m: wall units per metre
  const double alpha = 2 * M_PI * std::max(1.0, std::round(lx * plus / 500.0)) / (lx * plus);
  const double beta = 2 * M_PI * std::max(1.0, std::round(lz * plus / 100.0)) / (lz * plus);
  const double b = 2 * M_PI * 2 / lz, cx = 2 * M_PI / lx, a = 0.25;  // the outer vortices, a in u_tau
  const double to_lattice = u_tau * c.units.dt / dx;
  return [=](index_t i, index_t j, index_t k) {
    const double x = (double(i) + 0.5) * dx, y = (double(j) + 0.5) * dx, z = (double(k) + 0.5) * dx;
    // The signed distance to the nearer wall: the initial state's gradients sample the cells beyond the
    // wall, where the profile continues odd (U(-d) = -U(d), as it does through a no-slip wall).
    const double d = std::min(y, 2 * h - y), sign = d < 0 ? -1.0 : 1.0;
    const double yp = std::fabs(d) * plus, xp = x * plus, zp = z * plus;
    const double r = yp / 30.0, g = r * std::exp(0.5 - 0.5 * r * r), mean = reichardt_u_plus(yp);
    // phi = a h q(eta) sin(b z) m(x), q = (1 - eta^2)^2: v = d phi / dz, w = -d phi / dy.
    const double eta = y / h - 1, q = (1 - eta * eta) * (1 - eta * eta), dq = -4 * eta * (1 - eta * eta) / h;
    const double m = 1 + 0.5 * std::cos(cx * x);
    const double v_vortex = a * h * q * b * std::cos(b * z) * m, w_vortex = -a * h * dq * std::sin(b * z) * m;
    const auto cell = static_cast<std::uint64_t>((k * n[1] + j) * n[0] + i);
    lbm::CellState st;
    st.u[0] = sign * (mean + 4.0 * g * std::cos(beta * zp)) + 0.5 * g * hash_unit(3 * cell);
    st.u[1] = v_vortex + 0.5 * g * hash_unit(3 * cell + 1);
    st.u[2] = sign * 2.0 * g * std::sin(alpha * xp) + w_vortex + 0.5 * g * hash_unit(3 * cell + 2);
    for (double& u : st.u) u *= to_lattice;
    return st;
  };
}

}  // namespace

lbm::InitialCondition initial_condition(const config::RunSpec& spec, const LbmCase& c) {
  if (spec.initial.type == "inflow") {
    // The first velocity inlet's profile in every cell, uniform density.
    int face = 0;
    while (face < 5 && c.setup.faces[static_cast<std::size_t>(face)] != lbm::FaceKind::velocity_inlet) ++face;
    const lbm::Setup s = c.setup;
    return [s, face](index_t x, index_t y, index_t z) {
      const index_t cell[3] = {x, y, z};
      lbm::CellState st;
      st.u = lbm::inlet_velocity(s, face, cell);
      return st;
    };
  }
  if (spec.initial.type == "channel") return channel_cells(spec, c);
  if (spec.initial.type != "taylor_green") return [](index_t, index_t, index_t) { return lbm::CellState{}; };
  return taylor_green_cells(spec, c);
}

lbm::TaylorGreenCells taylor_green_cells(const config::RunSpec& spec, const LbmCase& c) {
  lbm::TaylorGreenCells t;
  t.tg.dims = spec.dimensions();
  t.tg.U = spec.initial.amplitude > 0 ? spec.initial.amplitude : spec.physics.velocity;
  t.tg.L = spec.domain.length[0];
  t.tg.rho = spec.physics.density;
  t.dx = c.units.dx, t.dt = c.units.dt, t.density = c.units.density;
  return t;
}

std::string checkpoint_scheme(const lbm::Setup& s) {
  const std::string lattice = lbm::lattice_names(s.lattice);
  return s.storage == lbm::Storage::moments ? lattice + "/" + lbm::storage_names(s.storage) : lattice;
}

void initialize(lbm::Solver& solver, const config::RunSpec& spec, const LbmCase& c) {
  if (spec.initial.type == "taylor_green")
    solver.initialize(taylor_green_cells(spec, c));  // sampled on the device
  else
    solver.initialize(initial_condition(spec, c));
}

namespace {

/// This rank's block of the transforms of `c`'s box (spectral/grid.hpp: whole x rows; 3D y over P1 and z
/// over P2, 2D y over P).
io::Block transform_block(const spectral::Grid& g, const io::Block& b) {
  io::Block t = b;
  const bool three = g.dims == 3;
  t.offset = {0, three ? g.y0 : g.a0, three ? g.a0 : 0};
  t.extent = {g.n[0], three ? g.ny_local : g.na_local, three ? g.na_local : 1};
  return t;
}

}  // namespace

bool LbmSpectrum::fits(const LbmCase& c) {
  for (std::size_t f = 0; f < 2 * static_cast<std::size_t>(c.setup.dims); ++f)
    if (c.setup.faces[f] != lbm::FaceKind::periodic) return false;
  return c.decomposition.ranks[0] == 1;
}

LbmSpectrum::LbmSpectrum(const config::RunSpec& spec, const LbmCase& c, const parallel::Comm& comm)
    : dims_(c.setup.dims), velocity_unit_(c.units.dx / c.units.dt) {
  if (!fits(c)) throw Error("output.spectra: the LBM's blocks are not the transforms' (make_lbm_case)");
  const int p1 = dims_ == 3 ? static_cast<int>(c.decomposition.ranks[1]) : 1;
  exchange_ = parallel::make_transpose_exchange(spec.parallel.comm, comm, p1);
  Real3 length{1.0, 1.0, 1.0};
  for (std::size_t a = 0; a < static_cast<std::size_t>(dims_); ++a)
    length[a] = c.units.dx * static_cast<double>(c.block.global[a]);
  spectrum_ = std::make_unique<spectral::VelocitySpectrum>(dims_, c.block.global, length, *exchange_);
  const io::Block t = transform_block(spectrum_->grid(), c.block);
  if (t.offset != c.block.offset || t.extent != c.block.extent)
    throw Error(cat("output.spectra: rank ", comm.rank(), " holds the box from (", c.block.offset[0], ", ",
                    c.block.offset[1], ", ", c.block.offset[2], ") but the transforms want it from (",
                    t.offset[0], ", ", t.offset[1], ", ", t.offset[2], ")"));
}

LbmSpectrum::~LbmSpectrum() = default;

spectral::Spectrum LbmSpectrum::compute(const lbm::Solver& solver) {
  // The sums' arrays the transforms' stride apart (>= the block's cells; the solver adds its cells only),
  // so that they are transformed where they are.
  const index_t stride = spectrum_->stride();
  backend::DeviceArray<double> vel(static_cast<std::size_t>(dims_ * stride));
  solver.add_moments({vel.data(), stride, field::MomentLayout{dims_, false, true, false, 0}});
  return spectrum_->compute(vel.data(), stride, velocity_unit_);
}

}  // namespace eddy::app
