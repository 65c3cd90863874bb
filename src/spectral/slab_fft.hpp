#pragma once
/// The distributed real-to-complex FFT of a slab- or pencil-decomposed periodic box (spectral/grid.hpp
/// layouts).
///
/// One rank: one full 2D/3D r2c (c2r) transform per field. Slab, P ranks (forward): r2c transforms of the
/// local x(-y) planes into an a-slab buffer, a global transpose to b-slabs (field::TransposeExchange), then
/// 1D c2c transforms along a (z in 3D, y in 2D), strided and batched over the local (b, c) columns.
/// Pencil, P1 x P2 ranks (3D, forward): r2c along x of the local x-rows into [z_l][y_l][kx]; a transpose
/// within the row (exchange.row(): y_l -> all y, kx -> kx_l) into [z_l][y][kx_l], z-planes padded; c2c
/// along y, per z-plane batched over kx_l; a transpose within the column (z_l -> all z, y -> ky_l) into
/// [kz][ky_l][kx_l]; c2c along z batched over the local (ky, kx) columns.
/// The backward transform runs the same steps in reverse. Unnormalised, like backend/fft.hpp.
/// Arrays of several fields are stored `real_stride()` / `complex_stride()` elements apart (multiples of
/// 16 elements, so every field is aligned as the FFT libraries want).
///
/// Pruned transforms (Modes::kept, asked for per call). The pruning box is the box that bounds the
/// dealiasing mask Grid::kept: |k_d| <= Grid::kept_extent(d) on every axis (2/3 rule: kmax_d; the
/// phase-shift sphere: floor(n_d sqrt(2) / 3)). With Modes::kept,
///   - backward's input MUST be zero at every mode outside the box (the result is then the full
///     transform's, to round-off); a buffer that a c2r transform has overwritten holds garbage there
///     unless its producer wrote every mode again;
///   - forward's output is valid only inside the box; elsewhere it holds unspecified values (finite
///     where `spec` held finite values: rows the pruned transposes skip keep what it held).
/// The transforms skip the lines that only carry modes outside the box: one rank, 3D, (y, x)-plane r2c
/// batched over z and c2c along z over the kept ky rows only (two calls: ky in [0, K_y] and
/// [ny - K_y, ny)); 2D, x-row r2c and c2c along y over the kept kx columns; P ranks, the c2c along a over
/// the kept b-rows of the local range (0, 1 or 2 ranges); pencils, also the c2c along y over the kept
/// local kx columns. A rank that keeps more than 80 % of its rows (the sphere keeps 94 %) runs the full
/// transforms: skipping so little was slower on an H200 (slab_fft.cpp). Slab, P ranks, where the whole b
/// axis keeps at most 80 % of its rows (the 2/3 rule; a decision of the grid, the same on every rank),
/// the transposes move the kept b-rows only (field::SlabShape::rows; a third fewer bytes) and, in 3D, of
/// each the kx columns of the box (SlabShape::columns; a third fewer again, where the transport copies
/// straight between the layouts), and backward zeroes the rest of the a-slab buffer (the other rows, the
/// other columns of the moved ones) before each field's c2r; the pencils' transposes move every row.
/// Modes::all (the default) is the full transform: every mode in, every mode out (the floor the benches
/// time).
///
/// The b side of the slab transposes (field/slab.hpp: the messages of one field, in rank order, are the
/// compact b layout [a][moved rows of the rank][c]). Modes::all, and every rank whose whole block of
/// b-rows is kept: the compact layout is the b-slab one, so the exchange receives into (sends from)
/// `spec` itself and the c2c along a runs in place there. So it does where the exchange copies straight
/// between the layouts (TransposeExchange::copies_between_layouts: a one-sided transport), into and out of
/// spec's kept rows. Otherwise, Modes::kept on a rank that moves only part of
/// its block: the exchange receives into (sends from) a compact buffer, and the c2c along a runs out of
/// place between it and `spec` (forward: compact -> the kept rows of spec; backward: spec -> compact):
/// the unpack (pack) copy of the b side is folded into the transform. Two compact buffers alternate by
/// field, as the pipelined transposes have one field's transpose in flight while the previous field's
/// transform reads (forward) or the next one's writes (backward) its buffer. A rank whose kept ranges
/// cannot all sit at 16-byte-aligned columns of both arrays (single precision, two ranges on one rank)
/// keeps the b-slab path: unpacked into spec, transformed in place.
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "backend/backend.hpp"
#include "backend/fft.hpp"
#include "field/slab.hpp"
#include "spectral/grid.hpp"

