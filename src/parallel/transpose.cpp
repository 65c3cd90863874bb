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

MpiTransposeExchange::MpiTransposeExchange(const Comm& comm, std::unique_ptr<Transport> t)
    : comm_(comm), transport_(std::move(t)) {}

void MpiTransposeExchange::a_to_b(const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                                  index_t out_stride, int fields) {
  transpose(true, s, in, in_stride, out, out_stride, fields);
}

void MpiTransposeExchange::b_to_a(const field::SlabShape& s, const void* in, index_t in_stride, void* out,
                                  index_t out_stride, int fields) {
  transpose(false, s, in, in_stride, out, out_stride, fields);
}

// The message between this rank (r) and rank q holds, per field and outer array, the block [a-planes of
// the a-owner] x [moved b-rows of the b-owner] x [all c]: for a to_b transpose r owns the a-planes of the
// source and q the b-rows of the destination, for b_to_a the other way round. The moved rows of a b-owner's
// block (field::SlabShape::moved_rows: all of them, or their intersection with at most two global ranges)
// are the same on both sides, so are the message sizes. The message is [outer][a][moved rows][c], the
// ranges' rows one after the other (field/slab.hpp: for one outer array the messages of all q in turn are
// the compact b layout). In the a-slab layout [a_local][b][c] a range is `nal` rows of `rows * nc`
// elements, a_plane() apart, and the outer arrays continue the rows evenly: one strided block copy per
// field, peer and range. In the b-slab layout [a][b_local][c] a whole block is contiguous per outer array
// (b_outer apart): one strided copy; a part of it is per outer array and range naq rows of rows * nc
// elements, nbl * nc apart. Where the b side is direct (one field, one outer array, and the compact
// layout or every row of the block moved), the messages are the b array's own segments.
struct MpiTransposeExchange::Blocks {
  bool to_b;
  int P, r;
  std::size_t e;
  const field::SlabShape& s;
  index_t na, nb, nc, O, nal, nbl, b0, b_outer, ap;
  index_t mine;  // my moved rows: the compact layout's rows
  index_t cols;  // the leading columns of each moved row that must move (SlabShape::columns)
  // The b array is the messages (see above); the a side is packed or unpacked alone.
  bool direct_b;
  // Otherwise, the own block goes straight from source to destination when that is one strided copy per
  // range (one outer array); else it is packed into its receive segment and unpacked like the others.
  bool own_direct;

  Blocks(bool to_b_, const field::SlabShape& s_, int P_, int r_, int fields)
      : to_b(to_b_),
        P(P_),
        r(r_),
        e(s_.elem_bytes),
        s(s_),
        na(s_.na),
        nb(s_.nb),
        nc(s_.nc),
        O(s_.outer),
        nal(BlockSplit::count(na, P, r)),
        nbl(BlockSplit::count(nb, P, r)),
        b0(BlockSplit::start(nb, P, r)),
        b_outer(s_.b_outer_stride ? s_.b_outer_stride : na * nbl * nc),
        ap(s_.a_plane()),
        mine(s_.moved_count(b0, nbl)),
        cols(s_.moved_columns()),
        direct_b(O == 1 && fields == 1 && (s_.compact || mine == nbl)),
        own_direct(O == 1) {}

