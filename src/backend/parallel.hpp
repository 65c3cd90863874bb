#pragma once
/// parallel_for / parallel_reduce: kernel launches. Only files compiled by the backend's device compiler
/// (those under src/backend, src/field, src/lbm, src/spectral, and the unit tests) may include this.
#include "backend/backend.hpp"

#if EDDY_GPU
#if !defined(__CUDACC__) && !defined(__HIPCC__)
#error "backend/parallel.hpp needs the device compiler: include it only from device source directories"
#endif
#include "backend/parallel_gpu.hpp"
#else
#include "backend/parallel_cpu.hpp"
#endif
