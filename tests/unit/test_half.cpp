// The 16-bit storage type (backend/half.hpp): binary16 <-> float conversions, round to nearest even.
//
// References, each independent of the bit manipulation under test:
//   - exact arithmetic in double: a half is (-1)^s 2^(e-15) (1 + m/1024), or m 2^-24 when e = 0, and the
//     correctly rounded half of a float x is nearbyint(x / ulp) ulp in the default rounding mode (ties to
//     even), ulp = 2^(max(floor(log2|x|), -14) - 10), inf from 65520 up (every step is exact in double);
//   - the compiler's _Float16 where it has one (GCC >= 12, Clang on x86-64);
//   - on a GPU build, the device's own conversion instructions (the backend's to_half / to_float in a
//     kernel) against the portable code on the host: the CPU and the GPU must store the same bits.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "backend/half.hpp"
#include "backend/parallel.hpp"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace {

using eddy::index_t;
using eddy::backend::float_to_half_bits;
using eddy::backend::Half;
using eddy::backend::half_bits_to_float;

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

/// The value of a half from its fields (NaN for NaN, inf for inf).
double half_value(std::uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double sign = s ? -1.0 : 1.0;
  if (e == 0x1f) return m ? std::nan("") : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(double(m), -24);
  return sign * std::ldexp(1.0 + m / 1024.0, e - 15);
}

/// The correctly rounded (ties to even) half of x, as a double (inf past the range).
double rounded_half(float x) {
  const double a = std::fabs(double(x));
  if (a == 0.0 || std::isinf(a)) return double(x);
  const int e = std::max(int(std::floor(std::log2(a))), -14);
  const double ulp = std::ldexp(1.0, e - 10);
  const double r = std::nearbyint(a / ulp) * ulp;  // default rounding mode: to nearest, ties to even
  const double v = r > 65504.0 ? INFINITY : r;
  return std::signbit(x) ? -v : v;
}

/// Same half, NaN matching NaN whatever the payload.
bool same_half(std::uint16_t a, std::uint16_t b) {
  const bool na = (a & 0x7c00) == 0x7c00 && (a & 0x3ff), nb = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
  return na || nb ? na == nb : a == b;
}

/// Floats that exercise the conversion: every half, every midpoint between neighbouring halves (the
/// ties) and the floats one ulp either side of it, the overflow and underflow edges, and random bit
/// patterns plus random values spread over the exponents the half range covers.
std::vector<float> probe_floats(std::size_t random_count) {
  std::vector<float> v;
  for (std::uint32_t h = 0; h < 0x7c00; ++h) {
    for (std::uint32_t s : {0u, 0x8000u}) {
      const float a = half_bits_to_float(std::uint16_t(h | s));
      const float b = half_bits_to_float(std::uint16_t((h + 1) | s));  // 0x7c00 is inf: the overflow tie
      const float mid = h + 1 == 0x7c00 ? (s ? -65520.0f : 65520.0f) : 0.5f * (a + b);  // exact: 12 bits
      v.insert(v.end(), {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 2.0f * mid)});
    }
  }
  // 2^-25 is the tie between 0 and the smallest subnormal; float subnormals all round to zero.
  for (float x :
       {0x1p-25f, 0x1.000002p-25f, 0x1.fffffep-26f, 0x1p-24f, 0x1p-126f, 0x1p-149f, 0x1.fffffcp-127f,
        65504.0f, 65519.996f, 65520.0f, 1e30f, INFINITY, 0x1.ffcp-15f, 0x1p-14f, 0x1.ffep-15f})
    v.insert(v.end(), {x, -x});
  std::mt19937 rng(20261130);
  std::uniform_real_distribution<float> exponent(-28.0f, 17.0f), mantissa(1.0f, 2.0f);
  for (std::size_t k = 0; k < random_count; ++k) {
    v.push_back(from_bits(std::uint32_t(rng())));
    const float x = std::ldexp(mantissa(rng), int(std::floor(exponent(rng))));
    v.push_back(rng() & 1 ? x : -x);
  }
  return v;
}

TEST(Half, EveryHalfConvertsExactlyToFloatAndBack) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const std::uint16_t b = std::uint16_t(h);
    const float f = half_bits_to_float(b);
    const double want = half_value(b);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(same_half(float_to_half_bits(f), b)) << std::hex << h;
      continue;
    }
    ASSERT_EQ(double(f), want) << std::hex << h;
    ASSERT_EQ(std::signbit(f), bool(h & 0x8000)) << std::hex << h;
    ASSERT_EQ(float_to_half_bits(f), b) << std::hex << h;
  }
}

