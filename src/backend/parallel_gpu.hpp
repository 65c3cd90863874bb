#pragma once
/// parallel_for / parallel_reduce on CUDA and HIP: one thread per index, grid-stride loops.
///
/// Reductions: each block reduces in shared memory and writes one partial; the partials are copied to
/// the host and combined there in block order, so the result is reproducible run to run.
///
/// Every launch runs inside a profiler range named by its label (NVTX on CUDA and on HIP on NVIDIA's
/// platform, roctx on HIP on AMD where the build found it: `nsys profile --trace=cuda,nvtx`,
/// `rocprof --roctx-trace`). The ranges are host-side
/// calls, no-ops while no profiler is attached; they add no synchronisation and may run while a step
/// graph records (they mark the recording; its replays show the kernels, not the ranges).
#if defined(EDDY_BACKEND_CUDA)
#include <cuda_runtime.h>
#define EDDY_GPU_CHECK_LAST() ::eddy::backend::detail::check_last(cudaGetLastError(), __FILE__, __LINE__)
#else
#include <hip/hip_runtime.h>
#define EDDY_GPU_CHECK_LAST() ::eddy::backend::detail::check_last(hipGetLastError(), __FILE__, __LINE__)
#endif

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/backend.hpp"
#include "backend/fast_div.hpp"
#include "core/error.hpp"

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
/// Open and close a profiler range (backend_gpu.cpp).
void range_push(const char* label);
void range_pop();
/// The profiler range of one launch, named by its label, for the scope of the launch.
class Range {
 public:
  explicit Range(const char* label) { range_push(label); }
  ~Range() { range_pop(); }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
};
#if defined(EDDY_BACKEND_CUDA)
inline cudaStream_t stream() { return static_cast<cudaStream_t>(compute_stream()); }
#else
inline hipStream_t stream() { return static_cast<hipStream_t>(compute_stream()); }
#endif

