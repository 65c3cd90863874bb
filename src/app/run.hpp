#pragma once
/// `eddy run`: build the decomposition, fields, solver, simulation and writers from a RunSpec, run,
/// and print the validation. Tests call run() directly, so they exercise what users run.
#include <string>
#include <vector>

#include "app/geometry_case.hpp"
#include "app/validation.hpp"
#include "io/config/run_spec.hpp"
#include "io/hdf5/block.hpp"
#include "parallel/comm.hpp"

namespace eddy::app {

struct RunOptions {
  std::string out_dir;  ///< output directory; "" = the config's output.dir, else out/<name>
  bool quiet = false;   ///< no progress lines on the terminal (run.log still gets them)
  std::string
      restart;  ///< "" = fresh start; "auto" = newest valid checkpoint of the output directory; or a path
  bool overwrite = false;  ///< a fresh start may replace another run's checkpoints in the directory
  bool allow_physics_change = false;  ///< a restart may continue under other physics than its checkpoint's
};

/// What an LBM run reports about one body at its end (physical units).
struct BodyReport {
  Real3 force{0.0, 0.0, 0.0};        ///< N (3D) or N/m (2D)
  double cd = 0.0, cl = 0.0;         ///< drag and lift coefficients at the end (0 without a reference)
  double pressure_difference = 0.0;  ///< p(front) - p(back) on the x axis through a round body's centre [Pa]
  CoefficientSummary summary;        ///< extremes and Strouhal number (the first body, with a reference)
};

struct RunResult {
  long steps = 0;
  double time = 0.0;  ///< physical time reached [s]
  std::string stop_reason;
  bool interrupted = false;  ///< stopped early (signal, wall time) with a checkpoint written
  double mlups = 0.0;        ///< million lattice-cell updates per second, whole run
  std::string out_dir;
  std::vector<ValidationResult> validations;  ///< the figures of validation.reference (empty for none)
  std::vector<double> diagnostics;            ///< spectral: the last diagnostics.csv row after step,time
  io::Block block;                            ///< this rank's box of the grid (interior cells)
  std::vector<double> velocity;               ///< final velocity [m/s] on this rank's box, x fastest,
                                              ///< `block.dims` components
  double ms_per_step = 0.0;                   ///< wall-clock milliseconds per time step, whole run (spectral)
  std::vector<BodyReport> bodies;             ///< LBM with geometry.bodies: per body, on every rank

  /// The value of a validation figure (ValidationResult::metric); NaN when the run did not compute it.
  double metric(const std::string& name) const { return app::metric(validations, name); }
};

/// A config as every verb loads it: config::load_file, then the solver's rules (check_solver_rules).
config::RunSpec load_config(const std::string& path, const std::vector<std::string>& sets);
/// The rules of the config's solver that the loader leaves to it (lbm: check_lbm_rules; spectral:
/// check_spectral_rules). InputError naming the key and its origin.
void check_solver_rules(const config::RunSpec& spec);

/// The checks of a config that need no device and write nothing, the same for `eddy validate` and
/// `eddy run` (run() calls it first): the solver's rules, the validation's reference data (check_validation),
/// a grid that eddy can index, and the schedules against the time step where the config fixes it (the LBM's;
/// a spectral numerics.dt). InputError (exit 2) naming the key.
void check_run(const config::RunSpec& spec);
/// `eddy validate`: check_run, then the case's set-up as rank 0 of the job that parallel.ranks names (one
/// rank without it): make_lbm_case (its bodies included) or make_spectral_case, the functions `run` uses,
/// without a device, MPI or output.
void check_case(const config::RunSpec& spec);
/// Every physical-time interval of output.fields/diagnostics/checkpoint.every and run.end_time must be at
/// least one time step `dt`: a shorter one is refused (InputError naming the key, the interval and dt).
void check_schedules(const config::RunSpec& spec, double dt);

/// Run the configured case to its end. Collective over `comm`.
RunResult run(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm);

/// The solver-specific drivers run() dispatches to.
RunResult run_lbm(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm);
RunResult run_spectral(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm);

}  // namespace eddy::app
