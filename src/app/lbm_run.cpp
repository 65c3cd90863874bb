// `eddy run` for solver: lbm.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "app/geometry_case.hpp"
#include "app/lbm_case.hpp"
#include "app/model.hpp"
#include "app/output.hpp"
#include "app/run.hpp"
#include "app/series_output.hpp"
#include "app/stop.hpp"
#include "app/validation.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// A checkpoint fits the config when solver, lattice and storage, precision, grid and time step agree.
/// The LBM time step follows from the config (lattice velocity, physics, grid): it must be the one the
/// checkpoint ran with.
void check_restart_time_step(const io::CheckpointMeta& ckpt, double dt, const std::string& path) {
  if (!(std::fabs(ckpt.dt - dt) <= 1e-9 * dt))
    throw InputError(
        cat("--restart ", path, ": the checkpoint's time step (from numerics.lattice_velocity, physics, ",
            "domain) is ", ckpt.dt, " s but the config's is ", dt,
            " s; restart with the config that wrote it (its resolved_config attribute) or start afresh"));
}

/// The end-of-run report of the bodies: log lines and <out>/bodies.txt (rank 0).
/// Collective: the pressure next to a round body comes from the ranks that own those cells; every rank
/// returns the same reports, and rank 0 writes the file.
std::vector<BodyReport> report_bodies(const config::RunSpec& spec, const LbmCase& c,
                                      const std::vector<Real3>& forces, const std::vector<double>& pressure,
                                      const CoefficientSeries& series, const std::string& dir,
                                      const parallel::Comm& comm) {
  const config::GeometrySpec& geo = spec.geometry;
  const int dims = c.setup.dims;
  const bool coefficients = geo.reference_velocity > 0;
  const double area = dims == 2 ? geo.reference_length : geo.reference_area;
  std::vector<BodyReport> reports;
  std::ofstream file;
  if (comm.root()) file.open(dir + "/bodies.txt");
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
      rep.pressure_difference =
          extrapolate_to_wall(pressure, c.block, c.units.dx, front, {-1.0, 0.0, 0.0}, comm) -
          extrapolate_to_wall(pressure, c.block, c.units.dx, back, {1.0, 0.0, 0.0}, comm);
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

/// The LBM solver as the run sees it, in physical units. Bodies: the force of the fluid on each
/// (momentum exchange, summed exactly over ranks), in N (3D) or N per metre of depth (2D), and with
/// geometry.reference_velocity the coefficients C = 2 F / (rho U^2 A), A = reference_length in 2D,
/// reference_area in 3D: drag along x, lift along y.
class LbmModel final : public Model {
 public:
  LbmModel(const config::RunSpec& spec, const LbmCase& c, lbm::Solver& solver, const parallel::Comm& comm)
      : spec_(spec), c_(c), u_(c.units), solver_(solver), comm_(comm), grid_{c.block, {u_.dx, u_.dx, u_.dx}} {
    for (std::size_t a = 0; a < 3; ++a) grid_.periodic[a] = c.setup.faces[2 * a] == lbm::FaceKind::periodic;
    const config::GeometrySpec& geo = spec.geometry;
    const int dims = c.setup.dims;
    force_unit_ = u_.density * std::pow(u_.dx, dims + 1) / (u_.dt * u_.dt);
    if (!c.setup.bodies.empty() && geo.reference_velocity > 0)
      coefficient_unit_ = 2.0 / (u_.density * geo.reference_velocity * geo.reference_velocity *
                                 (dims == 2 ? geo.reference_length : geo.reference_area));
    if (spec.output.spectra.every.enabled()) spectrum_ = std::make_unique<LbmSpectrum>(spec, c, comm);
  }

  void step() override { solver_.step(); }
  const FieldGrid& grid() const override { return grid_; }

  /// Velocity, density and pressure, and the vorticity and the Q-criterion (3D) where
  /// output.fields.variables names them: only then are they computed (lbm/derived_k.hpp; collective, the
  /// same list on every rank).
  std::vector<FieldData> fields() override {
    solver_.macroscopic(rho_, vel_);
    density_ = physical("density", rho_, vel_), pressure_ = physical("pressure", rho_, vel_);
    vel_ = physical("velocity", rho_, vel_);
    std::vector<FieldData> f{{"velocity", vel_.data(), c_.setup.dims, "m/s"},
                             {"density", density_.data(), 0, "kg/m^3"},
                             {"pressure", pressure_.data(), 0, "Pa (deviation from the reference pressure)"}};
    const std::vector<std::string>& wanted = spec_.output.fields.variables;
    for (const ProbeField& d : derived_fields())
      if (std::find(wanted.begin(), wanted.end(), d.name) != wanted.end()) {
        std::vector<double>& v = d.name == "vorticity" ? vort_ : q_;
        v = derived(d.name, nullptr);
        f.push_back({d.name, v.data(), d.components == 1 ? 0 : d.components, d.units});
      }
    return f;
  }

  /// output.spectra: the energy spectrum of the velocity (spectral/spectrum.hpp: every mode of the
  /// periodic box, the spectral solver's shells), from the velocity sums of one sample (add_moments: the
  /// velocity fields() gives, bitwise) on the device; only the shells come to the host.
  std::vector<GlobalData> globals() override {
    if (!spectrum_) return {};
    spectral::Spectrum sp = spectrum_->compute(solver_);
    return {{"wavenumber", std::move(sp.k), "1/m"}, {"energy_spectrum", std::move(sp.energy), "m^3/s^2"}};
  }

  std::vector<ProbeField> probe_fields() const override {
    std::vector<ProbeField> f{{"velocity", c_.setup.dims, "m/s"},
                              {"density", 1, "kg/m^3"},
                              {"pressure", 1, "Pa (deviation from the reference pressure)"}};
    for (const ProbeField& d : derived_fields()) f.push_back(d);
    return f;
  }
  /// The moments of just those cells, on the device (lbm::Solver::macroscopic_at); a derived field from
  /// the whole block's velocity halo, computed on the device for those cells (Solver::vorticity_at).
  /// Collective: every rank asks for the same names.
  std::vector<std::vector<double>> values_at(const std::vector<std::string>& names,
                                             const std::vector<index_t>& cells) override {
    std::vector<double> rho, vel;
    solver_.macroscopic_at(cells, rho, vel);
    std::vector<std::vector<double>> out;
    for (const std::string& name : names)
      out.push_back(name == "vorticity" || name == "q_criterion" ? derived(name, &cells)
                                                                 : physical(name, rho, vel));
    return out;
  }

  /// Sums in lattice units: rho - 1 and the velocity.
  MomentUnits moment_units() const override {
    return {u_.dx / u_.dt, u_.density, u_.density * (u_.dx / u_.dt) * (u_.dx / u_.dt) / 3.0};
  }
  void add_moments(const field::MomentView& sums) override { solver_.add_moments(sums); }
  void add_profile(const field::ProfileView& sums, bool with_next_step) override {
    solver_.add_profile(sums, with_next_step);
  }

  /// NaN/Inf anywhere, or the Mach number past 1.5 x numerics.max_mach, naming the cell (the first
  /// non-finite one, else the fastest; the lowest global index on ties) and its rank.
  std::string health(const sim::Clock&) override {
    lbm::Stats& st = stats_;
    st = solver_.stats();
    st.mass = comm_.sum(st.mass), st.kinetic_energy = comm_.sum(st.kinetic_energy);
    st.max_speed = comm_.max(st.max_speed), st.nonfinite = comm_.sum(st.nonfinite);
    const double mach = lbm::Units::mach(st.max_speed);
    if (st.nonfinite == 0 && mach <= 1.5 * spec_.numerics.max_mach) return "";
    index_t cell_index = 0;
    std::string what;
    if (st.nonfinite > 0) {
      const index_t local = solver_.first_nonfinite();
      cell_index = -comm_.max(-(local < 0 ? std::numeric_limits<long>::max() : static_cast<long>(local)));
      what = cat(st.nonfinite, " cells with NaN/Inf density or velocity; the first");
    } else {
      const auto [speed, local] = solver_.fastest_cell();
      const bool mine = speed == st.max_speed;
      cell_index = -comm_.max(-(mine ? static_cast<long>(local) : std::numeric_limits<long>::max()));
      what = cat("the Mach number reached ", mach,
                 ", above 1.5 x numerics.max_mach = ", spec_.numerics.max_mach, ",");
    }
    const index_t nx = c_.block.global[0], ny = c_.block.global[1];
    const Int3 cell{cell_index % nx, (cell_index / nx) % ny, cell_index / (nx * ny)};
    int owner = 0;
    for (std::size_t r = 0; r < c_.decomposition.boxes.size(); ++r) {
      const parallel::Box& b = c_.decomposition.boxes[r];
      bool in = true;
      for (std::size_t a = 0; a < 3; ++a)
        in = in && cell[a] >= b.offset[a] && cell[a] < b.offset[a] + b.extent[a];
      if (in) owner = static_cast<int>(r);
    }
    return cat(what, " at cell (", cell[0], ", ", cell[1],
               c_.setup.dims == 3 ? cat(", ", cell[2]) : std::string(), ") on rank ", owner);
  }

  std::string remedy() const override {
    return cat("lower numerics.lattice_velocity, refine the grid",
               spec_.numerics.collision != "regularized" ? " or use numerics.collision: regularized"
               : spec_.numerics.les.model == "none"      ? " or add numerics.les: {model: smagorinsky}"
                                                         : "");
  }

  std::vector<std::string> columns() const override {
    std::vector<std::string> columns{"kinetic_energy", "enstrophy",       "dissipation",
                                     "minus_dEdt",     "sgs_dissipation", "max_velocity",
                                     "mach",           "mass_change",     "mlups"};
    for (std::size_t b = 0; b < c_.setup.bodies.size(); ++b) {
      const std::string sfx = b == 0 ? "" : cat("_", b);
      for (int d = 0; d < c_.setup.dims; ++d) columns.push_back(cat("force_", "xyz"[d], sfx));
      if (coefficient_unit_ > 0)
        columns.push_back("drag_coefficient" + sfx), columns.push_back("lift_coefficient" + sfx);
    }
    return columns;
  }

  /// The conventions of the spectral solver (src/README.md, Diagnostics conventions): volume averages,
  /// kinetic_energy = <|u|^2>/2; enstrophy = <S:S> with S the strain rate taken locally from the
  /// non-equilibrium stress (equal to <|omega|^2>/2 for periodic incompressible flow, where
  /// <|omega|^2> = 2 <S:S>), dissipation = 2 nu enstrophy (molecular), sgs_dissipation = <2 nu_t S:S>
  /// (Smagorinsky).
  DiagnosticRow diagnostics(const sim::Clock&) override {
    const lbm::Stats& st = stats_;
    const double ncell = points();
    const double vmax = u_.to_velocity(st.max_speed);
    const double ke = st.kinetic_energy / ncell * std::pow(u_.dx / u_.dt, 2);
    const double enstrophy = st.strain_sq / ncell / (u_.dt * u_.dt);
    const double eps = 2.0 * u_.nu * enstrophy;
    const double sgs = st.sgs_dissipation / ncell * u_.dx * u_.dx / (u_.dt * u_.dt * u_.dt);
    const double mach = lbm::Units::mach(st.max_speed);
    DiagnosticRow row;
    row.values = {ke, enstrophy, eps, 0.0, sgs, vmax, mach, st.mass / ncell, 0.0};
    for (const Real3& f : body_forces()) {
      for (int d = 0; d < c_.setup.dims; ++d) row.values.push_back(f[static_cast<std::size_t>(d)]);
      if (coefficient_unit_ > 0)
        row.values.push_back(f[0] * coefficient_unit_), row.values.push_back(f[1] * coefficient_unit_);
    }
    row.kinetic_energy = ke, row.dissipation = eps + sgs, row.max_velocity = vmax;
    row.stability = "Ma", row.stability_value = mach;
    return row;
  }
  Rate rate() const override { return Rate::mlups; }
  Dissipation dissipation() const override { return Dissipation::minus_dEdt; }
  double points() const override { return double(c_.block.global_cells()); }

  CheckpointData checkpoint() override {
    return {c_.block, solver_.q(), solver_.state_bytes(), solver_.save_state()};
  }
  io::CheckpointMeta checkpoint_meta() const override {
    return app::checkpoint_meta(spec_, "lbm", checkpoint_scheme(c_.setup));
  }
  double viscosity() const override { return u_.nu; }
  void velocity(std::vector<double>& out) override {
    solver_.macroscopic(rho_, out);
    for (double& v : out) v = u_.to_velocity(v);
  }

  /// The force on each body [N or N/m]; exact sums over ranks (fixed-point values: lbm/boundary_k.hpp).
  std::vector<Real3> body_forces() {
    std::vector<Real3> f = solver_.body_forces();
    for (Real3& v : f)
      for (double& x : v) x = comm_.sum(x) * force_unit_;
    return f;
  }
  double coefficient_unit() const { return coefficient_unit_; }
  /// The pressure deviation [Pa] on this rank's box.
  std::vector<double> pressure() {
    solver_.macroscopic(rho_, vel_);
    return physical("pressure", rho_, vel_);
  }

 private:
  /// The fields derived from the velocity gradient: the vorticity (3 components in 3D, its z component in
  /// 2D) and in 3D the Q-criterion, with the spectral solver's names and units.
  std::vector<ProbeField> derived_fields() const {
    std::vector<ProbeField> f{{"vorticity", c_.setup.dims == 3 ? 3 : 1, "1/s"}};
    if (c_.setup.dims == 3) f.push_back({"q_criterion", 1, "1/s^2"});
    return f;
  }
  /// Derived field `name` of the block or of `cells`, in physical units: the lattice values (per step)
  /// over dt, the Q-criterion over dt^2.
  std::vector<double> derived(const std::string& name, const std::vector<index_t>* cells) {
    std::vector<double> v;
    const bool q = name == "q_criterion";
    if (q)
      cells ? solver_.q_criterion_at(*cells, v) : solver_.q_criterion(v);
    else
      cells ? solver_.vorticity_at(*cells, v) : solver_.vorticity(v);
    const double scale = q ? 1.0 / (u_.dt * u_.dt) : 1.0 / u_.dt;
    for (double& x : v) x *= scale;
    return v;
  }

  /// Field `name` in physical units from the lattice density `rho` and velocity `vel` of some cells.
  std::vector<double> physical(const std::string& name, const std::vector<double>& rho,
                               const std::vector<double>& vel) const {
    std::vector<double> out;
    if (name == "velocity")
      for (double v : vel) out.push_back(u_.to_velocity(v));
    else if (name == "density")
      for (double r : rho) out.push_back(u_.to_density(r));
    else if (name == "pressure")
      for (double r : rho) out.push_back(u_.to_pressure(r - 1.0));
    else
      throw Error("lbm: no field '" + name + "'");
    return out;
  }

  const config::RunSpec& spec_;
  const LbmCase& c_;
  const lbm::Units& u_;
  lbm::Solver& solver_;
  const parallel::Comm& comm_;
  FieldGrid grid_;
  double force_unit_ = 0.0, coefficient_unit_ = 0.0;
  lbm::Stats stats_;
  std::vector<double> rho_, vel_, density_, pressure_, vort_, q_;
  std::unique_ptr<LbmSpectrum> spectrum_;
};

const std::vector<std::string> coefficient_columns{"drag_coefficient", "lift_coefficient"};

/// The first body's coefficients, sampled 50 times per convective time D/U for the Strouhal number and
/// the extremes of an unsteady run, and written to coefficients.csv as they are taken. A restart reads
/// back the samples of the run it continues (exactly: the file holds round-trip decimals), so the
/// end-of-run statistics cover the whole run, as without the restart.
std::unique_ptr<io::DiagnosticsCsv> add_coefficients(const config::RunSpec& spec, LbmModel& model,
                                                     const RunOutput& out, sim::Simulation& simulation,
                                                     CoefficientSeries& series) {
  if (!(model.coefficient_unit() > 0)) return nullptr;
  auto csv = out.open_csv("coefficients.csv", coefficient_columns);
  const std::size_t cd_at = csv->position("drag_coefficient"), cl_at = csv->position("lift_coefficient");
  for (const std::vector<double>& r : csv->earlier_rows())
    series.t.push_back(r[1]), series.cd.push_back(r[cd_at]), series.cl.push_back(r[cl_at]);
  const config::GeometrySpec& geo = spec.geometry;
  const double dt = simulation.clock().dt;
  const long every = std::max(1L, std::lround(geo.reference_length / geo.reference_velocity / dt / 50.0));
  simulation.add("coefficients", Schedule{every, 0.0},
                 [&model, &series, file = csv.get()](const sim::Clock& clk) {
                   const Real3 f = model.body_forces()[0];
                   series.t.push_back(clk.time);
                   series.cd.push_back(f[0] * model.coefficient_unit()),
                       series.cl.push_back(f[1] * model.coefficient_unit());
                   file->row(clk.step, clk.time, {series.cd.back(), series.cl.back()});
                 });
  return csv;
}

/// Steady state: the relative change of the velocity field per convective time L/U, over the steps since
/// the last check (a whole check interval, except for the first check after a restart between two).
void add_steady_check(const config::RunSpec& spec, const LbmCase& c, lbm::Solver& solver,
                      const parallel::Comm& comm, sim::Simulation& simulation, long start_step) {
  solver.velocity_change();
  const double conv_per_step = c.units.dt * spec.physics.velocity / c.length_ref;
  const double tolerance = spec.run.steady.tolerance;
  simulation.set_steady_check(
      spec.run.steady.check_every,
      [&solver, &comm, conv_per_step, tolerance, from = start_step](const sim::Clock& clk) mutable {
        const std::array<double, 2> s = solver.velocity_change();
        const double diff = comm.sum(s[0]), norm = comm.sum(s[1]);
        const double conv_time = double(std::max(1L, clk.step - from)) * conv_per_step;
        from = clk.step;
        const double r = (norm > 0 ? std::sqrt(diff / norm) : 1.0) / conv_time;
        log::info(cat("step ", clk.step, ": residual (relative velocity change per L/U) ", r));
        return r < tolerance;
      });
}

}  // namespace

