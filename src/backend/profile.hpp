#pragma once
/// Where a step's time goes (eddy bench's "breakdown"): wall time cut into phases at fences.
///
/// Off by default, and then every call is one branch and nothing else: the normal path gains no
/// synchronisation. On, each phase switch waits for the device (fence) and charges the time since the
/// previous switch to the phase that ends, so queued work is counted where it was queued. One timer per
/// process (phase_timer()): the distributed FFT, the transposes, the halo exchange and the LBM step mark
/// their phases, and whatever runs outside them (the spectral step's pointwise kernels) counts as
/// `pointwise`.
#include <chrono>
#include <cstddef>

namespace eddy::backend {

class PhaseTimer {
 public:
  /// wait: (profiled runs only) until every rank of an exchange has reached it, before its transfer, so
  /// that the transfer's time is the data's and not the other ranks' lag. The LBM step's own phases
  /// (lbm/solver_impl.hpp, update_step): shell = the cells of the boundary shell, updated before the halo
  /// messages start; inner = the cells updated while they fly (every cell where the step does not
  /// overlap: one rank, or a block too thin to split); links = the boundary links after the update.
  enum Phase { pointwise, fft, pack, transfer, unpack, wait, shell, inner, links, phases };
  /// "pointwise", "fft", "pack", "transfer", "unpack", "wait", "shell", "inner", "links".
  static const char* name(Phase p);

  /// Switch timing on (from phase pointwise, counters zeroed) or off.
  void enable(bool on);
  bool on() const { return on_; }
  /// Enter phase p; returns the phase that ended (to restore it after a nested section).
  Phase to(Phase p) {
    if (!on_) return p;
    return switch_to(p);
  }
  /// Bytes this rank sent to other ranks (transposes).
  void add_sent(std::size_t bytes) {
    if (on_) sent_ += bytes;
  }
  /// Fence and charge the running phase (call at the end of what is measured).
  void settle() { to(current_); }
  double seconds(Phase p) const { return seconds_[p]; }
  std::size_t sent() const { return sent_; }

 private:
  Phase switch_to(Phase p);

  bool on_ = false;
  Phase current_ = pointwise;
  std::chrono::steady_clock::time_point last_{};
  double seconds_[phases] = {};
  std::size_t sent_ = 0;
};

/// The process's timer.
PhaseTimer& phase_timer();

}  // namespace eddy::backend
