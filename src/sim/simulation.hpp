#pragma once
/// The time loop: a clock, stop criteria and named actions on schedules (Oceananigans' Simulation,
/// waLBerla's timed sweeps). It knows no physics and no files: the app registers the solver's step
/// and the writers as callbacks.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace eddy::sim {

struct Clock {
  long step = 0;      ///< steps taken
  double time = 0.0;  ///< physical time [s]
  double dt = 0.0;    ///< time step [s]
};

struct StopCriteria {
  double end_time = 0.0;  ///< stop when time reaches this (0 = unused)
  long steps = 0;         ///< stop after this many steps, counted from step 0 (0 = unused)
};

enum class StopReason { end_time, steps, steady, wall_time, requested };
const char* to_string(StopReason r);

/// Wall-clock seconds spent in each named part of the loop.
struct Timing {
  std::string name;
  double seconds = 0.0;
  long calls = 0;
};

class Simulation {
 public:
  using Action = std::function<void(const Clock&)>;

  Simulation(double dt, StopCriteria stop);

  /// The step itself (called once per time step, timed as "step").
  void set_step(std::function<void()> step) { step_ = std::move(step); }
  /// Run `action` after the steps where `when` is due (and once more at the end if `at_end`).
  void add(const std::string& name, Schedule when, Action action, bool at_end = false);
  /// Called before timers are read (backend fence): steps are asynchronous on GPUs, so the loop
  /// synchronises only when an action is due, and charges the wait to "step".
  void set_sync(std::function<void()> sync) { sync_ = std::move(sync); }
  /// An early-stop test (signals, wall time), collective: every `every` steps; a returned reason stops.
  void set_stop_check(long every, std::function<std::optional<StopReason>()> check) {
    stop_every_ = every;
    stop_check_ = std::move(check);
  }
  /// Continue from a restart: the clock at `step` (time = step * dt). Call before add().
  void set_step_count(long step) {
    clock_.step = step;
    clock_.time = static_cast<double>(step) * clock_.dt;
  }
  /// A steady-state test: every `every` steps, stop when it returns true.
  void set_steady_check(long every, std::function<bool(const Clock&)> converged);
  /// Run the actions once at the current clock (e.g. the initial state).
  void run_actions_now();

  /// Step until a stop criterion holds; the at-end actions run last.
  StopReason run();

  /// Steps the run will take in all, if known from the stop criteria (0 if open-ended).
  long planned_steps() const;
  const Clock& clock() const { return clock_; }
  /// Seconds spent inside step() so far.
  double step_seconds() const { return timings_.front().seconds; }
  const std::vector<Timing>& timings() const { return timings_; }

 private:
  struct Entry {
    ScheduleClock schedule;
    Action action;
    bool at_end;
    std::size_t timing;
  };
  void call(Entry& e);

  Clock clock_;
  StopCriteria stop_;
  std::function<void()> step_;
  std::function<void()> sync_ = [] {};
  std::vector<Entry> entries_;
  std::vector<Timing> timings_{{"step", 0.0, 0}};
  long steady_every_ = 0;
  long stop_every_ = 0;
  std::function<std::optional<StopReason>()> stop_check_;
  std::function<bool(const Clock&)> converged_;
};

}  // namespace eddy::sim
