// backend::FastDiv (the box launches' index decoding) against integer division.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "backend/fast_div.hpp"

using eddy::backend::FastDiv;

namespace {
constexpr std::uint32_t top = (std::uint32_t(1) << 31) - 1;  // the largest dividend it promises
}

TEST(FastDiv, EveryDivisorUpTo4096OnEdgesAndRandomDividends) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> any(0, top);
  for (std::uint32_t d = 1; d <= 4096; ++d) {
    const FastDiv f(d);
    // the dividends next to multiples of d, where a wrong rounding shows first
    for (const std::uint32_t k : {std::uint32_t(1), std::uint32_t(2), std::uint32_t(1000), top / d}) {
      const std::uint64_t q = std::uint64_t(k) * d;
      for (std::uint64_t n = q >= 1 ? q - 1 : 0; n <= q + 1 && n <= top; ++n)
        ASSERT_EQ(f.div(std::uint32_t(n)), std::uint32_t(n) / d) << n << " / " << d;
    }
    for (int i = 0; i < 200; ++i) {
      const std::uint32_t n = any(rng);
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
    ASSERT_EQ(f.div(top), top / d);
    ASSERT_EQ(f.div(0), 0u);
  }
}

TEST(FastDiv, LargeAndPowerOfTwoDivisors) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::uint32_t> any(0, top);
  std::uniform_int_distribution<std::uint32_t> div(4097, top);
  for (int j = 0; j < 2000; ++j) {
    const std::uint32_t d = div(rng);
    const FastDiv f(d);
    for (int i = 0; i < 100; ++i) {
      const std::uint32_t n = any(rng);
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
    ASSERT_EQ(f.div(d - 1), 0u);
    ASSERT_EQ(f.div(d), 1u);
    ASSERT_EQ(f.div(top), top / d);
  }
  for (int l = 0; l <= 31; ++l) {
    const std::uint32_t d = std::uint32_t(1) << l;
    const FastDiv f(d);
    for (const std::uint32_t n : {std::uint32_t(0), d - 1, d, top, top - 1})
      if (n <= top) ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
  }
}
