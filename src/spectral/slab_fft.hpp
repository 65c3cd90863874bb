#pragma once
/// The distributed real-to-complex FFT of a slab-decomposed periodic box (spectral/grid.hpp layouts).
///
/// One rank: one full 2D/3D r2c (c2r) transform per field. P ranks (forward): r2c transforms of the
/// local x(-y) planes into an a-slab buffer, a global transpose to b-slabs (field::SlabExchange), then
/// 1D c2c transforms along a (z in 3D, y in 2D), strided and batched over the local (b, c) columns.
/// The backward transform runs the same steps in reverse. Unnormalised, like backend/fft.hpp.
/// Arrays of several fields are stored `real_stride()` / `complex_stride()` elements apart (multiples of
/// 16 elements, so every field is aligned as the FFT libraries want).
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
  SlabFft(const Grid& g, field::SlabExchange& exchange);

  /// Physical fields (`fields` arrays, real_stride() apart) -> spectral fields (complex_stride() apart).
  void forward(const T* phys, C* spec, int fields);
  /// Spectral fields (overwritten) -> physical fields.
  void backward(C* spec, T* phys, int fields);

  index_t real_stride() const { return real_stride_; }
  index_t complex_stride() const { return complex_stride_; }
  /// Device memory held (buffers and FFT work areas), bytes.
  std::size_t bytes() const { return tmp_.bytes() + work_.bytes(); }
  const Grid& grid() const { return g_; }

 private:
  void reserve_tmp(int fields);

  Grid g_;
  field::SlabExchange& ex_;
  index_t real_stride_ = 0, complex_stride_ = 0, tmp_stride_ = 0;
  std::optional<backend::FftPlan<T>> r2c_, c2r_;  // full (1 rank) or plane transforms (P ranks)
  std::optional<backend::FftPlan<T>> along_a_fwd_, along_a_bwd_;  // P ranks only
  backend::DeviceArray<C> tmp_;                                   // a-slab spectral buffer (P ranks only)
  backend::DeviceArray<char> work_;                               // shared FFT work area
};

/// n rounded up to a multiple of 16 (field strides).
inline index_t padded_stride(index_t n) { return (n + 15) / 16 * 16; }

extern template class SlabFft<float>;
extern template class SlabFft<double>;

}  // namespace eddy::spectral
