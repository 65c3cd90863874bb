#pragma once
/// The backend layer: the only part of eddy that knows CUDA, HIP or OpenMP.
///
/// Kernels are written once as lambdas over a cell index and launched with a label
/// (backend/parallel.hpp, for files the device compiler builds):
///   parallel_for("lbm::stream_collide", n, [=] EDDY_DEVICE (index_t i) { ... });
/// This header is plain C++ and may be included anywhere. Memory is owned by DeviceArray<T> (device memory on
/// GPUs, host memory on the CPU backend). Every call checks its result and throws eddy::Error with file:line
/// on failure.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "backend/macros.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

namespace eddy::backend {

/// What the build and the machine offer.
struct DeviceInfo {
  std::string backend;      ///< "CPU (OpenMP)", "CUDA", "HIP"
  std::string name;         ///< device name (GPU) or CPU model
  int device_count = 0;     ///< GPUs visible to this process (0 on the CPU backend)
  int device_id = -1;       ///< the GPU this process uses (-1 on the CPU backend)
  double memory_gib = 0.0;  ///< device memory
  int threads = 1;          ///< OpenMP threads (CPU backend)
  int compute_units = 1;    ///< streaming multiprocessors / compute units (GPU); OpenMP threads (CPU)
  std::string runtime;      ///< runtime/driver version string
};

/// Name of the compiled backend: "CPU", "CUDA" or "HIP".
const char* name();
/// True when kernels run on a GPU.
constexpr bool is_gpu() { return EDDY_GPU != 0; }
/// The vendor of the GPU the build's kernels run on (none: the CPU backend). Launch parameters that were
/// measured on one vendor's GPUs (parallel_for_box's `min_blocks`, whose meaning differs between them)
/// are chosen by it: lbm/solver_launches.hpp, ResidentBlocks.
enum class GpuVendor { none, nvidia, amd };
#if EDDY_GPU_NVIDIA
inline constexpr GpuVendor gpu_vendor = GpuVendor::nvidia;
#elif EDDY_GPU
inline constexpr GpuVendor gpu_vendor = GpuVendor::amd;
#else
inline constexpr GpuVendor gpu_vendor = GpuVendor::none;
#endif
/// Start the backend for this process: pick the device for a node-local rank (round robin over the
/// visible GPUs); on every backend, subnormals are flushed to zero because decaying flows produce them and
/// they cost 100x on CPUs: FP32 and FP64 on the host (x86 FTZ/DAZ on every OpenMP thread), FP32 in
/// device code (nvcc --ftz=true on CUDA and HIP on NVIDIA, clang -fgpu-flush-denormals-to-zero on HIP
/// on AMD; neither compiler has a device flag for FP64, which NVIDIA and AMD GPUs handle at full speed).
void initialize(int node_local_rank);
/// Facts about the device this process uses.
DeviceInfo device_info();
/// Wait until every launched kernel and copy has finished.
void fence();
namespace detail {
/// The GPU stream that every kernel, device-to-device copy and fill, and FFT of this process is queued on
/// (a cudaStream_t / hipStream_t: a blocking stream, so copies to and from the host through the default
/// stream stay ordered with it); nullptr on the CPU backend. Work on one stream can be recorded as a
/// graph (backend/graph.hpp), which the legacy default stream cannot.
void* compute_stream();
}  // namespace detail

// ------------------------------------------------------------------ memory
void* allocate(std::size_t bytes);
void deallocate(void* p) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_on_device(void* dst, const void* src, std::size_t bytes);
/// Zero `bytes` at dst. On the CPU backend this is the first touch, which puts each page on the NUMA node
/// of the thread that zeroes it, so threads zero what they update: with `part` > 0 the block holds
/// arrays of `part` bytes back to back over the same cells (an LBM state's populations or moments, a
/// spectral field's components), and each thread zeroes its share of every one, the cells its static
/// share of a kernel's loop updates; with 0, its share of the whole block.
void fill_zero(void* dst, std::size_t bytes, std::size_t part = 0);
/// Where the rows of a strided block lie: rows `pitch` bytes apart within a slice, slices `slice` bytes
/// apart (unused for one slice).
struct Strides {
  std::size_t pitch = 0, slice = 0;
};
/// The extent of a strided block: `depth` slices of `rows` rows of `width` bytes.
struct Extent {
  std::size_t width = 0, rows = 1, depth = 1;
};
/// Strided block copy within device memory (packing and unpacking of transposes, their blocks that stay on
/// this rank). On GPUs a kernel on the compute stream: a copy engine moved such blocks at about 840 GB/s
/// each way on an H200 (cases/benchmarks/results/2026-11-30i-h200), a fraction of what the SMs move.
void copy_3d_on_device(void* dst, Strides dst_strides, const void* src, Strides src_strides, Extent extent);
/// copy_3d_on_device of one slice: `rows` rows of `width` bytes, `dst_pitch` and `src_pitch` apart.
inline void copy_2d_on_device(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                              std::size_t width, std::size_t rows) {
  copy_3d_on_device(dst, {dst_pitch, 0}, src, {src_pitch, 0}, {width, rows, 1});
}
/// Strided zero fill within device memory (the parts of a transpose's destination that a pruned transpose
/// does not write).
void fill_zero_3d(void* dst, Strides strides, Extent extent);
/// fill_zero_3d of one slice: `rows` rows of `width` bytes, `pitch` bytes apart.
inline void fill_zero_2d(void* dst, std::size_t pitch, std::size_t width, std::size_t rows) {
  fill_zero_3d(dst, {pitch, 0}, {width, rows, 1});
}

/// Memory held through allocate() by this process (device memory on GPUs, host memory on the CPU backend).
struct MemoryUsage {
  std::size_t current = 0;  ///< bytes held now
  std::size_t peak = 0;     ///< most bytes held at once since the start or the last reset_peak_memory()
};
/// What allocate() holds now and at its peak. Host-safe on every backend (counted by allocate/deallocate).
MemoryUsage memory_usage();
/// Start a new peak from what is held now.
void reset_peak_memory();
/// Device memory in use by every client of the device, as its driver reports it (GPUs: total - free,
/// including other processes, the context and library work areas); the CPU backend: memory_usage().current.
std::size_t device_memory_used();
namespace detail {
/// Called by each backend's allocate/deallocate.
void count_allocation(void* p, std::size_t bytes);
void count_deallocation(void* p) noexcept;
}  // namespace detail

/// An owning, move-only array in the backend's memory space. Its data pointer may be captured by
/// value in kernels; host code must go through to_host/from_host.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) { resize(n); }
  ~DeviceArray() { deallocate(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      deallocate(data_);
      data_ = o.data_, size_ = o.size_;
      o.data_ = nullptr, o.size_ = 0;
    }
    return *this;
  }

