#pragma once
/// Ghost-cell exchange, as solvers see it: a Pattern says *what* moves (which entries of a device array
/// go to or come from which rank); an Exchanger (parallel/ for MPI, LocalExchanger here for one rank)
/// decides *how*. Solvers build patterns and never see MPI.
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "core/types.hpp"

namespace eddy::field {

/// Entries of one array exchanged with each peer rank. For a peer Q, `recv[k]` on this rank and
/// `send[k]` on Q name the same value: a forward exchange copies Q's send entries into this rank's
/// recv entries; a reverse exchange copies this rank's recv entries into Q's send entries.
struct Pattern {
  struct Peer {
    int rank = 0;
    backend::DeviceArray<index_t> send, recv;  ///< indices into the exchanged array
  };
  std::vector<Peer> peers;
  index_t volume() const {
    index_t n = 0;
    for (const Peer& p : peers) n += static_cast<index_t>(p.recv.size() + p.send.size());
    return n;
  }
};

enum class Direction { forward, reverse };

/// Moves the entries of a Pattern. Collective over the ranks in the pattern.
class Exchanger {
 public:
  virtual ~Exchanger() = default;
  /// Start moving the entries of `data` (elements of `elem_bytes` bytes); pack kernels are queued.
  virtual void start(void* data, int elem_bytes, const Pattern& p, Direction d) = 0;
  /// Wait for the messages of start() and unpack them.
  virtual void finish() = 0;
  /// start() + finish().
  void exchange(void* data, int elem_bytes, const Pattern& p, Direction d) {
    start(data, elem_bytes, p, d);
    finish();
  }
  /// "mpi (host-staged)", ...: for the log.
  virtual const char* name() const = 0;
};

/// Device kernels the exchangers use: buf[k] = data[idx[k]]; data[idx[k]] = buf[k]; data[to[k]] =
/// data[from[k]].
void gather(const void* data, int elem_bytes, const index_t* idx, index_t n, void* buf);
void scatter(const void* buf, int elem_bytes, const index_t* idx, index_t n, void* data);
void copy_indexed(void* data, int elem_bytes, const index_t* from, const index_t* to, index_t n);

/// The exchanger of a single rank: every peer must be this rank itself (periodic wrap-around).
class LocalExchanger final : public Exchanger {
 public:
  void start(void* data, int elem_bytes, const Pattern& p, Direction d) override;
  void finish() override {}
  const char* name() const override { return "local"; }
};

}  // namespace eddy::field
