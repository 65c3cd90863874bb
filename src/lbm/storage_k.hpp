#pragma once
/// How populations are stored: the one conversion point between the stored value of a population slot
/// and the arithmetic type R of the kernels. Every load of a slot goes through load_pop, every store
/// through store_pop, except in the stream-collide update, which computes on the stored numbers as they
/// are (load_raw, store_raw; the frame of unit population_unit<T>(), collide_k.hpp).
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
#include <cstdint>
#include <type_traits>

#include "backend/half.hpp"
#include "backend/macros.hpp"
#include "core/types.hpp"

namespace eddy::lbm {

/// The scale s of 16-bit population storage (stored value = s f~).
constexpr float half_population_scale = 8192.0f;

/// The rest density in the frame of the stored numbers (collide_k.hpp): s for 16-bit storage, 1 else.
template <class T>
constexpr float population_unit() {
  return std::is_same_v<T, backend::Half> ? half_population_scale : 1.0f;
}

/// The stored number of a slot in the arithmetic type R, as it is: s f~ for 16-bit storage (the kernels of
/// a step compute in that frame), f~ otherwise.
template <class R, class T>
EDDY_HD EDDY_INLINE R load_raw(const T& v) {
  if constexpr (std::is_same_v<T, backend::Half>)
    return R(backend::to_float(v));
  else
    return R(v);
}

/// The stored form of a number of the frame of load_raw.
template <class T, class R>
EDDY_HD EDDY_INLINE T store_raw(R v) {
  if constexpr (std::is_same_v<T, backend::Half>)
    return backend::to_half(float(v));
  else
    return T(v);
}

/// load_raw of the W consecutive slots src[0], ..., src[W - 1] into the lanes of a CPU vector loop (a row
/// chunk: stream_collide_k.hpp, stream_collide_chunk): lanes [lo, hi) are read, the others are 0 and their
/// slots are not touched. `Masked`: the instruction set has masked vector accesses
/// (backend::row_chunk_masked), so the loop runs over all W lanes with a condition; else over [lo, hi)
/// alone. 16-bit storage copies the slots' bits and converts all W lanes at once
/// (backend::half_bits_to_float_lanes).
template <int W, bool Masked, class R, class T>
EDDY_HD EDDY_INLINE void load_raw_lanes(const T* src, index_t lo, index_t hi, R (&f)[W]) {
  if constexpr (std::is_same_v<T, backend::Half>) {
    static_assert(std::is_same_v<R, float>, "16-bit storage computes in FP32");
    std::uint16_t h[W];
    load_raw_lanes<W, Masked>(reinterpret_cast<const std::uint16_t*>(src), lo, hi, h);
    backend::half_bits_to_float_lanes<W>(h, f);
  } else if constexpr (Masked) {
    EDDY_SIMD for (index_t k = 0; k < W; ++k) f[k] = k >= lo && k < hi ? load_raw<R>(src[k]) : R(0);
  } else {
    EDDY_SIMD for (index_t k = lo; k < hi; ++k) f[k] = load_raw<R>(src[k]);
    for (index_t k = 0; k < lo; ++k) f[k] = R(0);
    for (index_t k = hi; k < W; ++k) f[k] = R(0);
  }
}

/// store_raw of the lanes [lo, hi) of f into the slots dst[lo], ..., dst[hi - 1] (as load_raw_lanes).
template <int W, bool Masked, class T, class R>
EDDY_HD EDDY_INLINE void store_raw_lanes(const R (&f)[W], index_t lo, index_t hi, T* dst) {
  if constexpr (std::is_same_v<T, backend::Half>) {
    static_assert(std::is_same_v<R, float>, "16-bit storage computes in FP32");
    std::uint16_t h[W];
    backend::float_to_half_bits_lanes<W>(f, h);
    store_raw_lanes<W, Masked>(h, lo, hi, reinterpret_cast<std::uint16_t*>(dst));
  } else if constexpr (Masked) {
    EDDY_SIMD for (index_t k = 0; k < W; ++k) if (k >= lo && k < hi) dst[k] = store_raw<T>(f[k]);
  } else {
    EDDY_SIMD for (index_t k = lo; k < hi; ++k) dst[k] = store_raw<T>(f[k]);
  }
}

/// The value of one stored population slot in the arithmetic type R (the frame of unit 1).
template <class R, class T>
EDDY_HD EDDY_INLINE R load_pop(const T& v) {
  if constexpr (std::is_same_v<T, backend::Half>)
    return R(load_raw<float>(v) * (1.0f / half_population_scale));
  else
    return R(v);
}

/// The stored form of a population value of arithmetic type R.
template <class T, class R>
EDDY_HD EDDY_INLINE T store_pop(R v) {
  if constexpr (std::is_same_v<T, backend::Half>)
    return store_raw<T>(float(v) * half_population_scale);
  else
    return T(v);
}

}  // namespace eddy::lbm
