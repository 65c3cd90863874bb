#include "parallel/transport.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <chrono>
#include <climits>
#include <string>

#include "backend/backend.hpp"
#include "backend/device_comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

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
    if (!device_buffers_) return "mpi (host-staged)";
    return backend::is_gpu() ? "mpi-gpu (device buffers)" : "mpi (buffers as they are)";
  }

 private:
  Comm comm_;
  bool device_buffers_;
  std::vector<Message> recvs_;
  std::vector<std::vector<char>> host_;  // staging: the receives, then the sends
  std::vector<MPI_Request> requests_;
};

/// The ranks (of the same host) that share this rank's GPU, "" if none: NCCL needs a device of its own
/// per rank. Collective.
std::string ranks_sharing_my_gpu(const Comm& comm) {
  constexpr int len = 256;
  char mine[len] = {};
  const std::string key = Comm::hostname() + " #" + std::to_string(backend::device_info().device_id);
  key.copy(mine, len - 1);
  std::vector<char> all(static_cast<std::size_t>(len) * static_cast<std::size_t>(comm.size()));
  MPI_Allgather(mine, len, MPI_CHAR, all.data(), len, MPI_CHAR, comm.native());
  std::string shared;
  for (int r = 0; r < comm.size(); ++r)
    if (r != comm.rank() && std::string(&all[static_cast<std::size_t>(r) * len]) == key)
      shared += (shared.empty() ? "" : ", ") + std::to_string(r);
  return shared;
}

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
    // Empty messages (a peer with nothing to send one way; null buffers) are left out on both sides:
    // sender and receiver compute the same sizes.
    dc_->begin();
    for (const Message& m : recvs)
      if (m.bytes) dc_->recv(m.buf, m.bytes, m.peer);
    for (const Message& m : sends)
      if (m.bytes) dc_->send(m.buf, m.bytes, m.peer);
    dc_->end();
  }
  void finish() override { dc_->join(); }
  std::string name() const override { return "nccl (" + backend::device_comm_version() + ")"; }

 private:
  std::unique_ptr<backend::DeviceComm> dc_;
};

/// parallel.comm: auto. Every transport this build and machine can run is tried in turn on the first
/// rounds (fenced and timed from start to finish, so a transport that lets the interior update hide its
/// messages is credited for it; the slowest rank's time counts), then the fastest (median of `trials`
/// rounds after one warm-up round each) carries the rest of the run, as cuDecomp's autotuning does. Every
/// transport delivers the same bytes, so results do not depend on the choice or on when it is made.
class AutoTransport final : public Transport {
 public:
  static constexpr int trials = 5;

  AutoTransport(const Comm& comm, std::vector<std::unique_ptr<Transport>> candidates)
      : comm_(comm), c_(std::move(candidates)), times_(c_.size()) {
    if (c_.size() == 1) chosen_ = 0;
  }

  void start(const std::vector<Message>& sends, const std::vector<Message>& recvs) override {
    if (chosen_ < 0) {
      backend::fence();
      t0_ = std::chrono::steady_clock::now();
    }
    current().start(sends, recvs);
  }

  void finish() override {
    current().finish();
    if (chosen_ >= 0) return;
    backend::fence();
    const double t = comm_.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count());
    const std::size_t k = static_cast<std::size_t>(round_) % c_.size();
    if (round_ >= static_cast<long>(c_.size())) times_[k].push_back(t);  // the first round of each: warm-up
    ++round_;
    if (round_ < static_cast<long>(c_.size()) * (trials + 1)) return;
    std::string report;
    double best = 0;
    for (std::size_t j = 0; j < c_.size(); ++j) {
      std::vector<double>& v = times_[j];
      std::sort(v.begin(), v.end());
      const double median = v[v.size() / 2];
      report += log::cat(j ? ", " : "", c_[j]->name(), " ", median * 1e3, " ms");
      if (chosen_ < 0 || median < best) chosen_ = static_cast<int>(j), best = median;
    }
    log::info(log::cat("parallel.comm auto: ", c_[static_cast<std::size_t>(chosen_)]->name(), " (median of ",
                       trials, " rounds each: ", report, ")"));
  }

  std::string name() const override {
    if (chosen_ >= 0) return "auto: " + c_[static_cast<std::size_t>(chosen_)]->name();
    std::string s = "auto (choosing among ";
    for (std::size_t j = 0; j < c_.size(); ++j) s += (j ? ", " : "") + c_[j]->name();
    return s + ")";
  }

 private:
  Transport& current() {
    return *c_[chosen_ >= 0 ? static_cast<std::size_t>(chosen_)
                            : static_cast<std::size_t>(round_) % c_.size()];
  }

  Comm comm_;
  std::vector<std::unique_ptr<Transport>> c_;
  std::vector<std::vector<double>> times_;
  int chosen_ = -1;
  long round_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace

double exchange_bandwidth(Transport& t, const Comm& comm, std::size_t bytes, int warmup, int rounds) {
  const int P = comm.size();
  if (P == 1 || rounds < 1) return 0.0;
  const auto peers = static_cast<std::size_t>(P - 1);
  backend::DeviceArray<char> send(bytes * peers), recv(bytes * peers);
  backend::fill_zero(send.data(), send.bytes());
  std::vector<Message> sends, recvs;
  for (int q = 0, k = 0; q < P; ++q)
    if (q != comm.rank()) {
      sends.push_back({q, send.data() + static_cast<std::size_t>(k) * bytes, bytes});
      recvs.push_back({q, recv.data() + static_cast<std::size_t>(k) * bytes, bytes});
      ++k;
    }
  std::vector<double> times;
  for (int r = 0; r < warmup + rounds; ++r) {
    backend::fence();
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    t.start(sends, recvs);
    t.finish();
    backend::fence();
    const double s = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (r >= warmup) times.push_back(s);
  }
  std::sort(times.begin(), times.end());
  return double(bytes * peers) / times[times.size() / 2];
}

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
  // NCCL wants a GPU per rank; decided collectively (one rank sharing makes every rank leave NCCL out).
  const bool gpu_shared = backend::device_comm_available() && comm.any(!ranks_sharing_my_gpu(comm).empty());
  if (mode == "nccl") {
    if (gpu_shared) {
      const std::string shared = ranks_sharing_my_gpu(comm);
      throw InputError("parallel.comm: 'nccl' needs one GPU per rank, and ranks share GPUs here" +
                       (shared.empty() ? std::string()
                                       : " (rank " + std::to_string(comm.rank()) + " shares " +
                                             Comm::hostname() + "'s GPU with rank(s) " + shared + ")") +
                       "; start one rank per GPU, or use 'mpi'");
    }
    return std::make_unique<NcclTransport>(comm);
  }
  if (mode == "mpi") return std::make_unique<MpiTransport>(comm, false);
  // On the CPU backend device memory is host memory: MPI takes the buffers as they are.
  if (mode == "mpi-gpu") return std::make_unique<MpiTransport>(comm, true);
  std::vector<std::unique_ptr<Transport>> candidates;
  if (backend::device_comm_available() && !gpu_shared)
    candidates.push_back(std::make_unique<NcclTransport>(comm));
  if (!backend::is_gpu() || mpi_device_aware())
    candidates.push_back(std::make_unique<MpiTransport>(comm, true));
  candidates.push_back(std::make_unique<MpiTransport>(comm, false));
  return std::make_unique<AutoTransport>(comm, std::move(candidates));
}

}  // namespace eddy::parallel
