#include "app/run.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "backend/backend.hpp"
#include "cases/taylor_green/taylor_green.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/config/config.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/xdmf.hpp"
#include "app/lbm_case.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {
namespace fs = std::filesystem;
using log::cat;

namespace {

std::string fmt_duration(double s) {
  char b[32];
  if (s < 120) std::snprintf(b, sizeof b, "%.0f s", s);
  else if (s < 7200) std::snprintf(b, sizeof b, "%.1f min", s / 60);
  else std::snprintf(b, sizeof b, "%.1f h", s / 3600);
  return b;
}

fs::path output_directory(const config::RunSpec& spec, const RunOptions& opt) {
  if (!opt.out_dir.empty()) return opt.out_dir;
  if (!spec.output.dir.empty()) return spec.output.dir;
  return fs::path("out") / spec.name;
}

void make_directories(const fs::path& out, const parallel::Comm& comm) {
  std::string err;
  if (comm.root()) {
    std::error_code ec;
    fs::create_directories(out / "fields", ec);
    if (ec) err = cat(out.string(), ": cannot create the output directory (", ec.message(),
                      "); choose a writable place with --out DIR or output.dir");
  }
  err = comm.broadcast(err);
  if (!err.empty()) throw InputError(err);
}

}  // namespace

RunResult run(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm) {
  if (spec.solver != "lbm")
    throw InputError("solver: '" + spec.solver + "' is not available in this version of eddy (valid: lbm)");

  const LbmCase c = make_lbm_case(spec);
  const fs::path out = output_directory(spec, opt);
  make_directories(out, comm);
  log::set_quiet(opt.quiet);
  log::open_file((out / "run.log").string());

  const backend::DeviceInfo dev = backend::device_info();
  log::info(cat("eddy ", EDDY_VERSION, " | backend ", dev.backend, " | device ", dev.name,
                dev.device_count ? cat(" (", dev.memory_gib, " GiB)") : cat(", ", dev.threads, " threads"),
                " | ", comm.size(), " MPI rank(s) | ", dev.runtime));
  log::info(cat("config ", spec.source_file, " -> ", out.string()));
  log::info("resolved config:\n" + spec.resolved_yaml);

  auto solver = lbm::make_solver(c.setup);
  solver->initialize(initial_condition(spec, c));
  const lbm::Units& u = c.units;
  const index_t cells = c.block.global_cells();
  log::info(cat("LBM ", c.setup.lattice, " ", c.setup.collision, " ", spec.numerics.precision, ", ", cells,
                " cells; dx = ", u.dx, " m, dt = ", u.dt, " s, tau = ", u.tau, ", nu = ", u.nu,
                " m^2/s, lattice velocity ", u.u_lb, " (Mach ", lbm::Units::mach(u.u_lb), "); ",
                solver->bytes_allocated() / 1048576.0, " MiB on the device"));

  sim::Simulation simulation(u.dt, {spec.run.end_time, spec.run.steps, spec.run.max_wall_time});
  simulation.set_step([&] { solver->step(); });
  simulation.set_sync([] { backend::fence(); });
  const long planned = simulation.planned_steps();

  // Diagnostics and the progress line.
  io::DiagnosticsCsv csv((out / "diagnostics.csv").string(),
                         {"kinetic_energy", "max_velocity", "mach", "mass_change", "mlups"}, comm);
  double last_wall = 0.0;
  long last_step = 0;
  auto diagnostics = [&](const sim::Clock& clk) {
    const lbm::Stats st = solver->stats();
    if (st.nonfinite > 0)
      throw NumericalError(cat("step ", clk.step, ", t = ", clk.time, " s: ", st.nonfinite,
                               " cells with NaN/Inf density or velocity (unstable: lower the lattice velocity, "
                               "refine the grid or use trt)"));
    const double step_s = simulation.step_seconds();
    const double d_wall = step_s - last_wall;
    const double mlups = d_wall > 0 ? double(cells) * double(clk.step - last_step) / d_wall / 1e6 : 0.0;
    last_wall = step_s, last_step = clk.step;
    const double vmax = u.to_velocity(st.max_speed);
    const double ke = st.kinetic_energy / double(cells) * std::pow(u.dx / u.dt, 2);
    const double mach = lbm::Units::mach(st.max_speed);
    csv.row(clk.step, clk.time, {ke, vmax, mach, st.mass / double(cells), mlups});
    std::string eta;
    if (planned > 0 && clk.step > 0) eta = " ETA " + fmt_duration(step_s / clk.step * (planned - clk.step));
    char b[200];
    std::snprintf(b, sizeof b, "step %8ld  t %.4e s  %8.1f MLUPS %s max|u| %.3e m/s  Ma %.3f", clk.step, clk.time,
                  mlups, eta.c_str(), vmax, mach);
    log::info(b);
    if (mach > spec.numerics.max_mach * 1.5)
      throw NumericalError(cat("step ", clk.step, ", t = ", clk.time, " s: Mach number ", mach,
                               " exceeds 1.5 x numerics.max_mach = ", spec.numerics.max_mach));
  };
  simulation.add("diagnostics", spec.output.diagnostics.every, diagnostics, true);

  // Fields.
  std::vector<double> rho, vel;
  io::XdmfSeries series((out / "fields" / "fields.xmf").string(), comm);
  auto write_fields = [&](const sim::Clock& clk) {
    solver->macroscopic(rho, vel);
    std::vector<double> density(rho.size()), pressure(rho.size());
    for (std::size_t k = 0; k < rho.size(); ++k) {
      density[k] = u.to_density(rho[k]);
      pressure[k] = u.to_pressure(rho[k] - 1.0);
    }
    for (double& v : vel) v = u.to_velocity(v);
    const fs::path h5 = out / "fields" / io::step_file_name(spec.name, clk.step, ".h5");
    io::FieldFile f = io::FieldFile::create(h5.string(), c.block, comm);
    f.set_attribute("solver", spec.solver);
    f.set_attribute("step", clk.step);
    f.set_attribute("time", clk.time);
    f.set_attribute("dimensions", static_cast<long>(c.setup.dims));
    f.set_attribute("domain_length", spec.domain.length);
    f.set_attribute("resolved_config", spec.resolved_yaml);
    f.set_attribute("eddy_version", EDDY_VERSION);
    f.set_attribute("backend", backend::name());
    f.set_attribute("ranks", static_cast<long>(comm.size()));
    f.write_vector("velocity", vel.data(), c.setup.dims);
    f.set_dataset_attribute("velocity", "units", "m/s");
    f.write_scalar("density", density.data());
    f.set_dataset_attribute("density", "units", "kg/m^3");
    f.write_scalar("pressure", pressure.data());
    f.set_dataset_attribute("pressure", "units", "Pa (deviation from the reference pressure)");
    std::vector<double> xyz[3];
    for (int d = 0; d < 3; ++d)
      for (index_t k = 0; d < c.setup.dims && k < c.block.global[static_cast<std::size_t>(d)]; ++k)
        xyz[d].push_back((k + 0.5) * u.dx);
    f.write_coordinates(xyz[0], xyz[1], xyz[2]);
    io::XdmfGrid grid;
    grid.h5_file = h5.filename().string();
    grid.step = clk.step;
    grid.time = clk.time;
    grid.dims = c.setup.dims;
    grid.cells = c.block.global;
    grid.spacing = {u.dx, u.dx, u.dx};
    grid.fields = f.fields();
    f.commit();
    io::write_xdmf(out / "fields" / io::step_file_name(spec.name, clk.step, ".xmf"), grid, comm);
    series.add(grid);
  };
  if (spec.output.fields.every.enabled() || spec.output.fields.at_end)
    simulation.add("fields", spec.output.fields.every, write_fields, spec.output.fields.at_end);

  // Steady state: relative change of the velocity field per convective time L/U.
  if (spec.run.steady.tolerance > 0) {
    solver->velocity_change();
    const long every = spec.run.steady.check_every;
    const double conv_time = every * u.dt * spec.physics.velocity / c.length_ref;
    simulation.set_steady_check(every, [&, conv_time](const sim::Clock& clk) {
      const double r = solver->velocity_change() / conv_time;
      log::info(cat("step ", clk.step, ": residual (relative velocity change per L/U) ", r));
      return r < spec.run.steady.tolerance;
    });
  }

  simulation.run_actions_now();
  const sim::StopReason why = simulation.run();
  const sim::Clock& clk = simulation.clock();

  RunResult r;
  r.steps = clk.step;
  r.time = clk.time;
  r.stop_reason = sim::to_string(why);
  r.out_dir = out.string();
  r.mlups = simulation.step_seconds() > 0 ? double(cells) * double(clk.step) / simulation.step_seconds() / 1e6 : 0;
  log::info(cat("stopped at step ", clk.step, ", t = ", clk.time, " s: ", r.stop_reason, "; ", r.mlups,
                " MLUPS over the run"));
  for (const sim::Timing& t : simulation.timings())
    log::info(cat("  time in ", t.name, ": ", t.seconds, " s over ", t.calls, " calls"));

  solver->macroscopic(rho, vel);
  for (double& v : vel) v = u.to_velocity(v);
  r.velocity = vel;
  if (spec.validation.reference == "ghia1982") {
    std::vector<double> scaled = vel;
    for (double& v : scaled) v /= spec.physics.velocity;
    const std::string file = spec.validation.file.empty() ? default_ghia_file() : spec.validation.file;
    r.ghia = compare_ghia(scaled, c.block.global[0], c.block.global[1], spec.physics.reynolds, file);
    log::info(format(*r.ghia));
  } else if (spec.validation.reference == "taylor_green" && c.setup.dims == 2) {
    cases::TaylorGreen tg;
    tg.dims = 2;
    tg.U = spec.initial.amplitude > 0 ? spec.initial.amplitude : spec.physics.velocity;
    tg.L = spec.domain.length[0];
    tg.nu = u.nu;
    double e2 = 0, n2 = 0;
    for (index_t y = 0; y < c.block.global[1]; ++y)
      for (index_t x = 0; x < c.block.global[0]; ++x) {
        const Real3 ex = tg.velocity({(x + 0.5) * u.dx, (y + 0.5) * u.dx, 0.0}, clk.time);
        const std::size_t k = static_cast<std::size_t>(y * c.block.global[0] + x) * 2;
        e2 += std::pow(vel[k] - ex[0], 2) + std::pow(vel[k + 1] - ex[1], 2);
        n2 += ex[0] * ex[0] + ex[1] * ex[1];
      }
    r.taylor_green_error = std::sqrt(e2 / n2);
    log::info(cat("Taylor-Green vortex: relative L2 error of the velocity against the exact solution at t = ",
                  clk.time, " s: ", r.taylor_green_error));
  }
  log::open_file("");
  return r;
}

}  // namespace eddy::app
