// Experiment: do transforms that skip the columns the 2/3 rule zeroes beat cuFFT's full 3D (2D) r2c/c2r?
//   nvcc -O3 -arch=sm_90 cufft_pruned.cu -lcufft -o cufft_pruned && ./cufft_pruned
// For N^3 (and N^2): full plan vs (x rows r2c/c2r, batched) + (y,z) c2c over the kept kx columns only
// (strided, in place), with and without re-zeroing the truncated kx columns before c2r. Median of 20
// after 3 warm-ups, CUDA events. Also checks the pruned result against the full one.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "timing.cuh"

__global__ void fill(float* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = sinf(0.001f * float(i % 100003)) + 0.1f * cosf(0.37f * float(i % 7919));
}
// zero modes outside the kept set |k| <= km in every axis (spectrum [nz][ny][nc])
__global__ void truncate(cufftComplex* s, int nz, int ny, int nc, int km, int dims) {
  long long n = (long long)nz * ny * nc;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    int kx = int(i % nc), ky = int((i / nc) % ny), kz = int(i / ((long long)nc * ny));
    int ay = min(ky, ny - ky), az = min(kz, nz - kz);
    bool keep = kx <= km && ay <= km && (dims == 2 || az <= km);
    if (!keep) s[i] = {0.f, 0.f};
  }
}

