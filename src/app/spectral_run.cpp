// `eddy run` for solver: spectral.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "app/output.hpp"
#include "app/run.hpp"
#include "app/spectral_case.hpp"
#include "app/stop.hpp"
#include "app/validation.hpp"
#include "backend/backend.hpp"
#include "cases/taylor_green/taylor_green.hpp"
#include "cases/taylor_green/tgv_reference.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/transpose.hpp"
#include "sim/simulation.hpp"
#include "spectral/slab_fft.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// Seconds per pass of the transforms of one products() of the 3D step (3 backward, 6 forward, as the
/// solver runs them: pruned, field by field overlapped as parallel.overlap says) on the process grid of
/// `c`, through a fresh exchange of parallel.comm: the median of 3 passes after 3 warm-up passes (which
/// also let parallel.comm: auto settle on its transport), fenced, the slowest rank's. Collective.
template <class T>
double time_transforms(const config::RunSpec& spec, const SpectralCase& c, const parallel::Comm& comm) {
  const auto exchange = parallel::make_slab_exchange(spec.parallel.comm, comm, c.p1);
  const spectral::Setup& s = c.setup;
  const spectral::Grid g =
      spectral::Grid::make(s.dims, s.cells, s.length, *exchange, spec.numerics.dealiasing == "phase_shift");
  spectral::SlabFft<T> fft(g, *exchange, spec.parallel.overlap);
  backend::DeviceArray<T> phys(static_cast<std::size_t>(6 * fft.real_stride()));
  backend::DeviceArray<backend::Complex<T>> modes(static_cast<std::size_t>(6 * fft.complex_stride()));
  const auto pass = [&] {  // zeros in, zeros out: the timing does not depend on the values
    fft.backward(modes.data(), phys.data(), 3, spectral::Modes::kept);
    fft.forward(phys.data(), modes.data(), 6, spectral::Modes::kept);
  };
  std::vector<double> t;
  for (int k = 0; k < 6; ++k) {
    backend::fence();
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    pass();
    backend::fence();
    if (k >= 3)
      t.push_back(comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
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
    const double sec = spec.numerics.precision == "fp32" ? time_transforms<float>(spec, c, comm)
                                                         : time_transforms<double>(spec, c, comm);
    report += cat(report.empty() ? "" : ", ", "[1, ", p1, ", ", P / p1, "] ", sec * 1e3, " ms");
    if (best.empty() || sec < best_s) best = candidate.parallel.ranks, best_s = sec;
  }
  log::info(cat("parallel.autotune: the transforms of one nonlinear term (3 backward, 6 forward) on ", report,
                "; keeping [1, ", best[1], ", ", best[2], "]"));
  return best;
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
  SpectralCase c;
  spectral::Setup& s = c.setup;
  s.dims = spec.dimensions();
  const int P = comm.size();
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
  // The process grid [1, P1, P2] (parallel.ranks; x is never split). Slab (P1 = 1): planes of the slowest
  // direction (z in 3D, y in 2D) in physical space; in wave-number space rows of ky (3D) or kx = 0..nx/2
  // (2D). Pencil (3D, P1 > 1): physical x-pencils (y over P1, z over P2), spectral z-pencils (kx over P1,
  // ky over P2). Uneven splits are fine; every rank needs a part of every split direction. Left out: slab
  // while the ranks fit (P <= nz and P <= ny), else the pencil grid with the most ranks P2 along z that
  // fit and divide P.
  const index_t rows = s.dims == 3 ? s.cells[1] : s.cells[0] / 2 + 1;
  std::vector<long> grid_ranks = s.dims == 3 ? std::vector<long>{1, 1, P} : std::vector<long>{1, P};
  if (!spec.parallel.ranks.empty()) {
    grid_ranks = spec.parallel.ranks;
    if (grid_ranks.size() != static_cast<std::size_t>(s.dims) || grid_ranks[0] != 1 ||
        (s.dims == 2 && grid_ranks[1] != P))
      throw InputError(cat("parallel.ranks: the spectral solver never splits x",
                           s.dims == 3 ? cat(", so it takes [1, P1, P2] with P1 P2 = ", P,
                                             " ranks (P1 = 1: slabs along z; P1 > 1: pencils)")
                                       : cat("; in 2D it decomposes into slabs along y: [1, ", P, "]"),
                           " or left out"));
  } else if (s.dims == 3 && (P > s.cells[2] || P > rows)) {
    for (long p2 = std::min<long>(P, std::min(s.cells[2], rows)); p2 >= 1; --p2)
      if (P % p2 == 0) {
        grid_ranks = {1, P / p2, p2};
        break;
      }
  }
  c.p1 = s.dims == 3 ? static_cast<int>(grid_ranks[1]) : 1;
  const long p2 = grid_ranks.back();
  if (p2 > rows)
    throw InputError(cat("domain.cells: the transposed layout splits the ",
                         s.dims == 3 ? "ny = " : "nx/2+1 = ", rows, s.dims == 3 ? " ky-rows" : " kx-columns",
                         " of wave-number space over ", p2,
                         " ranks (each rank needs at least one); use at most ", rows, " ranks",
                         s.dims == 3 ? " along z (parallel.ranks [1, P1, P2]: P2)" : "",
                         " or more cells along ", s.dims == 3 ? "y" : "x"));
  if (c.p1 > s.cells[0] / 2 + 1)
    throw InputError(cat("parallel.ranks: the pencils split the nx/2+1 = ", s.cells[0] / 2 + 1,
                         " kx-columns of wave-number space over P1 = ", c.p1,
                         " ranks (each rank needs at least one); use a smaller P1 or more cells along x"));
  c.slabs =
      parallel::Decomposition::make(s.dims, s.cells, grid_ranks, comm);  // InputError: more ranks than planes

  s.precision = spec.numerics.precision == "fp32" ? Precision::fp32 : Precision::fp64;
  s.overlap = spec.parallel.overlap;
  s.stepper = spec.numerics.time_stepper;
  s.dealiasing = spec.numerics.dealiasing;
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
  c.velocity = spec.initial.amplitude > 0 ? spec.initial.amplitude : spec.physics.velocity;
  c.max_cfl =
      spec.numerics.max_cfl > 0 ? spec.numerics.max_cfl : spectral::cfl_limit(s.stepper, s.dealiasing);
  if (spec.numerics.dt == 0 && spec.numerics.cfl > c.max_cfl)
    throw InputError(cat("numerics.cfl: ", spec.numerics.cfl, " is above the stability limit ", c.max_cfl,
                         " of ", s.stepper, " (numerics.max_cfl); use a smaller value"));
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
    cases::TaylorGreen tg;
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

/// The spectral state as a block of the global array [a][b][c] (x = c fastest, y = b, z = a): checkpoints
/// store it so, and any rank count reads its own rows back.
io::Block state_block(const spectral::Grid& g) {
  io::Block b = io::Block::whole(3, {g.nc, g.nb, g.na});
  b.offset = {g.c0, g.b0, 0};
  b.extent = {g.nc_local, g.nb_local, g.na};
  return b;
}

/// A checkpoint fits the run when solver, stepper, precision and grid agree, and a fixed numerics.dt
/// equals the checkpoint's time step (time / step).
/// A fixed numerics.dt must be the one the checkpoint ran with (0 keeps the checkpoint's).
void check_restart_time_step(const io::CheckpointMeta& ckpt, double fixed_dt, const std::string& path) {
  const double dt = ckpt.step > 0 ? ckpt.time / double(ckpt.step) : fixed_dt;
  if (fixed_dt > 0 && std::fabs(dt - fixed_dt) > 1e-9 * fixed_dt)
    throw InputError(cat("numerics.dt: ", fixed_dt, " s, but the checkpoint ", path,
                         " was written with dt = ", dt,
                         " s; use that value or 0 (then the checkpoint's dt is kept)"));
}

}  // namespace

RunResult run_spectral(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm) {
  const SpectralCase c = make_spectral_case(spec, comm);
  const spectral::Setup& s = c.setup;
  const io::CheckpointMeta meta_now = checkpoint_meta(spec, "spectral", s.stepper);
  // Everything that can be bad input is checked before the output directory exists: a restart, and the
  // CFL of the initial state.
  const Restart found = find_restart(spec, opt, meta_now, "time stepper (numerics.time_stepper)", comm);
  if (!found.path.empty()) check_restart_time_step(found.meta, spec.numerics.dt, found.path);
  const std::string& restart_path = found.path;
  const io::CheckpointMeta& restart = found.meta;
  const auto exchange = parallel::make_slab_exchange(spec.parallel.comm, comm, c.p1);
  auto solver = spectral::make_solver(s, *exchange);
  const spectral::Grid& g = solver->grid();
  const io::Block ckpt_block = state_block(g);
  double dt = 0.0;
  if (!restart_path.empty()) {
    solver->load_state(
        io::read_checkpoint_state(restart_path, ckpt_block, solver->state_values(), solver->state_bytes()),
        restart.step);
    dt = restart.step > 0 ? restart.time / double(restart.step) : time_step(spec, c, solver->stats());
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

  RunOutput out(spec, opt, comm);
  const index_t points = g.total_points();
  if (!restart_path.empty()) {
    out.resume_at(restart.step);
    log::info(cat("restarted from ", restart_path, " at step ", restart.step, ", t = ", restart.time, " s"));
  }
  const std::string parts = c.p1 > 1 ? cat(" pencils (", c.p1, " x ", comm.size() / c.p1, ")") : " slab(s)";
  if (comm.size() > 1) log::info(cat(parts.substr(1), " transposes through ", exchange->name()));
  log::info(cat("spectral ", s.dims, "D ", s.stepper, " ", spec.numerics.precision, " ", s.dealiasing, ", ",
                s.cells[0], " x ", s.cells[1], s.dims == 3 ? cat(" x ", s.cells[2]) : std::string(),
                " points, ", comm.size(), parts, " (", c.slabs.describe(), ", transposes: ", exchange->name(),
                "); nu = ", s.nu, " m^2/s",
                s.hyperviscosity > 0
                    ? cat(", hyperviscosity ", s.hyperviscosity, " (order ", s.hyperviscosity_order, ")")
                    : std::string(),
                s.drag > 0 ? cat(", drag ", s.drag, " 1/s") : std::string(), "; dt = ", dt, " s (CFL limit ",
                c.max_cfl, "); ", solver->bytes_allocated() / 1048576.0, " MiB on the device (rank 0)"));

  sim::Simulation simulation(dt, {spec.run.end_time, spec.run.steps});
  simulation.set_step_count(restart.step);
  simulation.set_step([&] { solver->step(dt); });
  simulation.set_sync([] { backend::fence(); });
  simulation.set_stop_check(spec.run.stop_check_every, make_stop_check(spec, comm));
  const long planned = simulation.planned_steps();

  // Fields in physical space: velocity and vorticity.
  io::Block block = io::Block::whole(s.dims, s.cells);
  block.offset = c.slabs.mine().offset;
  block.extent = c.slabs.mine().extent;
  const FieldGrid grid{block, {c.dx[0], c.dx[1], s.dims == 3 ? c.dx[2] : c.dx[0]}};
  std::vector<double> vel, vort;
  auto field_data = [&] {
    solver->velocity(vel);
    solver->vorticity(vort);
    return std::vector<FieldData>{{"velocity", vel.data(), s.dims, "m/s"},
                                  {"vorticity", vort.data(), s.dims == 3 ? 3 : 0, "1/s"}};
  };
  // The shell-averaged energy spectrum beside the fields: sum(energy_spectrum) * dk = kinetic energy.
  auto spectrum_data = [&] {
    spectral::Spectrum sp = solver->spectrum();
    return std::vector<GlobalData>{{"wavenumber", std::move(sp.k), "1/m"},
                                   {"energy_spectrum", std::move(sp.energy), "m^3/s^2"}};
  };

  // Health: NaN/Inf, or a CFL number past the stepper's limit, stops the run (exit 3) after writing the
  // fields as FAILED_<name>_<step>.h5.
  auto health = [&](const sim::Clock& clk) {
    const spectral::Stats st = solver->stats();
    const double cfl = st.cfl(dt, c.dx);
    if (st.nonfinite == 0 && cfl <= c.max_cfl) return st;
    const std::string what = st.nonfinite > 0 ? cat(st.nonfinite, " grid points with NaN/Inf velocity")
                                              : cat("the CFL number reached ", cfl, ", above ", c.max_cfl,
                                                    " (numerics.max_cfl, or the ", s.stepper, " limit)");
    out.write_failed_fields(clk.step, clk.time, grid, field_data());
    throw NumericalError(
        cat("step ", clk.step, ", t = ", clk.time, " s: ", what,
            " (unstable: use a smaller numerics.dt or numerics.cfl, or refine the grid); the fields "
            "are in fields/FAILED_",
            spec.name, "_<step>.h5; checkpoints already written are kept"));
  };

  // Diagnostics (DESIGN §5 conventions) and the progress line.
  // 3D adds the small-scale statistics of isotropic turbulence: Taylor-scale Reynolds number
  // Re_lambda = u' lambda / nu with u' = sqrt(2E/3), lambda = sqrt(15 nu u'^2 / eps) (Pope 2000, Eq. 6.64);
  // the velocity-derivative skewness averaged over x, y, z; and k_max eta, eta = (nu^3 / eps)^(1/4), k_max
  // the largest wave number the dealiasing keeps along an axis.
  std::vector<std::string> columns{"kinetic_energy", "enstrophy", "dissipation", "minus_dEdt",
                                   "max_velocity",   "cfl",       "ms_per_step", "injection"};
  if (s.dims == 3) columns.insert(columns.end(), {"re_lambda", "skewness", "kmax_eta"});
  out.open_diagnostics(columns);
  const double k_max = s.dealiasing == "phase_shift" ? g.kf[0] * std::sqrt(2.0) / 3.0 * double(g.n[0])
                                                     : g.kf[0] * double(g.kmax[0]);
  std::vector<double> series_t, series_eps, series_e;
  std::vector<double> last_row;
  double last_wall = 0.0, last_e = 0.0, last_t = 0.0;
  long last_step = -1;
  // A restart continues from the earlier run's rows: minus_dEdt of the first new row and the validation
  // series cover the whole run.
  const io::DiagnosticsCsv& csv = out.diagnostics_csv();
  const std::size_t ke_at = csv.position("kinetic_energy"), eps_at = csv.position("dissipation");
  for (const std::vector<double>& r : csv.earlier_rows()) {
    series_t.push_back(r[1]), series_eps.push_back(r[eps_at]), series_e.push_back(r[ke_at]);
    last_step = static_cast<long>(r[0]), last_e = r[ke_at], last_t = r[1];
  }
  auto diagnostics = [&](const sim::Clock& clk) {
    const spectral::Stats st = health(clk);
    const double cfl = st.cfl(dt, c.dx);
    const double step_s = simulation.step_seconds();
    const double ms = clk.step > last_step && last_step >= 0
                          ? 1e3 * (step_s - last_wall) / double(clk.step - last_step)
                          : 0.0;
    const double minus_dedt = last_step >= 0 && clk.time > last_t
                                  ? (last_e - st.kinetic_energy) / (clk.time - last_t)
                                  : std::numeric_limits<double>::quiet_NaN();
    last_wall = step_s, last_step = clk.step, last_e = st.kinetic_energy, last_t = clk.time;
    std::vector<double> row{
        st.kinetic_energy, st.enstrophy, st.dissipation, minus_dedt, st.max_velocity, cfl, ms, st.injection};
    if (s.dims == 3) {
      const double u2 = 2.0 * st.kinetic_energy / 3.0, eps = st.dissipation;
      const double lambda = eps > 0 ? std::sqrt(15.0 * s.nu * u2 / eps) : 0.0;
      const double eta = eps > 0 ? std::pow(s.nu * s.nu * s.nu / eps, 0.25) : 0.0;
      row.insert(row.end(), {s.nu > 0 ? std::sqrt(u2) * lambda / s.nu : 0.0,
                             solver->gradient_moments().skewness(), k_max * eta});
    }
    out.diagnostics(clk.step, clk.time, row);
    last_row = row;
    series_t.push_back(clk.time), series_eps.push_back(st.dissipation), series_e.push_back(st.kinetic_energy);
    std::string eta;
    if (planned > 0 && clk.step > restart.step)
      eta = " ETA " +
            RunOutput::duration(step_s / double(clk.step - restart.step) * double(planned - clk.step));
    char b[240];
    std::snprintf(
        b, sizeof b, "step %8ld  t %.4e s  %8.2f ms/step %s E %.6e  eps %.6e  max|u| %.3e m/s  CFL %.3f",
        clk.step, clk.time, ms, eta.c_str(), st.kinetic_energy, st.dissipation, st.max_velocity, cfl);
    log::info(b);
  };
  simulation.add("diagnostics", spec.output.diagnostics.every, diagnostics, true);
  simulation.add("health", Schedule{spec.run.check_every, 0.0}, [&](const sim::Clock& clk) { health(clk); });

  auto write_fields = [&](const sim::Clock& clk) {
    out.write_fields(clk.step, clk.time, grid, field_data(), spectrum_data());
  };
  if (spec.output.fields.every.enabled() || spec.output.fields.at_end)
    simulation.add("fields", spec.output.fields.every, write_fields, spec.output.fields.at_end);

  // Checkpoints (the spectral coefficients: an exact restart, on any rank count): on their schedule, and
  // whenever the run stops early.
  auto write_checkpoint = [&](const sim::Clock& clk) {
    const std::vector<unsigned char> state = solver->save_state();
    io::CheckpointMeta m = meta_now;
    m.step = clk.step, m.time = clk.time;
    const std::string path = io::write_checkpoint(
        out.dir(), m, {&ckpt_block, solver->state_values(), solver->state_bytes(), state.data()},
        spec.output.checkpoint.keep, comm);
    log::info("checkpoint " + path);
  };

  RunResult r = run_to_end(simulation, spec, out, restart.step, !restart_path.empty(), write_checkpoint,
                           double(points), false);
  const sim::Clock& clk = simulation.clock();
  r.diagnostics = last_row;
  if (r.interrupted) return r;

  solver->velocity(vel);
  r.velocity = parallel::gather_to_root(vel, c.slabs, s.dims, comm);
  if (spec.validation.reference == "taylor_green" && s.dims == 2) {
    cases::TaylorGreen tg;
    tg.dims = 2;
    tg.U = c.velocity;
    tg.L = spec.domain.length[0];
    tg.nu = s.nu;
    const double e =
        comm.root() ? taylor_green_error(r.velocity, s.cells[0], s.cells[1], c.dx[0], tg, clk.time) : -1.0;
    r.taylor_green_error = comm.max(e);
    log::info(cat("Taylor-Green vortex: relative L2 error of the velocity against the exact solution at t = ",
                  clk.time, " s: ", r.taylor_green_error));
  } else if (spec.validation.reference == "kolmogorov") {
    // From rest, u = U(t) sin(k_f y) x with U(t) = F / lambda (1 - exp(-lambda t)), lambda = nu k_f^2 + mu
    // (+ hyperviscosity): the advection term of a parallel shear flow vanishes identically.
    const double kf = g.kf[1] * double(s.forcing.mode), k2 = kf * kf;
    const double lambda = s.nu * k2 + s.hyperviscosity * std::pow(k2, s.hyperviscosity_order) + s.drag;
    const double amp = s.forcing.amplitude / lambda * (1.0 - std::exp(-lambda * clk.time));
    double e = -1.0;
    if (comm.root()) {
      double e2 = 0, n2 = 0;
      const auto nx = static_cast<std::size_t>(s.cells[0]), ny = static_cast<std::size_t>(s.cells[1]);
      for (std::size_t i = 0; i < r.velocity.size() / static_cast<std::size_t>(s.dims); ++i) {
        const std::size_t y = i / nx % ny;
        const double exact = amp * std::sin(kf * (double(y) + 0.5) * c.dx[1]);
        for (int d = 0; d < s.dims; ++d) {
          const double v = r.velocity[i * static_cast<std::size_t>(s.dims) + static_cast<std::size_t>(d)];
          const double ref = d == 0 ? exact : 0.0;
          e2 += (v - ref) * (v - ref), n2 += ref * ref;
        }
      }
      e = std::sqrt(e2 / n2);
    }
    r.kolmogorov_error = comm.max(e);
    log::info(cat("Kolmogorov flow: relative L2 error of the velocity against the laminar profile ", amp,
                  " sin(", kf, " y) m/s at t = ", clk.time, " s: ", r.kolmogorov_error));
  } else if (spec.validation.reference == "tgv_re1600") {
    r.tgv = validate_tgv_re1600(spec.validation.file, series_t, series_eps, series_e, s.nu, "samples");
  }
  return r;
}

}  // namespace eddy::app