  /// The moved rows of p's b-block; `count` their number.
  int rows_of(int p, field::RowRange rows[2], index_t& count) const {
    const int n = s.moved_rows(BlockSplit::start(nb, P, p), BlockSplit::count(nb, P, p), rows);
    count = 0;
    for (int i = 0; i < n; ++i) count += rows[i].count;
    return n;
  }
  /// Elements per field sent to q (to_b: my a-planes x q's moved b-rows; b_to_a: q's a-planes x my moved
  /// b-rows) and received from q (the transposed roles), [outer][a][moved rows][c].
  void sizes(int q, index_t& send_n, index_t& recv_n) const {
    field::RowRange rows[2];
    index_t theirs = 0;
    rows_of(q, rows, theirs);
    const index_t naq = BlockSplit::count(na, P, q);
    send_n = O * (to_b ? nal * theirs : naq * mine) * nc;
    recv_n = O * (to_b ? naq * mine : nal * theirs) * nc;
  }
  /// The direct b side: the segment of the a-owner q in the b array (compact layout, one outer array).
  char* b_segment(int q, char* b) const { return b + at(BlockSplit::start(na, P, q) * mine * nc, e); }
  /// Between a message and the a-slab layout (my a-planes): the moved rows of the b-owner p.
  void a_side(bool to_seg, int p, char* seg, char* slab) const {
    Piece pieces[2];
    index_t count = 0;
    for (int i = 0, n = a_pieces(p, pieces, count); i < n; ++i) {
      const Piece& c = pieces[i];
      const Geometry g = geometry(c, O * nal);
      if (to_seg)
        backend::copy_3d_on_device(seg + c.seg, g.seg, slab + c.slab, g.slab, g.extent);
      else
        backend::copy_3d_on_device(slab + c.slab, g.slab, seg + c.seg, g.seg, g.extent);
    }
  }
  /// The strided blocks of a_side, per range of the b-owner p's moved rows (`count` of them in all): `rows`
  /// rows at byte `slab` of each a-plane (a_plane() apart) and byte `seg` of the message's planes
  /// (seg_pitch apart); in p's b array (one outer array), at byte `b` of its planes (b_pitch apart): the
  /// message's place in the compact layout, or in the b-slab layout the rows' place in p's block.
  struct Piece {
    std::size_t slab, seg, seg_pitch;
    index_t rows;
    std::size_t b, b_pitch;
  };
  int a_pieces(int p, Piece out[2], index_t& count) const {
    field::RowRange rows[2];
    index_t before = 0;
    const int n = rows_of(p, rows, count);
    const index_t b0p = BlockSplit::start(nb, P, p), nbp = BlockSplit::count(nb, P, p);
    for (int i = 0; i < n; ++i) {
      const std::size_t seg = at(before * nc, e), seg_pitch = at(count * nc, e);
      out[i] = {at(rows[i].lo * nc, e),
                seg,
                seg_pitch,
                rows[i].count,
                s.compact ? seg : at((rows[i].lo - b0p) * nc, e),
                s.compact ? seg_pitch : at(nbp * nc, e)};
      before += rows[i].count;
    }
    return n;
  }
  /// A piece of `planes` planes as a strided block on both sides: where every column moves, each plane's
  /// rows are one line (a 2D block); else the leading `cols` columns of each row (3D: rows of planes).
  struct Geometry {
    backend::Strides slab, seg;
    backend::Extent extent;
  };
  /// `b_array`: the b side is the b array (Piece::b), else the message.
  Geometry geometry(const Piece& c, index_t planes, bool b_array = false) const {
    const auto depth = static_cast<std::size_t>(planes);
    const std::size_t b_pitch = b_array ? c.b_pitch : c.seg_pitch;
    if (cols == nc && b_pitch == c.seg_pitch)  // each plane's rows are one line on both sides
      return {{at(ap, e), 0}, {b_pitch, 0}, {at(c.rows * nc, e), depth, 1}};
    return {
        {at(nc, e), at(ap, e)}, {at(nc, e), b_pitch}, {at(cols, e), static_cast<std::size_t>(c.rows), depth}};
  }
  /// Between a message and the b-slab layout (my b-rows): the a-planes of the a-owner p, my moved rows of
  /// each.
  void b_side(bool to_seg, int p, char* seg, char* slab) const {
    const index_t nap = BlockSplit::count(na, P, p), a0p = BlockSplit::start(na, P, p);
    field::RowRange rows[2];
    index_t count = 0;
    const int n = rows_of(r, rows, count);
    if (n == 1 && rows[0].count == nbl) {  // the whole block: contiguous per outer array
      const std::size_t block = at(nap * nbl * nc, e);
      char* b = slab + at(a0p * nbl * nc, e);
      if (to_seg)
        backend::copy_2d_on_device(seg, block, b, at(b_outer, e), block, static_cast<std::size_t>(O));
      else
        backend::copy_2d_on_device(b, at(b_outer, e), seg, block, block, static_cast<std::size_t>(O));
      return;
    }
    const std::size_t seg_pitch = at(count * nc, e);
    index_t before = 0;
    for (int i = 0; i < n; ++i) {
      const std::size_t width = at(rows[i].count * nc, e);
      for (index_t o = 0; o < O; ++o) {
        char* b = slab + at(o * b_outer + (a0p * nbl + rows[i].lo - b0) * nc, e);
        char* m = seg + at((o * nap * count + before) * nc, e);
        if (to_seg)
          backend::copy_2d_on_device(m, seg_pitch, b, at(nbl * nc, e), width, static_cast<std::size_t>(nap));
        else
          backend::copy_2d_on_device(b, at(nbl * nc, e), m, seg_pitch, width, static_cast<std::size_t>(nap));
      }
      before += rows[i].count;
    }
  }
  void pack(int q, const char* fin, char* fseg) const {
    if (to_b)  // rows of my a-planes, q's moved b-rows of each
      a_side(true, q, fseg, const_cast<char*>(fin));
    else  // q's a-planes of my moved b-rows
      b_side(true, q, fseg, const_cast<char*>(fin));
  }
  void unpack(int q, const char* fseg, char* fout) const {
    if (to_b)  // q's a-planes of my moved b-rows
      b_side(false, q, const_cast<char*>(fseg), fout);
    else  // my a-planes, q's moved b-rows of each
      a_side(false, q, const_cast<char*>(fseg), fout);
  }
  /// The own block from the source to the destination layout (direct_b or own_direct: one outer array),
  /// one strided copy per moved range, straight between the a-slabs and the b array (compact, or b-slab
  /// with all or part of the block's rows moved).
  void own(const char* fin, char* fout) const {
    const std::size_t a0 = static_cast<std::size_t>(BlockSplit::start(na, P, r));
    Piece pieces[2];
    index_t count = 0;
    for (int i = 0, n = a_pieces(r, pieces, count); i < n; ++i) {
      const Piece& c = pieces[i];
      const Geometry g = geometry(c, nal, true);
      const std::size_t b = a0 * c.b_pitch + c.b;
      if (to_b)
        backend::copy_3d_on_device(fout + b, g.seg, fin + c.slab, g.slab, g.extent);
      else
        backend::copy_3d_on_device(fout + c.slab, g.slab, fin + b, g.seg, g.extent);
    }
  }
  /// A one-sided transport's copies (one field, one outer array): the a side's blocks from the source
  /// layout straight into the peers' destination layout, whichever layout the b array has (compact, or
  /// b-slab with all or part of its rows moved). to_b: the moved rows of q's block of my a-planes into q's
  /// b array, at my a-planes; b_to_a: my moved rows of q's a-planes of my b array into q's a-planes.
  void puts(const char* in, std::vector<Put>& out) const {
    for (int q = 0; q < P; ++q) {
      if (q == r) continue;
      Piece pieces[2];
      index_t count = 0;  // the b-owner's moved rows
      const int n = a_pieces(to_b ? q : r, pieces, count);
      const index_t naq = BlockSplit::count(na, P, q);
      for (int i = 0; i < n; ++i) {
        const Piece& c = pieces[i];
        if (to_b) {  // into q's b array, at my a-planes
          const Geometry g = geometry(c, nal, true);
          out.push_back(
              {q, in + c.slab, g.slab, g.extent, at(BlockSplit::start(na, P, r), c.b_pitch) + c.b, g.seg});
        } else {  // from q's a-planes of my b array into q's a-planes
          const Geometry g = geometry(c, naq, true);
          out.push_back(
              {q, in + at(BlockSplit::start(na, P, q), c.b_pitch) + c.b, g.seg, g.extent, c.slab, g.slab});
        }
      }
    }
  }
  /// Whether the messages of the b side are the b array itself (no pack / unpack there).
  bool sends_b() const { return direct_b && !to_b; }
  bool receives_b() const { return direct_b && to_b; }
  /// Whether the own block is copied in start() (else packed and unpacked as the others).
  bool copies_own() const { return direct_b || own_direct; }
};

