// Experiment: does eddy's one-cell collision vectorize on the CPU when a row of cells is staged as
// [population][x] arrays, and is the result bitwise the scalar one?
//   g++ -std=c++17 -O3 -fopenmp -ffp-contract=off -DEDDY_BACKEND_CPU=1 -I src [ARCH]
//       scripts/experiments/cpu_row_simd.cpp -o cpu_row_simd && ./cpu_row_simd
// ARCH: none (x86-64, SSE2), -march=x86-64-v3, or -march=x86-64-v4 -mprefer-vector-width=512.
// D3Q19 BGK FP32 over a row of 256 cells held in L1/L2 (no streaming, no memory traffic): the per-cell
// code of src/lbm (moments, Bgk) in a plain loop and in an `omp simd` loop, one thread, best of 2 passes.
// Measured 2026-12-06 on the 2-core AMD EPYC CI-class machine (GCC 12): scalar 19 Mcell/s on one core at
// every -march, which is what the box kernel reaches (eddy bench D3Q19 BGK FP32 96^3, 2 threads: 31
// MLUPS, 12.5 % of the memcpy bandwidth): the bulk kernel is bound by its scalar collision, not by
// memory. Staged, the same code vectorizes: 80 Mcell/s with SSE2 (the default x86-64 build), 174 with
// AVX2 (x86-64-v3), 231 with AVX-512 (x86-64-v4); bitwise equal to the scalar loop in every case (no
// FMA contraction: -ffp-contract=off, or none in the ISA). The box kernel itself does not vectorize
// under its `omp simd` (GCC 12's report): the lambda is not inlined into the OpenMP-outlined loop, and
// once it is (a flattened row function), the per-link address arithmetic and the conditional store of
// the odd step leave control flow and non-affine loads in the loop. Hence the plan for the CPU backend:
// stage a row's populations (contiguous per link away from wrapped x faces), collide the row in a
// vector loop, write it back.
#include <chrono>
#include <cstdio>
#include <vector>

#include "lbm/collisions.hpp"
#include "lbm/lattice.hpp"

using namespace eddy::lbm;
using L = D3Q19;
using R = float;

__attribute__((noinline)) void row_scalar(R* __restrict s, long nx, const Bgk<R, false, false>& c) {
  for (long x = 0; x < nx; ++x) {
    R f[L::q];
    for (int i = 0; i < L::q; ++i) f[i] = s[i * nx + x];
    R drho, u[3];
    const R zero[3] = {0, 0, 0};
    moments<L>(f, drho, u, zero);
    c.template operator()<L>(f, drho, u);
    for (int i = 0; i < L::q; ++i) s[i * nx + x] = f[i];
  }
}

__attribute__((noinline)) void row_simd(R* __restrict s, long nx, const Bgk<R, false, false>& c) {
#pragma omp simd
  for (long x = 0; x < nx; ++x) {
    R f[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] = s[i * nx + x];
    R drho, u[3];
    const R zero[3] = {0, 0, 0};
    moments<L>(f, drho, u, zero);
    c.template operator()<L>(f, drho, u);
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) s[i * nx + x] = f[i];
  }
}

int main() {
  const long nx = 256, reps = 20000;
  std::vector<R> a(L::q * nx), b;
  for (long k = 0; k < static_cast<long>(a.size()); ++k) a[k] = 0.05f + 1e-3f * static_cast<float>(k % 17);
  b = a;
  const Bgk<R, false, false> c{R(1.9)};
  for (int pass = 0; pass < 2; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) row_scalar(a.data(), nx, c);
    const auto t1 = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) row_simd(b.data(), nx, c);
    const auto t2 = std::chrono::steady_clock::now();
    const double s1 = std::chrono::duration<double>(t1 - t0).count();
    const double s2 = std::chrono::duration<double>(t2 - t1).count();
    std::printf("scalar %.1f Mcell/s, simd %.1f Mcell/s, results %s\n", nx * reps / s1 / 1e6,
                nx * reps / s2 / 1e6, a == b ? "bitwise equal" : "DIFFERENT");
  }
  return a == b ? 0 : 1;
}
