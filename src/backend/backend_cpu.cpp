// The CPU (OpenMP) backend: host memory, nothing to synchronise.
#include "backend/backend.hpp"

#if !EDDY_GPU
#include <omp.h>
#if defined(__SSE__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

#include "backend/graph.hpp"

namespace eddy::backend {

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
  d.threads = omp_get_max_threads();
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) d.name = line.substr(colon + 2);
      break;
    }
  }
  d.runtime = "OpenMP " + std::to_string(_OPENMP);
  return d;
}

void fence() {}
void* detail::compute_stream() { return nullptr; }

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
  if (bytes) std::memcpy(dst, src, bytes);
}
void copy_2d_on_device(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                       std::size_t width, std::size_t rows) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const index_t n = static_cast<index_t>(rows);
#pragma omp parallel for schedule(static) if (n * static_cast <index_t>(width) > (index_t{1} << 20))
  for (index_t r = 0; r < n; ++r)
    std::memcpy(d + static_cast<std::size_t>(r) * dst_pitch, s + static_cast<std::size_t>(r) * src_pitch,
                width);
}
void fill_zero_2d(void* dst, std::size_t pitch, std::size_t width, std::size_t rows) {
  if (width == 0 || rows == 0) return;  // memset with a null pointer is undefined even for 0 bytes
  auto* d = static_cast<char*>(dst);
  const index_t n = static_cast<index_t>(rows);
#pragma omp parallel for schedule(static) if (n * static_cast <index_t>(width) > (index_t{1} << 20))
  for (index_t r = 0; r < n; ++r) std::memset(d + static_cast<std::size_t>(r) * pitch, 0, width);
}
void fill_zero(void* dst, std::size_t bytes) {
  // Parallel first touch: each thread zeroes the pages it will later work on (NUMA placement).
  auto* c = static_cast<char*>(dst);
  const index_t n = static_cast<index_t>(bytes);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) c[i] = 0;
}

}  // namespace eddy::backend
#endif
