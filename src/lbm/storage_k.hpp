#pragma once
/// How populations are stored: the one conversion point between the stored value of a population slot
/// and the arithmetic type R of the kernels. Every load of a slot goes through load_pop, every store
/// through store_pop.
///
///   T = double, float: the shifted population f~_i = f_i - w_i itself (collide_k.hpp).
///   T = backend::Half: 16-bit storage, FP32 arithmetic (`numerics.precision: fp32/fp16`): the IEEE
///       binary16 value of s f~_i, rounded to nearest even, with the fixed scale s = 2^13.
///
/// Why 2^13. Binary16 has an 11-bit significand (relative rounding error <= 2^-11 wherever the value
/// is normal), normal numbers from 2^-14 to 65504, and subnormals below with the absolute spacing
/// 2^-24. Scaling by s only moves that window over the values of f~: normal for
/// 2^-14 / s <= |f~| <= 65504 / s. A power of two makes the scaling itself exact (it changes the
/// exponent only), so the stored number is the correctly rounded s f~ and nothing else.
///   - Top: a population is at most of the order of the density, f_i <~ rho, and f_i >= -small, so
///     |f~_i| <= max(w_i, rho - w_i) <~ rho; low-Mach runs have |rho - 1| < 0.1. 65504 / 2^13 = 7.996
///     keeps a factor of about 8 of headroom over rho = 1 before a slot overflows to inf (and a run that
///     gets there has left the physics long before; the solver's non-finite check reports it).
///   - Bottom: the populations that carry the flow are |f~| ~ w_i (drho + 3 c.u) ~ 1e-4..1e-1 for
///     lattice velocities 1e-3..0.1, and the moments of a cell cannot be more exact than the rounding of
///     its largest slot, 2^-12 |f~|max. With s = 2^13 values are normal down to 2^-27 = 7.5e-9 and
///     below that spaced by 2^-37 = 7e-12, so no slot that matters to the moments of a flow with
///     u >= 1e-4 loses relative precision to the subnormal range (without the scale, values under
///     6e-5, i.e. the whole non-equilibrium part of slow flows, would be subnormal with a spacing of
///     6e-8).
/// Any s in 2^11..2^15 would do for the cases here; 2^13 sits in the middle of both margins.
#include <type_traits>

#include "backend/half.hpp"
#include "backend/macros.hpp"

namespace eddy::lbm {

/// The scale s of 16-bit population storage (stored value = s f~).
constexpr float half_population_scale = 8192.0f;

/// The value of one stored population slot in the arithmetic type R.
template <class R, class T>
EDDY_HD EDDY_INLINE R load_pop(const T& v) {
  if constexpr (std::is_same_v<T, backend::Half>)
    return R(backend::to_float(v) * (1.0f / half_population_scale));
  else
    return R(v);
}

/// The stored form of a population value of arithmetic type R.
template <class T, class R>
EDDY_HD EDDY_INLINE T store_pop(R v) {
  if constexpr (std::is_same_v<T, backend::Half>)
    return backend::to_half(float(v) * half_population_scale);
  else
    return T(v);
}

}  // namespace eddy::lbm
