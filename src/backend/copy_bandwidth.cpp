// The copy kernel eddy bench measures its bandwidth ceiling with.
#include <algorithm>
#include <chrono>
#include <vector>

#include "backend/parallel.hpp"

namespace eddy::backend {

double copy_bandwidth(std::size_t bytes, int repeats) {
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
  std::sort(t.begin(), t.end());
  return 2.0 * double(n) * sizeof(V) / t[t.size() / 2] / 1e9;
}

}  // namespace eddy::backend
