#include "app/run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "app/lbm_case.hpp"
#include "app/output.hpp"
#include "app/plan.hpp"
#include "app/spectral_case.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "io/config/config.hpp"

namespace eddy::app {

void check_schedules(const config::RunSpec& spec, double dt) {
  std::vector<std::pair<std::string, double>> intervals = {
      {"output.fields.every", spec.output.fields.every.time},
      {"output.diagnostics.every", spec.output.diagnostics.every.time},
      {"output.checkpoint.every", spec.output.checkpoint.every.time},
      {"output.probes.every", spec.output.probes.every.time},
      {"output.spectra.every", spec.output.spectra.every.time},
      {"run.end_time", spec.run.end_time}};
  for (std::size_t i = 0; i < spec.output.slices.size(); ++i)
    intervals.emplace_back(log::cat("output.slices[", i, "].every"), spec.output.slices[i].every.time);
  for (const auto& [key, t] : intervals)
    if (t > 0 && t < dt * (1 - 1e-9))
      throw InputError(log::cat(key, ": ", t, key.rfind("output.", 0) == 0 ? "t" : " s",
                                " is shorter than one time step (dt = ", dt,
                                " s); use a step count (e.g. 1) or a time of at least ", dt, " s"));
}

config::RunSpec load_config(const std::string& path, const std::vector<std::string>& sets) {
  config::RunSpec spec = config::load_file(path, sets);
  check_solver_rules(spec);
  return spec;
}

void check_solver_rules(const config::RunSpec& spec) {
  if (spec.solver == "lbm") check_lbm_rules(spec);
  if (spec.solver == "spectral") check_spectral_rules(spec);
}

void check_run(const config::RunSpec& spec) {
  check_solver_rules(spec);
  check_validation(spec);
  // Cells and their largest derived index (the LBM's populations of every padded cell, 27 x 2 rows of
  // padding) must fit a 64-bit index.
  const double limit = double(std::numeric_limits<index_t>::max()) / 64.0;
  double cells = 1.0;
  std::string text;
  for (long n : spec.domain.cells)
    cells *= double(n), text += (text.empty() ? "[" : ", ") + std::to_string(n);
  if (cells > limit)
    throw InputError(log::cat("domain.cells: ", text, "] is ", cells, " cells, more than eddy can index (",
                              limit, "); use fewer cells"));
  if (spec.solver == "lbm") check_schedules(spec, lbm_units(spec).dt);
  if (spec.solver == "spectral" && spec.numerics.dt > 0) check_schedules(spec, spec.numerics.dt);
}

void check_case(const config::RunSpec& spec) {
  check_run(spec);
  long ranks = 1;
  for (long n : spec.parallel.ranks) ranks *= n;
  const int size = static_cast<int>(std::clamp(ranks, 1L, 1L << 30));
  // The LBM's footprint sizes rank 0's arrays as the solver will (lbm::footprint): a block too large to
  // index is refused here as in `run`.
  if (spec.solver == "lbm") (void)lbm::footprint(make_lbm_case(spec, size, 0).setup, false);
  if (spec.solver == "spectral") (void)make_spectral_case(spec, size, 0);
}

RunResult run(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm) {
  check_run(spec);
  // A block that does not fit the device is refused before anything is allocated or written (every rank
  // finds the same, from the config, the rank count and the smallest device). The CPU backend's device
  // memory is the host's, shared by the node's ranks. A GPU keeps 1.5 GiB free for the runtime, FFT work
  // areas and libraries; the host a tenth of each rank's share.
  const double gib = 1073741824.0, host_share = physical_memory_bytes() / gib / comm.node_local_size();
  const double device_gib = comm.min(backend::is_gpu() ? backend::device_info().memory_gib : host_share);
  check_fits_device(spec, comm.size(), device_gib, backend::is_gpu() ? 1.5 : 0.1 * device_gib,
                    !backend::is_gpu());
  // Held to the end of the run, before the restart lookup reads the directory.
  return with_output_lock(RunOutput::directory(spec, options), comm, [&]() -> RunResult {
    if (spec.solver == "lbm") return run_lbm(spec, options, comm);
    if (spec.solver == "spectral") return run_spectral(spec, options, comm);
    throw InputError("solver: '" + spec.solver +
                     "' is not available in this version of eddy (valid: lbm, spectral)");
  });
}

}  // namespace eddy::app
