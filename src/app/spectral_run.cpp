// `eddy run` for solver: spectral.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "app/model.hpp"
#include "app/output.hpp"
#include "app/run.hpp"
#include "app/series_output.hpp"
#include "app/spectral_case.hpp"
#include "app/stop.hpp"
#include "app/validation.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "field/taylor_green.hpp"
#include "io/config/config.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/transpose.hpp"
#include "sim/simulation.hpp"
#include "spectral/grid.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// Seconds per pass of the transforms of one step, as the solver runs them (Solver::transforms_of_step:
/// pruned, field by field overlapped as parallel.overlap says), on the process grid of `c` through a fresh
/// exchange of parallel.comm: the median of 3 passes after 3 warm-up passes (which also let
/// parallel.comm: auto settle on its transport), fenced, the slowest rank's. Collective.
double time_transforms(const config::RunSpec& spec, const SpectralCase& c, const parallel::Comm& comm) {
  const auto exchange = parallel::make_transpose_exchange(spec.parallel.comm, comm, c.p1);
  const auto solver = spectral::make_solver(c.setup, *exchange);
  std::vector<double> t;
  for (int k = 0; k < 6; ++k) {
    backend::fence();
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    solver->transforms_of_step(k == 0,
                               true);  // zeros in, zeros out: the timing does not depend on the values
    backend::fence();
    if (k >= 3)
      t.push_back(comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// numerics.max_cfl, else the stepper's stability limit with the dealiasing (spectral::cfl_limit).
double max_cfl_of(const config::RunSpec& spec) {
  return spec.numerics.max_cfl > 0
             ? spec.numerics.max_cfl
             : spectral::cfl_limit(
                   spectral::stepper_names.parse(spec.numerics.time_stepper, "numerics.time_stepper"),
                   spectral::dealiasing_names.parse(spec.numerics.dealiasing, "numerics.dealiasing"));
}

}  // namespace

std::vector<long> tune_process_grid(const config::RunSpec& spec, const parallel::Comm& comm) {
  const long P = comm.size();
  std::vector<long> best;
  double best_s = 0.0;
  std::string report;
  for (long p1 = 1; p1 <= P; ++p1) {
    if (P % p1 != 0) continue;
    config::RunSpec candidate = spec;
    candidate.parallel.autotune = false;
    candidate.parallel.ranks = {1, p1, P / p1};
    SpectralCase c;
    try {
      c = make_spectral_case(candidate, comm);  // InputError (the same on every rank): not on this box
    } catch (const InputError&) {
      continue;
    }
    const double sec = time_transforms(spec, c, comm);
    report += cat(report.empty() ? "" : ", ", "[1, ", p1, ", ", P / p1, "] ", sec * 1e3, " ms");
    if (best.empty() || sec < best_s) best = candidate.parallel.ranks, best_s = sec;
  }
  log::info(cat("parallel.autotune: the transforms of one step on ", report, "; keeping [1, ", best[1], ", ",
                best[2], "]"));
  return best;
}

void check_spectral_rules(const config::RunSpec& spec) {
  if (const double limit = max_cfl_of(spec); spec.numerics.dt == 0 && spec.numerics.cfl > limit)
    config::fail(spec.origins, "numerics.cfl",
                 cat(spec.numerics.cfl, " is above the stability limit ", limit, " of ",
                     spec.numerics.time_stepper, " (numerics.max_cfl); use a smaller value"));
  const config::ForcingSpec& f = spec.physics.forcing;
  const int dims = spec.dimensions();
  if (f.type != "kolmogorov" || dims < 2) return;
  // f = F sin(k_f y) x must be periodic in y and a mode the dealiasing keeps (spectral::Grid::kept).
  Int3 cells{1, 1, 1};
  Real3 length{1.0, 1.0, 1.0};
  for (std::size_t d = 0; d < std::size_t(dims); ++d)
    cells[d] = spec.domain.cells[d], length[d] = spec.domain.length[d];
  const bool sphere = spectral::dealiasing_names.parse(spec.numerics.dealiasing, "numerics.dealiasing") ==
                      spectral::Dealiasing::phase_shift;
  const index_t kept = spectral::Grid::make(dims, cells, length, 1, 0, sphere).kept_extent(1);
  const double k1 = 2 * M_PI / length[1], n = f.wavenumber / k1;
  if (std::fabs(n - std::round(n)) > 1e-9 * std::max(1.0, n) || std::round(n) < 1 ||
      std::round(n) > double(kept))
    config::fail(spec.origins, "physics.forcing.wavenumber",
                 cat(f.wavenumber, " 1/m is not a whole multiple n 2 pi / L_y (2 pi / L_y = ", k1,
                     " 1/m) with 1 <= n <= ", kept, " (the largest k_y that numerics.dealiasing ",
                     spec.numerics.dealiasing, " keeps on domain.cells[1]); use e.g. ",
                     k1 * double(std::max<index_t>(1, std::min<index_t>(kept, 4)))));
}

SpectralCase make_spectral_case(const config::RunSpec& spec, const parallel::Comm& comm) {
  if (spec.parallel.autotune && spec.dimensions() == 3 && comm.size() > 1) {
    if (!spec.parallel.ranks.empty())
      throw InputError(
          "parallel.autotune: the process grid is given (parallel.ranks); leave out one of them");
    config::RunSpec tuned = spec;
    tuned.parallel.autotune = false;
    tuned.parallel.ranks = tune_process_grid(spec, comm);
    return make_spectral_case(tuned, comm);
  }
  return make_spectral_case(spec, comm.size(), comm.rank());
}

namespace {

/// The solver's physics and numerics from the config (the choices as enumerators, the viscosity, the
/// forcing).
void set_physics(const config::RunSpec& spec, spectral::Setup& s) {
  s.precision = spec.numerics.precision == "fp32" ? Precision::fp32 : Precision::fp64;
  s.overlap = spec.parallel.overlap;
  s.stepper = spectral::stepper_names.parse(spec.numerics.time_stepper, "numerics.time_stepper");
  s.dealiasing = spectral::dealiasing_names.parse(spec.numerics.dealiasing, "numerics.dealiasing");
  const double l_ref =
      spec.physics.reference_length > 0 ? spec.physics.reference_length : spec.domain.length[0];
  s.nu = spec.physics.velocity * l_ref / spec.physics.reynolds;
  s.hyperviscosity = spec.numerics.hyperviscosity;
  s.hyperviscosity_order = static_cast<int>(spec.numerics.hyperviscosity_order);
  s.drag = spec.physics.drag;
  const config::ForcingSpec& f = spec.physics.forcing;
  if (f.type == "kolmogorov") {
    s.forcing.kind = spectral::Forcing::kolmogorov;
    s.forcing.amplitude = f.amplitude;
    s.forcing.mode = static_cast<index_t>(std::lround(f.wavenumber * s.length[1] / (2 * M_PI)));
  } else if (f.type == "band_limited") {
    s.forcing.kind = spectral::Forcing::band_limited;
    s.forcing.rate = f.injection_rate;
    s.forcing.band[0] = f.band[0], s.forcing.band[1] = f.band[1];
  }
}

}  // namespace

std::vector<long> transform_process_grid(const config::RunSpec& spec, int dims, const Int3& cells, int P,
                                         const std::string& who) {
  const index_t rows = dims == 3 ? cells[1] : cells[0] / 2 + 1;
  std::vector<long> grid_ranks = dims == 3 ? std::vector<long>{1, 1, P} : std::vector<long>{1, P};
  if (!spec.parallel.ranks.empty()) {
    grid_ranks = spec.parallel.ranks;
    if (grid_ranks.size() != static_cast<std::size_t>(dims) || grid_ranks[0] != 1 ||
        (dims == 2 && grid_ranks[1] != P))
      throw InputError(cat("parallel.ranks: ", who, " never splits x",
                           dims == 3 ? cat(", so it takes [1, P1, P2] with P1 P2 = ", P,
                                           " ranks (P1 = 1: slabs along z; P1 > 1: pencils)")
                                     : cat("; in 2D it decomposes into slabs along y: [1, ", P, "]"),
                           " or left out"));
  } else if (dims == 3 && (P > cells[2] || P > rows)) {
    for (long p2 = std::min<long>(P, std::min(cells[2], rows)); p2 >= 1; --p2)
      if (P % p2 == 0) {
        grid_ranks = {1, P / p2, p2};
        break;
      }
  }
  const long p1 = dims == 3 ? grid_ranks[1] : 1;
  const long p2 = grid_ranks.back();
  if (p2 > rows)
    throw InputError(cat("domain.cells: the transposed layout splits the ", dims == 3 ? "ny = " : "nx/2+1 = ",
                         rows, dims == 3 ? " ky-rows" : " kx-columns", " of wave-number space over ", p2,
                         " ranks (each rank needs at least one); use at most ", rows, " ranks",
                         dims == 3 ? " along z (parallel.ranks [1, P1, P2]: P2)" : "",
                         " or more cells along ", dims == 3 ? "y" : "x"));
  if (p1 > cells[0] / 2 + 1)
    throw InputError(cat("parallel.ranks: the pencils split the nx/2+1 = ", cells[0] / 2 + 1,
                         " kx-columns of wave-number space over P1 = ", p1,
                         " ranks (each rank needs at least one); use a smaller P1 or more cells along x"));
  return grid_ranks;
}

SpectralCase make_spectral_case(const config::RunSpec& spec, int P, int rank) {
  SpectralCase c;
  spectral::Setup& s = c.setup;
  s.dims = spec.dimensions();
  for (int d = 0; d < s.dims; ++d) {
    const auto k = static_cast<std::size_t>(d);
    s.cells[k] = spec.domain.cells[k];
    s.length[k] = spec.domain.length[k];
    c.dx[k] = s.length[k] / static_cast<double>(s.cells[k]);
    if (s.cells[k] < 2)
      throw InputError(cat("domain.cells[", d,
                           "]: the spectral solver needs at least 2 points per direction, got ", s.cells[k]));
  }
  if (s.dims == 2) s.cells[2] = 1;
  const std::vector<long> grid_ranks =
      transform_process_grid(spec, s.dims, s.cells, P, "the spectral solver");
  c.p1 = s.dims == 3 ? static_cast<int>(grid_ranks[1]) : 1;
  c.slabs = parallel::Decomposition::make(s.dims, s.cells, grid_ranks, P,
                                          rank);  // InputError: more ranks than planes

  set_physics(spec, s);
  c.velocity = spec.initial.amplitude > 0 ? spec.initial.amplitude : spec.physics.velocity;
  c.max_cfl = max_cfl_of(spec);
  if (spec.initial.type == "taylor_green") {
    for (int d = 1; d < s.dims; ++d)
      if (std::fabs(s.length[static_cast<std::size_t>(d)] - s.length[0]) > 1e-12 * s.length[0])
        throw InputError("domain.length: the Taylor-Green initial condition needs a square (cubic) box");
  }
  return c;
}

/// The configured initial condition.
void initialize(spectral::Solver& solver, const config::RunSpec& spec, const SpectralCase& c) {
  const spectral::Grid& g = solver.grid();
  if (spec.initial.type == "random_spectrum") {
    solver.set_random_spectrum(spectral::RandomSpectrum::make(
        c.velocity * c.velocity, spec.initial.peak_wavenumber, spec.initial.spectrum_shape,
        static_cast<std::uint64_t>(spec.initial.seed)));
    return;
  }
  if (spec.initial.type == "taylor_green") {
    // Sampled on the device, in the solver's precision: no host array (1024^3 x 3 doubles = 25.8 GB).
    field::TaylorGreen tg;
    tg.dims = g.dims;
    tg.U = c.velocity;
    tg.L = spec.domain.length[0];
    solver.set_taylor_green(tg);
    return;
  }
  solver.set_rest();
}

/// The time step: numerics.dt, or numerics.cfl over the initial velocity (then, with an end time, shortened
/// so that a whole number of steps reaches it). Refuses a CFL above the stepper's limit.
double time_step(const config::RunSpec& spec, const SpectralCase& c, const spectral::Stats& s0) {
  const double rate = s0.cfl(1.0, c.dx);  // sum_i max|u_i| / dx_i
  if (spec.numerics.dt > 0) {
    const double cfl = rate * spec.numerics.dt;
    if (cfl > c.max_cfl)
      throw InputError(cat("numerics.dt: dt = ", spec.numerics.dt, " s gives CFL ", cfl,
                           " on the initial field, above the limit ", c.max_cfl, " of ",
                           spec.numerics.time_stepper, " (numerics.max_cfl); use dt <= ", c.max_cfl / rate,
                           " s"));
    return spec.numerics.dt;
  }
  if (!(rate > 0))
    throw InputError(
        "numerics.dt: the initial velocity is zero, so numerics.cfl cannot set the time step; give "
        "numerics.dt");
  double dt = spec.numerics.cfl / rate;
  if (spec.run.end_time > 0) dt = spec.run.end_time / std::ceil(spec.run.end_time / dt - 1e-9);
  return dt;
}

namespace {

/// A checkpoint fits the run when solver, stepper, precision and grid agree, and a fixed numerics.dt
/// equals the checkpoint's time step (time / step).
/// A fixed numerics.dt must be the one the checkpoint ran with (0 keeps the checkpoint's).
void check_restart_time_step(const io::CheckpointMeta& ckpt, double fixed_dt, const std::string& path) {
  if (fixed_dt > 0 && !(std::fabs(ckpt.dt - fixed_dt) <= 1e-9 * fixed_dt))
    throw InputError(cat("numerics.dt: ", fixed_dt, " s, but the checkpoint ", path,
                         " was written with dt = ", ckpt.dt,
                         " s; use that value or 0 (then the checkpoint's dt is kept)"));
}

/// The spectral solver as the run sees it.
class SpectralModel final : public Model {
 public:
  SpectralModel(const config::RunSpec& spec, const SpectralCase& c, spectral::Solver& solver, double dt,
                const parallel::Comm& comm)
      : spec_(spec), c_(c), s_(c.setup), solver_(solver), comm_(comm), dt_(dt) {
    const spectral::Grid& g = solver.grid();
    io::Block block = io::Block::whole(s_.dims, s_.cells);
    block.offset = c.slabs.mine().offset;
    block.extent = c.slabs.mine().extent;
    grid_ = {block, {c.dx[0], c.dx[1], s_.dims == 3 ? c.dx[2] : c.dx[0]}, {true, true, true}};
    k_max_ = s_.dealiasing == spectral::Dealiasing::phase_shift
                 ? g.kf[0] * std::sqrt(2.0) / 3.0 * double(g.n[0])
                 : g.kf[0] * double(g.kmax[0]);
  }

  void step() override { solver_.step(dt_); }
  const FieldGrid& grid() const override { return grid_; }
  /// Velocity and vorticity in physical space, and the Q-criterion (3D) where output.fields.variables
  /// names it: its 9 transforms run only then.
  std::vector<FieldData> fields() override {
    solver_.velocity(vel_);
    solver_.vorticity(vort_);
    std::vector<FieldData> f{{"velocity", vel_.data(), s_.dims, "m/s"},
                             {"vorticity", vort_.data(), s_.dims == 3 ? 3 : 0, "1/s"}};
    const std::vector<std::string>& wanted = spec_.output.fields.variables;
    if (std::find(wanted.begin(), wanted.end(), "q_criterion") != wanted.end()) {
      solver_.q_criterion(q_);
      f.push_back({"q_criterion", q_.data(), 0, "1/s^2"});
    }
    return f;
  }
  std::vector<ProbeField> probe_fields() const override {
    std::vector<ProbeField> f{{"velocity", s_.dims, "m/s"}, {"vorticity", s_.dims == 3 ? 3 : 1, "1/s"}};
    if (s_.dims == 3) f.push_back({"q_criterion", 1, "1/s^2"});
    return f;
  }
  /// The transforms of the whole field, then just those points to the host.
  std::vector<std::vector<double>> values_at(const std::vector<std::string>& names,
                                             const std::vector<index_t>& cells) override {
    std::vector<std::vector<double>> out(names.size());
    for (std::size_t f = 0; f < names.size(); ++f) {
      if (names[f] == "velocity")
        solver_.velocity_at(cells, out[f]);
      else if (names[f] == "vorticity")
        solver_.vorticity_at(cells, out[f]);
      else if (names[f] == "q_criterion" && s_.dims == 3)
        solver_.q_criterion_at(cells, out[f]);
      else
        throw Error("spectral: no field '" + names[f] + "'");
    }
    return out;
  }
  /// Sums in physical units: the velocity and the vorticity.
  int vorticity_components() const override { return s_.dims == 3 ? 3 : 1; }
  MomentUnits moment_units() const override { return {}; }
  void add_moments(const field::MomentView& sums) override { solver_.add_moments(sums); }
  /// The shell-averaged energy spectrum beside the fields: sum(energy_spectrum) * dk = kinetic energy.
  std::vector<GlobalData> globals() override {
    spectral::Spectrum sp = solver_.spectrum();
    return {{"wavenumber", std::move(sp.k), "1/m"}, {"energy_spectrum", std::move(sp.energy), "m^3/s^2"}};
  }

  /// NaN/Inf, or a CFL number past the stepper's limit, naming the grid point (the first non-finite one,
  /// else the fastest; the lowest global index on ties) and its rank, as the LBM does.
  std::string health(const sim::Clock&) override {
    stats_ = solver_.stats();
    const double cfl = stats_.cfl(dt_, c_.dx);
    if (stats_.nonfinite == 0 && cfl <= c_.max_cfl) return "";
    const std::string what =
        stats_.nonfinite > 0
            ? cat(stats_.nonfinite, " grid points with NaN/Inf velocity; the first")
            : cat("the CFL number reached ", cfl, ", above ", c_.max_cfl, " (numerics.max_cfl, or the ",
                  spectral::stepper_names(s_.stepper), " limit), the fastest point");
    return what + where(stats_.nonfinite > 0);
  }
  /// " at cell (i, j[, k]) on rank r": the point a failed health check names. Collective; runs on the
  /// failure path only, from the velocity in physical space of this rank's box.
  std::string where(bool nonfinite) {
    solver_.velocity(vel_);
    const io::Block& b = grid_.block;
    const int dims = s_.dims;
    constexpr long none = std::numeric_limits<long>::max();
    long first = none, fastest = none;
    double top = -1.0;
    for (index_t z = 0; z < b.extent[2]; ++z)
      for (index_t y = 0; y < b.extent[1]; ++y)
        for (index_t x = 0; x < b.extent[0]; ++x) {
          const index_t local = (z * b.extent[1] + y) * b.extent[0] + x;
          const long global = static_cast<long>(
              ((z + b.offset[2]) * b.global[1] + y + b.offset[1]) * b.global[0] + x + b.offset[0]);
          double s2 = 0.0;
          for (int d = 0; d < dims; ++d) {
            const double v = vel_[static_cast<std::size_t>(local * dims + d)];
            s2 += v * v;
          }
          if (!std::isfinite(s2)) {
            first = std::min(first, global);
          } else if (s2 > top) {
            top = s2, fastest = global;
          }
        }
    long cell = 0;
    if (nonfinite) {
      cell = -comm_.max(-first);
    } else {
      const double speed = comm_.max(top);
      cell = -comm_.max(-(top == speed ? fastest : none));
    }
    const bool mine = cell == first || (!nonfinite && cell == fastest);
    const long owner = comm_.max(mine ? long(comm_.rank()) : -1L);
    const long nx = static_cast<long>(b.global[0]), ny = static_cast<long>(b.global[1]);
    return cat(" at cell (", cell % nx, ", ", (cell / nx) % ny,
               dims == 3 ? cat(", ", cell / (nx * ny)) : std::string(), ") on rank ", owner);
  }
  std::string remedy() const override {
    return "use a smaller numerics.dt or numerics.cfl, or refine the grid";
  }

  /// 3D adds the small-scale statistics of isotropic turbulence: Taylor-scale Reynolds number
  /// Re_lambda = u' lambda / nu with u' = sqrt(2E/3), lambda = sqrt(15 nu u'^2 / eps) (Pope 2000,
  /// Eq. 6.64); the velocity-derivative skewness averaged over x, y, z; and k_max eta, eta =
  /// (nu^3 / eps)^(1/4), k_max the largest wave number the dealiasing keeps along an axis.
  std::vector<std::string> columns() const override {
    std::vector<std::string> columns{"kinetic_energy", "enstrophy", "dissipation", "minus_dEdt",
                                     "max_velocity",   "cfl",       "ms_per_step", "injection"};
    if (s_.dims == 3) columns.insert(columns.end(), {"re_lambda", "skewness", "kmax_eta"});
    return columns;
  }
  DiagnosticRow diagnostics(const sim::Clock&) override {
    const spectral::Stats& st = stats_;
    const double cfl = st.cfl(dt_, c_.dx);
    DiagnosticRow row;
    row.values = {st.kinetic_energy, st.enstrophy, st.dissipation, 0.0, st.max_velocity, cfl, 0.0,
                  st.injection};
    if (s_.dims == 3) {
      const double u2 = 2.0 * st.kinetic_energy / 3.0, eps = st.dissipation;
      const double lambda = eps > 0 ? std::sqrt(15.0 * s_.nu * u2 / eps) : 0.0;
      const double eta = eps > 0 ? std::pow(s_.nu * s_.nu * s_.nu / eps, 0.25) : 0.0;
      row.values.insert(row.values.end(), {s_.nu > 0 ? std::sqrt(u2) * lambda / s_.nu : 0.0,
                                           solver_.gradient_moments().skewness(), k_max_ * eta});
    }
    row.kinetic_energy = st.kinetic_energy, row.dissipation = st.dissipation,
    row.max_velocity = st.max_velocity;
    row.stability = "CFL", row.stability_value = cfl;
    return row;
  }
  Rate rate() const override { return Rate::ms_per_step; }
  Dissipation dissipation() const override { return Dissipation::column; }
  double points() const override { return double(solver_.grid().total_points()); }

  /// The spectral coefficients (state_block): an exact restart on any decomposition.
  CheckpointData checkpoint() override {
    return {state_block(solver_.grid()), solver_.state_values(), solver_.state_bytes(), solver_.save_state()};
  }
  io::CheckpointMeta checkpoint_meta() const override {
    return app::checkpoint_meta(spec_, "spectral", spectral::stepper_names(s_.stepper));
  }
  double viscosity() const override { return s_.nu; }
  void velocity(std::vector<double>& out) override { solver_.velocity(out); }

 private:
  const config::RunSpec& spec_;
  const SpectralCase& c_;
  const spectral::Setup& s_;
  spectral::Solver& solver_;
  const parallel::Comm& comm_;
  double dt_;
  FieldGrid grid_;
  double k_max_ = 0.0;
  spectral::Stats stats_;
  std::vector<double> vel_, vort_, q_;
};

}  // namespace

RunResult run_spectral(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm) {
  const SpectralCase c = make_spectral_case(spec, comm);
  const spectral::Setup& s = c.setup;
  // Everything that can be bad input is checked before the output directory exists: a restart, and the
  // CFL of the initial state.
  const auto exchange = parallel::make_transpose_exchange(spec.parallel.comm, comm, c.p1);
  auto solver = spectral::make_solver(s, *exchange);
  const Restart restart =
      find_restart(spec, opt, checkpoint_meta(spec, "spectral", spectral::stepper_names(s.stepper)),
                   "time stepper (numerics.time_stepper)",
                   {state_block(solver->grid()), solver->state_values(), solver->state_bytes()}, comm);
  if (!restart.path.empty()) check_restart_time_step(restart.meta, spec.numerics.dt, restart.path);
  const RunStart start{restart.meta.step, !restart.path.empty(), restart.meta.lineage, restart.path};
  double dt = 0.0;
  if (start.restarted) {
    solver->load_state(io::read_checkpoint_state(restart.path, state_block(solver->grid()),
                                                 solver->state_values(), solver->state_bytes()),
                       start.step);
    dt = restart.meta.dt;  // the checkpoint's (a usable one has a finite dt > 0 with time == step * dt)
  } else {
    initialize(*solver, spec, c);
    const spectral::Stats s0 = solver->stats();
    if (s.forcing.kind == spectral::Forcing::band_limited && !(s0.band_energy > 0))
      throw InputError(
          cat("physics.forcing.band: the initial field has no energy in the band [", s.forcing.band[0], ", ",
              s.forcing.band[1],
              "] 1/m, and the band_limited force is proportional to it; use an initial.type with "
              "energy there (e.g. random_spectrum with initial.peak_wavenumber inside the band) or "
              "a band that holds kept modes"));
    dt = time_step(spec, c, s0);
  }
  check_schedules(spec, dt);  // the time step from numerics.cfl is known only now

  SpectralModel model(spec, c, *solver, dt, comm);
  if (start.restarted) {
    check_resume(spec, opt, "diagnostics.csv", model.columns(), comm);
    check_resume_series(model, spec, opt, comm);
  }
  RunOutput out(spec, opt, comm);
  if (start.restarted) {
    out.resume_at(start.step);
    log::info(
        cat("restarted from ", restart.path, " at step ", start.step, ", t = ", restart.meta.time, " s"));
  }
  const std::string parts = c.p1 > 1 ? cat(" pencils (", c.p1, " x ", comm.size() / c.p1, ")") : " slab(s)";
  if (comm.size() > 1) log::info(cat(parts.substr(1), " transposes through ", exchange->name()));
  log::info(cat("spectral ", s.dims, "D ", spec.numerics.time_stepper, " ", spec.numerics.precision, " ",
                spec.numerics.dealiasing, ", ", s.cells[0], " x ", s.cells[1],
                s.dims == 3 ? cat(" x ", s.cells[2]) : std::string(), " points, ", comm.size(), parts, " (",
                c.slabs.describe(), ", transposes: ", exchange->name(), "); nu = ", s.nu, " m^2/s",
                s.hyperviscosity > 0
                    ? cat(", hyperviscosity ", s.hyperviscosity, " (order ", s.hyperviscosity_order, ")")
                    : std::string(),
                s.drag > 0 ? cat(", drag ", s.drag, " 1/s") : std::string(), "; dt = ", dt, " s (CFL limit ",
                c.max_cfl, "); ", solver->bytes_allocated() / 1048576.0, " MiB on the device (rank 0)"));

  sim::Simulation simulation(dt, {spec.run.end_time, spec.run.steps});
  simulation.set_step_count(start.step);
  simulation.set_step([&] { model.step(); });
  simulation.set_sync([] { backend::fence(); });
  simulation.set_stop_check(spec.run.stop_check_every, make_stop_check(spec, comm));
  return run_model(model, simulation, out, spec, start);
}

}  // namespace eddy::app
