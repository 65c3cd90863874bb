#pragma once
/// When something happens during a run: every N steps, or every T of physical time.
namespace eddy {

struct Schedule {
  long steps = 0;     ///< every this many steps (0 = never, unless `time` > 0)
  double time = 0.0;  ///< every this much physical time [s] (0 = use `steps`)
  bool enabled() const { return steps > 0 || time > 0.0; }
};

/// Tracks one Schedule along a run: due() is true at the steps where the action should run.
class ScheduleClock {
 public:
  ScheduleClock() = default;
  /// Start counting from (step, time), e.g. 0 or a restart point.
  ScheduleClock(Schedule s, long step0, double time0) : s_(s) {
    if (s_.time > 0) next_time_ = (static_cast<long>(time0 / s_.time + 1e-9) + 1) * s_.time;
    (void)step0;
  }
  /// True if the action is due after reaching (step, time); a time schedule fires at the first step
  /// whose time reaches the next multiple of the interval (within a relative 1e-9).
  bool due(long step, double time) {
    if (s_.steps > 0) return step % s_.steps == 0;
    if (s_.time > 0 && time >= next_time_ * (1 - 1e-9)) {
      while (next_time_ <= time * (1 + 1e-9)) next_time_ += s_.time;
      return true;
    }
    return false;
  }

 private:
  Schedule s_{};
  double next_time_ = 0.0;
};

}  // namespace eddy
