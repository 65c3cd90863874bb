// backend::parallel_reduce: the same bits run to run on every backend, and on the CPU backend whatever the
// number of threads (a fixed partition of the range: parallel_cpu.hpp, reduce_blocks). The terms span
// twenty orders of magnitude with both signs, so every other grouping of the additions rounds differently.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "backend/parallel.hpp"

#if !EDDY_GPU
#include <omp.h>
#endif

namespace eddy {
namespace {

double sum_of_terms(index_t n) {
  return backend::parallel_reduce(
      "test::sum", n, 0.0,
      [=] EDDY_DEVICE(index_t i) {
        const double x = double(i % 97) - 48.3;
        return x * x * x * std::pow(10.0, double(i % 21) - 10.0);
      },
      [] EDDY_DEVICE(double a, double b) { return a + b; });
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(ParallelReduce, SameBitsRunToRunAndOnAnyNumberOfThreads) {
  for (const index_t n :
       {index_t(0), index_t(1), index_t(5), index_t(1023), index_t(1025), index_t(300001)}) {
    const double once = sum_of_terms(n);
    EXPECT_TRUE(same_bits(once, sum_of_terms(n))) << n;
    double sequential = 0;  // the sum in index order: a different grouping, different bits for large n
    for (index_t i = 0; i < n; ++i) {
      const double x = double(i % 97) - 48.3;
      sequential += x * x * x * std::pow(10.0, double(i % 21) - 10.0);
    }
    EXPECT_NEAR(once, sequential, 1e-9 * std::fabs(sequential) + 1e-300) << n;
#if !EDDY_GPU
    if (n <= 1024) EXPECT_TRUE(same_bits(once, sequential)) << n << ": one term a block, combined in order";
    const int threads = omp_get_max_threads();
    for (const int t : {1, 2, 3, 4, 7}) {
      omp_set_num_threads(t);
      EXPECT_TRUE(same_bits(once, sum_of_terms(n))) << n << " terms on " << t << " threads";
    }
    omp_set_num_threads(threads);
#endif
  }
}

}  // namespace
}  // namespace eddy
