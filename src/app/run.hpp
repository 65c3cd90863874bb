#pragma once
/// `eddy run`: build the decomposition, fields, solver, simulation and writers from a RunSpec, run,
/// and print the validation. Tests call run() directly, so they exercise what users run.
#include <optional>
#include <string>

#include "app/geometry_case.hpp"
#include "app/validation.hpp"
#include "cases/taylor_green/tgv_reference.hpp"
#include "io/config/run_spec.hpp"
#include "parallel/comm.hpp"

namespace eddy::app {

struct RunOptions {
  std::string out_dir;  ///< output directory; "" = the config's output.dir, else out/<name>
  bool quiet = false;   ///< no progress lines on the terminal (run.log still gets them)
  std::string
      restart;  ///< "" = fresh start; "auto" = newest valid checkpoint of the output directory; or a path
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
  std::optional<GhiaComparison> ghia;       ///< when validation.reference is ghia1982
  double taylor_green_error = -1.0;         ///< when validation.reference is taylor_green (2D): relative L2
                                            ///< error of the velocity against the exact solution
  double kolmogorov_error = -1.0;           ///< when validation.reference is kolmogorov (spectral): relative
                                            ///< L2 error against the laminar profile at the final time
  std::vector<double> diagnostics;          ///< spectral: the last diagnostics.csv row after step,time
  std::vector<double> velocity;             ///< final velocity [m/s], interior cells of rank 0's block,
                                            ///< x fastest, `dims` components (for tests and validation)
  double ms_per_step = 0.0;                 ///< wall-clock milliseconds per time step, whole run (spectral)
  std::optional<cases::TgvComparison> tgv;  ///< when validation.reference is tgv_re1600 (spectral, 3D)
  std::vector<BodyReport> bodies;           ///< LBM with geometry.bodies: per body, on rank 0
};

/// Run the configured case to its end. Collective over `comm`.
RunResult run(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm);

/// The solver-specific drivers run() dispatches to.
RunResult run_lbm(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm);
RunResult run_spectral(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm);

}  // namespace eddy::app
