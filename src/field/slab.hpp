#pragma once
/// Slab and pencil decompositions for distributed FFTs, as solvers see them: a global transpose of arrays
/// between two slab layouts (a pencil decomposition is two of them: row() and the column), plus the
/// reductions diagnostics need. parallel/transpose.hpp implements it with
/// MPI (injected by the app); LocalTransposeExchange here is the single-rank case. Solvers never see MPI.
///
/// The arrays are 3D, [a][b][c] with c fastest, of elements of `elem_bytes` bytes:
///   a-slabs: a rank holds the a-planes of its block (BlockSplit of na) and every b;
///   b-slabs: a rank holds every a and the b-rows of its block (BlockSplit of nb).
/// The 3D spectral solver uses [z][y][x/2+1] (a = z, b = y, c = x), the 2D one [y][x/2+1][1]; its pencil
/// decomposition also transposes [z_local] x [y][x/2+1][1] (outer = z_local, a = y, b = kx, c = 1).
#include <algorithm>
#include <cstddef>

#include "backend/backend.hpp"
#include "backend/profile.hpp"
#include "core/error.hpp"
#include "core/types.hpp"

namespace eddy::field {

/// The contiguous split of n items over `parts`: the first n % parts parts get one item more.
struct BlockSplit {
  static index_t count(index_t n, int parts, int p) { return n / parts + (p < n % parts ? 1 : 0); }
  static index_t start(index_t n, int parts, int p) {
    return p * (n / parts) + std::min<index_t>(p, n % parts);
  }
};

/// The b-rows [lo, lo + count) of an axis.
struct RowRange {
  index_t lo = 0, count = 0;
};

/// The global shape of a transposed array.
struct SlabShape {
  index_t na = 1, nb = 1, nc = 1;  ///< global extents (c fastest)
  std::size_t elem_bytes = 8;      ///< bytes per element
  index_t outer = 1;               ///< independent [a][b][c] arrays per field, transposed alike
  /// Elements between consecutive outer arrays in the b-slab layout (0: contiguous, na nb_local nc); in
  /// the a-slab layout they are always contiguous (na_local a-planes).
  index_t b_outer_stride = 0;
  /// Elements between consecutive a-planes in the a-slab layout (0: contiguous, nb nc): padded planes.
  index_t a_pitch = 0;
  index_t a_plane() const { return a_pitch ? a_pitch : nb * nc; }
  /// The b-rows a transpose moves: `row_ranges` (0, 1 or 2) disjoint ranges of the global b axis, in
  /// increasing order; 0 (the default): every row. The other rows are neither read nor written, on either
  /// side: the destination keeps what it held there (the pruned spectral transforms: spectral/slab_fft.hpp).
  int row_ranges = 0;
  RowRange rows[2] = {};
  /// The b side in the compact layout (outer = 1 only): [a = all][the moved rows of this rank's block, its
  /// ranges one after the other][c], instead of the b-slab layout [a][b_local][c]; fields still `stride`
  /// apart. Where every row of the block moves, the two layouts are one. What TransposeExchange does with it:
  /// below.
  bool compact = false;
  /// The c-columns a transpose must move: [0, columns) of each moved row; 0 (the default): every column.
  /// The exchange may move more (the messages of two-sided transports hold every column where the b side
  /// is not the b array itself), so the other columns of the moved rows hold, in the destination, the
  /// source's values or what they held before: a caller that needs them set sets them itself
  /// (spectral/slab_fft.cpp zeroes them before a c2r transform).
  index_t columns = 0;
  /// The columns that must move (every one where `columns` is 0 or nc).
  index_t moved_columns() const { return columns > 0 && columns < nc ? columns : nc; }

