#pragma once
/// One-sided copies between the GPUs of one host by their copy engines (CUDA IPC and stream memory
/// operations): the only place that knows either. parallel/ (transport.cpp, parallel.comm `peer`)
/// exchanges the handles over MPI and uses it for the spectral transposes, whose strided blocks it
/// copies straight from the source layout into the peer's destination layout: no packing kernels, no
/// SMs spent on moving data.
///
/// A round, every rank of the copier's group in the same order:
///   begin()  a copy stream waits for the compute stream's queued work, then tells every peer (a flag in
///            the peer's memory) that this rank's destination may now be written;
///   put()    a strided copy into a peer's memory (a pointer from open()), queued after that peer's
///            signal;
///   end()    tells every peer that this rank's copies into it are done;
///   join()   the compute stream waits for every peer's copies into this rank and for this rank's own
///            (after which its sources may be overwritten). The host never waits.
/// The flags count rounds (32 bits: 4·10^9 rounds a run). A flag write follows the copies before it on
/// the same stream with a memory fence (the stream memory operations' default); the waiting GPU flushes
/// remote writes before its next work where the platform supports that
/// (CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES), and otherwise relies on NVLink delivering a copy
/// before the flag written after it, as NCCL's copy-engine path does.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace eddy::backend {

/// Whether this build can copy between GPUs by IPC (the CUDA backend), else why not.
bool peer_copy_available();
std::string peer_copy_unavailable_reason();
/// This process's GPU as a PCI bus id, for the peers to find it ("" on builds without peer copies).
std::string peer_bus_id();
/// Whether this process's GPU can copy to and from the GPU with PCI bus id `bus` directly: visible here
/// and peer-accessible (NVLink or PCIe peer-to-peer).
bool peer_reachable(const std::string& bus);

class PeerCopier {
 public:
  /// This rank `rank` of `size` (on the device backend::initialize picked).
  PeerCopier(int rank, int size);
  ~PeerCopier();
  PeerCopier(const PeerCopier&) = delete;
  PeerCopier& operator=(const PeerCopier&) = delete;

  /// Whether export_memory may hand out `p` (device memory, or null): its allocation has at least 2 MiB.
  /// CUDA IPC maps allocations by the 2 MiB chunk, and smaller ones may share a chunk, into which a
  /// second handle fails to open ("resource already mapped"); larger ones have chunks of their own.
  static bool exportable(const void* p);
  /// The handle of device memory at `p` (its allocation's IPC handle and p's offset in it), to be
  /// opened by the peers; "" for a null pointer.
  static std::string export_memory(const void* p);
  /// The pointer a handle of `peer`'s export_memory names in this process (each allocation is opened
  /// once and kept open; nullptr for "").
  void* open(int peer, const std::string& handle);
  /// The handle of this copier's flags, and connecting to a peer's (once, before the first round).
  std::string flags_handle() const;
  void connect(int peer, const std::string& flags_handle);

  void begin();
  /// The strided block `extent` from `src` (this GPU) to `dst` (in `peer`'s memory: from open()).
  void put(int peer, void* dst, Strides dst_strides, const void* src, Strides src_strides, Extent extent);
  void end();
  void join();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace eddy::backend
