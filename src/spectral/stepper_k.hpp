#pragma once
/// Pointwise stages of the integrating-factor Runge-Kutta steppers (no launches, no allocation).
///
/// For du/dt = N(u) - L u with L diagonal in k, v = exp(L t) u obeys dv/dt = exp(L t) N(exp(-L t) v),
/// which RK integrates; the linear part is then exact for every mode, whatever L h (stiff viscous and
/// hyperviscous modes cost no stability). With E = exp(-L h), E2 = exp(-L h / 2), one step from u:
///
/// RK4 (classical):  u2 = E2 (u + h/2 N1)    u3 = E2 u + h/2 N2    u4 = E u + h E2 N3
///                   u' = E u + h/6 (E N1 + 2 E2 (N2 + N3) + N4),   N_s = N(u_s), u1 = u
/// Fourth order; stable for h |lambda| <= 2.83 on the imaginary axis.
///
/// RK3 (SSP, Shu & Osher 1988), stage times 0, h, h/2:
///                   u2 = E (u + h N1)    u3 = E2 u + h/4 (E2 N1 + N2 / E2)
///                   u' = E u / 3 + 2/3 E2 (u3 + h N3)
/// Third order; stable for h |lambda| <= sqrt(3). Its stage times are not monotone, so N2 is scaled by
/// exp(+L h / 2) (Isherwood et al. 2018): harmless for viscous L h = O(1), large for extreme hyperviscosity.
///
/// Storage per component: the state u, an accumulator `acc` (RK4: the N sum; RK3: N1) and the stage
/// value `x` whose nonlinear term the next stage evaluates. Each stage is one pass over the modes,
/// fused with the nonlinear term's projection and mask (the Rhs functors of navier_stokes_k.hpp): one mode
/// at a time (rk_stage), or a run of modes of a row in vector lanes (stage_run), with the same arithmetic.
/// Outside the dealiasing mask the Rhs functors' term (force included) is zero, so a mode whose u, acc and x
/// are zero there stays zero: a caller that keeps them so may skip those modes (the solver,
/// spectral_solver.cpp).
#include <cmath>

#include "spectral/navier_stokes_k.hpp"

namespace eddy::spectral {

/// The arrays and coefficients one stage needs.
template <class T>
struct StageArgs {
  Complex<T>* u;    ///< state
  Complex<T>* acc;  ///< accumulator
  Complex<T>* x;    ///< stage value (input of the next nonlinear evaluation)
  index_t cs;       ///< component stride
  T h;              ///< time step
  Linear<T> lin;
};

/// What a stage takes at one mode from the math library (exp, cos, sin): E = exp(-L h) and E2 = exp(-L h / 2)
/// where stage s uses them (else 0), RK3's stage-2 factor exp(+L h / 2) (0 elsewhere and outside the mask),
/// the nonlinear term's factors (navier_stokes_k.hpp: RhsFactors) and the phase of the sink's transform
/// inputs. Apart from the rest of the stage, so that a run of modes can take these in a loop of its own and
/// the rest in vector lanes (stage_run).
template <class T, int D>
struct StageFactors {
  T e, e2, grow;
  RhsFactors<T, D> rhs;
  Complex<T> phase;
};

/// The factors of stage s of the RK3 (Stages 3) or RK4 stepper at local mode m (md = Mode<T>::at(g, m)).
template <int Stages, class T, class R, class S>
EDDY_HD EDDY_INLINE StageFactors<T, R::comps> stage_factors(int s, index_t m, const Mode<T>& md,
                                                            const Grid& g, const R& rhs,
                                                            const StageArgs<T>& a, const S& sink) {
  StageFactors<T, R::comps> f;
  const T L = a.lin(md.k2);
  // E: every stage but the second (RK4: 1, 3, 4; RK3: 1, 3); E2: RK4 1 to 3, RK3 2 and 3.
  f.e = s != 2 ? std::exp(-L * a.h) : T(0);
  f.e2 = (Stages == 3 ? s != 1 : s != 4) ? std::exp(-L * a.h / T(2)) : T(0);
  // Masked modes have n = 0: exp(+L h / 2) is kept away from them (inf * 0).
  f.grow = Stages == 3 && s == 2 && md.kept ? std::exp(L * a.h / T(2)) : T(0);
  f.rhs = rhs.factors(m, md, g);
  f.phase = sink.phase(md, g);
  return f;
}

/// Where a stage puts its new stage value x (R::comps components at local mode m): StoreX keeps it in a.x,
/// the solver's fused sinks (spectral_solver.cpp) turn it straight into the next stage's transform inputs,
/// times the mode's phase(). A sink whose last() is true gets the new state from the last stage too (the
/// next step's stage-1 value). One mode: sink(m, md, phase, a, x). A run of modes (stage_run) takes a sink
/// in two parts: inputs(m, md, phase, x) in the vector loop of the update, and keep(m, a, x), the store of
/// x where keeps(), in a loop of its own (a store under a condition in the update's loop would not
/// vectorize: masked stores of complex pairs are not consecutive), and truncated<D>(m) for the others.
template <class T>
struct StoreX {
  EDDY_HD static constexpr bool last() { return false; }
  EDDY_HD EDDY_INLINE Complex<T> phase(const Mode<T>& /*md*/, const Grid& /*g*/) const {
    return {T(1), T(0)};
  }
  template <int D>
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>& /*md*/, Complex<T> /*phase*/,
                                      const StageArgs<T>& a, const Complex<T> (&x)[D]) const {
    for (int d = 0; d < D; ++d) a.x[m + d * a.cs] = x[d];
  }
};