  /// The moved rows among [b0, b0 + n) (one rank's block of the b axis), in increasing order, into
  /// out[0], out[1]; returns how many ranges. Every row moved: the one range [b0, b0 + n), even if empty.
  /// Each rank computes every other rank's from the global ranges, so both sides of a message agree.
  int moved_rows(index_t b0, index_t n, RowRange out[2]) const {
    if (row_ranges == 0) {
      out[0] = {b0, n};
      return 1;
    }
    int k = 0;
    for (int i = 0; i < row_ranges; ++i) {
      const index_t lo = std::max(b0, rows[i].lo), hi = std::min(b0 + n, rows[i].lo + rows[i].count);
      if (lo < hi) out[k++] = {lo, hi - lo};
    }
    return k;
  }
  /// The number of moved rows among [b0, b0 + n): the compact layout's rows.
  index_t moved_count(index_t b0, index_t n) const {
    RowRange r[2];
    index_t count = 0;
    for (int i = 0, k = moved_rows(b0, n, r); i < k; ++i) count += r[i].count;
    return count;
  }
};

/// Transposes and reductions over the ranks of a slab decomposition. Collective: every rank calls each
/// function in the same order. Arrays are device memory; `fields` arrays are transposed at once, each
/// `stride` elements after the previous one; source and destination must not overlap.
///
/// The messages. Between this rank and rank q a transpose moves, per field and outer array, the block
/// [a-planes of the a-owner][moved rows of the b-owner's block][c], the rows of its ranges one after the
/// other. For one field of one outer array, the messages from (a_to_b) or to (b_to_a) the ranks
/// q = 0 .. P-1 in turn are thus exactly the compact b layout (SlabShape::compact): [a-planes of q, in q
/// order = all a][this rank's moved rows][c]. So where the b array is in the compact layout and one field
/// moves, the messages are received into it (a_to_b) or sent from it (b_to_a) as they are, and only the
/// a side is packed or unpacked (strided copies); this rank's own block is copied between the two arrays
/// directly. This is also the path of every one-field transpose (outer = 1) in which this rank moves its
/// whole b-block, compact set or not: the b-slab layout is then the compact one. Otherwise (several
/// fields or outer arrays, or the b-slab layout of a block only partly moved) both sides are packed into
/// or unpacked from the exchange's own message buffers. compact with outer > 1 is refused; a_to_b /
/// b_to_a with compact and several fields run one transpose per field; start() with both is refused.
///
/// Who owns what, when. a_to_b / b_to_a return with the destination complete. Split (start, finish):
/// from start() until finish() returns, both arrays belong to the exchange: messages may still be read
/// from the source or, compact or direct, from the b array (b_to_a), or written into the b array
/// (a_to_b), by the transport on the device. After finish() returns, work queued on the device sees the
/// complete destination and may overwrite either array; work queued before start() (e.g. the transform
/// that filled the source) is done before the transport reads. A caller that works on field f's b array
/// while field f+1's transpose is in flight needs one b array per field in flight (spectral/slab_fft.cpp:
/// two compact buffers, alternating by field).
class TransposeExchange {
 public:
  virtual ~TransposeExchange() = default;
  virtual int ranks() const = 0;
  virtual int rank() const = 0;
  /// a-slabs (in) -> b-slabs (out).
  virtual void a_to_b(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
                      int fields) = 0;
  /// b-slabs (in) -> a-slabs (out).
  virtual void b_to_a(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
                      int fields) = 0;
  /// The same transposes split for overlap: start() (to_b: a_to_b, else b_to_a) may return while the
  /// messages move, finish() completes the destination; in between, neither array may be touched, and no
  /// other transpose of this exchange may start. The default runs the whole transpose in start().
  virtual void start(bool to_b, const SlabShape& s, const void* in, index_t in_stride, void* out,
                     index_t out_stride, int fields) {
    if (to_b)
      a_to_b(s, in, in_stride, out, out_stride, fields);
    else
      b_to_a(s, in, in_stride, out, out_stride, fields);
  }
  virtual void finish() {}
  /// Element-wise sum of v[0..n) over the ranks, in place; the same result on every rank.
  virtual void sum(double* v, int n) = 0;
  /// Maximum of v over the ranks.
  virtual double max(double v) = 0;
  /// "local", "mpi (host-staged)": for the log.
  virtual const char* name() const = 0;
  /// Whether one-field transposes of one outer array (start()) may copy straight between the layouts
  /// (a one-sided transport: parallel/transpose.hpp), so that the b-slab layout of a partly moved block
  /// costs no packing and the compact layout gains nothing. Not a promise: a round may still go two-sided.
  virtual bool copies_between_layouts() const { return false; }

