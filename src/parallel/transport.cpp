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
#include "backend/peer_copy.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace eddy::parallel {
namespace {

constexpr int tag = 4711;

/// A message of any size as pieces of at most 2^30 bytes under one tag: MPI's counts are int, and
/// messages between two ranks with the same tag arrive in the order they were sent, so piece k of a send
/// matches piece k of its receive. `post(pointer, count)` posts one piece.
template <class Post>
void in_pieces(std::size_t bytes, Post post) {
  constexpr std::size_t piece = std::size_t(1) << 30;
  std::size_t at = 0;
  do {
    post(at, static_cast<int>(std::min(piece, bytes - at)));
    at += piece;
  } while (at < bytes);
}

/// MPI point-to-point, staged through host memory or (device_buffers) handing device pointers to MPI.
class MpiTransport final : public Transport {
 public:
  MpiTransport(const Comm& comm, bool device_buffers) : comm_(comm), device_buffers_(device_buffers) {}

  void start(const std::vector<Message>& sends, const std::vector<Message>& recvs) override {
    recvs_ = recvs;
    requests_.clear();
    if (!device_buffers_) {
      host_.resize(sends.size() + recvs.size());
      for (std::size_t k = 0; k < recvs.size(); ++k) host_[k].resize(recvs[k].bytes);
    }
    for (std::size_t k = 0; k < recvs.size(); ++k) {
      char* p = static_cast<char*>(device_buffers_ ? recvs[k].buf : host_[k].data());
      in_pieces(recvs[k].bytes, [&](std::size_t at, int n) {
        requests_.emplace_back();
        MPI_Irecv(p + at, n, MPI_BYTE, recvs[k].peer, tag, comm_.native(), &requests_.back());
      });
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
      in_pieces(sends[k].bytes, [&](std::size_t at, int n) {
        requests_.emplace_back();
        MPI_Isend(static_cast<const char*>(p) + at, n, MPI_BYTE, sends[k].peer, tag, comm_.native(),
                  &requests_.back());
      });
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

/// parallel.comm: peer. One-sided rounds by copy engines (backend::PeerCopier, connected by
/// connect_peers): every round, each rank's window travels as an IPC handle (allgather; each allocation
/// is opened once), and the puts copy into the peers' windows. Two-sided rounds go through `messages`.
class PeerTransport final : public Transport {
 public:
  PeerTransport(const Comm& comm, std::unique_ptr<backend::PeerCopier> copier,
                std::unique_ptr<Transport> messages)
      : comm_(comm), messages_(std::move(messages)), copier_(std::move(copier)) {
    windows_.assign(static_cast<std::size_t>(comm_.size()), nullptr);
  }
  void start(const std::vector<Message>& sends, const std::vector<Message>& recvs) override {
    one_sided_round_ = false;
    messages_->start(sends, recvs);
  }
  bool one_sided(bool can, const void* window) override {
    return !comm_.any(!(can && backend::PeerCopier::exportable(window)));
  }
  bool has_one_sided() const override { return true; }
  void start_puts(void* window, const std::vector<Put>& puts) override {
    const std::vector<std::string> handles = comm_.allgather(backend::PeerCopier::export_memory(window));
    for (int q = 0; q < comm_.size(); ++q) {
      const auto k = static_cast<std::size_t>(q);
      if (q != comm_.rank()) windows_[k] = copier_->open(q, handles[k]);
    }
    copier_->begin();
    for (const Put& p : puts) {
      char* w = static_cast<char*>(windows_.at(static_cast<std::size_t>(p.peer)));
      if (!w && p.bytes() > 0) throw Error("peer transport: a copy to a rank with no window");
      copier_->put(p.peer, w + p.dst_offset, p.dst_strides, p.src, p.src_strides, p.extent);
    }
    copier_->end();
    one_sided_round_ = true;
  }
  void finish() override {
    if (one_sided_round_)
      copier_->join();
    else
      messages_->finish();
    one_sided_round_ = false;
  }
  std::string name() const override {
    return "peer (copy engines; other messages: " + messages_->name() + ")";
  }

 private:
  Comm comm_;
  std::unique_ptr<Transport> messages_;
  std::unique_ptr<backend::PeerCopier> copier_;
  std::vector<void*> windows_;
  bool one_sided_round_ = false;
};

/// Why the ranks of `comm` cannot copy into each other's GPUs ("" if they can): all on one host, each
/// reaching every other one's GPU. Collective (the same answer on every rank).
std::string peer_unreachable(const Comm& comm) {
  if (!backend::peer_copy_available()) return backend::peer_copy_unavailable_reason();
  const std::vector<std::string> hosts = comm.allgather(Comm::hostname());
  const std::vector<std::string> buses = comm.allgather(backend::peer_bus_id());
  std::string why;
  for (int q = 0; q < comm.size(); ++q) {
    if (q == comm.rank()) continue;
    const auto k = static_cast<std::size_t>(q);
    if (hosts[k] != Comm::hostname())
      why = "rank " + std::to_string(q) + " runs on " + hosts[k] + ", not on " + Comm::hostname();
    else if (!backend::peer_reachable(buses[k]))
      why = "rank " + std::to_string(comm.rank()) + "'s GPU cannot reach rank " + std::to_string(q) + "'s (" +
            buses[k] + ") peer to peer, or shares it";
    if (!why.empty()) break;
  }
  const bool bad = comm.any(!why.empty());
  if (!bad) return {};
  return why.empty() ? "another rank cannot reach every GPU peer to peer" : why;
}

/// A copier connected to every other rank's (their flags opened), or nullptr with `why` where the ranks
/// cannot copy into each other's GPUs (peer_unreachable, or CUDA IPC failing: a container without a
/// shared IPC namespace, say). Collective, the same outcome on every rank: the collectives run whatever
/// failed locally.
std::unique_ptr<backend::PeerCopier> connect_peers(const Comm& comm, std::string& why) {
  why = peer_unreachable(comm);
  if (!why.empty()) return nullptr;
  std::unique_ptr<backend::PeerCopier> copier;
  std::string mine, failed;
  try {
    copier = std::make_unique<backend::PeerCopier>(comm.rank(), comm.size());
    mine = copier->flags_handle();
  } catch (const Error& e) {
    failed = e.what();
  }
  const std::vector<std::string> flags = comm.allgather(mine);
  for (int q = 0; q < comm.size() && failed.empty() && copier; ++q) {
    const auto k = static_cast<std::size_t>(q);
    if (q == comm.rank()) continue;
    if (flags[k].empty()) {
      failed = "rank " + std::to_string(q) + " could not set up its copies";
      break;
    }
    try {
      copier->connect(q, flags[k]);
    } catch (const Error& e) {
      failed = e.what();
    }
  }
  if (!comm.any(!failed.empty())) return copier;
  why = failed.empty() ? "another rank could not open its peers' memory" : failed;
  return nullptr;
}

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

bool peer_usable(const Comm& comm) { return peer_unreachable(comm).empty(); }

void Transport::start_puts(void*, const std::vector<Put>&) {
  throw Error("transport " + name() + " has no one-sided rounds");
}

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
    // One-sided: the same bytes, each rank's into its slot of the peer's receive buffer.
    if (t.one_sided(true, recv.data())) {
      std::vector<Put> puts;
      for (const Message& m : sends) {
        const int slot = comm.rank() < m.peer ? comm.rank() : comm.rank() - 1;
        puts.push_back(
            {m.peer, m.buf, {bytes, 0}, {bytes, 1, 1}, static_cast<std::size_t>(slot) * bytes, {bytes, 0}});
      }
      t.start_puts(recv.data(), puts);
    } else {
      t.start(sends, recvs);
    }
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
  if (mode != "mpi" && mode != "mpi-gpu" && mode != "nccl" && mode != "peer" && mode != "auto")
    throw InputError("parallel.comm: '" + mode + "' is not one of mpi, mpi-gpu, nccl, peer, auto");
  if (mode == "peer" && !backend::peer_copy_available())
    throw InputError("parallel.comm: 'peer' (copies between the GPUs of one host) is not available: " +
                     backend::peer_copy_unavailable_reason() + "; use 'nccl', 'mpi-gpu' or 'mpi'");
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
  if (mode == "peer") {
    std::string why;
    std::unique_ptr<backend::PeerCopier> copier = connect_peers(comm, why);
    if (!copier)
      throw InputError(
          "parallel.comm: 'peer' needs every rank on one host with a GPU of its own that reaches "
          "the others' peer to peer: " +
          why + "; use 'nccl', 'mpi-gpu' or 'mpi'");
    std::unique_ptr<Transport> messages;
    if (backend::device_comm_available() && !gpu_shared)
      messages = std::make_unique<NcclTransport>(comm);
    else
      messages = std::make_unique<MpiTransport>(comm, mpi_device_aware());
    return std::make_unique<PeerTransport>(comm, std::move(copier), std::move(messages));
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
  auto chosen = std::make_unique<AutoTransport>(comm, std::move(candidates));
  // Where the ranks' GPUs reach each other, the one-sided rounds (the spectral transposes) go by copy
  // engines as with 'peer', the messages by the choice above: on two H200s a 1024^3 step took 211 ms so
  // against 257 ms through NCCL (cases/benchmarks/results/2026-11-30h-h200).
  if (backend::peer_copy_available()) {
    std::string why;
    if (std::unique_ptr<backend::PeerCopier> copier = connect_peers(comm, why))
      return std::make_unique<PeerTransport>(comm, std::move(copier), std::move(chosen));
  }
  return chosen;
}

}  // namespace eddy::parallel