/// Stage s (1..4) of RK4 at local mode m, given the mode's factors (stage_factors<4>) and the nonlinear term
/// of the current stage value (rhs): updates acc (stages 1..3) or u (stage 4) and gives the new stage value
/// (stage 4: the new state) in x. No call into the math library, and the mode and its factors by value (no
/// aggregate copy in a vector loop's lanes): a loop over modes vectorizes.
template <class T, class R>
EDDY_HD EDDY_INLINE void rk4_update(int s, index_t m, Mode<T> md, StageFactors<T, R::comps> p, const R& rhs,
                                    const StageArgs<T>& a, Complex<T> (&x)[R::comps]) {
  Complex<T> n_[R::comps];
  rhs(m, md, p.rhs, n_);
  const T h = a.h;
  // Every load before the first store: the arrays may alias (the sink writes where rhs read), so the
  // compiler could not hoist later loads above earlier stores itself.
  Complex<T> u[R::comps], q[R::comps];
  for (int d = 0; d < R::comps; ++d) {
    u[d] = a.u[m + d * a.cs];
    q[d] = s == 1 ? Complex<T>{T(0), T(0)} : a.acc[m + d * a.cs];
  }
  for (int d = 0; d < R::comps; ++d) {
    const index_t i = m + d * a.cs;
    const Complex<T> n = n_[d];
    if (s == 1) {
      a.acc[i] = p.e * n;
      x[d] = p.e2 * (u[d] + (h / T(2)) * n);
    } else if (s == 4) {
      x[d] = p.e * u[d] + (h / T(6)) * (q[d] + n);
      a.u[i] = x[d];
    } else {
      a.acc[i] = q[d] + (T(2) * p.e2) * n;
      x[d] = s == 2 ? p.e2 * u[d] + (h / T(2)) * n : p.e * u[d] + (h * p.e2) * n;
    }
  }
}