template <class F>
__global__ void __launch_bounds__(block_size) for_kernel(index_t n, F f) {
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

/// f(x, y0 + y, z0 + z) over an nx x ny x nz box (under 2^31 cells) from the flat index t = x + nx (y +
/// ny z): consecutive threads are consecutive x (rows whole and in order, as in a flat array), decoded
/// with two multiply-shift divisions. Stride: a grid-stride loop over a capped grid, else one thread per
/// cell (backend.hpp: BoxLaunch).
template <bool Stride, class F>
__device__ __forceinline__ void box_cells(std::uint32_t n, FastDiv by_x, FastDiv by_y, index_t y0, index_t z0,
                                          F& f) {
  auto cell = [&](std::uint32_t t) {
    const std::uint32_t yz = by_x.div(t), z = by_y.div(yz);
    f(index_t(t - yz * by_x.d), y0 + index_t(yz - z * by_y.d), z0 + index_t(z));
  };
  const std::uint32_t first = blockIdx.x * blockDim.x + threadIdx.x;
  if constexpr (Stride) {
    const std::uint32_t stride = gridDim.x * blockDim.x;  // t + stride < 2^32: n < 2^31, stride < 2^25
    for (std::uint32_t t = first; t < n; t += stride) cell(t);
  } else if (first < n) {
    cell(first);
  }
}
template <bool Stride, class F>
__global__ void __launch_bounds__(block_size)
    box_kernel(std::uint32_t n, FastDiv by_x, FastDiv by_y, index_t y0, index_t z0, F f) {
  box_cells<Stride>(n, by_x, by_y, y0, z0, f);
}
/// The same, with `MinBlocks` blocks resident at once on an SM (NVIDIA) or a CU (AMD, as wavefronts per
/// SIMD): registers capped to fit (backend.hpp: BoxLaunch).
template <bool Stride, int MinBlocks, class F>
__global__ void __launch_bounds__(block_size, MinBlocks)
    box_kernel_min(std::uint32_t n, FastDiv by_x, FastDiv by_y, index_t y0, index_t z0, F f) {
  box_cells<Stride>(n, by_x, by_y, y0, z0, f);
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

/// One column of tiles of parallel_for_tiles a block, a TX x TY plane of cells one a thread: the block
/// stages a plane with its halo in shared memory (every thread a share of the entries), waits for all,
/// then each thread updates its cell. With HaloZ it marches through ZB planes of the column (three staged
/// planes in a ring: below, own and above; the plane above staged while none reads the slot it takes);
/// without, a block is one plane. A thread whose cell lies outside the box still stages and waits.
template <class S, int TX, int TY, int ZB, bool HaloZ, class Stage, class Update>
__global__ void __launch_bounds__(TX* TY) tile_kernel(index_t nx, index_t ny, index_t nz, FastDiv tiles_x,
                                                      FastDiv tiles_y, Stage stage, Update update) {
  extern __shared__ __align__(16) unsigned char tile_staged[];
  S* const s = reinterpret_cast<S*>(tile_staged);
  constexpr int sx = TX + 2, plane = (TX + 2) * (TY + 2), threads = TX * TY;
  const std::uint32_t b = blockIdx.x, rest = tiles_x.div(b), bz = tiles_y.div(rest);
  const index_t x0 = index_t(b - rest * tiles_x.d) * TX, y0 = index_t(rest - bz * tiles_y.d) * TY;
  const index_t z0 = HaloZ ? index_t(bz) * ZB : index_t(bz);
  auto stage_plane = [&](index_t pz, S* p) {
    for (int k = static_cast<int>(threadIdx.x); k < plane; k += threads) {
      const index_t px = x0 - 1 + k % sx, py = y0 - 1 + k / sx;
      if (px <= nx && py <= ny) stage(px, py, pz, p[k]);
    }
  };
  const int tx = static_cast<int>(threadIdx.x) % TX, ty = static_cast<int>(threadIdx.x) / TX;
  const index_t x = x0 + tx, y = y0 + ty;
  const int own = (tx + 1) + sx * (ty + 1);
  const bool inside = x < nx && y < ny;
  if constexpr (!HaloZ) {
    stage_plane(z0, s);
    __syncthreads();
    if (inside) update(x, y, z0, TileView<S>{s + own, s + own, s + own, sx});
  } else {
    S *below = s, *mid = s + plane, *above = s + 2 * plane;
    stage_plane(z0 - 1, below);
    stage_plane(z0, mid);
    const index_t z1 = z0 + ZB < nz ? z0 + ZB : nz;
    for (index_t z = z0; z < z1; ++z) {
      stage_plane(z + 1, above);
      __syncthreads();
      if (inside) update(x, y, z, TileView<S>{below + own, mid + own, above + own, sx});
      __syncthreads();  // the slot of the plane below takes the next plane above
      S* const spent = below;
      below = mid, mid = above, above = spent;
    }
  }
}

#if EDDY_GPU_NVIDIA
/// One step of atomic_add_grouped's transposed warp sum: the lanes with bit w keep elements [w, 2w) of
/// those they hold and send [0, w) to the lane without it, which keeps [0, w); both add what they get.
template <int W>
__device__ __forceinline__ void transpose_step(int (&s)[32], unsigned lane) {
  const bool upper = (lane & unsigned(W)) != 0;
  EDDY_UNROLL for (int j = 0; j < W; ++j) {
    const int lo = s[j], hi = s[j + W];
    s[j] = (upper ? hi : lo) + __shfl_xor_sync(0xffffffffu, upper ? lo : hi, W);
  }
}
#endif

}  // namespace detail

/// Add v[k] to p[target(k)] atomically for each k in [0, N) with target(k) >= 0, from device code
/// (integers: the sums do not depend on the order of the additions). On NVIDIA GPUs (CUDA, and HIP on
/// NVIDIA's platform), a warp whose 32 threads
/// are all here and all add to the same p sums its values first, by a transposed butterfly: at each of
/// five steps a thread keeps half of the elements it holds and swaps the other half with its partner
/// (16 + 8 + 4 + 2 + 1 = 31 shuffles for up to 32 elements), after which thread k holds the warp's sum
/// of element k and adds it, N atomics a warp issued at once, where a reduction per element takes 5 N
/// shuffles and lane 0 N atomics in turn. The warp sums must fit in int (fixed_chunks: they do). Else,
/// and on AMD GPUs (HIP, wavefronts of 64), each thread adds its own (the non-zero ones).
template <int N, class Target>
EDDY_HD EDDY_INLINE void atomic_add_grouped(long long* p, const int (&v)[N], const Target& target) {
#if EDDY_DEVICE_PASS
  using ull = unsigned long long;
#if EDDY_GPU_NVIDIA
  static_assert(N <= 32, "atomic_add_grouped: at most 32 elements");
  constexpr unsigned full = 0xffffffffu;
  if (__activemask() == full) {
    const auto first = reinterpret_cast<long long*>(__shfl_sync(full, reinterpret_cast<ull>(p), 0));
    if (__all_sync(full, first == p)) {
      const unsigned lane = threadIdx.x & 31u;
      int s[32];
      EDDY_UNROLL for (int k = 0; k < 32; ++k) s[k] = k < N ? v[k] : 0;
      // s[j] holds element j + (the lane's bits above w's) after the step of w: every index a constant,
      // so that s stays in registers.
      detail::transpose_step<16>(s, lane), detail::transpose_step<8>(s, lane);
      detail::transpose_step<4>(s, lane), detail::transpose_step<2>(s, lane);
      detail::transpose_step<1>(s, lane);
      if (int(lane) < N) {  // ... so that s[0] holds element `lane`, summed over the warp
        const int t = target(int(lane));
        if (t >= 0 && s[0] != 0)
          atomicAdd(reinterpret_cast<ull*>(p + t), static_cast<ull>(static_cast<long long>(s[0])));
      }
      return;
    }
  }
#endif
  for (int k = 0; k < N; ++k) {
    const int t = target(k);
    if (t >= 0 && v[k] != 0)
      atomicAdd(reinterpret_cast<ull*>(p + t), static_cast<ull>(static_cast<long long>(v[k])));
  }
#else
  EDDY_UNROLL for (int k = 0; k < N; ++k) {
    const int t = target(k);
    if (t >= 0 && v[k] != 0) __atomic_fetch_add(p + t, static_cast<long long>(v[k]), __ATOMIC_RELAXED);
  }
#endif
}

/// Run f(i) for i in [0, n) on the device.
template <class F>
void parallel_for(const char* label, index_t n, F f) {
  if (n <= 0) return;
  const detail::Range range(label);
  detail::for_kernel<<<detail::grid_for(n), detail::block_size, 0, detail::stream()>>>(n, f);
  EDDY_GPU_CHECK_LAST();
}

/// Run f(x, y, z) for every cell of an nx x ny x nz box on the device, x fastest: consecutive threads on
/// consecutive x, no integer division. Boxes of 2^31 cells or more run as several launches of whole
/// planes (of whole rows where one plane is that large). `min_blocks` > 0: registers capped so that many
/// blocks fit on an SM or CU (backend.hpp: BoxLaunch, which says how NVIDIA and AMD read it).
template <BoxLaunch launch = BoxLaunch::per_cell, int min_blocks = 0, class F>
void parallel_for_box(const char* label, index_t nx, index_t ny, index_t nz, F f) {
  if (nx <= 0 || ny <= 0 || nz <= 0) return;
  constexpr index_t limit = index_t(1) << 31;
  if (nx >= limit) throw Error("parallel_for_box: a row of 2^31 cells or more");
  const detail::Range range(label);
  constexpr bool stride = launch == BoxLaunch::grid_stride;
  auto run = [&](index_t cy, index_t cz, index_t y0, index_t z0) {
    const index_t n = nx * cy * cz;
    const int blocks =
        stride ? detail::grid_for(n) : static_cast<int>((n + detail::block_size - 1) / detail::block_size);
    const auto bx = FastDiv(static_cast<std::uint32_t>(nx)), by = FastDiv(static_cast<std::uint32_t>(cy));
    if constexpr (min_blocks > 0)
      detail::box_kernel_min<stride, min_blocks><<<blocks, detail::block_size, 0, detail::stream()>>>(
          static_cast<std::uint32_t>(n), bx, by, y0, z0, f);
    else
      detail::box_kernel<stride><<<blocks, detail::block_size, 0, detail::stream()>>>(
          static_cast<std::uint32_t>(n), bx, by, y0, z0, f);
    EDDY_GPU_CHECK_LAST();
  };
  if (nx * ny < limit) {
    const index_t planes = (limit - 1) / (nx * ny);
    for (index_t z0 = 0; z0 < nz; z0 += planes) run(ny, std::min(planes, nz - z0), 0, z0);
  } else {
    const index_t rows = (limit - 1) / nx;
    for (index_t z = 0; z < nz; ++z)
      for (index_t y0 = 0; y0 < ny; y0 += rows) run(std::min(rows, ny - y0), 1, y0, z);
  }
}

/// The most cells of a row that parallel_for_row_chunks hands a thread: one (the CPU backend's chunks are
/// the lanes of a vector loop; a GPU's lanes are its threads).
inline constexpr index_t row_chunk = 1;
/// Whether a row chunk's lanes take masked accesses (the CPU backend's row_chunk_masked): no chunks here.
inline constexpr bool row_chunk_masked = false;

/// Run f(x0, count, y, z) over the rows of a box in chunks of row_chunk cells: here f(x, 1, y, z) for
/// every cell, as parallel_for_box with `launch`: thread t (of a grid_stride launch: t, t + the grid, ...)
/// takes the cell of flat index t = x + nx (y + ny z).
template <BoxLaunch launch = BoxLaunch::per_cell, class F>
void parallel_for_row_chunks(const char* label, index_t nx, index_t ny, index_t nz, F f) {
  parallel_for_box<launch>(label, nx, ny, nz,
                           [=] EDDY_DEVICE(index_t x, index_t y, index_t z) { f(x, 1, y, z); });
}

/// Run update(x, y, z, view) for every cell of an nx x ny x nz box, where `view` (TileView) holds the
/// values stage(x', y', z', s) put into s for the cell and its neighbours (|x' - x|, |y' - y| <= 1, and
/// |z' - z| <= 1 with `HaloZ`): for values several cells use, each computed about once instead of once
/// per cell that reads it. The box is cut into tiles; stage runs for each cell of a tile and of its halo
/// that lies within the box grown by one cell (x' from -1 to nx, ...; z' from -1 to nz with HaloZ, else 0
/// to nz - 1), so a cell on the halo of two tiles is staged twice, and it may leave s unset for a cell
/// that no update reads. Here a block takes a column of tiles and marches through its planes, the staged
/// values in shared memory (gpu_tile_shape).
template <class S, bool HaloZ, class Stage, class Update>
void parallel_for_tiles(const char* label, index_t nx, index_t ny, index_t nz, Stage stage, Update update) {
  if (nx <= 0 || ny <= 0 || nz <= 0) return;
  constexpr TileShape shape = gpu_tile_shape(static_cast<long>(sizeof(S)), HaloZ);
  const index_t tx = (nx + shape.x - 1) / shape.x, ty = (ny + shape.y - 1) / shape.y,
                tz = HaloZ ? (nz + shape.z - 1) / shape.z : nz;
  if (tx * ty * tz >= (index_t(1) << 31)) throw Error("parallel_for_tiles: 2^31 blocks or more");
  const detail::Range range(label);
  const auto bytes = static_cast<std::size_t>(shape.staged(HaloZ)) * sizeof(S);
  detail::tile_kernel<S, shape.x, shape.y, shape.z, HaloZ>
      <<<static_cast<unsigned>(tx * ty * tz), shape.threads(), bytes, detail::stream()>>>(
          nx, ny, nz, FastDiv(static_cast<std::uint32_t>(tx)), FastDiv(static_cast<std::uint32_t>(ty)), stage,
          update);
  EDDY_GPU_CHECK_LAST();
}

/// Reduce f(i) for i in [0, n) with op (associative), starting from identity.
template <class T, class F, class Op>
T parallel_reduce(const char* label, index_t n, T identity, F f, Op op) {
  if (n <= 0) return identity;
  const detail::Range range(label);  // the launch and the copy of the partials
  const int blocks = detail::grid_for(n);
  DeviceArray<T> partial(static_cast<std::size_t>(blocks));
  detail::reduce_kernel<<<blocks, detail::block_size, 0, detail::stream()>>>(n, identity, f, op,
                                                                             partial.data());
  EDDY_GPU_CHECK_LAST();
  const std::vector<T> h = partial.to_host();
  T r = identity;
  for (const T& p : h) r = op(r, p);
  return r;
}

}  // namespace eddy::backend
