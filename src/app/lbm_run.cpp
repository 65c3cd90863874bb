// `eddy run` for solver: lbm.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "app/geometry_case.hpp"
#include "app/lbm_case.hpp"
#include "app/output.hpp"
#include "app/run.hpp"
#include "app/stop.hpp"
#include "app/validation.hpp"
#include "backend/backend.hpp"
#include "cases/taylor_green/taylor_green.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// A checkpoint fits the config when solver, lattice, precision, grid and time step agree.
/// The LBM time step follows from the config (lattice velocity, physics, grid): it must be the one the
/// checkpoint ran with.
void check_restart_time_step(const io::CheckpointMeta& ckpt, double dt, const std::string& path) {
  const double t = static_cast<double>(ckpt.step) * dt;
  if (std::fabs(t - ckpt.time) > 1e-9 * std::max(1.0, std::fabs(t)))
    throw InputError(
        cat("--restart ", path, ": the checkpoint's time step (from numerics.lattice_velocity, physics, ",
            "domain) is ", ckpt.time / double(ckpt.step), " s but the config's is ", dt,
            " s; restart with the config that wrote it (its resolved_config attribute) or start afresh"));
}

/// The end-of-run report of the bodies: log lines and <out>/bodies.txt (rank 0).
std::vector<BodyReport> report_bodies(const config::RunSpec& spec, const LbmCase& c,
                                      const std::vector<Real3>& forces, const std::vector<double>& pressure,
                                      const CoefficientSeries& series, const std::string& dir) {
  const config::GeometrySpec& geo = spec.geometry;
  const int dims = c.setup.dims;
  const bool coefficients = geo.reference_velocity > 0;
  const double area = dims == 2 ? geo.reference_length : geo.reference_area;
  std::vector<BodyReport> reports;
  std::ofstream file(dir + "/bodies.txt");
  file << "# eddy: forces on the bodies at the end of the run (t = " << series.t.size()
       << " coefficient samples)\n";
  for (std::size_t b = 0; b < forces.size(); ++b) {
    BodyReport rep;
    rep.force = forces[b];
    const config::BodySpec& body = spec.geometry.bodies[b];
    std::string line =
        cat("body ", b, " (", c.setup.bodies[b]->describe(), "): force (", forces[b][0], ", ", forces[b][1],
            dims == 3 ? cat(", ", forces[b][2]) : std::string(), ") ", dims == 2 ? "N/m" : "N");
    if (coefficients) {
      const double k = 2.0 / (spec.physics.density * geo.reference_velocity * geo.reference_velocity * area);
      rep.cd = forces[b][0] * k, rep.cl = forces[b][1] * k;
      line += cat("; drag coefficient ", rep.cd, ", lift coefficient ", rep.cl);
    }
    // Pressure difference between the upstream and downstream points of a round body on the x axis
    // through its centre (the DFG benchmark's p(x_a) - p(x_e)).
    if (body.type == "cylinder" || body.type == "sphere") {
      Real3 front{0.0, 0.0, 0.0}, back{0.0, 0.0, 0.0};
      for (std::size_t d = 0; d < body.center.size(); ++d) front[d] = back[d] = body.center[d];
      front[0] -= body.radius, back[0] += body.radius;
      const Int3 cells = c.block.global;
      rep.pressure_difference =
          extrapolate_to_wall(pressure, cells, dims, c.units.dx, front, {-1.0, 0.0, 0.0}) -
          extrapolate_to_wall(pressure, cells, dims, c.units.dx, back, {1.0, 0.0, 0.0});
      line += cat("; pressure difference front - back ", rep.pressure_difference, " Pa");
    }
    if (b == 0 && coefficients && !series.t.empty()) {
      rep.summary = summarize(series, geo.reference_length, geo.reference_velocity);
      const CoefficientSummary& s = rep.summary;
      line += cat("; over the second half of the run: mean drag coefficient ", s.cd_mean, ", max ", s.cd_max,
                  "; lift coefficient max ", s.cl_max, ", min ", s.cl_min);
      line += s.strouhal > 0 ? cat("; Strouhal number ", s.strouhal, " (", s.periods, " lift periods)")
                             : std::string("; no Strouhal number (steady lift or fewer than two periods)");
    }
    log::info(line);
    file << line << "\n";
    reports.push_back(rep);
  }
  return reports;
}

}  // namespace

