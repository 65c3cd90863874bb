// Exact profile sums (field/profile.hpp): the fixed-point chunks of a value, and the totals the device
// sums fold into, against 128-bit integer arithmetic on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backend/parallel.hpp"
#include "field/profile.hpp"
#include "field/profile_k.hpp"

namespace eddy {
namespace {

using i128 = __int128;

// trunc(v 2^64) exactly: v = M 2^(e - 53) with M an integer below 2^53, so v 2^64 = M 2^(e + 11).
i128 exact_fixed(double v) {
  if (!(v > -16.0 && v < 16.0) || v == 0.0) return 0;
  int e = 0;
  const double mant = std::frexp(std::fabs(v), &e);  // in [0.5, 1)
  const auto m = static_cast<i128>(std::ldexp(mant, 53));
  const int s = e + 11;
  const i128 x = s >= 0 ? m << s : (s > -127 ? m >> -s : 0);
  return v < 0 ? -x : x;
}

i128 from_chunks(const int (&c)[3]) {
  return static_cast<i128>(c[2]) * (i128(1) << 42) + static_cast<i128>(c[1]) * (i128(1) << 21) + c[0];
}

i128 from_limbs(const long long* l) {
  return static_cast<i128>(l[2]) * (i128(1) << 64) + static_cast<i128>(l[1]) * (i128(1) << 32) + l[0];
}

TEST(ProfileSums, ChunksAreTheValueTruncatedTo2ToTheMinus64) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                std::ldexp(1.0, -64),
                                -std::ldexp(1.0, -64),
                                std::ldexp(1.0, -65),  // below the resolution: 0
                                -std::ldexp(1.0, -65),
                                std::ldexp(3.0, -66),
                                -std::ldexp(3.0, -66),
                                std::ldexp(1.0, -1074),
                                -std::ldexp(1.0, -1074),
                                std::nextafter(16.0, 0.0),
                                -std::nextafter(16.0, 0.0),
                                std::ldexp(1.0, 21 - 64),
                                -std::ldexp(1.0, 42 - 64),
                                0.1,
                                -0.1,
                                -1e-30};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> scale(-70, 3);
  for (int i = 0; i < 100000; ++i) values.push_back(std::ldexp(unit(rng), scale(rng)));
  for (const double v : values) {
    int c[3];
    field::fixed_chunks(v, c);
    ASSERT_EQ(from_chunks(c), exact_fixed(v)) << v;
    ASSERT_GE(c[0], 0) << v;
    ASSERT_LT(c[0], 1 << 21) << v;
    ASSERT_GE(c[1], 0) << v;
    ASSERT_LT(c[1], 1 << 21) << v;
    ASSERT_GE(c[2], -(1 << 26)) << v;
    ASSERT_LT(c[2], 1 << 26) << v;
  }
  // Out of range and NaN count as 0.
  for (const double v : {16.0, -16.0, 1e300, -std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN()}) {
    int c[3] = {1, 1, 1};
    field::fixed_chunks(v, c);
    EXPECT_EQ(c[0] | c[1] | c[2], 0) << v;
  }
}

// Awkward sample values: every magnitude from 2^-75 to 15.9, both signs, zeros, and values that are
// multiples of 2^-64 or below it, from a hash of the cell, the sample and the value's index.
EDDY_HD EDDY_INLINE double awkward(index_t x, index_t y, index_t z, int sample, int i) {
  std::uint32_t h = static_cast<std::uint32_t>(x * 73856093 ^ y * 19349663 ^ z * 83492791) +
                    static_cast<std::uint32_t>(sample * 2654435761u + i * 40503u);
  h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
  if (h % 23 == 0) return 0.0;
  if (h % 29 == 0) return (h & 64u) ? ldexp(1.0, -64) : -ldexp(3.0, -66);
  const double m = double(h % 1000003u) / 1000003.0;
  const double mag = i == 0 ? 15.9 * m : 3.98 * m;  // u_i u_j < 16
  const double v = ldexp(mag, -static_cast<int>((h >> 7) % 76));
  return (h & 1u) ? -v : v;
}

