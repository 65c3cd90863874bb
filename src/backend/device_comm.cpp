// The device communicator (backend/device_comm.hpp): NCCL when the CUDA build found it, else stubs that
// say what is missing.
#include "backend/device_comm.hpp"

#include "backend/backend.hpp"
#include "core/error.hpp"

#if defined(EDDY_BACKEND_CUDA) && defined(EDDY_HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>

namespace eddy::backend {
namespace {

void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string("NCCL: ") + what + ": " + ncclGetErrorString(r));
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA (device communicator): ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

bool device_comm_available() { return true; }

std::string device_comm_version() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "NCCL (version unknown)";
  // NCCL >= 2.9 encodes MAJOR*10000 + MINOR*100 + PATCH.
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

/// The stream the kernels run on, which rounds follow and which waits for them.
static cudaStream_t compute() { return static_cast<cudaStream_t>(detail::compute_stream()); }

struct DeviceComm::Impl {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t ready = nullptr, done = nullptr;
};

std::vector<char> DeviceComm::make_id() {
  ncclUniqueId id;
  check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  std::vector<char> bytes(sizeof id.internal);
  std::memcpy(bytes.data(), id.internal, bytes.size());
  return bytes;
}

DeviceComm::DeviceComm(int rank, int size, const std::vector<char>& id) : impl_(std::make_unique<Impl>()) {
  ncclUniqueId uid;
  if (id.size() != sizeof uid.internal) throw Error("NCCL: bootstrap id of the wrong size");
  std::memcpy(uid.internal, id.data(), id.size());
  check(ncclCommInitRank(&impl_->comm, size, uid, rank), "ncclCommInitRank");
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priorities");
  // Non-blocking: no implicit ordering with the compute stream the kernels run on (backend.hpp); highest
  // priority: its few blocks are scheduled ahead of the interior update's.
  check(cudaStreamCreateWithPriority(&impl_->stream, cudaStreamNonBlocking, greatest), "stream");
  check(cudaEventCreateWithFlags(&impl_->ready, cudaEventDisableTiming), "event");
  check(cudaEventCreateWithFlags(&impl_->done, cudaEventDisableTiming), "event");
}

DeviceComm::~DeviceComm() {
  if (!impl_) return;
  if (impl_->stream) (void)cudaStreamSynchronize(impl_->stream);
  if (impl_->comm) (void)ncclCommDestroy(impl_->comm);
  if (impl_->ready) (void)cudaEventDestroy(impl_->ready);
  if (impl_->done) (void)cudaEventDestroy(impl_->done);
  if (impl_->stream) (void)cudaStreamDestroy(impl_->stream);
}

void DeviceComm::begin() {
  check(cudaEventRecord(impl_->ready, compute()), "event record");
  check(cudaStreamWaitEvent(impl_->stream, impl_->ready, 0), "stream wait");
  check(ncclGroupStart(), "ncclGroupStart");
}
void DeviceComm::send(const void* buf, std::size_t bytes, int peer) {
  check(ncclSend(buf, bytes, ncclChar, peer, impl_->comm, impl_->stream), "ncclSend");
}
void DeviceComm::recv(void* buf, std::size_t bytes, int peer) {
  check(ncclRecv(buf, bytes, ncclChar, peer, impl_->comm, impl_->stream), "ncclRecv");
}
void DeviceComm::end() {
  check(ncclGroupEnd(), "ncclGroupEnd");
  check(cudaEventRecord(impl_->done, impl_->stream), "event record");
}
void DeviceComm::join() { check(cudaStreamWaitEvent(compute(), impl_->done, 0), "stream wait"); }

}  // namespace eddy::backend

#else

namespace eddy::backend {

bool device_comm_available() { return false; }

std::string device_comm_version() {
#if defined(EDDY_BACKEND_CUDA)
  return "not built: NCCL (nccl.h, libnccl) was not found when this CUDA build was configured";
#elif defined(EDDY_BACKEND_HIP)
  return "not built: the HIP backend has no RCCL binding yet";
#else
  return "not built: the CPU backend has no device communicator";
#endif
}

struct DeviceComm::Impl {};

[[noreturn]] static void unavailable() { throw Error("device communicator: " + device_comm_version()); }

std::vector<char> DeviceComm::make_id() { unavailable(); }
DeviceComm::DeviceComm(int, int, const std::vector<char>&) { unavailable(); }
DeviceComm::~DeviceComm() = default;
void DeviceComm::begin() { unavailable(); }
void DeviceComm::send(const void*, std::size_t, int) { unavailable(); }
void DeviceComm::recv(void*, std::size_t, int) { unavailable(); }
void DeviceComm::end() { unavailable(); }
void DeviceComm::join() { unavailable(); }

}  // namespace eddy::backend

#endif
