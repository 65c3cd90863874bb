#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/model.hpp"
#include "app/series_output.hpp"
#include "app/slice_output.hpp"
#include "app/statistics_output.hpp"
#include "app/validation.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "io/hdf5/diagnostics_csv.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// diagnostics.csv and the progress line: what each row derives from the row before it (minus_dEdt, the
/// rate), and the validations' energy series. A restart replays the earlier run's rows first, so both
/// cover the whole run as without the restart.
class Diagnostics {
 public:
  Diagnostics(Model& model, sim::Simulation& simulation, RunOutput& out, RunStart start)
      : model_(model), simulation_(simulation), out_(out), start_(start) {
    const std::vector<std::string> columns = model.columns();
    out.open_diagnostics(columns);
    const io::DiagnosticsCsv& csv = out.diagnostics_csv();
    // Positions in a row of values (after step, time).
    ke_ = csv.position("kinetic_energy") - 2, eps_ = csv.position("dissipation") - 2;
    minus_dedt_ = csv.position("minus_dEdt") - 2;
    rate_ = csv.position(model.rate() == Model::Rate::mlups ? "mlups" : "ms_per_step") - 2;
    series_.what = model.dissipation() == Model::Dissipation::column ? "samples" : "samples of -dE/dt";
    for (const std::vector<double>& r : csv.earlier_rows()) {
      sample(r[1], r[ke_ + 2], r[eps_ + 2]);
      last_step_ = static_cast<long>(r[0]), last_e_ = r[ke_ + 2], last_t_ = r[1];
    }
  }

  /// One row at `clk` (the state is healthy).
  void row(const sim::Clock& clk) {
    DiagnosticRow d = model_.diagnostics(clk);
    const double step_s = simulation_.step_seconds(), wall = step_s - last_wall_;
    const bool before = last_step_ >= 0;
    double rate = 0.0;
    if (model_.rate() == Model::Rate::mlups)
      rate = wall > 0 && before ? model_.points() * double(clk.step - last_step_) / wall / 1e6 : 0.0;
    else
      rate = clk.step > last_step_ && before ? 1e3 * wall / double(clk.step - last_step_) : 0.0;
    d.values[rate_] = rate;
    d.values[minus_dedt_] = before && clk.time > last_t_ ? (last_e_ - d.kinetic_energy) / (clk.time - last_t_)
                                                         : std::numeric_limits<double>::quiet_NaN();
    sample(clk.time, d.kinetic_energy, d.values[eps_]);
    last_wall_ = step_s, last_step_ = clk.step, last_e_ = d.kinetic_energy, last_t_ = clk.time;
    out_.diagnostics(clk.step, clk.time, d.values);
    last_row_ = d.values;

    std::string eta;
    const long planned = simulation_.planned_steps();
    if (planned > 0 && clk.step > start_.step)
      eta =
          " ETA " + RunOutput::duration(step_s / double(clk.step - start_.step) * double(planned - clk.step));
    char rate_text[32], line[256];
    std::snprintf(rate_text, sizeof rate_text,
                  model_.rate() == Model::Rate::mlups ? "%8.1f MLUPS" : "%8.2f ms/step", rate);
    std::snprintf(line, sizeof line, "step %8ld  t %.4e s  %s %s E %.6e  eps %.6e  max|u| %.3e m/s  %s %.3f",
                  clk.step, clk.time, rate_text, eta.c_str(), d.kinetic_energy, d.dissipation, d.max_velocity,
                  d.stability, d.stability_value);
    log::info(line);
  }

  const EnergySeries& series() const { return series_; }
  const std::vector<double>& last_row() const { return last_row_; }

 private:
  void sample(double t, double ke, double eps) {
    if (model_.dissipation() == Model::Dissipation::column) {
      series_.t.push_back(t), series_.eps.push_back(eps), series_.e.push_back(ke);
    } else if (last_step_ >= 0 && t > last_t_) {
      series_.t.push_back(0.5 * (t + last_t_)), series_.eps.push_back((last_e_ - ke) / (t - last_t_)),
          series_.e.push_back(0.5 * (ke + last_e_));
    }
  }

  Model& model_;
  sim::Simulation& simulation_;
  RunOutput& out_;
  RunStart start_;
  std::size_t ke_ = 0, eps_ = 0, minus_dedt_ = 0, rate_ = 0;
  double last_wall_ = 0.0, last_e_ = 0.0, last_t_ = 0.0;
  long last_step_ = -1;
  EnergySeries series_;
  std::vector<double> last_row_;
};

