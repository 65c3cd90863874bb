#include "app/run.hpp"

#include "app/output.hpp"
#include "app/plan.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"

namespace eddy::app {

RunResult run(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm) {
  // A block that does not fit the device is refused before anything is allocated or written (every rank
  // finds the same, from the config, the rank count and the smallest device). The CPU backend's device
  // memory is the host's, shared by the node's ranks. A GPU keeps 1.5 GiB free for the runtime, FFT work
  // areas and libraries; the host a tenth of each rank's share.
  const double gib = 1073741824.0, host_share = physical_memory_bytes() / gib / comm.node_local_size();
  const double device_gib = comm.min(backend::is_gpu() ? backend::device_info().memory_gib : host_share);
  check_fits_device(spec, comm.size(), device_gib, backend::is_gpu() ? 1.5 : 0.1 * device_gib,
                    !backend::is_gpu());
  // Held to the end of the run, before the restart lookup reads the directory.
  OutputLock lock(RunOutput::directory(spec, options), comm);
  try {
    if (spec.solver == "lbm") return run_lbm(spec, options, comm);
    if (spec.solver == "spectral") return run_spectral(spec, options, comm);
    throw InputError("solver: '" + spec.solver +
                     "' is not available in this version of eddy (valid: lbm, spectral)");
  } catch (const InputError&) {  // found by every rank together: a refused run leaves no directory
    lock.remove_if_unused();
    throw;
  }
}

}  // namespace eddy::app
