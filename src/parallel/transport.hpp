#pragma once
/// How messages between ranks move, for parallel.comm (DESIGN §2: the backend is a value in the config):
///   mpi      host-staged: device buffers copied to host memory, MPI, copied back;
///   mpi-gpu  device buffers handed to a CUDA-aware MPI (checked at start-up);
///   nccl     device buffers through NCCL (bootstrapped over MPI), queued on the device, host never waits.
/// The halo exchange (halo.cpp) and the slab transposes (transpose.cpp) both move their packed device
/// buffers through one Transport, so each mode is written once.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "parallel/comm.hpp"

namespace eddy::parallel {

/// One message: `bytes` bytes of device memory at `buf`, to or from rank `peer` (never this rank).
struct Message {
  int peer = 0;
  void* buf = nullptr;
  std::size_t bytes = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Start a round: the send buffers may still be being filled by queued kernels (the transport orders
  /// itself after them). At most one round is in flight.
  virtual void start(const std::vector<Message>& sends, const std::vector<Message>& recvs) = 0;
  /// End the round: kernels queued after this see the received data.
  virtual void finish() = 0;
  /// "mpi (host-staged)", "mpi-gpu (device buffers)", "nccl (NCCL 2.28.3)": for the log.
  virtual std::string name() const = 0;
};

/// The transport for parallel.comm `mode` (mpi | mpi-gpu | nccl | auto) over `comm`; collective (nccl
/// creates its communicator). Throws InputError naming parallel.comm when the mode is unknown or not
/// available in this build or on this machine. `auto` tries every mode this build and machine run (nccl
/// where built in, mpi-gpu where MPI accepts device memory or on the CPU backend, mpi) on the first
/// rounds, timed, and keeps the fastest (logged).
std::unique_ptr<Transport> make_transport(const std::string& mode, const Comm& comm);
/// The checks of make_transport alone (nothing is created): for runs of one rank, which move no
/// messages but must refuse a mode this build or machine cannot run just the same.
void check_transport(const std::string& mode);

/// The peer bandwidth through `t` (eddy bench's reference for the transposes): every rank sends `bytes`
/// of device memory to every other rank and receives as much, in one round; `warmup` rounds (an `auto`
/// transport makes its choice in them), then the median of `rounds` timed rounds (fenced, slowest rank).
/// Returns the bytes each rank sends per second. Collective.
double exchange_bandwidth(Transport& t, const Comm& comm, std::size_t bytes, int warmup, int rounds);

/// Whether the MPI library can take device pointers (CUDA-aware); false on the CPU backend.
bool mpi_device_aware();
/// What the MPI library says about device memory, for `eddy info`.
std::string mpi_device_support();

}  // namespace eddy::parallel