RunResult run_lbm(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm) {
  const LbmCase c = make_lbm_case(spec, comm);
  const lbm::Units& u = c.units;
  auto solver = lbm::make_solver(c.setup);
  // A restart is checked before anything is written.
  const Restart restart = find_restart(spec, opt, checkpoint_meta(spec, "lbm", checkpoint_scheme(c.setup)),
                                       "lattice and storage (numerics.lattice, numerics.storage)",
                                       {c.block, solver->q(), solver->state_bytes()}, comm);
  if (!restart.path.empty()) check_restart_time_step(restart.meta, u.dt, restart.path);
  // The solver and its state come before the output directory: a checkpoint whose state does not fit is
  // refused (exit 2) with nothing written.
  const RunStart start{restart.meta.step, !restart.path.empty(), restart.meta.lineage, restart.path};
  if (start.restarted)
    solver->load_state(io::read_checkpoint_state(restart.path, c.block, solver->q(), solver->state_bytes()),
                       start.step);
  else
    initialize(*solver, spec, c);
  LbmModel model(spec, c, *solver, comm);
  if (start.restarted) {
    check_resume(spec, opt, "diagnostics.csv", model.columns(), comm);
    if (model.coefficient_unit() > 0) check_resume(spec, opt, "coefficients.csv", coefficient_columns, comm);
    check_resume_series(model, spec, opt, comm);
  }
  RunOutput out(spec, opt, comm);
  if (start.restarted) {
    out.resume_at(start.step);
    log::info(
        cat("restarted from ", restart.path, " at step ", start.step, ", t = ", restart.meta.time, " s"));
  }
  log::info(cat("LBM ", lbm::lattice_names(c.setup.lattice), " ", lbm::collision_names(c.setup.collision),
                " ", spec.numerics.precision, c.setup.storage == lbm::Storage::moments ? " moments" : "",
                ", ", c.block.global_cells(), " cells; dx = ", u.dx, " m, dt = ", u.dt, " s, tau = ", u.tau,
                ", nu = ", u.nu, " m^2/s, lattice velocity ", u.u_lb, " (Mach ", lbm::Units::mach(u.u_lb),
                "); ", solver->bytes_allocated() / 1048576.0, " MiB on the device (rank 0)"));
  if (!c.setup.bodies.empty() || solver->boundary_links() > 0)
    log::info(cat(c.setup.bodies.size(), " bodies; ", comm.sum(double(solver->boundary_links())),
                  " boundary links (bodies and open faces); walls: ", spec.geometry.wall));
  if (comm.size() > 1)
    log::info(cat("decomposition: ", c.decomposition.describe(), "; halo exchange ", c.exchanger->name()));

  sim::Simulation simulation(u.dt, {spec.run.end_time, spec.run.steps});
  simulation.set_step_count(start.step);
  simulation.set_step([&] { model.step(); });
  simulation.set_sync([] { backend::fence(); });
  simulation.set_stop_check(spec.run.stop_check_every, make_stop_check(spec, comm));
  CoefficientSeries series;
  const auto coefficients = add_coefficients(spec, model, out, simulation, series);
  if (spec.run.steady.tolerance > 0) add_steady_check(spec, c, *solver, comm, simulation, start.step);

  RunResult r = run_model(model, simulation, out, spec, start);
  if (!r.interrupted && !c.setup.bodies.empty())
    r.bodies =
        report_bodies(spec, c, model.body_forces(), model.pressure(), series, out.dir().string(), comm);
  return r;
}

}  // namespace eddy::app
