// The GPU backends (CUDA and HIP share this file through a few aliases).
#include "backend/parallel.hpp"

#if EDDY_GPU
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/graph.hpp"
#include "backend/profile.hpp"
#include "core/log.hpp"

// Profiler ranges (parallel_gpu.hpp, detail::Range): NVTX 3 (header-only, shipped with the CUDA toolkit)
// on CUDA and on HIP on NVIDIA's platform (nvcc finds the toolkit's headers), roctx on HIP on AMD where
// CMake found it (EDDY_HAVE_ROCTX); nothing otherwise.
#if EDDY_GPU_NVIDIA && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define EDDY_RANGE_PUSH(label) nvtxRangePushA(label)
#define EDDY_RANGE_POP() nvtxRangePop()
#elif defined(EDDY_BACKEND_HIP) && defined(EDDY_HAVE_ROCTX) && __has_include(<roctracer/roctx.h>)
#include <roctracer/roctx.h>
#define EDDY_RANGE_PUSH(label) roctxRangePushA(label)
#define EDDY_RANGE_POP() roctxRangePop()
#else
#define EDDY_RANGE_PUSH(label) ((void)(label))
#define EDDY_RANGE_POP() ((void)0)
#endif

#if defined(EDDY_BACKEND_CUDA)
#define gpuDeviceProp cudaDeviceProp
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDevice cudaGetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemGetInfo cudaMemGetInfo
#define gpuStream_t cudaStream_t
#define gpuStreamCreate cudaStreamCreate
#define gpuStreamBeginCapture cudaStreamBeginCapture
#define gpuStreamEndCapture cudaStreamEndCapture
#define gpuStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define gpuGraph_t cudaGraph_t
#define gpuGraphExec_t cudaGraphExec_t
#define gpuGraphDestroy cudaGraphDestroy
#define gpuGraphExecDestroy cudaGraphExecDestroy
#define gpuGraphLaunch cudaGraphLaunch
#define gpuGetLastError cudaGetLastError
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuSuccess cudaSuccess
#define gpuGetErrorString cudaGetErrorString
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuEvent_t cudaEvent_t
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#else
#define gpuDeviceProp hipDeviceProp_t
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDevice hipGetDevice
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpy hipMemcpy
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemGetInfo hipMemGetInfo
#define gpuStream_t hipStream_t
#define gpuStreamCreate hipStreamCreate
#define gpuStreamBeginCapture hipStreamBeginCapture
#define gpuStreamEndCapture hipStreamEndCapture
#define gpuStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define gpuGraph_t hipGraph_t
#define gpuGraphExec_t hipGraphExec_t
#define gpuGraphDestroy hipGraphDestroy
#define gpuGraphExecDestroy hipGraphExecDestroy
#define gpuGraphLaunch hipGraphLaunch
#define gpuGetLastError hipGetLastError
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuSuccess hipSuccess
#define gpuGetErrorString hipGetErrorString
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuEvent_t hipEvent_t
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#endif

#define EDDY_GPU_CHECK(call) ::eddy::backend::detail::check_last((call), __FILE__, __LINE__)

