#pragma once
/// When something happens during a run: every N steps, or every T of physical time.
#include <cmath>

namespace eddy {

struct Schedule {
  long steps = 0;     ///< every this many steps (0 = never, unless `time` > 0)
  double time = 0.0;  ///< every this much physical time [s] (0 = use `steps`)
  bool enabled() const { return steps > 0 || time > 0.0; }
};

/// Tracks one Schedule along a run: due() is true at the steps where the action should run.
/// The next due time is computed by division, so due() costs the same whatever the interval; an interval
/// below the time step fires at every step (the app refuses one: app::check_schedules).
class ScheduleClock {
 public:
  ScheduleClock() = default;
  /// Start counting from (step, time), e.g. 0 or a restart point.
  ScheduleClock(Schedule s, long step0, double time0) : s_(s) {
    if (s_.time > 0) next_time_ = (std::floor(time0 / s_.time + 1e-9) + 1) * s_.time;
    (void)step0;
  }
  /// True if the action is due after reaching (step, time); a time schedule fires at the first step
  /// whose time reaches the next multiple of the interval (within a relative 1e-9).
  bool due(long step, double time) {
    if (s_.steps > 0) return step % s_.steps == 0;
    if (s_.time > 0 && time >= next_time_ * (1 - 1e-9)) {
      // The first multiple of the interval past `time` (within a relative 1e-9).
      next_time_ = (std::floor(time * (1 + 1e-9) / s_.time) + 1) * s_.time;
      return true;
    }
    return false;
  }
  /// The time at which a time schedule is next due (0 for a step schedule).
  double next_time() const { return next_time_; }

 private:
  Schedule s_{};
  double next_time_ = 0.0;
};

}  // namespace eddy
