#pragma once
/// Division by an invariant divisor as a multiply and a shift (Granlund & Montgomery 1994), for the
/// index decoding of kernels: a 32-bit integer division is a sequence of some twenty instructions on a
/// GPU, and a kernel that finds its cell from a flat thread index divides twice per thread.
///
/// For a divisor d >= 1 and dividends n < 2^31: l = ceil(log2 d), m = floor(2^32 (2^l - d) / d) + 1
/// (which is < 2^32), and n / d = (mulhi(m, n) + n) >> l, mulhi(m, n) = floor(m n / 2^32). The sum stays
/// below 2^32 because mulhi(m, n) <= n < 2^31. tests/unit/test_fast_div.cpp checks it against `/`.
#include <cstdint>

#include "backend/macros.hpp"

namespace eddy::backend {

struct FastDiv {
  std::uint32_t d = 1, m = 1, l = 0;

  FastDiv() = default;
  explicit FastDiv(std::uint32_t divisor) : d(divisor) {
    while ((std::uint64_t(1) << l) < d) ++l;
    m = static_cast<std::uint32_t>((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - d) / d + 1);
  }
  /// n / d for n < 2^31.
  EDDY_HD EDDY_INLINE std::uint32_t div(std::uint32_t n) const {
#if EDDY_DEVICE_PASS
    const std::uint32_t hi = __umulhi(m, n);
#else
    const auto hi = static_cast<std::uint32_t>((std::uint64_t(m) * n) >> 32);
#endif
    return (hi + n) >> l;
  }
};

}  // namespace eddy::backend
