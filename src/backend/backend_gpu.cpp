// The GPU backends (CUDA and HIP share this file through a few aliases).
#include "backend/parallel.hpp"

#if EDDY_GPU
#include <string>

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
#define gpuMemset cudaMemset
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMemcpy2D cudaMemcpy2D
#define gpuMemset2D cudaMemset2D
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuSuccess cudaSuccess
#define gpuGetErrorString cudaGetErrorString
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDriverGetVersion cudaDriverGetVersion
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
#define gpuMemset hipMemset
#define gpuMemGetInfo hipMemGetInfo
#define gpuMemcpy2D hipMemcpy2D
#define gpuMemset2D hipMemset2D
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuSuccess hipSuccess
#define gpuGetErrorString hipGetErrorString
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDriverGetVersion hipDriverGetVersion
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
}

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
  }
  int rt = 0, drv = 0;
  (void)gpuRuntimeGetVersion(&rt);
  (void)gpuDriverGetVersion(&drv);
  d.runtime = "runtime " + std::to_string(rt) + ", driver " + std::to_string(drv);
  return d;
}

void fence() { EDDY_GPU_CHECK(gpuDeviceSynchronize()); }

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
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;  // empty blocks of uneven splits may have null pointers
  EDDY_GPU_CHECK(gpuMemcpy(dst, src, bytes, gpuMemcpyDeviceToDevice));
}
void fill_zero(void* dst, std::size_t bytes) {
  if (bytes == 0) return;
  EDDY_GPU_CHECK(gpuMemset(dst, 0, bytes));
}
void copy_2d_on_device(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                       std::size_t width, std::size_t rows) {
  if (width == 0 || rows == 0) return;
  // One row (or rows without gaps) is a plain copy: the 2D copy would refuse pitches past its limit
  // (cudaDevAttrMaxPitch, 2^31 - 1 bytes), which a single row of a large array may well have.
  if (rows == 1 || (dst_pitch == width && src_pitch == width)) return copy_on_device(dst, src, width * rows);
  EDDY_GPU_CHECK(gpuMemcpy2D(dst, dst_pitch, src, src_pitch, width, rows, gpuMemcpyDeviceToDevice));
}

void fill_zero_2d(void* dst, std::size_t pitch, std::size_t width, std::size_t rows) {
  if (width == 0 || rows == 0) return;
  if (rows == 1 || pitch == width) return fill_zero(dst, width * rows);  // as copy_2d_on_device: pitch limit
  EDDY_GPU_CHECK(gpuMemset2D(dst, pitch, 0, width, rows));
}

}  // namespace eddy::backend
#endif
