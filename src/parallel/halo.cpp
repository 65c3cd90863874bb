#include "parallel/halo.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "backend/backend.hpp"
#include "core/error.hpp"

namespace eddy::parallel {
namespace {

class MpiExchanger final : public field::Exchanger {
 public:
  MpiExchanger(const Comm& comm, bool device_buffers) : comm_(comm), device_buffers_(device_buffers) {}

  void start(void* data, int elem_bytes, const field::Pattern& p, field::Direction d) override {
    data_ = data, bytes_ = elem_bytes, pattern_ = &p, dir_ = d;
    if (buffers_.size() < p.peers.size()) buffers_.resize(p.peers.size());
    requests_.clear();
    const int me = comm_.rank();
    for (std::size_t k = 0; k < p.peers.size(); ++k) {
      const field::Pattern::Peer& peer = p.peers[k];
      const auto& out = d == field::Direction::forward ? peer.send : peer.recv;
      const auto& in = d == field::Direction::forward ? peer.recv : peer.send;
      if (peer.rank == me) {
        field::copy_indexed(data, elem_bytes, out.data(), in.data(), static_cast<index_t>(in.size()));
        continue;
      }
      Buffers& b = buffers_[k];
      const std::size_t n_out = out.size() * static_cast<std::size_t>(elem_bytes);
      const std::size_t n_in = in.size() * static_cast<std::size_t>(elem_bytes);
      if (b.d_out.size() < n_out) b.d_out.resize(n_out), b.h_out.resize(n_out);
      if (b.d_in.size() < n_in) b.d_in.resize(n_in), b.h_in.resize(n_in);
      field::gather(data, elem_bytes, out.data(), static_cast<index_t>(out.size()), b.d_out.data());
      void* send_ptr = b.d_out.data();
      void* recv_ptr = b.d_in.data();
      if (device_buffers_) {
        backend::fence();
      } else {
        backend::copy_to_host(b.h_out.data(), b.d_out.data(), n_out);
        send_ptr = b.h_out.data();
        recv_ptr = b.h_in.data();
      }
      requests_.emplace_back();
      MPI_Irecv(recv_ptr, static_cast<int>(n_in), MPI_BYTE, peer.rank, tag, comm_.native(),
                &requests_.back());
      requests_.emplace_back();
      MPI_Isend(send_ptr, static_cast<int>(n_out), MPI_BYTE, peer.rank, tag, comm_.native(),
                &requests_.back());
    }
  }

  void finish() override {
    if (!pattern_) return;
    if (!requests_.empty())
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    const int me = comm_.rank();
    for (std::size_t k = 0; k < pattern_->peers.size(); ++k) {
      const field::Pattern::Peer& peer = pattern_->peers[k];
      if (peer.rank == me) continue;
      const auto& in = dir_ == field::Direction::forward ? peer.recv : peer.send;
      Buffers& b = buffers_[k];
      if (!device_buffers_)
        backend::copy_to_device(b.d_in.data(), b.h_in.data(), in.size() * static_cast<std::size_t>(bytes_));
      field::scatter(b.d_in.data(), bytes_, in.data(), static_cast<index_t>(in.size()), data_);
    }
    pattern_ = nullptr;
  }

  const char* name() const override {
    return device_buffers_ ? "mpi-gpu (device buffers)" : "mpi (host-staged)";
  }

 private:
  static constexpr int tag = 4711;
  struct Buffers {
    backend::DeviceArray<char> d_out, d_in;
    std::vector<char> h_out, h_in;
  };
  Comm comm_;
  bool device_buffers_;
  std::vector<Buffers> buffers_;
  std::vector<MPI_Request> requests_;
  void* data_ = nullptr;
  int bytes_ = 0;
  const field::Pattern* pattern_ = nullptr;
  field::Direction dir_ = field::Direction::forward;
};

}  // namespace

bool mpi_device_aware() {
  if (!backend::is_gpu()) return false;
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

std::unique_ptr<field::Exchanger> make_exchanger(const std::string& mode, const Comm& comm) {
  if (mode == "mpi" || mode == "auto") return std::make_unique<MpiExchanger>(comm, false);
  if (mode == "mpi-gpu") {
    if (!backend::is_gpu())
      return std::make_unique<MpiExchanger>(comm, false);  // host memory is device memory
    if (!mpi_device_aware())
      throw InputError(
          "parallel.comm: 'mpi-gpu' needs an MPI library that accepts device memory (CUDA-aware), and this "
          "one "
          "does not say it does; use 'mpi' (host-staged)");
    return std::make_unique<MpiExchanger>(comm, true);
  }
  if (mode == "nccl")
    throw InputError("parallel.comm: 'nccl' is not available in this build yet; use 'mpi' or 'mpi-gpu'");
  throw InputError("parallel.comm: '" + mode + "' is not one of mpi, mpi-gpu, nccl, auto");
}

}  // namespace eddy::parallel
