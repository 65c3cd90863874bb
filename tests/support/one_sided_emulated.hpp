#pragma once
// One-sided rounds for the CPU backend's tests. parallel.comm `peer` runs Transport::start_puts by copy
// engines on GPUs, which CI does not have; this transport carries the same rounds by MPI messages on host
// memory, so that CI runs the transposes' one-sided path (parallel/transpose.cpp, Blocks::puts: the
// strided blocks put straight from the source layout into the peer's destination layout) and checks
// where every element lands. Each put's rows are packed, sent with their place in the peer's window,
// and unpacked there. Two-sided rounds go by 'mpi'.
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "parallel/comm.hpp"
#include "parallel/transport.hpp"

namespace eddy::test {

class OneSidedEmulated final : public parallel::Transport {
 public:
  explicit OneSidedEmulated(const parallel::Comm& comm)
      : comm_(comm), messages_(parallel::make_transport("mpi", comm)) {}

  void start(const std::vector<parallel::Message>& sends,
             const std::vector<parallel::Message>& recvs) override {
    messages_->start(sends, recvs);
  }
  void finish() override {
    if (!one_sided_round_) messages_->finish();
    one_sided_round_ = false;
  }
  bool one_sided(bool can, const void* /*window*/) override { return !comm_.any(!can); }
  bool has_one_sided() const override { return true; }
  void start_puts(void* window, const std::vector<parallel::Put>& puts) override {
    one_sided_round_ = true;
    backend::fence();  // the sources are complete
    const auto P = static_cast<std::size_t>(comm_.size());
    // per put: offset, pitch, slice, width, rows, depth
    std::vector<std::vector<std::uint64_t>> heads(P), heads_in(P);
    std::vector<std::vector<char>> rows(P), rows_in(P);
    for (const parallel::Put& p : puts) {
      const auto q = static_cast<std::size_t>(p.peer);
      const backend::Extent& x = p.extent;
      heads[q].insert(heads[q].end(),
                      {p.dst_offset, p.dst_strides.pitch, p.dst_strides.slice, x.width, x.rows, x.depth});
      for (std::size_t z = 0; z < x.depth; ++z)
        for (std::size_t k = 0; k < x.rows; ++k) {
          const char* src =
              static_cast<const char*>(p.src) + z * p.src_strides.slice + k * p.src_strides.pitch;
          rows[q].insert(rows[q].end(), src, src + x.width);
        }
    }
    std::vector<long> sizes(2 * P), sizes_in(2 * P);
    for (std::size_t q = 0; q < P; ++q)
      sizes[2 * q] = static_cast<long>(heads[q].size()), sizes[2 * q + 1] = static_cast<long>(rows[q].size());
    MPI_Alltoall(sizes.data(), 2, MPI_LONG, sizes_in.data(), 2, MPI_LONG, comm_.native());
    std::vector<MPI_Request> requests;
    for (std::size_t q = 0; q < P; ++q) {
      if (static_cast<int>(q) == comm_.rank()) continue;
      heads_in[q].resize(static_cast<std::size_t>(sizes_in[2 * q]));
      rows_in[q].resize(static_cast<std::size_t>(sizes_in[2 * q + 1]));
      const int peer = static_cast<int>(q);
      requests.resize(requests.size() + 4);
      MPI_Request* r = &requests[requests.size() - 4];
      MPI_Irecv(heads_in[q].data(), static_cast<int>(heads_in[q].size()), MPI_UINT64_T, peer, 1,
                comm_.native(), r);
      MPI_Irecv(rows_in[q].data(), static_cast<int>(rows_in[q].size()), MPI_CHAR, peer, 2, comm_.native(),
                r + 1);
      MPI_Isend(heads[q].data(), static_cast<int>(heads[q].size()), MPI_UINT64_T, peer, 1, comm_.native(),
                r + 2);
      MPI_Isend(rows[q].data(), static_cast<int>(rows[q].size()), MPI_CHAR, peer, 2, comm_.native(), r + 3);
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (std::size_t q = 0; q < P; ++q) {
      const char* in = rows_in[q].data();
      for (std::size_t i = 0; i + 5 < heads_in[q].size(); i += 6) {
        const std::uint64_t* h = &heads_in[q][i];  // offset, pitch, slice, width, rows, depth
        for (std::uint64_t z = 0; z < h[5]; ++z)
          for (std::uint64_t k = 0; k < h[4]; ++k, in += h[3])
            std::memcpy(static_cast<char*>(window) + h[0] + z * h[2] + k * h[1], in, h[3]);
      }
    }
  }
  std::string name() const override { return "one-sided rounds emulated by MPI messages (tests)"; }

 private:
  parallel::Comm comm_;
  std::unique_ptr<parallel::Transport> messages_;
  bool one_sided_round_ = false;
};

}  // namespace eddy::test
