#pragma once
/// Global transposes of slab-decomposed arrays over MPI (field/slab.hpp): the distributed FFT's
/// communication. Host-staged for now: the fields are copied to host memory, packed so that each
/// destination rank's part is contiguous, exchanged with one MPI_Alltoallv, unpacked and copied back.
/// Splits may be uneven (the first n % P ranks hold one plane more); counts are in elements of an MPI
/// type of `elem_bytes`, so messages beyond 2^31 bytes are fine.
#include <memory>
#include <vector>

#include "field/slab.hpp"
#include "parallel/comm.hpp"

namespace eddy::parallel {

class MpiSlabExchange final : public field::SlabExchange {
 public:
  explicit MpiSlabExchange(const Comm& comm) : comm_(comm) {}
  int ranks() const override { return comm_.size(); }
  int rank() const override { return comm_.rank(); }
  void a_to_b(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override;
  void b_to_a(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override;
  void sum(double* v, int n) override;
  double max(double v) override { return comm_.max(v); }
  const char* name() const override { return "mpi (host-staged)"; }

 private:
  /// One transpose; `to_b` picks the direction.
  void transpose(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                 index_t out_stride, int fields);

  Comm comm_;
  std::vector<char> host_in_, send_, recv_, host_out_;  // staging, kept between calls
};

/// The slab exchange for `comm`: MPI when it has more than one rank, else the local one.
std::unique_ptr<field::SlabExchange> make_slab_exchange(const Comm& comm);

}  // namespace eddy::parallel
