#pragma once
/// A solver as a run sees it: the adapter each solver driver implements (lbm_run.cpp, spectral_run.cpp),
/// and run_model(), which registers the standard outputs on the simulation once for every solver —
/// diagnostics.csv with the progress line, health checks, field files, checkpoints — runs it, and ends
/// with the configured validation where the data lives. A driver is then its set-up code.
#include <string>
#include <vector>

#include "app/output.hpp"
#include "app/run.hpp"
#include "core/error.hpp"
#include "field/moments.hpp"
#include "field/profile.hpp"
#include "io/config/run_spec.hpp"
#include "io/hdf5/block.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {

/// A diagnostics row as the solver measures it. The run fills the columns that follow from the rows
/// before it: "minus_dEdt" and the rate ("mlups" or "ms_per_step").
struct DiagnosticRow {
  std::vector<double> values;    ///< one per column of Model::columns()
  double kinetic_energy = 0.0;   ///< [m^2/s^2]
  double dissipation = 0.0;      ///< what the progress line shows as eps [m^2/s^3]
  double max_velocity = 0.0;     ///< [m/s]
  const char* stability = "";    ///< the progress line's last item: its name ("Ma", "CFL") ...
  double stability_value = 0.0;  ///< ... and value
};

/// Everything an exact restart needs, with its layout in the checkpoint file.
struct CheckpointData {
  io::Block block;  ///< this rank's part of the global state array
  int values = 1;   ///< values per element of the block
  int bytes = 8;    ///< bytes per value
  std::vector<unsigned char> state;
};

/// A field the probes can sample (output.probes.fields): its name (as in the field files), values per
/// cell and units.
struct ProbeField {
  std::string name;
  int components = 1;
  std::string units;
};

/// How a model's running sums (field/moments.hpp) become physical means: velocity = `velocity` x the
/// mean of the velocity sums, <u_i u_j> = velocity^2 x theirs, density = `density` x (1 + mean drho),
/// pressure = `pressure` x mean drho.
struct MomentUnits {
  double velocity = 1.0;
  double density = 0.0;
  double pressure = 0.0;
};

class Model {
 public:
  /// The throughput column and figure: million cell updates per second, or milliseconds per step.
  enum class Rate { mlups, ms_per_step };
  /// The validations' energy series: the dissipation column at each row (a solver that computes the
  /// whole dissipation), or -dE/dt between rows at their midpoints (the LBM, whose total dissipation
  /// includes the model's and the scheme's).
  enum class Dissipation { column, minus_dEdt };

  virtual ~Model() = default;
  virtual void step() = 0;

  /// This rank's box of the field files and the cell size.
  virtual const FieldGrid& grid() const = 0;
  /// The fields in physical units on this rank's box (valid until the next call).
  virtual std::vector<FieldData> fields() = 0;
  /// Small arrays written whole beside the fields (e.g. the energy spectrum), the same on every rank.
  virtual std::vector<GlobalData> globals() { return {}; }

  /// The fields values_at() gives.
  virtual std::vector<ProbeField> probe_fields() const = 0;
  /// The fields `names` (of probe_fields()) at `cells` of this rank's box (local indices, x fastest over
  /// grid().block's extent): for each name, cells.size() x its components values, the numbers fields()
  /// gives there. Only those cells come from the device. Collective (the spectral transforms); a rank
  /// may pass no cells.
  virtual std::vector<std::vector<double>> values_at(const std::vector<std::string>& names,
                                                     const std::vector<index_t>& cells) = 0;

  /// Running statistics (app/statistics_output.hpp): the vorticity components the model can sum (0: none),
  /// the units of its sums, and one sample of every cell of this rank's box added to `sums` on the
  /// device: the values fields() gives, as the sums' layout asks. Collective.
  virtual int vorticity_components() const { return 0; }
  virtual MomentUnits moment_units() const = 0;
  virtual void add_moments(const field::MomentView& sums) = 0;
  /// The same sample added to exact profile sums (output.statistics.per_cell: false; field/profile.hpp),
  /// now or (`with_next_step`) by the next step (lbm::Solver::add_profile); models without profile sums
  /// are refused by the config checks before a run starts.
  virtual void add_profile(const field::ProfileView& sums, bool with_next_step) {
    (void)sums, (void)with_next_step;
    throw Error("output.statistics.per_cell: false is not available for this solver");
  }

  /// "" when the state is healthy, else what failed and where, the same on every rank. Collective.
  virtual std::string health(const sim::Clock& clock) = 0;
  /// What to change when a run turned unstable.
  virtual std::string remedy() const = 0;

  /// diagnostics.csv's columns after step,time; they include kinetic_energy, dissipation and minus_dEdt.
  virtual std::vector<std::string> columns() const = 0;
  /// A row at `clock`, called right after health(clock) found the state healthy. Collective.
  virtual DiagnosticRow diagnostics(const sim::Clock& clock) = 0;
  virtual Rate rate() const = 0;
  virtual Dissipation dissipation() const = 0;
  /// Cells or grid points a step updates.
  virtual double points() const = 0;

  virtual CheckpointData checkpoint() = 0;
  /// What a checkpoint of this run records about it (solver, scheme, precision, grid, config).
  virtual io::CheckpointMeta checkpoint_meta() const = 0;

  /// Kinematic viscosity [m^2/s] the solver runs with.
  virtual double viscosity() const = 0;
  /// The velocity [m/s] on this rank's box (grid().block), x fastest, one value per dimension.
  virtual void velocity(std::vector<double>& out) = 0;
};

/// Where a run starts: a fresh start at step 0, or a restart.
struct RunStart {
  long step = 0;
  bool restarted = false;
  std::string lineage;     ///< the restarted checkpoint's lineage ("": a new one, for a fresh start)
  std::string checkpoint;  ///< the checkpoint restarted from ("": a fresh start)
};

/// The standard outputs of `spec` registered on `simulation` (after the driver's own actions), the run
/// to its end, and the validation. `simulation` must already step the model. Collective.
RunResult run_model(Model& model, sim::Simulation& simulation, RunOutput& out, const config::RunSpec& spec,
                    RunStart start);

}  // namespace eddy::app
