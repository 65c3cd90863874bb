#pragma once
/// Function qualifiers and pragmas of the configured backend. Only src/backend knows what they expand to.
#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)
#define EDDY_GPU 1  ///< the build's kernels run on a GPU
#else
#define EDDY_GPU 0
#endif

// The GPU's vendor: CUDA, and HIP on NVIDIA's platform (nvcc compiling the HIP API mapped onto CUDA),
// run NVIDIA's warps of 32 lanes and its intrinsics, so both take the CUDA code paths; HIP on AMD (clang,
// wavefronts of 64) takes its own.
#if defined(EDDY_BACKEND_CUDA) || \
    (defined(EDDY_BACKEND_HIP) && (defined(__HIP_PLATFORM_NVIDIA__) || defined(__NVCC__)))
#define EDDY_GPU_NVIDIA 1  ///< the build's kernels run on an NVIDIA GPU
#else
#define EDDY_GPU_NVIDIA 0
#endif

// Qualifiers exist only where a device compiler reads the file; plain C++ files of a GPU build (the
// app, io/) see inline host functions.
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>  // HIP-Clang defines __host__/__device__ in its runtime header
#endif
#if defined(__CUDACC__) || defined(__HIPCC__)
#define EDDY_HD __host__ __device__    ///< callable on host and device
#define EDDY_DEVICE __device__         ///< qualifier of a lambda passed to parallel_for
#define EDDY_UNROLL _Pragma("unroll")  ///< unroll the next loop (compile-time trip count)
#define EDDY_INLINE __forceinline__    ///< always inline (pointwise kernel code)
#define EDDY_SIMD                      ///< a loop over the cells of a row chunk (one cell on a GPU thread)
#else
#define EDDY_HD
#define EDDY_DEVICE
#define EDDY_UNROLL _Pragma("GCC unroll 32")
#define EDDY_INLINE inline __attribute__((always_inline))
#define EDDY_SIMD _Pragma("omp simd")  ///< vectorize the next loop over the cells of a row chunk
#endif

/// The next loop kept rolled where GCC or Clang compile the file alone (what it reads from its index stays
/// data), unrolled where a device compiler reads it, as EDDY_UNROLL.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define EDDY_ROLLED_ON_HOST EDDY_UNROLL
#else
#define EDDY_ROLLED_ON_HOST _Pragma("GCC unroll 1")
#endif

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define EDDY_DEVICE_PASS 1  ///< this translation is the device-code pass
#else
#define EDDY_DEVICE_PASS 0
#endif
