// `eddy run` for solver: lbm.
#include <cmath>
#include <cstdio>

#include "app/lbm_case.hpp"
#include "app/output.hpp"
#include "app/run.hpp"
#include "backend/backend.hpp"
#include "cases/taylor_green/taylor_green.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {
using log::cat;

RunResult run_lbm(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm) {
  const LbmCase c = make_lbm_case(spec, comm);
  RunOutput out(spec, opt, comm);

  auto solver = lbm::make_solver(c.setup);
  solver->initialize(initial_condition(spec, c));
  const lbm::Units& u = c.units;
  const index_t cells = c.block.global_cells();
  log::info(cat("LBM ", c.setup.lattice, " ", c.setup.collision, " ", spec.numerics.precision, ", ", cells,
                " cells; dx = ", u.dx, " m, dt = ", u.dt, " s, tau = ", u.tau, ", nu = ", u.nu,
                " m^2/s, lattice velocity ", u.u_lb, " (Mach ", lbm::Units::mach(u.u_lb), "); ",
                solver->bytes_allocated() / 1048576.0, " MiB on the device (rank 0)"));
  if (comm.size() > 1)
    log::info(cat("decomposition: ", c.decomposition.describe(), "; halo exchange ", c.exchanger->name()));

  sim::Simulation simulation(u.dt, {spec.run.end_time, spec.run.steps, spec.run.max_wall_time});
  simulation.set_step([&] { solver->step(); });
  simulation.set_sync([] { backend::fence(); });
  const long planned = simulation.planned_steps();

  // Diagnostics and the progress line.
  out.open_diagnostics({"kinetic_energy", "max_velocity", "mach", "mass_change", "mlups"});
  double last_wall = 0.0;
  long last_step = 0;
  auto diagnostics = [&](const sim::Clock& clk) {
    lbm::Stats st = solver->stats();
    st.mass = comm.sum(st.mass), st.kinetic_energy = comm.sum(st.kinetic_energy);
    st.max_speed = comm.max(st.max_speed), st.nonfinite = comm.sum(st.nonfinite);
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
    out.diagnostics(clk.step, clk.time, {ke, vmax, mach, st.mass / double(cells), mlups});
    std::string eta;
    if (planned > 0 && clk.step > 0) eta = " ETA " + RunOutput::duration(step_s / clk.step * (planned - clk.step));
    char b[200];
    std::snprintf(b, sizeof b, "step %8ld  t %.4e s  %8.1f MLUPS %s max|u| %.3e m/s  Ma %.3f", clk.step, clk.time,
                  mlups, eta.c_str(), vmax, mach);
    log::info(b);
    if (mach > spec.numerics.max_mach * 1.5)
      throw NumericalError(cat("step ", clk.step, ", t = ", clk.time, " s: Mach number ", mach,
                               " exceeds 1.5 x numerics.max_mach = ", spec.numerics.max_mach));
  };
  simulation.add("diagnostics", spec.output.diagnostics.every, diagnostics, true);

  // Fields, in physical units.
  std::vector<double> rho, vel;
  auto write_fields = [&](const sim::Clock& clk) {
    solver->macroscopic(rho, vel);
    std::vector<double> density(rho.size()), pressure(rho.size());
    for (std::size_t k = 0; k < rho.size(); ++k) {
      density[k] = u.to_density(rho[k]);
      pressure[k] = u.to_pressure(rho[k] - 1.0);
    }
    for (double& v : vel) v = u.to_velocity(v);
    out.write_fields(clk.step, clk.time, {c.block, {u.dx, u.dx, u.dx}},
                     {{"velocity", vel.data(), c.setup.dims, "m/s"},
                      {"density", density.data(), 0, "kg/m^3"},
                      {"pressure", pressure.data(), 0, "Pa (deviation from the reference pressure)"}});
  };
  if (spec.output.fields.every.enabled() || spec.output.fields.at_end)
    simulation.add("fields", spec.output.fields.every, write_fields, spec.output.fields.at_end);

  // Steady state: relative change of the velocity field per convective time L/U.
  if (spec.run.steady.tolerance > 0) {
    solver->velocity_change();
    const long every = spec.run.steady.check_every;
    const double conv_time = every * u.dt * spec.physics.velocity / c.length_ref;
    simulation.set_steady_check(every, [&, conv_time](const sim::Clock& clk) {
      const std::array<double, 2> s = solver->velocity_change();
      const double diff = comm.sum(s[0]), norm = comm.sum(s[1]);
      const double r = (norm > 0 ? std::sqrt(diff / norm) : 1.0) / conv_time;
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
  r.out_dir = out.dir().string();
  r.mlups = simulation.step_seconds() > 0 ? double(cells) * double(clk.step) / simulation.step_seconds() / 1e6 : 0;
  log::info(cat("stopped at step ", clk.step, ", t = ", clk.time, " s: ", r.stop_reason, "; ", r.mlups,
                " MLUPS over the run"));
  for (const sim::Timing& t : simulation.timings())
    log::info(cat("  time in ", t.name, ": ", t.seconds, " s over ", t.calls, " calls"));

  solver->macroscopic(rho, vel);
  for (double& v : vel) v = u.to_velocity(v);
  vel = parallel::gather_to_root(vel, c.decomposition, c.setup.dims, comm);
  r.velocity = vel;
  if (!comm.root()) return r;  // validation runs on rank 0, which holds the gathered field
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
    r.taylor_green_error = taylor_green_error(vel, c.block.global[0], c.block.global[1], u.dx, tg, clk.time);
    log::info(cat("Taylor-Green vortex: relative L2 error of the velocity against the exact solution at t = ",
                  clk.time, " s: ", r.taylor_green_error));
  }
  return r;
}

}  // namespace eddy::app
