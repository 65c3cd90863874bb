#include "app/run.hpp"

#include "core/error.hpp"

namespace eddy::app {

RunResult run(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm) {
  if (spec.solver == "lbm") return run_lbm(spec, options, comm);
  if (spec.solver == "spectral") return run_spectral(spec, options, comm);
  throw InputError("solver: '" + spec.solver +
                   "' is not available in this version of eddy (valid: lbm, spectral)");
}

}  // namespace eddy::app