namespace eddy::backend {
namespace detail {

void check_last(gpu_error_t e, const char* file, int line) {
  if (e != gpuSuccess)
    throw Error(std::string(file) + ":" + std::to_string(line) + ": " + name() +
                " error: " + gpuGetErrorString(e));
}

int grid_for(index_t n) {
  const index_t blocks = (n + block_size - 1) / block_size;
  // Enough blocks to fill any current GPU many times over; kernels stride beyond that.
  return static_cast<int>(blocks < 65536 ? blocks : 65536);
}

void range_push(const char* label) { EDDY_RANGE_PUSH(label); }
void range_pop() { EDDY_RANGE_POP(); }

}  // namespace detail

#if defined(EDDY_BACKEND_CUDA)
const char* name() { return "CUDA"; }
#else
const char* name() { return "HIP"; }
#endif

void initialize(int node_local_rank) {
  int count = 0;
  EDDY_GPU_CHECK(gpuGetDeviceCount(&count));
  if (count == 0) throw Error(std::string(name()) + ": no GPU visible to this process");
  EDDY_GPU_CHECK(gpuSetDevice(node_local_rank % count));
  (void)detail::compute_stream();  // on this device
}

namespace detail {
// Created on first use, on the device current then (initialize() makes that the rank's device), and
// kept for the process's life: streams are cheap, and destroying one at exit races the runtime's own
// teardown.
void* compute_stream() {
  static gpuStream_t s = [] {
    gpuStream_t created = nullptr;
    EDDY_GPU_CHECK(gpuStreamCreate(&created));
    return created;
  }();
  return s;
}
}  // namespace detail

DeviceInfo device_info() {
  DeviceInfo d;
  d.backend = name();
  int count = 0;
  if (gpuGetDeviceCount(&count) != gpuSuccess) count = 0;
  d.device_count = count;
  if (count > 0) {
    EDDY_GPU_CHECK(gpuGetDevice(&d.device_id));
    gpuDeviceProp p{};
    EDDY_GPU_CHECK(gpuGetDeviceProperties(&p, d.device_id));
    d.name = p.name;
    d.memory_gib = static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
    d.compute_units = p.multiProcessorCount;
  }
  int rt = 0, drv = 0;
  (void)gpuRuntimeGetVersion(&rt);
  (void)gpuDriverGetVersion(&drv);
  d.runtime = "runtime " + std::to_string(rt) + ", driver " + std::to_string(drv);
  return d;
}

void fence() { EDDY_GPU_CHECK(gpuDeviceSynchronize()); }

DeviceTimer::DeviceTimer() {
  gpuEvent_t b = nullptr, e = nullptr;
  EDDY_GPU_CHECK(gpuEventCreate(&b));
  EDDY_GPU_CHECK(gpuEventCreate(&e));
  begin_ = b, end_ = e;
}
DeviceTimer::~DeviceTimer() {
  (void)gpuEventDestroy(static_cast<gpuEvent_t>(begin_));
  (void)gpuEventDestroy(static_cast<gpuEvent_t>(end_));
}
void DeviceTimer::start() {
  EDDY_GPU_CHECK(gpuEventRecord(static_cast<gpuEvent_t>(begin_), detail::stream()));
}
double DeviceTimer::stop() {
  EDDY_GPU_CHECK(gpuEventRecord(static_cast<gpuEvent_t>(end_), detail::stream()));
  EDDY_GPU_CHECK(gpuEventSynchronize(static_cast<gpuEvent_t>(end_)));
  float ms = 0;
  EDDY_GPU_CHECK(gpuEventElapsedTime(&ms, static_cast<gpuEvent_t>(begin_), static_cast<gpuEvent_t>(end_)));
  return 1e-3 * double(ms);
}

void* allocate(std::size_t bytes) {
  void* p = nullptr;
  const auto e = gpuMalloc(&p, bytes);
  if (e != gpuSuccess)
    throw Error(std::string(name()) + ": cannot allocate " + std::to_string(bytes) +
                " bytes of device memory: " + gpuGetErrorString(e));
  detail::count_allocation(p, bytes);
  return p;
}
std::size_t device_memory_used() {
  std::size_t free = 0, total = 0;
  EDDY_GPU_CHECK(gpuMemGetInfo(&free, &total));
  return total - free;
}
void deallocate(void* p) noexcept {
  detail::count_deallocation(p);
  if (p) (void)gpuFree(p);
}
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;  // empty blocks of uneven splits may have null pointers
  EDDY_GPU_CHECK(gpuMemcpy(dst, src, bytes, gpuMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;  // empty blocks of uneven splits may have null pointers
  EDDY_GPU_CHECK(gpuMemcpy(dst, src, bytes, gpuMemcpyDeviceToHost));
}
// Work within device memory is queued on the compute stream, in order with the kernels (and recordable).
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;  // empty blocks of uneven splits may have null pointers
  EDDY_GPU_CHECK(gpuMemcpyAsync(dst, src, bytes, gpuMemcpyDeviceToDevice, detail::stream()));
}
void fill_zero(void* dst, std::size_t bytes, std::size_t /*part: a CPU matter*/) {
  if (bytes == 0) return;
  EDDY_GPU_CHECK(gpuMemsetAsync(dst, 0, bytes, detail::stream()));
}
namespace {
// Strided blocks by a kernel: each warp moves one piece of a row (32 lanes x 4 words of the widest
// word that every address, pitch, slice and width is a multiple of), the pieces of all rows in a
// grid-stride loop. Narrow rows (a few KB, the kept columns of a pruned transpose) keep warps busy as well
// as wide ones.
struct Block {
  char* dst;
  const char* src;  // nullptr: fill with zeros
  std::size_t dst_pitch, dst_slice, src_pitch, src_slice;
  std::size_t words = 0;   // words per row
  std::size_t rows = 0;    // rows per slice
  std::size_t pieces = 0;  // pieces per row
  std::size_t items = 0;   // pieces of the whole block
};
constexpr int block_lanes = 32, block_unroll = 4;

template <class W>
__global__ void __launch_bounds__(256) block_kernel(Block b) {
  const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / block_lanes);
  const unsigned lane = threadIdx.x % block_lanes;
  for (std::size_t item = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / block_lanes; item < b.items;
       item += warps) {
    const std::size_t row = item / b.pieces, piece = item - row * b.pieces;
    const std::size_t z = row / b.rows, y = row - z * b.rows;
    W* d = reinterpret_cast<W*>(b.dst + z * b.dst_slice + y * b.dst_pitch);
    const std::size_t w0 = piece * block_lanes * block_unroll + lane;
    W v[block_unroll];
    if (b.src) {
      const W* s = reinterpret_cast<const W*>(b.src + z * b.src_slice + y * b.src_pitch);
#pragma unroll
      for (int u = 0; u < block_unroll; ++u)
        if (w0 + u * block_lanes < b.words) v[u] = s[w0 + u * block_lanes];
    } else {
#pragma unroll
      for (int u = 0; u < block_unroll; ++u) v[u] = W{};
    }
#pragma unroll
    for (int u = 0; u < block_unroll; ++u)
      if (w0 + u * block_lanes < b.words) d[w0 + u * block_lanes] = v[u];
  }
}

template <class W>
void launch_block(Block b, std::size_t width) {
  b.words = width / sizeof(W);
  b.pieces = (b.words + block_lanes * block_unroll - 1) / (block_lanes * block_unroll);
  b.items *= b.pieces;
  const std::size_t warps_per_block = 256 / block_lanes;
  const std::size_t blocks = std::min<std::size_t>((b.items + warps_per_block - 1) / warps_per_block, 65536);
  block_kernel<W><<<static_cast<unsigned>(blocks), 256, 0, detail::stream()>>>(b);
  EDDY_GPU_CHECK(gpuGetLastError());
}

void run_block(Block b, Extent x) {
  if (x.width == 0 || x.rows == 0 || x.depth == 0) return;
  b.rows = x.rows;
  b.items = x.rows * x.depth;  // rows of the block (launch_block: pieces)
  std::uintptr_t all = reinterpret_cast<std::uintptr_t>(b.dst) | reinterpret_cast<std::uintptr_t>(b.src) |
                       b.dst_pitch | b.src_pitch | x.width;
  if (x.depth > 1) all |= b.dst_slice | b.src_slice;
  if (all % 16 == 0) return launch_block<uint4>(b, x.width);
  if (all % 8 == 0) return launch_block<uint2>(b, x.width);
  if (all % 4 == 0) return launch_block<unsigned>(b, x.width);
  if (all % 2 == 0) return launch_block<unsigned short>(b, x.width);
  launch_block<unsigned char>(b, x.width);
}
}  // namespace

