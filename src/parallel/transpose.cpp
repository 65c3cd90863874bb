#include "parallel/transpose.hpp"

#include <mpi.h>

#include <climits>
#include <cstring>
#include <string>

#include "backend/backend.hpp"
#include "core/error.hpp"

namespace eddy::parallel {
namespace {

using field::BlockSplit;

/// An MPI type of one array element, freed with the object.
class ElementType {
 public:
  explicit ElementType(std::size_t bytes) {
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t_);
    MPI_Type_commit(&t_);
  }
  ~ElementType() { MPI_Type_free(&t_); }
  ElementType(const ElementType&) = delete;
  ElementType& operator=(const ElementType&) = delete;
  MPI_Datatype get() const { return t_; }

 private:
  MPI_Datatype t_;
};

int to_count(index_t n) {
  if (n > INT_MAX)
    throw Error("slab transpose: a message of " + std::to_string(n) + " elements exceeds MPI's int count");
  return static_cast<int>(n);
}

}  // namespace

void MpiSlabExchange::a_to_b(const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                             index_t out_stride, int fields) {
  transpose(true, s, in, in_stride, out, out_stride, fields);
}

void MpiSlabExchange::b_to_a(const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                             index_t out_stride, int fields) {
  transpose(false, s, in, in_stride, out, out_stride, fields);
}

void MpiSlabExchange::transpose(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride,
                                void* out, index_t out_stride, int fields) {
  const int P = comm_.size(), r = comm_.rank();
  const std::size_t e = s.elem_bytes;
  const index_t na = s.na, nb = s.nb, nc = s.nc;
  const index_t nal = BlockSplit::count(na, P, r), nbl = BlockSplit::count(nb, P, r);
  // One field of the source and of the destination layout, elements.
  const index_t src_field = to_b ? nal * nb * nc : na * nbl * nc;
  const index_t dst_field = to_b ? na * nbl * nc : nal * nb * nc;
  const std::size_t src_bytes = static_cast<std::size_t>(src_field * fields) * e;
  const std::size_t dst_bytes = static_cast<std::size_t>(dst_field * fields) * e;
  if (host_in_.size() < src_bytes) host_in_.resize(src_bytes), send_.resize(src_bytes);
  if (host_out_.size() < dst_bytes) host_out_.resize(dst_bytes), recv_.resize(dst_bytes);

  for (int f = 0; f < fields; ++f)
    backend::copy_to_host(host_in_.data() + static_cast<std::size_t>(f * src_field) * e,
                          static_cast<const char*>(in) + static_cast<std::size_t>(f * in_stride) * e,
                          static_cast<std::size_t>(src_field) * e);

  // Block of rank q: a to_b message to q holds, per field and local a-plane, q's b-rows; a b_to_a
  // message holds, per field, q's a-planes of the local b-rows (contiguous per field).
  std::vector<int> scount(static_cast<std::size_t>(P)), sdispl(scount), rcount(scount), rdispl(scount);
  index_t spos = 0, rpos = 0;
  for (int q = 0; q < P; ++q) {
    const index_t naq = BlockSplit::count(na, P, q), a0q = BlockSplit::start(na, P, q);
    const index_t nbq = BlockSplit::count(nb, P, q), b0q = BlockSplit::start(nb, P, q);
    const index_t send_n = to_b ? fields * nal * nbq * nc : fields * naq * nbl * nc;
    const index_t recv_n = to_b ? fields * naq * nbl * nc : fields * nal * nbq * nc;
    char* dst = send_.data() + static_cast<std::size_t>(spos) * e;
    for (int f = 0; f < fields; ++f) {
      const char* src = host_in_.data() + static_cast<std::size_t>(f * src_field) * e;
      if (to_b) {
        for (index_t a = 0; a < nal; ++a, dst += static_cast<std::size_t>(nbq * nc) * e)
          std::memcpy(dst, src + static_cast<std::size_t>((a * nb + b0q) * nc) * e,
                      static_cast<std::size_t>(nbq * nc) * e);
      } else {
        const std::size_t n = static_cast<std::size_t>(naq * nbl * nc) * e;
        std::memcpy(dst, src + static_cast<std::size_t>(a0q * nbl * nc) * e, n);
        dst += n;
      }
    }
    scount[static_cast<std::size_t>(q)] = to_count(send_n);
    sdispl[static_cast<std::size_t>(q)] = to_count(spos);
    rcount[static_cast<std::size_t>(q)] = to_count(recv_n);
    rdispl[static_cast<std::size_t>(q)] = to_count(rpos);
    spos += send_n;
    rpos += recv_n;
  }

  const ElementType type(e);
  MPI_Alltoallv(send_.data(), scount.data(), sdispl.data(), type.get(), recv_.data(), rcount.data(),
                rdispl.data(), type.get(), comm_.native());

  for (int q = 0; q < P; ++q) {
    const index_t naq = BlockSplit::count(na, P, q), a0q = BlockSplit::start(na, P, q);
    const index_t nbq = BlockSplit::count(nb, P, q), b0q = BlockSplit::start(nb, P, q);
    const char* src = recv_.data() + static_cast<std::size_t>(rdispl[static_cast<std::size_t>(q)]) * e;
    for (int f = 0; f < fields; ++f) {
      char* dst = host_out_.data() + static_cast<std::size_t>(f * dst_field) * e;
      if (to_b) {
        const std::size_t n = static_cast<std::size_t>(naq * nbl * nc) * e;
        std::memcpy(dst + static_cast<std::size_t>(a0q * nbl * nc) * e, src, n);
        src += n;
      } else {
        for (index_t a = 0; a < nal; ++a, src += static_cast<std::size_t>(nbq * nc) * e)
          std::memcpy(dst + static_cast<std::size_t>((a * nb + b0q) * nc) * e, src,
                      static_cast<std::size_t>(nbq * nc) * e);
      }
    }
  }

  for (int f = 0; f < fields; ++f)
    backend::copy_to_device(static_cast<char*>(out) + static_cast<std::size_t>(f * out_stride) * e,
                            host_out_.data() + static_cast<std::size_t>(f * dst_field) * e,
                            static_cast<std::size_t>(dst_field) * e);
}

void MpiSlabExchange::sum(double* v, int n) {
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm_.native());
}

std::unique_ptr<field::SlabExchange> make_slab_exchange(const Comm& comm) {
  if (comm.size() == 1) return std::make_unique<field::LocalSlabExchange>();
  return std::make_unique<MpiSlabExchange>(comm);
}

}  // namespace eddy::parallel
