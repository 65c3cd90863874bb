// The device communicator (backend/device_comm.hpp): NCCL when the CUDA build found it, else stubs that
// say what is missing.
#include "backend/device_comm.hpp"

#include "backend/backend.hpp"
#include "core/error.hpp"

#if defined(EDDY_BACKEND_CUDA) && defined(EDDY_HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>

#include "backend/side_stream.hpp"

namespace eddy::backend {
namespace {

void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string("NCCL: ") + what + ": " + ncclGetErrorString(r));
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

struct DeviceComm::Impl {
  ncclComm_t comm = nullptr;
  // Highest priority: its few blocks are scheduled ahead of the interior update's.
  detail::SideStream side{true};
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
}

DeviceComm::~DeviceComm() {
  if (!impl_) return;
  impl_->side.synchronize();
  if (impl_->comm) (void)ncclCommDestroy(impl_->comm);
}

void DeviceComm::begin() {
  impl_->side.fork();
  check(ncclGroupStart(), "ncclGroupStart");
}
void DeviceComm::send(const void* buf, std::size_t bytes, int peer) {
  check(ncclSend(buf, bytes, ncclChar, peer, impl_->comm, impl_->side.get()), "ncclSend");
}
void DeviceComm::recv(void* buf, std::size_t bytes, int peer) {
  check(ncclRecv(buf, bytes, ncclChar, peer, impl_->comm, impl_->side.get()), "ncclRecv");
}
void DeviceComm::end() {
  check(ncclGroupEnd(), "ncclGroupEnd");
  impl_->side.record_done();
}
void DeviceComm::join() { impl_->side.join(); }

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
