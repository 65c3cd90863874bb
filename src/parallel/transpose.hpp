#pragma once
/// Global transposes of slab-decomposed arrays (field/slab.hpp): the distributed FFT's communication.
/// Each rank packs, on the device, the part of every field that goes to each rank into one contiguous
/// segment per destination (strided block copies), the run's Transport (parallel/transport.hpp: mpi,
/// mpi-gpu, nccl or peer) moves the segments, and the received ones are unpacked on the device. Where the
/// b side of one field is in the compact layout (field::SlabShape::compact, or the b-slab layout of a
/// block that moves whole), its segments are the messages: only the a side is packed or unpacked; and
/// where the transport is one-sided (peer: copy engines), not even that: the a side's strided blocks are
/// copied straight into the peer's b array (compact, or b-slab with all or part of its rows moved: 3D
/// blocks, and only the leading columns a shape asks for, field::SlabShape::columns), or the b array's
/// blocks straight into the peer's a-slabs.
/// Splits may be uneven (the first n % P ranks hold one plane more).
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "field/slab.hpp"
#include "parallel/comm.hpp"
#include "parallel/transport.hpp"

namespace eddy::parallel {

/// The transposes among all ranks of `comm`: a slab decomposition, or one row or column of a pencil one
/// (MpiPencilExchange below).
class MpiTransposeExchange final : public field::TransposeExchange {
 public:
  MpiTransposeExchange(const Comm& comm, std::unique_ptr<Transport> t);
  int ranks() const override { return comm_.size(); }
  int rank() const override { return comm_.rank(); }
  void a_to_b(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override;
  void b_to_a(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override;
  void start(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride, void* out,
             index_t out_stride, int fields) override;
  void finish() override;
  void sum(double* v, int n) override;
  double max(double v) override { return comm_.max(v); }
  bool copies_between_layouts() const override { return transport_->has_one_sided(); }
  const char* name() const override {  // for the log: `auto` names its choice once made
    name_ = transport_->name();
    return name_.c_str();
  }

 private:
  /// One transpose; `to_b` picks the direction.
  void transpose(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                 index_t out_stride, int fields);

  struct Blocks;    // the geometry of one transpose (transpose.cpp)
  struct Pending {  // the transpose in flight between start and finish
    bool to_b;
    field::SlabShape s;
    char* out;
    index_t out_stride;
    int fields;
    bool one_sided;  // copied by the transport into the destination: nothing to unpack
  };

  Comm comm_;
  std::unique_ptr<Transport> transport_;
  mutable std::string name_;
  backend::DeviceArray<char> send_, recv_;  // packed segments, kept between calls
  std::unique_ptr<Pending> pending_;
};

/// The pencil decomposition's exchange (field/slab.hpp) on a P1 x P2 process grid, P1 = p1 > 1: the row
/// and column transposes through two MpiTransposeExchange over sub-communicators of `comm` (each with its own
/// transport of parallel.comm `mode`: NCCL gets a communicator per row and per column), the reductions
/// over all of `comm`. Collective.
class MpiPencilExchange final : public field::TransposeExchange {
 public:
  MpiPencilExchange(const Comm& comm, int p1, const std::string& mode);
  int ranks() const override { return world_.size(); }
  int rank() const override { return world_.rank(); }
  void a_to_b(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override {
    col_->a_to_b(s, in, in_stride, out, out_stride, fields);
  }
  void b_to_a(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override {
    col_->b_to_a(s, in, in_stride, out, out_stride, fields);
  }
  void start(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride, void* out,
             index_t out_stride, int fields) override {
    col_->start(to_b, s, in, in_stride, out, out_stride, fields);
  }
  void finish() override { col_->finish(); }
  void sum(double* v, int n) override;
  double max(double v) override { return world_.max(v); }
  const char* name() const override;
  int p1() const override { return p1_; }
  field::TransposeExchange* row() override { return row_.get(); }

 private:
  Comm world_;
  int p1_;
  SplitComm row_comm_, col_comm_;  // declared before the exchanges that use them (destroyed after)
  std::unique_ptr<field::TransposeExchange> row_, col_;
  mutable std::string name_;
};

/// The exchange for `comm` over the transport of parallel.comm `mode`: slab (p1 = 1; the local one for a
/// single rank, after the same checks of `mode`) or pencil on a p1 x (ranks / p1) process grid.
std::unique_ptr<field::TransposeExchange> make_transpose_exchange(const std::string& mode, const Comm& comm,
                                                                  int p1 = 1);

}  // namespace eddy::parallel
