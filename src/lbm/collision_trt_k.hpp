#pragma once
/// TRT collision. One cell, pointwise; listed in lbm/collisions.hpp.
#include "lbm/collide_k.hpp"

namespace eddy::lbm {

/// Omega_minus of TRT from omega_plus and the magic parameter Lambda.
inline double trt_omega_minus(double omega_plus, double magic) {
  const double tau_plus = 1.0 / omega_plus;
  return 1.0 / (magic / (tau_plus - 0.5) + 0.5);
}

/// TRT (two relaxation times, Ginzburg 2008): the symmetric part relaxes with omega_plus (viscosity),
/// the antisymmetric part with omega_minus from the magic parameter
/// Lambda = (1/omega_plus - 1/2)(1/omega_minus - 1/2); Lambda = 3/16 puts bounce-back walls exactly
/// half-way for Poiseuille flow. With LES, omega_plus is the cell's Smagorinsky rate and omega_minus
/// follows from Lambda. The Guo source splits the same way into its even part w_i (9 (c.u)(c.F) - 3 u.F)
/// (factor 1 - omega_plus/2) and its odd part 3 w_i c.F (factor 1 - omega_minus/2).
template <class R, bool Les = false, bool Force = false>
struct Trt {
  R omega_plus, omega_minus;
  CollisionExtras<R> extras{};
  R magic = R(0.1875);  ///< Lambda, used with LES only
  static constexpr const char* name = "trt";
  static Trt make(const CollisionRates& r, const CollisionExtras<R>& extras) {
    return {R(r.omega), R(trt_omega_minus(r.omega, r.trt_magic)), extras, R(r.trt_magic)};
  }
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3], R unit = R(1)) const {
    const R wp = local_omega<L, Les, Force>(omega_plus, extras, f, drho, u, unit);
    R wm = omega_minus;
    if constexpr (Les) wm = R(1) / (magic / (R(1) / wp - R(0.5)) + R(0.5));
    R feq[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) feq[i] = equilibrium<L>(i, drho, u, unit);
    const R half_p = R(0.5) * wp, half_m = R(0.5) * wm;
    f[0] -= wp * (f[0] - feq[0]);
    if constexpr (Force) f[0] += (R(1) - half_p) * guo_source<L>(0, u, extras.force);
    EDDY_UNROLL for (int i = 1; i < L::q; i += 2) {
      const R np = (f[i] - feq[i]) + (f[i + 1] - feq[i + 1]);  // 2 x non-equilibrium, symmetric part
      const R nm = (f[i] - feq[i]) - (f[i + 1] - feq[i + 1]);  // 2 x non-equilibrium, antisymmetric part
      f[i] -= half_p * np + half_m * nm;
      f[i + 1] -= half_p * np - half_m * nm;
      if constexpr (Force) {
        const R s0 = guo_source<L>(i, u, extras.force), s1 = guo_source<L>(i + 1, u, extras.force);
        const R sp = R(0.5) * (s0 + s1), sm = R(0.5) * (s0 - s1);
        f[i] += (R(1) - half_p) * sp + (R(1) - half_m) * sm;
        f[i + 1] += (R(1) - half_p) * sp - (R(1) - half_m) * sm;
      }
    }
  }
};

}  // namespace eddy::lbm
