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
/// fused with the nonlinear term's projection and mask (the Rhs functors of navier_stokes_k.hpp).
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

/// What a stage needs at one mode: the mode, L(k), the factors E = exp(-L h) and E2 = exp(-L h / 2), and
/// the nonlinear term of the stage value (R::comps components).
template <class T, int D>
struct StagePoint {
  Mode<T> md;
  T L, e, e2;
  Complex<T> n[D];
};

template <class T, class R>
EDDY_HD EDDY_INLINE StagePoint<T, R::comps> stage_point(index_t m, const Mode<T>& md, const Grid& g,
                                                        const R& rhs, const StageArgs<T>& a) {
  StagePoint<T, R::comps> p;
  p.md = md;
  p.L = a.lin(p.md.k2);
  p.e = std::exp(-p.L * a.h);
  p.e2 = std::exp(-p.L * a.h / T(2));
  rhs(m, p.md, g, p.n);
  return p;
}

/// Where a stage puts its new stage value x (R::comps components at local mode m): StoreX keeps it in a.x,
/// the solver's fused sinks (spectral_solver.cpp) turn it straight into the next stage's transform inputs.
/// A sink whose last() is true gets the new state from the last stage too (the next step's stage-1 value).
template <class T>
struct StoreX {
  EDDY_HD EDDY_INLINE bool last() const { return false; }
  template <int D>
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>& /*md*/, const StageArgs<T>& a,
                                      const Complex<T> (&x)[D]) const {
    for (int d = 0; d < D; ++d) a.x[m + d * a.cs] = x[d];
  }
};

/// Stage s (1..4) of RK4 at local mode m (md = Mode<T>::at(g, m)), given the nonlinear term of the current
/// stage value; the new stage value (stages 1..3; stage 4: the new state, if sink.last()) goes to `sink`.
template <class T, class R, class S>
EDDY_HD EDDY_INLINE void rk4_stage(int s, index_t m, const Mode<T>& md, const Grid& g, const R& rhs,
                                   const StageArgs<T>& a, const S& sink) {
  const StagePoint<T, R::comps> p = stage_point(m, md, g, rhs, a);
  const T h = a.h;
  // Every load before the first store: the arrays may alias (the sink writes where rhs read), so the
  // compiler could not hoist later loads above earlier stores itself.
  Complex<T> u[R::comps], q[R::comps], x[R::comps];
  for (int d = 0; d < R::comps; ++d) {
    u[d] = a.u[m + d * a.cs];
    q[d] = s == 1 ? Complex<T>{T(0), T(0)} : a.acc[m + d * a.cs];
  }
  for (int d = 0; d < R::comps; ++d) {
    const index_t i = m + d * a.cs;
    const Complex<T> n = p.n[d];
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
  if (s != 4 || sink.last()) sink(m, p.md, a, x);
}
/// The same, finding the mode itself.
template <class T, class R, class S = StoreX<T>>
EDDY_HD EDDY_INLINE void rk4_stage(int s, index_t m, const Grid& g, const R& rhs, const StageArgs<T>& a,
                                   const S& sink = S{}) {
  rk4_stage(s, m, Mode<T>::at(g, m), g, rhs, a, sink);
}

/// Stage s (1..3) of SSP-RK3 at local mode m (md = Mode<T>::at(g, m)); the new stage value (stages 1, 2;
/// stage 3: the new state, if sink.last()) goes to `sink`, which must keep stage 2's in a.x (stage 3 reads
/// it back).
template <class T, class R, class S>
EDDY_HD EDDY_INLINE void rk3_stage(int s, index_t m, const Mode<T>& md, const Grid& g, const R& rhs,
                                   const StageArgs<T>& a, const S& sink) {
  const StagePoint<T, R::comps> p = stage_point(m, md, g, rhs, a);
  const T h = a.h;
  // Masked modes have n = 0: exp(+L h / 2) is kept away from them (inf * 0).
  const T grow = s == 2 && p.md.kept ? std::exp(p.L * h / T(2)) : T(0);
  Complex<T> u[R::comps], q[R::comps], x[R::comps];  // all loads first, as in rk4_stage
  for (int d = 0; d < R::comps; ++d) {
    u[d] = a.u[m + d * a.cs];
    q[d] = s == 2 ? a.acc[m + d * a.cs] : s == 3 ? a.x[m + d * a.cs] : Complex<T>{T(0), T(0)};
  }
  for (int d = 0; d < R::comps; ++d) {
    const index_t i = m + d * a.cs;
    const Complex<T> n = p.n[d];
    if (s == 1) {
      a.acc[i] = n;
      x[d] = p.e * (u[d] + h * n);
    } else if (s == 2) {
      x[d] = p.e2 * u[d] + (h / T(4)) * (p.e2 * q[d] + grow * n);
    } else {
      x[d] = (p.e / T(3)) * u[d] + (T(2) / T(3) * p.e2) * (q[d] + h * n);
      a.u[i] = x[d];
    }
  }
  if (s != 3 || sink.last()) sink(m, p.md, a, x);
}
/// The same, finding the mode itself.
template <class T, class R, class S = StoreX<T>>
EDDY_HD EDDY_INLINE void rk3_stage(int s, index_t m, const Grid& g, const R& rhs, const StageArgs<T>& a,
                                   const S& sink = S{}) {
  rk3_stage(s, m, Mode<T>::at(g, m), g, rhs, a, sink);
}

}  // namespace eddy::spectral