void MpiTransposeExchange::transpose(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride,
                                     void* out, index_t out_stride, int fields) {
  if (s.compact && fields > 1) {  // the compact b array is one field's messages: one transpose per field
    for (int f = 0; f < fields; ++f) {
      const std::size_t e = s.elem_bytes;
      transpose(to_b, s, static_cast<const char*>(in) + at(f * in_stride, e), 0,
                static_cast<char*>(out) + at(f * out_stride, e), 0, 1);
    }
    return;
  }
  start(to_b, s, in, in_stride, out, out_stride, fields);
  finish();
}

void MpiTransposeExchange::start(bool to_b, const field::SlabShape& s, const void* in, index_t in_stride,
                                 void* out, index_t out_stride, int fields) {
  if (pending_) throw Error("MpiTransposeExchange: a transpose is already in flight");
  const Blocks k(to_b, s, comm_.size(), comm_.rank(), fields);
  if (s.compact && !k.direct_b)
    throw Error("MpiTransposeExchange: the compact b layout is for one outer array, one field per start()");
  const auto* src = static_cast<const char*>(in);
  auto* dst = static_cast<char*>(out);
  backend::PhaseTimer& timer = backend::phase_timer();  // the breakdown (eddy bench); no-ops when off
  // Profiled, the ranks meet before the transfer (`wait`): its time is then the data's, not a rank's lag.
  const auto wait_for_ranks = [&] {
    timer.to(backend::PhaseTimer::wait);
    if (timer.on()) comm_.barrier();
    timer.to(backend::PhaseTimer::transfer);
  };
  if (transport_->one_sided(k.O == 1 && fields == 1, dst)) {  // copied straight between the layouts
    const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::pack);
    std::vector<Put> puts;
    k.puts(src, puts);
    for (const Put& p : puts) timer.add_sent(p.bytes());
    wait_for_ranks();
    transport_->start_puts(dst, puts);
    timer.to(backend::PhaseTimer::pack);  // this rank's own block: a local copy, while the puts move
    k.own(src, dst);
    pending_ = std::make_unique<Pending>(Pending{to_b, s, dst, out_stride, fields, true});
    timer.to(caller);
    return;
  }
  std::size_t send_total = 0, recv_total = 0;  // the exchange's own message buffers
  for (int q = 0; q < k.P; ++q) {
    index_t send_n = 0, recv_n = 0;
    k.sizes(q, send_n, recv_n);
    if (q != k.r && !k.sends_b()) send_total += at(fields * send_n, k.e);
    if ((q != k.r || !k.copies_own()) && !k.receives_b()) recv_total += at(fields * recv_n, k.e);
  }
  if (send_.size() < send_total) send_.resize(send_total);
  if (recv_.size() < recv_total) recv_.resize(recv_total);
  const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::pack);

  std::vector<Message> sends, recvs;
  std::size_t spos = 0, rpos = 0;
  for (int q = 0; q < k.P; ++q) {
    index_t send_n = 0, recv_n = 0;
    k.sizes(q, send_n, recv_n);
    const std::size_t send_bytes = at(fields * send_n, k.e), recv_bytes = at(fields * recv_n, k.e);
    if (q == k.r) {
      if (!k.copies_own()) {  // packed into its receive segment, unpacked in finish()
        for (int f = 0; f < fields; ++f)
          k.pack(q, src + at(f * in_stride, k.e), recv_.data() + rpos + at(f * send_n, k.e));
        rpos += recv_bytes;
      }
      continue;
    }
    char* send = k.sends_b() ? k.b_segment(q, const_cast<char*>(src)) : send_.data() + spos;
    char* recv = k.receives_b() ? k.b_segment(q, dst) : recv_.data() + rpos;
    if (!k.sends_b()) {
      for (int f = 0; f < fields; ++f) k.pack(q, src + at(f * in_stride, k.e), send + at(f * send_n, k.e));
      spos += send_bytes;
    }
    if (!k.receives_b()) rpos += recv_bytes;
    sends.push_back({q, send, send_bytes});
    recvs.push_back({q, recv, recv_bytes});
    timer.add_sent(send_bytes);
  }

  wait_for_ranks();
  transport_->start(sends, recvs);
  timer.to(backend::PhaseTimer::pack);  // this rank's own block: a local copy, while the messages move
  if (k.copies_own())
    for (int f = 0; f < fields; ++f) k.own(src + at(f * in_stride, k.e), dst + at(f * out_stride, k.e));
  pending_ = std::make_unique<Pending>(Pending{to_b, s, dst, out_stride, fields, false});
  timer.to(caller);
}

