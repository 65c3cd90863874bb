#include "backend/profile.hpp"

#include "backend/backend.hpp"

namespace eddy::backend {

const char* PhaseTimer::name(Phase p) {
  static const char* names[phases] = {"pointwise", "fft",   "pack",  "transfer", "unpack",
                                      "wait",      "shell", "inner", "links"};
  return names[p];
}

void PhaseTimer::enable(bool on) {
  if (on) {
    fence();
    for (double& s : seconds_) s = 0.0;
    sent_ = 0;
    current_ = pointwise;
    last_ = std::chrono::steady_clock::now();
  }
  on_ = on;
}

PhaseTimer::Phase PhaseTimer::switch_to(Phase p) {
  fence();
  const auto now = std::chrono::steady_clock::now();
  seconds_[current_] += std::chrono::duration<double>(now - last_).count();
  last_ = now;
  const Phase ended = current_;
  current_ = p;
  return ended;
}

PhaseTimer& phase_timer() {
  static PhaseTimer t;
  return t;
}

}  // namespace eddy::backend