/// A new lineage: rank 0's host, pid and clock, the same on every rank.
std::string new_lineage(const parallel::Comm& comm) {
  std::string id;
  if (comm.root()) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    id = cat(parallel::Comm::hostname(), "-", ::getpid(), "-",
             std::chrono::duration_cast<std::chrono::microseconds>(now).count());
  }
  return comm.broadcast(id);
}

}  // namespace

RunResult run_model(Model& model, sim::Simulation& simulation, RunOutput& out, const config::RunSpec& spec,
                    RunStart start) {
  const parallel::Comm& comm = out.comm();
  // Health: a failed check writes the fields as FAILED_<name>_<step>.h5 and stops the run (exit 3).
  auto health = [&](const sim::Clock& clk) {
    const std::string what = model.health(clk);
    if (what.empty()) return;
    out.write_failed_fields(clk.step, clk.time, model.grid(), model.fields());
    throw NumericalError(cat("step ", clk.step, ", t = ", clk.time, " s: ", what,
                             " (unstable: ", model.remedy(), "); the fields are in fields/FAILED_", spec.name,
                             "_<step>.h5; checkpoints already written are kept"));
  };
  Diagnostics diagnostics(model, simulation, out, start);
  simulation.add(
      "diagnostics", spec.output.diagnostics.every,
      [&](const sim::Clock& clk) {
        health(clk);
        diagnostics.row(clk);
      },
      true);
  simulation.add("health", Schedule{spec.run.check_every, 0.0}, health);

  if (spec.output.fields.every.enabled() || spec.output.fields.at_end)
    simulation.add(
        "fields", spec.output.fields.every,
        [&](const sim::Clock& clk) {
          out.write_fields(clk.step, clk.time, model.grid(), model.fields(), model.globals());
        },
        spec.output.fields.at_end);

  // probes.h5 and spectra.h5 (output.probes, output.spectra) and the running statistics, registered
  // before the checkpoints: a checkpoint at a step finds that step's rows written and its sample taken.
  const SeriesOutputs series(model, simulation, out, spec);
  StatisticsOutput statistics(model, simulation, out, spec, start);
  const SliceOutputs slices(model, simulation, out, spec);

  // Checkpoints: on their schedule, and whenever the run stops early; each one after a health check, so
  // that a checkpoint never holds a diverged state and rotation never replaces a healthy one by it. The
  // lineage is the restarted checkpoint's, or a new one for a fresh start (rotation removes only its own).
  io::CheckpointMeta meta = model.checkpoint_meta();
  meta.lineage = start.lineage.empty() ? new_lineage(comm) : start.lineage;
  auto write_checkpoint = [&](const sim::Clock& clk) {
    health(clk);
    const CheckpointData data = model.checkpoint();
    io::CheckpointMeta m = meta;
    m.step = clk.step, m.time = clk.time, m.dt = clk.dt;
    io::WriteStats stats;
    const std::string path = io::write_checkpoint(
        out.dir(), m,
        {&data.block, data.values, data.bytes, data.state.data(), statistics.checkpoint_arrays(clk)},
        spec.output.checkpoint.keep, comm, out.writer(), &stats);
    out.count_checkpoint(stats);
    log::info("checkpoint " + path);
  };

  // Set-up: from the start of main (after MPI_Init) to the first step: the case, the solver, the ghost
  // patterns and plans, the restart. Each rank's, so that what grows with the rank count shows.
  log_spread(comm, "set-up time (start to the first step)", log::seconds_since_start(), 1.0, "s");
  log_spread(comm, "set-up CPU time", cpu_seconds() - log::cpu_seconds_at_start(), 1.0, "s");
  RunResult r = run_to_end(simulation, spec, out, start.step, start.restarted, write_checkpoint,
                           model.points(), model.rate() == Model::Rate::mlups);
  r.diagnostics = diagnostics.last_row();
  if (r.interrupted) return r;
  // The end of the run, where the data lives: every rank keeps its own box.
  r.block = model.grid().block;
  model.velocity(r.velocity);
  r.validations = finish_validation({spec, comm, r.block, model.grid().spacing, simulation.clock().time,
                                     model.viscosity(), r.velocity, diagnostics.series()},
                                    out.dir().string());
  return r;
}

}  // namespace eddy::app
