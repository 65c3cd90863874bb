#pragma once
/// `eddy bench`: synchronised, warmed-up, repeated timing of the configured solver's step.
#include <string>

#include "io/config/run_spec.hpp"
#include "parallel/comm.hpp"

namespace eddy::app {

struct BenchOptions {
  long steps = 0;       ///< steps per repetition; 0 = about 1e9 cell (point) updates (at least 10)
  int repeats = 5;      ///< timed repetitions (median, min, max reported)
  std::string json;     ///< write the results to this JSON file too
};

/// Bench one config; prints a line and returns the median: MLUPS (lbm) or ms per step (spectral, also
/// timing the step's FFTs alone as its floor).
double bench(const config::RunSpec& spec, const BenchOptions& opt, const parallel::Comm& comm);

}  // namespace eddy::app
