// The copies eddy bench measures its bandwidth ceiling with (backend.hpp, copy_bandwidth).
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "backend/parallel.hpp"

namespace eddy::backend {
namespace {

/// 16 bytes, copied by one load and one store (a vector access on GPUs and CPUs).
struct alignas(16) Bytes16 {
  double a, b;
};

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// GB/s of `moved` bytes: the median of `repeats` runs of copy() after one warm-up, each timed by the
/// device.
template <class Copy>
double time_copy(double moved, int repeats, Copy copy) {
  DeviceTimer timer;
  copy();  // warm-up: first touch, clocks up
  std::vector<double> t;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    timer.start();
    copy();
    t.push_back(timer.stop());
  }
  return moved / median(t) / 1e9;
}

}  // namespace

CopyBandwidth copy_bandwidth(std::size_t bytes, int repeats) {
  const index_t n = static_cast<index_t>(bytes / sizeof(Bytes16));
  DeviceArray<Bytes16> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  fill_zero(a.data(), std::size_t(n) * sizeof(Bytes16));
  const Bytes16* pa = a.data();
  Bytes16* pb = b.data();
  const double moved = 2.0 * double(n) * sizeof(Bytes16);
  CopyBandwidth result;
  const auto run = [&](const std::string& method, auto copy) {
    result.methods.emplace_back(method, time_copy(moved, repeats, copy));
  };
  if constexpr (is_gpu()) {
    // Grid-stride: `threads` threads each copy every threads-th 16 bytes.
    const index_t units = std::max(1, device_info().compute_units);
    for (const index_t blocks_per_unit : {1, 2, 4, 8}) {
      const index_t threads = units * blocks_per_unit * 256;
      run("grid-stride 16 B, " + std::to_string(blocks_per_unit) + " blocks of 256 per compute unit", [=] {
        parallel_for("bench::copy_grid_stride", threads, [=] EDDY_DEVICE(index_t t) {
          for (index_t i = t; i < n; i += threads) pb[i] = pa[i];
        });
      });
    }
    run("parallel_for 16 B",
        [=] { parallel_for("bench::copy_16", n, [=] EDDY_DEVICE(index_t i) { pb[i] = pa[i]; }); });
  } else {
    // One contiguous range per OpenMP thread (parallel_for's static schedule), vectorized.
    run("16 B elements, one range per thread",
        [=] { parallel_for("bench::copy_16", n, [=] EDDY_DEVICE(index_t i) { pb[i] = pa[i]; }); });
  }
  run("memcpy", [=] { copy_on_device(pb, pa, std::size_t(n) * sizeof(Bytes16)); });
  for (const auto& [method, gbs] : result.methods)
    if (gbs > result.gbs) result.gbs = gbs, result.method = method;
  return result;
}

double copy_bandwidth_parallel_for(std::size_t bytes, int repeats) {
  using V = double;
  const index_t n = static_cast<index_t>(bytes / sizeof(V));
  DeviceArray<V> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  V* pa = a.data();
  V* pb = b.data();
  std::vector<double> t;
  for (int r = 0; r <= repeats; ++r) {
    fence();
    const auto t0 = std::chrono::steady_clock::now();
    parallel_for("bench::copy", n, [=] EDDY_DEVICE(index_t i) { pb[i] = pa[i] + V(1); });
    fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) t.push_back(s);  // the first run is the warm-up
  }
  return 2.0 * double(n) * sizeof(V) / median(t) / 1e9;
}

}  // namespace eddy::backend
