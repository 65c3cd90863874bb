#pragma once
/// `eddy optimize`: the initial perturbation of the 2D spectral solver that changes the final state most.
#include <string>
#include <vector>

#include "app/run.hpp"
#include "io/config/run_spec.hpp"
#include "parallel/comm.hpp"

namespace eddy::app {

struct OptimizeResult {
  std::vector<double> loss;            ///< J at each iteration's perturbation, and after the last update
  double seconds_per_iteration = 0.0;  ///< median wall time of one forward + backward (gradient) sweep
  std::size_t peak_bytes = 0;          ///< device memory peak of a gradient with the binomial schedule
  std::size_t peak_bytes_all = 0;      ///< the same with every step and stage stored (0 if not measured)
  std::string out_dir;
};

/// Projected Adam (or gradient) ascent of J = <(w_T - w_T^ref)^2> over the perturbation of omega_0 under the
/// RMS norm constraint (config section `optimize`). Collective over `comm`.
OptimizeResult optimize(const config::RunSpec& spec, const RunOptions& options, const parallel::Comm& comm);

}  // namespace eddy::app
