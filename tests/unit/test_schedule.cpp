// Schedules and the time loop: due times by division (an interval far below the step costs nothing and
// never spins), a run with an end time always ends, and stop requests are seen before the first step and
// at every output however large the stop-check interval.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "core/schedule.hpp"
#include "sim/simulation.hpp"

namespace eddy {
namespace {

TEST(Schedule, TimeIntervalFarBelowTheStepFiresOncePerStepWithoutSpinning) {
  ScheduleClock clock(Schedule{0, 1e-20}, 0, 0.0);
  const auto t0 = std::chrono::steady_clock::now();
  int fired = 0;
  for (long step = 1; step <= 1000; ++step) fired += clock.due(step, double(step) * 3.125e-3);
  EXPECT_EQ(fired, 1000);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  EXPECT_GT(clock.next_time(), 1000 * 3.125e-3);
}

TEST(Schedule, TimeIntervalFiresAtTheFirstStepPastEachMultiple) {
  ScheduleClock clock(Schedule{0, 0.1}, 0, 0.0);
  std::vector<long> at;
  for (long step = 1; step <= 100; ++step)
    if (clock.due(step, double(step) * 0.03)) at.push_back(step);
  // 0.1 k reached at steps ceil(10 k / 3): 4, 7, 10, 14, ...
  ASSERT_GE(at.size(), 4U);
  EXPECT_EQ(at[0], 4);
  EXPECT_EQ(at[1], 7);
  EXPECT_EQ(at[2], 10);
  EXPECT_EQ(at[3], 14);
  EXPECT_EQ(at.size(), 30U);  // t = 3.0 at step 100: multiples 0.1 ... 3.0
}

TEST(Schedule, RestartCountsFromItsTime) {
  ScheduleClock clock(Schedule{0, 0.5}, 10, 1.0);
  EXPECT_FALSE(clock.due(11, 1.1));
  EXPECT_DOUBLE_EQ(clock.next_time(), 1.5);
  EXPECT_TRUE(clock.due(15, 1.5));
}

TEST(Simulation, EndTimeWithinTheFirstStepStillEnds) {
  sim::Simulation s(1e-3, {1e-15, 0});
  EXPECT_EQ(s.planned_steps(), 1);
  long steps = 0;
  s.set_step([&] { ++steps; });
  s.run();
  EXPECT_EQ(steps, 1);
}

TEST(Simulation, StopRequestedBeforeTheFirstStepTakesNoStep) {
  sim::Simulation s(1e-3, {0.0, 100});
  long steps = 0;
  s.set_step([&] { ++steps; });
  s.set_stop_check(10, [] { return std::optional<sim::StopReason>(sim::StopReason::requested); });
  EXPECT_EQ(s.run(), sim::StopReason::requested);
  EXPECT_EQ(steps, 0);
}

TEST(Simulation, LargeStopCheckIntervalStillStopsAtTheNextOutput) {
  sim::Simulation s(1e-3, {0.0, 100000});
  long steps = 0;
  s.set_step([&] { ++steps; });
  s.add("diagnostics", Schedule{50, 0.0}, [](const sim::Clock&) {});
  s.set_stop_check(1000000000L, [&]() -> std::optional<sim::StopReason> {
    if (steps >= 120) return sim::StopReason::requested;
    return std::nullopt;
  });
  EXPECT_EQ(s.run(), sim::StopReason::requested);
  EXPECT_EQ(steps, 150);
}

}  // namespace
}  // namespace eddy
