#include "parallel/transpose.hpp"

#include <mpi.h>

#include <vector>

#include "backend/profile.hpp"
#include "core/error.hpp"

namespace eddy::parallel {
namespace {

using field::BlockSplit;

/// Byte offset of element `n`.
std::size_t at(index_t n, std::size_t e) { return static_cast<std::size_t>(n) * e; }

}  // namespace

MpiSlabExchange::MpiSlabExchange(const Comm& comm, std::unique_ptr<Transport> t)
    : comm_(comm), transport_(std::move(t)) {}

void MpiSlabExchange::a_to_b(const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                             index_t out_stride, int fields) {
  transpose(true, s, in, in_stride, out, out_stride, fields);
}

void MpiSlabExchange::b_to_a(const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                             index_t out_stride, int fields) {
  transpose(false, s, in, in_stride, out, out_stride, fields);
}

// The message between this rank (r) and rank q holds, per field and outer array, the block [a-planes of
// the a-owner] x [b-rows of the b-owner] x [all c]: for a to_b transpose r owns the a-planes of the source
// and q the b-rows of the destination, for b_to_a the other way round. In the b-slab layout [a][b_local][c]
// the block is contiguous (one run per outer array, b_outer apart); in the a-slab layout [a_local][b][c]
// it is `nal` rows of `nbq * nc` elements, a_plane() apart, and the outer arrays continue the rows evenly:
// one strided block copy per field and peer, on the device, each way.
void MpiSlabExchange::transpose(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride,
                                void* out, index_t out_stride, int fields) {
  const int P = comm_.size(), r = comm_.rank();
  const std::size_t e = s.elem_bytes;
  const index_t na = s.na, nb = s.nb, nc = s.nc, O = s.outer;
  const index_t nal = BlockSplit::count(na, P, r), nbl = BlockSplit::count(nb, P, r);
  const index_t b_outer = s.b_outer_stride ? s.b_outer_stride : na * nbl * nc, ap = s.a_plane();
  // The own block goes straight from source to destination when that is one strided copy (one outer
  // array); otherwise it is packed into its receive segment and unpacked like the others.
  const bool direct = O == 1;
  const std::size_t send_total = at(fields * O * (to_b ? nal * nb : na * nbl) * nc, e);
  const std::size_t recv_total = at(fields * O * (to_b ? na * nbl : nal * nb) * nc, e);
  if (send_.size() < send_total) send_.resize(send_total);
  if (recv_.size() < recv_total) recv_.resize(recv_total);
  const auto* src = static_cast<const char*>(in);
  auto* dst = static_cast<char*>(out);
  backend::PhaseTimer& timer = backend::phase_timer();  // the breakdown (eddy bench); no-ops when off
  const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::pack);

  // Per field: what goes to q (to_b: my a-planes x q's b-rows; b_to_a: q's a-planes x my b-rows) and
  // what comes from q (the transposed roles), packed [outer][a][b][c].
  auto pack = [&](int q, const char* fin, char* fseg) {
    const index_t naq = BlockSplit::count(na, P, q), a0q = BlockSplit::start(na, P, q);
    const index_t nbq = BlockSplit::count(nb, P, q), b0q = BlockSplit::start(nb, P, q);
    if (to_b)  // rows of my a-planes, q's b-range of each
      backend::copy_2d_on_device(fseg, at(nbq * nc, e), fin + at(b0q * nc, e), at(ap, e), at(nbq * nc, e),
                                 static_cast<std::size_t>(O * nal));
    else  // q's a-planes of my b-rows: contiguous per outer array
      backend::copy_2d_on_device(fseg, at(naq * nbl * nc, e), fin + at(a0q * nbl * nc, e), at(b_outer, e),
                                 at(naq * nbl * nc, e), static_cast<std::size_t>(O));
  };
  auto unpack = [&](int q, const char* fseg, char* fout) {
    const index_t naq = BlockSplit::count(na, P, q), a0q = BlockSplit::start(na, P, q);
    const index_t nbq = BlockSplit::count(nb, P, q), b0q = BlockSplit::start(nb, P, q);
    if (to_b)  // q's a-planes of my b-rows: contiguous per outer array in the b-slab layout
      backend::copy_2d_on_device(fout + at(a0q * nbl * nc, e), at(b_outer, e), fseg, at(naq * nbl * nc, e),
                                 at(naq * nbl * nc, e), static_cast<std::size_t>(O));
    else  // my a-planes, q's b-range of each
      backend::copy_2d_on_device(fout + at(b0q * nc, e), at(ap, e), fseg, at(nbq * nc, e), at(nbq * nc, e),
                                 static_cast<std::size_t>(O * nal));
  };
  auto sizes = [&](int q, index_t& send_n, index_t& recv_n) {
    const index_t naq = BlockSplit::count(na, P, q), nbq = BlockSplit::count(nb, P, q);
    send_n = O * (to_b ? nal * nbq : naq * nbl) * nc;
    recv_n = O * (to_b ? naq * nbl : nal * nbq) * nc;
  };

