#pragma once
/// Binomial checkpointing of a forward trajectory for its reverse sweep (Griewank 1992, "Achieving
/// logarithmic growth of temporal and spatial complexity in reverse automatic differentiation", Optim.
/// Methods Softw. 1; Griewank & Walther 2000, ACM TOMS 26, "revolve").
///
/// With c stored states (the initial one included) and every step advanced at most r times, at most
/// eta(c, r) = C(c + r, c) steps can be reversed: eta(c, r) = eta(c, r - 1) + eta(c - 1, r) says how to
/// split a range [a, b) whose start is stored: advance to m with m - a <= eta(c, r - 1), store m,
/// reverse [m, b) with the c - 1 states left, then [a, m) with all c. For T steps, r is the smallest with
/// eta(c, r) >= T: memory c states, forward steps at most r T (c = T: every state stored, each step
/// advanced once; c ~ log T: r ~ log T). Host-only scheduling: the caller's Ops move the states.
///
/// Ops (slots 0 .. c-1 hold stored states, slot 0 the initial one; slot c is the working state that
/// advances from the last stored state when c runs out):
///   void copy(int dst, int src);       // state dst = state src
///   void advance(int slot, long n);    // n forward steps in place
///   void reverse(int slot, long step); // the adjoint of step `step` from the state in `slot` (kept)
#include <algorithm>
#include <limits>

namespace eddy::spectral {

/// C(n, k), saturating at the largest long.
inline long binomial(long n, long k) {
  if (k < 0 || k > n) return 0;
  k = std::min(k, n - k);
  long r = 1;
  for (long i = 1; i <= k; ++i) {
    const long num = n - k + i;
    if (r > std::numeric_limits<long>::max() / num) return std::numeric_limits<long>::max();
    r = r * num / i;  // exact: r * num is divisible by i (C(n-k+i, i) is an integer)
  }
  return r;
}

/// Repetitions needed to reverse `steps` steps with `checkpoints` stored states: the smallest r with
/// C(checkpoints + r, checkpoints) >= steps.
inline long revolve_repetitions(long steps, int checkpoints) {
  long r = 0;
  while (binomial(checkpoints + r, checkpoints) < steps) ++r;
  return r;
}

/// The forward steps of an optimal binomial schedule besides the one each reverse step records:
/// r T - C(c + r, r - 1) (Griewank & Walther 2000; T - 1 when every state is stored, T (T - 1) / 2 with
/// the initial state alone).
inline long revolve_advances(long steps, int checkpoints) {
  const long r = revolve_repetitions(steps, checkpoints);
  return r * steps - binomial(checkpoints + r, r - 1);
}

template <class Ops>
class Revolve {
 public:
  Revolve(Ops& ops, int checkpoints) : ops_(ops), c_(std::max(1, checkpoints)) {}

  /// Reverse steps [0, steps), last first.
  void run(long steps) {
    if (steps > 0) sweep(0, steps, 0, c_);
  }
  long advances() const { return advances_; }  ///< forward steps of the advance() calls
  int slots_used() const { return used_; }     ///< largest slot index used + 1

 private:
  void sweep(long a, long b, int slot, int c) {
    used_ = std::max(used_, slot + 1);
    const long l = b - a;
    if (l == 1) {
      ops_.reverse(slot, a);
      return;
    }
    if (c == 1) {  // no state to spare: restart from a for every step, into the next slot as work
      for (long i = b - 1; i >= a; --i) {
        if (i == a) {
          ops_.reverse(slot, a);
          break;
        }
        used_ = std::max(used_, slot + 2);
        ops_.copy(slot + 1, slot);
        advance(slot + 1, i - a);
        ops_.reverse(slot + 1, i);
      }
      return;
    }
    // The shortest first part that leaves the rest reversible with c - 1 states and r repetitions, and is
    // itself long enough to need r - 1 (not fewer): this split attains the optimal count (checked against
    // a dynamic program over every split for T <= 120, c <= 11; tests/unit/test_adjoint.cpp checks the
    // count).
    const long r = revolve_repetitions(l, c);
    const long first = std::max({1L, l - binomial(c - 1 + r, c - 1), binomial(c + r - 2, c)});
    ops_.copy(slot + 1, slot);
    advance(slot + 1, first);
    sweep(a + first, b, slot + 1, c - 1);
    sweep(a, a + first, slot, c);
  }
  void advance(int slot, long n) {
    ops_.advance(slot, n);
    advances_ += n;
  }

  Ops& ops_;
  int c_;
  long advances_ = 0;
  int used_ = 0;
};

}  // namespace eddy::spectral
