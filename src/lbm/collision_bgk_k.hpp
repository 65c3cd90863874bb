#pragma once
/// BGK collision. One cell, pointwise; listed in lbm/collisions.hpp.
#include "lbm/collide_k.hpp"

namespace eddy::lbm {

/// BGK (single relaxation time): f_i <- f_i - omega (f_i - f_eq_i) [+ (1 - omega/2) S_i, Guo].
template <class R, bool Les = false, bool Force = false>
struct Bgk {
  R omega;  ///< 1 / tau
  CollisionExtras<R> extras{};
  static constexpr const char* name = "bgk";
  static Bgk make(const CollisionRates& r, const CollisionExtras<R>& extras) { return {R(r.omega), extras}; }
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3], R unit = R(1)) const {
    const R w = local_omega<L, Les, Force>(omega, extras, f, drho, u, unit);
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
      f[i] -= w * (f[i] - equilibrium<L>(i, drho, u, unit));
      if constexpr (Force) f[i] += (R(1) - R(0.5) * w) * guo_source<L>(i, u, extras.force);
    }
  }
};

}  // namespace eddy::lbm
