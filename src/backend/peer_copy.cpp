// One-sided copies between the GPUs of one host (backend/peer_copy.hpp): CUDA IPC for the memory, the
// driver's stream memory operations for the round flags; stubs that say what is missing elsewhere.
#include "backend/peer_copy.hpp"

#include "core/error.hpp"

#if defined(EDDY_BACKEND_CUDA)
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "backend/backend.hpp"
#include "backend/side_stream.hpp"

namespace eddy::backend {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA (peer copies): ") + what + ": " + cudaGetErrorString(e));
}
void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  throw Error(std::string("CUDA (peer copies): ") + what + ": " + (s ? s : "unknown error"));
}
cudaStream_t compute() { return detail::SideStream::compute(); }
CUdeviceptr address(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

/// What export_memory's string holds: the allocation (its IPC handle, its base address in the exporting
/// process and its id there, which the driver never reuses) and the offset into it.
struct Handle {
  cudaIpcMemHandle_t ipc;
  unsigned long long base, id;
  std::size_t offset;
};

}  // namespace

bool peer_copy_available() { return true; }
std::string peer_copy_unavailable_reason() { return {}; }

std::string peer_bus_id() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  char bus[64] = {};
  check(cudaDeviceGetPCIBusId(bus, sizeof bus, dev), "cudaDeviceGetPCIBusId");
  return bus;
}

bool peer_reachable(const std::string& bus) {
  int dev = 0, other = -1, can = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  if (cudaDeviceGetByPCIBusId(&other, bus.c_str()) != cudaSuccess) {
    (void)cudaGetLastError();  // not visible in this process
    return false;
  }
  if (other == dev) return false;
  check(cudaDeviceCanAccessPeer(&can, dev, other), "cudaDeviceCanAccessPeer");
  return can == 1;
}

struct PeerCopier::Impl {
  struct Opened {
    unsigned long long id = 0;
    void* base = nullptr;
  };
  int rank = 0, size = 1;
  // One copy stream: spreading a round's rows over 2 or 4 streams measured no faster on two H200s
  // (1024^3 step 211.2 ms on one, 214.0 on two, 217.0 on four:
  // cases/benchmarks/results/2026-11-30h-h200/s8c_x2).
  detail::SideStream side{false};
  std::uint32_t* flags = nullptr;          // [size]: free_from[p], then [size]: full_from[p]
  std::vector<std::uint32_t*> peer_flags;  // each peer's flags, opened here
  // (peer, base address there) -> the allocation opened there now: a peer's freed allocation is closed
  // when another takes its place (same base, another id).
  std::map<std::pair<int, unsigned long long>, Opened> opened;
  std::uint32_t round = 0;
  std::vector<char> waited;  // this round, per peer: the peer's "may write" signal waited for
  unsigned wait_flags = CU_STREAM_WAIT_VALUE_GEQ;
};

PeerCopier::PeerCopier(int rank, int size) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.rank = rank, m.size = size;
  m.peer_flags.assign(static_cast<std::size_t>(size), nullptr);
  const std::size_t bytes = 2 * sizeof(std::uint32_t) * static_cast<std::size_t>(size);
  check(cudaMalloc(reinterpret_cast<void**>(&m.flags), bytes), "flags");
  check(cudaMemset(m.flags, 0, bytes), "flags");
  int dev = 0, flush = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cuDeviceGetAttribute(&flush, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, dev), "attribute");
  if (flush) m.wait_flags |= CU_STREAM_WAIT_VALUE_FLUSH;
}

PeerCopier::~PeerCopier() {
  if (!impl_) return;
  Impl& m = *impl_;
  // Every peer's writes into this rank's memory are awaited by the compute stream (join).
  (void)cudaStreamSynchronize(compute());
  m.side.synchronize();
  for (auto& [key, o] : m.opened) (void)cudaIpcCloseMemHandle(o.base);
  if (m.flags) (void)cudaFree(m.flags);
  // Closing the mapping of an allocation the peer has freed may fail; nothing depends on it, and its error
  // must not surface at the next kernel launch's check.
  (void)cudaGetLastError();
}

bool PeerCopier::exportable(const void* p) {
  if (!p) return true;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  check(cuMemGetAddressRange(&base, &size, address(p)), "cuMemGetAddressRange");
  return size >= (std::size_t(2) << 20);
}

std::string PeerCopier::export_memory(const void* p) {
  if (!p) return {};
  CUdeviceptr base = 0;
  std::size_t size = 0;
  check(cuMemGetAddressRange(&base, &size, address(p)), "cuMemGetAddressRange");
  Handle h{};
  check(cudaIpcGetMemHandle(&h.ipc, reinterpret_cast<void*>(base)), "cudaIpcGetMemHandle");
  check(cuPointerGetAttribute(&h.id, CU_POINTER_ATTRIBUTE_BUFFER_ID, base), "buffer id");
  h.base = static_cast<unsigned long long>(base);
  h.offset = static_cast<std::size_t>(address(p) - base);
  return std::string(reinterpret_cast<const char*>(&h), sizeof h);
}

