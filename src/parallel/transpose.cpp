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
struct MpiSlabExchange::Blocks {
  bool to_b;
  int P, r;
  std::size_t e;
  index_t na, nb, nc, O, nal, nbl, b_outer, ap;
  // The own block goes straight from source to destination when that is one strided copy (one outer
  // array); otherwise it is packed into its receive segment and unpacked like the others.
  bool direct;

  Blocks(bool to_b_, const field::SlabShape& s, int P_, int r_)
      : to_b(to_b_),
        P(P_),
        r(r_),
        e(s.elem_bytes),
        na(s.na),
        nb(s.nb),
        nc(s.nc),
        O(s.outer),
        nal(BlockSplit::count(na, P, r)),
        nbl(BlockSplit::count(nb, P, r)),
        b_outer(s.b_outer_stride ? s.b_outer_stride : na * nbl * nc),
        ap(s.a_plane()),
        direct(O == 1) {}

  /// Elements per field sent to q (to_b: my a-planes x q's b-rows; b_to_a: q's a-planes x my b-rows) and
  /// received from q (the transposed roles), packed [outer][a][b][c].
  void sizes(int q, index_t& send_n, index_t& recv_n) const {
    const index_t naq = BlockSplit::count(na, P, q), nbq = BlockSplit::count(nb, P, q);
    send_n = O * (to_b ? nal * nbq : naq * nbl) * nc;
    recv_n = O * (to_b ? naq * nbl : nal * nbq) * nc;
  }
  void pack(int q, const char* fin, char* fseg) const {
    const index_t naq = BlockSplit::count(na, P, q), a0q = BlockSplit::start(na, P, q);
    const index_t nbq = BlockSplit::count(nb, P, q), b0q = BlockSplit::start(nb, P, q);
    if (to_b)  // rows of my a-planes, q's b-range of each
      backend::copy_2d_on_device(fseg, at(nbq * nc, e), fin + at(b0q * nc, e), at(ap, e), at(nbq * nc, e),
                                 static_cast<std::size_t>(O * nal));
    else  // q's a-planes of my b-rows: contiguous per outer array
      backend::copy_2d_on_device(fseg, at(naq * nbl * nc, e), fin + at(a0q * nbl * nc, e), at(b_outer, e),
                                 at(naq * nbl * nc, e), static_cast<std::size_t>(O));
  }
  void unpack(int q, const char* fseg, char* fout) const {
    const index_t naq = BlockSplit::count(na, P, q), a0q = BlockSplit::start(na, P, q);
    const index_t nbq = BlockSplit::count(nb, P, q), b0q = BlockSplit::start(nb, P, q);
    if (to_b)  // q's a-planes of my b-rows: contiguous per outer array in the b-slab layout
      backend::copy_2d_on_device(fout + at(a0q * nbl * nc, e), at(b_outer, e), fseg, at(naq * nbl * nc, e),
                                 at(naq * nbl * nc, e), static_cast<std::size_t>(O));
    else  // my a-planes, q's b-range of each
      backend::copy_2d_on_device(fout + at(b0q * nc, e), at(ap, e), fseg, at(nbq * nc, e), at(nbq * nc, e),
                                 static_cast<std::size_t>(O * nal));
  }
  /// The own block from the source to the destination layout, one strided copy (direct only).
  void own(const char* fin, char* fout) const {
    const index_t a0 = BlockSplit::start(na, P, r), b0 = BlockSplit::start(nb, P, r);
    if (to_b)
      backend::copy_2d_on_device(fout + at(a0 * nbl * nc, e), at(nbl * nc, e), fin + at(b0 * nc, e),
                                 at(ap, e), at(nbl * nc, e), static_cast<std::size_t>(nal));
    else
      backend::copy_2d_on_device(fout + at(b0 * nc, e), at(ap, e), fin + at(a0 * nbl * nc, e),
                                 at(nbl * nc, e), at(nbl * nc, e), static_cast<std::size_t>(nal));
  }
};

void MpiSlabExchange::transpose(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride,
                                void* out, index_t out_stride, int fields) {
  start(to_b, s, in, in_stride, out, out_stride, fields);
  finish();
}

void MpiSlabExchange::start(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride,
                            void* out, index_t out_stride, int fields) {
  if (pending_) throw Error("MpiSlabExchange: a transpose is already in flight");
  const Blocks k(to_b, s, comm_.size(), comm_.rank());
  const std::size_t send_total = at(fields * k.O * (to_b ? k.nal * k.nb : k.na * k.nbl) * k.nc, k.e);
  const std::size_t recv_total = at(fields * k.O * (to_b ? k.na * k.nbl : k.nal * k.nb) * k.nc, k.e);
  if (send_.size() < send_total) send_.resize(send_total);
  if (recv_.size() < recv_total) recv_.resize(recv_total);
  const auto* src = static_cast<const char*>(in);
  auto* dst = static_cast<char*>(out);
  backend::PhaseTimer& timer = backend::phase_timer();  // the breakdown (eddy bench); no-ops when off
  const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::pack);

  std::vector<Message> sends, recvs;
  std::size_t spos = 0, rpos = 0;
  for (int q = 0; q < k.P; ++q) {
    index_t send_n = 0, recv_n = 0;
    k.sizes(q, send_n, recv_n);
    char* seg = q == k.r ? recv_.data() + rpos : send_.data() + spos;
    if (q != k.r || !k.direct)
      for (int f = 0; f < fields; ++f) k.pack(q, src + at(f * in_stride, k.e), seg + at(f * send_n, k.e));
    if (q != k.r) {
      sends.push_back({q, seg, at(fields * send_n, k.e)});
      recvs.push_back({q, recv_.data() + rpos, at(fields * recv_n, k.e)});
      timer.add_sent(at(fields * send_n, k.e));
    }
    spos += at(fields * send_n, k.e);
    rpos += at(fields * recv_n, k.e);
  }

  timer.to(backend::PhaseTimer::transfer);  // the messages and, meanwhile, the own block's copy
  transport_->start(sends, recvs);
  if (k.direct)
    for (int f = 0; f < fields; ++f) k.own(src + at(f * in_stride, k.e), dst + at(f * out_stride, k.e));
  pending_ = std::make_unique<Pending>(Pending{to_b, s, dst, out_stride, fields});
  timer.to(caller);
}

void MpiSlabExchange::finish() {
  if (!pending_) return;
  const Pending p = *pending_;
  pending_.reset();
  const Blocks k(p.to_b, p.s, comm_.size(), comm_.rank());
  backend::PhaseTimer& timer = backend::phase_timer();
  const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::transfer);
  transport_->finish();
  timer.to(backend::PhaseTimer::unpack);
  std::size_t rpos = 0;
  for (int q = 0; q < k.P; ++q) {
    index_t send_n = 0, recv_n = 0;
    k.sizes(q, send_n, recv_n);
    if (q != k.r || !k.direct)
      for (int f = 0; f < p.fields; ++f)
        k.unpack(q, recv_.data() + rpos + at(f * recv_n, k.e), p.out + at(f * p.out_stride, k.e));
    rpos += at(p.fields * recv_n, k.e);
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
