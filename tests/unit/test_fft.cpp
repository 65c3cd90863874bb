// backend/fft.hpp: fft_available() is true exactly where plans can be made, round trips (r2c then c2r, c2c
// forward then backward) are exact to round-off, the forward transform puts a pure mode where and with the
// sign and scale the convention says, and batched and strided layouts address the elements they describe.
// Each body runs on the configured backend. The host's complex product is rounded as written, however the
// compiler vectorizes it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/fft.hpp"

namespace {

using eddy::index_t;
using eddy::backend::Complex;
using eddy::backend::DeviceArray;
using eddy::backend::FftKind;
using eddy::backend::FftLayout;
using eddy::backend::FftPlan;

/// Deterministic values in [-1, 1) (a 64-bit LCG), so that failures reproduce.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (T& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<T>(static_cast<double>(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
  return v;
}

/// Why an FFT test is skipped: only a HIP build without hipFFT has no FFT library.
constexpr const char* kNoFft =
    "no FFT library in this build: a HIP build runs these tests where CMake finds hipFFT (ROCm's hipfft "
    "package, EDDY_HIPFFT_INCLUDE/EDDY_HIPFFT_LIBRARY, or hipFFT's CUDA layer beside the HIP headers of "
    "HIP on NVIDIA); Debian ships none";

index_t product(const std::vector<index_t>& n) {
  index_t p = 1;
  for (index_t k : n) p *= k;
  return p;
}

/// Max |x - c2r(r2c(x)) / N| / max |x| over a batch of `batch` contiguous transforms of shape n.
template <class T>
double r2c_round_trip_error(const std::vector<index_t>& n, index_t batch) {
  FftLayout l;
  l.n = n;
  l.batch = batch;
  const index_t points = product(n);
  const index_t half = points / n.back() * (n.back() / 2 + 1);
  const FftPlan<T> fwd(FftKind::r2c, l), bwd(FftKind::c2r, l);
  const std::vector<T> x = random_values<T>(static_cast<std::size_t>(points * batch), 7);
  DeviceArray<T> d_x, d_y(static_cast<std::size_t>(points * batch));
  d_x.from_host(x);
  DeviceArray<Complex<T>> d_c(static_cast<std::size_t>(half * batch));
  fwd.execute(d_x.data(), d_c.data());
  bwd.execute(d_c.data(), d_y.data());
  const std::vector<T> y = d_y.to_host();
  double err = 0, scale = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    err = std::max(err, std::fabs(double(y[k]) / double(points) - double(x[k])));
    scale = std::max(scale, std::fabs(double(x[k])));
  }
  return err / scale;
}

/// fft_available(), which the spectral solver and these tests go by, says whether plans can be made: where
/// it is true a plan of every kind is made in both precisions, where it is false making one throws an
/// error that names what the build lacks (backend/fft_none.cpp), and no other test here runs.
TEST(Fft, AvailableExactlyWhereAPlanCanBeMade) {
  FftLayout l;
  l.n = {8, 6};
  for (FftKind kind : {FftKind::r2c, FftKind::c2r, FftKind::c2c_forward, FftKind::c2c_backward}) {
    if (eddy::backend::fft_available()) {
      EXPECT_NO_THROW(FftPlan<double>(kind, l));
      EXPECT_NO_THROW(FftPlan<float>(kind, l));
      continue;
    }
    try {
      const FftPlan<float> plan(kind, l);
      ADD_FAILURE() << "fft_available() is false, yet a plan was made";
    } catch (const eddy::Error& e) {
      EXPECT_NE(std::string(e.what()).find("not available in this build"), std::string::npos) << e.what();
    }
  }
}

template <class T>
void expect_round_trip(const std::vector<index_t>& n, index_t batch, double tol) {
  const double e = r2c_round_trip_error<T>(n, batch);
  std::printf("round trip %s, %zuD, %lld points x %lld: max relative error %.2e\n",
              sizeof(T) == 8 ? "fp64" : "fp32", n.size(), static_cast<long long>(product(n)),
              static_cast<long long>(batch), e);
  EXPECT_LT(e, tol);
}

TEST(Fft, RoundTripR2cC2rFp64Is1e14) {
  if (!eddy::backend::fft_available()) GTEST_SKIP() << kNoFft;
  expect_round_trip<double>({64}, 7, 1e-14);
  expect_round_trip<double>({48, 30}, 3, 1e-14);      // 2D, even sizes with factors 2, 3, 5
  expect_round_trip<double>({17, 9}, 2, 1e-14);       // odd sizes (prime, odd last dim)
  expect_round_trip<double>({32, 24, 16}, 3, 1e-14);  // 3D, a batch of three components
  expect_round_trip<double>({10, 12, 7}, 2, 1e-14);
}