  // Pencil decomposition (3D spectral): the ranks form a P1 x P2 process grid, rank = i1 P2 + i2
  // (parallel/decomposition.hpp's order for the grid [1, P1, P2]). a_to_b / b_to_a above then run among
  // the P2 ranks of this rank's column (same i1), and row() among the P1 ranks of its row (same i2);
  // ranks(), rank(), sum and max still cover every rank. A slab decomposition is P1 = 1 (no row).
  /// P1: ranks per row.
  virtual int p1() const { return 1; }
  /// The exchange among this rank's row (P1 > 1), nullptr for a slab.
  virtual TransposeExchange* row() { return nullptr; }
};

/// One rank: both layouts are the whole array, so a transpose is a copy and reductions are identities.
class LocalTransposeExchange final : public TransposeExchange {
 public:
  int ranks() const override { return 1; }
  int rank() const override { return 0; }
  void a_to_b(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override {
    copy(true, s, in, in_stride, out, out_stride, fields);
  }
  void b_to_a(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override {
    copy(false, s, in, in_stride, out, out_stride, fields);
  }
  void sum(double*, int) override {}
  double max(double v) override { return v; }
  const char* name() const override { return "local"; }

 private:
  static void copy(bool out_b, const SlabShape& s, const void* in, index_t in_stride, void* out,
                   index_t out_stride, int fields) {
    // Per outer array: na planes of nb nc elements, a_plane() apart on the a side, contiguous on the b side
    // (whose outer arrays are b_outer apart); of each plane, the moved rows. The compact b side: planes of
    // the moved rows only, one range after the other.
    if (s.compact && s.outer > 1) throw Error("TransposeExchange: the compact b layout has one outer array");
    const index_t b_rows = s.compact ? s.moved_count(0, s.nb) : s.nb;
    const index_t width = b_rows * s.nc, ap = s.a_plane();
    const index_t b_outer = s.b_outer_stride && !s.compact ? s.b_outer_stride : s.na * width;
    const std::size_t e = s.elem_bytes;
    auto at = [e](index_t n) { return static_cast<std::size_t>(n) * e; };
    backend::PhaseTimer& timer = backend::phase_timer();
    const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::pack);
    for (int f = 0; f < fields; ++f)
      for (index_t o = 0; o < s.outer; ++o) {
        char* a_side = static_cast<char*>(out_b ? const_cast<void*>(in) : out) +
                       at((out_b ? in_stride : out_stride) * f + o * s.na * ap);
        char* b_side = static_cast<char*>(out_b ? out : const_cast<void*>(in)) +
                       at((out_b ? out_stride : in_stride) * f + o * b_outer);
        RowRange rows[2];
        index_t compact_row = 0;  // the range's first row in the compact layout
        for (int i = 0, n = s.moved_rows(0, s.nb, rows); i < n; ++i) {  // every row: [0, nb)
          const std::size_t row = at(rows[i].lo * s.nc), bytes = at(rows[i].count * s.nc);
          const std::size_t b_row = s.compact ? at(compact_row * s.nc) : row;
          compact_row += rows[i].count;
          if (out_b)
            backend::copy_2d_on_device(b_side + b_row, at(width), a_side + row, at(ap), bytes,
                                       static_cast<std::size_t>(s.na));
          else
            backend::copy_2d_on_device(a_side + row, at(ap), b_side + b_row, at(width), bytes,
                                       static_cast<std::size_t>(s.na));
        }
      }
    timer.to(caller);
  }
};

}  // namespace eddy::field
