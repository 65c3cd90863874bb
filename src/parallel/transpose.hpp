#pragma once
/// Global transposes of slab-decomposed arrays (field/slab.hpp): the distributed FFT's communication.
/// Each rank packs, on the device, the part of every field that goes to each rank into one contiguous
/// segment per destination (strided block copies), the run's Transport (parallel/transport.hpp: mpi,
/// mpi-gpu or nccl) moves the segments, and the received ones are unpacked on the device. Splits may be
/// uneven (the first n % P ranks hold one plane more).
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "field/slab.hpp"
#include "parallel/comm.hpp"
#include "parallel/transport.hpp"

namespace eddy::parallel {

class MpiSlabExchange final : public field::SlabExchange {
 public:
  MpiSlabExchange(const Comm& comm, std::unique_ptr<Transport> t);
  int ranks() const override { return comm_.size(); }
  int rank() const override { return comm_.rank(); }
  void a_to_b(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override;
  void b_to_a(const field::SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override;
  void sum(double* v, int n) override;
  double max(double v) override { return comm_.max(v); }
  const char* name() const override {  // for the log: `auto` names its choice once made
    name_ = transport_->name();
    return name_.c_str();
  }

 private:
  /// One transpose; `to_b` picks the direction.
  void transpose(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                 index_t out_stride, int fields);

  Comm comm_;
  std::unique_ptr<Transport> transport_;
  mutable std::string name_;
  backend::DeviceArray<char> send_, recv_;  // packed segments, kept between calls
};

/// The slab exchange for `comm` over the transport of parallel.comm `mode`: the local one for a single
/// rank (after the same checks of `mode`).
std::unique_ptr<field::SlabExchange> make_slab_exchange(const std::string& mode, const Comm& comm);

}  // namespace eddy::parallel