void* PeerCopier::open(int peer, const std::string& handle) {
  if (handle.empty()) return nullptr;
  if (handle.size() != sizeof(Handle)) throw Error("peer copies: a memory handle of the wrong size");
  Handle h{};
  std::memcpy(&h, handle.data(), sizeof h);
  Impl::Opened& o = impl_->opened[{peer, h.base}];
  if (o.base && o.id != h.id) {  // freed there, and another allocation took its place
    check(cudaIpcCloseMemHandle(o.base), "cudaIpcCloseMemHandle");
    o.base = nullptr;
  }
  if (!o.base) {
    check(cudaIpcOpenMemHandle(&o.base, h.ipc, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    o.id = h.id;
  }
  return static_cast<char*>(o.base) + h.offset;
}

std::string PeerCopier::flags_handle() const { return export_memory(impl_->flags); }

void PeerCopier::connect(int peer, const std::string& flags_handle) {
  impl_->peer_flags.at(static_cast<std::size_t>(peer)) =
      static_cast<std::uint32_t*>(open(peer, flags_handle));
}

void PeerCopier::begin() {
  Impl& m = *impl_;
  ++m.round;
  m.waited.assign(static_cast<std::size_t>(m.size), 0);
  m.side.fork();
  for (int q = 0; q < m.size; ++q)
    if (q != m.rank)  // to q: my destination may be written (my earlier work on it is done)
      check(cuStreamWriteValue32(m.side.get(), address(m.peer_flags[q] + m.rank), m.round, 0), "write flag");
}

// One copy engine operation per block: 2D for one slice, else 3D, whose pitched pointers need slices that
// are whole numbers of rows (else one 2D copy per slice). The narrow rows of a column-pruned transpose
// (2.7 KB) moved at 383 GB/s in one 3D copy on two H200s, as fast as wide ones; one 2D copy per slice
// managed 184 GB/s (cases/benchmarks/results/2026-11-30i-h200).
void PeerCopier::put(int peer, void* dst, Strides ds, const void* src, Strides ss, Extent x) {
  Impl& m = *impl_;
  if (x.width == 0 || x.rows == 0 || x.depth == 0) return;
  char& waited = m.waited.at(static_cast<std::size_t>(peer));
  if (!waited) {  // the peer's destination free
    check(cuStreamWaitValue32(m.side.get(), address(m.flags + peer), m.round, CU_STREAM_WAIT_VALUE_GEQ),
          "wait flag");
    waited = 1;
  }
  const bool whole_rows = ds.slice % ds.pitch == 0 && ss.slice % ss.pitch == 0;
  if (x.depth > 1 && whole_rows) {
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), ss.pitch, x.width, ss.slice / ss.pitch);
    p.dstPtr = make_cudaPitchedPtr(dst, ds.pitch, x.width, ds.slice / ds.pitch);
    p.extent = make_cudaExtent(x.width, x.rows, x.depth);
    p.kind = cudaMemcpyDefault;
    check(cudaMemcpy3DAsync(&p, m.side.get()), "cudaMemcpy3DAsync to a peer");
    return;
  }
  for (std::size_t z = 0; z < x.depth; ++z)
    check(cudaMemcpy2DAsync(static_cast<char*>(dst) + z * ds.slice, ds.pitch,
                            static_cast<const char*>(src) + z * ss.slice, ss.pitch, x.width, x.rows,
                            cudaMemcpyDefault, m.side.get()),
          "cudaMemcpy2DAsync to a peer");
}

void PeerCopier::end() {
  Impl& m = *impl_;
  for (int q = 0; q < m.size; ++q)
    if (q != m.rank)  // to q: my copies into it are done
      check(cuStreamWriteValue32(m.side.get(), address(m.peer_flags[q] + m.size + m.rank), m.round, 0),
            "write flag");
  m.side.record_done();
}

void PeerCopier::join() {
  Impl& m = *impl_;
  for (int q = 0; q < m.size; ++q)
    if (q != m.rank)
      check(cuStreamWaitValue32(compute(), address(m.flags + m.size + q), m.round, m.wait_flags),
            "wait flag");
  m.side.join();
}

}  // namespace eddy::backend

#else

namespace eddy::backend {

bool peer_copy_available() { return false; }
std::string peer_copy_unavailable_reason() {
#if defined(EDDY_BACKEND_HIP)
  return "the HIP backend has no peer copies yet";
#else
  return "the CPU backend has no GPUs to copy between";
#endif
}
std::string peer_bus_id() { return {}; }
bool peer_reachable(const std::string&) { return false; }

struct PeerCopier::Impl {};

[[noreturn]] static void unavailable() { throw Error("peer copies: " + peer_copy_unavailable_reason()); }

PeerCopier::PeerCopier(int, int) { unavailable(); }
PeerCopier::~PeerCopier() = default;
bool PeerCopier::exportable(const void*) { unavailable(); }
std::string PeerCopier::export_memory(const void*) { unavailable(); }
void* PeerCopier::open(int, const std::string&) { unavailable(); }
std::string PeerCopier::flags_handle() const { unavailable(); }
void PeerCopier::connect(int, const std::string&) { unavailable(); }
void PeerCopier::begin() { unavailable(); }
void PeerCopier::put(int, void*, Strides, const void*, Strides, Extent) { unavailable(); }
void PeerCopier::end() { unavailable(); }
void PeerCopier::join() { unavailable(); }

}  // namespace eddy::backend

#endif