/// Stage s (1..3) of SSP-RK3 at local mode m, given the mode's factors (stage_factors<3>) and the nonlinear
/// term of the current stage value (rhs): updates acc (stage 1) or u (stage 3) and gives the new stage
/// value (stage 3: the new state) in x; stage 3 reads stage 2's back from a.x. As rk4_update, a loop over
/// modes vectorizes.
template <class T, class R>
EDDY_HD EDDY_INLINE void rk3_update(int s, index_t m, Mode<T> md, StageFactors<T, R::comps> p, const R& rhs,
                                    const StageArgs<T>& a, Complex<T> (&x)[R::comps]) {
  Complex<T> n_[R::comps];
  rhs(m, md, p.rhs, n_);
  const T h = a.h;
  Complex<T> u[R::comps], q[R::comps];  // all loads first, as in rk4_update
  for (int d = 0; d < R::comps; ++d) {
    u[d] = a.u[m + d * a.cs];
    q[d] = s == 2 ? a.acc[m + d * a.cs] : s == 3 ? a.x[m + d * a.cs] : Complex<T>{T(0), T(0)};
  }
  for (int d = 0; d < R::comps; ++d) {
    const index_t i = m + d * a.cs;
    const Complex<T> n = n_[d];
    if (s == 1) {
      a.acc[i] = n;
      x[d] = p.e * (u[d] + h * n);
    } else if (s == 2) {
      x[d] = p.e2 * u[d] + (h / T(4)) * (p.e2 * q[d] + p.grow * n);
    } else {
      x[d] = (p.e / T(3)) * u[d] + (T(2) / T(3) * p.e2) * (q[d] + h * n);
      a.u[i] = x[d];
    }
  }
}

/// Stage s (1..3) of RK3 (Stages 3) or (1..4) of RK4 at local mode m (md = Mode<T>::at(g, m)), given the
/// nonlinear term of the current stage value; the new stage value (the last stage: the new state, if
/// sink.last()) goes to `sink`, which under RK3 must keep stage 2's in a.x (stage 3 reads it back).
template <int Stages, class T, class R, class S>
EDDY_HD EDDY_INLINE void rk_stage(int s, index_t m, const Mode<T>& md, const Grid& g, const R& rhs,
                                  const StageArgs<T>& a, const S& sink) {
  const StageFactors<T, R::comps> f = stage_factors<Stages>(s, m, md, g, rhs, a, sink);
  Complex<T> x[R::comps];
  if constexpr (Stages == 3)
    rk3_update(s, m, md, f, rhs, a, x);
  else
    rk4_update(s, m, md, f, rhs, a, x);
  if (s != Stages || sink.last()) sink(m, md, f.phase, a, x);
}
/// Stage s (1..4) of RK4 at local mode m, finding the mode itself.
template <class T, class R, class S = StoreX<T>>
EDDY_HD EDDY_INLINE void rk4_stage(int s, index_t m, const Grid& g, const R& rhs, const StageArgs<T>& a,
                                   const S& sink = S{}) {
  rk_stage<4>(s, m, Mode<T>::at(g, m), g, rhs, a, sink);
}
/// Stage s (1..3) of SSP-RK3 at local mode m, finding the mode itself.
template <class T, class R, class S = StoreX<T>>
EDDY_HD EDDY_INLINE void rk3_stage(int s, index_t m, const Grid& g, const R& rhs, const StageArgs<T>& a,
                                   const S& sink = S{}) {
  rk_stage<3>(s, m, Mode<T>::at(g, m), g, rhs, a, sink);
}

/// Stage factors of W modes (at most), one array per factor, so that a vector loop reads each as a vector.
template <class T, int D, int W>
struct StageFactorLanes {
  T e[W], e2[W], grow[W];
  Complex<T> back[W], force[D][W], phase[W];
  int forced[W];  // a vector compare of 32-bit lanes gives the mask (bytes of bool would not)
  EDDY_HD EDDY_INLINE void set(index_t j, const StageFactors<T, D>& f) {
    e[j] = f.e, e2[j] = f.e2, grow[j] = f.grow, back[j] = f.rhs.back, phase[j] = f.phase;
    forced[j] = f.rhs.forced ? 1 : 0;
    for (int d = 0; d < D; ++d) force[d][j] = f.rhs.force[d];
  }
  EDDY_HD EDDY_INLINE StageFactors<T, D> get(index_t j) const {
    StageFactors<T, D> f;
    f.e = e[j], f.e2 = e2[j], f.grow = grow[j], f.rhs.back = back[j], f.phase = phase[j];
    f.rhs.forced = forced[j] != 0;
    for (int d = 0; d < D; ++d) f.rhs.force[d] = force[d][j];
    return f;
  }
};