  /// Reallocate to n elements, zero-filled; `part` > 0: arrays of `part` elements back to back over the same
  /// cells (fill_zero: where the CPU backend's first touch puts their pages).
  void resize(std::size_t n, std::size_t part = 0) {
    deallocate(data_);
    data_ = nullptr, size_ = 0;
    if (n == 0) return;
    data_ = static_cast<T*>(allocate(n * sizeof(T)));
    size_ = n;
    fill_zero(data_, n * sizeof(T), part * sizeof(T));
  }
  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

  void from_host(const std::vector<T>& h) {
    if (h.size() != size_) resize(h.size());
    if (size_) copy_to_device(data_, h.data(), bytes());
  }
  std::vector<T> to_host() const {
    std::vector<T> h(size_);
    if (size_) copy_to_host(h.data(), data_, bytes());
    return h;
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace eddy::backend

namespace eddy::backend {

/// How parallel_for_box spreads a box over GPU threads (the CPU backend ignores it). Both give each cell
/// one call of f; they differ in what the compiler makes of the kernel (registers, how many loads it
/// keeps in flight), which only a measurement decides: the LBM's D3Q19 update on an H200
/// (cases/benchmarks/results/2026-11-30d-h200) runs 1.6 % faster per_cell with 32-bit populations and
/// 18 % faster grid_stride with 16-bit ones. parallel_for_box's `min_blocks` (0: none) further asks that
/// many blocks of 256 threads resident at once on an SM (NVIDIA) or a compute unit (AMD), which caps the
/// kernel's registers to fit (it may then spill). The second argument of `__launch_bounds__` carries it,
/// and the two vendors read it differently: NVIDIA as blocks per SM, so a register cap of 65,536 /
/// (256 min_blocks) per thread (80 at 3, 64 at 4, in granules of 8); HIP on AMD as
/// `amdgpu_waves_per_eu`, wavefronts per SIMD, and a block of 256 threads is four wavefronts of 64, one
/// on each of a CU's four SIMDs, so again min_blocks blocks per CU, but a cap of 512 / min_blocks vector
/// registers (CDNA2 and CDNA3: 512 per SIMD lane, architectural and accumulation registers together).
/// Both reach at most 8 such blocks, so a min_blocks asks the same share of the maximum residency on
/// either; what it costs in registers differs, which is why the LBM keeps a value per vendor.
enum class BoxLaunch {
  per_cell,     ///< one thread per cell
  grid_stride,  ///< a capped grid, each thread looping over cells a grid apart
};

/// The values a tile launch (parallel_for_tiles) staged for the cells around one cell of its tile:
/// at(dx, dy, dz) is the value of the cell at that offset, |dx|, |dy| <= 1, and |dz| <= 1 where the
/// launch has a halo along z (else dz = 0). A plane of the staged block per dz (the GPU backend keeps
/// three planes in a ring).
template <class S>
struct TileView {
  const S* below;  ///< the value of the cell at (0, 0, -1)
  const S* own;    ///< the cell's own value
  const S* above;  ///< the value of the cell at (0, 0, +1)
  int sx;          ///< the stride of y in a plane
  EDDY_HD EDDY_INLINE const S& at(int dx, int dy, int dz) const {
    return (dz < 0 ? below : dz > 0 ? above : own)[dx + sx * dy];
  }
};

/// The tile shape of parallel_for_tiles on a GPU for staged values of `bytes` each, one thread a cell of
/// a plane of x by y cells. With a halo along z a block marches through z planes of its column, the
/// staged values of three planes (below, own, above, each with its one-cell halo in x and y) in a ring in
/// shared memory: each plane is staged once per column and block, not three times as with tiles of a
/// few planes and a halo of their own (16 x 4 x 4 cells staged 2.5 values a cell; 32 x 4 marching
/// through 16 planes, 1.8). Without, a block is one plane of its tile and its halo. The staged values
/// fit in 48 KiB (what a block may take without asking, on NVIDIA and AMD alike), at most 256 threads.
/// A warp is a row of 32 cells where the values fit: consecutive threads then read consecutive values,
/// from distinct shared-memory banks for values of an odd number of 4-byte words (a warp over two rows
/// of 16 cells, 18 values apart, reads two values a bank).
struct TileShape {
  int x, y, z;  ///< cells a plane of a tile along x and y; z: the planes a block marches (halo along z)
  constexpr int threads() const { return x * y; }
  /// Values staged at once: three planes with a halo along z, else one.
  constexpr long staged(bool halo_z) const { return long(x + 2) * (y + 2) * (halo_z ? 3 : 1); }
};
constexpr TileShape gpu_tile_shape(long bytes, bool halo_z) {
  constexpr long limit = 48 * 1024;
  const TileShape shapes[] = {{32, 8, 16}, {32, 4, 16}, {32, 2, 16}, {16, 4, 16},
                              {16, 2, 16}, {8, 2, 16},  {2, 2, 16}};
  for (const TileShape& t : shapes)
    if (t.staged(halo_z) * bytes <= limit) return t;
  return {1, 1, 16};
}

/// Reduction operators for parallel_reduce.
struct Sum {
  template <class T>
  EDDY_HD T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct Max {
  template <class T>
  EDDY_HD T operator()(const T& a, const T& b) const {
    return a > b ? a : b;
  }
};
struct Min {
  template <class T>
  EDDY_HD T operator()(const T& a, const T& b) const {
    return a < b ? a : b;
  }
};

}  // namespace eddy::backend

namespace eddy::backend {

/// Run f(i) for i in [0, n) on the host's cores (OpenMP in every backend): set-up work such as
/// evaluating initial conditions or building flag fields of large grids. f must be thread-safe.
template <class F>
void host_parallel_for(index_t n, F f) {
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) f(i);
}

/// Work queued on the compute stream, timed by the device's own clock: GPU events recorded on the stream
/// (no launch latency or host scheduling in the figure), the host's steady clock after a fence on the
/// CPU backend. start() then stop() (seconds between them; stop waits for the work).
class DeviceTimer {
 public:
  DeviceTimer();
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;
  void start();
  double stop();

 private:
  [[maybe_unused]] void* begin_ = nullptr;  ///< the GPU events; unused on the CPU backend
  [[maybe_unused]] void* end_ = nullptr;
  [[maybe_unused]] double host_start_ = 0;  ///< the host clock at start() (CPU backend)
};

/// The device's copy bandwidth, the ceiling eddy bench measures its kernels against: bytes read + bytes
/// written per second (GB/s), the median of `repeats` runs after a warm-up for each of several copies
/// of `bytes` per array, every run timed by DeviceTimer, and the best of them. GPUs: a grid-stride copy
/// of 16 bytes a thread at 1, 2, 4 and 8 blocks of 256 threads per compute unit, one thread per 16
/// bytes, and the runtime's device-to-device memcpy. CPU: a copy of 16-byte elements split into one
/// contiguous range per OpenMP thread (the loop the compiler vectorizes) and memcpy of one range per
/// thread.
struct CopyBandwidth {
  double gbs = 0;                                       ///< the best median
  std::string method;                                   ///< the copy that gave it
  std::vector<std::pair<std::string, double>> methods;  ///< every copy's median GB/s, in the order run
};
CopyBandwidth copy_bandwidth(std::size_t bytes, int repeats);
/// The yardstick eddy bench used until 2026-12-06, kept to compare with: an 8-byte-per-element
/// parallel_for copy (b = a + 1), timed by the host clock around the launch and a fence.
double copy_bandwidth_parallel_for(std::size_t bytes, int repeats);

}  // namespace eddy::backend