void run(int dims, int N) {
  const int nx = N, ny = N, nz = dims == 3 ? N : 1, nc = N / 2 + 1, km = (N - 1) / 3, nk = km + 1;
  const long long nr = (long long)nx * ny * nz, ncpx = (long long)nc * ny * nz;
  float *r, *r2;
  cufftComplex *s, *s2;
  CK(cudaMalloc(&r, nr * 4));
  CK(cudaMalloc(&r2, nr * 4));
  CK(cudaMalloc(&s, ncpx * 8));
  CK(cudaMalloc(&s2, ncpx * 8));
  fill<<<1024, 256>>>(r, nr);
  cufftHandle f_r2c, f_c2r, x_r2c, x_c2r, yz;
  if (dims == 3) {
    CK(cufftPlan3d(&f_r2c, nz, ny, nx, CUFFT_R2C));
    CK(cufftPlan3d(&f_c2r, nz, ny, nx, CUFFT_C2R));
  } else {
    CK(cufftPlan2d(&f_r2c, ny, nx, CUFFT_R2C));
    CK(cufftPlan2d(&f_c2r, ny, nx, CUFFT_C2R));
  }
  int n1[1] = {nx};
  CK(cufftPlanMany(&x_r2c, 1, n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_R2C, ny * nz));
  CK(cufftPlanMany(&x_c2r, 1, n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2R, ny * nz));
  if (dims == 3) {
    int n2[2] = {nz, ny};
    CK(cufftPlanMany(&yz, 2, n2, n2, nc, 1, n2, nc, 1, CUFFT_C2C, nk));
  } else {
    int n2[1] = {ny};
    CK(cufftPlanMany(&yz, 1, n2, n2, nc, 1, n2, nc, 1, CUFFT_C2C, nk));
  }
  // correctness: full forward, truncate, full backward vs pruned backward; pruned forward vs full at kept
  CK(cufftExecR2C(f_r2c, r, s));
  truncate<<<1024, 256>>>(s, nz, ny, nc, km, dims);
  CK(cudaMemcpy(s2, s, ncpx * 8, cudaMemcpyDeviceToDevice));
  CK(cufftExecC2R(f_c2r, s, r2));  // reference (s overwritten)
  std::vector<float> ref(nr), got(nr);
  CK(cudaMemcpy(ref.data(), r2, nr * 4, cudaMemcpyDeviceToHost));
  CK(cufftExecC2C(yz, s2, s2, CUFFT_INVERSE));
  CK(cufftExecC2R(x_c2r, s2, r2));
  CK(cudaMemcpy(got.data(), r2, nr * 4, cudaMemcpyDeviceToHost));
  double md = 0, mr = 0;
  for (long long i = 0; i < nr; ++i)
    md = std::max(md, (double)std::fabs(ref[i] - got[i])), mr = std::max(mr, (double)std::fabs(ref[i]));
  std::printf("%dD N=%d kept kx %d of %d: backward pruned vs full max diff %.3g (max %.3g)\n", dims, N, nk,
              nc, md, mr);

  const float t_full_f = time_ms([&] { cufftExecR2C(f_r2c, r, s); });
  const float t_full_b = time_ms([&] { cufftExecC2R(f_c2r, s, r2); });
  const float t_x_f = time_ms([&] { cufftExecR2C(x_r2c, r, s); });
  const float t_x_b = time_ms([&] { cufftExecC2R(x_c2r, s, r2); });
  const float t_yz_f = time_ms([&] { cufftExecC2C(yz, s, s, CUFFT_FORWARD); });
  const float t_yz_b = time_ms([&] { cufftExecC2C(yz, s, s, CUFFT_INVERSE); });
  const float t_zero = time_ms([&] { cudaMemset2DAsync(s + nk, nc * 8, 0, (nc - nk) * 8, (size_t)ny * nz); });
  const float t_copy = time_ms([&] { cudaMemcpyAsync(s2, s, ncpx * 8, cudaMemcpyDeviceToDevice); });
  std::printf(
      "  full r2c %.3f ms, c2r %.3f ms | x r2c %.3f + yz fwd %.3f = %.3f (%.2fx) | yz bwd %.3f + x c2r %.3f "
      "= %.3f (%.2fx); + zero kx cols %.3f | copy spectrum %.3f\n",
      t_full_f, t_full_b, t_x_f, t_yz_f, t_x_f + t_yz_f, (t_x_f + t_yz_f) / t_full_f, t_yz_b, t_x_b,
      t_yz_b + t_x_b, (t_yz_b + t_x_b) / t_full_b, t_zero, t_copy);
  if (dims ==
      3) {  // variant 2: (y, x) planes r2c/c2r batched over z + c2c along z over the kept ky rows only
    cufftHandle p_r2c, p_c2r, z_lo, z_hi, z_all;
    int np[2] = {ny, nx};
    CK(cufftPlanMany(&p_r2c, 2, np, nullptr, 1, 0, nullptr, 1, 0, CUFFT_R2C, nz));
    CK(cufftPlanMany(&p_c2r, 2, np, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2R, nz));
    int nzz[1] = {nz};
    const int st = ny * nc;
    CK(cufftPlanMany(&z_lo, 1, nzz, nzz, st, 1, nzz, st, 1, CUFFT_C2C, (km + 1) * nc));
    CK(cufftPlanMany(&z_hi, 1, nzz, nzz, st, 1, nzz, st, 1, CUFFT_C2C, km * nc));
    CK(cufftPlanMany(&z_all, 1, nzz, nzz, st, 1, nzz, st, 1, CUFFT_C2C, ny * nc));
    cufftComplex* hi = s + (long long)(ny - km) * nc;
    // correctness of the pruned backward
    CK(cufftExecR2C(f_r2c, r, s));
    truncate<<<1024, 256>>>(s, nz, ny, nc, km, dims);
    CK(cudaMemcpy(s2, s, ncpx * 8, cudaMemcpyDeviceToDevice));
    CK(cufftExecC2R(f_c2r, s, r2));
    CK(cudaMemcpy(ref.data(), r2, nr * 4, cudaMemcpyDeviceToHost));
    CK(cufftExecC2C(z_lo, s2, s2, CUFFT_INVERSE));
    CK(cufftExecC2C(z_hi, s2 + (long long)(ny - km) * nc, s2 + (long long)(ny - km) * nc, CUFFT_INVERSE));
    CK(cufftExecC2R(p_c2r, s2, r2));
    CK(cudaMemcpy(got.data(), r2, nr * 4, cudaMemcpyDeviceToHost));
    md = 0;
    for (long long i = 0; i < nr; ++i) md = std::max(md, (double)std::fabs(ref[i] - got[i]));
    std::printf("  variant 2 backward vs full max diff %.3g\n", md);
    const float tp_f = time_ms([&] { cufftExecR2C(p_r2c, r, s); });
    const float tp_b = time_ms([&] { cufftExecC2R(p_c2r, s, r2); });
    const float tz = time_ms([&] {
      cufftExecC2C(z_lo, s, s, CUFFT_FORWARD);
      cufftExecC2C(z_hi, hi, hi, CUFFT_FORWARD);
    });
    const float tza = time_ms([&] { cufftExecC2C(z_all, s, s, CUFFT_FORWARD); });
    std::printf(
        "  v2: planes r2c %.3f c2r %.3f | z kept-ky rows %.3f, z all %.3f | pruned fwd %.3f (%.2fx) bwd %.3f "
        "(%.2fx); planes+z all %.3f\n",
        tp_f, tp_b, tz, tza, tp_f + tz, (tp_f + tz) / t_full_f, tp_b + tz, (tp_b + tz) / t_full_b,
        tp_f + tza);
    cufftDestroy(p_r2c);
    cufftDestroy(p_c2r);
    cufftDestroy(z_lo);
    cufftDestroy(z_hi);
    cufftDestroy(z_all);
  }
  cufftDestroy(f_r2c);
  cufftDestroy(f_c2r);
  cufftDestroy(x_r2c);
  cufftDestroy(x_c2r);
  cufftDestroy(yz);
  cudaFree(r);
  cudaFree(r2);
  cudaFree(s);
  cudaFree(s2);
}

int main() {
  run(3, 256);
  run(3, 512);
  run(3, 1024);
  run(2, 4096);
  run(2, 8192);
}
