#pragma once
/// parallel_for / parallel_reduce on CUDA and HIP: one thread per index, grid-stride loops.
///
/// Reductions: each block reduces in shared memory and writes one partial; the partials are copied to
/// the host and combined there in block order, so the result is reproducible run to run.
#if defined(EDDY_BACKEND_CUDA)
#include <cuda_runtime.h>
#define EDDY_GPU_CHECK_LAST() ::eddy::backend::detail::check_last(cudaGetLastError(), __FILE__, __LINE__)
#else
#include <hip/hip_runtime.h>
#define EDDY_GPU_CHECK_LAST() ::eddy::backend::detail::check_last(hipGetLastError(), __FILE__, __LINE__)
#endif

#include <vector>

namespace eddy::backend {
namespace detail {

constexpr int block_size = 256;

#if defined(EDDY_BACKEND_CUDA)
using gpu_error_t = cudaError_t;
#else
using gpu_error_t = hipError_t;
#endif
/// Throw eddy::Error naming file:line if a launch failed.
void check_last(gpu_error_t e, const char* file, int line);
/// Blocks to launch for n indices (capped; the kernels stride).
int grid_for(index_t n);

template <class F>
__global__ void __launch_bounds__(block_size) for_kernel(index_t n, F f) {
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

template <class T, class F, class Op>
__global__ void __launch_bounds__(block_size) reduce_kernel(index_t n, T identity, F f, Op op, T* partial) {
  __shared__ T s[block_size];
  T acc = identity;
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    acc = op(acc, f(i));
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = block_size / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

}  // namespace detail

/// Run f(i) for i in [0, n) on the device.
template <class F>
void parallel_for(const char* /*label*/, index_t n, F f) {
  if (n <= 0) return;
  detail::for_kernel<<<detail::grid_for(n), detail::block_size>>>(n, f);
  EDDY_GPU_CHECK_LAST();
}

/// Reduce f(i) for i in [0, n) with op (associative), starting from identity.
template <class T, class F, class Op>
T parallel_reduce(const char* /*label*/, index_t n, T identity, F f, Op op) {
  if (n <= 0) return identity;
  const int blocks = detail::grid_for(n);
  DeviceArray<T> partial(static_cast<std::size_t>(blocks));
  detail::reduce_kernel<<<blocks, detail::block_size>>>(n, identity, f, op, partial.data());
  EDDY_GPU_CHECK_LAST();
  const std::vector<T> h = partial.to_host();
  T r = identity;
  for (const T& p : h) r = op(r, p);
  return r;
}

}  // namespace eddy::backend
