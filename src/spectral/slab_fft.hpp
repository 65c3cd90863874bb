#pragma once
/// The distributed real-to-complex FFT of a slab- or pencil-decomposed periodic box (spectral/grid.hpp
/// layouts).
///
/// One rank: one full 2D/3D r2c (c2r) transform per field. Slab, P ranks (forward): r2c transforms of the
/// local x(-y) planes into an a-slab buffer, a global transpose to b-slabs (field::SlabExchange), then
/// 1D c2c transforms along a (z in 3D, y in 2D), strided and batched over the local (b, c) columns.
/// Pencil, P1 x P2 ranks (3D, forward): r2c along x of the local x-rows into [z_l][y_l][kx]; a transpose
/// within the row (exchange.row(): y_l -> all y, kx -> kx_l) into [z_l][y][kx_l], z-planes padded; c2c
/// along y, per z-plane batched over kx_l; a transpose within the column (z_l -> all z, y -> ky_l) into
/// [kz][ky_l][kx_l]; c2c along z batched over the local (ky, kx) columns.
/// The backward transform runs the same steps in reverse. Unnormalised, like backend/fft.hpp.
/// Arrays of several fields are stored `real_stride()` / `complex_stride()` elements apart (multiples of
/// 16 elements, so every field is aligned as the FFT libraries want).
#include <functional>
#include <memory>
#include <optional>

#include "backend/backend.hpp"
#include "backend/fft.hpp"
#include "field/slab.hpp"
#include "spectral/grid.hpp"

namespace eddy::spectral {

template <class T>
class SlabFft {
 public:
  using C = backend::Complex<T>;
  /// `overlap`: with several fields and ranks, transpose field by field, each transpose in flight while
  /// the next field's transforms run (bitwise the same result as the batched order, overlap = false).
  SlabFft(const Grid& g, field::SlabExchange& exchange, bool overlap = true);

  /// Physical fields (`fields` arrays, real_stride() apart) -> spectral fields (complex_stride() apart).
  void forward(const T* phys, C* spec, int fields);
  /// Spectral fields (overwritten) -> physical fields.
  void backward(C* spec, T* phys, int fields);

  index_t real_stride() const { return real_stride_; }
  index_t complex_stride() const { return complex_stride_; }
  /// Device memory held (buffers and FFT work areas), bytes.
  std::size_t bytes() const { return tmp_.bytes() + ytmp_.bytes() + work_.bytes(); }
  const Grid& grid() const { return g_; }

 private:
  void reserve_tmp(int fields);
  field::SlabShape row_shape() const;
  field::SlabShape column_shape() const;
  /// Pencil: the c2c transforms along y of every z-plane of field f of ytmp_.
  void along_y(bool fwd, int f);
  /// Per field: compute(0, f), transpose 0, compute(1, f), ..., compute(transposes, f), pipelined over the
  /// fields (slab_fft.cpp); start(j, f) / finish(j) start and finish transpose j.
  /// P ranks: the transform's stages and transposes in forward (fwd) or backward order; `real(f)` is the
  /// real transform of field f between its physical array and tmp_ (r2c forward, c2r backward).
  void distributed(bool fwd, const std::function<void(int)>& real, C* spec, int fields);
  void pipeline(int fields, int transposes, const std::function<void(int, int)>& compute,
                const std::function<void(int, int)>& start, const std::function<void(int)>& finish);

  Grid g_;
  field::SlabExchange& ex_;
  index_t real_stride_ = 0, complex_stride_ = 0, tmp_stride_ = 0;
  std::optional<backend::FftPlan<T>> r2c_, c2r_;  // full (1 rank) or plane transforms (P ranks)
  std::optional<backend::FftPlan<T>> along_a_fwd_, along_a_bwd_;  // P ranks only
  std::optional<backend::FftPlan<T>> along_y_fwd_, along_y_bwd_;  // pencil only (one z-plane)
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
