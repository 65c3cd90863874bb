#include "parallel/transport.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <climits>
#include <cstdlib>
#include <string>

#include "backend/backend.hpp"
#include "backend/device_comm.hpp"
#include "core/error.hpp"

namespace eddy::parallel {
namespace {

constexpr int tag = 4711;

int to_int(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw Error("message of " + std::to_string(bytes) + " bytes exceeds MPI's int count");
  return static_cast<int>(bytes);
}

/// MPI point-to-point, staged through host memory or (device_buffers) handing device pointers to MPI.
class MpiTransport final : public Transport {
 public:
  MpiTransport(const Comm& comm, bool device_buffers) : comm_(comm), device_buffers_(device_buffers) {}

  void start(const std::vector<Message>& sends, const std::vector<Message>& recvs) override {
    recvs_ = recvs;
    requests_.clear();
    requests_.reserve(sends.size() + recvs.size());
    if (!device_buffers_) {
      host_.resize(sends.size() + recvs.size());
      for (std::size_t k = 0; k < recvs.size(); ++k) host_[k].resize(recvs[k].bytes);
    }
    for (std::size_t k = 0; k < recvs.size(); ++k) {
      void* p = device_buffers_ ? recvs[k].buf : host_[k].data();
      requests_.emplace_back();
      MPI_Irecv(p, to_int(recvs[k].bytes), MPI_BYTE, recvs[k].peer, tag, comm_.native(), &requests_.back());
    }
    // The packing kernels must be done before MPI reads the buffers (copy_to_host waits by itself).
    if (device_buffers_) backend::fence();
    for (std::size_t k = 0; k < sends.size(); ++k) {
      const void* p = sends[k].buf;
      if (!device_buffers_) {
        auto& h = host_[recvs.size() + k];
        h.resize(sends[k].bytes);
        backend::copy_to_host(h.data(), sends[k].buf, sends[k].bytes);
        p = h.data();
      }
      requests_.emplace_back();
      MPI_Isend(p, to_int(sends[k].bytes), MPI_BYTE, sends[k].peer, tag, comm_.native(), &requests_.back());
    }
  }

  void finish() override {
    if (!requests_.empty())
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    if (!device_buffers_)
      for (std::size_t k = 0; k < recvs_.size(); ++k)
        backend::copy_to_device(recvs_[k].buf, host_[k].data(), recvs_[k].bytes);
    recvs_.clear();
  }

  std::string name() const override {
    return device_buffers_ ? "mpi-gpu (device buffers)" : "mpi (host-staged)";
  }

 private:
  Comm comm_;
  bool device_buffers_;
  std::vector<Message> recvs_;
  std::vector<std::vector<char>> host_;  // staging: the receives, then the sends
  std::vector<MPI_Request> requests_;
};

/// NCCL send/recv grouped per round, ordered on the device after the packing kernels.
class NcclTransport final : public Transport {
 public:
  explicit NcclTransport(const Comm& comm) {
    std::vector<char> id;
    if (comm.root()) id = backend::DeviceComm::make_id();
    std::string bytes(id.begin(), id.end());
    bytes = comm.broadcast(bytes);
    dc_ = std::make_unique<backend::DeviceComm>(comm.rank(), comm.size(),
                                                std::vector<char>(bytes.begin(), bytes.end()));
  }
  void start(const std::vector<Message>& sends, const std::vector<Message>& recvs) override {
    dc_->begin();
    for (const Message& m : recvs) dc_->recv(m.buf, m.bytes, m.peer);
    for (const Message& m : sends) dc_->send(m.buf, m.bytes, m.peer);
    dc_->end();
  }
  void finish() override { dc_->join(); }
  std::string name() const override { return "nccl (" + backend::device_comm_version() + ")"; }

 private:
  std::unique_ptr<backend::DeviceComm> dc_;
};

}  // namespace

bool mpi_device_aware() {
  if (!backend::is_gpu()) return false;
  // An MPI built without the extension may still move device memory (OpenMPI over UCX with its CUDA
  // transports): the user may say so, at their own risk.
  if (const char* v = std::getenv("EDDY_MPI_DEVICE_AWARE"); v && std::string(v) == "1") return true;
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // The macro says the library was built with the extension; the query says whether it is on now.
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string mpi_device_support() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return std::string("MPI extension present (built-in support ") + (MPIX_CUDA_AWARE_SUPPORT ? "yes" : "no") +
         ", enabled at run time: " + (MPIX_Query_cuda_support() == 1 ? "yes" : "no") + ")";
#else
  return "no device-memory extension in this MPI";
#endif
}

void check_transport(const std::string& mode) {
  if (mode != "mpi" && mode != "mpi-gpu" && mode != "nccl" && mode != "auto")
    throw InputError("parallel.comm: '" + mode + "' is not one of mpi, mpi-gpu, nccl, auto");
  if (mode == "mpi-gpu" && backend::is_gpu() && !mpi_device_aware())
    throw InputError(
        "parallel.comm: 'mpi-gpu' needs an MPI library that accepts device memory (CUDA-aware), and this one "
        "does not say it does (" +
        mpi_device_support() + "); use 'mpi' (host-staged) or 'nccl'");
  if (mode == "nccl" && !backend::device_comm_available())
    throw InputError("parallel.comm: 'nccl' is not available (" + backend::device_comm_version() +
                     "); use 'mpi' or 'mpi-gpu'");
}

std::unique_ptr<Transport> make_transport(const std::string& mode, const Comm& comm) {
  check_transport(mode);
  if (mode == "nccl" || (mode == "auto" && backend::device_comm_available()))
    return std::make_unique<NcclTransport>(comm);
  // On the CPU backend device memory is host memory: MPI takes the buffers as they are.
  const bool direct = mode == "mpi-gpu" || (mode == "auto" && (!backend::is_gpu() || mpi_device_aware()));
  return std::make_unique<MpiTransport>(comm, direct);
}

}  // namespace eddy::parallel
