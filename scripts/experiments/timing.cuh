// Shared by the experiments here: a status check that exits on failure, and the median time of a GPU call.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                         \
  do {                                                                \
    auto e = (x);                                                     \
    if (e != 0) {                                                     \
      std::printf("error %d at %s:%d\n", int(e), __FILE__, __LINE__); \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

/// Median of 20 timings (CUDA events) of f() after 3 warm-up calls, ms.
template <class F>
float time_ms(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
