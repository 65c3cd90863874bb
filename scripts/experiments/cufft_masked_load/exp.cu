// Experiment: backward pruned 3D transform (z c2c over kept ky rows + (y,x)-plane c2r) with LTO load
// callbacks that read zero outside the kept box, against the same transforms on zero-filled input.
#include <cuda_runtime.h>
#include <cufftXt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../timing.cuh"
#include "mask_cb.h"
struct MaskInfo {
  unsigned long long base;
  unsigned nc, nb, na, kc, kb, ka, mask;
};
__global__ void fill(cufftComplex* s, long long n, int seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    s[i] = {sinf(0.001f * float((i + seed) % 100003)), cosf(0.37f * float((i * 7 + seed) % 7919))};
}
__global__ void truncate(cufftComplex* s, int N, int nc, int K) {
  long long n = (long long)N * N * nc;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    int kx = int(i % nc), ky = int((i / nc) % N), kz = int(i / ((long long)nc * N));
    bool keep = kx <= K && (ky <= K || ky >= N - K) && (kz <= K || kz >= N - K);
    if (!keep) s[i] = {0.f, 0.f};
  }
}
struct Pruned {
  std::vector<cufftHandle> z;
  std::vector<long long> first;
  cufftHandle c2r;
  std::vector<MaskInfo*> infos;
  Pruned(int N, bool cb, const char* sym = "eddy_mask_load_c") {
    const int nc = N / 2 + 1, K = N / 3;
    // The callback `sym` on plan h, its MaskInfo (the exec pointer's offset `base`, the masked axes) on
    // the device.
    const auto attach = [&](cufftHandle h, unsigned long long base, unsigned mask) {
      MaskInfo mi{base, unsigned(nc), unsigned(N), unsigned(N), unsigned(K), unsigned(K), unsigned(K), mask};
      MaskInfo* d;
      CK(cudaMalloc(&d, sizeof mi));
      CK(cudaMemcpy(d, &mi, sizeof mi, cudaMemcpyHostToDevice));
      infos.push_back(d);
      void* p = d;
      CK(cufftXtSetJITCallback(h, sym, mask_cb_fatbin, sizeof(mask_cb_fatbin), CUFFT_CB_LD_COMPLEX, &p));
    };
    int ranges[2][2] = {{0, K + 1}, {N - K, N}};
    for (auto& r : ranges) {
      long long f = (long long)r[0] * nc / 2 * 2, last = (long long)r[1] * nc;
      cufftHandle h;
      CK(cufftCreate(&h));
      if (cb) attach(h, (unsigned long long)f, 5u);  // mask kz and kx
      long long n[1] = {N}, emb[1] = {N};
      size_t ws;
      CK(cufftXtMakePlanMany(h, 1, n, emb, (long long)N * nc, 1, CUDA_C_32F, emb, (long long)N * nc, 1,
                             CUDA_C_32F, last - f, &ws, CUDA_C_32F));
      z.push_back(h);
      first.push_back(f);
    }
    CK(cufftCreate(&c2r));
    if (cb) attach(c2r, 0, 3u);  // mask ky and kx
    long long n2[2] = {N, N};
    size_t ws;
    CK(cufftXtMakePlanMany(c2r, 2, n2, nullptr, 1, (long long)N * nc, CUDA_C_32F, nullptr, 1,
                           (long long)N * N, CUDA_R_32F, N, &ws, CUDA_C_32F));
  }
  void run(cufftComplex* s, float* p) {
    for (size_t i = 0; i < z.size(); ++i) CK(cufftXtExec(z[i], s + first[i], s + first[i], CUFFT_INVERSE));
    CK(cufftXtExec(c2r, s, p, CUFFT_INVERSE));
  }
};
void run(int N) {
  const int nc = N / 2 + 1, K = N / 3;
  const long long modes = (long long)N * N * nc, pts = (long long)N * N * N;
  cufftComplex *s0, *s1, *s2;
  float *p1, *p2;
  CK(cudaMalloc(&s0, modes * 8));
  CK(cudaMalloc(&s1, modes * 8));
  CK(cudaMalloc(&s2, modes * 8));
  CK(cudaMalloc(&p1, pts * 4));
  CK(cudaMalloc(&p2, pts * 4));
  auto t0 = std::chrono::steady_clock::now();
  Pruned plain(N, false);
  auto t1 = std::chrono::steady_clock::now();
  Pruned masked(N, true);
  auto t2 = std::chrono::steady_clock::now();
  std::printf("N=%d plans: plain %.0f ms, with callbacks %.0f ms\n", N,
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
  fill<<<4096, 256>>>(s0, modes, 1);
  CK(cudaMemcpy(s1, s0, modes * 8, cudaMemcpyDeviceToDevice));
  truncate<<<4096, 256>>>(s1, N, nc, K);
  plain.run(s1, p1);
  CK(cudaMemcpy(s2, s0, modes * 8, cudaMemcpyDeviceToDevice));  // garbage outside the box
  masked.run(s2, p2);
  std::vector<float> a(pts), b(pts);
  CK(cudaMemcpy(a.data(), p1, pts * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), p2, pts * 4, cudaMemcpyDeviceToHost));
  double d = 0, m = 0;
  for (long long i = 0; i < pts; ++i)
    d = std::max(d, (double)std::fabs(a[i] - b[i])), m = std::max(m, (double)std::fabs(a[i]));
  std::printf("N=%d masked vs zero-filled: max diff %.3g of max %.3g (relative %.3g)\n", N, d, m, d / m);
  float tp = time_ms([&] { plain.run(s1, p1); });
  float tm = time_ms([&] { masked.run(s2, p2); });
  Pruned pass(N, true, "eddy_pass_load_c"), m32(N, true, "eddy_mask32_load_c");
  float tpass = time_ms([&] { pass.run(s1, p1); });
  float t32 = time_ms([&] { m32.run(s2, p2); });
  std::printf("N=%d pass-through callback %.3f, 32-bit mask callback %.3f\n", N, tpass, t32);
  float tz = time_ms([&] { truncate<<<4096, 256>>>(s1, N, nc, K); });
  cufftHandle full;
  CK(cufftPlan3d(&full, N, N, N, CUFFT_C2R));
  float tf = time_ms([&] { CK(cufftExecC2R(full, s1, p1)); });
  std::printf(
      "N=%d ms per field: pruned %.3f, pruned+masked reads %.3f (%.3fx), full 3D c2r %.3f, zero-fill pass "
      "(read-modify) %.3f\n",
      N, tp, tm, tm / tp, tf, tz);
  cudaFree(s0);
  cudaFree(s1);
  cudaFree(s2);
  cudaFree(p1);
  cudaFree(p2);
}
int main() {
  run(256);
  run(512);
  return 0;
}