TEST(Fft, RoundTripR2cC2rFp32) {
  if (!eddy::backend::fft_available()) GTEST_SKIP() << kNoFft;
  // FP32: a few units of 2^-24 times log2(N).
  expect_round_trip<float>({64, 64}, 2, 2e-6);
  expect_round_trip<float>({32, 24, 16}, 3, 2e-6);
}

/// A pure mode sin(2 pi (a x / nx + b y / ny)) transforms to -i N / 2 at (b, a) of the half spectrum
/// (forward = exp(-i k x)) and to nothing else.
TEST(Fft, PureModeLandsWhereTheConventionSays) {
  if (!eddy::backend::fft_available()) GTEST_SKIP() << kNoFft;
  const index_t nx = 16, ny = 12, a = 3, b = 2, nh = nx / 2 + 1;
  std::vector<double> x(static_cast<std::size_t>(nx * ny));
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i)
      x[static_cast<std::size_t>(j * nx + i)] =
          std::sin(2 * M_PI * (double(a * i) / nx + double(b * j) / ny));
  FftLayout l;
  l.n = {ny, nx};
  const FftPlan<double> fwd(FftKind::r2c, l);
  DeviceArray<double> d_x;
  d_x.from_host(x);
  DeviceArray<Complex<double>> d_c(static_cast<std::size_t>(ny * nh));
  fwd.execute(d_x.data(), d_c.data());
  const auto c = d_c.to_host();
  const double N = double(nx * ny);
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nh; ++i) {
      const Complex<double> v = c[static_cast<std::size_t>(j * nh + i)];
      const double want_im = (i == a && j == b) ? -N / 2 : 0.0;
      EXPECT_NEAR(v.re, 0.0, 1e-12 * N) << i << "," << j;
      EXPECT_NEAR(v.im, want_im, 1e-12 * N) << i << "," << j;
    }
}

/// Strided, batched 1D c2c along the slowest axis of a [n][m] array (stride m, batch m, distance 1), the
/// layout the slab-decomposed 3D transform uses: forward then backward is N times the identity, and the
/// forward result equals the transform of each column done one by one.
TEST(Fft, StridedC2cAlongTheSlowestAxis) {
  if (!eddy::backend::fft_available()) GTEST_SKIP() << kNoFft;
  const index_t n = 24, m = 10;
  FftLayout l;
  l.n = {n};
  l.batch = m;
  l.stride = m;
  l.in_dist = l.out_dist = 1;
  const FftPlan<double> fwd(FftKind::c2c_forward, l), bwd(FftKind::c2c_backward, l);
  const std::vector<double> r = random_values<double>(static_cast<std::size_t>(2 * n * m), 3);
  std::vector<Complex<double>> x(static_cast<std::size_t>(n * m));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = {r[2 * k], r[2 * k + 1]};
  DeviceArray<Complex<double>> d;
  d.from_host(x);
  fwd.execute(d.data());
  const auto f = d.to_host();
  // Direct DFT of column 4.
  const index_t col = 4;
  for (index_t k = 0; k < n; ++k) {
    double re = 0, im = 0;
    for (index_t j = 0; j < n; ++j) {
      const double ph = -2 * M_PI * double(j * k) / n;
      const Complex<double> v = x[static_cast<std::size_t>(j * m + col)];
      re += v.re * std::cos(ph) - v.im * std::sin(ph);
      im += v.re * std::sin(ph) + v.im * std::cos(ph);
    }
    EXPECT_NEAR(f[static_cast<std::size_t>(k * m + col)].re, re, 1e-12);
    EXPECT_NEAR(f[static_cast<std::size_t>(k * m + col)].im, im, 1e-12);
  }
  bwd.execute(d.data());
  const auto y = d.to_host();
  double err = 0;
  for (std::size_t k = 0; k < x.size(); ++k)
    err = std::max({err, std::fabs(y[k].re / n - x[k].re), std::fabs(y[k].im / n - x[k].im)});
  EXPECT_LT(err, 1e-14);
}

