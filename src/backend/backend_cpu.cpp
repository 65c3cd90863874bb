// The CPU (OpenMP) backend: host memory, nothing to synchronise.
#include "backend/backend.hpp"

#if !EDDY_GPU
#include <omp.h>
#if defined(__SSE__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

#include "backend/cpu_isa.hpp"
#include "backend/graph.hpp"

namespace eddy::backend {

// The instruction sets every file of the build was compiled for (EDDY_CPU_ARCH), which cpu_isa.cpp checks
// against the running CPU's before anything else runs: one compiler macro per set of EDDY_CPU_ISA_LIST.
static_assert(detail::isa_count == 14, "a set added to EDDY_CPU_ISA_LIST needs its compiler macro here");
extern const unsigned detail::compiled_isa = 0u
#if defined(__SSE3__)
                                             | detail::isa_sse3
#endif
#if defined(__SSSE3__)
                                             | detail::isa_ssse3
#endif
#if defined(__SSE4_1__)
                                             | detail::isa_sse4_1
#endif
#if defined(__SSE4_2__)
                                             | detail::isa_sse4_2
#endif
#if defined(__POPCNT__)
                                             | detail::isa_popcnt
#endif
#if defined(__AVX__)
                                             | detail::isa_avx
#endif
#if defined(__AVX2__)
                                             | detail::isa_avx2
#endif
#if defined(__FMA__)
                                             | detail::isa_fma
#endif
#if defined(__BMI2__)
                                             | detail::isa_bmi2
#endif
#if defined(__AVX512F__)
                                             | detail::isa_avx512f
#endif
#if defined(__AVX512CD__)
                                             | detail::isa_avx512cd
#endif
#if defined(__AVX512BW__)
                                             | detail::isa_avx512bw
#endif
#if defined(__AVX512DQ__)
                                             | detail::isa_avx512dq
#endif
#if defined(__AVX512VL__)
                                             | detail::isa_avx512vl
#endif
    ;

const char* name() { return "CPU"; }

void initialize(int /*node_local_rank*/) {
#if defined(__SSE__)
#pragma omp parallel
  {
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
  }
#endif
}

DeviceInfo device_info() {
  DeviceInfo d;
  d.backend = "CPU (OpenMP)";
  d.threads = d.compute_units = omp_get_max_threads();
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) d.name = line.substr(colon + 2);
      break;
    }
  }
  // Whether the threads stay on their cores (OMP_PROC_BIND, OMP_PLACES), which the first touch of the
  // arrays (fill_zero) counts on for its NUMA placement.
  static const char* const binding[] = {"threads not bound", "threads bound", "threads bound (master)",
                                        "threads bound (close)", "threads bound (spread)"};
  const int b = static_cast<int>(omp_get_proc_bind());
  const std::string isa = detail::isa_names(detail::compiled_isa);
  d.runtime = "OpenMP " + std::to_string(_OPENMP) + ", " + std::to_string(d.threads) + " threads, " +
              (b >= 0 && b <= 4 ? binding[b] : "threads bound") + "; built for " +
              (isa.empty() ? "the baseline instruction set" : isa);
  return d;
}

void fence() {}
void* detail::compute_stream() { return nullptr; }

namespace {
double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace
DeviceTimer::DeviceTimer() = default;
DeviceTimer::~DeviceTimer() = default;
void DeviceTimer::start() { host_start_ = host_seconds(); }
double DeviceTimer::stop() { return host_seconds() - host_start_; }

// Nothing to record on the host: every step runs its work.
struct StepGraph::Impl {};
StepGraph::StepGraph() = default;
StepGraph::~StepGraph() = default;
void StepGraph::set_enabled(bool on) { enabled_ = on; }
void StepGraph::run(int, std::uint64_t, const std::function<void()>& work) { work(); }

void* allocate(std::size_t bytes) {
  // 64-byte alignment: whole cache lines, full-width SIMD loads.
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
  detail::count_allocation(p, bytes);
  return p;
}
std::size_t device_memory_used() { return memory_usage().current; }
void deallocate(void* p) noexcept {
  detail::count_deallocation(p);
  std::free(p);
}
// memcpy with a null pointer is undefined even for 0 bytes (empty blocks of uneven splits).
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  // A large copy as one contiguous range per thread: one core moves a fraction of what the memory
  // system can (2 cores of the CI machine, 2026-12-06: 1 GiB arrays, see eddy bench's copy bandwidth).
  constexpr std::size_t parallel_from = std::size_t(1) << 22;
  if (bytes < parallel_from || omp_in_parallel()) {
    if (bytes) std::memcpy(dst, src, bytes);
    return;
  }
#pragma omp parallel
  {
    const std::size_t threads = std::size_t(omp_get_num_threads()), t = std::size_t(omp_get_thread_num());
    const std::size_t piece = (bytes / threads + 63) / 64 * 64;  // whole cache lines
    const std::size_t begin = std::min(bytes, t * piece), end = std::min(bytes, begin + piece);
    if (end > begin)
      std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, end - begin);
  }
}
namespace {
/// f(slice, row) for every row of a strided block, in parallel where it is large.
template <class F>
void for_rows(Extent x, F f) {
  const index_t rows = static_cast<index_t>(x.rows), n = rows * static_cast<index_t>(x.depth);
#pragma omp parallel for schedule(static) if (n * static_cast <index_t>(x.width) > (index_t{1} << 20))
  for (index_t i = 0; i < n; ++i) f(static_cast<std::size_t>(i / rows), static_cast<std::size_t>(i % rows));
}
}  // namespace
void copy_3d_on_device(void* dst, Strides ds, const void* src, Strides ss, Extent x) {
  if (x.width == 0) return;  // memcpy with a null pointer is undefined even for 0 bytes
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  for_rows(x, [&](std::size_t z, std::size_t y) {
    std::memcpy(d + z * ds.slice + y * ds.pitch, s + z * ss.slice + y * ss.pitch, x.width);
  });
}
void fill_zero_3d(void* dst, Strides ds, Extent x) {
  if (x.width == 0) return;
  auto* d = static_cast<char*>(dst);
  for_rows(x,
           [&](std::size_t z, std::size_t y) { std::memset(d + z * ds.slice + y * ds.pitch, 0, x.width); });
}
void fill_zero(void* dst, std::size_t bytes, std::size_t part) {
  // Parallel first touch: thread t of T zeroes [t/T, (t+1)/T) of every array of `part` bytes (the last one
  // may be shorter), the cells a static schedule over them gives it, so their pages sit on its NUMA node.
  // One array (part 0) of several: each thread's pages would hold whole arrays, and the threads updating
  // a cell would read half its populations from the other socket.
  if (bytes == 0) return;
  if (part == 0 || part > bytes) part = bytes;
  auto* c = static_cast<char*>(dst);
#pragma omp parallel
  {
    const std::size_t threads = std::size_t(omp_get_num_threads()), t = std::size_t(omp_get_thread_num());
    for (std::size_t begin = 0; begin < bytes; begin += part) {
      const std::size_t n = std::min(part, bytes - begin), lo = n * t / threads, hi = n * (t + 1) / threads;
      if (hi > lo) std::memset(c + begin + lo, 0, hi - lo);
    }
  }
}

}  // namespace eddy::backend
#endif
