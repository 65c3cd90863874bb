#pragma once
/// A 16-bit IEEE 754 binary16 ("half") storage type for host and device code, and its conversions to
/// and from float.
///
/// Half is its bit pattern: two bytes, trivially copyable, the same layout on every backend, so arrays of
/// it go through DeviceArray, halo messages and checkpoints as plain bytes. It is a storage format only:
/// arithmetic happens in float after to_float().
///
/// The conversions are exact in one direction (every half is a float) and round to nearest, ties to
/// even (RNE) in the other. On a GPU the device pass uses the hardware conversion (CUDA cuda_fp16.h,
/// HIP hip_fp16.h: __float2half_rn / __half2float); everywhere else a portable bit-level implementation
/// gives the same bits, subnormals, infinities and overflow included, so a CPU build and a GPU build
/// store the same numbers (tests/unit/test_half.cpp checks all 65536 halves, random floats against the
/// compiler's _Float16 where it has one, and the device conversion against the portable one).
/// NaN becomes the quiet NaN 0x7fff (0xffff when negative) on the portable path, like CUDA's own host
/// conversion; a NaN population means a failed run, which the solver's checks report, so only
/// "is NaN" is relied on, never the payload.
#include <cstdint>
#include <cstring>

#include "backend/macros.hpp"

#if !EDDY_GPU && defined(__F16C__)
#include <immintrin.h>
#endif
#if EDDY_DEVICE_PASS && defined(__CUDA_ARCH__)
#include <cuda_fp16.h>
#elif EDDY_DEVICE_PASS && defined(__HIP_DEVICE_COMPILE__)
#include <hip/hip_fp16.h>
#endif

namespace eddy::backend {

/// One binary16 value, stored as its bits.
struct Half {
  std::uint16_t bits;  ///< sign (1), exponent (5, bias 15), significand (10)
};
static_assert(sizeof(Half) == 2, "Half must be two bytes");

namespace detail {
EDDY_HD EDDY_INLINE std::uint32_t bits_of(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}
EDDY_HD EDDY_INLINE float float_of(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
}  // namespace detail

/// float -> binary16 bits with round to nearest, ties to even, in portable C++ (any host or device).
/// Written as selects, not branches, so that a CPU compiler keeps the kernels' loops straight.
EDDY_HD EDDY_INLINE std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = detail::bits_of(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  // Normal range: rebias the exponent (127 -> 15, i.e. subtract 112 << 23) and drop 13 significand
  // bits, rounding to nearest even by adding 0xfff plus the lowest kept bit before the shift; a carry
  // out of the significand bumps the exponent, which is the correctly rounded result, up to inf for
  // 65520 <= |f| < 65536.
  const std::uint32_t normal = (ax - 0x38000000u + 0xfffu + ((ax >> 13) & 1u)) >> 13;
  // Below 2^-14 (the smallest normal half) the result is the subnormal m 2^-24, m = |f| 2^24 rounded to
  // an integer: adding 0.5 (whose ulp is 2^-24) makes the FPU do that rounding (to nearest even, the
  // default mode), and m is what the sum has above 0.5. m = 1024 is the smallest normal, same bits.
  // Float subnormals (< 2^-126) give m = 0 whether or not the FPU flushes them.
  const std::uint32_t sub = detail::bits_of(detail::float_of(ax) + 0.5f) - 0x3f000000u;
  const std::uint32_t big = ax > 0x7f800000u ? 0x7fffu : 0x7c00u;  // NaN -> quiet NaN, else inf
  const std::uint32_t r = ax >= 0x47800000u ? big : (ax < 0x38800000u ? sub : normal);
  return static_cast<std::uint16_t>(sign | r);
}

/// binary16 bits -> float, exactly, in portable C++ (any host or device).
EDDY_HD EDDY_INLINE float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t em = static_cast<std::uint32_t>(h & 0x7fffu) << 13;  // exponent and significand
  const std::uint32_t e = em & 0x0f800000u;
  // Normal: rebias 15 -> 127. Inf/NaN: exponent all ones, payload kept. Subnormal m 2^-24: read the bits
  // as 2^-14 (1 + m/1024) and subtract 2^-14, exact (the difference is a normal float).
  const std::uint32_t normal = em + 0x38000000u;
  const std::uint32_t special = em | 0x7f800000u;
  const std::uint32_t sub = detail::bits_of(detail::float_of(em + 0x38800000u) - 0x1p-14f);
  const std::uint32_t r = e == 0x0f800000u ? special : (e == 0 ? sub : normal);
  return detail::float_of(sign | r);
}

/// float -> Half, round to nearest even: the device's conversion instruction on a GPU, else portable.
EDDY_HD EDDY_INLINE Half to_half(float f) {
#if EDDY_DEVICE_PASS
  return Half{static_cast<std::uint16_t>(__half_as_ushort(__float2half_rn(f)))};
#else
  return Half{float_to_half_bits(f)};
#endif
}

/// Half -> float, exact.
EDDY_HD EDDY_INLINE float to_float(Half h) {
#if EDDY_DEVICE_PASS
  return __half2float(__ushort_as_half(h.bits));
#else
  return half_bits_to_float(h.bits);
#endif
}

/// The floats of W halves' bits, lane by lane, for a CPU vector loop over W lanes (lbm/storage_k.hpp:
/// a row chunk's slots): the x86 conversion instructions where the build has them (F16C: 8 lanes an
/// instruction; AVX-512: 16), else the portable conversion in a loop the compiler vectorizes (selects).
/// The same bits either way (tests/unit/test_half.cpp, with subnormals flushed and treated as zero as the
/// backend runs: the instructions convert half subnormals exactly whatever MXCSR says, and a float
/// subnormal, which DAZ reads as zero, rounds to a zero of its sign on the portable path too); a NaN stays
/// a NaN, its payload aside.
template <int W>
EDDY_HD EDDY_INLINE void half_bits_to_float_lanes(const std::uint16_t (&h)[W], float (&f)[W]) {
// The zero-masked forms with every lane kept: GCC 12's unmasked ones start from _mm512_undefined_ps,
// which -Wuninitialized flags.
#if !EDDY_GPU && defined(__AVX512F__)
  if constexpr (W % 16 == 0) {
    for (int k = 0; k < W; k += 16)
      _mm512_storeu_ps(
          f + k, _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + k))));
    return;
  }
#endif
#if !EDDY_GPU && defined(__F16C__)
  if constexpr (W % 8 == 0) {
    for (int k = 0; k < W; k += 8)
      _mm256_storeu_ps(f + k, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + k))));
    return;
  }
#endif
  EDDY_SIMD for (int k = 0; k < W; ++k) f[k] = half_bits_to_float(h[k]);
}

/// The halves' bits of W floats, rounded to nearest even, lane by lane (as half_bits_to_float_lanes).
template <int W>
EDDY_HD EDDY_INLINE void float_to_half_bits_lanes(const float (&f)[W], std::uint16_t (&h)[W]) {
#if !EDDY_GPU && defined(__AVX512F__)
  if constexpr (W % 16 == 0) {
    for (int k = 0; k < W; k += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + k),
                          _mm512_maskz_cvtps_ph(0xffff, _mm512_loadu_ps(f + k),
                                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return;
  }
#endif
#if !EDDY_GPU && defined(__F16C__)
  if constexpr (W % 8 == 0) {
    for (int k = 0; k < W; k += 8)
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(h + k),
          _mm256_cvtps_ph(_mm256_loadu_ps(f + k), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return;
  }
#endif
  EDDY_SIMD for (int k = 0; k < W; ++k) h[k] = float_to_half_bits(f[k]);
}

}  // namespace eddy::backend