/// Out of place (FftLayout::out_of_place, out_stride): the columns [2, 7) of a [n][m] array into the
/// columns [1, 6) of a [n][w] array (the compact-buffer-to-spectrum transform of spectral/slab_fft.cpp)
/// give the in-place transform of those columns, to round-off (1e-13: O(1) values, n = 24), and touch
/// nothing else of the output; backward the other way round gives n times the input.
TEST(Fft, OutOfPlaceC2cWithOtherStrides) {
  if (!eddy::backend::fft_available()) GTEST_SKIP() << kNoFft;
  const index_t n = 24, m = 10, w = 7, first = 2, to = 1, batch = 5;
  FftLayout in_place;
  in_place.n = {n};
  in_place.batch = batch;
  in_place.stride = m;
  in_place.in_dist = in_place.out_dist = 1;
  FftLayout there = in_place, back = in_place;
  there.out_stride = w;
  there.out_of_place = true;
  back.stride = w;
  back.out_stride = m;
  back.out_of_place = true;
  const FftPlan<double> ref(FftKind::c2c_forward, in_place), fwd(FftKind::c2c_forward, there),
      bwd(FftKind::c2c_backward, back);
  const std::vector<double> r = random_values<double>(static_cast<std::size_t>(2 * n * m), 5);
  std::vector<Complex<double>> x(static_cast<std::size_t>(n * m));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = {r[2 * k], r[2 * k + 1]};
  const Complex<double> blank{-7.0, 7.0};
  DeviceArray<Complex<double>> a, b, c;
  a.from_host(x);
  c.from_host(x);
  b.from_host(std::vector<Complex<double>>(static_cast<std::size_t>(n * w), blank));
  fwd.execute_out_of_place(a.data() + first, b.data() + to);
  ref.execute(c.data() + first);
  const auto got = b.to_host(), want = c.to_host();
  double err = 0;
  long touched = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t k = 0; k < w; ++k) {
      const Complex<double>& g = got[static_cast<std::size_t>(j * w + k)];
      if (k < to || k >= to + batch) {
        touched += g.re != blank.re || g.im != blank.im;
        continue;
      }
      const Complex<double>& e = want[static_cast<std::size_t>(j * m + first + k - to)];
      err = std::max({err, std::fabs(g.re - e.re), std::fabs(g.im - e.im)});
    }
  EXPECT_LT(err, 1e-13);
  EXPECT_EQ(touched, 0);
  DeviceArray<Complex<double>> d(static_cast<std::size_t>(n * m));
  bwd.execute_out_of_place(b.data() + to, d.data() + first);
  const auto y = d.to_host();
  err = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t k = first; k < first + batch; ++k) {
      const auto i = static_cast<std::size_t>(j * m + k);
      err = std::max({err, std::fabs(y[i].re / n - x[i].re), std::fabs(y[i].im / n - x[i].im)});
    }
  EXPECT_LT(err, 1e-14);
  EXPECT_THROW(fwd.execute(a.data()), eddy::Error);                         // in-place call of it
  EXPECT_THROW(ref.execute_out_of_place(a.data(), b.data()), eddy::Error);  // an in-place plan
  EXPECT_THROW(fwd.execute_out_of_place(a.data(), a.data()), eddy::Error);  // one array
}

TEST(Fft, BadLayoutIsRefused) {
  FftLayout l;
  l.n = {};
  EXPECT_THROW(FftPlan<double>(FftKind::r2c, l), eddy::Error);
  l.n = {8, 8, 8, 8};
  EXPECT_THROW(FftPlan<double>(FftKind::r2c, l), eddy::Error);
  l.n = {8, 0};
  EXPECT_THROW(FftPlan<double>(FftKind::r2c, l), eddy::Error);
  l.n = {8};
  l.out_of_place = true;  // c2c only
  EXPECT_THROW(FftPlan<double>(FftKind::r2c, l), eddy::Error);
  l.out_of_place = false;
  l.out_stride = 2;  // an in-place c2c has one stride
  EXPECT_THROW(FftPlan<double>(FftKind::c2c_forward, l), eddy::Error);
}

/// Complex<T> * Complex<T> on the host: each product rounded, then their difference (real part) and sum
/// (imaginary part), never a fused multiply-add, both in loops the compiler vectorizes (a product per
/// element, and every element times one factor, as the phase shifts of spectral_solver.cpp) and against
/// the products formed one by one. GCC 12 with FMA (-march=native, x86-64-v3) fused the plain form
/// re = a.re b.re - a.im b.im in such loops in spite of -ffp-contract=off (backend/fft.hpp: operator*).
template <class T>
int unfused_product_mismatches() {
  const std::size_t n = 1000;
  const std::vector<T> x = random_values<T>(4 * n, 3);
  std::vector<Complex<T>> a(n), b(n), ab(n), a_factor(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = {x[i], x[n + i]}, b[i] = {x[2 * n + i], x[3 * n + i]};
  const Complex<T> factor = b[0];
  for (std::size_t i = 0; i < n; ++i) ab[i] = a[i] * b[i];
  for (std::size_t i = 0; i < n; ++i) a_factor[i] = a[i] * factor;
  int bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < 2; ++k) {
      const Complex<T> u = a[i], v = k == 0 ? b[i] : factor, got = k == 0 ? ab[i] : a_factor[i];
      // Each product stored and read back: rounded on its own, whatever the compiler's contraction.
      volatile T p = u.re * v.re, q = u.im * v.im, r = u.re * v.im, s = u.im * v.re;
      const Complex<T> want{p - q, r + s};
      if (std::memcmp(&got, &want, sizeof got) != 0) ++bad;
    }
  return bad;
}

TEST(Fft, ComplexProductIsRoundedAsWritten) {
  EXPECT_EQ(unfused_product_mismatches<float>(), 0);
  EXPECT_EQ(unfused_product_mismatches<double>(), 0);
}

}  // namespace