void add_awkward_samples(const field::ProfileView& view, Int3 e, int sample) {
  backend::parallel_for_box("test::add_awkward", e[0], e[1], e[2],
                            [=] EDDY_DEVICE(index_t x, index_t y, index_t z) {
                              double u[3];
                              for (int i = 0; i < 3; ++i) u[i] = awkward(x, y, z, sample, 1 + i);
                              field::add_profile_sample<3>(view, x, y, z, awkward(x, y, z, sample, 0), u);
                            });
}

// Three samples of a 64 x 3 x 2 block, folded after the first and after the last (the sample sums of
// two samples folded at once, too), with bins along y (the cells of a row share a bin: on CUDA the warp
// sums them first) and a bin per cell (each thread adds its own): the totals are the exact sums.
TEST(ProfileSums, FoldedTotalsAreTheExactSums) {
  const Int3 e{64, 3, 2};
  field::MomentLayout m;
  m.dims = 3, m.density = true, m.velocity = true, m.stress = true;
  for (const bool per_cell : {false, true}) {
    SCOPED_TRACE(per_cell ? "a bin per cell" : "bins along y");
    const bool averaged[3] = {!per_cell, false, !per_cell};
    field::ProfileSums sums(m, e, averaged);
    std::vector<i128> want(static_cast<std::size_t>(sums.entries()), 0);
    for (int k = 0; k < 3; ++k) {
      add_awkward_samples(sums.view(), e, k);
      if (k != 1) sums.fold();
      for (index_t z = 0; z < e[2]; ++z)
        for (index_t y = 0; y < e[1]; ++y)
          for (index_t x = 0; x < e[0]; ++x) {
            const index_t bin = per_cell ? x + e[0] * (y + e[1] * z) : y;
            double u[3];
            for (int i = 0; i < 3; ++i) u[i] = awkward(x, y, z, k, 1 + i);
            std::vector<double> v = {awkward(x, y, z, k, 0), u[0], u[1], u[2]};
            for (int i = 0; i < 3; ++i)
              for (int j = i; j < 3; ++j) v.push_back(u[i] * u[j]);
            for (std::size_t s = 0; s < v.size(); ++s)
              want[static_cast<std::size_t>(bin * m.count()) + s] += exact_fixed(v[s]);
          }
    }
    const std::vector<long long> got = sums.totals();
    ASSERT_EQ(got.size(), 3 * want.size());
    int wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const long long* l = got.data() + 3 * i;
      wrong += from_limbs(l) != want[i] || l[0] < 0 || l[0] >= (1ll << 32) || l[1] < 0 || l[1] >= (1ll << 32);
    }
    EXPECT_EQ(wrong, 0) << "of " << want.size() << " entries";
  }
}

// A layout without density and stress: the values it lacks go nowhere.
TEST(ProfileSums, OnlyTheLayoutsSlotsAreSummed) {
  const Int3 e{64, 3, 2};
  field::MomentLayout m;
  m.dims = 3, m.velocity = true;
  const bool averaged[3] = {true, false, true};
  field::ProfileSums sums(m, e, averaged);
  add_awkward_samples(sums.view(), e, 0);
  const std::vector<long long> got = sums.totals();
  ASSERT_EQ(got.size(), std::size_t(3 * 3 * e[1]));
  for (index_t y = 0; y < e[1]; ++y)
    for (int i = 0; i < 3; ++i) {
      i128 want = 0;
      for (index_t z = 0; z < e[2]; ++z)
        for (index_t x = 0; x < e[0]; ++x) want += exact_fixed(awkward(x, y, z, 0, 1 + i));
      EXPECT_TRUE(from_limbs(got.data() + 3 * (3 * y + i)) == want) << "y " << y << " u_" << i;
    }
}

}  // namespace
}  // namespace eddy