namespace eddy::spectral {

/// Which modes a transform serves: all of them, or only those in the box bounding the dealiasing mask
/// (the contract above).
enum class Modes { all, kept };

template <class T>
class SlabFft {
 public:
  using C = backend::Complex<T>;
  /// `overlap`: with several fields and ranks, transpose field by field, each transpose in flight while
  /// the next field's transforms run (bitwise the same result as the batched order, overlap = false).
  SlabFft(const Grid& g, field::TransposeExchange& exchange, bool overlap = true);

  /// Physical fields (`fields` arrays, real_stride() apart) -> spectral fields (complex_stride() apart).
  void forward(const T* phys, C* spec, int fields, Modes modes = Modes::all);
  /// Spectral fields (overwritten) -> physical fields.
  void backward(C* spec, T* phys, int fields, Modes modes = Modes::all);

  /// Whether Modes::kept skips anything on this rank (false: it runs the full transforms).
  bool prunes() const { return prune_a_ || prune_y_ || !moved_b_.empty(); }

  index_t real_stride() const { return real_stride_; }
  index_t complex_stride() const { return complex_stride_; }
  /// Device memory held (buffers and FFT work areas), bytes.
  std::size_t bytes() const { return tmp_.bytes() + ytmp_.bytes() + compact_.bytes() + work_.bytes(); }
  const Grid& grid() const { return g_; }

 private:
  /// The constructor's parts: the plans of the pencil decomposition, or of the slabs (one rank: the whole
  /// transforms), the kept-row transposes of several slabs, and the one work area all plans share.
  void plan_pencils();
  void plan_slabs();
  void plan_kept_transposes();
  void share_work_area();
  /// The b axis of the spectral array [a][b][c]: the half axis kx (2D) or the full ky (3D), and the
  /// extent of the dealiasing mask's box along it.
  bool b_half() const;
  index_t b_extent() const;
  void reserve_tmp(int fields);
  field::SlabShape row_shape() const;
  field::SlabShape column_shape() const;
  /// A batch of c2c transforms along one axis over the columns [first, first + batch) of an array of
  /// `columns` columns (stride `columns`, distance 1): the kept part of a c2c stage.
  struct Columns {
    index_t first;
    backend::FftPlan<T> fwd, bwd;
  };
  /// The kept rows of an axis of `axis` rows of the spectral array (slab_fft.cpp), 1 or 2 ranges.
  static std::vector<field::RowRange> kept_rows(index_t axis, bool half_axis, index_t extent);
  /// Whether keeping `kept` of `rows` rows skips enough to run pruned (the 80 % rule).
  static bool worth_pruning(index_t kept, index_t rows);
  /// The plans (n points along the transform) over the kept ones of this rank's rows [r0, r0 + rows) of
  /// an axis of `axis` rows (a full axis of wave numbers, or the half axis kx >= 0), each row `width`
  /// columns; none when every local row is kept (`pruned` false).
  static std::vector<Columns> kept_columns(index_t n, index_t axis, bool half_axis, index_t extent,
                                           index_t r0, index_t rows, index_t width, bool& pruned);
  /// The slab transpose's shape: Modes::kept moves the kept b-rows only (moved_b_; none: every row), into
  /// the compact buffer where this rank has one (uses_compact).
  field::SlabShape slab_shape(Modes modes) const;
  /// Whether this transform's slab transposes use the compact b buffers.
  bool uses_compact(Modes modes) const { return modes == Modes::kept && !compact_a_.empty(); }
  /// The plans out of place between the compact buffer and spec (the header comment), or none.
  void plan_compact(index_t rows);
  /// Field f's compact buffer (its first row), one of two alternating.
  C* compact(int f) { return compact_.data() + (f % 2) * compact_stride_ + compact_lead_; }
  /// Forward: the compact buffer -> spec's kept rows; backward the other way.
  void compact_along_a(bool fwd, C* buffer, C* spec);
  /// Slab, backward, Modes::kept: zero the rows of one field's a-slab buffer (tmp_) that the transpose
  /// does not write (zeroed_b_), before its c2r transform.
  void zero_skipped_rows(C* a_slab) const;
  /// The c2c transforms along a (in place, one field): all columns, or the kept ones.
  void along_a(bool fwd, C* data, Modes modes);
  /// Pencil: the c2c transforms along y of every z-plane of field f of ytmp_.
  void along_y(bool fwd, int f, Modes modes);
  /// Per field: compute(0, f), transpose 0, compute(1, f), ..., compute(transposes, f), pipelined over the
  /// fields (slab_fft.cpp); start(j, f) / finish(j) start and finish transpose j.
  /// P ranks: the transform's stages and transposes in forward (fwd) or backward order; `real(f)` is the
  /// real transform of field f between its physical array and tmp_ (r2c forward, c2r backward).
  void distributed(bool fwd, const std::function<void(int)>& real, C* spec, int fields, Modes modes);
  void pipeline(int fields, int transposes, const std::function<void(int, int)>& compute,
                const std::function<void(int, int)>& start, const std::function<void(int)>& finish);

