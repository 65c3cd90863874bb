#pragma once
/// Early stops every solver shares: stop signals and the wall-time limit, agreed by all ranks.
#include <functional>
#include <optional>

#include "io/config/run_spec.hpp"
#include "parallel/comm.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {

/// Exit code of a run that stopped early (signal or run.max_wall_time) after writing a checkpoint:
/// restart with `--restart auto` to continue (sysexits' EX_TEMPFAIL).
constexpr int exit_interrupted = 75;

/// A collective stop check for Simulation::set_stop_check: installs the signal handlers; every rank
/// gets the same answer (a signal seen on any rank, or the wall time of rank 0 past run.max_wall_time).
std::function<std::optional<sim::StopReason>()> make_stop_check(const config::RunSpec& spec,
                                                                const parallel::Comm& comm);

}  // namespace eddy::app