  std::vector<Message> sends, recvs;
  std::size_t spos = 0, rpos = 0;
  for (int q = 0; q < P; ++q) {
    index_t send_n = 0, recv_n = 0;
    sizes(q, send_n, recv_n);
    char* seg = q == r ? recv_.data() + rpos : send_.data() + spos;
    if (q != r || !direct)
      for (int f = 0; f < fields; ++f) pack(q, src + at(f * in_stride, e), seg + at(f * send_n, e));
    if (q != r) {
      sends.push_back({q, seg, at(fields * send_n, e)});
      recvs.push_back({q, recv_.data() + rpos, at(fields * recv_n, e)});
      timer.add_sent(at(fields * send_n, e));
    }
    spos += at(fields * send_n, e);
    rpos += at(fields * recv_n, e);
  }

  timer.to(backend::PhaseTimer::transfer);  // the messages and, meanwhile, the own block's copy
  transport_->start(sends, recvs);
  if (direct) {  // my own block, one strided copy per field from the source to the destination layout
    const index_t a0 = BlockSplit::start(na, P, r), b0 = BlockSplit::start(nb, P, r);
    for (int f = 0; f < fields; ++f) {
      const char* fin = src + at(f * in_stride, e);
      char* fout = dst + at(f * out_stride, e);
      if (to_b)
        backend::copy_2d_on_device(fout + at(a0 * nbl * nc, e), at(nbl * nc, e), fin + at(b0 * nc, e),
                                   at(ap, e), at(nbl * nc, e), static_cast<std::size_t>(nal));
      else
        backend::copy_2d_on_device(fout + at(b0 * nc, e), at(ap, e), fin + at(a0 * nbl * nc, e),
                                   at(nbl * nc, e), at(nbl * nc, e), static_cast<std::size_t>(nal));
    }
  }
  transport_->finish();
  timer.to(backend::PhaseTimer::unpack);

  rpos = 0;
  for (int q = 0; q < P; ++q) {
    index_t send_n = 0, recv_n = 0;
    sizes(q, send_n, recv_n);
    if (q != r || !direct)
      for (int f = 0; f < fields; ++f)
        unpack(q, recv_.data() + rpos + at(f * recv_n, e), dst + at(f * out_stride, e));
    rpos += at(fields * recv_n, e);
  }
  timer.to(caller);
}

void MpiSlabExchange::sum(double* v, int n) {
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm_.native());
}

MpiPencilExchange::MpiPencilExchange(const Comm& comm, int p1, const std::string& mode)
    : world_(comm),
      p1_(p1),
      // rank = i1 P2 + i2: a row shares i2 (ordered by i1), a column shares i1 (ordered by i2)
      row_comm_(comm, comm.rank() % (comm.size() / p1), comm.rank() / (comm.size() / p1)),
      col_comm_(comm, comm.rank() / (comm.size() / p1), comm.rank() % (comm.size() / p1)),
      row_(make_slab_exchange(mode, row_comm_.comm())),
      col_(make_slab_exchange(mode, col_comm_.comm())) {}

void MpiPencilExchange::sum(double* v, int n) {
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, world_.native());
}

const char* MpiPencilExchange::name() const {
  name_ = std::string("rows: ") + row_->name() + "; columns: " + col_->name();
  return name_.c_str();
}

std::unique_ptr<field::SlabExchange> make_slab_exchange(const std::string& mode, const Comm& comm, int p1) {
  if (p1 > 1) return std::make_unique<MpiPencilExchange>(comm, p1, mode);
  if (comm.size() == 1) {
    check_transport(mode);
    return std::make_unique<field::LocalSlabExchange>();
  }
  return std::make_unique<MpiSlabExchange>(comm, make_transport(mode, comm));
}

}  // namespace eddy::parallel
