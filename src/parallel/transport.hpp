#pragma once
/// How messages between ranks move, for parallel.comm (src/README.md, Parallel: the backend is a value in
/// the config):
///   mpi      host-staged: device buffers copied to host memory, MPI, copied back;
///   mpi-gpu  device buffers handed to a CUDA-aware MPI (checked at start-up);
///   nccl     device buffers through NCCL (bootstrapped over MPI), queued on the device, host never waits;
///   peer     the GPUs of one host copy into each other's memory by their copy engines (CUDA IPC): the
///            slab transposes put their strided blocks from the source layout straight into the peer's
///            destination layout (one-sided rounds, below), without packing kernels and without SMs;
///            other messages (the halos) go through nccl where built in, else mpi-gpu or mpi.
/// The halo exchange (halo.cpp) and the slab transposes (transpose.cpp) both move their packed device
/// buffers through one Transport, so each mode is written once.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "parallel/comm.hpp"

namespace eddy::parallel {

/// One message: `bytes` bytes of device memory at `buf`, to or from rank `peer` (never this rank).
struct Message {
  int peer = 0;
  void* buf = nullptr;
  std::size_t bytes = 0;
};

/// One strided copy of a one-sided round: the block `extent` (slices of rows of bytes) from `src` (device
/// memory, laid out by `src_strides`) into the window of rank `peer`, at byte `dst_offset` of it, laid out
/// by `dst_strides`.
struct Put {
  int peer = 0;
  const void* src = nullptr;
  backend::Strides src_strides;
  backend::Extent extent;
  std::size_t dst_offset = 0;
  backend::Strides dst_strides;
  std::size_t bytes() const { return extent.width * extent.rows * extent.depth; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Start a round: the send buffers may still be being filled by queued kernels (the transport orders
  /// itself after them). At most one round is in flight.
  virtual void start(const std::vector<Message>& sends, const std::vector<Message>& recvs) = 0;
  /// End the round: kernels queued after this see the received data.
  virtual void finish() = 0;
  /// Whether the next round may be one-sided (start_puts), collective: this transport has one-sided
  /// rounds (parallel.comm `peer`), and every rank says it `can` and has a `window` the transport can
  /// open (backend::PeerCopier::exportable). The same answer on every rank.
  virtual bool one_sided(bool /*can*/, const void* /*window*/) { return false; }
  /// Whether this transport has one-sided rounds at all (one_sided() may say yes), the same on every rank.
  virtual bool has_one_sided() const { return false; }
  /// Start a one-sided round, collective like start(): `window` is this rank's destination (device
  /// memory; nullptr where nothing comes in), which the peers write once the work queued before on this
  /// rank is done; `puts` are this rank's copies into the peers' windows, done once the work queued
  /// before on this rank and on the peer is. finish() ends the round. Only where one_sided() said so.
  virtual void start_puts(void* window, const std::vector<Put>& puts);
  /// "mpi (host-staged)", "mpi-gpu (device buffers)", "nccl (NCCL 2.28.3)": for the log.
  virtual std::string name() const = 0;
};

/// The transport for parallel.comm `mode` (mpi | mpi-gpu | nccl | peer | auto) over `comm`; collective (nccl
/// creates its communicator). Throws InputError naming parallel.comm when the mode is unknown or not
/// available in this build or on this machine. `auto` tries every mode this build and machine run (nccl
/// where built in, mpi-gpu where MPI accepts device memory or on the CPU backend, mpi) on the first
/// rounds, timed, and keeps the fastest (logged); where `peer` runs, it also takes the one-sided rounds
/// (the spectral transposes) by copy engines as `peer` does.
std::unique_ptr<Transport> make_transport(const std::string& mode, const Comm& comm);
/// Whether parallel.comm `peer` runs over `comm`: a build with peer copies, every rank on one host with
/// a GPU of its own that reaches every other rank's. Collective.
bool peer_usable(const Comm& comm);
/// The checks of make_transport alone (nothing is created): for runs of one rank, which move no
/// messages but must refuse a mode this build or machine cannot run just the same.
void check_transport(const std::string& mode);

/// The peer bandwidth through `t` (eddy bench's reference for the transposes): every rank sends `bytes`
/// of device memory to every other rank and receives as much, in one round; `warmup` rounds (an `auto`
/// transport makes its choice in them), then the median of `rounds` timed rounds (fenced, slowest rank).
/// Returns the bytes each rank sends per second. A one-sided transport is measured by its puts. Collective.
double exchange_bandwidth(Transport& t, const Comm& comm, std::size_t bytes, int warmup, int rounds);

/// Whether the MPI library can take device pointers (CUDA-aware); false on the CPU backend.
bool mpi_device_aware();
/// What the MPI library says about device memory, for `eddy info`.
std::string mpi_device_support();

}  // namespace eddy::parallel