/// Mode j of stage_run's vector loop: the update of the kept mode j of the run, its transform inputs, its
/// stage value into xs. A function of its own, so that its locals are not the loop body's (EDDY_SIMD makes
/// those arrays over the lanes, into which a struct is copied, not vectorized).
template <int Stages, int S, int W, class T, class R, class Sink>
EDDY_HD EDDY_INLINE void stage_lane(const ModeRun& run, index_t j, const Grid& g,
                                    const StageFactorLanes<T, R::comps, W>& f, const R& rhs,
                                    const StageArgs<T>& a, const Sink& sink, Complex<T> (&xs)[R::comps][W]) {
  const index_t m = run.m0 + j;
  // Not const: GCC does not split a const struct that a call's return initialises into scalars (SRA).
  Mode<T> md = run.kept_mode<T>(g, j);
  StageFactors<T, R::comps> p = f.get(j);
  Complex<T> x[R::comps];
  if constexpr (Stages == 3)
    rk3_update(S, m, md, p, rhs, a, x);
  else
    rk4_update(S, m, md, p, rhs, a, x);
  if constexpr (S != Stages || Sink::last()) sink.inputs(m, md, p.phase, x);
  for (int d = 0; d < R::comps; ++d) xs[d][j] = x[d];
}

/// Mode j of stage_run's loop over the stage values the sink keeps (stage_lane: why a function).
template <int D, int W, class T, class Sink>
EDDY_HD EDDY_INLINE void keep_lane(index_t m, index_t j, const StageArgs<T>& a, const Sink& sink,
                                   const Complex<T> (&xs)[D][W]) {
  Complex<T> x[D];
  for (int d = 0; d < D; ++d) x[d] = xs[d][j];
  sink.keep(m, a, x);
}

/// Stage S of the RK3 (Stages 3) or RK4 stepper over a run of at most W modes of one row (grid.hpp:
/// ModeRun), each mode as rk_stage updates it: first the kept modes' factors from the math library, one
/// mode at a time, then their updates in a vector loop (EDDY_SIMD; every mode reads and writes its own
/// entries only, and the stage is a constant, so the loop has no branch but selects), the stage values
/// the sink keeps in another, then the truncated modes' sink.truncated(m). The arithmetic of a mode is the
/// same whichever run holds it and however many modes run together. Runs of one mode (W = 1: a GPU
/// thread's) take rk_stage itself, with no arrays over lanes (indexed by the lane, a GPU keeps those in
/// local memory).
template <int Stages, int S, int W, class T, class R, class Sink>
EDDY_HD EDDY_INLINE void stage_run(const ModeRun& run, const Grid& g, const R& rhs, const StageArgs<T>& a,
                                   const Sink& sink) {
  constexpr int D = R::comps;
  if constexpr (W == 1) {
    if (run.kept > 0)
      rk_stage<Stages>(S, run.m0, run.kept_mode<T>(g, 0), g, rhs, a, sink);
    else if (run.count > 0)
      sink.template truncated<D>(run.m0);
  } else {
    StageFactorLanes<T, D, W> f;
    for (index_t j = 0; j < run.kept; ++j)
      f.set(j, stage_factors<Stages>(S, run.m0 + j, run.kept_mode<T>(g, j), g, rhs, a, sink));
    Complex<T> xs[D][W];
    EDDY_SIMD for (index_t j = 0; j < run.kept; ++j) stage_lane<Stages, S>(run, j, g, f, rhs, a, sink, xs);
    if ((S != Stages || Sink::last()) && sink.keeps())
      EDDY_SIMD for (index_t j = 0; j < run.kept; ++j) keep_lane(run.m0 + j, j, a, sink, xs);
    EDDY_SIMD for (index_t j = run.kept; j < run.count; ++j) sink.template truncated<D>(run.m0 + j);
  }
}

}  // namespace eddy::spectral
