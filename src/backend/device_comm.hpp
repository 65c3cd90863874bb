#pragma once
/// Device-initiated communication between the GPUs of a job (NCCL on CUDA builds that found it): the
/// only place that knows NCCL. parallel/ bootstraps it over MPI (the unique id travels by broadcast) and
/// uses it as one of its message transports; nothing else sees it.
///
/// Ordering: a round of messages (begin() ... end()) starts after every kernel queued so far on the
/// compute stream, runs on a high-priority communication stream of its own (so the compute stream can
/// run the interior update meanwhile), and join() makes work queued afterwards on the compute stream
/// wait for it. The host never blocks.
#include <memory>
#include <string>
#include <vector>

namespace eddy::backend {

/// Whether this build has a device communicator (CUDA + NCCL).
bool device_comm_available();
/// "NCCL 2.28.3", or why there is none ("not built: ...").
std::string device_comm_version();

class DeviceComm {
 public:
  /// The bootstrap id: made on one rank with make_id(), broadcast, passed to every rank's constructor.
  static std::vector<char> make_id();
  /// Collective over `size` ranks; every rank must have picked its device (backend::initialize) first.
  DeviceComm(int rank, int size, const std::vector<char>& id);
  ~DeviceComm();
  DeviceComm(const DeviceComm&) = delete;
  DeviceComm& operator=(const DeviceComm&) = delete;

  /// Open a round: the communication stream waits for the compute stream's queued work.
  void begin();
  /// Queue a message of `bytes` bytes to / from rank `peer` (device memory) in the open round.
  void send(const void* buf, std::size_t bytes, int peer);
  void recv(void* buf, std::size_t bytes, int peer);
  /// Close the round (its messages start as one group).
  void end();
  /// The compute stream waits for the last round (non-blocking for the host).
  void join();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace eddy::backend
