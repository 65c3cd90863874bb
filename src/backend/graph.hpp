#pragma once
/// Step graphs: a solver step's device work recorded once and replayed as one launch (CUDA/HIP graphs;
/// src/README.md, Step graphs: the whole step captured in a graph where possible). A replay costs the
/// host one call and the device no gaps between the step's kernels, which is what small grids lose most
/// to.
///
/// A solver keeps one StepGraph and hands each step's device work to run(slot, stamp, work). The first
/// call for a slot records `work` (nothing runs while it is recorded) and launches the recording; later
/// calls with the same slot and stamp launch the recording again and do not call `work`; another stamp
/// records the slot anew. Exactness is the caller's contract:
///   - `work` only queues device work (kernels, copies and fills within device memory, FFTs): no host
///     waits, no copies to or from the host, no allocation, no MPI, and no host side effects (counters
///     are updated outside it), because a replay runs none of its host code;
///   - everything `work` passes to its launches by value (time step, parity, pointers, coefficients) is
///     fixed by (slot, stamp): a slot per distinct sequence of launches (the LBM's even and odd steps),
///     the stamp for values that may change between calls (the bits of dt).
/// When recording fails (an operation that cannot be recorded), run() logs why, switches this graph off
/// for good and runs `work` directly: nothing had run, so the step is exact either way. Off
/// (set_enabled(false)), while eddy bench's phase timer is on (its fences cannot be recorded), and on the
/// CPU backend (no launches to save), run() just calls `work`.
#include <cstdint>
#include <functional>
#include <memory>

namespace eddy::backend {

class StepGraph {
 public:
  StepGraph();
  ~StepGraph();
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;

  void run(int slot, std::uint64_t stamp, const std::function<void()>& work);
  /// On (the default) or off; off drops the recordings.
  void set_enabled(bool on);
  bool enabled() const { return enabled_; }
  /// How many times work was recorded (tests, logs).
  int recordings() const { return recordings_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool enabled_ = true;
  int recordings_ = 0;
};

}  // namespace eddy::backend