TEST(Half, FloatToHalfRoundsToNearestEven) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  long checked = 0;
  for (float x : probe_floats(1 << 21)) {
    const std::uint16_t got = float_to_half_bits(x);
    if (std::isnan(x)) {
      EXPECT_TRUE(same_half(got, 0x7fff)) << x;
      continue;
    }
    const double want = rounded_half(x);
    ASSERT_EQ(half_value(got), want) << "x = " << x << std::hex << " got 0x" << got;
    ASSERT_EQ(bool(got & 0x8000), std::signbit(x)) << x;  // -0 stays -0, tiny negatives round to -0
    ++checked;
  }
  EXPECT_GT(checked, 4000000);
  // The ties, spelled out: 1 + 2^-11 lies between 1 and 1 + 2^-10 and goes to 1 (even); 1 + 3 2^-11 goes
  // up to 1 + 2^-9 (even); 2^-25 goes to +0; 65520 to inf; 65519.996 to 65504.
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(float_to_half_bits(0x1p-25f), 0x0000);
  EXPECT_EQ(float_to_half_bits(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(float_to_half_bits(-65520.0f), 0xfc00);
  EXPECT_EQ(float_to_half_bits(65519.996f), 0x7bff);
}

#if defined(__FLT16_MAX__)
TEST(Half, MatchesTheCompilersFloat16) {
  for (float x : probe_floats(1 << 21)) {
    const _Float16 r = static_cast<_Float16>(x);
    std::uint16_t want;
    std::memcpy(&want, &r, 2);
    ASSERT_TRUE(same_half(float_to_half_bits(x), want)) << "x = " << x;
  }
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const std::uint16_t b = std::uint16_t(h);
    _Float16 r;
    std::memcpy(&r, &b, 2);
    const float want = static_cast<float>(r), got = half_bits_to_float(b);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got));
    else
      ASSERT_EQ(std::memcmp(&got, &want, 4), 0) << std::hex << h;
  }
}
#endif

void device_to_half(const float* in, std::uint16_t* out, index_t n) {
  eddy::backend::parallel_for("test::to_half", n,
                              [=] EDDY_DEVICE(index_t i) { out[i] = eddy::backend::to_half(in[i]).bits; });
}

void device_to_float(float* out) {
  eddy::backend::parallel_for("test::to_float", 0x10000, [=] EDDY_DEVICE(index_t i) {
    out[i] = eddy::backend::to_float(Half{std::uint16_t(i)});
  });
}

// On a GPU build this is the device's conversion instruction against the portable code; on the CPU
// backend to_half / to_float are the portable code, and the check is that the dispatch picks it.
TEST(Half, BackendConversionsGiveThePortableBits) {
  const std::vector<float> x = probe_floats(1 << 20);
  eddy::backend::DeviceArray<float> d_in;
  d_in.from_host(x);
  eddy::backend::DeviceArray<std::uint16_t> d_out(x.size());
  device_to_half(d_in.data(), d_out.data(), index_t(x.size()));
  const std::vector<std::uint16_t> got = d_out.to_host();
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_TRUE(same_half(got[i], float_to_half_bits(x[i]))) << "x = " << x[i] << std::hex << " 0x" << got[i];

  eddy::backend::DeviceArray<float> d_f(0x10000);
  device_to_float(d_f.data());
  const std::vector<float> f = d_f.to_host();
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float want = half_bits_to_float(std::uint16_t(h));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(f[h]));
    else
      ASSERT_EQ(std::memcmp(&f[h], &want, 4), 0) << std::hex << h;
  }
}

/// The lane conversions of the CPU's row chunks (half_bits_to_float_lanes, float_to_half_bits_lanes: the
/// x86 conversion instructions where the build has F16C or AVX-512) against the portable code, lane by
/// lane, W = 32 as the chunks (parallel_cpu.hpp, row_chunk) and W = 8, 16 and 24.
template <int W>
void expect_lanes_portable(const std::vector<float>& x) {
  for (std::size_t i0 = 0; i0 + W <= x.size(); i0 += W) {
    float f[W];
    std::uint16_t h[W];
    for (int k = 0; k < W; ++k) f[k] = x[i0 + k];
    eddy::backend::float_to_half_bits_lanes<W>(f, h);
    for (int k = 0; k < W; ++k)
      ASSERT_TRUE(same_half(h[k], float_to_half_bits(f[k]))) << "x = " << f[k] << std::hex << " 0x" << h[k];
  }
  for (std::uint32_t h0 = 0; h0 < 0x10000; h0 += W) {
    std::uint16_t h[W];
    float f[W];
    for (int k = 0; k < W; ++k) h[k] = std::uint16_t((h0 + k) & 0xffff);
    eddy::backend::half_bits_to_float_lanes<W>(h, f);
    for (int k = 0; k < W; ++k) {
      const float want = half_bits_to_float(h[k]);
      if (std::isnan(want))
        ASSERT_TRUE(std::isnan(f[k])) << std::hex << h[k];
      else
        ASSERT_EQ(std::memcmp(&f[k], &want, 4), 0) << std::hex << h[k];
    }
  }
}

// Also with subnormals flushed to zero and read as zero (FTZ and DAZ), the mode the CPU backend runs its
// threads in (backend::initialize): half subnormals must still convert exactly both ways.
TEST(Half, LaneConversionsGiveThePortableBits) {
  const std::vector<float> x = probe_floats(1 << 20);
#if defined(__SSE__)
  const unsigned csr = _mm_getcsr();
  for (const unsigned mode : {csr, csr | 0x8040u}) {  // 0x8040: FTZ | DAZ
    _mm_setcsr(mode);
#endif
    expect_lanes_portable<32>(x);
    expect_lanes_portable<16>(x);
    expect_lanes_portable<24>(x);
    expect_lanes_portable<8>(x);
#if defined(__SSE__)
  }
  _mm_setcsr(csr);
#endif
}

}  // namespace
