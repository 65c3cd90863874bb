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

/// Stage s (1..4) of RK4 at local mode m, given the nonlinear term of the current stage value.
template <class T, class R>
EDDY_HD EDDY_INLINE void rk4_stage(int s, index_t m, const Grid& g, const R& rhs, const StageArgs<T>& a) {
  const Mode<T> md = Mode<T>::at(g, m);
  const T L = a.lin(md.k2);
  const T e = std::exp(-L * a.h), e2 = std::exp(-L * a.h / T(2));
  Complex<T> n[R::comps];
  rhs(m, md, g, n);
  for (int d = 0; d < R::comps; ++d) {
    const index_t i = m + d * a.cs;
    const Complex<T> u = a.u[i];
    switch (s) {
      case 1:
        a.acc[i] = e * n[d];
        a.x[i] = e2 * (u + (a.h / T(2)) * n[d]);
        break;
      case 2:
        a.acc[i] = a.acc[i] + (T(2) * e2) * n[d];
        a.x[i] = e2 * u + (a.h / T(2)) * n[d];
        break;
      case 3:
        a.acc[i] = a.acc[i] + (T(2) * e2) * n[d];
        a.x[i] = e * u + (a.h * e2) * n[d];
        break;
      default:
        a.u[i] = e * u + (a.h / T(6)) * (a.acc[i] + n[d]);
    }
  }
}

/// Stage s (1..3) of SSP-RK3 at local mode m.
template <class T, class R>
EDDY_HD EDDY_INLINE void rk3_stage(int s, index_t m, const Grid& g, const R& rhs, const StageArgs<T>& a) {
  const Mode<T> md = Mode<T>::at(g, m);
  const T L = a.lin(md.k2);
  const T e = std::exp(-L * a.h), e2 = std::exp(-L * a.h / T(2));
  Complex<T> n[R::comps];
  rhs(m, md, g, n);
  for (int d = 0; d < R::comps; ++d) {
    const index_t i = m + d * a.cs;
    const Complex<T> u = a.u[i];
    switch (s) {
      case 1:
        a.acc[i] = n[d];
        a.x[i] = e * (u + a.h * n[d]);
        break;
      case 2: {
        // masked modes have n = 0: keep exp(+L h / 2) away from them (inf * 0)
        const Complex<T> n2 = md.kept ? std::exp(L * a.h / T(2)) * n[d] : Complex<T>{T(0), T(0)};
        a.x[i] = e2 * u + (a.h / T(4)) * (e2 * a.acc[i] + n2);
        break;
      }
      default:
        a.u[i] = (e / T(3)) * u + (T(2) / T(3) * e2) * (a.x[i] + a.h * n[d]);
    }
  }
}

}  // namespace eddy::spectral
