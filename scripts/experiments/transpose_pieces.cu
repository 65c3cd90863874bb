// Experiment: the pieces of one field's 1024^3 FP32 spectral transform and slab transpose on two ranks,
// timed alone (CUDA events, median of 7 after 2 warm-ups), to see where the 2-GPU step loses time:
// the plane r2c/c2r at batch 1024 vs 512, the c2c along z (in place, kept rows; out of place between the
// compact buffer and spec), zero fills, a transpose's own block by cudaMemcpy2DAsync (a copy engine), and
// on two GPUs (peer access) the copies to the peer: wide rows (2D), the box's kx columns only (3D, per
// plane 2D, cudaMemcpy3DPeerAsync), and an r2c with a peer copy alongside.
//   nvcc -O2 -arch=sm_90 transpose_pieces.cu -lcufft -o transpose_pieces && ./transpose_pieces
// Results: cases/benchmarks/results/2026-11-30i-h200/s9_mb/mb.txt.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#define CK(x)                                                             \
  do {                                                                    \
    auto e_ = (x);                                                        \
    if (e_ != 0) {                                                        \
      printf("error %d at %s:%d: %s\n", int(e_), __FILE__, __LINE__, #x); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

typedef long long ll;
static cudaStream_t st;

double timeit(const std::function<void()>& f, int reps = 7) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  f();
  CK(cudaStreamSynchronize(st));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a, st);
    f();
    cudaEventRecord(b, st);
    CK(cudaEventSynchronize(b));
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

cufftHandle plan(int rank, ll* n, ll* inembed, ll istride, ll idist, ll* onembed, ll ostride, ll odist,
                 cufftType type, ll batch) {
  cufftHandle h;
  size_t work;
  CK(cufftCreate(&h));
  CK(cufftSetStream(h, st));
  CK(cufftMakePlanMany64(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, &work));
  return h;
}

// The kept kx columns (342 of 513) of ky rows 683..1023 of every z-plane of [512][1024][513] into `dst`
// (rows `dpitch` bytes apart, `drows` rows a plane).
cudaMemcpy3DParms narrow_copy(cufftComplex* src, cufftComplex* dst, size_t dpitch, size_t drows) {
  const long long NC = 513;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(src, NC * 8, NC * 8, 1024);
  p.srcPos = make_cudaPos(0, 683, 0);
  p.dstPtr = make_cudaPitchedPtr(dst, dpitch, dpitch, drows);
  p.extent = make_cudaExtent(342 * 8, 341, 512);
  p.kind = cudaMemcpyDefault;
  return p;
}

int main() {
  const ll N = 1024, NC = 513;
  CK(cudaSetDevice(0));
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const ll modes = N * N * NC;  // complex elements of one field
  cufftComplex *spec, *tmp, *comp;
  float* phys;
  CK(cudaMalloc(&spec, modes * 8));
  CK(cudaMalloc(&tmp, modes * 8));
  CK(cudaMalloc(&comp, modes * 8));
  CK(cudaMalloc(&phys, N * N * N * 4));
  CK(cudaMemset(spec, 0, modes * 8));
  CK(cudaMemset(tmp, 0, modes * 8));
  CK(cudaMemset(comp, 0, modes * 8));
  CK(cudaMemset(phys, 0, N * N * N * 4));

  // planes r2c / c2r (1024 x 1024) batch B
  for (ll B : {1024LL, 512LL}) {
    ll n[2] = {N, N};
    cufftHandle r = plan(2, n, nullptr, 1, N * N, nullptr, 1, N * NC, CUFFT_R2C, B);
    cufftHandle c = plan(2, n, nullptr, 1, N * NC, nullptr, 1, N * N, CUFFT_C2R, B);
    double tr = timeit([&] { CK(cufftExecR2C(r, phys, tmp)); });
    double tc = timeit([&] { CK(cufftExecC2R(c, tmp, phys)); });
    printf("planes B=%lld: r2c %.3f ms (%.4f per plane)  c2r %.3f ms (%.4f per plane)\n", B, tr, tr / B, tc,
           tc / B);
    cufftDestroy(r);
    cufftDestroy(c);
  }
  // 3D whole
  {
    ll n[3] = {N, N, N};
    cufftHandle r = plan(3, n, nullptr, 1, 0, nullptr, 1, 0, CUFFT_R2C, 1);
    double tr = timeit([&] { CK(cufftExecR2C(r, phys, spec)); });
    printf("whole 3D r2c %.3f ms\n", tr);
    cufftDestroy(r);
  }
  // along z, 1 GPU pruned, in place: rows [0,342) and [683,1024) of [1024][1024][513]
  {
    ll n[1] = {N};
    ll s = N * NC;
    cufftHandle p1 = plan(1, n, n, s, 1, n, s, 1, CUFFT_C2C, 342 * NC);
    ll first2 = 683 * NC / 2 * 2;
    cufftHandle p2 = plan(1, n, n, s, 1, n, s, 1, CUFFT_C2C, 1024 * NC - first2);
    double t = timeit([&] {
      CK(cufftExecC2C(p1, spec, spec, CUFFT_FORWARD));
      CK(cufftExecC2C(p2, spec + first2, spec + first2, CUFFT_FORWARD));
    });
    printf("1 GPU along z kept (683 rows) in place: %.3f ms\n", t);
    cufftHandle pf = plan(1, n, n, s, 1, n, s, 1, CUFFT_C2C, N * NC);
    double tf = timeit([&] { CK(cufftExecC2C(pf, spec, spec, CUFFT_FORWARD)); });
    printf("1 GPU along z all rows in place: %.3f ms\n", tf);
  }
  // along z, 2-GPU rank: compact [1024][342][513] -> spec [1024][512][513]
  {
    ll n[1] = {N};
    ll cs = 342 * NC, ss = 512 * NC;
    cufftHandle f = plan(1, n, n, cs, 1, n, ss, 1, CUFFT_C2C, 342 * NC);
    cufftHandle b = plan(1, n, n, ss, 1, n, cs, 1, CUFFT_C2C, 342 * NC);
    cufftHandle ip = plan(1, n, n, ss, 1, n, ss, 1, CUFFT_C2C, 342 * NC);
    cufftHandle ipc = plan(1, n, n, cs, 1, n, cs, 1, CUFFT_C2C, 342 * NC);
    double tf = timeit([&] { CK(cufftExecC2C(f, comp, spec, CUFFT_FORWARD)); });
    double tb = timeit([&] { CK(cufftExecC2C(b, spec, comp, CUFFT_INVERSE)); });
    double ti = timeit([&] { CK(cufftExecC2C(ip, spec, spec, CUFFT_FORWARD)); });
    double tic = timeit([&] { CK(cufftExecC2C(ipc, comp, comp, CUFFT_FORWARD)); });
    printf(
        "2 GPU along z compact->spec %.3f  spec->compact %.3f  in place spec stride %.3f  in place compact "
        "%.3f ms\n",
        tf, tb, ti, tic);
    // column-pruned: only kx < 342 of each row, as 342 separate batches? (per-row plans: too many) ->
    // one plan over a dense [1024][342][342] compact
    ll ds = 342 * 342;
    cufftHandle d = plan(1, n, n, ds, 1, n, ds, 1, CUFFT_C2C, 342 * 342);
    double td = timeit([&] { CK(cufftExecC2C(d, comp, comp, CUFFT_FORWARD)); });
    printf("2 GPU along z dense kept cols [1024][342][342] in place: %.3f ms\n", td);
  }
  // zeroing the skipped rows of a 2-GPU a-slab [512][1024][513]: rows [342,683)
  {
    double t = timeit([&] { CK(cudaMemset2DAsync(tmp + 342 * NC, N * NC * 8, 0, 341 * NC * 8, 512, st)); });
    printf("zero skipped rows (2 GPU a-slab): %.3f ms (%.1f GB/s)\n", t, 512.0 * 341 * NC * 8 / t / 1e6);
    double t2 = timeit([&] { CK(cudaMemset2DAsync(tmp + 342, NC * 8, 0, 171 * 8, 512 * 683, st)); });
    printf("zero col band 171 of kept rows: %.3f ms (%.1f GB/s)\n", t2, 512.0 * 683 * 171 * 8 / t2 / 1e6);
  }
  // local own-block copy: [512 a][341 rows of 513] from a-slab into b-slab (wide rows)
  {
    double t = timeit([&] {
      CK(cudaMemcpy2DAsync(comp, 341 * NC * 8, tmp + 683 * NC, N * NC * 8, 341 * NC * 8, 512,
                           cudaMemcpyDeviceToDevice, st));
    });
    printf("own block local copy: %.3f ms (%.1f GB/s each way)\n", t, 512.0 * 341 * NC * 8 / t / 1e6);
  }

  // peer copies GPU0 -> GPU1
  int ndev = 0;
  cudaGetDeviceCount(&ndev);
  if (ndev < 2) return 0;
  CK(cudaDeviceEnablePeerAccess(1, 0));
  CK(cudaSetDevice(1));
  CK(cudaDeviceEnablePeerAccess(0, 0));
  cufftComplex* dst;
  CK(cudaMalloc(&dst, modes * 8));
  CK(cudaSetDevice(0));
  const double wide = 512.0 * 341 * NC * 8, narrow = 512.0 * 341 * 342 * 8;
  {
    double t = timeit([&] {
      CK(cudaMemcpy2DAsync(dst, 341 * NC * 8, tmp + 683 * NC, N * NC * 8, 341 * NC * 8, 512,
                           cudaMemcpyDefault, st));
    });
    printf("peer wide 2D: %.3f ms %.1f GB/s\n", t, wide / t / 1e6);
  }
  auto copy3d = [&](size_t dpitch, size_t dys) {
    const cudaMemcpy3DParms p = narrow_copy(tmp, dst, dpitch, dys);
    CK(cudaMemcpy3DAsync(&p, st));
  };
  {
    double t = timeit([&] { copy3d(NC * 8, 341); });
    printf("peer narrow 3D (dst pitch 513): %.3f ms %.1f GB/s\n", t, narrow / t / 1e6);
    double t2 = timeit([&] { copy3d(342 * 8, 341); });
    printf("peer narrow 3D (dst pitch 342): %.3f ms %.1f GB/s\n", t2, narrow / t2 / 1e6);
  }
  {
    double t = timeit([&] {
      for (int z = 0; z < 512; ++z)
        CK(cudaMemcpy2DAsync(dst + z * 341 * NC, NC * 8, tmp + z * N * NC + 683 * NC, NC * 8, 342 * 8, 341,
                             cudaMemcpyDefault, st));
    });
    printf("peer narrow per-plane 2D: %.3f ms %.1f GB/s\n", t, narrow / t / 1e6);
  }
  {
    cudaMemcpy3DPeerParms p = {};
    p.srcPtr = make_cudaPitchedPtr(tmp, NC * 8, NC * 8, N);
    p.srcPos = make_cudaPos(0, 683, 0);
    p.srcDevice = 0;
    p.dstPtr = make_cudaPitchedPtr(dst, NC * 8, NC * 8, 341);
    p.dstDevice = 1;
    p.extent = make_cudaExtent(342 * 8, 341, 512);
    double t = timeit([&] { CK(cudaMemcpy3DPeerAsync(&p, st)); });
    printf("peer narrow 3DPeer: %.3f ms %.1f GB/s\n", t, narrow / t / 1e6);
  }
  // the local own block narrow 3D
  {
    const cudaMemcpy3DParms p = narrow_copy(tmp, comp, NC * 8, 341);
    double t = timeit([&] { CK(cudaMemcpy3DAsync(&p, st)); });
    printf("local narrow 3D: %.3f ms %.1f GB/s\n", t, narrow / t / 1e6);
  }
  // concurrency: peer narrow 3D on a second stream while the FFT runs
  {
    cudaStream_t s2;
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    ll n[2] = {N, N};
    cufftHandle r = plan(2, n, nullptr, 1, N * N, nullptr, 1, N * NC, CUFFT_R2C, 512);
    double tr = timeit([&] { CK(cufftExecR2C(r, phys, spec)); });
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int w = 0; w < 2; ++w) {
      double t = timeit([&] {
        cudaEventRecord(e0, st);
        cudaStreamWaitEvent(s2, e0, 0);
        if (w == 0)
          CK(cudaMemcpy2DAsync(dst, 341 * NC * 8, tmp + 683 * NC, N * NC * 8, 341 * NC * 8, 512,
                               cudaMemcpyDefault, s2));
        else {
          const cudaMemcpy3DParms p = narrow_copy(tmp, dst, NC * 8, 341);
          CK(cudaMemcpy3DAsync(&p, s2));
        }
        CK(cufftExecR2C(r, phys, spec));
        cudaEventRecord(e1, s2);
        cudaStreamWaitEvent(st, e1, 0);
      });
      printf("r2c planes 512 alone %.3f; with %s peer copy alongside: %.3f ms\n", tr,
             w ? "narrow 3D" : "wide 2D", t);
    }
  }
  return 0;
}
