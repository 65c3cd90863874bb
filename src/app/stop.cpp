#include "app/stop.hpp"

#include <chrono>

#include "sim/signals.hpp"

namespace eddy::app {

std::function<std::optional<sim::StopReason>()> make_stop_check(const config::RunSpec& spec,
                                                                const parallel::Comm& comm) {
  sim::install_stop_signals();
  const auto started = std::chrono::steady_clock::now();
  const double limit = spec.run.max_wall_time;
  return [comm, started, limit]() -> std::optional<sim::StopReason> {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // 2 = signal, 1 = wall time; the maximum over ranks decides (rank 0's clock is the reference).
    long code = sim::stop_signal() != 0 ? 2 : 0;
    if (code == 0 && comm.root() && limit > 0 && elapsed > limit) code = 1;
    code = comm.max(code);
    if (code == 2) return sim::StopReason::requested;
    if (code == 1) return sim::StopReason::wall_time;
    return std::nullopt;
  };
}

}  // namespace eddy::app
