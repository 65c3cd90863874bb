#include "sim/simulation.hpp"

#include <algorithm>
#include <cmath>

namespace eddy::sim {

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::end_time:
      return "end time reached";
    case StopReason::steps:
      return "step count reached";
    case StopReason::steady:
      return "steady state reached";
    case StopReason::wall_time:
      return "wall-time limit reached";
    case StopReason::requested:
      return "stop requested";
  }
  return "?";
}

Simulation::Simulation(double dt, StopCriteria stop) : stop_(stop) { clock_.dt = dt; }

void Simulation::add(const std::string& name, Schedule when, Action action, bool at_end) {
  timings_.push_back({name, 0.0, 0});
  entries_.push_back(
      {ScheduleClock(when, clock_.step, clock_.time), std::move(action), at_end, timings_.size() - 1});
}

void Simulation::set_steady_check(long every, std::function<bool(const Clock&)> converged) {
  steady_every_ = every;
  converged_ = std::move(converged);
}

void Simulation::call(Entry& e) {
  const auto t0 = std::chrono::steady_clock::now();
  e.action(clock_);
  sync_();
  Timing& t = timings_[e.timing];
  t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++t.calls;
}

void Simulation::run_actions_now() {
  for (Entry& e : entries_) call(e);
}

long Simulation::planned_steps() const {
  long n = 0;
  // An end time within the first step still takes that step: the run always ends.
  if (stop_.end_time > 0) n = std::max(1L, static_cast<long>(std::ceil(stop_.end_time / clock_.dt - 1e-9)));
  if (stop_.steps > 0) n = n > 0 ? std::min(n, stop_.steps) : stop_.steps;
  return n;
}

StopReason Simulation::run() {
  const long last = planned_steps();
  StopReason reason = StopReason::steps;
  std::vector<bool> ran_now(entries_.size(), false);
  const long first_step = clock_.step;
  sync_();
  auto step_timer = std::chrono::steady_clock::now();
  // A stop requested during the set-up (a signal while a mesh voxelizes or a checkpoint is read) stops the
  // run before its first step.
  if (stop_check_)
    if (const std::optional<StopReason> r = stop_check_()) return *r;
  for (;;) {
    if (last > 0 && clock_.step >= last) {
      reason = (stop_.end_time > 0 && clock_.time >= stop_.end_time * (1 - 1e-12)) ? StopReason::end_time
                                                                                   : StopReason::steps;
      break;
    }
    std::fill(ran_now.begin(), ran_now.end(), false);
    step_();
    ++clock_.step;
    // Time from the step count, not by summation, so it has no drift over long runs.
    clock_.time = static_cast<double>(clock_.step) * clock_.dt;
    bool any_due = steady_every_ > 0 && clock_.step % steady_every_ == 0;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      ran_now[k] = entries_[k].schedule.due(clock_.step, clock_.time);
      any_due = any_due || ran_now[k];
    }
    if (any_due || (last > 0 && clock_.step >= last)) {
      sync_();
      const auto now = std::chrono::steady_clock::now();
      timings_.front().seconds += std::chrono::duration<double>(now - step_timer).count();
      timings_.front().calls = clock_.step - first_step;
      for (std::size_t k = 0; k < entries_.size(); ++k)
        if (ran_now[k]) call(entries_[k]);
      const bool steady = steady_every_ > 0 && clock_.step % steady_every_ == 0 && converged_(clock_);
      step_timer = std::chrono::steady_clock::now();
      if (steady) {
        reason = StopReason::steady;
        break;
      }
    }
    // Every stop_every steps, and at every step where an action ran (the same steps on every rank), so
    // that a large stop_every still lets a signal stop the run at the next output.
    if (stop_check_ && ((stop_every_ > 0 && clock_.step % stop_every_ == 0) || any_due)) {
      if (const std::optional<StopReason> r = stop_check_()) {
        reason = *r;
        break;
      }
    }
  }
  for (std::size_t k = 0; k < entries_.size(); ++k)
    if (entries_[k].at_end && !ran_now[k]) call(entries_[k]);
  return reason;
}

}  // namespace eddy::sim