  Grid g_;
  field::TransposeExchange& ex_;
  index_t real_stride_ = 0, complex_stride_ = 0, tmp_stride_ = 0;
  std::optional<backend::FftPlan<T>> whole_r2c_, whole_c2r_;  // 1 rank: the full 2D/3D transforms
  // P ranks (and 1 rank when pruning): the plane transforms; pencil: the x-rows
  std::optional<backend::FftPlan<T>> r2c_, c2r_;
  std::optional<backend::FftPlan<T>> along_a_fwd_, along_a_bwd_;  // P ranks only
  std::optional<backend::FftPlan<T>> along_y_fwd_, along_y_bwd_;  // pencil only (one z-plane)
  std::vector<Columns> kept_a_, kept_y_;  // along a (pencil: z) and along y, over the kept rows only
  bool prune_a_ = false, prune_y_ = false;
  // Slab, P ranks, where the whole b axis keeps few enough rows (the same on every rank): the kept
  // b-rows, which the transposes of Modes::kept move, and the others; both empty otherwise.
  std::vector<field::RowRange> moved_b_, zeroed_b_;
  // With them in 3D, the kx columns of the box (field::SlabShape::columns) where that prunes enough; 0:
  // every column.
  index_t moved_columns_ = 0;
  /// A c2c batch between the compact buffer (from its element `in_first` after the lead) and spec (from
  /// `out_first`), one per kept range of this rank; each starts one column early where spec's first
  /// column is not 16-byte aligned (the column before it: see plan_compact).
  struct CompactColumns {
    index_t in_first, out_first;
    backend::FftPlan<T> fwd, bwd;
  };
  std::vector<CompactColumns> compact_a_;  // empty: no compact buffer (the b-slab path)
  index_t compact_stride_ = 0, compact_lead_ = 0;
  backend::DeviceArray<C> compact_;  // two compact buffers, compact_stride_ apart
  backend::DeviceArray<C> tmp_;   // a-slab spectral buffer (P ranks only); pencil: x-pencils [z_l][y_l][kx]
  backend::DeviceArray<C> ytmp_;  // pencil: y-pencils [z_l][y][kx_l], planes y_plane_ apart
  index_t ytmp_stride_ = 0, y_plane_ = 0;
  bool pencil_ = false;
  bool overlap_ = true;
  backend::DeviceArray<char> work_;  // shared FFT work area
};

/// n rounded up to a multiple of 16 (field strides).
inline index_t padded_stride(index_t n) { return (n + 15) / 16 * 16; }

extern template class SlabFft<float>;
extern template class SlabFft<double>;

}  // namespace eddy::spectral