void copy_3d_on_device(void* dst, Strides ds, const void* src, Strides ss, Extent x) {
  run_block({static_cast<char*>(dst), static_cast<const char*>(src), ds.pitch, ds.slice, ss.pitch, ss.slice},
            x);
}

void fill_zero_3d(void* dst, Strides ds, Extent x) {
  run_block({static_cast<char*>(dst), nullptr, ds.pitch, ds.slice, 0, 0}, x);
}

struct StepGraph::Impl {
  struct Recording {
    int slot;
    std::uint64_t stamp;
    gpuGraphExec_t exec;
  };
  std::vector<Recording> recordings;
  bool broken = false;  // recording failed once: run directly from then on

  void clear() {
    for (const Recording& r : recordings) (void)gpuGraphExecDestroy(r.exec);
    recordings.clear();
  }
  ~Impl() { clear(); }
};

StepGraph::StepGraph() : impl_(std::make_unique<Impl>()) {}
StepGraph::~StepGraph() = default;

void StepGraph::set_enabled(bool on) {
  enabled_ = on;
  if (!on) impl_->clear();
}

void StepGraph::run(int slot, std::uint64_t stamp, const std::function<void()>& work) {
  if (!enabled_ || impl_->broken || phase_timer().on()) return work();
  const gpuStream_t s = detail::stream();
  auto& recs = impl_->recordings;
  for (std::size_t k = 0; k < recs.size(); ++k) {
    if (recs[k].slot != slot) continue;
    if (recs[k].stamp == stamp) {
      EDDY_GPU_CHECK(gpuGraphLaunch(recs[k].exec, s));
      return;
    }
    (void)gpuGraphExecDestroy(recs[k].exec);  // recorded with other values: record again
    recs.erase(recs.begin() + static_cast<std::ptrdiff_t>(k));
    break;
  }
  // Thread-local mode: only this thread's calls that could not be recorded fail (and end the recording).
  EDDY_GPU_CHECK(gpuStreamBeginCapture(s, gpuStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    work();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  gpuGraph_t graph = nullptr;
  const auto ended = gpuStreamEndCapture(s, &graph);
  gpuGraphExec_t exec = nullptr;
  if (failure.empty() && ended != gpuSuccess) failure = gpuGetErrorString(ended);
  if (failure.empty()) {
#if defined(EDDY_BACKEND_CUDA)
    const auto made = cudaGraphInstantiateWithFlags(&exec, graph, 0);
#else
    const auto made = hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
#endif
    if (made != gpuSuccess) failure = gpuGetErrorString(made);
  }
  if (graph) (void)gpuGraphDestroy(graph);
  if (!failure.empty()) {
    (void)gpuGetLastError();  // the failed recording's error is handled here
    impl_->broken = true;
    impl_->clear();
    log::warn(std::string("step graphs off: the step could not be recorded (") + failure +
              "); it runs kernel by kernel");
    return work();  // nothing had run while recording
  }
  ++recordings_;
  recs.push_back({slot, stamp, exec});
  EDDY_GPU_CHECK(gpuGraphLaunch(exec, s));
}

}  // namespace eddy::backend
#endif