void MpiTransposeExchange::finish() {
  if (!pending_) return;
  const Pending p = *pending_;
  pending_.reset();
  const Blocks k(p.to_b, p.s, comm_.size(), comm_.rank(), p.fields);
  backend::PhaseTimer& timer = backend::phase_timer();
  const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::transfer);
  transport_->finish();
  if (k.receives_b() || p.one_sided) {  // received in place: nothing to unpack
    timer.to(caller);
    return;
  }
  timer.to(backend::PhaseTimer::unpack);
  std::size_t rpos = 0;
  for (int q = 0; q < k.P; ++q) {
    if (q == k.r && k.copies_own()) continue;
    index_t send_n = 0, recv_n = 0;
    k.sizes(q, send_n, recv_n);
    for (int f = 0; f < p.fields; ++f)
      k.unpack(q, recv_.data() + rpos + at(f * recv_n, k.e), p.out + at(f * p.out_stride, k.e));
    rpos += at(p.fields * recv_n, k.e);
  }
  timer.to(caller);
}

void MpiTransposeExchange::sum(double* v, int n) {
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm_.native());
}

MpiPencilExchange::MpiPencilExchange(const Comm& comm, int p1, const std::string& mode)
    : world_(comm),
      p1_(p1),
      // rank = i1 P2 + i2: a row shares i2 (ordered by i1), a column shares i1 (ordered by i2)
      row_comm_(comm, comm.rank() % (comm.size() / p1), comm.rank() / (comm.size() / p1)),
      col_comm_(comm, comm.rank() / (comm.size() / p1), comm.rank() % (comm.size() / p1)),
      row_(make_transpose_exchange(mode, row_comm_.comm())),
      col_(make_transpose_exchange(mode, col_comm_.comm())) {}

void MpiPencilExchange::sum(double* v, int n) {
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, world_.native());
}

const char* MpiPencilExchange::name() const {
  name_ = std::string("rows: ") + row_->name() + "; columns: " + col_->name();
  return name_.c_str();
}

std::unique_ptr<field::TransposeExchange> make_transpose_exchange(const std::string& mode, const Comm& comm,
                                                                  int p1) {
  if (p1 > 1) return std::make_unique<MpiPencilExchange>(comm, p1, mode);
  if (comm.size() == 1) {
    check_transport(mode);
    return std::make_unique<field::LocalTransposeExchange>();
  }
  return std::make_unique<MpiTransposeExchange>(comm, make_transport(mode, comm));
}

}  // namespace eddy::parallel