RunResult run_lbm(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm) {
  const LbmCase c = make_lbm_case(spec, comm);
  if (spec.validation.reference == "ghia1982")
    read_ghia(spec.validation.file.empty() ? default_ghia_file(spec.physics.reynolds) : spec.validation.file,
              spec.physics.reynolds);
  const io::CheckpointMeta meta_now = checkpoint_meta(spec, "lbm", c.setup.lattice);
  // A restart is checked before anything is written.
  const Restart restart = find_restart(spec, opt, meta_now, "lattice (numerics.lattice)", comm);
  if (!restart.path.empty()) check_restart_time_step(restart.meta, c.units.dt, restart.path);
  const std::string& restart_path = restart.path;
  const io::CheckpointMeta& restart_meta = restart.meta;
  RunOutput out(spec, opt, comm);

  auto solver = lbm::make_solver(c.setup);
  const lbm::Units& u = c.units;
  long start_step = 0;
  if (!restart_path.empty()) {
    const io::CheckpointMeta& m = restart_meta;
    solver->load_state(io::read_checkpoint_state(restart_path, c.block, solver->q(), solver->state_bytes()),
                       m.step);
    start_step = m.step;
    out.resume_at(m.step);
    log::info(cat("restarted from ", restart_path, " at step ", m.step, ", t = ", m.time, " s"));
  } else {
    initialize(*solver, spec, c);
  }
  const index_t cells = c.block.global_cells();
  log::info(cat("LBM ", c.setup.lattice, " ", c.setup.collision, " ", spec.numerics.precision, ", ", cells,
                " cells; dx = ", u.dx, " m, dt = ", u.dt, " s, tau = ", u.tau, ", nu = ", u.nu,
                " m^2/s, lattice velocity ", u.u_lb, " (Mach ", lbm::Units::mach(u.u_lb), "); ",
                solver->bytes_allocated() / 1048576.0, " MiB on the device (rank 0)"));
  if (!c.setup.bodies.empty() || solver->boundary_links() > 0)
    log::info(cat(c.setup.bodies.size(), " bodies; ", comm.sum(double(solver->boundary_links())),
                  " boundary links (bodies and open faces); walls: ", spec.geometry.wall));
  if (comm.size() > 1)
    log::info(cat("decomposition: ", c.decomposition.describe(), "; halo exchange ", c.exchanger->name()));

  sim::Simulation simulation(u.dt, {spec.run.end_time, spec.run.steps});
  simulation.set_step_count(start_step);
  simulation.set_step([&] { solver->step(); });
  simulation.set_sync([] { backend::fence(); });
  simulation.set_stop_check(spec.run.stop_check_every, make_stop_check(spec, comm));
  const long planned = simulation.planned_steps();

  // Fields, in physical units.
  std::vector<double> rho, vel;
  auto field_data = [&](std::vector<double>& density, std::vector<double>& pressure) {
    solver->macroscopic(rho, vel);
    density.resize(rho.size()), pressure.resize(rho.size());
    for (std::size_t k = 0; k < rho.size(); ++k) {
      density[k] = u.to_density(rho[k]);
      pressure[k] = u.to_pressure(rho[k] - 1.0);
    }
    for (double& v : vel) v = u.to_velocity(v);
    return std::vector<FieldData>{
        {"velocity", vel.data(), c.setup.dims, "m/s"},
        {"density", density.data(), 0, "kg/m^3"},
        {"pressure", pressure.data(), 0, "Pa (deviation from the reference pressure)"}};
  };
  const FieldGrid grid{c.block, {u.dx, u.dx, u.dx}};

  // Health: NaN/Inf anywhere or the Mach number past 1.5 x numerics.max_mach stops the run (exit 3),
  // naming the step, time, rank and cell, after writing the fields as FAILED_<name>_<step>.h5.
  auto health = [&](const sim::Clock& clk) {
    lbm::Stats st = solver->stats();
    st.mass = comm.sum(st.mass), st.kinetic_energy = comm.sum(st.kinetic_energy);
    st.max_speed = comm.max(st.max_speed), st.nonfinite = comm.sum(st.nonfinite);
    const double mach = lbm::Units::mach(st.max_speed);
    if (st.nonfinite == 0 && mach <= 1.5 * spec.numerics.max_mach) return st;
    // The cell to name: the first non-finite one, else the fastest (lowest global index on ties).
    index_t cell_index = 0;
    std::string what;
    if (st.nonfinite > 0) {
      const index_t local = solver->first_nonfinite();
      cell_index = -comm.max(-(local < 0 ? std::numeric_limits<long>::max() : static_cast<long>(local)));
      what = cat(st.nonfinite, " cells with NaN/Inf density or velocity; the first");
    } else {
      const auto [speed, local] = solver->fastest_cell();
      const bool mine = speed == st.max_speed;
      cell_index = -comm.max(-(mine ? static_cast<long>(local) : std::numeric_limits<long>::max()));
      what = cat("the Mach number reached ", mach,
                 ", above 1.5 x numerics.max_mach = ", spec.numerics.max_mach, ",");
    }
    const index_t nx = c.block.global[0], ny = c.block.global[1];
    const Int3 cell{cell_index % nx, (cell_index / nx) % ny, cell_index / (nx * ny)};
    int owner = 0;
    for (std::size_t r = 0; r < c.decomposition.boxes.size(); ++r) {
      const parallel::Box& b = c.decomposition.boxes[r];
      bool in = true;
      for (std::size_t a = 0; a < 3; ++a)
        in = in && cell[a] >= b.offset[a] && cell[a] < b.offset[a] + b.extent[a];
      if (in) owner = static_cast<int>(r);
    }
    const std::string where =
        cat(what, " at cell (", cell[0], ", ", cell[1],
            c.setup.dims == 3 ? cat(", ", cell[2]) : std::string(), ") on rank ", owner);
    std::vector<double> density, pressure;
    out.write_failed_fields(clk.step, clk.time, grid, field_data(density, pressure));
    const std::string remedy =
        spec.numerics.collision != "regularized" ? " or use numerics.collision: regularized"
        : spec.numerics.les.model == "none"      ? " or add numerics.les: {model: smagorinsky}"
                                                 : "";
    throw NumericalError(cat("step ", clk.step, ", t = ", clk.time, " s: ", where,
                             " (unstable: lower numerics.lattice_velocity, refine the grid", remedy,
                             "); the fields are in fields/FAILED_", spec.name,
                             "_<step>.h5; checkpoints already written are kept"));
  };

  // Diagnostics and the progress line. Same conventions as the spectral solver (DESIGN §5): volume
  // averages, kinetic_energy = <|u|^2>/2; enstrophy = <S:S> with S the strain rate taken locally from
  // the non-equilibrium stress (equal to <|omega|^2>/2 for periodic incompressible flow, where
  // <|omega|^2> = 2 <S:S>), dissipation = 2 nu enstrophy (molecular), sgs_dissipation = <2 nu_t S:S>
  // (Smagorinsky), minus_dEdt from consecutive rows.
  // Bodies: the force of the fluid on each (momentum exchange, summed exactly over ranks), in N (3D) or
  // N per metre of depth (2D), and with geometry.reference_velocity the coefficients
  // C = 2 F / (rho U^2 A), A = reference_length in 2D, reference_area in 3D: drag along x, lift along y.
  const config::GeometrySpec& geo = spec.geometry;
  const std::size_t n_bodies = c.setup.bodies.size();
  const int dims = c.setup.dims;
  const bool coefficients = n_bodies > 0 && geo.reference_velocity > 0;
  const double force_unit = u.density * std::pow(u.dx, dims + 1) / (u.dt * u.dt);
  const double coefficient_unit = coefficients
                                      ? 2.0 / (u.density * geo.reference_velocity * geo.reference_velocity *
                                               (dims == 2 ? geo.reference_length : geo.reference_area))
                                      : 0.0;
  auto body_forces = [&] {
    std::vector<Real3> f = solver->body_forces();
    for (Real3& v : f)
      for (double& x : v) x = comm.sum(x) * force_unit;  // exact: fixed-point values (lbm/boundary_k.hpp)
    return f;
  };
  std::vector<std::string> columns{"kinetic_energy", "enstrophy",       "dissipation",
                                   "minus_dEdt",     "sgs_dissipation", "max_velocity",
                                   "mach",           "mass_change",     "mlups"};
  for (std::size_t b = 0; b < n_bodies; ++b) {
    const std::string sfx = b == 0 ? "" : cat("_", b);
    for (int d = 0; d < dims; ++d) columns.push_back(cat("force_", "xyz"[d], sfx));
    if (coefficients)
      columns.push_back("drag_coefficient" + sfx), columns.push_back("lift_coefficient" + sfx);
  }
  out.open_diagnostics(columns);
  double last_wall = 0.0, last_e = 0.0, last_t = 0.0;
  long last_step = -1;
  std::vector<double> series_t, series_eps, series_e;  // -dE/dt at the interval midpoints (TGV check)
  // A restart continues from the earlier run's rows: minus_dEdt of the first new row and the validation
  // series cover the whole run.
  const std::size_t ke_at = out.diagnostics_csv().position("kinetic_energy");
  for (const std::vector<double>& r : out.diagnostics_csv().earlier_rows()) {
    const double t = r[1], ke = r[ke_at];
    if (last_step >= 0 && t > last_t)
      series_t.push_back(0.5 * (t + last_t)), series_eps.push_back((last_e - ke) / (t - last_t)),
          series_e.push_back(0.5 * (ke + last_e));
    last_step = static_cast<long>(r[0]), last_e = ke, last_t = t;
  }
  auto diagnostics = [&](const sim::Clock& clk) {
    const lbm::Stats st = health(clk);
    const double ncell = double(cells);
    const double step_s = simulation.step_seconds();
    const double d_wall = step_s - last_wall;
    const double mlups =
        d_wall > 0 && last_step >= 0 ? ncell * double(clk.step - last_step) / d_wall / 1e6 : 0.0;
    const double vmax = u.to_velocity(st.max_speed);
    const double ke = st.kinetic_energy / ncell * std::pow(u.dx / u.dt, 2);
    const double enstrophy = st.strain_sq / ncell / (u.dt * u.dt);
    const double eps = 2.0 * u.nu * enstrophy;
    const double sgs = st.sgs_dissipation / ncell * u.dx * u.dx / (u.dt * u.dt * u.dt);
    const double minus_dedt = last_step >= 0 && clk.time > last_t ? (last_e - ke) / (clk.time - last_t)
                                                                  : std::numeric_limits<double>::quiet_NaN();
    if (last_step >= 0 && clk.time > last_t)
      series_t.push_back(0.5 * (clk.time + last_t)), series_eps.push_back(minus_dedt),
          series_e.push_back(0.5 * (ke + last_e));
    last_wall = step_s, last_step = clk.step, last_e = ke, last_t = clk.time;
    const double mach = lbm::Units::mach(st.max_speed);
    std::vector<double> row{ke, enstrophy, eps, minus_dedt, sgs, vmax, mach, st.mass / ncell, mlups};
    if (n_bodies > 0)
      for (const Real3& f : body_forces()) {
        for (int d = 0; d < dims; ++d) row.push_back(f[static_cast<std::size_t>(d)]);
        if (coefficients) row.push_back(f[0] * coefficient_unit), row.push_back(f[1] * coefficient_unit);
      }
    out.diagnostics(clk.step, clk.time, row);
    std::string eta;
    if (planned > 0 && clk.step > 0)
      eta = " ETA " + RunOutput::duration(step_s / clk.step * (planned - clk.step));
    char b[240];
    std::snprintf(b, sizeof b,
                  "step %8ld  t %.4e s  %8.1f MLUPS %s E %.6e  eps %.6e  max|u| %.3e m/s  Ma %.3f", clk.step,
                  clk.time, mlups, eta.c_str(), ke, eps + sgs, vmax, mach);
    log::info(b);
  };
  simulation.add("diagnostics", spec.output.diagnostics.every, diagnostics, true);
  simulation.add("health", Schedule{spec.run.check_every, 0.0}, [&](const sim::Clock& clk) { health(clk); });

  // The first body's coefficients, sampled 50 times per convective time D/U for the Strouhal number
  // and the extremes of an unsteady run, and written to coefficients.csv as they are taken. A restart
  // reads back the samples of the run it continues (exactly: the file holds round-trip decimals), so
  // the end-of-run statistics cover the whole run, as without the restart.
  CoefficientSeries series;
  std::unique_ptr<io::DiagnosticsCsv> coefficient_csv;
  if (coefficients) {
    coefficient_csv = out.open_csv("coefficients.csv", {"drag_coefficient", "lift_coefficient"});
    const std::size_t cd_at = coefficient_csv->position("drag_coefficient"),
                      cl_at = coefficient_csv->position("lift_coefficient");
    for (const std::vector<double>& r : coefficient_csv->earlier_rows())
      series.t.push_back(r[1]), series.cd.push_back(r[cd_at]), series.cl.push_back(r[cl_at]);
    const long every = std::max(1L, std::lround(geo.reference_length / geo.reference_velocity / u.dt / 50.0));
    simulation.add("coefficients", Schedule{every, 0.0}, [&](const sim::Clock& clk) {
      const Real3 f = body_forces()[0];
      series.t.push_back(clk.time);
      series.cd.push_back(f[0] * coefficient_unit), series.cl.push_back(f[1] * coefficient_unit);
      coefficient_csv->row(clk.step, clk.time, {series.cd.back(), series.cl.back()});
    });
  }

  auto write_fields = [&](const sim::Clock& clk) {
    std::vector<double> density, pressure;
    out.write_fields(clk.step, clk.time, grid, field_data(density, pressure));
  };
  if (spec.output.fields.every.enabled() || spec.output.fields.at_end)
    simulation.add("fields", spec.output.fields.every, write_fields, spec.output.fields.at_end);

  // Checkpoints: on their schedule, and whenever the run stops early.
  auto write_checkpoint = [&](const sim::Clock& clk) {
    const std::vector<unsigned char> state = solver->save_state();
    io::CheckpointMeta m = meta_now;
    m.step = clk.step, m.time = clk.time;
    const std::string path =
        io::write_checkpoint(out.dir(), m, {&c.block, solver->q(), solver->state_bytes(), state.data()},
                             spec.output.checkpoint.keep, comm);
    log::info("checkpoint " + path);
  };

  // Steady state: relative change of the velocity field per convective time L/U, over the steps since
  // the last check (a whole check interval, except for the first check after a restart between two).
  long steady_from = start_step;
  if (spec.run.steady.tolerance > 0) {
    solver->velocity_change();
    const long every = spec.run.steady.check_every;
    const double conv_per_step = u.dt * spec.physics.velocity / c.length_ref;
    simulation.set_steady_check(every, [&, conv_per_step](const sim::Clock& clk) {
      const std::array<double, 2> s = solver->velocity_change();
      const double diff = comm.sum(s[0]), norm = comm.sum(s[1]);
      const double conv_time = double(std::max(1L, clk.step - steady_from)) * conv_per_step;
      steady_from = clk.step;
      const double r = (norm > 0 ? std::sqrt(diff / norm) : 1.0) / conv_time;
      log::info(cat("step ", clk.step, ": residual (relative velocity change per L/U) ", r));
      return r < spec.run.steady.tolerance;
    });
  }

  RunResult r = run_to_end(simulation, spec, out, start_step, !opt.restart.empty(), write_checkpoint,
                           double(cells), true);
  const sim::Clock& clk = simulation.clock();
  if (r.interrupted) return r;
  solver->macroscopic(rho, vel);
  for (double& v : vel) v = u.to_velocity(v);
  vel = parallel::gather_to_root(vel, c.decomposition, c.setup.dims, comm);
  r.velocity = vel;
  if (n_bodies > 0) {
    std::vector<double> p(rho.size());
    for (std::size_t k = 0; k < rho.size(); ++k) p[k] = u.to_pressure(rho[k] - 1.0);
    p = parallel::gather_to_root(p, c.decomposition, 1, comm);
    const std::vector<Real3> forces = body_forces();
    if (comm.root()) r.bodies = report_bodies(spec, c, forces, p, series, out.dir().string());
  }
  if (!comm.root()) return r;  // validation runs on rank 0, which holds the gathered field
  if (spec.validation.reference == "ghia1982") {
    std::vector<double> scaled = vel;
    for (double& v : scaled) v /= spec.physics.velocity;
    const std::string file =
        spec.validation.file.empty() ? default_ghia_file(spec.physics.reynolds) : spec.validation.file;
    r.ghia = compare_ghia(scaled, c.block.global[0], c.block.global[1], spec.physics.reynolds, file);
    log::info(format(*r.ghia));
  } else if (spec.validation.reference == "taylor_green" && c.setup.dims == 2) {
    cases::TaylorGreen tg;
    tg.dims = 2;
    tg.U = spec.initial.amplitude > 0 ? spec.initial.amplitude : spec.physics.velocity;
    tg.L = spec.domain.length[0];
    tg.nu = u.nu;
    r.taylor_green_error = taylor_green_error(vel, c.block.global[0], c.block.global[1], u.dx, tg, clk.time);
    log::info(cat("Taylor-Green vortex: relative L2 error of the velocity against the exact solution at t = ",
                  clk.time, " s: ", r.taylor_green_error));
  } else if (spec.validation.reference == "tgv_re1600") {
    // The LBM's total dissipation (molecular + model + numerical) is -dE/dt, the quantity the DNS table
    // holds; it is compared at the midpoints of the diagnostics intervals.
    r.tgv =
        validate_tgv_re1600(spec.validation.file, series_t, series_eps, series_e, u.nu, "samples of -dE/dt");
  }
  return r;
}

}  // namespace eddy::app
