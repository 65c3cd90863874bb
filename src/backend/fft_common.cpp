// What every FFT library shares: checking a layout, and FftPlan itself (the libraries plug in through
// detail::LibraryPlan: fft_fftw.cpp, fft_gpu.cpp, fft_none.cpp).
#include <string>

#include "backend/fft.hpp"
#include "core/error.hpp"

namespace eddy::backend {
namespace detail {

FftShape resolve(FftKind kind, const FftLayout& l) {
  const std::size_t rank = l.n.size();
  if (rank < 1 || rank > 3) throw Error("FFT plan: 1 to 3 dimensions, got " + std::to_string(rank));
  for (index_t n : l.n)
    if (n < 1) throw Error("FFT plan: transform sizes must be >= 1");
  if (l.batch < 1 || l.stride < 1 || l.out_stride < 0)
    throw Error("FFT plan: batch and stride must be >= 1, out_stride >= 0");
  const bool c2c = kind == FftKind::c2c_forward || kind == FftKind::c2c_backward;
  if (l.out_of_place && !c2c) throw Error("FFT plan: out_of_place is for c2c plans (r2c and c2r always are)");
  if (!l.out_of_place && c2c && l.out_stride > 0 && l.out_stride != l.stride)
    throw Error("FFT plan: an in-place c2c plan has one stride");
  FftShape s;
  s.in_n = s.out_n = l.n;
  const index_t half = l.n.back() / 2 + 1;
  if (kind == FftKind::r2c) s.out_n.back() = half;
  if (kind == FftKind::c2r) s.in_n.back() = half;
  index_t in_size = 1, out_size = 1;
  for (std::size_t d = 0; d < rank; ++d) in_size *= s.in_n[d], out_size *= s.out_n[d];
  s.in_stride = l.stride;
  s.out_stride = l.out_stride > 0 ? l.out_stride : l.stride;
  s.in_dist = l.in_dist > 0 ? l.in_dist : in_size * s.in_stride;
  s.out_dist = l.out_dist > 0 ? l.out_dist : out_size * s.out_stride;
  s.in_points = (l.batch - 1) * s.in_dist + (in_size - 1) * s.in_stride + 1;
  s.out_points = (l.batch - 1) * s.out_dist + (out_size - 1) * s.out_stride + 1;
  return s;
}

}  // namespace detail

template <class T>
FftPlan<T>::FftPlan(FftKind kind, const FftLayout& layout)
    : kind_(kind),
      out_of_place_(layout.out_of_place),
      plan_(detail::make_library_plan<T>(kind, layout, detail::resolve(kind, layout))) {}

template <class T>
void FftPlan<T>::execute(const T* in, Complex<T>* out) const {
  if (kind_ != FftKind::r2c) throw Error("FFT execute: real input given to a plan that is not r2c");
  plan_->r2c(in, out);
}

template <class T>
void FftPlan<T>::execute(Complex<T>* in, T* out) const {
  if (kind_ != FftKind::c2r) throw Error("FFT execute: real output asked of a plan that is not c2r");
  plan_->c2r(in, out);
}

template <class T>
void FftPlan<T>::execute(Complex<T>* data) const {
  if (kind_ == FftKind::r2c || kind_ == FftKind::c2r)
    throw Error("FFT execute: in-place call of an r2c/c2r plan");
  if (out_of_place_) throw Error("FFT execute: in-place call of an out-of-place c2c plan");
  plan_->c2c(data, data, kind_ == FftKind::c2c_forward);
}

template <class T>
void FftPlan<T>::execute_out_of_place(Complex<T>* in, Complex<T>* out) const {
  if (!out_of_place_) throw Error("FFT execute: out-of-place call of a plan that is not out-of-place c2c");
  if (in == out) throw Error("FFT execute: an out-of-place transform's input and output are one array");
  plan_->c2c(in, out, kind_ == FftKind::c2c_forward);
}

template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace eddy::backend
